/**
 * The process runtime: a contract image runs as a local child process from its package
 * (packages.ts), no Docker needed. The package's start command runs in the package folder
 * with only the four contract variables plus the entry's configured `env` (nothing of the
 * node's own environment); `node` as the program means this node's Node.js binary, given
 * the memory limit as `--max-old-space-size` too (V8 then collects before the cgroup's limit
 * kills). Its stdout and stderr go to the node log tagged with the image and process, one record per
 * read of whole lines (a stream whose level the log does not keep is not read at all): SDK
 * 1.0.14 prints ~57 lines per call it runs, and a record per line cost the node ~1 ms of CPU
 * per call; a read carries a call's lines in a few records.
 *
 * The process starts inside every guard the machine allows (process-sandbox.ts): on a root
 * Linux node with namespaces and a writable memory cgroup, as a user of its own, without
 * sight of the node's files, processes or network beyond its contract gRPC API, its whole
 * tree under `execution-limits.memory`, and ended with everything it started. What the
 * machine lacks is named in the node log at start (ContractEngine), and then a contract has
 * more of the node's rights: production deployments running contracts they did not write
 * should prefer Docker (or WASM) unless every guard is in place.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { ContractExecutionException } from '../errors/catalogue.js';
import { forwardLines } from './output-lines.js';
import type { ContractPackages } from './packages.js';
import { PERL, ProcessSandbox, SETPRIV, type SandboxedCommand } from './process-sandbox.js';
import type { ContainerKey, ContractEnv, ContractLauncher, LaunchedContract, RuntimeLog } from './runtime.js';

export interface ProcessLauncherOptions {
  readonly packages: ContractPackages;
  /** Memory limit, MB (`execution-limits.memory`): the process tree's with a memory cgroup, the heap's of `node` programs. */
  readonly memoryMb: number;
  /** `execution-limits.memory-swap`, MB (memory and swap together; 0: twice the memory). */
  readonly memorySwapMb?: number;
  /** The guards this machine allows (ProcessSandbox.detect); none when absent. */
  readonly sandbox?: ProcessSandbox;
  /**
   * The node's contract gRPC API as a unix socket, for contracts in a network namespace (made
   * on first use); without it a contract reaches the node at NODE over the host's network.
   */
  readonly nodeSocket?: () => Promise<string>;
  /** Names this node among the nodes of the machine (contract user ids derive from it): the package cache folder. */
  readonly scope?: string;
  /** The node's own files and folders (config, keystore, data directory), hidden from contracts in a mount namespace. */
  readonly privatePaths?: readonly string[];
  /** NODE for the contract (default 127.0.0.1). */
  readonly nodeHost?: string;
  readonly log?: RuntimeLog;
  /** Grace period between SIGTERM and SIGKILL on stop. */
  readonly killGraceMs?: number;
}

/** What starting a contract process guards against on any machine with the base programs (each needs its helper program). */
export const CONTRACT_START_GUARDS = {
  /** setpriv: the kernel kills the contract when the node process dies. */
  diesWithNode: SETPRIV !== undefined,
  /** perl: the contract holds no descriptor the node left inheritable (its LMDB data file). */
  closesInheritedDescriptors: PERL !== undefined,
} as const;

/** Whether `path` is a file this process may execute (what exec needs of it). */
function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The program a start command names, found as the spawn would find it (PATH of the contract's
 * environment, else the system's default), so that a missing program is refused at start
 * with the spawn's ENOENT even though the command runs through the sandbox's helpers.
 */
function findProgram(executable: string, cwd: string, pathVariable: string | undefined): string {
  const found = executable.includes('/')
    ? [resolvePath(cwd, executable)].find(isExecutableFile)
    : (pathVariable ?? '/usr/bin:/bin')
        .split(':')
        .map((dir) => resolvePath(cwd, dir, executable))
        .find(isExecutableFile);
  if (found === undefined) throw Object.assign(new Error(`spawn ${executable} ENOENT`), { code: 'ENOENT' });
  return found;
}

/** Whether a user with no rights of its own may run `path`: every folder on the way searchable and the file executable by others. */
function othersMayRun(path: string): boolean {
  for (let p = path, mode = 0o001; ; p = dirname(p)) {
    try {
      if ((statSync(p).mode & mode) === 0) return false;
    } catch {
      return false;
    }
    if (p === dirname(p)) return true;
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // The contract runs in its own process group: whatever it spawned goes too.
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

export class ProcessLauncher implements ContractLauncher {
  readonly kind = 'process' as const;
  readonly nodeHost: string;

  constructor(private readonly options: ProcessLauncherOptions) {
    this.nodeHost = options.nodeHost ?? '127.0.0.1';
  }

  async check(key: ContainerKey): Promise<void> {
    await this.options.packages.resolve(key.image, key.imageHash);
  }

  async launch(key: ContainerKey, env: ContractEnv, instance = 0): Promise<LaunchedContract> {
    const pkg = await this.options.packages.resolve(key.image, key.imageHash);
    const [program, ...args] = pkg.command;
    if (program === undefined) throw new ContractExecutionException(`Contract package of '${key.image}' has an empty start command`, undefined, true);
    const sandbox = this.options.sandbox ?? ProcessSandbox.baseOnly();
    const ownUser = sandbox.guards.ownUserAndNamespaces;
    const isolated = sandbox.guards.networkIsolation && pkg.isolateNetwork && this.options.nodeSocket !== undefined;
    const isNode = program === 'node';
    const argv = isNode ? [`--max-old-space-size=${this.options.memoryMb}`, ...args] : args;
    const log = this.options.log;
    const kept = (level: 'info' | 'warn'): 'pipe' | 'ignore' => (log !== undefined && (log.isLevelEnabled?.(level) ?? true) ? 'pipe' : 'ignore');
    // In a network namespace the node's API is the relay on loopback, at the same port.
    const childEnv: Record<string, string> = { ...pkg.env, ...env, ...(isolated ? { NODE: '127.0.0.1' } : {}) };
    let child: ChildProcess;
    let command: SandboxedCommand | undefined;
    try {
      // Its own user reads the package from a copy every user may read (the node's data folder, where the cache is, stays closed to it).
      const directory = ownUser ? await this.options.packages.readableCopy(pkg) : pkg.directory;
      const executable = isNode ? process.execPath : findProgram(program, directory, childEnv['PATH']);
      if (ownUser && !executable.startsWith(`${directory}/`) && !othersMayRun(executable)) {
        throw new Error(`${executable} is not executable by other users, and the contract runs as a user of its own`);
      }
      const nodeSocket = isolated ? await this.options.nodeSocket?.() : undefined;
      command = sandbox.command({
        packageDirectory: directory,
        program: executable,
        args: argv,
        identity: `${this.options.scope ?? ''}|${key.image}|${key.imageHash}|${instance}`,
        memoryMb: this.options.memoryMb,
        memorySwapMb: this.options.memorySwapMb ?? 0,
        hiddenPaths: this.options.privatePaths ?? [],
        ...(nodeSocket === undefined ? {} : { network: { port: Number(env.NODE_PORT), nodeSocket } }),
      });
      const started = (child = spawn(command.file, command.args, {
        cwd: command.cwd,
        env: childEnv,
        stdio: ['ignore', kept('info'), kept('warn')],
        detached: true,
      }));
      await new Promise<void>((resolve, reject) => {
        started.once('spawn', () => resolve());
        started.once('error', reject);
      });
    } catch (e) {
      if (command !== undefined) await sandbox.release(command);
      throw new ContractExecutionException(
        `Can't start contract process '${pkg.command.join(' ')}' for image '${key.image}': ${(e as Error).message}`,
        undefined,
        true,
        { cause: e },
      );
    }
    const held = command;
    const name = `process ${child.pid}`;
    const tag = { image: key.image, contract: name };
    for (const [stream, level] of [
      [child.stdout, 'info'],
      [child.stderr, 'warn'],
    ] as const) {
      if (stream === null) continue;
      const streamTag = { ...tag, stream: level === 'info' ? 'stdout' : 'stderr' };
      forwardLines(stream, (text) => log?.[level](streamTag, text));
    }
    // Exited once what it held is freed: its cgroup (and whatever still ran in it) gone.
    const exited = new Promise<void>((resolve) => {
      const release = (): void =>
        void sandbox
          .release(held)
          .catch((e: unknown) => log?.warn({ ...tag, err: e }, 'could not remove the cgroup of a contract process'))
          .then(resolve);
      if (child.exitCode !== null || child.signalCode !== null) release();
      else
        child.once('exit', (code, signal) => {
          log?.info({ ...tag, code, signal }, 'contract process exited');
          release();
        });
    });
    const grace = this.options.killGraceMs ?? 2000;
    return {
      name,
      exited,
      stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return exited;
        signalGroup(child, 'SIGTERM');
        const killer = setTimeout(() => {
          signalGroup(child, 'SIGKILL');
          held.cgroup?.kill();
        }, grace);
        await exited;
        clearTimeout(killer);
      },
    };
  }
}
