/**
 * The chain protocol over the peers: decodes each chain message and routes it to block
 * sync (sync.ts: scores, signatures, extensions, and serving peers' sync) or to gossip
 * (gossip.ts: transactions, broadcast key blocks, micro-blocks). The two are siblings:
 * neither knows the other, and both follow the chain through its events.
 *
 * Messages 45–47 are a block, transaction or micro-block with the certificates its
 * transactions carried (PKI): the certificates go to the chain to be stored with the block
 * that mines the transactions, and the rest is handled as 23, 25 and 28 are.
 *
 * A Block message is the one both may want: it answers the sync's pending GetBlocks, or
 * else it is a broadcast for gossip. A message that does not decode throws, which closes
 * that peer as misbehaving (the transport's rule).
 */
import type { Transaction } from '../protocol/transactions/schema.js';
import type { NetworkDeps } from './chain-deps.js';
import { Gossip } from './gossip.js';
import {
  decodeBlock,
  decodeBroadcastedTransaction,
  decodeHistoryBlock,
  decodeMicroBlockResponseV2,
  decodeGetBlocks,
  decodeMicroBlockInventory,
  decodeMicroBlockRequest,
  decodeMicroBlockResponse,
  decodeMissingBlock,
  decodeScore,
  decodeSignatures,
} from './messages.js';
import { ChainSync, type SyncStatus } from './sync.js';
import { MessageCode, type Peer, type PeerTransportEvents } from './types.js';

export class ChainMessages implements PeerTransportEvents {
  readonly sync: ChainSync;
  readonly gossip: Gossip;

  constructor(private readonly deps: NetworkDeps) {
    this.sync = new ChainSync(deps);
    this.gossip = new Gossip(deps);
  }

  onPeer(peer: Peer): void {
    this.gossip.onPeer(peer);
    this.sync.onPeer(peer);
  }

  onClose(peer: Peer, reason: string): void {
    this.gossip.onClose(peer, reason);
    this.sync.onClose(peer);
  }

  onMessage(peer: Peer, code: MessageCode, payload: Uint8Array): void {
    const { protocol } = this.deps;
    const idLength = protocol.crypto.signatureLength;
    switch (code) {
      case MessageCode.Score:
        return this.sync.onScore(peer, decodeScore(payload));
      case MessageCode.Signatures:
        return this.sync.onSignatures(peer, decodeSignatures(code, payload, idLength));
      case MessageCode.MissingBlock:
        return this.sync.onMissingBlock(peer, decodeMissingBlock(payload, idLength));
      case MessageCode.GetSignatures:
        return this.sync.answerGetSignatures(peer, decodeSignatures(code, payload, idLength));
      case MessageCode.GetBlocks:
        return this.sync.answerGetBlocks(peer, decodeGetBlocks(payload, idLength));
      case MessageCode.Block: {
        const block = decodeBlock(protocol, payload);
        if (!this.sync.onBlock(peer, block)) this.gossip.onBlock(peer, block);
        return;
      }
      case MessageCode.HistoryBlock: {
        const { block, certificates } = decodeHistoryBlock(protocol, payload);
        this.deps.chain.carryCertificates(block.transactions.map((t) => t.id), certificates);
        if (!this.sync.onBlock(peer, block)) this.gossip.onBlock(peer, block);
        return;
      }
      case MessageCode.Transaction:
        return this.gossip.onTransactionPayload(peer, payload);
      case MessageCode.BroadcastedTransaction: {
        const { transaction, certificates } = decodeBroadcastedTransaction(payload);
        return this.gossip.onTransactionPayload(peer, transaction, certificates);
      }
      case MessageCode.MicroBlockInventory:
        return this.gossip.onInventory(peer, decodeMicroBlockInventory(protocol, payload), payload);
      case MessageCode.MicroBlockRequest:
        return this.gossip.onMicroBlockRequest(peer, decodeMicroBlockRequest(payload, idLength));
      case MessageCode.MicroBlockResponse:
        return this.gossip.onMicroBlockResponse(peer, decodeMicroBlockResponse(protocol, payload, this.gossip.readTransaction));
      case MessageCode.MicroBlockResponseV2: {
        const { micro, certificates } = decodeMicroBlockResponseV2(protocol, payload, this.gossip.readTransaction);
        return this.gossip.onMicroBlockResponse(peer, micro, certificates);
      }
      default:
        // GetPeers, Peers, RawAttributes: the peers layer's.
        return;
    }
  }

  /** Whether a sync exchange with a peer is running (the miner holds off meanwhile). */
  syncing(): boolean {
    return this.sync.status().syncing;
  }

  status(): SyncStatus {
    return this.sync.status();
  }

  /** Sends a transaction to the peers: one admitted here to those not known to have it; when `forced` (a rebroadcast), to all. */
  broadcastTransaction(tx: Transaction, forced = false): number {
    return this.gossip.broadcastTransaction(tx, forced);
  }

  close(): void {
    this.sync.close();
    this.gossip.close();
  }
}
