/**
 * What `npm start` prints: with another REST port the dev chain's contract engine takes any
 * free gRPC port, and the banner names the port it took — a gRPC client (the contract status
 * service) needs it; with `--crypto gost` the node's start-up log says which GOST
 * implementation runs — the native one (OpenSSL's GOST engine) on a machine that has the
 * engine, as this one does (.ci/run installs libengine-gost-openssl).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import { freeLoopbackPort } from '../../src/cli/devnet.js';
import type { Node } from '../../src/node/node.js';
import { startNode } from '../../src/cli/start.js';
import { tempDir } from '../../devkit/tmp.js';

const CLI = new URL('../../src/cli/cli.js', import.meta.url).pathname;

const running: Node[] = [];
after(async () => {
  for (const n of running) await n.stop();
});

describe('the dev chain banner', () => {
  it('names the gRPC port the contract engine listens on, not "(any free port)"', async () => {
    const printed: string[] = [];
    const node = await startNode(
      { dataDir: tempDir('weft-banner-'), restPort: await freeLoopbackPort(), p2pPort: 0 },
      { env: {}, askSecret: undefined, out: (t) => printed.push(t) },
    );
    running.push(node);
    const port = node.contractsGrpcPort;
    assert.ok(port !== undefined && port > 0, `engine port ${String(port)}`);
    const line = printed
      .join('')
      .split('\n')
      .find((l) => l.startsWith('Contracts:'));
    assert.equal(line?.split(';')[0], `Contracts: gRPC on 127.0.0.1:${port}`);
    // Something listens there.
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve();
      });
      socket.once('error', reject);
    });
  });

  it("logs 'GOST crypto' with the native implementation when `start --crypto gost` runs the dev chain", async () => {
    const env = { ...process.env };
    delete env.WEFT_GOST_ENGINE;
    const args = [
      CLI,
      'start',
      '--crypto',
      'gost',
      '--data-dir',
      tempDir('weft-banner-gost-'),
      '--rest-port',
      String(await freeLoopbackPort()),
      '--p2p-port',
      '0',
    ];
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    try {
      const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no 'GOST crypto' line within 90 s:\n${output.slice(-3000)}`)), 90_000);
        const onData = (chunk: Buffer): void => {
          output += chunk.toString('utf8');
          // Whole lines only: the last may still be arriving.
          for (const text of output.split('\n').slice(0, -1)) {
            if (!text.startsWith('{')) continue;
            const entry = JSON.parse(text) as Record<string, unknown>;
            if (entry['msg'] !== 'GOST crypto') continue;
            clearTimeout(timer);
            resolve(entry);
            return;
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`the node exited (${code}) before its 'GOST crypto' line:\n${output.slice(-3000)}`));
        });
      });
      assert.match(String(line['implementation']), /^native \(OpenSSL GOST engine, .*gost\.so\)$/);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
