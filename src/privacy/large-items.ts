/**
 * Large items between nodes (WE's PolicyDataReplier stream and PolicyDataSynchronizer's
 * reader, reference §4.2, §4.5): once feature 180 is active, a request for an item kept as
 * large is answered with a stream (item-stream.ts) of `stream-chunk-size` chunks instead
 * of one PrivateDataResponse, sealed with a stream cipher for the connection's session
 * keys on a plain connection.
 *
 * Serving: at most max(1, min(connected − 1, round(fullness% × connected))) streams go out
 * at once, beyond that the answer is "overloaded" (0x02); a failure before the data starts
 * is "no data" (0x00); a storage read that stalls longer than `stream-timeout` ends the
 * stream.
 *
 * Fetching: streams carry no item name on the wire, so a connection carries one stream at
 * a time (WE's stream handler does the same): the fetches from one peer wait for each
 * other. A stream silent for `request-timeout` fails with RequestTimeout (the engine then
 * marks the peer failed); the storage checks the item's SHA-256 as it saves it.
 */
import { transportEncryptionFor, type TransportEncryption } from '../crypto/transport-encryption.js';
import { FEATURE } from '../protocol/features.js';
import { RequestTimeout } from '../replication/synchronizer.js';
import type { StreamedItems } from '../replication/scheme.js';
import type { PolicyItemKey, PrivacyDataType } from './item.js';
import { itemFrames, readItemFrames, refusalFrames } from './item-stream.js';
import { encodeItemRequest, PrivacyMessageCode } from './messages.js';
import type { IncomingStream, PrivacyPeer } from './peers.js';
import { countingBytes, idOfKey, saveFetched, type ReplicationParts } from './replication.js';
import { itemKind } from './state.js';

/**
 * `source`, failing with `overdue()`'s error when its next chunk takes longer than `ms` (a
 * storage that stalled, a peer gone silent); stopped early, the source is released.
 */
async function* withGapLimit(source: AsyncIterable<Uint8Array>, ms: number, overdue: () => Error): AsyncGenerator<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(overdue()), ms);
      });
      let next: IteratorResult<Uint8Array>;
      try {
        next = await Promise.race([it.next(), late]);
      } finally {
        clearTimeout(timer);
      }
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    void it.return?.();
  }
}

/** A stream's frames, failing with RequestTimeout (and cancelling it) when one takes longer than `ms`. */
const withSilenceLimit = (stream: IncomingStream, ms: number): AsyncGenerator<Uint8Array> =>
  withGapLimit(stream, ms, () => {
    const e = new RequestTimeout(`the stream was silent for ${ms} ms`);
    stream.cancel(e);
    return e;
  });

export class LargeItems implements StreamedItems<PolicyItemKey, PrivacyDataType, PrivacyPeer> {
  private activeStreams = 0;
  /** Per peer: the large-item fetch the next one waits for. */
  private readonly streamsFrom = new Map<string, Promise<void>>();
  private readonly transport: TransportEncryption;

  constructor(private readonly parts: ReplicationParts) {
    this.transport = transportEncryptionFor(parts.protocol.crypto.type);
  }

  /** Before feature 180 every item is served as a small one; after, an item kept as large goes as a stream. */
  async servesStream(key: PolicyItemKey): Promise<boolean> {
    return (
      this.parts.chain.isFeatureActive(FEATURE.PRIVACY_LARGE_OBJECTS) &&
      (await itemKind(this.parts.state, this.parts.storage, key).catch(() => undefined)) === 'large'
    );
  }

  streamed(type: PrivacyDataType): boolean {
    return type === 'large';
  }

  /** WE's cap on simultaneous outgoing streams. */
  private streamCap(): number {
    const connected = this.parts.peers.connected().length;
    const share = Math.round((this.parts.settings.replier.streamMaxPeersFullnessPercentage / 100) * connected);
    return Math.max(1, Math.min(connected - 1, share));
  }

  async serve(peer: PrivacyPeer, key: PolicyItemKey): Promise<void> {
    if (this.activeStreams >= this.streamCap()) {
      this.parts.log.warn({ peer: peer.id, active: this.activeStreams }, 'too many privacy streams going out: answering overloaded');
      await peer.sendStream(refusalFrames('overloaded'));
      return;
    }
    this.activeStreams++;
    try {
      const meta = await this.parts.storage.meta(key).catch(() => undefined);
      const data = meta === undefined ? undefined : await this.parts.storage.openData(key).catch(() => undefined);
      if (meta === undefined || data === undefined) {
        await peer.sendStream(refusalFrames('no-data'));
        return;
      }
      const { streamChunkSize, streamTimeoutMs } = this.parts.settings.replier;
      const keys = peer.sessionKeys;
      const encryption = keys === undefined ? undefined : { transport: this.transport, senderPrivateKey: keys.own.privateKey, recipientPublicKey: keys.peer };
      const counted = { bytes: 0 };
      await peer.sendStream(
        itemFrames(
          meta,
          countingBytes(
            withGapLimit(data.stream as AsyncIterable<Uint8Array>, streamTimeoutMs, () => new Error(`the storage gave no data for ${streamTimeoutMs} ms`)),
            counted,
          ),
          streamChunkSize,
          encryption,
        ),
      );
      this.parts.observer?.served(counted.bytes);
    } finally {
      this.activeStreams--;
    }
  }

  /** One large item at a time from a peer. */
  fetch(peer: PrivacyPeer, key: PolicyItemKey, signal: AbortSignal): Promise<void> {
    const before = this.streamsFrom.get(peer.id) ?? Promise.resolve();
    const mine = before.then(() => this.fetchNow(peer, key, signal));
    const settled = mine.catch(() => undefined);
    this.streamsFrom.set(peer.id, settled);
    void settled.then(() => {
      if (this.streamsFrom.get(peer.id) === settled) this.streamsFrom.delete(peer.id);
    });
    return mine;
  }

  private async fetchNow(peer: PrivacyPeer, key: PolicyItemKey, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const s = this.parts.settings.synchronizer;
    const stream = peer.receiveStream(s.networkStreamBufferSize);
    const abort = (): void => stream.cancel(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    try {
      peer.send(PrivacyMessageCode.PrivateDataRequest, encodeItemRequest(idOfKey(key)));
      const keys = peer.sessionKeys;
      const got = await readItemFrames(
        withSilenceLimit(stream, s.requestTimeoutMs),
        keys === undefined ? undefined : { transport: this.transport, recipientPrivateKey: keys.own.privateKey, senderPublicKey: keys.peer },
      );
      if (got.status !== 'data') throw new Error(got.status === 'overloaded' ? 'the peer is overloaded' : 'the peer has no data');
      const received = await saveFetched(this.parts, key, got.meta, 'large', got.data);
      if (received !== undefined) this.parts.observer?.received(received);
    } catch (e) {
      stream.cancel(e instanceof Error ? e : new Error(String(e)));
      throw e;
    } finally {
      signal.removeEventListener('abort', abort);
    }
  }
}
