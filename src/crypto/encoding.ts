/**
 * Base58 and Base64 as the WE node reads and writes them.
 *
 * Decoders throw `EncodingError` with WE's wording ("Wrong char 'l' in Base58 string …"),
 * so callers can wrap it in the error their field calls for.
 */
import { base58 } from '@scure/base';

export class EncodingError extends Error {
  override readonly name = 'EncodingError';
}

/** Maximum Base58 string length for n bytes, as WE computes it (Constants.base58Length). */
export function base58Length(byteLength: number): number {
  return Math.ceil((Math.log(256) / Math.log(58)) * byteLength);
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_VALID = new Uint8Array(128);
for (const c of BASE58_ALPHABET) BASE58_VALID[c.charCodeAt(0)] = 1;

export function encodeBase58(bytes: Uint8Array): string {
  return bytes.length === 0 ? '' : base58.encode(bytes);
}

/** Strict Base58 decode; the message follows WE's (scorex) Base58 decoder. */
export function decodeBase58(text: string): Uint8Array {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || BASE58_VALID[c] === 0) {
      throw new EncodingError(`assertion failed: Wrong char '${text[i]}' in Base58 string '${text}'`);
    }
  }
  return text.length === 0 ? new Uint8Array(0) : base58.decode(text);
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

/** Bytes as a string key for Maps and Sets (one char per byte). */
export const bytesKey = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
