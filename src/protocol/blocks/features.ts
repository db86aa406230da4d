/**
 * Order of block feature votes. WE keeps them in a Scala 2.12 `Set[Short]` and
 * serialises that set: up to four votes keep insertion (wire) order, five or more come
 * out in HashSet order (see transactions/scala-set.ts). Block JSON maps the set to a set
 * of Play `JsNumber`s before writing it, so for five or more votes the JSON order is the
 * HashSet order of the JsNumbers' hashes — different again from the wire order.
 */
import { scalaSetOrderBy, scalaShortSetOrder } from '../transactions/scala-set.js';
import { genericError } from '../../errors/catalogue.js';

export const MAX_FEATURES_IN_BLOCK = 64;
export const SHORT_MIN = -0x8000;
export const SHORT_MAX = 0x7fff;

/** Fails on an id that is not a Java short and on duplicates (a Scala set would drop them). */
export function checkFeatureVotes(ids: readonly number[], field = 'featureVotes'): void {
  const seen = new Set<number>();
  for (const id of ids) {
    if (!Number.isInteger(id) || id < SHORT_MIN || id > SHORT_MAX) throw genericError(`Feature id ${id} is not a short`, field);
    if (seen.has(id)) throw genericError(`Duplicate feature vote ${id}`, field);
    seen.add(id);
  }
}

/** The order a WE miner serialises `ids` in: Scala 2.12 Set[Short] iteration order. */
export function featureVotesForProducing(ids: readonly number[]): number[] {
  checkFeatureVotes(ids);
  return scalaShortSetOrder(ids);
}

const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r));

/** scala.util.hashing.MurmurHash3.mix (2.12). */
function murmurMix(hash: number, data: number): number {
  let k = Math.imul(data, 0xcc9e2d51);
  k = rotl(k, 15);
  k = Math.imul(k, 0x1b873593);
  let h = hash ^ k;
  h = rotl(h, 13);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function murmurAvalanche(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/**
 * hashCode of Play's `JsNumber(BigDecimal(n))` for an int n: a case class of one field,
 * so MurmurHash3.productHash with seed 0xcafebabe over the field's hash, and a whole
 * BigDecimal within the int range hashes to the int itself.
 */
export function jsNumberHash(n: number): number {
  return murmurAvalanche(murmurMix(0xcafebabe | 0, n) ^ 1);
}

/** The order block JSON lists feature votes in (`features`). */
export function featureVotesJsonOrder(ids: readonly number[]): number[] {
  return scalaSetOrderBy(ids, jsNumberHash, (x) => x);
}
