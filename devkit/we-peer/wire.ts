/**
 * WE 1.14's P2P wire, written from we-node release-1.14 (node/src/main/scala/com/wavesenterprise/
 * network/) and nothing of Weft's src/network: the unframed V3 handshake
 * (handshake/SignedHandshakeV3.scala), the Netty length prefix and MetaMessageCodec frame
 * (magic 0x12345678 ‖ code ‖ int32 length ‖ SHA-256 checksum(4) ‖ payload, no checksum for
 * an empty payload), and every message layout of message/MessageSpec.scala a 1.14 node
 * decodes. Each decoder checks the layout as WE's spec would accept it and throws a
 * LayoutViolation naming what is wrong; block, micro-block and transaction bodies are read
 * by src/protocol (pinned by the official clients' vectors).
 */
import { createHash } from 'node:crypto';

export const WE_MAGIC = 0x12345678;
/** NetworkServer.scala: LengthFieldBasedFrameDecoder max frame. */
export const WE_MAX_FRAME = 100 * 1024 * 1024;
export const KEY_LENGTH = 32;
export const SIGNATURE_LENGTH = 64;
export const ADDRESS_LENGTH = 26;
export const DIGEST_LENGTH = 32;

/** WE's message codes (MessageSpec.scala values) with their names. */
export const WE_CODES = {
  3: 'GetPeersV2',
  4: 'PeersV2',
  20: 'GetSignatures',
  21: 'Signatures',
  23: 'Block',
  24: 'Score',
  25: 'Transaction',
  26: 'MicroBlockInventoryV1',
  27: 'MicroBlockRequest',
  28: 'MicroBlockResponseV1',
  29: 'NetworkContractExecutionMessage',
  30: 'PrivateDataRequest',
  31: 'PrivateDataResponse',
  32: 'ContractValidatorResultsV1',
  33: 'VoteMessage',
  34: 'GetBlocks',
  35: 'SnapshotNotification',
  36: 'SnapshotRequest',
  37: 'GenesisSnapshotRequest',
  38: 'GenesisSnapshotError',
  39: 'PrivacyInventoryV1',
  40: 'PrivacyInventoryRequest',
  41: 'MissingBlock',
  42: 'RawAttributes',
  43: 'MicroBlockInventoryV2',
  44: 'PrivacyInventoryV2',
  45: 'HistoryBlock',
  46: 'BroadcastedTransaction',
  47: 'MicroBlockResponseV2',
  48: 'MissingCrlsRequest',
  49: 'CrlDataByHashesRequest',
  50: 'CrlDataByTimestampRangeRequest',
  51: 'CrlDataResponse',
  52: 'ConfidentialDataRequest',
  53: 'ConfidentialDataResponse',
  54: 'ConfidentialInventoryRequest',
  55: 'ConfidentialInventory',
  56: 'ContractValidatorResultsV2',
} as const satisfies Record<number, string>;

export type WeCode = keyof typeof WE_CODES;

export function isWeCode(code: number): code is WeCode {
  return Object.prototype.hasOwnProperty.call(WE_CODES, code);
}

/** Something a peer sent that a WE 1.14 node would refuse or that is not the form WE sends a 1.14 peer. */
export class LayoutViolation extends Error {}

function violation(message: string): never {
  throw new LayoutViolation(message);
}

/** Big-endian writer (Guava's ByteArrayDataOutput as WE uses it). */
export class WeWriter {
  private chunks: Buffer[] = [];

  byte(v: number): this {
    this.chunks.push(Buffer.from([v & 0xff]));
    return this;
  }
  short(v: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    this.chunks.push(b);
    return this;
  }
  int(v: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    this.chunks.push(b);
    return this;
  }
  long(v: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(v);
    this.chunks.push(b);
    return this;
  }
  raw(v: Uint8Array): this {
    this.chunks.push(Buffer.from(v));
    return this;
  }
  /** BinarySerializer.writeShortByteArray / Deser.writeArray: short length ‖ bytes. */
  shortBytes(v: Uint8Array): this {
    return this.short(v.length).raw(v);
  }
  /** BinarySerializer.writeBigByteArray: int length ‖ bytes. */
  bigBytes(v: Uint8Array): this {
    return this.int(v.length).raw(v);
  }
  shortString(s: string): this {
    return this.shortBytes(Buffer.from(s, 'utf8'));
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** Big-endian reader; reading past the end is a LayoutViolation (WE's BufferUnderflow / index errors). */
export class WeReader {
  private at = 0;
  constructor(
    private readonly buf: Buffer,
    private readonly what: string,
  ) {}

  private need(n: number, field: string): void {
    if (n < 0 || this.at + n > this.buf.length) violation(`${this.what}: ${field} needs ${n} bytes at offset ${this.at}, ${this.buf.length - this.at} left`);
  }
  byte(field: string): number {
    this.need(1, field);
    return this.buf[this.at++]!;
  }
  short(field: string): number {
    this.need(2, field);
    const v = this.buf.readInt16BE(this.at);
    this.at += 2;
    return v;
  }
  int(field: string): number {
    this.need(4, field);
    const v = this.buf.readInt32BE(this.at);
    this.at += 4;
    return v;
  }
  long(field: string): bigint {
    this.need(8, field);
    const v = this.buf.readBigInt64BE(this.at);
    this.at += 8;
    return v;
  }
  raw(n: number, field: string): Buffer {
    this.need(n, field);
    const v = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
  shortBytes(field: string): Buffer {
    const n = this.short(`${field} length`);
    if (n < 0) violation(`${this.what}: negative ${field} length ${n}`);
    return this.raw(n, field);
  }
  bigBytes(field: string): Buffer {
    const n = this.int(`${field} length`);
    if (n < 0) violation(`${this.what}: negative ${field} length ${n}`);
    return this.raw(n, field);
  }
  get remaining(): number {
    return this.buf.length - this.at;
  }
  end(): void {
    if (this.remaining !== 0) violation(`${this.what}: ${this.remaining} bytes after the last field`);
  }
}

// ---------------------------------------------------------------- handshake

export interface HandshakeV3 {
  readonly chainId: number;
  readonly version: readonly [number, number, number];
  readonly consensusType: string;
  /** Declared address: IPv4/IPv6 bytes and port; undefined = none. */
  readonly declaredAddress: { readonly ip: Uint8Array; readonly port: number } | undefined;
  readonly nonce: bigint;
  readonly nodeName: string;
  readonly sessionPublicKey: Uint8Array;
  readonly ownerAddress: Uint8Array;
  readonly payload: Uint8Array;
  readonly signature: Uint8Array;
}

/** HandshakeV3Payload.bytes. */
export function handshakePayload(h: Omit<HandshakeV3, 'ownerAddress' | 'payload' | 'signature'>): Buffer {
  const w = new WeWriter();
  w.short(h.chainId);
  for (const v of h.version) w.int(v);
  w.shortString(h.consensusType);
  if (h.declaredAddress === undefined) w.byte(0);
  else {
    const addr = new WeWriter().int(h.declaredAddress.port).raw(h.declaredAddress.ip).bytes();
    w.byte(1).shortBytes(addr);
  }
  w.long(h.nonce);
  w.shortString(h.nodeName);
  w.raw(h.sessionPublicKey);
  return w.bytes();
}

/** SignedHandshakeV3.bytes: 0x03 ‖ int payload length ‖ payload ‖ owner address ‖ signature. */
export function encodeHandshake(payload: Uint8Array, ownerAddress: Uint8Array, signature: Uint8Array): Buffer {
  return new WeWriter().byte(3).bigBytes(payload).raw(ownerAddress).raw(signature).bytes();
}

/**
 * A whole V3 handshake from the start of `buf`, or undefined while bytes are missing; returns
 * how many bytes it took. WE reads the payload's fields and ignores what follows the session key.
 */
export function decodeHandshake(buf: Buffer): { handshake: HandshakeV3; length: number } | undefined {
  if (buf.length < 5) return undefined;
  const type = buf[0]!;
  if (type !== 3) violation(`handshake type ${type}: a WE 1.14 node sends only V3 (SignedHandshakeV3)`);
  const payloadLength = buf.readInt32BE(1);
  if (payloadLength < 0 || payloadLength > 64 * 1024) violation(`handshake payload length ${payloadLength}`);
  const total = 5 + payloadLength + ADDRESS_LENGTH + SIGNATURE_LENGTH;
  if (buf.length < total) return undefined;
  const payload = buf.subarray(5, 5 + payloadLength);
  const r = new WeReader(payload, 'handshake payload');
  const chainId = r.short('chainId') & 0xffff;
  const version: [number, number, number] = [r.int('major'), r.int('minor'), r.int('patch')];
  const consensusType = r.shortBytes('consensusType').toString('utf8');
  const flag = r.byte('declaredAddress flag');
  let declaredAddress: HandshakeV3['declaredAddress'];
  if (flag === 1) {
    const a = new WeReader(r.shortBytes('declaredAddress'), 'declared address');
    const port = a.int('port');
    const ip = a.raw(a.remaining, 'ip');
    if (ip.length !== 4 && ip.length !== 16) violation(`declared address of ${ip.length} bytes: InetAddress takes 4 or 16`);
    declaredAddress = { ip, port };
  } else if (flag !== 0) violation(`declaredAddress flag ${flag}`);
  const nonce = r.long('nonce');
  const nodeName = r.shortBytes('nodeName').toString('utf8');
  const sessionPublicKey = Buffer.from(r.raw(KEY_LENGTH, 'sessionPubKey'));
  return {
    handshake: {
      chainId,
      version,
      consensusType,
      declaredAddress,
      nonce,
      nodeName,
      sessionPublicKey,
      payload: Buffer.from(payload),
      ownerAddress: Buffer.from(buf.subarray(5 + payloadLength, 5 + payloadLength + ADDRESS_LENGTH)),
      signature: Buffer.from(buf.subarray(5 + payloadLength + ADDRESS_LENGTH, total)),
    },
    length: total,
  };
}

/** NodeVersion ≥ 1.11.1: the peer gets SeparateBlockAndTxMessages (45/46/47). */
export function separateBlockAndTxMessages(v: readonly [number, number, number]): boolean {
  const [a, b, c] = v;
  return a > 1 || (a === 1 && (b > 11 || (b === 11 && c >= 1)));
}

// ---------------------------------------------------------------- framing

export function checksum(payload: Uint8Array): Buffer {
  return createHash('sha256').update(payload).digest().subarray(0, 4);
}

/** Netty length prefix ‖ MetaMessageCodec frame. */
export function encodeFrame(code: number, payload: Uint8Array): Buffer {
  const body =
    payload.length === 0
      ? new WeWriter().int(WE_MAGIC).byte(code).int(0).bytes()
      : new WeWriter().int(WE_MAGIC).byte(code).int(payload.length).raw(checksum(payload)).raw(payload).bytes();
  return Buffer.concat([new WeWriter().int(body.length).bytes(), body]);
}

export interface Frame {
  readonly code: number;
  readonly payload: Buffer;
}

/**
 * One frame from the start of `buf` (after the handshake), or undefined while bytes are
 * missing. Bad magic, checksum, declared lengths or an unknown code are violations: WE closes.
 */
export function decodeFrame(buf: Buffer): { frame: Frame; length: number } | undefined {
  if (buf.length < 4) return undefined;
  const frameLength = buf.readInt32BE(0);
  if (frameLength < 9 || frameLength > WE_MAX_FRAME) violation(`frame length ${frameLength}`);
  if (buf.length < 4 + frameLength) return undefined;
  const r = new WeReader(buf.subarray(4, 4 + frameLength), 'frame');
  const magic = r.int('magic');
  if (magic !== WE_MAGIC) violation(`magic 0x${(magic >>> 0).toString(16)}`);
  const code = r.byte('code');
  const length = r.int('length');
  if (length < 0) violation(`negative payload length ${length}`);
  let payload = Buffer.alloc(0);
  if (length > 0) {
    const sum = r.raw(4, 'checksum');
    payload = Buffer.from(r.raw(length, 'payload'));
    if (!checksum(payload).equals(sum)) violation(`code ${code}: checksum ${sum.toString('hex')} is not SHA-256's ${checksum(payload).toString('hex')}`);
  }
  r.end();
  if (!isWeCode(code)) violation(`unknown message code ${code}`);
  return { frame: { code, payload }, length: 4 + frameLength };
}

// ---------------------------------------------------------------- message layouts

/** A certificate chain store (we-core CertChainStore): int count ‖ …; an empty store is int32 0. */
export const EMPTY_CERT_CHAIN_STORE = new WeWriter().int(0).bytes();

export interface MicroBlockInventory {
  readonly code: 26 | 43;
  readonly sender: Buffer;
  readonly totalBlockSig: Buffer;
  readonly prevBlockSig: Buffer;
  /** 43 only. */
  readonly keyBlockSig: Buffer | undefined;
  readonly signature: Buffer;
}

/** What a 43's signature covers: sender address ‖ total ‖ key block ‖ prev (messages.scala); 26: address ‖ total ‖ prev. */
export function inventorySignedBytes(address: Uint8Array, inv: Omit<MicroBlockInventory, 'signature' | 'sender' | 'code'>): Buffer {
  return Buffer.concat([address, inv.totalBlockSig, ...(inv.keyBlockSig === undefined ? [] : [inv.keyBlockSig]), inv.prevBlockSig]);
}

export function encodeInventory(inv: MicroBlockInventory): Buffer {
  return Buffer.concat([inv.sender, inv.totalBlockSig, inv.prevBlockSig, ...(inv.keyBlockSig === undefined ? [] : [inv.keyBlockSig]), inv.signature]);
}

export function decodeInventory(code: 26 | 43, payload: Buffer): MicroBlockInventory {
  const r = new WeReader(payload, WE_CODES[code]);
  const sender = r.raw(KEY_LENGTH, 'sender');
  const totalBlockSig = r.raw(SIGNATURE_LENGTH, 'totalBlockSig');
  const prevBlockSig = r.raw(SIGNATURE_LENGTH, 'prevBlockSig');
  const keyBlockSig = code === 43 ? r.raw(SIGNATURE_LENGTH, 'keyBlockSig') : undefined;
  const signature = r.raw(SIGNATURE_LENGTH, 'signature');
  return { code, sender, totalBlockSig, prevBlockSig, keyBlockSig, signature };
}

/** SignaturesSeqSpec (20, 21): int n ‖ n × 64, exactly (WE asserts the length). */
export function encodeSignatures(ids: readonly Uint8Array[]): Buffer {
  return Buffer.concat([new WeWriter().int(ids.length).bytes(), ...ids]);
}

export function decodeSignatures(code: 20 | 21, payload: Buffer): Buffer[] {
  const r = new WeReader(payload, WE_CODES[code]);
  const n = r.int('count');
  if (n < 0 || n > 200 || payload.length !== 4 + n * SIGNATURE_LENGTH) violation(`${WE_CODES[code]}: ${n} signatures in ${payload.length} bytes`);
  return Array.from({ length: n }, (_, i) => r.raw(SIGNATURE_LENGTH, `signature ${i}`));
}

/** HistoryBlock 45 / BroadcastedTransaction 46: int len ‖ body ‖ int len ‖ cert chain store. */
export function encodeWithCertChain(body: Uint8Array): Buffer {
  return new WeWriter().bigBytes(body).bigBytes(EMPTY_CERT_CHAIN_STORE).bytes();
}

/** MicroBlockResponseV2 47: int len ‖ micro ‖ int len ‖ cert chain store ‖ short n ‖ n × (short len ‖ CRL hash). */
export function encodeMicroBlockResponseV2(micro: Uint8Array): Buffer {
  return new WeWriter().bigBytes(micro).bigBytes(EMPTY_CERT_CHAIN_STORE).short(0).bytes();
}

/** A cert chain store's bytes as we-core reads them (count ‖ chains); only its framing is checked. */
function checkCertChainStore(bytes: Buffer, what: string): void {
  const r = new WeReader(bytes, `${what} certificate chain store`);
  const n = r.int('chain count');
  if (n < 0) violation(`${what}: negative certificate chain count ${n}`);
  if (n === 0) r.end();
}

export interface WithCertChain {
  readonly body: Buffer;
  readonly crlHashes: number;
}

export function decodeWithCertChain(code: 45 | 46 | 47, payload: Buffer): WithCertChain {
  const r = new WeReader(payload, WE_CODES[code]);
  const body = r.bigBytes(code === 45 ? 'block' : code === 46 ? 'transaction' : 'micro-block');
  checkCertChainStore(r.bigBytes('certChain'), WE_CODES[code]);
  let crlHashes = 0;
  if (code === 47) {
    crlHashes = r.short('crlHashes count');
    if (crlHashes < 0) violation(`${WE_CODES[code]}: negative CRL hash count`);
    for (let i = 0; i < crlHashes; i++) r.shortBytes(`crlHash ${i}`);
  }
  if (code !== 45) r.end();
  return { body: Buffer.from(body), crlHashes };
}

/** RawAttributes 42: public key ‖ short len ‖ body ‖ signature; body = node mode ‖ P2P TLS flag. */
export interface RawAttributes {
  readonly sender: Buffer;
  readonly body: Buffer;
  readonly signature: Buffer;
  readonly nodeMode: number;
  readonly p2pTls: boolean;
}

export function encodeRawAttributes(sender: Uint8Array, body: Uint8Array, signature: Uint8Array): Buffer {
  return new WeWriter().raw(sender).shortBytes(body).raw(signature).bytes();
}

export function decodeRawAttributes(payload: Buffer): RawAttributes {
  const r = new WeReader(payload, 'RawAttributes');
  const sender = r.raw(KEY_LENGTH, 'sender');
  const body = r.shortBytes('body');
  const signature = r.raw(SIGNATURE_LENGTH, 'signature');
  if (body.length === 0) violation('RawAttributes: empty body bytes');
  const nodeMode = body[0]!;
  if (nodeMode > 1) violation(`RawAttributes: node mode ${nodeMode} (0 default, 1 watcher)`);
  const tls = body.length > 1 ? body[1]! : 0;
  if (tls > 1) violation(`RawAttributes: p2pTlsEnabled byte ${tls}`);
  return { sender, body, signature, nodeMode, p2pTls: tls === 1 };
}

/** PeersV2 4: short n ‖ n × (short len ‖ hostname ‖ int port). */
export function encodePeers(peers: ReadonlyArray<{ host: string; port: number }>): Buffer {
  const w = new WeWriter().short(peers.length);
  for (const p of peers) w.shortString(p.host).int(p.port);
  return w.bytes();
}

export function decodePeers(payload: Buffer): Array<{ host: string; port: number }> {
  const r = new WeReader(payload, 'PeersV2');
  const n = r.short('count');
  const out: Array<{ host: string; port: number }> = [];
  for (let i = 0; i < n; i++) out.push({ host: r.shortBytes(`hostname ${i}`).toString('utf8'), port: r.int(`port ${i}`) });
  return out;
}

/** ContractExecutionMessage 29 (docker/ContractExecutionMessage.scala): body ‖ signature; the body is what is signed. */
export interface ContractExecutionStatus {
  readonly sender: Uint8Array;
  readonly txId: Uint8Array;
  readonly status: 'Success' | 'Error' | 'Failure';
  readonly code: number | undefined;
  readonly message: string;
  readonly timestamp: bigint;
}

export function contractExecutionBody(m: ContractExecutionStatus): Buffer {
  const w = new WeWriter().raw(m.sender).shortBytes(m.txId).shortString(m.status);
  if (m.code === undefined) w.byte(0);
  else w.byte(1).int(m.code);
  return w.shortString(m.message).long(m.timestamp).bytes();
}

export function decodeContractExecution(payload: Buffer): ContractExecutionStatus & { body: Buffer; signature: Buffer } {
  const r = new WeReader(payload, 'ContractExecutionMessage');
  const sender = r.raw(KEY_LENGTH, 'sender');
  const txId = r.shortBytes('txId');
  const status = r.shortBytes('status').toString('utf8');
  if (status !== 'Success' && status !== 'Error' && status !== 'Failure') violation(`ContractExecutionMessage: status '${status}'`);
  const flag = r.byte('code flag');
  if (flag > 1) violation(`ContractExecutionMessage: option flag ${flag}`);
  const code = flag === 1 ? r.int('code') : undefined;
  const message = r.shortBytes('message').toString('utf8');
  const timestamp = r.long('timestamp');
  const bodyLength = payload.length - r.remaining;
  const signature = r.raw(SIGNATURE_LENGTH, 'signature');
  r.end();
  return { sender, txId, status, code, message, timestamp, body: payload.subarray(0, bodyLength), signature };
}

/**
 * The layout checks of the codes whose bodies are not blocks or transactions, as
 * MessageSpec.scala reads them (exact sizes where WE's spec is fixed-size; trailing bytes
 * where WE would read garbage are flagged too, as no WE node writes them).
 */
export function checkFixedLayout(code: WeCode, payload: Buffer): void {
  const r = new WeReader(payload, WE_CODES[code]);
  switch (code) {
    case 3:
      if (payload.length !== 0) violation('GetPeers: non-empty data');
      return;
    case 4:
      decodePeers(payload);
      return;
    case 24:
      if (payload.length === 0 || payload.length > 64) violation(`Score of ${payload.length} bytes (1…64)`);
      return;
    case 27:
      r.raw(SIGNATURE_LENGTH, 'totalBlockSig');
      break;
    case 33:
      r.raw(KEY_LENGTH, 'sender');
      r.raw(DIGEST_LENGTH, 'blockVotingHash');
      r.raw(SIGNATURE_LENGTH, 'signature');
      break;
    case 34:
      if (payload.length % SIGNATURE_LENGTH !== 0 || payload.length > 200 * SIGNATURE_LENGTH) violation(`GetBlocks of ${payload.length} bytes`);
      return;
    case 35:
    case 36:
      r.raw(KEY_LENGTH, 'sender');
      r.long(code === 35 ? 'size' : 'offset');
      break;
    case 37:
      r.raw(KEY_LENGTH, 'sender');
      r.raw(SIGNATURE_LENGTH, 'genesis');
      r.long('offset');
      r.raw(SIGNATURE_LENGTH, 'signature');
      break;
    case 38:
      r.bigBytes('message');
      break;
    case 41:
      r.raw(SIGNATURE_LENGTH, 'signature');
      break;
    case 48: {
      r.raw(KEY_LENGTH, 'issuer');
      r.shortBytes('cdp');
      const n = r.short('missingIds count');
      for (let i = 0; i < n; i++) r.shortBytes(`missingId ${i}`);
      break;
    }
    case 49: {
      const n = r.short('crlHashes count');
      for (let i = 0; i < n; i++) r.shortBytes(`crlHash ${i}`);
      break;
    }
    case 50: {
      const from = r.long('from');
      const to = r.long('to');
      if (from < 0n || to < 0n || to < from) violation(`CrlDataByTimestampRangeRequest ${from}…${to}`);
      break;
    }
    case 51: {
      const id = r.byte('context id');
      if (id > 2) violation(`CrlDataResponse context id ${id}`);
      const n = r.short('crlData count');
      if (n !== 0) return; // CrlData bodies are PKI data this oracle does not read
      break;
    }
    default:
      return;
  }
  r.end();
}

/** PeerIdentityRequest (handshake-free): 0x66 ‖ address ‖ signature over the address. */
export const PEER_IDENTITY_REQUEST = 0x66;
