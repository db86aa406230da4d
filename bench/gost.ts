/**
 * GOST and PKI figures, against bare native GOST: node:crypto with OpenSSL's GOST engine
 * (Debian's libengine-gost-openssl) loaded by this bench itself with crypto.setEngine —
 * WEFT_GOST_ENGINE's path when it names one, else Debian's — not through Weft's code:
 *
 * - gost.transfer.verify: GOST transfers verified per second on one core the way the node
 *   verifies them (the transaction's sender proof check: its signed bytes, key and proof, then
 *   the GOST suite) against bare crypto.verify('md_gost12_256', …) of the same signatures
 *   with ready-made key objects (target ≥ 0.9);
 * - gost.confirmed: GOST transfers/s broadcast to one dev-chain node process (`--crypto
 *   gost`) until all are in blocks (after uncounted warm-up transfers, as chain.confirmed),
 *   against that bare verify/s on one core (target ≥ 0.5);
 * - pki.verify.1MB: ms to check a detached CAdES-BES signature over 1 MiB as /pki/verify does
 *   (parse the CMS, Streebog-256 of the data, the signed attributes, the GOST signature)
 *   against a bare crypto.hash('md_gost12_256') of the same MiB. The signer's certificate
 *   comes from a CA made by OpenSSL's GOST engine;
 * - gost.keyPairFromSeedPhrase and gost.vko: what stays in JavaScript (crypto-gost-js's
 *   scalar multiplication; the engine has no key derivation from a seed, and Weft's VKO is the
 *   library's): key pairs derived from seed phrases per second, against the library doing the
 *   whole derivation itself (its Streebog-256 of the seed, its key generation from it), and
 *   VKO GOST R 34.10-2012 agreements per second (src/crypto/gost-encryption.ts) against the
 *   library's DH derivation called bare;
 * - privacy.replication.3members(.seconds).gost: bench/privacy-replication.ts on a GOST
 *   devnet (Kuznyechik streams) against the same bytes over bare loopback (target ≥ 0.3).
 *
 * WEFT_GOST_ENGINE=js runs Weft's side on its JavaScript fallback against the same native
 * baselines (the node processes inherit it).
 */
import { constants, createHash, createPublicKey, setEngine, verify as nativeVerify, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import gostPkg from '@wavesenterprise/crypto-gost-js/dist/CryptoGost.js';
import { createStreebog256, GOST_SIGN_ALGORITHM } from '../src/crypto/gost.js';
import { gostBackend } from '../src/crypto/gost-native.js';
import { vkoGost2012_256 } from '../src/crypto/gost-encryption.js';
import { createDetachedCadesBes, parseSignedData, verifyDetached } from '../src/crypto/pki/cms.js';
import { GostVerifiers, parseCertificate } from '../src/crypto/pki/x509.js';
import { Protocol } from '../src/protocol/protocol.js';
import type { Transaction } from '../src/protocol/transactions/schema.js';
import { GostTestCa } from '../devkit/pki/openssl-gost.js';
import { confirmed, signedTransfers, WARMUP_TRANSFERS } from './chain.js';
import { compareRates, median, progress, type Figure } from './harness.js';
import { privacyReplicationFigures } from './privacy-replication.js';

interface BareGostLibrary {
  getGostDigest(algorithm: Record<string, unknown>): { digest(data: Uint8Array): ArrayBuffer };
  getGostSign(algorithm: Record<string, unknown>): {
    generateKey(): { privateKey: ArrayBuffer; publicKey: ArrayBuffer };
    deriveKey(privateKey: ArrayBuffer): ArrayBuffer;
  };
}
const { GostEngine } = gostPkg as { GostEngine: BareGostLibrary };

/** OpenSSL's name of Streebog-256 in the GOST engine. */
const STREEBOG_256 = 'md_gost12_256';
const DEBIAN_ENGINE = '/usr/lib/x86_64-linux-gnu/engines-3/gost.so';
/**
 * The DER SubjectPublicKeyInfo of a GOST R 34.10-2012 256 key before its 64 bytes (x‖y
 * little-endian, Weft's layout): id-tc26-gost3410-12-256 with the CryptoPro-A parameter set and
 * Streebog-256, then BIT STRING { OCTET STRING (64) }.
 */
const GOST_SPKI_PREFIX = Buffer.from('3066301f06082a85030701010101301306072a85030202230106082a850307010102020343000440', 'hex');
/** Transfers confirmed in the measured run of gost.confirmed (the JavaScript fallback gets fewer: it confirms under a hundred a second). */
const CONFIRMED_TRANSFERS = 20_000;
const CONFIRMED_TRANSFERS_JS = 2_000;

const ab = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

function streebogPresent(): boolean {
  try {
    createHash(STREEBOG_256);
    return true;
  } catch {
    return false;
  }
}

/** Puts OpenSSL's GOST engine into this process's OpenSSL (unless Weft's suite already did); where it came from. */
function loadBareEngine(): string {
  if (streebogPresent()) return 'already loaded in this process';
  const setting = process.env.WEFT_GOST_ENGINE?.trim();
  const path = setting !== undefined && setting !== '' && setting !== 'js' ? setting : DEBIAN_ENGINE;
  if (!existsSync(path)) throw new Error(`the gost group's baselines need OpenSSL's GOST engine: no ${path} (Debian: apt-get install libengine-gost-openssl)`);
  setEngine(
    path,
    constants.ENGINE_METHOD_DIGESTS | constants.ENGINE_METHOD_CIPHERS | constants.ENGINE_METHOD_PKEY_METHS | constants.ENGINE_METHOD_PKEY_ASN1_METHS,
  );
  if (!streebogPresent()) throw new Error(`${path} loaded, but OpenSSL has no ${STREEBOG_256}`);
  return path;
}

interface BareVerification {
  readonly key: KeyObject;
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
}

/** The transfers' signatures with ready-made OpenSSL key objects, for bare crypto.verify. */
function bareVerifications(txs: readonly Transaction[]): BareVerification[] {
  const keys = new Map<string, KeyObject>();
  return txs.map((tx) => {
    const id = Buffer.from(tx.senderPublicKey!).toString('hex');
    let key = keys.get(id);
    if (key === undefined) {
      key = createPublicKey({ key: Buffer.concat([GOST_SPKI_PREFIX, tx.senderPublicKey!]), format: 'der', type: 'spki' });
      keys.set(id, key);
    }
    return { key, message: tx.proofSourceBytes, signature: tx.proofs[0]! };
  });
}

/** Bare native verifications per second of the transfers' proofs on this core, for about `ms`. */
function bareNativeVerifyRate(txs: readonly Transaction[], ms = 2000): number {
  const items = bareVerifications(txs.slice(0, 256));
  let n = 0;
  const start = process.hrtime.bigint();
  while (process.hrtime.bigint() - start < BigInt(ms) * 1_000_000n) {
    const it = items[n % items.length]!;
    if (!nativeVerify(STREEBOG_256, it.message, it.key, it.signature)) throw new Error('bare native GOST verify refused a transfer');
    n++;
  }
  return (n * 1e9) / Number(process.hrtime.bigint() - start);
}

export async function gostFigures(): Promise<Figure[]> {
  const p = await Protocol.create({ crypto: 'gost', chainId: 'T' });
  const implementation = gostBackend().description;
  const engine = loadBareEngine();
  progress(`Weft's GOST: ${implementation}; the bare baselines' engine: ${engine}`);
  const out: Figure[] = [];

  progress('GOST transfer verify');
  const txs = signedTransfers(p, 64, BigInt(Date.now()));
  const bare = bareVerifications(txs);
  let i = 0;
  let ok = 0;
  out.push(
    compareRates(
      'gost.transfer.verify',
      "bare native GOST R 34.10-2012 verify/s (node:crypto with OpenSSL's GOST engine, ready-made keys)",
      () => {
        const tx = txs[i++ % txs.length]!;
        const check = tx.senderProofCheck()!;
        if (p.crypto.verify(check.publicKey, check.message, check.signature)) ok++;
      },
      () => {
        const b = bare[i++ % bare.length]!;
        if (nativeVerify(STREEBOG_256, b.message, b.key, b.signature)) ok++;
      },
      { unit: 'verify/s', target: 0.9, rounds: 9, msPerRound: 600 },
    ),
  );
  if (ok === 0) throw new Error('no GOST signature verified');

  const transfers = gostBackend().native !== undefined ? CONFIRMED_TRANSFERS : CONFIRMED_TRANSFERS_JS;
  progress(`GOST transfers broadcast to block on one node (${transfers}, after ${WARMUP_TRANSFERS} uncounted)`);
  const conf = await confirmed(p, transfers, (t) => bareNativeVerifyRate(t), WARMUP_TRANSFERS);
  progress(
    `GOST broadcast to block: the node's longest event-loop stall ${conf.longestStallMs.toFixed(1)} ms (mining alone: ${conf.quietStallMs.toFixed(1)} ms)`,
  );
  out.push({
    name: 'gost.confirmed',
    value: conf.value,
    baseline: conf.baseline,
    ratio: conf.value / conf.baseline,
    unit: 'tx/s',
    baselineLabel: `bare native GOST verify/s (1 core); one dev-chain node with --crypto gost, ${transfers} transfers after ${WARMUP_TRANSFERS} uncounted`,
    target: 0.5,
  });

  progress('pki/verify of CAdES-BES over 1 MiB');
  out.push(pkiVerifyFigure(p));

  progress('GOST key derivation from seed phrases (JavaScript)');
  const libraryStreebog = GostEngine.getGostDigest(GOST_SIGN_ALGORITHM['hash'] as Record<string, unknown>);
  const phrase = (k: number): Uint8Array => {
    const seed = Buffer.from(`bench gost seed phrase ${k}`, 'utf8');
    // The nonce (0) in front of the phrase, as the clients derive account 0.
    return Buffer.concat([Buffer.alloc(4), seed]);
  };
  const libraryKeyPair = (k: number): Uint8Array =>
    new Uint8Array(GostEngine.getGostSign({ ...GOST_SIGN_ALGORITHM, ukm: libraryStreebog.digest(phrase(k)) }).generateKey().publicKey);
  if (!Buffer.from(libraryKeyPair(0)).equals(p.crypto.keyPairFromSeedPhrase('bench gost seed phrase 0').publicKey))
    throw new Error("the library's key derivation and Weft's disagree");
  let k = 0;
  out.push(
    compareRates(
      'gost.keyPairFromSeedPhrase',
      'crypto-gost-js deriving the same key pairs bare (its Streebog-256 of the phrase, its key generation), /s',
      () => p.crypto.keyPairFromSeedPhrase(`bench gost seed phrase ${k++}`),
      () => libraryKeyPair(k++),
      { unit: 'keys/s', rounds: 3, msPerRound: 1000 },
    ),
  );

  progress('VKO GOST R 34.10-2012 (JavaScript)');
  const own = p.crypto.keyPairFromSeedPhrase('bench vko own');
  const peer = p.crypto.keyPairFromSeedPhrase('bench vko peer');
  const ukm = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
  out.push(
    compareRates(
      'gost.vko',
      "crypto-gost-js's VKO (DH deriveKey) called bare on the same keys, /s",
      () => vkoGost2012_256(own.privateKey, peer.publicKey, ukm),
      () => GostEngine.getGostSign({ ...GOST_SIGN_ALGORITHM, mode: 'DH', ukm: ab(ukm), public: ab(peer.publicKey) }).deriveKey(ab(own.privateKey)),
      { unit: 'agreements/s', rounds: 3, msPerRound: 1000 },
    ),
  );

  progress('GOST privacy replication');
  out.push(...(await privacyReplicationFigures('gost')));
  return out;
}

/** pki.verify.1MB: /pki/verify's check of a CAdES-BES signature over 1 MiB against a bare native Streebog-256 of it (ms, medians of 5). */
function pkiVerifyFigure(p: Protocol): Figure {
  const ca = GostTestCa.root('/C=RU/O=Weft Bench/CN=Bench Root', 'http://127.0.0.1:1/root.crl');
  try {
    const key = p.crypto.keyPairFromSeedPhrase('bench pki signer');
    const signer = ca.issue({ subject: '/C=RU/O=Weft Bench/CN=Bench Signer', publicKey: key.publicKey, eku: ['emailProtection'] });
    const data = new Uint8Array(1 << 20).map((_, k) => k & 0xff);
    const digest = createStreebog256();
    const cms = createDetachedCadesBes({
      content: data,
      signer: parseCertificate(signer.der),
      chain: [parseCertificate(ca.cert.der)],
      signingTime: BigInt(Date.now()),
      digest,
      sign: (m) => p.crypto.sign(key.privateKey, m),
    });
    const verifiers = new GostVerifiers();
    const verifyMs: number[] = [];
    const hashMs: number[] = [];
    for (let r = 0; r < 5; r++) {
      let t = process.hrtime.bigint();
      if (!verifyDetached(parseSignedData(cms), data, { digest, verifiers }).valid) throw new Error('the bench signature does not verify');
      verifyMs.push(Number(process.hrtime.bigint() - t) / 1e6);
      t = process.hrtime.bigint();
      createHash(STREEBOG_256).update(data).digest();
      hashMs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const value = median(verifyMs);
    const baseline = median(hashMs);
    return {
      name: 'pki.verify.1MB',
      value,
      baseline,
      ratio: value / baseline,
      unit: 'ms',
      baselineLabel: "bare native Streebog-256 of the same 1 MiB (node:crypto with OpenSSL's GOST engine; ms, lower is better)",
    };
  } finally {
    ca.dispose();
  }
}
