/** `node.network`'s key table (WE's keys and defaults; TLS as Weft reads it, from PEM files). */
import {
  boolKey,
  checkedKey,
  choiceKey,
  customKey,
  intKey,
  keyTable,
  listKey,
  optionalStringKey,
  positiveDurationKey,
  stringKey,
  type KeyTable,
} from '../config/key-table.js';
import { describeValue, fail, parseString } from '../config/values.js';
import type { NetworkTlsFiles } from './node-network.js';
import { NETWORK_DEFAULTS as d, type NetworkSettings, type PeerAddress } from './settings.js';

const MAX_NODE_NAME_BYTES = 127;

/** `host:port` (WE reads it as the authority of a `my://` URI). */
function parsePeerAddress(v: unknown, path: string): PeerAddress {
  const text = parseString(v, path).trim();
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:/[\]]+)):(\d{1,5})$/.exec(text);
  const port = m === null ? NaN : Number(m[3]);
  if (m === null || port > 65535) return fail(path, `expected "host:port", got ${describeValue(v)}`);
  return { host: m[1] ?? m[2]!, port };
}

const peerText = (p: PeerAddress): string => (p.host.includes(':') ? `[${p.host}]:${p.port}` : `${p.host}:${p.port}`);

const TLS = customKey<NetworkTlsFiles | undefined>(
  'tls',
  (n) => {
    const v = n.get('tls');
    if (v === undefined || v === false) return undefined;
    if (v === true) fail(n.at('tls'), 'Weft reads TLS keys from PEM files: write tls { enable = true, key-file = "…", cert-file = "…", ca-file = "…" }');
    const t = n.section('tls');
    if (!t.bool('enable', true)) return undefined;
    const caFile = t.optionalString('ca-file');
    return { keyFile: t.string('key-file'), certFile: t.string('cert-file'), caFile };
  },
  (tls) => ({ enable: true, 'key-file': tls.keyFile, 'cert-file': tls.certFile, ...(tls.caFile === undefined ? {} : { 'ca-file': tls.caFile }) }),
);

/** `node.network`. */
export const NETWORK_TABLE: KeyTable<NetworkSettings> = keyTable<NetworkSettings>({
  bindAddress: stringKey('bind-address', d.bindAddress),
  port: intKey('port', d.port, { min: 0, max: 65535 }),
  declaredAddress: customKey(
    'declared-address',
    (n) => (n.has('declared-address') ? parsePeerAddress(n.get('declared-address'), n.at('declared-address')) : undefined),
    peerText,
  ),
  nodeName: checkedKey(optionalStringKey('node-name'), (name, path) => {
    if (name !== undefined && Buffer.byteLength(name, 'utf8') > MAX_NODE_NAME_BYTES)
      fail(path, `Node name should have length less than ${MAX_NODE_NAME_BYTES} bytes`);
  }),
  nonce: customKey(
    'nonce',
    (n) => (n.has('nonce') ? n.long('nonce') : undefined),
    (nonce) => nonce,
  ),
  knownPeers: listKey('known-peers', parsePeerAddress, peerText),
  mode: choiceKey('mode', ['default', 'watcher'], d.mode),
  maxSimultaneousConnections: intKey('max-simultaneous-connections', d.maxSimultaneousConnections, { min: 1 }),
  handshakeTimeoutMs: positiveDurationKey('handshake-timeout', d.handshakeTimeoutMs, 'must be > 0'),
  connectionTimeoutMs: positiveDurationKey('connection-timeout', d.connectionTimeoutMs, 'must be > 0'),
  breakIdleConnectionsTimeoutMs: positiveDurationKey('break-idle-connections-timeout', d.breakIdleConnectionsTimeoutMs, 'must be > 0'),
  attemptConnectionDelayMs: positiveDurationKey('attempt-connection-delay', d.attemptConnectionDelayMs, 'must be > 0'),
  peersRequestIntervalMs: positiveDurationKey('peers-request-interval', d.peersRequestIntervalMs, 'must be > 0'),
  enablePeersExchange: boolKey('enable-peers-exchange', d.enablePeersExchange),
  receivedTxsCacheTimeoutMs: positiveDurationKey('received-txs-cache-timeout', d.receivedTxsCacheTimeoutMs, 'must be > 0'),
  txBufferSize: intKey('tx-buffer-size', d.txBufferSize, { min: 1 }),
  peersDataResidenceTimeMs: positiveDurationKey('peers-data-residence-time', d.peersDataResidenceTimeMs, 'must be > 0'),
  suspensionResidenceTimeMs: positiveDurationKey('suspension-residence-time', d.suspensionResidenceTimeMs, 'must be > 0'),
  tls: TLS,
});
