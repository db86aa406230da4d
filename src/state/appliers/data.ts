/**
 * Data (12): we-node DataTransactionDiff. The entries go to the sender's account; the fee
 * is paid by the author (they are the same account unless a V1 was sent for someone else).
 */
import { Data } from '../../protocol/transactions/data.js';
import { addressOf, payFee, senderOf, type Applier } from './context.js';

export const applyData: Applier = (state, tx) => {
  if (!Data.is(tx)) throw new Error('applyData: not a Data');
  const sender = senderOf(tx).bytes;
  for (const entry of tx.data.data) state.putData(sender, entry);
  payFee(state, addressOf(state, tx.data.author).bytes, tx);
  return undefined;
};
