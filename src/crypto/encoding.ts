/**
 * Base58 and Base64 as the WE node reads and writes them.
 *
 * Decoders throw `EncodingError` with WE's wording ("Wrong char 'l' in Base58 string …"),
 * so callers can wrap it in the error their field calls for.
 */

import { InternalError } from '../errors/internal.js';

export class EncodingError extends InternalError {
  override readonly name = 'EncodingError';
}

/** Maximum Base58 string length for n bytes, as WE computes it (Constants.base58Length). */
export function base58Length(byteLength: number): number {
  return Math.ceil((Math.log(256) / Math.log(58)) * byteLength);
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_CODES = Array.from(BASE58_ALPHABET, (c) => c.charCodeAt(0));
/** Char code → digit value, -1 where the char is not Base58. */
const BASE58_DIGITS = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE58_ALPHABET.length; i++) BASE58_DIGITS[BASE58_ALPHABET.charCodeAt(i)] = i;
const CODE_ONE = 0x31;

/*
 * Base58 (Bitcoin's alphabet, as WE uses it) as a change of radix between 2^8 and 58 done
 * in wide limbs, so each step is one exact float multiply-add (every value stays below
 * 2^53) instead of one per digit:
 * - encoding keeps the number in limbs of 58^5, least significant first, and feeds it two
 *   bytes at a time;
 * - decoding keeps it in limbs of 2^24 and feeds it four digits at a time.
 * Leading zero bytes and leading '1's stand for each other one to one.
 */
const B58_LIMB = 58 ** 5;
const B256_LIMB = 2 ** 24;

/** limbs := limbs × factor + addend, limbs in base `radix`, least significant first. */
function multiplyAdd(limbs: number[], radix: number, factor: number, addend: number): void {
  let carry = addend;
  for (let j = 0; j < limbs.length; j++) {
    const x = limbs[j]! * factor + carry;
    carry = Math.floor(x / radix);
    limbs[j] = x - carry * radix;
  }
  while (carry > 0) {
    const q = Math.floor(carry / radix);
    limbs.push(carry - q * radix);
    carry = q;
  }
}

/*
 * Encoding allocates nothing but its string (heavy REST reads encode several Base58 texts per
 * transaction, hundreds of thousands a second): limbs and characters go into scratch space
 * reused by every call — a fresh array for inputs too long to keep theirs — and the text is
 * read out of a Buffer as latin1. Quotients come from multiplying by the divisor's reciprocal,
 * corrected by one where rounding fell on the wrong side: the values stay exact integers
 * below 2^53, and a multiply is several times quicker than a division on the carry chain.
 */
const B58_LIMB_INVERSE = 1 / B58_LIMB;
const B58_PAIR = 58 * 58;
const B58_PAIR_INVERSE = 1 / B58_PAIR;
/** Two characters per value below 58², first digit first. */
const B58_PAIR_CODES = new Uint8Array(2 * B58_PAIR);
for (let v = 0; v < B58_PAIR; v++) {
  B58_PAIR_CODES[2 * v] = BASE58_CODES[Math.floor(v / 58)]!;
  B58_PAIR_CODES[2 * v + 1] = BASE58_CODES[v % 58]!;
}
/** Inputs up to this many bytes are encoded in the shared scratch space. */
const SCRATCH_INPUT_BYTES = 512;
const scratchLimbs: number[] = [];
/** Room for the text of SCRATCH_INPUT_BYTES: zeros plus five characters per limb. */
const scratchText = Buffer.alloc(SCRATCH_INPUT_BYTES + 5 * (Math.ceil((SCRATCH_INPUT_BYTES * 8) / Math.log2(B58_LIMB)) + 1));

/** ⌊x ÷ d⌋ for an integer 0 ≤ x < 2^53, given 1/d. */
function quotient(x: number, d: number, inverse: number): number {
  const q = Math.floor(x * inverse);
  const r = x - q * d;
  return r < 0 ? q - 1 : r >= d ? q + 1 : q;
}

export function encodeBase58(bytes: Uint8Array): string {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  const limbs = n <= SCRATCH_INPUT_BYTES ? scratchLimbs : [];
  let count = 0;
  let i = zeros;
  // An odd count of significant bytes: the first one alone, then pairs (limbs × 2^16 + pair).
  if ((n - zeros) % 2 === 1) limbs[count++] = bytes[i++]!;
  for (; i < n; i += 2) {
    let carry = bytes[i]! * 256 + bytes[i + 1]!;
    for (let j = 0; j < count; j++) {
      const x = limbs[j]! * 65536 + carry;
      carry = quotient(x, B58_LIMB, B58_LIMB_INVERSE);
      limbs[j] = x - carry * B58_LIMB;
    }
    for (; carry > 0; count++) {
      const q = Math.floor(carry / B58_LIMB);
      limbs[count] = carry - q * B58_LIMB;
      carry = q;
    }
  }
  // Written from the end: five characters per limb below the top one (a lone digit, then
  // two pairs), the top limb without leading zero digits, then a '1' per leading zero byte.
  const end = zeros + 5 * count;
  const text = n <= SCRATCH_INPUT_BYTES ? scratchText : Buffer.allocUnsafe(end);
  let at = end;
  for (let j = 0; j < count - 1; j++) {
    const limb = limbs[j]!;
    const high = quotient(limb, B58_PAIR, B58_PAIR_INVERSE);
    const low = 2 * (limb - high * B58_PAIR);
    const top = quotient(high, B58_PAIR, B58_PAIR_INVERSE);
    const middle = 2 * (high - top * B58_PAIR);
    text[--at] = B58_PAIR_CODES[low + 1]!;
    text[--at] = B58_PAIR_CODES[low]!;
    text[--at] = B58_PAIR_CODES[middle + 1]!;
    text[--at] = B58_PAIR_CODES[middle]!;
    text[--at] = BASE58_CODES[top]!;
  }
  if (count > 0) {
    for (let limb = limbs[count - 1]!; limb > 0;) {
      const q = Math.floor(limb / 58);
      text[--at] = BASE58_CODES[limb - q * 58]!;
      limb = q;
    }
  }
  for (let k = 0; k < zeros; k++) text[--at] = CODE_ONE;
  return text.toString('latin1', at, end);
}

/** Strict Base58 decode; the message follows WE's (scorex) Base58 decoder. */
/** Base58 text decoded, or undefined when it is not Base58. */
export function base58OrUndefined(text: string): Uint8Array | undefined {
  try {
    return decodeBase58(text);
  } catch {
    return undefined;
  }
}

export function decodeBase58(text: string): Uint8Array {
  const n = text.length;
  let zeros = 0;
  while (zeros < n && text.charCodeAt(zeros) === CODE_ONE) zeros++;
  const limbs: number[] = [];
  let i = zeros;
  // Digits in groups of four; a first group of (count mod 4) when the count is not a multiple.
  let group = (n - zeros) % 4 || 4;
  while (i < n) {
    let carry = 0;
    let scale = 1;
    for (let k = 0; k < group; k++, i++) {
      const c = text.charCodeAt(i);
      const v = c < 128 ? BASE58_DIGITS[c]! : -1;
      if (v < 0) throw new EncodingError(`assertion failed: Wrong char '${text[i]}' in Base58 string '${text}'`);
      carry = carry * 58 + v;
      scale *= 58;
    }
    group = 4;
    multiplyAdd(limbs, B256_LIMB, scale, carry);
  }
  // Three bytes per limb, the top limb without leading zero bytes, after the leading zeros.
  let top = limbs.length > 0 ? limbs[limbs.length - 1]! : 0;
  const topBytes = top >= 65536 ? 3 : top >= 256 ? 2 : top > 0 ? 1 : 0;
  const out = new Uint8Array(zeros + topBytes + Math.max(0, limbs.length - 1) * 3);
  let o = out.length;
  for (let j = 0; j < limbs.length - 1; j++) {
    const limb = limbs[j]!;
    out[--o] = limb & 0xff;
    out[--o] = (limb >>> 8) & 0xff;
    out[--o] = limb >>> 16;
  }
  for (let k = 0; k < topBytes; k++, top >>>= 8) out[--o] = top & 0xff;
  return out;
}

const BASE64_BODY = /^[A-Za-z0-9+/]*$/;

export const BASE64_PREFIX = 'base64:';

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** The characters of Base64 text that carry bits (no `base64:` prefix, no padding), and how many `=` followed them. */
function base64Parts(text: string): { core: string; padding: number } {
  const body = text.startsWith(BASE64_PREFIX) ? text.slice(BASE64_PREFIX.length) : text;
  let end = body.length;
  let padding = 0;
  while (end > 0 && body.charCodeAt(end - 1) === 0x3d /* = */) {
    end--;
    padding++;
  }
  return { core: body.slice(0, end), padding };
}

/** How many bytes decodeBase64 gives for `text` (counted, not decoded); text it refuses gives no more. */
export function base64DecodedLength(text: string): number {
  return Math.floor((base64Parts(text).core.length * 3) / 4);
}

/**
 * Base64 with Java's basic decoder rules (standard alphabet; padding optional but, when
 * present, complete), after stripping an optional `base64:` prefix as WE does.
 */
export function decodeBase64(text: string): Uint8Array {
  const { core, padding } = base64Parts(text);
  if (!BASE64_BODY.test(core)) {
    const bad = [...core].find((c) => !/[A-Za-z0-9+/]/.test(c)) ?? '=';
    throw new EncodingError(`Illegal base64 character ${bad.charCodeAt(0).toString(16)}`);
  }
  const rem = core.length % 4;
  if (rem === 1) throw new EncodingError('Last unit does not have enough valid bits');
  if (padding > 0 && (padding > 2 || (core.length + padding) % 4 !== 0)) {
    throw new EncodingError('Input byte array has incorrect ending byte');
  }
  return new Uint8Array(Buffer.from(core, 'base64'));
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Inputs up to this many bytes are keyed through String.fromCharCode (far below its argument limit). */
const SHORT_KEY_BYTES = 64;

const fromCharCodes = String.fromCharCode;

/**
 * Bytes as a string key for Maps and Sets (one char per byte, as latin1 decoding gives).
 * Addresses and ids — the keys the pool, state validation and the store's caches make many
 * times per transaction — go through String.fromCharCode, without a Buffer object per call.
 * The two commonest lengths, an address (26 bytes) and an id or public key (32), pass their
 * bytes as arguments: `apply` over a typed array goes through the runtime (~130 ns against
 * ~35 ns here).
 */
export function bytesKey(b: Uint8Array): string {
  // prettier-ignore
  switch (b.length) {
    case 26:
      return fromCharCodes(b[0]!, b[1]!, b[2]!, b[3]!, b[4]!, b[5]!, b[6]!, b[7]!, b[8]!, b[9]!, b[10]!, b[11]!, b[12]!, b[13]!, b[14]!, b[15]!, b[16]!, b[17]!, b[18]!, b[19]!, b[20]!, b[21]!, b[22]!, b[23]!, b[24]!, b[25]!);
    case 32:
      return fromCharCodes(b[0]!, b[1]!, b[2]!, b[3]!, b[4]!, b[5]!, b[6]!, b[7]!, b[8]!, b[9]!, b[10]!, b[11]!, b[12]!, b[13]!, b[14]!, b[15]!, b[16]!, b[17]!, b[18]!, b[19]!, b[20]!, b[21]!, b[22]!, b[23]!, b[24]!, b[25]!, b[26]!, b[27]!, b[28]!, b[29]!, b[30]!, b[31]!);
    default:
      return b.length <= SHORT_KEY_BYTES ? String.fromCharCode.apply(null, b as unknown as number[]) : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
  }
}
