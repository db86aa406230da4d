/**
 * When the miner next tries to forge a key block for an account (`/debug/minerInfo`): under
 * PoA the start of its next slot (every account has one, as in WE), under PoS the moment its
 * delay runs out — none when it cannot forge on this tip.
 */
import type { ChainHeaders } from '../chain/blockchain.js';
import type { StateView } from '../state/view.js';
import { planKeyBlock } from './poa.js';
import { planPosKeyBlock } from './pos.js';
import { PoaRules, poaHeaders, type PosRules } from './rules.js';

export interface ForgingAccount {
  /** The state at the tip. */
  readonly state: StateView;
  readonly chain: ChainHeaders;
  /** The node's clock. */
  readonly now: bigint;
  readonly address: Uint8Array;
  readonly publicKey: Uint8Array;
}

export function nextForgingAttempt(rules: PoaRules | PosRules, account: ForgingAccount): bigint | undefined {
  const { state, chain, now } = account;
  if (rules instanceof PoaRules) {
    const plan = planKeyBlock(rules.poa, { state, chain: poaHeaders(chain), now, self: account.address });
    return plan.kind === 'forge' ? plan.timestamp : plan.kind === 'wait' ? plan.at : plan.retryAt;
  }
  const plan = planPosKeyBlock(rules.pos, { state, chain, now, publicKey: account.publicKey });
  return plan.kind === 'forge' ? now : plan.kind === 'wait' ? plan.at : undefined;
}
