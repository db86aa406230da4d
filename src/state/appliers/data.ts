/**
 * Data (12): we-node DataTransactionDiff. The entries go to the sender's account; the fee
 * is paid by the author (they are the same account unless a V1 was sent for someone else).
 */
import type { DataTransaction } from '../../protocol/transactions/data.js';
import { addressOf, payFee, senderOf, type Applier } from './context.js';
import { FEATURE } from '../../protocol/features.js';
import { featuresByVersion, TX_PACKAGE, west, type TransactionRules } from './rules.js';

export const applyData: Applier<DataTransaction> = (state, tx) => {
  const sender = senderOf(tx).bytes;
  for (const entry of tx.data.data) state.putData(sender, entry);
  payFee(state, addressOf(state, tx.data.author).bytes, tx);
  return undefined;
};

export const DATA: TransactionRules<DataTransaction> = {
  apply: applyData,
  scalaClass: { pkg: TX_PACKAGE, name: 'DataTransaction', versioned: true },
  features: featuresByVersion({
    1: [FEATURE.DATA_TRANSACTION],
    2: [FEATURE.DATA_TRANSACTION, FEATURE.SPONSORED_FEES],
    3: [FEATURE.DATA_TRANSACTION, FEATURE.SPONSORED_FEES, FEATURE.OTHER_TX_TYPES_ATOMIC],
  }),
  fee: {
    kind: 'paid',
    name: 'data',
    defaultBase: west(0.05),
    // One additional fee per started KiB after the first: of the body bytes once Smart Accounts is active, else of the whole bytes.
    additional: {
      defaultFee: west(0.01),
      units: (tx, isFeatureActive) => {
        const size = isFeatureActive(FEATURE.SMART_ACCOUNTS) ? tx.bodyBytes.length : tx.bytes.length;
        return BigInt(Math.floor((size - 1) / 1024));
      },
    },
  },
};
