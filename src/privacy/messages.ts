/**
 * The P2P messages of confidential data (WE's MessageSpec: codes 30, 31, 39, 40, 44;
 * reference §4.2), byte for byte. These are payloads: the frame around them (magic, code,
 * length, checksum) is the network layer's. Integers are big-endian; a policy id and a
 * data hash are 32 bytes each, a public key the crypto suite's length (32 `waves`, 64
 * `gost`), a signature 64 bytes, a wrapped key 48 bytes (`waves`) or 96 (`gost`; the
 * network's transport encryption, crypto/transport-encryption.ts, says which).
 *
 *   30 PrivateDataRequest   policyId ‖ dataHash
 *   31 PrivateDataResponse  policyId ‖ dataHash ‖ 0                                  (no data)
 *                           policyId ‖ dataHash ‖ 1 ‖ u32 len ‖ payload               (TLS channel)
 *                           policyId ‖ dataHash ‖ 1 ‖ wrappedKey ‖ u32 len ‖ ciphertext (plain channel)
 *                           where payload = u32 dataLen ‖ data ‖ metaBytes (item.ts)
 *   39 PrivacyInventoryV1   senderPublicKey ‖ policyId ‖ dataHash ‖ signature
 *   40 PrivacyInventoryRequest policyId ‖ dataHash
 *   44 PrivacyInventoryV2   senderPublicKey ‖ policyId ‖ dataHash ‖ dataType ‖ signature
 *
 * An inventory is signed by its sender over senderAddress(26) ‖ policyId ‖ dataHash
 * (‖ dataType in V2); its id (for dropping repeats) is the fast hash of those bytes.
 * Every decoder checks lengths exactly and throws MalformedPrivacyMessage on bad input.
 */
import { concatBytes } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import type { Protocol } from '../protocol/protocol.js';
import { dataTypeOfByte, DATA_TYPE_BYTE, decodeItemMeta, encodeItemMeta, type PolicyItemMeta, type PrivacyDataType } from './item.js';
import { DecodeError } from '../errors/catalogue.js';

export const PrivacyMessageCode = {
  PrivateDataRequest: 30,
  PrivateDataResponse: 31,
  PrivacyInventoryV1: 39,
  PrivacyInventoryRequest: 40,
  PrivacyInventoryV2: 44,
} as const;
export type PrivacyMessageCode = (typeof PrivacyMessageCode)[keyof typeof PrivacyMessageCode];

export const POLICY_ID_LENGTH = 32;
export const DATA_HASH_LENGTH = 32;
const SIGNATURE_LENGTH = 64;
/** WE's WrappedStructureLength: 48 for `waves` crypto, 96 for `gost`. */
const WRAPPED_KEY_LENGTHS: ReadonlySet<number> = new Set([48, 96]);
/** WE's PrivateDataResponseSpec.maxLength: digest + hash + signature + 20 MiB. */
export const MAX_PRIVATE_DATA_RESPONSE = POLICY_ID_LENGTH + DATA_HASH_LENGTH + SIGNATURE_LENGTH + 20 * 1024 * 1024;

export class MalformedPrivacyMessage extends DecodeError {
  constructor(
    readonly messageCode: number,
    message: string,
  ) {
    super(`Malformed message ${messageCode}: ${message}`, `message(${messageCode})`);
  }
}

const u32 = (n: number): Uint8Array => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
};
const readU32 = (b: Uint8Array, at: number): number => new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(at);

/** The pair every privacy message names. */
export interface PolicyItemId {
  readonly policyId: Uint8Array;
  readonly dataHash: Uint8Array;
}

function checkId(id: PolicyItemId): void {
  if (id.policyId.length !== POLICY_ID_LENGTH) throw new RangeError(`A policy id is ${POLICY_ID_LENGTH} bytes, got ${id.policyId.length}`);
  if (id.dataHash.length !== DATA_HASH_LENGTH) throw new RangeError(`A data hash is ${DATA_HASH_LENGTH} bytes, got ${id.dataHash.length}`);
}

function readId(code: number, b: Uint8Array): PolicyItemId {
  if (b.length < POLICY_ID_LENGTH + DATA_HASH_LENGTH)
    throw new MalformedPrivacyMessage(code, `${b.length} bytes, the policy id and data hash need ${POLICY_ID_LENGTH + DATA_HASH_LENGTH}`);
  return { policyId: b.slice(0, POLICY_ID_LENGTH), dataHash: b.slice(POLICY_ID_LENGTH, POLICY_ID_LENGTH + DATA_HASH_LENGTH) };
}

// --- 30 / 40 ---------------------------------------------------------------------------

/** PrivateDataRequest (30) and PrivacyInventoryRequest (40): policyId ‖ dataHash. */
export function encodeItemRequest(id: PolicyItemId): Uint8Array {
  checkId(id);
  return concatBytes(id.policyId, id.dataHash);
}

export function decodeItemRequest(code: 30 | 40, payload: Uint8Array): PolicyItemId {
  if (payload.length !== POLICY_ID_LENGTH + DATA_HASH_LENGTH)
    throw new MalformedPrivacyMessage(code, `${payload.length} bytes, expected ${POLICY_ID_LENGTH + DATA_HASH_LENGTH}`);
  return readId(code, payload);
}

// --- 31 ----------------------------------------------------------------------------------

export type PrivateDataResponse =
  | (PolicyItemId & { readonly kind: 'no-data' })
  /** On a TLS channel: the strict payload in clear. */
  | (PolicyItemId & { readonly kind: 'data'; readonly payload: Uint8Array })
  /** On a plain channel: the strict payload encrypted for the peer's session key. */
  | (PolicyItemId & { readonly kind: 'encrypted'; readonly wrappedKey: Uint8Array; readonly encrypted: Uint8Array });

export function encodePrivateDataResponse(r: PrivateDataResponse): Uint8Array {
  checkId(r);
  switch (r.kind) {
    case 'no-data':
      return concatBytes(r.policyId, r.dataHash, Uint8Array.of(0));
    case 'data':
      return concatBytes(r.policyId, r.dataHash, Uint8Array.of(1), u32(r.payload.length), r.payload);
    case 'encrypted':
      if (!WRAPPED_KEY_LENGTHS.has(r.wrappedKey.length)) throw new RangeError(`A wrapped key is 48 (waves) or 96 (gost) bytes, got ${r.wrappedKey.length}`);
      return concatBytes(r.policyId, r.dataHash, Uint8Array.of(1), r.wrappedKey, u32(r.encrypted.length), r.encrypted);
  }
}

/**
 * Reads a 31; whether its data is encrypted is the channel's (plain channels encrypt):
 * `wrappedKeyLength` is the network's wrapped key length on a plain channel, undefined on TLS.
 */
export function decodePrivateDataResponse(payload: Uint8Array, wrappedKeyLength: number | undefined): PrivateDataResponse {
  const code = PrivacyMessageCode.PrivateDataResponse;
  if (payload.length > MAX_PRIVATE_DATA_RESPONSE) throw new MalformedPrivacyMessage(code, `${payload.length} bytes, at most ${MAX_PRIVATE_DATA_RESPONSE}`);
  const id = readId(code, payload);
  let at = POLICY_ID_LENGTH + DATA_HASH_LENGTH;
  if (payload.length <= at) throw new MalformedPrivacyMessage(code, 'the has-data flag is missing');
  const flag = payload[at++]!;
  if (flag === 0) {
    if (payload.length !== at) throw new MalformedPrivacyMessage(code, `${payload.length - at} bytes after a no-data answer`);
    return { ...id, kind: 'no-data' };
  }
  if (flag !== 1) throw new MalformedPrivacyMessage(code, `has-data flag ${flag}, expected 0 or 1`);
  let wrappedKey: Uint8Array | undefined;
  if (wrappedKeyLength !== undefined) {
    if (payload.length < at + wrappedKeyLength) throw new MalformedPrivacyMessage(code, 'the wrapped key is cut');
    wrappedKey = payload.slice(at, at + wrappedKeyLength);
    at += wrappedKeyLength;
  }
  if (payload.length < at + 4) throw new MalformedPrivacyMessage(code, 'the length is cut');
  const length = readU32(payload, at);
  at += 4;
  if (payload.length !== at + length) throw new MalformedPrivacyMessage(code, `length ${length} does not match the ${payload.length - at} bytes that follow`);
  const body = payload.slice(at);
  return wrappedKey === undefined ? { ...id, kind: 'data', payload: body } : { ...id, kind: 'encrypted', wrappedKey, encrypted: body };
}

/** What sealing a strict payload for a plain connection adds: the wrapped key, and the bytes the encryption adds (TransportEncryption has both). */
export interface StrictSealing {
  readonly wrappedKeyLength: number;
  readonly sealOverhead: number;
}

/** The length of a 31 carrying a strict payload of `payloadLength` bytes: in clear (TLS, `sealing` undefined) or sealed. */
export function privateDataResponseLength(payloadLength: number, sealing: StrictSealing | undefined): number {
  const head = POLICY_ID_LENGTH + DATA_HASH_LENGTH + 1 + 4;
  return sealing === undefined ? head + payloadLength : head + sealing.wrappedKeyLength + payloadLength + sealing.sealOverhead;
}

/**
 * The most data a small item with `metaLength` bytes of metadata may hold for its 31 to stay
 * within MAX_PRIVATE_DATA_RESPONSE on every connection, in clear or sealed with the
 * network's encryption: a larger one could never reach another node (WE's cap on the wire).
 */
export function maxStrictItemData(metaLength: number, sealing: StrictSealing): number {
  const payload = 4 + metaLength;
  return MAX_PRIVATE_DATA_RESPONSE - Math.max(privateDataResponseLength(payload, undefined), privateDataResponseLength(payload, sealing));
}

/** WE's strict payload: u32 dataLen ‖ data ‖ metaBytes. */
export function encodeStrictPayload(meta: PolicyItemMeta, data: Uint8Array): Uint8Array {
  return concatBytes(u32(data.length), data, encodeItemMeta(meta));
}

export function decodeStrictPayload(payload: Uint8Array): { readonly data: Uint8Array; readonly meta: PolicyItemMeta } {
  const code = PrivacyMessageCode.PrivateDataResponse;
  if (payload.length < 4) throw new MalformedPrivacyMessage(code, 'the data length is cut');
  const length = readU32(payload, 0);
  if (payload.length < 4 + length) throw new MalformedPrivacyMessage(code, `data length ${length} beyond the ${payload.length - 4} bytes that follow`);
  try {
    return { data: payload.slice(4, 4 + length), meta: decodeItemMeta(payload.subarray(4 + length)) };
  } catch (e) {
    throw new MalformedPrivacyMessage(code, `bad metadata: ${(e as Error).message}`);
  }
}

// --- 39 / 44 -------------------------------------------------------------------------------

export interface PrivacyInventory extends PolicyItemId {
  /** 39 (V1, default items only) or 44 (V2, with the data type). */
  readonly version: 1 | 2;
  readonly senderPublicKey: Uint8Array;
  readonly dataType: PrivacyDataType;
  readonly signature: Uint8Array;
}

/** What an inventory's signature covers: senderAddress ‖ policyId ‖ dataHash (‖ dataType in V2). */
export function inventoryBodyBytes(p: Protocol, inv: Omit<PrivacyInventory, 'signature'>): Uint8Array {
  const address = p.addresses.fromPublicKey(inv.senderPublicKey).bytes;
  return inv.version === 1
    ? concatBytes(address, inv.policyId, inv.dataHash)
    : concatBytes(address, inv.policyId, inv.dataHash, Uint8Array.of(DATA_TYPE_BYTE[inv.dataType]));
}

/** An inventory of an item signed by `signer` (V1 only for default items, as WE builds them before feature 180). */
export function signInventory(p: Protocol, signer: KeyPair, id: PolicyItemId, dataType: PrivacyDataType, version: 1 | 2): PrivacyInventory {
  checkId(id);
  if (version === 1 && dataType !== 'default') throw new RangeError('A V1 inventory announces default items only');
  const unsigned = { version, senderPublicKey: signer.publicKey, policyId: id.policyId, dataHash: id.dataHash, dataType };
  return { ...unsigned, signature: p.crypto.sign(signer.privateKey, inventoryBodyBytes(p, unsigned)) };
}

export function verifyInventory(p: Protocol, inv: PrivacyInventory): boolean {
  return p.crypto.verify(inv.senderPublicKey, inventoryBodyBytes(p, inv), inv.signature);
}

/** WE's inventory id: fast hash of the signed bytes. */
export function inventoryId(p: Protocol, inv: PrivacyInventory): Uint8Array {
  return p.crypto.fastHash(inventoryBodyBytes(p, inv));
}

export function encodeInventory(inv: PrivacyInventory): Uint8Array {
  checkId(inv);
  if (inv.version === 1) return concatBytes(inv.senderPublicKey, inv.policyId, inv.dataHash, inv.signature);
  return concatBytes(inv.senderPublicKey, inv.policyId, inv.dataHash, Uint8Array.of(DATA_TYPE_BYTE[inv.dataType]), inv.signature);
}

export function decodeInventory(p: Protocol, code: 39 | 44, payload: Uint8Array): PrivacyInventory {
  const keyLength = p.crypto.publicKeyLength;
  const v2 = code === PrivacyMessageCode.PrivacyInventoryV2;
  const expected = keyLength + POLICY_ID_LENGTH + DATA_HASH_LENGTH + (v2 ? 1 : 0) + SIGNATURE_LENGTH;
  if (payload.length !== expected) throw new MalformedPrivacyMessage(code, `${payload.length} bytes, expected ${expected}`);
  const senderPublicKey = payload.slice(0, keyLength);
  const { policyId, dataHash } = readId(code, payload.subarray(keyLength));
  let at = keyLength + POLICY_ID_LENGTH + DATA_HASH_LENGTH;
  let dataType: PrivacyDataType = 'default';
  if (v2) {
    const t = dataTypeOfByte(payload[at]!);
    if (t === undefined) throw new MalformedPrivacyMessage(code, `data type ${payload[at]}, expected 0 or 1`);
    dataType = t;
    at++;
  }
  return { version: v2 ? 2 : 1, senderPublicKey, policyId, dataHash, dataType, signature: payload.slice(at) };
}
