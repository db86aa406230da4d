/**
 * Network figures, on a 4-node devnet of real processes on loopback
 * (src/cli/devnet.ts; PoA and miner settings as bench/chain.ts's single node):
 *
 * - network.propagation.keyblock / .microblock, p50 and p99: for every key block and every
 *   micro-block, the time from the first node that appended it (its forger) to each other
 *   node appending it — under a steady load (STEADY_RATE transfers/s round-robin), and again
 *   (`.burst`) during the confirmed-throughput burst, when five processes saturate the CPU. Times come from the nodes' own log lines — pino's `time` of the
 *   `block appended` / `micro-block appended` records, written when the chain applied the
 *   block — so they carry no polling delay; all processes share this machine's clock. The
 *   baseline is a bare loopback TCP hop of a micro-block-sized payload between two
 *   processes measured in the same run (bareTcpHop); the label says whether the issue's
 *   target (p99 < 200 ms) is met.
 * - network.confirmed: transfers/s broadcast round-robin to the four nodes until all are in
 *   blocks (counted on node 0), against chain.confirmed — the same transfers broadcast to one
 *   node process, measured in this run (bench/chain.ts).
 * - network.tx-messages: transaction messages (25 and 46) the four nodes sent, from their
 *   `weft_network_messages_sent_total`, per transfer broadcast (steady and burst), against the
 *   least a full mesh needs: the receiving node's one to each of its 3 peers.
 * - network.cpu-per-tx: CPU time (user + system, all threads, from /proc) each node process
 *   spent per confirmed transfer during that burst — the four nodes' sum ÷ 4 ÷ transfers —
 *   against the single node's CPU per transfer in its own run (goal: ratio ≤ 1.05). Between
 *   the steady phase and the burst the devnet takes WARMUP_BURST uncounted transfers, and the
 *   single node first takes as many uncounted transfers as the devnet saw before its burst
 *   (steady phase and warm-up), so both are measured with their code paths optimized: a
 *   devnet node runs each path (HTTP for a quarter of the broadcasts, relay, peers'
 *   micro-blocks) fewer times than the single node runs its own, and after the steady phase
 *   alone its HTTP and gossip functions were still in V8's baseline tier — 366 µs per transfer
 *   against 273 µs warm, the single node 280 against 262 µs (2 cores). Each node runs as
 *   `npm run devnet` makes it: with the devnet's verifier threads for this machine
 *   (devnetVerifierThreads: none while there are as many nodes as cores or more, each event
 *   loop verifying its own signatures); the single node with a node's default (one per core
 *   but one), as `npm start` runs it.
 * - network.cpu-per-tx.same-load: the same figure against four lone nodes (no peers, the
 *   devnet nodes' verifier threads) taking the burst at once. Four busy processes on this
 *   machine's two cores cost each of them more CPU per unit of work than one process alone
 *   (caches and cores shared, fewer requests per event-loop turn, the burst's fixed costs per
 *   second spread over a longer burst): a lone node with a verifier thread taking the burst
 *   beside three others spent 0.38–0.49 ms per transfer where alone it spent 0.26 ms, and
 *   0.29–0.30 ms without one (2 cores, warm). This ratio keeps the load and takes away the
 *   network, so it says what the network itself costs a node — roughly: the bench's client
 *   sends the lone nodes four times the burst's requests on the same cores, which loads them
 *   more than the devnet's burst does, so this baseline errs high and the ratio low.
 *
 * Progress lines say where the CPU went: each devnet node's and each lone node's CPU µs per
 * transfer of the burst by thread (main, the busiest other threads — the signature verifier
 * first, then V8's helper threads — and the rest), and what each devnet node's pool admitted and
 * refused over the run (a refused peer's transaction was decoded and checked for nothing).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MicroBlockStage } from '../src/network/micro-block-timeline.js';
import { devnetVerifierThreads, prepareDevnet, spawnDevnetNode, type DevnetNode } from '../src/cli/devnet.js';
import { stringifyJson } from '../src/protocol/json.js';
import type { Protocol } from '../src/protocol/protocol.js';
import { availableParallelism } from 'node:os';
import {
  BENCH_POA,
  benchDevnetOptions,
  blocksMark,
  chainHeight,
  broadcastAll,
  confirmed,
  confirmedRate,
  longestStallMs,
  request,
  signedTransfers,
  startNodeProcess,
  stopNodeProcess,
  untilInBlocks,
} from './chain.js';
import { benchNodeArgs, processCpuMs, progress, threadTimes, type Figure, type ThreadTimes } from './harness.js';

const NODES = 4;
const TRANSFERS = 10_000;
/** Connections the burst is broadcast over, to each node (16 in all, as chain.confirmed's one node gets). */
const BURST_CONNECTIONS_PER_NODE = 4;
/** The steady phase: transfers per second, round-robin to the nodes, for this long. */
const STEADY_RATE = 200;
const STEADY_SECONDS = 15;
/**
 * Transfers broadcast round-robin to the devnet after the steady phase and before the burst,
 * not counted (NETWORK_WARMUP overrides): each node's request, relay and micro-block paths run
 * optimized code by the burst. A devnet node handles a quarter of the broadcasts over HTTP, so
 * after the steady phase alone its HTTP and gossip functions still ran in V8's baseline tier
 * (perf: `^` frames) where the single node's were optimized (`*`).
 */
const WARMUP_BURST = Number(process.env['NETWORK_WARMUP'] ?? 20_000);
/** Transfers every node saw before the burst: the single and lone nodes are warmed by as many. */
const BEFORE_BURST = STEADY_RATE * STEADY_SECONDS + WARMUP_BURST;
const TARGET_P99_MS = 200;
/** The bare baseline's samples and payload (about a 200-transfer micro-block). */
const BARE_SAMPLES = 200;
const BARE_BYTES = 32 * 1024;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A micro-block's stage times at one node (src/network/micro-block-timeline.ts). */
interface Timeline {
  readonly origin: 'local' | 'network';
  readonly at: Partial<Record<MicroBlockStage, number>>;
  readonly applyMs?: number;
  readonly commitMs?: number;
}

interface Running {
  readonly node: DevnetNode;
  readonly child: ChildProcess;
  /** First append time per block id (ms), from the node's log. */
  readonly keyBlocks: Map<string, number>;
  readonly microBlocks: Map<string, number>;
  /** Micro-block timelines by id, from the node's `network.micro-blocks` log. */
  readonly timelines: Map<string, Timeline>;
  /** When this node answered a peer's request for a micro-block, by `id peer-name`. */
  readonly served: Map<string, number>;
}

function run(node: DevnetNode): Running {
  const child = spawnDevnetNode(node, { pipe: true, nodeOptions: benchNodeArgs() });
  const r: Running = { node, child, keyBlocks: new Map(), microBlocks: new Map(), timelines: new Map(), served: new Map() };
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (line.includes('"micro-block timeline"')) {
        const rec = JSON.parse(line) as Timeline & { id: string };
        r.timelines.set(rec.id, rec);
        continue;
      }
      if (line.includes('"micro-block served"')) {
        const rec = JSON.parse(line) as { id: string; to: string; at: number };
        if (!r.served.has(`${rec.id} ${rec.to}`)) r.served.set(`${rec.id} ${rec.to}`, rec.at);
        continue;
      }
      const block = line.includes('"block appended"');
      if (!block && !line.includes('"micro-block appended"')) continue;
      const rec = JSON.parse(line) as { time: number; id: string };
      const map = block ? r.keyBlocks : r.microBlocks;
      if (!map.has(rec.id)) map.set(rec.id, rec.time);
    }
  });
  child.stderr!.resume();
  return r;
}

export async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await sleep(200);
  }
}

const json = async <T>(url: string): Promise<T> => JSON.parse((await request(url, 'GET')).text) as T;

/**
 * Latencies (ms) of every (block, node) pair: the node's append time minus the earliest one,
 * for the blocks first appended within [from, to] (ms).
 */
function latencies(nodes: readonly Running[], pick: (r: Running) => Map<string, number>, from: number, to: number): number[] {
  const first = new Map<string, number>();
  for (const r of nodes) for (const [id, t] of pick(r)) first.set(id, Math.min(first.get(id) ?? Infinity, t));
  const out: number[] = [];
  for (const [id, t0] of first) {
    if (t0 < from || t0 > to) continue;
    const seen = nodes.map((r) => pick(r).get(id));
    // Only blocks every node applied (a block replaced by a competing one is not a propagation).
    if (seen.some((t) => t === undefined)) continue;
    for (const t of seen) if (t! !== t0) out.push(t! - t0);
    // The forger's own zero is not a sample; a tie (two nodes in the same ms) counts once as 0.
    if (seen.filter((t) => t === t0).length > 1) out.push(0);
  }
  return out.sort((a, b) => a - b);
}

/**
 * The bare baseline, measured in the same run: one hop over loopback TCP between two
 * processes — a payload of a typical micro-block's size written by this process, the time
 * the other process (a bare node:net server) read it whole, on the same shared clock.
 */
export async function bareTcpHop(samples: number, bytes: number): Promise<number[]> {
  const server = `const net=require('net');net.createServer(s=>{let n=0;s.on('data',d=>{n+=d.length;while(n>=${bytes}){n-=${bytes};process.stdout.write((performance.timeOrigin+performance.now())+'\\n')}})}).listen(0,'127.0.0.1',function(){process.stdout.write('port '+this.address().port+'\\n')})`;
  const child = spawn(process.execPath, ['-e', server], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const received: number[] = [];
    let port = 0;
    let pending = '';
    let onPort: (() => void) | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith('port ')) {
          port = Number(line.slice(5));
          onPort?.();
        } else received.push(Number(line));
      }
    });
    await new Promise<void>((resolve) => (onPort = resolve));
    const socket = connect({ host: '127.0.0.1', port, noDelay: true });
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const payload = Buffer.alloc(bytes, 7);
    const sent: number[] = [];
    for (let i = 0; i < samples; i++) {
      sent.push(performance.timeOrigin + performance.now());
      socket.write(payload);
      await sleep(20);
    }
    await until('the bare server to read every payload', () => Promise.resolve(received.length >= samples), 10_000);
    socket.destroy();
    return sent.map((t, i) => received[i]! - t).sort((a, b) => a - b);
  } finally {
    child.kill();
  }
}

/** The segments of a micro-block's way from its forger's append to a receiver's, in order. */
const SEGMENTS: ReadonlyArray<readonly [string, (f: Timeline, r: Timeline, served: number | undefined) => number | undefined]> = [
  ['forger: appended → inventory sent', (f) => gap(f.at.appended, f.at.announced)],
  ['inventory sent → read here', (f, r) => gap(f.at.announced, r.at.inventory)],
  ['inventory read → requested', (_, r) => gap(r.at.inventory, r.at.requested)],
  ['requested → answered (at the server)', (_, r, served) => gap(r.at.requested, served)],
  ['answered → response read', (_, r, served) => gap(served, r.at.arrived)],
  ['response decoded', (_, r) => gap(r.at.arrived, r.at.received)],
  ['decoded → signatures checked', (_, r) => gap(r.at.received, r.at.verified)],
  ['checked → its turn to apply', (_, r) => gap(Math.max(r.at.received ?? 0, r.at.verified ?? 0), r.at.applying)],
  ['apply (validate)', (_, r) => r.applyMs],
  ['commit', (_, r) => r.commitMs],
  [
    'applied → event',
    (_, r) => (r.applyMs === undefined || r.commitMs === undefined ? undefined : gap(r.at.applying, r.at.appended)! - r.applyMs - r.commitMs),
  ],
];
const gap = (from: number | undefined, to: number | undefined): number | undefined => (from === undefined || to === undefined ? undefined : to - from);

/**
 * Where the time of the slowest 5 % of (micro-block, receiver) pairs went, next to the
 * median pair's: from the nodes' micro-block timelines, for the micro-blocks their forger
 * appended within [from, to]. Lines for the progress log.
 */
function tailBreakdown(nodes: readonly Running[], from: number, to: number): string[] {
  const samples: Array<{ total: number; segments: Array<number | undefined> }> = [];
  const ids = new Set(nodes.flatMap((r) => [...r.timelines.keys()]));
  for (const id of ids) {
    const forger = nodes.map((r) => r.timelines.get(id)).find((t) => t?.origin === 'local');
    const t0 = forger?.at.appended;
    if (forger === undefined || t0 === undefined || t0 < from || t0 > to) continue;
    for (const r of nodes) {
      const t = r.timelines.get(id);
      if (t === undefined || t.origin !== 'network' || t.at.appended === undefined) continue;
      // The answer to its request, from whichever node served it.
      const served = nodes.map((s) => s.served.get(`${id} ${r.node.name}`)).find((at) => at !== undefined);
      samples.push({ total: t.at.appended - t0, segments: SEGMENTS.map(([, f]) => f(forger, t, served)) });
    }
  }
  if (samples.length === 0) return ['no micro-block timelines'];
  samples.sort((a, b) => a.total - b.total);
  const tail = samples.slice(Math.floor(samples.length * 0.95));
  const mid = samples[Math.floor(samples.length / 2)]!;
  const mean = (xs: Array<number | undefined>): string => {
    const ys = xs.filter((x): x is number => x !== undefined);
    return ys.length === 0 ? '—' : (ys.reduce((a, b) => a + b, 0) / ys.length).toFixed(1);
  };
  const out = [
    `${samples.length} pairs; median pair ${mid.total.toFixed(0)} ms; slowest 5 % (${tail.length}) ${tail[0]!.total.toFixed(0)}–${tail[tail.length - 1]!.total.toFixed(0)} ms, mean ms per stage (median pair's in brackets):`,
  ];
  SEGMENTS.forEach(([name], i) =>
    out.push(`  ${name.padEnd(36)} ${mean(tail.map((s) => s.segments[i])).padStart(7)}  (${mid.segments[i]?.toFixed(1) ?? '—'})`),
  );
  return out;
}

/** Waits until every node at `urls` has the others as peers and the chain is at height 3 (the first rounds forged). */
export async function untilMeshed(urls: readonly string[]): Promise<void> {
  await until(
    'a full mesh and height 3',
    async () => {
      for (const url of urls) {
        const peers = await json<{ peers: unknown[] }>(`${url}/peers/connected`);
        const height = await chainHeight(url);
        if (peers.peers.length < urls.length - 1 || height < 3) return false;
      }
      return true;
    },
    60_000,
  );
}

/**
 * Sends `bodies` round-robin to the nodes at `urls` at `rate` a second (a batch every 50 ms);
 * resolves once every one was answered, with how many failed and the first failure. A send
 * that fails (a kept-alive connection the node closed as it was reused) is a transfer the load
 * lacks, not an end of the run: each send's failure is caught as it happens, since the sends
 * are only awaited together at the end.
 */
export async function broadcastSteadily(urls: readonly string[], bodies: readonly string[], rate: number): Promise<{ failed: number; firstError: string }> {
  const perTick = rate / 20;
  const from = Date.now();
  const sends: Array<Promise<unknown>> = [];
  let failed = 0;
  let firstError = '';
  for (let tick = 0; tick * perTick < bodies.length; tick++) {
    const due = from + tick * 50;
    if (due > Date.now()) await sleep(due - Date.now());
    for (let j = tick * perTick; j < Math.min(bodies.length, (tick + 1) * perTick); j++) {
      sends.push(
        request(`${urls[j % urls.length]}/transactions/broadcast`, 'POST', bodies[j]).catch((e: unknown) => {
          if (failed++ === 0) firstError = String(e);
        }),
      );
    }
  }
  await Promise.all(sends);
  return { failed, firstError };
}

/**
 * A devnet's confirmed rate (transactions/s): `bodies` broadcast round-robin to the nodes at
 * `urls`, each over BURST_CONNECTIONS_PER_NODE connections, timed until all of them are in
 * blocks at the first node.
 */
export async function devnetConfirmedRate(urls: readonly string[], bodies: readonly string[], timeoutMs: number): Promise<number> {
  const mark = await blocksMark(urls[0]!);
  const t0 = process.hrtime.bigint();
  await Promise.all(
    urls.map((url, i) =>
      broadcastAll(
        url,
        bodies.filter((_, j) => j % urls.length === i),
        BURST_CONNECTIONS_PER_NODE,
      ),
    ),
  );
  await untilInBlocks(mark, bodies.length, timeoutMs);
  return bodies.length / (Number(process.hrtime.bigint() - t0) / 1e9);
}

/** The q-quantile of sorted, non-empty `xs`. */
export const percentile = (xs: readonly number[], q: number): number => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

/**
 * The p50 and p99 figures (`<prefix>.p50<suffix>`, `<prefix>.p99<suffix>`) of the sorted,
 * non-empty latencies `xs`, each against `baseline(q)`; `label` says what that baseline is.
 */
export function percentileFigures(
  prefix: string,
  suffix: string,
  xs: readonly number[],
  baseline: (q: number) => number,
  unit: string,
  label: (name: 'p50' | 'p99', value: number) => string,
): Figure[] {
  return (
    [
      [0.5, 'p50'],
      [0.99, 'p99'],
    ] as const
  ).map(([q, name]) => {
    const value = percentile(xs, q);
    const base = baseline(q);
    return { name: `${prefix}.${name}${suffix}`, value, baseline: base, ratio: value / base, unit, baselineLabel: label(name, value) };
  });
}

export async function networkFigures(p: Protocol): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-devnet-'));
  const settings = `${NODES} nodes, PoA round ${BENCH_POA.roundDurationMs} ms + sync ${BENCH_POA.syncDurationMs} ms, micro-block every ${BENCH_POA.microBlockIntervalMs} ms, ≤ ${BENCH_POA.maxTransactionsInMicroBlock} txs per micro-block`;
  let nodes: Running[] = [];
  let multi: number;
  let multiCpuMsPerTx: number;
  let txMessages = 0;
  let steady: { from: number; to: number };
  let burst: { from: number; to: number };
  try {
    progress(`starting a ${NODES}-node devnet`);
    const layout = await prepareDevnet({
      ...benchDevnetOptions(NODES, dir),
      utxMemoryLimitBytes: 512 * 1024 * 1024,
    });
    nodes = layout.nodes.map(run);
    for (const r of nodes) await until(`${r.node.name} to serve`, async () => (await request(`${r.node.restUrl}/node/version`, 'GET')).status === 200, 60_000);
    for (const r of nodes) {
      // Request logs off (they would cost throughput), chain appends at DEBUG for the micro-block times.
      for (const [logger, level] of [
        ['api', 'WARN'],
        ['chain', 'DEBUG'],
        ['network.micro-blocks', 'DEBUG'],
      ]) {
        const body = JSON.stringify({ logger, level });
        const res = await fetch(`${r.node.restUrl}/node/logging`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': layout.apiKey },
          body,
        });
        if (res.status !== 200) throw new Error(`bench: POST /node/logging on ${r.node.name}: ${res.status} ${await res.text()}`);
      }
    }
    const urls = nodes.map((r) => r.node.restUrl);
    await untilMeshed(urls);

    progress(`steady load: ${STEADY_RATE} transfers/s round-robin to ${NODES} nodes for ${STEADY_SECONDS} s`);
    {
      const steadyTxs = signedTransfers(p, STEADY_RATE * STEADY_SECONDS, BigInt(Date.now()) - 60_000n).map((tx) => stringifyJson(tx.toJson()));
      steady = { from: Date.now(), to: 0 };
      const sent = await broadcastSteadily(urls, steadyTxs, STEADY_RATE);
      if (sent.failed > 0) progress(`steady load: ${sent.failed} of ${steadyTxs.length} broadcasts failed, first: ${sent.firstError}`);
      await sleep(2000);
      steady.to = Date.now();
    }

    if (WARMUP_BURST > 0) {
      progress(`warm-up (not counted): ${WARMUP_BURST} transfers round-robin to ${NODES} nodes`);
      await devnetConfirmedRate(
        urls,
        signedTransfers(p, WARMUP_BURST, BigInt(Date.now()) - 30_000n).map((tx) => stringifyJson(tx.toJson())),
        120_000,
      );
    }
    progress(`burst: ${TRANSFERS} transfers round-robin to ${NODES} nodes`);
    burst = { from: Date.now(), to: 0 };
    const bodies = signedTransfers(p, TRANSFERS, BigInt(Date.now())).map((tx) => stringifyJson(tx.toJson()));
    // Each node's longest event-loop stall over the burst (a scrape resets it; both scrapes lie outside the burst's time and CPU): a peer's message waits behind it.
    await Promise.all(nodes.map((r) => longestStallMs({ url: r.node.restUrl })));
    const nodesCpuMs = (): number => nodes.reduce((sum, r) => sum + processCpuMs(r.child.pid!), 0);
    const cpu0 = nodesCpuMs();
    const perNode0 = nodes.map((r) => threadTimes(r.child.pid!));
    multi = await devnetConfirmedRate(urls, bodies, 180_000);
    multiCpuMsPerTx = (nodesCpuMs() - cpu0) / NODES / TRANSFERS;
    // Where each node's CPU went: its event loop, and the other threads (the signature verifiers, libuv, GC).
    for (const [i, r] of nodes.entries())
      progress(`burst: ${r.node.name} CPU per transfer by thread: ${threadCpuPerTransfer(r.child.pid!, perNode0[i]!, threadTimes(r.child.pid!))}`);
    const stalls = await Promise.all(nodes.map((r) => longestStallMs({ url: r.node.restUrl })));
    progress(`burst: each node's longest event-loop stall: ${stalls.map((ms, i) => `${nodes[i]!.node.name} ${ms.toFixed(1)} ms`).join(', ')}`);
    // One more key block, so the last micro-blocks and a key block after the load are measured too.
    const h = await chainHeight(urls[0]!);
    await until(
      'one more key block on every node',
      async () => {
        for (const r of nodes) if ((await chainHeight(r.node.restUrl)) <= h) return false;
        return true;
      },
      30_000,
    );
    await sleep(500);
    burst.to = Date.now();
    for (const r of nodes) {
      const text = (await request(`${r.node.restUrl}/metrics`, 'GET')).text;
      for (const m of text.matchAll(/^weft_network_messages_sent_total\{([^}]*)\} (\d+)/gm)) if (/code="(25|46)"/.test(m[1]!)) txMessages += Number(m[2]);
      // What each node's pool took and refused over the run (a refused peer's transaction was decoded and verified for nothing).
      const counts = [...text.matchAll(/^weft_pool_(admitted|refused)_total(?:\{reason="([^"]*)"\})? (\d+)/gm)].map((m) => `${m[2] ?? m[1]} ${m[3]}`);
      progress(`${r.node.name} pool over the run: ${counts.join(', ')}`);
    }
  } finally {
    for (const r of nodes) r.child.kill('SIGTERM');
    await Promise.all(nodes.map((r) => new Promise<void>((resolve) => (r.child.exitCode !== null ? resolve() : r.child.once('exit', () => resolve())))));
    rmSync(dir, { recursive: true, force: true });
  }

  for (const [phase, window] of [
    ['steady', steady],
    ['burst', burst],
  ] as const) {
    progress(`micro-block timelines, ${phase}:`);
    for (const line of tailBreakdown(nodes, window.from, window.to)) progress(line);
  }
  progress(`bare baseline: ${BARE_SAMPLES} payloads of ${BARE_BYTES} bytes over loopback TCP between two processes`);
  const bare = await bareTcpHop(BARE_SAMPLES, BARE_BYTES);
  const out: Figure[] = [];
  for (const [phase, window, what] of [
    ['', steady, `steady ${STEADY_RATE} transfers/s`],
    ['.burst', burst, `burst of ${TRANSFERS} transfers, CPU saturated`],
  ] as const) {
    for (const [kind, pick] of [
      ['keyblock', (r: Running) => r.keyBlocks],
      ['microblock', (r: Running) => r.microBlocks],
    ] as const) {
      const xs = latencies(nodes, pick, window.from, window.to);
      if (xs.length === 0) {
        // No figure from no sample (a window shorter than a round may hold no key block): said, not printed as NaN.
        progress(
          `network.propagation.${kind}${phase}: no ${kind === 'keyblock' ? 'key block' : 'micro-block'} reached a peer in the window (${what}); its p50 and p99 are left out`,
        );
        continue;
      }
      out.push(
        ...percentileFigures(
          `network.propagation.${kind}`,
          phase,
          xs,
          (q) => percentile(bare, q),
          `ms (${xs.length} samples, ${what})`,
          (name, v) => {
            const target = name === 'p99' ? `; target p99 < ${TARGET_P99_MS} ms: ${v < TARGET_P99_MS ? 'met' : 'NOT met'}` : '';
            return `bare loopback TCP hop of ${BARE_BYTES} bytes between two processes, ${name}, in this run${target}; ${settings}`;
          },
        ),
      );
    }
  }
  progress(
    `${TRANSFERS} transfers to a single node (chain.confirmed), after the ${BEFORE_BURST} transfers a devnet node saw before its burst (steady phase and warm-up)`,
  );
  const single = await confirmed(p, TRANSFERS, undefined, BEFORE_BURST);
  progress(`${TRANSFERS} transfers to each of ${NODES} lone nodes at once (no network; the machine loaded as in the network burst)`);
  const loneCpuMsPerTx = await loneNodesCpuMsPerTx(p);
  out.push({
    name: 'network.confirmed',
    value: multi,
    baseline: single.value,
    ratio: multi / single.value,
    unit: 'tx/s',
    baselineLabel: `one node (chain.confirmed) in this run; round-robin to ${settings}`,
  });
  const broadcast = BEFORE_BURST + TRANSFERS;
  out.push({
    name: 'network.tx-messages',
    value: txMessages / broadcast,
    baseline: NODES - 1,
    ratio: txMessages / broadcast / (NODES - 1),
    unit: `transaction messages (25/46) sent by all ${NODES} nodes per transfer broadcast`,
    baselineLabel: `the least in a full mesh of ${NODES}: one from the receiving node to each peer (lower is better)`,
  });
  out.push({
    name: 'network.cpu-per-tx',
    value: multiCpuMsPerTx,
    baseline: single.cpuMsPerTx,
    ratio: multiCpuMsPerTx / single.cpuMsPerTx,
    unit: `CPU ms per confirmed transfer per node (${NODES} nodes, burst of ${TRANSFERS})`,
    baselineLabel: `one node's CPU ms per confirmed transfer (chain.confirmed) in this run; goal ratio ≤ 1.05 (lower is better): ${multiCpuMsPerTx / single.cpuMsPerTx <= 1.05 ? 'met' : 'NOT met'}`,
  });
  out.push({
    name: 'network.cpu-per-tx.same-load',
    value: multiCpuMsPerTx,
    baseline: loneCpuMsPerTx,
    ratio: multiCpuMsPerTx / loneCpuMsPerTx,
    unit: `CPU ms per confirmed transfer per node (${NODES} nodes, burst of ${TRANSFERS})`,
    baselineLabel: `a lone node's CPU ms per confirmed transfer while ${NODES} lone nodes (no peers) each take the whole burst at once over ${BURST_CONNECTIONS_PER_NODE} connections, in this run: the ${availableParallelism()} cores shared as in the network burst (the bench's client, though, sends ${NODES}× the burst's requests there), so the ratio is what the network costs a node, without what sharing the cores costs every process (lower is better)`,
  });
  return out;
}

/** A node's CPU µs per transfer of the burst between two threadTimes readings: in all, its main thread, its busiest other threads. */
function threadCpuPerTransfer(pid: number, before: Map<number, ThreadTimes>, after: Map<number, ThreadTimes>, top = 3): string {
  const us = (ms: number): string => ((1000 * ms) / TRANSFERS).toFixed(0);
  const rows = [...after].map(([tid, t]) => ({ tid, name: t.name, run: t.runMs - (before.get(tid)?.runMs ?? 0) })).sort((a, b) => b.run - a.run);
  const main = rows.find((r) => r.tid === pid)?.run ?? 0;
  const others = rows.filter((r) => r.tid !== pid);
  const rest = others.slice(top).reduce((sum, r) => sum + r.run, 0);
  return [
    `${us(rows.reduce((sum, r) => sum + r.run, 0))} µs in all`,
    `main ${us(main)}`,
    ...others.slice(0, top).map((r) => `${r.name}:${r.tid} ${us(r.run)}`),
    `rest ${us(rest)}`,
  ].join(', ');
}

/**
 * The same-load baseline of network.cpu-per-tx: NODES lone dev nodes (chain.confirmed's
 * process, no peers), each warmed by as many transfers as a devnet node saw before its burst,
 * then each taking the whole burst at once over BURST_CONNECTIONS_PER_NODE connections —
 * as many processes as busy as the devnet's on the same cores, without a network. Their CPU
 * ms per confirmed transfer, per node.
 */
async function loneNodesCpuMsPerTx(p: Protocol): Promise<number> {
  const lone = await Promise.all(Array.from({ length: NODES }, () => startNodeProcess(true, p.crypto.type, true, devnetVerifierThreads(NODES))));
  try {
    const warmup = signedTransfers(p, BEFORE_BURST, BigInt(Date.now()) - 60_000n);
    await Promise.all(lone.map((n) => confirmedRate(n, warmup, BURST_CONNECTIONS_PER_NODE)));
    const txs = signedTransfers(p, TRANSFERS, BigInt(Date.now()));
    const cpuMs = (): number => lone.reduce((sum, n) => sum + processCpuMs(n.child.pid!), 0);
    const cpu0 = cpuMs();
    const threads0 = lone.map((n) => threadTimes(n.child.pid!));
    await Promise.all(lone.map((n) => confirmedRate(n, txs, BURST_CONNECTIONS_PER_NODE)));
    lone.forEach((n, i) =>
      progress(`lone node ${i} CPU per transfer by thread: ${threadCpuPerTransfer(n.child.pid!, threads0[i]!, threadTimes(n.child.pid!))}`),
    );
    return (cpuMs() - cpu0) / NODES / TRANSFERS;
  } finally {
    await Promise.all(lone.map((n) => stopNodeProcess(n)));
  }
}
