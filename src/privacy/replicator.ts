/**
 * Replication of one node, put together: the inventories (who holds what), the replier
 * (serving items) and the synchronizer (fetching items), fed with the privacy messages the
 * network layer delivers. The network layer builds it with its PrivacyPeers and starts it;
 * the privacy service announces uploads through `announcer`.
 */
import { isAtomic } from '../protocol/transactions/atomic.js';
import { PolicyDataHash } from '../protocol/transactions/privacy.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { PrivacyInventories } from './inventories.js';
import { PrivacyMessageCode } from './messages.js';
import type { PrivacyPeer } from './peers.js';
import { PolicyDataReplier } from './replier.js';
import { itemText, keyOfId, type ReplicationParts } from './replication.js';
import { itemKind } from './state.js';
import type { ItemAnnouncer } from './service.js';
import { PolicyDataSynchronizer, type RollbackSource } from './synchronizer.js';

export class PrivacyReplication {
  readonly inventories: PrivacyInventories;
  readonly replier: PolicyDataReplier;
  readonly synchronizer: PolicyDataSynchronizer;
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly parts: ReplicationParts,
    rollbacks: RollbackSource,
  ) {
    this.inventories = new PrivacyInventories(parts);
    this.replier = new PolicyDataReplier(parts);
    this.synchronizer = new PolicyDataSynchronizer(parts, this.inventories, rollbacks);
  }

  /** Announces uploads to the policy's peers (for PrivacyServiceParts.announcer). */
  get announcer(): ItemAnnouncer {
    return this.inventories;
  }

  start(): void {
    this.stopListening = this.parts.peers.onMessage((peer, code, payload) => this.receive(peer, code, payload));
    this.synchronizer.start();
  }

  /** One privacy message from a peer; a malformed one is logged and dropped. */
  private receive(peer: PrivacyPeer, code: number, payload: Uint8Array): void {
    const handled = (async () => {
      switch (code) {
        case PrivacyMessageCode.PrivateDataRequest:
          return this.replier.handle(peer, payload);
        case PrivacyMessageCode.PrivateDataResponse:
          return this.synchronizer.handleResponse(peer, payload);
        case PrivacyMessageCode.PrivacyInventoryV1:
        case PrivacyMessageCode.PrivacyInventoryV2:
        case PrivacyMessageCode.PrivacyInventoryRequest:
          return this.inventories.handle(peer, code, payload);
      }
    })();
    handled.catch((e: unknown) => this.parts.log.warn({ peer: peer.id, code, err: e instanceof Error ? e.message : String(e) }, 'a privacy message from a peer was refused'));
  }

  /**
   * WE's PrivacyMicroBlockHandler: after this node's own miner appended a micro-block, each
   * PolicyDataHash V3 inside its atomic containers (sent with `broadcast=false`, so never
   * announced at upload) is announced to the policy's peers, signed by the node owner, when
   * its item is stored here; otherwise the members find holders by asking (message 40).
   */
  async announceAtomicItems(transactions: readonly Transaction[]): Promise<void> {
    for (const container of transactions) {
      if (!isAtomic(container)) continue;
      for (const tx of container.data.transactions as readonly Transaction[]) {
        if (!PolicyDataHash.is(tx) || tx.version !== 3) continue;
        const id = { policyId: tx.data.policyId, dataHash: tx.data.dataHash };
        const key = keyOfId(id);
        if (!(await this.parts.storage.exists(key))) {
          this.parts.log.debug({ item: itemText(key) }, 'an atomic PolicyDataHash of an item not stored here: not announced');
          continue;
        }
        this.inventories.announce(id, (await itemKind(this.parts.state, this.parts.storage, key)) ?? 'default', this.parts.owner);
      }
    }
  }

  close(): void {
    this.stopListening?.();
    this.synchronizer.close();
  }
}
