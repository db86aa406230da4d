/**
 * CFT figures, on 4-node devnets of real processes on loopback (src/cli/devnet.ts; the PoA
 * rounds and miner settings of bench/network.ts's devnet, BENCH_POA):
 *
 * - cft.finality.p50 / .p99: for every block of a CFT devnet, the time from its key block's
 *   timestamp (set by its miner when it forged it) to the moment every node reported it final —
 *   each node's `/node/status` `lastFinalizedHeight` polled every POLL_MS, the block final on a
 *   node at the first answer that reaches its height (an answer's arrival, so the figure is an
 *   upper bound by at most one poll and one request). Under a steady load (STEADY_RATE
 *   transfers/s round-robin) and again (`.burst`) during the confirmed-throughput burst. A
 *   CFT block can only be final after its round has ended and its validators voted in the sync
 *   period that follows, so the baseline is that sync period (BENCH_POA.syncDurationMs) and
 *   the ratio says how many sync periods a block waits for finality, its own round included.
 * - cft.confirmed: transfers/s broadcast round-robin to the CFT devnet until all are in blocks
 *   (bench/network.ts devnetConfirmedRate), against the same devnet under PoA measured the same
 *   way in this run (goal ≥ 0.9). Each devnet first takes WARMUP uncounted transfers, so both
 *   are measured with their code optimized.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareDevnet, spawnDevnetNode, type DevnetConsensus } from '../src/cli/devnet.js';
import { stringifyJson } from '../src/protocol/json.js';
import type { Protocol } from '../src/protocol/protocol.js';
import { BENCH_POA, benchDevnetOptions, chainHeight, request, signedTransfers } from './chain.js';
import { benchNodeArgs, progress, type Figure } from './harness.js';
import { broadcastSteadily, devnetConfirmedRate, percentileFigures, until, untilMeshed } from './network.js';

const NODES = 4;
const TRANSFERS = Number(process.env['CFT_TRANSFERS'] ?? 10_000);
const WARMUP = Number(process.env['CFT_WARMUP'] ?? 5_000);
const STEADY_RATE = 200;
/** Long enough for several rounds: each round gives one finality sample. */
const STEADY_SECONDS = Number(process.env['CFT_STEADY_SECONDS'] ?? 60);
const POLL_MS = 50;
const GOAL_CONFIRMED = 0.9;

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
    // Request logs off: they would cost throughput (as bench/network.ts).
    for (const url of devnet.urls) {
      const res = await fetch(`${url}/node/logging`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': layout.apiKey },
        body: JSON.stringify({ logger: 'api', level: 'WARN' }),
      });
      if (res.status !== 200) throw new Error(`bench: POST /node/logging on ${url}: ${res.status} ${await res.text()}`);
    }
    await untilMeshed(devnet.urls);
  } catch (e) {
    await stopDevnet(devnet);
    throw e;
  }
  return devnet;
}

async function stopDevnet(d: Devnet): Promise<void> {
  for (const c of d.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await Promise.all(
    d.children.map((c) => new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve())))),
  );
  rmSync(d.dir, { recursive: true, force: true });
}

const transferBodies = (p: Protocol, n: number, start: bigint): string[] => signedTransfers(p, n, start).map((tx) => stringifyJson(tx.toJson()));

/**
 * Watches when each height becomes final on each node: polls every node's /node/status
 * every POLL_MS until stopped. `finalEverywhere(h)` is when the last node reported it.
 */
class FinalityWatch {
  /** Per node: the time (ms) each height was first reported final. */
  private readonly finalAt: Array<Map<number, number>>;
  private readonly highest: number[];
  private running = true;
  private failure: Error | undefined;
  private readonly loop: Promise<void>;

  constructor(private readonly urls: readonly string[]) {
    this.finalAt = urls.map(() => new Map());
    this.highest = urls.map(() => 0);
    this.loop = this.poll();
  }

  private async poll(): Promise<void> {
    while (this.running) {
      const next = sleep(POLL_MS);
      await Promise.all(
        this.urls.map(async (url, i) => {
          // A request that fails (a node busy past the client's timeout) is a missed poll, not an end.
          const res = await request(`${url}/node/status`, 'GET').catch(() => undefined);
          if (res?.status !== 200) return;
          const at = Date.now();
          const h = (JSON.parse(res.text) as { lastFinalizedHeight?: number }).lastFinalizedHeight;
          if (h === undefined) {
            this.failure ??= new Error(`bench: ${url}/node/status has no lastFinalizedHeight: not a CFT node`);
            return;
          }
          // A final block stays final: every height up to the reported one is final from now on.
          for (let k = this.highest[i]! + 1; k <= h; k++) this.finalAt[i]!.set(k, at);
          this.highest[i] = Math.max(this.highest[i]!, h);
        }),
      );
      await next;
    }
  }

  /** The lowest height final on every node. */
  finalOnAll(): number {
    if (this.failure !== undefined) throw this.failure;
    return Math.min(...this.highest);
  }

  finalEverywhere(h: number): number | undefined {
    const times = this.finalAt.map((m) => m.get(h));
    return times.some((t) => t === undefined) ? undefined : Math.max(...(times as number[]));
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/** The finality latency (ms) of every height final on every node whose key block was forged within [from, to], sorted. */
async function finalityLatencies(url: string, watch: FinalityWatch, from: number, to: number, firstHeight: number): Promise<number[]> {
  const out: number[] = [];
  for (let h = firstHeight; h <= watch.finalOnAll(); h++) {
    const final = watch.finalEverywhere(h);
    // Heights already final when the watch started carry no latency.
    if (final === undefined) continue;
    const block = JSON.parse((await request(`${url}/blocks/headers/at/${h}`, 'GET')).text) as { timestamp: number };
    if (block.timestamp < from || block.timestamp > to) continue;
    out.push(final - block.timestamp);
  }
  return out.sort((a, b) => a - b);
}

export async function cftFigures(p: Protocol): Promise<Figure[]> {
  const settings = `${NODES} nodes, round ${BENCH_POA.roundDurationMs} ms + sync ${BENCH_POA.syncDurationMs} ms, micro-block every ${BENCH_POA.microBlockIntervalMs} ms, ≤ ${BENCH_POA.maxTransactionsInMicroBlock} txs per micro-block`;

  progress(`PoA: starting a ${NODES}-node devnet; ${WARMUP} uncounted transfers, then ${TRANSFERS} round-robin`);
  let poaRate: number;
  {
    const poa = await startDevnet('poa');
    try {
      await devnetConfirmedRate(poa.urls, transferBodies(p, WARMUP, BigInt(Date.now()) - 60_000n), 120_000);
      poaRate = await devnetConfirmedRate(poa.urls, transferBodies(p, TRANSFERS, BigInt(Date.now())), 180_000);
    } finally {
      await stopDevnet(poa);
    }
  }

  progress(`CFT: starting a ${NODES}-node devnet`);
  const cft = await startDevnet('cft');
  let cftRate: number;
  let steadyLatencies: number[];
  let burstLatencies: number[];
  try {
    const url0 = cft.urls[0]!;
    const watch = new FinalityWatch(cft.urls);
    try {
      await sleep(2 * POLL_MS);
      const firstHeight = watch.finalOnAll() + 1;
      progress(`CFT steady load: ${STEADY_RATE} transfers/s round-robin to ${NODES} nodes for ${STEADY_SECONDS} s`);
      const steady = { from: Date.now(), to: 0 };
      const sent = await broadcastSteadily(cft.urls, transferBodies(p, STEADY_RATE * STEADY_SECONDS, BigInt(Date.now()) - 60_000n), STEADY_RATE);
      if (sent.failed > 0) progress(`CFT steady load: ${sent.failed} broadcasts failed, first: ${sent.firstError}`);
      steady.to = Date.now();
      progress(`CFT warm-up (not counted): ${WARMUP} transfers round-robin`);
      await devnetConfirmedRate(cft.urls, transferBodies(p, WARMUP, BigInt(Date.now()) - 30_000n), 120_000);
      progress(`CFT burst: ${TRANSFERS} transfers round-robin`);
      const burstBodies = transferBodies(p, TRANSFERS, BigInt(Date.now()));
      const burst = { from: Date.now(), to: 0 };
      cftRate = await devnetConfirmedRate(cft.urls, burstBodies, 180_000);
      burst.to = Date.now();
      // The blocks forged during the burst become final a round later: wait for them on every node.
      const last = await chainHeight(url0);
      await until(`height ${last} final on every node`, () => Promise.resolve(watch.finalOnAll() >= last), 60_000);
      await watch.stop();
      steadyLatencies = await finalityLatencies(url0, watch, steady.from, steady.to, firstHeight);
      burstLatencies = await finalityLatencies(url0, watch, burst.from, burst.to, firstHeight);
    } finally {
      await watch.stop();
    }
  } finally {
    await stopDevnet(cft);
  }

  const out: Figure[] = [];
  const sync = BENCH_POA.syncDurationMs;
  for (const [phase, xs, what] of [
    ['', steadyLatencies, `steady ${STEADY_RATE} transfers/s`],
    ['.burst', burstLatencies, `burst of ${TRANSFERS} transfers, CPU saturated`],
  ] as const) {
    if (xs.length === 0) {
      progress(`cft.finality${phase}: no block forged in the window was final on every node (${what}); its p50 and p99 are left out`);
      continue;
    }
    const figures = percentileFigures(
      'cft.finality',
      phase,
      xs,
      () => sync,
      `ms key block → final on all ${NODES} nodes (${xs.length} blocks, ${what})`,
      () => `the round's sync period (lower is better); ${settings}`,
    );
    for (const f of figures)
      progress(`${f.name}: final ${Math.round(f.value - BENCH_POA.roundDurationMs)} ms after its round of ${BENCH_POA.roundDurationMs} ms ended`);
    out.push(...figures);
  }
  out.push({
    name: 'cft.confirmed',
    value: cftRate,
    baseline: poaRate,
    ratio: cftRate / poaRate,
    unit: 'tx/s',
    baselineLabel: `the same devnet under PoA in this run; burst of ${TRANSFERS} round-robin to ${settings}`,
    target: GOAL_CONFIRMED,
  });
  return out;
}
