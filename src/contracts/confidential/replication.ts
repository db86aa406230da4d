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
 * - A unit still missing is asked again every `retryMs`, of the next holder known, and of
 *   every participant peer with an inventory request (54) when no holder is known; a peer
 *   holding the unit answers 54 with its own inventory.
 *
 * - A block or micro-block holding a 105 V4 of a contract this node is a participant of makes
 *   its output and its call's input wanted when missing (`noteTransactions`); the miner
 *   leaves a contract's confidential calls in the pool while an output of it is missing.
 *
 * Not done (WE has them): pending/lost queues that survive a restart, the per-request
 * timeout bookkeeping of WE's synchronizer, caches.
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
  /** How often a missing unit is asked again (ms). */
  readonly retryMs?: number;
}

interface Wanted {
  readonly id: ConfidentialDataId;
  /** Peer ids known to hold it, in the order they announced it. */
  readonly holders: string[];
  /** Peer ids already asked without success. */
  readonly tried: Set<string>;
}

const idKey = (id: ConfidentialDataId): string => `${id.type}:${bytesKey(id.commitment)}`;
const MAX_SEEN = 100_000;

export class ConfidentialReplication {
  private readonly wanted = new Map<string, Wanted>();
  private readonly seen = new Set<string>();
  private readonly ownerAddress: Uint8Array;
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;

  constructor(private readonly o: ConfidentialReplicationOptions) {
    this.ownerAddress = o.protocol.addresses.fromPublicKey(o.owner.publicKey).bytes;
  }

  start(): void {
    this.stopListening = this.o.peers.onMessage((peer, code, payload) => {
      try {
        this.onMessage(peer, code, payload);
      } catch (e) {
        this.o.log.warn({ peer: peer.id, code, err: e instanceof Error ? e.message : String(e) }, 'confidential contract message dropped');
      }
    });
    this.timer = setInterval(() => this.retry(), this.o.retryMs ?? 2000);
    this.timer.unref();
  }

  stop(): void {
    this.stopListening?.();
    if (this.timer !== undefined) clearInterval(this.timer);
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
    this.markSeen(bytesKey(this.o.protocol.crypto.fastHash(inventorySignedBytes(this.o.protocol, inventory.senderPublicKey, inventory))));
    const payload = encodeInventory(inventory);
    for (const peer of this.participantPeers(unit.contractId)) peer.send(Code.Inventory, payload);
  }

  private markSeen(key: string): boolean {
    if (this.seen.has(key)) return false;
    if (this.seen.size >= MAX_SEEN) this.seen.clear();
    this.seen.add(key);
    return true;
  }

  private onMessage(peer: ConfidentialPeer, code: number, payload: Uint8Array): void {
    switch (code) {
      case Code.Inventory:
        return this.onInventory(peer, payload);
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

  private onInventory(peer: ConfidentialPeer, payload: Uint8Array): void {
    const { protocol } = this.o;
    const inventory = decodeInventory(payload, protocol.crypto.publicKeyLength);
    if (!this.markSeen(bytesKey(protocol.crypto.fastHash(inventorySignedBytes(protocol, inventory.senderPublicKey, inventory))))) return;
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
    if (!wanted.tried.has(holder.id)) this.ask(wanted, holder);
  }

  private ask(wanted: Wanted, peer: ConfidentialPeer): void {
    wanted.tried.add(peer.id);
    peer.send(Code.DataRequest, encodeDataId(wanted.id));
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
    const plain = entriesBytes(unit.entries, this.o.protocol);
    const keys = peer.sessionKeys;
    let data = plain;
    if (keys !== undefined) {
      const sealed = this.o.transport.encrypt(plain, keys.own.privateKey, keys.peer);
      data = encodeSealed(sealed.wrappedKey, sealed.encrypted);
    }
    peer.send(Code.DataResponse, encodeDataResponse({ kind: 'data', ...id, txId: unit.txId, commitmentKey: unit.commitmentKey, data }));
  }

  private onResponse(peer: ConfidentialPeer, payload: Uint8Array): void {
    const response = decodeDataResponse(payload);
    const wanted = this.wanted.get(idKey(response));
    if (wanted === undefined) return;
    if (response.kind === 'no-data') return;
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
    this.announce(response.type, unit);
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
      wanted = { id: { contractId: id.contractId, commitment: id.commitment, type: id.type }, holders: [], tried: new Set() };
      this.wanted.set(key, wanted);
    }
    return wanted;
  }

  /** Whether an output of the contract that the chain holds is still missing here (its state here would be stale). */
  missingOutputs(contractId: Uint8Array): boolean {
    for (const w of this.wanted.values()) {
      if (w.id.type === 'output' && equalBytes(w.id.contractId, contractId) && !this.o.storage.has('output', w.id.commitment)) return true;
    }
    return false;
  }

  /** Asks again for what is still missing: the next known holder, else everyone of the group for inventories. */
  private retry(): void {
    for (const [key, wanted] of this.wanted) {
      if (this.o.storage.has(wanted.id.type, wanted.id.commitment)) {
        this.wanted.delete(key);
        continue;
      }
      const connected = this.o.peers.connected();
      const next = wanted.holders.map((h) => connected.find((p) => p.id === h)).find((p) => p !== undefined && !wanted.tried.has(p.id));
      if (next !== undefined) {
        this.ask(wanted, next);
        continue;
      }
      // Every known holder was asked: start over with them, and look for others.
      wanted.tried.clear();
      for (const peer of this.participantPeers(wanted.id.contractId)) peer.send(Code.InventoryRequest, encodeDataId(wanted.id));
      const first = wanted.holders.map((h) => connected.find((p) => p.id === h)).find((p) => p !== undefined);
      if (first !== undefined) this.ask(wanted, first);
    }
  }
}
