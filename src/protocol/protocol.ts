/**
 * The protocol of one network: its chain id and crypto suite, and everything that
 * turns bytes or request JSON into transactions and back. Built once per node and
 * passed down; two networks can live in one process.
 */
import { AddressScheme } from '../crypto/address.js';
import type { CryptoSuite, CryptoType } from '../crypto/suite.js';
import { createCryptoSuite } from '../crypto/create-suite.js';
import { ByteReader } from './bytes.js';
import type { JsonObject } from './json.js';
import { CallContract } from './transactions/contracts-executable.js';
import { ExecutedContract } from './transactions/contracts-executed.js';
import { isGenesisType } from './transactions/genesis.js';
import { PolicyDataHash } from './transactions/privacy.js';
import { codecFor, legacyCodecFor } from './transactions/registry.js';
import { proofsWithTextsFromJson, Transaction, type TransactionProtocol, type TxCodec, type TypedTxCodec } from './transactions/schema.js';
import { DecodeError, expected, genericError, WeError, wrongJson } from '../errors/catalogue.js';

export interface ProtocolOptions {
  readonly crypto: CryptoType;
  /** Chain id as a character (`'T'`) or its byte. */
  readonly chainId: string | number;
}

/**
 * Broadcast refusals of (type, version) pairs that exist in binary but not over REST: the
 * genesis types, ExecutedContract (the miner makes it), PolicyDataHash V1/V2 and CallContract
 * V6 (`/confidential-contracts/call` makes it).
 */
export function broadcastRefusal(type: number, version: number): WeError | undefined {
  if (type === ExecutedContract.type && version <= 3) return genericError('ExecutedContract transaction is not allowed to be broadcasted');
  if (type === ExecutedContract.type) return genericError(`ExecutedContract V${version} transaction is not allowed to be broadcasted`);
  if (type === PolicyDataHash.type && version < 3) return genericError(`PolicyDataHash V${version} transaction is not allowed to be broadcasted`);
  if (type === CallContract.type && version === 6)
    return genericError('CallContract V6 transaction can only be created by /confidential-contracts/call', 'version');
  if (isGenesisType(type)) return genericError(`Genesis transactions (type ${type}) cannot be broadcasted`, 'type');
  return undefined;
}

export class Protocol implements TransactionProtocol {
  readonly addresses: AddressScheme;

  constructor(
    readonly crypto: CryptoSuite,
    readonly chainId: number,
  ) {
    if (!Number.isInteger(chainId) || chainId < 0 || chainId > 127) throw new Error(`chain id must be an ASCII byte, got ${chainId}`);
    this.addresses = new AddressScheme(chainId, crypto);
  }

  static async create(options: ProtocolOptions): Promise<Protocol> {
    const chainId = typeof options.chainId === 'string' ? options.chainId.charCodeAt(0) : options.chainId;
    if (typeof options.chainId === 'string' && options.chainId.length !== 1) {
      throw new Error(`chain id must be one character, got '${options.chainId}'`);
    }
    return new Protocol(await createCryptoSuite(options.crypto), chainId);
  }

  get chainChar(): string {
    return String.fromCharCode(this.chainId);
  }

  /** A transaction from typed field values; stateless rules are checked. Of a typed codec, it is the codec's typed transaction. */
  transaction<T extends Transaction>(codec: TypedTxCodec<T>, version: number, data: object, proofs?: readonly Uint8Array[]): T;
  transaction<D extends object>(codec: TxCodec, version: number, data: D, proofs?: readonly Uint8Array[]): Transaction<D>;
  transaction<D extends object>(codec: TxCodec, version: number, data: D, proofs: readonly Uint8Array[] = []): Transaction<D> {
    if (!codec.versions.includes(version)) throw genericError(`Bad transaction type (${codec.type}) and version (${version})`, 'version');
    const tx = new Transaction<D>(codec, version, data, proofs, this);
    codec.validate(tx);
    return tx;
  }

  /** The same transaction signed by `privateKey` (proofs = [signature]). */
  sign<T extends Transaction>(tx: T, privateKey: Uint8Array): T {
    // The same transaction with other proofs: of the same codec and data, so of the same type.
    return tx.withProofs([this.crypto.sign(privateKey, tx.proofSourceBytes)]) as T;
  }

  /**
   * A signed transaction from its request JSON (`POST /transactions/broadcast`):
   * type and version select the reader; fields, proofs and stateless rules are checked.
   */
  transactionFromJson(json: unknown, options: { forBroadcast?: boolean } = {}): Transaction {
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw wrongJson(undefined);
    const body = json as JsonObject;
    const type = body['type'];
    if (type === undefined) throw wrongJson('type');
    if (typeof type !== 'number' || !Number.isInteger(type)) throw wrongJson('type', expected.number);
    const version = readVersion(body['version']);
    const codec = codecFor(type, version);
    if (codec === undefined) throw genericError(`Bad transaction type (${type}) and version (${version})`, 'type');
    if (options.forBroadcast !== false) {
      const refusal = broadcastRefusal(type, version);
      if (refusal !== undefined) throw refusal;
    }
    const data = codec.fromJson(body, this, version);
    const proofs = codec.hasProofs ? proofsWithTextsFromJson(body) : { proofs: [], texts: [] };
    const tx = new Transaction(codec, version, data, proofs.proofs, this);
    codec.validate(tx);
    // The answer to the request writes the key and proofs with the request's own texts.
    const senderKeyText = body['senderPublicKey'];
    tx.keepRequestTexts({
      senderPublicKey: codec.senderKeyFromRequest === true && typeof senderKeyText === 'string' ? senderKeyText : undefined,
      proofs: proofs.texts,
    });
    return tx;
  }

  /** A transaction from its full (wire) bytes; every byte must be consumed. */
  transactionFromBytes(bytes: Uint8Array): Transaction {
    return this.wholeTransaction(new ByteReader(bytes), bytes.length);
  }

  /**
   * A transaction from bytes this node stored (canonical: written from a transaction's own
   * encoding), which the transaction keeps: its byte fields, wire bytes and body are views
   * into `bytes` (ByteReader.sharing), so its id is hashed from the body as it stands instead
   * of encoding the body again. `bytes` must be the caller's own and never change.
   */
  transactionFromStoredBytes(bytes: Uint8Array): Transaction {
    return this.wholeTransaction(ByteReader.sharing(bytes), bytes.length);
  }

  private wholeTransaction(r: ByteReader, length: number): Transaction {
    const tx = this.readTransaction(r, length);
    r.expectEnd('transaction');
    return tx;
  }

  /** Reads one transaction of `length` bytes at the reader's position. */
  readTransaction(r: ByteReader, length: number): Transaction {
    const start = r.pos;
    const end = start + length;
    if (length < 1 || end > r.buf.length) throw new DecodeError("Can't find the significant byte: the buffer is empty", 'transaction');
    const sub = r.within(start, end);
    const head = sub.u8('type');
    let codec: TxCodec | undefined;
    let version: number;
    if (head === 0) {
      if (length < 3) throw new DecodeError(`Can't determine the type and the version of transaction: the buffer has ${length} bytes`, 'transaction');
      const type = r.buf[start + 1]!;
      version = r.buf[start + 2]!;
      codec = codecFor(type, version);
      if (codec === undefined || !codec.modernHeader(version)) {
        throw new DecodeError(`Unknown transaction type (${type}) and version (${version}) (modern encoding)`, 'transaction');
      }
    } else {
      const legacy = legacyCodecFor(head, length > 1 ? r.buf[start + 1]! : 0);
      if (legacy === undefined) throw new DecodeError(`Unknown transaction type (old encoding): '${(head << 24) >> 24}'`, 'transaction');
      codec = legacy.codec;
      version = legacy.version;
      sub.pos = start;
    }
    const { data, proofs, body } = codec.read(sub, this, version);
    sub.expectEnd(`transaction of type ${codec.type}`);
    r.pos = end;
    const tx = new Transaction(codec, version, data, proofs, this);
    // A sharing reader reads the node's own (canonical) bytes: they are the transaction's.
    if (sub.shares) tx.adoptEncoding(sub.viewOf(start, end), body);
    codec.validate(tx);
    return tx;
  }
}

/** `version`: a number or a numeric string; 1 when absent (WE's TransactionFactory). */
function readVersion(v: unknown): number {
  if (v === undefined || v === null) return 1;
  if (typeof v === 'number' && Number.isInteger(v) && v >= -128 && v <= 127) return v;
  if (typeof v === 'string' && /^-?\d{1,3}$/.test(v) && Number(v) >= -128 && Number(v) <= 127) return Number(v);
  throw wrongJson('version', 'error.expected.byte');
}
