/**
 * The votes a node holds for one liquid block (its voting hash): what the miner gathers
 * for its vote micro-block and what a node relays. Stricter than what a block may carry
 * (finality.ts counts as WE counts): a vote is held only when it is for this block, from
 * one of its validators, signed by its sender, and the first of that validator's votes —
 * another vote of the same validator for the same hash (a GOST signature differs each
 * time) is a double vote, neither held again nor relayed.
 *
 * A vote for another hash is not a double vote: WE's validators vote again whenever the
 * liquid block changes (a late micro-block), and each liquid version has its own tally.
 */
import { bytesKey } from '../../crypto/encoding.js';
import type { Vote } from '../../protocol/blocks/consensus.js';
import type { Protocol } from '../../protocol/protocol.js';
import { hasFinalisingVotes } from './finality.js';

export type VoteOutcome =
  /** Held: count it, relay it. */
  | 'accepted'
  /** The very vote already held. */
  | 'known'
  /** Another vote of a validator already held for this block. */
  | 'double-vote'
  /** For another voting hash. */
  | 'other-block'
  | 'not-validator'
  | 'invalid-signature';

export class VoteTally {
  private readonly validators: ReadonlySet<string>;
  private readonly held = new Map<string, Vote>();

  constructor(
    private readonly protocol: Protocol,
    readonly votingHash: Uint8Array,
    /** Address bytes of the block's validators (validators.ts). */
    validators: readonly Uint8Array[],
  ) {
    this.validators = new Set(validators.map(bytesKey));
  }

  /**
   * `signatureValid`: the verdict on the vote's signature when the caller had it checked
   * (on the verifier threads); absent, it is verified here.
   */
  offer(vote: Vote, signatureValid?: boolean): VoteOutcome {
    const before = this.precheck(vote);
    if (before !== 'unverified') return before;
    // Verified before it is called a double vote: a forgery names no one.
    if (!(signatureValid ?? vote.hasValidSignature(this.protocol))) return 'invalid-signature';
    const sender = bytesKey(this.protocol.addresses.fromPublicKey(vote.sender).bytes);
    if (this.held.has(sender)) return 'double-vote';
    this.held.set(sender, vote);
    return 'accepted';
  }

  /** What offer would answer without verifying the signature: 'unverified' when only the signature decides. */
  precheck(vote: Vote): Exclude<VoteOutcome, 'accepted' | 'double-vote' | 'invalid-signature'> | 'unverified' {
    if (bytesKey(vote.blockVotingHash) !== bytesKey(this.votingHash)) return 'other-block';
    const sender = bytesKey(this.protocol.addresses.fromPublicKey(vote.sender).bytes);
    if (!this.validators.has(sender)) return 'not-validator';
    const held = this.held.get(sender);
    if (held !== undefined && bytesKey(held.signature) === bytesKey(vote.signature)) return 'known';
    return 'unverified';
  }

  /** The held votes, in the order they were accepted. */
  votes(): Vote[] {
    return [...this.held.values()];
  }

  get count(): number {
    return this.held.size;
  }

  /** Every validator has voted. */
  get complete(): boolean {
    return this.held.size === this.validators.size;
  }

  /** The held votes finalise the block. */
  get finalising(): boolean {
    return hasFinalisingVotes(this.held.size, this.validators.size);
  }
}
