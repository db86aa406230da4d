/**
 * The messages of WE features a Weft node does not run, read as WE's specs read them
 * (network/message/MessageSpec.scala) and answered as a WE 1.14 node with the feature off
 * answers them (its MessageObserver publishes them; who listens decides):
 *
 * - 33 Vote (CFT): `key ‖ voting hash(32) ‖ signature`; only the CFT miner listens: dropped
 *   on a node without CFT (a CFT node takes them first, vote-messages.ts).
 * - 35 SnapshotNotification `key ‖ int64 size`, 38 GenesisSnapshotError `int32 n ‖ n UTF-8
 *   bytes`: only a node loading a snapshot listens: dropped.
 * - 36 SnapshotRequest `key ‖ int64 offset`, 37 GenesisSnapshotRequest `key ‖ genesis id ‖
 *   int64 offset ‖ signature`: with consensual snapshots off WE's GenesisSnapshotSource
 *   answers. Weft keeps no snapshot, so a 37 gets the error WE's source gives a node without
 *   one (38 "Snapshot is not found for address '…'"), and a 36 — only asked on a channel a
 *   37 succeeded on — closes the connection ("Unidentified channel"). Both may come without
 *   a handshake (transport.ts handshake-free messages).
 * - 48 MissingCrlsRequest `issuer key ‖ short string CDP URL ‖ short n ‖ n × short bytes`,
 *   49 CrlDataByHashesRequest `short n ‖ n × short bytes`, 50 CrlDataByTimestampRangeRequest
 *   `int64 from ‖ int64 to` (0 ≤ from ≤ to), 51 CrlDataResponse `context id (0–2) ‖ short n ‖
 *   n × (short-length DER CRL ‖ issuer key ‖ short string CDP URL)`: WE's open-source node
 *   has no CRL sync service (no listener for 48–50; 51 answers only its own PKI loaders'
 *   requests, which Weft never sends): dropped.
 *
 * A payload that does not read throws a MalformedMessage: the peer is closed, as WE's
 * MessageCodec closes a channel whose message fails to decode. Every read is bounded by the
 * payload (the frame caps them before they are buffered, framing.ts).
 */
import { encodeBase58 } from '../crypto/encoding.js';
import { MalformedMessage } from './messages.js';
import { MessageCode, type Peer } from './types.js';

/** WE's DigestSize: the CFT voting hash. */
const VOTING_HASH_LENGTH = 32;

/** Lengths of the keys and signatures of the network's crypto. */
export interface KeyLengths {
  readonly publicKeyLength: number;
  readonly signatureLength: number;
}

export interface FeatureOffLog {
  debug(message: string): void;
}

/** A cursor over a payload that throws a MalformedMessage naming the field when the payload ends first. */
class PayloadReader {
  private pos = 0;
  private readonly view: DataView;

  constructor(
    private readonly code: MessageCode,
    private readonly bytes: Uint8Array,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  take(n: number, what: string): Uint8Array {
    if (n < 0 || this.pos + n > this.bytes.length) throw new MalformedMessage(this.code, `truncated at ${what}`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  byte(what: string): number {
    return this.take(1, what)[0]!;
  }

  short(what: string): number {
    const at = this.take(2, what);
    return new DataView(at.buffer, at.byteOffset, 2).getInt16(0);
  }

  int(what: string): number {
    this.take(4, what);
    return this.view.getInt32(this.pos - 4);
  }

  long(what: string): bigint {
    this.take(8, what);
    return this.view.getBigInt64(this.pos - 8);
  }

  /** `short n ‖ n bytes` (BinarySerializer.parseShortByteArray). */
  shortBytes(what: string): Uint8Array {
    const n = this.short(`${what} length`);
    if (n < 0) throw new MalformedMessage(this.code, `negative length of ${what}`);
    return this.take(n, what);
  }

  /** `short n ‖ n items` (BinarySerializer.parseShortList). */
  shortList<T>(what: string, item: (i: number) => T): T[] {
    const n = this.short(`${what} count`);
    if (n < 0) throw new MalformedMessage(this.code, `negative count of ${what}`);
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(item(i));
    return out;
  }

  /** A URL as WE's `new URL(string)` takes it: a CDP of a CRL. */
  url(what: string): string {
    const text = Buffer.from(this.shortBytes(what)).toString('utf8');
    if (!URL.canParse(text)) throw new MalformedMessage(this.code, `${what} '${text.slice(0, 80)}' is not a URL`);
    return text;
  }
}

export interface Vote {
  readonly sender: Uint8Array;
  readonly votingHash: Uint8Array;
  readonly signature: Uint8Array;
}

/** 33: WE's Vote.parseBytes (bytes after the signature are not read). */
export function decodeVote(keys: KeyLengths, payload: Uint8Array): Vote {
  const r = new PayloadReader(MessageCode.Vote, payload);
  return {
    sender: r.take(keys.publicKeyLength, 'sender'),
    votingHash: r.take(VOTING_HASH_LENGTH, 'voting hash'),
    signature: r.take(keys.signatureLength, 'signature'),
  };
}

/** 35 (`size` of the snapshot) and 36 (`offset` asked from). */
export function decodeSnapshotMessage(
  code: typeof MessageCode.SnapshotNotification | typeof MessageCode.SnapshotRequest,
  keys: KeyLengths,
  payload: Uint8Array,
): { readonly sender: Uint8Array; readonly value: bigint } {
  const r = new PayloadReader(code, payload);
  return { sender: r.take(keys.publicKeyLength, 'sender'), value: r.long(code === MessageCode.SnapshotRequest ? 'offset' : 'size') };
}

export interface GenesisSnapshotRequest {
  readonly sender: Uint8Array;
  readonly genesis: Uint8Array;
  readonly offset: bigint;
  readonly signature: Uint8Array;
}

/** 37. */
export function decodeGenesisSnapshotRequest(keys: KeyLengths, payload: Uint8Array): GenesisSnapshotRequest {
  const r = new PayloadReader(MessageCode.GenesisSnapshotRequest, payload);
  return {
    sender: r.take(keys.publicKeyLength, 'sender'),
    genesis: r.take(keys.signatureLength, 'genesis id'),
    offset: r.long('offset'),
    signature: r.take(keys.signatureLength, 'signature'),
  };
}

/** 38: `int32 n ‖ n UTF-8 bytes`. */
export function encodeGenesisSnapshotError(message: string): Uint8Array {
  const text = Buffer.from(message, 'utf8');
  const out = Buffer.allocUnsafe(4 + text.length);
  out.writeInt32BE(text.length, 0);
  out.set(text, 4);
  return out;
}

export function decodeGenesisSnapshotError(payload: Uint8Array): string {
  const r = new PayloadReader(MessageCode.GenesisSnapshotError, payload);
  const n = r.int('message length');
  return Buffer.from(r.take(n, 'message')).toString('utf8');
}

/** What a node without a snapshot answers a GenesisSnapshotRequest (WE's GenesisSnapshotSource). */
export function noSnapshotMessage(ownerAddress: Uint8Array): string {
  return `Snapshot is not found for address '${encodeBase58(ownerAddress)}'`;
}

export interface MissingCrlsRequest {
  readonly issuer: Uint8Array;
  readonly cdp: string;
  /** The CRL numbers asked for (BigInteger bytes). */
  readonly missingIds: readonly Uint8Array[];
}

/** 48. */
export function decodeMissingCrlsRequest(keys: KeyLengths, payload: Uint8Array): MissingCrlsRequest {
  const r = new PayloadReader(MessageCode.MissingCrlsRequest, payload);
  const issuer = r.take(keys.publicKeyLength, 'issuer');
  const cdp = r.url('CDP');
  return { issuer, cdp, missingIds: r.shortList('missing ids', (i) => r.shortBytes(`missing id ${i}`)) };
}

/** 49: the SHA-1 hashes of the CRLs asked for. */
export function decodeCrlDataByHashesRequest(payload: Uint8Array): Uint8Array[] {
  const r = new PayloadReader(MessageCode.CrlDataByHashesRequest, payload);
  return r.shortList('CRL hashes', (i) => r.shortBytes(`CRL hash ${i}`));
}

/** 50: WE's CrlDataByTimestampRangeRequest requires 0 ≤ from ≤ to. */
export function decodeCrlDataByTimestampRangeRequest(payload: Uint8Array): { readonly from: bigint; readonly to: bigint } {
  const code = MessageCode.CrlDataByTimestampRangeRequest;
  const r = new PayloadReader(code, payload);
  const from = r.long('from');
  const to = r.long('to');
  if (from < 0n || to < 0n) throw new MalformedMessage(code, 'a timestamp is negative');
  if (to < from) throw new MalformedMessage(code, `'to' ${to} is before 'from' ${from}`);
  return { from, to };
}

/** WE's CrlMessageContextId: which of its services asked (CRL sync manager, micro-block loader, block loader). */
const CRL_CONTEXT_IDS = 3;
/** A DER SEQUENCE: how every X.509 CRL starts. */
const DER_SEQUENCE = 0x30;

export interface CrlData {
  readonly crl: Uint8Array;
  readonly issuer: Uint8Array;
  readonly cdp: string;
}

/** 51. */
export function decodeCrlDataResponse(keys: KeyLengths, payload: Uint8Array): { readonly contextId: number; readonly crls: readonly CrlData[] } {
  const code = MessageCode.CrlDataResponse;
  const r = new PayloadReader(code, payload);
  const contextId = r.byte('context id');
  if (contextId >= CRL_CONTEXT_IDS) throw new MalformedMessage(code, `unsupported CRL context id ${contextId}`);
  const crls = r.shortList('CRLs', (i) => {
    const crl = r.shortBytes(`CRL ${i}`);
    if (crl[0] !== DER_SEQUENCE) throw new MalformedMessage(code, `CRL ${i} is not DER`);
    return { crl, issuer: r.take(keys.publicKeyLength, `issuer of CRL ${i}`), cdp: r.url(`CDP of CRL ${i}`) };
  });
  return { contextId, crls };
}

/** The codes of this file's messages. */
export const FEATURE_OFF_CODES: ReadonlySet<number> = new Set<number>([
  MessageCode.Vote,
  MessageCode.SnapshotNotification,
  MessageCode.SnapshotRequest,
  MessageCode.GenesisSnapshotRequest,
  MessageCode.GenesisSnapshotError,
  MessageCode.MissingCrlsRequest,
  MessageCode.CrlDataByHashesRequest,
  MessageCode.CrlDataByTimestampRangeRequest,
  MessageCode.CrlDataResponse,
]);

/** What a snapshot request gets from a node without snapshots: a message back (then the connection closes), or only the close. */
export type SnapshotRequestAnswer = { readonly close: string; readonly reply?: { readonly code: MessageCode; readonly payload: Uint8Array } };

/** The answer to a 36 or 37 (decoded first: a malformed one throws), on a handshaken connection or a handshake-free one. */
export function answerSnapshotRequest(keys: KeyLengths, ownerAddress: Uint8Array, code: number, payload: Uint8Array): SnapshotRequestAnswer {
  if (code === MessageCode.GenesisSnapshotRequest) {
    decodeGenesisSnapshotRequest(keys, payload);
    const message = noSnapshotMessage(ownerAddress);
    return { close: message, reply: { code: MessageCode.GenesisSnapshotError, payload: encodeGenesisSnapshotError(message) } };
  }
  const request = decodeSnapshotMessage(MessageCode.SnapshotRequest, keys, payload);
  return { close: `Unidentified channel for snapshot request from '${encodeBase58(request.sender)}'` };
}

/** The handler of these messages on handshaken connections. */
export class FeatureOffMessages {
  constructor(
    private readonly keys: KeyLengths,
    private readonly ownerAddress: Uint8Array,
    private readonly log: FeatureOffLog,
  ) {}

  /** A message from a peer: true when it is one of this file's (read, then dropped or answered); false for any other code. */
  handle(peer: Peer, code: number, payload: Uint8Array): boolean {
    if (!FEATURE_OFF_CODES.has(code)) return false;
    const from = encodeBase58(peer.info.ownerAddress);
    switch (code) {
      case MessageCode.Vote:
        decodeVote(this.keys, payload);
        this.log.debug(`CFT vote from ${from} dropped: the node runs no CFT`);
        return true;
      case MessageCode.SnapshotNotification:
      case MessageCode.GenesisSnapshotError:
        if (code === MessageCode.SnapshotNotification) decodeSnapshotMessage(code, this.keys, payload);
        else decodeGenesisSnapshotError(payload);
        this.log.debug(`Snapshot message ${code} from ${from} dropped: consensual snapshots are off`);
        return true;
      case MessageCode.SnapshotRequest:
      case MessageCode.GenesisSnapshotRequest: {
        const answer = answerSnapshotRequest(this.keys, this.ownerAddress, code, payload);
        // WE closes the channel once its error went out; Weft's close drops unsent messages, so a 37 here gets its answer and the channel stays.
        if (answer.reply !== undefined) peer.send(answer.reply.code, answer.reply.payload);
        else peer.close(answer.close);
        return true;
      }
      case MessageCode.MissingCrlsRequest:
        decodeMissingCrlsRequest(this.keys, payload);
        break;
      case MessageCode.CrlDataByHashesRequest:
        decodeCrlDataByHashesRequest(payload);
        break;
      case MessageCode.CrlDataByTimestampRangeRequest:
        decodeCrlDataByTimestampRangeRequest(payload);
        break;
      default:
        decodeCrlDataResponse(this.keys, payload);
    }
    this.log.debug(`CRL sync message ${code} from ${from} dropped: no CRL sync service`);
    return true;
  }
}
