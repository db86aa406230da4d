/**
 * What a node remembers about confidential data besides the items themselves (WE keeps
 * the same in its node database, reference §1.2, prefixes 6, 7 and 10):
 *
 *  - item descriptors: how each item this node stored or downloaded is kept (default or
 *    large), so reads know which route serves it even when the storage lost the bytes;
 *  - the pending set: items this node must fetch from its peers (a 114 for a policy it is a
 *    recipient of, a 113 that added it, a read that found data missing);
 *  - the lost set: items the synchronizer gave up on after its attempts (retried slowly).
 *
 * They live in an LMDB environment of their own under the node's data directory, every
 * change committed synchronously, so a restart resumes exactly where the node stopped (the
 * two sets are the replication engine's PendingSets under prefixes 6 and 7).
 * Nothing here follows chain rollbacks: a rolled-back 114 only cancels its download (WE
 * does the same). Listeners hear of items newly added to the pending set (the
 * synchronizer starts fetching them); item listeners hear of items stored here and of
 * anchorings rolled back (the gRPC PrivacyEventsService).
 */
import { open, type RootDatabase } from 'lmdb';
import { PendingSets, type PendingItem as PendingEntry } from '../replication/pending-items.js';
import { dataTypeOfByte, DATA_TYPE_BYTE, type PolicyItemKey, type PrivacyDataType } from './item.js';
import type { PolicyStorage } from './storage/storage.js';

const DESCRIPTOR = 0x0a;
const PENDING = 0x06;
const LOST = 0x07;

/** An item's name in the keys: `policyId \0 hash`, Latin-1 (both Base58). */
const nameBytes = (k: PolicyItemKey): Uint8Array => new Uint8Array(Buffer.from(`${k.policyId}\u0000${k.hash}`, 'latin1'));

function nameOf(bytes: Uint8Array): PolicyItemKey {
  const [policyId = '', hash = ''] = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1').split('\u0000');
  return { policyId, hash };
}

/** An item newly added to the pending set, with the timestamp of the 114 that brought it when known. */
export type PendingItem = PendingEntry<PolicyItemKey>;

/**
 * What happened to an item on this node (WE's PrivacyEvent): `acquired` when it was stored
 * here — the node's own send, or fetched from a peer — and `invalidated` when a rollback
 * removed the PolicyDataHash anchoring it.
 */
export interface PrivacyItemEvent {
  readonly kind: 'acquired' | 'invalidated';
  readonly key: PolicyItemKey;
}

export class PrivacyState extends PendingSets<PolicyItemKey> {
  private readonly itemListeners = new Set<(event: PrivacyItemEvent) => void>();

  private constructor(db: RootDatabase<Uint8Array, Uint8Array>) {
    super(db, { pendingPrefix: PENDING, lostPrefix: LOST, encode: nameBytes, decode: nameOf }, 'async');
  }

  /** Opens (or creates) the state at `path`. */
  static open(path: string): PrivacyState {
    return new PrivacyState(
      open<Uint8Array, Uint8Array>({ path, keyEncoding: 'binary', encoding: 'binary', compression: false, noSync: false, overlappingSync: false }),
    );
  }

  descriptor(key: PolicyItemKey): PrivacyDataType | undefined {
    const v = this.db.get(this.keyUnder(DESCRIPTOR, key));
    return v === undefined ? undefined : dataTypeOfByte(v[0] ?? -1);
  }

  async putDescriptor(key: PolicyItemKey, type: PrivacyDataType): Promise<void> {
    await this.db.put(this.keyUnder(DESCRIPTOR, key), Uint8Array.of(DATA_TYPE_BYTE[type]));
  }

  /** An item stored on this node (its own send, or fetched from a peer): its descriptor is written, then the listeners hear of it. */
  async recordAcquired(key: PolicyItemKey, type: PrivacyDataType): Promise<void> {
    await this.putDescriptor(key, type);
    this.tell({ kind: 'acquired', key });
  }

  /** Items whose PolicyDataHash a rollback removed: the listeners hear of each. */
  recordInvalidated(keys: readonly PolicyItemKey[]): void {
    for (const key of keys) this.tell({ kind: 'invalidated', key });
  }

  /** Calls `listener` with each item event from now on; returns how to stop. */
  onItemEvent(listener: (event: PrivacyItemEvent) => void): () => void {
    this.itemListeners.add(listener);
    return () => this.itemListeners.delete(listener);
  }

  private tell(event: PrivacyItemEvent): void {
    // A listener (an event stream) never stops the store or the chain that told it.
    for (const l of this.itemListeners) {
      try {
        l(event);
      } catch {
        this.itemListeners.delete(l);
      }
    }
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/**
 * How an item is kept (WE's PolicyItemTypeSelector): its descriptor, else what the storage
 * says (then remembered as its descriptor); undefined when neither knows the item.
 */
export async function itemKind(state: PrivacyState, storage: PolicyStorage, key: PolicyItemKey): Promise<PrivacyDataType | undefined> {
  const known = state.descriptor(key);
  if (known !== undefined) return known;
  const stored = await storage.itemType(key);
  if (stored !== undefined) await state.putDescriptor(key, stored);
  return stored;
}
