/**
 * A map bounded in size whose entries expire a fixed time after they were written — the
 * cache WE builds with Guava (`maximumSize` + `expireAfterWrite`) for its seen inventories,
 * holders, failed peers and data served to peers, the gossip's seen caches and the contract
 * execution statuses. An entry written at t is live until t + ttl (excluded). Writing a
 * key again renews it and makes it the newest; beyond `maxSize` the oldest entries go
 * first, expired ones whenever a write passes them. With `recency`, a read makes its entry
 * the newest too (least recently used out first), without renewing its expiry.
 */
export interface ExpiringCacheOptions {
  readonly maxSize: number;
  /** How long an entry lives after it was written, ms. */
  readonly ttlMs: number;
  /** Monotonic (or node) time, ms; `performance.now()` by default. */
  readonly now?: () => number;
  /** Reads count as use: the least recently used entry goes first (an LRU). */
  readonly recency?: boolean;
}

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
}

export class ExpiringCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly now: () => number;

  constructor(private readonly o: ExpiringCacheOptions) {
    this.now = o.now ?? (() => performance.now());
  }

  /** The value of a live entry; an expired one is dropped. */
  get(key: K): V | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    if (this.o.recency === true) {
      this.entries.delete(key);
      this.entries.set(key, e);
    }
    return e.value;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /** Writes `key` (renewed, the newest), then drops what is expired or beyond `maxSize` from the oldest end. */
  set(key: K, value: V): void {
    const now = this.now();
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: now + this.o.ttlMs });
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.o.maxSize && e.expiresAt > now) break;
      this.entries.delete(k);
    }
  }

  /** Writes `key` unless it is live already; true when it was written. */
  add(key: K, value: V): boolean {
    if (this.has(key)) return false;
    this.set(key, value);
    return true;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }

  /** How many live entries there are. */
  freshSize(): number {
    let n = 0;
    this.forEachFresh(() => n++);
    return n;
  }

  /** Visits the live entries, oldest first. */
  forEachFresh(f: (key: K, value: V) => void): void {
    const now = this.now();
    for (const [key, e] of this.entries) if (e.expiresAt > now) f(key, e.value);
  }
}
