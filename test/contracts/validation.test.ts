/**
 * Validation policies (reference contracts.md §1.8): the validators' results message (P2P
 * code 32, WE's ContractValidatorResultsV1Spec bytes), the miner's store of them, the
 * majority and one-of rules that decide when a 105 may be mined and which proofs it
 * carries, the strictest policy of a multi-contract execution, and every way a node
 * applying a 105 refuses its proofs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildExecutedContract, hasResultsHash, resultsHashOf, type ExecutionResult } from '../../src/contracts/result.js';
import { ValidationGate } from '../../src/contracts/validation-gate.js';
import {
  agreementKey,
  decodeValidatorResult,
  encodeValidatorResult,
  enoughResults,
  heldResult,
  majoritySize,
  refusalOf,
  selectProofs,
  signValidatorResult,
  strictestPolicy,
  validatorResultLength,
  validatorResultSignatureHolds,
  ValidatorResultsStore,
  type ContractValidatorResult,
  type HeldValidatorResult,
} from '../../src/contracts/validator-results.js';
import { DecodeError, WeError } from '../../src/errors/catalogue.js';
import {
  contractResultsHash,
  CreateContract,
  ExecutedContract,
  type CreateContractTransaction,
  type ExecutedContractTransaction,
  type ValidationPolicy,
  type ValidationProof,
} from '../../src/protocol/transactions/contracts.js';
import { ROLES } from '../../src/protocol/transactions/permissions.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { applyExecutedContract, applyOwnExecutedContract } from '../../src/state/appliers/contracts.js';
import { rulesFor, type ApplyContext } from '../../src/state/appliers/index.js';
import type { DataEntry } from '../../src/protocol/transactions/fields.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { equalBytes } from '../../src/crypto/encoding.js';
import type { ChainEvent } from '../../src/chain/blockchain.js';
import { APPLY_CONTEXT, BLOCK, callV7, createTx, developer, fund, keyBlockValidators, node, protocol } from '../../devkit/contracts/engine.js';
import { ContractTestState } from '../../devkit/contracts/state.js';

const HASH = 'cd'.repeat(32);
const validators = [0, 1, 2, 3].map((i) => protocol.crypto.keyPairFromSeedPhrase(`weft contract validator ${i}`));
const outsider = protocol.crypto.keyPairFromSeedPhrase('weft contract tests not a validator');
const addressText = (pk: Uint8Array): string => protocol.addresses.fromPublicKey(pk).toString();
const KEY_BLOCK = new Uint8Array(64).fill(7);
const TX_ID = new Uint8Array(32).fill(9);
const hashOf = (n: bigint): Uint8Array => contractResultsHash(protocol, [{ key: 'x', type: 'integer', value: n }]);

const result = (signer: (typeof validators)[number], hash: Uint8Array, txId = TX_ID): ContractValidatorResult =>
  signValidatorResult(protocol, signer, txId, KEY_BLOCK, hash);
/** A result as the store holds it. */
const held = (signer: (typeof validators)[number], hash: Uint8Array): HeldValidatorResult => heldResult(protocol, result(signer, hash));
/** The agreement key of a plain (V1) results hash. */
const agreeing = (hash: Uint8Array): string => agreementKey(protocol, hash, undefined);
const setOf = (...keys: Array<(typeof validators)[number]>) => ({ addresses: new Set(keys.map((k) => addressText(k.publicKey))) });
const oneOf = (...keys: Array<(typeof validators)[number]>): ValidationPolicy => ({
  type: 'majority_with_one_of',
  addresses: keys.map((k) => protocol.addresses.fromPublicKey(k.publicKey)),
});

describe('ContractValidatorResults (P2P code 32)', () => {
  it('is sender key, txId, keyBlockId, resultsHash and a signature over the results hash, nothing else', () => {
    const r = result(validators[0]!, hashOf(1n));
    const bytes = encodeValidatorResult(protocol, r);
    // WE's maxLength: KeyLength + 2 × DigestSize + 2 × SignatureLength.
    assert.equal(bytes.length, 32 + 2 * 32 + 2 * 64);
    assert.equal(validatorResultLength(protocol), bytes.length);
    assert.deepEqual(bytes.subarray(0, 32), validators[0]!.publicKey);
    assert.deepEqual(bytes.subarray(32, 64), TX_ID);
    assert.deepEqual(bytes.subarray(64, 128), KEY_BLOCK);
    assert.deepEqual(bytes.subarray(128, 160), hashOf(1n));
    assert.ok(protocol.crypto.verify(validators[0]!.publicKey, hashOf(1n), bytes.subarray(160)));
    const back = decodeValidatorResult(protocol, bytes);
    assert.deepEqual(back, r);
    assert.ok(validatorResultSignatureHolds(protocol, back));
    assert.ok(!validatorResultSignatureHolds(protocol, { ...back, resultsHash: hashOf(2n) }), 'the signature covers the results hash');
  });

  it('from a peer, is kept only with a valid signature, from a validator, for a transaction in the pool', () => {
    const intake = { isValidator: (pk: Uint8Array) => addressText(pk) !== addressText(outsider.publicKey), inPool: (id: Uint8Array) => id[0] === TX_ID[0] };
    const good = result(validators[0]!, hashOf(1n));
    assert.equal(refusalOf(protocol, good, intake), undefined);
    assert.equal(refusalOf(protocol, { ...good, signature: result(validators[0]!, hashOf(2n)).signature }, intake), 'wrong signature');
    assert.equal(refusalOf(protocol, result(outsider, hashOf(1n)), intake), 'sender is not a contract validator');
    assert.equal(refusalOf(protocol, result(validators[0]!, hashOf(1n), new Uint8Array(32)), intake), 'transaction not in the pool');
  });

  it('refuses bytes of another length', () => {
    const bytes = encodeValidatorResult(protocol, result(validators[0]!, hashOf(1n)));
    assert.throws(() => decodeValidatorResult(protocol, bytes.subarray(0, bytes.length - 1)), DecodeError);
    assert.throws(() => decodeValidatorResult(protocol, new Uint8Array([...bytes, 0])), DecodeError);
  });
});

describe("the store of validators' results", () => {
  it('keeps one result per validator and hash, per key block and transaction, in arrival order', () => {
    let now = 0n;
    const store = new ValidatorResultsStore({ protocol, now: () => now, maxResults: 10, expireAfterMs: 1000 });
    assert.ok(store.add(result(validators[0]!, hashOf(1n))));
    assert.ok(!store.add(result(validators[0]!, hashOf(1n))), 'the same result twice is kept once');
    assert.ok(store.add(result(validators[1]!, hashOf(1n))));
    assert.ok(store.add(result(validators[0]!, hashOf(1n), new Uint8Array(32).fill(1))));
    assert.deepEqual(
      store.find(KEY_BLOCK, TX_ID).map((r) => addressText(r.senderPublicKey)),
      [addressText(validators[0]!.publicKey), addressText(validators[1]!.publicKey)],
    );
    assert.deepEqual(store.find(new Uint8Array(64), TX_ID), [], 'results are per key block');
    now = 1000n;
    assert.deepEqual(store.find(KEY_BLOCK, TX_ID), [], 'dropped once expired');
    assert.equal(store.size, 0);
  });

  it('holds at most max-results, dropping the oldest', () => {
    const store = new ValidatorResultsStore({ protocol, now: () => 0n, maxResults: 3, expireAfterMs: 60_000 });
    for (let i = 0n; i < 5n; i++) store.add(result(validators[0]!, hashOf(i)));
    assert.equal(store.size, 3);
    assert.deepEqual(
      store.find(KEY_BLOCK, TX_ID).map((r) => r.resultsHash),
      [hashOf(2n), hashOf(3n), hashOf(4n)],
    );
  });
});

describe('the results hash of an execution', () => {
  it('exists exactly when hasResultsHash says so (the gate hashes only under a policy other than any)', () => {
    const results: ExecutionResult[] = [
      { kind: 'success', results: [], assetOperations: [] },
      { kind: 'update' },
      { kind: 'error', code: 2, message: 'no' },
      { kind: 'failure', code: undefined, message: 'no', fatal: false },
    ];
    for (const tx of [createTx('kv:1', HASH, {}), callV7(new Uint8Array(32).fill(7), 'wasm', 'f', {})]) {
      for (const r of results) assert.equal(hasResultsHash(tx, r), resultsHashOf(protocol, tx, r) !== undefined, `${tx.type} v${tx.version} ${r.kind}`);
    }
  });
});

describe('majority and proofs', () => {
  const three = setOf(validators[0]!, validators[1]!, validators[2]!);

  it('the majority is ceil(2/3 × V)', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map(majoritySize), [1, 2, 2, 3, 4, 4, 5]);
  });

  it("majority: the largest group agreeing on one hash must reach it; others' results and other hashes do not count", () => {
    const h = hashOf(1n);
    assert.ok(!enoughResults({ type: 'majority' }, three, [held(validators[0]!, h)]));
    assert.ok(!enoughResults({ type: 'majority' }, three, [held(validators[0]!, h), held(validators[1]!, hashOf(2n))]));
    assert.ok(!enoughResults({ type: 'majority' }, three, [held(validators[0]!, h), held(outsider, h)]), 'a non-validator does not count');
    assert.ok(enoughResults({ type: 'majority' }, three, [held(validators[0]!, h), held(validators[2]!, h)]));
    assert.ok(!enoughResults({ type: 'majority' }, setOf(), []), 'no validators: never');
    assert.ok(enoughResults({ type: 'any' }, setOf(), []));
  });

  it("the proofs are exactly the majority of those that signed the miner's own hash", () => {
    const h = hashOf(1n);
    const all = [held(validators[0]!, hashOf(2n)), held(outsider, h), held(validators[1]!, h), held(validators[2]!, h), held(validators[0]!, h)];
    const proofs = selectProofs({ type: 'majority' }, three, all, agreeing(h))!;
    assert.deepEqual(
      proofs.map((p) => addressText(p.validatorPublicKey)),
      [validators[1]!, validators[2]!].map((v) => addressText(v.publicKey)),
    );
    for (const p of proofs) assert.ok(protocol.crypto.verify(p.validatorPublicKey, h, p.signature));
    assert.equal(selectProofs({ type: 'majority' }, three, all, agreeing(hashOf(2n))), undefined, 'the miner got another hash than the majority');
    assert.deepEqual(selectProofs({ type: 'any' }, three, [], agreeing(h)), []);
  });

  it('majority_with_one_of: one listed validator must be among them, and is put among the proofs', () => {
    const h = hashOf(1n);
    const policy = oneOf(validators[2]!);
    const without = [held(validators[0]!, h), held(validators[1]!, h)];
    assert.ok(!enoughResults(policy, three, without));
    assert.equal(selectProofs(policy, three, without, agreeing(h)), undefined);
    const withIt = [...without, held(validators[2]!, h)];
    assert.ok(enoughResults(policy, three, withIt));
    const proofs = selectProofs(policy, three, withIt, agreeing(h))!;
    assert.equal(proofs.length, 2);
    assert.ok(proofs.some((p) => addressText(p.validatorPublicKey) === addressText(validators[2]!.publicKey)));
  });

  it('a multi-contract execution answers to the strictest policy; one-of lists must share an address', () => {
    const id = new Uint8Array(32).fill(1);
    assert.deepEqual(strictestPolicy(id, [{ type: 'any' }, { type: 'any' }]), { type: 'any' });
    assert.deepEqual(strictestPolicy(id, [{ type: 'any' }, { type: 'majority' }]), { type: 'majority' });
    const a = oneOf(validators[0]!, validators[1]!);
    assert.deepEqual(strictestPolicy(id, [{ type: 'majority' }, a, { type: 'any' }]), a);
    const shared = strictestPolicy(id, [a, oneOf(validators[1]!, validators[2]!)]);
    assert.deepEqual(shared.type === 'majority_with_one_of' ? shared.addresses.map(String) : [], [addressText(validators[1]!.publicKey)]);
    assert.throws(
      () => strictestPolicy(id, [a, oneOf(validators[2]!)]),
      (e: unknown) => e instanceof WeError && /execution error: Incompatible policies found in contracts sub-calls/.test(e.message),
    );
  });
});

// ---------------------------------------------------------------------------
// A node applying a 105 (ExecutedContractTransactionDiff.checkValidationProofsIfNotValidator)

function stateWithValidators(...holders: Array<(typeof validators)[number]>): ContractTestState {
  const state = ContractTestState.create(protocol);
  fund(state);
  for (const v of holders)
    state.addPermissionOp(protocol.addresses.fromPublicKey(v.publicKey).bytes, {
      opType: 'add',
      role: ROLES.contract_validator,
      timestamp: 0n,
      dueTimestamp: null,
    });
  return state;
}

function createWith(policy: ValidationPolicy): CreateContractTransaction {
  const base = createTx('kv:1', HASH, {});
  return protocol.sign(protocol.transaction(CreateContract, 5, { ...base.data, validationPolicy: policy }), developer.privateKey);
}

const success = (contractId: Uint8Array): ExecutionResult => ({
  kind: 'success',
  results: [{ contractId, results: [{ key: 'x', type: 'integer', value: 1n }] }],
  assetOperations: [],
});

function executed(create: Transaction, proofs: readonly ValidationProof[]): ExecutedContractTransaction {
  const built = buildExecutedContract(create, success(create.id), {
    protocol,
    isFeatureActive: () => true,
    miner: node,
    timestamp: BLOCK.timestamp,
    validationProofs: proofs,
  });
  assert.ok(built.kind === 'built');
  return built.executed;
}

const proofBy = (v: (typeof validators)[number], hash = hashOf(1n)): ValidationProof => ({
  validatorPublicKey: v.publicKey,
  signature: protocol.crypto.sign(v.privateKey, hash),
});

describe('a 105 with validation proofs, applied', () => {
  it('is refused when too few validators signed', () => {
    const state = stateWithValidators(validators[0]!, validators[1]!, validators[2]!);
    const create = createWith({ type: 'majority' });
    assert.throws(
      () => applyExecutedContract(state, executed(create, [proofBy(validators[0]!)]), APPLY_CONTEXT),
      /Invalid validation proofs for results hash '\w+'. Actual '1', expected '2'.Current validators set: '\w+', '\w+', '\w+'\.$/,
    );
  });

  it('does not count a proof by a node that is not a validator', () => {
    const state = stateWithValidators(validators[0]!, validators[1]!, validators[2]!);
    const create = createWith({ type: 'majority' });
    assert.throws(
      () => applyExecutedContract(state, executed(create, [proofBy(validators[0]!), proofBy(outsider)]), APPLY_CONTEXT),
      /Actual '1', expected '2'/,
    );
    assert.throws(
      () => applyExecutedContract(state, executed(create, [proofBy(validators[0]!), proofBy(validators[0]!)]), APPLY_CONTEXT),
      /Actual '1', expected '2'/,
      'nor one validator twice',
    );
  });

  it("is refused when a proof's signature is not over the results hash", () => {
    const state = stateWithValidators(validators[0]!, validators[1]!, validators[2]!);
    const create = createWith({ type: 'majority' });
    assert.throws(
      () => applyExecutedContract(state, executed(create, [proofBy(validators[0]!), proofBy(validators[1]!, hashOf(2n))]), APPLY_CONTEXT),
      new RegExp(`Invalid validator '${addressText(validators[1]!.publicKey)}' signature '\\w+'`),
    );
  });

  it('majority_with_one_of: refused without a listed validator among the proofs', () => {
    const state = stateWithValidators(validators[0]!, validators[1]!, validators[2]!);
    const create = createWith(oneOf(validators[2]!));
    assert.throws(
      () => applyExecutedContract(state, executed(create, [proofBy(validators[0]!), proofBy(validators[1]!)]), APPLY_CONTEXT),
      new RegExp(`Proofs does not contain one of required addresses: '${addressText(validators[2]!.publicKey)}'`),
    );
    assert.doesNotThrow(() => applyExecutedContract(state, executed(create, [proofBy(validators[0]!), proofBy(validators[2]!)]), APPLY_CONTEXT));
  });

  it('the miner is not counted among the validators', () => {
    const state = stateWithValidators(validators[0]!, validators[1]!);
    state.addPermissionOp(protocol.addresses.fromPublicKey(node.publicKey).bytes, {
      opType: 'add',
      role: ROLES.contract_validator,
      timestamp: 0n,
      dueTimestamp: null,
    });
    const create = createWith({ type: 'majority' });
    // V = 2 (the miner left out): both are needed.
    assert.throws(() => applyExecutedContract(state, executed(create, [proofBy(validators[0]!)]), APPLY_CONTEXT), /Actual '1', expected '2'/);
    assert.doesNotThrow(() => applyExecutedContract(state, executed(create, [proofBy(validators[0]!), proofBy(validators[1]!)]), APPLY_CONTEXT));
  });

  it("a contract validator's own, unmined execution carries no proofs: it applies through its own entry point, never through the block applier", () => {
    const state = stateWithValidators(validators[0]!, validators[1]!, validators[2]!);
    const create = createWith({ type: 'majority' });
    const own = executed(create, []);
    assert.throws(() => applyExecutedContract(state, own, APPLY_CONTEXT), /Invalid validation proofs/);
    assert.doesNotThrow(() => applyOwnExecutedContract(state.fork(), own, APPLY_CONTEXT));
    // A 105 with proofs is a block's: the own entry point refuses it, so it cannot skip their check.
    const withProofs = executed(create, [proofBy(validators[0]!), proofBy(validators[1]!, hashOf(2n))]);
    assert.throws(() => applyOwnExecutedContract(state.fork(), withProofs, APPLY_CONTEXT), /carries validation proofs: it is not this node's own execution/);
  });
});

describe('a 105 in a block, whatever the role of the node applying it', () => {
  // What the chain applies a block's 105 with (the same for a miner, a validator, any node).
  const blockApplier = rulesFor(105)!.apply;
  const RESULTS: DataEntry[] = [{ key: 'x', type: 'integer', value: 1n }];
  const correctHash = contractResultsHash(protocol, RESULTS);
  const minedBy = (miner: KeyPair, create: Transaction, proofs: readonly ValidationProof[], resultsHash = correctHash): ExecutedContractTransaction =>
    protocol.sign(
      protocol.transaction(ExecutedContract, 3, {
        senderPublicKey: miner.publicKey,
        tx: create,
        results: RESULTS,
        resultsHash,
        validationProofs: proofs,
        timestamp: BLOCK.timestamp,
        assetOperations: [],
      }),
      miner.privateKey,
    );
  const roles = [
    { role: 'a contract validator (its own key generated the block)', miner: validators[0]! },
    { role: 'a miner holding no validator role', miner: node },
  ];
  for (const { role, miner } of roles) {
    it(`generated by ${role}: a wrong results hash, a bad proof or missing proofs are refused`, () => {
      const state = stateWithValidators(validators[0]!, validators[1]!, validators[2]!, validators[3]!);
      const create = createWith({ type: 'majority' });
      const others = validators.filter((v) => !equalBytes(v.publicKey, miner.publicKey));
      // The context also carries what once switched these checks off for a validator: nothing a caller passes does now.
      const ctx = { ...APPLY_CONTEXT, blockGenerator: miner.publicKey, validatingExecutor: true } as ApplyContext;
      const good = others.slice(0, 3).map((v) => proofBy(v, correctHash));
      assert.doesNotThrow(() => blockApplier(state.fork(), minedBy(miner, create, good), ctx), 'the honest 105 applies');
      const forgedHash = hashOf(2n);
      assert.throws(
        () =>
          blockApplier(
            state.fork(),
            minedBy(
              miner,
              create,
              others.slice(0, 3).map((v) => proofBy(v, forgedHash)),
              forgedHash,
            ),
            ctx,
          ),
        /Invalid results hash. Actual '\w+', expected '\w+'\./,
      );
      const badProof = [...good.slice(0, 2), proofBy(others[2]!, forgedHash)];
      assert.throws(
        () => blockApplier(state.fork(), minedBy(miner, create, badProof), ctx),
        new RegExp(`Invalid validator '${addressText(others[2]!.publicKey)}' signature '\\w+'`),
      );
      assert.throws(() => blockApplier(state.fork(), minedBy(miner, create, []), ctx), /Invalid validation proofs for results hash/);
    });
  }
});

describe('the validators of the key block', () => {
  const grant = (state: ContractTestState, v: KeyPair, opType: 'add' | 'remove' = 'add'): void =>
    state.addPermissionOp(protocol.addresses.fromPublicKey(v.publicKey).bytes, {
      opType,
      role: ROLES.contract_validator,
      timestamp: opType === 'add' ? 1n : 2n,
      dueTimestamp: null,
    });
  const setup = () => {
    const state = stateWithValidators(validators[0]!);
    const chain = { keyBlock: { id: new Uint8Array(64).fill(1), timestamp: BLOCK.timestamp } };
    const set = keyBlockValidators(state, () => chain.keyBlock);
    return { state, chain, set };
  };
  const microBlock = (...types: number[]): ChainEvent =>
    ({ kind: 'micro-block', transactions: types.map((type) => ({ type }) as Transaction) }) as unknown as ChainEvent;

  it('a role granted by a permission in a micro-block counts at once; other micro-blocks keep the set', () => {
    const { state, set } = setup();
    assert.ok(set.holds(validators[0]!.publicKey));
    assert.ok(!set.holds(validators[1]!.publicKey));
    grant(state, validators[1]!);
    set.chainChanged(microBlock(102));
    assert.ok(set.holds(validators[1]!.publicKey), 'a results message of the new validator is accepted');
    grant(state, validators[2]!);
    set.chainChanged(microBlock(120));
    assert.ok(set.holds(validators[2]!.publicKey), 'an atomic container may hold a permission');
    assert.deepEqual([...set.addresses()].sort(), [0, 1, 2].map((i) => addressText(validators[i]!.publicKey)).sort());
  });

  it('is read again on a new key block and after a rollback', () => {
    const { state, chain, set } = setup();
    assert.ok(!set.holds(validators[1]!.publicKey));
    grant(state, validators[1]!);
    chain.keyBlock = { id: new Uint8Array(64).fill(2), timestamp: BLOCK.timestamp + 1n };
    assert.ok(set.holds(validators[1]!.publicKey), 'the next key block sees the role');
    grant(state, validators[1]!, 'remove');
    set.chainChanged({ kind: 'rollback', removed: [], returnToPool: false } as unknown as ChainEvent);
    assert.ok(!set.holds(validators[1]!.publicKey), 'a rolled-back grant no longer counts');
  });
});

describe("the miner's gate", () => {
  it("executes a majority contract's transaction only with enough agreeing results, and gives the 105 their proofs", () => {
    const state = stateWithValidators(validators[0]!, validators[1]!, validators[2]!);
    const store = new ValidatorResultsStore({ protocol, now: () => 0n, maxResults: 100, expireAfterMs: 60_000 });
    const keyBlock = { id: KEY_BLOCK, timestamp: BLOCK.timestamp, height: 2 };
    const validatorsOfKeyBlock = keyBlockValidators(state, () => keyBlock);
    const gate = new ValidationGate({
      protocol,
      store,
      validators: validatorsOfKeyBlock,
      minerAddress: addressText(node.publicKey),
      isFeatureActive: () => true,
    });
    const create = createWith({ type: 'majority' });
    const run = success(create.id);
    const hash = resultsHashOf(protocol, create, run)!;
    assert.ok(!gate.ready(create, state, keyBlock));
    store.add(signValidatorResult(protocol, validators[0]!, create.id, KEY_BLOCK, hash));
    assert.ok(!gate.ready(create, state, keyBlock));
    store.add(signValidatorResult(protocol, validators[1]!, create.id, KEY_BLOCK, hash));
    assert.ok(gate.ready(create, state, keyBlock));
    const verdict = gate.proofs(create, run, state, keyBlock);
    assert.ok(verdict.kind === 'proofs' && verdict.proofs.length === 2);
    const built = buildExecutedContract(create, run, {
      protocol,
      isFeatureActive: () => true,
      miner: node,
      timestamp: BLOCK.timestamp,
      validationProofs: verdict.proofs,
    });
    assert.ok(built.kind === 'built' && ExecutedContract.is(built.executed));
    assert.doesNotThrow(() => applyExecutedContract(state, built.executed, APPLY_CONTEXT));
    // The miner's own results differ from what the validators signed: it waits.
    assert.equal(gate.proofs(create, { kind: 'success', results: [], assetOperations: [] }, state, keyBlock).kind, 'wait');
    // Policy `any` and feature 162 off: no gate.
    assert.ok(gate.ready(createTx('kv:1', HASH, {}), state, keyBlock));
    const off = new ValidationGate({
      protocol,
      store,
      validators: validatorsOfKeyBlock,
      minerAddress: addressText(node.publicKey),
      isFeatureActive: () => false,
    });
    assert.ok(off.ready(createWith({ type: 'majority' }), state, keyBlock));
  });
});
