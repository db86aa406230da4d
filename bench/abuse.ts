/**
 * Abusive REST clients against a mining node: a dev node process
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
 *     slowest source under the route's body limit (`let x = 1 + 1 + …`, 64 KiB),
 *   - a contract author calling, every 2 s, the key-value SDK contract (a local process,
 *     created before the windows) with a call that hangs (it sleeps ten minutes) and one whose
 *     results cannot make a 105 (400 KB); each call's last status is counted with the answers.
 * Then the same two windows on a devnet of ABUSE_DEVNET_NODES (default 3; 0 leaves it out) node
 * processes, every abusive client aimed at node 0 (its steady transfers too): the
 * abuse.devnet.* figures say whether every node kept forging its PoA turns.
 * Figures, each against the quiet window's (goal: no stall > 50 ms, no skipped round):
 * - abuse.longest-stall: the node's longest event-loop stall in the abusive window (ms);
 * - abuse.skipped-rounds: PoA rounds the miner skipped in the window (the growth of the
 *   last block's `overall-skipped-rounds`);
 * - abuse.node-status: the slowest `/node/status` answer polled every 250 ms (ms);
 * - abuse.devnet.idle-miners: devnet nodes that forged no key block in the window (goal 0);
 * - abuse.devnet.skipped-rounds, abuse.devnet.longest-stall: as above, over the devnet (the
 *   longest stall of any of its nodes);
 * - abuse.heavy-read-cpu: the node's main-thread CPU time (Linux schedstat: its own time on a
 *   core, whatever else the machine runs) per `/blocks/seq` answer over the same range, asked
 *   one at a time after the windows, against the bench process's own JSON.stringify of that
 *   answer parsed (a bare serializer's floor for the same text).
 * ABUSE_SECONDS sets the window length (default 30), ABUSE_FILL the transfers that fill the
 * blocks first (default 20,000); ABUSE_SKIP=heavy,sign,wasm,regex,compile,calls leaves out the
 * heavy readers, the wrong-password floods, the WASM calls, the key patterns, the compiles or the
 * failing contract calls, to tell what each costs the node (the figures then no longer measure the whole abuse).
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import wabtInit from 'wabt';
import { packageTreeDigest } from '../src/contracts/package-digest.js';
import { encodeBase58 } from '../src/crypto/encoding.js';
import type { KeyPair } from '../src/crypto/suite.js';
import { CallContract, CreateContract } from '../src/protocol/transactions/contracts.js';
import type { Transaction } from '../src/protocol/transactions/schema.js';
import { devAccounts } from '../src/cli/dev.js';
import { stringifyJson } from '../src/protocol/json.js';
import type { Protocol } from '../src/protocol/protocol.js';
import { callV7, createV7, timestampsFrom } from '../devkit/contracts/engine.js';
import { buildKvSdkPackage, REPO_ROOT } from '../devkit/contracts/sdk-package.js';
import { tempDir } from '../devkit/tmp.js';
import { prepareDevnet, spawnDevnetNode } from '../src/cli/devnet.js';
import { benchDevnetOptions, confirmedRate, longestStallMs, signedTransfers, startNodeProcess, stopNodeProcess, type NodeProc } from './chain.js';
import { progress, threadTimes, type Figure } from './harness.js';

const WINDOW_MS = Number(process.env['ABUSE_SECONDS'] ?? 30) * 1000;
const FILL = Number(process.env['ABUSE_FILL'] ?? 20_000);
/** Abusive clients left out (ABUSE_SKIP, comma-separated: heavy, sign). */
const SKIP = new Set((process.env['ABUSE_SKIP'] ?? '').split(',').filter((k) => k !== ''));
/** Steady transfers per second in both windows: the miner always has work. */
const STEADY_TPS = 200;
/** Nodes of the devnet part (ABUSE_DEVNET_NODES; 0 leaves it out). */
const DEVNET_NODES = Number(process.env['ABUSE_DEVNET_NODES'] ?? 3);

interface Answer {
  readonly status: number;
  readonly text: string;
}

function get(url: string, agent: http.Agent, method = 'GET', body?: string, contentType = 'application/json'): Promise<Answer> {
  return new Promise((resolve) => {
    const req = http.request(
      url,
      { method, agent, headers: body === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => resolve({ status: -1, text: '' }));
      },
    );
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
  const m = (await wabtInit()).parseWat('abuse.wat', readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'wasm', 'abuse.wat'), 'utf8'), {
    multi_value: true,
    bulk_memory: true,
  });
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

/** How long the failing calls get after the window to reach their last status: three executions, a key block apart. */
const FAILING_CALLS_SETTLE_MS = 30_000;

/** The key-value SDK contract's image in the abuse node (a local process package). */
const KV_IMAGE = 'bench/kv-sdk:abuse';

/** A legacy contract transaction (103 V5 / 104 V5) of dev account 0. */
function contractTx(p: Protocol, owner: KeyPair, kind: 'create' | 'call', data: object): Transaction {
  const codec = kind === 'create' ? CreateContract : CallContract;
  const tx = p.transaction(codec, 5, {
    senderPublicKey: owner.publicKey,
    timestamp: BigInt(Date.now()) + BigInt(Math.floor(Math.random() * 1000)),
    feeAssetId: null,
    atomicBadge: null,
    payments: [],
    ...data,
  });
  return p.sign(tx, owner.privateKey);
}

/** Creates the key-value contract; resolves with its id once its 105 is mined. */
async function deployKvContract(p: Protocol, url: string, agent: http.Agent, imageHash: string): Promise<Uint8Array> {
  const owner = devAccounts(p)[0]!.keyPair;
  const create = contractTx(p, owner, 'create', {
    image: KV_IMAGE,
    imageHash,
    contractName: 'kv',
    params: [{ key: 'start', type: 'integer', value: 0n }],
    fee: 100_000_000n,
    validationPolicy: { type: 'any' },
    apiVersion: { major: 1, minor: 0 },
  });
  const r = await get(`${url}/transactions/broadcast`, agent, 'POST', stringifyJson(create.toJson()));
  if (r.status !== 200) throw new Error(`the key-value contract was refused: ${r.text}`);
  for (const deadline = Date.now() + 120_000; (await get(`${url}/contracts/executed-tx-for/${create.idBase58}`, agent)).status !== 200; await pause(250)) {
    if (!until(deadline)) throw new Error('the key-value contract was not created (its process did not start?)');
  }
  return create.id;
}

/** The last status the node holds for an executable transaction (`none` before any). */
async function lastStatus(url: string, agent: http.Agent, txId: string): Promise<string> {
  const r = await get(`${url}/contracts/status/${txId}`, agent);
  if (r.status !== 200) return `answer ${r.status}`;
  const statuses = JSON.parse(r.text) as Array<{ status: string }>;
  return statuses.length === 0 ? 'none' : `${statuses.length}× ${statuses[statuses.length - 1]!.status}`;
}

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
  { wasmContract, patternAddress, kvContract }: Targets,
): Promise<WindowResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const abuseAgent = new http.Agent({ keepAlive: true, maxSockets: 24 });
  // The contract author's own connections: not queued behind the looping clients'.
  const authorAgent = new http.Agent({ keepAlive: true, maxSockets: 2 });
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
      for (let next = 0; until(deadline) && next < steady.length;) {
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
    const signBody = JSON.stringify({
      type: 4,
      version: 2,
      sender,
      password: 'not the password',
      recipient: sender,
      amount: 1,
      fee: 1_000_000,
      attachment: '',
    });
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
      for (let i = 0; i < 4; i++)
        tasks.push(loop('/addresses/data?matches', () => get(`${node.url}/addresses/data/${patternAddress}?matches=${BACKTRACKING_PATTERN}`, abuseAgent)));
    }
    if (!SKIP.has('compile')) {
      for (const source of [HUGE_SOURCE, HUGE_SOURCE, SLOW_SOURCE, SLOW_SOURCE]) {
        tasks.push(
          loop(`/utils/script/compile ${source.length > 65_536 ? '2.8 MB' : '64 KiB'}`, () =>
            get(`${node.url}/utils/script/compile`, abuseAgent, 'POST', source, 'text/plain'),
          ),
        );
      }
    }
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
          const r = await get(`${node.url}/transactions/broadcast`, authorAgent, 'POST', stringifyJson(call.toJson()));
          count('wasm call tree broadcast', r.status);
          if (r.status === 200) wasmCalls.push(call.idBase58);
          await pause(1000);
        }
      })(),
    );
  }
  // A hanging call and an oversize one every 2 s.
  const failingCalls: Array<{ kind: string; id: string }> = [];
  if (abusive && kvContract !== undefined) {
    const owner = devAccounts(p)[0]!.keyPair;
    const kvCall = (params: Array<[string, string | bigint]>): Transaction =>
      contractTx(p, owner, 'call', {
        contractId: kvContract,
        params: params.map(([key, value]) => (typeof value === 'bigint' ? { key, type: 'integer', value } : { key, type: 'string', value })),
        fee: 10_000_000n,
        contractVersion: 1,
      });
    tasks.push(
      (async () => {
        while (until(deadline)) {
          for (const [kind, call] of [
            [
              'hanging call',
              kvCall([
                ['action', 'sleep'],
                ['ms', 600_000n],
              ]),
            ],
            [
              'oversize call',
              kvCall([
                ['action', 'fill'],
                ['count', 4n],
                ['size', 100_000n],
              ]),
            ],
          ] as const) {
            const r = await get(`${node.url}/transactions/broadcast`, authorAgent, 'POST', stringifyJson(call.toJson()));
            count(`${kind} broadcast`, r.status);
            if (r.status === 200) failingCalls.push({ kind, id: call.idBase58 });
          }
          await pause(2000);
        }
      })(),
    );
  }
  if (abusive) {
    // Last, once every other client holds its connection: slow bodies and idle connections.
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
  await Promise.all(tasks);
  for (const t of timers) clearInterval(t);
  for (const s of sockets) s.destroy();
  const stallMs = await longestStallMs(node);
  // The last key block of the window may come a round later: read the skipped rounds after one more round.
  await pause(6000);
  const skippedRounds = (await overallSkippedRounds(node.url, agent)) - skippedBefore;
  for (const id of wasmCalls) count('wasm call tree 105 statusCode', (await executedStatusCode(node.url, agent, id, 10_000)) ?? -1);
  // A hanging call ends after its bounded executions (each one execution timeout, at most one per key block).
  if (failingCalls.length > 0) await pause(FAILING_CALLS_SETTLE_MS);
  for (const { kind, id } of failingCalls) {
    const last = await lastStatus(node.url, agent, id);
    answers.set(`${kind} statuses ${last}`, (answers.get(`${kind} statuses ${last}`) ?? 0) + 1);
  }
  agent.destroy();
  abuseAgent.destroy();
  authorAgent.destroy();
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
  return [...(await singleNodeFigures(p)), ...(DEVNET_NODES > 0 ? await devnetFigures(p) : [])];
}

/** The contract packages, contracts and keys the abusive clients need, made on a running node before its windows. */
interface Targets {
  readonly kvPackage: string | undefined;
  wasmContract?: Uint8Array | undefined;
  patternAddress?: string | undefined;
  kvContract?: Uint8Array | undefined;
}

/** Builds the key-value contract's package (unless the failing calls are left out). */
async function contractPackages(): Promise<Targets> {
  return { kvPackage: SKIP.has('calls') ? undefined : await buildKvSdkPackage(tempDir()) };
}

/** Deploys the contracts and writes the keys the abusive clients use, on the node at `url`. */
async function prepareTargets(p: Protocol, url: string, t: Targets): Promise<Targets> {
  const agent = new http.Agent({ keepAlive: false });
  t.wasmContract = SKIP.has('wasm') ? undefined : await deployAbuseContract(p, url, agent);
  t.patternAddress = SKIP.has('regex') ? undefined : await writePatternKeys(p, url, agent);
  t.kvContract = t.kvPackage === undefined ? undefined : await deployKvContract(p, url, agent, await packageTreeDigest(t.kvPackage));
  agent.destroy();
  return t;
}

async function singleNodeFigures(p: Protocol): Promise<Figure[]> {
  // The key-value SDK contract as a local process package, for the failing contract calls.
  const targets = await contractPackages();
  const node = await startNodeProcess(true, 'waves', true, undefined, targets.kvPackage === undefined ? [] : [{ image: KV_IMAGE, source: targets.kvPackage }]);
  try {
    progress(`filling blocks with ${FILL} transfers`);
    await confirmedRate(node, signedTransfers(p, FILL, BigInt(Date.now())));
    const agent = new http.Agent({ keepAlive: false });
    const height = (JSON.parse((await get(`${node.url}/blocks/height`, agent)).text) as { height: number }).height;
    const range = { from: Math.max(1, height - 99), to: height };
    await prepareTargets(p, node.url, targets);
    progress(`quiet window (${WINDOW_MS / 1000} s)`);
    const quiet = await runWindow(p, node, false, range, targets);
    progress(`abusive window (${WINDOW_MS / 1000} s, heavy reads over heights ${range.from}–${range.to})`);
    const abused = await runWindow(p, node, true, range, targets);
    progress(`abusive clients' answers: ${[...abused.answers].map(([k, n]) => `${k} ×${n}`).join(', ')}`);
    const heavy = await heavyReadCpu(node, range);
    // A run that left clients out says so with every window figure: it did not measure the whole abuse.
    const skipped = SKIP.size === 0 ? '' : `; ABUSE_SKIP=${[...SKIP].join(',')}: not the whole abuse`;
    const label = (what: string): string => `quiet window's ${what} (same node, ${STEADY_TPS} transfers/s)${skipped}`;
    return [
      {
        name: 'abuse.longest-stall',
        value: abused.stallMs,
        baseline: quiet.stallMs,
        ratio: abused.stallMs / quiet.stallMs,
        unit: 'ms',
        baselineLabel: `${label('longest stall')}; goal ≤ 50 ms`,
      },
      {
        name: 'abuse.skipped-rounds',
        value: abused.skippedRounds,
        baseline: quiet.skippedRounds,
        ratio: abused.skippedRounds / Math.max(1, quiet.skippedRounds),
        unit: 'rounds',
        baselineLabel: `${label('skipped rounds')}; goal 0 (ratio against max(quiet, 1))`,
      },
      {
        name: 'abuse.node-status',
        value: abused.slowestStatusMs,
        baseline: quiet.slowestStatusMs,
        ratio: abused.slowestStatusMs / quiet.slowestStatusMs,
        unit: 'ms',
        baselineLabel: label('slowest /node/status answer'),
      },
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

/** The generators of the key blocks above `from` up to the tip, read from `url`. */
async function generatorsSince(url: string, agent: http.Agent, from: number): Promise<{ generators: Set<string>; to: number }> {
  const to = (JSON.parse((await get(`${url}/blocks/height`, agent)).text) as { height: number }).height;
  const generators = new Set<string>();
  for (let h = from + 1; h <= to; h += 99) {
    const headers = JSON.parse((await get(`${url}/blocks/headers/seq/${h}/${Math.min(to, h + 98)}`, agent)).text) as Array<{ generator: string }>;
    for (const header of headers) generators.add(header.generator);
  }
  return { generators, to };
}

/**
 * The windows again on a devnet: every abusive client aimed at node 0, and whether every node
 * kept forging its turns (a node that stopped answering or forging is what one WASM call did
 * to a 3-node devnet before WASM ran on its own threads).
 */
async function devnetFigures(p: Protocol): Promise<Figure[]> {
  const targets = await contractPackages();
  const dir = tempDir();
  progress(`starting a ${DEVNET_NODES}-node devnet`);
  const layout = await prepareDevnet({
    ...benchDevnetOptions(DEVNET_NODES, dir),
    contractPackages: targets.kvPackage === undefined ? [] : [{ image: KV_IMAGE, runtime: 'process', source: targets.kvPackage, command: undefined, env: {} }],
  });
  const children = layout.nodes.map((n) => spawnDevnetNode(n));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  try {
    const target = layout.nodes[0]!;
    for (const n of layout.nodes) {
      for (const deadline = Date.now() + 120_000; (await get(`${n.restUrl}/blocks/height`, agent)).status !== 200; await pause(250)) {
        if (!until(deadline)) throw new Error(`bench: ${n.name} did not serve in 120 s`);
      }
    }
    // Every node forges once before the windows: the mesh is up.
    const start = await generatorsSince(target.restUrl, agent, 1);
    for (const deadline = Date.now() + 180_000; (await generatorsSince(target.restUrl, agent, start.to)).generators.size < DEVNET_NODES; await pause(1000)) {
      if (!until(deadline)) throw new Error('bench: the devnet did not see every node forge within 180 s');
    }
    await prepareTargets(p, target.restUrl, targets);
    const range = { from: 1, to: (JSON.parse((await get(`${target.restUrl}/blocks/height`, agent)).text) as { height: number }).height };
    const owners = new Map(layout.nodes.map((n) => [n.ownerAddress, n.name]));
    const window = async (abusive: boolean): Promise<WindowResult & { idle: string[]; stallMs: number }> => {
      const from = (JSON.parse((await get(`${target.restUrl}/blocks/height`, agent)).text) as { height: number }).height;
      for (const n of layout.nodes.slice(1)) await longestStallMs({ url: n.restUrl });
      const w = await runWindow(p, { url: target.restUrl, child: children[0]!, dir }, abusive, range, targets);
      const others = await Promise.all(layout.nodes.slice(1).map((n) => longestStallMs({ url: n.restUrl })));
      const { generators } = await generatorsSince(target.restUrl, agent, from);
      const idle = [...owners].filter(([address]) => !generators.has(address)).map(([, name]) => name);
      return { ...w, idle, stallMs: Math.max(w.stallMs, ...others) };
    };
    progress(`devnet quiet window (${WINDOW_MS / 1000} s)`);
    const quiet = await window(false);
    progress(`devnet abusive window (${WINDOW_MS / 1000} s, every client aimed at ${target.name})`);
    const abused = await window(true);
    progress(
      `devnet abusive clients' answers: ${[...abused.answers].map(([k, n]) => `${k} ×${n}`).join(', ')}; idle miners: ${abused.idle.join(', ') || 'none'} (quiet: ${quiet.idle.join(', ') || 'none'})`,
    );
    const skipped = SKIP.size === 0 ? '' : `; ABUSE_SKIP=${[...SKIP].join(',')}: not the whole abuse`;
    const label = (what: string): string => `quiet window's ${what} (${DEVNET_NODES}-node devnet, ${STEADY_TPS} transfers/s to node 0)${skipped}`;
    return [
      {
        name: 'abuse.devnet.idle-miners',
        value: abused.idle.length,
        baseline: quiet.idle.length,
        ratio: abused.idle.length / Math.max(1, quiet.idle.length),
        unit: 'nodes',
        baselineLabel: `${label('nodes that forged no key block')}; goal 0 (ratio against max(quiet, 1))`,
      },
      {
        name: 'abuse.devnet.skipped-rounds',
        value: abused.skippedRounds,
        baseline: quiet.skippedRounds,
        ratio: abused.skippedRounds / Math.max(1, quiet.skippedRounds),
        unit: 'rounds',
        baselineLabel: `${label('skipped rounds')}; goal 0 (ratio against max(quiet, 1))`,
      },
      {
        name: 'abuse.devnet.longest-stall',
        value: abused.stallMs,
        baseline: quiet.stallMs,
        ratio: abused.stallMs / quiet.stallMs,
        unit: 'ms',
        baselineLabel: `${label('longest stall of any node')}; goal ≤ 50 ms`,
      },
    ];
  } finally {
    agent.destroy();
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r)))));
    rmSync(dir, { recursive: true, force: true });
  }
}
