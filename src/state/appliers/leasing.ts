/**
 * Lease (8) and LeaseCancel (9): we-node LeaseTransactionsDiff. A lease moves no WEST: the
 * lessor's lease-out and the lessee's lease-in grow; available = regular − lease-out and
 * effective = regular + lease-in − lease-out follow from them.
 */
import { equalBytes } from '../../crypto/encoding.js';
import type { LeaseCancelTransaction, LeaseTransaction } from '../../protocol/transactions/leasing.js';
import { addressOf, payFee, resolveRecipient, senderOf, type Applier } from './context.js';
import { FEATURE } from '../../protocol/features.js';
import { featuresByVersion, paidFee, TX_PACKAGE, west, type TransactionRules } from './rules.js';
import { genericError } from '../../errors/catalogue.js';

export const applyLease: Applier<LeaseTransaction> = (state, tx, ctx) => {
  const d = tx.data;
  const sender = senderOf(tx);
  const recipient = resolveRecipient(state, d.recipient);
  if (equalBytes(recipient.bytes, sender.bytes)) {
    throw genericError(`Cannot lease to self. Sender address ${sender.toString()} equals to recipient address`);
  }
  const balance = state.balance(sender.bytes, null);
  const leased = state.leaseBalance(sender.bytes);
  if (balance - leased.out < d.amount) throw genericError(`Cannot lease more than own: Balance:${balance}, already leased: ${leased.out}`);
  state.addLeaseBalance(sender.bytes, 0n, d.amount);
  state.addLeaseBalance(recipient.bytes, d.amount, 0n);
  state.putLease(tx.id, { sender: d.senderPublicKey, recipient: recipient.bytes, amount: d.amount, active: true, height: ctx.height });
  payFee(state, sender.bytes, tx);
  return undefined;
};

export const applyLeaseCancel: Applier<LeaseCancelTransaction> = (state, tx) => {
  const d = tx.data;
  const lease = state.lease(d.leaseId);
  if (lease === undefined) throw genericError('Related LeaseTransaction not found');
  if (!lease.active) throw genericError('Cannot cancel already cancelled lease');
  const canceller = senderOf(tx);
  if (!equalBytes(addressOf(state, lease.sender).bytes, canceller.bytes)) throw genericError('LeaseTransaction was leased by other sender');
  state.addLeaseBalance(canceller.bytes, 0n, -lease.amount);
  state.addLeaseBalance(lease.recipient, -lease.amount, 0n);
  state.putLease(d.leaseId, { ...lease, active: false });
  payFee(state, canceller.bytes, tx);
  return undefined;
};

const LEASE_FEATURES = featuresByVersion({ 2: [FEATURE.SMART_ACCOUNTS], 3: [FEATURE.SMART_ACCOUNTS, FEATURE.OTHER_TX_TYPES_ATOMIC] });

export const LEASE: TransactionRules<LeaseTransaction> = {
  apply: applyLease,
  scalaClass: { pkg: `${TX_PACKAGE}.lease`, name: 'LeaseTransaction', versioned: true },
  features: LEASE_FEATURES,
  fee: paidFee('lease', west(0.01)),
};

export const LEASE_CANCEL: TransactionRules<LeaseCancelTransaction> = {
  apply: applyLeaseCancel,
  scalaClass: { pkg: `${TX_PACKAGE}.lease`, name: 'LeaseCancelTransaction', versioned: true },
  features: LEASE_FEATURES,
  fee: paidFee('lease-cancel', west(0.01)),
};
