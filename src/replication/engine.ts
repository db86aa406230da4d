/**
 * One replication engine, put together: the inventories (who holds what), the replier
 * (serving items) and the synchronizer (fetching items), fed with the messages of one
 * family of codes that the network layer delivers. Confidential data (privacy/) and
 * confidential contract data (contracts/confidential/) each run one, with their scheme
 * (scheme.ts): their names, groups, codecs and stores.
 */
import { Inventories } from './inventories.js';
import type { ReplicationPeer } from './peers.js';
import { Replier } from './replier.js';
import type { ReplicationEngineParts } from './scheme.js';
import { Synchronizer } from './synchronizer.js';

export class ReplicationEngine<K, Kind, H, P extends ReplicationPeer = ReplicationPeer> {
  readonly inventories: Inventories<K, Kind, H, P>;
  readonly replier: Replier<K, Kind, H, P>;
  readonly synchronizer: Synchronizer<K, Kind, H, P>;
  private stopListening: (() => void) | undefined;

  constructor(private readonly parts: ReplicationEngineParts<K, Kind, H, P>) {
    this.inventories = new Inventories(parts);
    this.replier = new Replier(parts);
    this.synchronizer = new Synchronizer(parts, this.inventories);
  }

  start(): void {
    this.stopListening = this.parts.peers.onMessage((peer, code, payload) => this.receive(peer, code, payload));
    this.synchronizer.start();
  }

  /** Tells the group's peers that `signer` holds the item. */
  announce(key: K, kind: Kind, signer = this.parts.owner): void {
    this.inventories.announce(key, kind, signer);
  }

  /** One message from a peer; a malformed one is logged and dropped. */
  private receive(peer: P, code: number, payload: Uint8Array): void {
    const { requests, answers, inventories } = this.parts.scheme;
    const handled = (async () => {
      if (code === requests.data) return this.replier.handle(peer, code, payload);
      if (code === answers.code) return this.synchronizer.handleAnswer(peer, payload);
      if (code === requests.inventory) return this.inventories.requested(peer, requests.decode(code, payload));
      if (inventories.codes.includes(code)) return this.inventories.received(peer, code, payload);
    })();
    handled.catch((e: unknown) =>
      this.parts.log.warn(
        { peer: peer.id, code, err: e instanceof Error ? e.message : String(e) },
        `a ${this.parts.scheme.words.family} message from a peer was refused`,
      ),
    );
  }

  close(): void {
    this.stopListening?.();
    this.stopListening = undefined;
    this.inventories.close();
    this.synchronizer.close();
  }
}
