/**
 * A strict DER reader and a small DER writer: what X.509 certificates, CRLs and CMS
 * SignedData need (ITU-T X.690). The reader refuses indefinite lengths, non-minimal length
 * encodings, high tag numbers beyond 2^28, and any byte left over where a structure must end,
 * so a malformed certificate is an error that says where, never a silently different value.
 */
import { InternalError } from '../../errors/internal.js';

/** A DER structure that cannot be read; `message` names what and where. */
export class DerError extends InternalError {
  override readonly name = 'DerError';
}

export const Tag = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  ENUMERATED: 0x0a,
  UTF8_STRING: 0x0c,
  NUMERIC_STRING: 0x12,
  PRINTABLE_STRING: 0x13,
  T61_STRING: 0x14,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  VISIBLE_STRING: 0x1a,
  GENERAL_STRING: 0x1b,
  UNIVERSAL_STRING: 0x1c,
  BMP_STRING: 0x1e,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** One TLV element: its identifier octet, its content, and the whole encoding. */
export class DerNode {
  constructor(
    /** The identifier octet (class, constructed bit, tag number < 31). */
    readonly tag: number,
    /** The content octets. */
    readonly content: Uint8Array,
    /** The whole encoding (identifier, length, content). */
    readonly der: Uint8Array,
    /** Offset of the element in the outermost input, for messages. */
    readonly offset: number,
  ) {}

  get constructed(): boolean {
    return (this.tag & 0x20) !== 0;
  }

  /** Context-specific tag number when this is `[n]`, else undefined. */
  get contextNumber(): number | undefined {
    return (this.tag & 0xc0) === 0x80 ? this.tag & 0x1f : undefined;
  }

  /** The elements inside a constructed element. */
  children(): DerNode[] {
    if (!this.constructed) throw new DerError(`the element at byte ${this.offset} is not constructed`);
    return readAll(this.content, this.offset + this.der.length - this.content.length);
  }

  expect(tag: number, what: string): this {
    if (this.tag !== tag) throw new DerError(`${what}: expected tag 0x${tag.toString(16)}, got 0x${this.tag.toString(16)} at byte ${this.offset}`);
    return this;
  }
}

function readOne(bytes: Uint8Array, pos: number, base: number): { node: DerNode; next: number } {
  const start = pos;
  if (pos >= bytes.length) throw new DerError(`truncated at byte ${base + pos}: an element was expected`);
  const tag = bytes[pos++]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError(`high tag numbers are not used here (byte ${base + start})`);
  if (pos >= bytes.length) throw new DerError(`truncated at byte ${base + pos}: a length was expected`);
  let length = bytes[pos++]!;
  if (length === 0x80) throw new DerError(`indefinite length at byte ${base + start} is not DER`);
  if (length > 0x80) {
    const count = length & 0x7f;
    if (count > 4) throw new DerError(`length of ${count} octets at byte ${base + start} is too long`);
    if (pos + count > bytes.length) throw new DerError(`truncated length at byte ${base + start}`);
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[pos++]!;
    if (bytes[pos - count] === 0 || length < 0x80) throw new DerError(`non-minimal length encoding at byte ${base + start} is not DER`);
  }
  if (pos + length > bytes.length) throw new DerError(`element at byte ${base + start} claims ${length} content bytes, only ${bytes.length - pos} follow`);
  const node = new DerNode(tag, bytes.subarray(pos, pos + length), bytes.subarray(start, pos + length), base + start);
  return { node, next: pos + length };
}

/** Every element of a byte string, in order. */
export function readAll(bytes: Uint8Array, base = 0): DerNode[] {
  const out: DerNode[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const { node, next } = readOne(bytes, pos, base);
    out.push(node);
    pos = next;
  }
  return out;
}

/** Exactly one element filling the whole input. */
export function readDer(bytes: Uint8Array): DerNode {
  const { node, next } = readOne(bytes, 0, 0);
  if (next !== bytes.length) throw new DerError(`${bytes.length - next} bytes follow the outermost element`);
  return node;
}

// ---------------------------------------------------------------------------
// Primitive values

export function readOid(node: DerNode): string {
  node.expect(Tag.OID, 'object identifier');
  const b = node.content;
  if (b.length === 0) throw new DerError(`empty object identifier at byte ${node.offset}`);
  const arcs: bigint[] = [];
  let value = 0n;
  for (let i = 0; i < b.length; i++) {
    if (value === 0n && b[i] === 0x80) throw new DerError(`non-minimal object identifier arc at byte ${node.offset}`);
    value = (value << 7n) | BigInt(b[i]! & 0x7f);
    if ((b[i]! & 0x80) === 0) {
      arcs.push(value);
      value = 0n;
    } else if (i === b.length - 1) {
      throw new DerError(`truncated object identifier at byte ${node.offset}`);
    }
  }
  const first = arcs[0]!;
  const head = first < 40n ? [0n, first] : first < 80n ? [1n, first - 40n] : [2n, first - 80n];
  return [...head, ...arcs.slice(1)].join('.');
}

/** A non-negative or negative INTEGER as a bigint. */
export function readInteger(node: DerNode): bigint {
  node.expect(Tag.INTEGER, 'integer');
  const b = node.content;
  if (b.length === 0) throw new DerError(`empty integer at byte ${node.offset}`);
  if (b.length > 1 && ((b[0] === 0 && (b[1]! & 0x80) === 0) || (b[0] === 0xff && (b[1]! & 0x80) !== 0))) {
    throw new DerError(`non-minimal integer at byte ${node.offset}`);
  }
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  if ((b[0]! & 0x80) !== 0) v -= 1n << BigInt(8 * b.length);
  return v;
}

/** The bits of a BIT STRING with no unused bits (keys, signatures). */
export function readBitStringBytes(node: DerNode): Uint8Array {
  node.expect(Tag.BIT_STRING, 'bit string');
  if (node.content.length === 0 || node.content[0] !== 0) throw new DerError(`bit string at byte ${node.offset} has unused bits`);
  return node.content.subarray(1);
}

/** The bits of a BIT STRING as flags, bit 0 first (keyUsage). */
export function readBitFlags(node: DerNode): boolean[] {
  node.expect(Tag.BIT_STRING, 'bit string');
  const unused = node.content[0];
  if (unused === undefined || unused > 7) throw new DerError(`bad bit string at byte ${node.offset}`);
  const bits: boolean[] = [];
  const data = node.content.subarray(1);
  for (let i = 0; i < data.length * 8 - unused; i++) bits.push((data[i >> 3]! & (0x80 >> (i & 7))) !== 0);
  return bits;
}

export function readBoolean(node: DerNode): boolean {
  node.expect(Tag.BOOLEAN, 'boolean');
  if (node.content.length !== 1 || (node.content[0] !== 0 && node.content[0] !== 0xff)) throw new DerError(`bad boolean at byte ${node.offset}`);
  return node.content[0] === 0xff;
}

/** UTCTime (YYMMDDHHMMSSZ, years 1950–2049) or GeneralizedTime (YYYYMMDDHHMMSSZ) as ms since the epoch. */
export function readTime(node: DerNode): bigint {
  const text = Buffer.from(node.content).toString('latin1');
  let m: RegExpExecArray | null;
  let year: number;
  if (node.tag === Tag.UTC_TIME) {
    m = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)Z$/.exec(text);
    if (m === null) throw new DerError(`bad UTCTime '${text}' at byte ${node.offset}`);
    const yy = Number(m[1]);
    year = yy >= 50 ? 1900 + yy : 2000 + yy;
  } else if (node.tag === Tag.GENERALIZED_TIME) {
    m = /^(\d\d\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)Z$/.exec(text);
    if (m === null) throw new DerError(`bad GeneralizedTime '${text}' at byte ${node.offset}`);
    year = Number(m[1]);
  } else {
    throw new DerError(`expected a time at byte ${node.offset}, got tag 0x${node.tag.toString(16)}`);
  }
  const ms = Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  if (Number.isNaN(ms)) throw new DerError(`bad time '${text}' at byte ${node.offset}`);
  return BigInt(ms);
}

// ---------------------------------------------------------------------------
// Writer

function lengthBytes(n: number): Uint8Array {
  if (n < 0x80) return Uint8Array.of(n);
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff);
  return Uint8Array.of(0x80 | out.length, ...out);
}

/** One TLV from a tag and content parts. */
export function tlv(tag: number, ...parts: Uint8Array[]): Uint8Array {
  const content = Buffer.concat(parts);
  return Buffer.concat([Uint8Array.of(tag), lengthBytes(content.length), content]);
}

export const sequence = (...parts: Uint8Array[]): Uint8Array => tlv(Tag.SEQUENCE, ...parts);

/** A SET OF in DER order: the encodings sorted as octet strings (X.690 §11.6). */
export function setOf(...elements: Uint8Array[]): Uint8Array {
  const sorted = [...elements].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return tlv(Tag.SET, ...sorted);
}

export const octetString = (b: Uint8Array): Uint8Array => tlv(Tag.OCTET_STRING, b);
export const nullValue = (): Uint8Array => Uint8Array.of(Tag.NULL, 0);
export const contextConstructed = (n: number, ...parts: Uint8Array[]): Uint8Array => tlv(0xa0 | n, ...parts);

export function integer(v: bigint): Uint8Array {
  if (v < 0n) throw new RangeError('negative integers are not written here');
  let hex = v.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  let bytes = Buffer.from(hex, 'hex');
  if ((bytes[0]! & 0x80) !== 0) bytes = Buffer.concat([Uint8Array.of(0), bytes]);
  return tlv(Tag.INTEGER, bytes);
}

export function oid(text: string): Uint8Array {
  const arcs = text.split('.').map((a) => BigInt(a));
  if (arcs.length < 2) throw new RangeError(`object identifier '${text}' has fewer than two arcs`);
  const values = [arcs[0]! * 40n + arcs[1]!, ...arcs.slice(2)];
  const out: number[] = [];
  for (const v of values) {
    const groups: number[] = [];
    let x = v;
    do {
      groups.unshift(Number(x & 0x7fn));
      x >>= 7n;
    } while (x > 0n);
    groups.forEach((g, i) => out.push(i < groups.length - 1 ? g | 0x80 : g));
  }
  return tlv(Tag.OID, Uint8Array.from(out));
}

/** UTCTime for 1950–2049, GeneralizedTime otherwise (RFC 5280 §4.1.2.5). */
export function time(ms: bigint): Uint8Array {
  const d = new Date(Number(ms));
  const two = (n: number): string => String(n).padStart(2, '0');
  const rest = `${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}Z`;
  const year = d.getUTCFullYear();
  if (year >= 1950 && year < 2050) return tlv(Tag.UTC_TIME, Buffer.from(`${two(year % 100)}${rest}`, 'latin1'));
  return tlv(Tag.GENERALIZED_TIME, Buffer.from(`${year}${rest}`, 'latin1'));
}
