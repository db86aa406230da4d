/**
 * Serving items to peers (WE's PolicyDataReplier, privacy reference §4.5, and
 * ConfidentialDataReplier). For each data request:
 *
 *  - the asking peer's node owner must be a registered participant and a member of the
 *    item's group; otherwise the request is dropped (logged, no answer: a non-member never
 *    receives a byte);
 *  - an item the scheme serves as a stream (privacy's large items) is answered by the
 *    scheme's stream;
 *  - any other item is answered with one strict answer: its content in clear on TLS,
 *    sealed for the connection's session keys otherwise (the network's transport
 *    encryption), read through a cache of `cache.max-size` items kept `cache.expire-after`
 *    (least recently used out first). A missing item, a failure, and an item whose answer
 *    would exceed the answer code's cap — which no connection carries: sent, it would be
 *    dropped unseen and the requester would wait out its request timeout — are answered
 *    "no data", so the requester asks another holder at once. An answer the connection
 *    refuses is logged.
 *
 * At most `replier.parallelism` requests are served at once; twice that many wait; more
 * are dropped (the requesting synchronizer retries).
 */
import { transportEncryptionFor, type TransportEncryption } from '../crypto/transport-encryption.js';
import { ExpiringCache } from './expiring-cache.js';
import { isAmong } from './inventories.js';
import type { ReplicationPeer } from './peers.js';
import type { ReplicationEngineParts, StrictItem } from './scheme.js';

interface Answer {
  readonly payload: Uint8Array;
  /** The data bytes it carries (absent: "no data"). */
  readonly served?: number;
}

export class Replier<K, Kind, H, P extends ReplicationPeer> {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly cache: ExpiringCache<string, StrictItem<H>>;
  private readonly transport: TransportEncryption;

  constructor(private readonly parts: ReplicationEngineParts<K, Kind, H, P>) {
    this.transport = parts.transport ?? transportEncryptionFor(parts.protocol.crypto.type);
    const { maxSize, expireAfterMs } = parts.settings.cache;
    this.cache = new ExpiringCache({ maxSize, ttlMs: expireAfterMs, recency: true, ...(parts.clock === undefined ? {} : { now: parts.clock }) });
  }

  /** How many items the cache of served items holds now. */
  get cachedItems(): number {
    return this.cache.size;
  }

  /** Takes a data request from a peer; throws DecodeError on a malformed one. */
  async handle(peer: P, code: number, payload: Uint8Array): Promise<void> {
    const key = this.parts.scheme.requests.decode(code, payload);
    const { parallelism } = this.parts.settings.replier;
    if (this.running >= parallelism) {
      if (this.waiting.length >= 2 * parallelism) {
        this.parts.log.warn({ peer: peer.id }, `${this.parts.scheme.words.family} data request dropped: the replier is at its limit`);
        return;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running++;
    try {
      await this.serve(peer, key);
    } catch (e) {
      this.parts.log.warn({ peer: peer.id, err: e }, `serving a ${this.parts.scheme.words.family} data request failed`);
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private async serve(peer: P, key: K): Promise<void> {
    const { scheme } = this.parts;
    if (!scheme.registered(peer.ownerAddress) || !isAmong(peer.ownerAddress, scheme.members(key))) {
      this.parts.log.warn(
        { peer: peer.id, item: scheme.text(key) },
        `${scheme.words.family} data request from a peer outside ${scheme.words.group}: not served`,
      );
      return;
    }
    const streams = scheme.streams;
    if (streams !== undefined && (await streams.servesStream(key))) {
      await streams.serve(peer, key);
      return;
    }
    let answer: Answer;
    try {
      answer = await this.strictAnswer(peer, key);
    } catch (e) {
      this.parts.log.warn({ item: scheme.text(key), err: e }, `a ${scheme.words.strictItem} could not be served: answering no data`);
      answer = { payload: scheme.answers.noData(key) };
    }
    if (!peer.send(scheme.answers.code, answer.payload)) {
      this.parts.log.warn(
        { peer: peer.id, item: scheme.text(key) },
        `a ${scheme.words.family} data answer was not sent (the connection closed or its send queue is full): the requester times out and asks another holder`,
      );
      return;
    }
    if (answer.served !== undefined) this.parts.observer?.served(answer.served);
  }

  private async strictItem(key: K): Promise<StrictItem<H> | undefined> {
    const text = this.parts.scheme.text(key);
    const hit = this.cache.get(text);
    if (hit !== undefined) return hit;
    const item = await this.parts.scheme.store.readStrict(key);
    if (item !== undefined) this.cache.set(text, item);
    return item;
  }

  /** The strict answer: the content, sealed on a plain connection; "no data" when the item is missing or too large for any answer. */
  private async strictAnswer(peer: P, key: K): Promise<Answer> {
    const { answers, words } = this.parts.scheme;
    const noData = { payload: answers.noData(key) };
    const item = await this.strictItem(key);
    if (item === undefined) return noData;
    const keys = peer.sessionKeys;
    const length = answers.length(item.head, item.content.length, keys === undefined ? undefined : this.transport);
    if (length > answers.maxLength) {
      this.parts.log.warn(
        { peer: peer.id, item: this.parts.scheme.text(key), bytes: length, max: answers.maxLength },
        `a ${words.strictItem} is too large for a ${words.answer}: answering no data`,
      );
      return noData;
    }
    const content = keys === undefined ? item.content : this.transport.encrypt(item.content, keys.own.privateKey, keys.peer);
    return { payload: answers.encode(key, item.head, content), served: item.dataBytes };
  }
}
