/**
 * Iteration order of a Scala 2.12 immutable Set, which is the order WE serializes a
 * `Set` field in (SHORT_SET group members, block feature votes).
 *
 * Scala builds Set1…Set4 for up to four elements — they keep insertion order, and a
 * duplicate keeps its first position. From five elements on it is a HashSet trie,
 * iterated by the 5-bit digits of the "improved" element hash, least significant
 * digit first. An element's hash is Java's `Arrays.hashCode` of its bytes (addresses)
 * or the number itself (Short feature ids).
 */

/** Java Arrays.hashCode(byte[]): 31·h + signed byte, 32-bit. */
export function javaArrayHash(bytes: Uint8Array): number {
  let h = 1;
  for (let i = 0; i < bytes.length; i++) h = (Math.imul(31, h) + ((bytes[i]! << 24) >> 24)) | 0;
  return h;
}

/** scala.collection.immutable.HashSet#improve (2.12). */
export function improveHash(hcode: number): number {
  let h = (hcode + ~(hcode << 9)) | 0;
  h ^= h >>> 14;
  h = (h + (h << 4)) | 0;
  return h ^ (h >>> 10);
}

/** Sort key: the 5-bit digits of the improved hash, least significant first. */
function trieKey(improved: number): number[] {
  const digits: number[] = [];
  for (let shift = 0; shift < 32; shift += 5) digits.push((improved >>> shift) & 31);
  return digits;
}

function compareDigits(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * The elements of a Scala Set built from `items` (in that order), in its iteration order.
 * `hashOf` gives the element's Java hashCode; `identity` tells duplicates apart.
 */
export function scalaSetOrderBy<T>(items: readonly T[], hashOf: (x: T) => number, identity: (x: T) => string | number): T[] {
  const seen = new Set<string | number>();
  const unique: T[] = [];
  for (const x of items) {
    const id = identity(x);
    if (!seen.has(id)) {
      seen.add(id);
      unique.push(x);
    }
  }
  if (unique.length <= 4) return unique;
  const keyed = unique.map((x) => ({ x, key: trieKey(improveHash(hashOf(x))) }));
  keyed.sort((a, b) => compareDigits(a.key, b.key));
  return keyed.map((k) => k.x);
}

/** Set order for elements hashed by their bytes (addresses). */
export function scalaSetOrder<T>(items: readonly T[], bytesOf: (x: T) => Uint8Array, identity: (x: T) => string): T[] {
  return scalaSetOrderBy(items, (x) => javaArrayHash(bytesOf(x)), identity);
}

/** Set order of Short values (block feature votes). */
export function scalaShortSetOrder(items: readonly number[]): number[] {
  return scalaSetOrderBy(
    items,
    (x) => x,
    (x) => x,
  );
}
