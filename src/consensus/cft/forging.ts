/**
 * The next CFT key block (we-node mining/MinerImplCft: checkConsensusForgingRequirement,
 * maxKeyBlockGenerationDelay, keyBlockData): PoA's slot (poa/miner.ts planKeyBlock), and
 * in it a key block only on a final tip — or on genesis. While the tip is not final the
 * miner waits, looking again on PoA's sin² spacing of at most a seventh of a round; once
 * `finalization-timeout` has passed since the start of the round it would forge in, the
 * unfinal tip is dropped (WE's discardNg: the liquid block rolled back, its transactions
 * back to the pool) and the slot tried again on the block below.
 */
import type { Block } from '../../protocol/blocks.js';
import type { PoaConsensus } from '../poa/consensus.js';
import { periodicDelayMs, planKeyBlock, type ForgingInput, type ForgingPlan } from '../poa/miner.js';
import { isFinalised } from './finality.js';

/** Genesis block versions (WE's Block.GenesisBlockVersions): its child needs no finality. */
const GENESIS_VERSIONS: ReadonlySet<number> = new Set([1, 4]);

export interface CftForgingInput extends ForgingInput {
  /** The liquid tip: the key block would reference it. */
  readonly tip: Pick<Block, 'version' | 'consensus' | 'idBase58'>;
  readonly finalizationTimeoutMs: number;
}

export type CftForgingPlan =
  | ForgingPlan
  /** The slot has come but the tip is not final yet: look again at `retryAt` (or when the tip changes). */
  | { readonly kind: 'await-finality'; readonly reason: string; readonly retryAt: bigint }
  /** The tip did not become final in time: roll it back (its transactions to the pool) and plan again. */
  | { readonly kind: 'drop-tip'; readonly reason: string };

/** The next CFT key block this node may forge, or what to do first. */
export function planCftKeyBlock(poa: PoaConsensus, input: CftForgingInput): CftForgingPlan {
  const plan = planKeyBlock(poa, input);
  if (plan.kind !== 'forge') return plan;
  const { tip, now } = input;
  if (isFinalised(tip.consensus) || GENESIS_VERSIONS.has(tip.version)) return plan;
  if (plan.round.roundStart + BigInt(input.finalizationTimeoutMs) < now) {
    return { kind: 'drop-tip', reason: `Last block '${tip.idBase58}' finalization timeout, NG has been reset` };
  }
  const rounds = poa.rounds;
  // WE's deferForgeBlock: the spacing against the current round's end, at most R/7.
  const delay = periodicDelayMs(now, plan.round.roundEnd, rounds.periodMs, Number(rounds.periodMs / 7n));
  return { kind: 'await-finality', reason: `Last block '${tip.idBase58}' not finalized yet, retrying`, retryAt: now + BigInt(delay) };
}
