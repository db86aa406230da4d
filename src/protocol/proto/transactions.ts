/**
 * Transactions in WE 1.14's protobuf form (`wavesenterprise.Transaction`, transactions-1.14.proto):
 * what the public gRPC API sends (events, TransactionInfo, Broadcast's answer) and takes
 * (Broadcast).
 *
 * A DSL family's message is its fields by name, read from its schema (schema.ts) as WE's
 * generator does from TxScheme: per version the fields the version has, plus `id`, `proofs`
 * and `sender_address`, which the reader ignores (WE's fromProto recomputes them). How a
 * value travels is decided by its field type's DSL name (FieldType.kind), as WE's FieldType
 * decides its proto type: raw bytes for keys, ids, addresses and recipients (their binary
 * forms), google.protobuf wrappers for options, Base58 strings inside contract asset
 * operations and payments. Scala Set and Map fields are put in the order WE's node keeps
 * them (the binary order), whatever order a message lists them in.
 *
 * Reading refuses, with WE's errors where WE has them (GenericError, 199 — INVALID_ARGUMENT
 * over gRPC): malformed bytes, an empty union, an unknown type or version, a missing message
 * field, keys, ids and addresses of the wrong size or checksum. Beyond WE, fixed-size byte
 * fields (asset ids, lease ids, commitments, validator proofs) must have their size: WE would
 * sign such a transaction into bytes no node can read back.
 *
 * Not mapped: Exchange (7) has no protobuf form in WE; a contract's payment to another
 * contract (asset operation `contract-payment`) has none either — WE's ProtoAdapter has no case
 * for it — so an ExecutedContract carrying one cannot be written (an error names it).
 */
import type { Address, Recipient } from '../../crypto/address.js';
import { base58Length, decodeBase58, encodeBase58 } from '../../crypto/encoding.js';
import { ByteReader, ByteWriter } from '../bytes.js';
import { canBeInAtomic } from '../transactions/atomic.js';
import {
  MAX_ID_BASE58_LENGTH,
  type ContractApiVersion,
  type ContractTransferIn,
  type StoredContract,
  type ValidationPolicy,
} from '../transactions/contracts-fields.js';
import {
  READ_DESCRIPTOR,
  type ContractAssetOperation,
  type ContractOperations,
  orderOperations,
  orderResults,
  type ContractResults,
  type ReadDescriptor,
  type ValidationProof,
} from '../transactions/contracts-executed.js';
import { EXECUTABLE_CONTRACT_TYPES } from '../transactions/contracts-executable.js';
import { readRecipient, type AtomicBadge, type DataEntry, type OpType } from '../transactions/fields.js';
import {
  Genesis,
  GenesisPermit,
  GenesisRegisterNode,
  type GenesisData,
  type GenesisPermitData,
  type GenesisRegisterNodeData,
} from '../transactions/genesis.js';
import { ROLES, roleFromByte, type PermissionOp, type RoleName } from '../transactions/permissions.js';
import { ALL_CODECS, codecFor } from '../transactions/registry.js';
import { scalaSetOrder } from '../transactions/scala-set.js';
import { readScript } from '../transactions/scripts.js';
import { PROOFS, type FieldSpec, type Transaction, type TransactionProtocol, type TxCodec, type TxSchema, type TypedTxCodec } from '../transactions/schema.js';
import type { ParsedTransfer } from '../transactions/transfer.js';
import { protoRoot } from './proto-files.js';
import { genericError, insideField, invalidContractApiVersion, invalidContractId, unimplementedError, withField } from '../../errors/catalogue.js';

const root = protoRoot(new URL('../../../../src/protocol/proto/', import.meta.url), ['transactions-1.14.proto']);
const TransactionMessage = root.lookupType('wavesenterprise.Transaction');

/** A protobufjs message as this module builds it (plain object) or reads it (decoded message). */
type Message = Record<string, unknown>;

const ASSET_ID_LENGTH = 32;
const SHORT_MAX = 0xffff;

// ---------------------------------------------------------------------------
// Reading decoded values (absent fields read as proto3 defaults)

function bytesIn(v: unknown): Uint8Array {
  // A copy: protobufjs hands out views into the buffer it decoded.
  return v instanceof Uint8Array ? new Uint8Array(v) : new Uint8Array(0);
}

/** An int64 as decoded: a number when it fits, else a Long (its two signed 32-bit halves). */
function longIn(v: unknown): bigint {
  if (typeof v === 'number') return BigInt(v);
  if (typeof v === 'object' && v !== null && 'low' in v && 'high' in v) {
    const { low, high } = v as { low: number; high: number };
    return BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0));
  }
  return 0n;
}

const intIn = (v: unknown): number => (typeof v === 'number' ? v : 0);
const stringIn = (v: unknown): string => (typeof v === 'string' ? v : '');
const listIn = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function messageIn(v: unknown): Message | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) ? (v as Message) : null;
}

/** A message field WE requires (`Field '…' cannot be empty`). */
function requiredMessage(v: unknown, field: string): Message {
  const m = messageIn(v);
  if (m === null) throw genericError(`Field '${field}' cannot be empty`, field);
  return m;
}

/** The value of a google.protobuf wrapper, or undefined when the option is None. */
function wrapped(v: unknown): unknown {
  const m = messageIn(v);
  return m === null ? undefined : m['value'];
}

function sized(bytes: Uint8Array, length: number, field: string): Uint8Array {
  if (bytes.length !== length) throw genericError(`'${field}' must be ${length} bytes, got ${bytes.length}`, field);
  return bytes;
}

function short(bytes: Uint8Array, field: string): Uint8Array {
  if (bytes.length > SHORT_MAX) throw genericError(`'${field}' is too long: ${bytes.length} bytes, at most 65535 can be serialized`, field);
  return bytes;
}

function shortText(text: string, field: string): string {
  short(Buffer.from(text, 'utf8'), field);
  return text;
}

function shortListIn(v: unknown, field: string): unknown[] {
  const list = listIn(v);
  if (list.length > SHORT_MAX) throw genericError(`'${field}' has ${list.length} items, at most 65535 can be serialized`, field);
  return list;
}

function byteIn(v: unknown, field: string): number {
  const n = intIn(v);
  if (n < -128 || n > 127) throw genericError('Invalid byte value', field);
  return n;
}

/** Base58 text of at most `maxBytes` bytes (never decoding a longer text: Base58 is quadratic). */
function base58In(text: string, maxBytes: number, field: string, what: string): Uint8Array {
  const fail = (why: string): never => {
    throw genericError(`Error decoding '${what}': ${why}`, field);
  };
  if (text.length > base58Length(maxBytes)) fail(`the string is longer than ${base58Length(maxBytes)} characters`);
  try {
    return decodeBase58(text);
  } catch (e) {
    return fail((e as Error).message);
  }
}

function assetIdTextIn(text: string, field: string, what: string): Uint8Array {
  return sized(base58In(text, ASSET_ID_LENGTH, field, what), ASSET_ID_LENGTH, field);
}

// ---------------------------------------------------------------------------
// Writing: proto3 defaults are left out, so equal transactions give equal bytes

function put(m: Message, key: string, v: unknown): void {
  if (v === undefined || v === null || v === 0 || v === 0n || v === '' || v === false) return;
  if ((v instanceof Uint8Array || Array.isArray(v)) && v.length === 0) return;
  m[key] = typeof v === 'bigint' ? v.toString() : v;
}

function message(entries: ReadonlyArray<readonly [string, unknown]>): Message {
  const m: Message = {};
  for (const [k, v] of entries) put(m, k, v);
  return m;
}

/** A google.protobuf wrapper holding `v` (present even when `v` is the default). */
const wrap = (v: unknown): Message => message([['value', v]]);

// ---------------------------------------------------------------------------
// Field types: value ↔ proto, by the DSL type's name

interface ProtoForm {
  toProto(value: unknown, p: TransactionProtocol): unknown;
  fromProto(proto: unknown, p: TransactionProtocol, field: string): unknown;
}

/** A form for values of type T (the casts live here, once). */
function form<T>(to: (value: T, p: TransactionProtocol) => unknown, from: (proto: unknown, p: TransactionProtocol, field: string) => T): ProtoForm {
  return { toProto: (v, p) => to(v as T, p), fromProto: from };
}

/** OPTION(X) of a scalar X: a google.protobuf wrapper; null is None. */
function optional(inner: ProtoForm): ProtoForm {
  return form<unknown>(
    (v, p) => (v === null ? undefined : wrap(inner.toProto(v, p))),
    (proto, p, field) => {
      const m = messageIn(proto);
      return m === null ? null : inner.fromProto(m['value'], p, field);
    },
  );
}

function repeated(inner: ProtoForm, limit: 'short' | 'big'): ProtoForm {
  return form<readonly unknown[]>(
    (v, p) => v.map((x) => inner.toProto(x, p)),
    (proto, p, field) => (limit === 'short' ? shortListIn(proto, field) : listIn(proto)).map((x, i) => inner.fromProto(x, p, `${field}(${i})`)),
  );
}

const BYTES = form<Uint8Array>(
  (v) => v,
  (proto, _p, field) => short(bytesIn(proto), field),
);
const fixedBytes = (length: number): ProtoForm =>
  form<Uint8Array>(
    (v) => v,
    (proto, _p, field) => sized(bytesIn(proto), length, field),
  );
const ASSET_ID = fixedBytes(ASSET_ID_LENGTH);
const LONG = form<bigint>((v) => v, longIn);
const INT = form<number>((v) => v, intIn);
const BOOLEAN = form<boolean>(
  (v) => v,
  (proto) => proto === true,
);
const STRING = form<string>(
  (v) => v,
  (proto, _p, field) => shortText(stringIn(proto), field),
);
const BYTE = form<number>(
  (v) => v,
  (proto, _p, field) => byteIn(proto, field),
);
const PUBLIC_KEY = form<Uint8Array>(
  (v) => v,
  (proto, p, field) => p.addresses.publicKeyFromBytes(bytesIn(proto), field),
);
const ADDRESS = form<Address>(
  (v) => v.bytes,
  (proto, p, field) => p.addresses.addressFromBytes(bytesIn(proto), field),
);
const RECIPIENT = form<Recipient>(
  (v) => v.bytes,
  (proto, p, field) => recipientFromBytes(bytesIn(proto), p, field),
);

function recipientFromBytes(bytes: Uint8Array, p: TransactionProtocol, field: string): Recipient {
  const r = new ByteReader(bytes);
  const recipient = readRecipient(r, p, field);
  r.expectEnd(field);
  return recipient;
}

const OP_TYPES: Readonly<Record<OpType, number>> = { add: 1, remove: 2 };

const OP_TYPE = form<OpType>(
  (v) => OP_TYPES[v],
  (proto, _p, field) => {
    const n = intIn(proto);
    if (n === 1) return 'add';
    if (n === 2) return 'remove';
    throw genericError(n === 0 ? 'Unknown OpType' : `Unrecognized OpType '${n}'`, field);
  },
);

const PERMISSION_OP = form<PermissionOp>(
  (v) =>
    message([
      ['opType', OP_TYPES[v.opType]],
      ['role', message([['id', ROLES[v.role]]])],
      ['timestamp', v.timestamp],
      ['dueTimestamp', v.dueTimestamp === null ? undefined : wrap(v.dueTimestamp)],
    ]),
  (proto, p, field) => {
    const m = requiredMessage(proto, field);
    const opType = OP_TYPE.fromProto(m['opType'], p, `${field}.opType`) as OpType;
    const due = wrapped(m['dueTimestamp']);
    return {
      opType,
      role: insideField(field, () => roleIn(m['role'])),
      timestamp: longIn(m['timestamp']),
      dueTimestamp: due === undefined ? null : longIn(due),
    };
  },
);

const ATOMIC_BADGE = form<AtomicBadge | null>(
  (v) => (v === null ? undefined : message([['trustedSender', v.trustedSender === null ? undefined : wrap(v.trustedSender.bytes)]])),
  (proto, p, field) => {
    const m = messageIn(proto);
    if (m === null) return null;
    const sender = wrapped(m['trustedSender']);
    return { trustedSender: sender === undefined ? null : p.addresses.addressFromBytes(bytesIn(sender), `${field}.trustedSender`) };
  },
);

const SCRIPT = form<Uint8Array>(
  (v) => v,
  (proto, p, field) => readScript(short(bytesIn(proto), field), p, field).bytes,
);

const DATA_ENTRY = form<DataEntry>(
  (e) => {
    const value: Message = {};
    if (e.type === 'integer') value['intValue'] = e.value.toString();
    else if (e.type === 'boolean') value['boolValue'] = e.value;
    else if (e.type === 'binary') value['binaryValue'] = e.value;
    else value['stringValue'] = e.value;
    // The value is set even when it is the default: the oneof must say which it is.
    return { ...message([['key', e.key]]), ...value };
  },
  (proto, _p, field) => {
    const m = requiredMessage(proto, field);
    const key = shortText(stringIn(m['key']), `${field}.key`);
    switch (m['value']) {
      case 'intValue':
        return { key, type: 'integer', value: longIn(m['intValue']) };
      case 'boolValue':
        return { key, type: 'boolean', value: m['boolValue'] === true };
      case 'binaryValue':
        return { key, type: 'binary', value: bytesIn(m['binaryValue']) };
      case 'stringValue':
        return { key, type: 'string', value: stringIn(m['stringValue']) };
      default:
        throw genericError(`Empty data entry value with key '${key}'`, field);
    }
  },
);

const TRANSFER = form<ParsedTransfer>(
  (t) =>
    message([
      ['recipient', t.recipient.bytes],
      ['amount', t.amount],
    ]),
  (proto, p, field) => {
    const m = requiredMessage(proto, field);
    return { recipient: RECIPIENT.fromProto(m['recipient'], p, `${field}.recipient`) as Recipient, amount: longIn(m['amount']) };
  },
);

function addressSetOrder(addresses: readonly Address[]): Address[] {
  return scalaSetOrder(
    addresses,
    (a) => a.bytes,
    (a) => a.toString(),
  );
}

/** SHORT_SET(ADDRESS): WE builds the Set from the list (duplicates merge) and keeps it in Set order. */
const ADDRESS_SET = form<readonly Address[]>(
  (v) => addressSetOrder(v).map((a) => a.bytes),
  (proto, p, field) => addressSetOrder(shortListIn(proto, field).map((x, i) => ADDRESS.fromProto(x, p, `${field}(${i})`) as Address)),
);

const VALIDATION_POLICY = form<ValidationPolicy>(
  (v) => {
    if (v.type === 'any') return { any: {} };
    if (v.type === 'majority') return { majority: {} };
    return { majorityWithOneOf: message([['addresses', v.addresses.map((a) => a.bytes)]]) };
  },
  (proto, p, field) => {
    const m = requiredMessage(proto, field);
    switch (m['type']) {
      case 'any':
        return { type: 'any' };
      case 'majority':
        return { type: 'majority' };
      case 'majorityWithOneOf': {
        const list = messageIn(m['majorityWithOneOf']);
        const addresses = shortListIn(list?.['addresses'], `${field}.addresses`).map((x, i) => ADDRESS.fromProto(x, p, `${field}.addresses(${i})`) as Address);
        return { type: 'majority_with_one_of', addresses };
      }
      default:
        throw genericError('Empty validation policy value', field);
    }
  },
);

function apiVersionIn(m: Message, field: string): ContractApiVersion {
  const part = (key: string, name: string): number => {
    const n = intIn(m[key]);
    if (n < 0 || n > 32767) throw genericError(`Invalid ${name} version`, field);
    return n;
  };
  return { major: part('majorVersion', 'major'), minor: part('minorVersion', 'minor') };
}

const apiVersionOut = (v: ContractApiVersion): Message =>
  message([
    ['majorVersion', v.major],
    ['minorVersion', v.minor],
  ]);

const API_VERSION = form<ContractApiVersion>(apiVersionOut, (proto, _p, field) => apiVersionIn(requiredMessage(proto, field), field));

const TRANSFER_IN = form<ContractTransferIn>(
  (v) =>
    message([
      ['assetId', v.assetId === null ? undefined : wrap(encodeBase58(v.assetId))],
      ['amount', v.amount],
    ]),
  (proto, _p, field) => {
    const m = requiredMessage(proto, field);
    const assetId = wrapped(m['assetId']);
    return {
      assetId: assetId === undefined ? null : assetIdTextIn(stringIn(assetId), `${field}.assetId`, 'assetId'),
      amount: longIn(m['amount']),
    };
  },
);

/**
 * STORED_CONTRACT. WE 1.14 writes a docker contract's api version as (major, major) — a slip in
 * its ProtoAdapter; the real minor version is written here, so the message means what the
 * transaction says.
 */
const STORED_CONTRACT = form<StoredContract>(
  (v) =>
    v.engine === 'docker'
      ? {
          dockerBytecode: message([
            ['image', v.image],
            ['imageHash', v.imageHash],
            ['apiVersion', apiVersionOut(v.apiVersion)],
          ]),
        }
      : {
          wasmBytecode: message([
            ['bytecode', v.bytecode],
            ['bytecodeHash', v.bytecodeHash],
          ]),
        },
  (proto, _p, field) => {
    const m = requiredMessage(proto, field);
    if (m['value'] === 'wasmBytecode') {
      const wasm = messageIn(m['wasmBytecode']) ?? {};
      return { engine: 'wasm', bytecode: bytesIn(wasm['bytecode']), bytecodeHash: shortText(stringIn(wasm['bytecodeHash']), `${field}.bytecodeHash`) };
    }
    if (m['value'] === 'dockerBytecode') {
      const docker = messageIn(m['dockerBytecode']) ?? {};
      const api = messageIn(docker['apiVersion']);
      if (api === null) throw invalidContractApiVersion('contract api version is missing', `${field}.apiVersion`);
      return {
        engine: 'docker',
        image: shortText(stringIn(docker['image']), `${field}.image`),
        imageHash: shortText(stringIn(docker['imageHash']), `${field}.imageHash`),
        apiVersion: apiVersionIn(api, `${field}.apiVersion`),
      };
    }
    throw genericError('ContractIsMissingError', field);
  },
);

const VALIDATION_PROOF = form<ValidationProof>(
  (v) =>
    message([
      ['validatorPublicKey', v.validatorPublicKey],
      ['signature', v.signature],
    ]),
  (proto, p, field) => {
    const m = requiredMessage(proto, field);
    return {
      validatorPublicKey: p.addresses.publicKeyFromBytes(bytesIn(m['validatorPublicKey']), `${field}.validatorPublicKey`),
      signature: sized(bytesIn(m['signature']), p.crypto.signatureLength, `${field}.signature`),
    };
  },
);

function recipientTextIn(text: string, p: TransactionProtocol, field: string): Recipient {
  if (text.length > 100) throw genericError(`Invalid recipient '${text.slice(0, 100)}…'`, field);
  return p.addresses.parseRecipient(text, field);
}

const ASSET_OPERATION = form<ContractAssetOperation>(
  (op) => {
    switch (op.operationType) {
      case 'issue':
        return {
          contractIssue: message([
            ['assetId', encodeBase58(op.assetId)],
            ['name', op.name],
            ['description', op.description],
            ['quantity', op.quantity],
            ['decimals', op.decimals],
            ['isReissuable', op.isReissuable],
            ['nonce', op.nonce],
          ]),
        };
      case 'reissue':
        return {
          contractReissue: message([
            ['assetId', encodeBase58(op.assetId)],
            ['quantity', op.quantity],
            ['isReissuable', op.isReissuable],
          ]),
        };
      case 'burn':
        return {
          contractBurn: message([
            ['assetId', op.assetId === null ? undefined : wrap(encodeBase58(op.assetId))],
            ['amount', op.amount],
          ]),
        };
      case 'transfer':
        return {
          contractTransferOut: message([
            ['assetId', op.assetId === null ? undefined : wrap(encodeBase58(op.assetId))],
            ['recipient', op.recipient.toString()],
            ['amount', op.amount],
          ]),
        };
      case 'lease':
        return {
          contractLease: message([
            ['leaseId', encodeBase58(op.leaseId)],
            ['nonce', op.nonce],
            ['recipient', op.recipient.toString()],
            ['amount', op.amount],
          ]),
        };
      case 'cancel-lease':
        return { contractCancelLease: message([['leaseId', encodeBase58(op.leaseId)]]) };
      case 'contract-payment':
        throw unimplementedError("Protobuf serialization not available for a contract's payment to a contract (asset operation 'contract-payment')");
    }
  },
  (proto, p, field) => {
    const m = requiredMessage(proto, field);
    const kind = m['operation'];
    const o = typeof kind === 'string' ? (messageIn(m[kind]) ?? {}) : {};
    const optAsset = (what: string): Uint8Array | null => {
      const text = wrapped(o['assetId']);
      return text === undefined ? null : assetIdTextIn(stringIn(text), `${field}.assetId`, `assetId' of ${what}`);
    };
    switch (kind) {
      case 'contractIssue':
        return {
          operationType: 'issue',
          assetId: assetIdTextIn(stringIn(o['assetId']), `${field}.assetId`, "assetId' of ContractIssue asset operation"),
          name: shortText(stringIn(o['name']), `${field}.name`),
          description: shortText(stringIn(o['description']), `${field}.description`),
          quantity: longIn(o['quantity']),
          decimals: byteIn(o['decimals'], `${field}.decimals`),
          isReissuable: o['isReissuable'] === true,
          nonce: byteIn(o['nonce'], `${field}.nonce`),
        };
      case 'contractReissue':
        return {
          operationType: 'reissue',
          assetId: assetIdTextIn(stringIn(o['assetId']), `${field}.assetId`, "assetId' of ContractReissue asset operation"),
          quantity: longIn(o['quantity']),
          isReissuable: o['isReissuable'] === true,
        };
      case 'contractBurn':
        return { operationType: 'burn', assetId: optAsset('ContractBurn asset operation'), amount: longIn(o['amount']) };
      case 'contractTransferOut':
        return {
          operationType: 'transfer',
          assetId: optAsset('ContractTransferOut asset operation'),
          recipient: recipientTextIn(stringIn(o['recipient']), p, `${field}.recipient`),
          amount: longIn(o['amount']),
        };
      case 'contractLease':
        return {
          operationType: 'lease',
          leaseId: assetIdTextIn(stringIn(o['leaseId']), `${field}.leaseId`, "leaseId' of ContractLease asset operation"),
          nonce: byteIn(o['nonce'], `${field}.nonce`),
          recipient: recipientTextIn(stringIn(o['recipient']), p, `${field}.recipient`),
          amount: longIn(o['amount']),
        };
      case 'contractCancelLease':
        return {
          operationType: 'cancel-lease',
          leaseId: assetIdTextIn(stringIn(o['leaseId']), `${field}.leaseId`, "leaseId' of ContractCancelLease asset operation"),
        };
      default:
        throw genericError('Empty contract asset operation value', field);
    }
  },
);

/**
 * A contract-keyed map (results, asset operations): Base58 contract id → a message holding a
 * list, as the entries of a protobuf map. WE's Scala Map keeps up to 4 entries in the order
 * they were added (more in its hash order, `order`), so they are written in the map's order and
 * read in the order they come.
 */
function contractMap<C extends { readonly contractId: Uint8Array }, V>(
  mapKey: string,
  listKey: string,
  item: ProtoForm,
  valuesOf: (c: C) => readonly V[],
  make: (contractId: Uint8Array, values: V[]) => C,
  order: (cs: readonly C[]) => C[],
): ProtoForm {
  return form<readonly C[]>(
    (v, p) => ({
      [mapKey]: order(v).map((c) => ({ key: encodeBase58(c.contractId), value: message([[listKey, valuesOf(c).map((x) => item.toProto(x, p))]]) })),
    }),
    (proto, p, field) => {
      const entries = listIn(requiredMessage(proto, field)[mapKey]).map((x) => {
        const e = messageIn(x) ?? {};
        const key = stringIn(e['key']);
        if (key.length > MAX_ID_BASE58_LENGTH) throw invalidContractId(key.slice(0, 100), field);
        let contractId: Uint8Array;
        try {
          contractId = decodeBase58(key);
        } catch {
          throw invalidContractId(key, field);
        }
        return make(
          contractId,
          listIn(messageIn(e['value'])?.[listKey]).map((y, i) => item.fromProto(y, p, `${field}.${key}(${i})`) as V),
        );
      });
      return order(entries);
    },
  );
}

const DATA_ENTRY_MAP = contractMap<ContractResults, DataEntry>(
  'dataEntryList',
  'entries',
  DATA_ENTRY,
  (c) => c.results,
  (contractId, results) => ({ contractId, results }),
  orderResults,
);

const ASSET_OPERATIONS_MAP = contractMap<ContractOperations, ContractAssetOperation>(
  'operationList',
  'operations',
  ASSET_OPERATION,
  (c) => c.operations,
  (contractId, operations) => ({ contractId, operations }),
  orderOperations,
);

/** READ_DESCRIPTOR: its binary form as a `bytes` field (WE's ProtoAdapter does the same). */
const READ_DESCRIPTOR_BYTES = form<ReadDescriptor>(
  (v, p) => {
    const w = new ByteWriter(64);
    READ_DESCRIPTOR.write(w, v, p);
    return w.result();
  },
  (proto, p, field) => {
    const r = new ByteReader(bytesIn(proto));
    const descriptor = READ_DESCRIPTOR.read(r, p, field);
    r.expectEnd(field);
    return descriptor;
  },
);

/** EXECUTABLE_TRANSACTION: the executed 103/104/107 as a union of its own. */
const EXECUTABLE = form<Transaction>(
  (tx) => unionMessage(tx),
  (proto, p, field) => {
    const m = requiredMessage(proto, field);
    const member = m['transaction'];
    const entry = typeof member === 'string' ? BY_MEMBER.get(member) : undefined;
    if (entry === undefined || !EXECUTABLE_CONTRACT_TYPES.has(entry.codec.type)) throw genericError('Empty executable transaction', field);
    return insideField(field, () => entry.read(p, intIn(m['version']), requiredMessage(m[member as string], field)));
  },
);

/** ATOMIC_INNER_TRANSACTION: the union without the container; only atomic-capable types. */
const ATOMIC_INNER = form<Transaction>(
  (tx) => unionMessage(tx),
  (proto, p, field) => {
    const m = requiredMessage(proto, field);
    const member = m['transaction'];
    const entry = typeof member === 'string' ? BY_MEMBER.get(member) : undefined;
    if (entry === undefined) throw genericError('Empty inner transaction', field);
    const version = intIn(m['version']);
    if (!canBeInAtomic(entry.codec.type, version)) throw genericError('Internal transaction does not support atomic container', field);
    return insideField(field, () => entry.read(p, version, requiredMessage(m[member as string], field)));
  },
);

/** The proto form of each DSL field type, by its name. */
const FORMS: ReadonlyMap<string, ProtoForm> = new Map([
  ['BYTE', BYTE],
  ['BOOLEAN', BOOLEAN],
  ['INT', INT],
  ['LONG', LONG],
  ['SHORT_STRING', STRING],
  ['SHORT_BYTE_ARRAY', BYTES],
  ['SHORT_BYTE_STR', BYTES],
  ['POLICY_DATA_HASH', BYTES],
  ['ASSET_ID', ASSET_ID],
  ['OPTION(ASSET_ID)', optional(ASSET_ID)],
  ['ASSET_ID.?', optional(ASSET_ID)],
  ['PUBLIC_KEY_ACCOUNT', PUBLIC_KEY],
  ['OPTION(PUBLIC_KEY_ACCOUNT)', optional(PUBLIC_KEY)],
  ['ADDRESS_OR_ALIAS', RECIPIENT],
  [
    'ALIAS',
    form<{ readonly bytes: Uint8Array }>(
      (v) => v.bytes,
      (proto, p, field) => p.addresses.aliasFromBytes(bytesIn(proto), field),
    ),
  ],
  [
    'NODE_NAME',
    form<string | null>(
      (v) => (v === null ? undefined : wrap(v)),
      // Some("") is what binary calls None.
      (proto, _p, field) => {
        const name = wrapped(proto);
        return name === undefined || name === '' ? null : shortText(stringIn(name), field);
      },
    ),
  ],
  ['PERMISSION_OP_TYPE', OP_TYPE],
  ['PERMISSION_OP', PERMISSION_OP],
  ['OPTION(ATOMIC_BADGE)', ATOMIC_BADGE],
  ['OPTION(SCRIPT)', optional(SCRIPT)],
  ['SHORT_LIST(DATA_ENTRY)', repeated(DATA_ENTRY, 'short')],
  ['SHORT_LIST(CONTRACT_DATA_ENTRY)', repeated(DATA_ENTRY, 'short')],
  ['TRANSFER_BATCH', repeated(TRANSFER, 'short')],
  ['BIG_LIST(ADDRESS)', repeated(ADDRESS, 'big')],
  ['SHORT_SET(ADDRESS)', ADDRESS_SET],
  ['VALIDATION_POLICY', VALIDATION_POLICY],
  ['CONTRACT_API_VERSION', API_VERSION],
  ['SHORT_LIST(CONTRACT_TRANSFER_IN)', repeated(TRANSFER_IN, 'short')],
  ['STORED_CONTRACT', STORED_CONTRACT],
  ['COMMITMENT', fixedBytes(32)],
  ['OPTION(COMMITMENT)', optional(fixedBytes(32))],
  ['OPTION(SHORT_STRING)', optional(STRING)],
  ['EXECUTABLE_TRANSACTION', EXECUTABLE],
  ['SHORT_LIST(VALIDATION_PROOF)', repeated(VALIDATION_PROOF, 'short')],
  ['SHORT_LIST(CONTRACT_ASSET_OPERATION)', repeated(ASSET_OPERATION, 'short')],
  ['DATA_ENTRY_MAP', DATA_ENTRY_MAP],
  ['ASSET_OPERATIONS_MAP', ASSET_OPERATIONS_MAP],
  ['SHORT_LIST(READ_DESCRIPTOR)', repeated(READ_DESCRIPTOR_BYTES, 'short')],
  ['OPTION(READINGS_HASH)', optional(BYTES)],
  ['SHORT_LIST(ATOMIC_INNER_TRANSACTION)', repeated(ATOMIC_INNER, 'short')],
]);

// ---------------------------------------------------------------------------
// Transaction messages

/** How one transaction type is written into and read from its message. */
interface MessageForm {
  readonly codec: TxCodec;
  /** The union member (`transferTransaction`). */
  readonly member: string;
  write(tx: Transaction): Message;
  read(p: TransactionProtocol, version: number, m: Message): Transaction;
}

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/** A field's name in the message, where WE's scheme gives it another (ProtobufCustomName). */
const PROTO_NAMES: ReadonlyMap<string, string> = new Map([['Data.author', 'authorPublicKey']]);

function isSchema(codec: TxCodec): codec is TxSchema {
  return 'entriesOf' in codec;
}

function schemaForm(schema: TxSchema): MessageForm {
  const type = root.lookupType(`wavesenterprise.${schema.name}Transaction`);
  const byVersion = new Map<number, ReadonlyArray<{ spec: FieldSpec; protoName: string; form: ProtoForm }>>();
  for (const version of schema.versions) {
    const fields = schema.entriesOf(version).flatMap((e) => {
      if (e === PROOFS) return [];
      const spec = e as FieldSpec;
      const protoName = PROTO_NAMES.get(`${schema.name}.${spec.name}`) ?? spec.name;
      const f = FORMS.get(spec.type.kind);
      // A schema and this module out of step is a bug, found when the module loads.
      if (f === undefined) throw new Error(`No protobuf form for ${schema.name} field ${spec.name} of type ${spec.type.kind}`);
      if (type.fields[protoName] === undefined) throw new Error(`${type.name} has no field ${protoName}`);
      return [{ spec, protoName, form: f }];
    });
    byVersion.set(version, fields);
  }
  return {
    codec: schema,
    member: `${lowerFirst(schema.name)}Transaction`,
    write(tx) {
      const values = tx.data as Readonly<Record<string, unknown>>;
      const m = message([['id', tx.id]]);
      for (const f of byVersion.get(tx.version) ?? []) put(m, f.protoName, f.form.toProto(values[f.spec.name], tx.protocol));
      put(m, 'proofs', tx.proofs);
      put(m, 'senderAddress', tx.sender?.bytes);
      return m;
    },
    read(p, version, m) {
      const fields = byVersion.get(version);
      if (fields === undefined) throw genericError(`UnsupportedVersion(${version})`, 'version');
      const data: Record<string, unknown> = {};
      for (const f of fields) data[f.spec.name] = withField(f.spec.name, () => f.form.fromProto(m[f.protoName], p, f.spec.name));
      const proofs = shortListIn(m['proofs'], 'proofs').map(bytesIn);
      return p.transaction(schema, version, data, proofs);
    },
  };
}

/** A genesis type: a hand-written message, version 1, its id as the signature. */
function genesisForm<D extends object>(
  codec: TypedTxCodec<Transaction<D>>,
  member: string,
  fields: (d: D) => ReadonlyArray<readonly [string, unknown]>,
  read: (p: TransactionProtocol, m: Message) => D,
): MessageForm {
  return {
    codec,
    member,
    // formOf picks this form by the transaction's type: its data is a D.
    write: (tx) => message([['id', tx.id], ...fields(tx.data as D), ['signature', tx.id]]),
    read: (p, _version, m) => p.transaction(codec, 1, read(p, m)),
  };
}

function roleIn(proto: unknown): RoleName {
  const role = messageIn(proto);
  if (role === null) throw genericError('Role cannot be empty', 'role');
  return roleFromByte(byteIn(role['id'], 'role'), 'role');
}

const genesisForms: readonly MessageForm[] = [
  genesisForm<GenesisData>(
    Genesis,
    'genesisTransaction',
    (d) => [
      ['recipient', d.recipient.bytes],
      ['amount', d.amount],
      ['timestamp', d.timestamp],
    ],
    (p, m) => ({ recipient: ADDRESS.fromProto(m['recipient'], p, 'recipient') as Address, amount: longIn(m['amount']), timestamp: longIn(m['timestamp']) }),
  ),
  genesisForm<GenesisPermitData>(
    GenesisPermit,
    'genesisPermitTransaction',
    (d) => [
      ['target', d.target.bytes],
      ['role', message([['id', ROLES[d.role]]])],
      ['timestamp', d.timestamp],
    ],
    (p, m) => ({ target: ADDRESS.fromProto(m['target'], p, 'target') as Address, role: roleIn(m['role']), timestamp: longIn(m['timestamp']) }),
  ),
  genesisForm<GenesisRegisterNodeData>(
    GenesisRegisterNode,
    'genesisRegisterNodeTransaction',
    (d) => [
      ['targetPublicKey', d.targetPublicKey],
      ['timestamp', d.timestamp],
    ],
    (p, m) => ({ targetPublicKey: PUBLIC_KEY.fromProto(m['targetPublicKey'], p, 'targetPublicKey') as Uint8Array, timestamp: longIn(m['timestamp']) }),
  ),
];

const FORMS_BY_TYPE = new Map<number, MessageForm>();
for (const f of genesisForms) FORMS_BY_TYPE.set(f.codec.type, f);
for (const codec of ALL_CODECS) if (isSchema(codec)) FORMS_BY_TYPE.set(codec.type, schemaForm(codec));
const BY_MEMBER = new Map<string, MessageForm>([...FORMS_BY_TYPE.values()].map((f) => [f.member, f]));

function formOf(tx: Transaction): MessageForm {
  const f = FORMS_BY_TYPE.get(tx.type);
  if (f === undefined) throw unimplementedError('Protobuf serialization not available for this type of transaction');
  return f;
}

/** `{version, <member>: message}`: the Transaction union (and its inner and executable cousins, same shape). */
function unionMessage(tx: Transaction): Message {
  const f = formOf(tx);
  return { ...message([['version', tx.version]]), [f.member]: f.write(tx) };
}

// ---------------------------------------------------------------------------
// The API

/** Encodings already made: every event subscriber asks for the same transactions. Keyed weakly by the (immutable) transaction. */
const encoded = new WeakMap<Transaction, Uint8Array>();

/**
 * The encoded `wavesenterprise.Transaction` of a transaction. For what has no protobuf form
 * (Exchange; an ExecutedContract with a contract-payment operation) it throws WE's
 * UnimplementedError (641), as WE answers TransactionInfo for such a transaction.
 */
export function transactionToProto(tx: Transaction): Uint8Array {
  let bytes = encoded.get(tx);
  if (bytes === undefined) {
    bytes = TransactionMessage.encode(unionMessage(tx)).finish();
    encoded.set(tx, bytes);
  }
  return bytes;
}

/**
 * Any transaction from its encoded `wavesenterprise.Transaction`, whatever its type (genesis
 * types and ExecutedContract included): the inverse of transactionToProto. Stateless rules are
 * checked; the sender's signature is not.
 */
export function readProtoTransaction(protocol: TransactionProtocol, bytes: Uint8Array): Transaction {
  const { version, member, m } = decodeUnion(bytes);
  const f = BY_MEMBER.get(member);
  if (f === undefined) throw genericError('Proto-unsupported transaction', 'transaction');
  if (codecFor(f.codec.type, version) === undefined) throw genericError(`UnsupportedVersion(${version})`, 'version');
  return f.read(protocol, version, m);
}

/**
 * A transaction broadcast in protobuf form (gRPC Broadcast), refused as WE's
 * TransactionFactory.fromProto refuses: the genesis types, ExecutedContract and
 * PolicyDataHash V1/V2, then anything readProtoTransaction refuses.
 */
export function transactionFromProto(protocol: TransactionProtocol, bytes: Uint8Array): Transaction {
  const { version, member } = decodeUnion(bytes);
  if (member.startsWith('genesis')) throw genericError('Genesis transaction is not allowed to be broadcasted', 'transaction');
  if (member === 'executedContractTransaction') throw genericError('ExecutedContract transaction is not allowed to be broadcasted', 'transaction');
  if (member === 'policyDataHashTransaction' && version < 3) {
    throw genericError('PolicyDataHash V1/V2 transaction is not allowed to be broadcasted', 'transaction');
  }
  return readProtoTransaction(protocol, bytes);
}

function decodeUnion(bytes: Uint8Array): { version: number; member: string; m: Message } {
  let decoded: Message;
  try {
    decoded = TransactionMessage.decode(bytes) as unknown as Message;
  } catch (e) {
    // protobufjs throws plain Errors (and RangeErrors) for malformed input.
    throw genericError(`Invalid protobuf transaction: ${(e as Error).message}`, 'transaction');
  }
  const member = decoded['transaction'];
  if (typeof member !== 'string') throw genericError('Empty inner transaction', 'transaction');
  return { version: intIn(decoded['version']), member, m: requiredMessage(decoded[member], 'transaction') };
}
