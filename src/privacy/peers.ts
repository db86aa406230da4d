/**
 * What privacy replication needs from the network layer beyond what every replication
 * needs (replication/peers.ts: the peers and their messages — here codes 30, 31, 39, 40, 44,
 * payloads as messages.ts writes them): large-item streams (item-stream.ts frames) on a
 * peer's connection. The network layer implements it; the tests implement it with an
 * in-process switchboard.
 */
import type { ReplicationPeer, ReplicationPeers } from '../replication/peers.js';

/** A run of stream frames arriving on one connection (see `PrivacyPeer.receiveStream`). */
export interface IncomingStream extends AsyncIterable<Uint8Array> {
  /** Stops taking frames (the connection drops what is left of the stream); the iteration ends with an error. */
  cancel(reason?: Error): void;
}

export interface PrivacyPeer extends ReplicationPeer {
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

export type PrivacyPeers = ReplicationPeers<PrivacyPeer>;
