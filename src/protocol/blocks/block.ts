/**
 * Blocks (we-node block/Block.scala, block/package.scala, BlockHeaderJsonify.scala).
 *
 * Wire layout (all integers big-endian):
 *   version(1) ‖ timestamp(8) ‖ reference(64) ‖ consensus (i32 length ‖ payload)
 *   ‖ i32 T ‖ txCount (1 byte for v1/v2, i32 for v3/v4) ‖ (i32 len ‖ tx bytes)*
 *   ‖ [v ≥ 3] i32 featureCount ‖ i16* ‖ [v = 4] genesis-data flag (‖ senderRoleEnabled)
 *   ‖ generator public key ‖ signature(64)
 * Signed bytes are everything but the trailing signature; the id is the signature.
 *
 * Like WE, a block's bytes are always re-serialised from its fields, never kept from the
 * wire; the parser is strict, so for a well-formed block both are the same. Feature votes
 * keep the order they were given in (the wire order for a received block).
 */
import { createHash, type Hash } from 'node:crypto';
import { concatBytes, encodeBase58, equalBytes } from '../../crypto/encoding.js';
import { ByteReader, ByteWriter } from '../bytes.js';
import type { JsonObject } from '../json.js';
import type { Protocol } from '../protocol.js';
import { executedInnerTx, isAtomic } from '../transactions/atomic.js';
import type { Transaction } from '../transactions/schema.js';
import {
  GENERATION_SIGNATURE_LENGTH,
  MAX_VOTES_IN_BLOCK,
  consensusJson,
  consensusJsonKey,
  readConsensus,
  writeConsensus,
  type ConsensusData,
  type Vote,
} from './consensus.js';
import { checkFeatureVotes, featureVotesForProducing, featureVotesJsonOrder, MAX_FEATURES_IN_BLOCK } from './features.js';
import { DecodeError, genericError, invalidSignature, WeError } from '../../errors/catalogue.js';

export const LEGACY_GENESIS_BLOCK_VERSION = 1;
export const PLAIN_BLOCK_VERSION = 2;
export const NG_BLOCK_VERSION = 3;
export const MODERN_GENESIS_BLOCK_VERSION = 4;
export const BLOCK_VERSIONS: readonly number[] = [1, 2, 3, 4];
/** v1/v2 count transactions in one (signed) byte. */
export const MAX_TRANSACTIONS_PER_BLOCK_V1_V2 = 127;
export const BLOCK_ID_LENGTH = 64;

/** v4 (modern genesis) only. */
export interface GenesisBlockData {
  readonly senderRoleEnabled: boolean;
}

/** Everything of a block but its signature. */
export interface UnsignedBlock {
  readonly version: number;
  readonly timestamp: bigint;
  /** Id of the parent (its liquid id for a key block); 64 × 0xFF for genesis. */
  readonly reference: Uint8Array;
  readonly consensus: ConsensusData;
  readonly transactions: readonly Transaction[];
  /** Feature ids, in the order they are serialised. */
  readonly featureVotes: readonly number[];
  /** v4 only; null elsewhere (and for a v4 block whose flag byte is 0). */
  readonly genesisData: GenesisBlockData | null;
  /** Public key of the signer. */
  readonly generator: Uint8Array;
}

/**
 * What header reads show of a whole block beside its header fields: its id, wire size,
 * transaction count and WEST fee — kept so that a header is answered without decoding the
 * block's transactions.
 */
export interface BlockSummary {
  readonly id: Uint8Array;
  readonly size: number;
  readonly transactionCount: number;
  readonly fee: bigint;
}

/** A block as header reads show it: its header fields (under `summary.id`; its transactions, if any, are not read) and its summary. */
export interface BlockHeaderView {
  readonly header: Block;
  readonly summary: BlockSummary;
}

export interface BlockJsonOptions {
  /** JSON of one transaction (default: the node's transaction JSON). */
  readonly transactionJson?: (tx: Transaction) => JsonObject;
}

const txCountLength = (version: number): number => (version <= PLAIN_BLOCK_VERSION ? 1 : 4);

/** Serialises a block; `signature` null leaves it out (the signed bytes), `skipVotes` empties CFT votes. */
function writeBlock(p: Protocol, b: UnsignedBlock, signature: Uint8Array | null, skipVotes = false): Uint8Array {
  let txBytes = 0;
  for (const tx of b.transactions) txBytes += 4 + tx.bytes.length;
  const w = new ByteWriter(256 + txBytes);
  w.u8(b.version).i64(b.timestamp).bytes(b.reference);
  writeConsensus(w, b.consensus, p, skipVotes);
  const countLength = txCountLength(b.version);
  w.i32(countLength + txBytes);
  if (countLength === 1) w.u8(b.transactions.length);
  else w.i32(b.transactions.length);
  for (const tx of b.transactions) w.longBytes(tx.bytes);
  if (b.version > PLAIN_BLOCK_VERSION) {
    w.i32(b.featureVotes.length);
    for (const f of b.featureVotes) w.i16(f);
  }
  if (b.version === MODERN_GENESIS_BLOCK_VERSION) {
    if (b.genesisData === null) w.u8(0);
    else w.u8(1).bool(b.genesisData.senderRoleEnabled);
  }
  w.bytes(b.generator);
  if (signature !== null) w.bytes(signature);
  return w.result();
}

/** WE's Block.build checks, in its order and with its messages, plus what the wire form needs. */
function checkBlock(p: Protocol, b: UnsignedBlock, signature: Uint8Array | null): void {
  if (!BLOCK_VERSIONS.includes(b.version)) {
    throw genericError(`Block version is incorrect: found '${b.version}', available 'Set(1, 2, 3, 4)'`, 'version');
  }
  if (b.reference.length !== BLOCK_ID_LENGTH) throw genericError('Incorrect reference', 'reference');
  const c = b.consensus;
  if (c.type === 'pos' && c.generationSignature.length !== GENERATION_SIGNATURE_LENGTH) {
    throw genericError('Incorrect consensusData.generationSignature', 'consensusData');
  }
  if (c.type === 'cft') {
    if (c.votes.length > MAX_VOTES_IN_BLOCK) throw genericError(`Block could not contain more than '${MAX_VOTES_IN_BLOCK}' votes`, 'consensusData');
    for (const v of c.votes) v.checkLengths(p, 'consensusData');
  }
  if (b.generator.length !== p.crypto.publicKeyLength) throw genericError('Incorrect signer.publicKey', 'generator');
  if (b.version <= PLAIN_BLOCK_VERSION && b.featureVotes.length > 0) {
    throw genericError(`Block version '${b.version}' could not contain feature votes`, 'featureVotes');
  }
  checkFeatureVotes(b.featureVotes);
  if (b.featureVotes.length > MAX_FEATURES_IN_BLOCK) {
    throw genericError(`Block could not contain more than '${MAX_FEATURES_IN_BLOCK}' feature votes`, 'featureVotes');
  }
  const count = b.transactions.length;
  if (b.version === LEGACY_GENESIS_BLOCK_VERSION && count > MAX_TRANSACTIONS_PER_BLOCK_V1_V2) {
    throw genericError(`Too much transactions for genesis block: found '${count}', max count '${MAX_TRANSACTIONS_PER_BLOCK_V1_V2}'`, 'transactions');
  }
  if (b.version === PLAIN_BLOCK_VERSION && count > MAX_TRANSACTIONS_PER_BLOCK_V1_V2) {
    throw genericError(`Too much transactions for a version 2 block: found '${count}', max count '${MAX_TRANSACTIONS_PER_BLOCK_V1_V2}'`, 'transactions');
  }
  if (b.version !== MODERN_GENESIS_BLOCK_VERSION && b.genesisData !== null) {
    throw genericError(`Block version '${b.version}' could not contain genesis data`, 'genesisData');
  }
  if (signature !== null && signature.length !== p.crypto.signatureLength) {
    throw genericError(`Incorrect signature length: '${signature.length}', expected '${p.crypto.signatureLength}'`, 'signature');
  }
}

/**
 * The WEST part of a transaction's fee, as WE's BlockFeeCalculator sums it: an atomic
 * container contributes its inner transactions' fees, an executed-contract transaction
 * the fee of the transaction it executed; fees paid in an asset count 0.
 */
export function westFeeOf(tx: Transaction): bigint {
  if (isAtomic(tx)) return tx.data.transactions.reduce((sum, inner) => sum + westFeeOf(inner), 0n);
  const executed = executedInnerTx(tx);
  if (executed !== undefined) return westFeeOf(executed);
  return tx.feeAssetId === null ? tx.fee : 0n;
}

export class Block implements UnsignedBlock {
  readonly version: number;
  readonly timestamp: bigint;
  readonly reference: Uint8Array;
  readonly consensus: ConsensusData;
  readonly transactions: readonly Transaction[];
  readonly featureVotes: readonly number[];
  readonly genesisData: GenesisBlockData | null;
  readonly generator: Uint8Array;
  private cache: { bytes?: Uint8Array; size?: number; votingHash?: Uint8Array; valid?: boolean; fee?: bigint } = {};

  private constructor(
    readonly protocol: Protocol,
    fields: UnsignedBlock,
    readonly signature: Uint8Array,
  ) {
    this.version = fields.version;
    this.timestamp = fields.timestamp;
    this.reference = fields.reference;
    this.consensus = fields.consensus;
    this.transactions = fields.transactions;
    this.featureVotes = fields.featureVotes;
    this.genesisData = fields.genesisData;
    this.generator = fields.generator;
  }

  /** A block from its fields and signature (WE's Block.build): feature votes keep their order. */
  static build(p: Protocol, fields: UnsignedBlock, signature: Uint8Array): Block {
    checkBlock(p, fields, signature);
    return new Block(p, copyFields(fields), signature);
  }

  /**
   * Signs a block as a WE miner does (Block.buildAndSign): the generator is the signer's
   * public key, feature votes are put in Scala Set order (duplicates refused).
   */
  static sign(p: Protocol, fields: Omit<UnsignedBlock, 'generator'>, privateKey: Uint8Array): Block {
    const unsigned: UnsignedBlock = {
      ...copyFields({ ...fields, generator: p.crypto.publicKeyOf(privateKey) }),
      featureVotes: featureVotesForProducing(fields.featureVotes),
    };
    return Block.signUnsigned(p, unsigned, privateKey);
  }

  /** Signs exactly these fields, keeping the feature-vote order given (liquid blocks re-signing a key block). */
  static signKeepingOrder(p: Protocol, fields: Omit<UnsignedBlock, 'generator'>, privateKey: Uint8Array): Block {
    const unsigned = copyFields({ ...fields, generator: p.crypto.publicKeyOf(privateKey) });
    return Block.signUnsigned(p, unsigned, privateKey);
  }

  private static signUnsigned(p: Protocol, unsigned: UnsignedBlock, privateKey: Uint8Array): Block {
    checkBlock(p, unsigned, null);
    const signed = writeBlock(p, unsigned, null);
    const signature = p.crypto.sign(privateKey, signed);
    const block = new Block(p, unsigned, signature);
    block.cache.bytes = concatBytes(signed, signature);
    block.cache.valid = true;
    return block;
  }

  /** A block from its wire bytes; every malformed input is a DecodeError (or WE's build error). */
  static fromBytes(p: Protocol, bytes: Uint8Array): Block {
    const r = new ByteReader(bytes);
    const version = r.u8('version');
    if (!BLOCK_VERSIONS.includes(version)) {
      throw new DecodeError(`Block version is incorrect: found '${(version << 24) >> 24}', available 'Set(1, 2, 3, 4)'`, 'version');
    }
    const timestamp = r.i64('timestamp');
    const reference = r.bytes(BLOCK_ID_LENGTH, 'reference');
    const consensus = readConsensus(r, p);
    const { declaredCount, transactions } = readBlockTransactions(r, p, version);
    let featureVotes: number[] = [];
    if (version > PLAIN_BLOCK_VERSION) {
      const n = r.i32('featureVotes');
      if (n < 0) throw new DecodeError(`Negative feature vote count ${n}`, 'featureVotes');
      if (n > MAX_FEATURES_IN_BLOCK) {
        throw new DecodeError(`Block could not contain more than '${MAX_FEATURES_IN_BLOCK}' feature votes`, 'featureVotes');
      }
      featureVotes = [];
      for (let i = 0; i < n; i++) featureVotes.push(r.i16('featureVotes'));
      wrapDecode(() => checkFeatureVotes(featureVotes));
    }
    let genesisData: GenesisBlockData | null = null;
    if (version === MODERN_GENESIS_BLOCK_VERSION) {
      const flag = r.u8('genesisData');
      if (flag === 1) {
        const b = r.u8('genesisData');
        if (b > 1) throw new DecodeError(`Invalid boolean byte ${b} in genesis data`, 'genesisData');
        genesisData = { senderRoleEnabled: b === 1 };
      } else if (flag !== 0) {
        throw new DecodeError(`Invalid genesis data flag ${flag}`, 'genesisData');
      }
    }
    const generator = r.bytes(p.crypto.publicKeyLength, 'generator');
    const signature = r.bytes(p.crypto.signatureLength, 'signature');
    r.expectEnd('block');
    if (declaredCount !== transactions.length) {
      throw new DecodeError(
        `Transaction count from block header '${declaredCount}' is not equal to transaction data size '${transactions.length}' in block`,
        'transactions',
      );
    }
    return wrapDecode(() => Block.build(p, { version, timestamp, reference, consensus, transactions, featureVotes, genesisData, generator }, signature));
  }

  /** Wire bytes. */
  get bytes(): Uint8Array {
    return (this.cache.bytes ??= writeBlock(this.protocol, this, this.signature));
  }

  /** What the signature covers: the wire bytes without the trailing signature. */
  get signedBytes(): Uint8Array {
    const b = this.bytes;
    return b.subarray(0, b.length - this.signature.length);
  }

  /** The block id: its signature. */
  get id(): Uint8Array {
    return this.signature;
  }

  get idBase58(): string {
    return encodeBase58(this.signature);
  }

  /** `blocksize` in block JSON: the wire length (counted, not serialised, when the bytes were not needed yet). */
  get size(): number {
    if (this.cache.bytes !== undefined) return this.cache.bytes.length;
    if (this.cache.size === undefined) {
      let size = writeBlock(this.protocol, { ...this, transactions: [] }, this.signature).length;
      for (const tx of this.transactions) size += 4 + tx.bytes.length;
      this.cache.size = size;
    }
    return this.cache.size;
  }

  get transactionCount(): number {
    return this.transactions.length;
  }

  get generatorAddress(): string {
    return this.protocol.addresses.fromPublicKey(this.generator).toString();
  }

  /** CFT `votingHash`: fastHash of the block with an empty vote list and no signature. */
  get votingHash(): Uint8Array {
    return (this.cache.votingHash ??= this.protocol.crypto.fastHash(writeBlock(this.protocol, this, null, true)));
  }

  /** Sum of the WEST-denominated fees of its transactions (the `fee` of block JSON). */
  get fee(): bigint {
    if (this.cache.fee === undefined) {
      let sum = 0n;
      for (const tx of this.transactions) sum += westFeeOf(tx);
      this.cache.fee = sum;
    }
    return this.cache.fee;
  }

  /** Id, size, transaction count and fee of this block. */
  get summary(): BlockSummary {
    return { id: this.id, size: this.size, transactionCount: this.transactionCount, fee: this.fee };
  }

  /**
   * The summary of this block when it is `previous` with `added` transactions appended (a
   * liquid block after a micro-block): the fee is counted on from `previous`'s instead of over
   * every transaction again, and so is the size under the same header. A vote micro-block
   * (no transactions) keeps the fee but not the id or the size: its votes replace the
   * header's, so the size is counted from this header and the transactions' lengths.
   */
  summaryAfter(previous: Block, added: readonly Transaction[]): BlockSummary {
    if (previous.transactions.length + added.length === this.transactions.length) {
      if (previous.consensus === this.consensus && this.cache.size === undefined && this.cache.bytes === undefined) {
        let size = previous.size;
        for (const tx of added) size += 4 + tx.bytes.length;
        this.cache.size = size;
      }
      if (this.cache.fee === undefined) {
        let fee = previous.fee;
        for (const tx of added) fee += westFeeOf(tx);
        this.cache.fee = fee;
      }
    }
    return this.summary;
  }

  /** The generator's signature over the signed bytes. */
  hasValidSignature(): boolean {
    return (this.cache.valid ??= this.protocol.crypto.verify(this.generator, this.signedBytes, this.signature));
  }

  /** Throws WE's InvalidSignature unless the block's signature verifies. */
  requireValidSignature(): this {
    if (!this.hasValidSignature()) throw invalidSignature('signature', `invalid signature of block ${this.idBase58}`);
    return this;
  }

  /** The CFT votes that are signed by their sender and vote for this block's voting hash. */
  validVotes(): Vote[] {
    if (this.consensus.type !== 'cft') return [];
    const hash = this.votingHash;
    return this.consensus.votes.filter((v) => equalBytes(v.blockVotingHash, hash) && v.hasValidSignature(this.protocol));
  }

  /**
   * A block from fields whose `signature` the caller produced or verified over exactly
   * their signed bytes (LiquidBlockBytes): it is not verified again, and its bytes are
   * serialised only when asked for.
   */
  static withCheckedSignature(p: Protocol, fields: UnsignedBlock, signature: Uint8Array): Block {
    checkBlock(p, fields, signature);
    const block = new Block(p, copyFields(fields), signature);
    block.cache.valid = true;
    return block;
  }

  /** The same fields under another signature (e.g. a liquid block's total signature). */
  withSignature(signature: Uint8Array): Block {
    return Block.build(this.protocol, this, signature);
  }

  /** The same header with other transactions and/or consensus data, unsigned. */
  withContent(transactions: readonly Transaction[], consensus: ConsensusData = this.consensus): UnsignedBlock {
    return { ...copyFields(this), transactions, consensus };
  }

  /**
   * Header JSON as the node writes it (BlockHeaderJsonify + blocksize, transactionCount).
   * `blockSize` and `transactionCount` override the block's own (a header answered from a
   * stored summary, its transactions not decoded).
   */
  headerJson(blockSize: number = this.size, transactionCount: number = this.transactionCount): JsonObject {
    const p = this.protocol;
    const out: JsonObject = {
      version: this.version,
      timestamp: this.timestamp,
      reference: encodeBase58(this.reference),
      generator: this.generatorAddress,
      signature: this.idBase58,
      [consensusJsonKey(this.consensus)]: consensusJson(this.consensus, p),
    };
    if (this.version > PLAIN_BLOCK_VERSION) out['features'] = featureVotesJsonOrder(this.featureVotes);
    if (this.genesisData !== null) out['senderRoleEnabled'] = this.genesisData.senderRoleEnabled;
    out['blocksize'] = blockSize;
    out['transactionCount'] = transactionCount;
    return out;
  }

  /** Full-block JSON: header, `fee` and `transactions`. */
  toJson(options: BlockJsonOptions = {}): JsonObject {
    const txJson = options.transactionJson ?? ((tx: Transaction) => tx.toJson());
    return { ...this.headerJson(), fee: this.fee, transactions: this.transactions.map(txJson) };
  }
}

/**
 * The signed bytes of a liquid (NG) block kept from one micro-block to the next, so that a
 * micro-block costs the serialisation of its own transactions instead of the whole liquid
 * block's: the transaction section grows in place, and only its length and count (at fixed
 * offsets) and what follows it (feature votes, generator) are written again. The bytes are
 * those `writeBlock` gives for the same v3 block, byte for byte.
 *
 * `append` gives the signed bytes of `block` plus some transactions (a view, valid until the
 * next `append`); `accept` makes the block signed or verified over them the new base. An
 * append never accepted (a micro-block refused) is dropped by the next `append`.
 */
export class LiquidBlockBytes {
  private buf: Uint8Array;
  /** Where the transaction section (its i32 length, i32 count) starts. */
  private readonly sectionAt: number;
  /** Feature votes and generator: what follows the transactions. */
  private readonly tail: Uint8Array;
  /** End of the transactions and their count, of `block` and of the pending append. */
  private accepted: { end: number; count: number };
  private pending: { end: number; count: number } | undefined;
  /** SHA-512 running over the accepted transaction section up to `end` (see signingDigest); started when first asked for. */
  private sectionHash: { readonly hash: Hash; end: number } | undefined;

  private constructor(
    /** The block these bytes are of. */
    public block: Block,
  ) {
    const p = block.protocol;
    const empty = writeBlock(p, { ...block, version: NG_BLOCK_VERSION, transactions: [] }, null);
    const tailLength = 4 + 2 * block.featureVotes.length + block.generator.length;
    this.sectionAt = empty.length - tailLength - 8;
    this.tail = empty.slice(empty.length - tailLength);
    this.buf = new Uint8Array(Math.max(4096, 2 * empty.length));
    this.buf.set(empty.subarray(0, this.sectionAt + 8));
    this.accepted = { end: this.sectionAt + 8, count: 0 };
    this.append(block.transactions);
    this.accepted = this.pending!;
    this.pending = undefined;
  }

  /** The kept bytes of a liquid block (a v3 block or key block): serialised once here. */
  static of(block: Block): LiquidBlockBytes {
    return new LiquidBlockBytes(block);
  }

  /** The signed bytes of `block` with `transactions` appended (valid until the next append). */
  append(transactions: readonly Transaction[]): Uint8Array {
    let end = this.accepted.end;
    let add = 0;
    for (const tx of transactions) add += 4 + tx.bytes.length;
    const size = end + add + this.tail.length;
    if (size > this.buf.length) {
      const grown = new Uint8Array(Math.max(size, 2 * this.buf.length));
      grown.set(this.buf.subarray(0, end));
      this.buf = grown;
    }
    const buf = this.buf;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    for (const tx of transactions) {
      const bytes = tx.bytes;
      view.setInt32(end, bytes.length);
      buf.set(bytes, end + 4);
      end += 4 + bytes.length;
    }
    const count = this.accepted.count + transactions.length;
    view.setInt32(this.sectionAt, 4 + end - (this.sectionAt + 8));
    view.setInt32(this.sectionAt + 4, count);
    buf.set(this.tail, end);
    this.pending = { end, count };
    return buf.subarray(0, end + this.tail.length);
  }

  /**
   * A SHA-512 digest committing to the bytes the last `append` gave (the header part, the
   * transactions, the tail), for a signature's nonce (CryptoSuite.sign): a running hash of
   * the transaction section takes in each transaction once, so a micro-block hashes its own
   * transactions instead of the whole liquid block again.
   */
  signingDigest(): Uint8Array {
    const pending = this.pending;
    if (pending === undefined) throw new Error('Nothing appended to sign');
    const start = this.sectionAt + 8;
    const section = (this.sectionHash ??= { hash: createHash('sha512'), end: start });
    if (section.end < this.accepted.end) {
      section.hash.update(this.buf.subarray(section.end, this.accepted.end));
      section.end = this.accepted.end;
    }
    const transactions = section.hash.copy().update(this.buf.subarray(this.accepted.end, pending.end)).digest();
    return new Uint8Array(createHash('sha512').update(this.buf.subarray(0, start)).update(transactions).update(this.tail).digest());
  }

  /** The wire bytes of `block` (a copy of those kept, with its signature). */
  blockBytes(): Uint8Array {
    const signedLength = this.accepted.end + this.tail.length;
    const out = new Uint8Array(signedLength + this.block.signature.length);
    // A pending append overwrote the tail and the section's length and count: written again from the accepted ones.
    out.set(this.buf.subarray(0, this.accepted.end));
    const view = new DataView(out.buffer);
    view.setInt32(this.sectionAt, 4 + this.accepted.end - (this.sectionAt + 8));
    view.setInt32(this.sectionAt + 4, this.accepted.count);
    out.set(this.tail, this.accepted.end);
    out.set(this.block.signature, signedLength);
    return out;
  }

  /** `block` (signed or verified over the last append's bytes) is the new base. */
  accept(block: Block): void {
    if (this.pending === undefined) throw new Error('Nothing appended to accept');
    this.accepted = this.pending;
    this.pending = undefined;
    this.block = block;
  }
}

function copyFields(f: UnsignedBlock): UnsignedBlock {
  return {
    version: f.version,
    timestamp: f.timestamp,
    reference: f.reference,
    consensus: f.consensus,
    transactions: [...f.transactions],
    featureVotes: [...f.featureVotes],
    genesisData: f.genesisData,
    generator: f.generator,
  };
}

/** Runs `f`, letting WeErrors through and turning anything else into a DecodeError (bad input never crashes). */
function wrapDecode<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof WeError) throw e;
    throw new DecodeError(`Malformed block: ${(e as Error).message}`, 'block');
  }
}

/** i32 T ‖ count ‖ (i32 len ‖ tx)*: reads every transaction of the section. */
function readBlockTransactions(r: ByteReader, p: Protocol, version: number): { declaredCount: number; transactions: Transaction[] } {
  const { section, declaredCount, end } = openTransactionSection(r, version);
  const transactions: Transaction[] = [];
  while (section.remaining > 0) transactions.push(readSectionTransaction(section, p, transactions.length));
  r.pos = end;
  return { declaredCount, transactions };
}

/** The transaction section at `r`: a reader over its transactions, the count it declares, where it ends. */
function openTransactionSection(r: ByteReader, version: number): { section: ByteReader; declaredCount: number; end: number } {
  const length = r.i32('transactions');
  const countLength = txCountLength(version);
  if (length < countLength || length > r.remaining) throw new DecodeError(`Invalid transactions section length ${length}`, 'transactions');
  const end = r.pos + length;
  const section = r.within(r.pos, end);
  const declaredCount = countLength === 1 ? section.i8('transactionCount') : section.i32('transactionCount');
  return { section, declaredCount, end };
}

/** Transaction `i` of a section: i32 length ‖ its bytes. */
function readSectionTransaction(section: ByteReader, p: Protocol, i: number): Transaction {
  const txLength = section.i32(`transactions(${i})`);
  if (txLength < 1 || txLength > section.remaining) {
    throw new DecodeError(`Invalid length ${txLength} of transaction ${i} in block`, `transactions(${i})`);
  }
  return wrapDecode(() => p.readTransaction(section, txLength));
}

/**
 * The transactions of a block's bytes, each decoded when it is asked for (a block of
 * thousands of transactions is read a few at a time by heavy REST answers, never whole).
 * `bytes` must be the node's own encoding of a block (as stored), which no one changes: the
 * transactions' byte fields, wire bytes and bodies are views into it (ByteReader.sharing),
 * so decoding copies nothing and their ids are not encoded again.
 */
export function* transactionsOfBlockBytes(p: Protocol, bytes: Uint8Array): Generator<Transaction, void, undefined> {
  const r = ByteReader.sharing(bytes);
  const version = r.u8('version');
  r.i64('timestamp');
  r.bytes(BLOCK_ID_LENGTH, 'reference');
  readConsensus(r, p);
  const { section } = openTransactionSection(r, version);
  for (let i = 0; section.remaining > 0; i++) yield readSectionTransaction(section, p, i);
}
