/**
 * PoA bans across real node processes: three miners with WE's ban rules set short — one warning
 * makes a ban (warnings-for-ban = 1), a ban lasts 3 blocks, at most 50 % of the miners
 * banned — so the test sees a ban within a few rounds. A stopped miner misses its slot, the
 * others ban it at the same height (same /consensus/bannedMiners and
 * /consensus/minersWarningsAndBans on both), carry on without it, and it catches up onto
 * the one chain when restarted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Devnet, oneChain, until, type NetNode } from '../../devkit/network.js';

const NODES = 3;

interface Bans {
  readonly warningsAndBans: ReadonlyArray<{
    readonly address: string;
    readonly bans: ReadonlyArray<{ readonly beginHeight: number }>;
    readonly warnings: readonly unknown[];
  }>;
}

describe('PoA bans in a network of 3 node processes', { timeout: 120_000 }, () => {
  let net: Devnet;
  after(() => net?.dispose());
  before(async () => {
    net = await Devnet.create({
      nodes: NODES,
      roundDurationMs: 2000,
      syncDurationMs: 1000,
      microBlockIntervalMs: 500,
      bans: { warningsForBan: 1, banDurationBlocks: 3, maxBansPercentage: 50 },
      register: false,
    });
    process.once('exit', () => net.killAll());
    await net.startAll();
    try {
      await net.meshed(20_000);
      await until(
        'height 3 on every node',
        async () => ((await Promise.all(net.nodes.map((n) => n.height()))).every((h) => h >= 3) ? true : undefined),
        30_000,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
  });

  it('bans a stopped miner at the same height on every other node; it catches up when restarted', async () => {
    const victim = net.nodes[NODES - 1]!;
    const others: NetNode[] = net.nodes.filter((n) => n !== victim);
    try {
      await victim.killHard();
      const from = await others[0]!.height();
      // A ban of the victim that began after it stopped, seen alike by both others.
      const beginHeight = await until(
        'a ban of the stopped miner on both other nodes',
        async () => {
          const answers = await Promise.all(others.map((n) => n.get('/consensus/minersWarningsAndBans')));
          const texts = answers.map((a) => JSON.stringify(a.json));
          if (texts[0] !== texts[1]) return undefined;
          const entry = (answers[0]!.json as Bans).warningsAndBans.find((w) => w.address === victim.spec.ownerAddress);
          return entry?.bans.map((b) => b.beginHeight).find((h) => h > from);
        },
        45_000,
        300,
      );
      for (const n of others) {
        const r = await n.get(`/consensus/bannedMiners/${beginHeight}`);
        assert.equal(r.status, 200, r.text);
        assert.ok((r.json as { bannedMiners: string[] }).bannedMiners.includes(victim.spec.ownerAddress), `${n.spec.name}: ${r.text}`);
      }
      // The others carry on past the ban.
      await until(
        'the others past the ban',
        async () => ((await Promise.all(others.map((n) => n.height()))).every((h) => h > beginHeight + 1) ? true : undefined),
        30_000,
        300,
      );
      await oneChain(others);

      await victim.start();
      await until(`${victim.spec.name} to catch up`, async () => ((await victim.height()) >= (await others[0]!.height()) - 1 ? true : undefined), 30_000, 300);
      await oneChain(net.nodes, 30_000);
      const r = await victim.get(`/consensus/bannedMiners/${beginHeight}`);
      assert.ok((r.json as { bannedMiners: string[] }).bannedMiners.includes(victim.spec.ownerAddress), 'the restarted node agrees on its own ban');
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
  });
});
