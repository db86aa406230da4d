/**
 * Memory cgroups for contract processes: `execution-limits.memory` (and `memory-swap`) on a
 * contract's whole process tree, as Docker sets them on a container, and a way to end every
 * process of the tree at once.
 *
 * Each started contract gets a cgroup of its own, made beside the node in the node's own
 * cgroup (the part of the hierarchy the node may write: a root node's, or one delegated to
 * it), named `weft-contract-<node pid>-<random>`; the contract's first process joins it before
 * it starts anything, so every descendant is charged and limited there. One mechanism, two
 * hierarchies:
 *
 * - cgroup v2 (`memory.max`, `memory.swap.max`, `cgroup.kill`): the node's cgroup must enable
 *   the memory controller for its children, which v2 allows only in a cgroup without processes
 *   of its own (unless it is the root) — so the node first moves itself into a leaf
 *   `weft-node-<pid>` beside its contracts, as a service with a delegated cgroup does;
 * - cgroup v1 (`memory.limit_in_bytes`, `memory.memsw.limit_in_bytes` where swap accounting is
 *   on): the memory hierarchy's cgroup of the node; no kill file, so the tree is ended by
 *   signalling every process the cgroup lists until it is empty.
 *
 * When the kernel finds a tree at its limit it reclaims, then OOM-kills a process of the tree
 * (the largest: the contract), never one outside it. Docker's meaning of the swap limit is
 * kept: `memory-swap` is memory and swap together, 0 meaning twice the memory.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The two layouts of the memory controller's files. */
interface Hierarchy {
  readonly version: 1 | 2;
  /** The node's cgroup, where contract cgroups are made. */
  readonly directory: string;
}

const PREFIX = 'weft-contract-';

/** Where the node may make contract cgroups, or why it may not. */
export type CgroupsFound = { readonly cgroups: ContractCgroups } | { readonly missing: string };

/** `\040`-style escapes of /proc/self/mountinfo undone. */
const unescapeMountPath = (path: string): string => path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

interface CgroupMount {
  readonly root: string;
  readonly mountPoint: string;
  readonly fsType: string;
  readonly superOptions: readonly string[];
}

function cgroupMounts(): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const dash = line.indexOf(' - ');
    if (dash === -1) continue;
    const fields = line.slice(0, dash).split(' ');
    const [fsType, , superOptions] = line.slice(dash + 3).split(' ');
    if (fsType !== 'cgroup' && fsType !== 'cgroup2') continue;
    mounts.push({
      root: unescapeMountPath(fields[3] ?? '/'),
      mountPoint: unescapeMountPath(fields[4] ?? ''),
      fsType,
      superOptions: (superOptions ?? '').split(','),
    });
  }
  return mounts;
}

/** The folder of cgroup `path` under a mount of its hierarchy (undefined when the mount does not reach it). */
function underMount(mount: CgroupMount, path: string): string | undefined {
  if (mount.root === '/') return join(mount.mountPoint, path);
  if (path === mount.root || path.startsWith(`${mount.root}/`)) return join(mount.mountPoint, path.slice(mount.root.length));
  return undefined;
}

/** The node's cgroup in the v2 hierarchy when that hierarchy has the memory controller, else in v1's memory hierarchy. */
function nodeHierarchy(): Hierarchy | { readonly missing: string } {
  let membership: string[];
  try {
    membership = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return { missing: 'no /proc/self/cgroup (not Linux, or /proc is not mounted)' };
  }
  const mounts = cgroupMounts();
  const unified = membership.find((line) => line.startsWith('0::'));
  const v2Mount = mounts.find((m) => m.fsType === 'cgroup2');
  if (unified !== undefined && v2Mount !== undefined) {
    const directory = underMount(v2Mount, unified.slice(3));
    if (directory !== undefined && readTrimmed(join(directory, 'cgroup.controllers'))?.split(' ').includes('memory') === true) return { version: 2, directory };
  }
  const v1Line = membership.find((line) => line.split(':')[1]?.split(',').includes('memory') === true);
  const v1Mount = mounts.find((m) => m.fsType === 'cgroup' && m.superOptions.includes('memory'));
  if (v1Line !== undefined && v1Mount !== undefined) {
    const directory = underMount(v1Mount, v1Line.slice(v1Line.indexOf(':', v1Line.indexOf(':') + 1) + 1));
    if (directory !== undefined) return { version: 1, directory };
  }
  return { missing: 'the memory controller is in neither a cgroup v2 hierarchy nor a mounted cgroup v1 hierarchy' };
}

function readTrimmed(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * v2: lets the node's cgroup give the memory controller to its children. Allowed at once in
 * the root, or in a cgroup without processes; else the node moves itself into a leaf beside
 * its contracts first (other processes in its cgroup make that fail: the cgroup is not the
 * node's alone).
 */
function enableMemoryForChildren(directory: string): void {
  const control = join(directory, 'cgroup.subtree_control');
  if (readTrimmed(control)?.split(' ').includes('memory') === true) return;
  try {
    writeFileSync(control, '+memory');
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EBUSY') throw e;
  }
  const leaf = join(directory, `weft-node-${process.pid}`);
  mkdirSync(leaf, { recursive: true });
  writeFileSync(join(leaf, 'cgroup.procs'), String(process.pid));
  try {
    writeFileSync(control, '+memory');
  } catch (e) {
    throw new Error(
      `cgroup ${directory} holds processes besides the node, so it cannot give its children the memory controller (run the node in a cgroup of its own, e.g. systemd's Delegate=yes)`,
      { cause: e },
    );
  }
}

export class ContractCgroups {
  private constructor(private readonly hierarchy: Hierarchy) {}

  /**
   * The node's memory cgroup, checked by making a cgroup with a limit in it and removing it;
   * the cgroups a dead node left behind (empty once its contracts died) are removed on the way.
   */
  static open(): CgroupsFound {
    if (process.platform !== 'linux') return { missing: 'cgroups are Linux only' };
    const hierarchy = nodeHierarchy();
    if ('missing' in hierarchy) return hierarchy;
    try {
      if (hierarchy.version === 2) enableMemoryForChildren(hierarchy.directory);
      const cgroups = new ContractCgroups(hierarchy);
      cgroups.removeLeftovers();
      rmdirSync(cgroups.create(64 * 2 ** 20, 128 * 2 ** 20).directory);
      return { cgroups };
    } catch (e) {
      return { missing: `cgroup v${hierarchy.version} ${hierarchy.directory} is not writable: ${(e as Error).message}` };
    }
  }

  get version(): 1 | 2 {
    return this.hierarchy.version;
  }

  /** A new cgroup limited to `memoryBytes` of memory and `memoryAndSwapBytes` of memory and swap. */
  create(memoryBytes: number, memoryAndSwapBytes: number): ContractCgroup {
    const directory = join(this.hierarchy.directory, `${PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
    mkdirSync(directory);
    const cgroup = new ContractCgroup(directory, this.hierarchy.version);
    try {
      if (this.hierarchy.version === 2) {
        writeFileSync(join(directory, 'memory.max'), String(memoryBytes));
        // Absent when the kernel keeps no swap accounting.
        if (existsSync(join(directory, 'memory.swap.max')))
          writeFileSync(join(directory, 'memory.swap.max'), String(Math.max(0, memoryAndSwapBytes - memoryBytes)));
      } else {
        writeFileSync(join(directory, 'memory.limit_in_bytes'), String(memoryBytes));
        if (existsSync(join(directory, 'memory.memsw.limit_in_bytes')))
          writeFileSync(join(directory, 'memory.memsw.limit_in_bytes'), String(memoryAndSwapBytes));
      }
    } catch (e) {
      rmdirSync(directory);
      throw e;
    }
    return cgroup;
  }

  /** Contract cgroups of node processes that no longer run (a node killed before it removed them). */
  private removeLeftovers(): void {
    for (const name of readdirSync(this.hierarchy.directory)) {
      const owner = /^(?:weft-contract-|weft-node-)(\d+)(?:-|$)/.exec(name)?.[1];
      if (owner === undefined || pidRuns(Number(owner))) continue;
      try {
        rmdirSync(join(this.hierarchy.directory, name));
      } catch {
        // still holds processes (or was just removed by another node): left as it is
      }
    }
  }
}

/** The cgroup of one started contract. */
export class ContractCgroup {
  constructor(
    /** Its folder. */
    readonly directory: string,
    private readonly version: 1 | 2,
  ) {}

  /** The file a process writes `0` into to join the cgroup (itself, and all it starts later). */
  get procsFile(): string {
    return join(this.directory, 'cgroup.procs');
  }

  /** The processes in it now (pids as this process sees them). */
  processes(): number[] {
    return (readTrimmed(this.procsFile) ?? '')
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  }

  /**
   * SIGKILLs every process in it: v2 kernels since 5.14 do it in one write of `cgroup.kill`;
   * otherwise each listed process is killed until none is left (a process forking meanwhile
   * is listed on the next pass).
   */
  kill(): void {
    if (this.version === 2 && existsSync(join(this.directory, 'cgroup.kill'))) {
      try {
        writeFileSync(join(this.directory, 'cgroup.kill'), '1');
        return;
      } catch {
        // fall back to the signals
      }
    }
    for (let pass = 0; pass < 100; pass++) {
      const pids = this.processes();
      if (pids.length === 0) return;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    }
  }

  /** Ends what is left in it and removes it (a cgroup whose processes are still exiting is retried for a while). */
  async remove(): Promise<void> {
    this.kill();
    for (let attempt = 0; ; attempt++) {
      try {
        rmdirSync(this.directory);
        return;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return;
        if (code !== 'EBUSY' || attempt >= 100) throw e;
        this.kill();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }
}
