/**
 * Where a micro-block's time goes on this node, for finding what makes the tail of its
 * propagation: the moments it passed each stage here, written as one DEBUG line of the
 * logger `network.micro-blocks` once it is appended (and announced), nothing when that
 * level is off.
 *
 * - At its forger (origin `local`): `appended` (the chain's event, after the commit) and
 *   `announced` (its inventory handed to the peers' sockets); the chain's own timing gives
 *   how long building and signing (`applyMs`) and the commit (`commitMs`) took before.
 * - At a receiver (origin `network`): `inventory` (the first inventory read), `requested`,
 *   `arrived` (the response read off the socket, before it is decoded), `received`
 *   (decoded), `verified` (its signatures checked), `applying` (its turn came),
 *   `appended` (the chain's event) and `announced` (its inventory relayed); `applyMs` and
 *   `commitMs` are the chain's.
 * - Wherever a peer's request for one is answered: a line `micro-block served` naming the
 *   peer (its node name) and the moment.
 *
 * Times are the wall clock in ms with a fraction (performance.timeOrigin + now), so lines
 * from the processes of one machine line up.
 */
import type { ChainEvent } from '../chain/peer-chain.js';

type AppendTiming = Extract<ChainEvent, { kind: 'micro-block' }>['timing'];

export type MicroBlockStage = 'inventory' | 'requested' | 'arrived' | 'received' | 'verified' | 'applying' | 'appended' | 'announced';

/** The pino methods the timeline uses. */
export interface MicroBlockTimelineLog {
  debug(obj: object, msg: string): void;
  isLevelEnabled(level: string): boolean;
}

interface Entry {
  readonly stages: Partial<Record<MicroBlockStage, number>>;
  timing?: AppendTiming;
}

/** Micro-blocks followed at once at most (the oldest is forgotten beyond). */
const MAX_FOLLOWED = 256;

export const wallClockMs = (): number => performance.timeOrigin + performance.now();

export class MicroBlockTimeline {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly log: MicroBlockTimelineLog | undefined,
    private readonly clock: () => number = wallClockMs,
  ) {}

  /** Whether stages are recorded now (the logger's DEBUG level is on). */
  get enabled(): boolean {
    return this.log !== undefined && this.log.isLevelEnabled('debug');
  }

  /** The micro-block (by its total-signature key) reached `stage` now; only the first time counts. */
  mark(key: string, stage: MicroBlockStage, at?: number): void {
    if (!this.enabled) return;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { stages: {} };
      this.entries.set(key, entry);
      if (this.entries.size > MAX_FOLLOWED) this.entries.delete(this.entries.keys().next().value!);
    }
    entry.stages[stage] ??= at ?? this.clock();
  }

  /** The chain appended it: now, with the chain's apply and commit times. */
  appended(key: string, timing: AppendTiming): void {
    if (!this.enabled) return;
    this.mark(key, 'appended');
    this.entries.get(key)!.timing = timing;
  }

  /** It was announced (or there was no one to announce it to): its line is written and it is forgotten. */
  announced(key: string, fields: { readonly id: string; readonly origin: 'local' | 'network'; readonly transactions: number }): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    if (!this.enabled) return;
    entry.stages.announced ??= this.clock();
    const t = entry.timing;
    this.log!.debug(
      { ...fields, at: entry.stages, ...(t === undefined ? {} : { applyMs: round(t.applySeconds * 1000), commitMs: round(t.commitSeconds * 1000) }) },
      'micro-block timeline',
    );
  }

  /** A peer's request for it was answered now (at its forger, or a node that relayed it): a line of its own. */
  served(fields: { readonly id: string; readonly to: string }): void {
    if (!this.enabled) return;
    this.log!.debug({ ...fields, at: this.clock() }, 'micro-block served');
  }

  /** It will not be appended here (given up, refused, left behind): forgotten. */
  forget(key: string): void {
    this.entries.delete(key);
  }
}

const round = (ms: number): number => Math.round(ms * 100) / 100;
