/**
 * The public gRPC API's figures (BlockchainEventsService.SubscribeOn), read as WE's indexers
 * read it: through the official generated client `BlockchainEventsServiceClient`
 * (@wavesenterprise/js-contract-grpc-client), each subscriber on its own connection, every
 * event decoded by the client's deserializer.
 *
 * - grpc.events.history (and .10): transactions delivered per second from genesis to one
 *   subscriber (and to ten at once, all ten counted) by a node process serving a chain of
 *   GRPC_HISTORY_TRANSFERS (default 100,000) transfers in blocks of 2,000, built in process as
 *   chain.import builds its chain; against the rate a node imports the same blocks at in the
 *   same run (chain.import's path: parsed, signatures checked on the verifier threads,
 *   applied), measured before and after, averaged. Goal ≥ 0.8. Blocks/s go to stderr.
 * - grpc.events.live.p50 / .p99: ms from a micro-block's append on the node (a chain listener
 *   in the node process logs the wall-clock time its listeners were told, µs precision;
 *   bench/node-process.ts microBlockLog) until each of ten subscribers (from current_event)
 *   has decoded the MicroBlockAppended carrying its first transaction, on the same machine's
 *   clock, under a steady LIVE_RATE transfers/s; against a bare loopback TCP hop between two
 *   processes (network.ts's baseline). Goal p99 < 50 ms.
 * - grpc.events.confirmed: transfers/s confirmed from broadcast to block by a mining node
 *   process with ten live subscribers decoding every event, against the same node without
 *   any, alternating over CONFIRMED_ROUNDS rounds of each (median). Goal ≥ 0.95. The node's
 *   CPU per confirmed transfer in each goes to stderr: the subscribers' clients share the
 *   machine's cores with the node.
 *
 * BENCH_ONLY takes the group's parts: `history`, `live`, `confirmed`. GRPC_BENCH_DEBUG prints each
 * measured micro-block's size and its fastest and slowest subscriber's latency.
 */
import * as grpc from '@grpc/grpc-js';
import type { BlockchainEvent } from '@wavesenterprise/js-contract-grpc-client/messagebroker/messagebroker_blockchain_event.js';
import type { Transaction as TransactionMessage } from '@wavesenterprise/js-contract-grpc-client/managed/transaction.js';
import { BlockchainEventsServiceClient } from '@wavesenterprise/js-contract-grpc-client/messagebroker/messagebroker_blockchain_events_service.js';
import { SubscribeOnRequest } from '@wavesenterprise/js-contract-grpc-client/util/events/util_events_subscribe_on_request.js';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { messageTxId } from '../devkit/api/event-indexer.js';
import { freeLoopbackPort } from '../src/cli/devnet.js';
import { stringifyJson } from '../src/protocol/json.js';
import type { Protocol } from '../src/protocol/protocol.js';
import {
  BENCH_POA,
  broadcastAll,
  buildTransferChain,
  confirmedRate,
  importRate,
  signedTransfers,
  startNodeProcessIn,
  stopNodeProcess,
  tempDir,
  type NodeProc,
} from './chain.js';
import { benchPartWanted, median, processCpuMs, progress, stopProcess, type Figure } from './harness.js';
import { bareTcpHop, percentile } from './network.js';

/** Transfers per block of the history chain (chain.import's blocks). */
const HISTORY_PER_BLOCK = 2000;
const SUBSCRIBERS = 10;
/** The steady load of the live-latency run, transfers/s, and how long it lasts. */
const LIVE_RATE = 1000;
const LIVE_SECONDS = 20;
/** Transfers per confirmed run, and the rounds of each (without, with subscribers). */
const CONFIRMED_TRANSFERS = 15_000;
const CONFIRMED_ROUNDS = 3;
/** Uncounted transfers a fresh mining node takes first (chain.ts's warm-up). */
const WARMUP_TRANSFERS = 5_000;
/** The bare hop's payload: about a micro-block of LIVE_RATE × 200 ms transfers in protobuf form. */
const BARE_BYTES = 48 * 1024;
const BARE_SAMPLES = 200;

const wallMs = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One subscriber: the official client on a connection of its own. */
interface Subscriber {
  /** Resolves when the stream ends (cancelled or closed by the node); rejects on any other error. */
  readonly ended: Promise<void>;
  cancel(): void;
}

function subscribe(grpcPort: number, start: 'genesis' | 'current', onEvent: (event: BlockchainEvent) => void): Subscriber {
  const client = new BlockchainEventsServiceClient(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure(), {
    // Ten indexers are ten connections: grpc-js would otherwise share one among clients of one target.
    'grpc.use_local_subchannel_pool': 1,
    // A reader catching up on a liquid block gets its transactions so far in one event.
    'grpc.max_receive_message_length': -1,
  });
  const request = SubscribeOnRequest.fromPartial(start === 'genesis' ? { genesisBlock: {} } : { currentEvent: {} });
  const call = client.subscribeOn(request);
  call.on('data', onEvent);
  const ended = new Promise<void>((resolve, reject) => {
    call.on('error', (e: grpc.ServiceError) => (e.code === grpc.status.CANCELLED ? resolve() : reject(e)));
    call.on('end', () => resolve());
  });
  return {
    ended,
    cancel: () => {
      call.cancel();
      client.close();
    },
  };
}

/** `count` subscribers from genesis until each has the block at `lastHeight`; transactions (heights ≥ 2) per subscriber and the wall time. */
async function historyRun(grpcPort: number, count: number, lastHeight: number): Promise<{ txs: number; blocks: number; seconds: number }> {
  let txs = 0;
  let blocks = 0;
  const t0 = performance.now();
  const subscribers: Subscriber[] = [];
  const done = Array.from(
    { length: count },
    () =>
      new Promise<void>((resolve, reject) => {
        const s = subscribe(grpcPort, 'genesis', (event) => {
          const e = event.appendedBlockHistory;
          if (e === undefined) return;
          const height = e.height.toNumber();
          if (height < 2) return;
          txs += e.txs.length;
          blocks++;
          if (height === lastHeight) resolve();
        });
        subscribers.push(s);
        s.ended.then(() => reject(new Error('a history stream ended before the last block')), reject);
      }),
  );
  try {
    await Promise.all(done);
  } finally {
    for (const s of subscribers) s.cancel();
  }
  return { txs: txs / count, blocks: blocks / count, seconds: (performance.now() - t0) / 1000 };
}

async function historyFigures(p: Protocol): Promise<Figure[]> {
  const transfers = Number(process.env['GRPC_HISTORY_TRANSFERS'] ?? 100_000);
  const blocks = Math.max(1, Math.ceil(transfers / HISTORY_PER_BLOCK));
  const dir = tempDir();
  progress(`history: building ${blocks} blocks of ${HISTORY_PER_BLOCK} signed transfers in process`);
  const built = await buildTransferChain(p, dir, blocks, HISTORY_PER_BLOCK, true);
  // Heights: genesis 1, the transfer blocks 2…blocks + 1, an empty key block on top.
  const lastHeight = blocks + 1;
  progress('history: importing the same blocks into a fresh chain (baseline)');
  const importBefore = await importRate(p, built);
  progress(`history: import ${Math.round(importBefore)} tx/s`);
  const grpcPort = await freeLoopbackPort();
  const node = await startNodeProcessIn(dir, { minerEnabled: false, grpcPort, blockchainEventsMaxConnections: SUBSCRIBERS + 2 });
  const measured = async (what: string, count: number): Promise<{ txs: number; blocks: number; seconds: number }> => {
    const node0 = processCpuMs(node.child.pid!);
    const client0 = process.cpuUsage();
    const r = await historyRun(grpcPort, count, lastHeight);
    const client = process.cpuUsage(client0);
    const nodeMs = processCpuMs(node.child.pid!) - node0;
    const clientMs = (client.user + client.system) / 1000;
    if (Math.round(r.txs) !== built.transfers.length) throw new Error(`history: a subscriber got ${r.txs} of ${built.transfers.length} transactions`);
    progress(
      `history, ${what}: ${count} subscriber(s), each ${r.txs} transactions in ${r.blocks} blocks in ${r.seconds.toFixed(2)} s — ` +
        `${Math.round(r.txs / r.seconds)} tx/s and ${(r.blocks / r.seconds).toFixed(1)} blocks/s each, ${Math.round((count * r.txs) / r.seconds)} tx/s in all; ` +
        `CPU per delivered transaction: node ${((nodeMs * 1000) / (count * r.txs)).toFixed(1)} µs, clients ${((clientMs * 1000) / (count * r.txs)).toFixed(1)} µs`,
    );
    return r;
  };
  let one: { txs: number; blocks: number; seconds: number };
  let ten: { txs: number; blocks: number; seconds: number };
  try {
    // A fresh node process compiles its read path on the first reader: one uncounted pass.
    await measured('warm-up (not counted)', 1);
    one = await measured('measured', 1);
    ten = await measured('measured', SUBSCRIBERS);
  } finally {
    // The process only: the data directory is imported once more below.
    await stopProcess(node.child);
  }
  try {
    const importAfter = await importRate(p, built);
    progress(`history: import ${Math.round(importAfter)} tx/s after the subscribers`);
    const baseline = (importBefore + importAfter) / 2;
    const label = `the node's import of the same ${built.transfers.length.toLocaleString('en-US')} transfers (${blocks} blocks of ${HISTORY_PER_BLOCK}), tx/s, before and after, averaged; goal ≥ 0.8`;
    const oneRate = one.txs / one.seconds;
    const tenRate = (SUBSCRIBERS * ten.txs) / ten.seconds;
    return [
      {
        name: 'grpc.events.history',
        value: oneRate,
        baseline,
        ratio: oneRate / baseline,
        unit: `tx/s delivered to 1 subscriber (${(one.blocks / one.seconds).toFixed(1)} blocks/s)`,
        baselineLabel: label,
        target: 0.8,
      },
      {
        name: 'grpc.events.history.10',
        value: tenRate,
        baseline,
        ratio: tenRate / baseline,
        unit: `tx/s delivered to ${SUBSCRIBERS} subscribers in all (${Math.round(ten.txs / ten.seconds)} tx/s, ${(ten.blocks / ten.seconds).toFixed(1)} blocks/s each)`,
        baselineLabel: label,
        target: 0.8,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One subscriber's MicroBlockAppended events: when it had decoded each (wall-clock ms) and its transactions as decoded. */
type ReceivedMicroBlocks = Array<{ readonly at: number; readonly txs: readonly TransactionMessage[] }>;

/**
 * Ten subscribers from current_event keeping every MicroBlockAppended they decode with the
 * time; the transactions' ids are read after the run, so the bench's own bookkeeping
 * (base58, maps) does not delay the clients it shares a process with.
 */
function liveSubscribers(grpcPort: number): { received: ReceivedMicroBlocks[]; subscribers: Subscriber[] } {
  const received = Array.from({ length: SUBSCRIBERS }, (): ReceivedMicroBlocks => []);
  const subscribers = received.map((events) =>
    subscribe(grpcPort, 'current', (event) => {
      const micro = event.microBlockAppended;
      if (micro !== undefined) events.push({ at: wallMs(), txs: micro.txs });
    }),
  );
  for (const s of subscribers) s.ended.catch((e: unknown) => progress(`a live subscriber's stream failed: ${String(e)}`));
  return { received, subscribers };
}

/** When a subscriber had decoded each transaction, by id (base58). */
function receivedAt(events: ReceivedMicroBlocks): Map<string, number> {
  const at = new Map<string, number>();
  for (const e of events) for (const tx of e.txs) at.set(messageTxId(tx), e.at);
  return at;
}

/** Waits until every subscriber's stream is open on the node (an event needs the stream first: the node's gRPC answers with headers at once). */
async function settleSubscribers(): Promise<void> {
  await sleep(500);
}

interface MicroBlockRecord {
  readonly at: number;
  readonly height: number;
  readonly count: number;
  readonly first: string;
}

async function liveFigures(p: Protocol, node: NodeProc, grpcPort: number, logPath: string, bare: readonly number[]): Promise<Figure[]> {
  const { received, subscribers } = liveSubscribers(grpcPort);
  await settleSubscribers();
  const txs = signedTransfers(p, LIVE_RATE * LIVE_SECONDS, BigInt(Date.now()) - 60_000n);
  const bodies = txs.map((tx) => stringifyJson(tx.toJson()));
  progress(`live: ${LIVE_RATE} transfers/s for ${LIVE_SECONDS} s with ${SUBSCRIBERS} subscribers from current_event`);
  const from = wallMs();
  const perTick = LIVE_RATE / 20;
  const sends: Array<Promise<void>> = [];
  for (let tick = 0; tick * perTick < bodies.length; tick++) {
    const due = from + tick * 50;
    if (due > wallMs()) await sleep(due - wallMs());
    sends.push(broadcastAll(node.url, bodies.slice(tick * perTick, (tick + 1) * perTick), 4));
  }
  await Promise.all(sends);
  await sleep(2000);
  const to = wallMs() - 1000;
  for (const s of subscribers) s.cancel();
  const receivedById = received.map(receivedAt);
  const records = readFileSync(logPath, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as MicroBlockRecord)
    .filter((r) => r.at >= from && r.at <= to);
  // A reader from current_event gets the liquid block it attached during whole in its first
  // event: that block's micro-blocks measure the attach, not the following.
  const firstHeight = records[0]?.height ?? 0;
  const followed = records.filter((r) => r.height > firstHeight);
  const latencies: number[] = [];
  let missing = 0;
  for (const r of followed) {
    const own: number[] = [];
    for (const seen of receivedById) {
      const at = seen.get(r.first);
      if (at === undefined) missing++;
      else own.push(at - r.at);
    }
    latencies.push(...own);
    if (process.env['GRPC_BENCH_DEBUG'] !== undefined)
      progress(`mb h${r.height} n${r.count} at ${(r.at - from).toFixed(0)} lat ${Math.min(...own).toFixed(1)}–${Math.max(...own).toFixed(1)}`);
  }
  if (latencies.length === 0) throw new Error('live: no micro-block reached a subscriber');
  if (missing > 0) progress(`live: ${missing} (micro-block, subscriber) pairs never received — a stream failed?`);
  latencies.sort((a, b) => a - b);
  const txsPerMicro = followed.reduce((s, r) => s + r.count, 0) / Math.max(1, followed.length);
  progress(
    `live: ${followed.length} micro-blocks (${txsPerMicro.toFixed(0)} transfers each on average) × ${SUBSCRIBERS} subscribers; max ${latencies[latencies.length - 1]!.toFixed(1)} ms`,
  );
  return (
    [
      [0.5, 'p50'],
      [0.99, 'p99'],
    ] as const
  ).map(([q, name]) => {
    const value = percentile(latencies, q);
    const base = percentile(bare, q);
    return {
      name: `grpc.events.live.${name}`,
      value,
      baseline: base,
      ratio: value / base,
      unit: `ms (${latencies.length} samples: micro-block appended on the node → MicroBlockAppended decoded by each of ${SUBSCRIBERS} subscribers)`,
      baselineLabel:
        `bare loopback TCP hop of ${BARE_BYTES} bytes between two processes, ${name}, in this run` +
        (name === 'p99' ? `; goal p99 < 50 ms: ${value < 50 ? 'met' : 'NOT met'}` : '') +
        `; ${LIVE_RATE} transfers/s steady, micro-block every ${BENCH_POA.microBlockIntervalMs} ms`,
    };
  });
}

async function confirmedFigure(p: Protocol, node: NodeProc, grpcPort: number): Promise<Figure> {
  const all = signedTransfers(p, CONFIRMED_ROUNDS * 2 * CONFIRMED_TRANSFERS, BigInt(Date.now()));
  const without: number[] = [];
  const withSubs: number[] = [];
  const cpuWithout: number[] = [];
  const cpuWith: number[] = [];
  for (let round = 0; round < CONFIRMED_ROUNDS; round++) {
    for (const attached of [false, true]) {
      const i = round * 2 + (attached ? 1 : 0);
      const txs = all.slice(i * CONFIRMED_TRANSFERS, (i + 1) * CONFIRMED_TRANSFERS);
      const live = attached ? liveSubscribers(grpcPort) : undefined;
      if (live !== undefined) await settleSubscribers();
      const cpu0 = processCpuMs(node.child.pid!);
      const value = await confirmedRate(node, txs);
      const cpuUs = ((processCpuMs(node.child.pid!) - cpu0) * 1000) / txs.length;
      if (live !== undefined) {
        for (const s of live.subscribers) s.cancel();
        const got = live.received.map((events) => events.reduce((n, e) => n + e.txs.length, 0));
        progress(
          `confirmed, round ${round + 1} with ${SUBSCRIBERS} subscribers: ${Math.round(value)} tx/s, node CPU ${cpuUs.toFixed(0)} µs per transfer; each subscriber decoded ${Math.min(...got)}–${Math.max(...got)} transactions in MicroBlockAppended`,
        );
        withSubs.push(value);
        cpuWith.push(cpuUs);
      } else {
        progress(`confirmed, round ${round + 1} without subscribers: ${Math.round(value)} tx/s, node CPU ${cpuUs.toFixed(0)} µs per transfer`);
        without.push(value);
        cpuWithout.push(cpuUs);
      }
    }
  }
  const value = median(withSubs);
  const baseline = median(without);
  return {
    name: 'grpc.events.confirmed',
    value,
    baseline,
    ratio: value / baseline,
    unit: 'tx/s',
    baselineLabel: `the same node's confirmed transfers/s (broadcast → block, ${CONFIRMED_TRANSFERS.toLocaleString('en-US')} a run) with no subscriber, alternating over ${CONFIRMED_ROUNDS} rounds, medians; with ${SUBSCRIBERS} live subscribers decoding every event on the same cores; the node's CPU per confirmed transfer (medians) ${median(cpuWith).toFixed(0)} µs with them, ${median(cpuWithout).toFixed(0)} µs without; goal ≥ 0.95`,
    target: 0.95,
  };
}

/** The live and confirmed parts, on one mining node process. */
async function miningFigures(p: Protocol): Promise<Figure[]> {
  // Before the node starts: measured later, the hop's seconds of quiet outlast the node's keep-alive sockets the load goes on.
  let bare: number[] = [];
  if (benchPartWanted('live')) {
    progress(`live: bare baseline, ${BARE_SAMPLES} payloads of ${BARE_BYTES} bytes over loopback TCP between two processes`);
    bare = await bareTcpHop(BARE_SAMPLES, BARE_BYTES);
  }
  const dir = tempDir();
  const logPath = join(dir, 'micro-blocks.jsonl');
  const grpcPort = await freeLoopbackPort();
  const node = await startNodeProcessIn(dir, { minerEnabled: true, grpcPort, blockchainEventsMaxConnections: SUBSCRIBERS + 2, microBlockLog: logPath });
  try {
    // The events' path is compiled too: the warm-up runs with the subscribers attached.
    progress(`mining node: warm-up, ${WARMUP_TRANSFERS} transfers broadcast to block with ${SUBSCRIBERS} subscribers (not counted)`);
    const warm = liveSubscribers(grpcPort);
    await settleSubscribers();
    const cold = await confirmedRate(node, signedTransfers(p, WARMUP_TRANSFERS, BigInt(Date.now()) - 120_000n));
    for (const s of warm.subscribers) s.cancel();
    progress(`mining node: warm-up ${Math.round(cold)} tx/s`);
    const out: Figure[] = [];
    // Confirmed first: its progress polls go through the keep-alive agent, whose sockets the live run (its own connections) would leave idle past the node's keep-alive.
    if (benchPartWanted('confirmed')) out.push(await confirmedFigure(p, node, grpcPort));
    if (benchPartWanted('live')) out.push(...(await liveFigures(p, node, grpcPort, logPath, bare)));
    return out;
  } finally {
    await stopNodeProcess(node);
  }
}

export async function grpcFigures(p: Protocol): Promise<Figure[]> {
  const out: Figure[] = [];
  if (benchPartWanted('history')) out.push(...(await historyFigures(p)));
  if (benchPartWanted('live') || benchPartWanted('confirmed')) out.push(...(await miningFigures(p)));
  return out;
}
