/**
 * One WASM call must not halt a miner: on a dev node (a real process),
 * a contract that calls itself 1,000 times in every frame — which, with a fresh fuel budget
 * per frame and the run on the event loop, froze a node for minutes — ends with its error
 * status (a 105 V5 with statusCode 111, status Error, the call gone from the pool), while
 * the node answers /node/status on every poll and keeps forging blocks.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import wabtInit from 'wabt';
import { devAccounts } from '../../src/cli/dev.js';
import { stringifyJson } from '../../src/protocol/json.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { callV7, createV7, protocol, timestampsFrom } from '../../devkit/contracts/engine.js';
import { REPO_ROOT } from '../../devkit/contracts/sdk-package.js';
import { NodeFleet, sleep, type DevNode } from './support.js';

const fleet = new NodeFleet();
/** Liveness bound: today's answer comes in well under a second; the code this replaced took minutes. */
const WAIT_MS = 60_000;
/** A /node/status that takes longer than this counts as a node that stopped answering. */
const STATUS_TIMEOUT_MS = 5000;

async function abuseBytecode(): Promise<Uint8Array> {
  const wabt = await wabtInit();
  const m = wabt.parseWat('abuse.wat', readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'wasm', 'abuse.wat'), 'utf8'), {
    multi_value: true,
    bulk_memory: true,
  });
  try {
    return Uint8Array.from(m.toBinary({}).buffer);
  } finally {
    m.destroy();
  }
}

/** The node's height, answered within STATUS_TIMEOUT_MS (asserted). */
async function statusHeight(node: DevNode): Promise<number> {
  const r = await node.get('/node/status', { timeoutMs: STATUS_TIMEOUT_MS });
  assert.equal(r.status, 200, r.text);
  return r.json.blockchainHeight as number;
}

/** Polls /node/status (each answered in time) until `probe` gives a value. */
async function whileAnswering<T>(node: DevNode, what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    await statusHeight(node);
    const v = await probe();
    if (v !== undefined) return v;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await sleep(250);
  }
}

describe('a WASM call tree that would take a node down', { timeout: 180_000 }, () => {
  it('ends with its error status while the node answers /node/status and keeps forging', async () => {
    const node = await fleet.start();
    const owner = devAccounts(protocol)[0]!.keyPair;
    const bytecode = await abuseBytecode();
    timestampsFrom(BigInt(Date.now()));
    const create = createV7({ engine: 'wasm', bytecode, bytecodeHash: createHash('sha256').update(bytecode).digest('hex') }, [], owner);
    const broadcast = async (tx: Transaction): Promise<void> => {
      const r = await node.post('/transactions/broadcast', stringifyJson(tx.toJson()));
      assert.equal(r.status, 200, r.text);
    };
    const executed = (tx: Transaction): Promise<Record<string, unknown>> =>
      whileAnswering(node, `the 105 of ${tx.idBase58}`, async () => {
        const r = await node.get(`/contracts/executed-tx-for/${tx.idBase58}`);
        return r.status === 200 ? (r.json as Record<string, unknown>) : undefined;
      });

    await broadcast(create);
    assert.equal((await executed(create))['statusCode'], 0);

    const bomb = callV7(create.id, 'wasm', 'bomb', [{ key: 'id', type: 'binary', value: create.id }], [], owner);
    const heightAtBroadcast = await statusHeight(node);
    await broadcast(bomb);
    const mined = await executed(bomb);
    assert.equal(mined['statusCode'], 111);
    assert.equal(mined['errorMessage'], 'contract failed with error code 111');
    const statuses = (await node.get(`/contracts/status/${bomb.idBase58}`)).json as Array<{ status: string; code: number }>;
    assert.deepEqual(
      statuses.map((s) => [s.status, s.code]),
      [['Error', 111]],
    );
    assert.equal((await node.get(`/transactions/unconfirmed/info/${bomb.idBase58}`)).status, 404, 'the call left the pool');
    // Forging goes on: two more blocks.
    await whileAnswering(node, 'two more blocks', async () => ((await statusHeight(node)) >= heightAtBroadcast + 2 ? true : undefined));
  });
});
