/**
 * The data of confidential contract calls (WE's Commitment, ConfidentialInput,
 * ConfidentialOutput, ConfidentialDataUtils), byte for byte:
 *
 * - entries bytes: u16 count ‖ the entries sorted by key, each in contract form
 *   (ConfidentialDataUtils.entriesToBytes);
 * - commitment = secureHash(entries bytes ‖ salt); the salt ("commitmentKey") is 32 random
 *   bytes; a call's output reuses its input's salt;
 * - a unit (input or output) as stored: SHORT(commitment) ‖ SHORT(txId) ‖ SHORT(contractId)
 *   ‖ SHORT(commitmentKey) ‖ entries bytes (ConfidentialDataUnit.toBytes);
 * - its JSON as Play writes the case class: `contractId` and `commitmentKey` are objects
 *   (`{"byteStr": …}`, `{"bytes": …}`), the other byte strings Base58.
 */
import { encodeBase58, equalBytes } from '../../crypto/encoding.js';
import { ByteReader, ByteWriter, concatBytes } from '../../protocol/bytes.js';
import type { JsonObject } from '../../protocol/json.js';
import type { Protocol } from '../../protocol/protocol.js';
import { CONTRACT_DATA_ENTRY, type DataEntry } from '../../protocol/transactions/fields.js';
import { writeSortedEntries } from '../../protocol/transactions/contracts.js';
import { DecodeError } from '../../errors/catalogue.js';

/** crypto ConfidentialContractsCommitmentSaltLength. */
export const COMMITMENT_KEY_LENGTH = 32;

/** Which half of a confidential call a unit is (WE's ConfidentialDataType byte). */
export type ConfidentialDataType = 'input' | 'output';
export const DATA_TYPE_BYTE: Readonly<Record<ConfidentialDataType, number>> = { input: 0, output: 1 };

export function dataTypeOfByte(b: number): ConfidentialDataType {
  if (b === 0) return 'input';
  if (b === 1) return 'output';
  throw new DecodeError(`Unknown confidential data type ${b}`, 'dataType');
}

/** A confidential call's params (input) or results (output), with the commitment that goes on chain. */
export interface ConfidentialDataUnit {
  readonly commitment: Uint8Array;
  /** The CallContract (104 V6) the unit belongs to. */
  readonly txId: Uint8Array;
  readonly contractId: Uint8Array;
  readonly commitmentKey: Uint8Array;
  readonly entries: readonly DataEntry[];
}

/** ConfidentialDataUtils.entriesToBytes. */
export function entriesBytes(entries: readonly DataEntry[], p: Protocol): Uint8Array {
  const w = new ByteWriter(64).u16(entries.length);
  writeSortedEntries(w, entries, p);
  return w.result();
}

/** ConfidentialDataUtils.fromBytes. */
export function entriesFromBytes(bytes: Uint8Array, p: Protocol): DataEntry[] {
  const r = new ByteReader(bytes);
  const entries = readEntries(r, p);
  if (r.remaining !== 0) throw new DecodeError(`${r.remaining} bytes after the entries`, 'entries');
  return entries;
}

function readEntries(r: ByteReader, p: Protocol): DataEntry[] {
  const out: DataEntry[] = [];
  for (let n = r.u16('entries'); n > 0; n--) out.push(CONTRACT_DATA_ENTRY.read(r, p, 'entries'));
  return out;
}

/** Commitment.create: secureHash(data ‖ salt). */
export function commitmentOf(data: Uint8Array, commitmentKey: Uint8Array, p: Protocol): Uint8Array {
  return p.crypto.secureHash(concatBytes(data, commitmentKey));
}

/** The commitment of a list of entries under a key. */
export const entriesCommitment = (entries: readonly DataEntry[], commitmentKey: Uint8Array, p: Protocol): Uint8Array =>
  commitmentOf(entriesBytes(entries, p), commitmentKey, p);

/** Commitment.validate. */
export const commitmentHolds = (commitment: Uint8Array, entries: readonly DataEntry[], commitmentKey: Uint8Array, p: Protocol): boolean =>
  equalBytes(commitment, entriesCommitment(entries, commitmentKey, p));

/** ConfidentialDataUnit.toBytes. */
export function encodeUnit(u: ConfidentialDataUnit, p: Protocol): Uint8Array {
  const w = new ByteWriter(128).shortBytes(u.commitment).shortBytes(u.txId).shortBytes(u.contractId).shortBytes(u.commitmentKey);
  return concatBytes(w.result(), entriesBytes(u.entries, p));
}

/** ConfidentialInput/Output.fromBytes. */
export function decodeUnit(bytes: Uint8Array, p: Protocol): ConfidentialDataUnit {
  const r = new ByteReader(bytes);
  const commitment = r.shortBytes('commitment');
  const txId = r.shortBytes('txId');
  const contractId = r.shortBytes('contractId');
  const commitmentKey = r.shortBytes('commitmentKey');
  return { commitment, txId, contractId, commitmentKey, entries: readEntries(r, p) };
}

/** The unit's JSON (WE's Json.format of ConfidentialInput / ConfidentialOutput). */
export function unitJson(u: ConfidentialDataUnit, p: Protocol): JsonObject {
  return {
    commitment: encodeBase58(u.commitment),
    txId: encodeBase58(u.txId),
    contractId: { byteStr: encodeBase58(u.contractId) },
    commitmentKey: { bytes: encodeBase58(u.commitmentKey) },
    entries: u.entries.map((e) => CONTRACT_DATA_ENTRY.toJson(e, p) as JsonObject),
  };
}
