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
 * change committed synchronously, so a restart resumes exactly where the node stopped.
 * Nothing here follows chain rollbacks: a rolled-back 114 only cancels its download (WE
 * does the same). Listeners hear of items newly added to the pending set (the
 * synchronizer starts fetching them).
 */
import { open, type RootDatabase } from 'lmdb';
import { dataTypeOfByte, DATA_TYPE_BYTE, type PolicyItemKey, type PrivacyDataType } from './item.js';
import type { PolicyStorage } from './storage/storage.js';

const DESCRIPTOR = 0x0a;
const PENDING = 0x06;
const LOST = 0x07;

const keyOf = (prefix: number, k: PolicyItemKey): Uint8Array => new Uint8Array(Buffer.from(`${String.fromCharCode(prefix)}${k.policyId}\u0000${k.hash}`, 'latin1'));

function itemOf(key: Uint8Array): PolicyItemKey {
  const [policyId = '', hash = ''] = Buffer.from(key.buffer, key.byteOffset + 1, key.byteLength - 1).toString('latin1').split('\u0000');
  return { policyId, hash };
}

/** An item newly added to the pending set, with the timestamp of the 114 that brought it when known. */
export interface PendingItem extends PolicyItemKey {
  readonly txTimestamp?: bigint;
}

export class PrivacyState {
  private readonly listeners = new Set<(items: readonly PendingItem[]) => void>();

  private constructor(private readonly db: RootDatabase<Uint8Array, Uint8Array>) {}

  /** Opens (or creates) the state at `path`. */
  static open(path: string): PrivacyState {
    return new PrivacyState(
      open<Uint8Array, Uint8Array>({ path, keyEncoding: 'binary', encoding: 'binary', compression: false, noSync: false, overlappingSync: false }),
    );
  }

  descriptor(key: PolicyItemKey): PrivacyDataType | undefined {
    const v = this.db.get(keyOf(DESCRIPTOR, key));
    return v === undefined ? undefined : dataTypeOfByte(v[0] ?? -1);
  }

  async putDescriptor(key: PolicyItemKey, type: PrivacyDataType): Promise<void> {
    await this.db.put(keyOf(DESCRIPTOR, key), Uint8Array.of(DATA_TYPE_BYTE[type]));
  }

  private list(prefix: number): PolicyItemKey[] {
    return [...this.db.getKeys({ start: Uint8Array.of(prefix), end: Uint8Array.of(prefix + 1) })].map((k) => itemOf(k));
  }

  pending(): PolicyItemKey[] {
    return this.list(PENDING);
  }

  lost(): PolicyItemKey[] {
    return this.list(LOST);
  }

  isPending(key: PolicyItemKey): boolean {
    return this.db.get(keyOf(PENDING, key)) !== undefined;
  }

  isLost(key: PolicyItemKey): boolean {
    return this.db.get(keyOf(LOST, key)) !== undefined;
  }

  /** Adds items to the pending set (durably) and tells the listeners of those that were not there; returns how many were added. */
  async addToPending(items: readonly PendingItem[]): Promise<number> {
    const added = await this.db.transaction(() => {
      const fresh: PendingItem[] = [];
      for (const item of items) {
        const key = keyOf(PENDING, item);
        if (this.db.get(key) !== undefined) continue;
        void this.db.put(key, new Uint8Array(0));
        fresh.push(item);
      }
      return fresh;
    });
    if (added.length > 0) for (const l of this.listeners) l(added);
    return added.length;
  }

  /** Removes an item from both sets (it is stored now). */
  async removeFromPendingAndLost(key: PolicyItemKey): Promise<{ readonly wasPending: boolean; readonly wasLost: boolean }> {
    return this.db.transaction(() => {
      const wasPending = this.db.get(keyOf(PENDING, key)) !== undefined;
      const wasLost = this.db.get(keyOf(LOST, key)) !== undefined;
      void this.db.remove(keyOf(PENDING, key));
      void this.db.remove(keyOf(LOST, key));
      return { wasPending, wasLost };
    });
  }

  /** Moves an item from the pending set to the lost set. */
  async pendingToLost(key: PolicyItemKey): Promise<void> {
    await this.db.transaction(() => {
      void this.db.remove(keyOf(PENDING, key));
      void this.db.put(keyOf(LOST, key), new Uint8Array(0));
    });
  }

  /** Calls `listener` with items as they are newly added to the pending set; returns how to stop. */
  onPending(listener: (items: readonly PendingItem[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
