/**
 * The rules of every transaction type (rules.ts): its applier and what the chain checks
 * before it. The one place that dispatches chain rules on the type byte: adding a family
 * means adding its rules here.
 */
import type { TransactionRules } from './rules.js';
import { CREATE_ALIAS } from './alias.js';
import { BURN, ISSUE, REISSUE, SET_ASSET_SCRIPT, SPONSOR_FEE } from './assets.js';
import { ATOMIC } from './atomic.js';
import { DATA } from './data.js';
import { GENESIS, GENESIS_PERMIT, GENESIS_REGISTER_NODE } from './genesis.js';
import { LEASE, LEASE_CANCEL } from './leasing.js';
import { REGISTER_NODE } from './nodes.js';
import { PERMIT } from './permissions.js';
import { CREATE_POLICY, POLICY_DATA_HASH, UPDATE_POLICY } from './privacy.js';
import { SET_SCRIPT } from './scripts.js';
import { MASS_TRANSFER, TRANSFER } from './transfer.js';
import { CALL_CONTRACT, CREATE_CONTRACT, DISABLE_CONTRACT, EXECUTED_CONTRACT, UPDATE_CONTRACT } from './contracts.js';
import { EXCHANGE } from './unsupported.js';

export * from './context.js';
export * from './rules.js';
export { validateBalances, availableBalance, effectiveBalance } from './balances.js';

/** Every transaction type's rules, by type id. */
export const TRANSACTION_RULES: ReadonlyMap<number, TransactionRules> = new Map<number, TransactionRules>([
  [1, GENESIS],
  [3, ISSUE],
  [4, TRANSFER],
  [5, REISSUE],
  [6, BURN],
  [7, EXCHANGE],
  [8, LEASE],
  [9, LEASE_CANCEL],
  [10, CREATE_ALIAS],
  [11, MASS_TRANSFER],
  [12, DATA],
  [13, SET_SCRIPT],
  [14, SPONSOR_FEE],
  [15, SET_ASSET_SCRIPT],
  [101, GENESIS_PERMIT],
  [102, PERMIT],
  [103, CREATE_CONTRACT],
  [104, CALL_CONTRACT],
  [105, EXECUTED_CONTRACT],
  [106, DISABLE_CONTRACT],
  [107, UPDATE_CONTRACT],
  [110, GENESIS_REGISTER_NODE],
  [111, REGISTER_NODE],
  [112, CREATE_POLICY],
  [113, UPDATE_POLICY],
  [114, POLICY_DATA_HASH],
  [120, ATOMIC],
]);

/** The rules of a transaction type (undefined for a type the node does not know). */
export function rulesFor(type: number): TransactionRules | undefined {
  return TRANSACTION_RULES.get(type);
}
