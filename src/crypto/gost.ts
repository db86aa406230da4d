/**
 * The `gost` crypto type, as the official GOST-capable clients implement it
 * (signature-generator ≤ 2.3.2 over @wavesenterprise/crypto-gost-js 2.1.0-RC1):
 * Streebog-256 as both fast and secure hash; GOST R 34.10-2012 (256) signatures on the
 * CryptoPro-A curve with Streebog-256 digests; 64-byte public keys (x‖y little-endian);
 * 64-byte signatures. The node-side GOST provider of WE is closed source; this follows
 * the wire contract those clients assume. Streebog, key derivation and the block cipher are
 * the library's; signing and verification run on @noble/curves' Weierstrass arithmetic
 * (the library's pure-JS big integers made them the bottleneck of a GOST network).
 *
 * Where OpenSSL's GOST engine is present (gost-native.ts), signing, verification and Streebog
 * run on it instead, with the same bytes and verdicts; `javascriptGost` keeps the JavaScript
 * for the fallback and as the oracle the tests hold the native one to.
 */
import { randomBytes } from 'node:crypto';
import gostPkg from '@wavesenterprise/crypto-gost-js/dist/CryptoGost.js';
import { weierstrass } from '@noble/curves/abstract/weierstrass.js';
import type { CryptoSuite, KeyPair } from './suite.js';
import { gostBackend, type GostBackend } from './gost-native.js';
import { GOST_256_CURVES as CURVES, type Gost256Curve } from './gost-curves.js';

export type { Gost256Curve };

interface GostDigest {
  digest(data: Uint8Array | ArrayBuffer): ArrayBuffer;
}
interface GostSign {
  generateKey(): { privateKey: ArrayBuffer; publicKey: ArrayBuffer };
  sign(privateKey: ArrayBuffer, data: Uint8Array | ArrayBuffer): ArrayBuffer;
  verify(publicKey: ArrayBuffer | Uint8Array, signature: ArrayBuffer | Uint8Array, data: Uint8Array | ArrayBuffer): boolean;
}
interface GostEngineApi {
  getGostDigest(algorithm: Record<string, unknown>): GostDigest;
  getGostSign(algorithm: Record<string, unknown>): GostSign;
}

const { GostEngine } = gostPkg as { GostEngine: GostEngineApi };

const STREEBOG_256 = { name: 'GOST R 34.11', version: 2012, mode: 'HASH', length: 256, procreator: 'CP', keySize: 32 };
/** The library's algorithm object of WE's GOST signatures (GOST R 34.10-2012 256, CryptoPro-A, Streebog-256); `mode: 'DH'` gives VKO. */
export const GOST_SIGN_ALGORITHM: Readonly<Record<string, unknown>> = {
  name: 'GOST R 34.10',
  version: 2012,
  mode: 'SIGN',
  length: 256,
  procreator: 'CP',
  keySize: 32,
  namedCurve: 'S-256-A',
  hash: STREEBOG_256,
  id: 'id-tc26-gost3410-12-256',
};

/** A GOST R 34.10-2012 (256-bit, Streebog-256 digest) verifier on a curve: false for anything malformed, never throws. */
export type Gost256Verify = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;

const leInt = (b: Uint8Array): bigint => {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return v;
};
const beInt = (b: Uint8Array): bigint => {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
};

/**
 * GOST R 34.10-2012 (256) verification (GOST R 34.10-2012 §6.2) as WE's clients sign: the
 * digest is Streebog-256 read as a little-endian integer, the signature s‖r big-endian, the key
 * x‖y little-endian. The curve arithmetic is @noble/curves' (about 4× the pure-JS arithmetic of
 * crypto-gost-js, which makes a GOST network's throughput); tests check it gives the library's
 * verdict on valid, altered and random signatures.
 */
function createJsGost256Verifier(curve: Gost256Curve): Gost256Verify {
  const Point = weierstrass(CURVES[curve]);
  Point.BASE.precompute(8);
  const q = Point.Fn.ORDER;
  const streebog = createStreebog256();
  return (publicKey, message, signature) => {
    if (publicKey.length !== 64 || signature.length !== 64) return false;
    const s = beInt(signature.subarray(0, 32));
    const r = beInt(signature.subarray(32));
    if (r <= 0n || r >= q || s <= 0n || s >= q) return false;
    try {
      const Q = Point.fromAffine({ x: leInt(publicKey.subarray(0, 32)), y: leInt(publicKey.subarray(32)) });
      Q.assertValidity();
      let e = leInt(streebog(message)) % q;
      if (e === 0n) e = 1n;
      const v = Point.Fn.inv(e);
      const C = Point.BASE.multiplyUnsafe((s * v) % q).add(Q.multiplyUnsafe(q - ((r * v) % q)));
      return C.toAffine().x % q === r;
    } catch {
      return false;
    }
  };
}

const be32 = (v: bigint): Buffer => Buffer.from(v.toString(16).padStart(64, '0'), 'hex');

/**
 * GOST R 34.10-2012 (256) signing on the CryptoPro-A curve (GOST R 34.10-2012 §6.1), in the
 * clients' conventions (see createGost256Verifier): k uniformly random in [1, q−1] (32 random
 * bytes reduced mod q, q within 2^-128 of 2^256), C = k·G with @noble/curves' constant-time
 * multiplication, r = x(C) mod q, s = (r·d + k·e) mod q, answer s‖r big-endian.
 */
function createJsGost256Signer(random: (n: number) => Uint8Array = (n) => randomBytes(n)): (privateKey: Uint8Array, message: Uint8Array) => Uint8Array {
  const Point = weierstrass(CURVES['S-256-A']);
  Point.BASE.precompute(8);
  const q = Point.Fn.ORDER;
  const streebog = createStreebog256();
  return (privateKey, message) => {
    if (privateKey.length !== 32) throw new RangeError(`a GOST private key has 32 bytes, got ${privateKey.length}`);
    const d = leInt(privateKey) % q;
    if (d === 0n) throw new RangeError('the GOST private key is zero');
    let e = leInt(streebog(message)) % q;
    if (e === 0n) e = 1n;
    for (;;) {
      const k = leInt(random(32)) % q;
      if (k === 0n) continue;
      const r = Point.BASE.multiply(k).toAffine().x % q;
      if (r === 0n) continue;
      const s = (r * d + k * e) % q;
      if (s === 0n) continue;
      return new Uint8Array(Buffer.concat([be32(s), be32(r)]));
    }
  };
}

function toArrayBuffer(b: Uint8Array): ArrayBuffer {
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}

function createJsStreebog256(): (data: Uint8Array) => Uint8Array {
  const digest = GostEngine.getGostDigest(STREEBOG_256);
  return (data) => new Uint8Array(digest.digest(data));
}

/** The JavaScript implementations: the fallback without the engine, and the tests' oracle. */
export const javascriptGost = {
  verifier: createJsGost256Verifier,
  signer: createJsGost256Signer,
  streebog256: createJsStreebog256,
} as const;

/** A GOST R 34.10-2012 (256) verifier on a curve: native where this thread has the engine (gost-native.ts). */
export function createGost256Verifier(curve: Gost256Curve, backend: GostBackend = gostBackend()): Gost256Verify {
  return backend.native?.verifier(curve) ?? createJsGost256Verifier(curve);
}

/** Streebog-256 (GOST R 34.11-2012), output in the common (OpenSSL) byte order; native where the engine is. */
export function createStreebog256(backend: GostBackend = gostBackend()): (data: Uint8Array) => Uint8Array {
  return backend.native?.streebog256 ?? createJsStreebog256();
}

/** GOST signing on the CryptoPro-A curve (see createJsGost256Signer); native where the engine is. */
export function createGost256Signer(backend: GostBackend = gostBackend()): (privateKey: Uint8Array, message: Uint8Array) => Uint8Array {
  const native = backend.native;
  if (native === undefined) return createJsGost256Signer();
  const q = CURVES['S-256-A'].n;
  return (privateKey, message) => {
    if (privateKey.length !== 32) throw new RangeError(`a GOST private key has 32 bytes, got ${privateKey.length}`);
    const value = leInt(privateKey);
    const d = value % q;
    if (d === 0n) throw new RangeError('the GOST private key is zero');
    return native.sign(d === value ? privateKey : be32(d).reverse(), message);
  };
}

/** The GOST suite on this thread's backend (native or JavaScript, see gost-native.ts). */
export function createGostSuite(backend: GostBackend = gostBackend()): Promise<CryptoSuite> {
  const streebog = createStreebog256(backend);
  const verify = createGost256Verifier('S-256-A', backend);
  const sign = createGost256Signer(backend);

  /** Key pair from a 32-byte ukm: d = ukm (little-endian), Q = d·G. */
  const keyPairFromUkm = (ukm: Uint8Array): KeyPair => {
    const keys = GostEngine.getGostSign({ ...GOST_SIGN_ALGORITHM, ukm: toArrayBuffer(ukm) }).generateKey();
    return { privateKey: new Uint8Array(keys.privateKey), publicKey: new Uint8Array(keys.publicKey) };
  };

  const suite: CryptoSuite = {
    type: 'gost',
    publicKeyLength: 64,
    privateKeyLength: 32,
    signatureLength: 64,
    digestLength: 32,
    fastHash: streebog,
    secureHash: streebog,
    keyPairFromSeedPhrase(phrase: string): KeyPair {
      const seed = Buffer.from(phrase, 'utf8');
      const withNonce = new Uint8Array(4 + seed.length);
      withNonce.set(seed, 4);
      return keyPairFromUkm(streebog(withNonce));
    },
    generateKeyPair(): KeyPair {
      return keyPairFromUkm(randomBytes(32));
    },
    publicKeyOf(privateKey: Uint8Array): Uint8Array {
      return keyPairFromUkm(privateKey).publicKey;
    },
    sign,
    verify,
  };
  return Promise.resolve(suite);
}
