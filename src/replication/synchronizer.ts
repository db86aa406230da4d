/**
 * Fetching the items this node must hold from the group's other members (WE's
 * PolicyDataSynchronizer, privacy reference §4.1 and §4.4, and ConfidentialDataSynchronizer,
 * the same machine).
 *
 * What to fetch: the pending set (pending-items.ts, persisted: a restart resumes). Items
 * join it from what the user watches (the chain, reads that found data missing, forceSync,
 * announced items a scheme wants); each newly added item is fetched at once. At start
 * every pending item is fetched again; every `lost-data-processing-delay` the lost items
 * are retried. A rollback of an item's anchoring cancels its download.
 *
 * Fetching one item:
 *  1. already stored → done;
 *  2. the group's peers (connected, non-watcher, owner a member); none → retry;
 *  3. when no holder is known (or the last attempt ran out of holders), an inventory
 *     request goes to all of them, then `inventory-request-delay`;
 *  4. the known holders (inventories.ts), shuffled, peers that timed out recently last,
 *     one by one: a data request, answered by a strict answer or (the scheme's large items)
 *     a stream, each bounded by `request-timeout` of silence; "no data", "overloaded", a
 *     malformed answer or a failed save moves on to the next holder; a timeout marks the
 *     peer failed for `failed-peers-cache-expire-timeout` (at most `failed-peers-cache-size`
 *     peers remembered). No new holder within `inventory-stream-timeout` ends the attempt;
 *  5. success: the store checks the item as it saves it (a holder that sends other bytes
 *     fails like one with no data), the item is announced to the group's peers when the
 *     scheme says it is recent (`inventory-timestamp-threshold`), and it leaves the pending
 *     and lost sets;
 *  6. otherwise wait (`init-retry-delay`, × 4/3 each time) and try again (an item stored
 *     meanwhile ends it); after `max-attempt-count` attempts the item moves to the lost set.
 *
 * At most `crawling-parallelism` items are fetched at once; items from the pending set
 * take at most half of that, lost items a quarter, so new items always find room.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeBase58, equalBytes } from '../crypto/encoding.js';
import { transportEncryptionFor, type TransportEncryption } from '../crypto/transport-encryption.js';
import { ExpiringCache } from './expiring-cache.js';
import type { Inventories } from './inventories.js';
import type { PendingItem } from './pending-items.js';
import type { ReplicationPeer } from './peers.js';
import type { ReceivedAnswer, ReplicationEngineParts } from './scheme.js';
import { InternalError } from '../errors/internal.js';

/** A request that got no answer in time. */
export class RequestTimeout extends InternalError {
  override readonly name = 'RequestTimeout';
}

/** Waits for a free slot; `release` gives it back. */
class Slots {
  private used = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async acquire(signal: AbortSignal): Promise<() => void> {
    if (this.used >= this.size) {
      await new Promise<void>((resolve, reject) => {
        const wake = (): void => {
          signal.removeEventListener('abort', abort);
          resolve();
        };
        const abort = (): void => {
          const i = this.queue.indexOf(wake);
          if (i >= 0) this.queue.splice(i, 1);
          reject(signal.reason as Error);
        };
        signal.addEventListener('abort', abort, { once: true });
        this.queue.push(wake);
      });
    }
    this.used++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used--;
      this.queue.shift()?.();
    };
  }
}

type Source = 'update' | 'pending' | 'lost';
type Attempt<Kind> = { readonly type: Kind } | 'no-peers' | 'no-holder';

const shuffled = <T>(list: readonly T[]): T[] => {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

export class Synchronizer<K, Kind, H, P extends ReplicationPeer> {
  private readonly running = new Map<string, AbortController>();
  private readonly slots: Slots;
  private readonly pendingSlots: Slots;
  private readonly lostSlots: Slots;
  /** Peer owner addresses (Base58) that timed out. */
  private readonly failedPeers: ExpiringCache<string, true>;
  /** Awaited strict answers: `<peer id> <item>` → who takes it. */
  private readonly answers = new Map<string, (r: ReceivedAnswer<K, H>) => void>();
  private readonly stops: Array<() => void> = [];
  private lostTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** How plain connections seal items: the network's crypto. */
  private readonly transport: TransportEncryption;

  constructor(
    private readonly parts: ReplicationEngineParts<K, Kind, H, P>,
    private readonly inventories: Inventories<K, Kind, H, P>,
  ) {
    const s = parts.settings.synchronizer;
    const p = s.crawlingParallelism;
    this.slots = new Slots(p);
    this.pendingSlots = new Slots(Math.max(1, Math.floor(p / 2)));
    this.lostSlots = new Slots(Math.max(1, Math.floor(p / 4)));
    this.failedPeers = new ExpiringCache({
      maxSize: s.failedPeersCacheSize,
      ttlMs: s.failedPeersCacheExpireTimeoutMs,
      ...(parts.clock === undefined ? {} : { now: parts.clock }),
    });
    this.transport = parts.transport ?? transportEncryptionFor(parts.protocol.crypto.type);
  }

  /** Items the synchronizer is on now: being fetched, or waiting for a slot or their next attempt. */
  get inProgress(): number {
    return this.running.size;
  }

  /** How many items are being fetched now. */
  get active(): number {
    return this.running.size;
  }

  /** Starts: fetches the pending items, then new ones as they come, and the lost ones now and then. */
  start(): void {
    const { pending, rollbacks } = this.parts;
    this.stops.push(pending.onPending((items) => items.forEach((item) => void this.crawl(item, 'update', item.txTimestamp))));
    if (rollbacks !== undefined) this.stops.push(rollbacks.onRollback((items) => items.forEach((item) => this.cancel(item, 'its anchoring was rolled back'))));
    this.resume(pending.pending());
    this.scheduleLost();
  }

  /** WE's forceSync: every running fetch restarts with the pending set; answers its size. */
  forceSync(): number {
    const pending = this.parts.pending.pending();
    this.resume(pending);
    return pending.length;
  }

  /** Every running fetch stops; `items` are fetched afresh. */
  resume(items: readonly K[]): void {
    for (const c of this.running.values()) c.abort(new Error('restarted'));
    this.running.clear();
    for (const item of shuffled(items)) void this.crawl(item, 'pending');
  }

  /** Takes a strict answer from a peer; throws DecodeError on a malformed one. */
  handleAnswer(peer: P, payload: Uint8Array): void {
    const answer = this.parts.scheme.answers.decode(payload, peer.sessionKeys === undefined ? undefined : this.transport.wrappedKeyLength);
    const take = this.answers.get(`${peer.id} ${this.parts.scheme.text(answer.key)}`);
    if (take === undefined) this.parts.log.debug({ peer: peer.id }, `an unexpected ${this.parts.scheme.words.family} data answer dropped`);
    else take(answer);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.lostTimer);
    for (const stop of this.stops.splice(0)) stop();
    for (const c of this.running.values()) c.abort(new Error('the synchronizer stopped'));
    this.running.clear();
  }

  private cancel(key: K, why: string): void {
    const text = this.parts.scheme.text(key);
    const c = this.running.get(text);
    if (c === undefined) return;
    this.parts.log.debug({ item: text }, `${this.parts.scheme.words.family} download cancelled: ${why}`);
    c.abort(new Error(why));
    this.running.delete(text);
  }

  private scheduleLost(): void {
    if (this.closed) return;
    this.lostTimer = setTimeout(() => {
      const lost = this.parts.pending.lost();
      if (lost.length > 0) this.parts.log.warn({ items: lost.length }, `retrying lost ${this.parts.scheme.words.family} items`);
      void Promise.all(shuffled(lost).map((item) => this.crawl(item, 'lost'))).finally(() => this.scheduleLost());
    }, this.parts.settings.synchronizer.lostDataProcessingDelayMs);
    this.lostTimer.unref();
  }

  /** Fetches one item unless it is being fetched already. */
  private async crawl(item: K | PendingItem<K>, source: Source, txTimestamp?: bigint): Promise<void> {
    const text = this.parts.scheme.text(item);
    if (this.closed || this.running.has(text)) return;
    const controller = new AbortController();
    this.running.set(text, controller);
    const signal = controller.signal;
    const releases: Array<() => void> = [];
    try {
      if (source === 'pending') releases.push(await this.pendingSlots.acquire(signal));
      if (source === 'lost') releases.push(await this.lostSlots.acquire(signal));
      releases.push(await this.slots.acquire(signal));
      await this.ensure(item, txTimestamp, signal);
    } catch (e) {
      if (!signal.aborted)
        this.parts.log.warn({ item: text, err: e instanceof Error ? e.message : String(e) }, `a ${this.parts.scheme.words.family} item could not be fetched`);
    } finally {
      for (const release of releases.reverse()) release();
      if (this.running.get(text) === controller) this.running.delete(text);
    }
  }

  private async ensure(key: K, txTimestamp: bigint | undefined, signal: AbortSignal): Promise<void> {
    const { scheme } = this.parts;
    if (!(await scheme.store.exists(key))) {
      const type = await this.pull(key, signal);
      if (type !== undefined) {
        await scheme.store.fetched?.(key, type);
        if (scheme.announceFetched(key, txTimestamp)) this.inventories.announce(key, type, this.parts.owner);
        this.parts.log.info({ item: scheme.text(key), type }, `${scheme.words.family} item fetched from a peer`);
      }
    }
    await this.parts.pending.removeFromPendingAndLost(key);
  }

  /**
   * Attempts with back-off until one succeeds (the kind its holder served), the item is
   * stored meanwhile (undefined) or `max-attempt-count` is reached (the item is then lost).
   */
  private async pull(key: K, signal: AbortSignal): Promise<Kind | undefined> {
    const s = this.parts.settings.synchronizer;
    let delay = s.initRetryDelayMs;
    let askForHolders = false;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(key, askForHolders, signal);
      if (typeof outcome === 'object') return outcome.type;
      askForHolders = outcome === 'no-holder';
      if (attempt + 1 > s.maxAttemptCount) {
        await this.parts.pending.pendingToLost(key);
        throw new Error(`marked lost after ${attempt} attempts`);
      }
      await sleep(delay, undefined, { signal });
      delay = Math.round((delay * 4) / 3);
      // Stored meanwhile (an upload, the node's own execution): nothing left to fetch.
      if (await this.parts.scheme.store.exists(key)) return undefined;
    }
  }

  private async attempt(key: K, askForHolders: boolean, signal: AbortSignal): Promise<Attempt<Kind>> {
    const { scheme, settings } = this.parts;
    const s = settings.synchronizer;
    const members = this.inventories.memberPeers(key);
    if (members.length === 0) return 'no-peers';
    if (askForHolders || !this.inventories.knowsHolders(key)) {
      const request = scheme.requests.encode(key);
      for (const peer of members) peer.send(scheme.requests.inventory, request);
      await sleep(s.inventoryRequestDelayMs, undefined, { signal });
    }
    const tried = new Set<string>();
    for (;;) {
      const next = this.nextHolder(key, tried);
      if (next === undefined) {
        if (await this.holderLearned(key, s.inventoryStreamTimeoutMs, signal)) continue;
        return 'no-holder';
      }
      tried.add(next.peer.id);
      try {
        await this.fetchFrom(next.peer, key, next.type, signal);
        return { type: next.type };
      } catch (e) {
        if (signal.aborted) throw e;
        if (e instanceof RequestTimeout) this.failedPeers.set(encodeBase58(next.peer.ownerAddress), true);
        this.parts.log.debug(
          { item: scheme.text(key), peer: next.peer.id, err: e instanceof Error ? e.message : String(e) },
          `a ${scheme.words.family} holder did not deliver`,
        );
      }
    }
  }

  /** The next peer to ask: a holder among the members, connected, not asked in this attempt; recently failed ones only when all failed. */
  private nextHolder(key: K, tried: ReadonlySet<string>): { peer: P; type: Kind } | undefined {
    const members = this.parts.scheme.members(key);
    const holders = this.inventories.holdersOf(key).filter((h) => members.some((m) => equalBytes(m, h.address)));
    const fresh = holders.filter((h) => !this.failedPeers.has(encodeBase58(h.address)));
    const peers = this.inventories.memberPeers(key);
    for (const holder of shuffled(fresh.length > 0 ? fresh : holders)) {
      const peer = peers.find((p) => !tried.has(p.id) && equalBytes(p.ownerAddress, holder.address));
      if (peer !== undefined) return { peer, type: holder.type };
    }
    return undefined;
  }

  /** Resolves true when a holder of the item is learned within `ms`, false otherwise. */
  private holderLearned(key: K, ms: number, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const done = (learned: boolean): void => {
        clearTimeout(timer);
        stop();
        signal.removeEventListener('abort', abort);
        resolve(learned);
      };
      const abort = (): void => {
        clearTimeout(timer);
        stop();
        reject(signal.reason as Error);
      };
      const timer = setTimeout(() => done(false), ms);
      const stop = this.inventories.onHolder(key, () => done(true));
      signal.addEventListener('abort', abort, { once: true });
    });
  }

  private async fetchFrom(peer: P, key: K, type: Kind, signal: AbortSignal): Promise<void> {
    const streams = this.parts.scheme.streams;
    if (streams !== undefined && streams.streamed(type)) await streams.fetch(peer, key, signal);
    else await this.fetchStrict(peer, key, signal);
  }

  private async fetchStrict(peer: P, key: K, signal: AbortSignal): Promise<void> {
    const { scheme, settings } = this.parts;
    const { requestTimeoutMs } = settings.synchronizer;
    const slot = `${peer.id} ${scheme.text(key)}`;
    const answered = new Promise<ReceivedAnswer<K, H>>((resolve, reject) => {
      const timer = setTimeout(() => finish(() => reject(new RequestTimeout(`no answer within ${requestTimeoutMs} ms`))), requestTimeoutMs);
      const abort = (): void => finish(() => reject(signal.reason as Error));
      const finish = (then: () => void): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', abort);
        if (this.answers.get(slot) === take) this.answers.delete(slot);
        then();
      };
      const take = (r: ReceivedAnswer<K, H>): void => finish(() => resolve(r));
      signal.addEventListener('abort', abort, { once: true });
      this.answers.set(slot, take);
    });
    peer.send(scheme.requests.data, scheme.requests.encode(key));
    const answer = await answered;
    if (!answer.found) throw new Error('the peer has no data');
    let content: Uint8Array;
    if (answer.content instanceof Uint8Array) content = answer.content;
    else {
      const keys = peer.sessionKeys;
      if (keys === undefined) throw new Error('a sealed answer on a TLS connection');
      content = this.transport.decrypt(answer.content.encrypted, answer.content.wrappedKey, keys.own.privateKey, keys.peer);
    }
    const received = await scheme.store.saveStrict(key, answer.head, content);
    if (received !== undefined) this.parts.observer?.received(received);
  }
}
