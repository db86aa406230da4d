/**
 * "Who has this item" (WE's PrivacyInventoryHandler and PolicyInventoryBroadcaster,
 * ConfidentialDataInventoryHandler and ConfidentialDataInventoryBroadcaster; privacy
 * reference §4.3):
 *
 *  - announcing: an inventory of an item, signed (by the uploading sender, or the node
 *    owner), goes to the group's peers (connected, non-watcher, node owner a member);
 *  - receiving one: an inventory whose signer may not hold the item (the scheme's
 *    `mayHold`: a member of the group, or of no group the chain knows) is dropped first,
 *    before its signature is checked or anything is cached — beyond WE, which records and
 *    relays any signer's, so a stranger can neither make members check signatures for it
 *    nor push the members' holder entries out of the caches; then one seen before (by id,
 *    for `expiration-time`, at most `max-cache-size`) or with a bad signature is dropped;
 *    otherwise its signer is remembered as a holder of the item (with the kind the
 *    inventory says, for `expiration-time`, at most `max-cache-size` items) — the
 *    synchronizer follows holders — and it is passed on to the group's other peers. An
 *    item the scheme wants when it is announced (and that is not here) joins the pending
 *    set;
 *  - with `batchInventories`, inventories are taken in batches: `max-buffer-size` of them,
 *    or what came within `max-buffer-time` (a malformed one is refused as it arrives);
 *  - answering an inventory request: when the asking peer's owner is a member of the
 *    group and the item is stored here, an inventory signed by the node owner goes back to
 *    it. Anyone else gets nothing.
 */
import { bytesKey, encodeBase58, equalBytes } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import { ExpiringCache } from './expiring-cache.js';
import type { PendingItem } from './pending-items.js';
import type { ReplicationPeer } from './peers.js';
import type { ReceivedInventory, ReplicationEngineParts } from './scheme.js';

/** A node that announced it holds an item: its (signer) address and the kind the inventory said. */
export interface ItemHolder<Kind> {
  readonly address: Uint8Array;
  readonly type: Kind;
}

export const isAmong = (address: Uint8Array, list: readonly Uint8Array[]): boolean => list.some((a) => equalBytes(a, address));

export class Inventories<K, Kind, H, P extends ReplicationPeer> {
  /** Inventory ids seen. */
  private readonly seen: ExpiringCache<string, true>;
  /** Item → its holders (by Base58 address). */
  private readonly holders: ExpiringCache<string, Map<string, ItemHolder<Kind>>>;
  private readonly listeners = new Map<string, Set<() => void>>();
  private batch: Array<{ readonly peer: P; readonly inventory: ReceivedInventory<K, Kind>; readonly payload: Uint8Array; readonly code: number }> = [];
  private batchTimer: NodeJS.Timeout | undefined;

  constructor(private readonly parts: ReplicationEngineParts<K, Kind, H, P>) {
    const { maxCacheSize, expirationTimeMs } = parts.settings.inventoryHandler;
    const cache = { maxSize: maxCacheSize, ttlMs: expirationTimeMs, ...(parts.clock === undefined ? {} : { now: parts.clock }) };
    this.seen = new ExpiringCache(cache);
    this.holders = new ExpiringCache(cache);
  }

  /** The group's connected, non-watcher peers of an item (none for an unknown group). */
  memberPeers(key: K): P[] {
    const members = this.parts.scheme.members(key);
    if (members.length === 0) return [];
    return this.parts.peers.connected().filter((p) => !p.watcher && isAmong(p.ownerAddress, members));
  }

  private idOf(signedBytes: Uint8Array): string {
    return bytesKey(this.parts.protocol.crypto.fastHash(signedBytes));
  }

  /** Tells the group's peers (but `except`) about an item. */
  private broadcast(key: K, code: number, payload: Uint8Array, except?: P): void {
    for (const peer of this.memberPeers(key)) if (peer.id !== except?.id) peer.send(code, payload);
  }

  /** Tells the group's peers that `signer` holds the item. */
  announce(key: K, kind: Kind, signer: KeyPair): void {
    const inv = this.parts.scheme.inventories.sign(key, kind, signer);
    if (typeof inv === 'string') {
      this.parts.log.warn({ item: this.parts.scheme.text(key) }, inv);
      return;
    }
    // Its echo from the group is not taken again.
    this.seen.set(this.idOf(inv.signedBytes), true);
    this.broadcast(key, inv.code, inv.payload);
  }

  /** Takes an inventory (one of the codec's codes) from a peer; throws DecodeError on a malformed one. */
  async received(from: P, code: number, payload: Uint8Array): Promise<void> {
    const inventory = this.parts.scheme.inventories.decode(code, payload);
    const batching = this.parts.batchInventories === true;
    if (!batching) return this.take(from, inventory, code, payload);
    this.batch.push({ peer: from, inventory, payload, code });
    const { maxBufferSize, maxBufferTimeMs } = this.parts.settings.inventoryHandler;
    if (this.batch.length >= maxBufferSize) return this.flush();
    if (this.batchTimer === undefined) {
      this.batchTimer = setTimeout(() => void this.flush(), maxBufferTimeMs);
      this.batchTimer.unref();
    }
  }

  private async flush(): Promise<void> {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    const batch = this.batch;
    this.batch = [];
    for (const { peer, inventory, payload, code } of batch) {
      try {
        await this.take(peer, inventory, code, payload);
      } catch (e) {
        this.parts.log.warn({ peer: peer.id, err: e instanceof Error ? e.message : String(e) }, `a ${this.parts.scheme.words.family} inventory was refused`);
      }
    }
  }

  private async take(from: P, inv: ReceivedInventory<K, Kind>, code: number, payload: Uint8Array): Promise<void> {
    const { scheme, protocol } = this.parts;
    const text = scheme.text(inv.key);
    // Before anything costs a signature check or a cache entry: only a member may hold the item (WE takes any signer).
    const address = protocol.addresses.fromPublicKey(inv.senderPublicKey).bytes;
    if (!scheme.mayHold(address, inv.key)) {
      this.parts.log.debug({ peer: from.id, item: text }, `${scheme.words.family} inventory whose signer may not hold the item dropped`);
      return;
    }
    if (!this.seen.add(this.idOf(inv.signedBytes), true)) return;
    if (!protocol.crypto.verify(inv.senderPublicKey, inv.signedBytes, inv.signature)) {
      this.parts.log.warn({ peer: from.id }, `${scheme.words.family} inventory with a bad signature dropped`);
      return;
    }
    const holders = this.holders.get(text) ?? new Map<string, ItemHolder<Kind>>();
    holders.set(encodeBase58(address), { address, type: inv.kind });
    // Written again: its expiry starts over.
    this.holders.set(text, holders);
    for (const l of this.listeners.get(text) ?? []) l();
    this.broadcast(inv.key, code, payload, from);
    if (scheme.wantsAnnounced?.(inv.key) === true && !(await scheme.store.exists(inv.key))) await this.parts.pending.addToPending([inv.key as PendingItem<K>]);
  }

  /** Takes an inventory request from a peer: the node owner's inventory goes back when the item is stored here. */
  async requested(peer: P, key: K): Promise<void> {
    const { scheme } = this.parts;
    if (!isAmong(peer.ownerAddress, scheme.members(key))) {
      this.parts.log.warn({ peer: peer.id, item: scheme.text(key) }, `a peer outside ${scheme.words.group} asked who holds an item: ignored`);
      return;
    }
    if (!(await scheme.store.exists(key))) return;
    const inv = scheme.inventories.sign(key, await scheme.store.kindOf(key), this.parts.owner);
    if (typeof inv !== 'string') peer.send(inv.code, inv.payload);
  }

  /** Whether any holder of the item is known. */
  knowsHolders(key: K): boolean {
    return (this.holders.get(this.parts.scheme.text(key))?.size ?? 0) > 0;
  }

  /** The known holders of an item. */
  holdersOf(key: K): ItemHolder<Kind>[] {
    return [...(this.holders.get(this.parts.scheme.text(key))?.values() ?? [])];
  }

  /** Calls `listener` each time a holder of the item is learned; returns how to stop. */
  onHolder(key: K, listener: () => void): () => void {
    const text = this.parts.scheme.text(key);
    let set = this.listeners.get(text);
    if (set === undefined) this.listeners.set(text, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(text);
    };
  }

  close(): void {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    this.batch = [];
  }
}
