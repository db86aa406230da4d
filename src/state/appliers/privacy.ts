/**
 * CreatePolicy (112), UpdatePolicy (113) and PolicyDataHash (114): we-node
 * CreatePolicyTransactionDiff, UpdatePolicyTransactionDiff, PolicyDataHashTransactionDiff
 * and PolicyDiff. State only: members and data hashes (the data itself is the privacy
 * layer's).
 */
import type { Address } from '../../crypto/address.js';
import { bytesKey, encodeBase58, equalBytes } from '../../crypto/encoding.js';
import {
  policyNameTooLong,
  type CreatePolicyTransaction,
  type PolicyDataHashTransaction,
  type UpdatePolicyTransaction,
} from '../../protocol/transactions/privacy.js';
import type { PermissionReader, PolicyReader } from '../view.js';
import { payFee, senderOf, type Applier } from './context.js';
import { FEATURE } from '../../protocol/features.js';
import { featuresByVersion, ONE_WEST, paidFee, TX_PACKAGE, west, type TransactionRules } from './rules.js';
import { genericError, policyDataHashAlreadyExists, policyDoesNotExist, senderIsNotInPolicyRecipients } from '../../errors/catalogue.js';

/** Address bytes in first-seen order without repeats (WE keeps members as sets). */
function unique(list: Iterable<Uint8Array>): Uint8Array[] {
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  for (const a of list) {
    if (seen.has(bytesKey(a))) continue;
    seen.add(bytesKey(a));
    out.push(a);
  }
  return out;
}

function unregistered(state: PermissionReader, recipients: readonly Address[]): Address[] {
  const participants = new Set(state.participants().map(bytesKey));
  return recipients.filter((r) => !participants.has(bytesKey(r.bytes)));
}

const contains = (list: readonly Uint8Array[], a: Uint8Array): boolean => list.some((x) => equalBytes(x, a));

export const applyCreatePolicy: Applier<CreatePolicyTransaction> = (state, tx) => {
  const d = tx.data;
  const sender = senderOf(tx);
  if (policyNameTooLong(d.policyName)) throw genericError('policy name is too long');
  if (d.owners.length === 0) throw genericError('Policy without owners is invalid');
  if (!d.owners.some((o) => equalBytes(o.bytes, sender.bytes))) throw genericError(`Sender '${sender.toString()}' is not owner for policy`);
  if (state.policy(tx.id) !== undefined) throw genericError('Policy already exists');
  const missing = unregistered(state, d.recipients);
  if (missing.length > 0) throw genericError(`Recipients [${missing.map((a) => a.toString()).join('; ')}] is not registered in network`);
  payFee(state, sender.bytes, tx);
  state.putPolicy(tx.id, { owners: unique(d.owners.map((a) => a.bytes)), recipients: unique(d.recipients.map((a) => a.bytes)) });
  return undefined;
};

export const applyUpdatePolicy: Applier<UpdatePolicyTransaction> = (state, tx) => {
  const d = tx.data;
  const sender = senderOf(tx);
  if (d.policyId.length === 0) throw genericError('PolicyId could not be empty');
  if (d.owners.length === 0 && d.recipients.length === 0) throw genericError('Invalid UpdatePolicyTransaction: empty owners and recipients');
  const policy = state.policy(d.policyId);
  if (policy === undefined) throw policyDoesNotExist(encodeBase58(d.policyId));
  if (d.opType === 'add') {
    const missing = unregistered(state, d.recipients);
    if (missing.length > 0) throw genericError(`Unaccepted recipients in policy update: [${missing.map((a) => a.toString()).join(', ')}]`);
  }
  if (!contains(policy.owners, sender.bytes)) {
    throw genericError(`Sender '${sender.toString()}' is not owner for policy with id '${encodeBase58(d.policyId)}'`);
  }
  const txOwners = d.owners.map((a) => a.bytes);
  const txRecipients = d.recipients.map((a) => a.bytes);
  const owners = d.opType === 'add' ? unique([...policy.owners, ...txOwners]) : policy.owners.filter((o) => !contains(txOwners, o));
  if (owners.length === 0) throw genericError('Forbidden to remove all policy owners');
  if (d.opType === 'remove') {
    if (!txOwners.every((o) => contains(policy.owners, o)) || !txRecipients.every((r) => contains(policy.recipients, r))) {
      throw genericError('Cannot remove owners or recipients that are absent from the policy');
    }
  } else if (txOwners.some((o) => contains(policy.owners, o)) || txRecipients.some((r) => contains(policy.recipients, r))) {
    throw genericError('Cannot add owners or recipients that are already in the policy');
  }
  const recipients = d.opType === 'add' ? unique([...policy.recipients, ...txRecipients]) : policy.recipients.filter((r) => !contains(txRecipients, r));
  payFee(state, sender.bytes, tx);
  state.putPolicy(d.policyId, { owners, recipients });
  return undefined;
};

/**
 * The policy rules of a PolicyDataHash, in WE's order: its policy exists (612), the hash is
 * not anchored in it yet (615), and — once feature 140 (atomic transactions) is active — its
 * sender is one of the policy's recipients. Besides the block, `/privacy/sendData` with
 * `broadcast=false` holds the 114 it signs but does not broadcast to them.
 */
export function checkPolicyDataHash(state: PolicyReader, tx: PolicyDataHashTransaction, isFeatureActive: (feature: number) => boolean): void {
  const d = tx.data;
  const sender = senderOf(tx);
  if (d.policyId.length === 0) throw genericError('PolicyId could not be empty');
  if (d.dataHash.length === 0) throw genericError('Hash could not be empty');
  const policy = state.policy(d.policyId);
  if (policy === undefined) throw policyDoesNotExist(encodeBase58(d.policyId));
  if (state.hasPolicyDataHash(d.policyId, d.dataHash)) throw policyDataHashAlreadyExists(encodeBase58(d.dataHash));
  if (isFeatureActive(FEATURE.ATOMIC_TRANSACTIONS) && !contains(policy.recipients, sender.bytes)) {
    throw senderIsNotInPolicyRecipients(sender.toString());
  }
}

export const applyPolicyDataHash: Applier<PolicyDataHashTransaction> = (state, tx, ctx) => {
  const d = tx.data;
  const sender = senderOf(tx);
  checkPolicyDataHash(state, tx, (feature) => ctx.isFeatureActive(feature));
  payFee(state, sender.bytes, tx);
  state.addPolicyDataHash(d.policyId, d.dataHash, tx.id);
  return undefined;
};

const POLICY_FEATURES = featuresByVersion({ 1: [], 2: [FEATURE.SPONSORED_FEES], 3: [FEATURE.SPONSORED_FEES, FEATURE.ATOMIC_TRANSACTIONS] });

export const CREATE_POLICY: TransactionRules<CreatePolicyTransaction> = {
  apply: applyCreatePolicy,
  scalaClass: { pkg: TX_PACKAGE, name: 'CreatePolicyTransaction', versioned: true },
  features: POLICY_FEATURES,
  fee: paidFee('create-policy', ONE_WEST),
};

export const UPDATE_POLICY: TransactionRules<UpdatePolicyTransaction> = {
  apply: applyUpdatePolicy,
  scalaClass: { pkg: TX_PACKAGE, name: 'UpdatePolicyTransaction', versioned: true },
  features: POLICY_FEATURES,
  fee: paidFee('update-policy', west(0.5)),
};

export const POLICY_DATA_HASH: TransactionRules<PolicyDataHashTransaction> = {
  apply: applyPolicyDataHash,
  scalaClass: { pkg: TX_PACKAGE, name: 'PolicyDataHashTransaction', versioned: true },
  features: POLICY_FEATURES,
  fee: paidFee('policy-data-hash', west(0.05)),
};
