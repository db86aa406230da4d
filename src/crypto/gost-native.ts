/**
 * GOST at native speed: the OpenSSL GOST engine (Debian's `libengine-gost-openssl`, gost.so)
 * loaded into Node's own OpenSSL. With it, GOST R 34.10-2012 (256) signing and verification,
 * Streebog-256 and Kuznyechik run in C — about 15× the JavaScript arithmetic of gost.ts for
 * verification, 5–8× for hashing and the cipher. The JavaScript implementations stay: they are
 * the fallback where the engine is missing and the oracle the tests hold this one to.
 *
 * Each thread (the node's and every verifier thread's) calls nativeGost() once; the engine is
 * process-wide in OpenSSL, so a thread that finds its digest already present uses it, and
 * otherwise loads it from WEFT_GOST_ENGINE (a path to gost.so, or `js` to keep JavaScript) or
 * the usual library directories. A self-test against fixed vectors decides: an engine that
 * gives any answer other than the JavaScript's is not used.
 *
 * Verdicts are the JavaScript verifier's exactly: the same length, range (r, s in [1, q−1];
 * key coordinates below p) and curve checks before OpenSSL sees the key, which it then
 * checks again itself.
 */
import * as nodeCrypto from 'node:crypto';
import { existsSync } from 'node:fs';
import { GOST_256_CURVES, type Gost256Curve } from './gost-curves.js';
import { integer, octetString, oid, sequence, tlv, Tag } from './pki/der.js';

/** The OpenSSL names of what the engine serves. */
const STREEBOG_256 = 'md_gost12_256';
const KUZNYECHIK_CTR = 'kuznyechik-ctr';
const KUZNYECHIK_CFB = 'kuznyechik-cfb';
const KUZNYECHIK_CBC = 'kuznyechik-cbc';
const KUZNYECHIK_ECB = 'kuznyechik-ecb';
const BLOCK = 16;

/** A curve's bounds as the range checks read them: p and q, 32 bytes big-endian. */
interface CurveBounds {
  readonly p: Buffer;
  readonly q: Buffer;
  /** The key algorithm identifier (DER) of a key on the curve: GOST R 34.10-2012 256, its paramset, Streebog-256. */
  readonly algorithm: Uint8Array;
}

const hex = (s: string): Buffer => Buffer.from(s, 'hex');
const be32 = (v: bigint): Buffer => Buffer.from(v.toString(16).padStart(64, '0'), 'hex');
const boundsOf = (curve: Gost256Curve): CurveBounds => {
  const c = GOST_256_CURVES[curve];
  return { p: be32(c.p), q: be32(c.n), algorithm: sequence(oid(GOST_2012_256), sequence(oid(c.paramSet), oid(STREEBOG_256_OID))) };
};

/** id-tc26-gost3410-12-256 and id-tc26-gost3411-12-256. */
const GOST_2012_256 = '1.2.643.7.1.1.1.1';
const STREEBOG_256_OID = '1.2.643.7.1.1.2.2';

/** A 32-byte big-endian value strictly between 0 and `bound`. */
function inOpenRange(value: Uint8Array, bound: Buffer): boolean {
  let nonzero = false;
  for (let i = 0; i < 32; i++) {
    const v = value[i]!;
    if (v !== 0) nonzero = true;
    if (v !== bound[i]) return v < bound[i]! && (nonzero || value.subarray(i + 1, 32).some((b) => b !== 0));
  }
  return false;
}

/** A 32-byte little-endian coordinate below p. */
function belowP(le: Uint8Array, p: Buffer): boolean {
  for (let i = 0; i < 32; i++) {
    const b = le[31 - i]!;
    if (b !== p[i]) return b < p[i]!;
  }
  return false;
}

/** The native GOST primitives, byte for byte those of the JavaScript in gost.ts and kuznyechik.ts. */
export interface NativeGost {
  /** Where the engine came from, for the node's start-up line. */
  readonly source: string;
  readonly streebog256: (data: Uint8Array) => Uint8Array;
  /** A verifier on a curve: (x‖y little-endian key, message, s‖r big-endian signature) → verdict; never throws. */
  verifier(curve: Gost256Curve): (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;
  /** Signing on the CryptoPro-A curve with a 32-byte little-endian private key already reduced mod q and nonzero. */
  sign(privateKey: Uint8Array, message: Uint8Array): Uint8Array;
  kuznyechik(key: Uint8Array): Kuznyechik;
}

/** Kuznyechik under one key and the GOST R 34.13-2015 modes Weft uses: native here, kuznyechik.ts's tables in JavaScript. */
export interface Kuznyechik {
  /** Encrypts the block at `input[inOff…+16]` into `output[outOff…+16]` (they may overlap). */
  encryptBlock(input: Uint8Array, inOff: number, output: Uint8Array, outOff: number): void;
  /** CTR (GOST R 34.13-2015 §4.4): counter IV(8) ‖ 0^64, incremented as a 128-bit big-endian integer. */
  ctr(iv: Uint8Array, data: Uint8Array): Uint8Array;
  /** CFB with 128-bit feedback and a 16-byte IV (GOST R 34.13-2015 §4.5, s = n, m = n), no padding. */
  cfb(direction: 'encrypt' | 'decrypt', iv: Uint8Array, data: Uint8Array): Uint8Array;
  /** OMAC / CMAC (GOST R 34.13-2015 §4.6), the full 16-byte MAC of the concatenation of `parts`. */
  omac(...parts: readonly Uint8Array[]): Uint8Array;
}

/** Which GOST implementation this thread runs, and why. */
export interface GostBackend {
  readonly native: NativeGost | undefined;
  /** One line for the log: "native (OpenSSL GOST engine …)" or "JavaScript (…why)". */
  readonly description: string;
}

const ENGINE_DIRS = [
  '/usr/lib/x86_64-linux-gnu/engines-3',
  '/usr/lib/aarch64-linux-gnu/engines-3',
  '/usr/lib64/engines-3',
  '/usr/lib/engines-3',
  '/usr/local/lib/engines-3',
  '/usr/local/lib64/engines-3',
];

function digestPresent(): boolean {
  try {
    nodeCrypto.createHash(STREEBOG_256);
    return true;
  } catch {
    return false;
  }
}

/** Loads the engine into this process unless a thread already did; the path it came from, or why not. */
function loadEngine(env: NodeJS.ProcessEnv): { ok: true; source: string } | { ok: false; why: string } {
  const setting = env.WEFT_GOST_ENGINE?.trim();
  if (setting === 'js') return { ok: false, why: 'WEFT_GOST_ENGINE=js' };
  // A thread after the first finds the engine in place (OpenSSL's engines are the process's).
  if (digestPresent()) return { ok: true, source: 'loaded in this process' };
  const candidates =
    setting !== undefined && setting !== ''
      ? [setting]
      : [...(env.OPENSSL_ENGINES !== undefined ? [`${env.OPENSSL_ENGINES}/gost.so`] : []), ...ENGINE_DIRS.map((d) => `${d}/gost.so`)];
  const tried: string[] = [];
  for (const path of candidates) {
    if (!existsSync(path)) {
      tried.push(`${path} (absent)`);
      continue;
    }
    try {
      const c = nodeCrypto.constants;
      nodeCrypto.setEngine(path, c.ENGINE_METHOD_DIGESTS | c.ENGINE_METHOD_CIPHERS | c.ENGINE_METHOD_PKEY_METHS | c.ENGINE_METHOD_PKEY_ASN1_METHS);
    } catch (e) {
      // Another thread may have loaded it meanwhile: OpenSSL then refuses a second load of the same engine.
      if (digestPresent()) return { ok: true, source: path };
      tried.push(`${path} (${(e as Error).message})`);
      continue;
    }
    if (digestPresent()) return { ok: true, source: path };
    tried.push(`${path} (loaded, but it serves no Streebog)`);
  }
  return { ok: false, why: `no OpenSSL GOST engine: ${tried.join('; ')}` };
}

/** Bounded cache of key objects; cleared whole when full (a network has far fewer signers). */
class KeyCache {
  readonly #keys = new Map<string, nodeCrypto.KeyObject>();
  constructor(private readonly limit: number) {}
  get(id: string, make: () => nodeCrypto.KeyObject): nodeCrypto.KeyObject {
    let key = this.#keys.get(id);
    if (key === undefined) {
      key = make();
      if (this.#keys.size >= this.limit) this.#keys.clear();
      this.#keys.set(id, key);
    }
    return key;
  }
}

function createNative(source: string): NativeGost {
  const publicKeys = new KeyCache(16_384);
  const privateKeys = new KeyCache(256);
  const hashOnce: (data: Uint8Array) => Buffer =
    typeof nodeCrypto.hash === 'function'
      ? (data) => nodeCrypto.hash(STREEBOG_256, data, 'buffer')
      : (data) => nodeCrypto.createHash(STREEBOG_256).update(data).digest();

  const verifier = (curve: Gost256Curve) => {
    const bounds = boundsOf(curve);
    const prefix = `${curve}:`;
    return (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean => {
      if (publicKey.length !== 64 || signature.length !== 64) return false;
      if (!inOpenRange(signature.subarray(0, 32), bounds.q) || !inOpenRange(signature.subarray(32), bounds.q)) return false;
      if (!belowP(publicKey.subarray(0, 32), bounds.p) || !belowP(publicKey.subarray(32), bounds.p)) return false;
      try {
        const key = publicKeys.get(prefix + Buffer.from(publicKey.buffer, publicKey.byteOffset, 64).toString('latin1'), () =>
          nodeCrypto.createPublicKey({
            key: Buffer.from(sequence(bounds.algorithm, tlv(Tag.BIT_STRING, Uint8Array.of(0), octetString(publicKey)))),
            format: 'der',
            type: 'spki',
          }),
        );
        return nodeCrypto.verify(STREEBOG_256, message, key, signature);
      } catch {
        // A point off the curve: OpenSSL refuses the key.
        return false;
      }
    };
  };

  const signAlgorithm = boundsOf('S-256-A').algorithm;
  const sign = (privateKey: Uint8Array, message: Uint8Array): Uint8Array => {
    const key = privateKeys.get(Buffer.from(privateKey).toString('latin1'), () => {
      const pkcs8 = Buffer.from(sequence(integer(0n), signAlgorithm, octetString(privateKey)));
      // The engine's keys load through OpenSSL's PEM reader (its DER decoders know no GOST key).
      const pem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64')}\n-----END PRIVATE KEY-----\n`;
      try {
        return nodeCrypto.createPrivateKey(pem);
      } catch {
        // Node's look-up of an engine digest (any Streebog hash before) leaves an error in this thread's OpenSSL
        // queue that fails the next PEM read; the failed read clears it, and the key then loads.
        return nodeCrypto.createPrivateKey(pem);
      }
    });
    return new Uint8Array(nodeCrypto.sign(STREEBOG_256, message, key));
  };

  const kuznyechik = (key: Uint8Array): Kuznyechik => {
    const k = Buffer.from(key);
    if (k.length !== 32) throw new RangeError(`a Kuznyechik key has 32 bytes, got ${k.length}`);
    const run = (name: string, iv: Uint8Array | null, data: Uint8Array, decrypt = false): Buffer => {
      const c = decrypt ? nodeCrypto.createDecipheriv(name, k, iv) : nodeCrypto.createCipheriv(name, k, iv);
      c.setAutoPadding(false);
      const head = c.update(data);
      const tail = c.final();
      return tail.length === 0 ? head : Buffer.concat([head, tail]);
    };
    const encryptBlock = (input: Uint8Array, inOff: number, output: Uint8Array, outOff: number): void => {
      output.set(run(KUZNYECHIK_ECB, null, input.subarray(inOff, inOff + BLOCK)), outOff);
    };
    const shift = (b: Uint8Array): Buffer => {
      const out = Buffer.alloc(BLOCK);
      for (let i = 0; i < BLOCK; i++) out[i] = ((b[i]! << 1) | (i + 1 < BLOCK ? b[i + 1]! >> 7 : 0)) & 0xff;
      if ((b[0]! & 0x80) !== 0) out[BLOCK - 1] = out[BLOCK - 1]! ^ 0x87;
      return out;
    };
    let subkeys: [Buffer, Buffer] | undefined;
    return {
      encryptBlock,
      ctr(iv, data) {
        if (iv.length !== BLOCK / 2) throw new RangeError(`CTR takes an ${BLOCK / 2}-byte IV, got ${iv.length}`);
        return new Uint8Array(run(KUZNYECHIK_CTR, iv, data));
      },
      cfb(direction, iv, data) {
        if (iv.length !== BLOCK) throw new RangeError(`CFB takes a ${BLOCK}-byte IV, got ${iv.length}`);
        return new Uint8Array(run(KUZNYECHIK_CFB, iv, data, direction === 'decrypt'));
      },
      /** CMAC as CBC with a zero IV whose last block carries K1 (complete) or the padding and K2; the parts are fed as they are, not joined. */
      omac(...parts) {
        if (subkeys === undefined) {
          const l = Buffer.alloc(BLOCK);
          encryptBlock(l, 0, l, 0);
          const k1 = shift(l);
          subkeys = [k1, shift(k1)];
        }
        const total = parts.reduce((n, p) => n + p.length, 0);
        const complete = total > 0 && total % BLOCK === 0;
        const lastStart = complete ? total - BLOCK : total - (total % BLOCK);
        const last = Buffer.alloc(BLOCK);
        const c = nodeCrypto.createCipheriv(KUZNYECHIK_CBC, k, Buffer.alloc(BLOCK));
        c.setAutoPadding(false);
        let at = 0;
        for (const part of parts) {
          const head = Math.max(0, Math.min(part.length, lastStart - at));
          if (head > 0) c.update(part.subarray(0, head));
          if (head < part.length) last.set(part.subarray(head), at + head - lastStart);
          at += part.length;
        }
        if (!complete) last[total - lastStart] = 0x80;
        const sub = complete ? subkeys[0] : subkeys[1];
        for (let i = 0; i < BLOCK; i++) last[i] = last[i]! ^ sub[i]!;
        const out = c.update(last);
        c.final();
        return new Uint8Array(out.subarray(out.length - BLOCK));
      },
    };
  };

  return { source, streebog256: (data) => new Uint8Array(hashOnce(data)), verifier, sign, kuznyechik };
}

/**
 * The self-test: Streebog-256 of the standard's message M1 (GOST R 34.11-2012 §A.1), a signature
 * made by the JavaScript signer verified (and the same with a bit changed refused), one of its own, and
 * Kuznyechik-CTR of the standard's example (GOST R 34.13-2015 §A.1.2). Any miss: not used.
 */
function selfTest(native: NativeGost): string | undefined {
  const m1 = Buffer.from('012345678901234567890123456789012345678901234567890123456789012', 'latin1');
  if (Buffer.from(native.streebog256(m1)).toString('hex') !== '9d151eefd8590b89daa6ba6cb74af9275dd051026bb149a452fd84e5e57b5500')
    return 'Streebog-256 answers differently';
  const verify = native.verifier('S-256-A');
  const message = Buffer.from('weft gost self-test', 'latin1');
  const signature = hex('56cf53cc9c20dbc5f999b5e93cbe21c673bd5f92c3f2207e2184fbdab832a243f8d9e6136dae1887db13e75b05e8b4eda76893de2259de3d6b8bc84b57573988');
  if (!verify(SELF_TEST_KEY, message, signature)) return 'a valid GOST R 34.10-2012 signature is refused';
  signature[40] = signature[40]! ^ 1;
  if (verify(SELF_TEST_KEY, message, signature)) return 'an altered GOST R 34.10-2012 signature is accepted';
  if (!verify(SELF_TEST_KEY, message, native.sign(hex('511545a6625effc531e0a4255d0947c3ef23bb784abab342e5a73a1800e6994a'), message))) {
    return 'its own GOST R 34.10-2012 signature does not verify';
  }
  const key = hex('8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef');
  const ctr = native.kuznyechik(key).ctr(hex('1234567890abcef0'), hex('1122334455667700ffeeddccbbaa9988'));
  if (Buffer.from(ctr).toString('hex') !== 'f195d8bec10ed1dbd57b5fa240bda1b8') return 'Kuznyechik-CTR answers differently';
  return undefined;
}

/** The public key of the seed phrase "weft gost self-test" (gost.ts's derivation; its private key signs in the self-test), x‖y little-endian. */
const SELF_TEST_KEY = hex('e314296aa1ed5212fafe291356ce2417376e08780ecb44c54126a0e4b7b800587a7d0937f096e6ac95a0247de934abc3abe1069862fbf30d8438e3fc9113988d');

let backend: GostBackend | undefined;

/** This thread's GOST implementation, decided once (see the file comment). */
export function gostBackend(env: NodeJS.ProcessEnv = process.env): GostBackend {
  if (backend !== undefined) return backend;
  const loaded = loadEngine(env);
  if (!loaded.ok) return (backend = { native: undefined, description: `JavaScript (${loaded.why})` });
  const native = createNative(loaded.source);
  let failure: string | undefined;
  try {
    failure = selfTest(native);
  } catch (e) {
    failure = (e as Error).message;
  }
  if (failure !== undefined)
    return (backend = { native: undefined, description: `JavaScript (the OpenSSL GOST engine at ${loaded.source} failed its self-test: ${failure})` });
  return (backend = { native, description: `native (OpenSSL GOST engine, ${loaded.source})` });
}
