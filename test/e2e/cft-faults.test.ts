/**
 * Finality under faults on a CFT network of four real node processes (devkit/network.ts over
 * src/cli/devnet.ts --consensus cft: 3 s rounds, 1 s sync, finalization-timeout 2 s; every node
 * a miner, so a block's validators are the three other miners and it is final with two of their
 * votes — (2 + 1) / (3 + 1) > 0.5 — but not with one):
 *
 * - one node killed (-9): the three others keep finalising; restarted, it catches up onto the
 *   same final blocks;
 * - two of four killed: the two live nodes stop finalising (one validator's vote is not enough)
 *   rather than going on alone, agree on their last final block, and finalise again once the two
 *   return;
 * - a partition: one node restarted on a P2P port nobody knows, knowing nobody, finalises nothing
 *   alone while the three others go on; connected again (POST /peers/connect) it takes their final
 *   blocks;
 * - over the whole run a watcher polls every running node's /node/status and records the block id
 *   (signature) at each final height it sees; every later read of that height, on any node, must
 *   give the same id — no final block is ever rolled back — and every final block but genesis
 *   carries its validators' votes.
 *
 * PoA bans are off here: a dead miner banned after three missed slots would leave the active
 * miner set, and with two of four down the live pair would then legitimately finalise on their own
 * (validators of a block = active miners but its own), which is not the fault this file tests.
 *
 * Every wait has a deadline.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Devnet, sleep, until, type NetNode } from '../../devkit/network.js';

const NODES = 4;
const ROUND_MS = 3000;

let net: Devnet;

interface Finality {
  readonly lastBlockFinalized: boolean;
  readonly lastFinalizedHeight: number;
}

async function finality(node: NetNode): Promise<Finality> {
  const r = await node.get('/node/status', 2000);
  if (r.status !== 200) throw new Error(`${node.spec.name} /node/status: ${r.status} ${r.text}`);
  const s = r.json as Partial<Finality>;
  assert.equal(typeof s.lastFinalizedHeight, 'number', `${node.spec.name} reports lastFinalizedHeight on a CFT network: ${r.text}`);
  return s as Finality;
}

async function finalHeight(node: NetNode): Promise<number> {
  return (await finality(node)).lastFinalizedHeight;
}

/** The block at `height` on `node`: its id and how many votes it carries. */
async function blockAt(node: NetNode, height: number): Promise<{ signature: string; votes: number }> {
  const r = await node.get(`/blocks/at/${height}`, 2000);
  if (r.status !== 200) throw new Error(`${node.spec.name} /blocks/at/${height}: ${r.status} ${r.text}`);
  const b = r.json as { signature: string; 'cft-consensus'?: { votes: unknown[] } };
  return { signature: b.signature, votes: b['cft-consensus']?.votes.length ?? 0 };
}

/**
 * Watches every running node for the whole run: each final height seen is recorded with its block
 * id; any read of a recorded height that gives another id is a final block rolled back.
 */
class FinalityWatch {
  /** height → the id of the final block there, as first seen, and where. */
  readonly ids = new Map<number, { signature: string; seenOn: string }>();
  /** Per node: the highest final height read from it. */
  private readonly highest = new Map<string, number>();
  readonly violations: string[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly nodes: readonly NetNode[]) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      for (const n of this.nodes) if (n.running) await this.poll(n).catch(() => {});
      await sleep(400);
    }
  }

  /** Reads `node`'s final height and checks (or records) its blocks up to there. */
  async poll(node: NetNode, everything = false): Promise<void> {
    const top = await finalHeight(node);
    const seen = this.highest.get(node.spec.name) ?? 1;
    // New final heights, plus the last few already known (a rollback shows at the top first).
    const from = everything ? 2 : Math.max(2, Math.min(seen, top) - 3);
    for (let h = from; h <= top; h++) this.check(node, h, await blockAt(node, h));
    this.highest.set(node.spec.name, Math.max(seen, top));
  }

  private check(node: NetNode, height: number, block: { signature: string; votes: number }): void {
    const known = this.ids.get(height);
    if (known === undefined) {
      this.ids.set(height, { signature: block.signature, seenOn: node.spec.name });
    } else if (known.signature !== block.signature) {
      this.violations.push(`height ${height}: final block ${known.signature} (seen on ${known.seenOn}) but ${block.signature} on ${node.spec.name}`);
    }
    if (block.votes === 0) this.violations.push(`height ${height} on ${node.spec.name}: a final block without votes (${block.signature})`);
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

let watch: FinalityWatch;

/** Resolves once every node in `nodes` has a final height of at least `height`. */
async function finalisedOn(nodes: readonly NetNode[], height: number, timeoutMs: number): Promise<void> {
  await until(
    `final height ${height} on ${nodes.map((n) => n.spec.name).join(', ')}`,
    async () => ((await Promise.all(nodes.map(finalHeight))).every((h) => h >= height) ? true : undefined),
    timeoutMs,
    300,
  );
}

async function withOutputs<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
  }
}

describe('a CFT network of 4 node processes under faults', { timeout: 240_000 }, () => {
  after(async () => {
    await watch?.stop();
    await net?.dispose();
  });
  before(async () => {
    net = await Devnet.create({
      nodes: NODES,
      consensus: 'cft',
      roundDurationMs: ROUND_MS,
      syncDurationMs: 1000,
      finalizationTimeoutMs: 2000,
      microBlockIntervalMs: 500,
      bans: { warningsForBan: 1_000_000 },
      register: false,
    });
    process.once('exit', () => net.killAll());
    await withOutputs(async () => {
      await net.startAll(90_000);
      await net.meshed(30_000);
      await finalisedOn(net.nodes, 3, 60_000);
    });
    watch = new FinalityWatch(net.nodes);
  });

  it('keeps finalising with one node killed (-9); restarted, it catches up onto the same final blocks', async () => {
    const [n0, , , victim] = net.nodes as [NetNode, NetNode, NetNode, NetNode];
    const live = net.nodes.filter((n) => n !== victim);
    await withOutputs(async () => {
      await victim.killHard();
      const before = Math.max(...(await Promise.all(live.map(finalHeight))));
      // Three more final blocks (its own slot among them is skipped) on every live node.
      await finalisedOn(live, before + 3, 20 * ROUND_MS);

      await victim.start(60_000);
      const target = await finalHeight(n0);
      await finalisedOn([victim], target, 60_000);
      await watch.poll(victim, true);
      // And the network, the restarted node included, goes on finalising.
      await finalisedOn(net.nodes, target + 2, 20 * ROUND_MS);
      assert.deepEqual(watch.violations, []);
    });
  });

  it('stops finalising with two of four down rather than diverging, and resumes when they return', async () => {
    const [n0, n1, n2, n3] = net.nodes as [NetNode, NetNode, NetNode, NetNode];
    const live = [n0, n1];
    const down = [n2, n3];
    await withOutputs(async () => {
      await Promise.all(down.map((n) => n.killHard()));
      // A block already voted on may still be finalised in the round under way; then nothing more.
      await sleep(2 * ROUND_MS);
      const stalled = await Promise.all(live.map(finalHeight));
      await sleep(4 * ROUND_MS);
      const later = await Promise.all(live.map(finalHeight));
      assert.deepEqual(later, stalled, `no block is finalised by two of four nodes (final heights ${stalled.join(', ')} then ${later.join(', ')})`);
      // The two agree on their last final block (the lower one, if one node has not yet seen the other's last vote micro-block).
      const common = Math.min(...later);
      const ids = await Promise.all(live.map((n) => blockAt(n, common)));
      assert.equal(ids[0]!.signature, ids[1]!.signature, `the live nodes' final blocks at height ${common}`);

      await Promise.all(down.map((n) => n.start(60_000)));
      await finalisedOn(net.nodes, Math.max(...later) + 2, 30 * ROUND_MS);
      for (const n of net.nodes) await watch.poll(n, true);
      assert.deepEqual(watch.violations, []);
    });
  });

  it('a node cut off from its peers finalises nothing alone while the three others go on; reconnected, it takes their final blocks', async () => {
    const [n0, , , cut] = net.nodes as [NetNode, NetNode, NetNode, NetNode];
    const others = net.nodes.filter((n) => n !== cut);
    await withOutputs(async () => {
      await cut.stop();
      // Restarted on a P2P port nobody knows, knowing nobody: no connection either way.
      await cut.isolate();
      await cut.start(60_000);
      const alone = await finalHeight(cut);
      const before = Math.max(...(await Promise.all(others.map(finalHeight))));
      await finalisedOn(others, before + 3, 20 * ROUND_MS);
      assert.deepEqual(await cut.connectedPeers(), [], 'cut off');
      assert.equal(await finalHeight(cut), alone, 'the cut-off node finalises nothing on its own');

      const r = await cut.post('/peers/connect', { host: '127.0.0.1', port: n0.spec.p2pPort });
      assert.equal(r.status, 200, r.text);
      const target = await finalHeight(n0);
      await finalisedOn([cut], target, 60_000);
      await watch.poll(cut, true);
      await finalisedOn(net.nodes, target + 2, 20 * ROUND_MS);
      assert.deepEqual(watch.violations, []);
    });
  });

  it('never rolled back a final block on any node over the whole run', async () => {
    await watch.stop();
    for (const n of net.nodes) await watch.poll(n, true);
    assert.deepEqual(watch.violations, []);
    assert.ok(watch.ids.size >= 8, `final heights recorded: ${watch.ids.size}`);
  });
});
