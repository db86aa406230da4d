/**
 * CFT votes over the peers (P2P 33, `key ‖ voting hash(32) ‖ signature`; we-node
 * network/message VoteSpec and consensus/BlockVotesHandler) on a node that runs CFT (a node
 * without CFT reads and drops them, feature-off-messages.ts).
 *
 * A vote from a peer is read (a malformed one closes the peer), counted against the peer's
 * cap per second (beyond it: dropped — a validator relays a few votes per liquid block, a
 * flood is not votes), looked up among the votes seen lately (a vote comes back from every
 * peer it was relayed to), and pre-checked by the VoteBook: for the block voted on, from one
 * of its validators, not the very vote held. Only then is its signature checked — for all
 * votes that arrived in one event-loop turn together, on the verifier threads — and the
 * VoteBook takes it. An accepted vote goes to every peer but the one it came from (WE relays
 * every vote it verified; Weft only those it holds, which carries every vote that counts).
 *
 * A vote for a hash the book does not follow is not a fault: a node behind on micro-blocks
 * sees legit votes for a liquid block it lacks. Up to `maxUnknown` of them are kept for
 * `unknownTtlMs` and offered again whenever the book follows a new block. Double votes,
 * votes of non-validators and forged signatures are dropped (logged at debug), the peer
 * stays: a relaying peer is not the signer.
 */
import { bytesKey, encodeBase58 } from '../crypto/encoding.js';
import type { SignatureCheck } from '../crypto/verify-batch.js';
import type { VoteBook, VoteTarget } from '../consensus/cft.js';
import { Vote } from '../protocol/blocks/consensus.js';
import type { Protocol } from '../protocol/protocol.js';
import { decodeVote } from './feature-off-messages.js';
import { MessageCode, type Peer } from './types.js';

/** Votes one peer may send per second before the rest of that second's are dropped. */
export const DEFAULT_VOTES_PER_PEER_PER_SECOND = 200;
/** Votes for a block not followed (yet) kept to offer again. */
export const DEFAULT_MAX_UNKNOWN_VOTES = 64;
/** How long such a vote is kept: about a round. */
export const DEFAULT_UNKNOWN_VOTE_TTL_MS = 60_000;
/** Votes remembered as seen (WE's cache holds 300 vote ids). */
export const SEEN_VOTES = 1024;

export interface VoteMessagesOptions {
  readonly protocol: Protocol;
  readonly book: VoteBook;
  readonly peers: () => readonly Peer[];
  /** Checks signatures on the verifier threads (SignatureVerifierPool.verifyEach); absent: on the event loop, as every other check of such a node. */
  readonly verifyEach?: (checks: readonly SignatureCheck[]) => Array<Promise<boolean>>;
  readonly log: { debug(message: string): void };
  readonly votesPerPeerPerSecond?: number;
  readonly maxUnknown?: number;
  readonly unknownTtlMs?: number;
  /** Monotonic ms (performance.now by default). */
  readonly clock?: () => number;
}

interface Arrival {
  readonly vote: Vote;
  /** The peer it came from; undefined for a vote offered again after it. */
  readonly from: Peer | undefined;
}

/** Sends a vote to every connected peer but `except`; returns how many it went to. */
export function sendVote(peers: readonly Peer[], vote: Vote, except?: Peer): number {
  let sent = 0;
  for (const peer of peers) if (peer !== except && peer.send(MessageCode.Vote, vote.bytes)) sent++;
  return sent;
}

export class VoteMessages {
  private readonly perSecond: number;
  private readonly maxUnknown: number;
  private readonly unknownTtlMs: number;
  private readonly clock: () => number;
  private readonly rates = new WeakMap<Peer, { second: number; count: number }>();
  private readonly seen = new Set<string>();
  private unknown: Array<Arrival & { readonly at: number }> = [];
  private queued: Arrival[] = [];
  private flushScheduled = false;
  private readonly stopFollowing: () => void;

  constructor(private readonly o: VoteMessagesOptions) {
    this.perSecond = o.votesPerPeerPerSecond ?? DEFAULT_VOTES_PER_PEER_PER_SECOND;
    this.maxUnknown = o.maxUnknown ?? DEFAULT_MAX_UNKNOWN_VOTES;
    this.unknownTtlMs = o.unknownTtlMs ?? DEFAULT_UNKNOWN_VOTE_TTL_MS;
    this.clock = o.clock ?? (() => performance.now());
    this.stopFollowing = o.book.onTarget((target) => this.retry(target));
  }

  /** A message from a peer: true when it is a vote (taken, or dropped with a reason at debug); false for any other code. */
  handle(peer: Peer, code: number, payload: Uint8Array): boolean {
    if (code !== MessageCode.Vote) return false;
    const raw = decodeVote(this.o.protocol.crypto, payload);
    if (!this.withinRate(peer)) {
      this.o.log.debug(`CFT vote from ${encodeBase58(peer.info.ownerAddress)} dropped: more than ${this.perSecond} votes in a second`);
      return true;
    }
    // Copied out of the frame's buffer: the vote may be kept.
    const vote = new Vote(raw.sender.slice(), raw.votingHash.slice(), raw.signature.slice());
    const key = bytesKey(vote.bytes);
    if (this.seen.has(key)) return true;
    this.seen.add(key);
    if (this.seen.size > SEEN_VOTES) this.seen.delete(this.seen.values().next().value!);
    this.consider({ vote, from: peer });
    return true;
  }

  /** Sends this node's own vote (or any held one) to every connected peer but `except`. */
  broadcast(vote: Vote, except?: Peer): number {
    this.seen.add(bytesKey(vote.bytes));
    return sendVote(this.o.peers(), vote, except);
  }

  /** Stops following the book. */
  close(): void {
    this.stopFollowing();
    this.queued = [];
    this.unknown = [];
  }

  private withinRate(peer: Peer): boolean {
    const second = Math.floor(this.clock() / 1000);
    const rate = this.rates.get(peer);
    if (rate === undefined || rate.second !== second) {
      this.rates.set(peer, { second, count: 1 });
      return true;
    }
    return ++rate.count <= this.perSecond;
  }

  private consider(arrival: Arrival): void {
    const pre = this.o.book.precheck(arrival.vote);
    if (pre === 'unverified') {
      this.queued.push(arrival);
      this.scheduleFlush();
    } else if (pre === 'other-block') {
      this.keepUnknown(arrival);
    } else if (pre !== 'known') {
      this.dropped(arrival, pre);
    }
  }

  private keepUnknown(arrival: Arrival): void {
    this.unknown.push({ ...arrival, at: this.clock() });
    if (this.unknown.length > this.maxUnknown) this.unknown.shift();
  }

  /** The book follows a new block: the kept votes for it are offered again, the expired ones dropped. */
  private retry(target: VoteTarget): void {
    const now = this.clock();
    const hash = bytesKey(target.votingHash);
    const kept = this.unknown.filter((u) => now - u.at <= this.unknownTtlMs);
    this.unknown = kept.filter((u) => bytesKey(u.vote.blockVotingHash) !== hash);
    for (const u of kept) if (bytesKey(u.vote.blockVotingHash) === hash) this.consider(u);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // The votes of one event-loop turn go to the verifier threads together.
    setImmediate(() => {
      this.flushScheduled = false;
      const batch = this.queued;
      this.queued = [];
      if (batch.length > 0) this.verify(batch);
    });
  }

  private verify(batch: readonly Arrival[]): void {
    const verifyEach = this.o.verifyEach;
    if (verifyEach === undefined) {
      for (const arrival of batch) this.settle(arrival, undefined);
      return;
    }
    const checks = batch.map(({ vote }) => ({ publicKey: vote.sender, message: vote.bodyBytes, signature: vote.signature }));
    verifyEach(checks).forEach((verdict, i) => {
      verdict.then(
        (valid) => this.settle(batch[i]!, valid),
        (e: unknown) => this.o.log.debug(`CFT vote not verified: ${e instanceof Error ? e.message : String(e)}`),
      );
    });
  }

  private settle(arrival: Arrival, signatureValid: boolean | undefined): void {
    const outcome = this.o.book.offer(arrival.vote, signatureValid);
    if (outcome === 'accepted') this.broadcast(arrival.vote, arrival.from);
    else if (outcome === 'other-block') this.keepUnknown(arrival);
    else if (outcome !== 'known') this.dropped(arrival, outcome);
  }

  private dropped(arrival: Arrival, reason: string): void {
    const from = arrival.from === undefined ? 'a peer' : encodeBase58(arrival.from.info.ownerAddress);
    const sender = encodeBase58(this.o.protocol.addresses.fromPublicKey(arrival.vote.sender).bytes);
    this.o.log.debug(`CFT vote of ${sender} from ${from} for ${encodeBase58(arrival.vote.blockVotingHash)} dropped: ${reason}`);
  }
}
