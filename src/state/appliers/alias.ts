/**
 * CreateAlias (10): we-node CreateAliasTransactionDiff — one alias per address, an alias
 * only once. (A second CreateAlias for a claimed alias usually fails earlier: its id is
 * derived from the alias alone, so it is "already in the state".)
 */
import type { CreateAliasTransaction } from '../../protocol/transactions/alias.js';
import { payFee, senderOf, type Applier } from './context.js';
import { FEATURE } from '../../protocol/features.js';
import { featuresByVersion, ONE_WEST, paidFee, TX_PACKAGE, type TransactionRules } from './rules.js';
import { genericError } from '../../errors/catalogue.js';

export const applyCreateAlias: Applier<CreateAliasTransaction> = (state, tx) => {
  const sender = senderOf(tx).bytes;
  if (state.aliasesOf(sender).length > 0) throw genericError('Only one alias per address is allowed');
  const name = tx.data.alias.name;
  if (state.aliasOwner(name) !== undefined) throw genericError('Alias already claimed');
  state.putAlias(name, sender);
  payFee(state, sender, tx);
  return undefined;
};

export const CREATE_ALIAS: TransactionRules<CreateAliasTransaction> = {
  apply: applyCreateAlias,
  scalaClass: { pkg: TX_PACKAGE, name: 'CreateAliasTransaction', versioned: true },
  features: featuresByVersion({ 2: [], 3: [FEATURE.SPONSORED_FEES], 4: [FEATURE.SPONSORED_FEES, FEATURE.OTHER_TX_TYPES_ATOMIC] }),
  fee: paidFee('create-alias', ONE_WEST),
};
