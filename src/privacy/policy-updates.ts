/**
 * What the chain tells confidential data (WE's BlockchainUpdaterImpl.processPolicyDiff and
 * its rollback stream, reference §4.1): the items this node must fetch, and the items
 * whose anchoring was rolled back.
 *
 * For every block and micro-block appended:
 *  - each PolicyDataHash (114), inside atomic containers too, of a policy whose recipients
 *    include the node owner → that item, with the 114's timestamp;
 *  - each UpdatePolicy (113) that adds the node owner as a recipient → every item already
 *    anchored in that policy.
 * Those are added to the persisted pending set (privacy state), whose listeners — the
 * synchronizer — start fetching them. Each PolicyDataHash a rollback removes is told to
 * the rollback listeners (the synchronizer cancels its download) and leaves the pending
 * and lost sets; data already stored stays, as in WE.
 */
import type { Address } from '../crypto/address.js';
import { encodeBase58, equalBytes } from '../crypto/encoding.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { isAtomic } from '../protocol/transactions/atomic.js';
import { PolicyDataHash, UpdatePolicy } from '../protocol/transactions/privacy.js';
import type { StateView } from '../state/view.js';
import type { PolicyItemKey } from './item.js';
import type { PendingItem, PrivacyState } from './state.js';

/** A chain event as far as confidential data cares (the chain layer's ChainEvent fits). */
export type PolicyChainEvent =
  | { readonly kind: 'block'; readonly block: { readonly transactions: readonly Transaction[] } }
  | { readonly kind: 'micro-block'; readonly transactions: readonly Transaction[] }
  | { readonly kind: 'rollback'; readonly removed: readonly Transaction[] };

/** Transactions with the inner ones of atomic containers in place of the containers. */
function flatten(txs: readonly Transaction[]): Transaction[] {
  return txs.flatMap((tx) => (isAtomic(tx) ? (tx.data.transactions as readonly Transaction[]) : [tx]));
}

export class PolicyUpdates {
  private readonly rollbackListeners = new Set<(items: readonly PolicyItemKey[]) => void>();

  constructor(
    private readonly owner: Address,
    private readonly state: () => StateView,
    private readonly privacy: PrivacyState,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** Takes one chain event (call it from the chain's listener). */
  handle(event: PolicyChainEvent): void {
    if (event.kind === 'rollback') {
      const rolledBack = flatten(event.removed)
        .filter((tx) => PolicyDataHash.is(tx))
        .map((tx) => ({ policyId: encodeBase58(tx.data.policyId), hash: encodeBase58(tx.data.dataHash) }));
      if (rolledBack.length === 0) return;
      for (const l of this.rollbackListeners) l(rolledBack);
      this.privacy.recordInvalidated(rolledBack);
      // As WE does: the item no longer waits to be fetched.
      Promise.all(rolledBack.map((k) => this.privacy.removeFromPendingAndLost(k))).catch(this.onError);
      return;
    }
    const items = this.itemsToFetch(event.kind === 'block' ? event.block.transactions : event.transactions);
    if (items.length > 0) this.privacy.addToPending(items).catch(this.onError);
  }

  /** The items a batch of appended transactions makes this node fetch. */
  itemsToFetch(txs: readonly Transaction[]): PendingItem[] {
    const state = this.state();
    const isRecipient = (policyId: Uint8Array): boolean => state.policy(policyId)?.recipients.some((r) => equalBytes(r, this.owner.bytes)) === true;
    const out: PendingItem[] = [];
    for (const tx of flatten(txs)) {
      if (PolicyDataHash.is(tx)) {
        if (isRecipient(tx.data.policyId))
          out.push({ policyId: encodeBase58(tx.data.policyId), hash: encodeBase58(tx.data.dataHash), txTimestamp: tx.timestamp });
      } else if (UpdatePolicy.is(tx) && tx.data.opType === 'add' && tx.data.recipients.some((r) => equalBytes(r.bytes, this.owner.bytes))) {
        for (const e of state.policyDataHashes(tx.data.policyId)) out.push({ policyId: encodeBase58(tx.data.policyId), hash: encodeBase58(e.hash) });
      }
    }
    return out;
  }

  /** Calls `listener` with the items whose PolicyDataHash a rollback removed; returns how to stop. */
  onRollback(listener: (items: readonly PolicyItemKey[]) => void): () => void {
    this.rollbackListeners.add(listener);
    return () => this.rollbackListeners.delete(listener);
  }
}
