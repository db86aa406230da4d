/**
 * The node's health checks: WE's node status, its 640 reasons and timeout, the external
 * services (637 when absent, 640 when failing), Java's Instant format.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FREE_SPACE_FATAL_BYTES, instantString, NodeHealth, type HealthSources } from '../../src/node/health.js';
import { tempDir } from '../../devkit/tmp.js';
import { WeError } from '../../src/errors/catalogue.js';

interface LogLine {
  level: string;
  msg: string;
}

function sources(over: Partial<HealthSources> = {}): { s: HealthSources; log: LogLine[] } {
  const log: LogLine[] = [];
  const s: HealthSources = {
    tip: () => ({ height: 7, timestamp: 1_700_000_000_120n }),
    readStore: () => undefined,
    dataDirectory: tempDir(),
    blockIntervalMs: 5000,
    maxBlockSizeInBytes: 1 << 20,
    clock: () => 1_700_000_009_000n,
    log: {
      info: (_o, msg) => void log.push({ level: 'info', msg }),
      warn: (_o, msg) => void log.push({ level: 'warn', msg }),
      error: (_o, msg) => void log.push({ level: 'error', msg }),
      debug: (_o, msg) => void log.push({ level: 'debug', msg }),
    },
    ...over,
  };
  return { s, log };
}

async function rejectsWith(p: Promise<unknown>, code: number, status: number, message: string | RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof WeError);
    assert.equal(e.code, code);
    assert.equal(e.status, status);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

describe('NodeHealth', () => {
  it('node status: heights, the last block time, when the check ran (real free space of a temp dir)', async () => {
    const { s } = sources();
    assert.deepEqual(await new NodeHealth(s).nodeStatus(), {
      blockchainHeight: 7,
      stateHeight: 7,
      updatedTimestamp: 1_700_000_000_120n,
      updatedDate: '2023-11-14T22:13:20.120Z',
      lastCheckTimestamp: 1_700_000_009_000n,
    });
  });

  it('640 (503) when the store cannot be read or free space is below 500 MiB; a warning below three days of blocks', async () => {
    await rejectsWith(
      new NodeHealth(
        sources({
          readStore: () => {
            throw new Error('MDB_BAD_TXN');
          },
        }).s,
      ).nodeStatus(),
      640,
      503,
      "Unable to read the state store because of error: 'MDB_BAD_TXN'",
    );
    await rejectsWith(
      new NodeHealth(sources({ freeSpace: () => Promise.resolve(FREE_SPACE_FATAL_BYTES - 1n) }).s).nodeStatus(),
      640,
      503,
      'Storage free space is below 500MB',
    );
    await rejectsWith(new NodeHealth(sources({ freeSpace: () => Promise.reject(new Error('ENOENT')) }).s).nodeStatus(), 640, 503, /ENOENT/);
    // 5 s blocks of 1 MiB: three days need 0.75 · 1 MiB · 51 840 ≈ 38 GiB.
    let free = FREE_SPACE_FATAL_BYTES;
    const low = sources({ freeSpace: () => Promise.resolve(free) });
    const health = new NodeHealth(low.s);
    await health.nodeStatus();
    assert.deepEqual(low.log, [{ level: 'warn', msg: 'The remaining storage free space is sufficient for less than 3 days' }]);
    // Said once while it stays low (a client polling /node/status does not flood the log), again after it recovered.
    await health.nodeStatus();
    free = 1n << 40n;
    await health.nodeStatus();
    await health.nodeStatus();
    free = FREE_SPACE_FATAL_BYTES;
    await health.nodeStatus();
    assert.deepEqual(low.log, [
      { level: 'warn', msg: 'The remaining storage free space is sufficient for less than 3 days' },
      { level: 'info', msg: 'The remaining storage free space is sufficient for 3 days or more again' },
      { level: 'warn', msg: 'The remaining storage free space is sufficient for less than 3 days' },
    ]);
    const plenty = sources({ freeSpace: () => Promise.resolve(1n << 40n) });
    await new NodeHealth(plenty.s).nodeStatus();
    assert.deepEqual(plenty.log, []);
  });

  it('a check that hangs fails with the timeout message', async () => {
    const { s } = sources({ freeSpace: () => new Promise<bigint>(() => undefined), timeoutMs: 30 });
    await rejectsWith(new NodeHealth(s).nodeStatus(), 640, 503, 'Health check timeout exceeded');
    const ext = sources({ external: { docker: () => new Promise<void>(() => undefined) }, timeoutMs: 30 });
    await rejectsWith(new NodeHealth(ext.s).externalStatus('docker'), 640, 503, 'External health check timeout exceeded');
  });

  it('external services: 637 (404) with WE display names when absent, 640 with the reason when failing', async () => {
    const health = new NodeHealth(sources({ external: { 'anchoring-auth': () => Promise.reject(new Error('Targetnet auth service is not available')) } }).s);
    await rejectsWith(health.externalStatus('docker'), 637, 404, "Service 'Docker' is disabled");
    await rejectsWith(health.externalStatus('privacy-storage'), 637, 404, "Service 'Privacy Storage' is disabled");
    await rejectsWith(health.externalStatus('anchoring-auth'), 640, 503, 'Targetnet auth service is not available');
    await new NodeHealth(sources({ external: { docker: () => Promise.resolve() } }).s).externalStatus('docker');
  });

  it("instantString: Java's Instant.toString of epoch milliseconds", () => {
    assert.equal(instantString(0n), '1970-01-01T00:00:00Z');
    assert.equal(instantString(1_700_000_000_000n), '2023-11-14T22:13:20Z');
    assert.equal(instantString(1_700_000_000_001n), '2023-11-14T22:13:20.001Z');
    assert.equal(instantString(1_700_000_000_100n), '2023-11-14T22:13:20.100Z');
  });
});
