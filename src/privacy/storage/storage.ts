/**
 * Where confidential data lives: one interface, three vendors (embedded.ts, postgres.ts,
 * s3.ts), chosen by `node.privacy.storage.vendor`.
 *
 * Every vendor keeps the same promises:
 *  - an item is visible (its metadata readable, `exists` true) only once all of its bytes
 *    are durably stored and their SHA-256 matched the hash it is stored under; a failed,
 *    cut or mismatched upload leaves nothing visible;
 *  - large items are streamed in and out with bounded memory, whatever their size;
 *  - a second upload of a stored item fails with 608 (EntityAlreadyExists), never
 *    overwrites it;
 *  - a storage that fails answers StorageFailure (609), never a half result.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { encodeBase58 } from '../../crypto/encoding.js';
import { invalidPolicyDataHash } from '../../errors/catalogue.js';
import type { PolicyItemKey, PolicyItemMeta, PrivacyDataType } from '../item.js';

/** The stored bytes of an item, streamed, with their exact length. */
export interface StoredData {
  readonly length: number;
  readonly stream: Readable;
}

/** An item's bytes as they come to be stored: whole (small items) or as a stream of chunks. */
export type IncomingData = Uint8Array | AsyncIterable<Uint8Array>;

export interface PolicyStorage {
  /** `embedded`, `postgres` or `s3`. */
  readonly vendor: string;
  /** Whether the item is stored. */
  exists(key: PolicyItemKey): Promise<boolean>;
  /** How a stored item is kept; undefined when it is not stored. */
  itemType(key: PolicyItemKey): Promise<PrivacyDataType | undefined>;
  meta(key: PolicyItemKey): Promise<PolicyItemMeta | undefined>;
  /** Metadata of the stored items among the given hashes of each policy (policy id → hashes). */
  metas(request: ReadonlyMap<string, ReadonlySet<string>>): Promise<PolicyItemMeta[]>;
  /** The whole bytes of a stored item (meant for small items); undefined when not stored. */
  readData(key: PolicyItemKey): Promise<Uint8Array | undefined>;
  /** The bytes of a stored item as a stream; undefined when not stored. */
  openData(key: PolicyItemKey): Promise<StoredData | undefined>;
  /**
   * Stores an item under `meta`'s policy id and hash, checking while the bytes come that
   * they hash to it. Resolves once the item is durably stored and visible; rejects with
   * invalidPolicyDataHash (199), entityAlreadyExists (608), StorageFailure (609) or the
   * error the incoming stream failed with — leaving nothing visible.
   */
  save(meta: PolicyItemMeta, type: PrivacyDataType, data: IncomingData): Promise<void>;
  /** Fails with StorageFailure when the storage cannot be used. */
  healthCheck(): Promise<void>;
  close(): Promise<void>;
}

/** SHA-256 of an item's bytes, taken as they stream, and their count. */
export class ItemDigest {
  private readonly hash: Hash = createHash('sha256');
  length = 0;

  update(chunk: Uint8Array): void {
    this.hash.update(chunk);
    this.length += chunk.length;
  }

  /** Base58 of the digest (the form PolicyDataHash anchors). */
  base58(): string {
    return encodeBase58(this.hash.digest());
  }

  /** Throws invalidPolicyDataHash unless the bytes seen hash to `expected`. */
  check(expected: string): void {
    const actual = this.base58();
    if (actual !== expected) throw invalidPolicyDataHash(actual, expected);
  }
}

/** The incoming bytes as chunks (a whole item is one chunk). */
export async function* chunksOf(data: IncomingData): AsyncGenerator<Uint8Array> {
  if (data instanceof Uint8Array) {
    yield data;
    return;
  }
  for await (const chunk of data) if (chunk.length > 0) yield chunk;
}

/**
 * The bytes of `source` regrouped into pieces of exactly `size` bytes (the last may be
 * shorter): at most one piece is held at a time.
 */
export async function* piecesOf(source: AsyncIterable<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  let piece = Buffer.allocUnsafe(size);
  let filled = 0;
  for await (const chunk of source) {
    let at = 0;
    while (at < chunk.length) {
      const n = Math.min(size - filled, chunk.length - at);
      piece.set(chunk.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === size) {
        yield piece;
        piece = Buffer.allocUnsafe(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield piece.subarray(0, filled);
}

/** The bytes of an incoming item collected in memory, up to `limit` (bigger → `tooBig(size)`). */
export async function collect(data: IncomingData, limit: number, tooBig: (size: number) => Error): Promise<Uint8Array> {
  if (data instanceof Uint8Array) {
    if (data.length > limit) throw tooBig(data.length);
    return data;
  }
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of data) {
    total += chunk.length;
    if (total > limit) throw tooBig(total);
    parts.push(chunk);
  }
  return parts.length === 1 ? parts[0]! : new Uint8Array(Buffer.concat(parts));
}
