/**
 * The chain protocol over the peers: decodes each chain message and routes it to block
 * sync (sync.ts: scores, signatures, extensions, and serving peers' sync) or to gossip
 * (gossip.ts: transactions, broadcast key blocks, micro-blocks). The two are siblings:
 * neither knows the other, and both follow the chain through its events.
 *
 * Messages 45–47 are a block, transaction or micro-block with the certificates its
 * transactions carried (PKI), and the rest is handled as 23, 25 and 28 are; 43 is a
 * micro-block inventory naming its key block, handled as a 26 is. A 46's chain
 * goes with its transaction into the pool (gossip.ts). A 45's or 47's certificates first go
 * through the certificate policy (block-certificates.ts); those it admits are offered to the
 * chain, which stores them with that block only if the block is accepted — then the block
 * goes on to sync or gossip.
 *
 * A Block message is the one both may want: it answers the sync's pending GetBlocks, or
 * else it is a broadcast for gossip. A message that does not decode throws, which closes
 * that peer as misbehaving (the transport's rule).
 */
import { wallClockMs } from './micro-block-timeline.js';
import type { Certificate } from '../crypto/pki/x509.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { admitBlockCertificates } from './block-certificates.js';
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
import { socketAddressText } from './peers.js';
import { ChainSync, type SyncStatus } from './sync.js';
import { MessageCode, type Peer, type PeerTransportEvents } from './types.js';

/**
 * Block traffic: the messages a block's propagation waits on (key blocks, micro-block
 * inventories, requests and responses). The transport writes them at once even while a peer's
 * send queue holds back-pressured messages (transactions), which they would otherwise wait behind.
 */
const BLOCK_TRAFFIC: ReadonlySet<number> = new Set<number>([
  MessageCode.Block,
  MessageCode.HistoryBlock,
  MessageCode.MicroBlockInventory,
  MessageCode.MicroBlockInventoryV2,
  MessageCode.MicroBlockRequest,
  MessageCode.MicroBlockResponse,
  MessageCode.MicroBlockResponseV2,
]);

/** The transport's `skipsSendQueue`: a message of block traffic. */
export function skipsSendQueue(code: number): boolean {
  return BLOCK_TRAFFIC.has(code);
}

export class ChainMessages implements PeerTransportEvents {
  readonly sync: ChainSync;
  readonly gossip: Gossip;
  private closed = false;

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
        return this.offerCertificates(peer, block.id, block.transactions, certificates, () => {
          if (!this.sync.onBlock(peer, block)) this.gossip.onBlock(peer, block);
        });
      }
      case MessageCode.Transaction:
        return this.gossip.onTransactionPayload(peer, payload);
      case MessageCode.BroadcastedTransaction: {
        const { transaction, certificates } = decodeBroadcastedTransaction(payload);
        return this.gossip.onTransactionPayload(peer, transaction, certificates);
      }
      case MessageCode.MicroBlockInventory:
      case MessageCode.MicroBlockInventoryV2:
        return this.gossip.onInventory(peer, decodeMicroBlockInventory(protocol, payload, code), payload);
      case MessageCode.MicroBlockRequest:
        return this.gossip.onMicroBlockRequest(peer, decodeMicroBlockRequest(payload, idLength));
      case MessageCode.MicroBlockResponse: {
        const arrivedAt = wallClockMs();
        return this.gossip.onMicroBlockResponse(peer, decodeMicroBlockResponse(protocol, payload, this.gossip.readTransaction), arrivedAt);
      }
      case MessageCode.MicroBlockResponseV2: {
        const arrivedAt = wallClockMs();
        const { micro, certificates } = decodeMicroBlockResponseV2(protocol, payload, this.gossip.readTransaction);
        return this.offerCertificates(peer, micro.totalLiquidBlockSig, micro.kind === 'tx' ? micro.transactions : [], certificates, () =>
          this.gossip.onMicroBlockResponse(peer, micro, arrivedAt),
        );
      }
      default:
        // GetPeers, Peers, RawAttributes: the peers layer's.
        return;
    }
  }

  /**
   * The certificates of a peer's block or micro-block (45, 47): those the certificate policy
   * admits (all of them without a policy, as for a 46) are offered to the chain under the
   * block's id, then the block is handed on. Checking a chain may wait on a CRL download.
   */
  private offerCertificates(
    peer: Peer,
    blockId: Uint8Array,
    transactions: readonly Transaction[],
    certificates: readonly Certificate[],
    handOn: () => void,
  ): void {
    const policy = this.deps.certificatePolicy;
    if (certificates.length === 0 || policy === undefined) {
      this.deps.chain.offerCertificates(blockId, certificates);
      return handOn();
    }
    const log = this.deps.logger;
    void admitBlockCertificates(transactions, certificates, policy)
      .then(
        ({ admitted, refused }) => {
          for (const r of refused) log.debug(`Certificate '${r.subject}' from ${socketAddressText(peer.remote)} not kept: ${r.reason}`);
          return admitted;
        },
        (e: unknown) => {
          log.warn(`Certificates from ${socketAddressText(peer.remote)} not checked, none kept: ${(e as Error).message}`);
          return [];
        },
      )
      .then((admitted) => {
        if (this.closed) return;
        this.deps.chain.offerCertificates(blockId, admitted);
        handOn();
      })
      .catch((e: unknown) => {
        log.warn(`Block message from ${socketAddressText(peer.remote)} not handled: ${(e as Error).message}`);
        peer.close(`block message: ${(e as Error).message}`);
      });
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
    this.closed = true;
    this.sync.close();
    this.gossip.close();
  }
}
