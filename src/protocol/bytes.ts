import { DecodeError } from '../errors/catalogue.js';
/**
 * Big-endian binary primitives (Java DataOutput / DataInput), as every WE structure
 * is laid out.
 */

export { concatBytes, equalBytes } from '../crypto/encoding.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buf.buffer);
  }

  get length(): number {
    return this.pos;
  }

  private ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v & 0xff;
    return this;
  }

  bool(v: boolean): this {
    return this.u8(v ? 1 : 0);
  }

  u16(v: number): this {
    if (v < 0 || v > 0xffff) throw new RangeError(`${v} does not fit an unsigned 16-bit length`);
    this.ensure(2);
    this.view.setUint16(this.pos, v);
    this.pos += 2;
    return this;
  }

  i16(v: number): this {
    this.ensure(2);
    this.view.setInt16(this.pos, v);
    this.pos += 2;
    return this;
  }

  i32(v: number): this {
    this.ensure(4);
    this.view.setInt32(this.pos, v);
    this.pos += 4;
    return this;
  }

  i64(v: bigint): this {
    if (v < INT64_MIN || v > INT64_MAX) throw new RangeError(`${v} does not fit a signed 64-bit integer`);
    this.ensure(8);
    this.view.setBigInt64(this.pos, v);
    this.pos += 8;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  /** u16 length ‖ bytes (WE's Deser.serializeArray). */
  shortBytes(b: Uint8Array): this {
    return this.u16(b.length).bytes(b);
  }

  /** i32 length ‖ bytes. */
  longBytes(b: Uint8Array): this {
    return this.i32(b.length).bytes(b);
  }

  /** A copy of what was written. */
  result(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

/**
 * Reads big-endian primitives; every overrun is a DecodeError naming the field being read.
 * Byte fields are copies of the buffer's bytes, or — for a reader made by `sharing` — views
 * into it.
 */
export class ByteReader {
  private readonly view: DataView;
  pos: number;
  /** Byte fields are views into `buf` (see `sharing`) rather than copies. */
  readonly shares: boolean;

  constructor(
    readonly buf: Uint8Array,
    offset = 0,
    private readonly end = buf.length,
    from?: { readonly view?: DataView; readonly shares: boolean },
  ) {
    this.view = from?.view ?? new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.shares = from?.shares ?? false;
    this.pos = offset;
  }

  /**
   * A reader whose byte fields are views into `buf` instead of copies: nothing is copied, but
   * what is read keeps the whole buffer alive and sees any change to it. Only for a buffer
   * that no one changes, read into values that do not outlive it by much (a block's stored
   * bytes, decoded one transaction at a time for an answer).
   */
  static sharing(buf: Uint8Array): ByteReader {
    return new ByteReader(buf, 0, buf.length, { shares: true });
  }

  /** Bytes [start, end) of the buffer as a plain Uint8Array sharing its memory (also when it is a Buffer). */
  viewOf(start: number, end: number): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset + start, end - start);
  }

  /** A reader over bytes [start, end) of the same buffer, reading as this one does (copies or views). */
  within(start: number, end: number): ByteReader {
    return new ByteReader(this.buf, start, end, { view: this.view, shares: this.shares });
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number, what: string): void {
    if (n < 0 || this.pos + n > this.end) {
      throw new DecodeError(`Buffer underflow while reading ${what}: need ${n} bytes at offset ${this.pos}, ${this.end - this.pos} left`, what);
    }
  }

  u8(what = 'byte'): number {
    this.need(1, what);
    return this.buf[this.pos++]!;
  }

  /** Signed byte, as Java reads it. */
  i8(what = 'byte'): number {
    return (this.u8(what) << 24) >> 24;
  }

  /** WE's boolean: only 0x01 is true. */
  bool(what = 'boolean'): boolean {
    return this.u8(what) === 1;
  }

  u16(what = 'short'): number {
    this.need(2, what);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }

  i16(what = 'short'): number {
    this.need(2, what);
    const v = this.view.getInt16(this.pos);
    this.pos += 2;
    return v;
  }

  i32(what = 'int'): number {
    this.need(4, what);
    const v = this.view.getInt32(this.pos);
    this.pos += 4;
    return v;
  }

  i64(what = 'long'): bigint {
    this.need(8, what);
    const v = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return v;
  }

  bytes(n: number, what = 'bytes'): Uint8Array {
    this.need(n, what);
    // A copy (Uint8Array's slice, also of a Buffer, whose own slice would share memory; of a
    // Buffer it is a Buffer), or a plain Uint8Array view when this reader shares.
    const out = this.shares ? this.viewOf(this.pos, this.pos + n) : Uint8Array.prototype.slice.call(this.buf, this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  shortBytes(what = 'bytes'): Uint8Array {
    return this.bytes(this.u16(what), what);
  }

  /** i32 length ‖ bytes; a negative length is malformed input. */
  longBytes(what = 'bytes'): Uint8Array {
    const n = this.i32(what);
    if (n < 0) throw new DecodeError(`Negative length ${n} while reading ${what}`, what);
    return this.bytes(n, what);
  }

  /** Fails unless every byte was consumed. */
  expectEnd(what: string): void {
    if (this.pos !== this.end) {
      throw new DecodeError(`${this.end - this.pos} unexpected trailing bytes after ${what}`, what);
    }
  }
}

export const INT64 = { MIN: INT64_MIN, MAX: INT64_MAX } as const;
