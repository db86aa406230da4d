/**
 * The P2P messages of confidential contract data (WE's MessageSpec codes 52–55), byte for
 * byte; payloads only (the network layer frames them). Contract ids, commitments and tx ids
 * are 32 bytes, the commitment key 32, a public key the crypto suite's length, a signature
 * 64; integers big-endian; data type 0 input, 1 output.
 *
 *   52 ConfidentialDataRequest    contractId ‖ commitment ‖ dataType
 *   53 ConfidentialDataResponse   0 ‖ contractId ‖ commitment ‖ dataType                       (no data)
 *                                 1 ‖ contractId ‖ txId ‖ commitmentKey ‖ commitment ‖ dataType ‖ u32 len ‖ data
 *                                 where data = entries bytes (TLS channel) or, on a plain
 *                                 channel, wrappedKey ‖ u32 len ‖ ciphertext of them
 *   54 ConfidentialInventoryRequest contractId ‖ commitment ‖ dataType
 *   55 ConfidentialInventory      senderPublicKey ‖ contractId ‖ commitment ‖ dataType ‖ signature
 *
 * An inventory is signed over senderAddress(26) ‖ contractId ‖ commitment ‖ dataType.
 * Decoders check lengths exactly and throw DecodeError on bad input.
 */
import type { KeyPair } from '../../crypto/suite.js';
import type { Protocol } from '../../protocol/protocol.js';
import { DecodeError } from '../../errors/catalogue.js';
import { ByteReader, ByteWriter, concatBytes } from '../../protocol/bytes.js';
import { COMMITMENT_KEY_LENGTH, DATA_TYPE_BYTE, dataTypeOfByte, type ConfidentialDataType } from './data.js';

export const ConfidentialMessageCode = {
  DataRequest: 52,
  DataResponse: 53,
  InventoryRequest: 54,
  Inventory: 55,
} as const;

const ID = 32;
const SIGNATURE_LENGTH = 64;
/** WE's ConfidentialDataResponseSpec.maxLength: digest + 1 + commitment key + 1 MiB (the network layer's cap on 53). */
export const MAX_CONFIDENTIAL_DATA_RESPONSE = ID + 1 + COMMITMENT_KEY_LENGTH + 1024 * 1024;

/** What a request, an inventory request and a no-data answer name. */
export interface ConfidentialDataId {
  readonly contractId: Uint8Array;
  readonly commitment: Uint8Array;
  readonly type: ConfidentialDataType;
}

const bad = (code: number, message: string): DecodeError => new DecodeError(`Malformed message ${code}: ${message}`, `message(${code})`);

function checkId(id: ConfidentialDataId): void {
  if (id.contractId.length !== ID || id.commitment.length !== ID) throw new RangeError('a contract id and a commitment are 32 bytes each');
}

/** 52 and 54. */
export function encodeDataId(id: ConfidentialDataId): Uint8Array {
  checkId(id);
  return concatBytes(id.contractId, id.commitment, Uint8Array.of(DATA_TYPE_BYTE[id.type]));
}

function readDataId(code: number, b: Uint8Array, at: number): ConfidentialDataId {
  if (b.length < at + ID + ID + 1) throw bad(code, `${b.length} bytes, too short`);
  const type = b[at + ID + ID]!;
  if (type !== 0 && type !== 1) throw bad(code, `unknown data type ${type}`);
  return { contractId: b.slice(at, at + ID), commitment: b.slice(at + ID, at + 2 * ID), type: dataTypeOfByte(type) };
}

export function decodeDataId(code: number, b: Uint8Array): ConfidentialDataId {
  if (b.length !== ID + ID + 1) throw bad(code, `${b.length} bytes, expected ${ID + ID + 1}`);
  return readDataId(code, b, 0);
}

/** A 53 answer. */
export type ConfidentialDataResponse =
  | ({ readonly kind: 'no-data' } & ConfidentialDataId)
  | ({ readonly kind: 'data'; readonly txId: Uint8Array; readonly commitmentKey: Uint8Array; readonly data: Uint8Array } & ConfidentialDataId);

export function encodeDataResponse(r: ConfidentialDataResponse): Uint8Array {
  if (r.kind === 'no-data') return concatBytes(Uint8Array.of(0), encodeDataId(r));
  checkId(r);
  if (r.txId.length !== ID || r.commitmentKey.length !== COMMITMENT_KEY_LENGTH) throw new RangeError('a tx id and a commitment key are 32 bytes each');
  return new ByteWriter(1 + 4 * ID + 5 + r.data.length)
    .u8(1)
    .bytes(r.contractId)
    .bytes(r.txId)
    .bytes(r.commitmentKey)
    .bytes(r.commitment)
    .u8(DATA_TYPE_BYTE[r.type])
    .longBytes(r.data)
    .result();
}

/**
 * The length of a 53 carrying `dataLength` bytes of entries: in clear (TLS, `sealing`
 * undefined) or sealed (the wrapped key, the length and what the encryption adds).
 */
export function dataResponseLength(dataLength: number, sealing: { readonly wrappedKeyLength: number; readonly sealOverhead: number } | undefined): number {
  const head = 1 + 3 * ID + COMMITMENT_KEY_LENGTH + 1 + 4;
  return sealing === undefined ? head + dataLength : head + sealing.wrappedKeyLength + 4 + dataLength + sealing.sealOverhead;
}

export function decodeDataResponse(b: Uint8Array): ConfidentialDataResponse {
  const code = ConfidentialMessageCode.DataResponse;
  if (b.length === 0) throw bad(code, 'empty');
  if (b[0] === 0) {
    if (b.length !== 1 + ID + ID + 1) throw bad(code, `${b.length} bytes for a no-data answer`);
    return { kind: 'no-data', ...readDataId(code, b, 1) };
  }
  if (b[0] !== 1) throw bad(code, `unknown flag ${b[0]}`);
  const head = 1 + ID + ID + COMMITMENT_KEY_LENGTH + ID + 1 + 4;
  if (b.length < head) throw bad(code, `${b.length} bytes, too short`);
  const contractId = b.slice(1, 1 + ID);
  const txId = b.slice(1 + ID, 1 + 2 * ID);
  const commitmentKey = b.slice(1 + 2 * ID, 1 + 2 * ID + COMMITMENT_KEY_LENGTH);
  const commitment = b.slice(1 + 2 * ID + COMMITMENT_KEY_LENGTH, 1 + 3 * ID + COMMITMENT_KEY_LENGTH);
  const type = b[head - 5]!;
  if (type !== 0 && type !== 1) throw bad(code, `unknown data type ${type}`);
  const length = new ByteReader(b.subarray(head - 4, head)).i32('length') >>> 0;
  if (b.length !== head + length) throw bad(code, `data length ${length} does not match the ${b.length - head} bytes that follow`);
  return { kind: 'data', contractId, txId, commitmentKey, commitment, type: dataTypeOfByte(type), data: b.slice(head) };
}

/** The encrypted form of a 53's data on a plain channel: wrappedKey ‖ u32 len ‖ ciphertext. */
export function encodeSealed(wrappedKey: Uint8Array, encrypted: Uint8Array): Uint8Array {
  return new ByteWriter(wrappedKey.length + 4 + encrypted.length).bytes(wrappedKey).longBytes(encrypted).result();
}

export function decodeSealed(b: Uint8Array, wrappedKeyLength: number): { wrappedKey: Uint8Array; encrypted: Uint8Array } {
  const code = ConfidentialMessageCode.DataResponse;
  if (b.length < wrappedKeyLength + 4) throw bad(code, 'encrypted data too short');
  const length = new ByteReader(b.subarray(wrappedKeyLength, wrappedKeyLength + 4)).i32('length') >>> 0;
  if (b.length !== wrappedKeyLength + 4 + length) throw bad(code, 'encrypted data length does not match');
  return { wrappedKey: b.slice(0, wrappedKeyLength), encrypted: b.slice(wrappedKeyLength + 4) };
}

/** A 55. */
export interface ConfidentialInventory extends ConfidentialDataId {
  readonly senderPublicKey: Uint8Array;
  readonly signature: Uint8Array;
}

/** The bytes an inventory's signature covers. */
export function inventorySignedBytes(p: Protocol, senderPublicKey: Uint8Array, id: ConfidentialDataId): Uint8Array {
  return concatBytes(p.addresses.fromPublicKey(senderPublicKey).bytes, encodeDataId(id));
}

export function signInventory(p: Protocol, sender: KeyPair, id: ConfidentialDataId): ConfidentialInventory {
  return { ...id, senderPublicKey: sender.publicKey, signature: p.crypto.sign(sender.privateKey, inventorySignedBytes(p, sender.publicKey, id)) };
}

export function inventoryValid(p: Protocol, inv: ConfidentialInventory): boolean {
  return p.crypto.verify(inv.senderPublicKey, inventorySignedBytes(p, inv.senderPublicKey, inv), inv.signature);
}

export function encodeInventory(inv: ConfidentialInventory): Uint8Array {
  return concatBytes(inv.senderPublicKey, encodeDataId(inv), inv.signature);
}

export function decodeInventory(b: Uint8Array, publicKeyLength: number): ConfidentialInventory {
  const code = ConfidentialMessageCode.Inventory;
  const expected = publicKeyLength + ID + ID + 1 + SIGNATURE_LENGTH;
  if (b.length !== expected) throw bad(code, `${b.length} bytes, expected ${expected}`);
  const id = readDataId(code, b, publicKeyLength);
  return { ...id, senderPublicKey: b.slice(0, publicKeyLength), signature: b.slice(expected - SIGNATURE_LENGTH) };
}
