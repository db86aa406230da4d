/**
 * A value per address (or any short id), in first-set order, for the handful of addresses
 * one transaction touches: found by comparing bytes while there are few — no string key
 * made per lookup, no Map per transaction — and through a bytesKey index once there are
 * more (a mass transfer's recipients).
 */
import { bytesKey, equalBytes } from '../crypto/encoding.js';

/** Past this many entries lookups go through a string-keyed index. */
const SCANNED_ENTRIES = 16;

export class ByAddress<T> {
  private readonly addresses: Uint8Array[] = [];
  private readonly entries: T[] = [];
  private index: Map<string, number> | undefined;

  get size(): number {
    return this.entries.length;
  }

  get(address: Uint8Array): T | undefined {
    const at = this.indexOf(address);
    return at === -1 ? undefined : this.entries[at];
  }

  /** The value under `address`, set to `make()` first when there is none. */
  getOrAdd(address: Uint8Array, make: () => T): T {
    const at = this.indexOf(address);
    if (at !== -1) return this.entries[at]!;
    const value = make();
    this.add(address, value);
    return value;
  }

  /** Sets `value` under `address` unless it holds one already (the first stays). */
  setIfAbsent(address: Uint8Array, value: T): void {
    if (this.indexOf(address) === -1) this.add(address, value);
  }

  /** The values in first-set order (the list itself: read it, don't keep it across changes). */
  values(): readonly T[] {
    return this.entries;
  }

  private indexOf(address: Uint8Array): number {
    if (this.index !== undefined) return this.index.get(bytesKey(address)) ?? -1;
    const addresses = this.addresses;
    for (let i = 0; i < addresses.length; i++) {
      const known = addresses[i]!;
      if (known === address || equalBytes(known, address)) return i;
    }
    return -1;
  }

  private add(address: Uint8Array, value: T): void {
    this.addresses.push(address);
    this.entries.push(value);
    if (this.index !== undefined) this.index.set(bytesKey(address), this.entries.length - 1);
    else if (this.entries.length > SCANNED_ENTRIES) this.index = new Map(this.addresses.map((a, i) => [bytesKey(a), i]));
  }
}
