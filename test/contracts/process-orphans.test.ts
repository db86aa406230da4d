/**
 * A contract process does not outlive its node: started through setpriv's parent-death
 * signal (Linux), it is killed by the kernel when the node process dies, even by SIGKILL.
 * A start command naming a missing program is still refused at start. Nor does it hold the
 * node's files: the descriptors LMDB leaves inheritable (its data file) are closed before the
 * contract's program runs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { packageTreeDigest } from '../../src/contracts/package-digest.js';
import { ContractPackages } from '../../src/contracts/packages.js';
import { CONTRACT_START_GUARDS, ProcessLauncher } from '../../src/contracts/process-launcher.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { Store } from '../../src/state/store.js';
import { tempDir } from '../../devkit/tmp.js';

const ENV = { CONNECTION_ID: 'c', CONNECTION_TOKEN: 't', NODE: '127.0.0.1', NODE_PORT: '1' };

/**
 * Whether the process runs: it exists and is not a zombie. A contract process killed with its
 * node is reparented to PID 1 and stays a zombie until that reaps it, which a container's init
 * may do late; signal 0 still reaches a zombie.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // The state follows the command name in parentheses, which may itself hold spaces or parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

describe('contract processes and the node process', () => {
  it('a contract process dies with a node killed by SIGKILL', { skip: CONTRACT_START_GUARDS.diesWithNode ? false : 'no setpriv on this machine' }, async () => {
    const dir = tempDir('weft-orphan-');
    const pkg = join(dir, 'pkg');
    mkdirSync(pkg);
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'sleeper', version: '1.0.0', main: 'index.js' }));
    writeFileSync(join(pkg, 'index.js'), 'setInterval(() => {}, 1000);\n');
    const digest = await packageTreeDigest(pkg);
    const launcherUrl = pathToFileURL(new URL('../../src/contracts/process-launcher.js', import.meta.url).pathname).href;
    const packagesUrl = pathToFileURL(new URL('../../src/contracts/packages.js', import.meta.url).pathname).href;
    // A stand-in node process: launches the contract, prints its pid, then waits.
    const parent = join(dir, 'parent.mjs');
    writeFileSync(
      parent,
      `import { ProcessLauncher } from ${JSON.stringify(launcherUrl)};
import { ContractPackages } from ${JSON.stringify(packagesUrl)};
const packages = new ContractPackages([{ image: 'sleeper', runtime: 'process', source: ${JSON.stringify(pkg)}, command: undefined, env: {} }], ${JSON.stringify(join(dir, 'cache'))}, undefined, undefined);
const launched = await new ProcessLauncher({ packages, memoryMb: 64 }).launch({ image: 'sleeper', imageHash: ${JSON.stringify(digest)} }, ${JSON.stringify(ENV)});
console.log(launched.name.split(' ')[1]);
setInterval(() => {}, 1000);
`,
    );
    const node = spawn(process.execPath, [parent], { stdio: ['ignore', 'pipe', 'inherit'] });
    let contractPid: number | undefined;
    try {
      const pid = Number(
        await new Promise<string>((resolve, reject) => {
          createInterface({ input: node.stdout }).once('line', resolve);
          node.once('exit', (code) => reject(new Error(`the stand-in node exited (${code}) before launching the contract`)));
        }),
      );
      contractPid = pid;
      assert.ok(pid > 0 && alive(pid), 'the contract process runs');
      node.kill('SIGKILL');
      const deadline = Date.now() + 10_000;
      while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(alive(pid), false, 'the contract process is gone with its node');
      contractPid = undefined;
    } finally {
      node.kill('SIGKILL');
      if (contractPid !== undefined && alive(contractPid)) process.kill(contractPid, 'SIGKILL');
    }
  });

  it(
    "a contract process holds no descriptor of the node's store (LMDB opens its data file inheritable)",
    { skip: CONTRACT_START_GUARDS.closesInheritedDescriptors ? false : 'no perl on this machine' },
    async () => {
      const dir = tempDir('weft-fds-');
      const storeDir = join(dir, 'store');
      mkdirSync(storeDir);
      const store = Store.open(storeDir, await Protocol.create({ crypto: 'waves', chainId: 'T' }));
      const pkg = join(dir, 'pkg');
      mkdirSync(pkg);
      writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'sleeper', version: '1.0.0', main: 'index.js' }));
      writeFileSync(join(pkg, 'index.js'), 'setInterval(() => {}, 1000);\n');
      const packages = new ContractPackages(
        [{ image: 'sleeper', runtime: 'process', source: pkg, command: undefined, env: {} }],
        join(dir, 'cache'),
        undefined,
        undefined,
      );
      const opened = (pid: number | 'self'): string[] =>
        readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
          try {
            return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
          } catch {
            return [];
          }
        });
      assert.ok(
        opened('self').some((target) => target.startsWith(storeDir)),
        'this process holds the store open',
      );
      const launched = await new ProcessLauncher({ packages, memoryMb: 64 }).launch({ image: 'sleeper', imageHash: await packageTreeDigest(pkg) }, ENV);
      const pid = Number(launched.name.split(' ')[1]);
      try {
        // The contract's own program runs once every exec on the way (the launcher's) is done.
        const deadline = Date.now() + 10_000;
        while (readlinkSync(`/proc/${pid}/exe`) !== process.execPath && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        assert.equal(readlinkSync(`/proc/${pid}/exe`), process.execPath, "the contract's program runs");
        assert.deepEqual(
          opened(pid).filter((target) => target.startsWith(storeDir)),
          [],
        );
      } finally {
        await launched.stop();
        await store.close();
      }
    },
  );

  it('refuses a start command whose program does not exist, naming it', async () => {
    const dir = tempDir('weft-missing-');
    const packages = new ContractPackages(
      [{ image: 'missing', runtime: 'process', source: dir, command: ['no-such-program-here', 'x'], env: {} }],
      join(dir, 'cache'),
      undefined,
      undefined,
    );
    const launcher = new ProcessLauncher({ packages, memoryMb: 64 });
    await assert.rejects(
      launcher.launch({ image: 'missing', imageHash: await packageTreeDigest(dir) }, ENV),
      /Can't start contract process 'no-such-program-here x' for image 'missing': spawn no-such-program-here ENOENT/,
    );
  });
});
