/**
 * Which form of a message each peer gets, as WE chooses it per channel:
 *
 * - By the peer's version (WE's NodeVersion and ProtocolFeature SeparateBlockAndTxMessages,
 *   from 1.11.1): a GetBlocks is answered with HistoryBlock 45 (HistoryReplier), a
 *   MicroBlockRequest with MicroBlockResponse V2 47, a transaction goes as
 *   BroadcastedTransaction 46 (MinersFirstWriter) — each with its certificate list, empty
 *   when there is none; an older peer gets 23, 28 and 25, the certificates left out.
 * - Micro-block inventories V2 (43) go to the peers that sent their node attributes (42):
 *   every WE node of the supported versions does, and reads 43. A Weft node from before 43
 *   was spoken sends no 42 and closes the connection on a 43 — it announces 1.14.0 as a new
 *   one does, so the version cannot tell them apart —, so it gets this node's own
 *   inventories as 26 and none of the 43s relayed from other miners.
 * - A watcher (node mode from its 42) gets no transactions (WE's transaction broadcaster).
 */
import { speaksSeparateBlockAndTxMessages } from './handshake.js';
import type { PeerAttributes } from './node-attributes.js';
import type { Peer } from './types.js';

export interface PeerForms {
  /** 45/46/47 with certificate lists instead of 23/25/28. */
  separateBlockAndTxMessages(peer: Peer): boolean;
  /** Reads micro-block inventories V2 (43). */
  readsInventoryV2(peer: Peer): boolean;
  /** A watcher node: relayed transactions are not sent to it. */
  isWatcher(peer: Peer): boolean;
}

/** The forms by the peers' versions and, when known, the attributes they sent. */
export function peerFormsOf(attributes: PeerAttributes | undefined): PeerForms {
  return {
    separateBlockAndTxMessages: (peer) => speaksSeparateBlockAndTxMessages(peer.info.version),
    readsInventoryV2: (peer) => attributes?.of(peer) !== undefined,
    isWatcher: (peer) => attributes?.isWatcher(peer) ?? false,
  };
}
