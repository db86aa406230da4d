/**
 * A node's signed attributes (message 42, WE's RawAttributes / NodeAttributes,
 * NodeAttributesSender and NodeAttributesHandler): sent to every peer right after the
 * handshake, between GetPeers and Score.
 *
 *   payload = sender public key ‖ short n ‖ body (n bytes) ‖ signature over the body
 *   body    = node mode (0 default, 1 watcher) ‖ P2P TLS flag (0/1; absent reads as 0)
 *
 * A peer's attributes count when the signature verifies and the sender is the peer's owner;
 * otherwise they are ignored (WE logs and keeps the channel). Until a peer's arrive it is a
 * default-mode node, and whether its privacy replies are encrypted follows the connection
 * (PeerAttributes.p2pTls). A payload that does not read closes the peer (MalformedMessage).
 */
import { concatBytes, encodeBase58, equalBytes } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import type { Protocol } from '../protocol/protocol.js';
import { MalformedMessage } from './messages.js';
import { isStreamPeer, MessageCode, type Peer } from './types.js';

export type NodeMode = 'default' | 'watcher';

const NODE_MODE_BYTES: Readonly<Record<NodeMode, number>> = { default: 0, watcher: 1 };

export interface NodeAttributes {
  readonly mode: NodeMode;
  /** Whether the node runs TLS on its P2P connections (then privacy data travels in clear inside it). */
  readonly p2pTls: boolean;
}

export interface RawAttributes {
  readonly sender: Uint8Array;
  readonly body: Uint8Array;
  readonly signature: Uint8Array;
}

export function attributesBody(attributes: NodeAttributes): Uint8Array {
  return Uint8Array.of(NODE_MODE_BYTES[attributes.mode], attributes.p2pTls ? 1 : 0);
}

/** This node's 42, signed with the owner key. */
export function signNodeAttributes(protocol: Protocol, owner: KeyPair, attributes: NodeAttributes): Uint8Array {
  const body = attributesBody(attributes);
  const length = new Uint8Array(2);
  new DataView(length.buffer).setInt16(0, body.length);
  return concatBytes(owner.publicKey, length, body, protocol.crypto.sign(owner.privateKey, body));
}

export function decodeRawAttributes(protocol: Protocol, payload: Uint8Array): RawAttributes {
  const code = MessageCode.RawAttributes;
  const k = protocol.crypto.publicKeyLength;
  const s = protocol.crypto.signatureLength;
  if (payload.length < k + 2) throw new MalformedMessage(code, `length ${payload.length}, the key and body length need ${k + 2}`);
  const n = new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getInt16(k);
  if (n <= 0) throw new MalformedMessage(code, `body length ${n}, the body may not be empty`);
  if (payload.length < k + 2 + n + s)
    throw new MalformedMessage(code, `length ${payload.length}, a body of ${n} bytes and the signature need ${k + 2 + n + s}`);
  return {
    sender: Uint8Array.from(payload.subarray(0, k)),
    body: Uint8Array.from(payload.subarray(k + 2, k + 2 + n)),
    signature: Uint8Array.from(payload.subarray(k + 2 + n, k + 2 + n + s)),
  };
}

/** The attributes a body says, or why it says none (WE's NodeAttributes.fromBytes). */
export function readAttributesBody(body: Uint8Array): NodeAttributes | string {
  const mode = body[0] === 0 ? 'default' : body[0] === 1 ? 'watcher' : undefined;
  if (mode === undefined) return `${body[0]} is not a node mode`;
  const tls = body.length < 2 ? 0 : body[1];
  if (tls !== 0 && tls !== 1) return `unexpected byte for p2pTlsEnabled field: '${tls}'`;
  return { mode, p2pTls: tls === 1 };
}

export interface NodeAttributesLog {
  debug(message: string): void;
  warn(message: string): void;
}

/** The attributes connected peers sent, each kept for its connection. */
export class PeerAttributes {
  private readonly byPeer = new WeakMap<Peer, NodeAttributes>();

  constructor(
    private readonly protocol: Protocol,
    private readonly log: NodeAttributesLog,
  ) {}

  /** A peer's 42: kept when its signature verifies and its sender is the peer's owner. Throws a MalformedMessage when it does not read. */
  onMessage(peer: Peer, payload: Uint8Array): void {
    const raw = decodeRawAttributes(this.protocol, payload);
    const reasons: string[] = [];
    if (!this.protocol.crypto.verify(raw.sender, raw.body, raw.signature)) reasons.push('attributes signature is invalid');
    if (!equalBytes(this.protocol.addresses.fromPublicKey(raw.sender).bytes, peer.info.ownerAddress)) reasons.push('node owner not found among active peers');
    const attributes = readAttributesBody(raw.body);
    if (typeof attributes === 'string') reasons.push(attributes.toLowerCase());
    if (reasons.length > 0 || typeof attributes === 'string') {
      this.log.warn(`Node attributes of ${encodeBase58(peer.info.ownerAddress)} rejected: ${reasons.join(', ')}`);
      return;
    }
    this.byPeer.set(peer, attributes);
    this.log.debug(`Node attributes [mode: ${attributes.mode}, p2pTlsEnabled: ${attributes.p2pTls}] of ${encodeBase58(peer.info.ownerAddress)} applied`);
  }

  /** The attributes a peer sent, if any (a Weft node before 42 was spoken sends none). */
  of(peer: Peer): NodeAttributes | undefined {
    return this.byPeer.get(peer);
  }

  isWatcher(peer: Peer): boolean {
    return this.byPeer.get(peer)?.mode === 'watcher';
  }

  /**
   * Whether privacy data to and from the peer travels in clear (TLS). On a connection this
   * node runs, whether it runs TLS — a fact both sides share, which a peer's attributes only
   * repeat: a peer whose attributes claim TLS on a plain connection still gets its data
   * encrypted. Elsewhere, as the peer's attributes say.
   */
  p2pTls(peer: Peer): boolean {
    return isStreamPeer(peer) ? peer.tls : this.byPeer.get(peer)?.p2pTls === true;
  }
}
