/**
 * What a PoA miner may do now (we-node mining/PoaLikeMiner, MinerImplPoa): whether and
 * when this node forges the next key block, with which timestamp and
 * `overall-skipped-rounds`, and whether micro-blocks may still extend its key block.
 *
 * A key block may be forged in a round that starts after the tip's timestamp, before that
 * round's sync part, by the round's expected miner, holding the `miner` role, with no
 * account script. Other miners' rounds are skipped (they cost them warnings), so the
 * schedule holds for many miners even when only this node runs.
 *
 * Left to the caller (the miner loop): peers quorum, extension loading, the retry delays.
 */
import { ROLES } from '../../protocol/transactions/permissions.js';
import { addressHasRole } from '../../state/permissions.js';
import { type StateView } from '../../state/view.js';
import type { PoaConsensus } from './consensus.js';
import { addressString, MinerQueue, type ChainHeaders } from './queue.js';
import type { RoundTimestamps } from './rounds.js';
import { bytesKey } from '../../crypto/encoding.js';
import { genericError, WeError } from '../../errors/catalogue.js';

export interface ForgingInput {
  /** The state at the tip. */
  readonly state: StateView;
  readonly chain: ChainHeaders;
  /** The node's clock. */
  readonly now: bigint;
  /** This node's (miner's) address bytes. */
  readonly self: Uint8Array;
  /**
   * WE's miner.interval-after-last-block-then-generation-is-allowed (default 1 day): no
   * forging on a tip older than this, except right after genesis. Omitted: not checked.
   */
  readonly maxTipAgeMs?: number;
}

interface Slot {
  /** Height of the block to forge (tip height + 1). */
  readonly height: number;
  readonly round: RoundTimestamps;
  readonly skippedRounds: number;
  /** The `overall-skipped-rounds` to write into the key block. */
  readonly overallSkippedRounds: bigint;
}

export type ForgingPlan =
  /** Forge now, with this timestamp (inside [roundStart, syncStart) of `round`). */
  | (Slot & { readonly kind: 'forge'; readonly timestamp: bigint })
  /** This node's next slot starts at `at`; ask again then (the tip may change meanwhile). */
  | (Slot & { readonly kind: 'wait'; readonly at: bigint })
  /** No slot of this node in sight; ask again at `retryAt` or when the tip or state changes. */
  | { readonly kind: 'idle'; readonly reason: string; readonly retryAt: bigint };

/** The next key block this node may forge, or when to look again. */
export function planKeyBlock(poa: PoaConsensus, input: ForgingInput): ForgingPlan {
  const { state, chain, now, self } = input;
  const rounds = poa.rounds;
  const tipHeight = chain.height();
  const tipTs = chain.timestampAt(tipHeight);
  const tipOverall = chain.overallSkippedRoundsAt(tipHeight);
  if (tipTs === undefined || tipOverall === undefined) throw genericError(`Couldn't retrieve block at height ${tipHeight} from blockchain`);
  const retryAt = rounds.nextRoundStart(now);
  const who = addressString(self);

  if (input.maxTipAgeMs !== undefined && tipHeight !== 1 && now - tipTs > BigInt(input.maxTipAgeMs)) {
    return { kind: 'idle', reason: `Block chain is too old (last block timestamp is '${tipTs}' generated '${now - tipTs} milliseconds' ago)`, retryAt };
  }
  if (state.accountScript(self) !== null) {
    return { kind: 'idle', reason: `Account '${who}' is scripted and therefore not allowed to forge blocks`, retryAt };
  }

  // The first round a block may still be forged in: after the tip's round, sync not begun.
  const current = rounds.timestamps(now);
  const first =
    current.roundStart > tipTs && now < current.syncStart
      ? current
      : rounds.timestamps(maxOf(current.roundStart + rounds.periodMs, rounds.nextRoundStart(tipTs)));
  // Expected miners repeat with the queue length; look one full turn (and one more) ahead.
  const horizon = MinerQueue.at(state, maxOf(now, first.roundStart)).size + 1;
  for (let i = 0; i < horizon; i++) {
    const round = i === 0 ? first : rounds.timestamps(first.roundStart + BigInt(i) * rounds.periodMs);
    const at = now >= round.roundStart ? now : round.roundStart;
    if (!addressHasRole(state, self, ROLES.miner, at)) continue;
    let expected: Uint8Array;
    let skippedRounds: number;
    try {
      ({ expectedMiner: expected, skippedRounds } = poa.roundInfo(state, chain, tipHeight, at));
    } catch (e) {
      if (e instanceof WeError) continue; // e.g. every candidate of this round is banned
      throw e;
    }
    if (bytesKey(expected) !== bytesKey(self)) continue;
    const slot: Slot = { height: tipHeight + 1, round, skippedRounds, overallSkippedRounds: tipOverall + BigInt(skippedRounds) };
    return at === now ? { kind: 'forge', timestamp: now, ...slot } : { kind: 'wait', at, ...slot };
  }
  const reason = addressHasRole(state, self, ROLES.miner, now)
    ? `No round of '${who}' within the next ${horizon} rounds (banned, or the queue has no slot for it)`
    : `Current account '${who}' is not miner`;
  return { kind: 'idle', reason, retryAt };
}

export interface MicroBlockWindow {
  /** Whether a tx micro-block may be produced now for the key block. */
  readonly allowed: boolean;
  /** The instant checked: max(now, key block timestamp), as WE's miner takes it. */
  readonly timestamp: bigint;
  /** Micro-blocks must be strictly after this… */
  readonly roundStart: bigint;
  /** …and strictly before this (the key block round's sync start). */
  readonly syncStart: bigint;
}

/** Whether micro-blocks may still extend a key block forged at `keyBlockTimestamp`. */
export function microBlockWindow(poa: PoaConsensus, keyBlockTimestamp: bigint, now: bigint): MicroBlockWindow {
  const { roundStart, syncStart } = poa.rounds.timestamps(keyBlockTimestamp);
  const timestamp = maxOf(now, keyBlockTimestamp);
  return { allowed: timestamp > roundStart && timestamp < syncStart, timestamp, roundStart, syncStart };
}

const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/**
 * WE's PoALikeConsensus.calculatePeriodicDelay: the wait before the next attempt, between
 * `minDelayMs` and `maxDelayMs` on a sin² of where `now` is in the `fullIntervalMs` before
 * `target` — short near the interval's ends, longest in its middle; the longest at once in
 * the first half when the round was `alreadyChecked`.
 */
export function periodicDelayMs(now: bigint, target: bigint, fullIntervalMs: bigint, maxDelayMs: number, alreadyChecked = false, minDelayMs = 100): number {
  const position = 1 - Number(target - now) / Number(fullIntervalMs);
  if (alreadyChecked && position < 0.5) return maxDelayMs;
  return Math.round((maxDelayMs - minDelayMs) * Math.sin(position * Math.PI) ** 2) + minDelayMs;
}
