/**
 * The SDK contract scenarios (support/sdk-suite.ts) in the Docker runtime: a real Docker
 * daemon (Debian's docker.io; .ci/run starts one when none answers), the contract image
 * built offline with `docker import` from this machine's `node` and the contract package,
 * containers on the host network reaching the node's gRPC server on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { dockerClient } from '../../src/contracts/docker-launcher.js';
import { tempDir } from '../../devkit/tmp.js';
import { createTx, firstSuccess, startTestEngine } from '../../devkit/contracts/engine.js';
import { importContractImage } from './support/docker-image.js';
import { buildKvSdkPackage } from '../../devkit/contracts/sdk-package.js';
import { describeSdkContract } from './support/sdk-suite.js';

const docker = dockerClient(undefined);
const IMAGE = 'localhost:5999/weft-kv-sdk:1.0';
const MB = 1024 * 1024;

let imageId: Promise<string> | undefined;
const packageParent = tempDir('weft-docker-pkg-');
const builtImage = (): Promise<string> =>
  (imageId ??= (async () => {
    try {
      await docker.ping();
    } catch (e) {
      throw new Error(
        `No Docker daemon answers on ${process.env['DOCKER_HOST'] ?? '/var/run/docker.sock'} (run .ci/run, which starts one): ${(e as Error).message}`,
        { cause: e },
      );
    }
    return importContractImage(docker, await buildKvSdkPackage(packageParent), IMAGE);
  })());

after(async () => {
  if (imageId === undefined) return;
  try {
    await docker.getImage(await imageId).remove({ force: true });
  } catch {
    // already gone, or never built
  }
});

const startDocker = (log?: (obj: object, msg: string) => void, timeoutMs = 30_000) =>
  startTestEngine({
    dockerEngine: { enable: true, executionLimits: { startupTimeoutMs: 30_000, timeoutMs, memoryMb: 256, memorySwapMb: 512 } },
    packages: [{ image: IMAGE, runtime: 'docker', source: undefined, command: undefined, env: { DEBUG: '1' } }],
    ...(log === undefined ? {} : { log: { info: log, warn: log, debug: () => undefined } }),
  });

describeSdkContract({
  name: 'Docker',
  start: async (log, timeoutMs) => {
    const imageHash = await builtImage();
    return { engine: await startDocker(log, timeoutMs), image: IMAGE, imageHash };
  },
  runtime: (te) => te.engine.runtimes.docker!,
  contractName: /^container [0-9a-f]{12}$/,
  // Docker adds HOME, HOSTNAME and a default PATH to every container; the shell adds PWD.
  environment: ['CONNECTION_ID', 'CONNECTION_TOKEN', 'DEBUG', 'HOME', 'HOSTNAME', 'NODE', 'NODE_PORT', 'PATH', 'PWD'],
  // No local image has this Id, and the registry of the name cannot be reached.
  wrongDigest: (image) => new RegExp(`^Can't pull image '${image.replace(/[.]/g, '\\.')}'`),
  afterCrash: async (_te, before) => {
    const id = before.replace('container ', '');
    const gone = (await docker.listContainers({ all: true })).every((c) => !c.Id.startsWith(id));
    assert.ok(gone, 'the crashed container was removed');
  },
});

describe('the Docker runtime', () => {
  it('creates containers from the image Id with the memory limits and host networking, and removes them when it stops', async () => {
    const imageHash = await builtImage();
    const te = await startDocker();
    let containerId: string;
    try {
      const create = createTx(IMAGE, imageHash, { start: 1 });
      const r = await firstSuccess(te, () => create, 3);
      assert.equal(r.kind, 'success');
      const started = await te.engine.runtimes.docker!.ensureStarted({ image: IMAGE, imageHash });
      const found = (await docker.listContainers()).find((c) => c.Id.startsWith(started.name.replace('container ', '')));
      assert.ok(found !== undefined);
      containerId = found.Id;
      const info = await docker.getContainer(containerId).inspect();
      assert.equal(info.Image, `sha256:${imageHash}`);
      assert.equal(info.HostConfig.Memory, 256 * MB);
      assert.equal(info.HostConfig.MemorySwap, 512 * MB);
      assert.equal(info.HostConfig.NetworkMode, 'host');
      assert.ok(info.Config.Env.some((e) => e.startsWith('NODE=127.0.0.1')));
    } finally {
      await te.close();
    }
    assert.ok(
      (await docker.listContainers({ all: true })).every((c) => c.Id !== containerId),
      'removed at stop',
    );
  });
});
