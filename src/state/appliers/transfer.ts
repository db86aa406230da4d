/**
 * Transfer (4) and MassTransfer (11): we-node TransferTransactionDiff, TransferOpsSupport
 * and MassTransferTransactionDiff, with their checks in their order and their messages.
 */
import { INT64 } from '../../protocol/bytes.js';
import { overflowError } from '../../protocol/errors.js';
import { MassTransfer, Transfer } from '../../protocol/transactions/transfer.js';
import type { Address } from '../../crypto/address.js';
import { payFee, resolveRecipient, senderOf, stateError, type Applier } from './context.js';

export const applyTransfer: Applier = (state, tx) => {
  if (!Transfer.is(tx)) throw new Error('applyTransfer: not a Transfer');
  const d = tx.data;
  const recipient = resolveRecipient(state, d.recipient);
  // WE interpolates `if (isFee) "fee "` without an else branch: the Unit value prints as "()".
  if (d.assetId !== null && state.asset(d.assetId) === undefined) throw stateError('Unissued ()asset id are not allowed');
  if (d.feeAssetId !== null) {
    const feeAsset = state.asset(d.feeAssetId);
    if (feeAsset === undefined) throw stateError('Unissued fee asset id are not allowed');
    if (feeAsset.script !== null) throw stateError("Smart assets can't participate in TransferTransactions as a fee");
  }
  const sum = d.fee + d.amount;
  if (sum > INT64.MAX || sum < INT64.MIN) throw overflowError();
  const sender = senderOf(tx).bytes;
  state.addBalance(sender, d.assetId, -d.amount);
  state.addBalance(recipient.bytes, d.assetId, d.amount);
  payFee(state, sender, tx);
  return undefined;
};

export const applyMassTransfer: Applier = (state, tx) => {
  if (!MassTransfer.is(tx)) throw new Error('applyMassTransfer: not a MassTransfer');
  const d = tx.data;
  const recipients: Address[] = d.transfers.map((t) => resolveRecipient(state, t.recipient));
  const feeAssetId = d.feeAssetId ?? null;
  const assetIssued = d.assetId === null || state.asset(d.assetId) !== undefined;
  const feeAssetIssued = feeAssetId === null || state.asset(feeAssetId) !== undefined;
  if (!assetIssued || !feeAssetIssued) throw stateError('Attempt to transfer a nonexistent asset');
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
