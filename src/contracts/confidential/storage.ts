/**
 * Where a node keeps confidential contract data (WE's ConfidentialRocksDBStorage, a
 * database apart from the chain's): an LMDB environment of its own at
 * `node.confidential-contracts.data-directory` (default `<node directory>/confidential-data`),
 * every write committed synchronously.
 *
 *   0x01 ‖ commitment             → input unit bytes (data.ts)
 *   0x02 ‖ commitment             → output unit bytes
 *   0x03 ‖ contractId ‖ commitment → (empty): the outputs of a contract
 *
 * Units are immutable (the commitment is the hash of the content): saving one twice keeps
 * the first. Nothing here follows chain rollbacks; what is confidential state at a height
 * is decided by the chain (which 105 V4 carries which output commitment).
 */
import { open, type RootDatabase } from 'lmdb';
import { concatBytes } from '../../protocol/bytes.js';
import type { Protocol } from '../../protocol/protocol.js';
import { decodeUnit, encodeUnit, type ConfidentialDataType, type ConfidentialDataUnit } from './data.js';

const PREFIX: Readonly<Record<ConfidentialDataType, number>> = { input: 0x01, output: 0x02 };
const CONTRACT_OUTPUT = 0x03;

const key = (prefix: number, ...parts: Uint8Array[]): Uint8Array => concatBytes(Uint8Array.of(prefix), ...parts);

export class ConfidentialStorage {

  private constructor(
    private readonly db: RootDatabase<Uint8Array, Uint8Array>,
    private readonly protocol: Protocol,
  ) {}

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


  async close(): Promise<void> {
    await this.db.close();
  }
}
