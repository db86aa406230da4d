/**
 * What Prometheus metrics (`node.metrics`) cost: each figure is a node process with metrics
 * on against the same with metrics off, in the same run — rounds alternate off and on (in
 * turn off first and on first), each on a fresh node, so machine noise hits both; the
 * medians are reported. During the "on"
 * rounds `/metrics` is scraped every second (Prometheus' default is every 15 s). In every
 * round, on or off, a monitor asks `/node/status` every second, as an operator's would: a
 * node that has only ever answered one route runs that route's code specialized to it, and
 * the first request of another route (a scrape, a status) deoptimizes the whole HTTP path
 * (Node's parser and streams, Fastify's handler and reply, the routing) — 3–4 % more CPU
 * over the first 15,000 transfers of a node taking nothing but broadcasts, metrics off or
 * on. That is the cost of a second route, which every node in use has, not of the metrics.
 * Value and baseline are the medians of the "on" and of the "off" nodes; the ratio is the
 * median of each round's on ÷ off, the two nodes of a round having run back to back: the
 * machine drifts by more than the metrics cost between rounds (±5 % here), which a ratio of
 * the two medians would take in.
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
/** GETs `path` every second until stopped (`/metrics`: a scraper; `/node/status`: a monitor); fails the run if it does not answer 200. */
function poller(node: NodeProc, path: string): () => Promise<void> {
  let failure: Error | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    inFlight = request(`${node.url}${path}`, 'GET').then(
      (r) => {
        if (r.status !== 200) failure ??= new Error(`${path} answered ${r.status}`);
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
  /** Medians over the rounds. */
  readonly on: number;
  readonly off: number;
  /** The median of the rounds' on ÷ off. */
  readonly ratio: number;
}

/** The medians of `on` and `off`, and the median of each round's on ÷ off (on[i] and off[i] ran back to back). */
function onOff(on: readonly number[], off: readonly number[]): OnOff {
  return { on: median(on), off: median(off), ratio: median(on.map((v, i) => v / off[i]!)) };
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
        const pollers = [poller(node, '/node/status'), ...(metrics ? [poller(node, '/metrics')] : [])];
        const cpu0 = processCpuMs(node.child.pid!) / 1000;
        const value = await measure(node, txs);
        const cpu = processCpuMs(node.child.pid!) / 1000 - cpu0;
        for (const stop of pollers) await stop();
        const key = metrics ? 'on' : 'off';
        rate[key].push(value);
        perCpu[key].push(txs.length / cpu);
        progress(`${name}: metrics ${key}: ${Math.round(value)} tx/s, ${Math.round(txs.length / cpu)} tx/cpu-s`);
        if (rate.on.length === i + 1 && rate.off.length === i + 1)
          progress(
            `${name}: round ${i + 1}, on ÷ off: ${(rate.on[i]! / rate.off[i]!).toFixed(3)} (tx/s), ${(perCpu.on[i]! / perCpu.off[i]!).toFixed(3)} (tx/cpu-s)`,
          );
      } finally {
        await stopNodeProcess(node);
      }
    }
  }
  return { rate: onOff(rate.on, rate.off), perCpuSecond: onOff(perCpu.on, perCpu.off) };
}

function figure(name: string, r: OnOff, what: string, unit = 'tx/s'): Figure {
  return {
    name,
    value: r.on,
    baseline: r.off,
    ratio: r.ratio,
    unit,
    baselineLabel: `the same node with node.metrics off (${what}; ratio: the median of the rounds' on ÷ off)`,
    target: TARGET,
  };
}

/** Transfers/s the metrics' per-transfer work handles alone, against in-process pool ingest. */
async function hooksFigure(p: Protocol): Promise<Figure> {
  const metrics = new NodeMetrics({ settings: DEFAULTS.metrics, now: () => BigInt(Date.now()) });
  try {
    const [tx] = signedTransfers(p, 1, BigInt(Date.now()));
    const frame = frameSize(tx!.bytes.length);
    // The admission listener the metrics hand a pool (watchPool), called as the pool calls it.
    let admitted: (t: Transaction) => void = () => undefined;
    metrics.watchPool(
      {
        onAdmission: (listener) => {
          admitted = listener;
          return () => undefined;
        },
        size: () => ({ size: 0, sizeInBytes: 0 }),
      },
      DEFAULTS.utx.memoryLimitBytes,
    );
    const perTransfer = (): void => {
      metrics.requests.answered('POST', '/transactions/broadcast', 200, 0.0012);
      admitted(tx!);
      metrics.traffic.received(MessageCode.Transaction, frame);
      metrics.traffic.sent(MessageCode.Transaction, frame);
    };
    const value = median([0, 1, 2].map(() => opsPerSecond(perTransfer, 500)));
    const ingest = await poolIngest(p, 10_000);
    return {
      name: 'metrics.hooks',
      value,
      baseline: ingest.value,
      ratio: value / ingest.value,
      unit: 'tx/s',
      baselineLabel: 'transfers into the pool in process (chain.ingest.pool)',
      target: 20,
    };
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
    figure('metrics.ingest.http', ingest.rate, 'tx/s into the pool'),
    figure('metrics.ingest.cpu', ingest.perCpuSecond, 'transfers into the pool per CPU-second of the node process', 'tx/cpu-s'),
    figure('metrics.confirmed', confirmed.rate, `tx/s confirmed; ${settings}`),
    figure('metrics.confirmed.cpu', confirmed.perCpuSecond, 'transfers confirmed per CPU-second of the node process', 'tx/cpu-s'),
  ];
}
