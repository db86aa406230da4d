/** `/peers/*` and `/debug/utx-rebroadcast` over the node's P2P network. */
import type { PeersService } from '../../api/services.js';
import type { NodeNetwork } from '../../network/node-network.js';
import { socketAddressText } from '../../network/peers.js';

export function peersService(network: NodeNetwork): PeersService {
  return {
    connected: () => network.connectedViews(),
    all: () => network.peers.known().map((known) => ({ address: socketAddressText(known.endpoint), lastSeen: BigInt(known.lastSeen) })),
    suspended: () => network.peers.suspended().map((s) => ({ hostname: s.hostname, timestamp: BigInt(s.timestamp) })),
    connect: (host, port) => network.connect(host, port),
    hostname: (owner) => network.hostnameOf(owner),
    rebroadcastPool: () => network.rebroadcastPool(),
  };
}
