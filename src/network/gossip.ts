/**
 * Propagation and the answers to peers' requests (reference/chain-consensus-network.md
 * §11.5, §11.6; WE's HistoryReplier, MicroBlockLoader/MicroBlockSynchronizer,
 * BlockAppender, UtxPoolSynchronizer, TxBroadcaster):
 *
 * - key blocks (23): a block this node forged goes to every peer; a peer's block that
 *   applies is relayed to all but the peers known to have it; one on a micro-block not
 *   here yet is retried (key-block-appending);
 * - micro-blocks: the miner announces an inventory (26); a receiver checks its signature,
 *   requests the micro-block (27) from a peer that announced it (timeout, next owner,
 *   limited attempts), applies the response (28) and relays the inventory;
 * - transactions (25): admitted to the pool, then relayed in batches (a batch per
 *   transactionRelayBatchMs, spread at random) to the peers not known to have them by then —
 *   a copy that arrived from a peer meanwhile, or the transaction going into a block, saves
 *   the message (each transaction is still its own 25/46: WE has no batch message);
 * - MicroBlockRequest answered from the chain's liquid block;
 * - a transaction or micro-block whose transactions carry certificate chains (PKI) goes as
 *   WE's 46 / 47 with them; a 46's chain is left with the chain once its transaction is
 *   admitted (in PKI mode TEST/ON the chain's admission may refuse a transaction whose chain
 *   does not validate or whose sender is not certified); a 47's certificates were checked
 *   and offered to the chain before the micro-block got here (chain-messages.ts).
 *
 * What to announce is read from the chain's events: a key block or micro-block whose
 * origin is this node (`local`) goes out; one that came from peers is relayed by the
 * handler that took it. Seen-caches (bounded, with a ttl) record which peers have which
 * item, so nothing is sent to a peer twice or processed twice. Messages reach it decoded
 * by chain-messages.ts; block sync is its sibling (sync.ts).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sha256Once } from '../crypto/hashes.js';
import type { ChainEvent } from '../chain/peer-chain.js';
import { bytesKey, encodeBase58, equalBytes } from '../crypto/encoding.js';
import type { Block } from '../protocol/blocks.js';
import type { MicroBlock, TransactionReader } from '../protocol/blocks/micro-block.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { syncSettings, type NetworkDeps, type SyncSettings } from './chain-deps.js';
import {
  decodeTransaction,
  encodeBlock,
  encodeBroadcastedTransaction,
  encodeMicroBlockInventory,
  encodeMicroBlockRequest,
  encodeMicroBlockResponse,
  encodeMicroBlockResponseV2,
  encodeTransaction,
  inventoryCode,
  MalformedMessage,
  signMicroBlockInventory,
  verifyMicroBlockInventory,
  type MicroBlockInventory,
} from './messages.js';
import { ExpiringCache } from '../replication/expiring-cache.js';
import { MicroBlockTimeline } from './micro-block-timeline.js';
import { socketAddressText } from './peers.js';
import { peerFormsOf, type PeerForms } from './peer-forms.js';
import { MessageCode, NODE_TIMERS, type Peer, type Timers } from './types.js';
import { WeError } from '../errors/catalogue.js';
import type { Certificate } from '../crypto/pki/x509.js';

/** The key a transaction message's payload is remembered by (SHA-256, Base64; one-shot, no Hash object per payload). */
const payloadDigest = (payload: Uint8Array): string => sha256Once(payload).toString('base64');

interface InventoryEntry {
  readonly inventory: MicroBlockInventory;
  /** bytesKey of the inventory's previous liquid-block signature. */
  readonly prevKey: string;
  /** 26, or 43 for an inventory naming its key block. */
  readonly code: MessageCode;
  readonly payload: Uint8Array;
  /**
   * This node's own micro-block announced by 43: its 26 for the peers that do not read 43
   * (signed when first needed). Absent for a peer's inventory: its 43 cannot be turned into a 26.
   */
  ownV1?: () => Uint8Array;
  /** Peers that announced it (or were sent it). */
  readonly owners: Set<number>;
}

interface MicroRequest {
  attempts: number;
  timer: unknown;
  peer: Peer;
}

/** A micro-block received in the fetch pipeline, waiting for its turn (its parent applied). */
interface FetchedMicro {
  readonly micro: MicroBlock;
  readonly key: string;
  readonly peer: Peer;
  /** Settles once its transactions' signatures are checked: undefined, or why they could not be. */
  readonly verified: Promise<Error | undefined>;
}

/**
 * How many micro-blocks may be in the fetch pipeline at once (requested, received or being
 * applied): the inventories of a chain of micro-blocks are requested as they arrive, up to
 * this many ahead of the tip, while the ones before them are still travelling or applying.
 */
export const MICRO_BLOCK_FETCH_WINDOW = 8;

/** A transaction from a peer on its way into the pool. */
interface IncomingTransaction {
  readonly peer: Peer;
  readonly tx: Transaction;
  /** Peers known to have it. */
  readonly holders: Set<number>;
  /** The certificate chain its 46 carried. */
  readonly certificates: readonly Certificate[];
  /** `bytesKey(tx.id)`. */
  readonly key: string;
}

/**
 * The longest the pool admits peers' transactions in one event-loop turn, in ms (about a
 * hundred transfers): then the sockets are read before it goes on.
 */
export const ADMISSION_SLICE_MS = 4;

interface PendingKeyBlock {
  readonly block: Block;
  readonly from: Peer;
  attempts: number;
  timer: unknown;
}

export class Gossip {
  private readonly settings: SyncSettings;
  private readonly deps: NetworkDeps;
  private readonly forms: PeerForms;
  private readonly timers: Timers;
  private readonly random: () => number;
  private readonly peers = new Map<number, Peer>();
  /** Transactions by id → peers that have them. */
  private readonly txs: ExpiringCache<string, Set<number>>;
  /**
   * Transaction payloads seen, by their SHA-256, → the transaction's key in `txs`: the same
   * transaction relayed by several peers is parsed once (WE drops identical payloads at its
   * codec within received-txs-cache-timeout too). The payloads this node broadcast itself
   * are here too: a peer's copy of one (sent back before it knew we had it) is dropped
   * unparsed, and a peer's micro-block carrying it takes the pooled transaction.
   */
  private readonly txPayloads: ExpiringCache<string, string>;
  /**
   * The payload digests of transactions a peer's micro-block carried that were read from it
   * (not pooled here): once the micro-block is applied they go to `txPayloads`, so a copy that
   * arrives after its micro-block is dropped unparsed instead of being decoded, verified and
   * refused by the pool as already in the state.
   */
  private readonly readFromMicroBlocks = new WeakMap<Transaction, string>();
  /** Key blocks by id → peers that have them. */
  private readonly blocks: ExpiringCache<string, Set<number>>;
  /** Micro-block inventories by total signature. */
  private readonly inventories: ExpiringCache<string, InventoryEntry>;
  /**
   * Peers' inventories by the block they extend (its key) → their total-signature keys, in
   * arrival order: what to fetch next is looked up from the tip and the pipeline, not by
   * scanning every inventory of the last minutes on each chain change.
   */
  private readonly inventoriesByParent: ExpiringCache<string, string[]>;
  /** Micro-blocks applied or given up, by total signature. */
  private readonly processedMicros: ExpiringCache<string, true>;
  private readonly microRequests = new Map<string, MicroRequest>();
  /**
   * The fetch pipeline: micro-blocks requested, received or being applied (total signature
   * key → the key of the block they extend). Each extends the tip or another one in it.
   */
  private readonly pipeline = new Map<string, string>();
  /** Received micro-blocks waiting for their parent to be applied, by their parent's key. */
  private readonly fetched = new Map<string, FetchedMicro>();
  /** Transactions from peers admitted and waiting for the next relay batch, by id key. */
  private readonly relays = new Map<string, { readonly tx: Transaction; readonly holders: Set<number> }>();
  private relayTimer: unknown;
  /** A received micro-block is being checked and applied (one at a time, in chain order). */
  private applying = false;
  private readonly pendingKeyBlocks = new Map<string, PendingKeyBlock>();
  private readonly unsubscribe: () => void;
  /** Each micro-block's stage times here, logged once it is appended and announced. */
  private readonly timeline: MicroBlockTimeline;
  /** Transactions from peers waiting for their signatures to be checked (a batch per turn). */
  private incomingTxs: IncomingTransaction[] = [];
  /**
   * Peers' transactions taken for admission and not offered to the pool yet, by id key: a
   * micro-block carrying one reads it from here, and waits for the check already under way
   * instead of verifying it again.
   */
  private readonly awaitingAdmission = new Map<string, Transaction>();
  /**
   * Bytes of the peers' transactions taken for admission and not yet offered to the pool
   * (in `incomingTxs` or in a batch waiting its turn): counted against the pool's memory
   * limit, so a peer sending faster than the pool admits does not grow this queue unbounded.
   */
  private waitingBytes = 0;
  /** The batches of peers' transactions entering the pool, one after the other: the last one's turn. */
  private admissions: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(deps: NetworkDeps) {
    this.deps = deps;
    this.forms = deps.forms ?? peerFormsOf(undefined);
    this.timers = deps.timers ?? NODE_TIMERS;
    this.random = deps.random ?? Math.random;
    this.settings = syncSettings(deps.settings);
    const s = this.settings;
    // Node time: a test's clock moves them.
    const seen = { maxSize: s.seenCacheSize, ttlMs: s.seenCacheTtlMs, now: () => Number(deps.now()) };
    this.txs = new ExpiringCache(seen);
    this.txPayloads = new ExpiringCache(seen);
    this.blocks = new ExpiringCache(seen);
    this.inventories = new ExpiringCache(seen);
    this.inventoriesByParent = new ExpiringCache(seen);
    this.processedMicros = new ExpiringCache(seen);
    this.timeline = new MicroBlockTimeline(deps.microBlockLog);
    this.unsubscribe = deps.chain.on((e) => this.onChainEvent(e));
  }

  /**
   * The micro-block loader's caches as WE's `/debug/info` reports them (MicroBlockLoaderStorage
   * .CacheSizes): inventories that have owners to ask, inventories known, micro-blocks taken.
   */
  cacheSizes(): { readonly microBlockOwners: number; readonly inventories: number; readonly successfullyReceived: number } {
    let microBlockOwners = 0;
    let inventories = 0;
    this.inventories.forEachFresh((_, e) => {
      inventories++;
      if (e.owners.size > 0) microBlockOwners++;
    });
    return { microBlockOwners, inventories, successfullyReceived: this.processedMicros.freshSize() };
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    for (const r of this.microRequests.values()) this.timers.clearTimeout(r.timer);
    this.microRequests.clear();
    this.pipeline.clear();
    this.fetched.clear();
    this.timers.clearTimeout(this.relayTimer);
    this.relays.clear();
    for (const p of this.pendingKeyBlocks.values()) this.timers.clearTimeout(p.timer);
    this.pendingKeyBlocks.clear();
  }

  // --- peers coming and going ----------------------------------------------------------

  onPeer(peer: Peer): void {
    this.peers.set(peer.id, peer);
  }

  onClose(peer: Peer, reason: string): void {
    this.peers.delete(peer.id);
    this.deps.logger.debug(`Peer ${socketAddressText(peer.remote)} closed: ${reason}`);
    for (const [key, r] of this.microRequests) if (r.peer === peer) this.retryMicro(key);
  }

  // --- broadcasting ------------------------------------------------------------------------

  /**
   * Sends a transaction to the peers: one this node admitted (a REST broadcast) to every
   * peer not known to have it; when `forced` (WE's forced rebroadcast), to every peer.
   * Returns how many peers it was queued for.
   */
  broadcastTransaction(tx: Transaction, forced = false): number {
    const key = bytesKey(tx.id);
    const known = forced ? new Set<number>() : (this.txs.get(key) ?? new Set<number>());
    this.txs.set(key, known);
    const sent = this.sendTransaction(known, tx);
    // A peer it went to may send it back, or carry it in a micro-block: known by its payload (a node without peers hashes nothing).
    if (sent > 0) this.txPayloads.set(payloadDigest(tx.bytes), key);
    return sent;
  }

  /**
   * A transaction to every peer not in `known` but watchers: as 46 with the certificate chain
   * it carries (maybe none) to a peer from WE 1.11.1, as 25 to an older one (peer-forms.ts).
   * Each form is encoded once, when a peer first needs it.
   */
  private sendTransaction(known: Set<number>, tx: Transaction): number {
    let separate: Uint8Array | undefined;
    let plain: Uint8Array | undefined;
    let sent = 0;
    for (const peer of this.peers.values()) {
      if (known.has(peer.id) || peer.closed || this.forms.isWatcher(peer)) continue;
      known.add(peer.id);
      const ok = this.forms.separateBlockAndTxMessages(peer)
        ? peer.send(MessageCode.BroadcastedTransaction, (separate ??= encodeBroadcastedTransaction(tx, this.deps.chain.carriedCertificates([tx.id]))))
        : peer.send(MessageCode.Transaction, (plain ??= encodeTransaction(tx)));
      if (ok) sent++;
    }
    return sent;
  }

  /** Sends to every peer not in `known`, and adds them to it. */
  private sendToOthers(known: Set<number>, code: MessageCode, payload: Uint8Array): number {
    let sent = 0;
    for (const peer of this.peers.values()) {
      if (known.has(peer.id) || peer.closed) continue;
      known.add(peer.id);
      if (peer.send(code, payload)) sent++;
    }
    return sent;
  }

  private onChainEvent(e: ChainEvent): void {
    if (e.kind === 'rollback') {
      // Out of the chain again: a peer's copy of one is parsed and offered to the pool as before.
      for (const tx of e.removed) this.txPayloads.delete(payloadDigest(tx.bytes));
      this.dropUnreachableMicros();
      return;
    }
    const own = e.origin === 'local';
    // What is in a block now reaches the peers with it: no relay for it.
    if (this.relays.size > 0) for (const tx of e.kind === 'block' ? e.block.transactions : e.transactions) this.relays.delete(bytesKey(tx.id));
    if (e.kind === 'block') {
      if (own && e.height > 1 && e.block.transactions.length === 0) {
        const known = this.blocks.get(bytesKey(e.block.id)) ?? new Set<number>();
        this.blocks.set(bytesKey(e.block.id), known);
        const n = this.sendToOthers(known, MessageCode.Block, encodeBlock(e.block));
        this.deps.logger.debug(`Forged block ${e.block.idBase58} sent to ${n} peers`);
      }
    } else {
      const totalKey = bytesKey(e.microBlock.totalLiquidBlockSig);
      this.processedMicros.set(totalKey, true);
      this.pipeline.delete(totalKey);
      this.timeline.appended(totalKey, e.timing);
      const keys = this.deps.ownerKeys;
      if (own && keys !== undefined && equalBytes(keys.publicKey, e.microBlock.generator)) {
        const { protocol, chain } = this.deps;
        const { totalLiquidBlockSig: total, prevLiquidBlockSig: prev } = e.microBlock;
        // WE's MinerBase.buildInventory: a V2 naming the key block once feature 173 is active.
        const v2 = chain.microBlockInventoryV2Active();
        const inventory = signMicroBlockInventory(protocol, keys, total, prev, v2 ? chain.liquidKeyBlockId() : undefined);
        let v1: Uint8Array | undefined;
        const entry: InventoryEntry = {
          inventory,
          prevKey: bytesKey(inventory.prevSig),
          code: inventoryCode(inventory),
          payload: encodeMicroBlockInventory(inventory),
          owners: new Set(),
          ...(v2 ? { ownV1: () => (v1 ??= encodeMicroBlockInventory(signMicroBlockInventory(protocol, keys, total, prev))) } : {}),
        };
        this.inventories.set(totalKey, entry);
        this.sendInventory(entry);
        this.timeline.announced(totalKey, { id: encodeBase58(e.microBlock.totalLiquidBlockSig), origin: 'local', transactions: e.transactions.length });
      }
    }
    this.retryKeyBlocks();
    this.dropUnreachableMicros();
    this.applyNextMicro();
    this.requestReadyMicros();
  }

  /**
   * An inventory to every peer not known to own the micro-block, as it was announced (WE
   * relays inventories unchanged); a 43 only to the peers that read it, the others getting
   * this node's own micro-blocks as 26 (peer-forms.ts).
   */
  private sendInventory(entry: InventoryEntry): void {
    for (const peer of this.peers.values()) {
      if (entry.owners.has(peer.id) || peer.closed) continue;
      if (entry.code === MessageCode.MicroBlockInventoryV2 && !this.forms.readsInventoryV2(peer)) {
        if (entry.ownV1 === undefined) continue;
        entry.owners.add(peer.id);
        peer.send(MessageCode.MicroBlockInventory, entry.ownV1());
        continue;
      }
      entry.owners.add(peer.id);
      peer.send(entry.code, entry.payload);
    }
  }

  // --- key blocks ----------------------------------------------------------------------------

  /** A key block a peer broadcast (not one the sync asked for). */
  onBlock(peer: Peer, block: Block): void {
    const key = bytesKey(block.id);
    const known = this.blocks.get(key);
    if (known !== undefined) {
      known.add(peer.id);
      return;
    }
    this.blocks.set(key, new Set([peer.id]));
    if (!block.hasValidSignature()) {
      peer.close(`Block ${block.idBase58} has an invalid signature`);
      return;
    }
    this.applyBroadcastBlock({ block, from: peer, attempts: 0, timer: undefined });
  }

  private applyBroadcastBlock(pending: PendingKeyBlock): void {
    const { block, from } = pending;
    const key = bytesKey(block.id);
    const result = this.deps.chain.applyKeyBlock(block, this.settings.maxRollback);
    const log = this.deps.logger;
    switch (result.kind) {
      case 'appended':
      case 'switched': {
        this.dropPendingKeyBlock(key);
        log.info(`Block ${block.idBase58} from ${socketAddressText(from.remote)} ${result.kind} at height ${result.height}`);
        if (block.transactions.length === 0) this.sendToOthers(this.blocks.get(key) ?? new Set([from.id]), MessageCode.Block, encodeBlock(block));
        return;
      }
      case 'known':
        this.dropPendingKeyBlock(key);
        return;
      case 'rejected':
        this.dropPendingKeyBlock(key);
        log.warn(`Block ${block.idBase58} from ${socketAddressText(from.remote)} not applied: ${result.error.message}`);
        return;
      case 'unknown-reference': {
        if (pending.attempts >= this.settings.keyBlockAppendAttempts) {
          this.dropPendingKeyBlock(key);
          log.debug(`Block ${block.idBase58} from ${socketAddressText(from.remote)}: its reference ${encodeBase58(block.reference)} did not arrive`);
          return;
        }
        pending.attempts++;
        if (pending.timer !== undefined) this.timers.clearTimeout(pending.timer);
        pending.timer = this.timers.setTimeout(() => this.applyBroadcastBlock(pending), this.settings.keyBlockAppendRetryMs);
        this.pendingKeyBlocks.set(key, pending);
        return;
      }
    }
  }

  private dropPendingKeyBlock(key: string): void {
    const p = this.pendingKeyBlocks.get(key);
    if (p === undefined) return;
    this.timers.clearTimeout(p.timer);
    this.pendingKeyBlocks.delete(key);
  }

  /** After the chain moved, a waiting key block may fit now. */
  private retryKeyBlocks(): void {
    if (this.pendingKeyBlocks.size === 0) return;
    const tip = this.deps.chain.lastBlockId();
    for (const p of [...this.pendingKeyBlocks.values()]) {
      if (equalBytes(p.block.reference, tip)) queueMicrotask(() => this.pendingKeyBlocks.has(bytesKey(p.block.id)) && this.applyBroadcastBlock(p));
    }
  }

  // --- transactions ----------------------------------------------------------------------------

  /**
   * A transaction message (its transaction bytes, and the certificates of a 46): parsed once
   * however many peers relay it, admitted (its certificates then left with the chain) and relayed.
   */
  onTransactionPayload(peer: Peer, payload: Uint8Array, certificates: readonly Certificate[] = []): void {
    const digest = payloadDigest(payload);
    const seen = this.txPayloads.get(digest);
    if (seen !== undefined) {
      this.txs.get(seen)?.add(peer.id);
      return;
    }
    const tx = decodeTransaction(this.deps.protocol, payload);
    this.txPayloads.set(digest, bytesKey(tx.id));
    this.onTransaction(peer, tx, certificates);
  }

  /**
   * Reads a transaction of a micro-block from a peer: one that came before in a transaction
   * message with exactly these bytes, or that this node broadcast itself, and that the pool
   * holds is taken as pooled — decoded, its id computed and its signature checked at
   * admission — instead of being decoded, hashed and matched against the pool again (on a
   * node that does not mine, that is nearly every transaction of a micro-block). One still
   * waiting for its admission is taken as it is too: the micro-block then waits for the
   * check already under way (moved to the verifiers' block lane) instead of verifying it
   * again. Anything else is read from the micro-block and checked in full.
   */
  readonly readTransaction: TransactionReader = (r, length) => {
    const bytes = r.buf.subarray(r.pos, r.pos + length);
    const digest = payloadDigest(bytes);
    const key = this.txPayloads.get(digest);
    const known = key === undefined ? undefined : (this.deps.pool.getByKey(key) ?? this.awaitingAdmission.get(key));
    if (known === undefined || !equalBytes(known.bytes, bytes)) {
      const tx = this.deps.protocol.readTransaction(r, length);
      this.readFromMicroBlocks.set(tx, digest);
      return tx;
    }
    r.pos += length;
    return known;
  };

  private onTransaction(peer: Peer, tx: Transaction, certificates: readonly Certificate[]): void {
    const key = bytesKey(tx.id);
    const known = this.txs.get(key);
    if (known !== undefined) {
      known.add(peer.id);
      return;
    }
    const holders = new Set([peer.id]);
    this.txs.set(key, holders);
    try {
      this.deps.pool.checkRoom(tx, this.waitingBytes);
    } catch (e) {
      if (!(e instanceof WeError)) throw e;
      this.deps.logger.debug(`Transaction ${tx.idBase58} from ${socketAddressText(peer.remote)} not admitted: ${e.message}`);
      return;
    }
    const item = { peer, tx, holders, certificates, key };
    this.enterWaiting(item);
    // Signatures are checked on the verifier threads for the whole batch that arrived in
    // this turn, then the transactions enter the pool (and go on) in arrival order.
    if (this.incomingTxs.push(item) === 1) {
      queueMicrotask(
        () => void this.admitIncoming().catch((e: unknown) => this.deps.logger.warn(`Transactions from peers not admitted: ${(e as Error).message}`)),
      );
    }
  }

  /**
   * Takes the batch that arrived in this turn: its signatures are checked at once (while
   * earlier batches may still be entering the pool), then it enters the pool after them.
   */
  private async admitIncoming(): Promise<void> {
    const batch = this.incomingTxs;
    this.incomingTxs = [];
    const verified = this.deps.pool.preverify(batch.map((b) => b.tx)).catch((e: unknown) => {
      this.deps.logger.warn(`Transaction signatures not checked ahead: ${(e as Error).message}`);
    });
    const turn = this.admissions.then(() => verified).then(() => this.admitBatch(batch));
    this.admissions = turn.catch(() => undefined);
    await turn;
  }

  /**
   * Validates a batch of peers' transactions into the pool in arrival order, in slices of at
   * most ADMISSION_SLICE_MS: between slices the event loop reads the sockets, so a
   * micro-block's inventory, request or response and a micro-block ready to apply do not
   * wait behind a relay batch of thousands of transactions.
   */
  private async admitBatch(batch: readonly IncomingTransaction[]): Promise<void> {
    let until = performance.now() + ADMISSION_SLICE_MS;
    let next = 0;
    try {
      while (next < batch.length) {
        if (this.closed) return;
        if (performance.now() >= until) {
          await nextTurn();
          if (this.closed) return;
          until = performance.now() + ADMISSION_SLICE_MS;
        }
        const item = batch[next++]!;
        this.leaveWaiting(item);
        const { peer, tx, holders, certificates } = item;
        const problem = this.deps.pool.certificateProblem(tx, certificates);
        if (problem !== undefined) {
          const refusal = await problem;
          if (this.closed) return;
          if (refusal !== undefined) {
            this.deps.logger.debug(`Transaction ${tx.idBase58} from ${socketAddressText(peer.remote)} not admitted: ${refusal}`);
            continue;
          }
        }
        try {
          // Its chain is kept with it only once it is admitted.
          this.deps.pool.admit(tx, certificates);
        } catch (e) {
          if (!(e instanceof WeError)) throw e;
          this.deps.logger.debug(`Transaction ${tx.idBase58} from ${socketAddressText(peer.remote)} not admitted: ${e.message}`);
          continue;
        }
        this.queueRelay(tx, holders);
      }
    } finally {
      // A batch cut short (closing, or a failure) no longer waits.
      for (const item of batch.slice(next)) this.leaveWaiting(item);
    }
  }

  /** A peer's transaction taken for admission: counted against the pool's memory limit, and found by a micro-block that carries it. */
  private enterWaiting(item: IncomingTransaction): void {
    this.waitingBytes += item.tx.bytes.length;
    this.awaitingAdmission.set(item.key, item.tx);
  }

  /** It is offered to the pool now (or dropped): no longer waiting. */
  private leaveWaiting(item: IncomingTransaction): void {
    this.waitingBytes -= item.tx.bytes.length;
    this.awaitingAdmission.delete(item.key);
  }

  /** A transaction admitted from a peer goes out with the next relay batch. */
  private queueRelay(tx: Transaction, holders: Set<number>): void {
    this.relays.set(bytesKey(tx.id), { tx, holders });
    const s = this.settings;
    if (this.relays.size >= s.transactionRelayBatchSize) this.flushRelays();
    else if (this.relayTimer === undefined)
      this.relayTimer = this.timers.setTimeout(() => this.flushRelays(), Math.round(s.transactionRelayBatchMs * (0.5 + this.random())));
  }

  /** Relays the batch, each transaction to the peers not known to have it by now. */
  private flushRelays(): void {
    this.timers.clearTimeout(this.relayTimer);
    this.relayTimer = undefined;
    const batch = [...this.relays.values()];
    this.relays.clear();
    for (const { tx, holders } of batch) this.sendTransaction(holders, tx);
  }

  // --- micro-blocks ----------------------------------------------------------------------------

  /**
   * A peer announced a micro-block: requested at once when it extends our tip or a
   * micro-block already in the fetch pipeline (and the pipeline has room).
   */
  onInventory(peer: Peer, inventory: MicroBlockInventory, payload: Uint8Array): void {
    const key = bytesKey(inventory.totalSig);
    let entry = this.inventories.get(key);
    if (entry !== undefined) {
      entry.owners.add(peer.id);
      // A new owner of one given up before: worth asking again now.
      if (this.pipeline.has(key)) return;
    } else {
      const code = inventoryCode(inventory);
      if (!verifyMicroBlockInventory(this.deps.protocol, inventory)) throw new MalformedMessage(code, 'invalid signature');
      entry = { inventory, prevKey: bytesKey(inventory.prevSig), code, payload: Uint8Array.from(payload), owners: new Set([peer.id]) };
      this.inventories.set(key, entry);
      if (this.onOtherKeyBlock(entry)) {
        this.deps.logger.debug(`Micro-block inventory ${encodeBase58(inventory.totalSig)} from ${socketAddressText(peer.remote)} names another key block`);
        return;
      }
      const siblings = this.inventoriesByParent.get(entry.prevKey);
      if (siblings === undefined) this.inventoriesByParent.set(entry.prevKey, [key]);
      else siblings.push(key);
    }
    if (this.onOtherKeyBlock(entry)) return;
    if (this.processedMicros.get(key) !== undefined || this.deps.chain.holdsBlockId(inventory.totalSig)) return;
    this.timeline.mark(key, 'inventory');
    if (entry.prevKey === bytesKey(this.deps.chain.lastBlockId()) || this.pipeline.has(entry.prevKey)) this.requestMicro(key, entry.prevKey, peer);
  }

  /**
   * A V2 inventory naming a key block other than our liquid block's: WE's MicroBlockLoader
   * knows it (its owners) but does not load it.
   */
  private onOtherKeyBlock(entry: InventoryEntry): boolean {
    const keyBlock = entry.inventory.keyBlockSig;
    return keyBlock !== undefined && !equalBytes(keyBlock, this.deps.chain.liquidKeyBlockId());
  }

  /**
   * Inventories that extend the tip or the pipeline, while the pipeline has room: from the
   * tip and each micro-block in the pipeline (and each one requested here) to the
   * inventories announced on it, oldest first.
   */
  private requestReadyMicros(): void {
    if (this.pipeline.size >= MICRO_BLOCK_FETCH_WINDOW) return;
    const parents = [bytesKey(this.deps.chain.lastBlockId()), ...this.pipeline.keys()];
    for (let i = 0; i < parents.length; i++) {
      const parent = parents[i]!;
      for (const key of this.inventoriesByParent.get(parent) ?? []) {
        if (this.pipeline.size >= MICRO_BLOCK_FETCH_WINDOW) return;
        if (this.pipeline.has(key) || this.processedMicros.get(key) !== undefined || this.inventories.get(key) === undefined) continue;
        if (this.requestMicro(key, parent)) parents.push(key);
      }
    }
  }

  /** Asks an owner for the micro-block; false when it is not asked (pipeline full, a sibling asked, no owner). */
  private requestMicro(key: string, prevKey: string, prefer?: Peer): boolean {
    if (this.pipeline.has(key) || this.pipeline.size >= MICRO_BLOCK_FETCH_WINDOW) return false;
    // One child per parent: a competing micro-block on the same parent waits until this one is given up.
    for (const parent of this.pipeline.values()) if (parent === prevKey) return false;
    const peer = prefer ?? this.ownerOf(key, undefined);
    if (peer === undefined) return false;
    const request: MicroRequest = { attempts: 1, timer: undefined, peer };
    this.pipeline.set(key, prevKey);
    this.microRequests.set(key, request);
    this.timeline.mark(key, 'requested');
    this.sendMicroRequest(key, request);
    return true;
  }

  private sendMicroRequest(key: string, request: MicroRequest): void {
    const entry = this.inventories.get(key);
    if (entry === undefined) {
      this.giveUpMicro(key);
      return;
    }
    request.peer.send(MessageCode.MicroBlockRequest, encodeMicroBlockRequest(entry.inventory.totalSig));
    request.timer = this.timers.setTimeout(() => this.retryMicro(key), this.settings.microBlockRequestTimeoutMs);
  }

  private retryMicro(key: string): void {
    const request = this.microRequests.get(key);
    if (request === undefined) return;
    this.timers.clearTimeout(request.timer);
    const next = this.ownerOf(key, request.peer);
    if (request.attempts >= this.settings.microBlockRequestAttempts || next === undefined) {
      this.deps.logger.debug(
        `Micro-block ${encodeBase58(this.inventories.get(key)?.inventory.totalSig ?? new Uint8Array())} not received after ${request.attempts} attempts`,
      );
      this.giveUpMicro(key);
      return;
    }
    request.attempts++;
    request.peer = next;
    this.sendMicroRequest(key, request);
  }

  /** A micro-block leaves the pipeline unreceived; what was fetched on top of it goes too. */
  private giveUpMicro(key: string): void {
    const request = this.microRequests.get(key);
    if (request !== undefined) this.timers.clearTimeout(request.timer);
    this.microRequests.delete(key);
    this.pipeline.delete(key);
    this.timeline.forget(key);
    this.dropUnreachableMicros();
  }

  /**
   * Drops from the pipeline every micro-block that no longer leads back to the tip — a new
   * key block, a rollback, or a micro-block given up or refused beneath it: their requests
   * are forgotten and what was received of them is not applied.
   */
  private dropUnreachableMicros(): void {
    if (this.pipeline.size === 0) return;
    const live = new Set([bytesKey(this.deps.chain.lastBlockId())]);
    for (let grew = true; grew;) {
      grew = false;
      for (const [key, prevKey] of this.pipeline) {
        if (!live.has(key) && live.has(prevKey)) {
          live.add(key);
          grew = true;
        }
      }
    }
    for (const key of [...this.pipeline.keys()]) {
      if (live.has(key)) continue;
      this.pipeline.delete(key);
      const request = this.microRequests.get(key);
      if (request !== undefined) this.timers.clearTimeout(request.timer);
      this.microRequests.delete(key);
      this.timeline.forget(key);
    }
    for (const [prevKey, f] of [...this.fetched]) {
      if (this.pipeline.has(f.key)) continue;
      // Not applied: fetched again should it become the tip's next after all.
      this.fetched.delete(prevKey);
      this.processedMicros.delete(f.key);
    }
  }

  /** A connected peer that announced the micro-block, preferring one other than `not`. */
  private ownerOf(key: string, not: Peer | undefined): Peer | undefined {
    const owners = this.inventories.get(key)?.owners;
    if (owners === undefined) return undefined;
    let fallback: Peer | undefined;
    for (const id of owners) {
      const peer = this.peers.get(id);
      if (peer === undefined || peer.closed) continue;
      if (peer !== not) return peer;
      fallback = peer;
    }
    return fallback;
  }

  /** A peer asks for a micro-block of our liquid block. */
  onMicroBlockRequest(peer: Peer, totalSignature: Uint8Array): void {
    const micro = this.deps.chain.microBlock(totalSignature);
    if (micro === undefined) return;
    // WE's HistoryReplier: a 47 with the certificates (maybe none) to a peer from 1.11.1, a 28 to an older one.
    if (this.forms.separateBlockAndTxMessages(peer)) {
      const certificates = micro.kind === 'tx' ? this.deps.chain.carriedCertificates(micro.transactions.map((t) => t.id)) : [];
      peer.send(MessageCode.MicroBlockResponseV2, encodeMicroBlockResponseV2(micro, certificates));
    } else {
      peer.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(micro));
    }
    this.timeline.served({ id: micro.idBase58, to: peer.info.nodeName });
  }

  /**
   * The micro-block we asked a peer for (a 28, or a 47 whose certificates were offered to the
   * chain): its signatures are checked at once on the verifier threads (the ones this pool
   * already holds are not checked again); it is applied when the one it extends is — blocks
   * fetched ahead that arrive out of order wait for their turn.
   */
  onMicroBlockResponse(peer: Peer, micro: MicroBlock, arrivedAt?: number): void {
    const key = bytesKey(micro.totalLiquidBlockSig);
    const request = this.microRequests.get(key);
    if (request === undefined) return; // not asked for (or already given up)
    if (arrivedAt !== undefined) this.timeline.mark(key, 'arrived', arrivedAt);
    this.timeline.mark(key, 'received');
    const prevKey = bytesKey(micro.prevLiquidBlockSig);
    if (prevKey !== this.pipeline.get(key)) {
      this.processedMicros.set(key, true);
      this.deps.logger.debug(`Micro-block ${micro.idBase58} from ${socketAddressText(peer.remote)} does not extend the block its inventory named`);
      this.giveUpMicro(key);
      return;
    }
    this.timers.clearTimeout(request.timer);
    this.microRequests.delete(key);
    this.processedMicros.set(key, true);
    const verified =
      micro.kind === 'tx'
        ? this.deps.pool.preverify(micro.transactions, true).then(
            () => void this.timeline.mark(key, 'verified'),
            (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
          )
        : Promise.resolve(undefined);
    this.fetched.set(prevKey, { micro, key, peer, verified });
    this.dropUnreachableMicros();
    this.applyNextMicro();
  }

  /** Applies the received micro-block that extends the tip, if any, once its signatures are checked; then the next. */
  private applyNextMicro(): void {
    if (this.applying || this.closed) return;
    const tipKey = bytesKey(this.deps.chain.lastBlockId());
    const next = this.fetched.get(tipKey);
    if (next === undefined) return;
    this.fetched.delete(tipKey);
    this.applying = true;
    const { micro, key, peer } = next;
    void next.verified
      .then((failure) => {
        if (failure !== undefined) throw failure;
        // A key block or rollback while its signatures were checked left it behind.
        if (!this.pipeline.has(key)) return;
        this.timeline.mark(key, 'applying');
        this.applyMicroBlock(peer, micro, key);
      })
      .catch((e: unknown) => this.deps.logger.warn(`Micro-block ${micro.idBase58} from ${socketAddressText(peer.remote)} not applied: ${(e as Error).message}`))
      .finally(() => {
        this.applying = false;
        if (this.closed) return;
        if (this.pipeline.delete(key)) this.dropUnreachableMicros();
        this.applyNextMicro();
        this.requestReadyMicros();
      });
  }

  private applyMicroBlock(peer: Peer, micro: MicroBlock, key: string): void {
    if (this.closed) return;
    try {
      this.deps.chain.appendMicroBlock(micro);
    } catch (e) {
      this.timeline.forget(key);
      if (!(e instanceof WeError)) throw e;
      this.deps.logger.debug(`Micro-block ${micro.idBase58} from ${socketAddressText(peer.remote)} not applied: ${e.message}`);
      return;
    }
    // Its transactions are in the chain now: a later copy from a peer is known by its payload.
    if (micro.kind === 'tx') {
      for (const tx of micro.transactions) {
        const digest = this.readFromMicroBlocks.get(tx);
        if (digest !== undefined) this.txPayloads.set(digest, bytesKey(tx.id));
      }
    }
    const entry = this.inventories.get(key);
    if (entry !== undefined) {
      entry.owners.add(peer.id);
      this.sendInventory(entry);
    }
    this.timeline.announced(key, { id: micro.idBase58, origin: 'network', transactions: micro.kind === 'tx' ? micro.transactions.length : 0 });
  }
}
