/**
 * Time as anchoring sees it: the node clock for transaction timestamps, and pauses that a
 * stop cuts short. Tests inject a clock whose pauses end when the test moves time.
 */
import { setTimeout as pause } from 'node:timers/promises';

export interface AnchoringClock {
  /** Node time, ms. */
  now(): bigint;
  /** Resolves after `ms`; rejects (an AbortError) as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The real clock: `now` from the node, pauses on Node's timers. */
export function realClock(now: () => bigint): AnchoringClock {
  return { now, sleep: (ms, signal) => pause(ms, undefined, { signal }) };
}

/** Whether an error is the abort of a stop (not a failure to report). */
export function isAbort(e: unknown, signal: AbortSignal): boolean {
  return signal.aborted && (e === signal.reason || (e instanceof Error && e.name === 'AbortError'));
}
