/**
 * Who votes for a CFT block and when, and when the block's miner stops gathering votes
 * (we-node mining/MinerImplCft: votingLoop, votingAttempt, tryValidatorVoting,
 * tryMinerVoting, votingEndCondition). Pure: the miner loop (consensus/miner.ts) asks
 * with the clock, the liquid tip and what it did so far, and does what the plan says.
 *
 * A round's voting runs from the sync part of the tip's round until `finalization-timeout`
 * after the round ends. Inside it, a validator of the tip signs a vote for the liquid
 * block's voting hash, and again each time the liquid block changes (WE follows
 * lastBlockInfo) — when the change gives it another voting hash: a change that keeps the
 * hash (the vote micro-block itself, which only adds votes) would sign the same vote body
 * again, which WE's vote handler drops as known by its id; the tip's own miner gathers its validators' votes instead, until all
 * have voted — or, once `full-vote-set-timeout` after the sync start has passed (at once
 * without it), until enough have — then puts them in one vote micro-block.
 *
 * The validators are those of the tip at the instant of the round's first attempt (WE's
 * votingAttempt takes the active miners at the current time, where a block's votes are
 * checked against those at its round end; they differ only when the miner set changes
 * inside the round). The caller computes them once per round (validatorsNow).
 */
import { bytesKey } from '../../crypto/encoding.js';
import { minerQueueAt } from '../poa/queue.js';
import type { RoundTimestamps } from '../poa/rounds.js';
import type { PermissionReader } from '../../state/view.js';
import { hasFinalisingVotes } from './finality.js';
import { expectedValidators, seedBlockIds } from './validators.js';

/** The CFT settings the voting reads (chain/settings.ts CftSettings). */
export interface CftTiming {
  readonly finalizationTimeoutMs: number;
  readonly fullVoteSetTimeoutMs: number | undefined;
}

/** The instants of one round's voting. */
export interface VotingWindow {
  /** Votes and the vote micro-block from here (the round's sync start)… */
  readonly syncStart: bigint;
  /** …until here: round end + finalization-timeout (WE's finalizationEnd). */
  readonly finalizationEnd: bigint;
  /** The miner waits for every validator's vote until here (WE's fullVoteSetAwaitingEnd: sync start + full-vote-set-timeout, or 0). */
  readonly fullVoteSetEnd: bigint;
}

/** The voting window of the round `round` (the round of the tip's timestamp). */
export function votingWindow(round: RoundTimestamps, timing: CftTiming): VotingWindow {
  return {
    syncStart: round.syncStart,
    finalizationEnd: round.roundEnd + BigInt(timing.finalizationTimeoutMs),
    fullVoteSetEnd: round.syncStart + BigInt(timing.fullVoteSetTimeoutMs ?? 0),
  };
}

/** Whether a vote micro-block may carry `timestamp` (WE's checkVoteMicroBlockTimestampBounds, both bounds inclusive). */
export function inVotingWindow(window: VotingWindow, timestamp: bigint): boolean {
  return timestamp >= window.syncStart && timestamp <= window.finalizationEnd;
}

/** The liquid tip as the voting reads it. */
export interface VotingTip {
  readonly height: number;
  /** The liquid block's voting hash (Block#votingHash). */
  readonly votingHash: Uint8Array;
  /** Address bytes of the key block's miner. */
  readonly miner: Uint8Array;
}

export interface VotingInput {
  readonly window: VotingWindow;
  readonly now: bigint;
  readonly tip: VotingTip;
  /** This node's owner address bytes. */
  readonly self: Uint8Array;
  /** The voting hash this node last signed a vote for in this round, if any. */
  readonly votedFor: Uint8Array | undefined;
  /** The tip's validators for this round (computed once per round, see the module notes). */
  readonly validators: () => readonly Uint8Array[];
}

export type VotingPlan =
  /** The round's voting has not begun: look again at `at`. */
  | { readonly kind: 'wait'; readonly at: bigint }
  /** Nothing to do in this round (the genesis block, or the window has closed): look again when the tip changes. */
  | { readonly kind: 'over'; readonly reason: string }
  /** This node mined the tip: gather these validators' votes until `until` at the latest. */
  | { readonly kind: 'collect'; readonly validators: readonly Uint8Array[]; readonly until: bigint }
  /** Sign a vote for the liquid block now. */
  | { readonly kind: 'vote' }
  /** Voted for this liquid block already, or not a validator: look again when the liquid block changes, until `until`. */
  | { readonly kind: 'watch'; readonly reason: string; readonly until: bigint };

/** What this node does about the tip's finality now (WE's votingAttempt). */
export function planVoting(input: VotingInput): VotingPlan {
  const { window, now, tip, self } = input;
  if (now < window.syncStart) return { kind: 'wait', at: window.syncStart };
  if (now > window.finalizationEnd) return { kind: 'over', reason: 'Finalization time is over' };
  if (tip.height <= 1) return { kind: 'over', reason: 'Genesis block does not require voting' };
  const validators = input.validators();
  if (bytesKey(tip.miner) === bytesKey(self)) return { kind: 'collect', validators, until: window.finalizationEnd };
  if (!validators.some((v) => bytesKey(v) === bytesKey(self))) {
    return { kind: 'watch', reason: 'The current node owner is not validator for this round', until: window.finalizationEnd };
  }
  if (input.votedFor !== undefined && bytesKey(input.votedFor) === bytesKey(tip.votingHash)) {
    return { kind: 'watch', reason: 'Voted for the current liquid block', until: window.finalizationEnd };
  }
  return { kind: 'vote' };
}

/**
 * Whether the tip's miner stops gathering with `held` of its `validators` validators'
 * votes (WE's votingEndCondition): every validator has voted, or the full-vote-set wait
 * is over — and the votes held finalise the block.
 */
export function gatheringEnded(window: VotingWindow, now: bigint, held: number, validators: number): boolean {
  return (held === validators || now >= window.fullVoteSetEnd) && hasFinalisingVotes(held, validators);
}

/** What the validators are computed from (the chain at its tip). */
export interface ValidatorSource {
  readonly state: PermissionReader;
  readonly maxValidators: number;
  /** The id of the stored block at a height. */
  readonly blockIdAt: (height: number) => Uint8Array | undefined;
  readonly fastHash: (data: Uint8Array) => Uint8Array;
}

/**
 * The validators of the tip — a key block at `height` referencing `reference`, mined by
 * `miner` — among the miners active at `at` (WE's expectedValidators(lastBlock.reference, at, lastBlock.sender)).
 */
export function validatorsAt(source: ValidatorSource, tip: { height: number; reference: Uint8Array; miner: Uint8Array }, at: bigint): Uint8Array[] {
  return expectedValidators({
    activeMiners: minerQueueAt(source.state, at),
    blockMiner: tip.miner,
    maxValidators: source.maxValidators,
    parentId: tip.reference,
    lastBlockIds: (count) => {
      const ids = seedBlockIds(tip.reference, tip.height - 1, count, (h) => source.blockIdAt(h) ?? new Uint8Array(0));
      return ids.some((id) => id.length === 0) ? undefined : ids;
    },
    fastHash: source.fastHash,
  });
}
