/**
 * The scenarios every runtime must pass with a contract written with the official JS SDK
 * (`@wavesenterprise/contract-core@1.0.14`, its code unchanged): the real gRPC server and
 * executor, the 105s a miner would build applied to a test state between calls. The
 * process and Docker runtime tests run them with their own set-up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeBase58 } from '../../../src/crypto/encoding.js';
import { staysInPool, statusOf, type ExecutionResult } from '../../../src/contracts/result.js';
import type { ContractRuntime } from '../../../src/contracts/runtime.js';
import { ExecutedContract } from '../../../src/protocol/transactions/contracts.js';
import { callTx, callV7, createTx, firstSuccess, fund, type TestEngine } from '../../../devkit/contracts/engine.js';

export interface LogLine {
  readonly obj: Record<string, unknown>;
  readonly msg: string;
}

export interface SdkRuntimeSetup {
  /** The runtime's name in test titles. */
  readonly name: string;
  /**
   * Starts an engine running the key-value SDK contract with an execution timeout of
   * `timeoutMs`; `log` receives the engine's log lines.
   */
  start(log: (obj: object, msg: string) => void, timeoutMs: number): Promise<{ engine: TestEngine; image: string; imageHash: string }>;
  runtime(engine: TestEngine): ContractRuntime;
  /** How the runtime names a running contract (`process 123`, `container 3f2a…`). */
  readonly contractName: RegExp;
  /** The environment variable names the contract sees. */
  readonly environment: readonly string[];
  /** What a wrong imageHash is refused with (fatal). */
  readonly wrongDigest: (image: string, imageHash: string, wrong: string) => RegExp;
  /** Extra checks after the crash test (e.g. the dead container is gone). */
  afterCrash?(engine: TestEngine, before: string, after: string): Promise<void>;
}

/**
 * Generous: the first execution in a fresh contract process waits for the SDK's workers to
 * load, which takes seconds on a loaded machine. Timeouts themselves are tested with a
 * short one on a warmed-up contract.
 */
const TIMEOUT_MS = 30_000;
const SHORT_TIMEOUT_MS = 2000;

function success(r: ExecutionResult): Map<string, unknown> {
  assert.equal(r.kind, 'success', `expected a success, got ${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
  if (r.kind !== 'success') throw new Error('unreachable');
  return new Map(r.results.flatMap((c) => c.results.map((e) => [e.key, e.value] as const)));
}

export function describeSdkContract(setup: SdkRuntimeSetup): void {
  describe(`an SDK contract in the ${setup.name} runtime`, () => {
    let te: TestEngine;
    let image: string;
    let digest: string;
    let contractId: Uint8Array;
    const logged: LogLine[] = [];

    before(async () => {
      ({ engine: te, image, imageHash: digest } = await setup.start((obj, msg) => void logged.push({ obj: obj as Record<string, unknown>, msg }), TIMEOUT_MS));
      fund(te.state);
    });
    after(() => te?.close());
    it('creates the contract and answers calls that read and write its state; tryGet of a missing key is undefined', async () => {
      const create = createTx(image, digest, { start: 5 });
      contractId = create.id;
      // A fresh contract may lose its first transaction to the SDK's thread race (then retried, as the pool would).
      const created = await firstSuccess(te, () => create, 3);
      assert.deepEqual([...success(created)], [['counter', 5n]]);
      const mined = te.mine(create, created);
      assert.equal(mined.kind, 'built');
      assert.equal(te.state.contract(contractId)?.active, true);
      assert.deepEqual(te.state.contractData(contractId, 'counter'), { key: 'counter', type: 'integer', value: 5n });

      const call = callTx(contractId, { action: 'increment', by: 3 });
      const called = await te.execute(call);
      assert.deepEqual(
        success(called),
        new Map<string, unknown>([
          ['counter', 8n],
          ['last', 5n],
          ['missing', 'undefined'],
        ]),
      );
      const built = te.mine(call, called);
      assert.ok(built.kind === 'built' && ExecutedContract.is(built.executed));
      assert.equal(built.executed.version, 3);
      assert.equal(encodeBase58(te.state.executedTxFor(call.id)!), built.executed.idBase58);
    });

    it('keeps its state across many calls', async () => {
      for (let i = 1; i <= 15; i++) {
        const call = callTx(contractId, { action: 'increment', by: i });
        te.mine(call, await te.execute(call));
      }
      assert.deepEqual(te.state.contractData(contractId, 'counter'), { key: 'counter', type: 'integer', value: 8n + 120n });
    });

    it('gives concurrent executions of one contract their own results (one in flight at a time by default)', async () => {
      const calls = Array.from({ length: 6 }, (_, i) => callTx(contractId, { action: 'put', key: `k${i}`, value: `v${i}` }));
      const results = await Promise.all(calls.map((c) => te.execute(c)));
      results.forEach((r, i) => assert.deepEqual([...success(r)], [[`k${i}`, `v${i}`]]));
    });

    it('writes the output of the contract process to the node log, tagged with the image and the process', () => {
      const lines = logged.filter((l) => l.obj['image'] === image && typeof l.obj['contract'] === 'string');
      assert.ok(
        lines.some((l) => l.msg.includes('[WE Contract]')),
        'the SDK logs with DEBUG=1',
      );
      assert.ok(lines.every((l) => setup.contractName.test(l.obj['contract'] as string)));
    });

    it('a throwing action is an Error with its message; the legacy call leaves the pool without a 105', async () => {
      const call = callTx(contractId, { action: 'fail', reason: 'no funds for this' });
      const r = await te.execute(call);
      assert.equal(r.kind, 'error');
      assert.ok(r.kind === 'error' && r.code === 2 && r.message.includes('no funds for this'), JSON.stringify(r));
      assert.deepEqual(statusOf(r), { status: 'Error', code: 2, message: r.kind === 'error' ? r.message : '' });
      assert.equal(staysInPool(call, r), false);
      assert.equal(te.mine(call, r).kind, 'none');
    });

    it("a recoverable error (code 1, the later SDK's RetryableError) is a Failure and the call stays for another try", async () => {
      const call = callTx(contractId, { action: 'retry', reason: 'oracle not ready' });
      const r = await te.execute(call);
      assert.deepEqual(r, { kind: 'error', code: 1, message: 'oracle not ready' });
      assert.equal(statusOf(r)?.status, 'Failure');
      assert.equal(staysInPool(call, r), true);
    });

    it('a 104 V7 whose action throws is mined as a 105 V5 with status code 2 and the message', async () => {
      const call = callV7(contractId, 'docker', null, { action: 'fail', reason: 'v7 refusal' });
      const r = await te.execute(call);
      const built = te.mine(call, r);
      assert.ok(built.kind === 'built' && ExecutedContract.is(built.executed));
      assert.equal(built.executed.version, 5);
      assert.equal(built.executed.data.statusCode, 2);
      assert.match(built.executed.data.errorMessage ?? '', /v7 refusal/);
      assert.deepEqual(built.executed.data.resultsMap, []);
    });

    it('an action that hangs times out as a recoverable Failure', async () => {
      const short = await setup.start(() => undefined, SHORT_TIMEOUT_MS);
      try {
        fund(short.engine.state);
        short.engine.state.putContract(te.state.contract(contractId)!);
        short.engine.state.putContractData(contractId, te.state.contractData(contractId, 'counter')!);
        assert.equal((await firstSuccess(short.engine, () => callTx(contractId, { action: 'env' }))).kind, 'success', 'warmed up');
        const r = await short.engine.execute(callTx(contractId, { action: 'sleep', ms: 4 * SHORT_TIMEOUT_MS }));
        assert.equal(r.kind, 'error');
        assert.ok(r.kind === 'error' && r.code === 1 && /execution timeout, container '/.test(r.message), JSON.stringify(r));
      } finally {
        await short.engine.close();
      }
    });

    it('gives the contract only the four variables and its configured environment', async () => {
      const r = await te.execute(callTx(contractId, { action: 'env' }));
      assert.equal(success(r).get('env'), setup.environment.join(','));
    });

    it("refuses a package whose digest is not the imageHash, with WE's fatal digest error", async () => {
      const wrong = 'ab'.repeat(32);
      const r = await te.execute(createTx(image, wrong, { start: 1 }));
      assert.equal(r.kind, 'failure');
      assert.ok(r.kind === 'failure' && r.fatal && setup.wrongDigest(image, digest, wrong).test(r.message), JSON.stringify(r));
      assert.equal(statusOf(r)?.status, 'Failure');
    });

    it('starts a crashed contract process again on the next call', async () => {
      const key = { image: image, imageHash: digest };
      const before = await setup.runtime(te).ensureStarted(key);
      const crash = await te.execute(callTx(contractId, { action: 'crash' }));
      assert.equal(crash.kind, 'error');
      assert.ok(crash.kind === 'error' && crash.code === 1, JSON.stringify(crash));
      const r = await firstSuccess(te, () => callTx(contractId, { action: 'increment', by: 1 }));
      assert.equal(success(r).get('counter'), 129n);
      const afterCrash = await setup.runtime(te).ensureStarted(key);
      assert.notEqual(afterCrash.name, before.name, 'a new process or container serves the contract');
      await setup.afterCrash?.(te, before.name, afterCrash.name);
    });
  });
}
