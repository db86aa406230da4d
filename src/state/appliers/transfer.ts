/**
 * Transfer (4) and MassTransfer (11): we-node TransferTransactionDiff, TransferOpsSupport
 * and MassTransferTransactionDiff, with their checks in their order and their messages.
 */
import { INT64 } from '../../protocol/bytes.js';
import type { MassTransferTransaction, TransferTransaction } from '../../protocol/transactions/transfer.js';
import type { Address } from '../../crypto/address.js';
import { payFee, resolveRecipient, senderOf, type Applier } from './context.js';
import { FEATURE as F } from '../../protocol/features.js';
import { featuresByVersion, namedAsset, TX_PACKAGE, west, type TransactionRules } from './rules.js';
import { genericError, overflowError } from '../../errors/catalogue.js';

export const applyTransfer: Applier<TransferTransaction> = (state, tx) => {
  const d = tx.data;
  const recipient = resolveRecipient(state, d.recipient);
  // WE interpolates `if (isFee) "fee "` without an else branch: the Unit value prints as "()".
  if (d.assetId !== null && state.asset(d.assetId) === undefined) throw genericError('Unissued ()asset id are not allowed');
  if (d.feeAssetId !== null) {
    const feeAsset = state.asset(d.feeAssetId);
    if (feeAsset === undefined) throw genericError('Unissued fee asset id are not allowed');
    if (feeAsset.script !== null) throw genericError("Smart assets can't participate in TransferTransactions as a fee");
  }
  const sum = d.fee + d.amount;
  if (sum > INT64.MAX || sum < INT64.MIN) throw overflowError();
  const sender = senderOf(tx).bytes;
  state.addBalance(sender, d.assetId, -d.amount);
  state.addBalance(recipient.bytes, d.assetId, d.amount);
  payFee(state, sender, tx);
  return undefined;
};

export const applyMassTransfer: Applier<MassTransferTransaction> = (state, tx) => {
  const d = tx.data;
  const recipients: Address[] = d.transfers.map((t) => resolveRecipient(state, t.recipient));
  const feeAssetId = d.feeAssetId ?? null;
  const assetIssued = d.assetId === null || state.asset(d.assetId) !== undefined;
  const feeAssetIssued = feeAssetId === null || state.asset(feeAssetId) !== undefined;
  if (!assetIssued || !feeAssetIssued) throw genericError('Attempt to transfer a nonexistent asset');
  const sender = senderOf(tx).bytes;
  let total = 0n;
  d.transfers.forEach((t, i) => {
    state.addBalance(recipients[i]!.bytes, d.assetId, t.amount);
    total += t.amount;
  });
  state.addBalance(sender, d.assetId, -total);
  payFee(state, sender, tx);
  return undefined;
};

export const TRANSFER: TransactionRules<TransferTransaction> = {
  apply: applyTransfer,
  scalaClass: { pkg: `${TX_PACKAGE}.transfer`, name: 'TransferTransaction', versioned: true },
  features: featuresByVersion({ 2: [F.SMART_ACCOUNTS], 3: [F.SMART_ACCOUNTS, F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS] }),
  // A V2 transfer paying its fee in an asset needs sponsored fees (TransferTransactionV2.requiredFeatures).
  fieldFeatures: (tx) => (tx.version === 2 && tx.feeAssetId !== null ? [F.SPONSORED_FEES] : []),
  spends: (tx) => ({ assetId: tx.data.assetId, amount: tx.data.amount }),
  smartAssets: namedAsset,
  fee: { kind: 'paid', name: 'transfer', defaultBase: west(0.01) },
};

export const MASS_TRANSFER: TransactionRules<MassTransferTransaction> = {
  apply: applyMassTransfer,
  scalaClass: { pkg: `${TX_PACKAGE}.transfer`, name: 'MassTransferTransaction', versioned: true },
  features: featuresByVersion({
    1: [F.MASS_TRANSFER],
    2: [F.MASS_TRANSFER, F.SPONSORED_FEES],
    3: [F.MASS_TRANSFER, F.SPONSORED_FEES, F.OTHER_TX_TYPES_ATOMIC],
  }),
  spends: (tx) => ({ assetId: tx.data.assetId, amount: tx.data.transfers.reduce((s, t) => s + t.amount, 0n) }),
  smartAssets: namedAsset,
  fee: {
    kind: 'paid',
    name: 'mass-transfer',
    defaultBase: west(0.05),
    // One additional fee per two transfers, rounded up.
    additional: { defaultFee: west(0.01), units: (tx) => BigInt(Math.floor((tx.data.transfers.length + 1) / 2)) },
  },
};
