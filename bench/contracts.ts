/**
 * Contract figures, each against a bare baseline measured in the same run:
 *
 * - executor calls/s of the key-value SDK contract (contract-core 1.0.14) in the process
 *   runtime — a CallContract pushed, the contract reading its state and committing, 16 in
 *   flight — vs bare gRPC unary round trips/s (grpc-js client and server, same concurrency);
 * - cold start of a contract process (ms until its first Connect) vs starting a bare
 *   `node` process (ms until it exits) — lower is better;
 * - WASM calls/s of a storage-writing contract (the counter fixture's `increment`) through
 *   the engine (the run on its execution thread, its state read from this one) vs
 *   instantiating the same module and calling it with do-nothing host functions on Node's
 *   WebAssembly in this thread;
 * - confirmed contract calls/s of a running node (the dev chain in this process, the SDK
 *   contract in the process runtime, two processes of it): CallContracts (puts of distinct
 *   keys) broadcast until each one's 105 is in a micro-block, vs the same node's confirmed
 *   transfers/s in the same run (WE's target is 100 calls/s; the goal is ≥ 0.25 of
 *   transfers);
 * - the node's CPU per confirmed call (contracts.node.cpu-per-call: this process, all its
 *   threads, over the confirmed-calls run) vs its CPU per confirmed transfer over the
 *   transfers run — lower is better; the contract processes' CPU per call is in the label;
 * - confirmed WASM calls/s on that node (the counter's `increment`, one contract) vs the
 *   same confirmed transfers/s;
 * - call latency p50 / p99 on that node: one CallContract at a time, from its broadcast to
 *   its 105 in a micro-block, vs a transfer's broadcast to its micro-block — lower is better.
 *
 * The node part prints how the process's threads spent each run (main, V8's helpers, the
 * verifier threads): a call's CPU includes what the node spends per second whatever it does
 * (V8's concurrent GC, the miner's looks), shared by fewer calls than transfers.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import wabtInit from 'wabt';
import { packageTreeDigest } from '../src/contracts/package-digest.js';
import type { Transaction } from '../src/protocol/transactions/schema.js';
import { callTx, callV7, createTx, createV7, firstSuccess, fund, startTestEngine, timestampsFrom, type TestEngine } from '../devkit/contracts/engine.js';
import { buildKvSdkPackage, REPO_ROOT } from '../devkit/contracts/sdk-package.js';
import { benchPartWanted, descendantsCpuMs, mainThreadCpuMs, median, progress, threadTimes, threadTimesLine, type Figure } from './harness.js';
import pino from 'pino';
import { Node } from '../src/node/node.js';
import { devAccounts, devNodeConfig } from '../src/cli/dev.js';
import { CallContract, CreateContract, type CallContractTransaction } from '../src/protocol/transactions/contracts.js';
import { signedTransfers } from './chain.js';

const IN_FLIGHT = 16;

/**
 * The configured env of the bench's contract packages: with BENCH_CONTRACT_PROFILE=<dir> each
 * contract process preloads contract-profiler.js and writes a CPU profile of its main and
 * worker threads into <dir> when the runtime stops it.
 */
function contractEnv(): Record<string, string> {
  const dir = process.env['BENCH_CONTRACT_PROFILE'];
  if (dir === undefined || dir === '') return {};
  mkdirSync(dir, { recursive: true });
  return { NODE_OPTIONS: `--import ${JSON.stringify(fileURLToPath(new URL('./contract-profiler.js', import.meta.url)))}`, CONTRACT_PROFILE_DIR: resolve(dir) };
}

/**
 * BENCH_ONLY=<part>[,<part>…] runs only those parts of the contracts group: sdk (executor
 * calls/s and cold start), wasm, node (confirmed calls/s and latency on a running node); unset,
 * every part runs.
 */
function contractsPartWanted(part: 'sdk' | 'wasm' | 'node'): boolean {
  return benchPartWanted(part);
}

/** CPU ms this process (the node: all its threads, and its main thread alone) and its descendants (the contract processes) have used so far. */
function cpuNow(): { node: number; nodeMain: number; contracts: number } {
  const u = process.cpuUsage();
  return { node: (u.user + u.system) / 1000, nodeMain: mainThreadCpuMs(process.pid), contracts: descendantsCpuMs() };
}

/** What each of `n` operations cost in CPU between two readings. */
function cpuText(from: ReturnType<typeof cpuNow>, to: ReturnType<typeof cpuNow>, n: number, contracts: boolean): string {
  const ms = (a: number, b: number): string => `${((b - a) / n).toFixed(2)} ms`;
  const node = `node ${ms(from.node, to.node)} (main thread ${ms(from.nodeMain, to.nodeMain)}; this process, the bench's broadcasts included)`;
  return contracts ? `${node}, contract processes ${ms(from.contracts, to.contracts)}` : node;
}
const ROUNDS = 3;

/**
 * With BENCH_NODE_PROFILE=<dir>, a CPU profile of this process's main thread (the node's)
 * over one phase of the node part, written to `<dir>/<phase>.cpuprofile` (open it in Chrome
 * DevTools): `node --cpu-prof` would profile the whole run, the package build and the
 * clean-up included. Unset, `phase` just runs.
 */
async function profiledPhase<T>(phase: string, run: () => Promise<T>): Promise<T> {
  const dir = process.env['BENCH_NODE_PROFILE'];
  if (dir === undefined || dir === '') return run();
  mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object): Promise<unknown> =>
    new Promise((resolve, reject) => session.post(method, params, (err, result) => (err === null ? resolve(result) : reject(err))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = (await post('Profiler.stop')) as { profile: object };
    writeFileSync(join(dir, `${phase}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

/** Operations/s of `op` over `total` calls with `inFlight` at once. */
async function rate(total: number, inFlight: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await op(next++);
    }),
  );
  return (total * 1e9) / Number(process.hrtime.bigint() - start);
}

/** A bare grpc-js server with one unary method that answers what it gets. */
async function bareGrpc(): Promise<{ call: () => Promise<void>; close: () => Promise<void> }> {
  const definition = {
    echo: {
      path: '/bench.Echo/Echo',
      requestStream: false,
      responseStream: false,
      requestSerialize: (b: Buffer) => b,
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (b: Buffer) => b,
      responseDeserialize: (b: Buffer) => b,
    },
  };
  const server = new grpc.Server();
  server.addService(definition, { echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => cb(null, call.request) });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e === null ? resolve(p) : reject(e))),
  );
  const Client = grpc.makeGenericClientConstructor(definition, 'Echo');
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as {
    echo(b: Buffer, cb: (e: Error | null) => void): void;
    close(): void;
  };
  const payload = Buffer.alloc(64, 1);
  return {
    call: () => new Promise<void>((resolve, reject) => client.echo(payload, (e) => (e === null ? resolve() : reject(e)))),
    close: async () => {
      client.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    },
  };
}

async function sdkFigures(dir: string): Promise<Figure[]> {
  const image = 'bench/kv-sdk:1';
  const digest = await packageTreeDigest(dir);
  const te: TestEngine = await startTestEngine({
    packages: [{ image, runtime: 'process', source: dir, command: undefined, env: contractEnv() }],
    dockerEngine: { executionLimits: { startupTimeoutMs: 60_000, timeoutMs: 30_000, memoryMb: 512, memorySwapMb: 0 } },
  });
  const bare = await bareGrpc();
  try {
    fund(te.state);
    const create = createTx(image, digest, { start: 0 });
    te.mine(create, await firstSuccess(te, () => create, 3));
    const calls: CallContractTransaction[] = Array.from({ length: 4000 }, (_, i) => callTx(create.id, { action: 'increment', by: i }));
    let used = 0;
    const executorCall = async (): Promise<void> => {
      const r = await te.execute(calls[used++ % calls.length]!);
      if (r.kind !== 'success') throw new Error(`bench call failed: ${JSON.stringify(r)}`);
    };
    // Warm up both.
    await rate(100, IN_FLIGHT, executorCall);
    await rate(500, IN_FLIGHT, () => bare.call());
    const s: number[] = [];
    const b: number[] = [];
    let cpuCalls = 0;
    let cpuSpent = { node: 0, nodeMain: 0, contracts: 0 };
    for (let i = 0; i < ROUNDS; i++) {
      const before = cpuNow();
      s.push(await rate(600, IN_FLIGHT, executorCall));
      const after = cpuNow();
      cpuCalls += 600;
      cpuSpent = {
        node: cpuSpent.node + after.node - before.node,
        nodeMain: cpuSpent.nodeMain + after.nodeMain - before.nodeMain,
        contracts: cpuSpent.contracts + after.contracts - before.contracts,
      };
      b.push(await rate(3000, IN_FLIGHT, () => bare.call()));
    }
    progress(
      `sdk executor calls: ${Math.round(median(s))} calls/s; CPU per call: ${cpuText({ node: 0, nodeMain: 0, contracts: 0 }, cpuSpent, cpuCalls, true)}`,
    );
    const executor: Figure = {
      name: 'contracts.sdk.process.calls',
      value: median(s),
      baseline: median(b),
      ratio: median(s.map((x, i) => x / b[i]!)),
      unit: 'calls/s',
      baselineLabel: `bare grpc-js unary round trips/s (${IN_FLIGHT} in flight)`,
    };

    // Cold start: a fresh process per start (the runtime drops it in between).
    const key = { image, imageHash: digest };
    const runtime = te.engine.runtimes.process;
    const starts: number[] = [];
    const bareStarts: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      await runtime.invalidate(key);
      const t = process.hrtime.bigint();
      await runtime.ensureStarted(key);
      starts.push(Number(process.hrtime.bigint() - t) / 1e6);
      const u = process.hrtime.bigint();
      await new Promise<void>((resolve, reject) =>
        spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
          .on('exit', () => resolve())
          .on('error', reject),
      );
      bareStarts.push(Number(process.hrtime.bigint() - u) / 1e6);
    }
    const cold: Figure = {
      name: 'contracts.sdk.process.cold-start',
      value: median(starts),
      baseline: median(bareStarts),
      ratio: median(starts) / median(bareStarts),
      unit: 'ms',
      baselineLabel: 'bare `node -e 0` start to exit (lower is better)',
    };
    return [executor, cold];
  } finally {
    await bare.close();
    await te.close();
  }
}

/** The counter fixture (test/fixtures/contracts/wasm/counter.wat) compiled. */
function counterWasm(wabt: Awaited<ReturnType<typeof wabtInit>>): Uint8Array {
  const m = wabt.parseWat('counter.wat', readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'wasm', 'counter.wat'), 'utf8'), { multi_value: true });
  const bytecode = Uint8Array.from(m.toBinary({}).buffer);
  m.destroy();
  return bytecode;
}

async function wasmFigure(): Promise<Figure> {
  const bytecode = counterWasm(await wabtInit());
  const te = await startTestEngine({ wasmFuelLimit: 20_000 });
  try {
    fund(te.state);
    const create = createV7({ engine: 'wasm', bytecode, bytecodeHash: createHash('sha256').update(bytecode).digest('hex') }, [
      { key: 'start', type: 'integer', value: 0n },
    ]);
    te.mine(create, await te.execute(create));
    const call = callV7(create.id, 'wasm', 'increment', [{ key: 'by', type: 'integer', value: 1n }]);
    const engineCall = async (): Promise<void> => {
      const r = await te.execute(call);
      if (r.kind !== 'success') throw new Error(`bench call failed: ${JSON.stringify(r)}`);
    };
    const module = new WebAssembly.Module(bytecode);
    let counter = 0n;
    const bareCall = (): Promise<void> => {
      const memory = new WebAssembly.Memory({ initial: 2, maximum: 16 });
      const instance = new WebAssembly.Instance(module, {
        env: { memory },
        env0: {
          get_storage_int: () => [0, counter],
          set_storage_int: (_o: number, _l: number, v: bigint) => ((counter = v), 0),
          set_storage_string: () => 0,
          get_block_height: () => [0, 1n],
        },
      });
      (instance.exports['increment'] as (by: bigint) => number)(1n);
      return Promise.resolve();
    };
    await rate(500, 1, engineCall);
    await rate(500, 1, bareCall);
    const s: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      s.push(await rate(3000, 1, engineCall));
      b.push(await rate(3000, 1, bareCall));
    }
    return {
      name: 'contracts.wasm.storage-calls',
      value: median(s),
      baseline: median(b),
      ratio: median(s.map((x, i) => x / b[i]!)),
      unit: 'calls/s',
      baselineLabel: 'bare WebAssembly instantiate + call of the same module, no-op host functions',
    };
  } finally {
    await te.close();
  }
}

/**
 * Enough of each that both phases span more than one PoA round of the dev chain (4 s, the
 * last 1 s of which no micro-block is made): with 600 calls and 3000 transfers (~2 s each)
 * whether a phase caught that pause (a quarter of the time) was luck.
 */
const NODE_CALLS = 1500;
const NODE_TRANSFERS = 8000;
/** Processes of the key-value contract (node.contracts.packages[].instances). */
const NODE_INSTANCES = 2;
/** WASM calls (the counter's `increment`, one contract) for contracts.node.wasm-confirmed-calls. */
const NODE_WASM_CALLS = 2000;
/** Calls (and transfers) sent one at a time for the latency figures. */
const LATENCY_SAMPLES = 50;

/** The q-quantile (0…1) of `xs`, nearest rank. */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/**
 * Of one running dev-chain node: confirmed calls/s vs confirmed transfers/s, and the latency
 * of one call from its broadcast to its 105 in a micro-block (p50, p99) vs a transfer's to
 * its micro-block, each sent alone (the next once the last is in).
 */
export async function nodeFigures(dir: string, dataDir: string): Promise<Figure[]> {
  const image = 'bench/kv-sdk:node';
  const imageHash = await packageTreeDigest(dir);
  const base = await devNodeConfig({
    dataDir,
    restPort: 0,
    p2pPort: 0,
    keystore: { scrypt: { N: 1024, r: 8, p: 1 } },
    contractPackages: [{ image, runtime: 'process', source: dir, command: undefined, env: contractEnv(), instances: NODE_INSTANCES }],
  });
  const config = { ...base, miner: { ...base.miner, microBlockIntervalMs: 200, minMicroBlockAgeMs: 200, maxTransactionsInMicroBlock: 6000 } };
  const node = await Node.start(config, { logger: pino({ level: 'silent' }) });
  try {
    const p = node.protocol;
    const owner = devAccounts(p)[0]!.keyPair;
    const pool = node.services().pool;
    const state = (): ReturnType<typeof node.chain.state> => node.chain.state();
    /**
     * Broadcasts all, then waits until `done` holds for each; transactions/s from the first
     * broadcast. Each look checks from the first one not yet done onwards, up to the next
     * one not done (a transaction once done stays done): looking up every pending one every
     * 20 ms was ~5% of the node thread's profile samples in the calls phase.
     */
    const confirmedRate = async (txs: readonly Transaction[], done: (tx: Transaction) => boolean): Promise<number> => {
      // Both runs start as a PoA round starts (a new key block): a run of a few seconds that
      // straddled the 1 s sync window (no micro-blocks) lost up to a third of its rate, so the
      // ratio swung with where each run happened to fall in the round (0.109 … 0.343 seen).
      const height = node.chain.height();
      const roundDeadline = Date.now() + 30_000;
      while (node.chain.height() === height) {
        if (Date.now() > roundDeadline) throw new Error('bench: no new key block in 30 s');
        await new Promise((r) => setTimeout(r, 2));
      }
      const t0 = process.hrtime.bigint();
      for (const tx of txs) await pool.broadcast(tx);
      const deadline = Date.now() + 300_000;
      let first = 0;
      while (first < txs.length) {
        if (Date.now() > deadline) throw new Error(`bench: ${txs.length - first} of ${txs.length} not confirmed in 300 s`);
        await new Promise((r) => setTimeout(r, 20));
        while (first < txs.length && done(txs[first]!)) first++;
      }
      return (txs.length * 1e9) / Number(process.hrtime.bigint() - t0);
    };
    const sign = (codec: Parameters<typeof p.transaction>[0], version: number, data: object, timestamp: bigint): Transaction =>
      p.sign(
        p.transaction(codec, version, { senderPublicKey: owner.publicKey, timestamp, feeAssetId: null, atomicBadge: null, payments: [], ...data }),
        owner.privateKey,
      );
    const create = sign(
      CreateContract,
      5,
      {
        image,
        imageHash,
        contractName: 'kv',
        params: [{ key: 'start', type: 'integer', value: 0n }],
        fee: 100_000_000n,
        validationPolicy: { type: 'any' },
        apiVersion: { major: 1, minor: 0 },
      },
      BigInt(Date.now()),
    );
    await confirmedRate([create], (tx) => state().executedTxFor(tx.id) !== undefined);
    const start = BigInt(Date.now());
    const calls = Array.from({ length: NODE_CALLS }, (_, i) =>
      sign(
        CallContract,
        5,
        {
          contractId: create.id,
          params: [
            { key: 'action', type: 'string', value: 'put' },
            { key: 'key', type: 'string', value: `k${i}` },
            { key: 'value', type: 'string', value: `v${i}` },
          ],
          fee: 10_000_000n,
          contractVersion: 1,
        },
        start + BigInt(i),
      ),
    );
    const threads0 = threadTimes(process.pid);
    const wall0 = performance.now();
    const cpu0 = cpuNow();
    const callRate = await profiledPhase('calls', () => confirmedRate(calls, (tx) => state().executedTxFor(tx.id) !== undefined));
    const cpu1 = cpuNow();
    progress(`node confirmed calls: ${Math.round(callRate)} calls/s; CPU per call: ${cpuText(cpu0, cpu1, NODE_CALLS, true)}`);
    progress(`node threads over the calls: ${threadTimesLine(process.pid, threads0, threadTimes(process.pid), performance.now() - wall0, 4)}`);
    const transfers = signedTransfers(p, NODE_TRANSFERS, BigInt(Date.now()));
    const threads2 = threadTimes(process.pid);
    const wall2 = performance.now();
    const cpu2 = cpuNow();
    const transferRate = await profiledPhase('transfers', () => confirmedRate(transfers, (tx) => state().transactionHeight(tx.id) !== undefined));
    const cpu3 = cpuNow();
    progress(`node confirmed transfers: ${Math.round(transferRate)} tx/s; CPU per transfer: ${cpuText(cpu2, cpu3, NODE_TRANSFERS, false)}`);
    progress(`node threads over the transfers: ${threadTimesLine(process.pid, threads2, threadTimes(process.pid), performance.now() - wall2, 4)}`);
    // WASM calls on the same node: the counter fixture's `increment` (each reads what the one before it wrote, so
    // they run one at a time, as every WASM contract's calls do), against the same transfers/s.
    timestampsFrom(BigInt(Date.now()));
    const wasmCode = counterWasm(await wabtInit());
    const wasmCreate = createV7(
      { engine: 'wasm', bytecode: wasmCode, bytecodeHash: createHash('sha256').update(wasmCode).digest('hex') },
      [{ key: 'start', type: 'integer', value: 0n }],
      owner,
    );
    await confirmedRate([wasmCreate], (tx) => state().executedTxFor(tx.id) !== undefined);
    const wasmCalls = Array.from({ length: NODE_WASM_CALLS }, () =>
      callV7(wasmCreate.id, 'wasm', 'increment', [{ key: 'by', type: 'integer', value: 1n }], [], owner),
    );
    const cpu4 = cpuNow();
    const wasmRate = await profiledPhase('wasm', () => confirmedRate(wasmCalls, (tx) => state().executedTxFor(tx.id) !== undefined));
    const cpu5 = cpuNow();
    progress(`node confirmed WASM calls: ${Math.round(wasmRate)} calls/s; CPU per call: ${cpuText(cpu4, cpu5, NODE_WASM_CALLS, false)}`);
    /** ms from the broadcast of each transaction, sent one at a time, until `done` holds for it. */
    const latencies = async (txs: readonly Transaction[], done: (tx: Transaction) => boolean): Promise<number[]> => {
      const out: number[] = [];
      for (const tx of txs) {
        const t0 = process.hrtime.bigint();
        await pool.broadcast(tx);
        const deadline = Date.now() + 60_000;
        while (!done(tx)) {
          if (Date.now() > deadline) throw new Error(`bench: ${tx.idBase58} not confirmed in 60 s`);
          await new Promise((r) => setTimeout(r, 2));
        }
        out.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      return out;
    };
    const latencyStart = BigInt(Date.now());
    const single = Array.from({ length: LATENCY_SAMPLES }, (_, i) =>
      sign(
        CallContract,
        5,
        {
          contractId: create.id,
          params: [
            { key: 'action', type: 'string', value: 'put' },
            { key: 'key', type: 'string', value: `l${i}` },
            { key: 'value', type: 'string', value: 'v' },
          ],
          fee: 10_000_000n,
          contractVersion: 1,
        },
        latencyStart + BigInt(i),
      ),
    );
    const callLatency = await latencies(single, (tx) => state().executedTxFor(tx.id) !== undefined);
    const transferLatency = await latencies(signedTransfers(p, LATENCY_SAMPLES, BigInt(Date.now())), (tx) => state().transactionHeight(tx.id) !== undefined);
    const latencyFigure = (q: number, label: string): Figure => ({
      name: `contracts.node.call-latency.${label}`,
      value: quantile(callLatency, q),
      baseline: quantile(transferLatency, q),
      ratio: quantile(callLatency, q) / quantile(transferLatency, q),
      unit: 'ms',
      baselineLabel: `${label} of a transfer's broadcast to its micro-block, same node (${LATENCY_SAMPLES} each, sent one at a time; lower is better)`,
    });
    const perCall = (cpu1.node - cpu0.node) / NODE_CALLS;
    const perTransfer = (cpu3.node - cpu2.node) / NODE_TRANSFERS;
    return [
      {
        name: 'contracts.node.cpu-per-call',
        value: perCall,
        baseline: perTransfer,
        ratio: perCall / perTransfer,
        unit: 'ms CPU',
        baselineLabel: `the node's CPU per confirmed transfer, same run (all its threads; main thread ${((cpu1.nodeMain - cpu0.nodeMain) / NODE_CALLS).toFixed(2)} ms per call vs ${((cpu3.nodeMain - cpu2.nodeMain) / NODE_TRANSFERS).toFixed(2)} ms per transfer; the contract processes another ${((cpu1.contracts - cpu0.contracts) / NODE_CALLS).toFixed(2)} ms per call); goal ≤ 2, lower is better`,
      },
      {
        name: 'contracts.node.wasm-confirmed-calls',
        value: wasmRate,
        baseline: transferRate,
        ratio: wasmRate / transferRate,
        unit: 'calls/s',
        baselineLabel: `the same node's confirmed transfers/s (${NODE_WASM_CALLS} WASM storage calls of one contract, node CPU ${((cpu5.node - cpu4.node) / NODE_WASM_CALLS).toFixed(2)} ms per call); goal ≥ 0.5`,
      },
      {
        name: 'contracts.node.confirmed-calls',
        value: callRate,
        baseline: transferRate,
        ratio: callRate / transferRate,
        unit: 'calls/s',
        baselineLabel: `the same node's confirmed transfers/s (${NODE_CALLS} key-value puts over ${NODE_INSTANCES} contract processes, ${NODE_TRANSFERS} transfers, micro-block every 200 ms); WE's target 100 calls/s, aim ≥ 0.25 of transfers`,
      },
      latencyFigure(0.5, 'p50'),
      latencyFigure(0.99, 'p99'),
    ];
  } finally {
    await node.stop();
  }
}

export async function contractFigures(): Promise<Figure[]> {
  const parent = mkdtempSync(join(tmpdir(), 'weft-bench-contracts-'));
  try {
    const dir = await buildKvSdkPackage(parent);
    return [
      ...(contractsPartWanted('sdk') ? await sdkFigures(dir) : []),
      ...(contractsPartWanted('wasm') ? [await wasmFigure()] : []),
      ...(contractsPartWanted('node') ? await nodeFigures(dir, join(parent, 'node')) : []),
    ];
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}
