/**
 * Messages of a few codes between one module above the network (src/privacy,
 * src/contracts) and the connected peers: the piece chain-messages.ts does not route.
 * A message of one of the channel's codes is delivered to every listener (and dropped
 * when none listens, as WE's no-op handlers do); a message to send goes to every
 * connected peer but the one it came from. privacy-messages.ts and
 * contract-status-messages.ts show it to their modules in the form each wants.
 */
import type { MessageCode, Peer } from './types.js';

export type PeerMessageListener = (peer: Peer, code: number, payload: Uint8Array) => void;

export class PeerMessageChannel {
  private readonly listeners = new Set<PeerMessageListener>();

  constructor(
    protected readonly peers: () => readonly Peer[],
    /** The messages this channel carries. */
    readonly codes: ReadonlySet<MessageCode>,
  ) {}

  /** A message from a peer: true when it has one of this channel's codes (delivered to the listeners, or dropped without one). */
  handle(peer: Peer, code: number, payload: Uint8Array): boolean {
    if (!this.codes.has(code as MessageCode)) return false;
    for (const listener of this.listeners) listener(peer, code, payload);
    return true;
  }

  /** Sends a message to every connected peer but `except` (the one it came from); returns how many it went to. */
  sendToAll(code: MessageCode, payload: Uint8Array, except?: Peer): number {
    let sent = 0;
    for (const peer of this.peers()) {
      if (peer === except) continue;
      if (peer.send(code, payload)) sent++;
    }
    return sent;
  }

  protected listen(listener: PeerMessageListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
