/**
 * Fetching the items this node must hold from the policy's other members (WE's
 * PolicyDataSynchronizer, reference §4.1 and §4.4).
 *
 * What to fetch: the pending set of the privacy state (persisted: a restart resumes). Items
 * join it from the chain (policy-updates.ts: a 114 of a policy the node owner is a
 * recipient of, a 113 adding the owner), from reads that found data missing (617), and
 * from forceSync; each newly added item is fetched at once. At start every pending item is
 * fetched again; every `lost-data-processing-delay` the lost items are retried. A rollback
 * of an item's 114 cancels its download.
 *
 * Fetching one item:
 *  1. already stored → done;
 *  2. the policy's peers (connected, non-watcher, owner among the recipients); none → retry;
 *  3. when no holder is known (or the last attempt ran out of holders), a
 *     PrivacyInventoryRequest (40) goes to all of them, then `inventory-request-delay`;
 *  4. the known holders (inventories.ts), shuffled, peers that timed out recently last,
 *     one by one: a PrivateDataRequest (30), answered by a 31 (small items) or a stream
 *     (large items), each bounded by `request-timeout` of silence; "no data", "overloaded",
 *     a malformed answer or a failed save moves on to the next holder; a timeout marks
 *     the peer failed for `failed-peers-cache-expire-timeout`. No new holder within
 *     `inventory-stream-timeout` ends the attempt;
 *  5. success: the storage checks the SHA-256 as it saves (a holder that sends other bytes
 *     fails like one with no data), the item's descriptor is written, the item announced
 *     to the policy's peers when its 114 is younger than `inventory-timestamp-threshold`,
 *     and it leaves the pending and lost sets;
 *  6. otherwise wait (`init-retry-delay`, × 4/3 each time) and try again; after
 *     `max-attempt-count` attempts the item moves to the lost set.
 *
 * At most `crawling-parallelism` items are fetched at once; items from the pending set
 * take at most half of that, lost items a quarter, so new items always find room.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { transportEncryptionFor, type TransportEncryption } from '../crypto/transport-encryption.js';
import { encodeBase58, equalBytes } from '../crypto/encoding.js';
import type { PolicyItemKey, PolicyItemMeta, PrivacyDataType } from './item.js';
import type { PrivacyInventories } from './inventories.js';
import { readItemFrames } from './item-stream.js';
import { decodePrivateDataResponse, decodeStrictPayload, encodeItemRequest, PrivacyMessageCode, type PrivateDataResponse } from './messages.js';
import type { IncomingStream, PrivacyPeer } from './peers.js';
import { countingBytes, idOfKey, itemText, keyOfId, policyPeers, recipientsOf, type ReplicationParts } from './replication.js';
import type { PendingItem } from './state.js';
import { WeError } from '../errors/catalogue.js';
import { InternalError } from '../errors/internal.js';

/** A request that got no answer in time. */
class RequestTimeout extends InternalError {
  override readonly name = 'RequestTimeout';
}

/** What a rolled-back item source looks like (policy-updates.ts). */
export interface RollbackSource {
  onRollback(listener: (items: readonly PolicyItemKey[]) => void): () => void;
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
type Attempt = { readonly type: PrivacyDataType } | 'no-peers' | 'no-holder' | 'failed';

const shuffled = <T>(list: readonly T[]): T[] => {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

export class PolicyDataSynchronizer {
  private readonly running = new Map<string, AbortController>();
  private readonly slots: Slots;
  private readonly pendingSlots: Slots;
  private readonly lostSlots: Slots;
  /** Peer owner addresses (Base58) that timed out → until when (ms). */
  private readonly failedPeers = new Map<string, number>();
  /** Awaited 31 answers: `<peer id> <policy/hash>` → who takes it. */
  private readonly answers = new Map<string, (r: PrivateDataResponse) => void>();
  private readonly stops: Array<() => void> = [];
  /** Per peer: the large-item fetch the next one waits for. */
  private readonly streamsFrom = new Map<string, Promise<void>>();
  private lostTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** How plain connections encrypt items: the network's crypto. */
  private readonly transport: TransportEncryption;

  constructor(
    private readonly parts: ReplicationParts,
    private readonly inventories: PrivacyInventories,
    private readonly rollbacks: RollbackSource,
    private readonly clock: () => number = () => performance.now(),
  ) {
    const p = parts.settings.synchronizer.crawlingParallelism;
    this.slots = new Slots(p);
    this.pendingSlots = new Slots(Math.max(1, Math.floor(p / 2)));
    this.lostSlots = new Slots(Math.max(1, Math.floor(p / 4)));
    this.transport = transportEncryptionFor(parts.protocol.crypto.type);
  }

  /** Items the synchronizer is on now: being fetched, or waiting for a slot or their next attempt. */
  get inProgress(): number {
    return this.running.size;
  }

  /** Starts: fetches the pending items, then new ones as they come, and the lost ones now and then. */
  start(): void {
    this.stops.push(this.parts.state.onPending((items) => items.forEach((item) => void this.crawl(item, 'update', item.txTimestamp))));
    this.stops.push(this.rollbacks.onRollback((items) => items.forEach((item) => this.cancel(item, 'its PolicyDataHash was rolled back'))));
    this.restart(this.parts.state.pending());
    this.scheduleLost();
  }

  /** How many items are being fetched now. */
  get active(): number {
    return this.running.size;
  }

  /** WE's forceSync: every running fetch restarts with the pending set; answers its size. */
  forceSync(): number {
    const pending = this.parts.state.pending();
    this.restart(pending);
    return pending.length;
  }

  /** WE's forceSync of a policy: its anchored hashes join the pending set; restarts with both; answers how many. */
  async forceSyncPolicy(policyId: Uint8Array): Promise<number> {
    const pending = this.parts.state.pending();
    const known = new Set(pending.map(itemText));
    const anchored = this.parts.chain.state().policyDataHashes(policyId).map((e) => keyOfId({ policyId, dataHash: e.hash }));
    const missing = anchored.filter((k) => !known.has(itemText(k)));
    if (missing.length > 0) await this.parts.state.addToPending(missing);
    const all = [...pending, ...missing];
    this.restart(all);
    return all.length;
  }

  /** Takes a PrivateDataResponse (31) from a peer. */
  handleResponse(peer: PrivacyPeer, payload: Uint8Array): void {
    const response = decodePrivateDataResponse(payload, peer.sessionKeys === undefined ? undefined : this.transport.wrappedKeyLength);
    const take = this.answers.get(`${peer.id} ${itemText(keyOfId(response))}`);
    if (take === undefined) this.parts.log.debug({ peer: peer.id }, 'an unexpected privacy data response dropped');
    else take(response);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.lostTimer);
    for (const stop of this.stops.splice(0)) stop();
    for (const c of this.running.values()) c.abort(new Error('the synchronizer stopped'));
    this.running.clear();
  }

  private restart(items: readonly PolicyItemKey[]): void {
    for (const c of this.running.values()) c.abort(new Error('restarted'));
    this.running.clear();
    for (const item of shuffled(items)) void this.crawl(item, 'pending');
  }

  private cancel(key: PolicyItemKey, why: string): void {
    const text = itemText(key);
    const c = this.running.get(text);
    if (c === undefined) return;
    this.parts.log.debug({ item: text }, `privacy download cancelled: ${why}`);
    c.abort(new Error(why));
    this.running.delete(text);
  }

  private scheduleLost(): void {
    if (this.closed) return;
    this.lostTimer = setTimeout(() => {
      const lost = this.parts.state.lost();
      if (lost.length > 0) this.parts.log.warn({ items: lost.length }, 'retrying lost privacy items');
      void Promise.all(shuffled(lost).map((item) => this.crawl(item, 'lost'))).finally(() => this.scheduleLost());
    }, this.parts.settings.synchronizer.lostDataProcessingDelayMs);
    this.lostTimer.unref();
  }

  /** Fetches one item unless it is being fetched already. */
  private async crawl(key: PolicyItemKey | PendingItem, source: Source, txTimestamp?: bigint): Promise<void> {
    const text = itemText(key);
    if (this.closed || this.running.has(text)) return;
    const controller = new AbortController();
    this.running.set(text, controller);
    const signal = controller.signal;
    const releases: Array<() => void> = [];
    try {
      if (source === 'pending') releases.push(await this.pendingSlots.acquire(signal));
      if (source === 'lost') releases.push(await this.lostSlots.acquire(signal));
      releases.push(await this.slots.acquire(signal));
      await this.ensure({ policyId: key.policyId, hash: key.hash }, txTimestamp, signal);
    } catch (e) {
      if (!signal.aborted) this.parts.log.warn({ item: text, err: e instanceof Error ? e.message : String(e) }, 'a privacy item could not be fetched');
    } finally {
      for (const release of releases.reverse()) release();
      if (this.running.get(text) === controller) this.running.delete(text);
    }
  }

  private async ensure(key: PolicyItemKey, txTimestamp: bigint | undefined, signal: AbortSignal): Promise<void> {
    const { storage, state, settings, owner } = this.parts;
    if (!(await storage.exists(key))) {
      const type = await this.pull(key, signal);
      await state.putDescriptor(key, type);
      if (txTimestamp !== undefined && this.parts.now() - txTimestamp < BigInt(settings.synchronizer.inventoryTimestampThresholdMs)) {
        this.inventories.announce(idOfKey(key), type, owner);
      }
      this.parts.log.info({ item: itemText(key), type }, 'privacy item fetched from a peer');
    }
    await state.removeFromPendingAndLost(key);
  }

  /** Attempts with back-off until one succeeds (its type) or `max-attempt-count` is reached (the item is then lost). */
  private async pull(key: PolicyItemKey, signal: AbortSignal): Promise<PrivacyDataType> {
    const s = this.parts.settings.synchronizer;
    let delay = s.initRetryDelayMs;
    let askForHolders = false;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(key, askForHolders, signal);
      if (typeof outcome === 'object') return outcome.type;
      askForHolders = outcome === 'no-holder';
      if (attempt + 1 > s.maxAttemptCount) {
        await this.parts.state.pendingToLost(key);
        throw new Error(`marked lost after ${attempt} attempts`);
      }
      await sleep(delay, undefined, { signal });
      delay = Math.round((delay * 4) / 3);
    }
  }

  private async attempt(key: PolicyItemKey, askForHolders: boolean, signal: AbortSignal): Promise<Attempt> {
    const s = this.parts.settings.synchronizer;
    const id = idOfKey(key);
    const recipients = recipientsOf(this.parts, id.policyId);
    const members = policyPeers(this.parts.peers, recipients);
    if (members.length === 0) return 'no-peers';
    if (askForHolders || !this.inventories.knowsHolders(key)) {
      const request = encodeItemRequest(id);
      for (const peer of members) peer.send(PrivacyMessageCode.PrivacyInventoryRequest, request);
      await sleep(s.inventoryRequestDelayMs, undefined, { signal });
    }
    const tried = new Set<string>();
    for (;;) {
      const next = this.nextHolder(key, recipients, tried);
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
        if (e instanceof RequestTimeout) this.failedPeers.set(encodeBase58(next.peer.ownerAddress), this.clock() + s.failedPeersCacheExpireTimeoutMs);
        this.parts.log.debug({ item: itemText(key), peer: next.peer.id, err: e instanceof Error ? e.message : String(e) }, 'a privacy holder did not deliver');
      }
    }
  }

  /** The next peer to ask: a holder among the recipients, connected, not asked in this attempt; recently failed ones only when all failed. */
  private nextHolder(key: PolicyItemKey, recipients: readonly Uint8Array[], tried: ReadonlySet<string>): { peer: PrivacyPeer; type: PrivacyDataType } | undefined {
    const now = this.clock();
    for (const [address, until] of this.failedPeers) if (until <= now) this.failedPeers.delete(address);
    const holders = this.inventories.holdersOf(key).filter((h) => recipients.some((r) => equalBytes(r, h.address)));
    const fresh = holders.filter((h) => !this.failedPeers.has(encodeBase58(h.address)));
    for (const holder of shuffled(fresh.length > 0 ? fresh : holders)) {
      const peer = policyPeers(this.parts.peers, recipients).find((p) => !tried.has(p.id) && equalBytes(p.ownerAddress, holder.address));
      if (peer !== undefined) return { peer, type: holder.type };
    }
    return undefined;
  }

  /** Resolves true when a holder of the item is learned within `ms`, false otherwise. */
  private holderLearned(key: PolicyItemKey, ms: number, signal: AbortSignal): Promise<boolean> {
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

  private async fetchFrom(peer: PrivacyPeer, key: PolicyItemKey, type: PrivacyDataType, signal: AbortSignal): Promise<void> {
    if (type === 'large') await this.fetchStream(peer, key, signal);
    else await this.fetchStrict(peer, key, signal);
  }

  private async save(key: PolicyItemKey, meta: PolicyItemMeta, type: PrivacyDataType, data: Uint8Array | AsyncIterable<Uint8Array>): Promise<void> {
    if (meta.policyId !== key.policyId || meta.hash !== key.hash) throw new Error(`the peer sent item ${meta.policyId}/${meta.hash} for ${itemText(key)}`);
    const counted = { bytes: data instanceof Uint8Array ? data.length : 0 };
    try {
      await this.parts.storage.save(meta, type, data instanceof Uint8Array ? data : countingBytes(data, counted));
    } catch (e) {
      // Stored meanwhile (another holder, an upload): what matters is that it is here.
      if (!(e instanceof WeError && e.code === 608)) throw e;
      return;
    }
    this.parts.observer?.received(counted.bytes);
  }

  private async fetchStrict(peer: PrivacyPeer, key: PolicyItemKey, signal: AbortSignal): Promise<void> {
    const slot = `${peer.id} ${itemText(key)}`;
    const answered = new Promise<PrivateDataResponse>((resolve, reject) => {
      const timer = setTimeout(() => finish(() => reject(new RequestTimeout(`no answer within ${this.parts.settings.synchronizer.requestTimeoutMs} ms`))), this.parts.settings.synchronizer.requestTimeoutMs);
      const abort = (): void => finish(() => reject(signal.reason as Error));
      const finish = (then: () => void): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', abort);
        if (this.answers.get(slot) === take) this.answers.delete(slot);
        then();
      };
      const take = (r: PrivateDataResponse): void => finish(() => resolve(r));
      signal.addEventListener('abort', abort, { once: true });
      this.answers.set(slot, take);
    });
    peer.send(PrivacyMessageCode.PrivateDataRequest, encodeItemRequest(idOfKey(key)));
    const response = await answered;
    if (response.kind === 'no-data') throw new Error('the peer has no data');
    let payload: Uint8Array;
    if (response.kind === 'data') payload = response.payload;
    else {
      const keys = peer.sessionKeys;
      if (keys === undefined) throw new Error('an encrypted answer on a TLS connection');
      payload = this.transport.decrypt(response.encrypted, response.wrappedKey, keys.own.privateKey, keys.peer);
    }
    const { data, meta } = decodeStrictPayload(payload);
    await this.save(key, meta, 'default', data);
  }

  /**
   * One large item at a time from a peer: streams carry no item name on the wire, so a
   * connection carries one stream at a time (WE's stream handler does the same).
   */
  private async fetchStream(peer: PrivacyPeer, key: PolicyItemKey, signal: AbortSignal): Promise<void> {
    const before = this.streamsFrom.get(peer.id) ?? Promise.resolve();
    const mine = before.then(() => this.fetchStreamNow(peer, key, signal));
    const settled = mine.catch(() => undefined);
    this.streamsFrom.set(peer.id, settled);
    void settled.then(() => {
      if (this.streamsFrom.get(peer.id) === settled) this.streamsFrom.delete(peer.id);
    });
    return mine;
  }

  private async fetchStreamNow(peer: PrivacyPeer, key: PolicyItemKey, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const s = this.parts.settings.synchronizer;
    const stream = peer.receiveStream(s.networkStreamBufferSize);
    const abort = (): void => stream.cancel(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    try {
      peer.send(PrivacyMessageCode.PrivateDataRequest, encodeItemRequest(idOfKey(key)));
      const keys = peer.sessionKeys;
      const got = await readItemFrames(withSilenceLimit(stream, s.requestTimeoutMs), keys === undefined ? undefined : { transport: this.transport, recipientPrivateKey: keys.own.privateKey, senderPublicKey: keys.peer });
      if (got.status !== 'data') throw new Error(got.status === 'overloaded' ? 'the peer is overloaded' : 'the peer has no data');
      await this.save(key, got.meta, 'large', got.data);
    } catch (e) {
      stream.cancel(e instanceof Error ? e : new Error(String(e)));
      throw e;
    } finally {
      signal.removeEventListener('abort', abort);
    }
  }
}

/** The frames of a stream, failing with RequestTimeout (and cancelling it) when one takes longer than `ms`. */
async function* withSilenceLimit(stream: IncomingStream, ms: number): AsyncGenerator<Uint8Array> {
  const it = stream[Symbol.asyncIterator]();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const e = new RequestTimeout(`the stream was silent for ${ms} ms`);
        stream.cancel(e);
        reject(e);
      }, ms);
    });
    let next: IteratorResult<Uint8Array>;
    try {
      next = await Promise.race([it.next(), silent]);
    } finally {
      clearTimeout(timer);
    }
    if (next.done === true) return;
    yield next.value;
  }
}
