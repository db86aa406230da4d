/**
 * GOST and PKI figures:
 *
 * - gost.transfer.verify: GOST transfers verified per second on one core the way the node
 *   verifies them (the transaction's sender proof check: its signed bytes, key and proof, then
 *   the GOST suite) against bare @wavesenterprise/crypto-gost-js GOST R 34.10-2012 verify of
 *   the same signatures (target ≥ 0.9);
 * - gost.confirmed: GOST transfers/s broadcast to one dev-chain node process (`--crypto
 *   gost`) until all are in blocks, against the bare library verify/s on one core;
 * - pki.verify.1MB: ms to check a detached CAdES-BES signature over 1 MiB as /pki/verify does
 *   (parse the CMS, Streebog-256 of the data, the signed attributes, the GOST signature)
 *   against a bare Streebog-256 of the same MiB. The signer's certificate comes from a CA
 *   made by OpenSSL's GOST engine.
 */
import gostPkg from '@wavesenterprise/crypto-gost-js/dist/CryptoGost.js';
import { createStreebog256, GOST_SIGN_ALGORITHM } from '../src/crypto/gost.js';
import { createDetachedCadesBes, parseSignedData, verifyDetached } from '../src/crypto/pki/cms.js';
import { GostVerifiers, parseCertificate } from '../src/crypto/pki/x509.js';
import { Protocol } from '../src/protocol/protocol.js';
import type { Transaction } from '../src/protocol/transactions/schema.js';
import { GostTestCa } from '../devkit/pki/openssl-gost.js';
import { confirmed, signedTransfers } from './chain.js';
import { compareRates, progress, type Figure } from './harness.js';

interface BareGostSign {
  verify(publicKey: ArrayBuffer, signature: ArrayBuffer, data: Uint8Array): boolean;
}
const { GostEngine } = gostPkg as { GostEngine: { getGostSign(a: Record<string, unknown>): BareGostSign } };

const ab = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
/** Bare library verifications per second of the transfers' proofs (one core). */
function bareGostVerifyRate(txs: readonly Transaction[], ms = 1500): number {
  const bare = GostEngine.getGostSign(GOST_SIGN_ALGORITHM);
  const items = txs.map((tx) => ({ key: ab(tx.senderPublicKey!), sig: ab(tx.proofs[0]!), msg: tx.proofSourceBytes }));
  let n = 0;
  const start = process.hrtime.bigint();
  while (process.hrtime.bigint() - start < BigInt(ms) * 1_000_000n) {
    const it = items[n % items.length]!;
    if (!bare.verify(it.key, it.sig, it.msg)) throw new Error('bare GOST verify failed');
    n++;
  }
  return (n * 1e9) / Number(process.hrtime.bigint() - start);
}

export async function gostFigures(): Promise<Figure[]> {
  const p = await Protocol.create({ crypto: 'gost', chainId: 'T' });
  const out: Figure[] = [];

  progress('GOST transfer verify');
  const txs = signedTransfers(p, 16, BigInt(Date.now()));
  const bare = GostEngine.getGostSign(GOST_SIGN_ALGORITHM);
  const checks = txs.map((tx) => tx.senderProofCheck()!);
  let i = 0;
  let ok = 0;
  out.push(
    compareRates(
      'gost.transfer.verify',
      'bare crypto-gost-js GOST R 34.10-2012 verify/s',
      () => {
        const tx = txs[i++ % txs.length]!;
        const check = tx.senderProofCheck()!;
        if (p.crypto.verify(check.publicKey, check.message, check.signature)) ok++;
      },
      () => {
        const c = checks[i++ % checks.length]!;
        if (bare.verify(ab(c.publicKey), ab(c.signature), c.message)) ok++;
      },
      { unit: 'verify/s', target: 0.9, rounds: 3, msPerRound: 1500 },
    ),
  );
  if (ok === 0) throw new Error('no GOST signature verified');

  progress('GOST transfers broadcast to block on one node');
  const conf = await confirmed(p, 300, (t) => bareGostVerifyRate(t));
  out.push({
    name: 'gost.confirmed',
    value: conf.value,
    baseline: conf.baseline,
    ratio: conf.value / conf.baseline,
    unit: 'tx/s',
    baselineLabel: 'bare crypto-gost-js verify/s (1 core); one dev-chain node with --crypto gost, 300 transfers',
  });

  progress('pki/verify of CAdES-BES over 1 MiB');
  const ca = GostTestCa.root('/C=RU/O=Weft Bench/CN=Bench Root', 'http://127.0.0.1:1/root.crl');
  try {
    const signer = ca.issue({
      subject: '/C=RU/O=Weft Bench/CN=Bench Signer',
      publicKey: p.crypto.keyPairFromSeedPhrase('bench pki signer').publicKey,
      eku: ['emailProtection'],
    });
    const key = p.crypto.keyPairFromSeedPhrase('bench pki signer');
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
    const rounds = 5;
    const verifyMs: number[] = [];
    const hashMs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      let t = process.hrtime.bigint();
      if (!verifyDetached(parseSignedData(cms), data, { digest, verifiers }).valid) throw new Error('the bench signature does not verify');
      verifyMs.push(Number(process.hrtime.bigint() - t) / 1e6);
      t = process.hrtime.bigint();
      digest(data);
      hashMs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    const value = median(verifyMs);
    const baseline = median(hashMs);
    out.push({
      name: 'pki.verify.1MB',
      value,
      baseline,
      ratio: value / baseline,
      unit: 'ms',
      baselineLabel: 'bare Streebog-256 of the same 1 MiB (ms; lower is better)',
    });
  } finally {
    ca.dispose();
  }
  return out;
}
