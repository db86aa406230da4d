/**
 * What replication needs from the network layer: the connected peers, each with what its
 * handshake proved, a way to send it a message (the payloads the users' codecs write; the
 * network layer frames them), and the messages peers send. The network layer implements it
 * (network/privacy-messages.ts, once per family of codes); the tests with an in-process
 * switchboard.
 */
import type { KeyPair } from '../crypto/suite.js';

export interface ReplicationPeer {
  /** Unique per connection (logs, maps). */
  readonly id: string;
  /** The address (26 bytes) of the peer's node owner, proven in the handshake. */
  readonly ownerAddress: Uint8Array;
  /** A watcher node (`node.network.mode = watcher`) takes no part in replication. */
  readonly watcher: boolean;
  /**
   * On a plain (non-TLS) connection, the session keys of its handshake: this node's key pair
   * for the connection and the peer's session public key; data is encrypted with them. On a
   * TLS connection (`undefined`), data goes in clear inside TLS.
   */
  readonly sessionKeys: { readonly own: KeyPair; readonly peer: Uint8Array } | undefined;
  /**
   * Sends one message; the network layer frames it with its code (bounded send queue).
   * False when the message is not sent: the connection is closed, its send queue is full,
   * or the payload exceeds its code's cap.
   */
  send(code: number, payload: Uint8Array): boolean;
}

export interface ReplicationPeers<P extends ReplicationPeer = ReplicationPeer> {
  /** The connected, handshaken peers. */
  connected(): readonly P[];
  /** Messages with the family's codes from peers; returns how to stop listening. */
  onMessage(listener: (peer: P, code: number, payload: Uint8Array) => void): () => void;
}
