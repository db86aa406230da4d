/**
 * `npm run devnet -- --nodes 1`: a devnet of one node forges alone (miner.quorum 0 — it has no
 * miner peer to wait for), while larger devnets keep WE's quorum of one miner peer.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { loadNodeConfig } from '../../src/node/config.js';
import { freeLoopbackPorts, prepareDevnet, spawnDevnetNode } from '../../src/cli/devnet.js';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tempDir } from '../../devkit/tmp.js';
import { until } from '../../devkit/wait.js';

const CHEAP = { scrypt: { N: 1024, r: 8, p: 1 } };
const children: ChildProcess[] = [];
after(() => children.forEach((c) => c.kill('SIGKILL')));

describe('free loopback ports for devnets and tests', () => {
  it('are distinct, free and below the kernel’s ephemeral range (where outgoing connections take their source ports)', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await freeLoopbackPorts(40);
    assert.equal(new Set(ports).size, 40);
    for (const port of ports) assert.ok(port >= 10_000 && port < low, `${port}`);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
    server.close();
  });
});

describe('devnet --nodes 1', () => {
  it('writes miner.quorum 0 for a lone node and 1 for two or more', async () => {
    const single = await prepareDevnet({ nodes: 1, dir: tempDir('weft-devnet-1-'), basePort: 0, keystore: CHEAP });
    assert.equal((await loadNodeConfig(single.nodes[0]!.configFile, { env: {} })).miner.quorum, 0);
    const pair = await prepareDevnet({ nodes: 2, dir: tempDir('weft-devnet-2-'), basePort: 0, keystore: CHEAP });
    for (const n of pair.nodes) assert.equal((await loadNodeConfig(n.configFile, { env: {} })).miner.quorum, 1);
  });

  it('forges blocks on its own', async () => {
    const layout = await prepareDevnet({ nodes: 1, dir: tempDir('weft-devnet-1-'), basePort: 0, keystore: CHEAP, roundDurationMs: 1000, syncDurationMs: 500 });
    const node = layout.nodes[0]!;
    children.push(spawnDevnetNode(node));
    const height = await until(
      'the lone devnet node at height 3',
      async () => {
        try {
          const h = ((await (await fetch(`${node.restUrl}/blocks/height`)).json()) as { height: number }).height;
          return h >= 3 ? h : undefined;
        } catch {
          return undefined;
        }
      },
      90_000,
      250,
    );
    assert.ok(height >= 3);
  });
});
