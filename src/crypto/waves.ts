/**
 * The `waves` crypto type: Curve25519 keys with Ed25519-style ("XEdDSA", axlsign)
 * signatures, Blake2b-256 fast hash, Keccak256(Blake2b256) secure hash.
 *
 * Verification converts the Montgomery public key to its Edwards form once and then
 * uses native Ed25519 in node:crypto; the converted KeyObjects are cached per key and
 * sign bit. Signing needs the raw clamped scalar as the Ed25519 secret, which no
 * native API takes; its costly part, the nonce's point R = r·B, is made by native Ed25519
 * all the same (see NonceSource), the rest is a few scalar operations mod L.
 */
import { createHash, createPrivateKey, createPublicKey, randomBytes, sign as nativeSign, verify as nativeVerify, type KeyObject } from 'node:crypto';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { createBLAKE2b, createKeccak } from 'hash-wasm';
import type { CryptoSuite, KeyPair } from './suite.js';
import { bytesKey } from './encoding.js';

const P = 2n ** 255n - 19n;
const L = ed25519.Point.Fn.ORDER;
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * Curve25519 public keys the WE node refuses (CryptoAlgorithms.isWeakPublicKey): low-order
 * points and non-canonical encodings of 0 and 1. WE's comparison covers all 32 bytes, so a
 * key matches only when it is byte-for-byte one of these.
 */
const WEAK_PUBLIC_KEYS: readonly string[] = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800',
  '5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
];
const WEAK = new Set(WEAK_PUBLIC_KEYS);

export function isWeakPublicKey(publicKey: Uint8Array): boolean {
  return WEAK.has(Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('hex'));
}

function bytesToBigLE(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b).reverse().toString('hex'));
}

function bigToBytesLE(x: bigint, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

function modPow(base: bigint, exp: bigint, m: bigint): bigint {
  let result = 1n;
  base %= m;
  while (exp > 0n) {
    if (exp & 1n) result = (result * base) % m;
    base = (base * base) % m;
    exp >>= 1n;
  }
  return result;
}

/**
 * Edwards y-coordinate encoding of a Curve25519 (Montgomery u) public key, with the
 * x-sign bit taken from the signature: y = (u − 1) / (u + 1) mod p.
 * Returns null when u + 1 ≡ 0 (no Edwards point).
 */
export function montgomeryToEdwards(publicKey: Uint8Array, signBit: number): Uint8Array | null {
  const u = bytesToBigLE(publicKey) & ((1n << 255n) - 1n);
  const denominator = (u + 1n) % P;
  if (denominator === 0n) return null;
  const y = (((u - 1n + P) % P) * modPow(denominator, P - 2n, P)) % P;
  const encoded = bigToBytesLE(y, 32);
  encoded[31] = (encoded[31]! & 0x7f) | (signBit & 0x80);
  return encoded;
}

function clamp(seed: Uint8Array): Uint8Array {
  const sk = Uint8Array.from(seed);
  sk[0] = sk[0]! & 0xf8;
  sk[31] = (sk[31]! & 0x7f) | 0x40;
  return sk;
}

function sha512(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha512');
  for (const p of parts) h.update(p);
  return h.digest();
}

/**
 * Signature nonces with their points, made by native Ed25519 (RFC 8032) instead of a
 * multiplication of the base point in JavaScript (~0.3 ms of CPU; this ~0.05 ms). It holds one
 * Ed25519 key of its own, random per suite and never shown. Its native signature of a
 * message m is R‖S with R = r·B, r = SHA-512(prefix‖m) mod L secret (prefix is the key's,
 * from its seed) and S = r + k·s mod L, k = SHA-512(R‖A‖m) — everything but r known to this
 * source, so r = S − k·s mod L. Only R and a signature made with r leave the suite; the own
 * key's signature S does not.
 */
class NonceSource {
  private readonly key: KeyObject;
  /** The own key's Ed25519 public key A and secret scalar s (clamped, not reduced, as RFC 8032 uses it). */
  private readonly publicKey: Uint8Array;
  private readonly scalar: bigint;

  constructor() {
    const seed = randomBytes(32);
    this.key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    this.publicKey = createPublicKey(this.key).export({ format: 'der', type: 'spki' }).subarray(ED25519_SPKI_PREFIX.length);
    this.scalar = bytesToBigLE(clamp(sha512(seed).subarray(0, 32)));
  }

  /** A nonce r ≠ 0 derived from `message` (and the own key's secret prefix) and its point R = r·B, encoded. */
  next(message: Uint8Array): { r: bigint; R: Uint8Array } {
    for (;;) {
      const signature = nativeSign(null, message, this.key);
      const R = signature.subarray(0, 32);
      const k = bytesToBigLE(sha512(R, this.publicKey, message)) % L;
      const r = (((bytesToBigLE(signature.subarray(32)) - k * this.scalar) % L) + L) % L;
      if (r !== 0n) return { r, R: Uint8Array.from(R) };
      message = sha512(message);
    }
  }
}

/** Bounded cache of native Ed25519 keys, keyed by Curve25519 key plus sign bit. */
class EdwardsKeyCache {
  private readonly map = new Map<string, KeyObject | null>();
  constructor(private readonly capacity: number) {}

  get(publicKey: Uint8Array, signBit: number): KeyObject | null {
    const id = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('latin1') + (signBit ? '1' : '0');
    const cached = this.map.get(id);
    if (cached !== undefined) return cached;
    const key = this.convert(publicKey, signBit);
    if (this.map.size >= this.capacity) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
    this.map.set(id, key);
    return key;
  }

  private convert(publicKey: Uint8Array, signBit: number): KeyObject | null {
    const edwards = montgomeryToEdwards(publicKey, signBit);
    if (edwards === null) return null;
    try {
      return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, edwards]), format: 'der', type: 'spki' });
    } catch {
      return null;
    }
  }
}

export interface WavesSuiteOptions {
  /** How many converted public keys to keep (two entries per key at most, one per sign bit). */
  keyCacheSize?: number;
}

export async function createWavesSuite(options: WavesSuiteOptions = {}): Promise<CryptoSuite> {
  const blake = await createBLAKE2b(256);
  const keccak = await createKeccak(256);
  const keys = new EdwardsKeyCache(options.keyCacheSize ?? 100_000);
  const nonces = new NonceSource();

  const fastHash = (data: Uint8Array): Uint8Array => {
    blake.init();
    blake.update(data);
    return blake.digest('binary');
  };
  const secureHash = (data: Uint8Array): Uint8Array => {
    const first = fastHash(data);
    keccak.init();
    keccak.update(first);
    return keccak.digest('binary');
  };

  // The Edwards public point of a signing key (and, once asked for, its Curve25519 public
  // key), kept for the keys this node signs with: a miner signs every micro-block and names
  // itself as its generator, so neither scalar multiplication is repeated. No other key is kept.
  const signers = new Map<string, { a: bigint; A: Uint8Array; publicKey?: Uint8Array }>();
  const signerOf = (privateKey: Uint8Array): { a: bigint; A: Uint8Array; publicKey?: Uint8Array } => {
    const id = bytesKey(privateKey);
    let signer = signers.get(id);
    if (signer === undefined) {
      const a = bytesToBigLE(privateKey) % L;
      if (a === 0n) throw new Error('private key is a multiple of the group order');
      signer = { a, A: ed25519.Point.BASE.multiply(a).toBytes() };
      if (signers.size >= 1024) signers.clear();
      signers.set(id, signer);
    }
    return signer;
  };

  const publicKeyOf = (privateKey: Uint8Array): Uint8Array => {
    const signer = signers.get(bytesKey(privateKey));
    if (signer === undefined) return x25519.getPublicKey(privateKey);
    signer.publicKey ??= x25519.getPublicKey(privateKey);
    return Uint8Array.from(signer.publicKey);
  };

  const keyPairFromSeed32 = (seed: Uint8Array): KeyPair => {
    const privateKey = clamp(seed);
    return { privateKey, publicKey: publicKeyOf(privateKey) };
  };

  const sign = (privateKey: Uint8Array, message: Uint8Array, nonceDigest?: Uint8Array): Uint8Array => {
    if (privateKey.length !== 32) throw new Error(`private key must be 32 bytes, got ${privateKey.length}`);
    const { a, A } = signerOf(privateKey);
    const signBit = A[31]! & 0x80;
    const prefix = new Uint8Array(32).fill(0xff);
    prefix[0] = 0xfe;
    // The nonce is hedged as Curve25519's calculateSignature makes it: private key, message and
    // 64 fresh random bytes — a repeated random value (a cloned VM, a faulty generator) must
    // not give two messages the same nonce, which would reveal the key. A digest committing to
    // the message stands for it here when the caller has one (see CryptoSuite.sign).
    const { r, R } = nonces.next(sha512(prefix, privateKey, nonceDigest ?? message, randomBytes(64)));
    const k = bytesToBigLE(sha512(R, A, message)) % L;
    const S = (r + k * a) % L;
    const signature = new Uint8Array(64);
    signature.set(R, 0);
    signature.set(bigToBytesLE(S, 32), 32);
    signature[63] = signature[63]! | signBit;
    return signature;
  };

  const verify = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean => {
    if (publicKey.length !== 32 || signature.length !== 64) return false;
    if (isWeakPublicKey(publicKey)) return false;
    const key = keys.get(publicKey, signature[63]! & 0x80);
    if (key === null) return false;
    const sig = Buffer.from(signature);
    sig[63] = sig[63]! & 0x7f;
    try {
      return nativeVerify(null, message, key, sig);
    } catch {
      return false;
    }
  };

  return {
    type: 'waves',
    publicKeyLength: 32,
    privateKeyLength: 32,
    signatureLength: 64,
    digestLength: 32,
    fastHash,
    secureHash,
    keyPairFromSeedPhrase(phrase: string): KeyPair {
      const seedBytes = Buffer.from(phrase, 'utf8');
      const withNonce = new Uint8Array(4 + seedBytes.length);
      withNonce.set(seedBytes, 4);
      const seed32 = createHash('sha256').update(secureHash(withNonce)).digest();
      return keyPairFromSeed32(seed32);
    },
    generateKeyPair(): KeyPair {
      for (;;) {
        const pair = keyPairFromSeed32(randomBytes(32));
        if (!isWeakPublicKey(pair.publicKey)) return pair;
      }
    },
    publicKeyOf,
    sign,
    verify,
  };
}
