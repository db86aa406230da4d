/**
 * The node's WASM engine: WASM contracts run off the event loop, on a small pool of
 * execution threads (worker.ts, vm.ts), each bounded in time and memory.
 *
 * A 103 or 104 V7 becomes a job for the next free thread (the others wait in order). While
 * it runs, the thread reads the node's state synchronously through its channel
 * (state-channel.ts), answered here from the execution's view — the view the executor gave,
 * so every read is logged for the MVCC check as any contract's. Fuel (`node.wasm.fuel-limit`)
 * bounds a run deterministically (vm.ts); two limits of this node back it up:
 *
 * - `node.wasm.execution-timeout`: the thread's own time on one job (its waits for the
 *   main thread's answers left out). A thread past it is terminated and replaced.
 * - `node.wasm.memory-limit`: the thread's JavaScript heap (resourceLimits); the
 *   WebAssembly memories are bounded apart (16 pages per frame, 64 frames). A thread that
 *   reaches it is ended by V8 and replaced.
 *
 * A job ended by either limit is an execution error with code 2 (WE's code for a
 * contract's fatal error — "don't retry" — and for any exception around a run): the
 * miner mines its 105 V5 with statusCode 2 and the transaction leaves the pool, as for any
 * other WASM error. Every node takes the mined 105 as it is — importers do not run
 * contracts — so a limit that depends on the node's machine never splits the chain: a
 * validator whose own run hit one signs the results hash of an error (empty results, the
 * same for any code), which counts only where the miner's run failed too.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { NODE_FAILURE_CODE } from '../../errors/catalogue.js';
import type { Protocol } from '../../protocol/protocol.js';
import { CreateContract, UpdateContract, type ExecutableContractTransaction } from '../../protocol/transactions/contracts.js';
import { validateWasmBytecode } from '../../protocol/wasm/module.js';
import type { ContractInfo } from '../../state/contract-info.js';
import type { ExecutionResult } from '../result.js';
import type { ExecutionContext } from '../state.js';
import { reviveOutcome, serializeParams, wasmFailure, type WasmJob, type WasmOutcome } from './job.js';
import type { WasmStateReads } from './service.js';
import { serveStateReads, SIGNAL_WORDS, viewStateReads, waitedMs, waitingNow } from './state-channel.js';
import type { WasmWorkerData } from './worker.js';

export interface WasmEngineOptions {
  readonly protocol: Protocol;
  /** `node.wasm.fuel-limit`: the fuel of one execution's whole call tree. */
  readonly fuelLimit: number;
  /** `node.wasm.execution-timeout`: a thread's own time on one execution, ms. */
  readonly timeoutMs: number;
  /** `node.wasm.memory-limit`: a thread's heap, bytes. */
  readonly memoryLimitBytes: number;
  /** `node.wasm.threads`: execution threads. */
  readonly threads: number;
  /** Compiled modules each thread keeps. */
  readonly cacheSize?: number;
  readonly log?: { warn(obj: object, msg: string): void };
}

/** A thread that does not start within this is a fault of the machine or the settings. */
const START_TIMEOUT_MS = 30_000;
/** The time limit is looked at again after this while the job waits for a read. */
const RECHECK_MS = 10;
/** A replacement thread that failed to start is tried again after this. */
const RESTART_DELAY_MS = 1000;

interface Waiting {
  readonly job: WasmJob;
  readonly reads: WasmStateReads;
  readonly done: (outcome: WasmOutcome) => void;
}

interface Running extends Waiting {
  readonly startedAt: number;
  timer: NodeJS.Timeout | undefined;
}

interface Thread {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly signal: Int32Array;
  ready: boolean;
  /** Ended (terminated, failed or exited): its events are ignored. */
  gone: boolean;
  running: Running | undefined;
}

export class WasmEngine {
  private readonly threads = new Set<Thread>();
  private readonly waiting: Waiting[] = [];
  private closed = false;

  private constructor(private readonly o: WasmEngineOptions) {}

  /** Starts the pool; resolves once every thread is ready (rejects when one cannot start: the limits are too tight). */
  static async start(o: WasmEngineOptions): Promise<WasmEngine> {
    if (!Number.isSafeInteger(o.threads) || o.threads < 1) throw new Error(`WASM execution threads: ${o.threads} is not a positive count`);
    const engine = new WasmEngine(o);
    try {
      await Promise.all(Array.from({ length: o.threads }, () => engine.spawn()));
    } catch (e) {
      await engine.close();
      throw e;
    }
    return engine;
  }

  /** wevm's validate_bytecode: 0, 100 or 101. */
  validate(bytecode: Uint8Array): number {
    return validateWasmBytecode(bytecode);
  }

  /** WE's WASMContractExecutor.executeTransaction for a 103 (`_constructor`), 104 V7 (`callFunc`) or 107 V6 (validation only). */
  async execute(tx: ExecutableContractTransaction, contract: ContractInfo, ctx: ExecutionContext): Promise<ExecutionResult> {
    const stored = contract.storedContract;
    if (stored.engine !== 'wasm') return { kind: 'error', code: NODE_FAILURE_CODE, message: 'not a WASM contract' };
    if (UpdateContract.is(tx)) {
      const code = this.validate(stored.bytecode);
      return code === 0 ? { kind: 'success', results: [], assetOperations: [] } : wasmFailure(code, `validation code is ${code}`);
    }
    const d = tx.data;
    const func = CreateContract.is(tx) ? '_constructor' : tx.data.callFunc;
    if (func === undefined || func === null) return wasmFailure(NODE_FAILURE_CODE, 'callFunc is not set for a WASM call');
    const job: WasmJob = {
      contractId: contract.contractId,
      bytecode: stored.bytecode,
      func,
      params: serializeParams(ctx.params ?? d.params, tx.protocol),
      tx: {
        id: tx.id,
        idBase58: tx.idBase58,
        senderPublicKey: tx.senderPublicKey!,
        sender: tx.sender!.bytes,
        payments: d.payments ?? [],
      },
      blockTimestamp: ctx.blockInfo.timestamp,
      fuelLimit: this.o.fuelLimit,
    };
    const outcome = await new Promise<WasmOutcome>((done) => {
      if (this.closed) done(wasmFailure(NODE_FAILURE_CODE, 'the WASM engine is closed'));
      else {
        this.waiting.push({ job, reads: viewStateReads(ctx.view), done });
        this.dispatch();
      }
    });
    return reviveOutcome(outcome);
  }

  /** Ends every thread; executions waiting end with an error. */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w.done(wasmFailure(NODE_FAILURE_CODE, 'the WASM engine is closed'));
    const ending = [...this.threads].map((t) => {
      this.end(t, wasmFailure(NODE_FAILURE_CODE, 'the WASM engine is closed'));
      return t.worker.terminate();
    });
    await Promise.all(ending);
  }

  /** Hands waiting jobs to ready, idle threads. */
  private dispatch(): void {
    for (const t of this.threads) {
      if (this.waiting.length === 0) return;
      if (!t.ready || t.gone || t.running !== undefined) continue;
      const w = this.waiting.shift()!;
      const running: Running = { ...w, startedAt: performance.now(), timer: undefined };
      t.running = running;
      t.worker.ref();
      t.worker.postMessage(w.job);
      this.watch(t, running, this.o.timeoutMs);
    }
  }

  /** Ends the job with a time-limit error once the thread's own time on it (its waits for reads left out) reaches the limit. */
  private watch(t: Thread, running: Running, afterMs: number): void {
    running.timer = setTimeout(
      () => {
        if (t.running !== running) return;
        // It waits for a read this thread has not answered yet (it was busy): looked at again once that wait is counted.
        if (waitingNow(t.signal)) {
          this.watch(t, running, RECHECK_MS);
          return;
        }
        const own = performance.now() - running.startedAt - waitedMs(t.signal);
        if (own < this.o.timeoutMs) {
          this.watch(t, running, this.o.timeoutMs - own);
          return;
        }
        this.o.log?.warn({ tx: running.job.tx.idBase58, ms: this.o.timeoutMs }, 'WASM execution reached its time limit: its thread is replaced');
        this.replace(t, wasmFailure(NODE_FAILURE_CODE, `WASM execution exceeded the time limit of ${this.o.timeoutMs} ms`));
      },
      Math.max(1, Math.ceil(afterMs)),
    );
  }

  /** Starts a thread; resolves when it is ready (rejects when it fails before). */
  private spawn(): Promise<void> {
    const { port1, port2 } = new MessageChannel();
    const signal = new Int32Array(new SharedArrayBuffer(SIGNAL_WORDS * Int32Array.BYTES_PER_ELEMENT));
    const data: WasmWorkerData = {
      crypto: this.o.protocol.crypto.type,
      chainId: this.o.protocol.chainId,
      port: port2,
      signal,
      modules: this.o.cacheSize ?? 64,
    };
    const worker = new Worker(new URL('./worker.js', import.meta.url), {
      workerData: data,
      transferList: [port2],
      resourceLimits: { maxOldGenerationSizeMb: Math.max(1, Math.floor(this.o.memoryLimitBytes / 2 ** 20)) },
    });
    const t: Thread = { worker, port: port1, signal, ready: false, gone: false, running: undefined };
    this.threads.add(t);
    serveStateReads(port1, signal, () => t.running?.reads);
    port1.unref();
    return new Promise<void>((resolve, reject) => {
      /** The thread failed before it was ready: it leaves the pool. */
      const fail = (e: Error): void => {
        clearTimeout(startTimer);
        this.end(t, undefined);
        void worker.terminate();
        reject(e);
      };
      const startTimer = setTimeout(() => fail(new Error(`a WASM execution thread did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      startTimer.unref();
      worker.on('message', (m: unknown) => {
        if (t.gone) return;
        if (m === 'ready') {
          clearTimeout(startTimer);
          // Idle, it keeps nothing alive (a job refs it while it runs).
          worker.unref();
          t.ready = true;
          resolve();
          this.dispatch();
          return;
        }
        this.finished(t, m as WasmOutcome);
      });
      worker.on('error', (e: Error & { code?: string }) => {
        if (t.gone) return;
        const outOfMemory = e.code === 'ERR_WORKER_OUT_OF_MEMORY';
        if (!t.ready) {
          fail(
            new Error(
              outOfMemory
                ? `a WASM execution thread cannot start within node.wasm.memory-limit (${this.o.memoryLimitBytes} bytes)`
                : `a WASM execution thread failed to start: ${e.message}`,
            ),
          );
          return;
        }
        if (outOfMemory)
          this.o.log?.warn(
            { tx: t.running?.job.tx.idBase58, bytes: this.o.memoryLimitBytes },
            'WASM execution reached its memory limit: its thread is replaced',
          );
        else this.o.log?.warn({ tx: t.running?.job.tx.idBase58, err: e.message }, 'WASM execution thread failed: it is replaced');
        this.replace(
          t,
          wasmFailure(
            NODE_FAILURE_CODE,
            outOfMemory ? `WASM execution exceeded the memory limit of ${this.o.memoryLimitBytes} bytes` : `WASM execution thread failed: ${e.message}`,
          ),
        );
      });
      worker.on('exit', (code) => {
        if (t.gone) return;
        if (!t.ready) {
          fail(new Error(`a WASM execution thread exited with code ${code} before it started`));
          return;
        }
        this.replace(t, wasmFailure(NODE_FAILURE_CODE, `WASM execution thread exited with code ${code}`));
      });
    });
  }

  private finished(t: Thread, outcome: WasmOutcome): void {
    const running = t.running;
    if (running === undefined) return;
    clearTimeout(running.timer);
    t.running = undefined;
    t.worker.unref();
    running.done(outcome);
    this.dispatch();
  }

  /** Takes a thread out of the pool; its job (if any) ends with `outcome`. */
  private end(t: Thread, outcome: WasmOutcome | undefined): void {
    t.gone = true;
    this.threads.delete(t);
    t.port.close();
    const running = t.running;
    t.running = undefined;
    if (running !== undefined) {
      clearTimeout(running.timer);
      if (outcome !== undefined) running.done(outcome);
    }
  }

  /** Ends a thread (its job with `outcome`) and starts another in its place. */
  private replace(t: Thread, outcome: WasmOutcome): void {
    this.end(t, outcome);
    void t.worker.terminate();
    if (this.closed) return;
    this.respawn();
  }

  private respawn(): void {
    this.spawn().catch((e: unknown) => {
      this.o.log?.warn({ err: e instanceof Error ? e.message : String(e) }, 'WASM execution thread failed to start: trying again');
      if (!this.closed) setTimeout(() => this.respawn(), RESTART_DELAY_MS).unref();
    });
  }
}
