/**
 * End-to-end support: dev-chain nodes as real processes, driven over HTTP.
 *
 * A `NodeFleet` is created at the top level of a test file; it registers an `after` hook
 * that kills every node it started and removes every data directory it made, whatever
 * the tests did (a process `exit` handler does the same as a last resort). A node is
 * `node dist/src/cli/cli.js start --data-dir DIR --rest-port P --p2p-port Q` on a fresh
 * temp directory and free ports; `start` returns once `dev-accounts.json` exists and the
 * REST API answers. Every wait here has a deadline: nothing may hang a test run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';

const CLI = fileURLToPath(new URL('../../src/cli/cli.js', import.meta.url));
/** Where the node keeps its LMDB state inside a dev data directory. */
export const stateDir = (dataDir: string): string => join(dataDir, 'data', 'state');

import { sleep, until } from '../../devkit/wait.js';

export { sleep, until };

import { freeLoopbackPort as freePort } from '../../src/cli/devnet.js';

export { freePort };

import { httpRequest, type Answer, type RequestOptions } from '../../devkit/http.js';

export type { Answer, RequestOptions };

export interface DevAccountInfo {
  readonly seed: string;
  readonly address: string;
  readonly publicKey: string;
  readonly keystorePassword: string;
  readonly roles: readonly string[];
}

/** `<data-dir>/dev-accounts.json`. */
export interface DevAccountsFile {
  readonly restUrl: string;
  /** host:port of the node's gRPC API (its public services and the contract services). */
  readonly grpcAddress?: string;
  readonly apiKey: string;
  readonly chainId: string;
  readonly accounts: readonly DevAccountInfo[];
}

const LOG_TAIL_CHARS = 16_384;

/** One node process on a data directory. */
export class DevNode {
  private log = '';
  private exited: Promise<number | null>;
  private exitCode: number | null | undefined;

  private constructor(
    readonly dataDir: string,
    readonly restPort: number,
    readonly p2pPort: number,
    private readonly child: ChildProcess,
  ) {
    const append = (chunk: Buffer): void => {
      this.log = (this.log + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitCode = code;
        append(Buffer.from(`\n[process exited: code ${code}, signal ${signal}]\n`));
        resolve(code);
      });
    });
  }

  /**
   * Spawns the node (on free ports, or on `ports`: a restart clients must find at the same
   * address); resolves once dev-accounts.json exists and the API serves.
   */
  static async spawn(dataDir: string, startTimeoutMs: number, ports?: { readonly rest: number; readonly p2p: number }): Promise<DevNode> {
    const restPort = ports?.rest ?? (await freePort());
    const p2pPort = ports?.p2p ?? (await freePort());
    // A previous run's file would satisfy the wait below before this node serves.
    rmSync(join(dataDir, 'dev-accounts.json'), { force: true });
    const child = spawn(process.execPath, [CLI, 'start', '--data-dir', dataDir, '--rest-port', String(restPort), '--p2p-port', String(p2pPort)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const node = new DevNode(dataDir, restPort, p2pPort, child);
    try {
      await until(
        'dev-accounts.json and a serving REST API',
        async () => {
          if (node.exitCode !== undefined) throw new Error('the node process exited');
          if (!existsSync(join(dataDir, 'dev-accounts.json'))) return undefined;
          const r = await node.get('/blocks/height', { timeoutMs: 2000 });
          return r.status === 200 ? true : undefined;
        },
        startTimeoutMs,
        100,
      );
    } catch (e) {
      node.kill();
      throw new Error(`${(e as Error).message}\n--- node output ---\n${node.output()}`, { cause: e });
    }
    return node;
  }

  get url(): string {
    return `http://127.0.0.1:${this.restPort}`;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** The node's dev-accounts.json. */
  accounts(): DevAccountsFile {
    return JSON.parse(readFileSync(join(this.dataDir, 'dev-accounts.json'), 'utf8')) as DevAccountsFile;
  }

  /** The last output of the node process (for failure messages). */
  output(): string {
    return this.log;
  }

  request(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<Answer> {
    return httpRequest(this.url, method, path, body, options);
  }

  get(path: string, options?: RequestOptions): Promise<Answer> {
    return this.request('GET', path, undefined, options);
  }

  post(path: string, body: unknown, options?: RequestOptions): Promise<Answer> {
    return this.request('POST', path, body, options);
  }

  /** SIGTERM, then waits for the exit (SIGKILL after the deadline); resolves with the exit code. */
  async stop(timeoutMs = 10_000): Promise<number | null> {
    if (this.exitCode !== undefined) return this.exitCode;
    this.child.kill('SIGTERM');
    const timer = sleep(timeoutMs).then(() => 'timeout' as const);
    const result = await Promise.race([this.exited, timer]);
    if (result === 'timeout') {
      this.kill();
      await this.exited;
      throw new Error(`the node did not exit within ${timeoutMs} ms of SIGTERM\n--- node output ---\n${this.output()}`);
    }
    return result;
  }

  /** SIGKILL (no-op once exited). */
  kill(): void {
    if (this.exitCode === undefined) this.child.kill('SIGKILL');
  }

  /** Resolves when the process has exited (bounded). */
  async waitForExit(timeoutMs = 5000): Promise<void> {
    await Promise.race([this.exited, sleep(timeoutMs)]);
  }
}

/** The nodes and directories of one test file, cleaned up after it. */
export class NodeFleet {
  private readonly nodes: DevNode[] = [];
  private readonly dirs: string[] = [];

  constructor() {
    after(() => this.dispose());
    const cleanUp = (): void => {
      for (const n of this.nodes) n.kill();
      for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
    };
    process.once('exit', cleanUp);
    // Interrupted test run: no orphaned node, no leftover directory.
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      process.once(signal, () => {
        cleanUp();
        process.exit(code);
      });
    }
  }

  /** A fresh temp directory, removed at the end. */
  tempDir(prefix = 'weft-e2e-'): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  /** Starts a dev node on `dataDir` (a fresh temp dir by default), on free ports unless `ports` are given. */
  async start(dataDir: string = this.tempDir(), startTimeoutMs = 60_000, ports?: { readonly rest: number; readonly p2p: number }): Promise<DevNode> {
    const node = await DevNode.spawn(dataDir, startTimeoutMs, ports);
    this.nodes.push(node);
    return node;
  }

  async dispose(): Promise<void> {
    for (const n of this.nodes) n.kill();
    await Promise.all(this.nodes.map((n) => n.waitForExit()));
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}
