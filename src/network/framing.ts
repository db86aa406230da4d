/**
 * WE's P2P message framing (reference/chain-consensus-network.md §11.1; WE's NetworkServer
 * length-field decoder and MetaMessageCodec). After the handshake every message is
 *
 *   frameLength(int32 BE) | magic 0x12345678 | code(1) | payloadLength(int32) | [checksum(4)] | payload
 *
 * where frameLength counts everything after itself, checksum = SHA-256(payload)[0..4), and
 * checksum and payload are absent when payloadLength = 0.
 *
 * Large confidential-data items travel as stream frames on the same connection (WE's
 * ChunkedStream): `frameLength(int32 BE) | 0x87654321 | bytes`, and an empty frame
 * (length 0) ends a stream. A decoder built with `streamFrames` returns them with code
 * STREAM_FRAME and the payload from the stream magic on (empty for the end frame).
 *
 * `FrameDecoder` is incremental: it takes socket chunks in any split and returns whole
 * messages. It checks the frame header as soon as its 13 bytes are in, so an oversize or
 * malformed frame is refused before its body is buffered. Every violation throws a
 * `FrameError`; the transport closes that one connection.
 */
import { sha256Once } from '../crypto/hashes.js';
import { MAX_CONFIDENTIAL_DATA_RESPONSE } from '../contracts/confidential/messages.js';
import { MAX_PRIVATE_DATA_RESPONSE } from '../privacy/messages.js';
import { MessageCode } from './types.js';
import { InternalError } from '../errors/internal.js';

export const FRAME_MAGIC = 0x12345678;
/** The magic that starts a stream frame's payload (WE's ChunkedStream). */
export const STREAM_FRAME_MAGIC = 0x87654321;
/** The code FrameDecoder gives a stream frame (not a byte: no message has it). */
export const STREAM_FRAME = -1;
/** WE's length-field frame decoder limit: 100 MiB. */
export const MAX_FRAME_LENGTH = 100 * 1024 * 1024;
export const CHECKSUM_LENGTH = 4;
/** Length prefix (4) + magic (4) + code (1) + payload length (4). */
export const FRAME_HEADER_LENGTH = 13;

const SIGNATURE_LENGTH = 64;
/** Upper bound of a public key over both crypto suites (waves 32, gost 64). */
const MAX_PUBLIC_KEY_LENGTH = 64;
/** WE's TransactionSpec.maxLength: 150 KiB. */
export const MAX_TRANSACTION_PAYLOAD = 150 * 1024;
/** WE: at most 6000 transactions in a block or a micro-block. */
const MAX_TRANSACTIONS_PER_BLOCK = 6000;
/** Largest payload that fits in one frame. */
const MAX_FRAME_PAYLOAD = MAX_FRAME_LENGTH - (FRAME_HEADER_LENGTH - 4) - CHECKSUM_LENGTH;
/** WE's BlockSpec / MicroBlockResponseV1Spec bound (271 + 150 KiB × 6000), clipped to the frame cap. */
const MAX_BLOCK_PAYLOAD = Math.min(271 + MAX_TRANSACTION_PAYLOAD * MAX_TRANSACTIONS_PER_BLOCK, MAX_FRAME_PAYLOAD);
/** WE's SignaturesSeqSpec and GetBlocksSpec carry at most 200 ids. */
export const MAX_IDS_PER_MESSAGE = 200;
/** WE's ScoreSpec.maxLength. */
export const MAX_SCORE_PAYLOAD = 64;
/** Room for a cert-chain store and its length prefixes in messages 45–47 (certificate chains are a few KiB). */
const MAX_CERTIFICATES_PAYLOAD = 1024 * 1024;

/** WE's PeersV2Spec.maxLength: 1000 × (short + 29-char hostname + int port). */
export const MAX_PEERS_PAYLOAD = 1000 * (2 + 29 + 4);
/** Policy id and data hash (30, 40). */
const PRIVACY_ITEM_ID_LENGTH = 32 + 32;

/** WE's ContractExecutionMessage.MaxLengthInBytes (NetworkContractExecutionMessageSpec): 5 KiB. */
export const MAX_CONTRACT_STATUS_PAYLOAD = 5 * 1024;

/**
 * Largest payload accepted per message code. A code missing here is unknown: its frame is
 * refused. Values follow WE's MessageSpec.maxLength except where noted.
 */
export const MAX_PAYLOAD: ReadonlyMap<number, number> = new Map<number, number>([
  [MessageCode.GetPeers, 0],
  [MessageCode.Peers, MAX_PEERS_PAYLOAD],
  [MessageCode.GetSignatures, 4 + MAX_IDS_PER_MESSAGE * SIGNATURE_LENGTH],
  [MessageCode.Signatures, 4 + MAX_IDS_PER_MESSAGE * SIGNATURE_LENGTH],
  [MessageCode.Block, MAX_BLOCK_PAYLOAD],
  [MessageCode.Score, MAX_SCORE_PAYLOAD],
  [MessageCode.Transaction, MAX_TRANSACTION_PAYLOAD],
  [MessageCode.MicroBlockInventory, 300],
  [MessageCode.MicroBlockInventoryV2, MAX_PUBLIC_KEY_LENGTH + 4 * SIGNATURE_LENGTH],
  [MessageCode.MicroBlockRequest, 500],
  [MessageCode.MicroBlockResponse, MAX_BLOCK_PAYLOAD],
  [MessageCode.GetBlocks, MAX_IDS_PER_MESSAGE * SIGNATURE_LENGTH],
  // Messages of WE features Weft does not run (feature-off-messages.ts), WE's caps.
  [MessageCode.Vote, MAX_PUBLIC_KEY_LENGTH + 2 * SIGNATURE_LENGTH],
  [MessageCode.SnapshotNotification, MAX_PUBLIC_KEY_LENGTH + 8],
  [MessageCode.SnapshotRequest, MAX_PUBLIC_KEY_LENGTH + 8],
  [MessageCode.GenesisSnapshotRequest, MAX_PUBLIC_KEY_LENGTH + 2 * SIGNATURE_LENGTH + 8],
  // WE's GenesisSnapshotErrorSpec has no cap of its own: the frame's.
  [MessageCode.GenesisSnapshotError, MAX_FRAME_PAYLOAD],
  [MessageCode.MissingCrlsRequest, MAX_PUBLIC_KEY_LENGTH + 256 * 1024],
  [MessageCode.CrlDataByHashesRequest, 20 * 1024],
  [MessageCode.CrlDataByTimestampRangeRequest, 2 * 8],
  [MessageCode.CrlDataResponse, 1 + 5 * 1024 * 1024],
  [MessageCode.MissingBlock, SIGNATURE_LENGTH],
  // public key + signature + short length + 1 KiB body
  [MessageCode.RawAttributes, MAX_PUBLIC_KEY_LENGTH + SIGNATURE_LENGTH + 2 + 1024],
  [MessageCode.HistoryBlock, Math.min(MAX_BLOCK_PAYLOAD + MAX_CERTIFICATES_PAYLOAD, MAX_FRAME_PAYLOAD)],
  [MessageCode.BroadcastedTransaction, MAX_TRANSACTION_PAYLOAD + MAX_CERTIFICATES_PAYLOAD],
  [MessageCode.MicroBlockResponseV2, Math.min(MAX_BLOCK_PAYLOAD + MAX_CERTIFICATES_PAYLOAD, MAX_FRAME_PAYLOAD)],
  [MessageCode.ContractExecutionMessage, MAX_CONTRACT_STATUS_PAYLOAD],
  // ContractValidatorResultsV1Spec: sender key + txId + keyBlockId + resultsHash + signature
  [MessageCode.ContractValidatorResults, MAX_PUBLIC_KEY_LENGTH + 2 * 32 + 2 * SIGNATURE_LENGTH],
  [MessageCode.PrivateDataRequest, PRIVACY_ITEM_ID_LENGTH],
  // WE's PrivateDataResponseSpec.maxLength, the cap sendData holds an item to (privacy/messages.ts)
  [MessageCode.PrivateDataResponse, MAX_PRIVATE_DATA_RESPONSE],
  [MessageCode.PrivacyInventoryRequest, PRIVACY_ITEM_ID_LENGTH],
  // sender public key + policy id + data hash (+ data type) + signature
  [MessageCode.PrivacyInventoryV1, MAX_PUBLIC_KEY_LENGTH + PRIVACY_ITEM_ID_LENGTH + SIGNATURE_LENGTH],
  [MessageCode.PrivacyInventoryV2, MAX_PUBLIC_KEY_LENGTH + PRIVACY_ITEM_ID_LENGTH + 1 + SIGNATURE_LENGTH],
  // contract id + commitment + data type
  [MessageCode.ConfidentialDataRequest, 32 + 32 + 1],
  // WE's ConfidentialDataResponseSpec.maxLength, the cap the replier holds its answers to (contracts/confidential/messages.ts)
  [MessageCode.ConfidentialDataResponse, MAX_CONFIDENTIAL_DATA_RESPONSE],
  [MessageCode.ConfidentialInventoryRequest, 32 + 32 + 1],
  // sender public key + contract id + commitment + data type + signature
  [MessageCode.ConfidentialInventory, MAX_PUBLIC_KEY_LENGTH + 32 + 32 + 1 + SIGNATURE_LENGTH],
  // ContractValidatorResultsV2Spec: key + 2 digests + 5 KiB of readings + 2 digests + 2 signatures (+ Weft: the 2-byte length prefixes)
  [MessageCode.ContractValidatorResultsV2, MAX_PUBLIC_KEY_LENGTH + 4 * 32 + 5 * 1024 + 2 * SIGNATURE_LENGTH + 16],
]);

export type FrameErrorKind = 'frame-length' | 'magic' | 'unknown-code' | 'payload-length' | 'too-large' | 'checksum';

/** A malformed or oversize frame; the connection that sent it must be closed. */
export class FrameError extends InternalError {
  constructor(
    readonly kind: FrameErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

export interface FramedMessage {
  readonly code: number;
  readonly payload: Uint8Array;
}

/** The 4-byte checksum of a payload: SHA-256(payload)[0..4). */
export function frameChecksum(payload: Uint8Array): Uint8Array {
  // One-shot: about half the cost of a Hash object for a transaction-sized payload.
  return sha256Once(payload).subarray(0, CHECKSUM_LENGTH);
}

/** The bytes a message with a payload of this length takes on the wire, length prefix included. */
export function frameSize(payloadLength: number): number {
  return FRAME_HEADER_LENGTH + (payloadLength === 0 ? 0 : CHECKSUM_LENGTH + payloadLength);
}

/** One whole frame, length prefix included, ready to be written to a socket. */
export function encodeFrame(code: number, payload: Uint8Array): Buffer {
  if (!Number.isInteger(code) || code < 0 || code > 255) throw new RangeError(`message code ${code} is not a byte`);
  const size = frameSize(payload.length);
  const frameLength = size - 4;
  if (frameLength > MAX_FRAME_LENGTH) throw new RangeError(`frame of ${frameLength} bytes exceeds ${MAX_FRAME_LENGTH}`);
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(frameLength, 0);
  out.writeInt32BE(FRAME_MAGIC, 4);
  out.writeUInt8(code, 8);
  out.writeInt32BE(payload.length, 9);
  if (payload.length > 0) {
    out.set(frameChecksum(payload), FRAME_HEADER_LENGTH);
    out.set(payload, FRAME_HEADER_LENGTH + CHECKSUM_LENGTH);
  }
  return out;
}

/**
 * The frames of outgoing messages, each encoded (checksummed and copied) once however many
 * peers it goes to: a frame is kept with the payload object it was built from, weakly, so
 * gossip that hands the same payload to every peer pays for one frame. Senders never change
 * a payload once it is handed over (each message's payload is built fresh).
 */
export class OutgoingFrames {
  readonly #frames = new WeakMap<Uint8Array, { readonly code: number; readonly frame: Buffer }>();

  /** The frame of `code` with `payload`: encodeFrame's bytes, built once per payload and code. */
  frame(code: number, payload: Uint8Array): Buffer {
    const known = this.#frames.get(payload);
    if (known !== undefined && known.code === code) return known.frame;
    const frame = encodeFrame(code, payload);
    this.#frames.set(payload, { code, frame });
    return frame;
  }
}

export interface FrameDecoderOptions {
  /** Per-code payload caps; defaults to MAX_PAYLOAD. A code without an entry is refused. */
  readonly maxPayload?: ReadonlyMap<number, number>;
  /** Cap of the length prefix; defaults to MAX_FRAME_LENGTH. */
  readonly maxFrameLength?: number;
  /** Also take stream frames (code STREAM_FRAME); without it they are malformed frames. */
  readonly streamFrames?: boolean;
}

/** One stream frame as written to a socket: int32 length ‖ payload (the payload carries its magic). */
export function encodeStreamFrame(payload: Uint8Array): Buffer[] {
  const head = Buffer.allocUnsafe(4);
  head.writeInt32BE(payload.length, 0);
  return payload.length === 0 ? [head] : [head, Buffer.from(payload.buffer, payload.byteOffset, payload.length)];
}

/** Incremental frame decoder: `feed` socket chunks, get whole checked messages. */
export class FrameDecoder {
  readonly #maxPayload: ReadonlyMap<number, number>;
  readonly #maxFrameLength: number;
  readonly #streamFrames: boolean;
  /** The frame being collected is a stream frame. */
  #stream = false;
  #chunks: Buffer[] = [];
  #buffered = 0;
  /** Length of the frame being collected (prefix included), once its header checked out. */
  #pending = -1;
  #failed: FrameError | undefined;

  constructor(options: FrameDecoderOptions = {}) {
    this.#maxPayload = options.maxPayload ?? MAX_PAYLOAD;
    this.#maxFrameLength = options.maxFrameLength ?? MAX_FRAME_LENGTH;
    this.#streamFrames = options.streamFrames === true;
  }

  /** Bytes received but not yet returned as messages. */
  get buffered(): number {
    return this.#buffered;
  }

  /**
   * Adds a chunk and returns every message it completes. Throws a FrameError on the first
   * violation; the decoder then stays failed (every later call rethrows).
   */
  feed(chunk: Uint8Array): FramedMessage[] {
    if (this.#failed) throw this.#failed;
    if (chunk.length > 0) {
      this.#chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
      this.#buffered += chunk.length;
    }
    const out: FramedMessage[] = [];
    try {
      for (;;) {
        if (this.#pending < 0) {
          const stream = this.#streamFrames ? this.#streamHeader() : undefined;
          if (stream === 'wait') break;
          if (stream !== undefined) {
            this.#pending = stream;
            this.#stream = true;
          } else {
            if (this.#buffered < FRAME_HEADER_LENGTH) break;
            this.#pending = this.#checkHeader(this.#peek(FRAME_HEADER_LENGTH));
            this.#stream = false;
          }
        }
        if (this.#buffered < this.#pending) break;
        const frame = this.#take(this.#pending);
        this.#pending = -1;
        out.push(this.#stream ? { code: STREAM_FRAME, payload: new Uint8Array(frame.buffer, frame.byteOffset + 4, frame.length - 4) } : this.#readFrame(frame));
      }
    } catch (e) {
      if (e instanceof FrameError) {
        this.#failed = e;
        this.#chunks = [];
        this.#buffered = 0;
      }
      throw e;
    }
    return out;
  }

  /** A stream frame's whole length (prefix included); 'wait' until its first 8 bytes are in; undefined for a message frame. */
  #streamHeader(): number | 'wait' | undefined {
    if (this.#buffered < 4) return 'wait';
    const length = this.#peek(4).readInt32BE(0);
    if (length === 0) return 4;
    if (this.#buffered < 8) return 'wait';
    if (this.#peek(8).readUInt32BE(4) !== STREAM_FRAME_MAGIC) return undefined;
    if (length < 4 || length > this.#maxFrameLength)
      throw new FrameError('frame-length', `stream frame length ${length} is outside [4, ${this.#maxFrameLength}]`);
    return 4 + length;
  }

  /** Validates the 13 header bytes; returns the whole frame's length (prefix included). */
  #checkHeader(h: Buffer): number {
    const frameLength = h.readInt32BE(0);
    if (frameLength < FRAME_HEADER_LENGTH - 4 || frameLength > this.#maxFrameLength) {
      throw new FrameError('frame-length', `frame length ${frameLength} is outside [9, ${this.#maxFrameLength}]`);
    }
    const magic = h.readInt32BE(4);
    if (magic !== FRAME_MAGIC) {
      throw new FrameError('magic', `invalid magic number 0x${(magic >>> 0).toString(16).padStart(8, '0')} in network message`);
    }
    const code = h.readUInt8(8);
    const cap = this.#maxPayload.get(code);
    if (cap === undefined) throw new FrameError('unknown-code', `unexpected network message code ${code}`);
    const length = h.readInt32BE(9);
    if (length < 0) throw new FrameError('payload-length', `negative payload length ${length} of message ${code}`);
    if (length > cap) throw new FrameError('too-large', `message ${code} payload length ${length} exceeds ${cap}`);
    const expected = FRAME_HEADER_LENGTH - 4 + (length === 0 ? 0 : CHECKSUM_LENGTH + length);
    if (frameLength !== expected) {
      throw new FrameError('payload-length', `frame length ${frameLength} does not match payload length ${length} of message ${code}`);
    }
    return 4 + frameLength;
  }

  #readFrame(frame: Buffer): FramedMessage {
    const code = frame.readUInt8(8);
    const length = frame.readInt32BE(9);
    if (length === 0) return { code, payload: new Uint8Array(0) };
    const declared = frame.subarray(FRAME_HEADER_LENGTH, FRAME_HEADER_LENGTH + CHECKSUM_LENGTH);
    const payload = frame.subarray(FRAME_HEADER_LENGTH + CHECKSUM_LENGTH);
    if (!declared.equals(frameChecksum(payload))) {
      throw new FrameError('checksum', `invalid checksum of network message ${code}`);
    }
    return { code, payload: new Uint8Array(payload.buffer, payload.byteOffset, payload.length) };
  }

  /** The first n buffered bytes without consuming them (n ≤ buffered). */
  #peek(n: number): Buffer {
    const first = this.#chunks[0]!;
    if (first.length >= n) return first.subarray(0, n);
    this.#chunks = [Buffer.concat(this.#chunks)];
    return this.#chunks[0]!.subarray(0, n);
  }

  /** Removes and returns the first n buffered bytes (n ≤ buffered). */
  #take(n: number): Buffer {
    let first = this.#chunks[0]!;
    if (first.length < n) {
      // Join only as many chunks as the frame needs.
      let joined = 0;
      let count = 0;
      while (joined < n) joined += this.#chunks[count++]!.length;
      first = Buffer.concat(this.#chunks.slice(0, count));
      this.#chunks.splice(0, count, first);
    }
    this.#buffered -= n;
    if (first.length === n) {
      this.#chunks.shift();
      return first;
    }
    this.#chunks[0] = first.subarray(n);
    return first.subarray(0, n);
  }
}
