/**
 * network.catch-up: how fast a node that missed many blocks catches up from its peers.
 *
 * A devnet of 4 real node processes on loopback (src/cli/devnet.ts, the bench's PoA rounds,
 * every miner off): a chain of CATCHUP_BLOCKS key blocks, each with a micro-block of
 * CATCHUP_PER_BLOCK signed transfers (default 10,000 × 20 = 200,000 transfers), is built once in
 * process into node 0's data directory by the devnet's four miners in turn (bench/chain.ts
 * buildTransferChainOn, a genesis far enough in the past that the last block is before now),
 * and nodes 1 and 2 start on copies of it. Node 3 starts on an empty chain of the same genesis,
 * with a node's default verifier threads (`npm start`'s), and syncs from the three over P2P.
 *
 * - network.catch-up: the transfers node 3 took per second, from its first sync exchange (the
 *   `Sync with` log record's time) until its /node/status reads the peers' height, against the
 *   same blocks imported from disk by the node's import path in this run (bench/chain.ts
 *   importRate: the stored blocks parsed, their signatures checked on as many verifier threads,
 *   applied block by block, in extensions of EXTENSION_BLOCKS each parsed and verified while
 *   the one before is applied, as sync takes them; no network, no REST). Goal ≥ 0.8.
 * - network.catch-up.status-latency.max and .p99: node 3's /node/status answered throughout
 *   (one request at a time, every STATUS_INTERVAL_MS, from the sync's start to its end), in ms,
 *   against the 100 ms the issue allows (ratio: lower is better; ≤ 1 met).
 *
 * CATCHUP_BLOCKS and CATCHUP_PER_BLOCK make it smaller for iterating; CATCHUP_NODE_LOG=<path>
 * writes each node's output to <path>.<node name>.
 */
import { readHoconFile, renderHoconText } from '../src/config/hocon.js';
import { cpSync, createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { devnetNodeKeyPair, prepareDevnet, spawnDevnetNode, type DevnetNode } from '../src/cli/devnet.js';
import { DEFAULT_SYNC_SETTINGS } from '../src/network/chain-deps.js';
import { loadNodeConfig } from '../src/node/config.js';
import type { Protocol } from '../src/protocol/protocol.js';
import { BENCH_POA, benchDevnetOptions, buildTransferChainOn, importRate, longestStallMs } from './chain.js';
import { benchNodeArgs, progress, stopProcess, threadTimes, threadTimesLine, type Figure, type ThreadTimes } from './harness.js';
import { percentile, until } from './network.js';

const BLOCKS = Number(process.env['CATCHUP_BLOCKS'] ?? 10_000);
const PER_BLOCK = Number(process.env['CATCHUP_PER_BLOCK'] ?? 20);
const PEERS = 3;
const STATUS_INTERVAL_MS = 20;
const STATUS_GOAL_MS = 100;
const CATCH_UP_GOAL = 0.8;
/** The blocks of one extension as sync takes them: the ids after the common one in a Signatures reply of WE's max-chain-length. */
const EXTENSION_BLOCKS = DEFAULT_SYNC_SETTINGS.maxChainLength - 1;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One GET on its own kept-alive connection: the status and body, and how long the answer took (ms). */
function timedGet(agent: http.Agent, url: string): Promise<{ status: number; text: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, timeout: 30_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, ms: performance.now() - t0 }));
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer in 30 s`)));
    req.on('error', reject);
  });
}

const statusHeight = (text: string): number => (JSON.parse(text) as { blockchainHeight: number }).blockchainHeight;

/** A devnet node's process, with the time (ms) of its first log record whose message starts with `Sync with`. */
function runNode(node: DevnetNode): { child: ChildProcess; syncStart: () => number | undefined; output: () => string } {
  const child = spawnDevnetNode(node, { pipe: true, nodeOptions: benchNodeArgs() });
  let syncStart: number | undefined;
  let tail = '';
  let pending = '';
  const log = process.env['CATCHUP_NODE_LOG'];
  const file = log === undefined ? undefined : createWriteStream(`${log}.${node.name}`);
  const onData = (chunk: Buffer): void => {
    file?.write(chunk);
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-16_384);
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    if (syncStart !== undefined) return;
    for (const line of lines) {
      if (!line.includes('"msg":"Sync with')) continue;
      syncStart = (JSON.parse(line) as { time: number }).time;
      break;
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  return { child, syncStart: () => syncStart, output: () => tail };
}

/** Rewrites a devnet node's config (HOCON): every miner off; `defaultVerifiers` drops its verifier-threads (a node's default). */
async function editConfig(node: DevnetNode, defaultVerifiers: boolean): Promise<void> {
  const doc = (await readHoconFile(node.configFile)) as { node: { miner: Record<string, unknown>; crypto: Record<string, unknown> } };
  doc.node.miner['enable'] = false;
  if (defaultVerifiers) delete doc.node.crypto['verifier-threads'];
  writeFileSync(node.configFile, renderHoconText(doc));
}

export async function catchUpFigures(p: Protocol): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-catch-up-'));
  const running: Array<{ child: ChildProcess }> = [];
  try {
    // Each block takes one round (the miners forge in turn): a genesis that many rounds and a margin back.
    const periodMs = BENCH_POA.roundDurationMs + BENCH_POA.syncDurationMs;
    const genesisAt = BigInt(Date.now() - (BLOCKS + 100) * periodMs);
    const layout = await prepareDevnet({ ...benchDevnetOptions(PEERS + 1, dir), now: () => genesisAt });
    const config = await loadNodeConfig(layout.nodes[0]!.configFile, { env: {} });
    const miners = layout.nodes.map((n) => devnetNodeKeyPair(p, n.index));
    progress(`catch-up: building ${BLOCKS} blocks of ${PER_BLOCK} transfers into ${layout.nodes[0]!.name}'s data directory`);
    const t0 = Date.now();
    const built = await buildTransferChainOn(p, config, miners, genesisAt + 1n, BLOCKS, PER_BLOCK, true);
    const height = built.blocks.length + 1;
    progress(`catch-up: built height ${height} (${built.transfers.length} transfers) in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    if (built.now >= BigInt(Date.now())) throw new Error('bench: the built chain ends after now; its genesis is not far enough back');
    const state = (n: DevnetNode): string => join(n.dir, 'data', 'state');
    for (const peer of layout.nodes.slice(1, PEERS)) cpSync(state(layout.nodes[0]!), state(peer), { recursive: true });

    progress(`catch-up: the same ${built.blocks.length} blocks imported from disk (the node's import path, in process)`);
    const imported = await importRate(p, built, EXTENSION_BLOCKS);
    progress(`catch-up: import ${imported.toFixed(0)} tx/s`);

    for (const [i, n] of layout.nodes.entries()) await editConfig(n, i === PEERS);
    const peers = layout.nodes.slice(0, PEERS).map((n) => ({ node: n, ...runNode(n) }));
    running.push(...peers);
    for (const peer of peers) {
      await until(
        `${peer.node.name} to serve height ${height}`,
        async () => {
          const r = await timedGet(http.globalAgent, `${peer.node.restUrl}/node/status`);
          return r.status === 200 && statusHeight(r.text) === height;
        },
        120_000,
      ).catch((e: unknown) => {
        throw new Error(`${(e as Error).message}\n--- ${peer.node.name} output ---\n${peer.output()}`, { cause: e });
      });
    }
    const target = layout.nodes[PEERS]!;
    progress(`catch-up: ${target.name} starts on an empty chain and syncs from ${PEERS} peers`);
    const node = runNode(target);
    running.push(node);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const latencies: Array<{ at: number; ms: number }> = [];
    /** The node's longest event-loop stall in each scrape interval (its /metrics, reset by each scrape), with when it was read. */
    const stalls: Array<{ at: number; ms: number }> = [];
    let end: number | undefined;
    let polls = 0;
    /** The node's threads' times when its sync was first seen running: how it spent the catch-up (on a CPU, waiting for one, idle). */
    let threads0: { at: number; times: Map<number, ThreadTimes> } | undefined;
    const deadline = Date.now() + 30 * 60_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`bench: ${target.name} did not reach height ${height} in 30 min\n${node.output()}`);
      if (node.child.exitCode !== null) throw new Error(`bench: ${target.name} exited\n${node.output()}`);
      if (threads0 === undefined && node.syncStart() !== undefined) threads0 = { at: Date.now(), times: threadTimes(node.child.pid!) };
      const r = await timedGet(agent, `${target.restUrl}/node/status`).catch(() => undefined);
      if (r?.status === 200) {
        latencies.push({ at: Date.now(), ms: r.ms });
        if (++polls % 10 === 0) stalls.push({ at: Date.now(), ms: await longestStallMs({ url: target.restUrl }) });
        if (statusHeight(r.text) >= height) {
          end = Date.now();
          break;
        }
      }
      await sleep(STATUS_INTERVAL_MS);
    }
    agent.destroy();
    if (threads0 !== undefined)
      progress(
        `catch-up: ${target.name}'s threads over the catch-up: ${threadTimesLine(node.child.pid!, threads0.times, threadTimes(node.child.pid!), end - threads0.at)}; machine load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
      );
    const start = node.syncStart();
    if (start === undefined) throw new Error(`bench: no 'Sync with' record from ${target.name}\n${node.output()}`);
    const seconds = (end - start) / 1000;
    const value = built.transfers.length / seconds;
    const during = latencies
      .filter((l) => l.at >= start)
      .map((l) => l.ms)
      .sort((a, b) => a - b);
    const slow = latencies.filter((l) => l.at >= start && l.ms >= STATUS_GOAL_MS / 2).map((l) => `+${l.at - start} ms: ${l.ms.toFixed(0)}`);
    const stalled = stalls.filter((l) => l.at >= start && l.ms >= STATUS_GOAL_MS / 2).map((l) => `≤+${l.at - start} ms: ${l.ms.toFixed(0)}`);
    progress(`catch-up: /node/status answers of ${STATUS_GOAL_MS / 2} ms or more: ${slow.join(', ') || 'none'}`);
    progress(`catch-up: event-loop stalls of ${STATUS_GOAL_MS / 2} ms or more: ${stalled.join(', ') || 'none'}`);
    progress(
      `catch-up: ${built.blocks.length} blocks (${built.transfers.length} transfers) in ${seconds.toFixed(1)} s: ${value.toFixed(0)} tx/s; /node/status ${during.length} answers, max ${during[during.length - 1]?.toFixed(1)} ms`,
    );
    const what = `${built.blocks.length.toLocaleString('en-US')} blocks of ${PER_BLOCK} transfers (${built.transfers.length.toLocaleString('en-US')}) from ${PEERS} peers`;
    const max = during[during.length - 1] ?? NaN;
    const p99 = during.length === 0 ? NaN : percentile(during, 0.99);
    return [
      {
        name: 'network.catch-up',
        value,
        baseline: imported,
        ratio: value / imported,
        unit: `tx/s (${what}, over P2P on loopback)`,
        baselineLabel: `the same blocks imported from disk by the node's import path (parsed, verified on the verifier threads, applied block by block, in extensions of ${EXTENSION_BLOCKS}) in this run; goal ≥ ${CATCH_UP_GOAL}: ${value / imported >= CATCH_UP_GOAL ? 'met' : 'NOT met'}`,
        target: CATCH_UP_GOAL,
      },
      ...(
        [
          ['max', max],
          ['p99', p99],
        ] as const
      ).map(([name, ms]) => ({
        name: `network.catch-up.status-latency.${name}`,
        value: ms,
        baseline: STATUS_GOAL_MS,
        ratio: ms / STATUS_GOAL_MS,
        unit: `ms (${during.length} GET /node/status, one at a time every ${STATUS_INTERVAL_MS} ms, during the catch-up)`,
        baselineLabel: `the ${STATUS_GOAL_MS} ms the REST API may take throughout (lower is better): ${ms < STATUS_GOAL_MS ? 'met' : 'NOT met'}`,
      })),
    ];
  } finally {
    await Promise.all(running.map((r) => stopProcess(r.child)));
    rmSync(dir, { recursive: true, force: true });
  }
}
