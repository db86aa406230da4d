/**
 * The validators of a CFT block (we-node consensus/CftConsensus.expectedValidators): the
 * active miners at an instant — the block's round end when its votes are checked — less
 * the block's own miner. When more remain than `max-validators`, WE's LCG shuffles them
 * (queue order in, see lcg.ts) and the first `max-validators` are taken; the seed is the
 * fast hash (Blake2b-256 on a WAVES network) of the concatenated ids of the last
 * min(⌈0.5·max⌉ + 1, max) blocks from the block's parent backwards, the parent's id (its
 * liquid id, as the block references it) first.
 */
import { bytesKey, concatBytes, encodeBase58 } from '../../crypto/encoding.js';
import { genericError } from '../../errors/catalogue.js';
import { CFT_RATIO } from './finality.js';
import { LcgRandom } from './lcg.js';

export interface ValidatorCandidates {
  /** Address bytes of the active miners at the instant, in queue order (poa/queue.ts minerQueueAt). */
  readonly activeMiners: readonly Uint8Array[];
  /** Address bytes of the block's miner: never its own validator. */
  readonly blockMiner: Uint8Array;
  readonly maxValidators: number;
  /** The block's reference: the parent's (liquid) id. */
  readonly parentId: Uint8Array;
  /**
   * Up to `count` block ids from the parent backwards, the parent's own id first (see
   * seedBlockIds); undefined when the parent is unknown.
   */
  readonly lastBlockIds: (count: number) => readonly Uint8Array[] | undefined;
  /** The network's fast hash. */
  readonly fastHash: (data: Uint8Array) => Uint8Array;
}

/** How many block ids seed the shuffle: min(⌈0.5·max⌉ + 1, max). */
export function seedBlockCount(maxValidators: number): number {
  return Math.min(Math.ceil(CFT_RATIO * maxValidators) + 1, maxValidators);
}

/**
 * WE's lastBlockIds(parent, count): the parent's id as referenced, then the ids of the
 * blocks at the heights below it, down to genesis at most. `idAt` gives a stored block's id.
 */
export function seedBlockIds(parentId: Uint8Array, parentHeight: number, count: number, idAt: (height: number) => Uint8Array): Uint8Array[] {
  const ids: Uint8Array[] = [];
  for (let h = parentHeight; h > Math.max(0, parentHeight - count); h--) ids.push(h === parentHeight ? parentId : idAt(h));
  return ids;
}

/** The block's validators (address bytes): queue order when all are taken, else the shuffle's first `max-validators`. */
export function expectedValidators(c: ValidatorCandidates): Uint8Array[] {
  const miner = bytesKey(c.blockMiner);
  const candidates = c.activeMiners.filter((a) => bytesKey(a) !== miner);
  if (candidates.length <= c.maxValidators) return candidates;
  const ids = c.lastBlockIds(seedBlockCount(c.maxValidators));
  if (ids === undefined) throw genericError(`Parent block '${encodeBase58(c.parentId)}' not found`);
  const seed = c.fastHash(concatBytes(...ids));
  return new LcgRandom(seed).shuffle(candidates).slice(0, c.maxValidators);
}
