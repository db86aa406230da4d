/**
 * The applier of every transaction type: the one place that dispatches state transitions
 * on the type byte. Adding a family means adding its applier here.
 */
import type { Applier } from './context.js';
import { applyCreateAlias } from './alias.js';
import { applyBurn, applyIssue, applyReissue, applySetAssetScript, applySponsorFee } from './assets.js';
import { applyAtomic } from './atomic.js';
import { applyData } from './data.js';
import { applyGenesis, applyGenesisPermit, applyGenesisRegisterNode } from './genesis.js';
import { applyLease, applyLeaseCancel } from './leasing.js';
import { applyRegisterNode } from './nodes.js';
import { applyPermit } from './permissions.js';
import { applyCreatePolicy, applyPolicyDataHash, applyUpdatePolicy } from './privacy.js';
import { applySetScript } from './scripts.js';
import { applyMassTransfer, applyTransfer } from './transfer.js';
import { applyContractTransaction, applyExchange } from './unsupported.js';

export * from './context.js';
export { validateBalances, availableBalance, effectiveBalance } from './balances.js';

const APPLIERS: ReadonlyMap<number, Applier> = new Map<number, Applier>([
  [1, applyGenesis],
  [3, applyIssue],
  [4, applyTransfer],
  [5, applyReissue],
  [6, applyBurn],
  [7, applyExchange],
  [8, applyLease],
  [9, applyLeaseCancel],
  [10, applyCreateAlias],
  [11, applyMassTransfer],
  [12, applyData],
  [13, applySetScript],
  [14, applySponsorFee],
  [15, applySetAssetScript],
  [101, applyGenesisPermit],
  [102, applyPermit],
  [103, applyContractTransaction],
  [104, applyContractTransaction],
  [105, applyContractTransaction],
  [106, applyContractTransaction],
  [107, applyContractTransaction],
  [110, applyGenesisRegisterNode],
  [111, applyRegisterNode],
  [112, applyCreatePolicy],
  [113, applyUpdatePolicy],
  [114, applyPolicyDataHash],
  [120, applyAtomic],
]);

/** The applier of a transaction type (undefined for a type the node does not know). */
export function applierFor(type: number): Applier | undefined {
  return APPLIERS.get(type);
}
