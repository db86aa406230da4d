/**
 * The durability promise (docs/operations.md, "Durability"): the store commits without waiting on fsync,
 * and a process crash still loses nothing the node reported confirmed.
 *
 * Each cycle starts the dev node (`cli.js start`) on the same data directory and loads it:
 * transfers signed here are broadcast 16 at a time without pause, so the node keeps
 * building and committing micro-blocks, while `/transactions/info/{id}` is polled for those
 * admitted. Right after a poll round in which the node reported transactions confirmed (in
 * a block, with a height), the node gets SIGKILL, load still running. Then it is started
 * again on the same directory, and every transaction reported confirmed in any cycle so far
 * must be there at the height it was reported at.
 *
 * WEFT_DURABILITY_CYCLES sets the number of kills (default 3).
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { devAccounts, devProtocol } from '../../src/cli/dev.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import { NodeProcess, sleep } from '../support/node-process.js';
import { tempDir } from '../../devkit/tmp.js';
import { signedTransfer } from '../support/transfers.js';

const CYCLES = cyclesFromEnv();
/** Broadcasts in flight at once. */
const CONCURRENCY = 16;
/** The kill comes after a poll round that brought confirmations, once at least this many were reported in the cycle. */
const CONFIRMED_BEFORE_KILL = 40;

function cyclesFromEnv(): number {
  const raw = process.env['WEFT_DURABILITY_CYCLES'];
  if (raw === undefined || raw === '') return 3;
  const n = Number(raw);
  assert.ok(Number.isSafeInteger(n) && n > 0, `WEFT_DURABILITY_CYCLES must be a positive integer, got '${raw}'`);
  return n;
}

/** Signed transfers between the dev accounts 1–4, stamped with the current time. */
function transfers(p: Protocol): () => { id: string; body: string } {
  const accounts = devAccounts(p).slice(1);
  let n = 0;
  return () => {
    n++;
    return signedTransfer(p, accounts[n % accounts.length]!, accounts[(n + 1) % accounts.length]!, BigInt(n), BigInt(Date.now()));
  };
}

/**
 * Loads the node until it has reported at least CONFIRMED_BEFORE_KILL transactions confirmed,
 * then kills it right after the poll round that brought the last of them; returns id → height.
 */
async function loadAndKill(node: NodeProcess, next: () => { id: string; body: string }): Promise<Map<string, number>> {
  const confirmed = new Map<string, number>();
  const admitted = new Set<string>();
  const refused: string[] = [];
  let live = true;
  const quietly = async <T>(f: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await f();
    } catch {
      return undefined; // the connection drops with the kill
    }
  };
  const broadcasters = Array.from({ length: CONCURRENCY }, async () => {
    while (live) {
      const tx = next();
      const a = await quietly(() => node.post('/transactions/broadcast', tx.body));
      if (a?.status === 200) admitted.add(tx.id);
      else if (a !== undefined && live) refused.push(`${a.status} ${a.text.slice(0, 200)}`);
    }
  });
  const deadline = performance.now() + 90_000;
  try {
    while (confirmed.size < CONFIRMED_BEFORE_KILL) {
      assert.ok(
        performance.now() < deadline,
        `only ${confirmed.size} transactions confirmed in 90 s (admitted ${admitted.size})\n${node.output().slice(-3000)}`,
      );
      assert.deepEqual(refused.slice(0, 3), [], 'broadcasts refused');
      await sleep(100);
      // The oldest admitted first, the likeliest to be in a block.
      const ids = [...admitted].slice(0, 128);
      for (let i = 0; i < ids.length; i += 32) {
        await Promise.all(
          ids.slice(i, i + 32).map(async (id) => {
            const a = await node.get(`/transactions/info/${id}`);
            if (a.status !== 200) return;
            assert.equal(typeof a.json.height, 'number', `height of ${id}`);
            confirmed.set(id, a.json.height as number);
            admitted.delete(id);
          }),
        );
      }
    }
    // Reported confirmed just now: the kill comes at once, the node still mining the load.
    await node.killHard();
  } finally {
    live = false;
    await node.killHard();
    await Promise.all(broadcasters);
  }
  return confirmed;
}

describe('durability of confirmed transactions', () => {
  it(`keeps every transaction reported confirmed across ${CYCLES} SIGKILLs under load`, { timeout: CYCLES * 150_000 + 30_000 }, async (t: TestContext) => {
    const dataDir = tempDir('weft-durability-');
    const next = transfers(await devProtocol());
    const confirmedEver = new Map<string, number>();
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const node = await NodeProcess.start(dataDir);
      try {
        // What every earlier cycle saw confirmed is there, at the same height.
        for (const [id, height] of confirmedEver) {
          const a = await node.get(`/transactions/info/${id}`);
          assert.equal(a.status, 200, `cycle ${cycle}: transaction ${id}, reported confirmed at height ${height} before the kill, is gone: ${a.text}`);
          assert.equal(a.json.height, height, `cycle ${cycle}: transaction ${id} moved from height ${height}`);
        }
        const seen = await loadAndKill(node, next);
        for (const [id, height] of seen) confirmedEver.set(id, height);
        t.diagnostic(`cycle ${cycle}: ${seen.size} reported confirmed, heights ${Math.min(...seen.values())}–${Math.max(...seen.values())}, then SIGKILL`);
      } finally {
        await node.killHard();
      }
    }
    const node = await NodeProcess.start(dataDir);
    try {
      for (const [id, height] of confirmedEver) {
        const a = await node.get(`/transactions/info/${id}`);
        assert.equal(a.status, 200, `after the last kill: transaction ${id}, reported confirmed at height ${height}, is gone: ${a.text}`);
        assert.equal(a.json.height, height);
      }
    } finally {
      await node.killHard();
    }
  });
});
