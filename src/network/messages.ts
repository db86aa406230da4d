/**
 * Payloads of the P2P messages Weft exchanges (reference/chain-consensus-network.md §11.4;
 * WE's network/message/MessageSpec.scala and network/messages.scala). The frame around
 * them (magic, code, length, checksum) belongs to the transport.
 *
 * Every decoder checks lengths exactly and throws a `MalformedMessage` on bad input; the
 * caller closes the peer that sent it.
 */
import { concatBytes } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import { Block } from '../protocol/blocks/block.js';
import { parseMicroBlock, type MicroBlock, type TransactionReader } from '../protocol/blocks/micro-block.js';
import type { Protocol } from '../protocol/protocol.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { MAX_IDS_PER_MESSAGE, MAX_SCORE_PAYLOAD, MAX_TRANSACTION_PAYLOAD } from './framing.js';
import { MessageCode } from './types.js';
import type { Certificate } from '../crypto/pki/x509.js';
import {
  CertChainCodecError,
  decodeMicroBlockWithCertificates,
  decodeWithCertificates,
  encodeMicroBlockWithCertificates,
  encodeWithCertificates,
  type CertificateBytes,
} from './cert-chain-codec.js';
import { DecodeError, WeError } from '../errors/catalogue.js';

/** A message payload that does not parse; the peer that sent it is to be closed. */
export class MalformedMessage extends DecodeError {
  constructor(
    readonly messageCode: MessageCode,
    message: string,
  ) {
    super(`Malformed message ${messageCode}: ${message}`, `message(${messageCode})`);
  }
}

const u32 = (n: number): Uint8Array => {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, n);
  return out;
};

// --- GetSignatures (20) / Signatures (21) ---------------------------------------------

/** `int n ‖ n × id`: GetSignatures (known ids, newest first) and Signatures (common id, then the ids after it). */
export function encodeSignatures(ids: readonly Uint8Array[]): Uint8Array {
  if (ids.length > MAX_IDS_PER_MESSAGE) throw new RangeError(`At most ${MAX_IDS_PER_MESSAGE} ids per message, got ${ids.length}`);
  return concatBytes(u32(ids.length), ...ids);
}

export function decodeSignatures(code: typeof MessageCode.GetSignatures | typeof MessageCode.Signatures, payload: Uint8Array, idLength: number): Uint8Array[] {
  if (payload.length < 4) throw new MalformedMessage(code, `${payload.length} bytes, the id count needs 4`);
  const n = new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getInt32(0);
  if (n < 0 || n > MAX_IDS_PER_MESSAGE) throw new MalformedMessage(code, `${n} ids, at most ${MAX_IDS_PER_MESSAGE} allowed`);
  if (payload.length !== 4 + n * idLength) throw new MalformedMessage(code, `${n} ids of ${idLength} bytes do not match the payload length ${payload.length}`);
  return splitIds(payload.subarray(4), idLength);
}

function splitIds(bytes: Uint8Array, idLength: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += idLength) out.push(Uint8Array.from(bytes.subarray(i, i + idLength)));
  return out;
}

// --- GetBlocks (34) / MissingBlock (41) ------------------------------------------------

/** Concatenated ids. */
export function encodeGetBlocks(ids: readonly Uint8Array[]): Uint8Array {
  if (ids.length > MAX_IDS_PER_MESSAGE) throw new RangeError(`At most ${MAX_IDS_PER_MESSAGE} ids per message, got ${ids.length}`);
  return concatBytes(...ids);
}

export function decodeGetBlocks(payload: Uint8Array, idLength: number): Uint8Array[] {
  const code = MessageCode.GetBlocks;
  if (payload.length === 0 || payload.length % idLength !== 0)
    throw new MalformedMessage(code, `length ${payload.length} is not a positive multiple of the id length ${idLength}`);
  if (payload.length / idLength > MAX_IDS_PER_MESSAGE)
    throw new MalformedMessage(code, `${payload.length / idLength} ids, at most ${MAX_IDS_PER_MESSAGE} allowed`);
  return splitIds(payload, idLength);
}

export const encodeMissingBlock = (id: Uint8Array): Uint8Array => Uint8Array.from(id);

export function decodeMissingBlock(payload: Uint8Array, idLength: number): Uint8Array {
  if (payload.length !== idLength) throw new MalformedMessage(MessageCode.MissingBlock, `length ${payload.length}, expected ${idLength}`);
  return Uint8Array.from(payload);
}

// --- Score (24) ------------------------------------------------------------------------

/** Java's BigInteger.toByteArray: minimal big-endian two's complement. */
export function encodeScore(score: bigint): Uint8Array {
  if (score < 0n) throw new RangeError('A chain score is never negative');
  let hex = score.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  // A leading bit set would read as negative: Java prepends a zero byte.
  if (parseInt(hex.slice(0, 2), 16) >= 0x80) hex = `00${hex}`;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** WE reads the score as unsigned (BigInt(1, bytes)). */
export function decodeScore(payload: Uint8Array): bigint {
  if (payload.length === 0 || payload.length > MAX_SCORE_PAYLOAD)
    throw new MalformedMessage(MessageCode.Score, `length ${payload.length}, expected 1…${MAX_SCORE_PAYLOAD}`);
  return BigInt(`0x${Buffer.from(payload).toString('hex')}`);
}

// --- Block (23), Transaction (25), MicroBlockResponse V1 (28) -----------------------------

export const encodeBlock = (block: Block): Uint8Array => block.bytes;

export function decodeBlock(protocol: Protocol, payload: Uint8Array): Block {
  return parsed(MessageCode.Block, () => Block.fromBytes(protocol, payload));
}

export const encodeTransaction = (tx: Transaction): Uint8Array => tx.bytes;

export function decodeTransaction(protocol: Protocol, payload: Uint8Array): Transaction {
  if (payload.length > MAX_TRANSACTION_PAYLOAD)
    throw new MalformedMessage(MessageCode.Transaction, `length ${payload.length}, at most ${MAX_TRANSACTION_PAYLOAD}`);
  return parsed(MessageCode.Transaction, () => protocol.transactionFromBytes(payload));
}

export const encodeMicroBlockResponse = (micro: MicroBlock): Uint8Array => micro.bytes;

/** A micro-block response; `readTransaction` may take transactions already decoded from the same bytes. */
export function decodeMicroBlockResponse(protocol: Protocol, payload: Uint8Array, readTransaction?: TransactionReader): MicroBlock {
  return parsed(MessageCode.MicroBlockResponse, () => parseMicroBlock(protocol, payload, readTransaction));
}

// --- HistoryBlock (45), BroadcastedTransaction (46), MicroBlockResponse V2 (47): with certificates ---

export const encodeHistoryBlock = (block: Block, certificates: readonly CertificateBytes[]): Uint8Array => encodeWithCertificates(block.bytes, certificates);

export function decodeHistoryBlock(protocol: Protocol, payload: Uint8Array): { block: Block; certificates: Certificate[] } {
  const { payload: bytes, certificates } = withCertificates(MessageCode.HistoryBlock, payload);
  return { block: parsed(MessageCode.HistoryBlock, () => Block.fromBytes(protocol, bytes)), certificates };
}

export const encodeBroadcastedTransaction = (tx: Transaction, certificates: readonly CertificateBytes[]): Uint8Array =>
  encodeWithCertificates(tx.bytes, certificates);

/** The transaction bytes (parsed by the caller, once however many peers relay them) and the certificates. */
export function decodeBroadcastedTransaction(payload: Uint8Array): { transaction: Uint8Array; certificates: Certificate[] } {
  const { payload: transaction, certificates } = withCertificates(MessageCode.BroadcastedTransaction, payload);
  if (transaction.length > MAX_TRANSACTION_PAYLOAD)
    throw new MalformedMessage(MessageCode.BroadcastedTransaction, `transaction length ${transaction.length}, at most ${MAX_TRANSACTION_PAYLOAD}`);
  return { transaction, certificates };
}

export const encodeMicroBlockResponseV2 = (micro: MicroBlock, certificates: readonly CertificateBytes[]): Uint8Array =>
  encodeMicroBlockWithCertificates(micro.bytes, certificates);

export function decodeMicroBlockResponseV2(
  protocol: Protocol,
  payload: Uint8Array,
  readTransaction?: TransactionReader,
): { micro: MicroBlock; certificates: Certificate[] } {
  const code = MessageCode.MicroBlockResponseV2;
  let read: { payload: Uint8Array; certificates: Certificate[] };
  try {
    read = decodeMicroBlockWithCertificates(payload);
  } catch (e) {
    if (e instanceof CertChainCodecError) throw new MalformedMessage(code, e.message);
    throw e;
  }
  return { micro: parsed(code, () => parseMicroBlock(protocol, read.payload, readTransaction)), certificates: read.certificates };
}

function withCertificates(code: MessageCode, payload: Uint8Array): { payload: Uint8Array; certificates: Certificate[] } {
  try {
    const read = decodeWithCertificates(payload);
    if (read.end !== payload.length) throw new CertChainCodecError(`${payload.length - read.end} bytes after the cert-chain store`);
    return read;
  } catch (e) {
    if (e instanceof CertChainCodecError) throw new MalformedMessage(code, e.message);
    throw e;
  }
}

function parsed<T>(code: MessageCode, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof MalformedMessage) throw e;
    if (e instanceof WeError || e instanceof RangeError || e instanceof TypeError) throw new MalformedMessage(code, e.message);
    throw e;
  }
}

// --- MicroBlockRequest (27) ------------------------------------------------------------

export const encodeMicroBlockRequest = (totalSignature: Uint8Array): Uint8Array => Uint8Array.from(totalSignature);

export function decodeMicroBlockRequest(payload: Uint8Array, idLength: number): Uint8Array {
  if (payload.length !== idLength) throw new MalformedMessage(MessageCode.MicroBlockRequest, `length ${payload.length}, expected ${idLength}`);
  return Uint8Array.from(payload);
}

// --- MicroBlockInventory V1 (26) / V2 (43) ---------------------------------------------

/**
 * "The micro-block `totalSig` extending `prevSig` exists": announced by its miner, relayed
 * unchanged. A V2 (43, WE's miner once feature 173 is active) also names the key block of
 * the liquid block it belongs to (`keyBlockSig`), and its signature covers it.
 */
export interface MicroBlockInventory {
  /** Public key of the announcing miner. */
  readonly sender: Uint8Array;
  readonly totalSig: Uint8Array;
  readonly prevSig: Uint8Array;
  /** V2 only: the signature of the key block the micro-block extends. */
  readonly keyBlockSig?: Uint8Array;
  /** The sender's signature over `address(sender) ‖ totalSig ‖ prevSig` (V1) or `address ‖ totalSig ‖ keyBlockSig ‖ prevSig` (V2). */
  readonly signature: Uint8Array;
}

/** The message an inventory travels as: 43 when it names its key block, else 26. */
export const inventoryCode = (inv: MicroBlockInventory): MessageCode =>
  inv.keyBlockSig === undefined ? MessageCode.MicroBlockInventory : MessageCode.MicroBlockInventoryV2;

function inventorySignedBytes(
  protocol: Protocol,
  sender: Uint8Array,
  totalSig: Uint8Array,
  prevSig: Uint8Array,
  keyBlockSig: Uint8Array | undefined,
): Uint8Array {
  const address = protocol.addresses.fromPublicKey(sender).bytes;
  return keyBlockSig === undefined ? concatBytes(address, totalSig, prevSig) : concatBytes(address, totalSig, keyBlockSig, prevSig);
}

/** Signs an inventory: a V2 when `keyBlockSig` is given. */
export function signMicroBlockInventory(
  protocol: Protocol,
  keys: KeyPair,
  totalSig: Uint8Array,
  prevSig: Uint8Array,
  keyBlockSig?: Uint8Array,
): MicroBlockInventory {
  const signature = protocol.crypto.sign(keys.privateKey, inventorySignedBytes(protocol, keys.publicKey, totalSig, prevSig, keyBlockSig));
  return keyBlockSig === undefined
    ? { sender: keys.publicKey, totalSig, prevSig, signature }
    : { sender: keys.publicKey, totalSig, prevSig, keyBlockSig, signature };
}

export function verifyMicroBlockInventory(protocol: Protocol, inv: MicroBlockInventory): boolean {
  return protocol.crypto.verify(inv.sender, inventorySignedBytes(protocol, inv.sender, inv.totalSig, inv.prevSig, inv.keyBlockSig), inv.signature);
}

/** `pk ‖ totalSig ‖ prevSig ‖ signature` (26) or `pk ‖ totalSig ‖ prevSig ‖ keyBlockSig ‖ signature` (43). */
export function encodeMicroBlockInventory(inv: MicroBlockInventory): Uint8Array {
  return inv.keyBlockSig === undefined
    ? concatBytes(inv.sender, inv.totalSig, inv.prevSig, inv.signature)
    : concatBytes(inv.sender, inv.totalSig, inv.prevSig, inv.keyBlockSig, inv.signature);
}

/** Reads a 26 (`code` MicroBlockInventory) or a 43 (MicroBlockInventoryV2). */
export function decodeMicroBlockInventory(
  protocol: Protocol,
  payload: Uint8Array,
  code: typeof MessageCode.MicroBlockInventory | typeof MessageCode.MicroBlockInventoryV2 = MessageCode.MicroBlockInventory,
): MicroBlockInventory {
  const k = protocol.crypto.publicKeyLength;
  const s = protocol.crypto.signatureLength;
  const v2 = code === MessageCode.MicroBlockInventoryV2;
  const expected = k + (v2 ? 4 : 3) * s;
  if (payload.length !== expected) throw new MalformedMessage(code, `length ${payload.length}, expected ${expected}`);
  const at = (from: number, n: number): Uint8Array => Uint8Array.from(payload.subarray(from, from + n));
  const head = { sender: at(0, k), totalSig: at(k, s), prevSig: at(k + s, s) };
  return v2 ? { ...head, keyBlockSig: at(k + 2 * s, s), signature: at(k + 3 * s, s) } : { ...head, signature: at(k + 2 * s, s) };
}
