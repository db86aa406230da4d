/**
 * A small transaction DSL in the spirit of WE's TxScheme: a transaction family is an
 * ordered list of fields, each present in a range of versions. From it come the three
 * byte views (body, proof source, full), the id, reading from binary and from request
 * JSON, writing the node's transaction JSON, and stateless validation.
 *
 * Body bytes: type ‖ version ‖ fields (proofs skipped). Full bytes: 0x00 ‖ body with the
 * proofs block at the position of the `proofs` marker (legacy versions have no 0x00).
 */
import type { Address } from '../../crypto/address.js';
import { base58Length, decodeBase58, encodeBase58 } from '../../crypto/encoding.js';
import { ByteReader, ByteWriter } from '../bytes.js';
import type { JsonObject } from '../json.js';
import { jsonArray, jsonString, PUBLIC_KEY, type FieldType, type ProtocolParams } from './fields.js';
import { DecodeError, genericError, WeError } from '../../errors/catalogue.js';

export const MAX_PROOFS = 8;
export const MAX_PROOF_SIZE = 64;
const PROOFS_VERSION = 1;

// ---------------------------------------------------------------------------
// Field specs

export interface FieldSpec<N extends string = string, T = unknown, O extends boolean = boolean> {
  readonly name: N;
  readonly type: FieldType<T>;
  /** First and last version that have the field (inclusive); absent = every version. */
  readonly since?: number;
  readonly until?: number;
  /** Key read from request JSON (default: `name`). */
  readonly jsonKey?: string;
  /** Leave the field out of transaction JSON. */
  readonly hiddenInJson?: boolean;
  /** Custom request-JSON reader (a value the node fills in itself, alternative keys…). */
  fromJson?(body: JsonObject, p: TransactionProtocol, version: number): T;
  /** Custom transaction-JSON writer. */
  toJson?(value: T, tx: Transaction, p: TransactionProtocol): unknown;
  /** Stateless check of the value (throws a WeError). */
  check?(value: T, p: TransactionProtocol, data: Readonly<Record<string, unknown>>, version: number): void;
  /** True for fields present in only some versions (typed `T | undefined`). */
  readonly optional: O;
}

export interface FieldOptions<T> {
  since?: number;
  until?: number;
  jsonKey?: string;
  hiddenInJson?: boolean;
  fromJson?(body: JsonObject, p: TransactionProtocol, version: number): T;
  toJson?(value: T, tx: Transaction, p: TransactionProtocol): unknown;
  check?(value: T, p: TransactionProtocol, data: Readonly<Record<string, unknown>>, version: number): void;
}

/** A field present in every version of its family. */
export function field<const N extends string, T>(name: N, type: FieldType<T>, options: Omit<FieldOptions<T>, 'since' | 'until'> = {}): FieldSpec<N, T, false> {
  return { name, type, ...options, optional: false };
}

/** A field present only in some versions (`undefined` in the others). */
export function versioned<const N extends string, T>(
  name: N,
  type: FieldType<T>,
  options: FieldOptions<T> & ({ since: number } | { until: number }),
): FieldSpec<N, T, true> {
  return { name, type, ...options, optional: true };
}

/** Where the proofs block sits in the full bytes. */
export const PROOFS = { name: '@proofs' } as const;
export type ProofsMarker = typeof PROOFS;

export type SchemaEntry = FieldSpec | ProofsMarker;

type FieldsOf<E extends readonly SchemaEntry[]> = Extract<E[number], FieldSpec>;

/** The typed data of a family, derived from its field list. */
export type DataOf<E extends readonly SchemaEntry[]> = {
  readonly [S in FieldsOf<E> as S['name']]: S extends FieldSpec<string, infer T, infer O> ? (O extends true ? T | undefined : T) : never;
};

// ---------------------------------------------------------------------------
// Codecs: how a (type, version) is read, written and shown

/** Everything the node needs from a transaction family, DSL-built or hand-written. */
export interface TxCodec {
  readonly type: number;
  readonly name: string;
  readonly versions: readonly number[];
  bodyBytes(tx: Transaction): Uint8Array;
  proofSourceBytes(tx: Transaction): Uint8Array;
  fullBytes(tx: Transaction): Uint8Array;
  id(tx: Transaction): Uint8Array;
  toJson(tx: Transaction): JsonObject;
  /**
   * Reads full bytes starting at the type byte (after the modern 0x00 flag, if any); from a
   * reader that shares (ByteReader.sharing), also the body bytes as they stand, when the
   * codec can tell them.
   */
  read(r: ByteReader, p: TransactionProtocol, version: number): { data: Record<string, unknown>; proofs: Uint8Array[]; body?: Uint8Array };
  /** Reads the signed request JSON of a version (fields only; proofs are read by the caller). */
  fromJson(body: JsonObject, p: TransactionProtocol, version: number): Record<string, unknown>;
  /** Stateless validation of a built transaction. */
  validate(tx: Transaction): void;
  /** Full bytes start with the modern 0x00 flag for this version. */
  modernHeader(version: number): boolean;
  /** Whether a signed `proofs` array is part of this family (false for genesis types). */
  readonly hasProofs: boolean;
  /** True when the sender's key is the request JSON's `senderPublicKey` read as it stands (Base58). */
  readonly senderKeyFromRequest?: boolean;
}

/** A codec that knows the typed form `T` of its transactions. */
export interface TypedTxCodec<T extends Transaction = Transaction> extends TxCodec {
  /** Narrows a transaction of this codec's type (one codec a type: registry.ts) to `T`. */
  is(tx: Transaction): tx is T;
}

/**
 * What a transaction and its codec need of their network's protocol (protocol.ts's Protocol
 * is it): its parameters, and making and reading transactions — a nested one (an atomic's,
 * an executed contract's) or a changed copy.
 */
export interface TransactionProtocol extends ProtocolParams {
  /** A transaction from typed field values; stateless rules are checked. Of a typed codec, it is the codec's typed transaction. */
  transaction<T extends Transaction>(codec: TypedTxCodec<T>, version: number, data: object, proofs?: readonly Uint8Array[]): T;
  transaction<D extends object>(codec: TxCodec, version: number, data: D, proofs?: readonly Uint8Array[]): Transaction<D>;
  /** A signed transaction from its request JSON. */
  transactionFromJson(json: unknown, options?: { forBroadcast?: boolean }): Transaction;
  /** Reads one transaction of `length` bytes at the reader's position. */
  readTransaction(r: ByteReader, length: number): Transaction;
}

/**
 * One transaction. Immutable; byte views and the id are computed once.
 * `data` holds the typed field values of the family (see `DataOf`).
 */
export class Transaction<D extends object = object> {
  private cache: {
    body?: Uint8Array;
    proofSource?: Uint8Array;
    full?: Uint8Array;
    id?: Uint8Array;
    idB58?: string;
    senderKeyB58?: string;
    proofsB58?: readonly string[];
    sender?: Address;
  } = {};
  /** Whether proofs[0] verified, once known (never carried over to other proofs). */
  private signatureVerdict: boolean | undefined;

  constructor(
    readonly codec: TxCodec,
    readonly version: number,
    readonly data: D,
    readonly proofs: readonly Uint8Array[],
    readonly protocol: TransactionProtocol,
  ) {}

  get type(): number {
    return this.codec.type;
  }

  private get fields(): Readonly<Record<string, unknown>> {
    return this.data as Readonly<Record<string, unknown>>;
  }

  get bodyBytes(): Uint8Array {
    return (this.cache.body ??= this.codec.bodyBytes(this));
  }

  /** What `proofs[0]` signs; differs from the body only for Atomic. */
  get proofSourceBytes(): Uint8Array {
    return (this.cache.proofSource ??= this.codec.proofSourceBytes(this));
  }

  /** Wire (P2P, block) bytes. */
  get bytes(): Uint8Array {
    return (this.cache.full ??= this.codec.fullBytes(this));
  }

  get id(): Uint8Array {
    return (this.cache.id ??= this.codec.id(this));
  }

  get idBase58(): string {
    return (this.cache.idB58 ??= encodeBase58(this.id));
  }

  /** The sender's key in Base58 (computed once, or the request's own text — see keepRequestTexts). */
  get senderPublicKeyBase58(): string | undefined {
    const pk = this.senderPublicKey;
    return pk === undefined ? undefined : (this.cache.senderKeyB58 ??= encodeBase58(pk));
  }

  /** The proofs in Base58 (computed once, or the request's own texts — see keepRequestTexts). */
  get proofsBase58(): string[] {
    return [...(this.cache.proofsB58 ??= this.proofs.map(encodeBase58))];
  }

  /**
   * Keeps the Base58 texts a request gave for the sender's key and the proofs, which the
   * transaction's own bytes were decoded from: Base58 is one-to-one, so they are exactly
   * what encoding the bytes would give, and the answer to the request reuses them.
   * Only for texts the bytes were really decoded from (Protocol.transactionFromJson).
   */
  keepRequestTexts(texts: { readonly senderPublicKey?: string; readonly proofs: readonly string[] }): void {
    if (texts.senderPublicKey !== undefined) this.cache.senderKeyB58 = texts.senderPublicKey;
    this.cache.proofsB58 = texts.proofs;
  }

  get senderPublicKey(): Uint8Array | undefined {
    return this.fields['senderPublicKey'] as Uint8Array | undefined;
  }

  /** The sender's address, derived once per transaction (validation asks for it several times). */
  get sender(): Address | undefined {
    const pk = this.senderPublicKey;
    return pk === undefined ? undefined : (this.cache.sender ??= this.protocol.addresses.fromPublicKey(pk));
  }

  get fee(): bigint {
    return (this.fields['fee'] as bigint | undefined) ?? 0n;
  }

  get feeAssetId(): Uint8Array | null {
    return (this.fields['feeAssetId'] as Uint8Array | null | undefined) ?? null;
  }

  get timestamp(): bigint {
    return this.fields['timestamp'] as bigint;
  }

  /**
   * Takes the wire bytes (and the body, when known) this transaction was just decoded from,
   * so its id and bytes are not encoded again. Only for canonical bytes — those the node
   * encoded itself, e.g. its stored blocks (ByteReader.sharing) — which are exactly what
   * encoding the decoded fields gives.
   */
  adoptEncoding(full: Uint8Array, body: Uint8Array | undefined): void {
    this.cache.full = full;
    if (body !== undefined) this.cache.body = body;
  }

  /** The node's JSON of this transaction (int64 fields as bigint). */
  toJson(): JsonObject {
    return this.codec.toJson(this);
  }

  /** A copy with other proofs (e.g. after signing). */
  withProofs(proofs: readonly Uint8Array[]): Transaction<D> {
    const copy = new Transaction<D>(this.codec, this.version, this.data, proofs, this.protocol);
    copy.cache = {
      body: this.cache.body,
      proofSource: this.cache.proofSource,
      id: this.cache.id,
      idB58: this.cache.idB58,
      senderKeyB58: this.cache.senderKeyB58,
    };
    return copy;
  }

  /** What verifying the sender's proof takes; undefined when there is no sender or no proof. */
  senderProofCheck(): { publicKey: Uint8Array; message: Uint8Array; signature: Uint8Array } | undefined {
    const pk = this.senderPublicKey;
    const proof = this.proofs[0];
    return pk === undefined || proof === undefined ? undefined : { publicKey: pk, message: this.proofSourceBytes, signature: proof };
  }

  /** True when `proofs[0]` is the sender's signature over the proof-source bytes (computed once). */
  hasValidSenderSignature(): boolean {
    if (this.signatureVerdict === undefined) {
      const check = this.senderProofCheck();
      this.signatureVerdict = check !== undefined && this.protocol.crypto.verify(check.publicKey, check.message, check.signature);
    }
    return this.signatureVerdict;
  }

  /** Whether the sender's proof has been verified already (here or, adopted, elsewhere). */
  get signatureChecked(): boolean {
    return this.signatureVerdict !== undefined;
  }

  /**
   * Records the outcome of verifying `senderProofCheck()` elsewhere (a verifier thread), so
   * hasValidSenderSignature need not verify again. Only a real verification may call this.
   */
  adoptSignatureVerdict(valid: boolean): void {
    this.signatureVerdict = valid;
  }
}

// ---------------------------------------------------------------------------
// Proofs

export function writeProofs(w: ByteWriter, proofs: readonly Uint8Array[]): void {
  w.u8(PROOFS_VERSION).u16(proofs.length);
  for (const p of proofs) w.shortBytes(p);
}

export function checkProofs(proofs: readonly Uint8Array[]): void {
  if (proofs.length > MAX_PROOFS) throw genericError(`Too many proofs, max ${MAX_PROOFS} proofs`, 'proofs');
  for (const p of proofs) if (p.length > MAX_PROOF_SIZE) throw genericError(`Too large proof, must be max ${MAX_PROOF_SIZE} bytes`, 'proofs');
}

export function readProofs(r: ByteReader): Uint8Array[] {
  if (r.remaining <= 0) throw new DecodeError('Empty proofs', 'proofs');
  const version = r.u8('proofs');
  if (version !== PROOFS_VERSION) throw new DecodeError(`Proofs version must be 1, actual: ${version}`, 'proofs');
  const n = r.u16('proofs');
  const proofs: Uint8Array[] = [];
  for (let i = 0; i < n; i++) proofs.push(r.shortBytes('proofs'));
  checkProofs(proofs);
  return proofs;
}

/** `proofs` of a signed request: Base58 strings, at most 8, each at most 64 bytes (`null` reads as ""). */
export function proofsFromJson(body: JsonObject): Uint8Array[] {
  return proofsWithTextsFromJson(body).proofs;
}

/** proofsFromJson, with the Base58 texts each proof was decoded from. */
export function proofsWithTextsFromJson(body: JsonObject): { proofs: Uint8Array[]; texts: string[] } {
  const list = jsonArray(body['proofs'], 'proofs');
  const texts: string[] = [];
  const proofs = list.map((item, i) => {
    const text = item === null ? '' : jsonString(item, `proofs(${i})`);
    texts.push(text);
    if (text.length > base58Length(MAX_PROOF_SIZE)) throw genericError('invalid proof', 'proofs');
    try {
      return decodeBase58(text);
    } catch {
      throw genericError('invalid proof', 'proofs');
    }
  });
  checkProofs(proofs);
  return { proofs, texts };
}

// ---------------------------------------------------------------------------
// The DSL codec

export interface SchemaDefinition<E extends readonly SchemaEntry[]> {
  readonly type: number;
  /** WE's name without `Transaction`, e.g. `Transfer`. */
  readonly name: string;
  readonly versions: readonly number[];
  readonly fields: E;
  /** Versions whose full bytes have no 0x00 flag (MassTransfer V1). */
  readonly legacyVersions?: readonly number[];
  /** WE's additionalJsonFields: written after `version`, before the fields. */
  readonly extraJson?: (tx: Transaction<DataOf<E>>) => JsonObject;
  /** Transaction id when it is not fastHash(proof-source bytes). */
  readonly id?: (tx: Transaction<DataOf<E>>) => Uint8Array;
  /** Proof-source bytes when they differ from the body. */
  readonly proofSource?: (tx: Transaction<DataOf<E>>) => Uint8Array;
  /** Whole-transaction stateless checks, after the per-field ones. */
  readonly validate?: (tx: Transaction<DataOf<E>>) => void;
}

export interface TxSchema<E extends readonly SchemaEntry[] = readonly SchemaEntry[]> extends TypedTxCodec<Transaction<DataOf<E>>> {
  readonly definition: SchemaDefinition<E>;
  /** The fields of a version, in declaration order (proofs marker included). */
  entriesOf(version: number): readonly SchemaEntry[];
}

function isField(e: SchemaEntry): e is FieldSpec {
  return e !== PROOFS;
}

function inVersion(e: SchemaEntry, version: number): boolean {
  if (!isField(e)) return true;
  return (e.since === undefined || version >= e.since) && (e.until === undefined || version <= e.until);
}

const ESSENTIAL = new Set(['senderPublicKey', 'fee', 'timestamp']);

/** A WeError thrown for a field, placed at it; anything else as it was. */
function attributed(e: unknown, fieldName: string): unknown {
  return e instanceof WeError ? e.at(fieldName) : e;
}

function attribute<T>(fieldName: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw attributed(e, fieldName);
  }
}

export function defineTx<const E extends readonly SchemaEntry[]>(def: SchemaDefinition<E>): TxSchema<E> {
  const byVersion = new Map<number, readonly SchemaEntry[]>();
  for (const v of def.versions)
    byVersion.set(
      v,
      def.fields.filter((e) => inVersion(e, v)),
    );
  const entriesOf = (version: number): readonly SchemaEntry[] => {
    const entries = byVersion.get(version);
    if (entries === undefined) throw genericError(`Bad transaction type (${def.type}) and version (${version})`);
    return entries;
  };
  const legacy = new Set(def.legacyVersions ?? []);
  /** Per version, where the body lies in the bytes from the type byte on: all before the proofs, all of them (no proofs), or split by the proofs. */
  const bodyLayout = new Map<number, 'before-proofs' | 'whole' | 'split'>();
  for (const v of def.versions) {
    const entries = entriesOf(v);
    const at = entries.indexOf(PROOFS);
    bodyLayout.set(v, at < 0 ? 'whole' : at === entries.length - 1 ? 'before-proofs' : 'split');
  }
  type Tx = Transaction<DataOf<E>>;

  const writeFields = (w: ByteWriter, tx: Transaction, withProofs: boolean): void => {
    const values = tx.data as Record<string, unknown>;
    w.u8(def.type).u8(tx.version);
    for (const e of entriesOf(tx.version)) {
      if (!isField(e)) {
        if (withProofs) writeProofs(w, tx.proofs);
        continue;
      }
      e.type.write(w, values[e.name], tx.protocol);
    }
  };

  const schema: TxSchema<E> = {
    type: def.type,
    name: def.name,
    versions: def.versions,
    definition: def,
    hasProofs: true,
    senderKeyFromRequest: def.fields.some(
      (e) =>
        isField(e) &&
        e.name === 'senderPublicKey' &&
        e.type === PUBLIC_KEY &&
        e.jsonKey === undefined &&
        e.fromJson === undefined &&
        e.since === undefined &&
        e.until === undefined,
    ),
    entriesOf,
    is: (tx): tx is Tx => tx.type === def.type,
    modernHeader: (version) => !legacy.has(version),

    bodyBytes(tx) {
      const w = new ByteWriter(256);
      writeFields(w, tx, false);
      return w.result();
    },

    proofSourceBytes(tx) {
      return def.proofSource ? def.proofSource(tx as Tx) : tx.bodyBytes;
    },

    fullBytes(tx) {
      const w = new ByteWriter(384);
      if (!legacy.has(tx.version)) w.u8(0);
      writeFields(w, tx, true);
      return w.result();
    },

    id(tx) {
      return def.id ? def.id(tx as Tx) : tx.protocol.crypto.fastHash(tx.proofSourceBytes);
    },

    toJson(tx) {
      const values = tx.data as Record<string, unknown>;
      const p = tx.protocol;
      const out: JsonObject = {
        type: def.type,
        id: tx.idBase58,
        sender: tx.sender?.toString(),
        senderPublicKey: tx.senderPublicKeyBase58,
        fee: tx.fee,
        timestamp: tx.timestamp,
        proofs: tx.proofsBase58,
        version: tx.version,
      };
      if (def.extraJson) Object.assign(out, def.extraJson(tx as Tx));
      for (const e of entriesOf(tx.version)) {
        if (!isField(e) || ESSENTIAL.has(e.name) || e.hiddenInJson === true) continue;
        const v = values[e.name];
        out[e.name] = e.toJson !== undefined ? e.toJson(v, tx, p) : e.type.toJson(v, p);
      }
      return out;
    },

    read(r, p, version) {
      const data: Record<string, unknown> = {};
      let proofs: Uint8Array[] = [];
      const bodyStart = r.pos;
      let proofsStart = -1;
      const header = r.u8('type');
      if (header !== def.type) throw new DecodeError(`Expected transaction type ${def.type}, got ${header}`, 'type');
      const v = r.u8('version');
      if (v !== version) throw new DecodeError(`Expected version ${version}, got ${v}`, 'version');
      for (const e of entriesOf(version)) {
        if (isField(e)) data[e.name] = e.type.read(r, p, e.name);
        else {
          proofsStart = r.pos;
          proofs = readProofs(r);
        }
      }
      // The body is the bytes read up to the proofs when they come last, all of them without proofs.
      const layout = bodyLayout.get(version);
      const body = !r.shares || layout === 'split' ? undefined : r.viewOf(bodyStart, layout === 'before-proofs' ? proofsStart : r.pos);
      return { data, proofs, body };
    },

    fromJson(body, p, version) {
      const data: Record<string, unknown> = {};
      for (const e of entriesOf(version)) {
        if (!isField(e)) continue;
        const key = e.jsonKey ?? e.name;
        data[e.name] = attribute(key, () => (e.fromJson !== undefined ? e.fromJson(body, p, version) : e.type.fromJson(body[key], p, key)));
      }
      return data;
    },

    validate(tx) {
      const values = tx.data as Record<string, unknown>;
      checkProofs(tx.proofs);
      // No closure per field (as attribute() would take): every decoded transaction is validated.
      for (const e of entriesOf(tx.version)) {
        if (!isField(e) || e.check === undefined) continue;
        try {
          e.check(values[e.name], tx.protocol, values, tx.version);
        } catch (err) {
          throw attributed(err, e.jsonKey ?? e.name);
        }
      }
      def.validate?.(tx as Tx);
    },
  };
  return schema;
}
