/**
 * WE's signed V3 handshake and the handshake-free PeerIdentity request
 * (reference/chain-consensus-network.md §11.2–11.3; WE's SignedHandshakeV3,
 * HandshakeHandler, PeerIdentityRequest/Response).
 *
 *   V3: 0x03 | payloadLength(int32) | payload | ownerAddress(26) | signature(64)
 *   payload = chainId(uint16, Java char) | major | minor | patch (int32)
 *           | consensusType (int16 length + UTF-8)
 *           | declaredAddress: 0x00, or 0x01 + int16 length + [port(int32) | IPv4/IPv6 bytes]
 *           | nonce(int64) | nodeName (int16 length + UTF-8) | sessionPublicKey
 *   signature = owner key's signature over payload
 *
 * The session public key is the crypto's `SessionKeyLength`: a raw 32-byte X25519 key on a
 * WAVES network, the 104-byte DER SubjectPublicKeyInfo of an ephemeral GOST R 34.10-2012
 * key on a GOST network (reference/privacy-crypto-pki.md §7.1–7.2); each side reads the
 * length of its own network's crypto.
 *
 * The handshake travels as raw bytes before any framing, so `HandshakeDecoder` is
 * incremental and hands back whatever followed the handshake in the same chunk.
 */
import { isIP } from 'node:net';
import { ADDRESS_LENGTH } from '../crypto/address.js';
import { encodeBase58, equalBytes } from '../crypto/encoding.js';
import type { HandshakeInfo, PeerEndpoint } from './types.js';
import { InternalError } from '../errors/internal.js';

export const HANDSHAKE_V2 = 2;
export const HANDSHAKE_V3 = 3;
/** First byte of a PeerIdentityRequest (WE's pseudo message code 102). */
export const PEER_IDENTITY_REQUEST = 0x66;
export const SIGNATURE_LENGTH = 64;
export const SESSION_KEY_LENGTH = 32;
/** A GOST network's session key: a DER SubjectPublicKeyInfo (40-byte prefix + 64-byte key). */
export const GOST_SESSION_KEY_LENGTH = 104;

/** The session public key length of a network's crypto. */
export const sessionKeyLength = (crypto: 'waves' | 'gost'): number => (crypto === 'gost' ? GOST_SESSION_KEY_LENGTH : SESSION_KEY_LENGTH);
/** WE's limit on `network.node-name`. */
export const MAX_NODE_NAME_BYTES = 127;
/** A handshake payload is a few hundred bytes at most; anything longer is refused. */
export const MAX_HANDSHAKE_PAYLOAD = 2048;
/** WE's HandshakeHandler.minSupportedVersion. */
export const MIN_SUPPORTED_VERSION: readonly [number, number, number] = [1, 8, 4];

/**
 * WE's NodeVersion feature history: from 1.11.1 a peer speaks SeparateBlockAndTxMessages —
 * HistoryBlock 45, BroadcastedTransaction 46 and MicroBlockResponse V2 47 with certificates.
 */
export const SEPARATE_BLOCK_AND_TX_MESSAGES_VERSION: readonly [number, number, number] = [1, 11, 1];

/** Whether a peer of this version takes 45/46/47 in place of 23/25/28 (WE's SeparateBlockAndTxMessagesAttribute). */
export const speaksSeparateBlockAndTxMessages = (version: readonly [number, number, number]): boolean =>
  compareVersion(version, SEPARATE_BLOCK_AND_TX_MESSAGES_VERSION) >= 0;

/** Handshake bytes that cannot be parsed or fail an acceptance rule. */
export class HandshakeError extends InternalError {
  constructor(
    readonly kind: 'malformed' | 'unsupported-type' | 'own-address' | 'chain-id' | 'version' | 'consensus' | 'not-participant' | 'signature',
    message: string,
  ) {
    super(message);
    this.name = 'HandshakeError';
  }
}

/** A decoded V3 handshake: what it says, the exact signed payload and the signature. */
export interface SignedHandshake {
  readonly info: HandshakeInfo;
  readonly payload: Uint8Array;
  readonly signature: Uint8Array;
}

// ---------------------------------------------------------------------------
// Payload

function shortBytes(bytes: Uint8Array, what: string): Buffer {
  if (bytes.length > 0x7fff) throw new RangeError(`${what} is longer than ${0x7fff} bytes`);
  const out = Buffer.allocUnsafe(2 + bytes.length);
  out.writeInt16BE(bytes.length, 0);
  out.set(bytes, 2);
  return out;
}

function ipBytes(host: string): Buffer | undefined {
  const family = isIP(host);
  if (family === 4) return Buffer.from(host.split('.').map((p) => Number(p)));
  if (family !== 6) return undefined;
  let text = host.replace(/%.*$/, '');
  const out = Buffer.alloc(16);
  // Trailing dotted IPv4 (::ffff:1.2.3.4)
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const b = v4[1]!.split('.').map((p) => Number(p));
    const hi = ((b[0]! << 8) | b[1]!).toString(16);
    const lo = ((b[2]! << 8) | b[3]!).toString(16);
    text = `${text.slice(0, v4.index)}${hi}:${lo}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = [...headGroups, ...new Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

function ipText(bytes: Uint8Array): string {
  if (bytes.length === 4) return Array.from(bytes).join('.');
  if (bytes.length === 16) {
    const b = Buffer.from(bytes);
    // An IPv4-mapped address is an IPv4 address (as Java's InetAddress.getByAddress reads it).
    if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return Array.from(b.subarray(12)).join('.');
    const groups: number[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(b.readUInt16BE(i));
    // RFC 5952: compress the longest run (≥ 2) of zero groups.
    let best = -1;
    let bestLen = 1;
    for (let i = 0; i < 8;) {
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen) [best, bestLen] = [i, j - i];
      i = j === i ? i + 1 : j;
    }
    const hex = (gs: number[]): string => gs.map((g) => g.toString(16)).join(':');
    return best < 0 ? hex(groups) : `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
  }
  throw new HandshakeError('malformed', `declared address has ${bytes.length} IP bytes (expected 4 or 16)`);
}

/**
 * The signed payload of a V3 handshake. A declared address must be an IP literal; a host
 * name is written as "no declared address" (WE writes an unresolved address the same way).
 */
export function encodeHandshakePayload(info: HandshakeInfo): Uint8Array {
  if (!Number.isInteger(info.chainId) || info.chainId < 0 || info.chainId > 0xffff) {
    throw new RangeError(`chain id ${info.chainId} is not a Java char`);
  }
  if (info.sessionPublicKey.length !== SESSION_KEY_LENGTH && info.sessionPublicKey.length !== GOST_SESSION_KEY_LENGTH) {
    throw new RangeError(
      `session public key must be ${SESSION_KEY_LENGTH} (WAVES) or ${GOST_SESSION_KEY_LENGTH} (GOST) bytes, got ${info.sessionPublicKey.length}`,
    );
  }
  const name = Buffer.from(info.nodeName, 'utf8');
  if (name.length > MAX_NODE_NAME_BYTES) throw new RangeError(`node name is longer than ${MAX_NODE_NAME_BYTES} bytes`);
  const head = Buffer.allocUnsafe(14);
  head.writeUInt16BE(info.chainId, 0);
  head.writeInt32BE(info.version[0], 2);
  head.writeInt32BE(info.version[1], 6);
  head.writeInt32BE(info.version[2], 10);
  const ip = info.declaredAddress ? ipBytes(info.declaredAddress.host) : undefined;
  let declared: Buffer;
  if (ip && info.declaredAddress) {
    const addr = Buffer.allocUnsafe(4 + ip.length);
    addr.writeInt32BE(info.declaredAddress.port, 0);
    addr.set(ip, 4);
    declared = Buffer.concat([Buffer.of(1), shortBytes(addr, 'declared address')]);
  } else {
    declared = Buffer.of(0);
  }
  const nonce = Buffer.allocUnsafe(8);
  nonce.writeBigInt64BE(BigInt.asIntN(64, info.nonce), 0);
  return Buffer.concat([
    head,
    shortBytes(Buffer.from(info.consensusType, 'utf8'), 'consensus type'),
    declared,
    nonce,
    shortBytes(name, 'node name'),
    info.sessionPublicKey,
  ]);
}

class Reader {
  #pos = 0;
  constructor(private readonly b: Buffer) {}
  need(n: number, what: string): void {
    if (n < 0 || this.#pos + n > this.b.length) throw new HandshakeError('malformed', `handshake payload is truncated at ${what}`);
  }
  u8(what: string): number {
    this.need(1, what);
    return this.b.readUInt8(this.#pos++);
  }
  u16(what: string): number {
    this.need(2, what);
    const v = this.b.readUInt16BE(this.#pos);
    this.#pos += 2;
    return v;
  }
  i32(what: string): number {
    this.need(4, what);
    const v = this.b.readInt32BE(this.#pos);
    this.#pos += 4;
    return v;
  }
  i64(what: string): bigint {
    this.need(8, what);
    const v = this.b.readBigInt64BE(this.#pos);
    this.#pos += 8;
    return v;
  }
  bytes(n: number, what: string): Buffer {
    this.need(n, what);
    const v = this.b.subarray(this.#pos, this.#pos + n);
    this.#pos += n;
    return v;
  }
  shortBytes(what: string): Buffer {
    this.need(2, what);
    const n = this.b.readInt16BE(this.#pos);
    this.#pos += 2;
    if (n < 0) throw new HandshakeError('malformed', `negative length of ${what}`);
    return this.bytes(n, what);
  }
}

/** Parses a V3 payload; `ownerAddress` comes from after the payload; the session key has the network's length. */
export function decodeHandshakePayload(payload: Uint8Array, ownerAddress: Uint8Array, sessionKeyBytes = SESSION_KEY_LENGTH): HandshakeInfo {
  const r = new Reader(Buffer.from(payload.buffer, payload.byteOffset, payload.length));
  const chainId = r.u16('chain id');
  const version = [r.i32('major version'), r.i32('minor version'), r.i32('patch version')] as const;
  const consensusType = r.shortBytes('consensus type').toString('utf8');
  const flag = r.u8('declared address');
  let declaredAddress: PeerEndpoint | undefined;
  if (flag === 1) {
    const addr = r.shortBytes('declared address');
    if (addr.length !== 8 && addr.length !== 20) {
      throw new HandshakeError('malformed', `declared address has ${addr.length} bytes (expected 8 or 20)`);
    }
    declaredAddress = { port: addr.readInt32BE(0), host: ipText(addr.subarray(4)) };
  } else if (flag !== 0) {
    throw new HandshakeError('malformed', `invalid declared address flag ${flag}`);
  }
  const nonce = r.i64('nonce');
  const nodeName = r.shortBytes('node name');
  if (nodeName.length > MAX_NODE_NAME_BYTES) {
    throw new HandshakeError('malformed', `node name is longer than ${MAX_NODE_NAME_BYTES} bytes`);
  }
  const sessionPublicKey = new Uint8Array(r.bytes(sessionKeyBytes, 'session public key'));
  // Bytes after the session key are not read, as WE's SignedHandshakeV3 reads a payload (they are signed with it).
  return {
    chainId,
    version,
    consensusType,
    declaredAddress,
    nonce,
    nodeName: nodeName.toString('utf8'),
    ownerAddress: new Uint8Array(ownerAddress),
    sessionPublicKey,
  };
}

// ---------------------------------------------------------------------------
// Whole handshake

/** Full V3 handshake bytes: payload signed with the owner key by `sign`. */
export function encodeHandshake(info: HandshakeInfo, sign: (message: Uint8Array) => Uint8Array): Uint8Array {
  if (info.ownerAddress.length !== ADDRESS_LENGTH) throw new RangeError(`owner address must be ${ADDRESS_LENGTH} bytes`);
  const payload = encodeHandshakePayload(info);
  const signature = sign(payload);
  if (signature.length !== SIGNATURE_LENGTH) throw new RangeError(`signature must be ${SIGNATURE_LENGTH} bytes`);
  const head = Buffer.allocUnsafe(5);
  head.writeUInt8(HANDSHAKE_V3, 0);
  head.writeInt32BE(payload.length, 1);
  return Buffer.concat([head, payload, info.ownerAddress, signature]);
}

/**
 * Incremental handshake decoder. `feed` returns undefined until the whole handshake is in,
 * then the handshake; `rest()` gives the bytes that followed it. Throws HandshakeError on
 * a wrong type byte, an oversize or malformed payload.
 */
export class HandshakeDecoder {
  /** @param sessionKeyBytes the session key length of this network's crypto (sessionKeyLength). */
  constructor(private readonly sessionKeyBytes = SESSION_KEY_LENGTH) {}

  #buf: Buffer = Buffer.alloc(0);
  #rest: Buffer = Buffer.alloc(0);
  #done = false;

  feed(chunk: Uint8Array): SignedHandshake | undefined {
    if (this.#done) throw new Error('handshake already decoded');
    this.#buf = this.#buf.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#buf, chunk]);
    if (this.#buf.length < 1) return undefined;
    const type = this.#buf.readUInt8(0);
    if (type === HANDSHAKE_V2) throw new HandshakeError('unsupported-type', 'legacy handshake V2 is not supported');
    if (type !== HANDSHAKE_V3) throw new HandshakeError('unsupported-type', `unknown handshake type byte ${type}`);
    if (this.#buf.length < 5) return undefined;
    const payloadLength = this.#buf.readInt32BE(1);
    if (payloadLength < 0 || payloadLength > MAX_HANDSHAKE_PAYLOAD) {
      throw new HandshakeError('malformed', `handshake payload length ${payloadLength} is outside [0, ${MAX_HANDSHAKE_PAYLOAD}]`);
    }
    const total = 5 + payloadLength + ADDRESS_LENGTH + SIGNATURE_LENGTH;
    if (this.#buf.length < total) return undefined;
    const payload = new Uint8Array(this.#buf.subarray(5, 5 + payloadLength));
    const owner = this.#buf.subarray(5 + payloadLength, 5 + payloadLength + ADDRESS_LENGTH);
    const signature = new Uint8Array(this.#buf.subarray(total - SIGNATURE_LENGTH, total));
    this.#rest = this.#buf.subarray(total);
    this.#buf = Buffer.alloc(0);
    this.#done = true;
    return { info: decodeHandshakePayload(payload, owner, this.sessionKeyBytes), payload, signature };
  }

  /** Bytes received after the handshake (framed messages), once it is decoded. */
  rest(): Uint8Array {
    return this.#rest;
  }
}

/** Decodes one complete handshake; throws if it is incomplete or followed by other bytes. */
export function decodeHandshake(bytes: Uint8Array, sessionKeyBytes = SESSION_KEY_LENGTH): SignedHandshake {
  const d = new HandshakeDecoder(sessionKeyBytes);
  const h = d.feed(bytes);
  if (!h) throw new HandshakeError('malformed', 'handshake is truncated');
  if (d.rest().length > 0) throw new HandshakeError('malformed', 'unexpected bytes after the handshake');
  return h;
}

// ---------------------------------------------------------------------------
// Acceptance

export interface HandshakeValidationDeps {
  /** The registered public key of a participant (node registry), or undefined. */
  participantPublicKey(address: Uint8Array): Uint8Array | undefined;
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
}

function compareVersion(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * WE's acceptance rules, in WE's order: owner ≠ own, same chain id, version ≥ 1.8.4, same
 * consensus type (case-insensitive), owner is a registered participant, signature verifies
 * with the registered key. Returns that key; throws a HandshakeError naming the reason.
 */
export function validateHandshake(remote: SignedHandshake, own: HandshakeInfo, deps: HandshakeValidationDeps): Uint8Array {
  const r = remote.info;
  const owner = encodeBase58(r.ownerAddress);
  if (equalBytes(r.ownerAddress, own.ownerAddress)) {
    throw new HandshakeError('own-address', `peer has our own owner address ${owner}`);
  }
  if (r.chainId !== own.chainId) {
    throw new HandshakeError('chain-id', `peer ${owner} is on chain '${String.fromCharCode(r.chainId)}', we are on '${String.fromCharCode(own.chainId)}'`);
  }
  if (compareVersion(r.version, MIN_SUPPORTED_VERSION) < 0) {
    throw new HandshakeError('version', `peer ${owner} runs version ${r.version.join('.')}, older than ${MIN_SUPPORTED_VERSION.join('.')}`);
  }
  if (r.consensusType.toUpperCase() !== own.consensusType.toUpperCase()) {
    throw new HandshakeError('consensus', `peer ${owner} runs consensus '${r.consensusType}', we run '${own.consensusType}'`);
  }
  const publicKey = deps.participantPublicKey(r.ownerAddress);
  if (!publicKey) throw new HandshakeError('not-participant', `peer ${owner} is not a registered network participant`);
  if (!deps.verify(publicKey, remote.payload, remote.signature)) {
    throw new HandshakeError('signature', `handshake signature of peer ${owner} does not verify with its registered key`);
  }
  return publicKey;
}

// ---------------------------------------------------------------------------
// PeerIdentity (handshake-free)

export const PEER_IDENTITY_REQUEST_LENGTH = 1 + ADDRESS_LENGTH + SIGNATURE_LENGTH;
export const PEER_IDENTITY_SUCCESS = 1;
export const PEER_IDENTITY_MESSAGE = 2;

/** `0x66 | address(26) | signature over the address bytes(64)`. */
export function encodePeerIdentityRequest(address: Uint8Array, sign: (message: Uint8Array) => Uint8Array): Uint8Array {
  if (address.length !== ADDRESS_LENGTH) throw new RangeError(`address must be ${ADDRESS_LENGTH} bytes`);
  const signature = sign(address);
  if (signature.length !== SIGNATURE_LENGTH) throw new RangeError(`signature must be ${SIGNATURE_LENGTH} bytes`);
  return Buffer.concat([Buffer.of(PEER_IDENTITY_REQUEST), address, signature]);
}

export interface PeerIdentityRequest {
  readonly address: Uint8Array;
  readonly signature: Uint8Array;
}

export function decodePeerIdentityRequest(bytes: Uint8Array): PeerIdentityRequest {
  if (bytes.length !== PEER_IDENTITY_REQUEST_LENGTH || bytes[0] !== PEER_IDENTITY_REQUEST) {
    throw new HandshakeError('malformed', 'malformed peer identity request');
  }
  return { address: new Uint8Array(bytes.subarray(1, 1 + ADDRESS_LENGTH)), signature: new Uint8Array(bytes.subarray(1 + ADDRESS_LENGTH)) };
}

/** Success reply: `0x01 | int32 length | public key | int16 certificate count (0)`. */
export function encodePeerIdentitySuccess(publicKey: Uint8Array): Uint8Array {
  const out = Buffer.alloc(1 + 4 + publicKey.length + 2);
  out.writeUInt8(PEER_IDENTITY_SUCCESS, 0);
  out.writeInt32BE(publicKey.length, 1);
  out.set(publicKey, 5);
  return out;
}

/** Error reply: `0x02 | int32 length | UTF-8 message`. */
export function encodePeerIdentityMessage(message: string): Uint8Array {
  const text = Buffer.from(message, 'utf8');
  const out = Buffer.allocUnsafe(5 + text.length);
  out.writeUInt8(PEER_IDENTITY_MESSAGE, 0);
  out.writeInt32BE(text.length, 1);
  out.set(text, 5);
  return out;
}

export type PeerIdentityResponse = { readonly kind: 'success'; readonly publicKey: Uint8Array } | { readonly kind: 'message'; readonly message: string };

/** Largest key or message accepted in a reply. */
const MAX_PEER_IDENTITY_FIELD = 64 * 1024;

/**
 * Parses a reply from its first bytes; undefined while incomplete. Certificates after a
 * success key (a PKI node's owner chain: WE's OSS build sends none, and neither does Weft)
 * are not read: the initial sync needs only the key.
 */
export function decodePeerIdentityResponse(bytes: Uint8Array): PeerIdentityResponse | undefined {
  if (bytes.length < 5) return undefined;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const kind = b.readUInt8(0);
  const length = b.readInt32BE(1);
  if (kind !== PEER_IDENTITY_SUCCESS && kind !== PEER_IDENTITY_MESSAGE) {
    throw new HandshakeError('malformed', `unknown peer identity response type ${kind}`);
  }
  if (length < 0 || length > MAX_PEER_IDENTITY_FIELD) throw new HandshakeError('malformed', `peer identity response length ${length}`);
  if (b.length < 5 + length) return undefined;
  const body = b.subarray(5, 5 + length);
  return kind === PEER_IDENTITY_SUCCESS ? { kind: 'success', publicKey: new Uint8Array(body) } : { kind: 'message', message: body.toString('utf8') };
}
