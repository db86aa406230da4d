/**
 * Confidential contract data among the group (WE's ConfidentialDataInventoryBroadcaster,
 * ConfidentialDataInventoryHandler, ConfidentialDataReplier, ConfidentialDataSynchronizer):
 * the replication engine (src/replication) with this scheme —
 *
 * - a unit is named by its contract, commitment and type (input or output); its group is
 *   the contract's group participants (a contract that is not confidential has none):
 *   inventories are taken from them, they are announced to, asked and served (a peer that
 *   is also a registered participant);
 * - the wire is WE's messages 52–55 (messages.ts): a request (52) is answered (53) with the
 *   unit's entries bytes, sealed with the connection's session keys on a plain connection
 *   (in clear inside TLS), or "no data" — also for a unit whose answer would exceed the
 *   53's 1 MiB cap, which no connection carries;
 * - an answer is kept only when its entries hash to the commitment under its key;
 * - a node that saved a unit (its own call's input, a miner's output) announces it (55);
 *   a participant node that lacks a unit announced to it fetches it; a block or
 *   micro-block holding a 105 V4 of a contract this node is a participant of makes its
 *   output and its call's input wanted when missing (`noteTransactions`). Wanted units are
 *   kept in the confidential storage's pending set: a restarted node resumes fetching them;
 *   a rollback of the 105 takes them out again (`noteRollback`). The miner leaves a
 *   contract's confidential calls in the pool while an output of it is missing
 *   (`missingOutputs`).
 *
 * Settings (`node.confidential-contracts`, settings.ts) are the engine's, as WE uses them:
 * inventories are taken in batches (`inventory-handler.max-buffer-size`, `max-buffer-time`);
 * `inventory-handler.replier-parallelism` has no use here (inventory requests are answered
 * as they come).
 */
import { bytesKey, encodeBase58, equalBytes } from '../../crypto/encoding.js';
import type { KeyPair } from '../../crypto/suite.js';
import type { TransportEncryption } from '../../crypto/transport-encryption.js';
import type { Protocol } from '../../protocol/protocol.js';
import { CallContract, ExecutedContract } from '../../protocol/transactions/contracts.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import { ReplicationEngine } from '../../replication/engine.js';
import type { ReplicationPeer, ReplicationPeers } from '../../replication/peers.js';
import type { ReplicationScheme } from '../../replication/scheme.js';
import { isGroupParticipant } from '../../state/contract-info.js';
import type { StateView } from '../../state/view.js';
import { commitmentHolds, entriesBytes, entriesFromBytes, type ConfidentialDataType, type ConfidentialDataUnit } from './data.js';
import {
  ConfidentialMessageCode as Code,
  dataResponseLength,
  decodeDataId,
  decodeDataResponse,
  decodeInventory,
  decodeSealed,
  encodeDataId,
  encodeDataResponse,
  encodeInventory,
  encodeSealed,
  inventorySignedBytes,
  MAX_CONFIDENTIAL_DATA_RESPONSE,
  signInventory,
  type ConfidentialDataId,
} from './messages.js';
import type { ConfidentialStorage } from './storage.js';
import { CONFIDENTIAL_CONTRACTS_DEFAULTS, type ConfidentialContractsSettings } from './settings.js';

/** A connected peer as replication sees it (the network's privacy peer view fits). */
export type ConfidentialPeer = ReplicationPeer;
export type ConfidentialPeers = ReplicationPeers;

export interface ConfidentialReplicationOptions {
  readonly protocol: Protocol;
  /** The units, and the pending and lost sets replication keeps beside them. */
  readonly storage: ConfidentialStorage;
  readonly owner: KeyPair;
  state(): StateView;
  readonly peers: ConfidentialPeers;
  /** How plain connections seal units (the network's crypto's by default). */
  readonly transport?: TransportEncryption;
  readonly log: { debug(o: object, m: string): void; info?(o: object, m: string): void; warn(o: object, m: string): void };
  /** `node.confidential-contracts` (absent: WE's defaults). */
  readonly settings?: ConfidentialContractsSettings;
  /** Milliseconds now (tests). */
  readonly now?: () => number;
}

/** Every unit travels in one answer. */
type UnitForm = 'unit';
/** What a 53 carries beside the entries. */
interface UnitHead {
  readonly txId: Uint8Array;
  readonly commitmentKey: Uint8Array;
}

const unitText = (id: ConfidentialDataId): string => `${encodeBase58(id.contractId)}/${id.type}/${bytesKey(id.commitment)}`;
const idOf = (id: ConfidentialDataId): ConfidentialDataId => ({ contractId: id.contractId, commitment: id.commitment, type: id.type });

export class ConfidentialReplication {
  private readonly engine: ReplicationEngine<ConfidentialDataId, UnitForm, UnitHead>;
  private readonly rollbackListeners = new Set<(ids: readonly ConfidentialDataId[]) => void>();
  private readonly ownerAddress: Uint8Array;
  private readonly settings: ConfidentialContractsSettings;
  private readonly now: () => number;

  constructor(private readonly o: ConfidentialReplicationOptions) {
    this.ownerAddress = o.protocol.addresses.fromPublicKey(o.owner.publicKey).bytes;
    this.settings = o.settings ?? CONFIDENTIAL_CONTRACTS_DEFAULTS;
    this.now = o.now ?? Date.now;
    const log = o.log;
    this.engine = new ReplicationEngine({
      scheme: this.scheme(),
      protocol: o.protocol,
      settings: this.settings,
      owner: o.owner,
      peers: o.peers,
      pending: o.storage.wanted,
      rollbacks: {
        onRollback: (listener) => {
          this.rollbackListeners.add(listener);
          return () => this.rollbackListeners.delete(listener);
        },
      },
      log: { debug: (obj, m) => log.debug(obj, m), info: (obj, m) => (log.info ?? log.debug).call(log, obj, m), warn: (obj, m) => log.warn(obj, m) },
      batchInventories: true,
      ...(o.transport === undefined ? {} : { transport: o.transport }),
      ...(o.now === undefined ? {} : { clock: o.now }),
    });
  }

  /** The group of a unit: the contract's group participants (none when it is unknown or not confidential). */
  private members(contractId: Uint8Array): readonly Uint8Array[] {
    const info = this.o.state().contract(contractId);
    return info?.isConfidential === true ? info.groupParticipants.map((a) => a.bytes) : [];
  }

  private isParticipant(contractId: Uint8Array, address: Uint8Array): boolean {
    const info = this.o.state().contract(contractId);
    return info?.isConfidential === true && isGroupParticipant(info, address);
  }

  private scheme(): ReplicationScheme<ConfidentialDataId, UnitForm, UnitHead> {
    const { protocol: p, storage } = this.o;
    return {
      words: { family: 'confidential contract', strictItem: 'confidential data unit', group: "the contract's group", answer: 'ConfidentialDataResponse' },
      text: unitText,
      members: (id) => this.members(id.contractId),
      mayHold: (address, id) => this.isParticipant(id.contractId, address),
      registered: (address) => this.o.state().participant(address) !== undefined,
      requests: { data: Code.DataRequest, inventory: Code.InventoryRequest, encode: encodeDataId, decode: decodeDataId },
      inventories: {
        codes: [Code.Inventory],
        sign: (id, _, signer) => {
          const inventory = signInventory(p, signer, id);
          return { code: Code.Inventory, payload: encodeInventory(inventory), signedBytes: inventorySignedBytes(p, inventory.senderPublicKey, inventory) };
        },
        decode: (_, payload) => {
          const inventory = decodeInventory(payload, p.crypto.publicKeyLength);
          return {
            key: idOf(inventory),
            kind: 'unit',
            senderPublicKey: inventory.senderPublicKey,
            signedBytes: inventorySignedBytes(p, inventory.senderPublicKey, inventory),
            signature: inventory.signature,
          };
        },
      },
      answers: {
        code: Code.DataResponse,
        maxLength: MAX_CONFIDENTIAL_DATA_RESPONSE,
        noData: (id) => encodeDataResponse({ kind: 'no-data', ...idOf(id) }),
        length: (_, contentLength, sealing) => dataResponseLength(contentLength, sealing),
        encode: (id, head, content) =>
          encodeDataResponse({
            kind: 'data',
            ...idOf(id),
            ...head,
            data: content instanceof Uint8Array ? content : encodeSealed(content.wrappedKey, content.encrypted),
          }),
        decode: (payload, wrappedKeyLength) => {
          const r = decodeDataResponse(payload);
          if (r.kind === 'no-data') return { key: idOf(r), found: false };
          return {
            key: idOf(r),
            found: true,
            head: { txId: r.txId, commitmentKey: r.commitmentKey },
            content: wrappedKeyLength === undefined ? r.data : decodeSealed(r.data, wrappedKeyLength),
          };
        },
      },
      store: {
        exists: (id) => Promise.resolve(storage.has(id.type, id.commitment)),
        kindOf: () => Promise.resolve('unit'),
        readStrict: (id) => {
          const unit = storage.get(id.type, id.commitment);
          if (unit === undefined || !equalBytes(unit.contractId, id.contractId)) return Promise.resolve(undefined);
          const content = entriesBytes(unit.entries, p);
          return Promise.resolve({ head: { txId: unit.txId, commitmentKey: unit.commitmentKey }, content, dataBytes: content.length });
        },
        saveStrict: (id, head, content) => {
          const entries = entriesFromBytes(content, p);
          if (!commitmentHolds(id.commitment, entries, head.commitmentKey, p)) {
            this.o.log.warn({ commitment: encodeBase58(id.commitment) }, 'confidential data that does not match its commitment dropped');
            return Promise.reject(new Error('the entries do not match their commitment'));
          }
          if (storage.has(id.type, id.commitment)) return Promise.resolve(undefined);
          storage.save(id.type, { commitment: id.commitment, txId: head.txId, contractId: id.contractId, commitmentKey: head.commitmentKey, entries });
          return Promise.resolve(content.length);
        },
      },
      announceFetched: (id) => this.isRecent(id),
      wantsAnnounced: (id) => this.isParticipant(id.contractId, this.ownerAddress),
    };
  }

  /** Whether a unit's call is new enough for the unit to be announced on (inventory-timestamp-threshold; a call not on chain yet is). */
  private isRecent(id: ConfidentialDataId): boolean {
    const unit = this.o.storage.get(id.type, id.commitment);
    const tx = unit === undefined ? undefined : this.o.state().transactionById(unit.txId);
    return tx === undefined || this.now() - Number(tx.timestamp) < this.settings.synchronizer.inventoryTimestampThresholdMs;
  }

  start(): void {
    this.engine.start();
  }

  stop(): void {
    this.engine.close();
  }

  /** Tells the group's peers this node holds `unit`. */
  announce(type: ConfidentialDataType, unit: ConfidentialDataUnit): void {
    this.engine.announce({ contractId: unit.contractId, commitment: unit.commitment, type }, 'unit');
  }

  /**
   * Transactions that reached the chain: for each ExecutedContract V4 of a contract this node
   * is a participant of, its output and its call's input join the pending set when missing
   * (fetched from the group at once, and after a restart).
   */
  noteTransactions(txs: readonly Transaction[]): void {
    const wanted = this.unitsOf(txs).filter((id) => !this.o.storage.has(id.type, id.commitment));
    // The sets commit before addToPending returns: the miner's next look sees them.
    if (wanted.length > 0)
      this.o.storage.wanted
        .addToPending(wanted)
        .catch((e: unknown) => this.o.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'recording confidential data to fetch failed'));
  }

  /**
   * Transactions a rollback took off the chain (WE's confidentialDataRollbacks): the units
   * of their ExecutedContract V4s are no longer wanted — their downloads stop, and they
   * leave the pending and lost sets (units already stored stay). Mined again, they are
   * wanted again.
   */
  noteRollback(removed: readonly Transaction[]): void {
    const ids = this.unitsOf(removed);
    if (ids.length === 0) return;
    for (const l of this.rollbackListeners) l(ids);
    for (const id of ids)
      this.o.storage.wanted
        .removeFromPendingAndLost(id)
        .catch((e: unknown) => this.o.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'forgetting rolled-back confidential data failed'));
  }

  /** The output and input of each ExecutedContract V4 among `txs` of a contract this node is a participant of. */
  private unitsOf(txs: readonly Transaction[]): ConfidentialDataId[] {
    const out: ConfidentialDataId[] = [];
    for (const tx of txs) {
      if (!ExecutedContract.is(tx) || tx.version !== 4 || tx.data.outputCommitment === undefined) continue;
      const inner = tx.data.tx;
      if (!CallContract.is(inner) || inner.version !== 6 || inner.data.inputCommitment === undefined) continue;
      const contractId = inner.data.contractId;
      if (!this.isParticipant(contractId, this.ownerAddress)) continue;
      out.push({ contractId, commitment: tx.data.outputCommitment, type: 'output' }, { contractId, commitment: inner.data.inputCommitment, type: 'input' });
    }
    return out;
  }

  /** Whether an output of the contract that the chain holds is still missing here (its state here would be stale). */
  missingOutputs(contractId: Uint8Array): boolean {
    return this.o.storage.wantedOutputsOf(contractId).some((id) => !this.o.storage.has('output', id.commitment));
  }

  /** Units given up on for now (tests, logs). */
  get lostCount(): number {
    return this.o.storage.wanted.lost().length;
  }

  /** How many units the cache of served units holds now (tests). */
  get servedCacheSize(): number {
    return this.engine.replier.cachedItems;
  }
}
