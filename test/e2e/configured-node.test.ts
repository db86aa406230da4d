/**
 * A configured node, the way an operator brings one up: `generate accounts` into a
 * keystore, a WE-style node.conf naming them, `generate genesis` to sign it, then
 * `start --config` with the owner's password in WE's environment variable. The node must
 * produce blocks and confirm a transaction signed by its keystore.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { confirmedTransfer, prepareConfiguredNode, startConfiguredNode, untilHeight } from './configured.js';
import { freePort, until } from './support.js';

/** The local addresses of the TCP sockets listening on `port`, read from Linux's /proc/net/tcp and tcp6. */
function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    let table: string;
    try {
      table = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of table.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local === undefined || state !== '0A') continue;
      const [hex, portHex] = local.split(':') as [string, string];
      if (parseInt(portHex, 16) !== port) continue;
      // Each 32-bit word of the address is written in the host's (little-endian) order.
      const bytes = (hex.match(/.{8}/g) ?? []).flatMap((word) => (word.match(/../g) ?? []).reverse().map((b) => parseInt(b, 16)));
      if (!v6) found.push(bytes.join('.'));
      else found.push(bytes.every((b, i) => b === (i === 15 ? 1 : 0)) ? '::1' : bytes.every((b) => b === 0) ? '::' : `v6:${hex}`);
    }
  }
  return found;
}

/** Whether a TCP connection to host:port is accepted. */
const accepts = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 3000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });

describe('a node started from a WE-style config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-configured-'));
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('generates accounts and genesis, starts, mines and confirms a keystore-signed transfer', async () => {
    const { accounts, owner, other, conf, restPort } = await prepareConfiguredNode(dir, {
      chainId: 'K',
      consensus: 'type = poa, round-duration = 3s, sync-duration = 1s, ban-duration-blocks = 100, warnings-for-ban = 3, max-bans-percentage = 40',
      preActivatedFeatures: [2, 3, 4, 5, 6, 7, 9, 10, 120, 140, 160, 1122],
      averageBlockDelay: '60s',
      ownerRoles: ['permissioner', 'miner', 'connection_manager', 'issuer'],
    });
    assert.equal(accounts.length, 2);

    const node = startConfiguredNode(conf, restPort, 'owner secret');
    children.push(node.child);
    try {
      const height = await untilHeight(node, 2, 'the node to serve and mine block 2');
      assert.ok(height >= 2);
      const info = await confirmedTransfer(node, { sender: owner.address, password: 'owner secret', recipient: other.address, amount: 12345 });
      assert.equal(info['recipient'], other.address);
      assert.equal(info['amount'], 12345);
      const first = await node.get('/blocks/first');
      assert.equal(first.json['generator'] === undefined, false);
      assert.equal((first.json['transactions'] as unknown[]).length, 2 + 2 + 4);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n--- node output ---\n${node.output().slice(-3000)}`, { cause: e });
    }
  });

  it(
    'serves the contract gRPC API on loopback only, unless its config names another address',
    { skip: process.platform === 'linux' ? false : 'reads /proc/net' },
    async () => {
      const grpcPort = await freePort();
      const nodeDir = mkdtempSync(join(dir, 'grpc-'));
      const { conf, restPort } = await prepareConfiguredNode(nodeDir, {
        chainId: 'L',
        consensus: 'type = poa, round-duration = 3s, sync-duration = 1s, ban-duration-blocks = 100, warnings-for-ban = 3, max-bans-percentage = 40',
        preActivatedFeatures: [2, 3, 4, 5, 6, 7, 9, 10, 120, 140, 160, 1122],
        averageBlockDelay: '60s',
        ownerRoles: ['permissioner', 'miner', 'connection_manager', 'issuer'],
        // Contracts on, with WE's keys and no bind-address: WE would listen on 0.0.0.0.
        extraNodeConfig: `  contracts.enable = yes\n  api.grpc.port = ${grpcPort}`,
      });
      const node = startConfiguredNode(conf, restPort, 'owner secret');
      children.push(node.child);
      try {
        await untilHeight(node, 1, 'the node to serve');
        const addresses = await until(
          'the gRPC server to listen',
          () => {
            const listening = listeningAddresses(grpcPort);
            return listening.length > 0 ? listening : undefined;
          },
          30_000,
        );
        assert.deepEqual(addresses, ['127.0.0.1']);
        assert.equal(await accepts('127.0.0.1', grpcPort), true);
        // Through an address of the machine that is not loopback, when it has one: refused.
        const outside = Object.values(networkInterfaces())
          .flatMap((list) => list ?? [])
          .find((a) => a.family === 'IPv4' && !a.internal);
        if (outside !== undefined) assert.equal(await accepts(outside.address, grpcPort), false, `not reachable at ${outside.address}`);
      } catch (e) {
        throw new Error(`${(e as Error).message}\n--- node output ---\n${node.output().slice(-3000)}`, { cause: e });
      }
    },
  );
});
