/**
 * CFT figures, on 4-node devnets of real processes on loopback (src/cli/devnet.ts; the PoA
 * rounds and miner settings of bench/network.ts's devnet, BENCH_POA). The run alternates
 * ROUNDS PoA rounds with ROUNDS CFT rounds — PoA first in odd rounds, CFT first in even ones,
 * so a drift of this shared machine hits both alike — each round on a fresh devnet:
 *
 * - cft.finality.p50 / .p99: for every block of the CFT rounds, the time from its key block's
 *   timestamp (set by its miner when it forged it) to the moment every node reported it final —
 *   each node's `/node/status` `lastFinalizedHeight` polled every POLL_MS, the block final on a
 *   node at the first answer that reaches its height (an answer's arrival, so the figure is an
 *   upper bound by at most one poll and one request). Under a steady load (STEADY_RATE
 *   transfers/s round-robin for STEADY_SECONDS) and again (`.burst`) during the
 *   confirmed-throughput burst; the blocks of all CFT rounds pooled. A CFT block can only be
 *   final after its round's mining part has ended and its validators voted in the sync period
 *   that follows, so the baseline is that sync period (BENCH_POA.syncDurationMs) and the ratio
 *   says how many sync periods a block waits for finality, its own round included. Progress
 *   lines say how long after its round's end (mining part and sync period, counted from the
 *   genesis timestamp as the nodes count them) each phase's blocks were final, and name every
 *   block final on some node later than round end + the devnet's finalization-timeout (its
 *   miner should have dropped it by then): that round's devnet directory, with every node's
 *   log, is kept for a look and its path printed.
 * - cft.confirmed: transfers/s broadcast round-robin to the CFT devnet until all are in blocks
 *   (bench/network.ts devnetConfirmedRate), the median of the CFT rounds, against the median
 *   of the PoA rounds measured the same way (goal ≥ 0.9); the ratio is the ratio of the
 *   medians, and the unit and label list every round's rate. Every round, PoA or CFT, runs
 *   the same: the steady load, then WARMUP uncounted transfers, then the burst — so both
 *   devnets are as warm at their burst — and every node's `/node/status` is polled every
 *   POLL_MS throughout, PoA nodes too, so both carry the watch's load.
 *
 * Every devnet logs its chain appends and its miner at DEBUG (PoA and CFT alike, so both
 * rounds pay the same): the logs of a kept directory show when each block and micro-block
 * arrived and when each vote was sent and gathered.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEVNET_FINALIZATION_TIMEOUT_MS, prepareDevnet, spawnDevnetNode, type DevnetConsensus } from '../src/cli/devnet.js';
import { stringifyJson } from '../src/protocol/json.js';
import type { Protocol } from '../src/protocol/protocol.js';
import { BENCH_POA, benchDevnetOptions, chainHeight, request, signedTransfers } from './chain.js';
import { benchNodeArgs, median, progress, type Figure } from './harness.js';
import { broadcastSteadily, devnetConfirmedRate, percentile, percentileFigures, until, untilMeshed } from './network.js';

const NODES = 4;
/** PoA rounds and CFT rounds, each (CFT_ROUNDS to change). */
const ROUNDS = Number(process.env['CFT_ROUNDS'] ?? 2);
const TRANSFERS = Number(process.env['CFT_TRANSFERS'] ?? 10_000);
const WARMUP = Number(process.env['CFT_WARMUP'] ?? 5_000);
const STEADY_RATE = 200;
/** The steady phase of each CFT round: long enough for several blocks, each one finality sample. */
const STEADY_SECONDS = Number(process.env['CFT_STEADY_SECONDS'] ?? 30);
const POLL_MS = 50;
const GOAL_CONFIRMED = 0.9;
/** A PoA round: its mining part and its sync period (poa/rounds.ts). */
const PERIOD_MS = BENCH_POA.roundDurationMs + BENCH_POA.syncDurationMs;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Devnet {
  readonly urls: readonly string[];
  readonly children: readonly ChildProcess[];
  readonly dir: string;
}

async function startDevnet(consensus: DevnetConsensus): Promise<Devnet> {
  const dir = mkdtempSync(join(tmpdir(), `weft-bench-${consensus}-`));
  const layout = await prepareDevnet({ ...benchDevnetOptions(NODES, dir), utxMemoryLimitBytes: 512 * 1024 * 1024, consensus });
  const children = layout.nodes.map((node) => spawnDevnetNode(node, { nodeOptions: benchNodeArgs() }));
  const devnet = { urls: layout.nodes.map((n) => n.restUrl), children, dir };
  try {
    for (const url of devnet.urls) await until(`${url} to serve`, async () => (await request(`${url}/node/version`, 'GET')).status === 200, 60_000);
    // Request logs off (they would cost throughput, as bench/network.ts); appends and the miner at DEBUG for a late block's story.
    for (const url of devnet.urls) {
      for (const [logger, level] of [
        ['api', 'WARN'],
        ['chain', 'DEBUG'],
        ['miner', 'DEBUG'],
      ]) {
        const res = await fetch(`${url}/node/logging`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': layout.apiKey },
          body: JSON.stringify({ logger, level }),
        });
        if (res.status !== 200) throw new Error(`bench: POST /node/logging on ${url}: ${res.status} ${await res.text()}`);
      }
    }
    await untilMeshed(devnet.urls);
  } catch (e) {
    await stopDevnet(devnet, false);
    throw e;
  }
  return devnet;
}

/** Stops the devnet's nodes; removes its directory unless `keep`. */
async function stopDevnet(d: Devnet, keep: boolean): Promise<void> {
  for (const c of d.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await Promise.all(
    d.children.map((c) => new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve())))),
  );
  if (!keep) rmSync(d.dir, { recursive: true, force: true });
}

const transferBodies = (p: Protocol, n: number, start: bigint): string[] => signedTransfers(p, n, start).map((tx) => stringifyJson(tx.toJson()));

/**
 * Watches when each height becomes final on each node: polls each node's /node/status every
 * POLL_MS until stopped. `finalEverywhere(h)` is when the last node reported it. Each node is
 * polled on its own loop, over fetch's connections — not request()'s keep-alive agent, whose 32
 * sockets a node the steady load's broadcasts share: a poll queued behind broadcasts a busy node
 * has not answered yet stamped a block final seconds after the node's log shows its votes
 * applied. A slow node delays only its own polls.
 */
class FinalityWatch {
  /** Per node: the time (ms) each height was first reported final. */
  private readonly finalAt: Array<Map<number, number>>;
  private readonly highest: number[];
  private running = true;
  private failure: Error | undefined;
  private readonly loop: Promise<unknown>;

  constructor(private readonly urls: readonly string[]) {
    this.finalAt = urls.map(() => new Map());
    this.highest = urls.map(() => 0);
    this.loop = Promise.all(urls.map((url, i) => this.poll(url, i)));
  }

  private async poll(url: string, i: number): Promise<void> {
    while (this.running) {
      const next = sleep(POLL_MS);
      // A request that fails (a node busy past the timeout) is a missed poll, not an end.
      const res = await fetch(`${url}/node/status`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
      const text = res?.status === 200 ? await res.text().catch(() => undefined) : undefined;
      if (text !== undefined) this.record(url, i, text, Date.now());
      await next;
    }
  }

  private record(url: string, i: number, status: string, at: number): void {
    const h = (JSON.parse(status) as { lastFinalizedHeight?: number }).lastFinalizedHeight;
    if (h === undefined) {
      this.failure ??= new Error(`bench: ${url}/node/status has no lastFinalizedHeight: not a CFT node`);
      return;
    }
    // A final block stays final: every height up to the reported one is final from now on.
    for (let k = this.highest[i]! + 1; k <= h; k++) this.finalAt[i]!.set(k, at);
    this.highest[i] = Math.max(this.highest[i]!, h);
  }

  /** The lowest height final on every node. */
  finalOnAll(): number {
    if (this.failure !== undefined) throw this.failure;
    return Math.min(...this.highest);
  }

  /** When each node first reported height `h` final (undefined where it has not). */
  finalOnEach(h: number): Array<number | undefined> {
    return this.finalAt.map((m) => m.get(h));
  }

  finalEverywhere(h: number): number | undefined {
    const times = this.finalOnEach(h);
    return times.some((t) => t === undefined) ? undefined : Math.max(...(times as number[]));
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/** One block's finality, as the watch saw it. */
interface FinalitySample {
  readonly height: number;
  /** Its key block's timestamp → final on every node, ms. */
  readonly latencyMs: number;
  /** Final on every node this long after the last ms of its round (mining part and sync period). */
  readonly afterRoundEndMs: number;
  /** Per node: final this long after the round's end (the watch's first answer at its height). */
  readonly afterRoundEndByNode: readonly number[];
}

/** The finality of every height final on every node whose key block was forged within [from, to]. */
async function finalitySamples(
  url: string,
  watch: FinalityWatch,
  genesisTimestamp: number,
  from: number,
  to: number,
  firstHeight: number,
): Promise<FinalitySample[]> {
  const out: FinalitySample[] = [];
  for (let h = firstHeight; h <= watch.finalOnAll(); h++) {
    const final = watch.finalEverywhere(h);
    // Heights already final when the watch started carry no latency.
    if (final === undefined) continue;
    const block = JSON.parse((await request(`${url}/blocks/headers/at/${h}`, 'GET')).text) as { timestamp: number };
    if (block.timestamp < from || block.timestamp > to) continue;
    // Rounds are counted from the genesis timestamp (poa/rounds.ts): the round's last ms is its start + period − 1.
    const roundEnd = genesisTimestamp + Math.floor((block.timestamp - genesisTimestamp) / PERIOD_MS) * PERIOD_MS + PERIOD_MS - 1;
    out.push({
      height: h,
      latencyMs: final - block.timestamp,
      afterRoundEndMs: final - roundEnd,
      afterRoundEndByNode: watch.finalOnEach(h).map((t) => t! - roundEnd),
    });
  }
  return out;
}

/** One round's results. */
interface Round {
  readonly rate: number;
  /** CFT rounds: the finality of the blocks forged under the steady load and during the burst. */
  readonly steady: readonly FinalitySample[];
  readonly burst: readonly FinalitySample[];
}

/**
 * A round on a fresh devnet: the steady load, WARMUP uncounted transfers, then the burst —
 * its confirmed rate and, under CFT, its blocks' finality. PoA and CFT devnets take the same
 * transfers before their burst, so their code is as warm, and both are polled by the
 * FinalityWatch, so both carry its load. Keeps a CFT devnet's directory when a block was final
 * later than round end + finalization-timeout on some node.
 */
async function devnetRound(p: Protocol, consensus: DevnetConsensus): Promise<Round> {
  const name = consensus.toUpperCase();
  const devnet = await startDevnet(consensus);
  let late = false;
  try {
    const url0 = devnet.urls[0]!;
    const genesisTimestamp = (JSON.parse((await request(`${url0}/blocks/headers/at/1`, 'GET')).text) as { timestamp: number }).timestamp;
    // Signed before the watch starts: signing thousands of transfers holds this process's event loop for seconds, which would stamp the watch's answers late.
    const steadyBodies = transferBodies(p, STEADY_RATE * STEADY_SECONDS, BigInt(Date.now()) - 60_000n);
    const warmupBodies = transferBodies(p, WARMUP, BigInt(Date.now()) - 30_000n);
    const burstBodies = transferBodies(p, TRANSFERS, BigInt(Date.now()));
    // A PoA node reports no finality: its watch only polls, and is never asked.
    const watch = new FinalityWatch(devnet.urls);
    try {
      await sleep(2 * POLL_MS);
      const firstHeight = consensus === 'cft' ? watch.finalOnAll() + 1 : 0;
      progress(`${name} steady load: ${STEADY_RATE} transfers/s round-robin to ${NODES} nodes for ${STEADY_SECONDS} s`);
      const steadyWindow = { from: Date.now(), to: 0 };
      const sent = await broadcastSteadily(devnet.urls, steadyBodies, STEADY_RATE);
      if (sent.failed > 0) progress(`${name} steady load: ${sent.failed} broadcasts failed, first: ${sent.firstError}`);
      steadyWindow.to = Date.now();
      progress(`${name} warm-up (not counted): ${WARMUP} transfers round-robin`);
      await devnetConfirmedRate(devnet.urls, warmupBodies, 120_000);
      progress(`${name} burst: ${TRANSFERS} transfers round-robin`);
      const burstWindow = { from: Date.now(), to: 0 };
      const rate = await devnetConfirmedRate(devnet.urls, burstBodies, 180_000);
      burstWindow.to = Date.now();
      if (consensus === 'poa') return { rate, steady: [], burst: [] };
      // The blocks forged during the burst become final a round later: wait for them on every node.
      const last = await chainHeight(url0);
      await until(`height ${last} final on every node`, () => Promise.resolve(watch.finalOnAll() >= last), 60_000);
      await watch.stop();
      const steady = await finalitySamples(url0, watch, genesisTimestamp, steadyWindow.from, steadyWindow.to, firstHeight);
      const burst = await finalitySamples(url0, watch, genesisTimestamp, burstWindow.from, burstWindow.to, firstHeight);
      for (const s of [...steady, ...burst]) {
        if (!s.afterRoundEndByNode.some((ms) => ms > DEVNET_FINALIZATION_TIMEOUT_MS)) continue;
        late = true;
        progress(
          `CFT: height ${s.height} final after round end + finalization-timeout (${DEVNET_FINALIZATION_TIMEOUT_MS} ms) on some node — ms after its round's end, by node: ${s.afterRoundEndByNode.join(', ')}`,
        );
      }
      return { rate, steady, burst };
    } finally {
      await watch.stop();
    }
  } finally {
    await stopDevnet(devnet, late);
    if (late) progress(`CFT: that round's devnet kept with its nodes' logs: ${devnet.dir}`);
  }
}

export async function cftFigures(p: Protocol): Promise<Figure[]> {
  const settings = `${NODES} nodes, round ${BENCH_POA.roundDurationMs} ms + sync ${BENCH_POA.syncDurationMs} ms, micro-block every ${BENCH_POA.microBlockIntervalMs} ms, ≤ ${BENCH_POA.maxTransactionsInMicroBlock} txs per micro-block`;
  const poaRounds: Round[] = [];
  const cftRounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // PoA first in odd rounds, CFT first in even ones: a drift of the machine hits both alike.
    for (const consensus of i % 2 === 0 ? (['poa', 'cft'] as const) : (['cft', 'poa'] as const)) {
      progress(
        `round ${i + 1} of ${ROUNDS}, ${consensus.toUpperCase()}: a fresh ${NODES}-node devnet; ${STEADY_SECONDS} s steady, ${WARMUP} uncounted transfers, then ${TRANSFERS} round-robin`,
      );
      const round = await devnetRound(p, consensus).catch((e: unknown) => {
        // One failure (a node on this shared machine closing a connection mid-burst) costs one round, not the run: said, and run again once.
        progress(`round ${i + 1}, ${consensus.toUpperCase()}: failed (${e instanceof Error ? e.message : String(e)}); running it again on a fresh devnet`);
        return devnetRound(p, consensus);
      });
      (consensus === 'poa' ? poaRounds : cftRounds).push(round);
      progress(`round ${i + 1}, ${consensus.toUpperCase()}: confirmed ${Math.round(round.rate)} tx/s`);
    }
  }

  const out: Figure[] = [];
  const sync = BENCH_POA.syncDurationMs;
  for (const [phase, pick, what] of [
    ['', (r: Round) => r.steady, `steady ${STEADY_RATE} transfers/s`],
    ['.burst', (r: Round) => r.burst, `burst of ${TRANSFERS} transfers, CPU saturated`],
  ] as const) {
    const samples = cftRounds.flatMap(pick);
    if (samples.length === 0) {
      progress(`cft.finality${phase}: no block forged in the window was final on every node (${what}); its p50 and p99 are left out`);
      continue;
    }
    const xs = samples.map((s) => s.latencyMs).sort((a, b) => a - b);
    const after = samples.map((s) => s.afterRoundEndMs).sort((a, b) => a - b);
    progress(
      `cft.finality${phase}: final on all nodes relative to the end of the block's round (${BENCH_POA.roundDurationMs} ms mining + ${sync} ms sync; negative: inside its sync period, the limit round end + ${DEVNET_FINALIZATION_TIMEOUT_MS} ms): p50 ${percentile(after, 0.5)} ms, p99 ${percentile(after, 0.99)} ms, latest ${after.at(-1)} ms; blocks by CFT round: ${cftRounds.map((r) => pick(r).length).join(', ')}`,
    );
    out.push(
      ...percentileFigures(
        'cft.finality',
        phase,
        xs,
        () => sync,
        `ms key block → final on all ${NODES} nodes (${xs.length} blocks over ${cftRounds.length} CFT rounds, ${what})`,
        () => `the round's sync period (lower is better); ${settings}`,
      ),
    );
  }
  const cftRates = cftRounds.map((r) => r.rate);
  const cftRate = median(cftRates);
  const poaRates = poaRounds.map((r) => r.rate);
  const poaRate = median(poaRates);
  const listed = (xs: readonly number[]): string => xs.map((x) => Math.round(x)).join(', ');
  out.push({
    name: 'cft.confirmed',
    value: cftRate,
    baseline: poaRate,
    ratio: cftRate / poaRate,
    unit: `tx/s (median of ${ROUNDS} CFT rounds: ${listed(cftRates)}; PoA rounds: ${listed(poaRates)})`,
    baselineLabel: `the same devnet under PoA, median of ${ROUNDS} rounds alternating with the CFT rounds in this run, each on a fresh devnet (PoA ${listed(poaRates)}, CFT ${listed(cftRates)} tx/s; ratio of the medians); burst of ${TRANSFERS} round-robin to ${settings}`,
    target: GOAL_CONFIRMED,
  });
  return out;
}
