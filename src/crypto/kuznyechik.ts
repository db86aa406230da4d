/**
 * The Kuznyechik block cipher (GOST R 34.12-2015, 128-bit block, 256-bit key) and the
 * GOST R 34.13-2015 modes Weft uses over it: CTR, CFB (128-bit feedback) and OMAC.
 *
 * A table implementation: the nine rounds X·S·L are done with sixteen 256-entry tables of
 * L(π(v) at byte i), 32-bit words, so a block costs 144 lookups. @wavesenterprise/
 * crypto-gost-js has the same cipher byte-wise (and schedules the key again on every call),
 * about a hundred times slower — too slow for privacy items of hundreds of megabytes. The
 * tests check the standard's vectors and agree with OpenSSL's GOST engine.
 */

import { gostBackend, type GostBackend, type Kuznyechik } from './gost-native.js';

/** π of GOST R 34.12-2015 §4.1.1. */
const PI = Uint8Array.from([
  252, 238, 221, 17, 207, 110, 49, 22, 251, 196, 250, 218, 35, 197, 4, 77, 233, 119, 240, 219, 147, 46, 153, 186, 23, 54, 241, 187, 20, 205, 95, 193, 249, 24,
  101, 90, 226, 92, 239, 33, 129, 28, 60, 66, 139, 1, 142, 79, 5, 132, 2, 174, 227, 106, 143, 160, 6, 11, 237, 152, 127, 212, 211, 31, 235, 52, 44, 81, 234,
  200, 72, 171, 242, 42, 104, 162, 253, 58, 206, 204, 181, 112, 14, 86, 8, 12, 118, 18, 191, 114, 19, 71, 156, 183, 93, 135, 21, 161, 150, 41, 16, 123, 154,
  199, 243, 145, 120, 111, 157, 158, 178, 177, 50, 117, 25, 61, 255, 53, 138, 126, 109, 84, 198, 128, 195, 189, 13, 87, 223, 245, 36, 169, 62, 168, 67, 201,
  215, 121, 214, 246, 124, 34, 185, 3, 224, 15, 236, 222, 122, 148, 176, 188, 220, 232, 40, 80, 78, 51, 10, 74, 167, 151, 96, 115, 30, 0, 98, 68, 26, 184, 56,
  130, 100, 159, 38, 65, 173, 69, 70, 146, 39, 94, 85, 47, 140, 163, 165, 125, 105, 213, 149, 59, 7, 88, 179, 64, 134, 172, 29, 247, 48, 55, 107, 228, 136, 217,
  231, 137, 225, 27, 131, 73, 76, 63, 248, 254, 141, 83, 170, 144, 202, 216, 133, 97, 32, 113, 103, 164, 45, 43, 9, 91, 203, 155, 37, 208, 190, 229, 108, 82,
  89, 166, 116, 210, 230, 244, 180, 192, 209, 102, 175, 194, 57, 75, 99, 182,
]);

/** Coefficients of the linear map ℓ over bytes a15 … a0 (GOST R 34.12-2015 §4.1.2). */
const ELL = [148, 32, 133, 16, 194, 192, 1, 251, 1, 192, 194, 16, 133, 32, 148, 1] as const;

export const KUZNYECHIK_BLOCK = 16;
export const KUZNYECHIK_KEY_LENGTH = 32;

/** Multiplication in GF(2^8) modulo x^8 + x^7 + x^6 + x + 1. */
function gfMul(a: number, b: number): number {
  let p = 0;
  for (let i = 0; i < 8; i++) {
    if ((b & 1) !== 0) p ^= a;
    const carry = a & 0x80;
    a = (a << 1) & 0xff;
    if (carry !== 0) a ^= 0xc3;
    b >>= 1;
  }
  return p;
}

/** L = R¹⁶ in place, on a 16-byte block (byte 0 is a15). */
function linear(block: Uint8Array): void {
  for (let round = 0; round < 16; round++) {
    let sum = 0;
    for (let i = 0; i < 16; i++) sum ^= gfMul(ELL[i]!, block[i]!);
    block.copyWithin(1, 0, 15);
    block[0] = sum;
  }
}

/** T[(i·256 + v)·4 …+4] = L(the block with π(v) at byte i) as four big-endian words. */
function buildTables(): Uint32Array {
  const tables = new Uint32Array(16 * 256 * 4);
  const block = new Uint8Array(16);
  const view = new DataView(block.buffer);
  for (let i = 0; i < 16; i++) {
    for (let v = 0; v < 256; v++) {
      block.fill(0);
      block[i] = PI[v]!;
      linear(block);
      for (let w = 0; w < 4; w++) tables[(i * 256 + v) * 4 + w] = view.getUint32(w * 4);
    }
  }
  return tables;
}

/** The LS tables: constants of the cipher. */
const LS_TABLES = buildTables();

function writeWord(out: Uint8Array, at: number, v: number): void {
  out[at] = v >>> 24;
  out[at + 1] = (v >>> 16) & 0xff;
  out[at + 2] = (v >>> 8) & 0xff;
  out[at + 3] = v & 0xff;
}

/** A Kuznyechik key, scheduled once; encrypts blocks. */
export type { Kuznyechik };

/** Kuznyechik under `key`: OpenSSL's GOST engine where this thread has it (gost-native.ts), else the tables below. */
export function kuznyechikKey(key: Uint8Array, backend: GostBackend = gostBackend()): Kuznyechik {
  return backend.native?.kuznyechik(key) ?? new KuznyechikKey(key);
}

/** The JavaScript Kuznyechik: the fallback without the engine and the tests' oracle. */
export class KuznyechikKey implements Kuznyechik {
  /** Ten round keys, four big-endian words each. */
  readonly #roundKeys = new Uint32Array(40);
  readonly #t = LS_TABLES;
  /** Scratch: the state after the round key, as four words. */
  readonly #x = new Uint32Array(4);

  constructor(key: Uint8Array) {
    if (key.length !== KUZNYECHIK_KEY_LENGTH) throw new RangeError(`a Kuznyechik key has ${KUZNYECHIK_KEY_LENGTH} bytes, got ${key.length}`);
    const keys = new Uint8Array(160);
    keys.set(key);
    const c = new Uint8Array(16);
    const lsx = (a: Uint8Array, k: Uint8Array): void => {
      for (let i = 0; i < 16; i++) a[i] = PI[a[i]! ^ k[i]!]!;
      linear(a);
    };
    for (let j = 0; j < 4; j++) {
      let a1 = keys.slice(32 * j, 32 * j + 16);
      let a0 = keys.slice(32 * j + 16, 32 * j + 32);
      for (let i = 1; i <= 8; i++) {
        c.fill(0);
        c[15] = 8 * j + i;
        linear(c);
        const next = Uint8Array.from(a1);
        lsx(next, c);
        for (let b = 0; b < 16; b++) next[b] = next[b]! ^ a0[b]!;
        a0 = a1;
        a1 = next;
      }
      keys.set(a1, 32 * (j + 1));
      keys.set(a0, 32 * (j + 1) + 16);
    }
    const view = new DataView(keys.buffer);
    for (let w = 0; w < 40; w++) this.#roundKeys[w] = view.getUint32(w * 4);
  }

  /** Encrypts the block at `input[inOff…+16]` into `output[outOff…+16]` (they may overlap). */
  encryptBlock(input: Uint8Array, inOff: number, output: Uint8Array, outOff: number): void {
    const t = this.#t;
    const k = this.#roundKeys;
    const x = this.#x;
    let s0 = ((input[inOff]! << 24) | (input[inOff + 1]! << 16) | (input[inOff + 2]! << 8) | input[inOff + 3]!) >>> 0;
    let s1 = ((input[inOff + 4]! << 24) | (input[inOff + 5]! << 16) | (input[inOff + 6]! << 8) | input[inOff + 7]!) >>> 0;
    let s2 = ((input[inOff + 8]! << 24) | (input[inOff + 9]! << 16) | (input[inOff + 10]! << 8) | input[inOff + 11]!) >>> 0;
    let s3 = ((input[inOff + 12]! << 24) | (input[inOff + 13]! << 16) | (input[inOff + 14]! << 8) | input[inOff + 15]!) >>> 0;
    for (let r = 0; r < 36; r += 4) {
      x[0] = s0 ^ k[r]!;
      x[1] = s1 ^ k[r + 1]!;
      x[2] = s2 ^ k[r + 2]!;
      x[3] = s3 ^ k[r + 3]!;
      s0 = s1 = s2 = s3 = 0;
      // Byte i of the state selects entry (i, byte) of the LS tables: (i · 256 + byte) · 4.
      for (let i = 0; i < 16; i++) {
        const at = (i << 10) | (((x[i >>> 2]! >>> (24 - ((i & 3) << 3))) & 0xff) << 2);
        s0 ^= t[at]!;
        s1 ^= t[at + 1]!;
        s2 ^= t[at + 2]!;
        s3 ^= t[at + 3]!;
      }
    }
    s0 ^= k[36]!;
    s1 ^= k[37]!;
    s2 ^= k[38]!;
    s3 ^= k[39]!;
    writeWord(output, outOff, s0);
    writeWord(output, outOff + 4, s1);
    writeWord(output, outOff + 8, s2);
    writeWord(output, outOff + 12, s3);
  }

  /**
   * A gamma mode: each block of `data` XORed with the encryption of `register`, which
   * `advance` then moves on (given the input and output blocks just done).
   */
  private gammaMode(register: Uint8Array, data: Uint8Array, advance: (input: Uint8Array, output: Uint8Array) => void): Uint8Array {
    const gamma = new Uint8Array(KUZNYECHIK_BLOCK);
    const out = new Uint8Array(data.length);
    for (let off = 0; off < data.length; off += KUZNYECHIK_BLOCK) {
      this.encryptBlock(register, 0, gamma, 0);
      const n = Math.min(KUZNYECHIK_BLOCK, data.length - off);
      for (let i = 0; i < n; i++) out[off + i] = data[off + i]! ^ gamma[i]!;
      advance(data.subarray(off, off + n), out.subarray(off, off + n));
    }
    return out;
  }

  /** CTR (GOST R 34.13-2015 §4.4): counter IV(8) ‖ 0^64, incremented as a 128-bit big-endian integer. */
  ctr(iv: Uint8Array, data: Uint8Array): Uint8Array {
    if (iv.length !== KUZNYECHIK_BLOCK / 2) throw new RangeError(`CTR takes an ${KUZNYECHIK_BLOCK / 2}-byte IV, got ${iv.length}`);
    const counter = new Uint8Array(KUZNYECHIK_BLOCK);
    counter.set(iv);
    return this.gammaMode(counter, data, () => {
      for (let i = KUZNYECHIK_BLOCK - 1; i >= 0; i--) {
        counter[i] = (counter[i]! + 1) & 0xff;
        if (counter[i] !== 0) break;
      }
    });
  }

  /** CFB with 128-bit feedback and a 16-byte IV (GOST R 34.13-2015 §4.5, s = n, m = n), no padding. */
  cfb(direction: 'encrypt' | 'decrypt', iv: Uint8Array, data: Uint8Array): Uint8Array {
    if (iv.length !== KUZNYECHIK_BLOCK) throw new RangeError(`CFB takes a ${KUZNYECHIK_BLOCK}-byte IV, got ${iv.length}`);
    const feedback = Uint8Array.from(iv);
    // The ciphertext block feeds back: the output when encrypting, the input when decrypting.
    return this.gammaMode(feedback, data, (input, output) => feedback.set(direction === 'encrypt' ? output : input));
  }

  /** OMAC / CMAC (GOST R 34.13-2015 §4.6), the full 16-byte MAC of the concatenation of `parts`. */
  omac(...parts: readonly Uint8Array[]): Uint8Array {
    const data = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const shift = (b: Uint8Array): Uint8Array => {
      const out = new Uint8Array(KUZNYECHIK_BLOCK);
      for (let i = 0; i < KUZNYECHIK_BLOCK; i++) out[i] = ((b[i]! << 1) | (i + 1 < KUZNYECHIK_BLOCK ? b[i + 1]! >> 7 : 0)) & 0xff;
      if ((b[0]! & 0x80) !== 0) out[KUZNYECHIK_BLOCK - 1] = out[KUZNYECHIK_BLOCK - 1]! ^ 0x87;
      return out;
    };
    const r = new Uint8Array(KUZNYECHIK_BLOCK);
    this.encryptBlock(r, 0, r, 0);
    const k1 = shift(r);
    const k2 = shift(k1);
    const blocks = Math.max(1, Math.ceil(data.length / KUZNYECHIK_BLOCK));
    const complete = data.length > 0 && data.length % KUZNYECHIK_BLOCK === 0;
    const state = new Uint8Array(KUZNYECHIK_BLOCK);
    for (let b = 0; b < blocks - 1; b++) {
      const off = b * KUZNYECHIK_BLOCK;
      for (let i = 0; i < KUZNYECHIK_BLOCK; i++) state[i] = state[i]! ^ data[off + i]!;
      this.encryptBlock(state, 0, state, 0);
    }
    const last = data.subarray((blocks - 1) * KUZNYECHIK_BLOCK);
    const block = new Uint8Array(KUZNYECHIK_BLOCK);
    block.set(last);
    if (!complete) block[last.length] = 0x80;
    const k = complete ? k1 : k2;
    for (let i = 0; i < KUZNYECHIK_BLOCK; i++) state[i] = state[i]! ^ block[i]! ^ k[i]!;
    this.encryptBlock(state, 0, state, 0);
    return state;
  }
}
