/**
 * A devnet of node processes that run contracts: every node runs the key-value SDK contract
 * (test/fixtures/contracts/kv-sdk) from a local package under `image`, with its gRPC
 * contract API on a free loopback port.
 */
import { packageTreeDigest } from '../../../src/contracts/package-digest.js';
import type { KeyPair } from '../../../src/crypto/suite.js';
import { devAccounts, DEV_CHAIN_ID } from '../../../src/cli/dev.js';
import { freeLoopbackPorts } from '../../../src/cli/devnet.js';
import { stringifyJson } from '../../../src/protocol/json.js';
import { Protocol } from '../../../src/protocol/protocol.js';
import type { Transaction } from '../../../src/protocol/transactions/schema.js';
import assert from 'node:assert/strict';
import { Devnet } from '../../../devkit/network.js';
import { buildKvSdkPackage } from '../../../devkit/contracts/sdk-package.js';

export interface ContractsDevnet {
  readonly net: Devnet;
  readonly protocol: Protocol;
  /** Dev account 0: contract developer (and permissioner) of the devnet. */
  readonly developer: KeyPair;
  /** The package digest the 103s name. */
  readonly imageHash: string;
  /** Each node's gRPC port (contract and public services). */
  readonly grpcPorts: readonly number[];
}

/** Builds the package into `packages`, starts `nodes` nodes (killed if the process exits) and waits until they are meshed; `dispose` is the caller's. */
export async function startContractsDevnet(nodes: number, image: string, packages: string): Promise<ContractsDevnet> {
  const dir = await buildKvSdkPackage(packages);
  const imageHash = await packageTreeDigest(dir);
  const protocol = await Protocol.create({ crypto: 'waves', chainId: DEV_CHAIN_ID });
  const developer = devAccounts(protocol)[0]!.keyPair;
  const net = await Devnet.create({ nodes, roundDurationMs: 3000, syncDurationMs: 1000, microBlockIntervalMs: 500, register: false });
  process.once('exit', () => net.killAll());
  // gRPC ports free now and none of the layout's REST and P2P ports (not yet listened on).
  const layoutPorts = new Set(net.layout.nodes.flatMap((n) => [n.restPort, n.p2pPort]));
  const grpcPorts = (await freeLoopbackPorts(net.nodes.length + layoutPorts.size)).filter((p) => !layoutPorts.has(p)).slice(0, net.nodes.length);
  for (const [i, n] of net.nodes.entries()) {
    const port = grpcPorts[i]!;
    await n.editConfig((node) => {
      node['contracts'] = { enable: true, packages: [{ image, source: dir }] };
      const api = (node['api'] ??= {}) as Record<string, unknown>;
      api['grpc'] = { 'bind-address': '127.0.0.1', port };
      // NODE_PORT told to contracts: the same port (WE: keep docker-engine.grpc-server.port equal to api.grpc.port).
      node['docker-engine'] = { 'grpc-server': { port } };
    });
  }
  await net.startAll(60_000);
  await net.meshed(30_000);
  return { net, protocol, developer, imageHash, grpcPorts };
}

/** Timestamps for transactions signed in a row: now, but always after the previous one (no two equal ids). */
export function increasingTimestamps(): () => bigint {
  let last = 0n;
  return () => {
    const now = BigInt(Date.now());
    last = last + 1n > now ? last + 1n : now;
    return last;
  };
}

/** Broadcasts `tx` through node `via` of `net`; anything but 200 fails the test. */
export async function broadcastVia(net: Devnet, tx: Transaction, via = 0): Promise<void> {
  const r = await net.nodes[via]!.post('/transactions/broadcast', stringifyJson(tx.toJson()));
  assert.equal(r.status, 200, r.text);
}
