/**
 * A devnet of node processes that run contracts: every node runs the key-value SDK contract
 * (test/fixtures/contracts/kv-sdk) from a local package under `image`, with its gRPC
 * contract API on a free loopback port.
 */
import { packageTreeDigest } from '../../../src/contracts/package-digest.js';
import type { KeyPair } from '../../../src/crypto/suite.js';
import { devAccounts, DEV_CHAIN_ID } from '../../../src/node/dev.js';
import { Protocol } from '../../../src/protocol/protocol.js';
import { Devnet } from '../../support/network.js';
import { buildKvSdkPackage } from './sdk-package.js';

export interface ContractsDevnet {
  readonly net: Devnet;
  readonly protocol: Protocol;
  /** Dev account 0: contract developer (and permissioner) of the devnet. */
  readonly developer: KeyPair;
  /** The package digest the 103s name. */
  readonly imageHash: string;
}

/** Builds the package into `packages`, starts `nodes` nodes (killed if the process exits) and waits until they are meshed; `dispose` is the caller's. */
export async function startContractsDevnet(nodes: number, image: string, packages: string): Promise<ContractsDevnet> {
  const dir = await buildKvSdkPackage(packages);
  const imageHash = await packageTreeDigest(dir);
  const protocol = await Protocol.create({ crypto: 'waves', chainId: DEV_CHAIN_ID });
  const developer = devAccounts(protocol)[0]!.keyPair;
  const net = await Devnet.create({ nodes, roundDurationMs: 3000, syncDurationMs: 1000, microBlockIntervalMs: 500, register: false });
  process.once('exit', () => net.killAll());
  for (const n of net.nodes) {
    n.editConfig((node) => {
      node['contracts'] = { enable: true, packages: [{ image, source: dir }] };
      const api = (node['api'] ??= {}) as Record<string, unknown>;
      api['grpc'] = { 'bind-address': '127.0.0.1', port: 0 };
    });
  }
  await net.startAll(60_000);
  await net.meshed(30_000);
  return { net, protocol, developer, imageHash };
}
