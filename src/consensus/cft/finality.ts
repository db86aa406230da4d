/**
 * When a CFT block is final, and what finality allows (we-node consensus/CftConsensus,
 * CftLikeConsensusBlockData).
 *
 * A block is final once its consensus data carries votes (WE's isFinalized: a non-empty
 * vote list); votes are only let in when enough of them count. A vote counts when it is
 * for the block's voting hash, its sender is one of the block's validators and its
 * signature verifies; of several votes of one sender for that hash the last in the list is
 * the one judged (WE keys them by sender). Enough means
 * (counted + 1) / (validators + 1) > 0.5 in double arithmetic — the miner's own block is
 * its vote — so a block without validators is final on the miner's word alone.
 */
import { bytesKey, encodeBase58 } from '../../crypto/encoding.js';
import type { CftConsensusData, ConsensusData, Vote } from '../../protocol/blocks/consensus.js';
import type { Protocol } from '../../protocol/protocol.js';
import type { PoaRounds } from '../poa/rounds.js';
import { genericError } from '../../errors/catalogue.js';

/** WE's CftConsensus.CftRatio. */
export const CFT_RATIO = 0.5;

/** (votes + 1) / (validators + 1), as WE computes it (Int → Double). */
export function votingSatisfaction(countedVotes: number, validators: number): number {
  return (countedVotes + 1) / (validators + 1);
}

/** Whether `countedVotes` of `validators` finalise a block. */
export function hasFinalisingVotes(countedVotes: number, validators: number): boolean {
  return votingSatisfaction(countedVotes, validators) > CFT_RATIO;
}

/** The fewest counted votes that finalise a block with `validators` validators. */
export function finalisingVoteCount(validators: number): number {
  let n = 0;
  while (!hasFinalisingVotes(n, validators)) n++;
  return n;
}

/** WE's isFinalized: CFT consensus data with at least one vote. */
export function isFinalised(data: ConsensusData): data is CftConsensusData {
  return data.type === 'cft' && data.votes.length > 0;
}

export interface VoteCount {
  /** Validators whose vote counted (address bytes). */
  readonly counted: readonly Uint8Array[];
  /** Validators without a counting vote. */
  readonly missing: readonly Uint8Array[];
  readonly satisfaction: number;
}

/** Counts `votes` for a block as WE's validateVotes does (see the module notes). */
export function countVotes(p: Protocol, votingHash: Uint8Array, votes: readonly Vote[], validators: readonly Uint8Array[]): VoteCount {
  const hash = bytesKey(votingHash);
  const bySender = new Map<string, Vote>();
  for (const v of votes) if (bytesKey(v.blockVotingHash) === hash) bySender.set(bytesKey(p.addresses.fromPublicKey(v.sender).bytes), v);
  const counted: Uint8Array[] = [];
  const missing: Uint8Array[] = [];
  for (const validator of validators) {
    const vote = bySender.get(bytesKey(validator));
    (vote !== undefined && vote.hasValidSignature(p) ? counted : missing).push(validator);
  }
  return { counted, missing, satisfaction: votingSatisfaction(counted.length, validators.length) };
}

/**
 * WE's validateVotes: refuses votes that do not finalise the block. `entity` names what
 * carries them, as WE's message does: `Block '<id>'` or `Micro-block '<total signature>'`.
 */
export function requireFinalisingVotes(
  p: Protocol,
  entity: string,
  votingHash: Uint8Array,
  votes: readonly Vote[],
  validators: readonly Uint8Array[],
): VoteCount {
  const count = countVotes(p, votingHash, votes, validators);
  if (count.satisfaction > CFT_RATIO) return count;
  const listed = (items: readonly string[]): string => items.map((i) => `'${i}'`).join(', ');
  throw genericError(
    `${entity} does not contain the required percent of votes '${CFT_RATIO}', current - '${count.satisfaction}'. ` +
      `Current votes: ${listed(votes.map((v) => `Vote(${p.addresses.fromPublicKey(v.sender).toString()}, ${encodeBase58(v.blockVotingHash)})`))}, ` +
      `missing validator votes: ${listed(count.missing.map(encodeBase58))}`,
    'votes',
  );
}

/** Whether a CFT chain's tip is final, and the height of the last final block (what `/node/status` shows beyond WE). */
export interface TipFinality {
  readonly lastBlockFinalized: boolean;
  /**
   * The tip's height when it is final, else the height below it: a key block comes only on a
   * final parent (or genesis, which needs no votes).
   */
  readonly lastFinalizedHeight: number;
}

/** The finality of a CFT chain's tip — the liquid block's consensus data — at `height`. */
export function tipFinality(height: number, tip: ConsensusData): TipFinality {
  const final = height <= 1 || isFinalised(tip);
  return { lastBlockFinalized: final, lastFinalizedHeight: final ? height : height - 1 };
}

/**
 * WE's checkExtensionRollback: a fork may take back one block, two while the tip is not
 * final (the unfinal tip and the final block below it).
 */
export function allowedRollbackDepth(tip: ConsensusData): number {
  return tip.type === 'cft' && !isFinalised(tip) ? 2 : 1;
}

export function requireRollbackDepth(blocksToRemove: number, tip: ConsensusData): void {
  const allowed = allowedRollbackDepth(tip);
  if (blocksToRemove > allowed) {
    throw genericError(`CFT consensus does not allow rollback more than '${allowed}' block, current depth '${blocksToRemove}'`);
  }
}

/** What the replacement rule reads of a block. */
export interface TipFacts {
  readonly reference: Uint8Array;
  readonly timestamp: bigint;
  readonly consensus: ConsensusData;
}

/**
 * WE's blockCanBeReplaced: a key block on the same parent replaces an unfinal tip once the
 * round after the tip's has begun, both on the clock and by the new block's timestamp.
 */
export function canReplaceUnfinalisedTip(rounds: Pick<PoaRounds, 'nextRoundStart'>, now: bigint, candidate: TipFacts, tip: TipFacts): boolean {
  const nextRoundStart = rounds.nextRoundStart(tip.timestamp);
  return (
    bytesKey(tip.reference) === bytesKey(candidate.reference) &&
    now >= nextRoundStart &&
    candidate.timestamp >= nextRoundStart &&
    tip.consensus.type === 'cft' &&
    !isFinalised(tip.consensus)
  );
}
