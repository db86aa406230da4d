/**
 * The PoA miner queue and who may forge which round (we-node consensus/MinerQueue,
 * PoALikeConsensus.determineMiner, findSkippedMiners).
 *
 * The queue at time T is every address whose deciding `miner` op at T is an active add,
 * ordered by that op's timestamp. The miner expected for a block whose parent is at
 * height h, s rounds after the parent's round, is found from the most recent block
 * (h, h−1, …) whose generator is in the queue: from that miner's position p the queue is
 * walked from p + 1 + (s mod n), over the rest of the queue and then once more from its
 * start, to the first miner not banned at h. When no block down to height 1 has a
 * generator in the queue, queue index (1 + s) mod n is taken (no ban check): the first
 * block after genesis goes to queue index 1.
 */
import { bytesKey, encodeBase58 } from '../../crypto/encoding.js';
import { ROLES } from '../../protocol/transactions/permissions.js';
import type { MinerBanEntry } from '../../state/model.js';
import { roleHoldersAt } from '../../state/permissions.js';
import type { ChainStateReader, PermissionReader } from '../../state/view.js';
import { genericError } from '../../errors/catalogue.js';

/** What the consensus reads of the chain; heights count from 1 (genesis). */
export interface ChainHeaders {
  /** Height of the last block (the liquid block's height while one exists). */
  height(): number;
  /** Public key of the generator of the block at `height`, if that height exists. */
  generatorAt(height: number): Uint8Array | undefined;
  /** Timestamp of the block at `height`, if that height exists. */
  timestampAt(height: number): bigint | undefined;
  /** The PoA/CFT `overall-skipped-rounds` of the block at `height` (0 for genesis). */
  overallSkippedRoundsAt(height: number): bigint | undefined;
}

/** Active miners at `timestamp`, in queue order (address bytes). */
export function minerQueueAt(state: PermissionReader, timestamp: bigint): Uint8Array[] {
  return roleHoldersAt(state, ROLES.miner, timestamp);
}

/** A queue with the lookups selection needs. */
export class MinerQueue {
  private readonly index = new Map<string, number>();

  constructor(readonly miners: readonly Uint8Array[]) {
    miners.forEach((a, i) => this.index.set(bytesKey(a), i));
  }

  static at(state: PermissionReader, timestamp: bigint): MinerQueue {
    return new MinerQueue(minerQueueAt(state, timestamp));
  }

  get size(): number {
    return this.miners.length;
  }

  indexOf(address: Uint8Array): number | undefined {
    return this.index.get(bytesKey(address));
  }

  has(address: Uint8Array): boolean {
    return this.index.has(bytesKey(address));
  }
}

/** Where the walk back through the chain stopped: a queue position, or genesis. */
export type QueueAnchor = { readonly kind: 'miner'; readonly index: number; readonly height: number } | { readonly kind: 'genesis' };

export const queueEmpty = (): ReturnType<typeof genericError> => genericError("Couldn't determine miner: miner queue is empty!");

/**
 * Walks back from `parentHeight` to the most recent block whose generator is in the
 * queue (WE's recursiveSearch); reaching height 1 without one gives the genesis anchor.
 */
export function findQueueAnchor(state: ChainStateReader, chain: ChainHeaders, queue: MinerQueue, parentHeight: number): QueueAnchor {
  if (queue.size === 0) throw queueEmpty();
  for (let h = parentHeight; ; h--) {
    const generator = h >= 1 ? chain.generatorAt(h) : undefined;
    if (generator === undefined) throw genericError(`Couldn't retrieve block at height ${h} from blockchain`);
    const index = queue.indexOf(state.protocol.addresses.fromPublicKey(generator).bytes);
    if (index !== undefined) return { kind: 'miner', index, height: h };
    if (h === 1) return { kind: 'genesis' };
  }
}

/**
 * The miner of the round `skip` rounds after the anchor's successor's, skipping miners
 * `banned` says are banned (at the parent height). Mirrors WE's iterator arithmetic: the
 * candidates are positions p + 1 + (skip mod n) … 2n − 1 of the queue written twice.
 */
export function selectMiner(queue: MinerQueue, anchor: QueueAnchor, skip: number, banned: (address: Uint8Array) => boolean): Uint8Array {
  const n = queue.size;
  if (n === 0) throw queueEmpty();
  if (anchor.kind === 'genesis') {
    // Scala's drop of a negative count drops nothing.
    return queue.miners[Math.max(0, (1 + skip) % n)]!;
  }
  const start = anchor.index + Math.max(0, 1 + (skip % n));
  for (let j = start; j < 2 * n; j++) {
    const candidate = queue.miners[j % n]!;
    if (!banned(candidate)) return candidate;
  }
  throw genericError('All miners are banned');
}

/** Address bytes → base58 string, as WE prints an Address. */
export const addressString = (address: Uint8Array): string => encodeBase58(address);

/** Ban histories read once per address. */
export function banHistoryReader(state: ChainStateReader): (address: Uint8Array) => readonly MinerBanEntry[] {
  const cache = new Map<string, readonly MinerBanEntry[]>();
  return (address) => {
    const key = bytesKey(address);
    let h = cache.get(key);
    if (h === undefined) {
      h = state.minerBanHistory(address);
      cache.set(key, h);
    }
    return h;
  };
}
