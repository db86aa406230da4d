/**
 * The SDK contract scenarios (support/sdk-suite.ts) in the process runtime — a local child
 * process started from the contract's package folder, no Docker — and what only this
 * runtime has: images without a package, a start that never connects.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageTreeDigest } from '../../src/contracts/package-digest.js';
import { packageDigestOf } from '../../src/contracts/packages.js';
import { tempDir } from '../../devkit/tmp.js';
import { contractInfoOfCreate } from '../../src/state/contract-info.js';
import { createTx, firstSuccess, fund, startTestEngine, updateTx } from '../../devkit/contracts/engine.js';
import { buildKvSdkPackage } from '../../devkit/contracts/sdk-package.js';
import { ContractMining, type ContractMiningOptions } from '../../src/contracts/mining.js';
import { Transfer } from '../../src/protocol/transactions/transfer.js';
import { developer, protocol } from '../../devkit/contracts/engine.js';
import { describeSdkContract } from './support/sdk-suite.js';

const IMAGE = 'registry.weft.test/kv-sdk:1.0';
const packageParent = tempDir('weft-sdk-pkg-');
let packageDir: Promise<string> | undefined;
const builtPackage = (): Promise<string> => (packageDir ??= buildKvSdkPackage(packageParent));

describeSdkContract({
  name: 'process',
  start: async (log, timeoutMs) => {
    const dir = await builtPackage();
    const engine = await startTestEngine({
      packages: [{ image: IMAGE, runtime: 'process', source: dir, command: undefined, env: { DEBUG: '1' } }],
      dockerEngine: { executionLimits: { startupTimeoutMs: 30_000, timeoutMs, memoryMb: 256, memorySwapMb: 0 } },
      log: { info: log, warn: log, debug: () => undefined },
    });
    return { engine, image: IMAGE, imageHash: await packageTreeDigest(dir) };
  },
  runtime: (te) => te.engine.runtimes.process,
  contractName: /^process \d+$/,
  environment: ['CONNECTION_ID', 'CONNECTION_TOKEN', 'DEBUG', 'NODE', 'NODE_PORT'],
  wrongDigest: (image, digest, wrong) => new RegExp(`^Id '${digest}' of local image '${image}' isn't equal to its digest '${wrong}'$`),
});

/** Any transaction that is not a contract's. */
const transfer = () =>
  protocol.sign(
    protocol.transaction(Transfer, 3, {
      senderPublicKey: developer.publicKey,
      assetId: null,
      feeAssetId: null,
      timestamp: BigInt(Date.now()),
      amount: 1000n,
      fee: 1_000_000n,
      recipient: protocol.addresses.fromPublicKey(developer.publicKey),
      attachment: new Uint8Array(0),
      atomicBadge: null,
    }),
    developer.privateKey,
  );

describe('the process runtime', () => {
  const muteDir = tempDir('weft-mute-pkg-');
  const tarballDir = tempDir('weft-tgz-pkg-');

  it('runs a package shipped as a .tgz (npm pack layout), whose digest is the digest of its tree', async () => {
    const dir = await builtPackage();
    const tarball = join(tarballDir, 'kv-sdk-1.0.0.tgz');
    // npm pack's layout: everything under package/.
    execFileSync('tar', ['-czf', tarball, '--transform', 's,^\\.,package,', '-C', dir, '.']);
    const digest = await packageTreeDigest(dir);
    assert.equal(await packageDigestOf(tarball, tarballDir), digest);
    const te = await startTestEngine({
      packages: [{ image: 'tgz/kv:1', runtime: 'process', source: tarball, command: undefined, env: {} }],
      dockerEngine: { executionLimits: { startupTimeoutMs: 30_000, timeoutMs: 30_000, memoryMb: 256, memorySwapMb: 0 } },
    });
    try {
      const create = createTx('tgz/kv:1', digest, { start: 3 });
      const r = await firstSuccess(te, () => create, 3);
      assert.equal(
        r.kind,
        'success',
        JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
      );
    } finally {
      await te.close();
    }
  });

  it('checks the image of an UpdateContract without running it: its 105 is a V1 without results', async () => {
    const dir = await builtPackage();
    const digest = await packageTreeDigest(dir);
    const te = await startTestEngine({ packages: [{ image: 'upd/kv:2', runtime: 'process', source: dir, command: undefined, env: {} }] });
    try {
      fund(te.state);
      const create = createTx('upd/kv:1', 'ab'.repeat(32), {});
      te.state.putContract(contractInfoOfCreate(create));
      const update = updateTx(create.id, 'upd/kv:2', digest);
      const r = await te.execute(update);
      assert.deepEqual(r, { kind: 'update' });
      const built = te.mine(update, r);
      assert.ok(built.kind === 'built' && built.executed.version === 1);
      assert.equal(te.state.contract(create.id)?.version, 2);
      assert.equal(te.engine.runtimes.process.isStarted({ image: 'upd/kv:2', imageHash: digest }), false, 'nothing was started');
      const wrong = await te.execute(updateTx(create.id, 'upd/kv:2', 'ef'.repeat(32)));
      assert.ok(wrong.kind === 'failure' && wrong.fatal && /isn't equal to its digest/.test(wrong.message));
    } finally {
      await te.close();
    }
  });

  it('stops a contract process idle for remove-container-after, and every process when the engine closes', async () => {
    const dir = await builtPackage();
    const digest = await packageTreeDigest(dir);
    const te = await startTestEngine({
      packages: [{ image: 'idle/kv:1', runtime: 'process', source: dir, command: undefined, env: {} }],
      dockerEngine: { removeContainerAfterMs: 500 },
    });
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const pidOf = (name: string): number => Number(/^process (\d+)$/.exec(name)![1]);
    try {
      const key = { image: 'idle/kv:1', imageHash: digest };
      const first = pidOf((await te.engine.runtimes.process.ensureStarted(key)).name);
      assert.ok(alive(first));
      for (let i = 0; i < 100 && alive(first); i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(alive(first), false, 'the idle process was stopped');
      assert.equal(te.engine.runtimes.process.isStarted(key), false);
      const second = pidOf((await te.engine.runtimes.process.ensureStarted(key)).name);
      assert.notEqual(second, first);
      await te.close();
      assert.equal(alive(second), false, 'stopped with the engine');
    } finally {
      await te.close();
    }
  });

  it('starts a contract’s process as its transaction enters a miner’s pool (ContractMining.warmUp), before its round executes it', async () => {
    const dir = await builtPackage();
    const digest = await packageTreeDigest(dir);
    const te = await startTestEngine({ packages: [{ image: 'warm/kv:1', runtime: 'process', source: dir, command: undefined, env: {} }] });
    try {
      // What warmUp reads of the miner's parts: the chain's state and the executor.
      const mining = new ContractMining({ chain: { state: () => te.state }, executor: te.engine.executor } as unknown as ContractMiningOptions);
      const key = { image: 'warm/kv:1', imageHash: digest };
      const create = createTx('warm/kv:1', digest, {});
      mining.warmUp(transfer());
      assert.equal(te.engine.runtimes.process.isStarted(key), false, 'a transfer starts nothing');
      mining.warmUp(create);
      for (let i = 0; i < 300 && !te.engine.executor.isReady(create, te.state); i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(te.engine.runtimes.process.isStarted(key), true, 'started without executing anything');
      const first = te.engine.runtimes.process.isStarted(key);
      mining.warmUp(create);
      assert.equal(te.engine.runtimes.process.isStarted(key), first, 'a second look starts nothing more');
      // An image no package is configured for: nothing starts, nothing throws.
      mining.warmUp(createTx('registry.weft.test/unknown:3', 'ab'.repeat(32), {}));
    } finally {
      await te.close();
    }
  });

  it('refuses, fatally, an image no package is configured for', async () => {
    const te = await startTestEngine({ packages: [] });
    const r = await te.execute(createTx('registry.weft.test/unknown:2', 'ab'.repeat(32), {})).finally(() => te.close());
    assert.equal(r.kind, 'failure');
    assert.ok(r.kind === 'failure' && r.fatal && r.message.includes("Can't find image 'registry.weft.test/unknown:2'"));
  });

  it('a start that cannot connect fails as a recoverable startup timeout', async () => {
    const dir = muteDir;
    writeFileSync(`${dir}/index.js`, 'setInterval(() => {}, 1000);\n');
    const mute = await startTestEngine({
      packages: [{ image: 'mute:1', runtime: 'process', source: dir, command: ['node', 'index.js'], env: {} }],
      dockerEngine: { executionLimits: { startupTimeoutMs: 800, timeoutMs: 1000, memoryMb: 64, memorySwapMb: 0 } },
    });
    try {
      const r = await mute.execute(createTx('mute:1', await packageTreeDigest(dir), {}));
      assert.equal(r.kind, 'failure');
      assert.ok(r.kind === 'failure' && r.code === 1 && !r.fatal && /startup timeout for image 'mute:1'/.test(r.message), JSON.stringify(r));
    } finally {
      await mute.close();
    }
  });
});
