/**
 * Replication of confidential data in one node: the replication engine (src/replication)
 * with privacy's scheme (replication.ts) and large items (large-items.ts), fed with the
 * privacy messages the network layer delivers, its pending and lost sets in the privacy
 * state. The node builds it with the network's PrivacyPeers and starts it; the privacy
 * service announces uploads through `announcer` and drives forceSync through `synchronizer`.
 */
import type { KeyPair } from '../crypto/suite.js';
import { isAtomic } from '../protocol/transactions/atomic.js';
import { PolicyDataHash } from '../protocol/transactions/privacy.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { ReplicationEngine } from '../replication/engine.js';
import type { Inventories } from '../replication/inventories.js';
import type { RollbackSource } from '../replication/pending-items.js';
import type { PolicyItemKey, PrivacyDataType } from './item.js';
import { LargeItems } from './large-items.js';
import type { PolicyItemId } from './messages.js';
import type { PrivacyPeer } from './peers.js';
import { itemText, keyOfId, privacyScheme, type ReplicationParts } from './replication.js';
import type { ItemAnnouncer, PrivacySync } from './service.js';
import { itemKind } from './state.js';

type PrivacyEngine = ReplicationEngine<PolicyItemKey, PrivacyDataType, undefined, PrivacyPeer>;

/** The download side: the engine's synchronizer with WE's forceSync of a policy. */
export class PolicyDataSync implements PrivacySync {
  constructor(
    private readonly parts: ReplicationParts,
    private readonly engine: PrivacyEngine,
  ) {}

  /** Items the synchronizer is on now: being fetched, or waiting for a slot or their next attempt. */
  get inProgress(): number {
    return this.engine.synchronizer.inProgress;
  }

  /** How many items are being fetched now. */
  get active(): number {
    return this.engine.synchronizer.active;
  }

  /** Every running fetch restarts with the pending set; answers its size. */
  forceSync(): number {
    return this.engine.synchronizer.forceSync();
  }

  /** The policy's anchored hashes join the pending set; restarts with both; answers how many. */
  async forceSyncPolicy(policyId: Uint8Array): Promise<number> {
    const pending = this.parts.state.pending();
    const known = new Set(pending.map(itemText));
    const anchored = this.parts.chain
      .state()
      .policyDataHashes(policyId)
      .map((e) => keyOfId({ policyId, dataHash: e.hash }));
    const missing = anchored.filter((k) => !known.has(itemText(k)));
    if (missing.length > 0) await this.parts.state.addToPending(missing);
    const all = [...pending, ...missing];
    this.engine.synchronizer.resume(all);
    return all.length;
  }
}

export class PrivacyReplication {
  private readonly engine: PrivacyEngine;
  readonly synchronizer: PolicyDataSync;

  constructor(
    private readonly parts: ReplicationParts,
    rollbacks: RollbackSource<PolicyItemKey>,
  ) {
    this.engine = new ReplicationEngine({
      scheme: privacyScheme(parts, new LargeItems(parts)),
      protocol: parts.protocol,
      settings: parts.settings,
      owner: parts.owner,
      peers: parts.peers,
      pending: parts.state,
      rollbacks,
      log: parts.log,
      ...(parts.observer === undefined ? {} : { observer: parts.observer }),
    });
    this.synchronizer = new PolicyDataSync(parts, this.engine);
  }

  /** Who holds what. */
  get inventories(): Inventories<PolicyItemKey, PrivacyDataType, undefined, PrivacyPeer> {
    return this.engine.inventories;
  }

  /** Announces uploads to the policy's peers (for PrivacyServiceParts.announcer). */
  get announcer(): ItemAnnouncer {
    return { announce: (item: PolicyItemId, type: PrivacyDataType, signer: KeyPair) => this.engine.announce(keyOfId(item), type, signer) };
  }

  start(): void {
    this.engine.start();
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
        const key = keyOfId({ policyId: tx.data.policyId, dataHash: tx.data.dataHash });
        if (!(await this.parts.storage.exists(key))) {
          this.parts.log.debug({ item: itemText(key) }, 'an atomic PolicyDataHash of an item not stored here: not announced');
          continue;
        }
        this.engine.announce(key, (await itemKind(this.parts.state, this.parts.storage, key)) ?? 'default', this.parts.owner);
      }
    }
  }

  close(): void {
    this.engine.close();
  }
}
