/**
 * Where a node keeps confidential contract data (WE's ConfidentialRocksDBStorage, a
 * database apart from the chain's): an LMDB environment of its own at
 * `node.confidential-contracts.data-directory` (default `<node directory>/confidential-data`),
 * every write committed synchronously.
 *
 *   0x01 ‖ commitment             → input unit bytes (data.ts)
 *   0x02 ‖ commitment             → output unit bytes
 *   0x03 ‖ contractId ‖ commitment → (empty): the outputs of a contract
 *   0x04 ‖ contractId ‖ dataType ‖ commitment → (empty): units to fetch from the group (pending)
 *   0x05 ‖ contractId ‖ dataType ‖ commitment → (empty): units replication gave up on for now (lost)
 *
 * Units are immutable (the commitment is the hash of the content): saving one twice keeps
 * the first. Nothing here follows chain rollbacks; what is confidential state at a height
 * is decided by the chain (which 105 V4 carries which output commitment). The pending and
 * lost units (WE keeps them in the same database) survive a restart: replication resumes
 * fetching them.
 */
import { open, type RootDatabase } from 'lmdb';
import { concatBytes } from '../../protocol/bytes.js';
import type { Protocol } from '../../protocol/protocol.js';
import { PendingSets } from '../../replication/pending-items.js';
import { DATA_TYPE_BYTE, dataTypeOfByte, decodeUnit, encodeUnit, type ConfidentialDataType, type ConfidentialDataUnit } from './data.js';
import type { ConfidentialDataId } from './messages.js';

const PREFIX: Readonly<Record<ConfidentialDataType, number>> = { input: 0x01, output: 0x02 };
const CONTRACT_OUTPUT = 0x03;
const PENDING = 0x04;
const LOST = 0x05;
const ID = 32;

const key = (prefix: number, ...parts: Uint8Array[]): Uint8Array => concatBytes(Uint8Array.of(prefix), ...parts);

/** A unit's name in the pending and lost keys: contractId ‖ dataType ‖ commitment (a contract's units together, its outputs together). */
const unitName = (id: ConfidentialDataId): Uint8Array => concatBytes(id.contractId, Uint8Array.of(DATA_TYPE_BYTE[id.type]), id.commitment);

const unitOfName = (b: Uint8Array): ConfidentialDataId => ({
  contractId: Uint8Array.from(b.subarray(0, ID)),
  type: dataTypeOfByte(b[ID]!),
  commitment: Uint8Array.from(b.subarray(ID + 1)),
});

export class ConfidentialStorage {
  /** The units replication must fetch (pending) and those it gave up on for now (lost), committed as they change. */
  readonly wanted: PendingSets<ConfidentialDataId>;

  private constructor(
    private readonly db: RootDatabase<Uint8Array, Uint8Array>,
    private readonly protocol: Protocol,
  ) {
    this.wanted = new PendingSets(db, { pendingPrefix: PENDING, lostPrefix: LOST, encode: unitName, decode: unitOfName }, 'sync');
  }

  /** Opens (or creates) the storage at `path`. */
  static open(path: string, protocol: Protocol): ConfidentialStorage {
    const db = open<Uint8Array, Uint8Array>({ path, keyEncoding: 'binary', encoding: 'binary', compression: false, noSync: false, overlappingSync: false });
    return new ConfidentialStorage(db, protocol);
  }

  get(type: ConfidentialDataType, commitment: Uint8Array): ConfidentialDataUnit | undefined {
    const bytes = this.db.get(key(PREFIX[type], commitment));
    return bytes === undefined ? undefined : decodeUnit(Uint8Array.from(bytes), this.protocol);
  }

  has(type: ConfidentialDataType, commitment: Uint8Array): boolean {
    return this.db.doesExist(key(PREFIX[type], commitment));
  }

  /** Saves a unit (a second save of the same commitment keeps the first). */
  save(type: ConfidentialDataType, unit: ConfidentialDataUnit): void {
    const k = key(PREFIX[type], unit.commitment);
    if (this.db.doesExist(k)) return;
    this.db.transactionSync(() => {
      void this.db.put(k, encodeUnit(unit, this.protocol));
      if (type === 'output') void this.db.put(key(CONTRACT_OUTPUT, unit.contractId, unit.commitment), new Uint8Array(0));
    });
  }

  /** The output commitments stored for a contract. */
  outputsOf(contractId: Uint8Array): Uint8Array[] {
    const start = key(CONTRACT_OUTPUT, contractId);
    const end = key(CONTRACT_OUTPUT, contractId, new Uint8Array(33).fill(0xff));
    return [...this.db.getKeys({ start, end })].map((k) => Uint8Array.from(k.subarray(1 + contractId.length)));
  }

  /** The output units of a contract that are pending or lost (not fetched yet). */
  wantedOutputsOf(contractId: Uint8Array): ConfidentialDataId[] {
    const outputs = concatBytes(contractId, Uint8Array.of(DATA_TYPE_BYTE.output));
    return [...this.wanted.listed('pending', outputs), ...this.wanted.listed('lost', outputs)];
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
