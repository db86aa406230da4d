/**
 * A dev-chain node for benchmarks, in its own process:
 *   node dist/bench/node-process.js <data-dir> <rest-port> <settings-json>
 * settings-json overrides miner and PoA settings (the bench states them in its output).
 * Prints "ready <url>" once serving. Its event-loop stalls are the node's own figure
 * (/metrics nodejs_eventloop_lag_max_seconds; bench/chain.ts longestStallMs).
 */
import { devNodeConfig } from '../src/cli/dev.js';
import { Node } from '../src/node/node.js';
import { PerformanceObserver, type NodeGCPerformanceDetail } from 'node:perf_hooks';
import pino from 'pino';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';

interface BenchSettings {
  readonly roundDurationMs: number;
  readonly syncDurationMs: number;
  readonly microBlockIntervalMs: number;
  readonly maxTransactionsInMicroBlock: number;
  readonly maxBlockSizeInBytes: number;
  readonly minerEnabled: boolean;
  /** The dev chain's crypto (default waves). */
  readonly crypto?: 'waves' | 'gost';
  /** node.metrics.enable (default true, as a dev node). */
  readonly metrics?: boolean;
  /** node.crypto.verifier-threads (default: the node's, one per core but one). */
  readonly verifierThreads?: number;
  /** Contract images the node runs as local processes from their package folders (none by default). */
  readonly contractPackages?: ReadonlyArray<{ readonly image: string; readonly source: string }>;
  /** The node's gRPC port (any free one by default). */
  readonly grpcPort?: number;
  /** node.api.grpc.services.blockchain-events.max-connections (WE's 5 by default). */
  readonly blockchainEventsMaxConnections?: number;
  /**
   * A file each micro-block the chain appends is logged to, one JSON line: the wall-clock time
   * (ms, µs precision: performance.timeOrigin + performance.now()) the chain's listeners were
   * told, its height, transaction count and first transaction's id (base58) — the append
   * times bench/grpc.ts measures live events from.
   */
  readonly microBlockLog?: string;
}

const [dataDir, port, json] = process.argv.slice(2);
if (dataDir === undefined || port === undefined || json === undefined) throw new Error('usage: node-process <data-dir> <rest-port> <settings-json>');
const s = JSON.parse(json) as BenchSettings;
const base = await devNodeConfig({
  dataDir,
  restPort: Number(port),
  p2pPort: 0,
  keystore: { scrypt: { N: 1024, r: 8, p: 1 } },
  crypto: s.crypto ?? 'waves',
  ...(s.grpcPort === undefined ? {} : { grpcPort: s.grpcPort }),
  contractPackages: (s.contractPackages ?? []).map((p) => ({ image: p.image, runtime: 'process' as const, source: p.source, command: undefined, env: {} })),
});
if (base.chain.consensus.type !== 'poa') throw new Error('dev chain is PoA');
const config = {
  ...base,
  chain: { ...base.chain, consensus: { ...base.chain.consensus, roundDurationMs: s.roundDurationMs, syncDurationMs: s.syncDurationMs } },
  miner: {
    ...base.miner,
    enabled: s.minerEnabled,
    microBlockIntervalMs: s.microBlockIntervalMs,
    maxTransactionsInMicroBlock: s.maxTransactionsInMicroBlock,
    maxBlockSizeInBytes: s.maxBlockSizeInBytes,
  },
  utx: { ...base.utx, memoryLimitBytes: 512 * 1024 * 1024 },
  metrics: { ...base.metrics, enabled: s.metrics ?? true },
  api:
    s.blockchainEventsMaxConnections === undefined
      ? base.api
      : { ...base.api, grpc: { ...base.api.grpc, blockchainEventsMaxConnections: s.blockchainEventsMaxConnections } },
  node: { ...base.node, ...(s.verifierThreads === undefined ? {} : { verifierThreads: s.verifierThreads }) },
};
// BENCH_LOG_LEVEL (e.g. debug: each micro-block's pool size and timings) logs to stderr; stdout carries the bench's own lines.
const node = await Node.start(config, { logger: pino({ level: process.env['BENCH_LOG_LEVEL'] ?? 'warn' }, pino.destination(2)) });
if (s.microBlockLog !== undefined) {
  const log = createWriteStream(s.microBlockLog);
  node.chain.on((event) => {
    if (event.kind !== 'micro-block' || event.transactions.length === 0) return;
    const at = performance.timeOrigin + performance.now();
    log.write(`${JSON.stringify({ at, height: event.height, count: event.transactions.length, first: event.transactions[0]!.idBase58 })}\n`);
  });
}
if (process.env['BENCH_LOG_LEVEL'] === 'debug') {
  // Garbage collections that held the loop 5 ms or more, beside the node's debug log (stderr).
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration >= 5)
        process.stderr.write(
          `${JSON.stringify({ msg: 'gc', time: Date.now(), kind: (e as unknown as { detail?: NodeGCPerformanceDetail }).detail?.kind, ms: Math.round(e.duration * 10) / 10 })}\n`,
        );
    }
  }).observe({ entryTypes: ['gc'] });
  // Turns of the event loop that held it 30 ms or more, with when they ended, to set beside the log;
  // `cpuMs`: the main thread's own time on a core meanwhile (Linux schedstat), which tells a long
  // turn from one the machine's other processes held off a core.
  const mainThreadStat = `/proc/self/task/${process.pid}/schedstat`;
  const hasSchedstat = existsSync(mainThreadStat);
  const onCpuMs = (): number => (hasSchedstat ? Number(readFileSync(mainThreadStat, 'utf8').split(' ')[0]) / 1e6 : NaN);
  let last = performance.now();
  let lastCpu = onCpuMs();
  setInterval(() => {
    const now = performance.now();
    const cpu = onCpuMs();
    if (now - last >= 35)
      process.stderr.write(`${JSON.stringify({ msg: 'stall', time: Date.now(), ms: Math.round(now - last - 5), cpuMs: Math.round(cpu - lastCpu) })}\n`);
    last = now;
    lastCpu = cpu;
  }, 5).unref();
}
process.stdout.write(`ready ${node.url ?? ''}\n`);
process.on('SIGTERM', () => void node.stop().then(() => process.exit(0)));
