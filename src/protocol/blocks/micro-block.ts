/**
 * NG micro-blocks (we-node block/MicroBlock.scala) and the liquid block they extend
 * (mining/MinerBase.buildLiquidBlock, state/BlockchainUpdaterImpl.checkMicroBlockSignatures).
 *
 * TxMicroBlock (v3, v5):   version ‖ timestamp ‖ prevLiquidBlockSig(64) ‖ totalLiquidBlockSig(64)
 *                          ‖ i32 T ‖ i32 count ‖ (i32 len ‖ tx)* ‖ generator ‖ signature(64)
 * VoteMicroBlock (v4, v6): same header, then i16 count ‖ vote*, then generator ‖ signature.
 *
 * v3/v4 sign the bytes without the trailing signature; v5/v6 ("modified total sign",
 * feature 160) sign the same bytes with totalLiquidBlockSig left out, so the micro-block
 * and the new liquid block can be signed independently. The wire always carries all 64
 * bytes of totalLiquidBlockSig, which is the new liquid block's id and the micro-block's id.
 */
import { encodeBase58, equalBytes } from '../../crypto/encoding.js';
import { ByteReader, ByteWriter } from '../bytes.js';
import type { Protocol } from '../protocol.js';
import type { Transaction } from '../transactions/schema.js';
import { Block, BLOCK_ID_LENGTH, LiquidBlockBytes, NG_BLOCK_VERSION } from './block.js';
import { expectConsensus, readVotes, Vote, writeVotes } from './consensus.js';
import { DecodeError, genericError, invalidSignature, microBlockAppendError, WeError } from '../../errors/catalogue.js';

export const TX_MICRO_BLOCK_VERSION = 3;
export const TX_MICRO_BLOCK_MODIFIED_VERSION = 5;
export const VOTE_MICRO_BLOCK_VERSION = 4;
export const VOTE_MICRO_BLOCK_MODIFIED_VERSION = 6;
export const MICRO_BLOCK_VERSIONS: readonly number[] = [3, 4, 5, 6];
/** WE's Miner.MaxTransactionsPerMicroblock and MaxVotesPerMicroblock. */
export const MAX_TRANSACTIONS_PER_MICRO_BLOCK = 6000;
export const MAX_VOTES_PER_MICRO_BLOCK = 500;

/** v5 and v6 sign without the total signature. */
export function isModifiedTotalSignVersion(version: number): boolean {
  return version === TX_MICRO_BLOCK_MODIFIED_VERSION || version === VOTE_MICRO_BLOCK_MODIFIED_VERSION;
}

interface MicroBlockHeader {
  readonly version: number;
  readonly timestamp: bigint;
  readonly prevLiquidBlockSig: Uint8Array;
  readonly totalLiquidBlockSig: Uint8Array;
  /** Public key of the key block's generator. */
  readonly generator: Uint8Array;
}

export interface TxMicroBlockFields extends MicroBlockHeader {
  readonly transactions: readonly Transaction[];
}

export interface VoteMicroBlockFields extends MicroBlockHeader {
  readonly votes: readonly Vote[];
}

abstract class MicroBlockBase implements MicroBlockHeader {
  readonly version: number;
  readonly timestamp: bigint;
  readonly prevLiquidBlockSig: Uint8Array;
  readonly totalLiquidBlockSig: Uint8Array;
  readonly generator: Uint8Array;
  private cached: { bytes?: Uint8Array; valid?: boolean } = {};

  protected constructor(
    readonly protocol: Protocol,
    h: MicroBlockHeader,
    readonly signature: Uint8Array,
  ) {
    this.version = h.version;
    this.timestamp = h.timestamp;
    this.prevLiquidBlockSig = h.prevLiquidBlockSig;
    this.totalLiquidBlockSig = h.totalLiquidBlockSig;
    this.generator = h.generator;
  }

  /** Writes the transactions or votes. */
  protected abstract writeContent(w: ByteWriter): void;

  /**
   * Keeps the wire bytes of a micro-block just signed over `signed` (its signed bytes), so
   * its transactions are serialised once: v3/v4 wire bytes are the signed bytes and the
   * signature; v5/v6 put the total signature back after prevLiquidBlockSig.
   */
  protected keepSignedBytes(signed: Uint8Array): this {
    const totalAt = 1 + 8 + this.prevLiquidBlockSig.length;
    const modified = isModifiedTotalSignVersion(this.version);
    const out = new Uint8Array(signed.length + (modified ? this.totalLiquidBlockSig.length : 0) + this.signature.length);
    if (modified) {
      out.set(signed.subarray(0, totalAt));
      out.set(this.totalLiquidBlockSig, totalAt);
      out.set(signed.subarray(totalAt), totalAt + this.totalLiquidBlockSig.length);
    } else out.set(signed);
    out.set(this.signature, out.length - this.signature.length);
    this.cached.bytes = out;
    return this;
  }

  /** Wire bytes. */
  get bytes(): Uint8Array {
    return (this.cached.bytes ??= serializeMicroBlock(this, (w) => this.writeContent(w), this.totalLiquidBlockSig, this.signature));
  }

  /** What the signature covers (v5/v6: without totalLiquidBlockSig). */
  get signedBytes(): Uint8Array {
    if (isModifiedTotalSignVersion(this.version)) return serializeMicroBlock(this, (w) => this.writeContent(w), null, null);
    const b = this.bytes;
    return b.subarray(0, b.length - this.signature.length);
  }

  /** The id of a micro-block on the network: the total signature of the liquid block it makes. */
  get id(): Uint8Array {
    return this.totalLiquidBlockSig;
  }

  get idBase58(): string {
    return encodeBase58(this.totalLiquidBlockSig);
  }

  hasValidSignature(): boolean {
    return (this.cached.valid ??= this.protocol.crypto.verify(this.generator, this.signedBytes, this.signature));
  }

  /** Throws WE's InvalidSignature unless the micro-block's own signature verifies. */
  requireValidSignature(): this {
    if (!this.hasValidSignature()) {
      throw invalidSignature('signature', `invalid signature of micro-block ${this.idBase58}`);
    }
    return this;
  }
}

export class TxMicroBlock extends MicroBlockBase implements TxMicroBlockFields {
  readonly kind = 'tx';
  readonly transactions: readonly Transaction[];

  private constructor(p: Protocol, f: TxMicroBlockFields, signature: Uint8Array) {
    super(p, f, signature);
    this.transactions = [...f.transactions];
  }

  protected writeContent(w: ByteWriter): void {
    let length = 4;
    for (const tx of this.transactions) length += 4 + tx.bytes.length;
    w.i32(length).i32(this.transactions.length);
    for (const tx of this.transactions) w.longBytes(tx.bytes);
  }

  /** A micro-block from its fields and signature, with WE's checks. */
  static build(p: Protocol, f: TxMicroBlockFields, signature: Uint8Array): TxMicroBlock {
    checkHeader(p, f, [TX_MICRO_BLOCK_VERSION, TX_MICRO_BLOCK_MODIFIED_VERSION], false);
    checkCount(f.transactions.length, MAX_TRANSACTIONS_PER_MICRO_BLOCK, 'transactions', 'txs');
    checkSignatureLength(p, signature);
    return new TxMicroBlock(p, f, signature);
  }

  /**
   * WE's TxMicroBlock.buildAndSign. For v5 the total signature may be left out (empty)
   * and filled in later with `withTotalSignature`; v3 needs it, as it is signed.
   */
  static sign(
    p: Protocol,
    f: Omit<TxMicroBlockFields, 'generator' | 'totalLiquidBlockSig'> & { totalLiquidBlockSig?: Uint8Array },
    privateKey: Uint8Array,
  ): TxMicroBlock {
    const fields: TxMicroBlockFields = { ...f, totalLiquidBlockSig: f.totalLiquidBlockSig ?? new Uint8Array(0), generator: p.crypto.publicKeyOf(privateKey) };
    checkHeader(p, fields, [TX_MICRO_BLOCK_VERSION, TX_MICRO_BLOCK_MODIFIED_VERSION], true);
    checkCount(fields.transactions.length, MAX_TRANSACTIONS_PER_MICRO_BLOCK, 'transactions', 'txs');
    const signed = new TxMicroBlock(p, fields, new Uint8Array(0)).signedBytes;
    return new TxMicroBlock(p, fields, p.crypto.sign(privateKey, signed)).keepSignedBytes(signed);
  }

  /** The same micro-block carrying another total signature (v5: the one computed in parallel). */
  withTotalSignature(totalLiquidBlockSig: Uint8Array): TxMicroBlock {
    return TxMicroBlock.build(this.protocol, { ...headerOf(this), totalLiquidBlockSig, transactions: this.transactions }, this.signature);
  }
}

export class VoteMicroBlock extends MicroBlockBase implements VoteMicroBlockFields {
  readonly kind = 'vote';
  readonly votes: readonly Vote[];

  private constructor(p: Protocol, f: VoteMicroBlockFields, signature: Uint8Array) {
    super(p, f, signature);
    this.votes = [...f.votes];
  }

  protected writeContent(w: ByteWriter): void {
    writeVotes(w, this.votes);
  }

  static build(p: Protocol, f: VoteMicroBlockFields, signature: Uint8Array): VoteMicroBlock {
    checkHeader(p, f, [VOTE_MICRO_BLOCK_VERSION, VOTE_MICRO_BLOCK_MODIFIED_VERSION], false);
    checkCount(f.votes.length, MAX_VOTES_PER_MICRO_BLOCK, 'votes', 'votes');
    for (const v of f.votes) v.checkLengths(p);
    checkSignatureLength(p, signature);
    return new VoteMicroBlock(p, f, signature);
  }

  /** WE's VoteMicroBlock.buildAndSign (see TxMicroBlock.sign). */
  static sign(
    p: Protocol,
    f: Omit<VoteMicroBlockFields, 'generator' | 'totalLiquidBlockSig'> & { totalLiquidBlockSig?: Uint8Array },
    privateKey: Uint8Array,
  ): VoteMicroBlock {
    const fields: VoteMicroBlockFields = { ...f, totalLiquidBlockSig: f.totalLiquidBlockSig ?? new Uint8Array(0), generator: p.crypto.publicKeyOf(privateKey) };
    checkHeader(p, fields, [VOTE_MICRO_BLOCK_VERSION, VOTE_MICRO_BLOCK_MODIFIED_VERSION], true);
    checkCount(fields.votes.length, MAX_VOTES_PER_MICRO_BLOCK, 'votes', 'votes');
    for (const v of fields.votes) v.checkLengths(p);
    const unsigned = new VoteMicroBlock(p, fields, new Uint8Array(0));
    return new VoteMicroBlock(p, fields, p.crypto.sign(privateKey, unsigned.signedBytes));
  }

  withTotalSignature(totalLiquidBlockSig: Uint8Array): VoteMicroBlock {
    return VoteMicroBlock.build(this.protocol, { ...headerOf(this), totalLiquidBlockSig, votes: this.votes }, this.signature);
  }
}

export type MicroBlock = TxMicroBlock | VoteMicroBlock;

function headerOf(m: MicroBlockHeader): MicroBlockHeader {
  return {
    version: m.version,
    timestamp: m.timestamp,
    prevLiquidBlockSig: m.prevLiquidBlockSig,
    totalLiquidBlockSig: m.totalLiquidBlockSig,
    generator: m.generator,
  };
}

function serializeMicroBlock(
  h: MicroBlockHeader,
  writeContent: (w: ByteWriter) => void,
  totalLiquidBlockSig: Uint8Array | null,
  signature: Uint8Array | null,
): Uint8Array {
  const w = new ByteWriter(512);
  w.u8(h.version).i64(h.timestamp).bytes(h.prevLiquidBlockSig);
  if (totalLiquidBlockSig !== null) w.bytes(totalLiquidBlockSig);
  writeContent(w);
  w.bytes(h.generator);
  if (signature !== null) w.bytes(signature);
  return w.result();
}

/** WE's MicroBlock.validate, plus the version. A received micro-block must carry a full total signature. */
function checkHeader(p: Protocol, h: MicroBlockHeader, versions: readonly number[], signing: boolean): void {
  if (!versions.includes(h.version)) throw genericError(`Unsupported micro-block version ${h.version}, expected one of ${versions.join(', ')}`, 'version');
  if (h.prevLiquidBlockSig.length !== BLOCK_ID_LENGTH) {
    throw genericError(`Incorrect prevResBlockSig: ${h.prevLiquidBlockSig.length}`, 'prevLiquidBlockSig');
  }
  const totalOptional = signing && isModifiedTotalSignVersion(h.version) && h.totalLiquidBlockSig.length === 0;
  if (!totalOptional && h.totalLiquidBlockSig.length !== BLOCK_ID_LENGTH) {
    throw genericError(`Incorrect totalLiquidBlockSig length: '${h.totalLiquidBlockSig.length}', expected '${BLOCK_ID_LENGTH}'`, 'totalLiquidBlockSig');
  }
  if (h.generator.length !== p.crypto.publicKeyLength) {
    throw genericError(`Incorrect generator public key length: '${h.generator.length}', expected '${p.crypto.publicKeyLength}'`, 'generator');
  }
}

function checkCount(n: number, max: number, field: string, what: string): void {
  if (n === 0) throw genericError(`cannot create MicroBlock with empty ${field}`, field);
  if (n > max) throw genericError(`too many ${what} in MicroBlock: allowed: ${max}, actual: ${n}`, field);
}

function checkSignatureLength(p: Protocol, signature: Uint8Array): void {
  if (signature.length !== p.crypto.signatureLength) {
    throw genericError(`Incorrect signature length: '${signature.length}', expected '${p.crypto.signatureLength}'`, 'signature');
  }
}

/**
 * Reads one transaction of `length` bytes at the reader's position, leaving the reader after
 * it (Protocol.readTransaction; the network's reuses a transaction already decoded from the
 * very same bytes).
 */
export type TransactionReader = (r: ByteReader, length: number) => Transaction;

/** A micro-block from its wire bytes; malformed input is a DecodeError or WE's build error. */
export function parseMicroBlock(p: Protocol, bytes: Uint8Array, readTransaction: TransactionReader = (r, length) => p.readTransaction(r, length)): MicroBlock {
  const r = new ByteReader(bytes);
  const version = r.u8('version');
  if (!MICRO_BLOCK_VERSIONS.includes(version)) throw new DecodeError(`Unknown micro-block version ${(version << 24) >> 24}`, 'version');
  const timestamp = r.i64('timestamp');
  const prevLiquidBlockSig = r.bytes(BLOCK_ID_LENGTH, 'prevLiquidBlockSig');
  const totalLiquidBlockSig = r.bytes(BLOCK_ID_LENGTH, 'totalLiquidBlockSig');
  const isVote = version === VOTE_MICRO_BLOCK_VERSION || version === VOTE_MICRO_BLOCK_MODIFIED_VERSION;
  let transactions: Transaction[] = [];
  let votes: Vote[] = [];
  if (isVote) {
    const n = r.i16('votes');
    if (n <= 0) throw new DecodeError('cannot create MicroBlock with empty votes', 'votes');
    if (n > MAX_VOTES_PER_MICRO_BLOCK) throw new DecodeError(`too many votes in MicroBlock: allowed: ${MAX_VOTES_PER_MICRO_BLOCK}, actual: ${n}`, 'votes');
    r.pos -= 2;
    votes = readVotes(r, p);
  } else {
    transactions = readMicroBlockTransactions(r, readTransaction);
  }
  const generator = r.bytes(p.crypto.publicKeyLength, 'generator');
  const signature = r.bytes(p.crypto.signatureLength, 'signature');
  r.expectEnd('micro-block');
  const header = { version, timestamp, prevLiquidBlockSig, totalLiquidBlockSig, generator };
  return isVote ? VoteMicroBlock.build(p, { ...header, votes }, signature) : TxMicroBlock.build(p, { ...header, transactions }, signature);
}

function readMicroBlockTransactions(r: ByteReader, readTransaction: TransactionReader): Transaction[] {
  const length = r.i32('transactions');
  if (length < 4 || length > r.remaining) throw new DecodeError(`Invalid transactions section length ${length}`, 'transactions');
  const end = r.pos + length;
  const section = r.within(r.pos, end);
  const count = section.i32('transactionCount');
  if (count <= 0) throw new DecodeError('cannot create MicroBlock with empty transactions', 'transactions');
  if (count > MAX_TRANSACTIONS_PER_MICRO_BLOCK) {
    throw new DecodeError(`too many txs in MicroBlock: allowed: ${MAX_TRANSACTIONS_PER_MICRO_BLOCK}, actual: ${count}`, 'transactions');
  }
  const transactions: Transaction[] = [];
  while (section.remaining > 0) {
    const i = transactions.length;
    const txLength = section.i32(`transactions(${i})`);
    if (txLength < 1 || txLength > section.remaining)
      throw new DecodeError(`Invalid length ${txLength} of transaction ${i} in micro-block`, `transactions(${i})`);
    try {
      transactions.push(readTransaction(section, txLength));
    } catch (e) {
      if (e instanceof WeError) throw e;
      throw new DecodeError(`Malformed transaction ${i} in micro-block: ${(e as Error).message}`, `transactions(${i})`);
    }
  }
  if (count !== transactions.length) {
    throw new DecodeError(`Transaction count '${count}' is not equal to transaction data size '${transactions.length}' in micro-block`, 'transactions');
  }
  r.pos = end;
  return transactions;
}

// ---------------------------------------------------------------------------
// The liquid block

/**
 * The unsigned liquid block a micro-block makes out of the current liquid block: a v3
 * block with its header, the transactions so far plus the micro-block's (a vote
 * micro-block instead replaces the CFT votes).
 */
function nextLiquidFields(liquid: Block, content: { transactions: readonly Transaction[] } | { votes: readonly Vote[] }) {
  if ('votes' in content) {
    const cft = expectConsensus(liquid.consensus, 'cft');
    return liquid.withContent(liquid.transactions, { ...cft, votes: content.votes });
  }
  return liquid.withContent([...liquid.transactions, ...content.transactions]);
}

/**
 * Miner side (MinerBase.buildLiquidBlock): signs the new liquid block, whose signature is
 * the next micro-block's totalLiquidBlockSig. Always a v3 block; feature votes keep the
 * key block's order.
 */
export function signLiquidBlock(
  p: Protocol,
  liquid: Block,
  content: { transactions: readonly Transaction[] } | { votes: readonly Vote[] },
  privateKey: Uint8Array,
): Block {
  const fields = nextLiquidFields(liquid, content);
  return Block.signKeepingOrder(p, { ...fields, version: NG_BLOCK_VERSION }, privateKey);
}

export interface ProducedMicroBlock {
  readonly microBlock: MicroBlock;
  /** The new liquid block; its id is the micro-block's totalLiquidBlockSig. */
  readonly liquidBlock: Block;
}

/**
 * Miner side: the next micro-block on top of `liquid` with its new liquid block.
 * `modifiedTotalSign` picks v5/v6 (feature 160 active) over v3/v4.
 */
export function produceMicroBlock(
  p: Protocol,
  liquid: Block,
  content: { transactions: readonly Transaction[] } | { votes: readonly Vote[] },
  options: { timestamp: bigint; privateKey: Uint8Array; modifiedTotalSign: boolean; liquidBytes?: LiquidBlockBytes },
): ProducedMicroBlock {
  const kept = options.liquidBytes;
  let liquidBlock: Block;
  if (kept !== undefined && kept.block === liquid && 'transactions' in content) {
    // The same bytes signLiquidBlock signs, the transactions appended to those kept.
    const signed = kept.append(content.transactions);
    const fields = { ...nextLiquidFields(liquid, content), version: NG_BLOCK_VERSION };
    liquidBlock = Block.withCheckedSignature(p, fields, p.crypto.sign(options.privateKey, signed, kept.signingDigest()));
    kept.accept(liquidBlock);
  } else {
    liquidBlock = signLiquidBlock(p, liquid, content, options.privateKey);
  }
  const base = {
    timestamp: options.timestamp,
    prevLiquidBlockSig: liquid.id,
    totalLiquidBlockSig: liquidBlock.id,
  };
  const microBlock =
    'votes' in content
      ? VoteMicroBlock.sign(p, { ...base, version: options.modifiedTotalSign ? 6 : 4, votes: content.votes }, options.privateKey)
      : TxMicroBlock.sign(p, { ...base, version: options.modifiedTotalSign ? 5 : 3, transactions: content.transactions }, options.privateKey);
  return { microBlock, liquidBlock };
}

/**
 * Receiver side (BlockchainUpdaterImpl.processMicroBlock / checkMicroBlockSignatures):
 * checks that `micro` extends `liquid` (same generator, prev = liquid id), that its own
 * signature verifies and that its total signature verifies over the reconstructed liquid
 * block; returns that new liquid block. `firstMicroBlock` picks WE's message for a fork.
 */
export function applyMicroBlock(liquid: Block, micro: MicroBlock, options: { firstMicroBlock?: boolean; liquidBytes?: LiquidBlockBytes } = {}): Block {
  const p = liquid.protocol;
  if (!equalBytes(p.addresses.fromPublicKey(liquid.generator).bytes, p.addresses.fromPublicKey(micro.generator).bytes)) {
    throw microBlockAppendError('Base block has been generated by another account');
  }
  if (!equalBytes(micro.prevLiquidBlockSig, liquid.id)) {
    throw microBlockAppendError(
      options.firstMicroBlock === true
        ? "It's first micro and it doesn't reference base block (which exists)"
        : "It doesn't reference last known micro-block (which exists)",
    );
  }
  micro.requireValidSignature();
  let fields;
  try {
    fields = nextLiquidFields(liquid, micro.kind === 'vote' ? { votes: micro.votes } : { transactions: micro.transactions });
  } catch (e) {
    if (e instanceof WeError) throw microBlockAppendError(e.message);
    throw e;
  }
  const kept = options.liquidBytes;
  if (kept !== undefined && kept.block === liquid && micro.kind === 'tx' && fields.version === NG_BLOCK_VERSION) {
    // The reconstructed block's signed bytes, the micro-block's transactions appended to those kept.
    const signed = kept.append(micro.transactions);
    if (!p.crypto.verify(liquid.generator, signed, micro.totalLiquidBlockSig))
      throw microBlockAppendError(`Invalid liquid block total signature '${micro.idBase58}'`);
    const next = Block.withCheckedSignature(p, fields, micro.totalLiquidBlockSig);
    kept.accept(next);
    return next;
  }
  const next = Block.build(p, fields, micro.totalLiquidBlockSig);
  if (!next.hasValidSignature()) throw microBlockAppendError(`Invalid liquid block total signature '${micro.idBase58}'`);
  return next;
}

/**
 * The liquid block a key block and its micro-blocks (in order) make, without checking
 * anything: for micro-blocks that were checked when they were appended (the store keeps
 * them and assembles the liquid block from them).
 */
export function assembleLiquidBlock(keyBlock: Block, micros: readonly MicroBlock[]): Block {
  const last = micros[micros.length - 1];
  if (last === undefined) return keyBlock;
  const transactions: Transaction[] = [...keyBlock.transactions];
  let consensus = keyBlock.consensus;
  for (const m of micros) {
    if (m.kind === 'tx') for (const tx of m.transactions) transactions.push(tx);
    else consensus = { ...expectConsensus(consensus, 'cft'), votes: m.votes };
  }
  return Block.build(keyBlock.protocol, keyBlock.withContent(transactions, consensus), last.totalLiquidBlockSig);
}
