/**
 * Compiling and estimating scripts sent by clients (`/utils/script/compile`, `/estimate`)
 * off the event loop, within limits, so no source can hold the node: a 2.8 MB source once
 * held the loop for ~30 s.
 *
 * - Each job runs on a worker thread (script-compiler-worker.ts), one job per thread at a
 *   time. A job that runs past `timeLimitMs`, or whose thread's heap passes
 *   `memoryLimitMb`, ends its thread and is refused as WE refuses a script it cannot
 *   estimate: `Script is too complex: …`. The next job starts a fresh thread.
 * - At most `threads` jobs run and `waiting` more wait; beyond that a request is refused
 *   with 503 (642, as heavy reads are), so a flood queues neither work nor memory.
 * - The thread does everything but the checksum (the network's crypto stays on the calling
 *   thread; hashing 8 KiB costs microseconds): the answers are those of compileScript and
 *   readScript byte for byte, as they run the same functions.
 *
 * Threads start on the first job and then stay (unreferenced while idle) until close().
 */
import { Worker } from 'node:worker_threads';
import type { ScriptVersion } from './context.js';
import { scriptContainer, withChecksum, type ScriptCrypto } from './script.js';
import { scriptCompilerBusy, scriptParseError } from '../errors/catalogue.js';

export interface ScriptCompilerLimits {
  /** Jobs running at a time, each on its own thread. */
  readonly threads: number;
  /** Jobs waiting for a thread; more are refused (503). */
  readonly waiting: number;
  /** Longest a job may run, in ms: then its thread is ended and the script refused as too complex. */
  readonly timeLimitMs: number;
  /** A thread's heap, in MiB: a job that needs more ends its thread and the script is refused as too complex. */
  readonly memoryLimitMb: number;
}

/**
 * One thread (compiles are rare; the loop's core serves everything else), 8 waiting, 5 s and
 * 64 MiB per job. The slowest 64 KiB source found (the largest the REST route takes, a sum of
 * 16,000 terms) compiles in about a second within 32 MiB; a 5 KiB script takes a few ms.
 */
export const DEFAULT_SCRIPT_COMPILER_LIMITS: ScriptCompilerLimits = { threads: 1, waiting: 8, timeLimitMs: 5000, memoryLimitMb: 64 };

/** Stack of a compiler thread: the parser's nesting guards (parser.ts) stay well inside it. */
const THREAD_STACK_MB = 4;

/** What the pool sends a thread. */
export type ScriptCompilerJob =
  | { readonly kind: 'compile'; readonly source: string; readonly assetScript: boolean }
  | { readonly kind: 'estimate'; readonly version: ScriptVersion; readonly expression: Uint8Array };

type Refused = { readonly ok: false; readonly error: string };
/** A thread's answer to a compile job: compileScriptBody's result. */
export type CompileAnswer = { readonly ok: true; readonly version: ScriptVersion; readonly body: Uint8Array; readonly complexity: number } | Refused;
/** A thread's answer to an estimate job: readScriptExpression's complexity and the expression's scriptText. */
export type EstimateAnswer = { readonly ok: true; readonly complexity: number; readonly scriptText: string } | Refused;
/** What a thread answers: a job's answer, or `failed` for an exception (a bug). */
export type ScriptCompilerAnswer = CompileAnswer | EstimateAnswer | { readonly failed: string };

/** A compiled script as the pool gives it: compileScript's, without the tree. */
export type PooledCompileResult =
  | { readonly ok: true; readonly script: { readonly version: ScriptVersion; readonly bytes: Uint8Array; readonly complexity: number } }
  | { readonly ok: false; readonly error: string };

/** How a job ended: its thread's answer, or the limit that ended the thread. */
type Outcome<A = ScriptCompilerAnswer> = { readonly answer: A } | { readonly overrun: 'time' | 'memory' };

interface Job {
  readonly message: ScriptCompilerJob;
  readonly resolve: (outcome: Outcome) => void;
  readonly reject: (e: Error) => void;
}

interface Thread {
  readonly worker: Worker;
  /** Ends the job running on the thread, if any (the thread has exited). */
  onExit?: (e: Error) => void;
}

const closedError = (): Error => new Error('The script compiler is closed');

export class ScriptCompilerPool {
  private readonly idle: Thread[] = [];
  private readonly live = new Set<Thread>();
  private readonly queue: Job[] = [];
  private running = 0;
  private closed = false;

  constructor(readonly limits: ScriptCompilerLimits = DEFAULT_SCRIPT_COMPILER_LIMITS) {
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isSafeInteger(value) || value < (name === 'waiting' ? 0 : 1)) throw new Error(`script compiler: ${name} ${value} is not a positive count`);
    }
  }

  /** compileScript (script-compiler.ts) on a thread; a source past a limit is refused as too complex. */
  async compile(source: string, options: { assetScript: boolean; crypto: ScriptCrypto }): Promise<PooledCompileResult> {
    const outcome = await this.submit<CompileAnswer>({ kind: 'compile', source, assetScript: options.assetScript });
    if ('overrun' in outcome) return { ok: false, error: this.overrunMessage('compiling', outcome.overrun) };
    const a = outcome.answer;
    if (!a.ok) return a;
    return { ok: true, script: { version: a.version, bytes: withChecksum(a.body, options.crypto), complexity: a.complexity } };
  }

  /**
   * readScript (script.ts) on a thread, and the scriptText of what it read: the checks of the
   * container here (a hash of at most the bytes given), the expression's on the thread. Throws
   * WE's ScriptParseError; a script past a limit is refused as too complex.
   */
  async estimate(bytes: Uint8Array, crypto: ScriptCrypto, field = 'script'): Promise<{ readonly complexity: number; readonly scriptText: string }> {
    const { version, expression } = scriptContainer(bytes, crypto, field);
    const outcome = await this.submit<EstimateAnswer>({ kind: 'estimate', version, expression: expression.slice() });
    if ('overrun' in outcome) throw scriptParseError(this.overrunMessage('estimating', outcome.overrun), field);
    const a = outcome.answer;
    if (!a.ok) throw scriptParseError(a.error, field);
    return { complexity: a.complexity, scriptText: a.scriptText };
  }

  /** Ends every thread; jobs running or waiting fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(closedError());
    this.idle.length = 0;
    await Promise.all([...this.live].map((t) => t.worker.terminate()));
  }

  private overrunMessage(doing: 'compiling' | 'estimating', overrun: 'time' | 'memory'): string {
    return overrun === 'time'
      ? `Script is too complex: ${doing} it takes longer than ${this.limits.timeLimitMs} ms`
      : `Script is too complex: ${doing} it needs more than ${this.limits.memoryLimitMb} MiB`;
  }

  /** Runs `message` on a thread; `A`: the answer its kind gets (a `failed` answer rejects). */
  private submit<A extends CompileAnswer | EstimateAnswer>(message: ScriptCompilerJob): Promise<Outcome<A>> {
    if (this.closed) return Promise.reject(closedError());
    if (this.running >= this.limits.threads && this.queue.length >= this.limits.waiting) {
      return Promise.reject(scriptCompilerBusy(this.limits.threads + this.limits.waiting));
    }
    return new Promise<Outcome<A>>((resolve, reject) => {
      this.queue.push({ message, resolve: resolve as (outcome: Outcome) => void, reject });
      this.next();
    });
  }

  /** Starts waiting jobs while threads are free. */
  private next(): void {
    while (this.queue.length > 0 && this.running < this.limits.threads) {
      const job = this.queue.shift()!;
      this.running++;
      void this.run(job).finally(() => {
        this.running--;
        this.next();
      });
    }
  }

  private async run(job: Job): Promise<void> {
    let thread: Thread;
    try {
      thread = this.idle.pop() ?? (await this.startThread());
    } catch (e) {
      job.reject(e as Error);
      return;
    }
    try {
      const outcome = await this.runOn(thread, job.message);
      if ('answer' in outcome && 'failed' in outcome.answer) throw new Error(`The script compiler thread failed: ${outcome.answer.failed}`);
      job.resolve(outcome);
    } catch (e) {
      job.reject(e as Error);
    }
  }

  private async startThread(): Promise<Thread> {
    if (this.closed) throw closedError();
    const worker = new Worker(new URL('./script-compiler-worker.js', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryLimitMb, stackSizeMb: THREAD_STACK_MB },
    });
    const thread: Thread = { worker };
    this.live.add(thread);
    worker.on('exit', () => {
      this.live.delete(thread);
      const i = this.idle.indexOf(thread);
      if (i >= 0) this.idle.splice(i, 1);
      thread.onExit?.(this.closed ? closedError() : new Error('The script compiler thread exited'));
    });
    // An 'error' is followed by 'exit'; what the job makes of it is decided in runOn.
    worker.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      const failed = (e: Error): void => reject(e);
      thread.onExit = failed;
      worker.once('error', failed);
      worker.once('message', (m: unknown) => {
        worker.off('error', failed);
        thread.onExit = undefined;
        if (m === 'ready') resolve();
        else reject(new Error(`The script compiler thread sent ${String(m)}`));
      });
    });
    return thread;
  }

  /** Runs one job on `thread`; the thread goes back to the idle ones unless a limit ended it. */
  private runOn(thread: Thread, message: ScriptCompilerJob): Promise<Outcome> {
    const { worker } = thread;
    return new Promise<Outcome>((resolve, reject) => {
      let overrun: 'time' | 'memory' | undefined;
      const settle = (): void => {
        clearTimeout(timer);
        worker.off('message', answered);
        worker.off('error', failed);
        thread.onExit = undefined;
        worker.unref();
      };
      const answered = (answer: ScriptCompilerAnswer): void => {
        settle();
        if (this.closed) {
          reject(closedError());
          return;
        }
        this.idle.push(thread);
        resolve({ answer });
      };
      const failed = (e: Error & { code?: string }): void => {
        if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') overrun = 'memory';
      };
      thread.onExit = (e) => {
        settle();
        if (overrun !== undefined) resolve({ overrun });
        else reject(e);
      };
      const timer = setTimeout(() => {
        overrun = 'time';
        void worker.terminate();
      }, this.limits.timeLimitMs);
      worker.on('message', answered);
      worker.on('error', failed);
      worker.ref();
      worker.postMessage(message);
    });
  }
}
