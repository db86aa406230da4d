/**
 * Confidential contract data among the group (WE's ConfidentialDataInventoryBroadcaster,
 * ConfidentialDataInventoryHandler, ConfidentialDataReplier, ConfidentialDataSynchronizer,
 * simplified): messages 52–55 (messages.ts) over the connected peers.
 *
 * - A node that saved a unit (its own call's input, a miner's output) announces it (55) to
 *   the connected peers whose node owner is a group participant of the contract.
 * - An inventory with a valid signature, seen for the first time, is passed on to the other
 *   participant peers; a participant node that lacks the unit asks the announcer for it (52).
 * - A request is answered (53) only to a registered participant of the contract's group:
 *   the unit's entries bytes, encrypted with the connection's session keys on a plain
 *   connection (in clear inside TLS); no data → the no-data answer.
 * - An answer is kept only when its entries hash to the commitment under its key.
 * - A unit still missing is asked again of the next holder known, and of every participant
 *   peer with an inventory request (54) when no holder is known; a peer holding the unit
 *   answers 54 with its own inventory.
 *
 * Settings (`node.confidential-contracts`, settings.ts), as WE uses them:
 * - `inventory-handler`: inventories are taken in batches (`max-buffer-size` of them, or
 *   what came within `max-buffer-time`); each is handled once, remembered `expiration-time`
 *   in a cache of `max-cache-size`;
 * - `synchronizer`: the first retry after `init-retry-delay`, each next one 4/3 later; after
 *   `max-attempt-count` attempts a unit is lost and tried again every
 *   `lost-data-processing-delay`; a request unanswered for `request-timeout` fails; at most
 *   `crawling-parallelism` requests are out at once; after inventory requests the next try
 *   waits `inventory-request-delay`; a peer that failed a request is not asked again for
 *   `failed-peers-cache-expire-timeout` (`failed-peers-cache-size` peers remembered); a
 *   unit received is announced on only when its transaction is younger than
 *   `inventory-timestamp-threshold`;
 * - `cache`: the entries bytes of units recently served (`max-size`, `expire-after`).
 * - `replier.parallelism`, `inventory-handler.replier-parallelism`: requests are answered
 *   one at a time as they arrive (storage reads are synchronous), within any limit;
 *   `synchronizer.inventory-stream-timeout` has no use here (WE's inventory streams).
 *
 * - A block or micro-block holding a 105 V4 of a contract this node is a participant of makes
 *   its output and its call's input wanted when missing (`noteTransactions`); the miner
 *   leaves a contract's confidential calls in the pool while an output of it is missing.
 *
 * Not done (WE has them): pending/lost queues that survive a restart.
 */
import { bytesKey, encodeBase58, equalBytes } from '../../crypto/encoding.js';
import type { KeyPair } from '../../crypto/suite.js';
import type { TransportEncryption } from '../../crypto/transport-encryption.js';
import type { Protocol } from '../../protocol/protocol.js';
import { CallContract, ExecutedContract } from '../../protocol/transactions/contracts.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import { isGroupParticipant } from '../../state/contract-info.js';
import type { StateView } from '../../state/view.js';
import { commitmentHolds, entriesBytes, entriesFromBytes, type ConfidentialDataType, type ConfidentialDataUnit } from './data.js';
import {
  ConfidentialMessageCode as Code,
  decodeDataId,
  decodeDataResponse,
  decodeInventory,
  decodeSealed,
  encodeDataId,
  encodeDataResponse,
  encodeInventory,
  encodeSealed,
  inventorySignedBytes,
  inventoryValid,
  signInventory,
  type ConfidentialDataId,
} from './messages.js';
import type { ConfidentialStorage } from './storage.js';
import { CONFIDENTIAL_CONTRACTS_DEFAULTS, type ConfidentialContractsSettings } from './settings.js';

/** A connected peer as replication sees it (the network's privacy peer view fits). */
export interface ConfidentialPeer {
  readonly id: string;
  /** The peer's node owner address (26 bytes), proven in the handshake. */
  readonly ownerAddress: Uint8Array;
  /** Session keys on a plain connection; undefined inside TLS. */
  readonly sessionKeys: { readonly own: KeyPair; readonly peer: Uint8Array } | undefined;
  send(code: number, payload: Uint8Array): void;
}

export interface ConfidentialPeers {
  connected(): readonly ConfidentialPeer[];
  onMessage(listener: (peer: ConfidentialPeer, code: number, payload: Uint8Array) => void): () => void;
}

export interface ConfidentialReplicationOptions {
  readonly protocol: Protocol;
  readonly storage: ConfidentialStorage;
  readonly owner: KeyPair;
  state(): StateView;
  readonly peers: ConfidentialPeers;
  readonly transport: TransportEncryption;
  readonly log: { debug(o: object, m: string): void; warn(o: object, m: string): void };
  /** `node.confidential-contracts` (absent: WE's defaults). */
  readonly settings?: ConfidentialContractsSettings;
  /** Milliseconds now (tests). */
  readonly now?: () => number;
}

interface Wanted {
  readonly id: ConfidentialDataId;
  /** Peer ids known to hold it, in the order they announced it. */
  readonly holders: string[];
  /** Peer ids already asked without success. */
  readonly tried: Set<string>;
  /** Attempts made (asks and inventory requests). */
  attempts: number;
  /** Not tried again before. */
  nextAt: number;
  /** The request out for it: whom, and since when. */
  pending: { readonly peer: string; readonly since: number } | undefined;
}

const idKey = (id: ConfidentialDataId): string => `${id.type}:${bytesKey(id.commitment)}`;

/** Keys remembered until they expire, at most `max` of them (the oldest dropped first). */
class ExpiringKeys {
  private readonly until = new Map<string, number>();
  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
  ) {}

  has(key: string, now: number): boolean {
    const at = this.until.get(key);
    if (at === undefined) return false;
    if (at > now) return true;
    this.until.delete(key);
    return false;
  }

  /** Remembers `key`; false when it was remembered already. */
  add(key: string, now: number): boolean {
    if (this.has(key, now)) return false;
    this.until.set(key, now + this.ttlMs);
    while (this.until.size > this.max) this.until.delete(this.until.keys().next().value!);
    return true;
  }
}

export class ConfidentialReplication {
  private readonly wanted = new Map<string, Wanted>();
  /** Units given up after max-attempt-count attempts, tried again every lost-data-processing-delay. */
  private readonly lost = new Map<string, Wanted>();
  private lostRetryAt = 0;
  private readonly seen: ExpiringKeys;
  private readonly failedPeers: ExpiringKeys;
  private readonly served = new Map<string, { readonly data: Uint8Array; readonly until: number }>();
  private inventories: { readonly peer: ConfidentialPeer; readonly payload: Uint8Array }[] = [];
  private inventoryTimer: NodeJS.Timeout | undefined;
  private readonly ownerAddress: Uint8Array;
  private readonly settings: ConfidentialContractsSettings;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;

  constructor(private readonly o: ConfidentialReplicationOptions) {
    this.ownerAddress = o.protocol.addresses.fromPublicKey(o.owner.publicKey).bytes;
    this.settings = o.settings ?? CONFIDENTIAL_CONTRACTS_DEFAULTS;
    this.now = o.now ?? Date.now;
    const { inventoryHandler: inv, synchronizer: sy } = this.settings;
    this.seen = new ExpiringKeys(inv.maxCacheSize, inv.expirationTimeMs);
    this.failedPeers = new ExpiringKeys(sy.failedPeersCacheSize, sy.failedPeersCacheExpireTimeoutMs);
  }

  start(): void {
    this.stopListening = this.o.peers.onMessage((peer, code, payload) => {
      try {
        this.onMessage(peer, code, payload);
      } catch (e) {
        this.o.log.warn({ peer: peer.id, code, err: e instanceof Error ? e.message : String(e) }, 'confidential contract message dropped');
      }
    });
    // The schedule is checked often enough for the shortest of its delays.
    const sy = this.settings.synchronizer;
    this.timer = setInterval(() => this.retry(), Math.max(5, Math.min(sy.initRetryDelayMs, sy.inventoryRequestDelayMs, 1000)));
    this.timer.unref();
  }

  stop(): void {
    this.stopListening?.();
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.inventoryTimer !== undefined) clearTimeout(this.inventoryTimer);
  }

  /** Whether `address` is a group participant of a confidential contract (false when the contract is unknown or not confidential). */
  private isParticipant(contractId: Uint8Array, address: Uint8Array): boolean {
    const info = this.o.state().contract(contractId);
    return info?.isConfidential === true && isGroupParticipant(info, address);
  }

  private participantPeers(contractId: Uint8Array, except?: ConfidentialPeer): ConfidentialPeer[] {
    const info = this.o.state().contract(contractId);
    if (info?.isConfidential !== true) return [];
    return this.o.peers.connected().filter((p) => p !== except && isGroupParticipant(info, p.ownerAddress));
  }

  /** Tells the group's peers this node holds `unit`. */
  announce(type: ConfidentialDataType, unit: ConfidentialDataUnit): void {
    const inventory = signInventory(this.o.protocol, this.o.owner, { contractId: unit.contractId, commitment: unit.commitment, type });
    this.seen.add(bytesKey(this.o.protocol.crypto.fastHash(inventorySignedBytes(this.o.protocol, inventory.senderPublicKey, inventory))), this.now());
    const payload = encodeInventory(inventory);
    for (const peer of this.participantPeers(unit.contractId)) peer.send(Code.Inventory, payload);
  }

  private onMessage(peer: ConfidentialPeer, code: number, payload: Uint8Array): void {
    switch (code) {
      case Code.Inventory:
        return this.bufferInventory(peer, payload);
      case Code.InventoryRequest: {
        const id = decodeDataId(code, payload);
        if (this.o.storage.has(id.type, id.commitment)) peer.send(Code.Inventory, encodeInventory(signInventory(this.o.protocol, this.o.owner, id)));
        return;
      }
      case Code.DataRequest:
        return this.onRequest(peer, decodeDataId(code, payload));
      case Code.DataResponse:
        return this.onResponse(peer, payload);
    }
  }

  /** Inventories are handled in batches: max-buffer-size of them, or what came within max-buffer-time. */
  private bufferInventory(peer: ConfidentialPeer, payload: Uint8Array): void {
    // A malformed one is refused as it arrives.
    decodeInventory(payload, this.o.protocol.crypto.publicKeyLength);
    this.inventories.push({ peer, payload });
    const inv = this.settings.inventoryHandler;
    if (this.inventories.length >= inv.maxBufferSize) return this.flushInventories();
    if (this.inventoryTimer === undefined) {
      this.inventoryTimer = setTimeout(() => this.flushInventories(), inv.maxBufferTimeMs);
      this.inventoryTimer.unref();
    }
  }

  private flushInventories(): void {
    if (this.inventoryTimer !== undefined) clearTimeout(this.inventoryTimer);
    this.inventoryTimer = undefined;
    const batch = this.inventories;
    this.inventories = [];
    for (const { peer, payload } of batch) {
      try {
        this.onInventory(peer, payload);
      } catch (e) {
        this.o.log.warn({ peer: peer.id, err: e instanceof Error ? e.message : String(e) }, 'confidential inventory dropped');
      }
    }
  }

  private onInventory(peer: ConfidentialPeer, payload: Uint8Array): void {
    const { protocol } = this.o;
    const inventory = decodeInventory(payload, protocol.crypto.publicKeyLength);
    if (!this.seen.add(bytesKey(protocol.crypto.fastHash(inventorySignedBytes(protocol, inventory.senderPublicKey, inventory))), this.now())) return;
    if (!inventoryValid(protocol, inventory)) {
      this.o.log.warn({ peer: peer.id }, 'confidential inventory with a wrong signature dropped');
      return;
    }
    for (const other of this.participantPeers(inventory.contractId, peer)) other.send(Code.Inventory, payload);
    if (!this.isParticipant(inventory.contractId, this.ownerAddress)) return;
    const wanted = this.want(inventory);
    if (wanted === undefined) return;
    // The announcer (its node-owner address) if it is connected, else the peer that passed it on.
    const announcer = protocol.addresses.fromPublicKey(inventory.senderPublicKey).bytes;
    const holder = this.o.peers.connected().find((p) => equalBytes(p.ownerAddress, announcer)) ?? peer;
    if (!wanted.holders.includes(holder.id)) wanted.holders.push(holder.id);
    if (!wanted.tried.has(holder.id) && wanted.pending === undefined && this.canAsk(holder)) this.ask(wanted, holder);
  }

  /** Requests out now (unanswered, not timed out). */
  private outstanding(): number {
    let n = 0;
    for (const w of this.wanted.values()) if (w.pending !== undefined) n++;
    return n;
  }

  private canAsk(peer: ConfidentialPeer): boolean {
    return !this.failedPeers.has(peer.id, this.now()) && this.outstanding() < this.settings.synchronizer.crawlingParallelism;
  }

  private ask(wanted: Wanted, peer: ConfidentialPeer): void {
    wanted.tried.add(peer.id);
    wanted.pending = { peer: peer.id, since: this.now() };
    peer.send(Code.DataRequest, encodeDataId(wanted.id));
  }

  /** The next attempt after `attempts` of them: init-retry-delay, growing by 4/3 each time. */
  private delayAfter(attempts: number): number {
    return this.settings.synchronizer.initRetryDelayMs * (4 / 3) ** Math.max(0, attempts - 1);
  }

  private onRequest(peer: ConfidentialPeer, id: ConfidentialDataId): void {
    const state = this.o.state();
    const registered = state.participant(peer.ownerAddress) !== undefined;
    const member = this.isParticipant(id.contractId, peer.ownerAddress);
    if (!registered || !member) {
      this.o.log.warn({ peer: peer.id, contractId: encodeBase58(id.contractId) }, 'confidential data request from a peer outside the group: not answered');
      return;
    }
    const unit = this.o.storage.get(id.type, id.commitment);
    if (unit === undefined || !equalBytes(unit.contractId, id.contractId)) {
      peer.send(Code.DataResponse, encodeDataResponse({ kind: 'no-data', ...id }));
      return;
    }
    const plain = this.servedBytes(id, unit);
    const keys = peer.sessionKeys;
    let data = plain;
    if (keys !== undefined) {
      const sealed = this.o.transport.encrypt(plain, keys.own.privateKey, keys.peer);
      data = encodeSealed(sealed.wrappedKey, sealed.encrypted);
    }
    peer.send(Code.DataResponse, encodeDataResponse({ kind: 'data', ...id, txId: unit.txId, commitmentKey: unit.commitmentKey, data }));
  }

  /** A unit's entries bytes as served: from the cache of recently served units (`cache`). */
  private servedBytes(id: ConfidentialDataId, unit: ConfidentialDataUnit): Uint8Array {
    const key = idKey(id);
    const now = this.now();
    const hit = this.served.get(key);
    if (hit !== undefined && hit.until > now) return hit.data;
    const data = entriesBytes(unit.entries, this.o.protocol);
    this.served.delete(key);
    this.served.set(key, { data, until: now + this.settings.cache.expireAfterMs });
    while (this.served.size > this.settings.cache.maxSize) this.served.delete(this.served.keys().next().value!);
    return data;
  }

  /** How many units the served cache holds now (tests). */
  get servedCacheSize(): number {
    return this.served.size;
  }

  private onResponse(peer: ConfidentialPeer, payload: Uint8Array): void {
    const response = decodeDataResponse(payload);
    const wanted = this.wanted.get(idKey(response));
    if (wanted === undefined) return;
    if (wanted.pending?.peer === peer.id) wanted.pending = undefined;
    if (response.kind === 'no-data') {
      this.failedPeers.add(peer.id, this.now());
      return;
    }
    const keys = peer.sessionKeys;
    let plain = response.data;
    if (keys !== undefined) {
      const sealed = decodeSealed(response.data, this.o.transport.wrappedKeyLength);
      plain = this.o.transport.decrypt(sealed.encrypted, sealed.wrappedKey, keys.own.privateKey, keys.peer);
    }
    const entries = entriesFromBytes(plain, this.o.protocol);
    if (!commitmentHolds(response.commitment, entries, response.commitmentKey, this.o.protocol) || !equalBytes(response.contractId, wanted.id.contractId)) {
      this.o.log.warn({ peer: peer.id, commitment: encodeBase58(response.commitment) }, 'confidential data that does not match its commitment dropped');
      return;
    }
    const unit: ConfidentialDataUnit = { commitment: response.commitment, txId: response.txId, contractId: response.contractId, commitmentKey: response.commitmentKey, entries };
    this.o.storage.save(response.type, unit);
    this.wanted.delete(idKey(response));
    this.o.log.debug({ type: response.type, commitment: encodeBase58(response.commitment) }, 'confidential data received');
    if (this.isRecent(unit.txId)) this.announce(response.type, unit);
  }

  /** Whether a call is new enough for its units to be announced (inventory-timestamp-threshold; one not on chain yet is). */
  private isRecent(txId: Uint8Array): boolean {
    const tx = this.o.state().transactionById(txId);
    return tx === undefined || this.now() - Number(tx.timestamp) < this.settings.synchronizer.inventoryTimestampThresholdMs;
  }

  /**
   * Transactions that reached the chain: for each ExecutedContract V4 of a contract this node
   * is a participant of, its output and its call's input are wanted when missing (asked of
   * the group at the next retry).
   */
  noteTransactions(txs: readonly Transaction[]): void {
    for (const tx of txs) {
      if (!ExecutedContract.is(tx) || tx.version !== 4 || tx.data.outputCommitment === undefined) continue;
      const inner = tx.data.tx;
      if (!CallContract.is(inner) || inner.version !== 6 || inner.data.inputCommitment === undefined) continue;
      const contractId = inner.data.contractId;
      if (!this.isParticipant(contractId, this.ownerAddress)) continue;
      this.want({ contractId, commitment: tx.data.outputCommitment, type: 'output' });
      this.want({ contractId, commitment: inner.data.inputCommitment, type: 'input' });
    }
  }

  private want(id: ConfidentialDataId): Wanted | undefined {
    if (this.o.storage.has(id.type, id.commitment)) return undefined;
    const key = idKey(id);
    let wanted = this.wanted.get(key);
    if (wanted === undefined) {
      // Named again (a block, an inventory): a lost unit is tried afresh.
      wanted = this.lost.get(key) ?? { id: { contractId: id.contractId, commitment: id.commitment, type: id.type }, holders: [], tried: new Set(), attempts: 0, nextAt: 0, pending: undefined };
      wanted.attempts = 0;
      wanted.nextAt = 0;
      wanted.tried.clear();
      this.lost.delete(key);
      this.wanted.set(key, wanted);
    }
    return wanted;
  }

  /** Whether an output of the contract that the chain holds is still missing here (its state here would be stale). */
  missingOutputs(contractId: Uint8Array): boolean {
    for (const w of [...this.wanted.values(), ...this.lost.values()]) {
      if (w.id.type === 'output' && equalBytes(w.id.contractId, contractId) && !this.o.storage.has('output', w.id.commitment)) return true;
    }
    return false;
  }

  /** Units given up on for now (tests, logs). */
  get lostCount(): number {
    return this.lost.size;
  }

  /**
   * Asks again for what is still missing, on the synchronizer's schedule: the next known
   * holder that has not failed, else everyone of the group for inventories; a unit tried
   * max-attempt-count times is lost until the next lost-data-processing round.
   */
  private retry(): void {
    const sy = this.settings.synchronizer;
    const now = this.now();
    if (this.lost.size > 0 && now >= this.lostRetryAt) {
      for (const [key, w] of this.lost) {
        w.attempts = 0;
        w.nextAt = 0;
        w.tried.clear();
        this.wanted.set(key, w);
      }
      this.lost.clear();
    }
    for (const [key, wanted] of this.wanted) {
      if (this.o.storage.has(wanted.id.type, wanted.id.commitment)) {
        this.wanted.delete(key);
        continue;
      }
      if (wanted.pending !== undefined) {
        if (now - wanted.pending.since < sy.requestTimeoutMs) continue;
        // No answer in time: that peer failed.
        this.failedPeers.add(wanted.pending.peer, now);
        wanted.pending = undefined;
      }
      if (now < wanted.nextAt) continue;
      if (wanted.attempts >= sy.maxAttemptCount) {
        this.wanted.delete(key);
        if (this.lost.size === 0) this.lostRetryAt = now + sy.lostDataProcessingDelayMs;
        this.lost.set(key, wanted);
        this.o.log.warn({ type: wanted.id.type, commitment: encodeBase58(wanted.id.commitment), attempts: wanted.attempts }, 'confidential data lost for now');
        continue;
      }
      if (this.outstanding() >= sy.crawlingParallelism) break;
      wanted.attempts++;
      wanted.nextAt = now + this.delayAfter(wanted.attempts);
      const connected = this.o.peers.connected();
      const usable = (id: string): ConfidentialPeer | undefined => {
        const p = connected.find((c) => c.id === id);
        return p !== undefined && !this.failedPeers.has(p.id, now) ? p : undefined;
      };
      const next = wanted.holders.filter((h) => !wanted.tried.has(h)).map(usable).find((p) => p !== undefined);
      if (next !== undefined) {
        this.ask(wanted, next);
        continue;
      }
      // Every known holder was asked: start over with them, and look for others.
      wanted.tried.clear();
      for (const peer of this.participantPeers(wanted.id.contractId)) peer.send(Code.InventoryRequest, encodeDataId(wanted.id));
      wanted.nextAt = Math.max(wanted.nextAt, now + sy.inventoryRequestDelayMs);
      const first = wanted.holders.map(usable).find((p) => p !== undefined);
      if (first !== undefined) this.ask(wanted, first);
    }
  }
}
