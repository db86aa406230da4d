/**
 * The walls around a process-runtime contract on Linux: what the node can put between a
 * contract it starts as a local process and the node's own rights, using the base system's
 * tools (util-linux's setpriv, unshare and mount, perl-base) and cgroups.
 *
 * With all of them (a root node, namespaces allowed, a writable memory cgroup) a contract runs:
 *
 * - as a user of its own: each (node, image, digest, instance) gets a numeric uid and gid of
 *   its own from `first-user-id` on (no passwd entry needed), no supplementary groups, no
 *   capabilities (none held, none inheritable, an empty bounding set), no_new_privs (no
 *   set-uid program or file capability gives any back) — so none of the node's files that
 *   are not readable by every user (its data directory, its keystore) are readable to it, nor
 *   /proc/<pid>/environ of any other process, nor /etc/shadow;
 * - in pid, mount and IPC namespaces of its own: a fresh /proc that shows only its own
 *   processes, a private /tmp (tmpfs, at most the memory limit), its package read-only at
 *   /tmp/contract (a copy every user may read: packages.ts), no System V IPC with the host;
 *   the pid namespace's init is a small perl process that waits for the contract and exits
 *   with it, and the kernel kills everything left in a namespace whose init is gone —
 *   `setsid` and double-forked children included — when the contract exits, crashes, is
 *   stopped, or the node dies (the init gets SIGKILL through the parent-death signal);
 * - with network isolation on (`node.contracts.isolate-network`, per package too): in a network
 *   namespace where only loopback is up, where that init listens on 127.0.0.1:NODE_PORT and
 *   relays each connection to a unix socket of the node's contract gRPC server (socket files
 *   reach across network namespaces) — the node's REST and admin ports, its peers and
 *   everything else on the network are out of reach, while the SDK connects to NODE:NODE_PORT
 *   as it always does;
 * - in a memory cgroup of its own (contract-cgroups.ts): `execution-limits.memory` holds for
 *   the whole tree, whatever the program.
 *
 * What the machine does not allow is reported at start by name (`missingGuards`), and the
 * contract runs without it.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractCgroups, type ContractCgroup } from './contract-cgroups.js';
import { CONTRACT_USER_ID_SPAN } from './settings.js';

const linuxProgram = (...paths: string[]): string | undefined => paths.find((path) => process.platform === 'linux' && existsSync(path));

/** util-linux's setpriv: sets the parent-death signal; drops to a user without groups or capabilities (Linux only). */
export const SETPRIV = linuxProgram('/usr/bin/setpriv', '/bin/setpriv');
/** perl (Debian's essential perl-base) runs the start-up steps below. A shell would not do: bash adds PWD and SHLVL to the contract's environment. */
export const PERL = linuxProgram('/usr/bin/perl', '/bin/perl');
const UNSHARE = linuxProgram('/usr/bin/unshare', '/bin/unshare');
const MOUNT = linuxProgram('/usr/bin/mount', '/bin/mount');

/** The contract's package inside its mount namespace. */
export const SANDBOX_PACKAGE_DIRECTORY = '/tmp/contract';

/**
 * The first process of a contract (perl, `-e` this, `--` — which perl takes for the end of its
 * own options — then name=value options, `--`, the contract's command). Perl built-ins only: loading a module (`use POSIX`) costs more than the
 * whole script. It joins the contract's cgroups (`cgroup=`: everything it starts is charged
 * there), then either — without `tmp=` — closes every descriptor it inherited beyond stdio and
 * runs the command in its place; or — as pid 1 of fresh pid, mount and IPC namespaces (and a
 * network one with `listen=`), still root — it opens the package folder and the node's socket
 * folder while the host's /tmp is visible, mounts a private /tmp and the package read-only in
 * it, covers each `hide=` path that exists (a folder with an empty tmpfs no one may enter, a
 * file with /dev/null on a nodev mount, which cannot be opened), brings loopback up and
 * listens on 127.0.0.1:<listen>, then starts the contract as `user=` through setpriv, and
 * becomes (as that user too) the relay below.
 *
 * Descriptors are closed because LMDB opens the store's data file without close-on-exec (by
 * design: its users may share it) and Node.js has no fcntl to set it: a contract would hold
 * the node's data file open. The numbers are Linux's generic ABI (x86-64, arm64): AF_INET 2,
 * SOCK_STREAM 1, SOCK_DGRAM 2, SIOCGIFFLAGS/SIOCSIFFLAGS 0x8913/0x8914, F_SETFD 2.
 */
const SETUP = `
my (%o, @cgroups, @hidden);
while (@ARGV) { my $a = shift @ARGV; last if $a eq '--'; my ($k, $v) = split /=/, $a, 2; if ($k eq 'cgroup') { push @cgroups, $v } elsif ($k eq 'hide') { push @hidden, $v } else { $o{$k} = $v } }
for my $f (@cgroups) { open(my $h, '>', $f) or die "weft sandbox: cannot open $f: $!\\n"; print {$h} "0\\n"; close($h) or die "weft sandbox: cannot join cgroup $f: $!\\n" }
sub close_inherited { my %keep = map { $_ => 1 } @_; opendir(my $d, '/proc/self/fd') or return; my @fds = grep { /^\\d+$/ && $_ > 2 && !$keep{$_} } readdir $d; closedir $d; for my $fd (@fds) { my $h; open($h, '<&=', $fd) and close($h) or open($h, '>&=', $fd) and close($h) } }
unless (defined $o{tmp}) { close_inherited(); exec { $ARGV[0] } @ARGV or die "weft sandbox: cannot run $ARGV[0]: $!\\n" }
my @keep;
opendir(my $package, $o{package}) or die "weft sandbox: cannot open the package $o{package}: $!\\n";
my ($sockets, $listener);
if (defined $o{'node-sockets'}) { open($sockets, '<', $o{'node-sockets'}) && fcntl($sockets, 2, 0) or die "weft sandbox: cannot open $o{'node-sockets'}: $!\\n"; push @keep, fileno $sockets }
sub mount_or_die { system({ $o{mount} } $o{mount}, '--no-canonicalize', @_) == 0 or die "weft sandbox: mount @_ failed\\n" }
mount_or_die('-t', 'tmpfs', '-o', "size=$o{tmp},mode=1777,nosuid,nodev", 'tmpfs', '/tmp');
mkdir('${SANDBOX_PACKAGE_DIRECTORY}') or die "weft sandbox: mkdir: $!\\n";
mount_or_die('--bind', '-o', 'ro,nosuid,nodev', "/proc/$$/fd/" . fileno($package), '${SANDBOX_PACKAGE_DIRECTORY}');
closedir $package;
chdir('${SANDBOX_PACKAGE_DIRECTORY}') or die "weft sandbox: chdir: $!\\n";
for my $path (@hidden) { next unless -e $path; if (-d _) { mount_or_die('-t', 'tmpfs', '-o', 'ro,nosuid,nodev,noexec,size=4k,mode=0', 'tmpfs', $path) } else { mount_or_die('--bind', '-o', 'ro,nosuid,nodev,noexec', '/dev/null', $path) } }
if (defined $o{listen}) {
  socket(my $lo, 2, 2, 0) or die "weft sandbox: socket: $!\\n";
  my $request = pack('a16 x24', 'lo');
  ioctl($lo, 0x8913, $request) && ioctl($lo, 0x8914, pack('a16 s x22', 'lo', unpack('x16 s', $request) | 1)) or die "weft sandbox: cannot bring loopback up: $!\\n";
  close $lo;
  socket($listener, 2, 1, 0) && bind($listener, pack('S n C4 x8', 2, $o{listen}, 127, 0, 0, 1)) && listen($listener, 128) && fcntl($listener, 2, 0) or die "weft sandbox: cannot listen on 127.0.0.1:$o{listen}: $!\\n";
  push @keep, fileno $listener;
}
my @drop = ("--reuid=$o{user}", "--regid=$o{user}", '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs');
my $contract = fork() // die "weft sandbox: fork: $!\\n";
if ($contract == 0) { close_inherited(); exec { $o{setpriv} } $o{setpriv}, @drop, '--', @ARGV or die "weft sandbox: cannot run $o{setpriv}: $!\\n" }
close_inherited(@keep);
exec { $o{setpriv} } $o{setpriv}, @drop, '--pdeathsig=SIGKILL', '--', $^X, '-e', $o{relay}, '--', $listener ? fileno $listener : '-', $sockets ? fileno $sockets : '-', $o{'node-socket'} // '-', $contract or die "weft sandbox: cannot run $o{setpriv}: $!\\n";
`;

/**
 * The init of a contract's pid namespace, as the contract's user (perl `-e` this, `--`, then
 * the listening socket's descriptor, the node's socket folder's descriptor, the socket's
 * name, the contract's pid): reaps every process that ends in the namespace and exits as the
 * contract does (the kernel then kills what is left there). Meanwhile, with a listening
 * socket, it connects each connection made to it to the node's socket, reached through the
 * folder's descriptor (/proc/self/fd/N/name: the folder itself is not visible in the
 * namespace), and forks a pump for each direction: a blocking read-then-write loop that passes
 * the end of its side on as a half-close. A select loop relaying both directions in this
 * process cost ~0.5 ms of CPU per SDK call in perl's bookkeeping; the pumps cost their two
 * system calls a chunk. The contract's connection sends without Nagle's delay (TCP_NODELAY,
 * as gRPC's own sockets): with it, each small answer waited for the contract's delayed ACK and
 * calls/s fell to a third. AF_UNIX 1, SOCK_STREAM 1, IPPROTO_TCP 6, TCP_NODELAY 1.
 */
const RELAY = `
my ($lfd, $sfd, $name, $contract) = @ARGV;
my $status;
pipe(my $wake, my $waker) or die "weft sandbox: pipe: $!\\n";
$SIG{CHLD} = sub { syswrite $waker, 'c' };
$SIG{PIPE} = 'IGNORE';
sub reap { while ((my $pid = waitpid(-1, 1)) > 0) { $status = $? if $pid == $contract } exit($status & 127 ? 128 + ($status & 127) : $status >> 8) if defined $status }
sub pump { my ($from, $to) = @_; while (my $got = sysread($from, my $data, 65536)) { for (my $at = 0; $at < $got; ) { my $sent = syswrite($to, $data, $got - $at, $at) or exit 0; $at += $sent } } shutdown($to, 1); exit 0 }
reap();
my $listener;
if ($lfd ne '-') { open($listener, '+<&=', $lfd) or die "weft sandbox: listener: $!\\n" }
for (;;) {
  my $rin = '';
  vec($rin, fileno $wake, 1) = 1;
  vec($rin, fileno $listener, 1) = 1 if $listener;
  next if select(my $rout = $rin, undef, undef, undef) <= 0;
  if (vec($rout, fileno $wake, 1)) { sysread $wake, my $ignored, 512; reap() }
  my ($client, $node);
  next unless $listener && vec($rout, fileno $listener, 1) && accept($client, $listener);
  if (socket($node, 1, 1, 0) && connect($node, pack('S Z108', 1, "/proc/self/fd/$sfd/$name"))) {
    setsockopt($client, 6, 1, 1);
    for my $direction ([$client, $node], [$node, $client]) {
      my $pid = fork() // last;
      if ($pid == 0) { $SIG{CHLD} = 'DEFAULT'; close $listener; pump(@$direction) }
    }
  }
  close $client;
  close $node if $node;
}
`;

/** A guard the node could not set up on this machine, and why. */
export interface MissingGuard {
  readonly guard: string;
  readonly reason: string;
}

/** What each started contract gets on this machine. */
export interface SandboxGuards {
  /** Its own user and the pid, mount and IPC namespaces (they come together: the namespaces need root, and the package mount makes the user's start possible). */
  readonly ownUserAndNamespaces: boolean;
  /** A network namespace with only loopback and the relay to the node's gRPC API. */
  readonly networkIsolation: boolean;
  /** `execution-limits.memory` on the whole process tree. */
  readonly memoryLimit: boolean;
  /** The kernel kills the contract (and, with namespaces, its tree) when the node dies. */
  readonly diesWithNode: boolean;
  /** The contract holds no descriptor of the node's. */
  readonly closesInheritedDescriptors: boolean;
}

/** The program, arguments and working folder that start a contract, and what it holds until it exits. */
export interface SandboxedCommand {
  readonly file: string;
  readonly args: string[];
  readonly cwd: string;
  /** The contract's user id, when it runs as one of its own. */
  readonly uid: number | undefined;
  readonly cgroup: ContractCgroup | undefined;
}

export interface SandboxStart {
  /** Folder the package runs from: one every user may read when the contract runs as its own user. */
  readonly packageDirectory: string;
  /** Its start command's program as found on the host, and its arguments. */
  readonly program: string;
  readonly args: readonly string[];
  /** Who the contract is (its user id is derived from this). */
  readonly identity: string;
  readonly memoryMb: number;
  /** Docker's `memory-swap` (memory and swap together; 0: twice the memory). */
  readonly memorySwapMb: number;
  /** The port to listen on for the node's gRPC API, and the node's unix socket to relay to; absent: the host's network. */
  readonly network?: { readonly port: number; readonly nodeSocket: string };
  /**
   * The node's own files and folders (config, keystore, data), hidden from the contract
   * whatever their modes. A folder that holds the program to run or the package's place, or /,
   * is left in view (the contract could not start).
   */
  readonly hiddenPaths?: readonly string[];
}

export interface ProcessSandboxOptions {
  /** `node.contracts.first-user-id`. */
  readonly firstUserId: number;
}

/** Runs the start-up chain once with a do-nothing program: whether namespaces, the mounts, loopback and the user switch all work here. */
async function probeNamespaces(firstUserId: number): Promise<string | undefined> {
  const scratch = mkdtempSync(join(tmpdir(), 'weft-sandbox-probe-'));
  try {
    const args = [
      ...namespaceArgs(true),
      '--',
      PERL!,
      '-e',
      SETUP,
      '--',
      ...setupOptions({ packageDirectory: scratch, uid: firstUserId, memoryMb: 16, cgroups: [], network: { port: 0 } }),
      '--',
      PERL!,
      '-e',
      'exit 0',
    ];
    const child = spawn(UNSHARE!, args, { stdio: ['ignore', 'ignore', 'pipe'], env: {} });
    let errors = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (errors += text));
    const code = await new Promise<number | null>((resolve) => {
      child.once('error', () => resolve(null));
      child.once('exit', (exitCode) => resolve(exitCode));
    });
    return code === 0
      ? undefined
      : `a trial start failed (${code === null ? 'could not run unshare' : `exit ${code}`})${errors.trim() === '' ? '' : `: ${errors.trim().split('\n')[0]}`}`;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function namespaceArgs(network: boolean): string[] {
  return ['--pid', '--fork', '--kill-child', '--mount-proc', '--ipc', ...(network ? ['--net'] : [])];
}

function setupOptions(o: {
  packageDirectory: string;
  uid: number;
  memoryMb: number;
  cgroups: readonly string[];
  hidden?: readonly string[];
  network?: { port: number; nodeSocket?: string };
}): string[] {
  const options = [
    `tmp=${o.memoryMb * 2 ** 20}`,
    `package=${o.packageDirectory}`,
    `user=${o.uid}`,
    `setpriv=${SETPRIV!}`,
    `mount=${MOUNT!}`,
    `relay=${RELAY}`,
    ...o.cgroups.map((file) => `cgroup=${file}`),
    ...(o.hidden ?? []).map((path) => `hide=${path}`),
  ];
  if (o.network !== undefined) {
    options.push(`listen=${o.network.port}`);
    if (o.network.nodeSocket !== undefined) {
      const slash = o.network.nodeSocket.lastIndexOf('/');
      options.push(`node-sockets=${o.network.nodeSocket.slice(0, slash) || '/'}`, `node-socket=${o.network.nodeSocket.slice(slash + 1)}`);
    }
  }
  return options;
}

export class ProcessSandbox {
  private readonly usersInUse = new Set<number>();

  private constructor(
    readonly guards: SandboxGuards,
    /** Each guard missing here, with the reason. */
    readonly missingGuards: readonly MissingGuard[],
    private readonly cgroups: ContractCgroups | undefined,
    private readonly firstUserId: number,
  ) {}

  /** What this machine allows: the programs present, root, a trial start in namespaces, a writable memory cgroup. */
  static async detect(o: ProcessSandboxOptions): Promise<ProcessSandbox> {
    const missing: MissingGuard[] = [];
    const absent = Object.entries({ setpriv: SETPRIV, perl: PERL, unshare: UNSHARE, mount: MOUNT })
      .filter(([, path]) => path === undefined)
      .map(([name]) => name);
    const ownUserGuard =
      "own user and namespaces (a user without rights on the node's files, a /proc without the node's processes, a private /tmp; descendants end with the contract)";
    let namespaces = false;
    if (process.platform !== 'linux') missing.push({ guard: ownUserGuard, reason: 'Linux only' });
    else if (process.getuid?.() !== 0) missing.push({ guard: ownUserGuard, reason: 'the node does not run as root' });
    else if (absent.length > 0)
      missing.push({ guard: ownUserGuard, reason: `missing program(s): ${absent.join(', ')} (Debian's util-linux, mount, perl-base)` });
    else {
      const failure = await probeNamespaces(o.firstUserId);
      if (failure === undefined) namespaces = true;
      else missing.push({ guard: ownUserGuard, reason: failure });
    }
    if (!namespaces) missing.push({ guard: "network isolation (only the node's contract gRPC API in reach)", reason: 'needs the namespaces above' });
    const found = ContractCgroups.open();
    if ('missing' in found)
      missing.push({
        guard: 'memory limit on the process tree (execution-limits.memory; without it only `node` programs get it, as a heap limit)',
        reason: found.missing,
      });
    if (SETPRIV === undefined) missing.push({ guard: 'the contract dies with the node', reason: 'no setpriv (util-linux)' });
    if (PERL === undefined) missing.push({ guard: "the contract holds none of the node's descriptors", reason: 'no perl (perl-base)' });
    const guards: SandboxGuards = {
      ownUserAndNamespaces: namespaces,
      networkIsolation: namespaces,
      memoryLimit: 'cgroups' in found,
      diesWithNode: SETPRIV !== undefined,
      closesInheritedDescriptors: PERL !== undefined,
    };
    return new ProcessSandbox(guards, missing, 'cgroups' in found ? found.cgroups : undefined, o.firstUserId);
  }

  /** Only what the base programs give (no trial start, no cgroup): a launcher given no detected sandbox. */
  static baseOnly(): ProcessSandbox {
    const guards: SandboxGuards = {
      ownUserAndNamespaces: false,
      networkIsolation: false,
      memoryLimit: false,
      diesWithNode: SETPRIV !== undefined,
      closesInheritedDescriptors: PERL !== undefined,
    };
    return new ProcessSandbox(guards, [{ guard: 'own user, namespaces, network isolation, memory limit', reason: 'not detected' }], undefined, 0);
  }

  /**
   * The user id of a contract: derived from who it is (so it is the same each time that
   * contract starts, and differs between nodes, images and instances), the next free one when
   * another contract of this node holds it.
   */
  private userFor(identity: string): number {
    let offset = createHash('sha256').update(identity).digest().readUInt32BE(0) % CONTRACT_USER_ID_SPAN;
    while (this.usersInUse.has(this.firstUserId + offset)) offset = (offset + 1) % CONTRACT_USER_ID_SPAN;
    const uid = this.firstUserId + offset;
    this.usersInUse.add(uid);
    return uid;
  }

  /** The command that starts a contract inside every guard this machine has. Call `release` once it has exited. */
  command(s: SandboxStart): SandboxedCommand {
    const memoryBytes = s.memoryMb * 2 ** 20;
    const cgroup = this.cgroups?.create(memoryBytes, (s.memorySwapMb > 0 ? s.memorySwapMb : 2 * s.memoryMb) * 2 ** 20);
    const cgroups = cgroup === undefined ? [] : [cgroup.procsFile];
    // setpriv first: the parent-death signal is set at once (a node killed while the rest starts still takes the contract with it).
    const dieWithNode = SETPRIV === undefined ? [] : [SETPRIV, '--pdeathsig', 'SIGKILL', '--'];
    let command: string[];
    let uid: number | undefined;
    if (this.guards.ownUserAndNamespaces) {
      uid = this.userFor(s.identity);
      const network = s.network;
      // Inside, the package is at SANDBOX_PACKAGE_DIRECTORY: a program of the package is run from there.
      const program = s.program.startsWith(`${s.packageDirectory}/`)
        ? `${SANDBOX_PACKAGE_DIRECTORY}/${s.program.slice(s.packageDirectory.length + 1)}`
        : s.program;
      const holds = (folder: string, path: string): boolean => `${path}/`.startsWith(folder.endsWith('/') ? folder : `${folder}/`);
      const hidden = (s.hiddenPaths ?? []).filter((path) => path !== '/' && !holds(path, program) && !holds(path, SANDBOX_PACKAGE_DIRECTORY));
      command = [
        ...dieWithNode,
        UNSHARE!,
        ...namespaceArgs(network !== undefined),
        '--',
        PERL!,
        '-e',
        SETUP,
        '--',
        ...setupOptions({ packageDirectory: s.packageDirectory, uid, memoryMb: s.memoryMb, cgroups, hidden, ...(network === undefined ? {} : { network }) }),
        '--',
        program,
        ...s.args,
      ];
    } else {
      command = [
        ...dieWithNode,
        ...(PERL === undefined ? [] : [PERL, '-e', SETUP, '--', ...cgroups.map((file) => `cgroup=${file}`), '--']),
        s.program,
        ...s.args,
      ];
    }
    return { file: command[0]!, args: command.slice(1), cwd: s.packageDirectory, uid, cgroup };
  }

  /** Frees what a started contract held (its user id, its cgroup, ending whatever is left in it). */
  async release(started: Pick<SandboxedCommand, 'uid' | 'cgroup'>): Promise<void> {
    if (started.uid !== undefined) this.usersInUse.delete(started.uid);
    await started.cgroup?.remove();
  }
}
