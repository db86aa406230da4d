/**
 * Base58 and Base64 as the WE node reads and writes them.
 *
 * Decoders throw `EncodingError` with WE's wording ("Wrong char 'l' in Base58 string …"),
 * so callers can wrap it in the error their field calls for.
 */
export class EncodingError extends Error {
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

export function encodeBase58(bytes: Uint8Array): string {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  const limbs: number[] = [];
  let i = zeros;
  // An odd count of significant bytes: the first one alone, then pairs.
  if ((n - zeros) % 2 === 1) limbs.push(bytes[i++]!);
  for (; i < n; i += 2) {
    multiplyAdd(limbs, B58_LIMB, 65536, bytes[i]! * 256 + bytes[i + 1]!);
  }
  const codes: number[] = [];
  for (let k = 0; k < zeros; k++) codes.push(CODE_ONE);
  if (limbs.length > 0) {
    // The top limb without leading zero digits, then five digits per limb.
    const top: number[] = [];
    for (let limb = limbs[limbs.length - 1]!; limb > 0; ) {
      const q = Math.floor(limb / 58);
      top.push(limb - q * 58);
      limb = q;
    }
    for (let k = top.length - 1; k >= 0; k--) codes.push(BASE58_CODES[top[k]!]!);
    for (let j = limbs.length - 2; j >= 0; j--) {
      let limb = limbs[j]!;
      const q4 = Math.floor(limb / 58);
      const d4 = limb - q4 * 58;
      limb = q4;
      const q3 = Math.floor(limb / 58);
      const d3 = limb - q3 * 58;
      limb = q3;
      const q2 = Math.floor(limb / 58);
      const d2 = limb - q2 * 58;
      limb = q2;
      const d0 = Math.floor(limb / 58);
      const d1 = limb - d0 * 58;
      codes.push(BASE58_CODES[d0]!, BASE58_CODES[d1]!, BASE58_CODES[d2]!, BASE58_CODES[d3]!, BASE58_CODES[d4]!);
    }
  }
  // Chunked: String.fromCharCode takes its codes as arguments.
  let out = '';
  for (let k = 0; k < codes.length; k += 8192) out += String.fromCharCode(...codes.slice(k, k + 8192));
  return out;
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

/**
 * Base64 with Java's basic decoder rules (standard alphabet; padding optional but, when
 * present, complete), after stripping an optional `base64:` prefix as WE does.
 */
export function decodeBase64(text: string): Uint8Array {
  const body = text.startsWith(BASE64_PREFIX) ? text.slice(BASE64_PREFIX.length) : text;
  let end = body.length;
  let padding = 0;
  while (end > 0 && body.charCodeAt(end - 1) === 0x3d /* = */) {
    end--;
    padding++;
  }
  const core = body.slice(0, end);
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

/**
 * Bytes as a string key for Maps and Sets (one char per byte, as latin1 decoding gives).
 * Addresses and ids — the keys the pool and state validation make many times per
 * transaction — go through String.fromCharCode, without a Buffer object per call.
 */
export const bytesKey = (b: Uint8Array): string =>
  b.length <= SHORT_KEY_BYTES ? String.fromCharCode.apply(null, b as unknown as number[]) : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
