/**
 * The explorer's network page on a devnet of three miner processes (chromium through
 * playwright-core): the peers with their node owners and the last block each mined; then a
 * miner stopped — its missed round shows as skipped, the ban the next block gave it is
 * named at that block and in the miner queue, exactly as /consensus/minersWarningsAndBans
 * and /consensus/bannedMiners answer; the peer list follows it leaving and coming back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Devnet, until, type NetNode } from '../../devkit/network.js';
import { ExplorerBrowser } from './browser.js';

interface WarningsAndBans {
  readonly warningsAndBans: ReadonlyArray<{ readonly address: string; readonly bans: ReadonlyArray<{ readonly beginHeight: number }> }>;
}

describe('the network page on a devnet of 3 miners', { timeout: 180_000 }, () => {
  let net: Devnet;
  let browser: ExplorerBrowser | undefined;
  let observer: NetNode;
  after(async () => {
    await browser?.close();
    await net?.dispose();
  });
  before(async () => {
    // One missed round bans at once (warnings-for-ban 1), for long enough to be seen.
    net = await Devnet.create({
      nodes: 3,
      roundDurationMs: 2000,
      syncDurationMs: 1000,
      microBlockIntervalMs: 500,
      bans: { warningsForBan: 1, banDurationBlocks: 40, maxBansPercentage: 50 },
      register: false,
    });
    process.once('exit', () => net.killAll());
    await net.startAll();
    try {
      await net.meshed(20_000);
      await until(
        'height 4 on every node',
        async () => ((await Promise.all(net.nodes.map((n) => n.height()))).every((h) => h >= 4) ? true : undefined),
        40_000,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
    observer = net.nodes[0]!;
    browser = await ExplorerBrowser.open(observer.url);
  });

  const peerOwners = async (): Promise<string[]> =>
    (await browser!.page.locator('[data-testid="peers"] tr[data-owner]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-owner') ?? ''))).sort();

  it('peers, skipped rounds, a ban and a returning miner, as the REST API answers', async () => {
    const page = browser!;
    const victim = net.nodes[2]!;
    try {
      await page.goto('#/network');
      await page.page.getByTestId('peers').waitFor();
      await until('both peers listed', async () => ((await peerOwners()).length === 2 ? true : undefined), 15_000, 300);
      assert.deepEqual(await peerOwners(), (await observer.connectedPeers()).map((p) => p.nodeOwnerAddress).sort());
      // "Last block mined" of each peer: the highest block of the window its owner generated.
      // The peers show as soon as /peers/connected answers, the column once the page has read
      // the window of blocks (until then it reads "none recently"): wait for the numbers.
      const lastMinedCells = (): Promise<Array<readonly [string, string]>> =>
        page.page
          .locator('[data-testid="peers"] tr[data-owner]')
          .evaluateAll((trs) =>
            trs.map((tr) => [tr.getAttribute('data-owner') ?? '', tr.querySelector('[data-testid="peer-last-mined"]')?.textContent ?? ''] as const),
          );
      const lastMined = await until(
        'the last block each peer mined, from the window of blocks',
        async () => {
          const cells = await lastMinedCells();
          return cells.length === 2 && cells.every(([, shown]) => /^\d+$/.test(shown)) ? cells : undefined;
        },
        15_000,
        300,
      );
      for (const [owner, shown] of lastMined) {
        // Three miners take turns: each mined within the window.
        assert.match(shown, /^\d+$/, `${owner} mined recently`);
        const block = (await observer.get(`/blocks/headers/at/${shown}`)).json as { generator: string };
        assert.equal(block.generator, owner, `block ${shown} was mined by ${owner}`);
      }
      const height = await observer.height();
      page.expectConsole();

      const from = height;
      await victim.killHard();
      const beginHeight = await until(
        'a ban of the stopped miner',
        async () =>
          ((await observer.get('/consensus/minersWarningsAndBans')).json as WarningsAndBans).warningsAndBans
            .find((w) => w.address === victim.spec.ownerAddress)
            ?.bans.map((b) => b.beginHeight)
            .find((h) => h > from),
        45_000,
        300,
      );
      // The page names the ban at the block that gave it, after the skipped round.
      const gap = page.page.locator(`[data-testid="gaps"] li[data-height="${beginHeight}"]`);
      await gap.waitFor({ timeout: 20_000 });
      assert.match(await gap.innerText(), /round(s)? skipped before block/);
      assert.equal(await gap.locator(`a[title="${victim.spec.ownerAddress}"]`).count(), 1, 'the banned miner is named');
      assert.match(await gap.innerText(), /banned/);
      assert.ok(
        (await page.page.locator(`[data-testid="round-timeline"] a.skipped.banned[data-height="${beginHeight}"]`).count()) >= 1,
        'its skipped round is marked banned',
      );
      const banned = (await observer.get(`/consensus/bannedMiners/${await observer.height()}`)).json as { bannedMiners: string[] };
      assert.ok(banned.bannedMiners.includes(victim.spec.ownerAddress));
      const row = page.page.locator(`[data-testid="miner-queue"] tr[data-miner="${victim.spec.ownerAddress}"]`);
      await row.getByText('banned').waitFor({ timeout: 10_000 });
      assert.equal((await row.locator('td.num').last().innerText()).trim(), '—', 'a banned miner has no upcoming round');
      await until('one peer left on the page', async () => ((await peerOwners()).length === 1 ? true : undefined), 15_000, 300);
      await page.screenshot('network-devnet');

      await victim.start();
      await until(
        'the stopped miner back among the peers',
        async () => ((await peerOwners()).includes(victim.spec.ownerAddress) ? true : undefined),
        30_000,
        300,
      );
      page.expectConsole();
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
  });
});
