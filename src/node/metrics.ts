/**
 * One node's Prometheus metrics (`node.metrics`), built by the composition root (node.ts)
 * and fed by the parts as they run. Each node has its own prom-client Registry — never
 * prom-client's global one — so two nodes in one process count apart.
 *
 * Where the figures come from (nothing here reaches into a part; each part reports or is read):
 * - chain: its events (`chain.on`) — blocks, micro-blocks and transactions appended by origin
 *   (`local` = this node's miner, `network` = a peer, `api`), the append's apply and commit
 *   durations carried by the event, rollbacks; height, the liquid block, the top block's time,
 *   skipped rounds and finality (from its consensus data) read at scrape;
 * - the data directory: its file system's free and total bytes (statfs), read at scrape;
 * - pool: its admission listener (`onAdmission`) and the `onRefused` callback it shares with
 *   the chain's admission in front of it (refusals by WE's error kind); size and bytes read at scrape;
 * - network: the transport's traffic observer (messages and bytes in and out by message
 *   code); peers, suspensions and sync read from the network at scrape; the propagation
 *   delay of a block or micro-block from a peer — node time at its append minus its own
 *   timestamp — from the chain's events (blocks taken while catching up, and what a fork
 *   switch appends, are not propagation and are left out);
 * - REST: the server's request observer (duration by route pattern, method and status);
 * - the process: prom-client's default metrics (CPU, RSS, heap, event-loop lag, GC, handles)
 *   and the event loop's busy time (`rate()` of it is the event-loop utilization);
 * - subsystems wired later (privacy, contracts): `registerSubsystem` (their collectors:
 *   subsystem-metrics.ts).
 *
 * What is counted per REST request and per P2P message (the request durations, the traffic)
 * is counted in series kept by the caller (metric-series.ts): prom-client's own counters
 * hash their labels on every call. The rest is counted per block or per transaction, or read
 * at scrape, by prom-client's metrics.
 */
import { statfsSync } from 'node:fs';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ApiRequestObserver } from '../api/server.js';
import type { MetricsService } from '../api/services.js';
import type { Blockchain, ChainEvent } from '../chain/blockchain.js';
import type { ConsensusSettings } from '../chain/settings.js';
import type { UtxPool } from '../chain/utx.js';
import { tipFinality } from '../consensus/cft/finality.js';
import type { WeError } from '../errors/catalogue.js';
import type { NodeNetwork } from '../network/node-network.js';
import { MessageCode, type NetworkTrafficObserver } from '../network/types.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import type { MetricsSettings } from './config.js';
import { SeriesCounter, SeriesHistogram, type CounterSeries, type HistogramSeries } from './metric-series.js';

/** Seconds; an append of a big block on a busy machine may take seconds. */
const APPEND_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Seconds from a block's timestamp to its append here; the target is a p99 under 0.2 s. */
const PROPAGATION_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 2, 5, 10, 30];
const REST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const MESSAGE_NAMES: ReadonlyMap<number, string> = new Map(Object.entries(MessageCode).map(([name, code]) => [code, name]));

/** A subsystem's name in metric names: `weft_<name>_…`. */
const SUBSYSTEM_NAME = /^[a-z][a-z0-9_]*$/;

/** What a subsystem registering its collectors gets: this node's registry and the prefix every one of its metric names must carry. */
export interface SubsystemMetrics {
  readonly registry: Registry;
  /** `weft_<subsystem>_`. */
  readonly prefix: string;
}

interface TrafficCounters {
  readonly messages: CounterSeries;
  readonly bytes: CounterSeries;
}

export interface NodeMetricsOptions {
  readonly settings: MetricsSettings;
  /** Node time (ms): a block from a peer took `now()` minus its timestamp to arrive. */
  readonly now: () => bigint;
}

export class NodeMetrics {
  readonly registry = new Registry();
  private readonly settings: MetricsSettings;
  private readonly now: () => bigint;
  private readonly subsystems = new Set<string>();
  private readonly closers: Array<() => void> = [];

  // Chain.
  private readonly blocksAppended: Counter<'origin'>;
  private readonly microBlocksAppended: Counter<'origin'>;
  private readonly transactionsAppended: Counter<'origin'>;
  private readonly applySeconds: Histogram<'kind'>;
  private readonly commitSeconds: Histogram<'kind'>;
  private readonly rollbacks: Counter<'origin'>;
  // Pool.
  private readonly admitted: Counter;
  private readonly refused: Counter<'reason'>;
  private readonly refusedByKind = new Map<string, Counter.Internal>();
  // Network.
  private readonly propagationSeconds: Histogram<'kind'>;
  private readonly received = new Map<number, TrafficCounters>();
  private readonly sent = new Map<number, TrafficCounters>();
  private readonly receivedMessages: SeriesCounter<'code' | 'message'>;
  private readonly receivedBytes: SeriesCounter<'code' | 'message'>;
  private readonly sentMessages: SeriesCounter<'code' | 'message'>;
  private readonly sentBytes: SeriesCounter<'code' | 'message'>;
  /** Whether the network is catching up from a peer (blocks it appends then are not propagation). */
  private catchingUp: () => boolean = () => false;
  /**
   * True from a rollback the network caused (a fork switch, or a failed one restoring what
   * was there) until the code that rolled back has returned: the blocks and micro-blocks it
   * appends meanwhile are a fork's or this chain's own again, not fresh arrivals.
   */
  private switchingFork = false;
  // REST.
  private readonly restSeconds: SeriesHistogram<'method' | 'route' | 'status'>;
  /** The REST series by route pattern, status and method: three lookups of constant strings and a number, nothing built per request. */
  private readonly restSeries = new Map<string, Map<number, Map<string, HistogramSeries>>>();

  /** The callback that counts refusals, the pool's and the chain admission's (UtxOptions, AdmissionOptions); admissions are counted by watchPool. */
  readonly poolCallbacks: { readonly onRefused: (tx: Transaction, reason: WeError) => void };
  /** The transport's observer (NodeNetworkOptions.traffic). */
  readonly traffic: NetworkTrafficObserver;
  /** The REST server's observer (ApiServerOptions.requests). */
  readonly requests: ApiRequestObserver;

  constructor(o: NodeMetricsOptions) {
    this.settings = o.settings;
    this.now = o.now;
    const registers = [this.registry];

    // The process: prom-client's defaults, and the event loop's busy time.
    collectDefaultMetrics({ register: this.registry });
    // prom-client also exports the per-type gauges' sums as gauges ending in _total, which Prometheus reserves for
    // counters (`promtool check metrics` flags them); the per-type gauges nodejs_active_{handles,requests,resources} stay.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(name);
    new Counter({
      name: 'nodejs_eventloop_active_seconds_total',
      help: 'Time the event loop spent busy (performance.eventLoopUtilization().active); its rate() is the event-loop utilization.',
      registers,
      collect(this: Counter) {
        this.reset();
        this.inc(performance.eventLoopUtilization().active / 1000);
      },
    });

    const origin = ['origin'] as const;
    this.blocksAppended = new Counter({
      name: 'weft_chain_blocks_appended_total',
      help: 'Key blocks and whole blocks appended, by origin: local (this node mined it), network (from a peer), api.',
      labelNames: origin,
      registers,
    });
    this.microBlocksAppended = new Counter({
      name: 'weft_chain_micro_blocks_appended_total',
      help: 'Micro-blocks appended to the liquid block, by origin.',
      labelNames: origin,
      registers,
    });
    this.transactionsAppended = new Counter({
      name: 'weft_chain_transactions_appended_total',
      help: "Transactions appended in blocks and micro-blocks, by origin; its rate() is the chain's tx/s.",
      labelNames: origin,
      registers,
    });
    this.applySeconds = new Histogram({
      name: 'weft_chain_apply_seconds',
      help: 'Time to check and apply a block or micro-block (every transaction validated), before its commit; kind block or micro-block.',
      labelNames: ['kind'],
      buckets: APPEND_BUCKETS,
      registers,
    });
    this.commitSeconds = new Histogram({
      name: 'weft_chain_commit_seconds',
      help: 'Time of the store commit of a block or micro-block (one LMDB transaction).',
      labelNames: ['kind'],
      buckets: APPEND_BUCKETS,
      registers,
    });
    this.rollbacks = new Counter({
      name: 'weft_chain_rollbacks_total',
      help: 'Rollbacks of the chain, by origin (network: a fork switch; api: POST /debug/rollback).',
      labelNames: origin,
      registers,
    });
    // Every series from the first scrape on, so rate() and increase() see their start.
    for (const o of ['local', 'network', 'api'])
      for (const c of [this.blocksAppended, this.microBlocksAppended, this.transactionsAppended, this.rollbacks]) c.inc({ origin: o }, 0);
    for (const kind of ['block', 'micro-block']) for (const h of [this.applySeconds, this.commitSeconds]) h.zero({ kind });

    this.admitted = new Counter({
      name: 'weft_pool_admitted_total',
      help: 'Transactions admitted to the pool from clients and peers (not those a rollback returned).',
      registers,
    });
    this.refused = new Counter({
      name: 'weft_pool_refused_total',
      help: "Transactions clients and peers offered that the pool refused, by WE's error kind.",
      labelNames: ['reason'],
      registers,
    });
    this.poolCallbacks = {
      onRefused: (_tx, reason) => this.refusedCounter(reason.kind).inc(),
    };

    this.propagationSeconds = new Histogram({
      name: 'weft_network_propagation_seconds',
      help: "From a block's or micro-block's timestamp to its append here, for those received from peers (not while catching up, nor in a fork switch); kind block or micro-block.",
      labelNames: ['kind'],
      buckets: PROPAGATION_BUCKETS,
      registers,
    });
    for (const kind of ['block', 'micro-block']) this.propagationSeconds.zero({ kind });
    // Counted per P2P message and per REST request: series counted in place (metric-series.ts).
    const byCode = { labelNames: ['code', 'message'] as const, registry: this.registry };
    this.receivedMessages = new SeriesCounter({ name: 'weft_network_messages_received_total', help: 'P2P messages received, by message code.', ...byCode });
    this.receivedBytes = new SeriesCounter({
      name: 'weft_network_received_bytes_total',
      help: 'Bytes of the P2P messages received (whole frames), by message code.',
      ...byCode,
    });
    this.sentMessages = new SeriesCounter({
      name: 'weft_network_messages_sent_total',
      help: 'P2P messages sent (written or queued), by message code.',
      ...byCode,
    });
    this.sentBytes = new SeriesCounter({
      name: 'weft_network_sent_bytes_total',
      help: 'Bytes of the P2P messages sent (whole frames), by message code.',
      ...byCode,
    });
    this.traffic = {
      received: (code, bytes) => {
        const c = this.trafficCounters(this.received, code, this.receivedMessages, this.receivedBytes);
        c.messages.inc();
        c.bytes.inc(bytes);
      },
      sent: (code, bytes) => {
        const c = this.trafficCounters(this.sent, code, this.sentMessages, this.sentBytes);
        c.messages.inc();
        c.bytes.inc(bytes);
      },
    };

    this.restSeconds = new SeriesHistogram({
      name: 'weft_rest_request_duration_seconds',
      help: 'REST requests from arrival to the answer sent, by method, route pattern (unmatched: no route took it) and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: REST_BUCKETS,
      registry: this.registry,
    });
    this.requests = {
      answered: (method, route, status, seconds) => this.restSeriesOf(method, route, status).observe(seconds),
    };
  }

  private restSeriesOf(method: string, route: string, status: number): HistogramSeries {
    let byStatus = this.restSeries.get(route);
    if (byStatus === undefined) this.restSeries.set(route, (byStatus = new Map<number, Map<string, HistogramSeries>>()));
    let byMethod = byStatus.get(status);
    if (byMethod === undefined) byStatus.set(status, (byMethod = new Map<string, HistogramSeries>()));
    let series = byMethod.get(method);
    if (series === undefined) byMethod.set(method, (series = this.restSeconds.series({ method, route, status: String(status) })));
    return series;
  }

  private refusedCounter(kind: string): Counter.Internal {
    let c = this.refusedByKind.get(kind);
    if (c === undefined) {
      c = this.refused.labels(kind);
      this.refusedByKind.set(kind, c);
    }
    return c;
  }

  private trafficCounters(
    cache: Map<number, TrafficCounters>,
    code: number,
    messages: SeriesCounter<'code' | 'message'>,
    bytes: SeriesCounter<'code' | 'message'>,
  ): TrafficCounters {
    let c = cache.get(code);
    if (c === undefined) {
      const labels = { code: String(code), message: MESSAGE_NAMES.get(code) ?? 'unknown' };
      c = { messages: messages.series(labels), bytes: bytes.series(labels) };
      cache.set(code, c);
    }
    return c;
  }

  /**
   * Follows a chain until close: appends, their timing and rollbacks from its events; height, the liquid block, the top
   * block's time and — from its consensus data — the rounds skipped (PoA, CFT) and the last final height (CFT) at scrape.
   */
  watchChain(chain: Blockchain, consensus: ConsensusSettings['type']): void {
    const registers = [this.registry];
    new Gauge({
      name: 'weft_chain_height',
      help: 'Height of the chain (the liquid block counts).',
      registers,
      collect(this: Gauge) {
        this.set(chain.height());
      },
    });
    new Gauge({
      name: 'weft_chain_last_block_timestamp_seconds',
      help: "The top block's own timestamp (its key block's; micro-blocks do not change it), in Unix seconds; time() minus it is the time since the last key block.",
      registers,
      collect(this: Gauge) {
        if (chain.height() > 0) this.set(Number(chain.lastBlock().timestamp) / 1000);
      },
    });
    if (consensus !== 'pos') {
      new Gauge({
        name: 'weft_chain_overall_skipped_rounds',
        help: "PoA and CFT: the top block's overall-skipped-rounds — rounds no block was mined in since genesis; its rise over a window is the rounds skipped then (a gauge: a rollback may lower it).",
        registers,
        collect(this: Gauge) {
          const c = chain.height() > 0 ? chain.lastBlock().consensus : undefined;
          if (c !== undefined && c.type !== 'pos') this.set(Number(c.overallSkippedRounds));
        },
      });
    }
    if (consensus === 'cft') {
      new Gauge({
        name: 'weft_chain_last_final_height',
        help: "CFT: height of the last final block — the height when the liquid block carries its validators' votes, else the height below (/node/status lastFinalizedHeight).",
        registers,
        collect(this: Gauge) {
          if (chain.height() > 0) this.set(tipFinality(chain.height(), chain.lastBlock().consensus).lastFinalizedHeight);
        },
      });
    }
    new Gauge({
      name: 'weft_chain_liquid_block_transactions',
      help: 'Transactions in the liquid block (the top block as its micro-blocks build it).',
      registers,
      collect(this: Gauge) {
        this.set(chain.height() > 0 ? chain.lastBlock().transactions.length : 0);
      },
    });
    this.closers.push(chain.on((event) => this.onChainEvent(event)));
  }

  private onChainEvent(event: ChainEvent): void {
    if (event.kind === 'rollback') {
      this.rollbacks.labels(event.origin).inc();
      if (event.origin === 'network' && !this.switchingFork) {
        // A fork switch rolls back and appends in one synchronous run; a microtask comes after it.
        this.switchingFork = true;
        queueMicrotask(() => (this.switchingFork = false));
      }
      return;
    }
    const kind = event.kind;
    // The genesis block is written, not mined nor received: it counts as neither.
    if (kind === 'block' && event.height === 1) return;
    this.applySeconds.labels(kind).observe(event.timing.applySeconds);
    this.commitSeconds.labels(kind).observe(event.timing.commitSeconds);
    if (kind === 'block') {
      this.blocksAppended.labels(event.origin).inc();
      this.transactionsAppended.labels(event.origin).inc(event.block.transactions.length);
      if (event.origin === 'network' && !this.switchingFork && !this.catchingUp()) this.propagated(kind, event.block.timestamp);
    } else {
      this.microBlocksAppended.labels(event.origin).inc();
      this.transactionsAppended.labels(event.origin).inc(event.transactions.length);
      if (event.origin === 'network' && !this.switchingFork) this.propagated(kind, event.microBlock.timestamp);
    }
  }

  private propagated(kind: 'block' | 'micro-block', timestamp: bigint): void {
    // The producer's clock may run a little ahead of ours: such a delay counts as none.
    const delayMs = this.now() - timestamp;
    this.propagationSeconds.labels(kind).observe(delayMs > 0n ? Number(delayMs) / 1000 : 0);
  }

  /**
   * The free and total bytes of the file system the data directory is on (`node.data-directory`: the chain store and,
   * by default, the privacy store and confidential data), read with statfs at scrape.
   */
  watchDataDirectory(directory: string): void {
    const registers = [this.registry];
    new Gauge({
      name: 'weft_data_filesystem_avail_bytes',
      help: "Bytes free for the node's user on the file system of the data directory (node.data-directory), as df's Avail.",
      registers,
      collect(this: Gauge) {
        const fs = statfsSync(directory);
        this.set(fs.bavail * fs.bsize);
      },
    });
    new Gauge({
      name: 'weft_data_filesystem_size_bytes',
      help: 'Size in bytes of the file system of the data directory (node.data-directory).',
      registers,
      collect(this: Gauge) {
        const fs = statfsSync(directory);
        this.set(fs.blocks * fs.bsize);
      },
    });
  }

  /** The pool's admissions as they happen; its size and bytes, read at scrape; its byte limit (`node.utx.memory-limit`). */
  watchPool(pool: Pick<UtxPool, 'onAdmission' | 'size'>, memoryLimitBytes: number): void {
    const registers = [this.registry];
    pool.onAdmission(() => this.admitted.inc());
    new Gauge({
      name: 'weft_pool_transactions',
      help: 'Transactions in the pool.',
      registers,
      collect(this: Gauge) {
        this.set(pool.size().size);
      },
    });
    new Gauge({
      name: 'weft_pool_bytes',
      help: 'Bytes of the transactions in the pool (bounded by node.utx.memory-limit).',
      registers,
      collect(this: Gauge) {
        this.set(pool.size().sizeInBytes);
      },
    });
    new Gauge({
      name: 'weft_pool_memory_limit_bytes',
      help: 'node.utx.memory-limit: the pool refuses a transaction that would take weft_pool_bytes beyond it.',
      registers,
    }).set(memoryLimitBytes);
  }

  /** Peers, suspensions and sync progress of the P2P network, read at scrape. */
  watchNetwork(network: NodeNetwork): void {
    const registers = [this.registry];
    this.catchingUp = () => network.syncStatus().syncing;
    new Gauge({
      name: 'weft_network_peers_connected',
      help: 'Peers connected (handshake done).',
      registers,
      collect(this: Gauge) {
        this.set(network.connected().length);
      },
    });
    new Gauge({
      name: 'weft_network_peers_suspended',
      help: 'Peer hosts suspended (not dialed for node.network.suspension-residence-time after a failure or garbage; /peers/suspended).',
      registers,
      collect(this: Gauge) {
        this.set(network.peers.suspended().length);
      },
    });
    new Gauge({
      name: 'weft_network_sync_active',
      help: '1 while the node catches up from a peer (block sync), else 0.',
      registers,
      collect(this: Gauge) {
        this.set(network.syncStatus().syncing ? 1 : 0);
      },
    });
    new Gauge({
      name: 'weft_network_sync_score_behind',
      help: "How far the best fresh score a peer announced is above this chain's score (0 when none is ahead).",
      registers,
      collect(this: Gauge) {
        const s = network.syncStatus();
        const best = s.targetScore ?? s.bestPeerScore;
        this.set(best !== undefined && best > s.localScore ? Number(best - s.localScore) : 0);
      },
    });
    new Counter({
      name: 'weft_network_sync_blocks_applied_total',
      help: "Blocks taken from peers' extensions while catching up.",
      registers,
      collect(this: Counter) {
        this.reset();
        this.inc(network.syncStatus().blocksApplied);
      },
    });
  }

  /**
   * The hook for subsystems wired after this (privacy, contracts): `register` adds the
   * subsystem's collectors to this node's registry, each named `weft_<name>_…`. A name
   * taken twice, or a metric without the prefix, is refused (the latter removed again).
   */
  registerSubsystem(name: string, register: (metrics: SubsystemMetrics) => void): void {
    if (!SUBSYSTEM_NAME.test(name)) throw new Error(`A metrics subsystem name is lower-case letters, digits and _: got "${name}"`);
    if (this.subsystems.has(name)) throw new Error(`The metrics subsystem "${name}" is registered already`);
    const prefix = `weft_${name}_`;
    const before = new Set(this.registry.getMetricsAsArray().map((m) => m.name));
    register({ registry: this.registry, prefix });
    const stray = this.registry.getMetricsAsArray().filter((m) => !before.has(m.name) && !m.name.startsWith(prefix));
    for (const m of stray) this.registry.removeSingleMetric(m.name);
    if (stray.length > 0) throw new Error(`Metrics of the subsystem "${name}" must be named ${prefix}…: ${stray.map((m) => m.name).join(', ')}`);
    this.subsystems.add(name);
  }

  /** What the REST API serves at `node.metrics.path`. */
  service(): MetricsService {
    return {
      path: this.settings.path,
      protected: this.settings.protected,
      scrape: async () => ({ contentType: this.registry.contentType, text: await this.registry.metrics() }),
    };
  }

  /**
   * Stops following the parts and empties the registry. prom-client's default process
   * collectors keep their event-loop delay monitor and GC observer (it has no way to stop
   * them): one per node started in a process.
   */
  close(): void {
    for (const close of this.closers.splice(0)) close();
    this.registry.clear();
  }
}
