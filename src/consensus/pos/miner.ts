/**
 * What a PoS miner may do now (we-node mining/MinerImplPos): when this node's next key
 * block is due and the consensus data it carries.
 *
 * The account may forge once the time since the tip exceeds its delay (which depends on
 * its hit and generating balance), holding the `miner` role, with at least 10 000 WEST of
 * generating balance and no account script; the tip must not be older than
 * `interval-after-last-block-then-generation-is-allowed` (except right after genesis).
 *
 * One simplification: WE's PoS miner references the newest liquid block whose last
 * micro-block is at least `min-micro-block-age` old, dropping younger micro-blocks; here
 * the key block references the current tip (as PoA does), which is what a single forger
 * on its own chain does anyway — the chain cannot drop micro-blocks on append.
 */
import type { ChainHeaders } from '../../chain/blockchain.js';
import type { PosConsensusData } from '../../protocol/blocks/consensus.js';
import { ROLES } from '../../protocol/transactions/permissions.js';
import { addressHasRole } from '../../state/permissions.js';
import type { StateView } from '../../state/view.js';
import { MIN_GENERATING_BALANCE, posData, type PosConsensus } from './consensus.js';
import { WeError } from '../../errors/catalogue.js';

const LONG_MAX = (1n << 63n) - 1n;

export interface PosForgingInput {
  /** The state at the tip. */
  readonly state: StateView;
  readonly chain: ChainHeaders;
  /** The node's clock. */
  readonly now: bigint;
  /** This node's public key. */
  readonly publicKey: Uint8Array;
  /** WE's miner.interval-after-last-block-then-generation-is-allowed; omitted: not checked. */
  readonly maxTipAgeMs?: number;
}

export type PosForgingPlan =
  /** Forge now: a key block stamped `timestamp` with this consensus data. */
  | {
      readonly kind: 'forge';
      readonly height: number;
      readonly timestamp: bigint;
      readonly consensus: PosConsensusData;
      readonly balance: bigint;
      readonly delay: bigint;
    }
  /** This account's block becomes valid after `at` (parent timestamp + delay); look again then. */
  | { readonly kind: 'wait'; readonly height: number; readonly at: bigint; readonly balance: bigint; readonly delay: bigint }
  /** The account cannot forge on this tip; `reason` as WE logs it. */
  | { readonly kind: 'idle'; readonly reason: string };

/** The next key block this account may forge on the chain's tip, or why not / when. */
export function planPosKeyBlock(pos: PosConsensus, input: PosForgingInput): PosForgingPlan {
  const { state, chain, now, publicKey } = input;
  const tipHeight = chain.height();
  const tip = chain.headerAt(tipHeight);
  const address = state.protocol.addresses.fromPublicKey(publicKey);
  const who = address.toString();
  if (input.maxTipAgeMs !== undefined && tipHeight !== 1 && now - tip.timestamp > BigInt(input.maxTipAgeMs)) {
    return { kind: 'idle', reason: `Block chain is too old (last block timestamp is '${tip.timestamp}' generated '${now - tip.timestamp} milliseconds' ago)` };
  }
  if (state.accountScript(address.bytes) !== null) return { kind: 'idle', reason: `Account '${who}' is scripted and therefore not allowed to forge blocks` };
  let tipBaseTarget: bigint;
  try {
    tipBaseTarget = posData(tip.consensus).baseTarget;
  } catch (e) {
    if (e instanceof WeError) return { kind: 'idle', reason: e.message };
    throw e;
  }
  const balance = pos.generatingBalance(address.bytes, tipHeight);
  if (balance < MIN_GENERATING_BALANCE) {
    return { kind: 'idle', reason: `Generating balance '${balance}' of '${who}' is lower than required '${MIN_GENERATING_BALANCE}' for generation` };
  }
  const delay = pos.validBlockDelay(chain, tipHeight, publicKey, tipBaseTarget, balance);
  const expected = BigInt.asIntN(64, tip.timestamp + delay);
  if (!(expected > 0n && expected < LONG_MAX)) return { kind: 'idle', reason: `Invalid next block generation time: '${expected}'` };
  if (!addressHasRole(state, address.bytes, ROLES.miner, now)) return { kind: 'idle', reason: `Current account '${who}' is not miner` };
  // WE forges when the estimated delay is strictly below the time since the tip.
  if (!(delay < now - tip.timestamp)) return { kind: 'wait', height: tipHeight + 1, at: expected + 1n, balance, delay };
  return { kind: 'forge', height: tipHeight + 1, timestamp: now, consensus: pos.consensusData(chain, tipHeight, publicKey, now), balance, delay };
}
