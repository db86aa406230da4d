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
import { PeerMessageChannel } from './message-channel.js';
import { MessageCode, type Peer } from './types.js';

type Listener = (payload: Uint8Array, from: Peer, code: number) => void;

/** Messages of one code between src/contracts and the peers: delivered to listeners, sent to all peers but one. */
export class ContractMessageChannel extends PeerMessageChannel {
  constructor(peers: () => readonly Peer[], code: MessageCode) {
    super(peers, new Set([code]));
  }

  onMessage(listener: Listener): () => void {
    return this.listen((peer, code, payload) => listener(payload, peer, code));
  }

  /** Whether any peer is connected (a message made only to be sent can be skipped when none is). */
  hasPeers(): boolean {
    return this.peers().length > 0;
  }

  /** Sends a message to every connected peer but `except` (the one it came from); returns how many it went to. */
  broadcast(payload: Uint8Array, except?: Peer): number {
    const [code] = this.codes; // its one code
    return this.sendToAll(code!, payload, except);
  }
}

export class ContractStatusMessages extends ContractMessageChannel {
  constructor(peers: () => readonly Peer[]) {
    super(peers, MessageCode.ContractExecutionMessage);
  }
}
