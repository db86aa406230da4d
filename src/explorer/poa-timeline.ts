/**
 * PoA rounds as the chain records them, for the network page.
 *
 * Every block carries the cumulative number of skipped rounds (`overall-skipped-rounds`),
 * so the rounds between two blocks that nobody mined is the difference of the two counters.
 * Who missed them the chain records only through the warnings and bans the next block
 * issued: a warning carries that block's timestamp, a ban begins at its height
 * (`/consensus/minersWarningsAndBans`). A miner's warnings are cancelled once it mines again,
 * so older gaps may show no names.
 */
import { toBigInt, type Int64 } from './format.js';
import { skippedRoundsOf, type BlockHeader } from './model.js';

export interface WarningsAndBans {
  readonly warningsAndBans: ReadonlyArray<{
    readonly address: string;
    readonly bans: ReadonlyArray<{ readonly timestamp: Int64; readonly beginHeight: number }>;
    readonly warnings: ReadonlyArray<{ readonly timestamp: Int64 }>;
  }>;
}

/** A round of the timeline: mined (by the block at `height`) or skipped (just before it). */
export interface RoundSlot {
  readonly kind: 'mined' | 'skipped';
  /** The block that was mined, or the block right after the skipped rounds. */
  readonly height: number;
  readonly generator?: string;
  /** For skipped rounds: what the next block did about them. */
  readonly outcome?: 'warned' | 'banned';
  /** Rounds this slot stands for (a long outage is one slot). */
  readonly rounds: number;
}

export interface Gap {
  /** The block after the gap. */
  readonly height: number;
  readonly timestamp: Int64;
  readonly skipped: number;
  readonly warned: readonly string[];
  readonly banned: readonly string[];
}

export interface RoundTimeline {
  readonly slots: readonly RoundSlot[];
  /** Gaps with skipped rounds, newest first. */
  readonly gaps: readonly Gap[];
}

/** Skipped rounds shown one slot each; a longer gap is one slot holding all. */
const SLOTS_PER_GAP = 12;

/** The rounds of `headers` (ascending, consecutive heights) with the warnings and bans of each gap. */
export function roundTimeline(headers: readonly BlockHeader[], record: WarningsAndBans): RoundTimeline {
  const warnedAt = new Map<string, string[]>();
  const bannedAt = new Map<number, string[]>();
  for (const miner of record.warningsAndBans) {
    for (const w of miner.warnings) {
      const key = String(toBigInt(w.timestamp));
      warnedAt.set(key, [...(warnedAt.get(key) ?? []), miner.address]);
    }
    for (const b of miner.bans) bannedAt.set(b.beginHeight, [...(bannedAt.get(b.beginHeight) ?? []), miner.address]);
  }
  const slots: RoundSlot[] = [];
  const gaps: Gap[] = [];
  headers.forEach((h, i) => {
    const prev = i === 0 ? undefined : headers[i - 1];
    const before = prev === undefined ? undefined : skippedRoundsOf(prev);
    const now = skippedRoundsOf(h);
    const skipped = before === undefined || now === undefined ? 0 : Number(now - before);
    if (skipped > 0) {
      const warned = warnedAt.get(String(toBigInt(h.timestamp))) ?? [];
      const banned = bannedAt.get(h.height) ?? [];
      const outcome = banned.length > 0 ? 'banned' : warned.length > 0 ? 'warned' : undefined;
      gaps.push({ height: h.height, timestamp: h.timestamp, skipped, warned, banned });
      if (skipped <= SLOTS_PER_GAP) {
        for (let r = 0; r < skipped; r++) slots.push({ kind: 'skipped', height: h.height, rounds: 1, ...(outcome === undefined ? {} : { outcome }) });
      } else {
        slots.push({ kind: 'skipped', height: h.height, rounds: skipped, ...(outcome === undefined ? {} : { outcome }) });
      }
    }
    slots.push({ kind: 'mined', height: h.height, generator: h.generator, rounds: 1 });
  });
  return { slots, gaps: gaps.reverse() };
}

/**
 * The queue from the miner after `lastGenerator` around to it, without the banned: the
 * order in which the next rounds fall to miners if none is skipped.
 */
export function upcomingMiners(queue: readonly string[], lastGenerator: string, banned: ReadonlySet<string>): string[] {
  const at = queue.indexOf(lastGenerator);
  const rotated = at < 0 ? [...queue] : [...queue.slice(at + 1), ...queue.slice(0, at + 1)];
  return rotated.filter((m) => !banned.has(m));
}
