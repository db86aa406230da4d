/**
 * What Prometheus metrics (`node.metrics`) cost: each figure is a node process with metrics
 * on against the same with metrics off, in the same run — rounds alternate off and on (in
 * turn off first and on first), each on a fresh node, so machine noise hits both; the
 * medians are reported. During the "on"
 * rounds `/metrics` is scraped every second (Prometheus' default is every 15 s).
 * - metrics.ingest.http: transfers/s broadcast over HTTP into the pool of a node that does
 *   not mine (per request: the REST observer and the pool's admission counter);
 * - metrics.confirmed: transfers/s from broadcast to block on a mining node (besides: the
 *   chain's events, the appends' timings);
 * - metrics.ingest.cpu, metrics.confirmed.cpu: the same runs as transfers per CPU-second of
 *   the node process (all its threads, from /proc): what the node spends, less exposed than
 *   wall-clock rates to the other processes of a shared machine.
 * Target ≥ 0.95: the metrics must not slow the node measurably. Those four share the machine
 * with everything else on it, so each round's figures go to stderr: their spread says how
 * much of a ratio is noise.
 * - metrics.hooks: what the metrics do per transfer a node takes, alone and in process on a
 *   real NodeMetrics — one REST answer observed, one pool admission counted, the transfer's
 *   Transaction message counted in and out — against the node's own in-process pool ingest
 *   of transfers (chain.ingest.pool). The ratio says how many times cheaper the metrics' part
 *   is; target ≥ 20 (at most 5 % on top of the ingest work). A micro-block's chain event
 *   (two histogram observations, two counters) is per micro-block, not per transfer.
 */
import { BENCH_POA, confirmedRate, ingestedRate, poolIngest, request, signedTransfers, startNodeProcess, stopNodeProcess, type NodeProc } from './chain.js';
import { median, opsPerSecond, processCpuMs, progress, type Figure } from './harness.js';
import { DEFAULTS } from '../src/node/config.js';
import { NodeMetrics } from '../src/node/metrics.js';
import { frameSize } from '../src/network/framing.js';
import { MessageCode } from '../src/network/types.js';
import type { Protocol } from '../src/protocol/protocol.js';
import type { Transaction } from '../src/protocol/transactions/schema.js';

const TARGET = 0.95;
/** Scrapes `/metrics` every second until stopped; fails the run if a scrape does not answer 200. */
function scraper(node: NodeProc): () => Promise<void> {
  let failure: Error | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    inFlight = request(`${node.url}/metrics`, 'GET').then(
      (r) => {
        if (r.status !== 200) failure ??= new Error(`/metrics answered ${r.status}`);
      },
      (e: unknown) => {
        failure ??= e as Error;
      },
    );
  }, 1000);
  return async () => {
    clearInterval(timer);
    await inFlight;
    if (failure !== undefined) throw failure;
  };
}


interface OnOff {
  readonly on: number;
  readonly off: number;
}

/** Median rates (tx/s) and transfers per CPU-second with metrics on and off, over alternating rounds, each on a fresh node. */
async function onVersusOff(
  name: string,
  rounds: number,
  mining: boolean,
  transfers: () => Transaction[],
  measure: (node: NodeProc, txs: readonly Transaction[]) => Promise<number>,
): Promise<{ rate: OnOff; perCpuSecond: OnOff }> {
  const rate = { on: [] as number[], off: [] as number[] };
  const perCpu = { on: [] as number[], off: [] as number[] };
  for (let i = 0; i < rounds; i++) {
    // Off first in odd rounds, on first in even ones: a drift of the machine hits both alike.
    for (const metrics of i % 2 === 0 ? [false, true] : [true, false]) {
      progress(`${name}: round ${i + 1} of ${rounds}, metrics ${metrics ? 'on' : 'off'}`);
      const node = await startNodeProcess(mining, 'waves', metrics);
      try {
        const txs = transfers();
        const stopScraping = metrics ? scraper(node) : async () => {};
        const cpu0 = processCpuMs(node.child.pid!) / 1000;
        const value = await measure(node, txs);
        const cpu = processCpuMs(node.child.pid!) / 1000 - cpu0;
        await stopScraping();
        const key = metrics ? 'on' : 'off';
        rate[key].push(value);
        perCpu[key].push(txs.length / cpu);
        progress(`${name}: metrics ${key}: ${Math.round(value)} tx/s, ${Math.round(txs.length / cpu)} tx/cpu-s`);
      } finally {
        await stopNodeProcess(node);
      }
    }
  }
  return { rate: { on: median(rate.on), off: median(rate.off) }, perCpuSecond: { on: median(perCpu.on), off: median(perCpu.off) } };
}

function figure(name: string, r: OnOff, label: string, unit = 'tx/s'): Figure {
  return { name, value: r.on, baseline: r.off, ratio: r.on / r.off, unit, baselineLabel: label, target: TARGET };
}

/** Transfers/s the metrics' per-transfer work handles alone, against in-process pool ingest. */
async function hooksFigure(p: Protocol): Promise<Figure> {
  const metrics = new NodeMetrics({ settings: DEFAULTS.metrics, now: () => BigInt(Date.now()) });
  try {
    const [tx] = signedTransfers(p, 1, BigInt(Date.now()));
    const frame = frameSize(tx!.bytes.length);
    // The admission listener the metrics hand a pool (watchPool), called as the pool calls it.
    let admitted: (t: Transaction) => void = () => undefined;
    metrics.watchPool({
      onAdmission: (listener) => {
        admitted = listener;
        return () => undefined;
      },
      size: () => ({ size: 0, sizeInBytes: 0 }),
    });
    const perTransfer = (): void => {
      metrics.requests.answered('POST', '/transactions/broadcast', 200, 0.0012);
      admitted(tx!);
      metrics.traffic.received(MessageCode.Transaction, frame);
      metrics.traffic.sent(MessageCode.Transaction, frame);
    };
    const value = median([0, 1, 2].map(() => opsPerSecond(perTransfer, 500)));
    const ingest = await poolIngest(p, 10_000);
    return { name: 'metrics.hooks', value, baseline: ingest.value, ratio: value / ingest.value, unit: 'tx/s', baselineLabel: 'transfers into the pool in process (chain.ingest.pool)', target: 20 };
  } finally {
    metrics.close();
  }
}

export async function metricsFigures(p: Protocol): Promise<Figure[]> {
  progress('the metrics work per transfer, in process');
  const hooks = await hooksFigure(p);
  const settings = `PoA round ${BENCH_POA.roundDurationMs} ms + sync ${BENCH_POA.syncDurationMs} ms, micro-block every ${BENCH_POA.microBlockIntervalMs} ms`;
  const ingest = await onVersusOff('ingest over HTTP', 5, false, () => signedTransfers(p, 15_000, BigInt(Date.now())), ingestedRate);
  const confirmed = await onVersusOff('broadcast to block', 5, true, () => signedTransfers(p, 20_000, BigInt(Date.now())), confirmedRate);
  return [
    hooks,
    figure('metrics.ingest.http', ingest.rate, 'the same node with node.metrics off (tx/s into the pool)'),
    figure('metrics.ingest.cpu', ingest.perCpuSecond, 'the same node with node.metrics off (transfers into the pool per CPU-second of the node process)', 'tx/cpu-s'),
    figure('metrics.confirmed', confirmed.rate, `the same node with node.metrics off (tx/s confirmed; ${settings})`),
    figure('metrics.confirmed.cpu', confirmed.perCpuSecond, 'the same node with node.metrics off (transfers confirmed per CPU-second of the node process)', 'tx/cpu-s'),
  ];
}
