/**
 * The `gost` crypto type, as the official GOST-capable clients implement it
 * (signature-generator ≤ 2.3.2 over @wavesenterprise/crypto-gost-js 2.1.0-RC1):
 * Streebog-256 as both fast and secure hash; GOST R 34.10-2012 (256) signatures on the
 * CryptoPro-A curve with Streebog-256 digests; 64-byte public keys (x‖y little-endian);
 * 64-byte signatures. The node-side GOST provider of WE is closed source; this follows
 * the wire contract those clients assume.
 */
import { randomBytes } from 'node:crypto';
import gostPkg from '@wavesenterprise/crypto-gost-js/dist/CryptoGost.js';
import type { CryptoSuite, KeyPair } from './suite.js';

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

/** The GOST R 34.10-2012 (256) curves the library has, by its names. */
export type Gost256Curve = 'S-256-A' | 'S-256-B' | 'S-256-C';

/** A GOST R 34.10-2012 (256-bit, Streebog-256 digest) verifier on a curve: false for anything malformed, never throws. */
export type Gost256Verify = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;

export function createGost256Verifier(curve: Gost256Curve): Gost256Verify {
  const verifier = GostEngine.getGostSign({ ...GOST_SIGN_ALGORITHM, namedCurve: curve });
  return (publicKey, message, signature) => {
    if (publicKey.length !== 64 || signature.length !== 64) return false;
    try {
      return verifier.verify(toArrayBuffer(publicKey), toArrayBuffer(signature), message);
    } catch {
      return false;
    }
  };
}

/** The client retries signing this many times (a rare branch of the library can throw). */
const MAX_SIGN_ATTEMPTS = 20;

function toArrayBuffer(b: Uint8Array): ArrayBuffer {
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}

/** Streebog-256 (GOST R 34.11-2012), output in the common (OpenSSL) byte order. */
export function createStreebog256(): (data: Uint8Array) => Uint8Array {
  const digest = GostEngine.getGostDigest(STREEBOG_256);
  return (data) => new Uint8Array(digest.digest(data));
}

export function createGostSuite(): Promise<CryptoSuite> {
  const streebog = createStreebog256();
  const verify = createGost256Verifier('S-256-A');

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
    sign(privateKey: Uint8Array, message: Uint8Array): Uint8Array {
      const signer = GostEngine.getGostSign(GOST_SIGN_ALGORITHM);
      let lastError: unknown;
      for (let attempt = 0; attempt < MAX_SIGN_ATTEMPTS; attempt++) {
        try {
          return new Uint8Array(signer.sign(toArrayBuffer(privateKey), message));
        } catch (e) {
          lastError = e;
        }
      }
      throw lastError instanceof Error ? lastError : new Error('GOST signing failed');
    },
    verify,
  };
  return Promise.resolve(suite);
}
