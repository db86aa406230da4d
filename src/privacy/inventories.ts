/**
 * "Who has this item" (WE's PrivacyInventoryHandler and PolicyInventoryBroadcaster,
 * reference §4.3):
 *
 *  - announcing: an inventory of an item, signed (by the uploading sender, or the node
 *    owner), goes to the policy's peers. Once feature 180 is active it is a V2 (44) with the
 *    item's type; before, a V1 (39), and large items cannot be announced;
 *  - receiving 39/44: an inventory whose signer is neither a recipient nor an owner of the
 *    policy (or of no policy the chain knows) is dropped first, before its signature is
 *    checked or anything is cached — beyond WE, which records and relays any signer's, so
 *    a stranger can neither make members check signatures for it nor push the members'
 *    holder entries out of the caches; then one seen before (by id) or with a bad
 *    signature is dropped; otherwise its signer is remembered as a holder of the item
 *    (with the item's type, for `expiration-time`, at most `max-cache-size` items) — the
 *    synchronizer follows holders — and it is passed on to the policy's other peers;
 *  - answering 40: when the asking peer's owner is a recipient of the policy and the item
 *    is stored here, an inventory signed by the node owner goes back to it. Anyone else
 *    gets nothing.
 */
import { encodeBase58 } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import { FEATURE } from '../protocol/features.js';
import type { PolicyItemKey, PrivacyDataType } from './item.js';
import {
  decodeInventory,
  decodeItemRequest,
  encodeInventory,
  inventoryId,
  PrivacyMessageCode,
  signInventory,
  verifyInventory,
  type PolicyItemId,
  type PrivacyInventory,
} from './messages.js';
import type { PrivacyPeer } from './peers.js';
import { isAmong, itemText, keyOfId, policyPeers, recipientsOf, type ReplicationParts } from './replication.js';
import type { ItemAnnouncer } from './service.js';
import { itemKind } from './state.js';

/** A node that announced it holds an item: its (signer) address and the item's type. */
export interface ItemHolder {
  readonly address: Uint8Array;
  readonly type: PrivacyDataType;
}

interface HolderEntry {
  readonly holders: Map<string, ItemHolder>;
  expiresAt: number;
}

export class PrivacyInventories implements ItemAnnouncer {
  /** Inventory ids seen → when they are forgotten (ms). */
  private readonly seen = new Map<string, number>();
  private readonly holders = new Map<string, HolderEntry>();
  private readonly listeners = new Map<string, Set<() => void>>();

  constructor(
    private readonly parts: ReplicationParts,
    /** Monotonic ms for the caches. */
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** The inventory of an item this node may send: V2 once feature 180 is active, else V1 for default items; undefined for a large item before 180. */
  private build(id: PolicyItemId, type: PrivacyDataType, signer: KeyPair): PrivacyInventory | undefined {
    const v2 = this.parts.chain.isFeatureActive(FEATURE.PRIVACY_LARGE_OBJECTS);
    if (!v2 && type === 'large') return undefined;
    return signInventory(this.parts.protocol, signer, id, type, v2 ? 2 : 1);
  }

  private sendTo(peer: PrivacyPeer, inv: PrivacyInventory): void {
    peer.send(inv.version === 2 ? PrivacyMessageCode.PrivacyInventoryV2 : PrivacyMessageCode.PrivacyInventoryV1, encodeInventory(inv));
  }

  /** Tells the policy's peers (but `except`) about an item. */
  private broadcast(inv: PrivacyInventory, except?: PrivacyPeer): void {
    for (const peer of policyPeers(this.parts.peers, recipientsOf(this.parts, inv.policyId))) if (peer.id !== except?.id) this.sendTo(peer, inv);
  }

  announce(item: PolicyItemId, type: PrivacyDataType, signer: KeyPair): void {
    const inv = this.build(item, type, signer);
    if (inv === undefined) {
      this.parts.log.warn({ item: itemText(keyOfId(item)) }, 'a large item cannot be announced before feature 180 (PrivacyLargeObjectSupport) is active');
      return;
    }
    this.broadcast(inv);
  }

  /** Takes a 39, 44 or 40 from a peer (other codes are not this handler's). */
  async handle(peer: PrivacyPeer, code: number, payload: Uint8Array): Promise<void> {
    if (code === PrivacyMessageCode.PrivacyInventoryV1 || code === PrivacyMessageCode.PrivacyInventoryV2) this.received(peer, decodeInventory(this.parts.protocol, code, payload));
    else if (code === PrivacyMessageCode.PrivacyInventoryRequest) await this.requested(peer, decodeItemRequest(code, payload));
  }

  private received(from: PrivacyPeer, inv: PrivacyInventory): void {
    const now = this.clock();
    this.expire(now);
    const key = keyOfId(inv);
    const text = itemText(key);
    // Before anything costs a signature check or a cache entry: only a member of the policy
    // may hold the item (WE takes any signer).
    const address = this.parts.protocol.addresses.fromPublicKey(inv.senderPublicKey).bytes;
    if (!this.mayHold(address, inv.policyId)) {
      this.parts.log.debug({ peer: from.id, item: text }, 'privacy inventory signed by no member of the policy dropped');
      return;
    }
    const id = encodeBase58(inventoryId(this.parts.protocol, inv));
    if (this.seen.has(id)) return;
    this.remember(this.seen, id, now + this.parts.settings.inventoryHandler.expirationTimeMs);
    if (!verifyInventory(this.parts.protocol, inv)) {
      this.parts.log.warn({ peer: from.id }, 'privacy inventory with a bad signature dropped');
      return;
    }
    let entry = this.holders.get(text);
    if (entry === undefined) {
      entry = { holders: new Map(), expiresAt: 0 };
      this.remember(this.holders, text, entry);
    }
    entry.expiresAt = now + this.parts.settings.inventoryHandler.expirationTimeMs;
    entry.holders.set(encodeBase58(address), { address, type: inv.dataType });
    for (const l of this.listeners.get(text) ?? []) l();
    this.broadcast(inv, from);
  }

  /** Whether `address` may hold an item of the policy: one of its recipients or owners (an unknown policy has none). */
  private mayHold(address: Uint8Array, policyId: Uint8Array): boolean {
    const policy = this.parts.chain.state().policy(policyId);
    return policy !== undefined && (isAmong(address, policy.recipients) || isAmong(address, policy.owners));
  }

  private async requested(peer: PrivacyPeer, id: PolicyItemId): Promise<void> {
    const key = keyOfId(id);
    if (!isAmong(peer.ownerAddress, recipientsOf(this.parts, id.policyId))) {
      this.parts.log.warn({ peer: peer.id, item: itemText(key) }, "a peer outside the policy's recipients asked who holds an item: ignored");
      return;
    }
    if (!(await this.parts.storage.exists(key))) return;
    const type = (await itemKind(this.parts.state, this.parts.storage, key)) ?? 'default';
    const inv = this.build(id, type, this.parts.owner);
    if (inv !== undefined) this.sendTo(peer, inv);
  }

  /** Whether any holder of the item is known. */
  knowsHolders(key: PolicyItemKey): boolean {
    const entry = this.holders.get(itemText(key));
    return entry !== undefined && entry.expiresAt > this.clock() && entry.holders.size > 0;
  }

  /** The known holders of an item. */
  holdersOf(key: PolicyItemKey): ItemHolder[] {
    const entry = this.holders.get(itemText(key));
    return entry === undefined || entry.expiresAt <= this.clock() ? [] : [...entry.holders.values()];
  }

  /** Calls `listener` each time a holder of the item is learned; returns how to stop. */
  onHolder(key: PolicyItemKey, listener: () => void): () => void {
    const text = itemText(key);
    let set = this.listeners.get(text);
    if (set === undefined) this.listeners.set(text, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(text);
    };
  }

  /** Adds to a cache bounded by `max-cache-size` (the oldest entry goes first). */
  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.set(key, value);
    if (map.size > this.parts.settings.inventoryHandler.maxCacheSize) map.delete(map.keys().next().value!);
  }

  private expire(now: number): void {
    for (const [id, until] of this.seen) {
      if (until > now) break;
      this.seen.delete(id);
    }
  }
}
