/**
 * What the live page derives from block headers: transactions per second per block, and
 * where the clock stands in the PoA round.
 */
import { toBigInt } from './format.js';
import type { BlockHeader } from './model.js';

/** The span of the transactions-per-second chart. */
export const WINDOW_MS = 10 * 60_000;

/** A step line: each value holds from its time to the next. */
export interface StepSeries {
  /** Seconds since the epoch, ascending. */
  readonly times: readonly number[];
  readonly values: readonly number[];
}

/**
 * Transactions per second of each final block of the last WINDOW_MS before `nodeNow`: its
 * transactions over the time until the next key block. The last header is the liquid
 * block, still growing: it only ends the last step (a rate of a block in the making would
 * swing with each micro-block).
 */
export function txRateSeries(headers: readonly BlockHeader[], nodeNow: number): StepSeries {
  const times: number[] = [];
  const values: number[] = [];
  const since = nodeNow - WINDOW_MS;
  headers.slice(0, -1).forEach((h, i) => {
    const start = Number(toBigInt(h.timestamp));
    const end = Number(toBigInt(headers[i + 1]!.timestamp));
    if (end < since) return;
    times.push(start / 1000);
    values.push(h.transactionCount / Math.max(1, (end - start) / 1000));
  });
  const liquid = headers[headers.length - 1];
  if (times.length > 0 && liquid !== undefined) {
    times.push(Number(toBigInt(liquid.timestamp)) / 1000);
    values.push(values[values.length - 1]!);
  }
  return { times, values };
}

export interface Round {
  /** Rounds since genesis. */
  readonly number: number;
  readonly start: number;
  /** The part of the round in which blocks and micro-blocks are made. */
  readonly miningMs: number;
  readonly totalMs: number;
}

/** The PoA round at `t` (WE: roundStart = G + ⌊(t − G)/R⌋·R with R = round + sync duration). */
export function roundAt(genesisTs: number, miningMs: number, syncMs: number, t: number): Round {
  const total = miningMs + syncMs;
  const number = Math.floor((t - genesisTs) / total);
  return { number, start: genesisTs + number * total, miningMs, totalMs: total };
}
