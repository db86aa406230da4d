/**
 * What `npm start` prints: with another REST port the dev chain's contract engine takes any
 * free gRPC port, and the banner names the port it took — a gRPC client (the contract status
 * service) needs it.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import { freeLoopbackPort } from '../../src/cli/devnet.js';
import type { Node } from '../../src/node/node.js';
import { startNode } from '../../src/cli/start.js';
import { tempDir } from '../../devkit/tmp.js';

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
});
