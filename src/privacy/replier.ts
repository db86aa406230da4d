/**
 * Serving items to peers (WE's PolicyDataReplier, reference §4.5). For each
 * PrivateDataRequest (30):
 *
 *  - the asking peer's node owner must be a registered participant and one of the policy's
 *    recipients; otherwise the request is dropped (logged, no answer: a non-member never
 *    receives a byte);
 *  - once feature 180 is active the item's kind decides the answer (descriptor, else the
 *    storage), before it every item is served as a small one;
 *  - a small item is answered with a PrivateDataResponse (31) holding WE's strict payload,
 *    in clear on TLS, encrypted for the connection's session keys otherwise (with the network's crypto: crypto/transport-encryption.ts) (from an LRU
 *    cache of `cache.max-size` items kept `cache.expire-after`); any failure answers "no
 *    data", and so does an item whose 31 would exceed the message's cap (20 MiB + 128 B),
 *    which no connection carries — an answer the connection refuses is logged;
 *  - a large item is answered with a stream (item-stream.ts) of `stream-chunk-size` chunks:
 *    at most max(1, min(connected − 1, round(fullness% × connected))) streams go out at once,
 *    beyond that the answer is "overloaded" (0x02); a failure before the data starts is "no
 *    data" (0x00); a storage read that stalls longer than `stream-timeout` ends the stream.
 *
 * At most `replier.parallelism` requests are served at once; twice that many wait; more
 * are dropped (the requesting synchronizer retries).
 */
import { FEATURE } from '../protocol/features.js';
import { transportEncryptionFor, type TransportEncryption } from '../crypto/transport-encryption.js';
import type { PolicyItemKey, PolicyItemMeta } from './item.js';
import { itemFrames, refusalFrames } from './item-stream.js';
import { decodeItemRequest, encodePrivateDataResponse, encodeStrictPayload, MAX_PRIVATE_DATA_RESPONSE, PrivacyMessageCode, privateDataResponseLength, type PolicyItemId } from './messages.js';
import type { PrivacyPeer } from './peers.js';
import { countingBytes, isAmong, itemText, keyOfId, recipientsOf, type ReplicationParts } from './replication.js';
import { itemKind } from './state.js';

interface CachedItem {
  readonly meta: PolicyItemMeta;
  readonly data: Uint8Array;
  readonly until: number;
}

/** Ends a source whose next chunk takes longer than `ms` (the storage stalled). */
async function* withStallLimit(source: AsyncIterable<Uint8Array>, ms: number): AsyncGenerator<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the storage gave no data for ${ms} ms`)), ms);
      });
      let next: IteratorResult<Uint8Array>;
      try {
        next = await Promise.race([it.next(), stalled]);
      } finally {
        clearTimeout(timer);
      }
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    // Stopped early (stalled, or the peer went away): release the storage's stream.
    void it.return?.();
  }
}

export class PolicyDataReplier {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private activeStreams = 0;
  private readonly cache = new Map<string, CachedItem>();
  private readonly transport: TransportEncryption;

  constructor(
    private readonly parts: ReplicationParts,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.transport = transportEncryptionFor(parts.protocol.crypto.type);
  }

  /** Takes a PrivateDataRequest (30) from a peer. */
  async handle(peer: PrivacyPeer, payload: Uint8Array): Promise<void> {
    const id = decodeItemRequest(PrivacyMessageCode.PrivateDataRequest, payload);
    const { parallelism } = this.parts.settings.replier;
    if (this.running >= parallelism) {
      if (this.waiting.length >= 2 * parallelism) {
        this.parts.log.warn({ peer: peer.id }, 'privacy data request dropped: the replier is at its limit');
        return;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running++;
    try {
      await this.serve(peer, id);
    } catch (e) {
      this.parts.log.warn({ peer: peer.id, err: e }, 'serving a privacy data request failed');
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private async serve(peer: PrivacyPeer, id: PolicyItemId): Promise<void> {
    const key = keyOfId(id);
    const state = this.parts.chain.state();
    if (state.participant(peer.ownerAddress) === undefined || !isAmong(peer.ownerAddress, recipientsOf(this.parts, id.policyId))) {
      this.parts.log.warn({ peer: peer.id, item: itemText(key) }, "privacy data request from a peer outside the policy's recipients: not served");
      return;
    }
    const large = this.parts.chain.isFeatureActive(FEATURE.PRIVACY_LARGE_OBJECTS) && (await itemKind(this.parts.state, this.parts.storage, key).catch(() => undefined)) === 'large';
    if (large) await this.serveStream(peer, key);
    else await this.serveStrict(peer, id, key);
  }

  private async strictItem(key: PolicyItemKey): Promise<CachedItem | undefined> {
    const text = itemText(key);
    const now = this.clock();
    const hit = this.cache.get(text);
    if (hit !== undefined && hit.until > now) {
      this.cache.delete(text);
      this.cache.set(text, hit);
      return hit;
    }
    const meta = await this.parts.storage.meta(key);
    const data = meta === undefined ? undefined : await this.parts.storage.readData(key);
    if (meta === undefined || data === undefined) return undefined;
    const item = { meta, data, until: now + this.parts.settings.cache.expireAfterMs };
    this.cache.set(text, item);
    if (this.cache.size > this.parts.settings.cache.maxSize) this.cache.delete(this.cache.keys().next().value!);
    return item;
  }

  /** The 31 for a small item: its strict payload, sealed on a plain connection; "no data" when it is missing or too large for any 31. */
  private async strictAnswer(peer: PrivacyPeer, id: PolicyItemId, key: PolicyItemKey): Promise<{ answer: Uint8Array; served?: number }> {
    const noData = { answer: encodePrivateDataResponse({ ...id, kind: 'no-data' }) };
    const item = await this.strictItem(key);
    if (item === undefined) return noData;
    const payload = encodeStrictPayload(item.meta, item.data);
    const keys = peer.sessionKeys;
    const length = privateDataResponseLength(payload.length, keys === undefined ? undefined : this.transport);
    if (length > MAX_PRIVATE_DATA_RESPONSE) {
      // No connection carries it (stored before sendData refused such data, or fetched from
      // a node that does not refuse it): sent, it would be dropped unseen and the requester
      // would wait out its timeout. "No data" sends it on to another holder at once.
      this.parts.log.warn(
        { peer: peer.id, item: itemText(key), bytes: length, max: MAX_PRIVATE_DATA_RESPONSE },
        'a small privacy item is too large for a PrivateDataResponse: answering no data (items this large go through sendLargeData)',
      );
      return noData;
    }
    if (keys === undefined) return { answer: encodePrivateDataResponse({ ...id, kind: 'data', payload }), served: item.data.length };
    const sealed = this.transport.encrypt(payload, keys.own.privateKey, keys.peer);
    return { answer: encodePrivateDataResponse({ ...id, kind: 'encrypted', wrappedKey: sealed.wrappedKey, encrypted: sealed.encrypted }), served: item.data.length };
  }

  private async serveStrict(peer: PrivacyPeer, id: PolicyItemId, key: PolicyItemKey): Promise<void> {
    let answer: { answer: Uint8Array; served?: number };
    try {
      answer = await this.strictAnswer(peer, id, key);
    } catch (e) {
      this.parts.log.warn({ item: itemText(key), err: e }, 'a small privacy item could not be served: answering no data');
      answer = { answer: encodePrivateDataResponse({ ...id, kind: 'no-data' }) };
    }
    if (!peer.send(PrivacyMessageCode.PrivateDataResponse, answer.answer)) {
      this.parts.log.warn({ peer: peer.id, item: itemText(key) }, 'a privacy data answer was not sent (the connection closed or its send queue is full): the requester times out and asks another holder');
      return;
    }
    if (answer.served !== undefined) this.parts.observer?.served(answer.served);
  }

  /** WE's cap on simultaneous outgoing streams. */
  private streamCap(): number {
    const connected = this.parts.peers.connected().length;
    const share = Math.round((this.parts.settings.replier.streamMaxPeersFullnessPercentage / 100) * connected);
    return Math.max(1, Math.min(connected - 1, share));
  }

  private async serveStream(peer: PrivacyPeer, key: PolicyItemKey): Promise<void> {
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
      await peer.sendStream(itemFrames(meta, countingBytes(withStallLimit(data.stream as AsyncIterable<Uint8Array>, streamTimeoutMs), counted), streamChunkSize, encryption));
      this.parts.observer?.served(counted.bytes);
    } finally {
      this.activeStreams--;
    }
  }
}
