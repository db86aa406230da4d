/**
 * Replication of one node, put together: the inventories (who holds what), the replier
 * (serving items) and the synchronizer (fetching items), fed with the privacy messages the
 * network layer delivers. The network layer builds it with its PrivacyPeers and starts it;
 * the privacy service announces uploads through `announcer`.
 */
import { PrivacyInventories } from './inventories.js';
import { PrivacyMessageCode } from './messages.js';
import type { PrivacyPeer } from './peers.js';
import { PolicyDataReplier } from './replier.js';
import type { ReplicationParts } from './replication.js';
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

  close(): void {
    this.stopListening?.();
    this.synchronizer.close();
  }
}
