/**
 * The contract family's state transitions (state/appliers/contracts.ts) and the 105 the miner builds for an
 * execution (result.ts), with WE's messages, on a MutableState over a real store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import {
  applyCallContract,
  applyCreateContract,
  applyDisableContract,
  applyExecutedContract,
  applyUpdateContract,
} from '../../src/state/appliers/contracts.js';
import { rulesFor } from '../../src/state/appliers/index.js';
import { buildExecutedContract, type ExecutionResult } from '../../src/contracts/result.js';
import { FEATURE } from '../../src/protocol/features.js';
import {
  contractResultsHash,
  DisableContract,
  EXECUTABLE_CONTRACT_TYPES,
  ExecutedContract,
  type DisableContractTransaction,
  type ExecutedContractTransaction,
} from '../../src/protocol/transactions/contracts.js';
import { ROLES } from '../../src/protocol/transactions/permissions.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { APPLY_CONTEXT, BLOCK, callTx, callV7, createTx, createV7, developer, fund, node, protocol, updateTx } from '../../devkit/contracts/engine.js';
import { ContractTestState } from '../../devkit/contracts/state.js';
import { WeError } from '../../src/errors/catalogue.js';

const POOL = { ...APPLY_CONTEXT, blockGenerator: undefined };
const HASH = 'cd'.repeat(32);
const stranger = protocol.crypto.keyPairFromSeedPhrase('weft contract tests stranger');
const addressOf = (pk: Uint8Array): Uint8Array => protocol.addresses.fromPublicKey(pk).bytes;

function fresh(): ContractTestState {
  const state = ContractTestState.create(protocol);
  fund(state);
  fund(state, stranger);
  return state;
}

const success = (contractId: Uint8Array, entries: Array<[string, bigint]>): ExecutionResult => ({
  kind: 'success',
  results: [{ contractId, results: entries.map(([key, value]) => ({ key, type: 'integer', value })) }],
  assetOperations: [],
});

function mine(state: ContractTestState, tx: Transaction, result: ExecutionResult, features: (id: number) => boolean = () => true): Transaction {
  const built = buildExecutedContract(tx, result, { protocol, isFeatureActive: features, miner: node, timestamp: BLOCK.timestamp });
  assert.equal(built.kind, 'built');
  if (built.kind !== 'built') throw new Error('unreachable');
  applyExecutedContract(state, built.executed, APPLY_CONTEXT);
  return built.executed;
}

const weCode = (code: number, message?: RegExp) => (e: unknown) =>
  e instanceof WeError && e.code === code && (message === undefined || message.test(e.message));

describe('contract transactions on their own', () => {
  it('check and apply a 103 for the pool: the contract registered, the fee and the payments taken', () => {
    const state = fresh();
    const create = createTx('kv:1', HASH, { start: 1 });
    const sender = addressOf(developer.publicKey);
    const before = state.balance(sender, null);
    applyCreateContract(state, create, POOL);
    assert.equal(state.contract(create.id)?.version, 1);
    assert.equal(state.balance(sender, null), before - create.fee);
  });

  it('are refused inside a block: they are only mined inside their 105', () => {
    const state = fresh();
    const create = createTx('kv:1', HASH, {});
    assert.throws(
      () => applyCreateContract(state, create, APPLY_CONTEXT),
      weCode(199, new RegExp(`Executable transaction with id = ${create.idBase58}, type = 103 wasn't executed`)),
    );
    assert.throws(() => applyCallContract(state, callTx(create.id, {}), APPLY_CONTEXT), /wasn't executed/);
    assert.throws(() => applyUpdateContract(state, updateTx(create.id, 'kv:2', HASH), APPLY_CONTEXT), /wasn't executed/);
  });

  it('a call needs an existing, active contract of the version it names', () => {
    const state = fresh();
    const create = createTx('kv:1', HASH, {});
    assert.throws(() => applyCallContract(state, callTx(create.id, {}), POOL), weCode(600, /Contract '\w+' is not found/));
    applyCreateContract(state, create, POOL);
    assert.throws(
      () => applyCallContract(state, callTx(create.id, {}, 2), POOL),
      weCode(199, /Called version '2' of contract with id '\w+' doesn't match actual contract version '1'/),
    );
    assert.throws(() => applyCallContract(state, callV7(create.id, 'wasm', null, {}), POOL), /Unexpected callFunc None for contract/);
    assert.throws(() => applyCallContract(state, callV7(create.id, 'wasm', '_constructor', {}), POOL), /Unexpected callFunc Some\(_constructor\)/);
    assert.doesNotThrow(() => applyCallContract(state, callV7(create.id, 'docker', null, {}), POOL));
    const payNothing = callV7(create.id, 'docker', null, {}, [{ assetId: new Uint8Array(32).fill(4), amount: 1n }]);
    assert.throws(() => applyCallContract(state, payNothing, POOL), /Attempt to transfer a nonexistent asset/);
  });

  it('106 disables a contract, only by its creator and only once; calls then fail with 602', () => {
    const state = fresh();
    const create = createTx('kv:1', HASH, {});
    applyCreateContract(state, create, POOL);
    const disable = (key: typeof developer): DisableContractTransaction =>
      protocol.sign(
        protocol.transaction(DisableContract, 2, {
          senderPublicKey: key.publicKey,
          contractId: create.id,
          fee: 1_000_000n,
          timestamp: BLOCK.timestamp,
          feeAssetId: null,
        }),
        key.privateKey,
      );
    assert.throws(
      () => applyDisableContract(state, disable(stranger), APPLY_CONTEXT),
      /Can't disable contract: transaction sender '\w+' is not developer of contract/,
    );
    applyDisableContract(state, disable(developer), APPLY_CONTEXT);
    assert.equal(state.contract(create.id)?.active, false);
    assert.throws(() => applyDisableContract(state, disable(developer), APPLY_CONTEXT), weCode(603, /has been already disabled/));
    assert.throws(() => applyCallContract(state, callTx(create.id, {}), POOL), weCode(602, /has been disabled. You cannot call disabled contract/));
    assert.equal(rulesFor(106)?.apply, applyDisableContract);
  });

  it('107 replaces the image and counts the version, by the creator only, never across engines', () => {
    const state = fresh();
    const create = createTx('kv:1', HASH, {});
    applyCreateContract(state, create, POOL);
    assert.throws(() => applyUpdateContract(state, updateTx(create.id, 'kv:2', HASH, stranger), POOL), /is not equal to contract creator/);
    applyUpdateContract(state, updateTx(create.id, 'kv:2', 'ef'.repeat(32)), POOL);
    const info = state.contract(create.id)!;
    assert.equal(info.version, 2);
    assert.deepEqual(info.storedContract, { engine: 'docker', image: 'kv:2', imageHash: 'ef'.repeat(32), apiVersion: { major: 1, minor: 0 } });
    const wasm = createV7({ engine: 'wasm', bytecode: new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), bytecodeHash: 'ab'.repeat(32) }, []);
    assert.throws(() => applyCreateContract(state, wasm, POOL), /Invalid bytecodeHash for contract/);
  });

  it('declares the family in the chain rules: appliers, roles, what only the engine executes', () => {
    assert.deepEqual(
      [103, 104, 105, 106, 107].map((type) => [type, rulesFor(type)?.roles?.(undefined as never) ?? [], EXECUTABLE_CONTRACT_TYPES.has(type)]),
      [
        [103, ['contract_developer'], true],
        [104, [], true],
        [105, [], false],
        [106, [], false],
        [107, ['contract_developer'], true],
      ],
    );
    assert.equal(rulesFor(105)?.apply, applyExecutedContract);
    assert.equal(rulesFor(104)?.apply, applyCallContract);
  });
});

describe('ExecutedContract (105)', () => {
  it('applies the embedded transaction, the results and the executed-tx mapping; the miner gets the fee', () => {
    const state = fresh();
    const create = createTx('kv:1', HASH, { start: 3 });
    const built = buildExecutedContract(create, success(create.id, [['counter', 3n]]), {
      protocol,
      isFeatureActive: () => true,
      miner: node,
      timestamp: BLOCK.timestamp,
    });
    assert.ok(built.kind === 'built');
    const fee = applyExecutedContract(state, built.executed, APPLY_CONTEXT);
    assert.deepEqual(fee, { fee: create.fee });
    assert.deepEqual(state.contractData(create.id, 'counter'), { key: 'counter', type: 'integer', value: 3n });
    assert.equal(encodeBase58(state.executedTxFor(create.id)!), built.executed.idBase58);
    assert.throws(
      () => applyExecutedContract(state, built.executed, APPLY_CONTEXT),
      new RegExp(`Executable transaction ${create.idBase58} has been already executed`),
    );
  });

  it('is only taken from the block generator, and needs a block', () => {
    const state = fresh();
    const create = createTx('kv:1', HASH, {});
    const built = buildExecutedContract(create, success(create.id, []), { protocol, isFeatureActive: () => true, miner: stranger, timestamp: BLOCK.timestamp });
    assert.ok(built.kind === 'built');
    assert.throws(() => applyExecutedContract(state, built.executed, APPLY_CONTEXT), /should be created only by block creator/);
    assert.throws(() => applyExecutedContract(state, built.executed, POOL), /Block or microblock is needed to validate this transaction/);
  });

  it('checks the results hash against the results', () => {
    const state = fresh();
    const create = createTx('kv:1', HASH, {});
    const forged = protocol.sign(
      protocol.transaction(ExecutedContract, 3, {
        senderPublicKey: node.publicKey,
        tx: create,
        results: [{ key: 'a', type: 'integer', value: 1n }],
        resultsHash: contractResultsHash(protocol, [{ key: 'a', type: 'integer', value: 2n }]),
        validationProofs: [],
        timestamp: BLOCK.timestamp,
        assetOperations: [],
      }),
      node.privateKey,
    );
    assert.throws(() => applyExecutedContract(state, forged, APPLY_CONTEXT), /Invalid results hash. Actual '\w+', expected '\w+'\./);
  });

  it("a V5 with a non-zero status keeps only the embedded transaction's own changes", () => {
    const state = fresh();
    const create = createV7({ engine: 'docker', image: 'kv:1', imageHash: HASH, apiVersion: { major: 1, minor: 0 } }, {});
    const executed = mine(state, create, { kind: 'error', code: 2, message: 'no' });
    assert.ok(ExecutedContract.is(executed) && executed.version === 5 && executed.data.statusCode === 2);
    assert.equal(state.contract(create.id)?.active, true, 'the contract is registered all the same');
    assert.deepEqual(state.contractKeys(create.id), []);
  });

  it('a majority policy needs proofs of two thirds of the contract validators, each over the results hash', () => {
    const state = fresh();
    const validators = [0, 1, 2].map((i) => protocol.crypto.keyPairFromSeedPhrase(`weft contract validator ${i}`));
    for (const v of validators)
      state.addPermissionOp(addressOf(v.publicKey), { opType: 'add', role: ROLES.contract_validator, timestamp: 0n, dueTimestamp: null });
    const create = protocol.sign(
      protocol.transaction(createTx('kv:1', HASH, {}).codec, 5, { ...createTx('kv:1', HASH, {}).data, validationPolicy: { type: 'majority' } }),
      developer.privateKey,
    );
    const result = success(create.id, [['x', 1n]]);
    const build = (signers: typeof validators): ExecutedContractTransaction => {
      const hash = contractResultsHash(protocol, [{ key: 'x', type: 'integer', value: 1n }]);
      const proofs = signers.map((v) => ({ validatorPublicKey: v.publicKey, signature: protocol.crypto.sign(v.privateKey, hash) }));
      const built = buildExecutedContract(create, result, {
        protocol,
        isFeatureActive: () => true,
        miner: node,
        timestamp: BLOCK.timestamp,
        validationProofs: proofs,
      });
      assert.ok(built.kind === 'built');
      return built.executed;
    };
    assert.throws(
      () => applyExecutedContract(state, build(validators.slice(0, 1)), APPLY_CONTEXT),
      /Invalid validation proofs for results hash '\w+'. Actual '1', expected '2'/,
    );
    assert.doesNotThrow(() => applyExecutedContract(state, build(validators.slice(0, 2)), APPLY_CONTEXT));
  });

  it('refuses an embedded transaction that is not signed by its sender, or whose sender lacks the role', () => {
    const state = fresh();
    const unsigned = createTx('kv:1', HASH, {}).withProofs([new Uint8Array(64)]);
    const built = buildExecutedContract(unsigned, success(unsigned.id, []), { protocol, isFeatureActive: () => true, miner: node, timestamp: BLOCK.timestamp });
    assert.ok(built.kind === 'built');
    assert.throws(() => applyExecutedContract(state, built.executed, APPLY_CONTEXT), /proof doesn't validate as signature/);
    const outsider = protocol.crypto.keyPairFromSeedPhrase('weft contract tests outsider');
    const byOutsider = createTx('kv:1', HASH, {}, outsider);
    assert.throws(() => mine(state, byOutsider, success(byOutsider.id, [])), /Has no active 'contract_developer' role/);
  });
});

describe('the 105 an execution gets', () => {
  const create = createTx('kv:1', HASH, {});
  const build = (result: ExecutionResult, active: readonly number[]) =>
    buildExecutedContract(create, result, { protocol, isFeatureActive: (id) => active.includes(id), miner: node, timestamp: BLOCK.timestamp });
  const versionOf = (b: ReturnType<typeof build>): number | string => (b.kind === 'built' ? b.executed.version : b.kind);

  it('follows the features for legacy transactions: V1, V2 after 162, V3 after 1120', () => {
    const ok = success(create.id, [['a', 1n]]);
    assert.equal(versionOf(build(ok, [])), 1);
    assert.equal(versionOf(build(ok, [FEATURE.CONTRACT_VALIDATIONS])), 2);
    assert.equal(versionOf(build(ok, [FEATURE.CONTRACT_VALIDATIONS, FEATURE.CONTRACT_NATIVE_TOKENS_AND_PKI])), 3);
    assert.equal(versionOf(build({ kind: 'update' }, [FEATURE.CONTRACT_VALIDATIONS, FEATURE.CONTRACT_NATIVE_TOKENS_AND_PKI])), 1);
  });

  it('refuses asset operations before feature 1120 and lease operations before 1123, and results with bad keys', () => {
    const withOps: ExecutionResult = {
      kind: 'success',
      results: [],
      assetOperations: [{ contractId: create.id, operations: [{ operationType: 'cancel-lease', leaseId: new Uint8Array(32) }] }],
    };
    // A legacy transaction leaves the pool with WE's creation-error Failure (WE itself keeps it, without a status, for ever).
    const noTokens = build(withOps, [FEATURE.CONTRACT_VALIDATIONS]);
    assert.ok(noTokens.kind === 'none' && !noTokens.staysInPool && /BaseAssetOpsNotSupported/.test(noTokens.reason));
    assert.deepEqual(noTokens.status, {
      status: 'Failure',
      code: null,
      message: "Executed transaction creation error: 'BaseAssetOpsNotSupported(BaseAssetOpsNotSupported)'",
    });
    const noLeases = build(withOps, [FEATURE.CONTRACT_VALIDATIONS, FEATURE.CONTRACT_NATIVE_TOKENS_AND_PKI]);
    assert.ok(noLeases.kind === 'none' && /LeaseAssetOpsNotSupported/.test(noLeases.reason));
    const badKeys = success(create.id, [['', 1n]]);
    const legacy = build(badKeys, [FEATURE.CONTRACT_VALIDATIONS]);
    assert.ok(legacy.kind === 'none' && !legacy.staysInPool, 'a legacy transaction leaves the pool');
    assert.equal(legacy.status?.status, 'Failure');
    assert.match(legacy.status?.message ?? '', /^Executed transaction creation error: '.*Result with empty key was found/);
    const v7 = createV7({ engine: 'docker', image: 'kv:1', imageHash: HASH, apiVersion: { major: 1, minor: 0 } }, {});
    const v5 = buildExecutedContract(v7, success(v7.id, [['', 1n]]), { protocol, isFeatureActive: () => true, miner: node, timestamp: BLOCK.timestamp });
    assert.ok(v5.kind === 'built' && ExecutedContract.is(v5.executed));
    assert.equal(v5.executed.data.statusCode, 1);
    assert.match(v5.executed.data.errorMessage ?? '', /Result with empty key was found/);
    assert.equal(v5.status?.status, 'Failure');
  });
});
