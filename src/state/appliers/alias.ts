/**
 * CreateAlias (10): we-node CreateAliasTransactionDiff — one alias per address, an alias
 * only once. (A second CreateAlias for a claimed alias usually fails earlier: its id is
 * derived from the alias alone, so it is "already in the state".)
 */
import { CreateAlias } from '../../protocol/transactions/alias.js';
import { payFee, senderOf, stateError, type Applier } from './context.js';

export const applyCreateAlias: Applier = (state, tx) => {
  if (!CreateAlias.is(tx)) throw new Error('applyCreateAlias: not a CreateAlias');
  const sender = senderOf(tx).bytes;
  if (state.aliasesOf(sender).length > 0) throw stateError('Only one alias per address is allowed');
  const name = tx.data.alias.name;
  if (state.aliasOwner(name) !== undefined) throw stateError('Alias already claimed');
  state.putAlias(name, sender);
  payFee(state, sender, tx);
  return undefined;
};
