import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { SignatureVerifierPool } from '../../src/crypto/verify-pool.js';
import { createWavesSuite } from '../../src/crypto/waves.js';
import { createGostSuite } from '../../src/crypto/gost.js';

const waves = await createWavesSuite();
const pool = await SignatureVerifierPool.start('waves', 2);
after(() => pool.close());

describe('signature verification on worker threads', () => {
  it('gives the same verdicts as the suite, for valid, tampered and malformed input', async () => {
    const kp = waves.keyPairFromSeedPhrase('verify pool test seed phrase');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.uint8Array({ maxLength: 200 }), fc.nat(3)), { minLength: 1, maxLength: 300 }), async (items) => {
        const triples = items.map(([msg, how]) => {
          const sig = waves.sign(kp.privateKey, msg);
          if (how === 1) sig[7] = sig[7]! ^ 1;
          if (how === 2) return [kp.publicKey.subarray(0, 31), msg, sig] as const;
          if (how === 3) return [kp.publicKey, msg, sig.subarray(0, 10)] as const;
          return [kp.publicKey, msg, sig] as const;
        });
        const verdicts = await Promise.all(triples.map(([pk, m, s]) => pool.verify(pk, m, s)));
        assert.deepEqual(verdicts, triples.map(([pk, m, s]) => waves.verify(pk, m, s)));
      }),
      { numRuns: 10 },
    );
  });

  it('lets the calling thread verify while the workers are full, with the same verdicts', async () => {
    const inline = await SignatureVerifierPool.start('waves', 1, waves);
    const kp = waves.keyPairFromSeedPhrase('verify pool inline seed phrase');
    const items = Array.from({ length: 2000 }, (_, i) => {
      const msg = Buffer.from(`message ${i}`);
      const sig = waves.sign(kp.privateKey, msg);
      if (i % 3 === 0) sig[5] = sig[5]! ^ 1;
      return { msg, sig, valid: i % 3 !== 0 };
    });
    const verdicts = await Promise.all(items.map((it) => inline.verify(kp.publicKey, it.msg, it.sig)));
    assert.deepEqual(verdicts, items.map((it) => it.valid));
    await inline.close();
  });

  it('works for GOST keys too', async () => {
    const gost = await createGostSuite();
    const gp = await SignatureVerifierPool.start('gost', 1);
    const kp = gost.keyPairFromSeedPhrase('verify pool gost seed phrase');
    const msg = Buffer.from('message');
    const sig = gost.sign(kp.privateKey, msg);
    assert.equal(await gp.verify(kp.publicKey, msg, sig), true);
    assert.equal(await gp.verify(kp.publicKey, Buffer.from('other'), sig), false);
    await gp.close();
    await assert.rejects(gp.verify(kp.publicKey, msg, sig), /closed/);
  });
});
