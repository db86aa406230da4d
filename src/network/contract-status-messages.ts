/**
 * Contract execution statuses over the peers (WE's NetworkContractExecutionMessage, code 29):
 * the sibling of chain-messages.ts and privacy-messages.ts for src/contracts. A status is
 * signed by the node that executed; this file only carries the bytes — the status book
 * (src/contracts/statuses.ts) decodes them, checks the signature and keeps each once. The
 * node wires the two: its own statuses and those newly taken from a peer go to every other
 * peer, so a status reaches nodes that are not directly connected to its signer.
 *
 * The transport caps the payload at WE's 5 KiB (framing.ts). Without a listener (no status book on this node) the messages are dropped.
 */
import { MessageCode, type Peer } from './types.js';

type Listener = (payload: Uint8Array, from: Peer) => void;

/** Messages of one code between src/contracts and the peers: delivered to listeners, sent to all peers but one. */
export class ContractMessageChannel {
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly peers: () => readonly Peer[],
    private readonly code: MessageCode,
  ) {}

  onMessage(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A message from a peer: true when it has this channel's code (delivered to the listeners, or dropped without one). */
  handle(peer: Peer, code: number, payload: Uint8Array): boolean {
    if (code !== this.code) return false;
    for (const listener of this.listeners) listener(payload, peer);
    return true;
  }

  /** Sends a message to every connected peer but `except` (the one it came from); returns how many it went to. */
  broadcast(payload: Uint8Array, except?: Peer): number {
    let sent = 0;
    for (const peer of this.peers()) {
      if (peer === except) continue;
      if (peer.send(this.code, payload)) sent++;
    }
    return sent;
  }
}

export class ContractStatusMessages extends ContractMessageChannel {
  constructor(peers: () => readonly Peer[]) {
    super(peers, MessageCode.ContractExecutionMessage);
  }
}
