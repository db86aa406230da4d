/**
 * WE's chunked stream cipher for the `waves` crypto type (we-core StreamCipher and
 * AesStream), used to carry large privacy items between nodes on connections without TLS.
 *
 * The plaintext is cut so that every ciphertext chunk but the last is exactly `chunkSize`
 * bytes:
 *
 *   chunk = IV(16, fresh) ‖ AES-128-GCM(MD5(CEK), IV, body) ‖ tag(16)
 *   body  = status(1: 0x00, or 0x01 on the final chunk) ‖ chunk index (u32 BE, from 0) ‖ data
 *
 * so a full chunk carries `chunkSize − 37` data bytes. The plaintext of the last chunk ends
 * with the total chunk count (u32 BE); when fewer than 4 bytes are left in the current chunk,
 * the count spills over into one more (final) chunk. The decryptor checks the index of each
 * chunk, that the last one is final and that the count matches; it holds back the last four
 * bytes it has seen, since they may be the count. Both sides must use the same chunk size
 * (the transport sends it in its header).
 *
 * The content key travels wrapped for the recipient exactly as in encryption.ts (48 bytes).
 *
 * The chunking, indices, final flag and count are WE's StreamCipher, shared by both crypto
 * types; what seals one chunk is a ChunkCipher: AES-128-GCM here, Kuznyechik CTR + OMAC on
 * GOST networks (transport-encryption.ts). Both put a 16-byte IV before and a 16-byte tag
 * after each chunk.
 */
import {
  AES_IV_LENGTH,
  AES_TAG_LENGTH,
  aesKeyOf,
  CONTENT_KEY_LENGTH,
  DecryptionFailure,
  openWithKey,
  sealWithKey,
  systemRandom,
  unwrapContentKey,
  wrapContentKey,
  type RandomBytes,
} from './encryption.js';

/** How one chunk is sealed: IV(16) ‖ encrypted body ‖ tag(16), under a key made from the content key. */
export interface ChunkCipher {
  readonly contentKeyLength: number;
  keyed(contentKey: Uint8Array): ChunkSeal;
}

export interface ChunkSeal {
  /** IV ‖ the sealed body ‖ tag. */
  seal(body: Uint8Array, iv: Uint8Array): Uint8Array;
  /** The body of a sealed chunk; DecryptionFailure when it does not authenticate. */
  open(sealed: Uint8Array): Uint8Array;
}

/** WE's AesStream: AES-128-GCM under MD5(CEK), 16-byte CEK. */
export const AES_CHUNK_CIPHER: ChunkCipher = {
  contentKeyLength: CONTENT_KEY_LENGTH,
  keyed: (contentKey) => {
    const aesKey = aesKeyOf(contentKey);
    return { seal: (body, iv) => sealWithKey(aesKey, body, iv), open: (sealed) => openWithKey(aesKey, sealed) };
  },
};

const NON_FINAL = 0x00;
const FINAL = 0x01;
/** status(1) ‖ index(4). */
const BODY_HEADER_LENGTH = 5;
const COUNT_LENGTH = 4;
/** Smallest chunk size that leaves room for at least the 4 count bytes of data per chunk. */
export const MIN_STREAM_CHUNK_SIZE = AES_IV_LENGTH + AES_TAG_LENGTH + BODY_HEADER_LENGTH + COUNT_LENGTH;

const REORDERED_OR_LOST = 'Decryption failed! Probably some data chunks was reordered or lost';

function checkChunkSize(chunkSize: number): void {
  if (!Number.isSafeInteger(chunkSize) || chunkSize < MIN_STREAM_CHUNK_SIZE || chunkSize > 0x7fffffff) {
    throw new RangeError(`The stream cipher chunk size must be an integer from ${MIN_STREAM_CHUNK_SIZE} to ${0x7fffffff}, got ${chunkSize}`);
  }
}

function keyedCipher(cipher: ChunkCipher, contentKey: Uint8Array): ChunkSeal {
  if (contentKey.length !== cipher.contentKeyLength) throw new RangeError(`A content key is ${cipher.contentKeyLength} bytes, got ${contentKey.length}`);
  return cipher.keyed(contentKey);
}

const u32 = (n: number): Uint8Array => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
};

/** Encrypts a stream: feed it with `update`, end it with `final`; each returns the complete chunks so far. */
export class StreamEncryptor {
  private readonly sealer: ChunkSeal;
  /** The plaintext of the chunk being filled: header and data. */
  private readonly body: Uint8Array;
  private position = 0;
  private iv: Uint8Array = new Uint8Array(0);
  /** Index of the next chunk to start (= chunks started so far). */
  private nextIndex = 0;
  private finished = false;

  constructor(
    contentKey: Uint8Array,
    readonly chunkSize: number,
    private readonly random: RandomBytes = systemRandom,
    cipher: ChunkCipher = AES_CHUNK_CIPHER,
  ) {
    checkChunkSize(chunkSize);
    this.sealer = keyedCipher(cipher, contentKey);
    this.body = new Uint8Array(chunkSize - AES_IV_LENGTH - AES_TAG_LENGTH);
    this.startChunk();
  }

  private startChunk(): void {
    this.iv = this.random(AES_IV_LENGTH);
    this.body[0] = NON_FINAL;
    new DataView(this.body.buffer).setUint32(1, this.nextIndex);
    this.position = BODY_HEADER_LENGTH;
    this.nextIndex++;
  }

  private write(data: Uint8Array, out: Uint8Array[]): void {
    let offset = 0;
    while (offset < data.length) {
      const n = Math.min(data.length - offset, this.body.length - this.position);
      this.body.set(data.subarray(offset, offset + n), this.position);
      this.position += n;
      offset += n;
      if (this.position === this.body.length) {
        out.push(this.sealer.seal(this.body, this.iv));
        this.startChunk();
      }
    }
  }

  /** Takes more plaintext; returns the chunks it completed (each exactly `chunkSize` bytes). */
  update(data: Uint8Array): Uint8Array[] {
    if (this.finished) throw new Error('The stream encryptor is already finished');
    const out: Uint8Array[] = [];
    this.write(data, out);
    return out;
  }

  /** Ends the stream: the remaining chunks, the last one final and carrying the chunk count. */
  final(): Uint8Array[] {
    if (this.finished) throw new Error('The stream encryptor is already finished');
    this.finished = true;
    const out: Uint8Array[] = [];
    const countFits = this.body.length - this.position >= COUNT_LENGTH;
    const chunkCount = countFits ? this.nextIndex : this.nextIndex + 1;
    if (countFits) {
      this.body[0] = FINAL;
      this.write(u32(chunkCount), out);
    } else {
      this.write(u32(chunkCount), out);
      this.body[0] = FINAL;
    }
    if (this.position > BODY_HEADER_LENGTH) out.push(this.sealer.seal(this.body.subarray(0, this.position), this.iv));
    return out;
  }
}

/** Decrypts what a StreamEncryptor produced, in any split of its bytes. Throws DecryptionFailure. */
export class StreamDecryptor {
  private readonly sealer: ChunkSeal;
  private readonly chunk: Uint8Array;
  private filled = 0;
  /** Index the next chunk must carry. */
  private expectedIndex = 0;
  /** Up to four plaintext bytes held back (they may be the chunk count). */
  private held = new Uint8Array(0);
  private sawFinal = false;
  private finished = false;

  constructor(
    contentKey: Uint8Array,
    readonly chunkSize: number,
    cipher: ChunkCipher = AES_CHUNK_CIPHER,
  ) {
    checkChunkSize(chunkSize);
    this.sealer = keyedCipher(cipher, contentKey);
    this.chunk = new Uint8Array(chunkSize);
  }

  /** Decrypts one whole chunk and returns its data part, checking the index. */
  private open(sealed: Uint8Array): Uint8Array {
    if (this.sawFinal) throw new DecryptionFailure(REORDERED_OR_LOST);
    if (sealed.length < AES_IV_LENGTH + AES_TAG_LENGTH + BODY_HEADER_LENGTH) throw new DecryptionFailure(REORDERED_OR_LOST);
    const body = this.sealer.open(sealed);
    const index = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(1);
    if (index !== this.expectedIndex) throw new DecryptionFailure('Invalid chunk index, chunk processing order must be the same as in encryption');
    this.expectedIndex++;
    if (body[0] === FINAL) this.sawFinal = true;
    return body.subarray(BODY_HEADER_LENGTH);
  }

  /** Releases all but the last four bytes of held ‖ data. */
  private release(data: Uint8Array): Uint8Array {
    const all = this.held.length === 0 ? data : Buffer.concat([this.held, data]);
    const cut = Math.max(0, all.length - COUNT_LENGTH);
    this.held = Uint8Array.from(all.subarray(cut));
    return all.subarray(0, cut);
  }

  /** Takes more ciphertext; returns the plaintext it could release. */
  update(data: Uint8Array): Uint8Array {
    if (this.finished) throw new Error('The stream decryptor is already finished');
    const out: Uint8Array[] = [];
    let offset = 0;
    while (offset < data.length) {
      const n = Math.min(data.length - offset, this.chunkSize - this.filled);
      this.chunk.set(data.subarray(offset, offset + n), this.filled);
      this.filled += n;
      offset += n;
      if (this.filled === this.chunkSize) {
        out.push(Uint8Array.from(this.release(this.open(this.chunk))));
        this.filled = 0;
      }
    }
    return out.length === 1 ? out[0]! : new Uint8Array(Buffer.concat(out));
  }

  /** Ends the stream: the last plaintext bytes; throws when chunks were lost, reordered or cut. */
  final(): Uint8Array {
    if (this.finished) throw new Error('The stream decryptor is already finished');
    this.finished = true;
    const last = this.filled > 0 ? Uint8Array.from(this.release(this.open(this.chunk.subarray(0, this.filled)))) : new Uint8Array(0);
    if (!this.sawFinal || this.held.length !== COUNT_LENGTH) throw new DecryptionFailure(REORDERED_OR_LOST);
    const count = new DataView(this.held.buffer, this.held.byteOffset, 4).getUint32(0);
    if (count !== this.expectedIndex) throw new DecryptionFailure(REORDERED_OR_LOST);
    return last;
  }
}

/** A stream encryptor for one recipient and the 48-byte wrapped key to send ahead of the stream (WE's buildEncryptor). */
export function streamEncryptorFor(
  senderPrivateKey: Uint8Array,
  recipientPublicKey: Uint8Array,
  chunkSize: number,
  random: RandomBytes = systemRandom,
): { readonly wrappedKey: Uint8Array; readonly encryptor: StreamEncryptor } {
  const contentKey = random(CONTENT_KEY_LENGTH);
  const wrappedKey = wrapContentKey(contentKey, senderPrivateKey, recipientPublicKey, random);
  return { wrappedKey, encryptor: new StreamEncryptor(contentKey, chunkSize, random) };
}

/** The decryptor for a stream whose wrapped key came from `senderPublicKey` (WE's buildDecryptor). */
export function streamDecryptorFor(wrappedKey: Uint8Array, recipientPrivateKey: Uint8Array, senderPublicKey: Uint8Array, chunkSize: number): StreamDecryptor {
  return new StreamDecryptor(unwrapContentKey(wrappedKey, recipientPrivateKey, senderPublicKey), chunkSize);
}
