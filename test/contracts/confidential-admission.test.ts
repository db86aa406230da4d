/**
 * Admission of confidential contracts (103 V6 `isConfidential` with its groups, 107 V5 group
 * changes) with WE's messages, on a MutableState over a real store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Address } from '../../src/crypto/address.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { WeError } from '../../src/errors/catalogue.js';
import { UpdateContract, type CreateContractTransaction, type UpdateContractTransaction } from '../../src/protocol/transactions/contracts.js';
import { ROLES } from '../../src/protocol/transactions/permissions.js';
import { applyCreateContract, applyUpdateContract } from '../../src/state/appliers/contracts.js';
import { APPLY_CONTEXT, BLOCK, developer, fund, protocol } from '../../devkit/contracts/engine.js';
import { confidentialCreate } from './support/confidential.js';
import { ContractTestState } from '../../devkit/contracts/state.js';

const POOL = { ...APPLY_CONTEXT, blockGenerator: undefined };
const HASH = 'cd'.repeat(32);
const keys = (name: string, n: number): KeyPair[] =>
  Array.from({ length: n }, (_, i) => protocol.crypto.keyPairFromSeedPhrase(`weft confidential ${name} ${i}`));
const validators = keys('validator', 3);
const outsider = keys('outsider', 1)[0]!;
const addressOf = (k: KeyPair): Address => protocol.addresses.fromPublicKey(k.publicKey);
const addresses = (list: readonly KeyPair[]): Address[] => list.map(addressOf);
const weError = (code: number, message: RegExp) => (e: unknown) => e instanceof WeError && e.code === code && message.test(e.message);

let clock = BLOCK.timestamp;

function fresh(): ContractTestState {
  const state = ContractTestState.create(protocol);
  fund(state);
  for (const v of validators) state.addPermissionOp(addressOf(v).bytes, { opType: 'add', role: ROLES.contract_validator, timestamp: 0n, dueTimestamp: null });
  return state;
}

interface Groups {
  readonly isConfidential: boolean;
  readonly participants: readonly Address[];
  readonly owners: readonly Address[];
  readonly payments?: readonly { assetId: Uint8Array | null; amount: bigint }[];
}

function create(g: Groups): CreateContractTransaction {
  return confidentialCreate(protocol, {
    sender: developer,
    timestamp: clock++,
    isConfidential: g.isConfidential,
    participants: g.participants,
    owners: g.owners,
    payments: g.payments ?? [],
  });
}

function update(contractId: Uint8Array, participants: readonly Address[], owners: readonly Address[]): UpdateContractTransaction {
  return protocol.sign(
    protocol.transaction(UpdateContract, 5, {
      senderPublicKey: developer.publicKey,
      contractId,
      image: 'kv:2',
      imageHash: HASH,
      fee: 100_000_000n,
      timestamp: clock++,
      feeAssetId: null,
      atomicBadge: null,
      validationPolicy: { type: 'any' },
      apiVersion: { major: 1, minor: 0 },
      groupParticipants: participants,
      groupOwners: owners,
    }),
    developer.privateKey,
  );
}

describe('a confidential CreateContract', () => {
  it('is admitted with an owner and three validator participants; its info carries the groups', () => {
    const state = fresh();
    const tx = create({ isConfidential: true, participants: addresses(validators), owners: [addressOf(developer)] });
    applyCreateContract(state, tx, POOL);
    const info = state.contract(tx.id)!;
    assert.equal(info.isConfidential, true);
    assert.deepEqual(info.groupParticipants.map(String), addresses(validators).map(String));
    assert.deepEqual(info.groupOwners.map(String), [addressOf(developer).toString()]);
  });

  it('needs at least one group owner', () => {
    assert.throws(
      () => applyCreateContract(fresh(), create({ isConfidential: true, participants: addresses(validators), owners: [] }), POOL),
      weError(199, /^'groupOwners' field can't be empty list, it must contain at least 1 element$/),
    );
  });

  it('needs three participants holding contract_validator; other participants do not count', () => {
    const tx = create({ isConfidential: true, participants: [...addresses(validators.slice(0, 2)), addressOf(outsider)], owners: [addressOf(developer)] });
    assert.throws(
      () => applyCreateContract(fresh(), tx, POOL),
      weError(
        199,
        /^Not enough group participants with role 'contract-validator' to create confidential data contract, minimum is '3', actual: '2'. Common validators size: '3'$/,
      ),
    );
  });

  it('may hold no more than 1024 addresses in a group', () => {
    const many = Array.from({ length: 1025 }, (_, i) => protocol.addresses.fromPublicKey(new Uint8Array(32).fill(i & 255).fill(i >> 8, 0, 1)));
    const tx = create({ isConfidential: true, participants: addresses(validators), owners: many });
    assert.throws(
      () => applyCreateContract(fresh(), tx, POOL),
      weError(199, /^Maximum 'groupParticipants' and 'groupOwners' size is 1024, actual: len\(groupParticipants\) = 3, len\(groupOwners\) = 1025$/),
    );
  });

  it('carries no payments', () => {
    const tx = create({ isConfidential: true, participants: addresses(validators), owners: [addressOf(developer)], payments: [{ assetId: null, amount: 5n }] });
    assert.throws(
      () => applyCreateContract(fresh(), tx, POOL),
      weError(199, /^Native token operations are not supported for confidential contracts, so payment field must be empty when 'isConfidential' = true$/),
    );
  });

  it('a non-confidential one must leave both groups empty', () => {
    const tx = create({ isConfidential: false, participants: [], owners: [addressOf(developer)] });
    assert.throws(
      () => applyCreateContract(fresh(), tx, POOL),
      weError(199, /^'groupParticipants' and 'groupOwners' fields can't be non-empty lists when 'isConfidential' = false$/),
    );
    assert.doesNotThrow(() => applyCreateContract(fresh(), create({ isConfidential: false, participants: [], owners: [] }), POOL));
  });
});

describe('an UpdateContract of the groups', () => {
  it('is admitted from the creator when the creator is a group owner, and replaces the groups', () => {
    const state = fresh();
    const tx = create({ isConfidential: true, participants: addresses(validators), owners: [addressOf(developer)] });
    applyCreateContract(state, tx, POOL);
    applyUpdateContract(state, update(tx.id, [...addresses(validators), addressOf(outsider)], [addressOf(developer)]), POOL);
    assert.equal(state.contract(tx.id)!.groupParticipants.length, 4);
    assert.equal(state.contract(tx.id)!.version, 2);
  });

  it('is refused when the sender is not a group owner', () => {
    const state = fresh();
    const tx = create({ isConfidential: true, participants: addresses(validators), owners: [addressOf(validators[0]!)] });
    applyCreateContract(state, tx, POOL);
    assert.throws(
      () => applyUpdateContract(state, update(tx.id, addresses(validators.slice(0, 2)), [addressOf(validators[0]!)]), POOL),
      weError(
        199,
        new RegExp(
          `^Tx's sender '${addressOf(developer).toString()}' doesn't belong to confidential contract group owners, so it can't change related fields 'groupOwners' and 'groupParticipants$`,
        ),
      ),
    );
    // The same groups (in another order) are no change: the creator may update the image.
    assert.doesNotThrow(() => applyUpdateContract(state, update(tx.id, addresses(validators).reverse(), [addressOf(validators[0]!)]), POOL));
  });

  it('is refused on a non-confidential contract, and the new groups obey the create rules', () => {
    const state = fresh();
    const plain = create({ isConfidential: false, participants: [], owners: [] });
    applyCreateContract(state, plain, POOL);
    assert.throws(
      () => applyUpdateContract(state, update(plain.id, addresses(validators), [addressOf(developer)]), POOL),
      /because confidential data is turned off\('isConfidential' = false\)/,
    );
    const secret = create({ isConfidential: true, participants: addresses(validators), owners: [addressOf(developer)] });
    applyCreateContract(state, secret, POOL);
    assert.throws(
      () => applyUpdateContract(state, update(secret.id, addresses(validators.slice(1)), [addressOf(developer)]), POOL),
      /minimum is '3', actual: '2'/,
    );
  });
});
