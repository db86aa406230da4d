/**
 * Field types and stateless rules of the contract transactions (CreateContract 103,
 * CallContract 104, DisableContract 106, UpdateContract 107; ExecutedContract 105 adds
 * its own in contracts-executed.ts), as we-core lays them out and the WE node reads
 * them from broadcast JSON.
 */
import type { Address } from '../../crypto/address.js';
import { base58Length, decodeBase58, decodeBase64, encodeBase58, encodeBase64, EncodingError } from '../../crypto/encoding.js';
import {
  ADDRESS,
  addressSet,
  ASSET_ID_LENGTH,
  assetIdType,
  CONTRACT_DATA_ENTRY,
  jsonArray,
  jsonLong,
  jsonString,
  option,
  optionalAssetIdType,
  requirePresent,
  shortList,
  SHORT_STRING,
  type DataEntry,
  type FieldType,
} from './fields.js';
import { scalaSetOrder, scalaSetOrderBy } from './scala-set.js';
import {
  DecodeError,
  expected,
  genericError,
  invalidContractApiVersion,
  invalidContractId,
  invalidContractKeys,
  undecodableHash,
  unknownContractEngine,
  ValidationError,
  WeError,
  wrongJson,
} from '../../errors/catalogue.js';

// ---------------------------------------------------------------------------
// Limits (ContractTransactionValidation, ExecutableTransaction, ContractTransactionEntryOps)

export const IMAGE_MIN_LENGTH = 1;
export const IMAGE_MAX_LENGTH = 200;
export const CONTRACT_NAME_MAX_LENGTH = 200;
export const SHA256_HEX_LENGTH = 64;
export const CONTRACT_KEY_MAX_LENGTH = 100;
/** Full bytes of a CreateContract / CallContract (ExecutableTransaction.MaxBytes, 125 KiB). */
export const MAX_EXECUTABLE_TX_BYTES = 125 * 1024;
/** Full bytes of an ExecutedContract (300 KiB). */
export const MAX_EXECUTED_TX_BYTES = 300 * 1024;
/** Commitments and readings hashes: the crypto digest size. */
export const COMMITMENT_LENGTH = 32;
/**
 * Longest Base58 text read for an id the node takes at any length (contract ids,
 * commitments). WE has no cap; honest ids are 32 bytes, and Base58 decoding is
 * quadratic, so longer text is refused with the field's own error.
 */
export const MAX_ID_BASE58_LENGTH = base58Length(1024);

// ---------------------------------------------------------------------------
// Scala collection order (Map/Set of up to 4 keep insertion order, larger ones are tries)

/** Java String#hashCode (UTF-16 code units). */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * Entries of a Scala 2.12 immutable Map built from `entries` in that order, in its
 * iteration order: a repeated key keeps its first position and takes the last value.
 */
export function scalaMapOrder<K, V>(entries: readonly (readonly [K, V])[], hashOf: (k: K) => number, identity: (k: K) => string): Array<[K, V]> {
  const last = new Map<string, V>();
  const firstKeys: K[] = [];
  for (const [k, v] of entries) {
    const id = identity(k);
    if (!last.has(id)) firstKeys.push(k);
    last.set(id, v);
  }
  return scalaSetOrderBy(firstKeys, hashOf, identity).map((k) => [k, last.get(identity(k)) as V]);
}

// ---------------------------------------------------------------------------
// Stateless rules with WE's messages

/** ContractTransactionValidation.validateImage (length in UTF-16 units, as Java counts). */
export function validateImage(image: string): void {
  if (image.length < IMAGE_MIN_LENGTH || image.length > IMAGE_MAX_LENGTH) {
    throw genericError(`Incorrect image length: ${image.length}. Length must be between ${IMAGE_MIN_LENGTH} and ${IMAGE_MAX_LENGTH}`);
  }
}

const isSha256Hex = (s: string): boolean => s.length === SHA256_HEX_LENGTH && /^[0-9a-fA-F]*$/.test(s);

/** ContractTransactionValidation.validateHash(imageHash). */
export function validateImageHash(imageHash: string): void {
  if (!isSha256Hex(imageHash)) throw genericError(`Image hash string ${imageHash} is not valid SHA-256 hex string`);
}

/** ContractTransactionValidation.validateContractName. */
export function validateContractName(name: string): void {
  if (name.length === 0 || name.length > CONTRACT_NAME_MAX_LENGTH) {
    throw genericError(`Incorrect contractName length: ${name.length}. It must be non-empty and its length must be less than ${CONTRACT_NAME_MAX_LENGTH}`);
  }
}

/** Java Character.isWhitespace for a code point. */
function isJavaWhitespace(cp: number): boolean {
  if ((cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20)) return true;
  if (cp === 0x1680 || cp === 0x2028 || cp === 0x2029 || cp === 0x205f || cp === 0x3000) return true;
  return cp >= 0x2000 && cp <= 0x200a && cp !== 0x2007;
}

/** Printable ASCII `!`–`~` and the Russian letters а–я, А–Я (not ё/Ё). */
function isAllowedKeyChar(cp: number): boolean {
  return (cp >= 0x21 && cp <= 0x7e) || (cp >= 0x410 && cp <= 0x44f);
}

/**
 * StringUtilites.ValidateAsciiAndRussian.findNotValid: the forbidden characters of a key
 * (runs of disallowed characters that are not all whitespace), as the Scala Set of their
 * UTF-16 units prints them; null when the key is acceptable.
 */
export function forbiddenKeyChars(key: string): string | null {
  const units: number[] = [];
  let run: number[] = [];
  let runBlank = true;
  const flush = (): void => {
    if (run.length > 0 && !runBlank) units.push(...run);
    run = [];
    runBlank = true;
  };
  for (let i = 0; i < key.length;) {
    const cp = key.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    if (isAllowedKeyChar(cp)) flush();
    else {
      for (let j = 0; j < width; j++) run.push(key.charCodeAt(i + j));
      if (!isJavaWhitespace(cp)) runBlank = false;
    }
    i += width;
  }
  flush();
  if (units.length === 0) return null;
  return String.fromCharCode(
    ...scalaSetOrderBy(
      units,
      (u) => u,
      (u) => u,
    ),
  );
}

/**
 * validateParams / validateResults: forbidden characters, empty keys, duplicate keys, key
 * length — in that order. `what` is `Param` or `Result`.
 */
export function validateContractEntries(entries: readonly DataEntry[], what: 'Param' | 'Result'): void {
  const bad: Array<readonly [string, string]> = [];
  for (const e of entries) {
    const chars = forbiddenKeyChars(e.key);
    if (chars !== null) bad.push([e.key, chars]);
  }
  if (bad.length > 0) {
    // Built as foldRight over the list: the map receives the keys last to first.
    throw invalidContractKeys(scalaMapOrder([...bad].reverse(), javaStringHash, (k) => k));
  }
  if (entries.some((e) => e.key.length === 0)) throw genericError(`${what} with empty key was found`);
  if (new Set(entries.map((e) => e.key)).size !== entries.length) throw genericError(`${what}s with duplicate keys were found`);
  if (entries.some((e) => e.key.length > CONTRACT_KEY_MAX_LENGTH)) throw genericError(`Key length exceeds max length ${CONTRACT_KEY_MAX_LENGTH}`);
}

/** CommitmentValidations.validateCommitment. */
export function validateCommitment(commitment: Uint8Array): void {
  if (commitment.length !== COMMITMENT_LENGTH) {
    throw genericError(`Invalid commitment hash length: '${commitment.length}', it should be current crypto digest size: '${COMMITMENT_LENGTH}'`);
  }
}

/** WasmContractSupported.validateContractEngine (UnknownContractEngineError, rendered under 199). */
export function validateContractEngine(engine: string): void {
  if (engine !== 'docker' && engine !== 'wasm') throw unknownContractEngine();
}

// ---------------------------------------------------------------------------
// Small JSON helpers

function isObject(j: unknown): j is Record<string, unknown> {
  return typeof j === 'object' && j !== null && !Array.isArray(j);
}

/** A WeError's message as a Play JsError would carry it (without WE's ApiError prefix). */
function reasonOf(e: WeError): string {
  for (const prefix of ['invalid address: ', 'invalid public key: ']) {
    if (e.message.startsWith(prefix)) return e.message.slice(prefix.length);
  }
  return e.message;
}

/** ByteStr's Play Reads: a Base58 string of any length. */
export function jsonByteStr(j: unknown, path: string, maxBase58 = MAX_ID_BASE58_LENGTH): Uint8Array {
  requirePresent(j, path);
  if (typeof j !== 'string') throw wrongJson(path, 'Expected JsString');
  if (j.length > maxBase58) throw wrongJson(path, `Error parsing base58: the string is longer than ${maxBase58} characters`);
  try {
    return decodeBase58(j);
  } catch (e) {
    throw wrongJson(path, `Error parsing base58: ${(e as EncodingError).message}`);
  }
}

/** A 32-byte asset id given as ByteStr JSON (payments, V7 feeAssetId); other lengths are refused. */
function jsonAssetIdByteStr(j: unknown, path: string): Uint8Array {
  const bytes = jsonByteStr(j, path, base58Length(ASSET_ID_LENGTH));
  if (bytes.length !== ASSET_ID_LENGTH) throw wrongJson(path, `Error parsing asset id: expected ${ASSET_ID_LENGTH} bytes, got ${bytes.length}`);
  return bytes;
}

// ---------------------------------------------------------------------------
// Ids

/** contractId of Call/Disable/Update: SHORT_BYTE_STR; bad Base58 is InvalidContractId (199). */
export const CONTRACT_ID: FieldType<Uint8Array> = {
  kind: 'SHORT_BYTE_STR',
  write: (w, v) => void w.shortBytes(v),
  read: (r, _p, f) => r.shortBytes(f),
  fromJson: (j, _p, path) => {
    const text = jsonString(j, path);
    const invalid = (): ValidationError => invalidContractId(text, path);
    if (text.length > MAX_ID_BASE58_LENGTH) throw invalid();
    try {
      return decodeBase58(text);
    } catch {
      throw invalid();
    }
  },
  toJson: (v) => encodeBase58(v),
};

/** feeAssetId (ASSET_ID.?) as the docker request classes read it: "" is None, bad text is `invalid feeAssetId`. */
export const FEE_ASSET_ID = optionalAssetIdType('invalid feeAssetId');

/**
 * feeAssetId of CreateContract V7 / UpdateContract V6, read as Option[ByteStr] (Play
 * errors). WE would take "" as an empty asset id and any length; Weft takes "" as None
 * and refuses other lengths, which WE would sign into unusable bytes.
 */
export const FEE_ASSET_ID_BYTESTR: FieldType<Uint8Array | null> = {
  ...option(assetIdType()),
  fromJson: (j, _p, path) => (j === undefined || j === null || j === '' ? null : jsonAssetIdByteStr(j, path)),
};

// ---------------------------------------------------------------------------
// VALIDATION_POLICY

export type ValidationPolicy =
  { readonly type: 'any' } | { readonly type: 'majority' } | { readonly type: 'majority_with_one_of'; readonly addresses: readonly Address[] };

const POLICY_BYTES = { any: 0, majority: 1, majority_with_one_of: 2 } as const;

/** 00 any, 01 majority, 02 ‖ u16 count ‖ addresses; JSON `{"type": …, "addresses": […]}`. */
export const VALIDATION_POLICY: FieldType<ValidationPolicy> = {
  kind: 'VALIDATION_POLICY',
  write: (w, v) => {
    w.u8(POLICY_BYTES[v.type]);
    if (v.type === 'majority_with_one_of') {
      w.u16(v.addresses.length);
      for (const a of v.addresses) w.bytes(a.bytes);
    }
  },
  read: (r, p, f) => {
    const b = r.u8(f);
    if (b === 0) return { type: 'any' };
    if (b === 1) return { type: 'majority' };
    if (b === 2) return { type: 'majority_with_one_of', addresses: shortList(ADDRESS).read(r, p, f) };
    throw new DecodeError(`Unknown validation policy type ${(b << 24) >> 24}`, f);
  },
  fromJson: (j, p, path) => {
    requirePresent(j, path);
    const fail = (): never => {
      throw wrongJson(path, 'Expected validation policy json object');
    };
    if (!isObject(j)) return fail();
    const type = j['type'];
    if (type === 'any' || type === 'majority') return { type };
    if (type !== 'majority_with_one_of') return fail();
    const list = j['addresses'];
    if (list === undefined) throw wrongJson(path, "Field 'addresses' not found");
    if (!Array.isArray(list)) throw wrongJson(`${path}.addresses`, expected.array);
    const addresses = list.map((item, i) => {
      const itemPath = `${path}.addresses(${i})`;
      if (typeof item !== 'string') throw wrongJson(itemPath, 'Expected string value');
      try {
        return p.addresses.parseAddress(item, itemPath);
      } catch (e) {
        if (e instanceof WeError) throw wrongJson(itemPath, reasonOf(e));
        throw e;
      }
    });
    if (addresses.length > 0xffff) throw genericError(`'${path}' has ${addresses.length} addresses, at most 65535 can be serialized`, path);
    return { type, addresses };
  },
  toJson: (v) => (v.type === 'majority_with_one_of' ? { type: v.type, addresses: v.addresses.map((a) => a.toString()) } : { type: v.type }),
};

/** ContractTransactionValidation.validateValidationPolicy. */
export function validateValidationPolicy(policy: ValidationPolicy): void {
  if (policy.type === 'majority_with_one_of' && policy.addresses.length === 0) {
    throw genericError("Empty policy addresses. Use 'majority' instead of 'majority_with_one_of'.");
  }
}

// ---------------------------------------------------------------------------
// CONTRACT_API_VERSION

export interface ContractApiVersion {
  readonly major: number;
  readonly minor: number;
}

const API_VERSION_PATTERN_TEXT = '^(\\d+)\\.(\\d+).*';
/** Java's `.` does not match line terminators. */
const API_VERSION_PATTERN = /^(\d+)\.(\d+)[^\n\r\u0085\u2028\u2029]*$/;
const SHORT_MAX = 32767;

/** `"1.0"` → {1, 0}; WE's ContractApiVersion JSON reader (pattern) and fromString (range, 645). */
export function parseContractApiVersion(text: string, path?: string): ContractApiVersion {
  const m = API_VERSION_PATTERN.exec(text);
  if (m === null) throw wrongJson(path, `Invalid contract api version. Expected string pattern '${API_VERSION_PATTERN_TEXT}'`);
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (!(major <= SHORT_MAX && minor <= SHORT_MAX)) {
    throw invalidContractApiVersion(`Contract API version values must be within the [0-${SHORT_MAX}] range`, path);
  }
  return { major, minor };
}

/** u16 major ‖ u16 minor (Java shorts, non-negative); JSON `"major.minor"`. */
export const CONTRACT_API_VERSION: FieldType<ContractApiVersion> = {
  kind: 'CONTRACT_API_VERSION',
  write: (w, v) => void w.i16(v.major).i16(v.minor),
  read: (r, _p, f) => {
    const major = r.i16(f);
    const minor = r.i16(f);
    if (major < 0 || minor < 0) throw new DecodeError('requirement failed: ContractApiVersion values must be positive', f);
    return { major, minor };
  },
  fromJson: (j, _p, path) => {
    requirePresent(j, path);
    if (typeof j !== 'string') throw wrongJson(path, `Invalid contract api version. Expected string pattern '${API_VERSION_PATTERN_TEXT}'`);
    return parseContractApiVersion(j, path);
  },
  toJson: (v) => `${v.major}.${v.minor}`,
};

// ---------------------------------------------------------------------------
// CONTRACT_TRANSFER_IN (payments)

export interface ContractTransferIn {
  /** null = WEST. */
  readonly assetId: Uint8Array | null;
  readonly amount: bigint;
}

const OPT_ASSET_ID_STRICT = option(assetIdType());

/** `00 ‖ i64` (WEST) or `01 ‖ assetId ‖ i64`; JSON `{"assetId"?, "amount"}`. */
export const CONTRACT_TRANSFER_IN: FieldType<ContractTransferIn> = {
  kind: 'CONTRACT_TRANSFER_IN',
  write: (w, v, p) => {
    OPT_ASSET_ID_STRICT.write(w, v.assetId, p);
    w.i64(v.amount);
  },
  read: (r, p, f) => ({ assetId: OPT_ASSET_ID_STRICT.read(r, p, f), amount: r.i64(f) }),
  fromJson: (j, _p, path) => {
    requirePresent(j, path);
    if (!isObject(j)) throw wrongJson(path, expected.object);
    const a = j['assetId'];
    const assetId = a === undefined || a === null ? null : jsonAssetIdByteStr(a, `${path}.assetId`);
    return { assetId, amount: jsonLong(j['amount'], `${path}.amount`) };
  },
  toJson: (v) => (v.assetId === null ? { amount: v.amount } : { assetId: encodeBase58(v.assetId), amount: v.amount }),
};

export const PAYMENTS = shortList(CONTRACT_TRANSFER_IN);

// ---------------------------------------------------------------------------
// STORED_CONTRACT

export type StoredContract =
  | { readonly engine: 'docker'; readonly image: string; readonly imageHash: string; readonly apiVersion: ContractApiVersion }
  | { readonly engine: 'wasm'; readonly bytecode: Uint8Array; readonly bytecodeHash: string };

function playJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? 'null';
}

function unexpectedStoredContract(j: unknown, path: string): ValidationError {
  return wrongJson(
    path,
    `unexpected storedContract json ${playJson(j)}.\n` +
      '  Expecting one of:\n' +
      '    "storedContract": {"bytecode": "...", "bytecodeHash": "..."}\n' +
      '    "storedContract": {"image": "...", "imageHash": "...", "apiVersion": "..."}',
  );
}

/**
 * docker `00 ‖ image ‖ imageHash ‖ apiVersion`, wasm `01 ‖ u32 length ‖ bytecode ‖ bytecodeHash`;
 * JSON with exactly those keys (WASM bytecode as plain Base64, `base64:` accepted on input).
 */
export const STORED_CONTRACT: FieldType<StoredContract> = {
  kind: 'STORED_CONTRACT',
  write: (w, v, p) => {
    if (v.engine === 'docker') {
      w.u8(0);
      SHORT_STRING.write(w, v.image, p);
      SHORT_STRING.write(w, v.imageHash, p);
      CONTRACT_API_VERSION.write(w, v.apiVersion, p);
    } else {
      w.u8(1).longBytes(v.bytecode);
      SHORT_STRING.write(w, v.bytecodeHash, p);
    }
  },
  read: (r, p, f) => {
    const kind = r.u8(f);
    if (kind === 0) {
      return {
        engine: 'docker',
        image: SHORT_STRING.read(r, p, f),
        imageHash: SHORT_STRING.read(r, p, f),
        apiVersion: CONTRACT_API_VERSION.read(r, p, f),
      };
    }
    if (kind !== 1) throw new DecodeError(`Unknown stored contract type ${kind}`, f);
    const n = r.i32(f);
    if (n < 0 || n > r.remaining) throw new DecodeError(`Invalid bytecode length ${n}`, f);
    const bytecode = r.bytes(n, f);
    return { engine: 'wasm', bytecode, bytecodeHash: SHORT_STRING.read(r, p, f) };
  },
  fromJson: (j, p, path) => {
    requirePresent(j, path);
    if (!isObject(j)) throw unexpectedStoredContract(j, path);
    const keys = Object.keys(j);
    const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(j, k);
    const shapeOk = has('apiVersion') ? keys.length === 3 : keys.length === 2;
    if (!shapeOk) throw unexpectedStoredContract(j, path);
    if (has('bytecode') && has('bytecodeHash')) {
      const code = j['bytecode'];
      const hash = j['bytecodeHash'];
      if (typeof code !== 'string') throw wrongJson(`${path}.bytecode`, expected.string);
      if (typeof hash !== 'string') throw wrongJson(`${path}.bytecodeHash`, expected.string);
      let bytecode: Uint8Array;
      try {
        bytecode = decodeBase64(code);
      } catch (e) {
        throw wrongJson(path, (e as EncodingError).message);
      }
      checkShortString(hash, `${path}.bytecodeHash`);
      return { engine: 'wasm', bytecode, bytecodeHash: hash };
    }
    if (has('image') && has('imageHash') && has('apiVersion')) {
      return {
        engine: 'docker',
        image: SHORT_STRING.fromJson(j['image'], p, `${path}.image`),
        imageHash: SHORT_STRING.fromJson(j['imageHash'], p, `${path}.imageHash`),
        apiVersion: CONTRACT_API_VERSION.fromJson(j['apiVersion'], p, `${path}.apiVersion`),
      };
    }
    throw unexpectedStoredContract(j, path);
  },
  toJson: (v) =>
    v.engine === 'docker'
      ? { image: v.image, imageHash: v.imageHash, apiVersion: `${v.apiVersion.major}.${v.apiVersion.minor}` }
      : { bytecode: encodeBase64(v.bytecode), bytecodeHash: v.bytecodeHash },
};

function checkShortString(s: string, path: string): void {
  const n = Buffer.byteLength(s, 'utf8');
  if (n > 0xffff) throw genericError(`'${path}' is too long: ${n} bytes, at most 65535 can be serialized`, path);
}

/** ContractTransactionValidation.validateHash(storedContract). */
export function validateStoredContractHash(c: StoredContract): void {
  if (c.engine === 'wasm') {
    if (!isSha256Hex(c.bytecodeHash)) throw genericError(`Bytecode hash string ${c.bytecodeHash} is not valid SHA-256 hex string`);
  } else validateImageHash(c.imageHash);
}

// ---------------------------------------------------------------------------
// COMMITMENT

/** A Commitment read from Base58 JSON; a bad string is WE's InvalidHash rendered under 199. */
function commitmentFromJson(j: unknown, path: string): Uint8Array {
  const text = jsonString(j, path);
  const fail = (why: string): ValidationError => undecodableHash(why, path);
  if (text.length > MAX_ID_BASE58_LENGTH) throw fail(`the string is longer than ${MAX_ID_BASE58_LENGTH} characters`);
  try {
    return decodeBase58(text);
  } catch (e) {
    throw fail((e as EncodingError).message);
  }
}

/** 32 raw bytes; Base58 in JSON. Its length is checked by validateCommitment. */
export const COMMITMENT: FieldType<Uint8Array> = {
  kind: 'COMMITMENT',
  write: (w, v) => void w.bytes(v),
  read: (r, _p, f) => r.bytes(COMMITMENT_LENGTH, f),
  fromJson: (j, _p, path) => commitmentFromJson(j, path),
  toJson: (v) => encodeBase58(v),
};

export const OPT_COMMITMENT = option(COMMITMENT);

// ---------------------------------------------------------------------------
// Group members: SHORT_SET(ADDRESS)

const ADDRESS_SET_BASE = addressSet(false);
const orderAddresses = (xs: readonly Address[]): Address[] =>
  scalaSetOrder(
    xs,
    (a) => a.bytes,
    (a) => a.toString(),
  );

/** addressSet(false), also writing typed data given in any order in the Set's order. */
const ADDRESS_SET: FieldType<Address[]> = {
  ...ADDRESS_SET_BASE,
  write: (w, v, p) => ADDRESS_SET_BASE.write(w, orderAddresses(v), p),
  toJson: (v, p) => ADDRESS_SET_BASE.toJson(orderAddresses(v), p),
};

/**
 * SHORT_SET(ADDRESS) of CreateContract V6 / UpdateContract V5: the request holds a list of
 * strings (InvalidAddress for a bad one) and duplicates are refused with WE's message.
 */
export function uniqueAddressSet(collectionName: string): FieldType<Address[]> {
  return {
    ...ADDRESS_SET,
    fromJson: (j, p, path) => {
      const items = jsonArray(j, path);
      const set = ADDRESS_SET.fromJson(j, p, path);
      if (set.length !== items.length) throw genericError(`${collectionName} must be a set of unique addresses`, path);
      return set;
    },
  };
}

/**
 * SHORT_SET(ADDRESS) of CreateContract V7 / UpdateContract V6: the request holds a
 * Set[Address] (Play errors for a bad element); duplicates are merged silently.
 */
export const MERGED_ADDRESS_SET: FieldType<Address[]> = {
  ...ADDRESS_SET,
  fromJson: (j, p, path) => {
    const items = jsonArray(j, path);
    items.forEach((item, i) => {
      const itemPath = `${path}(${i})`;
      if (typeof item !== 'string') throw wrongJson(itemPath, 'Expected string value');
      try {
        p.addresses.parseAddress(item, itemPath);
      } catch (e) {
        if (e instanceof WeError) throw wrongJson(itemPath, reasonOf(e));
        throw e;
      }
    });
    return ADDRESS_SET.fromJson(j, p, path);
  },
};

// ---------------------------------------------------------------------------
// Params and strings

/** SHORT_LIST(CONTRACT_DATA_ENTRY): contract params and V1–V4 execution results. */
export const CONTRACT_ENTRIES = shortList(CONTRACT_DATA_ENTRY);

/** OPTION(SHORT_STRING) (callFunc, errorMessage). */
export const OPT_SHORT_STRING = option(SHORT_STRING);
