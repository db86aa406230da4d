/**
 * `/crypto/*` encryption of a GOST network (`cryptoAlgo` `gost-3412-2015-k`), after WE's
 * historical GOST node (reference privacy-crypto-pki.md §5.3):
 *
 *   CEK          32 random bytes (a Kuznyechik key); content IV 16 random bytes
 *   ciphertext   Kuznyechik (GOST R 34.12-2015) CFB, 128-bit feedback, no padding
 *                (same length as the plaintext)
 *   per recipient:
 *     UKM        32 random bytes
 *     KEK        VKO GOST R 34.10-2012 256 (RFC 7836): Streebog-256 of the point
 *                (UKM[0..16] as a little-endian integer · own private key) · peer public key
 *     Kmac‖Kexp  KDF_TREE_GOSTR3411_2012_256(KEK, label "kdf tree", seed = UKM[16..24], R = 1, L = 512)
 *                (R 50.1.113-2016 §4.5)
 *     wrapped    KExp15 (R 1323565.1.017-2018): Kuznyechik-CTR(Kexp, IV = UKM[24..32],
 *                CEK ‖ OMAC(Kmac, IV ‖ CEK)) — 48 bytes
 *     structure  reverse(UKM[0..16]) ‖ content IV ‖ UKM[24..32] ‖ UKM[16..24] ‖ wrapped = 96 bytes
 *
 * Decryption recomputes the KEK from the other side's keys (VKO is symmetric), unwraps the
 * CEK, checks its OMAC and decrypts. WE's closed node used CryptoPro JCP here; how JCP's
 * KEXP_2015_K_EXPORT derives Kexp/Kmac is not public, so this is the standard construction
 * the reference infers: sizes and layout match, byte compatibility with a WE GOST node is
 * unverified. Streebog and the curve arithmetic are @wavesenterprise/crypto-gost-js's; the
 * block cipher and its modes are kuznyechik.ts's (the library's CTR for 128-bit blocks
 * carries its counter wrongly, and it is slow); HMAC and KDF_TREE are the standard
 * constructions. Each mode is cross-checked against OpenSSL's GOST engine in the tests.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import gostPkg from '@wavesenterprise/crypto-gost-js/dist/CryptoGost.js';
import { createStreebog256, GOST_SIGN_ALGORITHM } from './gost.js';
import { kuznyechikKey } from './kuznyechik.js';
import { InternalError } from '../errors/internal.js';

interface GostDh {
  deriveKey(privateKey: ArrayBuffer): ArrayBuffer;
}
const { GostEngine } = gostPkg as {
  GostEngine: { getGostSign(a: Record<string, unknown>): GostDh };
};

export const WRAPPED_STRUCTURE_LENGTH = 96;
/** A wrapped CEK without the content IV: agreementIV(16) ‖ expUKM(8) ‖ extendedUKM(8) ‖ KExp15(48). */
export const WRAPPED_KEY_HEADER_LENGTH = 80;
const BLOCK = 16;

/** WE's `Error in encrypt` / `Error in decrypt`, with the reason. */
export class GostEncryptionError extends InternalError {
  override readonly name = 'GostEncryptionError';
}

/** Runs `f`, turning a GostEncryptionError into the error `failure` makes of its message (WE's typed failures). */
export function withGostFailure<T>(f: () => T, failure: (message: string) => Error): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof GostEncryptionError) throw failure(e.message);
    throw e;
  }
}

const ab = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/** Kuznyechik and the standard modes over it, keyed per call (kuznyechik.ts has the cipher). */
export class Kuznyechik {
  /** One block. */
  encryptBlock(key: Uint8Array, block: Uint8Array): Uint8Array {
    const out = new Uint8Array(BLOCK);
    kuznyechikKey(key).encryptBlock(block, 0, out, 0);
    return out;
  }

  /** CFB with 128-bit feedback (GOST R 34.13-2015 §4.5, s = n), no padding. */
  cfbEncrypt(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
    return kuznyechikKey(key).cfb('encrypt', iv, data);
  }

  cfbDecrypt(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
    return kuznyechikKey(key).cfb('decrypt', iv, data);
  }

  /** CTR (GOST R 34.13-2015 §4.4): counter IV(8) ‖ 0^64, incremented as a 128-bit big-endian integer. */
  ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
    return kuznyechikKey(key).ctr(iv, data);
  }

  /** OMAC / CMAC (GOST R 34.13-2015 §4.6), full 16-byte MAC. */
  omac(key: Uint8Array, data: Uint8Array): Uint8Array {
    return kuznyechikKey(key).omac(data);
  }
}

/** HMAC_GOSTR3411_2012_256 (RFC 7836 §4.1.1): HMAC over Streebog-256, 64-byte blocks. */
export function hmacStreebog256(streebog: (d: Uint8Array) => Uint8Array, key: Uint8Array, data: Uint8Array): Uint8Array {
  const k = new Uint8Array(64);
  k.set(key.length > 64 ? streebog(key) : key);
  const inner = new Uint8Array(64 + data.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) {
    inner[i] = k[i]! ^ 0x36;
    outer[i] = k[i]! ^ 0x5c;
  }
  inner.set(data, 64);
  outer.set(streebog(inner), 64);
  return streebog(outer);
}

/** KDF_TREE_GOSTR3411_2012_256 (R 50.1.113-2016 §4.5) with a one-byte counter: `length` bytes (a multiple of 32). */
export function kdfTree(streebog: (d: Uint8Array) => Uint8Array, key: Uint8Array, label: Uint8Array, seed: Uint8Array, length: number): Uint8Array {
  const bits = length * 8;
  const lengthBytes: number[] = [];
  for (let v = bits; v > 0; v >>= 8) lengthBytes.unshift(v & 0xff);
  const out = new Uint8Array(length);
  for (let i = 1; (i - 1) * 32 < length; i++) {
    const input = Uint8Array.from([i, ...label, 0x00, ...seed, ...lengthBytes]);
    out.set(hmacStreebog256(streebog, key, input).subarray(0, Math.min(32, length - (i - 1) * 32)), (i - 1) * 32);
  }
  return out;
}

/**
 * VKO GOST R 34.10-2012 256 (RFC 7836 §4.3.1) on the CryptoPro-A curve: Streebog-256 of
 * x‖y (little-endian) of (UKM · privateKey mod q) · peerPublicKey, UKM a little-endian integer.
 */
export function vkoGost2012_256(privateKey: Uint8Array, peerPublicKey: Uint8Array, ukm: Uint8Array): Uint8Array {
  if (peerPublicKey.length !== 64) throw new GostEncryptionError(`a GOST public key has 64 bytes, got ${peerPublicKey.length}`);
  if (privateKey.length !== 32) throw new GostEncryptionError(`a GOST private key has 32 bytes, got ${privateKey.length}`);
  const dh = GostEngine.getGostSign({ ...GOST_SIGN_ALGORITHM, mode: 'DH', ukm: ab(ukm), public: ab(peerPublicKey) });
  return new Uint8Array(dh.deriveKey(ab(privateKey)));
}

export interface SeparateCiphertext {
  readonly recipientPublicKey: Uint8Array;
  readonly ciphertext: Uint8Array;
  /** The 96-byte wrapped structure. */
  readonly wrappedKey: Uint8Array;
}

export interface CommonCiphertext {
  readonly ciphertext: Uint8Array;
  readonly wrappedKeys: ReadonlyArray<{ readonly recipientPublicKey: Uint8Array; readonly wrappedKey: Uint8Array }>;
}

export interface GostEncryption {
  /** One CEK and ciphertext per recipient, in the order given. */
  encryptSeparate(senderPrivateKey: Uint8Array, plaintext: Uint8Array, recipientPublicKeys: readonly Uint8Array[]): SeparateCiphertext[];
  /** One CEK and ciphertext for all, wrapped for each recipient; an empty list is refused. */
  encryptCommon(senderPrivateKey: Uint8Array, plaintext: Uint8Array, recipientPublicKeys: readonly Uint8Array[]): CommonCiphertext;
  decrypt(recipientPrivateKey: Uint8Array, senderPublicKey: Uint8Array, ciphertext: Uint8Array, wrappedKey: Uint8Array): Uint8Array;
  /** A 32-byte CEK wrapped for one recipient, without a content IV: agreementIV ‖ expUKM ‖ extendedUKM ‖ KExp15 (80 bytes). */
  wrapKey(senderPrivateKey: Uint8Array, recipientPublicKey: Uint8Array, cek: Uint8Array): Uint8Array;
  /** The CEK of a wrapKey header; GostEncryptionError when it does not verify. */
  unwrapKey(recipientPrivateKey: Uint8Array, senderPublicKey: Uint8Array, header: Uint8Array): Uint8Array;
}

const KDF_LABEL = new Uint8Array(Buffer.from('kdf tree', 'latin1'));

export function createGostEncryption(random: (n: number) => Uint8Array = (n) => new Uint8Array(randomBytes(n))): GostEncryption {
  const streebog = createStreebog256();
  const kuz = new Kuznyechik();

  const kek = vkoGost2012_256;

  const keys = (k: Uint8Array, extendedUkm: Uint8Array): { mac: Uint8Array; exp: Uint8Array } => {
    const both = kdfTree(streebog, k, KDF_LABEL, extendedUkm, 64);
    return { mac: both.subarray(0, 32), exp: both.subarray(32) };
  };

  /** agreementIV(16) ‖ expUKM(8) ‖ extendedUKM(8) ‖ KExp15 wrapped CEK(48): the CEK wrapped for one recipient. */
  const wrapKey = (senderPrivateKey: Uint8Array, recipientPublicKey: Uint8Array, cek: Uint8Array): Uint8Array => {
    const ukm = random(32);
    if (ukm.subarray(0, 16).every((b) => b === 0)) ukm[0] = 1; // VKO needs a non-zero UKM
    const { mac, exp } = keys(kek(senderPrivateKey, recipientPublicKey, ukm.subarray(0, 16)), ukm.subarray(16, 24));
    const iv = ukm.subarray(24, 32);
    const wrapped = kuz.ctr(exp, iv, Buffer.concat([cek, kuz.omac(mac, Buffer.concat([iv, cek]))]));
    return Buffer.concat([Uint8Array.from(ukm.subarray(0, 16)).reverse(), iv, ukm.subarray(16, 24), wrapped]);
  };

  /** The CEK inside what wrapKey made, checked by its OMAC. */
  const unwrapKey = (recipientPrivateKey: Uint8Array, senderPublicKey: Uint8Array, header: Uint8Array): Uint8Array => {
    if (header.length !== WRAPPED_KEY_HEADER_LENGTH)
      throw new GostEncryptionError(`Error in decrypt: the key header has ${header.length} bytes, expected ${WRAPPED_KEY_HEADER_LENGTH}`);
    const ukmHead = Uint8Array.from(header.subarray(0, 16)).reverse();
    const iv = header.subarray(16, 24);
    const extendedUkm = header.subarray(24, 32);
    const { mac, exp } = keys(kek(recipientPrivateKey, senderPublicKey, ukmHead), extendedUkm);
    const unwrapped = kuz.ctr(exp, iv, header.subarray(32));
    const cek = unwrapped.subarray(0, 32);
    if (!timingSafeEqual(kuz.omac(mac, Buffer.concat([iv, cek])), unwrapped.subarray(32))) {
      throw new GostEncryptionError('Error in decrypt: the wrapped key does not verify (wrong keys or altered data)');
    }
    return Uint8Array.from(cek);
  };

  /** The 96-byte structure: agreementIV ‖ content IV ‖ expUKM ‖ extendedUKM ‖ wrapped CEK. */
  const wrap = (senderPrivateKey: Uint8Array, recipientPublicKey: Uint8Array, cek: Uint8Array, contentIv: Uint8Array): Uint8Array => {
    const header = wrapKey(senderPrivateKey, recipientPublicKey, cek);
    return Buffer.concat([header.subarray(0, 16), contentIv, header.subarray(16)]);
  };

  const encrypt = (plaintext: Uint8Array): { cek: Uint8Array; iv: Uint8Array; ciphertext: Uint8Array } => {
    const cek = random(32);
    const iv = random(16);
    return { cek, iv, ciphertext: kuz.cfbEncrypt(cek, iv, plaintext) };
  };

  const guarded = <T>(what: 'encrypt' | 'decrypt', f: () => T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof GostEncryptionError) throw e;
      throw new GostEncryptionError(`Error in ${what}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  return {
    encryptSeparate: (senderPrivateKey, plaintext, recipientPublicKeys) =>
      guarded('encrypt', () =>
        recipientPublicKeys.map((recipientPublicKey) => {
          const { cek, iv, ciphertext } = encrypt(plaintext);
          return { recipientPublicKey, ciphertext, wrappedKey: wrap(senderPrivateKey, recipientPublicKey, cek, iv) };
        }),
      ),
    encryptCommon: (senderPrivateKey, plaintext, recipientPublicKeys) =>
      guarded('encrypt', () => {
        if (recipientPublicKeys.length === 0) throw new GostEncryptionError('Cannot encrypt for an empty list of recipients');
        const { cek, iv, ciphertext } = encrypt(plaintext);
        return {
          ciphertext,
          wrappedKeys: recipientPublicKeys.map((recipientPublicKey) => ({
            recipientPublicKey,
            wrappedKey: wrap(senderPrivateKey, recipientPublicKey, cek, iv),
          })),
        };
      }),
    decrypt: (recipientPrivateKey, senderPublicKey, ciphertext, wrappedKey) =>
      guarded('decrypt', () => {
        if (wrappedKey.length !== WRAPPED_STRUCTURE_LENGTH)
          throw new GostEncryptionError(`Error in decrypt: the wrapped key has ${wrappedKey.length} bytes, expected ${WRAPPED_STRUCTURE_LENGTH}`);
        const contentIv = wrappedKey.subarray(16, 32);
        const cek = unwrapKey(recipientPrivateKey, senderPublicKey, Buffer.concat([wrappedKey.subarray(0, 16), wrappedKey.subarray(32)]));
        return kuz.cfbDecrypt(cek, contentIv, ciphertext);
      }),
    wrapKey: (senderPrivateKey, recipientPublicKey, cek) => guarded('encrypt', () => wrapKey(senderPrivateKey, recipientPublicKey, cek)),
    unwrapKey: (recipientPrivateKey, senderPublicKey, header) => guarded('decrypt', () => unwrapKey(recipientPrivateKey, senderPublicKey, header)),
  };
}
