/**
 * A PoA miner's warnings and bans (we-node consensus/MinerBanHistory{,V1,V2},
 * MinerBanlistEntry).
 *
 * A miner who misses its round gets a Warning; the warning that would make
 * `warnings-for-ban` consecutive ones instead replaces the previous ones with a Ban
 * starting at that block's height; a ban excludes the miner from the queue for
 * `ban-duration-blocks` heights; a block forged by the miner cancels its warnings.
 *
 * Histories are kept oldest entry first (the store's order); WE keeps them newest first,
 * so WE's "head" is our last entry. A Ban's `priorWarningTimestamps` keep WE's order
 * (newest first).
 *
 * Two versions, as in WE:
 *   - v2 (feature 130, MinerBanHistoryOptimisationFix): only the trailing (newest) run of
 *     warnings counts and is cancelled; an entry not newer than the newest one is ignored.
 *   - v1 (before 130): entries form a set ordered by timestamp; every warning is cancelled
 *     by a forged block. Its ordering is "legacy" before feature 119 (entries with equal
 *     timestamps all kept, the newest insertion first) and "modern" from 119 on (an entry
 *     whose timestamp is already present is not added).
 */
import type { MinerBanEntry } from '../../state/model.js';

export type MinerBan = Extract<MinerBanEntry, { kind: 'ban' }>;

export interface BanRules {
  readonly banDurationBlocks: number;
  readonly warningsForBan: number;
}

export type BanHistoryVersion = 1 | 2;

/** How a history is handled at some height (see FEATURE_* in the consensus). */
export interface BanHistoryMode {
  readonly version: BanHistoryVersion;
  /** v1 only: the set ordering of feature 119 (equal timestamps collapse). */
  readonly modernOrdering: boolean;
}

export const V2_MODE: BanHistoryMode = { version: 2, modernOrdering: true };

/** First height after the ban: beginHeight + ban-duration-blocks. */
export function banEndHeight(ban: MinerBan, banDurationBlocks: number): number {
  return ban.beginHeight + banDurationBlocks;
}

const covers = (ban: MinerBan, height: number, banDurationBlocks: number): boolean =>
  height >= ban.beginHeight && height < banEndHeight(ban, banDurationBlocks);

/**
 * Whether a ban covers `height`, i.e. beginHeight ≤ height < beginHeight + ban-duration-blocks.
 * v2 scans from the newest entry and stops at the first ban that ended before `height`;
 * v1 looks at every ban. Both agree on any history built by warnOrBan (bans are added at
 * growing heights).
 */
export function isBanned(
  history: readonly MinerBanEntry[],
  height: number,
  rules: Pick<BanRules, 'banDurationBlocks'>,
  version: BanHistoryVersion = 2,
): boolean {
  const duration = rules.banDurationBlocks;
  if (version === 1) return history.some((e) => e.kind === 'ban' && covers(e, height, duration));
  for (let i = history.length - 1; i >= 0; i--) {
    const e = history[i]!;
    if (e.kind === 'warning') continue;
    if (banEndHeight(e, duration) < height) return false;
    if (covers(e, height, duration)) return true;
  }
  return false;
}

/** Number of warnings at the newest end of the history. */
function trailingWarnings(history: readonly MinerBanEntry[]): number {
  let n = 0;
  for (let i = history.length - 1; i >= 0 && history[i]!.kind === 'warning'; i--) n++;
  return n;
}

/** Whether a forged block has warnings to cancel (v2: trailing ones; v1: any). */
export function hasWarnings(history: readonly MinerBanEntry[], version: BanHistoryVersion): boolean {
  return version === 2 ? trailingWarnings(history) > 0 : history.some((e) => e.kind === 'warning');
}

/** The history once a forged block cancelled its warnings (v2: the trailing run; v1: all of them). */
export function dropWarnings(history: readonly MinerBanEntry[], version: BanHistoryVersion): MinerBanEntry[] {
  if (version === 2) return history.slice(0, history.length - trailingWarnings(history));
  return history.filter((e) => e.kind !== 'warning');
}

/** v1: inserts an entry in timestamp order (see the module notes for ties). */
function insertOrdered(history: readonly MinerBanEntry[], entry: MinerBanEntry, modernOrdering: boolean): MinerBanEntry[] {
  if (modernOrdering && history.some((e) => e.timestamp === entry.timestamp)) return [...history];
  let at = 0;
  while (at < history.length && history[at]!.timestamp <= entry.timestamp) at++;
  return [...history.slice(0, at), entry, ...history.slice(at)];
}

/** v1 keeps its entries sorted by timestamp (as the set WE loads them into). */
function sortedV1(history: readonly MinerBanEntry[]): MinerBanEntry[] {
  return [...history].sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
}

/**
 * The history after the miner missed a round at a block of height `height` and timestamp
 * `timestamp`: a Warning, or — when it already has warnings-for-ban − 1 trailing
 * warnings — a Ban from `height` that replaces them.
 */
export function warnOrBan(
  history: readonly MinerBanEntry[],
  height: number,
  timestamp: bigint,
  rules: BanRules,
  mode: BanHistoryMode = V2_MODE,
): MinerBanEntry[] {
  const base = mode.version === 2 ? history : sortedV1(history);
  const newest = base[base.length - 1];
  if (mode.version === 2 && newest !== undefined && newest.timestamp >= timestamp) return [...base];
  const warnings = trailingWarnings(base);
  if (warnings === rules.warningsForBan - 1) {
    const prior = base
      .slice(base.length - warnings)
      .map((e) => e.timestamp)
      .reverse();
    const kept = base.slice(0, base.length - warnings);
    const ban: MinerBanEntry = { kind: 'ban', timestamp, beginHeight: height, priorWarningTimestamps: prior };
    return mode.version === 2 ? [...kept, ban] : insertOrdered(kept, ban, mode.modernOrdering);
  }
  const warning: MinerBanEntry = { kind: 'warning', timestamp };
  return mode.version === 2 ? [...base, warning] : insertOrdered(base, warning, mode.modernOrdering);
}
