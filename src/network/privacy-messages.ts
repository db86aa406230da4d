/**
 * Confidential data over the peers (WE's messages 30, 31, 39, 40, 44 and the large-item
 * streams; reference privacy-crypto-pki.md §4.2, §4.5): the sibling of chain-messages.ts
 * for src/privacy. It shows each connected peer to replication as a PrivacyPeer — its
 * node owner proven in the handshake, the connection's session keys unless the peer runs
 * P2P TLS (payloads are then encrypted for them; inside TLS they travel in clear), sending
 * messages and streams on that connection — and hands the privacy messages peers send to
 * whoever listens (the node's PrivacyReplication). Without a listener (storage switched
 * off, a watcher node) the messages are dropped, as WE's no-op handlers do.
 *
 * A peer's node mode comes from the node attributes it sent (message 42, node-attributes.ts):
 * a watcher takes no part in replication. Data travels in clear only on a TLS connection and
 * encrypted with the session keys on any other, whatever the peer's attributes claim. Both
 * are read when used: the attributes arrive just after the handshake.
 */
import type { IncomingStream, PrivacyPeer, PrivacyPeers } from '../privacy/peers.js';
import { PeerMessageChannel } from './message-channel.js';
import type { PeerAttributes } from './node-attributes.js';
import { isStreamPeer, MessageCode, type Peer, type StreamPeer } from './types.js';

type Listener = (peer: PrivacyPeer, code: number, payload: Uint8Array) => void;

const PRIVACY_CODES: ReadonlySet<MessageCode> = new Set([
  MessageCode.PrivateDataRequest,
  MessageCode.PrivateDataResponse,
  MessageCode.PrivacyInventoryV1,
  MessageCode.PrivacyInventoryRequest,
  MessageCode.PrivacyInventoryV2,
]);

/** Confidential contract data (WE's messages 52–55), carried the same way for src/contracts/confidential. */
export const CONFIDENTIAL_CONTRACT_CODES: ReadonlySet<MessageCode> = new Set([
  MessageCode.ConfidentialDataRequest,
  MessageCode.ConfidentialDataResponse,
  MessageCode.ConfidentialInventoryRequest,
  MessageCode.ConfidentialInventory,
]);

export class PrivacyMessages extends PeerMessageChannel implements PrivacyPeers {
  private readonly views = new WeakMap<StreamPeer, PrivacyPeer>();

  /** `codes`: the messages this instance carries (the privacy ones by default). */
  constructor(
    peers: () => readonly Peer[],
    private readonly attributes: PeerAttributes,
    codes: ReadonlySet<MessageCode> = PRIVACY_CODES,
  ) {
    super(peers, codes);
  }

  connected(): readonly PrivacyPeer[] {
    return this.peers()
      .filter(isStreamPeer)
      .map((p) => this.view(p));
  }

  /** Privacy messages from peers that carry streams (others are dropped). */
  onMessage(listener: Listener): () => void {
    return this.listen((peer, code, payload) => {
      if (isStreamPeer(peer)) listener(this.view(peer), code, payload);
    });
  }

  private view(peer: StreamPeer): PrivacyPeer {
    let view = this.views.get(peer);
    if (view === undefined) {
      const attributes = this.attributes;
      view = {
        id: `${peer.id}`,
        ownerAddress: peer.info.ownerAddress,
        get watcher() {
          return attributes.isWatcher(peer);
        },
        get sessionKeys() {
          return attributes.p2pTls(peer) ? undefined : { own: peer.session, peer: peer.info.sessionPublicKey };
        },
        // Only the channel's own codes go out through its view.
        send: (code, payload) => this.codes.has(code as MessageCode) && peer.send(code as MessageCode, payload),
        sendStream: (frames) => peer.sendStream(frames),
        receiveStream: (bufferSize): IncomingStream => peer.receiveStream(bufferSize),
      };
      this.views.set(peer, view);
    }
    return view;
  }
}
