/**
 * A process-runtime contract does not have the node's rights. The
 * attacker contract (test/fixtures/contracts/attacker) tries, from inside the process runtime,
 * what a contract once managed on a root node — read /proc/<node>/environ, the node's
 * keystore.json and dev-accounts.json, its config file, /etc/shadow; call the node's REST port; fill 1.5 GB with
 * `execution-limits.memory` at 256; leave `setsid` and double-forked processes behind — and
 * reports what it managed. Every attempt fails while it still reaches the node's contract API
 * at NODE:NODE_PORT, and no process it left survives its stop, its own exit, or its node's
 * death. On a machine that cannot give a guard (not root, no namespaces, no writable memory
 * cgroup) the tests that need it are skipped, naming it; the node says which at start.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { packageTreeDigest } from '../../src/contracts/package-digest.js';
import { ContractPackages } from '../../src/contracts/packages.js';
import { ProcessLauncher } from '../../src/contracts/process-launcher.js';
import { ProcessSandbox } from '../../src/contracts/process-sandbox.js';
import { DEFAULT_FIRST_USER_ID } from '../../src/contracts/settings.js';
import type { RuntimeLog } from '../../src/contracts/runtime.js';
import { writeFileAtomic } from '../../src/keystore/keystore.js';
import { tempDir } from '../../devkit/tmp.js';
import { REPO_ROOT } from '../../devkit/contracts/sdk-package.js';

const ATTACKER = join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'attacker');
const IMAGE = 'attacker:1';
const WAIT_MS = 60_000;

/** What the attacker reports. */
interface Attacks {
  readonly uid: number;
  readonly capabilities: string;
  readonly becomeRoot: string;
  readonly nodeEnviron: string;
  readonly keystore: string;
  readonly devAccounts: string;
  readonly config: string;
  readonly publicFile: string;
  readonly shadow: string;
  readonly rest: string;
  readonly nodeApi: string;
  readonly memory: { readonly reachedMb: number; readonly exitCode: number | null; readonly signal: string | null };
}

/** Pids of running (not zombie) processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
        return stat[stat.lastIndexOf(')') + 2] !== 'Z' && readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function until(what: string, probe: () => boolean, gone?: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!probe()) {
    if (gone?.() === true) throw new Error(`it exited before ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An echo server: the stand-in of the node's contract gRPC API, on loopback and on a unix socket as the engine serves it. */
async function listening(server: Server, at: { port: number; host: string } | string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at, () => resolve());
  });
}

describe('the process runtime as a sandbox', () => {
  let sandbox: ProcessSandbox;
  /** A folder outside /tmp (whose view contracts get privately): the guard tested is the user's rights, not the mount. */
  let outside: string;
  let nodeDir: string;
  let publicFile: string;
  let configFile: string;
  let restPort: number;
  let apiPort: number;
  let apiSocket: string;
  const servers: Array<{ close(cb: () => void): void }> = [];
  // Made here, not in before(): a tempDir registers its removal with the context it is made in.
  const packageCache = tempDir('weft-sandbox-cache-');
  const socketDir = tempDir('weft-sandbox-socket-');

  before(async () => {
    sandbox = await ProcessSandbox.detect({ firstUserId: DEFAULT_FIRST_USER_ID });
    outside = mkdtempSync('/var/tmp/weft-sandbox-test-');
    chmodSync(outside, 0o755);
    // As a dev node keeps them (dev.ts, keystore.ts): a 0700 folder, 0600 files.
    nodeDir = join(outside, 'node');
    mkdirSync(nodeDir, { mode: 0o700 });
    writeFileAtomic(join(nodeDir, 'keystore.json'), '{"secret":"the owner key"}\n');
    writeFileAtomic(join(nodeDir, 'dev-accounts.json'), '{"keystorePassword":"secret"}\n');
    publicFile = join(outside, 'public.txt');
    writeFileSync(publicFile, 'anyone may read this\n', { mode: 0o644 });
    // A config file as one is often left: readable by every user, holding a password.
    configFile = join(outside, 'node.conf');
    writeFileSync(configFile, 'node.wallet.password = "secret"\n', { mode: 0o644 });
    const rest = createHttpServer((_, res) => res.end('{"blockchainHeight":1}'));
    await new Promise<void>((resolve) => rest.listen(0, '127.0.0.1', resolve));
    restPort = (rest.address() as { port: number }).port;
    servers.push(rest);
    const echo = (): Server => createServer((socket) => socket.on('data', (data) => socket.write(data)).on('error', () => undefined));
    const api = echo();
    await listening(api, { port: 0, host: '127.0.0.1' });
    apiPort = (api.address() as { port: number }).port;
    chmodSync(socketDir, 0o711);
    apiSocket = join(socketDir, 'grpc.sock');
    const apiOnSocket = echo();
    await listening(apiOnSocket, apiSocket);
    chmodSync(apiSocket, 0o666);
    servers.push(api, apiOnSocket);
  });

  after(async () => {
    for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
    rmSync(outside, { recursive: true, force: true });
  });

  const skipUnless =
    (guard: 'ownUserAndNamespaces' | 'memoryLimit' | 'networkIsolation'): ((t: { skip(message: string): void }) => boolean) =>
    (t) => {
      if (sandbox.guards[guard]) return false;
      t.skip(`this machine gives contract processes no ${guard}: ${sandbox.missingGuards.map((m) => `${m.guard}: ${m.reason}`).join('; ')}`);
      return true;
    };

  /** Starts the attacker (through the launcher, as the engine does) and waits for its report. */
  async function attack(
    marker: string,
    extraEnv: Record<string, string> = {},
    isolateNetwork = true,
  ): Promise<{ report: Attacks; stop: () => Promise<void>; exited: Promise<void> }> {
    const lines: string[] = [];
    const record = (_: object, text: string): void => void lines.push(...text.split('\n'));
    const log: RuntimeLog = { info: record, warn: record, debug: () => undefined };
    const env = {
      NODE_PID: String(process.pid),
      NODE_DIR: nodeDir,
      CONFIG_FILE: configFile,
      PUBLIC_FILE: publicFile,
      REST_PORT: String(restPort),
      MEMORY_MB: '1536',
      MARKER: marker,
      ...extraEnv,
    };
    const packages = new ContractPackages(
      [{ image: IMAGE, runtime: 'process', source: ATTACKER, command: undefined, env, isolateNetwork }],
      packageCache,
      undefined,
      undefined,
    );
    // The config file is hidden as a node hides its own (nodePrivatePaths); the node's folder is left to its modes.
    const launcher = new ProcessLauncher({
      packages,
      memoryMb: 256,
      sandbox,
      nodeSocket: () => Promise.resolve(apiSocket),
      scope: packageCache,
      privatePaths: [configFile],
      log,
      killGraceMs: 1000,
    });
    const launched = await launcher.launch(
      { image: IMAGE, imageHash: await packageTreeDigest(ATTACKER) },
      { CONNECTION_ID: 'c', CONNECTION_TOKEN: 't', NODE: '127.0.0.1', NODE_PORT: String(apiPort) },
    );
    let exited = false;
    void launched.exited.then(() => (exited = true));
    try {
      await until(
        'the attacker reported',
        () => lines.some((line) => line.startsWith('ATTACKS ')),
        () => exited,
      );
    } catch (e) {
      await launched.stop();
      throw new Error(`${(e as Error).message}; its output:\n${lines.join('\n')}`, { cause: e });
    }
    const report = JSON.parse(lines.find((line) => line.startsWith('ATTACKS '))!.slice('ATTACKS '.length)) as Attacks;
    return { report, stop: () => launched.stop(), exited: launched.exited };
  }

  it("reads none of the node's secrets, gains no privilege and reaches only the node's contract API", async (t) => {
    if (skipUnless('ownUserAndNamespaces')(t) || skipUnless('networkIsolation')(t)) return;
    const marker = `weft-attacker-${process.pid}-reads`;
    const { report, stop } = await attack(marker);
    try {
      assert.ok(report.uid >= DEFAULT_FIRST_USER_ID, `runs as a user of its own, not ${report.uid}`);
      assert.equal(report.capabilities, '0000000000000000', 'holds no capability');
      assert.equal(report.becomeRoot, 'EPERM', 'cannot become root');
      assert.notEqual(report.nodeEnviron, 'read', "the node's environment (its owner's keystore password)");
      assert.notEqual(report.keystore, 'read', "the node's keystore.json");
      assert.notEqual(report.devAccounts, 'read', "the node's dev-accounts.json");
      assert.notEqual(report.config, 'read', "the node's config file, though every user may read it");
      assert.equal(report.publicFile, 'read', 'a file every user may read beside them (the folders are in view: the rights keep it out)');
      assert.notEqual(report.shadow, 'read', '/etc/shadow');
      assert.notEqual(report.rest, 'echoed', "the node's REST port");
      assert.notEqual(report.rest, 'connected', "the node's REST port");
      assert.equal(report.nodeApi, 'echoed', "the node's contract API at NODE:NODE_PORT");
    } finally {
      await stop();
    }
  });

  it('gives a package with isolate-network = false the host network, and nothing more of the node', async (t) => {
    if (skipUnless('ownUserAndNamespaces')(t)) return;
    const { report, stop } = await attack(`weft-attacker-${process.pid}-network`, {}, false);
    try {
      assert.equal(report.rest, 'connected', "the node's REST port is in reach");
      assert.equal(report.nodeApi, 'echoed', "the node's contract API at NODE:NODE_PORT");
      assert.notEqual(report.keystore, 'read');
      assert.notEqual(report.nodeEnviron, 'read');
    } finally {
      await stop();
    }
  });

  it('keeps the whole process tree under execution-limits.memory, whatever the program', async (t) => {
    if (skipUnless('memoryLimit')(t)) return;
    const { report, stop } = await attack(`weft-attacker-${process.pid}-memory`);
    try {
      assert.ok(report.memory.reachedMb < 1536, `a child of the contract filled ${report.memory.reachedMb} MB of 1,536 with a limit of 256`);
      assert.ok(report.memory.reachedMb <= 256, `a child of the contract filled ${report.memory.reachedMb} MB with a limit of 256`);
      assert.equal(report.memory.signal, 'SIGKILL', 'the kernel killed the child at the limit');
    } finally {
      await stop();
    }
  });

  it('ends every process the contract started (setsid, double fork) when the node stops it', async (t) => {
    if (skipUnless('ownUserAndNamespaces')(t)) return;
    const marker = `weft-attacker-${process.pid}-stop`;
    const { stop } = await attack(marker);
    assert.equal(processesWith(marker).length, 2, 'the setsid and the double-forked process run');
    await stop();
    await until('the processes it left to end', () => processesWith(marker).length === 0);
  });

  it('ends every process the contract started when the contract exits by itself', async (t) => {
    if (skipUnless('ownUserAndNamespaces')(t)) return;
    const marker = `weft-attacker-${process.pid}-exit`;
    const { exited } = await attack(marker, { EXIT_AFTER_REPORT: '1' });
    await exited;
    await until('the processes it left to end', () => processesWith(marker).length === 0);
  });

  it('ends every process the contract started when its node is killed', async (t) => {
    if (skipUnless('ownUserAndNamespaces')(t)) return;
    const marker = `weft-attacker-${process.pid}-node-killed`;
    const dir = tempDir('weft-sandbox-node-');
    const url = (module: string): string => JSON.stringify(pathToFileURL(new URL(`../../src/contracts/${module}.js`, import.meta.url).pathname).href);
    const env = { NODE_PID: String(process.pid), NODE_DIR: nodeDir, PUBLIC_FILE: publicFile, REST_PORT: String(restPort), MEMORY_MB: '64', MARKER: marker };
    // A stand-in node process: detects its sandbox, launches the attacker, passes its report on, then waits.
    const parent = join(dir, 'node.mjs');
    writeFileSync(
      parent,
      `import { ProcessLauncher } from ${url('process-launcher')};
import { ContractPackages } from ${url('packages')};
import { ProcessSandbox } from ${url('process-sandbox')};
const packages = new ContractPackages([{ image: 'attacker', runtime: 'process', source: ${JSON.stringify(ATTACKER)}, command: undefined, env: ${JSON.stringify(env)} }], ${JSON.stringify(join(dir, 'cache'))}, undefined, undefined);
const sandbox = await ProcessSandbox.detect({ firstUserId: ${DEFAULT_FIRST_USER_ID} });
const log = { info: (_, text) => { for (const line of text.split('\\n')) if (line.startsWith('ATTACKS ')) console.log(line); }, warn: () => {}, debug: () => {} };
await new ProcessLauncher({ packages, memoryMb: 256, sandbox, log }).launch({ image: 'attacker', imageHash: ${JSON.stringify(await packageTreeDigest(ATTACKER))} }, { CONNECTION_ID: 'c', CONNECTION_TOKEN: 't', NODE: '127.0.0.1', NODE_PORT: '${apiPort}' });
setInterval(() => {}, 1000);
`,
    );
    const node = spawn(process.execPath, [parent], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: node.stdout }).on('line', (line) => line.startsWith('ATTACKS ') && resolve());
        node.once('exit', (code) => reject(new Error(`the stand-in node exited (${code}) before the contract reported`)));
      });
      assert.equal(processesWith(marker).length, 2, 'the setsid and the double-forked process run');
      node.kill('SIGKILL');
      await until('the processes it left to end', () => processesWith(marker).length === 0);
    } finally {
      node.kill('SIGKILL');
      for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
    }
  });

  it('names each guard it cannot give on a node that does not run as root', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('the test switches to an unprivileged user');
    const url = pathToFileURL(new URL('../../src/contracts/process-sandbox.js', import.meta.url).pathname).href;
    const script = `const { ProcessSandbox } = await import(${JSON.stringify(url)}); console.log(JSON.stringify((await ProcessSandbox.detect({ firstUserId: ${DEFAULT_FIRST_USER_ID} })).missingGuards));`;
    const child = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: '/',
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
    assert.equal(await new Promise((resolve) => child.once('exit', resolve)), 0);
    const missing = JSON.parse(out) as Array<{ guard: string; reason: string }>;
    const reasonOf = (guard: RegExp): string | undefined => missing.find((m) => guard.test(m.guard))?.reason;
    assert.equal(reasonOf(/^own user and namespaces/), 'the node does not run as root');
    assert.equal(reasonOf(/^network isolation/), 'needs the namespaces above');
    assert.match(reasonOf(/^memory limit on the process tree/) ?? '', /not writable/);
  });

  it('limits memory and ends what a contract started through the cgroup alone on a node without root (a delegated cgroup v1)', async (t) => {
    const v1 = /^\d+:memory:(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
    if (process.getuid?.() !== 0 || v1 === undefined || !sandbox.guards.memoryLimit)
      return t.skip('needs root to delegate a cgroup v1 memory hierarchy to an unprivileged user');
    // The node's cgroup, handed to the unprivileged user the node runs as (as a service manager delegates one).
    const delegated = join('/sys/fs/cgroup/memory', v1, `weft-test-delegated-${process.pid}`);
    mkdirSync(delegated);
    for (const name of ['', 'cgroup.procs', 'tasks']) chownSync(join(delegated, name), 65534, 65534);
    const dir = tempDir('weft-sandbox-unprivileged-');
    chownSync(dir, 65534, 65534);
    const marker = `weft-attacker-${process.pid}-unprivileged`;
    const url = (module: string): string => JSON.stringify(pathToFileURL(new URL(`../../src/contracts/${module}.js`, import.meta.url).pathname).href);
    const env = {
      NODE_PID: String(process.pid),
      NODE_DIR: nodeDir,
      CONFIG_FILE: configFile,
      PUBLIC_FILE: publicFile,
      REST_PORT: String(restPort),
      MEMORY_MB: '1536',
      MARKER: marker,
    };
    const script = `import { writeFileSync } from 'node:fs';
import { ProcessLauncher } from ${url('process-launcher')};
import { ContractPackages } from ${url('packages')};
import { ProcessSandbox } from ${url('process-sandbox')};
writeFileSync(${JSON.stringify(join(delegated, 'cgroup.procs'))}, String(process.pid));
const sandbox = await ProcessSandbox.detect({ firstUserId: ${DEFAULT_FIRST_USER_ID} });
console.log('GUARDS ' + JSON.stringify(sandbox.guards));
const packages = new ContractPackages([{ image: 'attacker', runtime: 'process', source: ${JSON.stringify(ATTACKER)}, command: undefined, env: ${JSON.stringify(env)} }], ${JSON.stringify(join(dir, 'cache'))}, undefined, undefined);
let reported;
const done = new Promise((resolve) => (reported = resolve));
const log = { info: (_, text) => { for (const line of text.split('\\n')) if (line.startsWith('ATTACKS ')) { console.log(line); reported(); } }, warn: () => {}, debug: () => {} };
const launched = await new ProcessLauncher({ packages, memoryMb: 256, sandbox, log, killGraceMs: 500 }).launch({ image: 'attacker', imageHash: ${JSON.stringify(await packageTreeDigest(ATTACKER))} }, { CONNECTION_ID: 'c', CONNECTION_TOKEN: 't', NODE: '127.0.0.1', NODE_PORT: '${apiPort}' });
await done;
await launched.stop();
console.log('STOPPED');
`;
    const node = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: '/',
    });
    const lines: string[] = [];
    try {
      createInterface({ input: node.stdout }).on('line', (line) => lines.push(line));
      assert.equal(await new Promise((resolve) => node.once('exit', resolve)), 0, lines.join('\n'));
      const guards = JSON.parse(lines.find((line) => line.startsWith('GUARDS '))!.slice('GUARDS '.length)) as Record<string, boolean>;
      assert.equal(guards['ownUserAndNamespaces'], false);
      assert.equal(guards['memoryLimit'], true);
      const report = JSON.parse(lines.find((line) => line.startsWith('ATTACKS '))!.slice('ATTACKS '.length)) as Attacks;
      assert.ok(report.memory.reachedMb <= 256, `a child of the contract filled ${report.memory.reachedMb} MB with a limit of 256`);
      assert.ok(lines.includes('STOPPED'));
      await until('the processes it left to end', () => processesWith(marker).length === 0);
    } finally {
      node.kill('SIGKILL');
      for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
      await until('the delegated cgroup to empty', () => readFileSync(join(delegated, 'cgroup.procs'), 'utf8').trim() === '');
      for (const name of readdirSync(delegated)) if (name.startsWith('weft-contract-')) rmdirSync(join(delegated, name));
      rmdirSync(delegated);
    }
  });

  it('copies a package folder into the cache as every user may read it, keeping its digest', async (t) => {
    if (skipUnless('ownUserAndNamespaces')(t)) return;
    const source = tempDir('weft-sandbox-private-pkg-');
    cpSync(ATTACKER, source, { recursive: true });
    chmodSync(join(source, 'index.js'), 0o600);
    const packages = new ContractPackages(
      [{ image: IMAGE, runtime: 'process', source, command: undefined, env: {} }],
      join(packageCache, 'copies'),
      undefined,
      undefined,
    );
    const digest = await packageTreeDigest(source);
    const copy = await packages.readableCopy(await packages.resolve(IMAGE, digest));
    assert.equal(await packageTreeDigest(copy), digest);
    assert.equal(readFileSync(join(copy, 'index.js'), 'utf8'), readFileSync(join(source, 'index.js'), 'utf8'));
    assert.equal(statSync(join(copy, 'index.js')).mode & 0o777, 0o644);
  });
});
