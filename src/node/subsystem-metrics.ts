/**
 * The metrics of the parts wired after the chain, each a subsystem of the node's metrics
 * (NodeMetrics.registerSubsystem): what the part tells through its own observer interface
 * (the part never imports prom-client nor src/node) becomes a counter or a histogram here,
 * and its queues are read at scrape.
 *
 * - contracts (`weft_contracts_…`): the executions of this node's miner and the statuses it
 *   records for them (src/contracts/mining.ts);
 * - privacy (`weft_privacy_…`): the download queue (the pending and lost sets of the
 *   privacy state, the items the synchronizer is on) and the items replicated whole, with
 *   their data bytes, received from peers and served to them (src/replication/scheme.ts).
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { ContractExecutionObserver } from '../contracts/mining.js';
import type { ExecutionStatus } from '../contracts/result.js';
import type { ReplicationObserver } from '../replication/scheme.js';
import type { NodeMetrics } from './metrics.js';

/** Seconds: a warm SDK contract answers in milliseconds, a first call starts its process or container. */
const EXECUTION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const STATUSES: readonly ExecutionStatus[] = ['Success', 'Error', 'Failure'];

/** Registers the contract metrics; the observer for ContractMiningOptions. */
export function contractMetrics(metrics: NodeMetrics): ContractExecutionObserver {
  let observer: ContractExecutionObserver | undefined;
  metrics.registerSubsystem('contracts', ({ registry, prefix }) => {
    const registers = [registry];
    const executions = new Counter({
      name: `${prefix}executions_total`,
      help: "Executable transactions (103, 104, 107) this node's miner executed, by the status it recorded: Success when the 105 is mined, Error or Failure when the execution ends (or its 105 cannot apply).",
      labelNames: ['status'],
      registers,
    });
    const seconds = new Histogram({
      name: `${prefix}execution_seconds`,
      help: "Time of each execution by the contract engine for this node's miner, whatever it ended in.",
      buckets: EXECUTION_BUCKETS,
      registers,
    });
    const byStatus = new Map(STATUSES.map((s) => [s, executions.labels(s)] as const));
    for (const c of byStatus.values()) c.inc(0);
    observer = {
      executed: (s) => seconds.observe(s),
      recorded: (status) => byStatus.get(status)?.inc(),
    };
  });
  return observer!;
}

/** The download queue of confidential data, read at scrape. */
export interface PrivacyQueue {
  /** Items this node must fetch (persisted; those being fetched included). */
  pending(): number;
  /** Items the synchronizer gave up on for now (retried slowly). */
  lost(): number;
  /** Items the synchronizer is on now (0 without replication). */
  inProgress(): number;
}

/** Registers the privacy metrics; the observer for ReplicationParts. */
export function privacyMetrics(metrics: NodeMetrics, queue: PrivacyQueue): ReplicationObserver {
  let observer: ReplicationObserver | undefined;
  metrics.registerSubsystem('privacy', ({ registry, prefix }) => {
    const registers = [registry];
    const gauge = (name: string, help: string, read: () => number): void =>
      void new Gauge({
        name: `${prefix}${name}`,
        help,
        registers,
        collect(this: Gauge) {
          this.set(read());
        },
      });
    gauge('pending_items', 'Confidential data items this node must fetch from its peers (its download queue; those being fetched included).', () =>
      queue.pending(),
    );
    gauge('lost_items', 'Items the synchronizer gave up on after its attempts, retried now and then.', () => queue.lost());
    gauge('items_in_progress', 'Items the synchronizer is on now: being fetched, or waiting for a slot or their next attempt.', () => queue.inProgress());
    const counter = (name: string, help: string): Counter => new Counter({ name: `${prefix}${name}`, help, registers });
    const itemsReceived = counter('items_received_total', 'Items fetched from peers and stored here.');
    const bytesReceived = counter('received_bytes_total', 'Data bytes of the items fetched from peers and stored here.');
    const itemsServed = counter('items_served_total', "Items sent whole to peers (a small item's answer, a large item's stream to its end).");
    const bytesServed = counter('served_bytes_total', 'Data bytes of the items sent whole to peers.');
    observer = {
      received: (bytes) => {
        itemsReceived.inc();
        bytesReceived.inc(bytes);
      },
      served: (bytes) => {
        itemsServed.inc();
        bytesServed.inc(bytes);
      },
    };
  });
  return observer!;
}
