/**
 * `node.network`: what the P2P network runs on (node-network.ts's NodeNetworkSettings) and
 * the settings only the node reads (WE's keys and application.conf defaults;
 * settings-keys.ts reads and renders them). Durations in ms.
 */
import type { NetworkTlsFiles, NodeNetworkSettings } from './node-network.js';

export interface PeerAddress {
  readonly host: string;
  readonly port: number;
}

export interface NetworkSettings extends NodeNetworkSettings {
  readonly mode: 'default' | 'watcher';
  readonly receivedTxsCacheTimeoutMs: number;
  readonly txBufferSize: number;
  readonly tls: NetworkTlsFiles | undefined;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** WE's application.conf values. */
export const NETWORK_DEFAULTS = {
  bindAddress: '0.0.0.0',
  port: 6864,
  mode: 'default' as const,
  maxSimultaneousConnections: 30,
  handshakeTimeoutMs: 30 * SECOND,
  connectionTimeoutMs: 30 * SECOND,
  breakIdleConnectionsTimeoutMs: MINUTE,
  attemptConnectionDelayMs: 5 * SECOND,
  peersRequestIntervalMs: 2 * MINUTE,
  enablePeersExchange: true,
  receivedTxsCacheTimeoutMs: 3 * MINUTE,
  txBufferSize: 10_000,
  peersDataResidenceTimeMs: 24 * 60 * MINUTE,
  suspensionResidenceTimeMs: MINUTE,
};
