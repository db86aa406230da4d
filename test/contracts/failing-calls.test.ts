/**
 * Calls that cannot be mined, on a running node (dev chain, the key-value SDK contract as a
 * local process): each gets statuses every node can read, leaves the pool after a bounded
 * number of executions, and does not hold up the other calls of its contract. WE executes a
 * hanging legacy call again on every key block until the pool expires it (two hours), and
 * one whose results cannot make a 105 without any status; both cost their sender nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { packageTreeDigest } from '../../src/contracts/package-digest.js';
import { DEFAULT_MAX_FAILED_EXECUTIONS } from '../../src/contracts/settings.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { devAccounts, devNodeConfig } from '../../src/cli/dev.js';
import { Node } from '../../src/node/node.js';
import { freeLoopbackPort } from '../../src/cli/devnet.js';
import { tempDir } from '../../devkit/tmp.js';
import { nodeContractsClient } from './support/node-client.js';
import { buildKvSdkPackage } from '../../devkit/contracts/sdk-package.js';

/** One image per test: a hanging call keeps its sleep going in its process. */
const HANGS = 'registry.weft.test/kv-hangs:1.0';
const TOO_BIG = 'registry.weft.test/kv-too-big:1.0';
const EXECUTION_TIMEOUT_MS = 8000;
/** Generous: a contract process starts on its first call, and three failed executions take three key blocks or more. */
const WAIT_MS = 120_000;

describe('contract calls that cannot be mined (dev chain, process runtime)', () => {
  let node: Node;
  let owner: KeyPair;
  let imageHash: string;
  const packages = tempDir('weft-failing-calls-pkg-');
  const dataDir = tempDir('weft-failing-calls-');

  const { rest, until, broadcast, executed, statusesOf, call, createKv } = nodeContractsClient(() => ({ node, owner }), WAIT_MS);
  const create = (image: string): Transaction => createKv(image, imageHash, 0);
  const pooled = async (tx: Transaction): Promise<boolean> => (await rest('GET', `/transactions/unconfirmed/info/${tx.idBase58}`)).status === 200;

  before(async () => {
    const dir = await buildKvSdkPackage(packages);
    imageHash = await packageTreeDigest(dir);
    const dev = await devNodeConfig({
      dataDir,
      restPort: 0,
      p2pPort: 0,
      grpcPort: await freeLoopbackPort(),
      keystore: { scrypt: { N: 1024, r: 8, p: 1 } },
      // Two calls at once in the one process that executed the create (a fresh process of SDK 1.0.14 may lose its first
      // call to its threads' race to connect): the call behind the hanging one has a free slot.
      contractPackages: [HANGS, TOO_BIG].map((image) => ({ image, runtime: 'process' as const, source: dir, command: undefined, env: {}, maxInFlight: 2 })),
    });
    // An execution timeout of 8 s (WE's is 5 s): room to tell a call mined meanwhile from one mined after it.
    const contracts = dev.contracts!;
    const config = {
      ...dev,
      contracts: {
        ...contracts,
        dockerEngine: { ...contracts.dockerEngine, executionLimits: { ...contracts.dockerEngine.executionLimits, timeoutMs: EXECUTION_TIMEOUT_MS } },
      },
    };
    node = await Node.start(config, { logger: pino({ level: process.env['WEFT_TEST_LOG'] ?? 'silent' }) });
    owner = devAccounts(node.protocol)[0]!.keyPair;
  });

  after(() => node?.stop());

  it('a call whose results cannot make a 105 leaves the pool at its first execution, with a Failure status', async () => {
    const kv = create(TOO_BIG);
    await broadcast(kv);
    await executed(kv);
    // Four strings of 100 000 characters: a 105 of 400 KB, over WE's 300 KiB.
    const big = call(kv.id, { action: 'fill', count: 4, size: 100_000 });
    await broadcast(big);
    const failed = await until('the Failure of the oversize call', async () => {
      const found = (await statusesOf(big)).filter((s) => s['status'] === 'Failure');
      return found.length > 0 ? found : undefined;
    });
    assert.match(String(failed[0]!['message']), /^Executed transaction creation error: '.*too big/i);
    assert.equal(failed[0]!['code'], null);
    assert.equal(await pooled(big), false, 'out of the pool');
    assert.equal((await rest('GET', `/contracts/executed-tx-for/${big.idBase58}`)).status, 404);
    // Not executed again: two key blocks later it still has its one status (WE: no status, executed on every key block).
    const height = (await rest('GET', '/blocks/height')).json as { height: number };
    await until('two more key blocks', async () =>
      ((await rest('GET', '/blocks/height')).json as { height: number }).height >= height.height + 2 ? true : undefined,
    );
    assert.equal((await statusesOf(big)).length, 1);
    // The contract takes its next call as before.
    const next = call(kv.id, { action: 'put', key: 'after', value: 'yes' });
    await broadcast(next);
    await executed(next);
  });

  it('a call that hangs has a Failure per execution and leaves the pool with an Error after the bounded executions, while the contract mines its other calls meanwhile', async () => {
    const kv = create(HANGS);
    await broadcast(kv);
    await executed(kv);
    // Sleeps far past the execution timeout; the process keeps the sleep going, the node gives up on it.
    const hangs = call(kv.id, { action: 'sleep', ms: 600_000 });
    await broadcast(hangs);
    const quick = call(kv.id, { action: 'increment', by: 1 });
    await broadcast(quick);
    await executed(quick);
    const quickMined = await until('the Success of the quick call', async () => (await statusesOf(quick)).find((s) => s['status'] === 'Success'));
    // Mined before the hanging call behind which it was sent even timed out once.
    const firstFailure = (await statusesOf(hangs)).find((s) => s['status'] === 'Failure');
    assert.ok(firstFailure === undefined || Number(firstFailure['timestamp']) > Number(quickMined['timestamp']), JSON.stringify({ quickMined, firstFailure }));

    const dropped = await until('the Error that drops the hanging call', async () => {
      const list = await statusesOf(hangs);
      return list.some((s) => s['status'] === 'Error') ? list : undefined;
    });
    const failures = dropped.filter((s) => s['status'] === 'Failure');
    assert.equal(failures.length, DEFAULT_MAX_FAILED_EXECUTIONS, JSON.stringify(dropped));
    for (const f of failures) {
      assert.equal(f['code'], 1);
      assert.match(String(f['message']), /execution timeout/);
    }
    const error = dropped.find((s) => s['status'] === 'Error')!;
    assert.equal(error['code'], 2);
    assert.match(
      String(error['message']),
      new RegExp(`dropped from the UTX pool after ${DEFAULT_MAX_FAILED_EXECUTIONS} failed executions, the last: .*execution timeout`),
    );
    assert.equal(await pooled(hangs), false, 'out of the pool');
    assert.equal((await rest('GET', `/contracts/executed-tx-for/${hangs.idBase58}`)).status, 404);
    // The contract still takes calls.
    const after = call(kv.id, { action: 'increment', by: 2 });
    await broadcast(after);
    await executed(after);
    assert.deepEqual((await rest('GET', `/contracts/${kv.idBase58}/counter`)).json, { key: 'counter', type: 'integer', value: 3 });
  });
});
