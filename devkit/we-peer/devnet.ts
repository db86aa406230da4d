/**
 * A simulated WE miner in a devkit devnet: it takes the identity of a devnet node that is
 * never started (its owner key, a registered miner in the shared genesis, and its P2P port,
 * which the other nodes know as a peer), reads the genesis from that node's config, and
 * follows the PoA schedule of the devnet's rounds.
 */
import { readHoconFile } from '../../src/config/hocon.js';
import { devnetNodeKeyPair, type DevnetLayout } from '../../src/cli/devnet.js';
import { devProtocol } from '../../src/cli/dev.js';
import { genesisBlock, genesisSettingsFromConfig } from '../../src/protocol/blocks/genesis-block.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import { genesisMinerQueue, WeChainView } from './chain-view.js';
import { WePeer, type WePeerOptions } from './peer.js';

export interface DevnetWePeer {
  readonly peer: WePeer;
  readonly protocol: Protocol;
}

/** A WE peer as devnet node `index` (left unstarted), listening on that node's P2P port when `listen`. */
export async function devnetWePeer(
  layout: DevnetLayout,
  index: number,
  options: Partial<Pick<WePeerOptions, 'mine' | 'transactions' | 'microBlockIntervalMs' | 'version'>> & { readonly listen?: boolean } = {},
): Promise<DevnetWePeer> {
  const node = layout.nodes[index];
  if (node === undefined) throw new Error(`the devnet has no node ${index}`);
  const protocol = await devProtocol(layout.crypto ?? 'waves');
  const config = (await readHoconFile(node.configFile)) as unknown as { node: { blockchain: { custom: { genesis: unknown } } } };
  const genesisSettings = genesisSettingsFromConfig(protocol, config.node.blockchain.custom.genesis);
  const genesis = genesisBlock(protocol, genesisSettings, 'poa');
  const chain = new WeChainView(
    protocol,
    genesis,
    { genesisTimestamp: BigInt(layout.genesisTimestamp), roundMs: BigInt(layout.roundDurationMs), syncMs: BigInt(layout.syncDurationMs) },
    genesisMinerQueue(protocol, genesisSettings),
  );
  const peer = new WePeer({
    protocol,
    name: `we-peer-${index}`,
    owner: devnetNodeKeyPair(protocol, index),
    chain,
    participants: genesisSettings.networkParticipants.map((p) => p.publicKey),
    ...(options.listen === true ? { declaredPort: node.p2pPort } : {}),
    ...options,
  });
  if (options.listen === true) await peer.listen(node.p2pPort);
  return { peer, protocol };
}
