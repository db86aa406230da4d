/**
 * What replication needs from the network layer: the connected peers, each with what its
 * handshake proved, a way to send it the privacy messages (codes 30, 31, 39, 40, 44 —
 * payloads as messages.ts writes them; the network layer frames them) and large-item
 * streams (item-stream.ts frames), and the messages peers send. The network layer
 * implements it; the tests implement it with an in-process switchboard.
 */
import type { KeyPair } from '../crypto/suite.js';
import type { PrivacyMessageCode } from './messages.js';

/** A run of stream frames arriving on one connection (see `PrivacyPeer.receiveStream`). */
export interface IncomingStream extends AsyncIterable<Uint8Array> {
  /** Stops taking frames (the connection drops what is left of the stream); the iteration ends with an error. */
  cancel(reason?: Error): void;
}

export interface PrivacyPeer {
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
  send(code: PrivacyMessageCode, payload: Uint8Array): boolean;
  /**
   * Writes a large-item stream: each frame payload (item-stream.ts) as one length-prefixed
   * frame, with back-pressure; resolves once the last (empty) frame is written.
   */
  sendStream(frames: AsyncIterable<Uint8Array>): Promise<void>;
  /**
   * Takes the next stream that arrives on this connection: frames whose payload starts with
   * the chunk magic, up to and including the empty frame, at most `bufferSize` frames
   * buffered before the connection stops reading. Called before the request whose answer is
   * a stream; one stream per connection at a time.
   */
  receiveStream(bufferSize: number): IncomingStream;
}

export interface PrivacyPeers {
  /** The connected, handshaken peers. */
  connected(): readonly PrivacyPeer[];
  /** Messages with the privacy codes from peers; returns how to stop listening. */
  onMessage(listener: (peer: PrivacyPeer, code: number, payload: Uint8Array) => void): () => void;
}
