/**
 * ExecutedContract (105, V1–V5): the miner's record of a contract execution. Never
 * broadcast; it travels in blocks (binary) and is shown over REST (JSON). Its fee (always
 * 0) and atomic badge (always none) are not serialized.
 *
 * Also here: the structures only this type carries (validation proofs, results per
 * contract, asset operations, read descriptors) and WE's results hash.
 */
import { decodeBase58, encodeBase58, type EncodingError } from '../../crypto/encoding.js';
import { type Recipient } from '../../crypto/address.js';
import { ByteReader, ByteWriter, concatBytes } from '../bytes.js';
import type { JsonObject } from '../json.js';
import type { ProtocolParams } from './fields.js';
import { sender, timestamp } from './common.js';
import { EXECUTABLE_CONTRACT_TYPES, isExecutableContract, type ExecutableContractTransaction } from './contracts-executable.js';
import {
  COMMITMENT,
  COMMITMENT_LENGTH,
  CONTRACT_ENTRIES,
  jsonByteStr,
  MAX_EXECUTED_TX_BYTES,
  MAX_ID_BASE58_LENGTH,
  OPT_COMMITMENT,
  OPT_SHORT_STRING,
  scalaMapOrder,
  validateCommitment,
  validateContractEntries,
} from './contracts-fields.js';
import {
  ASSET_ID_LENGTH,
  CONTRACT_DATA_ENTRY,
  INT,
  jsonArray,
  jsonBoolean,
  jsonInt,
  jsonLong,
  jsonObject,
  jsonString,
  option,
  readRecipient,
  requirePresent,
  shortList,
  SHORT_STRING,
  type DataEntry,
  type FieldType,
} from './fields.js';
import { javaArrayHash } from './scala-set.js';
import { defineTx, field, PROOFS, versioned, type DataOf, type Transaction, type TransactionProtocol } from './schema.js';
import { contractTransactionTooBig, DecodeError, expected, genericError, WeError, wrongJson } from '../../errors/catalogue.js';

// ---------------------------------------------------------------------------
// Helpers

function readCount(r: ByteReader, f: string): number {
  const n = r.i32(f);
  if (n < 0 || n > r.remaining) throw new DecodeError(`Invalid collection size ${n} for ${f}`, f);
  return n;
}

function utf8(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

function fromUtf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

function writeShortString(w: ByteWriter, s: string): void {
  w.shortBytes(utf8(s));
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Orders contract-keyed entries as the Scala Map WE holds them in (last value of a repeated key wins). */
function byContract<V>(entries: ReadonlyArray<{ readonly contractId: Uint8Array; readonly value: V }>): Array<{ contractId: Uint8Array; value: V }> {
  return scalaMapOrder(
    entries.map((e) => [e.contractId, e.value] as const),
    javaArrayHash,
    hex,
  ).map(([contractId, value]) => ({ contractId, value }));
}

function jsonBase58Fixed(j: unknown, path: string, length: number): Uint8Array {
  const bytes = jsonByteStr(j, path);
  if (bytes.length !== length) throw wrongJson(path, `Expected ${length} bytes, got ${bytes.length}`);
  return bytes;
}

// ---------------------------------------------------------------------------
// EXECUTABLE_TRANSACTION

/** u32 length ‖ full bytes of the executed CreateContract / CallContract / UpdateContract. */
export const EXECUTABLE_TRANSACTION: FieldType<ExecutableContractTransaction, TransactionProtocol> = {
  kind: 'EXECUTABLE_TRANSACTION',
  write: (w, v) => void w.longBytes(v.bytes),
  read: (r, p, f) => {
    const n = readCount(r, f);
    // Look at the type before parsing, so nested non-executable types never recurse.
    const start = r.pos;
    if (n < 3 || r.buf[start] !== 0 || !EXECUTABLE_CONTRACT_TYPES.has(r.buf[start + 1]!)) {
      throw new DecodeError('Incorrect transaction: an executed transaction must be a CreateContract, CallContract or UpdateContract', f);
    }
    // Its type byte is an executable type's: so is the transaction read.
    return p.readTransaction(r, n) as ExecutableContractTransaction;
  },
  fromJson: (j, p, path) => {
    const o = { ...jsonObject(j, path) };
    // The node writes CallContract V7's commitment as `inputCommitmentOpt`; its reader takes `inputCommitment`.
    if (o['type'] === 104 && Number(o['version']) === 7 && o['inputCommitment'] === undefined) o['inputCommitment'] = o['inputCommitmentOpt'];
    const tx = p.transactionFromJson(o, { forBroadcast: false });
    if (!isExecutableContract(tx)) throw wrongJson(path, 'Incorrect transaction: expected a CreateContract, CallContract or UpdateContract');
    return tx;
  },
  toJson: (v) => v.toJson(),
};

// ---------------------------------------------------------------------------
// VALIDATION_PROOF

export interface ValidationProof {
  readonly validatorPublicKey: Uint8Array;
  readonly signature: Uint8Array;
}

/** validator public key ‖ signature (raw); JSON `{validatorPublicKey, signature}`. */
export const VALIDATION_PROOF: FieldType<ValidationProof> = {
  kind: 'VALIDATION_PROOF',
  write: (w, v) => void w.bytes(v.validatorPublicKey).bytes(v.signature),
  read: (r, p, f) => ({ validatorPublicKey: r.bytes(p.crypto.publicKeyLength, f), signature: r.bytes(p.crypto.signatureLength, f) }),
  fromJson: (j, p, path) => {
    const o = jsonObject(j, path);
    return {
      validatorPublicKey: p.addresses.parsePublicKey(jsonString(o['validatorPublicKey'], `${path}.validatorPublicKey`), `${path}.validatorPublicKey`),
      signature: jsonBase58Fixed(o['signature'], `${path}.signature`, p.crypto.signatureLength),
    };
  },
  toJson: (v) => ({ validatorPublicKey: encodeBase58(v.validatorPublicKey), signature: encodeBase58(v.signature) }),
};

// ---------------------------------------------------------------------------
// DATA_ENTRY_MAP

/** The results one contract produced (an entry of V5's resultsMap). */
export interface ContractResults {
  readonly contractId: Uint8Array;
  readonly results: readonly DataEntry[];
}

/** Results per contract in the order of the Scala Map WE holds them in. */
export const orderResults = (v: readonly ContractResults[]): ContractResults[] =>
  byContract(v.map((c) => ({ contractId: c.contractId, value: c.results }))).map((e) => ({ contractId: e.contractId, results: e.value }));

/** i32 count ‖ (SHORT_BYTE_STR contractId ‖ BIG_LIST(CONTRACT_DATA_ENTRY))*, in Scala Map order; JSON keyed by contract id. */
export const DATA_ENTRY_MAP: FieldType<ContractResults[]> = {
  kind: 'DATA_ENTRY_MAP',
  write: (w, v, p) => {
    const ordered = orderResults(v);
    w.i32(ordered.length);
    for (const c of ordered) {
      w.shortBytes(c.contractId).i32(c.results.length);
      for (const e of c.results) CONTRACT_DATA_ENTRY.write(w, e, p);
    }
  },
  read: (r, p, f) => {
    const n = readCount(r, f);
    const out: ContractResults[] = [];
    for (let i = 0; i < n; i++) {
      const contractId = r.shortBytes(f);
      const m = readCount(r, f);
      const results: DataEntry[] = [];
      for (let k = 0; k < m; k++) results.push(CONTRACT_DATA_ENTRY.read(r, p, f));
      out.push({ contractId, results });
    }
    return orderResults(out);
  },
  fromJson: (j, p, path) => {
    const o = jsonObject(j, path);
    return orderResults(
      Object.entries(o).map(([key, list]) => ({
        contractId: jsonByteStr(key, `${path}.${key}`),
        results: jsonArray(list, `${path}.${key}`).map((e, i) => CONTRACT_DATA_ENTRY.fromJson(e, p, `${path}.${key}(${i})`)),
      })),
    );
  },
  toJson: (v, p) => Object.fromEntries(orderResults(v).map((c) => [encodeBase58(c.contractId), c.results.map((e) => CONTRACT_DATA_ENTRY.toJson(e, p))])),
};

// ---------------------------------------------------------------------------
// CONTRACT_ASSET_OPERATION

export type ContractAssetOperation =
  | { readonly operationType: 'transfer'; readonly assetId: Uint8Array | null; readonly recipient: Recipient; readonly amount: bigint }
  | {
      readonly operationType: 'issue';
      readonly assetId: Uint8Array;
      readonly name: string;
      readonly description: string;
      readonly quantity: bigint;
      readonly decimals: number;
      readonly isReissuable: boolean;
      readonly nonce: number;
    }
  | { readonly operationType: 'reissue'; readonly assetId: Uint8Array; readonly quantity: bigint; readonly isReissuable: boolean }
  | { readonly operationType: 'burn'; readonly assetId: Uint8Array | null; readonly amount: bigint }
  | { readonly operationType: 'lease'; readonly leaseId: Uint8Array; readonly nonce: number; readonly recipient: Recipient; readonly amount: bigint }
  | { readonly operationType: 'cancel-lease'; readonly leaseId: Uint8Array }
  | { readonly operationType: 'contract-payment'; readonly assetId: Uint8Array | null; readonly recipient: Uint8Array; readonly amount: bigint };

const OPERATION_TYPES = ['transfer', 'issue', 'reissue', 'burn', 'lease', 'cancel-lease', 'contract-payment'] as const;
const LEASE_ID_LENGTH = 32;

function writeOptAssetId(w: ByteWriter, id: Uint8Array | null): void {
  if (id === null) w.u8(0);
  else w.u8(1).bytes(id);
}

function readOptAssetId(r: ByteReader, f: string): Uint8Array | null {
  const flag = r.u8(f);
  if (flag === 0) return null;
  if (flag !== 1) throw new DecodeError(`Invalid option flag ${flag} for ${f}`, f);
  return r.bytes(ASSET_ID_LENGTH, f);
}

/** The operation's bytes without its type and version prefix (what the results hash covers). */
export function writeAssetOperationBody(w: ByteWriter, op: ContractAssetOperation): void {
  switch (op.operationType) {
    case 'transfer':
      writeOptAssetId(w, op.assetId);
      w.bytes(op.recipient.bytes).i64(op.amount);
      return;
    case 'issue':
      w.bytes(op.assetId);
      writeShortString(w, op.name);
      writeShortString(w, op.description);
      w.i64(op.quantity).u8(op.decimals).bool(op.isReissuable).u8(op.nonce);
      return;
    case 'reissue':
      w.bytes(op.assetId).i64(op.quantity).bool(op.isReissuable);
      return;
    case 'burn':
      writeOptAssetId(w, op.assetId);
      w.i64(op.amount);
      return;
    case 'lease':
      w.bytes(op.leaseId).u8(op.nonce).bytes(op.recipient.bytes).i64(op.amount);
      return;
    case 'cancel-lease':
      w.bytes(op.leaseId);
      return;
    case 'contract-payment':
      writeOptAssetId(w, op.assetId);
      w.shortBytes(op.recipient).i64(op.amount);
      return;
  }
}

function readAssetOperation(r: ByteReader, p: ProtocolParams, f: string): ContractAssetOperation {
  const typeByte = r.u8(f);
  const version = r.u8(f);
  const operationType = OPERATION_TYPES[typeByte];
  if (operationType === undefined || version !== 1) throw new DecodeError(`Unknown contract asset operation type ${typeByte} version ${version}`, f);
  switch (operationType) {
    case 'transfer':
      return { operationType, assetId: readOptAssetId(r, f), recipient: readRecipient(r, p, f), amount: r.i64(f) };
    case 'issue':
      return {
        operationType,
        assetId: r.bytes(ASSET_ID_LENGTH, f),
        name: fromUtf8(r.shortBytes(f)),
        description: fromUtf8(r.shortBytes(f)),
        quantity: r.i64(f),
        decimals: r.i8(f),
        isReissuable: r.u8(f) === 1,
        nonce: r.i8(f),
      };
    case 'reissue':
      return { operationType, assetId: r.bytes(ASSET_ID_LENGTH, f), quantity: r.i64(f), isReissuable: r.u8(f) === 1 };
    case 'burn':
      return { operationType, assetId: readOptAssetId(r, f), amount: r.i64(f) };
    case 'lease':
      return { operationType, leaseId: r.bytes(LEASE_ID_LENGTH, f), nonce: r.i8(f), recipient: readRecipient(r, p, f), amount: r.i64(f) };
    case 'cancel-lease':
      return { operationType, leaseId: r.bytes(LEASE_ID_LENGTH, f) };
    case 'contract-payment':
      return { operationType, assetId: readOptAssetId(r, f), recipient: r.shortBytes(f), amount: r.i64(f) };
  }
}

function recipientFromJson(j: unknown, p: ProtocolParams, path: string): Recipient {
  const bytes = jsonByteStr(j, path);
  const r = new ByteReader(bytes);
  try {
    const recipient = readRecipient(r, p, path);
    r.expectEnd(path);
    return recipient;
  } catch (e) {
    if (e instanceof WeError) throw wrongJson(path, "Can't read PublicKeyAccount");
    throw e;
  }
}

function optAssetIdFromJson(j: unknown, path: string): Uint8Array | null {
  return j === undefined || j === null ? null : jsonBase58Fixed(j, path, ASSET_ID_LENGTH);
}

function byteFromJson(j: unknown, path: string): number {
  return jsonInt(j, path, -128, 127, expected.byte);
}

function assetOperationFromJson(j: unknown, p: ProtocolParams, path: string): ContractAssetOperation {
  const o = jsonObject(j, path);
  const t = o['operationType'];
  if (t === undefined) throw wrongJson(path, "Expected 'operationType' field");
  if (typeof t !== 'string') throw wrongJson(`${path}.operationType`, `Error parsing 'operationType': expected a string, but got '${JSON.stringify(t)}'`);
  const operationType = OPERATION_TYPES.find((x) => x === t);
  if (operationType === undefined) {
    throw wrongJson(`${path}.operationType`, `Error parsing 'operationType': ContractAssetOperationType type '${t}' does not exist`);
  }
  const at = (k: string): string => `${path}.${k}`;
  switch (operationType) {
    case 'transfer':
      return {
        operationType,
        assetId: optAssetIdFromJson(o['assetId'], at('assetId')),
        recipient: recipientFromJson(o['recipient'], p, at('recipient')),
        amount: jsonLong(o['amount'], at('amount')),
      };
    case 'issue':
      return {
        operationType,
        assetId: jsonBase58Fixed(o['assetId'], at('assetId'), ASSET_ID_LENGTH),
        name: SHORT_STRING.fromJson(o['name'], p, at('name')),
        description: SHORT_STRING.fromJson(o['description'], p, at('description')),
        quantity: jsonLong(o['quantity'], at('quantity')),
        decimals: byteFromJson(o['decimals'], at('decimals')),
        isReissuable: jsonBoolean(o['isReissuable'], at('isReissuable')),
        nonce: byteFromJson(o['nonce'], at('nonce')),
      };
    case 'reissue':
      return {
        operationType,
        assetId: jsonBase58Fixed(o['assetId'], at('assetId'), ASSET_ID_LENGTH),
        quantity: jsonLong(o['quantity'], at('quantity')),
        isReissuable: jsonBoolean(o['isReissuable'], at('isReissuable')),
      };
    case 'burn':
      return { operationType, assetId: optAssetIdFromJson(o['assetId'], at('assetId')), amount: jsonLong(o['amount'], at('amount')) };
    case 'lease':
      return {
        operationType,
        leaseId: jsonBase58Fixed(o['leaseId'], at('leaseId'), LEASE_ID_LENGTH),
        nonce: byteFromJson(o['nonce'], at('nonce')),
        recipient: recipientFromJson(o['recipient'], p, at('recipient')),
        amount: jsonLong(o['amount'], at('amount')),
      };
    case 'cancel-lease':
      return { operationType, leaseId: jsonBase58Fixed(o['leaseId'], at('leaseId'), LEASE_ID_LENGTH) };
    case 'contract-payment': {
      const recipient = jsonByteStr(o['recipient'], at('recipient'));
      if (recipient.length > 0xffff) throw wrongJson(at('recipient'), 'too long');
      return { operationType, assetId: optAssetIdFromJson(o['assetId'], at('assetId')), recipient, amount: jsonLong(o['amount'], at('amount')) };
    }
  }
}

/** WE's Json.format of the operation case classes: operationType, version, then the fields (None left out). */
function assetOperationToJson(op: ContractAssetOperation): JsonObject {
  const head = { operationType: op.operationType, version: 1 };
  const asset = (id: Uint8Array | null): JsonObject => (id === null ? {} : { assetId: encodeBase58(id) });
  switch (op.operationType) {
    case 'transfer':
      return { ...head, ...asset(op.assetId), recipient: encodeBase58(op.recipient.bytes), amount: op.amount };
    case 'issue':
      return {
        ...head,
        assetId: encodeBase58(op.assetId),
        name: op.name,
        description: op.description,
        quantity: op.quantity,
        decimals: op.decimals,
        isReissuable: op.isReissuable,
        nonce: op.nonce,
      };
    case 'reissue':
      return { ...head, assetId: encodeBase58(op.assetId), quantity: op.quantity, isReissuable: op.isReissuable };
    case 'burn':
      return { ...head, ...asset(op.assetId), amount: op.amount };
    case 'lease':
      return { ...head, leaseId: encodeBase58(op.leaseId), nonce: op.nonce, recipient: encodeBase58(op.recipient.bytes), amount: op.amount };
    case 'cancel-lease':
      return { ...head, leaseId: encodeBase58(op.leaseId) };
    case 'contract-payment':
      return { ...head, ...asset(op.assetId), recipient: encodeBase58(op.recipient), amount: op.amount };
  }
}

/** operation type ‖ version (1) ‖ body. */
export const CONTRACT_ASSET_OPERATION: FieldType<ContractAssetOperation> = {
  kind: 'CONTRACT_ASSET_OPERATION',
  write: (w, v) => {
    w.u8(OPERATION_TYPES.indexOf(v.operationType)).u8(1);
    writeAssetOperationBody(w, v);
  },
  read: (r, p, f) => readAssetOperation(r, p, f),
  fromJson: (j, p, path) => assetOperationFromJson(j, p, path),
  toJson: (v) => assetOperationToJson(v),
};

// ---------------------------------------------------------------------------
// ASSET_OPERATIONS_MAP

/** The asset operations one contract performed (an entry of V5's assetOperationsMap). */
export interface ContractOperations {
  readonly contractId: Uint8Array;
  readonly operations: readonly ContractAssetOperation[];
}

/** Asset operations per contract in the order of the Scala Map WE holds them in. */
export const orderOperations = (v: readonly ContractOperations[]): ContractOperations[] =>
  byContract(v.map((c) => ({ contractId: c.contractId, value: c.operations }))).map((e) => ({ contractId: e.contractId, operations: e.value }));

/** i32 count ‖ (SHORT_BYTE_STR contractId ‖ BIG_LIST(CONTRACT_ASSET_OPERATION))*, in Scala Map order. */
export const ASSET_OPERATIONS_MAP: FieldType<ContractOperations[]> = {
  kind: 'ASSET_OPERATIONS_MAP',
  write: (w, v, p) => {
    const ordered = orderOperations(v);
    w.i32(ordered.length);
    for (const c of ordered) {
      w.shortBytes(c.contractId).i32(c.operations.length);
      for (const op of c.operations) CONTRACT_ASSET_OPERATION.write(w, op, p);
    }
  },
  read: (r, p, f) => {
    const n = readCount(r, f);
    const out: ContractOperations[] = [];
    for (let i = 0; i < n; i++) {
      const contractId = r.shortBytes(f);
      const m = readCount(r, f);
      const operations: ContractAssetOperation[] = [];
      for (let k = 0; k < m; k++) operations.push(readAssetOperation(r, p, f));
      out.push({ contractId, operations });
    }
    return orderOperations(out);
  },
  fromJson: (j, p, path) => {
    const o = jsonObject(j, path);
    return orderOperations(
      Object.entries(o).map(([key, list]) => ({
        contractId: jsonByteStr(key, `${path}.${key}`),
        operations: jsonArray(list, `${path}.${key}`).map((e, i) => assetOperationFromJson(e, p, `${path}.${key}(${i})`)),
      })),
    );
  },
  toJson: (v) => Object.fromEntries(orderOperations(v).map((c) => [encodeBase58(c.contractId), c.operations.map(assetOperationToJson)])),
};

// ---------------------------------------------------------------------------
// READ_DESCRIPTOR, READINGS_HASH

export type ReadDescriptor =
  | { readonly type: 'specific-keys'; readonly contractId: Uint8Array; readonly keys: readonly string[] }
  | {
      readonly type: 'filtered-keys';
      readonly contractId: Uint8Array;
      readonly matches: string | null;
      readonly offset: number | null;
      readonly limit: number | null;
    }
  | { readonly type: 'specific-balances'; readonly contractId: Uint8Array; readonly assetIds: readonly string[] };

const READ_TYPES = ['specific-keys', 'filtered-keys', 'specific-balances'] as const;
const STRING_LIST = shortList(SHORT_STRING);
const OPT_INT = option(INT);

/** type byte ‖ contractId (SHORT_BYTE_STR) ‖ keys / filter / asset ids. */
export const READ_DESCRIPTOR: FieldType<ReadDescriptor> = {
  kind: 'READ_DESCRIPTOR',
  write: (w, v, p) => {
    w.u8(READ_TYPES.indexOf(v.type)).shortBytes(v.contractId);
    if (v.type === 'specific-keys') STRING_LIST.write(w, [...v.keys], p);
    else if (v.type === 'specific-balances') STRING_LIST.write(w, [...v.assetIds], p);
    else {
      OPT_SHORT_STRING.write(w, v.matches, p);
      OPT_INT.write(w, v.offset, p);
      OPT_INT.write(w, v.limit, p);
    }
  },
  read: (r, p, f) => {
    const t = r.u8(f);
    const type = READ_TYPES[t];
    if (type === undefined) throw new DecodeError(`Unknown read descriptor type ${t}`, f);
    const contractId = r.shortBytes(f);
    if (type === 'specific-keys') return { type, contractId, keys: STRING_LIST.read(r, p, f) };
    if (type === 'specific-balances') return { type, contractId, assetIds: STRING_LIST.read(r, p, f) };
    return { type, contractId, matches: OPT_SHORT_STRING.read(r, p, f), offset: OPT_INT.read(r, p, f), limit: OPT_INT.read(r, p, f) };
  },
  fromJson: (j, p, path) => {
    const o = jsonObject(j, path);
    const contractId = jsonByteStr(o['contractId'], `${path}.contractId`);
    if (contractId.length > 0xffff) throw wrongJson(`${path}.contractId`, 'too long');
    if (o['keys'] !== undefined) return { type: 'specific-keys', contractId, keys: STRING_LIST.fromJson(o['keys'], p, `${path}.keys`) };
    // WE cannot write specific-balances as JSON; Weft writes `assetIds` and reads it back.
    if (o['assetIds'] !== undefined) return { type: 'specific-balances', contractId, assetIds: STRING_LIST.fromJson(o['assetIds'], p, `${path}.assetIds`) };
    return {
      type: 'filtered-keys',
      contractId,
      matches: OPT_SHORT_STRING.fromJson(o['matches'], p, `${path}.matches`),
      offset: OPT_INT.fromJson(o['offset'], p, `${path}.offset`),
      limit: OPT_INT.fromJson(o['limit'], p, `${path}.limit`),
    };
  },
  toJson: (v) => {
    const contractId = encodeBase58(v.contractId);
    if (v.type === 'specific-keys') return { contractId, keys: [...v.keys] };
    if (v.type === 'specific-balances') return { contractId, assetIds: [...v.assetIds] };
    return {
      contractId,
      ...(v.matches === null ? {} : { matches: v.matches }),
      ...(v.offset === null ? {} : { offset: v.offset }),
      ...(v.limit === null ? {} : { limit: v.limit }),
    };
  },
};

/** The bytes of read descriptors one after the other, no count (WE's ReadDescriptor.writeBytes per reading). */
export function readDescriptorsBytes(p: ProtocolParams, readings: readonly ReadDescriptor[]): Uint8Array {
  const w = new ByteWriter(64);
  for (const r of readings) READ_DESCRIPTOR.write(w, r, p);
  return w.result();
}

/**
 * What a contract validator signs for a confidential execution (WE's ContractValidatorResultsV2):
 * the readings' bytes ‖ readingsHash (when present) ‖ outputCommitment ‖ resultsHash. The
 * proofs of a 105 V4 are these signatures. `readings`: the read descriptors, or their bytes
 * as a message carried them.
 */
export function confidentialResultsSignedBytes(
  p: ProtocolParams,
  readings: readonly ReadDescriptor[] | Uint8Array,
  readingsHash: Uint8Array | null,
  outputCommitment: Uint8Array,
  resultsHash: Uint8Array,
): Uint8Array {
  const readingsBytes = readings instanceof Uint8Array ? readings : readDescriptorsBytes(p, readings);
  return concatBytes(readingsBytes, readingsHash ?? new Uint8Array(0), outputCommitment, resultsHash);
}

/** 32 raw bytes; Base58 in JSON (any length read, checked by validateReadingsHash). */
export const READINGS_HASH: FieldType<Uint8Array> = {
  kind: 'READINGS_HASH',
  write: (w, v) => void w.bytes(v),
  read: (r, _p, f) => r.bytes(COMMITMENT_LENGTH, f),
  fromJson: (j, _p, path) => {
    requirePresent(j, path);
    if (typeof j !== 'string') throw wrongJson(path, 'Expected string value');
    if (j.length > MAX_ID_BASE58_LENGTH) throw wrongJson(path, `java.lang.AssertionError: the string is longer than ${MAX_ID_BASE58_LENGTH} characters`);
    try {
      return decodeBase58(j);
    } catch (e) {
      throw wrongJson(path, `java.lang.AssertionError: ${(e as EncodingError).message}`);
    }
  },
  toJson: (v) => encodeBase58(v),
};

/** ConfidentialCallOutputSupport.validateReadingsHash. */
export function validateReadingsHash(hash: Uint8Array | null): void {
  if (hash !== null && hash.length !== COMMITMENT_LENGTH) {
    throw genericError(`Invalid readings hash length: '${hash.length}', it should be current crypto digest size: ${COMMITMENT_LENGTH}`);
  }
}

/** SHORT_BYTE_STR resultsHash; Base58 in JSON. */
const RESULTS_HASH: FieldType<Uint8Array> = {
  kind: 'SHORT_BYTE_STR',
  write: (w, v) => void w.shortBytes(v),
  read: (r, _p, f) => r.shortBytes(f),
  fromJson: (j, _p, path) => {
    const bytes = jsonByteStr(j, path);
    if (bytes.length > 0xffff) throw wrongJson(path, 'too long');
    return bytes;
  },
  toJson: (v) => encodeBase58(v),
};

// ---------------------------------------------------------------------------
// Results hash (ContractTransactionValidation.resultsHash / resultsMapHash)

/** Java String#compareTo (UTF-16 code units). */
const compareJava = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Contract data entries sorted by key, each in contract form (WE's `entries.sorted` written with ContractTransactionEntryOps). */
export function writeSortedEntries(w: ByteWriter, entries: readonly DataEntry[], p: ProtocolParams): void {
  for (const e of [...entries].sort((a, b) => compareJava(a.key, b.key))) CONTRACT_DATA_ENTRY.write(w, e, p);
}

/**
 * WE's results hash of V2–V4: fastHash of the results sorted by key (CONTRACT_DATA_ENTRY
 * bytes), followed by each asset operation's bytes without its type/version prefix.
 */
export function contractResultsHash(p: ProtocolParams, results: readonly DataEntry[], assetOperations: readonly ContractAssetOperation[] = []): Uint8Array {
  const w = new ByteWriter(256);
  writeSortedEntries(w, results, p);
  for (const op of assetOperations) writeAssetOperationBody(w, op);
  return p.crypto.fastHash(w.result());
}

/**
 * WE's results hash of V5: contracts sorted by the Base58 text of their id, each one's
 * results sorted by key; then the asset operations, contracts in the same order.
 */
export function contractResultsMapHash(
  p: ProtocolParams,
  resultsMap: readonly ContractResults[],
  assetOperationsMap: readonly ContractOperations[] = [],
): Uint8Array {
  const w = new ByteWriter(256);
  const byId = <T extends { contractId: Uint8Array }>(xs: readonly T[]): T[] =>
    xs
      .map((x) => ({ x, id: encodeBase58(x.contractId) }))
      .sort((a, b) => compareJava(a.id, b.id))
      .map((e) => e.x);
  for (const c of byId(orderResults(resultsMap))) writeSortedEntries(w, c.results, p);
  for (const c of byId(orderOperations(assetOperationsMap))) for (const op of c.operations) writeAssetOperationBody(w, op);
  return p.crypto.fastHash(w.result());
}

// ---------------------------------------------------------------------------
// ExecutedContract

const executedFields = [
  sender,
  field('tx', EXECUTABLE_TRANSACTION),
  versioned('results', CONTRACT_ENTRIES, { until: 4, check: (v) => validateContractEntries(v, 'Result') }),
  versioned('resultsMap', DATA_ENTRY_MAP, {
    since: 5,
    check: (v) => {
      for (const c of v) validateContractEntries(c.results, 'Result');
    },
  }),
  versioned('resultsHash', RESULTS_HASH, { since: 2 }),
  versioned('validationProofs', shortList(VALIDATION_PROOF), { since: 2 }),
  timestamp,
  versioned('assetOperations', shortList(CONTRACT_ASSET_OPERATION), { since: 3, until: 4 }),
  PROOFS,
  versioned('readings', shortList(READ_DESCRIPTOR), { since: 4 }),
  versioned('readingsHash', option(READINGS_HASH), { since: 4, check: (v) => validateReadingsHash(v) }),
  versioned('outputCommitment', COMMITMENT, { since: 4, until: 4, check: (v) => validateCommitment(v) }),
  versioned('outputCommitmentOpt', OPT_COMMITMENT, {
    since: 5,
    check: (v) => {
      if (v !== null) validateCommitment(v);
    },
  }),
  versioned('assetOperationsMap', ASSET_OPERATIONS_MAP, { since: 5 }),
  versioned('statusCode', INT, { since: 5 }),
  versioned('errorMessage', OPT_SHORT_STRING, { since: 5 }),
] as const;

export type ExecutedContractData = DataOf<typeof executedFields>;
export type ExecutedContractTransaction = Transaction<ExecutedContractData>;

export const ExecutedContract = defineTx({
  type: 105,
  name: 'ExecutedContract',
  versions: [1, 2, 3, 4, 5],
  fields: executedFields,
  validate: (tx) => {
    const size = tx.bytes.length;
    if (size > MAX_EXECUTED_TX_BYTES) throw contractTransactionTooBig(size, MAX_EXECUTED_TX_BYTES);
  },
});

/** The results of an execution in any version (V5: every contract's results, in map order). */
export function executedResults(tx: ExecutedContractTransaction): DataEntry[] {
  if (tx.data.resultsMap !== undefined) return tx.data.resultsMap.flatMap((c) => [...c.results]);
  return [...(tx.data.results ?? [])];
}

/** The asset operations of an execution in any version (V5: every contract's, in map order). */
export function executedAssetOperations(tx: ExecutedContractTransaction): ContractAssetOperation[] {
  if (tx.data.assetOperationsMap !== undefined) return tx.data.assetOperationsMap.flatMap((c) => [...c.operations]);
  return [...(tx.data.assetOperations ?? [])];
}
