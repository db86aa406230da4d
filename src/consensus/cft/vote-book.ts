/**
 * The votes a CFT node holds (we-node consensus/BlockVotesHandler's role): one VoteTally per
 * voting hash of the liquid block being voted on — the current liquid version and the few
 * before it, since validators vote again whenever a micro-block changes the liquid block —
 * and the miner's way to read and to wait for them. Bounded: at most `maxTallies` tallies
 * (each bounded by its validators), the oldest dropped first.
 *
 * Whoever follows the chain tells the book which block is voted on (follow); peers' votes
 * and this node's own are offered; a vote for a hash the book does not know is answered
 * 'other-block' (the caller may keep it for a later follow, vote-messages.ts does).
 */
import { bytesKey } from '../../crypto/encoding.js';
import type { Vote } from '../../protocol/blocks/consensus.js';
import type { Protocol } from '../../protocol/protocol.js';
import { VoteTally, type VoteOutcome } from './vote-tally.js';

/** The block votes are gathered for: its voting hash and its validators (address bytes). */
export interface VoteTarget {
  readonly votingHash: Uint8Array;
  readonly validators: readonly Uint8Array[];
}

/** How many liquid versions' tallies are kept (the current one and those just before it). */
export const DEFAULT_MAX_TALLIES = 4;

export type VoteListener = (votingHash: Uint8Array, vote: Vote) => void;

export class VoteBook {
  private readonly tallies = new Map<string, VoteTally>();
  private readonly voteListeners = new Set<VoteListener>();
  private readonly targetListeners = new Set<(target: VoteTarget) => void>();

  constructor(
    private readonly protocol: Protocol,
    private readonly maxTallies: number = DEFAULT_MAX_TALLIES,
  ) {
    if (!Number.isInteger(maxTallies) || maxTallies < 1) throw new RangeError(`maxTallies must be a positive integer, got ${maxTallies}`);
  }

  /**
   * The block voted on now (a new key block, a micro-block, a rollback): its tally is made
   * (kept if known), the oldest beyond maxTallies dropped; the target listeners are told.
   */
  follow(target: VoteTarget): void {
    const key = bytesKey(target.votingHash);
    const known = this.tallies.get(key);
    if (known !== undefined) this.tallies.delete(key);
    this.tallies.set(key, known ?? new VoteTally(this.protocol, target.votingHash, target.validators));
    for (const old of this.tallies.keys()) {
      if (this.tallies.size <= this.maxTallies) break;
      this.tallies.delete(old);
    }
    for (const listener of this.targetListeners) listener(target);
  }

  /** Forgets every tally (WE's votesHandler.clear(), before the miner's first micro-block on a new key block). */
  clear(): void {
    this.tallies.clear();
  }

  /** What offer would answer without verifying the signature ('unverified': only the signature decides). */
  precheck(vote: Vote): ReturnType<VoteTally['precheck']> {
    return this.tallies.get(bytesKey(vote.blockVotingHash))?.precheck(vote) ?? 'other-block';
  }

  /**
   * A vote from a peer or from this node's voter. `signatureValid`: the verdict when the
   * caller had the signature checked off the event loop; absent, it is verified here. An
   * accepted vote is told to the vote listeners.
   */
  offer(vote: Vote, signatureValid?: boolean): VoteOutcome {
    const tally = this.tallies.get(bytesKey(vote.blockVotingHash));
    if (tally === undefined) return 'other-block';
    const outcome = tally.offer(vote, signatureValid);
    if (outcome === 'accepted') for (const listener of this.voteListeners) listener(tally.votingHash, vote);
    return outcome;
  }

  /** The validators' votes held for a voting hash, in the order they came (empty for a hash the book does not follow). */
  votesFor(votingHash: Uint8Array): Vote[] {
    return this.tallies.get(bytesKey(votingHash))?.votes() ?? [];
  }

  /** The tally of a voting hash (its count, completeness and whether it finalises), if followed. */
  tallyOf(votingHash: Uint8Array): VoteTally | undefined {
    return this.tallies.get(bytesKey(votingHash));
  }

  /** Told of each accepted vote with the voting hash it is for; returns the function that stops it. */
  onVote(listener: VoteListener): () => void {
    this.voteListeners.add(listener);
    return () => this.voteListeners.delete(listener);
  }

  /** Told of each follow (vote-messages.ts offers again the votes it kept for a hash it did not know). */
  onTarget(listener: (target: VoteTarget) => void): () => void {
    this.targetListeners.add(listener);
    return () => this.targetListeners.delete(listener);
  }
}
