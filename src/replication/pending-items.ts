/**
 * What a node must fetch, kept across restarts (WE keeps the same in its databases: the
 * privacy node database's prefixes 6 and 7, the confidential storage's pending and lost
 * items):
 *
 *  - the pending set: items this node must fetch from its peers; newly added ones are told
 *    to the listeners (the synchronizer starts fetching them at once), and at start the
 *    synchronizer fetches every one of them again — a restarted node resumes;
 *  - the lost set: items the synchronizer gave up on after its attempts (retried slowly).
 *
 * PendingSets keeps both in an LMDB environment the user opened (its own keys, under two
 * prefixes), every change committed before it is told: with `commit: 'sync'` before the
 * call returns (readers on the same turn see it), with 'async' once its promise settles.
 */
import type { RootDatabase } from 'lmdb';

/** An item newly added to the pending set, with the timestamp of the transaction that brought it when known. */
export type PendingItem<K> = K & { readonly txTimestamp?: bigint };

export interface PendingItems<K> {
  pending(): K[];
  lost(): K[];
  isPending(key: K): boolean;
  isLost(key: K): boolean;
  /** Adds items to the pending set (durably) and tells the listeners of those that were not there; how many were added. */
  addToPending(items: readonly PendingItem<K>[]): Promise<number>;
  /** Removes an item from both sets (it is stored now, or no longer wanted). */
  removeFromPendingAndLost(key: K): Promise<{ readonly wasPending: boolean; readonly wasLost: boolean }>;
  /** Moves an item from the pending set to the lost set. */
  pendingToLost(key: K): Promise<void>;
  /** Calls `listener` with items as they are newly added to the pending set; returns how to stop. */
  onPending(listener: (items: readonly PendingItem<K>[]) => void): () => void;
}

/** What a rolled-back item source looks like (privacy/policy-updates.ts). */
export interface RollbackSource<K> {
  onRollback(listener: (items: readonly K[]) => void): () => void;
}

/** How the sets' keys are written: `prefix ‖ name bytes`, the name bytes sorting the items of one group together. */
export interface PendingKeys<K> {
  readonly pendingPrefix: number;
  readonly lostPrefix: number;
  /** An item's name as key bytes (without the prefix). */
  encode(key: K): Uint8Array;
  /** The name back from key bytes (without the prefix). */
  decode(bytes: Uint8Array): K;
}

const EMPTY = new Uint8Array(0);

export class PendingSets<K> implements PendingItems<K> {
  private readonly listeners = new Set<(items: readonly PendingItem<K>[]) => void>();

  constructor(
    protected readonly db: RootDatabase<Uint8Array, Uint8Array>,
    private readonly keys: PendingKeys<K>,
    private readonly commit: 'sync' | 'async',
  ) {}

  /** `prefix ‖ name bytes`: an item's key under a prefix (a user keeps more under its own prefixes). */
  protected keyUnder(prefix: number, key: K): Uint8Array {
    const name = this.keys.encode(key);
    const out = new Uint8Array(1 + name.length);
    out[0] = prefix;
    out.set(name, 1);
    return out;
  }

  private write<T>(change: () => T): Promise<T> {
    return this.commit === 'sync' ? Promise.resolve(this.db.transactionSync(change)) : this.db.transaction(change);
  }

  /** Items under `prefix`, optionally only those whose name bytes start with `start`. */
  listed(which: 'pending' | 'lost', start: Uint8Array = EMPTY): K[] {
    const prefix = which === 'pending' ? this.keys.pendingPrefix : this.keys.lostPrefix;
    const from = new Uint8Array(1 + start.length);
    from[0] = prefix;
    from.set(start, 1);
    const to = Uint8Array.from(from);
    // The first key past every key that starts with `from`: its last byte below 0xff raised by one.
    let at = to.length - 1;
    while (at > 0 && to[at] === 0xff) at--;
    to[at]! += 1;
    return [...this.db.getKeys({ start: from, end: to.subarray(0, at + 1) })].map((k) => this.keys.decode(k.subarray(1)));
  }

  pending(): K[] {
    return this.listed('pending');
  }

  lost(): K[] {
    return this.listed('lost');
  }

  isPending(key: K): boolean {
    return this.db.get(this.keyUnder(this.keys.pendingPrefix, key)) !== undefined;
  }

  isLost(key: K): boolean {
    return this.db.get(this.keyUnder(this.keys.lostPrefix, key)) !== undefined;
  }

  async addToPending(items: readonly PendingItem<K>[]): Promise<number> {
    const added = await this.write(() => {
      const fresh: PendingItem<K>[] = [];
      for (const item of items) {
        const key = this.keyUnder(this.keys.pendingPrefix, item);
        if (this.db.get(key) !== undefined) continue;
        void this.db.put(key, EMPTY);
        fresh.push(item);
      }
      return fresh;
    });
    if (added.length > 0) for (const l of this.listeners) l(added);
    return added.length;
  }

  removeFromPendingAndLost(key: K): Promise<{ readonly wasPending: boolean; readonly wasLost: boolean }> {
    return this.write(() => {
      const pending = this.keyUnder(this.keys.pendingPrefix, key);
      const lost = this.keyUnder(this.keys.lostPrefix, key);
      const wasPending = this.db.get(pending) !== undefined;
      const wasLost = this.db.get(lost) !== undefined;
      void this.db.remove(pending);
      void this.db.remove(lost);
      return { wasPending, wasLost };
    });
  }

  async pendingToLost(key: K): Promise<void> {
    await this.write(() => {
      void this.db.remove(this.keyUnder(this.keys.pendingPrefix, key));
      void this.db.put(this.keyUnder(this.keys.lostPrefix, key), EMPTY);
    });
  }

  onPending(listener: (items: readonly PendingItem<K>[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
