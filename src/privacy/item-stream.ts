/**
 * The stream a large item travels in between nodes (WE's PolicyDataReplier stream and
 * PolicyDataSynchronizer's reader; reference §4.2). It is not a message: after a
 * PrivateDataRequest (30) for a large item, the replier writes a run of frames on the same
 * connection, each a length-prefixed frame (the length prefix is the network layer's)
 * whose payload is
 *
 *   0x87654321 (u32) ‖ up to `stream-chunk-size` bytes of the stream content
 *
 * and ends it with an empty frame. The content is one of:
 *
 *   0x00                                                          no data (or an error)
 *   0x02                                                          replier overloaded
 *   0x01 ‖ u32 metaLen ‖ metaBytes ‖ data…                        on a TLS channel
 *   0x01 ‖ u32 chunkSize ‖ wrappedKey ‖ u32 metaLen ‖ cipher         on a plain channel
 *
 * where `cipher` is the chunked stream cipher of the network's crypto over metaBytes ‖ data,
 * keyed for the peer's session key, and the wrapped key 48 (`waves`) or 96 (`gost`) bytes
 * (crypto/transport-encryption.ts). Frame boundaries carry no meaning:
 * the reader takes the content in any split.
 */
import type { RandomBytes } from '../crypto/encryption.js';
import type { TransportEncryption } from '../crypto/transport-encryption.js';
import { decodeItemMeta, encodeItemMeta, type PolicyItemMeta } from './item.js';
import { piecesOf } from './storage/storage.js';
import { DecodeError } from '../errors/catalogue.js';

export const STREAM_CHUNK_MAGIC = 0x87654321;
const HAS_DATA = 0x01;
const NO_DATA = 0x00;
const TOO_MANY_REQUESTS = 0x02;
/** The largest metadata a reader takes (three 32 768-character fields fit many times over). */
const MAX_META_LENGTH = 4 * 1024 * 1024;
/** The largest cipher chunk a reader takes. */
const MAX_CIPHER_CHUNK = 64 * 1024 * 1024;

export class MalformedItemStream extends DecodeError {
  constructor(message: string) {
    super(`Malformed privacy data stream: ${message}`, 'stream');
  }
}

const u32 = (n: number): Uint8Array => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
};

const MAGIC = u32(STREAM_CHUNK_MAGIC);

/** The frames of some content: `magic ‖ piece` for each piece of at most `chunkSize` bytes, then the empty frame. */
export async function* framesOf(content: AsyncIterable<Uint8Array>, chunkSize: number): AsyncGenerator<Uint8Array> {
  for await (const piece of piecesOf(content, chunkSize)) {
    const frame = new Uint8Array(4 + piece.length);
    frame.set(MAGIC, 0);
    frame.set(piece, 4);
    yield frame;
  }
  yield new Uint8Array(0);
}

/** The stream a replier sends instead of an item: no data, or overloaded. */
export async function* refusalFrames(reason: 'no-data' | 'overloaded'): AsyncGenerator<Uint8Array> {
  yield* framesOf(oneChunk(Uint8Array.of(reason === 'no-data' ? NO_DATA : TOO_MANY_REQUESTS)), 16);
}

// eslint-disable-next-line @typescript-eslint/require-await -- an async source of one chunk
async function* oneChunk(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

export interface StreamEncryption {
  readonly transport: TransportEncryption;
  readonly senderPrivateKey: Uint8Array;
  readonly recipientPublicKey: Uint8Array;
  readonly random?: RandomBytes;
}

/** The frames of a large item: its metadata then its data, in clear (TLS) or encrypted for the peer's session key. */
export async function* itemFrames(
  meta: PolicyItemMeta,
  data: AsyncIterable<Uint8Array>,
  chunkSize: number,
  encryption?: StreamEncryption,
): AsyncGenerator<Uint8Array> {
  yield* framesOf(itemContent(meta, data, chunkSize, encryption), chunkSize);
}

async function* itemContent(
  meta: PolicyItemMeta,
  data: AsyncIterable<Uint8Array>,
  chunkSize: number,
  encryption: StreamEncryption | undefined,
): AsyncGenerator<Uint8Array> {
  const metaBytes = encodeItemMeta(meta);
  if (encryption === undefined) {
    yield Uint8Array.of(HAS_DATA);
    yield u32(metaBytes.length);
    yield metaBytes;
    yield* data;
    return;
  }
  const { wrappedKey, encryptor } = encryption.transport.streamEncryptor(
    encryption.senderPrivateKey,
    encryption.recipientPublicKey,
    chunkSize,
    encryption.random,
  );
  yield Uint8Array.of(HAS_DATA);
  yield u32(chunkSize);
  yield wrappedKey;
  yield u32(metaBytes.length);
  yield* encryptor.update(metaBytes);
  for await (const chunk of data) yield* encryptor.update(chunk);
  yield* encryptor.final();
}

/** What a reader got: the item (its data still streaming), or the replier's refusal. */
export type ReceivedItem =
  | { readonly status: 'no-data' }
  | { readonly status: 'overloaded' }
  | { readonly status: 'data'; readonly meta: PolicyItemMeta; readonly data: AsyncIterable<Uint8Array> };

export interface StreamDecryption {
  readonly transport: TransportEncryption;
  readonly recipientPrivateKey: Uint8Array;
  readonly senderPublicKey: Uint8Array;
}

/** The content of a run of frames, checked (magic on each, the empty frame last). */
async function* contentOf(frames: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const frame of frames) {
    if (frame.length === 0) return;
    if (frame.length < 4 || new DataView(frame.buffer, frame.byteOffset, 4).getUint32(0) !== STREAM_CHUNK_MAGIC)
      throw new MalformedItemStream('a frame without the chunk magic');
    if (frame.length > 4) yield frame.subarray(4);
  }
  throw new MalformedItemStream('the stream ended without its empty end frame');
}

/** Exact reads from a stream of chunks. */
class Pull {
  private buffered: Uint8Array = new Uint8Array(0);
  private readonly it: AsyncIterator<Uint8Array>;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.it = source[Symbol.asyncIterator]();
  }

  /** Exactly `n` bytes; `what` names them when the stream ends first. */
  async take(n: number, what: string): Promise<Uint8Array> {
    while (this.buffered.length < n) {
      const next = await this.it.next();
      if (next.done === true) throw new MalformedItemStream(`the stream ended inside ${what}`);
      this.buffered = this.buffered.length === 0 ? next.value : Buffer.concat([this.buffered, next.value]);
    }
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  async u32(what: string): Promise<number> {
    const b = await this.take(4, what);
    return new DataView(b.buffer, b.byteOffset, 4).getUint32(0);
  }

  /** Whatever is left, as it comes. */
  async *rest(): AsyncGenerator<Uint8Array> {
    if (this.buffered.length > 0) yield this.buffered;
    this.buffered = new Uint8Array(0);
    for (;;) {
      const next = await this.it.next();
      if (next.done === true) return;
      if (next.value.length > 0) yield next.value;
    }
  }

  /** Fails unless the stream holds nothing more. */
  async end(what: string): Promise<void> {
    for await (const c of this.rest()) if (c.length > 0) throw new MalformedItemStream(`bytes after ${what}`);
  }
}

/** Decrypts a content stream with the chunked stream cipher. */
async function* decrypted(cipher: AsyncIterable<Uint8Array>, wrappedKey: Uint8Array, chunkSize: number, keys: StreamDecryption): AsyncGenerator<Uint8Array> {
  const decryptor = keys.transport.streamDecryptor(wrappedKey, keys.recipientPrivateKey, keys.senderPublicKey, chunkSize);
  for await (const chunk of cipher) {
    const plain = decryptor.update(chunk);
    if (plain.length > 0) yield plain;
  }
  const last = decryptor.final();
  if (last.length > 0) yield last;
}

/**
 * Reads a run of frames: the replier's answer, and for an item its metadata (read before
 * this resolves) and data (streamed to whoever iterates it). `decryption` is given on a
 * plain channel (the stream is then encrypted), not on a TLS one.
 */
export async function readItemFrames(frames: AsyncIterable<Uint8Array>, decryption?: StreamDecryption): Promise<ReceivedItem> {
  const pull = new Pull(contentOf(frames));
  const status = (await pull.take(1, 'the status byte'))[0];
  if (status === NO_DATA || status === TOO_MANY_REQUESTS) {
    await pull.end('the status byte');
    return { status: status === NO_DATA ? 'no-data' : 'overloaded' };
  }
  if (status !== HAS_DATA) throw new MalformedItemStream(`status byte ${status}, expected 0, 1 or 2`);
  let body = pull;
  if (decryption !== undefined) {
    const chunkSize = await pull.u32('the cipher chunk size');
    if (chunkSize > MAX_CIPHER_CHUNK) throw new MalformedItemStream(`cipher chunk size ${chunkSize} over ${MAX_CIPHER_CHUNK}`);
    const wrappedKey = Uint8Array.from(await pull.take(decryption.transport.wrappedKeyLength, 'the wrapped key'));
    const metaLength = await pull.u32('the metadata length');
    body = new Pull(decrypted(pull.rest(), wrappedKey, chunkSize, decryption));
    return { status: 'data', ...(await readMeta(body, metaLength)) };
  }
  const metaLength = await pull.u32('the metadata length');
  return { status: 'data', ...(await readMeta(body, metaLength)) };
}

async function readMeta(body: Pull, metaLength: number): Promise<{ meta: PolicyItemMeta; data: AsyncIterable<Uint8Array> }> {
  if (metaLength > MAX_META_LENGTH) throw new MalformedItemStream(`metadata length ${metaLength} over ${MAX_META_LENGTH}`);
  let meta: PolicyItemMeta;
  try {
    meta = decodeItemMeta(Uint8Array.from(await body.take(metaLength, 'the metadata')));
  } catch (e) {
    if (e instanceof MalformedItemStream) throw e;
    throw new MalformedItemStream(`bad metadata: ${(e as Error).message}`);
  }
  return { meta, data: body.rest() };
}
