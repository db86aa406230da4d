/**
 * A contract validator's rounds (src/contracts/validating.ts; reference contracts.md §1.8):
 * driven by the pool's admissions and the chain's changes, they validate the executable
 * transactions still in the pool, oldest first. A round on the liquid block of the last
 * one carries on from where that one stopped, so a transaction is executed once per liquid
 * block — unless its execution failed, which the next round tries again. The chain, pool
 * and executor are doubles that count what the validator asks of them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Blockchain, ChainEvent } from '../../src/chain/blockchain.js';
import type { UtxPool } from '../../src/chain/utx.js';
import type { ContractExecutor } from '../../src/contracts/executor.js';
import type { ExecutionResult } from '../../src/contracts/result.js';
import type { ExecutionStatusBook } from '../../src/contracts/statuses.js';
import { ContractValidating } from '../../src/contracts/validating.js';
import type { KeyBlockValidators } from '../../src/contracts/validator-set.js';
import { bytesKey } from '../../src/crypto/encoding.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { BLOCK, createTx, developer, nodeContext, protocol } from '../../devkit/contracts/engine.js';
import { ContractTestState } from '../../devkit/contracts/state.js';

const validator = protocol.crypto.keyPairFromSeedPhrase('weft validating rounds validator');

/** A CreateContract under policy `majority` (its policy is its own: no contract state needed). */
const majorityCreate = (image: string): Transaction => {
  const base = createTx(image, 'cd'.repeat(32), {});
  return protocol.sign(protocol.transaction(base.codec, 5, { ...base.data, validationPolicy: { type: 'majority' } }), developer.privateKey);
};

function setup(outcome: (tx: Transaction, attempt: number) => ExecutionResult) {
  const state = ContractTestState.create(protocol);
  const keyBlock = { id: new Uint8Array(64).fill(1), timestamp: BLOCK.timestamp, generator: new Uint8Array(32).fill(9) };
  const tip = { id: new Uint8Array(64).fill(2) };
  const chain = {
    protocol,
    height: () => 2,
    headerAt: () => keyBlock,
    lastBlock: () => tip,
    timestampAt: () => BLOCK.timestamp - 1n,
    features: { isActive: () => true },
    txContext: () => ({}),
    state: () => state,
  } as unknown as Blockchain;
  const pooled = new Map<string, Transaction>();
  const pool = { get: (id: Uint8Array) => pooled.get(bytesKey(id)), all: () => [...pooled.values()] } as unknown as UtxPool;
  const executed: string[] = [];
  const executor = {
    execute: (tx: Transaction): Promise<ExecutionResult> => {
      executed.push(tx.idBase58);
      return Promise.resolve(outcome(tx, executed.filter((id) => id === tx.idBase58).length));
    },
  } as unknown as ContractExecutor;
  const statuses: string[] = [];
  const validating = new ContractValidating({
    chain,
    pool,
    executor,
    statuses: { record: (_id: Uint8Array, s: { message: string }) => void statuses.push(s.message) } as unknown as ExecutionStatusBook,
    validatorKey: validator,
    node: nodeContext(),
    validators: { holds: () => true } as unknown as KeyBlockValidators,
    now: () => BLOCK.timestamp,
    send: () => undefined,
  });
  const admit = async (tx: Transaction): Promise<void> => {
    pooled.set(bytesKey(tx.id), tx);
    validating.admitted(tx);
    await settle();
  };
  /** Lets the rounds started so far (and the one each asks for after it) finish. */
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) await validating.trigger();
  };
  const newMicroBlock = async (): Promise<void> => {
    tip.id = new Uint8Array(64).fill(tip.id[0]! + 1);
    validating.chainChanged({ kind: 'micro-block', transactions: [] } as unknown as ChainEvent);
    await settle();
  };
  return { admit, newMicroBlock, executed, statuses };
}

// A contract error: deterministic, no 105 for a legacy create (nothing applied to the working state).
const contractError = (): ExecutionResult => ({ kind: 'error', code: 2, message: 'no' });

describe("a validator's rounds", () => {
  it('validate an admitted transaction at once, and do not execute one already validated on the same liquid block again', async () => {
    const { admit, newMicroBlock, executed, statuses } = setup(contractError);
    const first = majorityCreate('kv:1');
    const second = majorityCreate('kv:2');
    await admit(first);
    assert.deepEqual(executed, [first.idBase58]);
    await admit(second);
    assert.deepEqual(executed, [first.idBase58, second.idBase58], 'the second round carries on after the first');
    assert.deepEqual(statuses, ['Validator error: no', 'Validator error: no'], 'one status each');
    await newMicroBlock();
    assert.deepEqual(executed, [first.idBase58, second.idBase58, first.idBase58, second.idBase58], 'a new liquid block validates them again, oldest first');
  });

  it('try a failed execution again in the next round', async () => {
    const { admit, executed } = setup((_tx, attempt) =>
      attempt === 1 ? { kind: 'failure', code: undefined, message: 'contract not started', fatal: false } : contractError(),
    );
    const first = majorityCreate('kv:1');
    const second = majorityCreate('kv:2');
    await admit(first);
    await admit(second);
    assert.deepEqual(executed, [first.idBase58, first.idBase58, second.idBase58]);
  });
});
