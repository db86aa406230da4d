/**
 * Field types of WE's transaction DSL (we-core FieldType): each knows its binary
 * encoding, how the node reads it from request JSON, and how the node writes it in
 * transaction JSON. Option types read absent/null as None and write None as `null`.
 *
 * Values: int64 → bigint; keys, ids, hashes → Uint8Array; addresses → Address;
 * recipients → Address | Alias; text → string.
 */
import { Address, Alias, ADDRESS_LENGTH, type AddressScheme, type Recipient } from '../../crypto/address.js';
import { base58Length, decodeBase58, decodeBase64, encodeBase58, encodeBase64 } from '../../crypto/encoding.js';
import type { CryptoSuite } from '../../crypto/suite.js';
import { ByteReader, ByteWriter, INT64 } from '../bytes.js';
import { scalaSetOrder } from './scala-set.js';
import { DecodeError, expected, genericError, invalidAddress, WeError, wrongJson } from '../../errors/catalogue.js';

/**
 * What field types read of a network's protocol (protocol.ts's Protocol has it): its chain
 * id, crypto suite and address scheme.
 */
export interface ProtocolParams {
  readonly chainId: number;
  readonly crypto: CryptoSuite;
  readonly addresses: AddressScheme;
}

/** `P`: what of the protocol the type needs — more than its parameters for a nested transaction (schema.ts's TransactionProtocol). */
export interface FieldType<T, P extends ProtocolParams = ProtocolParams> {
  /** The DSL name, for messages and docs. */
  readonly kind: string;
  write(w: ByteWriter, value: T, p: P): void;
  read(r: ByteReader, p: P, field: string): T;
  /** `json` is `undefined` when the key is absent from the request. */
  fromJson(json: unknown, p: P, path: string): T;
  toJson(value: T, p: P): unknown;
}

// ---------------------------------------------------------------------------
// JSON readers shared by the field types (Play's Reads rules, WrongJson on failure)

export function requirePresent(json: unknown, path: string): void {
  if (json === undefined) throw wrongJson(path);
}

export function jsonLong(json: unknown, path: string): bigint {
  requirePresent(json, path);
  if (typeof json === 'bigint') {
    if (json < INT64.MIN || json > INT64.MAX) throw wrongJson(path, expected.long);
    return json;
  }
  if (typeof json !== 'number') throw wrongJson(path, expected.number);
  if (!Number.isSafeInteger(json)) {
    if (Number.isInteger(json) && Math.abs(json) < 2 ** 63) return BigInt(json);
    throw wrongJson(path, expected.long);
  }
  return BigInt(json);
}

export function jsonInt(json: unknown, path: string, min = -(2 ** 31), max = 2 ** 31 - 1, message: string = expected.int): number {
  requirePresent(json, path);
  if (typeof json === 'bigint') throw wrongJson(path, message);
  if (typeof json !== 'number') throw wrongJson(path, expected.number);
  if (!Number.isInteger(json) || json < min || json > max) throw wrongJson(path, message);
  return json;
}

export function jsonString(json: unknown, path: string): string {
  requirePresent(json, path);
  if (typeof json !== 'string') throw wrongJson(path, expected.string);
  return json;
}

export function jsonBoolean(json: unknown, path: string): boolean {
  requirePresent(json, path);
  if (typeof json !== 'boolean') throw wrongJson(path, expected.boolean);
  return json;
}

export function jsonArray(json: unknown, path: string): unknown[] {
  requirePresent(json, path);
  if (!Array.isArray(json)) throw wrongJson(path, expected.array);
  return json;
}

export function jsonObject(json: unknown, path: string): Record<string, unknown> {
  requirePresent(json, path);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw wrongJson(path, expected.object);
  return json as Record<string, unknown>;
}

/** Base58 with a length cap, failing with WE's GenericError(`error`) as BroadcastRequest.parseBase58 does. */
export function base58Field(text: string, error: string, maxBytes: number, path: string): Uint8Array {
  if (text.length > base58Length(maxBytes)) throw genericError(error, path);
  try {
    return decodeBase58(text);
  } catch {
    throw genericError(error, path);
  }
}

function utf8(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

function fromUtf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

function checkShort(length: number, path: string): void {
  if (length > 0xffff) throw genericError(`'${path}' is too long: ${length} bytes, at most 65535 can be serialized`, path);
}

const wrap = <T>(path: string, f: () => T): T => {
  try {
    return f();
  } catch (e) {
    if (e instanceof WeError) throw e.at(path);
    throw e;
  }
};

// ---------------------------------------------------------------------------
// Primitive types

export const BYTE: FieldType<number> = {
  kind: 'BYTE',
  write: (w, v) => void w.u8(v),
  read: (r, _p, f) => r.i8(f),
  fromJson: (j, _p, path) => jsonInt(j, path, -128, 127, expected.byte),
  toJson: (v) => v,
};

export const BOOLEAN: FieldType<boolean> = {
  kind: 'BOOLEAN',
  write: (w, v) => void w.bool(v),
  read: (r, _p, f) => r.bool(f),
  fromJson: (j, _p, path) => jsonBoolean(j, path),
  toJson: (v) => v,
};

export const INT: FieldType<number> = {
  kind: 'INT',
  write: (w, v) => void w.i32(v),
  read: (r, _p, f) => r.i32(f),
  fromJson: (j, _p, path) => jsonInt(j, path),
  toJson: (v) => v,
};

export const LONG: FieldType<bigint> = {
  kind: 'LONG',
  write: (w, v) => void w.i64(v),
  read: (r, _p, f) => r.i64(f),
  fromJson: (j, _p, path) => jsonLong(j, path),
  toJson: (v) => v,
};

/** u16 UTF-8 length ‖ UTF-8. */
export const SHORT_STRING: FieldType<string> = {
  kind: 'SHORT_STRING',
  write: (w, v) => void w.shortBytes(utf8(v)),
  read: (r, _p, f) => fromUtf8(r.shortBytes(f)),
  fromJson: (j, _p, path) => {
    const s = jsonString(j, path);
    checkShort(Buffer.byteLength(s, 'utf8'), path);
    return s;
  },
  toJson: (v) => v,
};

/**
 * SHORT_BYTE_ARRAY given as Base58 in JSON (attachments): absent, null and "" are empty;
 * a bad or over-long string is GenericError(`error`).
 */
export function shortBase58Bytes(error: string, maxBytes: number): FieldType<Uint8Array> {
  return {
    kind: 'SHORT_BYTE_ARRAY',
    write: (w, v) => void w.shortBytes(v),
    read: (r, _p, f) => r.shortBytes(f),
    fromJson: (j, _p, path) => {
      if (j === undefined || j === null || j === '') return new Uint8Array(0);
      return base58Field(jsonString(j, path), error, maxBytes, path);
    },
    toJson: (v) => encodeBase58(v),
  };
}

export const ASSET_ID_LENGTH = 32;

function readAssetIdJson(text: string, path: string, error: string): Uint8Array {
  const bytes = base58Field(text, error, ASSET_ID_LENGTH, path);
  if (bytes.length !== ASSET_ID_LENGTH) throw genericError(error, path);
  return bytes;
}

/** 32 raw bytes; Base58 in JSON. */
export function assetIdType(error = 'invalid.assetId'): FieldType<Uint8Array> {
  return {
    kind: 'ASSET_ID',
    write: (w, v) => void w.bytes(v),
    read: (r, _p, f) => r.bytes(ASSET_ID_LENGTH, f),
    fromJson: (j, _p, path) => readAssetIdJson(jsonString(j, path), path, error),
    toJson: (v) => encodeBase58(v),
  };
}

export const ASSET_ID = assetIdType();

/** Generic OPTION(X): 00, or 01 ‖ X. JSON: absent or null = None. */
export function option<T>(inner: FieldType<T>): FieldType<T | null> {
  return {
    kind: `OPTION(${inner.kind})`,
    write: (w, v, p) => {
      if (v === null) w.u8(0);
      else inner.write(w.u8(1), v, p);
    },
    read: (r, p, f) => {
      const flag = r.u8(f);
      if (flag === 0) return null;
      if (flag !== 1) throw new DecodeError(`Invalid option flag ${flag} for ${f}`, f);
      return inner.read(r, p, f);
    },
    fromJson: (j, p, path) => (j === undefined || j === null ? null : inner.fromJson(j, p, path)),
    toJson: (v, p) => (v === null ? null : inner.toJson(v, p)),
  };
}

/**
 * ASSET_ID.? as the signed request classes read it: absent, null and "" are None (WEST);
 * otherwise Base58 of 32 bytes, GenericError(`error`) if not.
 */
export function optionalAssetIdType(error: string): FieldType<Uint8Array | null> {
  const inner = assetIdType(error);
  return {
    ...option(inner),
    fromJson: (j, p, path) => (j === undefined || j === null || j === '' ? null : inner.fromJson(j, p, path)),
  };
}

export const OPT_ASSET_ID = optionalAssetIdType('invalid.assetId');

export const PUBLIC_KEY: FieldType<Uint8Array> = {
  kind: 'PUBLIC_KEY_ACCOUNT',
  write: (w, v) => void w.bytes(v),
  read: (r, p, f) => r.bytes(p.crypto.publicKeyLength, f),
  fromJson: (j, p, path) => p.addresses.parsePublicKey(jsonString(j, path), path),
  toJson: (v) => encodeBase58(v),
};

export const ADDRESS: FieldType<Address> = {
  kind: 'ADDRESS',
  write: (w, v) => void w.bytes(v.bytes),
  read: (r, p, f) => wrap(f, () => p.addresses.addressFromBytes(r.bytes(ADDRESS_LENGTH, f), f)),
  fromJson: (j, p, path) => p.addresses.parseAddress(jsonString(j, path), path),
  toJson: (v) => v.toString(),
};

/** ADDRESS_OR_ALIAS: the first byte tells (0x01 address, 0x02 alias); no length prefix. */
export const RECIPIENT: FieldType<Recipient> = {
  kind: 'ADDRESS_OR_ALIAS',
  write: (w, v) => void w.bytes(v.bytes),
  read: (r, p, f) => readRecipient(r, p, f),
  fromJson: (j, p, path) => p.addresses.parseRecipient(jsonString(j, path), path),
  toJson: (v) => v.toString(),
};

export function readRecipient(r: ByteReader, p: ProtocolParams, f: string): Recipient {
  const start = r.pos;
  const version = r.u8(f);
  if (version === 1) {
    r.pos = start;
    return wrap(f, () => p.addresses.addressFromBytes(r.bytes(ADDRESS_LENGTH, f), f));
  }
  if (version === 2) {
    r.u8(f);
    const n = r.u16(f);
    r.pos = start;
    return wrap(f, () => p.addresses.aliasFromBytes(r.bytes(4 + n, f), f));
  }
  throw invalidAddress(`Unknown address/alias version ${(version << 24) >> 24}`, f);
}

/** ALIAS (CreateAlias): u16 length ‖ alias bytes; JSON is the bare name. */
export const ALIAS: FieldType<Alias> = {
  kind: 'ALIAS',
  write: (w, v) => void w.shortBytes(v.bytes),
  read: (r, p, f) => {
    const bytes = r.shortBytes(f);
    return wrap(f, () => p.addresses.aliasFromBytes(bytes, f));
  },
  fromJson: (j, p, path) => p.addresses.alias(jsonString(j, path), path),
  toJson: (v) => v.name,
};

/** NODE_NAME: a SHORT_STRING where None is written as the empty string. */
export const NODE_NAME: FieldType<string | null> = {
  kind: 'NODE_NAME',
  write: (w, v) => void w.shortBytes(utf8(v ?? '')),
  read: (r, _p, f) => {
    const s = fromUtf8(r.shortBytes(f));
    return s === '' ? null : s;
  },
  fromJson: (j, p, path) => (j === undefined || j === null ? null : SHORT_STRING.fromJson(j, p, path)),
  toJson: (v) => v,
};

export type OpType = 'add' | 'remove';

/**
 * PERMISSION_OP_TYPE: 'a' (0x61) or 'r' (0x72); JSON "add" / "remove", read case-insensitively
 * with WE's OpType.fromStr / fromByte messages.
 */
export const OP_TYPE: FieldType<OpType> = {
  kind: 'PERMISSION_OP_TYPE',
  write: (w, v) => void w.u8(v === 'add' ? 0x61 : 0x72),
  read: (r, _p, f) => {
    const b = r.u8(f);
    if (b === 0x61) return 'add';
    if (b === 0x72) return 'remove';
    throw new DecodeError(`OpType.fromByte failure: unknown operation byte ${(b << 24) >> 24}`, f);
  },
  fromJson: (j, _p, path) => {
    const s = jsonString(j, path).toLowerCase();
    if (s === 'add' || s === 'remove') return s;
    throw genericError(`OpType.fromStr failure: unknown operation string ${s}`, path);
  },
  toJson: (v) => v,
};

// ---------------------------------------------------------------------------
// Composite types

export type AtomicBadge = { readonly trustedSender: Address | null };

/** ATOMIC_BADGE: 00 (no trusted sender) or 01 ‖ address. JSON `{}` / `{"trustedSender": addr}`. */
export const ATOMIC_BADGE: FieldType<AtomicBadge> = {
  kind: 'ATOMIC_BADGE',
  write: (w, v) => {
    if (v.trustedSender === null) w.u8(0);
    else w.u8(1).bytes(v.trustedSender.bytes);
  },
  read: (r, p, f) => ({ trustedSender: option(ADDRESS).read(r, p, f) }),
  fromJson: (j, p, path) => {
    const o = jsonObject(j, path);
    const ts = o['trustedSender'];
    return { trustedSender: ts === undefined || ts === null ? null : ADDRESS.fromJson(ts, p, `${path}.trustedSender`) };
  },
  toJson: (v) => (v.trustedSender === null ? {} : { trustedSender: v.trustedSender.toString() }),
};

export const OPT_ATOMIC_BADGE = option(ATOMIC_BADGE);

/** SHORT_LIST(X): u16 count ‖ X*. */
export function shortList<T>(inner: FieldType<T>): FieldType<T[]> {
  return {
    kind: `SHORT_LIST(${inner.kind})`,
    write: (w, v, p) => {
      w.u16(v.length);
      for (const x of v) inner.write(w, x, p);
    },
    read: (r, p, f) => {
      const n = r.u16(f);
      const out: T[] = [];
      for (let i = 0; i < n; i++) out.push(inner.read(r, p, `${f}(${i})`));
      return out;
    },
    fromJson: (j, p, path) => {
      const arr = jsonArray(j, path);
      if (arr.length > 0xffff) throw genericError(`'${path}' has ${arr.length} items, at most 65535 can be serialized`, path);
      return arr.map((x, i) => inner.fromJson(x, p, `${path}(${i})`));
    },
    toJson: (v, p) => v.map((x) => inner.toJson(x, p)),
  };
}

/** BIG_LIST(X): i32 count ‖ X*; list order kept. */
export function bigList<T>(inner: FieldType<T>): FieldType<T[]> {
  return {
    kind: `BIG_LIST(${inner.kind})`,
    write: (w, v, p) => {
      w.i32(v.length);
      for (const x of v) inner.write(w, x, p);
    },
    read: (r, p, f) => {
      const n = r.i32(f);
      if (n < 0 || n > r.remaining) throw new DecodeError(`Invalid list size ${n} for ${f}`, f);
      const out: T[] = [];
      for (let i = 0; i < n; i++) out.push(inner.read(r, p, `${f}(${i})`));
      return out;
    },
    fromJson: (j, p, path) => jsonArray(j, path).map((x, i) => inner.fromJson(x, p, `${path}(${i})`)),
    toJson: (v, p) => v.map((x) => inner.toJson(x, p)),
  };
}

/**
 * SHORT_SET(ADDRESS): a Scala immutable Set of addresses, serialized in its iteration
 * order (see scala-set.ts). `rejectDuplicates` mirrors the JSON readers that refuse them.
 */
export function addressSet(rejectDuplicates: boolean): FieldType<Address[]> {
  const order = (xs: Address[]): Address[] =>
    scalaSetOrder(
      xs,
      (a) => a.bytes,
      (a) => a.toString(),
    );
  return {
    kind: 'SHORT_SET(ADDRESS)',
    write: (w, v) => {
      w.u16(v.length);
      for (const a of v) w.bytes(a.bytes);
    },
    read: (r, p, f) => order(shortList(ADDRESS).read(r, p, f)),
    fromJson: (j, p, path) => {
      const list = shortList(ADDRESS).fromJson(j, p, path);
      if (rejectDuplicates) {
        const seen = new Set<string>();
        for (const a of list) {
          const s = a.toString();
          if (seen.has(s)) throw genericError(`Duplicate address '${s}' in '${path}'`, path);
          seen.add(s);
        }
      }
      return order(list);
    },
    toJson: (v) => v.map((a) => a.toString()),
  };
}

// ---------------------------------------------------------------------------
// Data entries

export type DataEntry =
  | { readonly key: string; readonly type: 'integer'; readonly value: bigint }
  | { readonly key: string; readonly type: 'boolean'; readonly value: boolean }
  | { readonly key: string; readonly type: 'binary'; readonly value: Uint8Array }
  | { readonly key: string; readonly type: 'string'; readonly value: string };

const DATA_TYPES = ['integer', 'boolean', 'binary', 'string'] as const;

/**
 * DATA_ENTRY (value lengths u16, Data tx) and CONTRACT_DATA_ENTRY (value lengths u32, contract params).
 * JSON reading follows WE's DataEntry.Format messages.
 */
export function dataEntryType(wideValues: boolean): FieldType<DataEntry> {
  const writeLen = (w: ByteWriter, b: Uint8Array): void => {
    if (wideValues) w.longBytes(b);
    else w.shortBytes(b);
  };
  const readLen = (r: ByteReader, f: string): Uint8Array => (wideValues ? r.longBytes(f) : r.shortBytes(f));
  return {
    kind: wideValues ? 'CONTRACT_DATA_ENTRY' : 'DATA_ENTRY',
    write: (w, e) => {
      w.shortBytes(utf8(e.key));
      switch (e.type) {
        case 'integer':
          w.u8(0).i64(e.value);
          return;
        case 'boolean':
          w.u8(1).bool(e.value);
          return;
        case 'binary':
          w.u8(2);
          writeLen(w, e.value);
          return;
        case 'string':
          w.u8(3);
          writeLen(w, utf8(e.value));
          return;
      }
    },
    read: (r, _p, f) => {
      const key = fromUtf8(r.shortBytes(f));
      const t = r.u8(f);
      switch (t) {
        case 0:
          return { key, type: 'integer', value: r.i64(f) };
        case 1:
          // DataEntryOps.parseValue: any non-zero byte is true (unlike BOOLEAN fields).
          return { key, type: 'boolean', value: r.u8(f) !== 0 };
        case 2:
          return { key, type: 'binary', value: readLen(r, f) };
        case 3:
          return { key, type: 'string', value: fromUtf8(readLen(r, f)) };
        default:
          throw new DecodeError(`Unknown data entry type ${t}`, f);
      }
    },
    fromJson: (j, _p, path) => {
      const o = jsonObject(j, path);
      const key = o['key'];
      if (typeof key !== 'string') throw wrongJson(path, 'key is missing');
      const type = o['type'];
      if (typeof type !== 'string') throw wrongJson(path, 'type is missing');
      if (!(DATA_TYPES as readonly string[]).includes(type)) throw wrongJson(path, `unknown type ${type}`);
      checkShort(Buffer.byteLength(key, 'utf8'), `${path}.key`);
      const value = o['value'];
      switch (type as DataEntry['type']) {
        case 'integer': {
          if (typeof value !== 'number' && typeof value !== 'bigint') throw wrongJson(path, 'value is missing or is not an integer');
          const n = typeof value === 'bigint' ? value : Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? BigInt(value) : undefined;
          if (n === undefined || n < INT64.MIN || n > INT64.MAX) {
            throw wrongJson(path, `value ${String(value)} on key ${key} is too big for integer (max value = ${INT64.MAX}) or is not an integer`);
          }
          return { key, type: 'integer', value: n };
        }
        case 'boolean':
          if (typeof value !== 'boolean') throw wrongJson(path, 'value is missing or is not a boolean value');
          return { key, type: 'boolean', value };
        case 'binary':
          if (typeof value !== 'string') throw wrongJson(path, 'value is missing or is not a string');
          try {
            return { key, type: 'binary', value: decodeBase64(value) };
          } catch (e) {
            throw wrongJson(path, (e as Error).message);
          }
        case 'string':
          if (typeof value !== 'string') throw wrongJson(path, 'value is missing or is not a string');
          return { key, type: 'string', value };
      }
    },
    toJson: (e) => ({
      key: e.key,
      type: e.type,
      value: e.type === 'binary' ? `base64:${encodeBase64(e.value)}` : e.value,
    }),
  };
}

export const DATA_ENTRY = dataEntryType(false);
export const CONTRACT_DATA_ENTRY = dataEntryType(true);

/** Byte length of a data entry's value (for the 32 767-byte limit). */
export function dataEntryValueSize(e: DataEntry): number {
  if (e.type === 'binary') return e.value.length;
  if (e.type === 'string') return Buffer.byteLength(e.value, 'utf8');
  return 0;
}
