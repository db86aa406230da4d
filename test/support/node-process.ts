/**
 * A dev-chain node as a real process, for tests that kill it: started with
 * `node dist/src/cli/cli.js start --data-dir DIR --rest-port P --p2p-port Q` on free loopback
 * ports, ready once its log says the REST API listens (restarts on a data directory that
 * already has `dev-accounts.json` are detected the same way), stopped with SIGKILL.
 *
 * `LmdbCommitProbe` watches the node's threads through /proc (Linux) to tell when one is
 * inside an LMDB commit — writing pages of the store's `data.mdb` or syncing it — so a test
 * can send SIGKILL at that moment. Every wait has a deadline; every process started here is
 * killed when the test file ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';

const CLI = fileURLToPath(new URL('../../src/cli/cli.js', import.meta.url));
const OUTPUT_TAIL_CHARS = 32_768;

import { sleep } from '../../devkit/wait.js';

export { sleep };

import { freeLoopbackPort as freePort } from '../../src/cli/devnet.js';

export { freePort };

import { httpRequest, type Answer as HttpAnswer } from '../../devkit/http.js';

export type { HttpAnswer };

/** Every live process this module started, killed when the test file ends (or the runner exits). */
const live = new Set<ChildProcess>();
let cleanupRegistered = false;
function track(child: ChildProcess): void {
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    after(() => {
      for (const c of live) c.kill('SIGKILL');
    });
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
  live.add(child);
  child.once('exit', () => live.delete(child));
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class NodeProcess {
  private tail = '';
  private exit: Exit | undefined;
  readonly exited: Promise<Exit>;
  /** When the node logged that its REST API listens (ms, performance.now()). */
  servingAt = 0;

  private constructor(
    readonly dataDir: string,
    readonly restPort: number,
    readonly p2pPort: number,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        this.append(`\n[process exited: code ${code}, signal ${signal}]\n`);
        resolve(this.exit);
      });
    });
  }

  private append(text: string): void {
    this.tail = (this.tail + text).slice(-OUTPUT_TAIL_CHARS);
  }

  /**
   * Starts the dev node on `dataDir` and resolves once its REST API serves. A port taken in
   * the meantime (EADDRINUSE) is retried on other ports.
   */
  static async start(dataDir: string, options: { timeoutMs?: number; attempts?: number } = {}): Promise<NodeProcess> {
    const attempts = options.attempts ?? 3;
    let last: Error | undefined;
    for (let i = 0; i < attempts; i++) {
      const restPort = await freePort();
      const p2pPort = await freePort();
      const child = spawn(process.execPath, [CLI, 'start', '--data-dir', dataDir, '--rest-port', String(restPort), '--p2p-port', String(p2pPort)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      track(child);
      const proc = new NodeProcess(dataDir, restPort, p2pPort, child);
      try {
        await proc.waitServing(options.timeoutMs ?? 60_000);
        return proc;
      } catch (e) {
        child.kill('SIGKILL');
        await proc.exited;
        last = e as Error;
        if (!/EADDRINUSE/.test(proc.output())) break;
      }
    }
    throw last ?? new Error('the node did not start');
  }

  private waitServing(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      let pending = '';
      let done = false;
      const finish = (error?: Error): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (error === undefined) resolve();
        else reject(new Error(`${error.message}\n--- node output ---\n${this.output()}`));
      };
      const timer = setTimeout(() => finish(new Error(`the node did not serve within ${timeoutMs} ms`)), timeoutMs);
      this.child.stdout!.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        this.append(text);
        pending += text;
        const lines = pending.split('\n');
        pending = lines.pop()!;
        for (const line of lines) {
          if (line.includes('"REST API listening"')) {
            this.servingAt = performance.now();
            finish();
          }
        }
      });
      this.child.stderr!.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        this.append(text);
        // The CLI reports a failed start on stderr (and may keep running: see the report on node.ts).
        if (text.startsWith('error:') || text.includes('\nerror:')) finish(new Error(`the node failed to start: ${text.trim()}`));
      });
      void this.exited.then((e) => finish(new Error(`the node exited before serving (code ${e.code}, signal ${e.signal})`)));
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get url(): string {
    return `http://127.0.0.1:${this.restPort}`;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** The last output of the process (for failure messages). */
  output(): string {
    return this.tail;
  }

  /** SIGKILL now; resolves once the process is gone. */
  async killHard(): Promise<Exit> {
    if (this.exit !== undefined) return this.exit;
    this.child.kill('SIGKILL');
    return this.exited;
  }

  request(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs = 10_000): Promise<HttpAnswer> {
    return httpRequest(this.url, method, path, body, { timeoutMs });
  }

  get(path: string, timeoutMs?: number): Promise<HttpAnswer> {
    return this.request('GET', path, undefined, timeoutMs);
  }

  post(path: string, body: unknown, timeoutMs?: number): Promise<HttpAnswer> {
    return this.request('POST', path, body, timeoutMs);
  }
}

/** Linux syscall numbers of the calls an LMDB commit makes on its data file, per architecture. */
const WRITE_SYSCALLS: Readonly<Record<string, readonly number[]>> = {
  // write, pwrite64, writev, fsync, fdatasync, pwritev, pwritev2
  x64: [1, 18, 20, 74, 75, 296, 328],
  // write, writev, pwrite64, pwritev, fsync, fdatasync, pwritev2
  arm64: [64, 66, 68, 70, 82, 83, 287],
};

const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * Tells whether a process's threads (the main one commits with LMDB's transactionSync, a
 * thread-pool thread syncs behind it) are inside a write or sync of the store's `data.mdb`,
 * by reading /proc/<pid>/task/<tid>/syscall. Needs
 * Linux and permission to inspect the process (its parent has it); `open` returns undefined
 * otherwise.
 */
export class LmdbCommitProbe {
  private constructor(
    private readonly pid: number,
    private readonly fds: ReadonlySet<number>,
    private readonly syscalls: ReadonlySet<number>,
  ) {}

  static open(pid: number, stateDir: string): LmdbCommitProbe | undefined {
    const syscalls = WRITE_SYSCALLS[process.arch];
    if (process.platform !== 'linux' || syscalls === undefined) return undefined;
    const dataFile = join(stateDir, 'data.mdb');
    try {
      readFileSync(`/proc/${pid}/syscall`, 'utf8');
      const fds = new Set<number>();
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        try {
          if (readlinkSync(`/proc/${pid}/fd/${fd}`) === dataFile) fds.add(Number(fd));
        } catch {
          // closed meanwhile
        }
      }
      return fds.size === 0 ? undefined : new LmdbCommitProbe(pid, fds, new Set(syscalls));
    } catch {
      return undefined;
    }
  }

  /**
   * Whether a thread of the process is in a write/sync syscall on data.mdb right now: the main
   * thread writing a commit, or the thread-pool thread syncing the commits behind it.
   */
  inCommit(): boolean {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${this.pid}/task`);
    } catch {
      return false;
    }
    for (const tid of tasks) {
      let text: string;
      try {
        text = readFileSync(`/proc/${this.pid}/task/${tid}/syscall`, 'utf8');
      } catch {
        continue; // the thread ended meanwhile
      }
      const [nr, fd] = text.split(' ');
      if (this.syscalls.has(Number(nr)) && fd !== undefined && this.fds.has(Number.parseInt(fd, 16))) return true;
    }
    return false;
  }

  /**
   * Polls (blocking this thread, ~every `intervalMs`) until the main thread is inside a
   * commit or `maxMs` passed; true when a commit was caught. Send the signal right after.
   */
  waitForCommit(maxMs: number, intervalMs = 0.2): boolean {
    const deadline = performance.now() + maxMs;
    while (performance.now() < deadline) {
      if (this.inCommit()) return true;
      sleepSync(intervalMs);
    }
    return false;
  }
}
