/**
 * PoA rounds (we-node consensus/PoALikeConsensus: calculateRoundTimestamps,
 * nextRoundTimestamp, countSkippedRounds).
 *
 * Time is cut into rounds of R = round-duration + sync-duration ms counted from the genesis
 * block timestamp G. Blocks are forged in [roundStart, syncStart); the sync part carries
 * no new blocks. All arithmetic is Java `long` arithmetic: `/` and `%` truncate toward
 * zero, exactly as bigint does, so instants before G behave as in WE.
 */
import type { PoaSettings } from '../../chain/settings.js';
import { genericError } from '../../errors/catalogue.js';

export interface RoundTimestamps {
  readonly roundStart: bigint;
  /** roundStart + round-duration: from here until the round ends no block may be forged. */
  readonly syncStart: bigint;
  /** roundStart + R − 1: the last millisecond of the round. */
  readonly roundEnd: bigint;
}

const INT_MAX = 0x7fffffffn;

export class PoaRounds {
  /** round-duration (the mining part), ms. */
  readonly roundMs: bigint;
  /** round-duration + sync-duration, ms. */
  readonly periodMs: bigint;

  constructor(
    readonly genesisTimestamp: bigint,
    settings: Pick<PoaSettings, 'roundDurationMs' | 'syncDurationMs'>,
  ) {
    if (!Number.isSafeInteger(settings.roundDurationMs) || settings.roundDurationMs <= 0) {
      throw genericError(`PoA round-duration must be a positive number of milliseconds, got ${settings.roundDurationMs}`, 'round-duration');
    }
    if (!Number.isSafeInteger(settings.syncDurationMs) || settings.syncDurationMs < 0) {
      throw genericError(`PoA sync-duration must not be negative, got ${settings.syncDurationMs}`, 'sync-duration');
    }
    this.roundMs = BigInt(settings.roundDurationMs);
    this.periodMs = this.roundMs + BigInt(settings.syncDurationMs);
  }

  /** The round `t` falls in. */
  timestamps(t: bigint): RoundTimestamps {
    const g = this.genesisTimestamp;
    const roundStart = ((t - g) / this.periodMs) * this.periodMs + g;
    return { roundStart, syncStart: roundStart + this.roundMs, roundEnd: roundStart + this.periodMs - 1n };
  }

  roundStart(t: bigint): bigint {
    return this.timestamps(t).roundStart;
  }

  syncStart(t: bigint): bigint {
    return this.timestamps(t).syncStart;
  }

  roundEnd(t: bigint): bigint {
    return this.timestamps(t).roundEnd;
  }

  /** Start of the round after the one `t` falls in (WE's nextRoundTimestamp). */
  nextRoundStart(t: bigint): bigint {
    const life = t - this.genesisTimestamp;
    return life - (life % this.periodMs) + this.periodMs + this.genesisTimestamp;
  }

  /** Whether two instants fall in the same round. */
  sameRound(a: bigint, b: bigint): boolean {
    return this.timestamps(a).roundStart === this.timestamps(b).roundStart;
  }

  /**
   * Rounds without a block between a parent at `parentTimestamp` and a block at `t`:
   * ⌊(t − nextRoundStart(parent)) / R⌋, 0 when `t` is in the round right after the parent's.
   * WE counts them in an int and refuses more.
   */
  skippedRounds(parentTimestamp: bigint, t: bigint): number {
    const skipped = (t - this.nextRoundStart(parentTimestamp)) / this.periodMs;
    if (skipped > INT_MAX) throw genericError("Something wrong happened, skipped rounds counter has overflown integer's max value");
    return Number(skipped);
  }

  /** The round `k` rounds after the one `t` falls in. */
  roundAfter(t: bigint, k: number): RoundTimestamps {
    return this.timestamps(this.roundStart(t) + BigInt(k) * this.periodMs);
  }
}
