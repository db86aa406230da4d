/**
 * What Scala (2.12, the WE node's) does where WE's answers depend on it: MurmurHash3
 * (scala.util.hashing) as scodec's ByteVector and case classes hash, Java's
 * String.hashCode, and the iteration order of immutable Maps and Sets (insertion order up
 * to 4 entries, hash-trie order beyond) — the order WE prints case-object fields and
 * some type lists in.
 */

/** scodec-bits' `ByteVector.toString`. */
export function byteVectorText(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'ByteVector(empty)';
  if (bytes.length < 512) return `ByteVector(${bytes.length} bytes, 0x${Buffer.from(bytes).toString('hex')})`;
  return `ByteVector(${bytes.length} bytes, #${byteVectorHashCode(bytes)})`;
}

const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r));

function mixLast(h: number, k: number): number {
  let x = Math.imul(k, 0xcc9e2d51);
  x = rotl(x, 15);
  x = Math.imul(x, 0x1b873593);
  return h ^ x;
}

function mix(h: number, data: number): number {
  const x = rotl(mixLast(h, data), 13);
  return (Math.imul(x, 5) + 0xe6546b64) | 0;
}

function finalizeHash(h: number, length: number): number {
  let x = h ^ length;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x | 0;
}

const STRING_SEED = 0xf7ca7fd2 | 0;
const ARRAY_SEED = 0x3c074a61;

function stringHash(s: string): number {
  let h = STRING_SEED;
  let i = 0;
  for (; i + 1 < s.length; i += 2) h = mix(h, ((s.charCodeAt(i) << 16) + s.charCodeAt(i + 1)) | 0);
  if (i < s.length) h = mixLast(h, s.charCodeAt(i));
  return finalizeHash(h, s.length);
}

function bytesHash(data: Uint8Array): number {
  let h = ARRAY_SEED;
  let i = 0;
  for (; data.length - i >= 4; i += 4) h = mix(h, data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
  const rest = data.length - i;
  let k = 0;
  if (rest === 3) k ^= data[i + 2]! << 16;
  if (rest >= 2) k ^= data[i + 1]! << 8;
  if (rest >= 1) {
    k ^= data[i]!;
    h = mixLast(h, k);
  }
  return finalizeHash(h, data.length);
}

/** scodec's ByteVector.hashCode: chunks of 64 KiB mixed into a hash seeded with "ByteVector". */
export function byteVectorHashCode(bytes: Uint8Array): number {
  const chunk = 64 * 1024;
  let h = stringHash('ByteVector');
  for (let at = 0; at < bytes.length; at += chunk) h = mix(h, bytesHash(bytes.subarray(at, at + chunk)));
  return finalizeHash(h, bytes.length);
}

// ---------------------------------------------------------------------------
// Hash codes (`##`) of the values WE's type and value collections hold

/** Java's String.hashCode (UTF-16 units). */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

const PRODUCT_SEED = 0xcafebabe | 0;
const SEQ_SEED = javaStringHashCode('Seq');

/** MurmurHash3.productHash (2.12): a case class of the given element hashes; a case object hashes as its name. */
export function productHash(prefix: string, elementHashes: readonly number[]): number {
  if (elementHashes.length === 0) return javaStringHashCode(prefix);
  let h = PRODUCT_SEED;
  for (const e of elementHashes) h = mix(h, e);
  return finalizeHash(h, elementHashes.length);
}

/** MurmurHash3.seqHash: the hash of a List of the given element hashes. */
export function seqHash(elementHashes: readonly number[]): number {
  let h = SEQ_SEED;
  for (const e of elementHashes) h = mix(h, e);
  return finalizeHash(h, elementHashes.length);
}

// ---------------------------------------------------------------------------
// Iteration order of immutable.Map / immutable.Set

/** HashMap.improve / HashSet.improve (2.12). */
function improve(hcode: number): number {
  let h = (hcode + ~(hcode << 9)) | 0;
  h ^= h >>> 14;
  h = (h + (h << 4)) | 0;
  return h ^ (h >>> 10);
}

/** Hash-trie order: by the improved hash's 5-bit chunks, lowest chunk first. */
function trieCompare(a: number, b: number): number {
  for (let shift = 0; shift < 32; shift += 5) {
    const x = (a >>> shift) & 0x1f;
    const y = (b >>> shift) & 0x1f;
    if (x !== y) return x - y;
  }
  return 0;
}

/**
 * The iteration order of a Scala immutable Map or Set built by adding `items` (distinct)
 * in this order: insertion order up to 4 entries (Map1–Map4, Set1–Set4), the hash trie's
 * order beyond. `hashOf` gives an item's `##`.
 */
export function scalaCollectionOrder<T>(items: readonly T[], hashOf: (item: T) => number): T[] {
  if (items.length <= 4) return [...items];
  const keyed = items.map((item) => ({ item, h: improve(hashOf(item)) }));
  keyed.sort((x, y) => trieCompare(x.h, y.h));
  return keyed.map((k) => k.item);
}

/** The iteration order of a Scala immutable Map with these String keys (added in this order). */
export const scalaMapKeyOrder = (keys: readonly string[]): string[] => scalaCollectionOrder(keys, javaStringHashCode);
