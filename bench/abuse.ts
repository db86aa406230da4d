/**
 * Abusive REST clients against a mining node (issue 11, "under abuse"): a dev node process
 * (bench/node-process.ts, BENCH_POA) is filled with blocks of transfers, then runs two windows
 * of the same length under the same steady transfer load — a quiet one, and one with abusive
 * clients on loopback:
 *   - 8 clients looping on `/blocks/seq` and `/blocks/seqext` over the last 100 (full) blocks,
 *   - 8 clients flooding `/transactions/sign` with wrong keystore passwords,
 *   - 100 sockets each declaring a 1 MB body and trickling a byte a second,
 *   - a flood of 1,200 idle connections (beyond the default cap of 1,024),
 *   - a contract author calling, once a second, a WASM contract that calls itself 1,000 times
 *     in every frame (test/fixtures/contracts/wasm/abuse.wat, deployed before the windows) —
 *     each call's 105 status code is counted with the answers,
 *   - 4 clients looping on `/addresses/data/{address}?matches=` with a pattern a backtracking
 *     engine takes minutes over each of the account's 100 keys of 50 characters (written
 *     before the windows),
 *   - 2 clients looping on `/utils/script/compile` with a 2.8 MB source, and 2 with the
 *     slowest source under the route's body limit (`let x = 1 + 1 + …`, 64 KiB).
 * Figures, each against the quiet window's (goal: no stall > 50 ms, no skipped round):
 * - abuse.longest-stall: the node's longest event-loop stall in the abusive window (ms);
 * - abuse.skipped-rounds: PoA rounds the miner skipped in the window (the growth of the
 *   last block's `overall-skipped-rounds`);
 * - abuse.node-status: the slowest `/node/status` answer polled every 250 ms (ms);
 * - abuse.heavy-read-cpu: the node's main-thread CPU time (Linux schedstat: its own time on a
 *   core, whatever else the machine runs) per `/blocks/seq` answer over the same range, asked
 *   one at a time after the windows, against the bench process's own JSON.stringify of that
 *   answer parsed (a bare serializer's floor for the same text).
 * ABUSE_SECONDS sets the window length (default 30), ABUSE_FILL the transfers that fill the
 * blocks first (default 20,000); ABUSE_SKIP=heavy,sign,wasm,regex,compile leaves out the heavy
 * readers, the wrong-password floods, the WASM calls, the key patterns or the compiles, to tell
 * what each costs the node (the figures then no longer measure the whole abuse).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import wabtInit from 'wabt';
import { encodeBase58 } from '../src/crypto/encoding.js';
import { devAccounts } from '../src/node/dev.js';
import { stringifyJson } from '../src/protocol/json.js';
import type { Protocol } from '../src/protocol/protocol.js';
import { callV7, createV7, timestampsFrom } from '../test/contracts/support/engine.js';
import { REPO_ROOT } from '../test/contracts/support/sdk-package.js';
import { confirmedRate, longestStallMs, signedTransfers, startNodeProcess, stopNodeProcess, type NodeProc } from './chain.js';
import { progress, threadTimes, type Figure } from './harness.js';

const WINDOW_MS = Number(process.env['ABUSE_SECONDS'] ?? 30) * 1000;
const FILL = Number(process.env['ABUSE_FILL'] ?? 20_000);
/** Abusive clients left out (ABUSE_SKIP, comma-separated: heavy, sign). */
const SKIP = new Set((process.env['ABUSE_SKIP'] ?? '').split(',').filter((k) => k !== ''));
/** Steady transfers per second in both windows: the miner always has work. */
const STEADY_TPS = 200;

interface Answer {
  readonly status: number;
  readonly text: string;
}

function get(url: string, agent: http.Agent, method = 'GET', body?: string, contentType = 'application/json'): Promise<Answer> {
  return new Promise((resolve) => {
    const req = http.request(url, { method, agent, headers: body === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ status: -1, text: '' }));
    });
    // A refused or reset connection counts as an answer of its own (status −1).
    req.on('error', () => resolve({ status: -1, text: '' }));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** The growth of `overall-skipped-rounds` is what PoA rounds the miner skipped. */
async function overallSkippedRounds(url: string, agent: http.Agent): Promise<number> {
  const r = await get(`${url}/blocks/headers/last`, agent);
  const header = JSON.parse(r.text) as { 'poa-consensus'?: { 'overall-skipped-rounds': number } };
  return header['poa-consensus']?.['overall-skipped-rounds'] ?? 0;
}

const until = (deadline: number): boolean => Date.now() < deadline;
const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The statusCode of the 105 that executed `txId`, once mined (undefined while it is not, after `waitMs`). */
async function executedStatusCode(url: string, agent: http.Agent, txId: string, waitMs: number): Promise<number | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const r = await get(`${url}/contracts/executed-tx-for/${txId}`, agent);
    if (r.status === 200) return (JSON.parse(r.text) as { statusCode?: number }).statusCode;
    if (!until(deadline)) return undefined;
    await pause(250);
  }
}

/** Creates the WASM contract of test/fixtures/contracts/wasm/abuse.wat (by dev account 0); resolves with its id once its 105 is mined. */
async function deployAbuseContract(p: Protocol, url: string, agent: http.Agent): Promise<Uint8Array> {
  const m = (await wabtInit()).parseWat('abuse.wat', readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'wasm', 'abuse.wat'), 'utf8'), { multi_value: true, bulk_memory: true });
  const bytecode = Uint8Array.from(m.toBinary({}).buffer);
  m.destroy();
  timestampsFrom(BigInt(Date.now()));
  const create = createV7({ engine: 'wasm', bytecode, bytecodeHash: createHash('sha256').update(bytecode).digest('hex') }, [], devAccounts(p)[0]!.keyPair);
  const r = await get(`${url}/transactions/broadcast`, agent, 'POST', stringifyJson(create.toJson()));
  if (r.status !== 200) throw new Error(`the WASM contract was refused: ${r.text}`);
  if ((await executedStatusCode(url, agent, create.idBase58, 60_000)) !== 0) throw new Error('the WASM contract was not created');
  return create.id;
}

/** 14 alternatives that each take any character, then a `!` no key has: a backtracking engine tries 14^50 ways per 50-character key. */
const BACKTRACKING_PATTERN = encodeURIComponent(`(${Array(14).fill('.').join('|')})*!`);
/** Keys of the account the key-pattern clients read. */
const PATTERN_KEYS = 100;

/** Writes PATTERN_KEYS data entries with 50-character keys on dev account 1 (a Data transaction); resolves with its address once mined. */
async function writePatternKeys(p: Protocol, url: string, agent: http.Agent): Promise<string> {
  const author = devAccounts(p)[1]!;
  const publicKey = encodeBase58(author.keyPair.publicKey);
  const data = Array.from({ length: PATTERN_KEYS }, (_, i) => ({ key: `${'k'.repeat(46)}${String(i).padStart(4, '0')}`, type: 'integer', value: i }));
  const json = { type: 12, version: 2, senderPublicKey: publicKey, authorPublicKey: publicKey, data, fee: 20_000_000, timestamp: Date.now(), proofs: [] };
  const tx = p.sign(p.transactionFromJson(json, { forBroadcast: false }), author.keyPair.privateKey);
  const r = await get(`${url}/transactions/broadcast`, agent, 'POST', stringifyJson(tx.toJson()));
  if (r.status !== 200) throw new Error(`the data transaction was refused: ${r.text}`);
  for (const deadline = Date.now() + 60_000; (await get(`${url}/transactions/info/${tx.idBase58}`, agent)).status !== 200; await pause(250)) {
    if (!until(deadline)) throw new Error('the data transaction was not mined');
  }
  return author.address;
}

/** `let x = 1 + 1 + …` with `terms` ones: linear to parse, slow to compile when long. */
const sumSource = (terms: number): string => `let x = 1${' + 1'.repeat(terms)}\nx == 2`;
/** Past the compile route's body limit: refused with 611. */
const HUGE_SOURCE = sumSource(700_000);
/** Just under the route's 64 KiB: the slowest source it takes. */
const SLOW_SOURCE = sumSource(16_000);

interface WindowResult {
  readonly stallMs: number;
  readonly skippedRounds: number;
  readonly slowestStatusMs: number;
  /** Abusive clients' answers by kind, for the report. */
  readonly answers: Map<string, number>;
}

/** One window of WINDOW_MS under the steady transfer load, with or without the abusive clients. */
async function runWindow(
  p: Protocol,
  node: NodeProc,
  abusive: boolean,
  range: { from: number; to: number },
  wasmContract: Uint8Array | undefined,
  patternAddress: string | undefined,
): Promise<WindowResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const abuseAgent = new http.Agent({ keepAlive: true, maxSockets: 24 });
  const answers = new Map<string, number>();
  const count = (kind: string, status: number): void => void answers.set(`${kind} ${status}`, (answers.get(`${kind} ${status}`) ?? 0) + 1);
  const skippedBefore = await overallSkippedRounds(node.url, agent);
  await longestStallMs(node);
  const deadline = Date.now() + WINDOW_MS;
  const tasks: Array<Promise<void>> = [];

  // The steady load: STEADY_TPS transfers a second, in tenths of a second.
  const steady = signedTransfers(p, Math.ceil((STEADY_TPS * WINDOW_MS) / 1000), BigInt(Date.now())).map((tx) => stringifyJson(tx.toJson()));
  tasks.push(
    (async () => {
      for (let next = 0; until(deadline) && next < steady.length; ) {
        const batch = steady.slice(next, next + STEADY_TPS / 10);
        next += batch.length;
        await Promise.all(batch.map((b) => get(`${node.url}/transactions/broadcast`, agent, 'POST', b).then((r) => count('broadcast', r.status))));
        await pause(100);
      }
    })(),
  );
  // /node/status, polled.
  let slowestStatusMs = 0;
  tasks.push(
    (async () => {
      while (until(deadline)) {
        const t0 = performance.now();
        await get(`${node.url}/node/status`, agent);
        slowestStatusMs = Math.max(slowestStatusMs, performance.now() - t0);
        await pause(250);
      }
    })(),
  );

  const sockets: Socket[] = [];
  const timers: NodeJS.Timeout[] = [];
  if (abusive) {
    // 8 heavy readers over the full blocks.
    for (let i = 0; i < (SKIP.has('heavy') ? 0 : 8); i++) {
      const path = i % 2 === 0 ? 'seq' : 'seqext';
      tasks.push(
        (async () => {
          while (until(deadline)) count(`/blocks/${path}`, (await get(`${node.url}/blocks/${path}/${range.from}/${range.to}`, abuseAgent)).status);
        })(),
      );
    }
    // 8 wrong-password floods on /transactions/sign.
    const sender = devAccounts(p)[0]!.address;
    const signBody = JSON.stringify({ type: 4, version: 2, sender, password: 'not the password', recipient: sender, amount: 1, fee: 1_000_000, attachment: '' });
    for (let i = 0; i < (SKIP.has('sign') ? 0 : 8); i++) {
      tasks.push(
        (async () => {
          while (until(deadline)) count('/transactions/sign', (await get(`${node.url}/transactions/sign`, abuseAgent, 'POST', signBody)).status);
        })(),
      );
    }
    // Key patterns that backtrack, and compiles of the largest sources.
    const loop = (kind: string, ask: () => Promise<Answer>): Promise<void> =>
      (async () => {
        while (until(deadline)) count(kind, (await ask()).status);
      })();
    if (patternAddress !== undefined) {
      for (let i = 0; i < 4; i++) tasks.push(loop('/addresses/data?matches', () => get(`${node.url}/addresses/data/${patternAddress}?matches=${BACKTRACKING_PATTERN}`, abuseAgent)));
    }
    if (!SKIP.has('compile')) {
      for (const source of [HUGE_SOURCE, HUGE_SOURCE, SLOW_SOURCE, SLOW_SOURCE]) {
        tasks.push(loop(`/utils/script/compile ${source.length > 65_536 ? '2.8 MB' : '64 KiB'}`, () => get(`${node.url}/utils/script/compile`, abuseAgent, 'POST', source, 'text/plain')));
      }
    }
    // Slow bodies and idle connections.
    const { hostname, port } = new URL(node.url);
    const open = (): Socket => {
      const s = connect(Number(port), hostname);
      s.on('error', () => undefined);
      sockets.push(s);
      return s;
    };
    for (let i = 0; i < 100; i++) {
      const s = open();
      s.write('POST /utils/hash/secure HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1048576\r\n\r\n');
      timers.push(setInterval(() => s.writable && s.write('a'), 1000));
    }
    for (let i = 0; i < 1200; i++) open();
  }
  // A WASM call tree a second.
  const wasmCalls: string[] = [];
  if (abusive && wasmContract !== undefined) {
    const owner = devAccounts(p)[0]!.keyPair;
    timestampsFrom(BigInt(Date.now()));
    tasks.push(
      (async () => {
        while (until(deadline)) {
          const call = callV7(wasmContract, 'wasm', 'bomb', [{ key: 'id', type: 'binary', value: wasmContract }], [], owner);
          const r = await get(`${node.url}/transactions/broadcast`, abuseAgent, 'POST', stringifyJson(call.toJson()));
          count('wasm call tree broadcast', r.status);
          if (r.status === 200) wasmCalls.push(call.idBase58);
          await pause(1000);
        }
      })(),
    );
  }
  await Promise.all(tasks);
  for (const t of timers) clearInterval(t);
  for (const s of sockets) s.destroy();
  const stallMs = await longestStallMs(node);
  // The last key block of the window may come a round later: read the skipped rounds after one more round.
  await pause(6000);
  const skippedRounds = (await overallSkippedRounds(node.url, agent)) - skippedBefore;
  for (const id of wasmCalls) count('wasm call tree 105 statusCode', (await executedStatusCode(node.url, agent, id, 10_000)) ?? -1);
  agent.destroy();
  abuseAgent.destroy();
  return { stallMs, skippedRounds, slowestStatusMs, answers };
}

/** Answers asked one at a time for the heavy-read CPU figure. */
const HEAVY_READ_SAMPLES = 6;

/** The node's main-thread CPU per `/blocks/seq` answer over `range` (asked one at a time), and a bare JSON.stringify of the same answer. */
async function heavyReadCpu(node: NodeProc, range: { from: number; to: number }): Promise<{ nodeMs: number; bareMs: number; bytes: number }> {
  const agent = new http.Agent({ keepAlive: true });
  const pid = node.child.pid!;
  const mainThreadMs = (): number => threadTimes(pid).get(pid)?.runMs ?? NaN;
  const url = `${node.url}/blocks/seq/${range.from}/${range.to}`;
  const text = (await get(url, agent)).text;
  const before = mainThreadMs();
  for (let i = 0; i < HEAVY_READ_SAMPLES; i++) await get(url, agent);
  const nodeMs = (mainThreadMs() - before) / HEAVY_READ_SAMPLES;
  agent.destroy();
  const parsed: unknown = JSON.parse(text);
  const t0 = performance.now();
  for (let i = 0; i < HEAVY_READ_SAMPLES; i++) JSON.stringify(parsed);
  return { nodeMs, bareMs: (performance.now() - t0) / HEAVY_READ_SAMPLES, bytes: Buffer.byteLength(text) };
}

export async function abuseFigures(p: Protocol): Promise<Figure[]> {
  const node = await startNodeProcess(true);
  try {
    progress(`filling blocks with ${FILL} transfers`);
    await confirmedRate(node, signedTransfers(p, FILL, BigInt(Date.now())));
    const agent = new http.Agent({ keepAlive: false });
    const height = (JSON.parse((await get(`${node.url}/blocks/height`, agent)).text) as { height: number }).height;
    const range = { from: Math.max(1, height - 99), to: height };
    const wasmContract = SKIP.has('wasm') ? undefined : await deployAbuseContract(p, node.url, agent);
    const patternAddress = SKIP.has('regex') ? undefined : await writePatternKeys(p, node.url, agent);
    progress(`quiet window (${WINDOW_MS / 1000} s)`);
    const quiet = await runWindow(p, node, false, range, wasmContract, patternAddress);
    progress(`abusive window (${WINDOW_MS / 1000} s, heavy reads over heights ${range.from}–${range.to})`);
    const abused = await runWindow(p, node, true, range, wasmContract, patternAddress);
    progress(`abusive clients' answers: ${[...abused.answers].map(([k, n]) => `${k} ×${n}`).join(', ')}`);
    const heavy = await heavyReadCpu(node, range);
    // A run that left clients out says so with every window figure: it did not measure the whole abuse.
    const skipped = SKIP.size === 0 ? '' : `; ABUSE_SKIP=${[...SKIP].join(',')}: not the whole abuse`;
    const label = (what: string): string => `quiet window's ${what} (same node, ${STEADY_TPS} transfers/s)${skipped}`;
    return [
      { name: 'abuse.longest-stall', value: abused.stallMs, baseline: quiet.stallMs, ratio: abused.stallMs / quiet.stallMs, unit: 'ms', baselineLabel: `${label('longest stall')}; goal ≤ 50 ms` },
      {
        name: 'abuse.skipped-rounds',
        value: abused.skippedRounds,
        baseline: quiet.skippedRounds,
        ratio: abused.skippedRounds / Math.max(1, quiet.skippedRounds),
        unit: 'rounds',
        baselineLabel: `${label('skipped rounds')}; goal 0 (ratio against max(quiet, 1))`,
      },
      { name: 'abuse.node-status', value: abused.slowestStatusMs, baseline: quiet.slowestStatusMs, ratio: abused.slowestStatusMs / quiet.slowestStatusMs, unit: 'ms', baselineLabel: label('slowest /node/status answer') },
      {
        name: 'abuse.heavy-read-cpu',
        value: heavy.nodeMs,
        baseline: heavy.bareMs,
        ratio: heavy.nodeMs / heavy.bareMs,
        unit: 'ms',
        baselineLabel: `JSON.stringify of the same answer (${(heavy.bytes / 1e6).toFixed(1)} MB, parsed) in the bench process; the node's main-thread CPU per /blocks/seq answer over heights ${range.from}–${range.to}, asked one at a time`,
      },
    ];
  } finally {
    await stopNodeProcess(node);
  }
}
