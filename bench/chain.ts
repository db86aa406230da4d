/**
 * Chain figures, each as a ratio to bare native Ed25519 verification on one core
 * measured in the same run just before and just after the subject, averaged, as the machine
 * may be shared — but two, named below:
 * - chain.ingest.pool: signed transfers from request JSON into the pool, in process
 *   (parse, build, verify, validate against state, admit);
 * - chain.ingest.http: the same through POST /transactions/broadcast to a node process;
 * - chain.ingest.http.fastify: that rate against a bare Fastify POST route answering the
 *   same bodies (parsed and written back) with the same client — the HTTP stack's floor;
 *   its label gives the most this ratio can be on the machine: the bare route verifies no
 *   signature, while each transfer costs at least one verification (the 1-core rate) plus
 *   what a bare request costs the server and the client, all on the same cores — so the node
 *   takes at most cores ÷ that sum (on 2 cores 0.45–0.5 of the bare route, below the 0.7 goal);
 * - chain.confirmed: transfers/s from the first broadcast until all are in blocks, on a
 *   node process mining under the PoA settings printed with the figure;
 * - chain.confirmed.longest-stall: the longest event-loop stall in that node process while
 *   it takes and mines the transfers, against the 50 ms goal (lower is better);
 *   the ingest and confirmed runs follow WARMUP_TRANSFERS uncounted ones to the same process
 *   (and the bare route), whose cold figures go to stderr;
 * - chain.build: transfers/s this node's micro-blocks take in process (1,000 a micro-block,
 *   built, signed and committed as the miner does, on one liquid block), by the process's
 *   CPU time: the micro-block build's cost without REST or the pool in front of it (the
 *   transfers' bytes and ids worked out before, as the pool has them from admission);
 * - chain.import: whole stored blocks of transfers appended to a fresh chain, tx/s.
 */
import type { ChildProcess } from 'node:child_process';
import { createPublicKey, verify as nativeVerify, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admission } from '../src/chain/admission.js';
import { Blockchain } from '../src/chain/blockchain.js';
import { PreActivatedFeatures } from '../src/chain/features.js';
import { peerChainOf, type ExtensionResult } from '../src/chain/peer-chain.js';
import { ScriptVerifier } from '../src/chain/scripts/verifier.js';
import { preverifySignatures } from '../src/chain/signatures.js';
import { UtxPool } from '../src/chain/utx.js';
import { SignatureVerifierPool } from '../src/crypto/verify-pool.js';
import { montgomeryToEdwards } from '../src/crypto/waves.js';
import { planKeyBlock } from '../src/consensus/poa.js';
import { poaHeaders, PoaRules } from '../src/consensus/rules.js';
import { Block } from '../src/protocol/blocks.js';
import { parseJson, stringifyJson } from '../src/protocol/json.js';
import { Protocol } from '../src/protocol/protocol.js';
import { Transfer } from '../src/protocol/transactions/transfer.js';
import type { Transaction } from '../src/protocol/transactions/schema.js';
import { devAccounts, devNodeConfig } from '../src/cli/dev.js';
import { ExtensionImport } from '../src/network/extension-import.js';
import { freeLoopbackPort, type DevnetOptions } from '../src/cli/devnet.js';
import { Store } from '../src/state/store.js';
import type { NodeConfig } from '../src/node/config.js';
import { postAllLean, type PostOutcome } from './http-load.js';
import { benchPartWanted, mainThreadCpuMs, processCpuMs, progress, startProcess, stopProcess, threadTimes, threadTimesLine, type Figure } from './harness.js';

export const BENCH_POA = {
  roundDurationMs: 5000,
  syncDurationMs: 1000,
  microBlockIntervalMs: 200,
  maxTransactionsInMicroBlock: 6000,
  maxBlockSizeInBytes: 64 * 1024 * 1024,
};

/** A devnet of `nodes` on free ports in `dir`, with the bench's PoA and miner settings and a cheap keystore. */
export function benchDevnetOptions(nodes: number, dir: string): DevnetOptions {
  return {
    nodes,
    dir,
    basePort: 0,
    roundDurationMs: BENCH_POA.roundDurationMs,
    syncDurationMs: BENCH_POA.syncDurationMs,
    microBlockIntervalMs: BENCH_POA.microBlockIntervalMs,
    maxTransactionsInMicroBlock: BENCH_POA.maxTransactionsInMicroBlock,
    maxBlockSizeInBytes: BENCH_POA.maxBlockSizeInBytes,
    keystore: { scrypt: { N: 1024, r: 8, p: 1 } },
  };
}
const SPKI = Buffer.from('302a300506032b6570032100', 'hex');

/** Transfers signed by the dev accounts, timestamps from `start` on. */
export function signedTransfers(p: Protocol, n: number, start: bigint): Transaction[] {
  const accounts = devAccounts(p);
  const out: Transaction[] = [];
  for (let i = 0; i < n; i++) {
    const from = accounts[i % accounts.length]!;
    const to = accounts[(i + 1) % accounts.length]!;
    const tx = p.transaction(Transfer, 3, {
      senderPublicKey: from.keyPair.publicKey,
      assetId: null,
      feeAssetId: null,
      timestamp: start + BigInt(i),
      amount: 1000n + BigInt(i % 1000),
      fee: 1_000_000n,
      recipient: p.addresses.parseAddress(to.address),
      attachment: new Uint8Array(0),
      atomicBadge: null,
    });
    out.push(p.sign(tx, from.keyPair.privateKey));
  }
  return out;
}

/** Bare verification of the same signatures with node:crypto Ed25519, on this core. */
function nativeVerifyRate(txs: readonly Transaction[]): number {
  // Ready-made Edwards keys (the sender's Curve25519 key with the sign bit its signatures carry).
  const keys = new Map<string, KeyObject>();
  const items = txs.map((tx) => {
    const sig = Buffer.from(tx.proofs[0]!);
    const id = `${Buffer.from(tx.senderPublicKey!).toString('hex')}${sig[63]! >> 7}`;
    let key = keys.get(id);
    if (key === undefined) {
      key = createPublicKey({ key: Buffer.concat([SPKI, montgomeryToEdwards(tx.senderPublicKey!, sig[63]!)!]), format: 'der', type: 'spki' });
      keys.set(id, key);
    }
    sig[63] = sig[63]! & 0x7f;
    return { msg: tx.proofSourceBytes, key, sig };
  });
  const t0 = process.hrtime.bigint();
  let ok = 0;
  for (const it of items) if (nativeVerify(null, it.msg, it.key, it.sig)) ok++;
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (ok !== items.length) throw new Error('baseline signatures did not verify');
  return items.length / s;
}

const rate = (n: number, t0: bigint): number => n / (Number(process.hrtime.bigint() - t0) / 1e9);

function figure(name: string, value: number, baseline: number, unit: string, target?: number): Figure {
  return {
    name,
    value,
    baseline,
    ratio: value / baseline,
    unit,
    baselineLabel: 'native Ed25519 verify/s (1 core)',
    ...(target === undefined ? {} : { target }),
  };
}

/** A temporary dev data directory. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'weft-bench-'));
}

/** An in-process dev chain (no miner, no REST) with a controllable clock. */
async function inProcessChain(dir: string): Promise<{ chain: Blockchain; rules: PoaRules; clock: { now: bigint } }> {
  return inProcessChainOf(await devNodeConfig({ dataDir: dir, p2pPort: 0, keystore: { scrypt: { N: 1024, r: 8, p: 1 } } }));
}

/** An in-process chain (no miner, no REST) over the state of `config`'s data directory, its PoA rounds BENCH_POA's, with a controllable clock (now at first). */
async function inProcessChainOf(config: NodeConfig): Promise<{ chain: Blockchain; rules: PoaRules; clock: { now: bigint } }> {
  const chainSettings =
    config.chain.consensus.type === 'poa'
      ? { ...config.chain, consensus: { ...config.chain.consensus, roundDurationMs: BENCH_POA.roundDurationMs, syncDurationMs: BENCH_POA.syncDurationMs } }
      : config.chain;
  const protocol = await Protocol.create({ crypto: 'waves', chainId: chainSettings.chainId });
  const scripts = await ScriptVerifier.create(protocol);
  const features = PreActivatedFeatures.fromSettings(chainSettings.functionality);
  const rules = PoaRules.fromSettings(chainSettings, features);
  const clock = { now: BigInt(Date.now()) };
  const chain = new Blockchain({
    // Where a node over the same data directory keeps its state (node/assembly.ts).
    store: Store.open(join(config.node.dataDirectory, 'state'), protocol),
    protocol,
    settings: chainSettings,
    features,
    consensus: rules,
    txExpireTimeoutMs: 2 * 3600_000,
    now: () => clock.now,
    scripts,
  });
  chain.ensureGenesis();
  return { chain, rules, clock };
}

/**
 * Forges the next key block with the first of `owners` whose slot comes (the clock moved to
 * it): with every miner of the chain among them, no round is skipped.
 */
function forgeNextKeyBlock(
  chain: Blockchain,
  rules: PoaRules,
  clock: { now: bigint },
  owners: ReadonlyArray<{ publicKey: Uint8Array; privateKey: Uint8Array }>,
): { publicKey: Uint8Array; privateKey: Uint8Array } {
  for (let i = 0; i < 10; i++) {
    let next: { at: bigint; owner: (typeof owners)[number] } | undefined;
    for (const owner of owners) {
      const plan = planKeyBlock(rules.poa, {
        state: chain.state(),
        chain: poaHeaders(chain),
        now: clock.now,
        self: chain.protocol.addresses.fromPublicKey(owner.publicKey).bytes,
      });
      const at = plan.kind === 'forge' ? clock.now : plan.kind === 'wait' ? plan.at : plan.retryAt;
      if (plan.kind === 'forge') {
        const block = Block.sign(
          chain.protocol,
          {
            version: 3,
            timestamp: plan.timestamp,
            reference: chain.lastBlock().id,
            consensus: { type: 'poa', overallSkippedRounds: plan.overallSkippedRounds },
            transactions: [],
            featureVotes: [],
            genesisData: null,
          },
          owner.privateKey,
        );
        chain.appendKeyBlock(block);
        clock.now += 1n;
        return owner;
      }
      if (next === undefined || at < next.at) next = { at, owner };
    }
    clock.now = next!.at;
  }
  throw new Error('no slot found for the owners');
}

/** Transfers/s from request JSON into the pool of an in-process chain (parse, build, verify on worker threads, validate, admit), with native verification as baseline. */
export async function poolIngest(p: Protocol, n: number): Promise<{ value: number; baseline: number }> {
  const dir = tempDir();
  try {
    const { chain, clock } = await inProcessChain(dir);
    const verifier = await SignatureVerifierPool.start('waves', undefined, p.crypto);
    const pool = new UtxPool({
      chain,
      settings: { memoryLimitBytes: 1 << 30, txExpireTimeoutMs: 2 * 3600_000, cleanupIntervalMs: 300_000, allowTransactionsFromSmartAccounts: true },
      now: () => clock.now,
      verifier,
    });
    const admission = new Admission({ chain, pool, now: () => clock.now, verifier });
    const txs = signedTransfers(p, n, clock.now - 60_000n);
    const texts = txs.map((tx) => stringifyJson(tx.toJson()));
    const baseline = nativeVerifyRate(txs);
    // As clients would: many broadcasts in flight at once.
    const t0 = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      Array.from({ length: 256 }, async () => {
        while (next < texts.length) await admission.admit(p.transactionFromJson(parseJson(texts[next++]!)), { origin: 'api' });
      }),
    );
    const value = rate(n, t0);
    // The machine is shared: the baseline is measured before and after the subject, averaged.
    const baselineAfter = nativeVerifyRate(txs);
    await verifier.close();
    if (pool.size().size !== n) throw new Error(`pool holds ${pool.size().size} of ${n}`);
    await chain.store.close();
    return { value, baseline: (baseline + baselineAfter) / 2 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Transfers/s of own micro-blocks of `perMicroBlock` built and committed in process, by CPU time, with native verification as baseline. */
async function microBlockBuild(p: Protocol, n: number, perMicroBlock: number): Promise<{ value: number; baseline: number }> {
  const dir = tempDir();
  try {
    const { chain, rules, clock } = await inProcessChain(dir);
    try {
      const owner = devAccounts(p)[0]!.keyPair;
      forgeNextKeyBlock(chain, rules, clock, [owner]);
      const txs = signedTransfers(p, n, clock.now - 1000n);
      const baseline = nativeVerifyRate(txs);
      // A node's pool holds its transactions with their bytes and ids already worked out (at admission).
      for (const tx of txs) if (tx.id.length === 0 || tx.bytes.length === 0) throw new Error('a transfer without bytes');
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < n; i += perMicroBlock) {
        clock.now += 5n;
        const built = chain.appendOwnMicroBlock(
          txs.slice(i, i + perMicroBlock),
          { maxTransactions: 6000, maxBlockBytes: BENCH_POA.maxBlockSizeInBytes },
          owner.privateKey,
          true,
        );
        if (built.included.length !== Math.min(perMicroBlock, n - i))
          throw new Error(`micro-block took ${built.included.length}: ${built.rejected[0]?.error.message}`);
      }
      const cpu = process.cpuUsage(cpu0);
      const value = n / ((cpu.user + cpu.system) / 1e6);
      const baselineAfter = nativeVerifyRate(txs);
      return { value, baseline: (baseline + baselineAfter) / 2 };
    } finally {
      await chain.store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A chain of stored blocks of signed transfers, built in process into a data directory (that a node can then open). */
export interface StoredTransferChain {
  /** The config of a node over that data directory (genesis, state). */
  readonly config: NodeConfig;
  /** The bytes of every block after genesis, oldest first. */
  readonly blocks: readonly Uint8Array[];
  /** The transfers in them. */
  readonly transfers: readonly Transaction[];
  /** The chain's clock after the last block (ms). */
  readonly now: bigint;
}

/**
 * `blocks` key blocks of the dev account's, each with one micro-block of `perBlock` signed
 * transfers, appended to a real Blockchain over an LMDB store in `dir`; with `finalKeyBlock`,
 * one more key block without transactions on top, so every transfer block is final (a node
 * serving the directory holds them all below its top).
 */
export async function buildTransferChain(p: Protocol, dir: string, blocks: number, perBlock: number, finalKeyBlock = false): Promise<StoredTransferChain> {
  const config = await devNodeConfig({ dataDir: dir, p2pPort: 0, keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
  return buildTransferChainOn(p, config, [devAccounts(p)[0]!.keyPair], undefined, blocks, perBlock, finalKeyBlock);
}

/**
 * buildTransferChain on the data directory of any node `config` (a devnet node's), its key
 * blocks forged by whichever of `miners` has the next slot, the chain's clock starting at
 * `from` (default now: a chain built from a genesis in the past can end before now, as the
 * nodes that serve it require of its blocks).
 */
export async function buildTransferChainOn(
  p: Protocol,
  config: NodeConfig,
  miners: ReadonlyArray<{ publicKey: Uint8Array; privateKey: Uint8Array }>,
  from: bigint | undefined,
  blocks: number,
  perBlock: number,
  finalKeyBlock = false,
): Promise<StoredTransferChain> {
  const { chain, rules, clock } = await inProcessChainOf(config);
  if (from !== undefined) clock.now = from;
  const transfers: Transaction[] = [];
  for (let b = 0; b < blocks; b++) {
    const miner = forgeNextKeyBlock(chain, rules, clock, miners);
    const txs = signedTransfers(p, perBlock, clock.now);
    transfers.push(...txs);
    clock.now += 10n;
    const built = chain.appendOwnMicroBlock(txs, { maxTransactions: 6000, maxBlockBytes: BENCH_POA.maxBlockSizeInBytes }, miner.privateKey, true);
    if (built.included.length !== perBlock) throw new Error(`micro-block took ${built.included.length} of ${perBlock}: ${built.rejected[0]?.error.message}`);
  }
  if (finalKeyBlock) forgeNextKeyBlock(chain, rules, clock, miners);
  const stored = Array.from({ length: chain.height() - 1 }, (_, i) => chain.store.blockBytes(i + 2)!);
  await chain.store.close();
  return { config, blocks: stored, transfers, now: clock.now };
}

/**
 * Transactions/s a node imports the stored blocks of `built` at, into a fresh chain of the same
 * genesis: as sync imports a peer's extension — each block parsed, its signatures sent to the
 * verifier threads, and applied once they are checked while the later ones are verified. With
 * `extensionBlocks`, in extensions of that many blocks as sync takes them from a peer, each one
 * parsed and sent to the verifier threads while the one before is applied.
 */
export async function importRate(p: Protocol, built: StoredTransferChain, extensionBlocks = built.blocks.length): Promise<number> {
  const dir = tempDir();
  try {
    // The same genesis and settings, a fresh store.
    const fresh = await inProcessChainOf({ ...built.config, node: { ...built.config.node, dataDirectory: dir } });
    fresh.clock.now = built.now;
    const verifier = await SignatureVerifierPool.start('waves', undefined, p.crypto);
    try {
      const t0 = process.hrtime.bigint();
      const chain = peerChainOf(fresh.chain);
      let applying: Promise<ExtensionResult> | undefined;
      let added = 0;
      const applied = async (): Promise<void> => {
        const result = await applying!;
        if (result.kind !== 'applied') throw new Error(`import: ${JSON.stringify(result, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
        added += result.added;
      };
      for (let i = 0; i < built.blocks.length; i += extensionBlocks) {
        const extension = new ExtensionImport(chain, { preverify: (txs) => preverifySignatures(verifier, txs) });
        for (const bytes of built.blocks.slice(i, i + extensionBlocks)) extension.add([Block.fromBytes(p, bytes)]);
        if (applying !== undefined) await applied();
        applying = extension.apply(built.blocks.length);
      }
      await applied();
      if (added !== built.blocks.length) throw new Error(`import: ${added} of ${built.blocks.length} blocks applied`);
      return rate(built.transfers.length, t0);
    } finally {
      await verifier.close();
      await fresh.chain.store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function chainImport(p: Protocol, blocks: number, perBlock: number): Promise<{ value: number; baseline: number }> {
  const dir = tempDir();
  try {
    const built = await buildTransferChain(p, dir, blocks, perBlock);
    const baseline = nativeVerifyRate(built.transfers);
    const value = await importRate(p, built);
    const baselineAfter = nativeVerifyRate(built.transfers);
    return { value, baseline: (baseline + baselineAfter) / 2 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface NodeProc {
  readonly child: ChildProcess;
  readonly url: string;
  readonly dir: string;
}

/** A dev node process under BENCH_POA; `metrics` switches node.metrics (on, as by default, unless false). */
export async function startNodeProcess(
  minerEnabled: boolean,
  crypto: 'waves' | 'gost' = 'waves',
  metrics = true,
  verifierThreads?: number,
  contractPackages?: ReadonlyArray<{ readonly image: string; readonly source: string }>,
): Promise<NodeProc> {
  return startNodeProcessIn(tempDir(), { minerEnabled, crypto, metrics, verifierThreads, contractPackages });
}

/** What bench/node-process.ts takes beside BENCH_POA (its BenchSettings say what each does). */
export interface NodeProcessSettings {
  readonly minerEnabled: boolean;
  readonly crypto?: 'waves' | 'gost';
  readonly metrics?: boolean;
  readonly verifierThreads?: number | undefined;
  readonly contractPackages?: ReadonlyArray<{ readonly image: string; readonly source: string }> | undefined;
  readonly grpcPort?: number;
  readonly blockchainEventsMaxConnections?: number;
  readonly microBlockLog?: string;
}

/** A dev node process under BENCH_POA over the data directory `dir` (a new one, or one a bench built), which it removes when stopped. */
export async function startNodeProcessIn(dir: string, settings: NodeProcessSettings): Promise<NodeProc> {
  const port = await freeLoopbackPort();
  const { child, url } = await startProcess(
    new URL('./node-process.js', import.meta.url).pathname,
    [dir, String(port), JSON.stringify({ ...BENCH_POA, ...settings })],
    'bench node',
  );
  return { child, url, dir };
}

export async function stopNodeProcess(n: NodeProc): Promise<void> {
  await stopProcess(n.child);
  rmSync(n.dir, { recursive: true, force: true });
}

/** How long the stall baseline watches a node that only mines. */
const QUIET_STALL_WINDOW_MS = 3000;

/**
 * Transfers sent to a freshly started node (and to the bare Fastify route) before the
 * measured run of the ingest and confirmed figures, not counted: a node runs for days, and
 * its first few thousand requests mostly pay V8's compilation of the request path (TurboFan on
 * the helper threads was ~75 µs of a fresh node's CPU per transfer over the first 8–10k, 3–15
 * µs after). The warm-up's own rate goes to stderr beside the figure.
 */
export const WARMUP_TRANSFERS = 5_000;

/** The node's event-loop sampler checks every this many ms; each delay it records includes that interval. */
const EVENT_LOOP_SAMPLER_INTERVAL_MS = 10;

/**
 * The longest event-loop stall in the node process since the previous scrape of its /metrics
 * (or since it started), in ms: the node's own sampler, prom-client's
 * nodejs_eventloop_lag_max_seconds (perf_hooks' monitorEventLoopDelay, a check every
 * EVENT_LOOP_SAMPLER_INTERVAL_MS, reset by every scrape), less the sampler's own interval,
 * which every delay it records includes (an idle node reads ~10 ms). Needs node.metrics on.
 */
export async function longestStallMs(node: Pick<NodeProc, 'url'>): Promise<number> {
  const r = await request(`${node.url}/metrics`, 'GET');
  const m = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/m.exec(r.text);
  if (r.status !== 200 || m === null) throw new Error(`the bench node's /metrics (${r.status}) has no nodejs_eventloop_lag_max_seconds: is node.metrics on?`);
  return Math.max(0, Number(m[1]) * 1000 - EVENT_LOOP_SAMPLER_INTERVAL_MS);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

export function request(url: string, method: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/**
 * POSTs every body to the node's broadcast route with `concurrency` requests in flight;
 * resolves when all are answered (bench/http-load.ts; BENCH_HTTP_CLIENT=node: through node:http).
 */
export async function broadcastAll(url: string, bodies: readonly string[], concurrency: number): Promise<void> {
  const { failed, firstError } =
    process.env['BENCH_HTTP_CLIENT'] === 'node'
      ? await postAllNodeHttp(url, bodies, concurrency)
      : await postAllLean(`${url}/transactions/broadcast`, bodies, concurrency);
  if (failed > 0) throw new Error(`${failed} broadcasts failed, first: ${firstError}`);
}

async function postAllNodeHttp(url: string, bodies: readonly string[], concurrency: number): Promise<PostOutcome> {
  let next = 0;
  let failed = 0;
  let firstError = '';
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const r = await request(`${url}/transactions/broadcast`, 'POST', body);
      if (r.status !== 200) {
        failed++;
        firstError ||= r.text;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  return { failed, firstError };
}

/** Transfers/s broadcast over HTTP into the pool of a node process that does not mine. */
export async function ingestedRate(node: NodeProc, txs: readonly Transaction[]): Promise<number> {
  const bodies = txs.map((tx) => stringifyJson(tx.toJson()));
  const t0 = process.hrtime.bigint();
  await broadcastAll(node.url, bodies, 16);
  return rate(txs.length, t0);
}

/** CPU µs per request over a run of `n` requests: the server process's main thread, its whole process, and the client (this process). */
interface RequestCpu {
  readonly serverMainUs: number;
  readonly serverUs: number;
  readonly clientUs: number;
}

/** Runs `load` (n requests to the server process `pid`) and measures what each request cost in CPU. */
async function requestCpu(pid: number, n: number, load: () => Promise<void>): Promise<RequestCpu> {
  const main0 = mainThreadCpuMs(pid);
  const all0 = processCpuMs(pid);
  const client0 = process.cpuUsage();
  await load();
  const client = process.cpuUsage(client0);
  return {
    serverMainUs: ((mainThreadCpuMs(pid) - main0) * 1000) / n,
    serverUs: ((processCpuMs(pid) - all0) * 1000) / n,
    clientUs: (client.user + client.system) / n,
  };
}

const cpuText = (c: RequestCpu): string =>
  `main thread ${c.serverMainUs.toFixed(0)} µs, whole process ${c.serverUs.toFixed(0)} µs, client ${c.clientUs.toFixed(0)} µs`;

/** POSTs per second a bare Fastify route answers for the same bodies with the same client (bench/rest-server.ts bare-post). */
async function bareFastifyPostRate(bodies: readonly string[], warmup: readonly string[]): Promise<{ rate: number; cpu: RequestCpu }> {
  const { child, url } = await startProcess(new URL('./rest-server.js', import.meta.url).pathname, ['bare-post'], 'bare Fastify');
  try {
    await broadcastAll(url, warmup, 16);
    let value = 0;
    const cpu = await requestCpu(child.pid!, bodies.length, async () => {
      const t0 = process.hrtime.bigint();
      await broadcastAll(url, bodies, 16);
      value = rate(bodies.length, t0);
    });
    progress(`bare Fastify POST: ${Math.round(value)} req/s; CPU per request: ${cpuText(cpu)}`);
    return { rate: value, cpu };
  } finally {
    await stopProcess(child);
  }
}

/**
 * HTTP ingest, against native verification and against a bare Fastify POST route (measured
 * before and after the node, averaged). What each request cost in CPU, the node's and the
 * client's, goes to stderr beside the bare route's: the 2 cores are shared by the client,
 * the node's event loop and its verifier thread.
 */
async function httpIngest(p: Protocol, n: number): Promise<{ value: number; baseline: number; bareFastify: number; ceiling: number }> {
  const all = signedTransfers(p, WARMUP_TRANSFERS + n, BigInt(Date.now()));
  const warmup = all.slice(0, WARMUP_TRANSFERS);
  const txs = all.slice(WARMUP_TRANSFERS);
  const warmupBodies = warmup.map((tx) => stringifyJson(tx.toJson()));
  const bareBefore = await bareFastifyPostRate(
    txs.map((tx) => stringifyJson(tx.toJson())),
    warmupBodies,
  );
  const node = await startNodeProcess(false);
  let value = 0;
  let baseline: number;
  try {
    let cold = 0;
    const coldCpu = await requestCpu(node.child.pid!, warmup.length, async () => {
      cold = await ingestedRate(node, warmup);
    });
    progress(
      `node ingest, warm-up (first ${warmup.length} transfers of a fresh process, not counted): ${Math.round(cold)} tx/s; CPU per transfer: ${cpuText(coldCpu)}`,
    );
    baseline = nativeVerifyRate(txs);
    const cpu = await requestCpu(node.child.pid!, n, async () => {
      value = await ingestedRate(node, txs);
    });
    progress(`node ingest: ${Math.round(value)} tx/s; CPU per transfer: ${cpuText(cpu)}`);
    baseline = (baseline + nativeVerifyRate(txs)) / 2;
  } finally {
    await stopNodeProcess(node);
  }
  const bareAfter = await bareFastifyPostRate(
    txs.map((tx) => stringifyJson(tx.toJson())),
    warmupBodies,
  );
  const bareFastify = (bareBefore.rate + bareAfter.rate) / 2;
  // What a transfer costs the machine at the least: its signature verified, and the bare route's
  // request — the server's CPU and the client's, which share the cores (µs; the cheaper of the two bare runs).
  const bareRequestUs = Math.min(bareBefore.cpu.serverUs + bareBefore.cpu.clientUs, bareAfter.cpu.serverUs + bareAfter.cpu.clientUs);
  const ceiling = availableParallelism() / (1 / baseline + bareRequestUs / 1e6) / bareFastify;
  return { value, baseline, bareFastify, ceiling };
}

/**
 * chain.confirmed: transfers/s broadcast to one node process until all are in blocks (bench/network.ts compares four nodes with it).
 * The node runs `p`'s crypto; the baseline is native Ed25519 verification, or `baselineRate` of the transfers when given (GOST).
 */
export async function confirmed(
  p: Protocol,
  n: number,
  baselineRate: (txs: readonly Transaction[]) => number = nativeVerifyRate,
  warmup = 0,
): Promise<{ value: number; baseline: number; longestStallMs: number; quietStallMs: number; cpuMsPerTx: number }> {
  const node = await startNodeProcess(true, p.crypto.type);
  try {
    const all = signedTransfers(p, warmup + n, BigInt(Date.now()));
    const txs = all.slice(warmup);
    if (warmup > 0) {
      await longestStallMs(node);
      const cold = await confirmedRate(node, all.slice(0, warmup));
      progress(
        `broadcast to block, warm-up (first ${warmup} transfers of a fresh process, not counted): ${Math.round(cold)} tx/s, longest stall ${(await longestStallMs(node)).toFixed(1)} ms`,
      );
    }
    const baseline = baselineRate(txs);
    // The same node's longest stall while it only mines (nothing broadcast): the stall figure's baseline.
    await longestStallMs(node);
    await new Promise((r) => setTimeout(r, QUIET_STALL_WINDOW_MS));
    const quietStallMs = await longestStallMs(node);
    const cpu0 = processCpuMs(node.child.pid!);
    const threads0 = threadTimes(node.child.pid!);
    const client0 = threadTimes(process.pid);
    const wall0 = performance.now();
    const value = await confirmedRate(node, txs);
    const wall = performance.now() - wall0;
    const threads1 = threadTimes(node.child.pid!);
    progress(`broadcast to block, node threads over the run: ${threadTimesLine(node.child.pid!, threads0, threads1, wall)}`);
    progress(`broadcast to block, the bench's client threads: ${threadTimesLine(process.pid, client0, threadTimes(process.pid), wall, 1)}`);
    const cpuMsPerTx = (processCpuMs(node.child.pid!) - cpu0) / n;
    const mainMsPerTx = ((threads1.get(node.child.pid!)?.runMs ?? 0) - (threads0.get(node.child.pid!)?.runMs ?? 0)) / n;
    progress(`broadcast to block: node CPU per transfer ${(cpuMsPerTx * 1000).toFixed(0)} µs (main thread ${(mainMsPerTx * 1000).toFixed(0)} µs)`);
    const longest = await longestStallMs(node);
    // The machine is shared: the baseline is measured before and after the subject, averaged (as the other chain figures).
    const baselineAfter = baselineRate(txs);
    progress(`broadcast to block: baseline ${Math.round(baseline)}/s before the run, ${Math.round(baselineAfter)}/s after`);
    return { value, baseline: (baseline + baselineAfter) / 2, longestStallMs: longest, quietStallMs, cpuMsPerTx };
  } finally {
    await stopNodeProcess(node);
  }
}

/** Transfers/s from the first broadcast (over `concurrency` connections) to a mining node process until all are in blocks (120 s at most). */
export async function confirmedRate(node: NodeProc, txs: readonly Transaction[], concurrency = 16): Promise<number> {
  const n = txs.length;
  const bodies = txs.map((tx) => stringifyJson(tx.toJson()));
  const mark = await blocksMark(node.url);
  const t0 = process.hrtime.bigint();
  await broadcastAll(node.url, bodies, concurrency);
  const broadcastS = Number(process.hrtime.bigint() - t0) / 1e9;
  await untilInBlocks(mark, n, 120_000);
  const value = rate(n, t0);
  progress(
    `${n} transfers: all answered after ${broadcastS.toFixed(2)} s (${Math.round(n / broadcastS)} tx/s), all in blocks after ${(n / value).toFixed(2)} s`,
  );
  return value;
}

/** Where a node's chain stood before a run's transactions were sent: its height, and what the block there already held (a warm-up's, a steady phase's: not the run's). */
export interface BlocksMark {
  readonly url: string;
  readonly height: number;
  readonly earlier: number;
}

/** The height of the node at `url` (GET /blocks/height). */
export async function chainHeight(url: string): Promise<number> {
  return (JSON.parse((await request(`${url}/blocks/height`, 'GET')).text) as { height: number }).height;
}

export async function blocksMark(url: string): Promise<BlocksMark> {
  const height = await chainHeight(url);
  return { url, height, earlier: await transactionsFrom(url, height, height) };
}

/** Waits until `n` transactions have gone into the node's blocks since `mark` (polled every 50 ms); throws after `timeoutMs`, saying how many had. */
export async function untilInBlocks(mark: BlocksMark, n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const height = await chainHeight(mark.url);
    const count = (await transactionsFrom(mark.url, mark.height, height)) - mark.earlier;
    if (count >= n) return;
    if (Date.now() > deadline) throw new Error(`bench: only ${count} of ${n} transactions in blocks at ${mark.url} after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Transactions in the blocks of the node at `url` from `from` to `to` (its liquid block's micro-blocks so far included). */
async function transactionsFrom(url: string, from: number, to: number): Promise<number> {
  let count = 0;
  for (let h = from; h <= to; h += 99) {
    const headers = JSON.parse((await request(`${url}/blocks/headers/seq/${h}/${Math.min(to, h + 98)}`, 'GET')).text) as Array<{ transactionCount: number }>;
    count += headers.reduce((s, x) => s + x.transactionCount, 0);
  }
  return count;
}

/**
 * BENCH_ONLY=<part>[,<part>…] runs only those parts of the chain group: pool, ingest (the
 * two HTTP ingest figures, for before/after runs of the request path), confirmed, build,
 * import; unset, every part runs.
 */
function chainPartWanted(part: 'pool' | 'ingest' | 'confirmed' | 'build' | 'import'): boolean {
  return benchPartWanted(part);
}

export async function chainFigures(p: Protocol): Promise<Figure[]> {
  const settings = `PoA round ${BENCH_POA.roundDurationMs} ms + sync ${BENCH_POA.syncDurationMs} ms, micro-block every ${BENCH_POA.microBlockIntervalMs} ms, ≤ ${BENCH_POA.maxTransactionsInMicroBlock} txs per micro-block, block ≤ ${BENCH_POA.maxBlockSizeInBytes / 1048576} MiB`;
  const out: Figure[] = [];
  if (chainPartWanted('pool')) {
    progress('pool ingest (in process)');
    const pool = await poolIngest(p, 20_000);
    out.push(figure('chain.ingest.pool', pool.value, pool.baseline, 'tx/s', 0.75));
  }
  if (chainPartWanted('ingest')) {
    progress('ingest over HTTP');
    const viaHttp = await httpIngest(p, 20_000);
    out.push(figure('chain.ingest.http', viaHttp.value, viaHttp.baseline, 'tx/s', 0.6));
    out.push({
      ...figure('chain.ingest.http.fastify', viaHttp.value, viaHttp.bareFastify, 'tx/s', 0.7),
      baselineLabel: `bare Fastify POST of the same bodies, same client, req/s; the most this ratio can be on these ${availableParallelism()} cores, with each transfer verified (1-core rate) and costing no more than a bare request, server and client: ${viaHttp.ceiling.toFixed(3)}`,
    });
  }
  if (chainPartWanted('confirmed')) out.push(...(await confirmedFigures(p, settings)));
  if (chainPartWanted('build')) {
    progress('own micro-blocks in process');
    const build = await microBlockBuild(p, 30_000, 1000);
    out.push({
      ...figure('chain.build', build.value, build.baseline, 'tx/s'),
      baselineLabel: 'native Ed25519 verify/s (1 core); micro-blocks of 1,000 transfers built and committed, by CPU time',
    });
  }
  if (chainPartWanted('import')) {
    progress('chain import');
    const imp = await chainImport(p, 10, 2000);
    out.push(figure('chain.import', imp.value, imp.baseline, 'tx/s'));
  }
  return out;
}

async function confirmedFigures(p: Protocol, settings: string): Promise<Figure[]> {
  const out: Figure[] = [];
  progress('broadcast to block');
  const conf = await confirmed(p, 30_000, nativeVerifyRate, WARMUP_TRANSFERS);
  out.push({
    ...figure('chain.confirmed', conf.value, conf.baseline, 'tx/s'),
    baselineLabel: `native Ed25519 verify/s (1 core); ${settings}; target ≥ 3000 tx/s`,
  });
  out.push({
    name: 'chain.confirmed.longest-stall',
    value: conf.longestStallMs,
    baseline: conf.quietStallMs,
    ratio: conf.longestStallMs / Math.max(conf.quietStallMs, 1),
    unit: 'ms',
    baselineLabel: `the same node's longest stall over ${QUIET_STALL_WINDOW_MS / 1000} s of mining with nothing broadcast; the node's longest event-loop stall while it takes and mines the transfers, goal < 50 ms (ratio: lower is better)`,
  });
  return out;
}
