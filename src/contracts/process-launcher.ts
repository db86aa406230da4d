/**
 * The process runtime: a contract image runs as a local child process from its package
 * (packages.ts), no Docker needed. The package's start command runs in the package folder
 * with only the four contract variables plus the entry's configured `env` (nothing of the
 * node's own environment); `node` as the program means this node's Node.js binary, given
 * the memory limit as `--max-old-space-size` (a heap limit, softer than Docker's cgroup).
 * Its stdout and stderr go to the node log tagged with the image and process, one record per
 * read of whole lines (a stream whose level the log does not keep is not read at all): SDK
 * 1.0.14 prints ~57 lines per call it runs, and a record per line cost the node ~1 ms of CPU
 * per call; a read carries a call's lines in a few records.
 *
 * On Linux the process is started through util-linux's `setpriv --pdeathsig SIGKILL` when the
 * machine has it: the kernel kills the contract when the node process dies, so a node killed
 * with SIGKILL (or crashing) leaves no contract process behind; a normal stop ends them itself.
 * Then perl (Debian's essential perl-base) closes every descriptor the process inherited
 * beyond stdin, stdout and stderr, leaving the environment as it is, and runs the command:
 * LMDB opens the store's data file without close-on-exec (by design: its users may share it),
 * and Node.js has no fcntl to set it, so a contract would otherwise hold the node's data file
 * open (and could read it).
 *
 * Isolation caveat: a child process has the node's file and network access. Fine for
 * development and trusted contracts; production deployments should prefer Docker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants, existsSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { ContractExecutionException } from '../errors/catalogue.js';
import { forwardLines } from './output-lines.js';
import type { ContractPackages } from './packages.js';
import type { ContainerKey, ContractEnv, ContractLauncher, LaunchedContract, RuntimeLog } from './runtime.js';

export interface ProcessLauncherOptions {
  readonly packages: ContractPackages;
  /** Heap limit, MB (`execution-limits.memory`). */
  readonly memoryMb: number;
  /** NODE for the contract (default 127.0.0.1). */
  readonly nodeHost?: string;
  readonly log?: RuntimeLog;
  /** Grace period between SIGTERM and SIGKILL on stop. */
  readonly killGraceMs?: number;
}

/** util-linux's setpriv, which sets the parent-death signal and then runs the command (Linux only). */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => process.platform === 'linux' && existsSync(path));

/**
 * perl, to close inherited descriptors before the contract's program runs (Linux only: it
 * reads /proc). A shell would not do: bash adds PWD and SHLVL to the contract's environment.
 */
const PERL = ['/usr/bin/perl', '/bin/perl'].find((path) => process.platform === 'linux' && existsSync(path));

/**
 * Closes every descriptor above 2 open in this process, then runs its arguments in its place
 * (same pid). Perl built-ins only (no module to load: `use POSIX` cost ~9 ms per launch, this ~3 ms).
 */
const CLOSE_INHERITED =
  'if (opendir(my $d, "/proc/self/fd")) { my @fds = grep { /^\\d+$/ && $_ > 2 } readdir $d; closedir $d; for my $fd (@fds) { my $h; open($h, "<&=", $fd) and close($h) or open($h, ">&=", $fd) and close($h) } } exec { $ARGV[0] } @ARGV or die "cannot run $ARGV[0]: $!\\n"';

/** What starting a contract process guards against on this machine (each needs its helper program). */
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
 * The program and arguments that run `executable argv`: through setpriv with SIGKILL as the
 * parent-death signal where there is one, then perl where there is one, which closes the
 * descriptors inherited beyond stdio and runs the command (the process keeps its pid: each
 * execs the next). With neither, the program itself.
 */
function contractCommand(executable: string, argv: readonly string[], cwd: string, pathVariable: string | undefined): { file: string; args: string[] } {
  if (SETPRIV === undefined && PERL === undefined) return { file: executable, args: [...argv] };
  // Found here as the spawn would find it (PATH of the contract's environment, else the system's
  // default), so a missing program is still refused at start with the spawn's ENOENT.
  const found = executable.includes('/')
    ? [resolvePath(cwd, executable)].find(isExecutableFile)
    : (pathVariable ?? '/usr/bin:/bin').split(':').map((dir) => resolvePath(cwd, dir, executable)).find(isExecutableFile);
  if (found === undefined) throw Object.assign(new Error(`spawn ${executable} ENOENT`), { code: 'ENOENT' });
  // setpriv first: the parent-death signal is set at once (a node killed while perl starts still takes the contract with it).
  const command = [...(SETPRIV === undefined ? [] : [SETPRIV, '--pdeathsig', 'SIGKILL', '--']), ...(PERL === undefined ? [] : [PERL, '-e', CLOSE_INHERITED]), found, ...argv];
  return { file: command[0]!, args: command.slice(1) };
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

  async launch(key: ContainerKey, env: ContractEnv): Promise<LaunchedContract> {
    const pkg = await this.options.packages.resolve(key.image, key.imageHash);
    const [program, ...args] = pkg.command;
    if (program === undefined) throw new ContractExecutionException(`Contract package of '${key.image}' has an empty start command`, undefined, true);
    const isNode = program === 'node';
    const executable = isNode ? process.execPath : program;
    const argv = isNode ? [`--max-old-space-size=${this.options.memoryMb}`, ...args] : args;
    const log = this.options.log;
    const kept = (level: 'info' | 'warn'): 'pipe' | 'ignore' => (log !== undefined && (log.isLevelEnabled?.(level) ?? true) ? 'pipe' : 'ignore');
    const childEnv: Record<string, string> = { ...pkg.env, ...env };
    let child: ChildProcess;
    try {
      const command = contractCommand(executable, argv, pkg.directory, childEnv['PATH']);
      const started = (child = spawn(command.file, command.args, { cwd: pkg.directory, env: childEnv, stdio: ['ignore', kept('info'), kept('warn')], detached: true }));
      await new Promise<void>((resolve, reject) => {
        started.once('spawn', () => resolve());
        started.once('error', reject);
      });
    } catch (e) {
      throw new ContractExecutionException(`Can't start contract process '${pkg.command.join(' ')}' for image '${key.image}': ${(e as Error).message}`, undefined, true, { cause: e });
    }
    const name = `process ${child.pid}`;
    const tag = { image: key.image, contract: name };
    for (const [stream, level] of [[child.stdout, 'info'], [child.stderr, 'warn']] as const) {
      if (stream === null) continue;
      const streamTag = { ...tag, stream: level === 'info' ? 'stdout' : 'stderr' };
      forwardLines(stream, (text) => log?.[level](streamTag, text));
    }
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', (code, signal) => {
        log?.info({ ...tag, code, signal }, 'contract process exited');
        resolve();
      });
    });
    const grace = this.options.killGraceMs ?? 2000;
    return {
      name,
      exited,
      stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        signalGroup(child, 'SIGTERM');
        const killer = setTimeout(() => signalGroup(child, 'SIGKILL'), grace);
        await exited;
        clearTimeout(killer);
      },
    };
  }
}
