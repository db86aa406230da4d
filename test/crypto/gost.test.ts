import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AddressScheme } from '../../src/crypto/address.js';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import gostPkg from '@wavesenterprise/crypto-gost-js/dist/CryptoGost.js';
import { createGost256Verifier, createGostSuite, GOST_SIGN_ALGORITHM, javascriptGost, type Gost256Curve } from '../../src/crypto/gost.js';

const suite = await createGostSuite();
const require = createRequire(import.meta.url);
const sdkDir = require.resolve('@wavesenterprise/js-sdk/package.json').replace(/\/package\.json$/, '');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const sg: any = require(`${sdkDir}/node_modules/@wavesenterprise/signature-generator`);
sg.config.set({ networkByte: 84, crypto: 'gost' });

describe('gost crypto', () => {
  it('hashes with Streebog-256 in the common byte order (RFC 6986 M1)', () => {
    const m1 = Buffer.from('012345678901234567890123456789012345678901234567890123456789012', 'ascii');
    assert.equal(Buffer.from(suite.fastHash(m1)).toString('hex'), '9d151eefd8590b89daa6ba6cb74af9275dd051026bb149a452fd84e5e57b5500');
    assert.deepEqual(suite.secureHash(m1), suite.fastHash(m1));
  });

  it('derives the same keys and addresses as the GOST client', () => {
    const scheme = new AddressScheme(84, suite);
    for (const phrase of ['examples seed phrase for testing only please ignore', 'second seed phrase for testing only please ignore']) {
      const seed = sg.Seed.fromExistingPhrase(phrase);
      const kp = suite.keyPairFromSeedPhrase(phrase);
      assert.equal(encodeBase58(kp.publicKey), seed.keyPair.publicKey);
      assert.equal(encodeBase58(kp.privateKey), seed.keyPair.privateKey);
      assert.equal(kp.publicKey.length, 64);
      assert.equal(scheme.fromPublicKey(kp.publicKey).toString(), seed.address);
      assert.deepEqual(suite.publicKeyOf(kp.privateKey), kp.publicKey);
    }
  });

  it("verifies the client's signatures, and the client verifies Weft's", () => {
    const phrase = 'examples seed phrase for testing only please ignore';
    const seed = sg.Seed.fromExistingPhrase(phrase);
    const kp = suite.keyPairFromSeedPhrase(phrase);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (msg) => {
        const theirs = decodeBase58(sg.utils.cryptoGost.buildTransactionSignature(msg, seed.keyPair.privateKey));
        assert.ok(suite.verify(kp.publicKey, msg, theirs));
        const ours = suite.sign(kp.privateKey, msg);
        assert.ok(sg.utils.cryptoGost.verifySignature(seed.keyPair.publicKey, encodeBase58(ours), msg));
        const tampered = Uint8Array.from(ours);
        tampered[5] = tampered[5]! ^ 1;
        assert.ok(!suite.verify(kp.publicKey, msg, tampered));
      }),
      { numRuns: 20 },
    );
  });

  it('rejects malformed keys and signatures without throwing', () => {
    const kp = suite.generateKeyPair();
    const sig = suite.sign(kp.privateKey, Buffer.from('x'));
    assert.ok(suite.verify(kp.publicKey, Buffer.from('x'), sig));
    assert.ok(!suite.verify(kp.publicKey.subarray(0, 32), Buffer.from('x'), sig));
    assert.ok(!suite.verify(kp.publicKey, Buffer.from('x'), sig.subarray(0, 63)));
    assert.ok(!suite.verify(new Uint8Array(64), Buffer.from('x'), sig));
    assert.ok(!suite.verify(new Uint8Array(64).fill(0xff), Buffer.from('x'), new Uint8Array(64).fill(0xff)));
  });

  it("gives crypto-gost-js's verdict on every curve: valid, altered and random signatures, keys off the curve", () => {
    interface LibSign {
      generateKey(): { privateKey: ArrayBuffer; publicKey: ArrayBuffer };
      sign(privateKey: ArrayBuffer, data: Uint8Array): ArrayBuffer;
      verify(publicKey: ArrayBuffer, signature: ArrayBuffer, data: Uint8Array): boolean;
    }
    const { GostEngine } = gostPkg as { GostEngine: { getGostSign(a: Record<string, unknown>): LibSign } };
    const ab = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
    // Both implementations: the native one (OpenSSL's GOST engine) and the JavaScript fallback.
    for (const [curve, ours] of (['S-256-A', 'S-256-B', 'S-256-C'] as Gost256Curve[]).flatMap((c) => [
      [c, createGost256Verifier(c)] as const,
      [c, javascriptGost.verifier(c)] as const,
    ])) {
      const lib = GostEngine.getGostSign({ ...GOST_SIGN_ALGORITHM, namedCurve: curve });
      const keys = lib.generateKey();
      const publicKey = new Uint8Array(keys.publicKey);
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 200 }), fc.integer({ min: 0, max: 63 }), fc.uint8Array({ minLength: 64, maxLength: 64 }), (msg, at, random) => {
          const sig = new Uint8Array(lib.sign(keys.privateKey, msg));
          assert.equal(ours(publicKey, msg, sig), true, `${curve}: a valid signature`);
          const altered = Uint8Array.from(sig);
          altered[at] = altered[at]! ^ 0x40;
          assert.equal(ours(publicKey, msg, altered), lib.verify(ab(publicKey), ab(altered), msg), `${curve}: an altered signature`);
          assert.equal(ours(publicKey, msg, random), lib.verify(ab(publicKey), ab(random), msg), `${curve}: random bytes`);
          const offCurve = Uint8Array.from(publicKey);
          offCurve[0] = offCurve[0]! ^ 1;
          assert.equal(ours(offCurve, msg, sig), false, `${curve}: a key off the curve`);
        }),
        { numRuns: 8 },
      );
    }
  });
});
