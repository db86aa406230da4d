/**
 * The native GOST implementation (OpenSSL's GOST engine, src/crypto/gost-native.ts) against the
 * JavaScript one it replaces, which stays as the oracle: the same verdicts, hashes, ciphertexts
 * and MACs, signatures each side accepts from the other — and the node's choice of the two.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { gostBackend, type GostBackend } from '../../src/crypto/gost-native.js';
import { createGostSuite, javascriptGost, createGost256Verifier, createStreebog256, type Gost256Curve } from '../../src/crypto/gost.js';
import { KuznyechikKey, kuznyechikKey } from '../../src/crypto/kuznyechik.js';

const backend = gostBackend();
const JAVASCRIPT: GostBackend = { native: undefined, description: 'JavaScript (test)' };
const CURVES: Gost256Curve[] = ['S-256-A', 'S-256-B', 'S-256-C'];
const Q_A = Buffer.from('ffffffffffffffffffffffffffffffff6c611070995ad10045841b09b761b893', 'hex');
const P_A = Buffer.from('fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffd97', 'hex');
const run = promisify(execFile);
const gostNativeModule = fileURLToPath(new URL('../../src/crypto/gost-native.js', import.meta.url));

describe('native GOST (OpenSSL GOST engine)', () => {
  it('is what this machine runs (.ci/run installs libengine-gost-openssl), and says so', () => {
    assert.ok(backend.native !== undefined, backend.description);
    assert.match(backend.description, /^native \(OpenSSL GOST engine, /);
  });

  it('gives the JavaScript verdict on valid, altered, random and out-of-range signatures and keys, on every curve', async () => {
    const native = backend.native!;
    const js = await createGostSuite(JAVASCRIPT);
    const owner = js.keyPairFromSeedPhrase('native gost verdicts');
    const verifiers = CURVES.map((c) => [c, native.verifier(c), javascriptGost.verifier(c)] as const);
    const withR = (sig: Uint8Array, r: Buffer): Uint8Array => Buffer.concat([sig.subarray(0, 32), r]);
    const withS = (sig: Uint8Array, s: Buffer): Uint8Array => Buffer.concat([s, sig.subarray(32)]);
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.integer({ min: 0, max: 63 }),
        fc.uint8Array({ minLength: 64, maxLength: 64 }),
        fc.uint8Array({ minLength: 64, maxLength: 64 }),
        (message, at, randomSig, randomKey) => {
          const sig = js.sign(owner.privateKey, message);
          const altered = Uint8Array.from(sig);
          altered[at] = altered[at]! ^ 0x01;
          const signatures = [
            sig,
            altered,
            randomSig,
            withR(sig, Q_A),
            withS(sig, Q_A),
            withR(sig, Buffer.alloc(32)),
            withS(sig, Buffer.alloc(32)),
            withS(sig, Buffer.alloc(32, 0xff)),
            sig.subarray(0, 63),
          ];
          const highX = Buffer.concat([Buffer.from(P_A).reverse(), owner.publicKey.subarray(32)]);
          const keys = [owner.publicKey, randomKey, highX, new Uint8Array(64), new Uint8Array(64).fill(0xff), owner.publicKey.subarray(1)];
          for (const [curve, ours, oracle] of verifiers) {
            for (const s of signatures) {
              for (const k of keys)
                assert.equal(
                  ours(k, message, s),
                  oracle(k, message, s),
                  `${curve}: key ${Buffer.from(k).toString('hex')} sig ${Buffer.from(s).toString('hex')}`,
                );
            }
          }
          assert.equal(verifiers[0]![1](owner.publicKey, message, sig), true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('signs what the JavaScript verifier accepts, and accepts what the JavaScript signer signs; refuses the same keys', async () => {
    const nativeSuite = await createGostSuite(backend);
    const js = await createGostSuite(JAVASCRIPT);
    fc.assert(
      fc.property(fc.string(), fc.uint8Array({ maxLength: 500 }), (phrase, message) => {
        const keys = js.keyPairFromSeedPhrase(phrase);
        assert.deepEqual(nativeSuite.keyPairFromSeedPhrase(phrase), keys);
        assert.ok(js.verify(keys.publicKey, message, nativeSuite.sign(keys.privateKey, message)));
        assert.ok(nativeSuite.verify(keys.publicKey, message, js.sign(keys.privateKey, message)));
      }),
      { numRuns: 30 },
    );
    // A private key at or above q signs as its residue, as the JavaScript signer reads it.
    const small = Buffer.alloc(32);
    small[0] = 5;
    const wrapped = Buffer.from(Q_A).reverse();
    wrapped[0] = wrapped[0]! + 5;
    const publicOfFive = js.publicKeyOf(small);
    assert.ok(js.verify(publicOfFive, Buffer.from('m'), nativeSuite.sign(wrapped, Buffer.from('m'))));
    for (const bad of [new Uint8Array(32), Buffer.from(Q_A).reverse(), new Uint8Array(31)]) {
      assert.throws(
        () => nativeSuite.sign(bad, Buffer.from('m')),
        (e: Error) => {
          assert.throws(() => js.sign(bad, Buffer.from('m')), { message: e.message });
          return e instanceof RangeError;
        },
      );
    }
  });

  it('hashes with Streebog-256 byte for byte as the JavaScript, from empty to a mebibyte', () => {
    const native = createStreebog256(backend);
    const js = javascriptGost.streebog256();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1000 }), (data) => assert.deepEqual(native(data), js(data))),
      { numRuns: 200 },
    );
    const big = new Uint8Array(1 << 20).map((_, i) => (i * 31) & 0xff);
    assert.deepEqual(native(big), js(big));
    assert.deepEqual(native(new Uint8Array(0)), js(new Uint8Array(0)));
  });

  it('encrypts and MACs with Kuznyechik byte for byte as the JavaScript (CTR, CFB both ways, OMAC of split parts, one block)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.uint8Array({ maxLength: 700 }),
        fc.nat(700),
        (key, iv, data, cut) => {
          const ours = kuznyechikKey(key, backend);
          const oracle = new KuznyechikKey(key);
          assert.ok(!(ours instanceof KuznyechikKey));
          assert.deepEqual(ours.ctr(iv.subarray(0, 8), data), oracle.ctr(iv.subarray(0, 8), data));
          assert.deepEqual(ours.cfb('encrypt', iv, data), oracle.cfb('encrypt', iv, data));
          assert.deepEqual(ours.cfb('decrypt', iv, data), oracle.cfb('decrypt', iv, data));
          const at = Math.min(cut, data.length);
          assert.deepEqual(ours.omac(data), oracle.omac(data));
          assert.deepEqual(ours.omac(data.subarray(0, at), iv, data.subarray(at)), oracle.omac(data.subarray(0, at), iv, data.subarray(at)));
          const a = new Uint8Array(16);
          const b = new Uint8Array(16);
          ours.encryptBlock(iv, 0, a, 0);
          oracle.encryptBlock(iv, 0, b, 0);
          assert.deepEqual(a, b);
        },
      ),
      { numRuns: 100 },
    );
    assert.throws(() => kuznyechikKey(new Uint8Array(16), backend), /32 bytes/);
    assert.throws(() => kuznyechikKey(new Uint8Array(32), backend).ctr(new Uint8Array(16), new Uint8Array(1)), /8-byte IV/);
  });

  it('runs on a verifier thread too (the engine is the process’s, found there already loaded)', async () => {
    const code = `import('${gostNativeModule}').then((m) => require('node:worker_threads').parentPort.postMessage(m.gostBackend().description));`;
    const worker = new Worker(code, { eval: true });
    const description = await new Promise<string>((resolve, reject) => worker.once('message', resolve).once('error', reject));
    await worker.terminate();
    assert.match(description, /^native \(OpenSSL GOST engine, loaded in this process\)/);
    const verify = createGost256Verifier('S-256-A');
    assert.equal(typeof verify, 'function');
  });

  it('falls back to JavaScript when told to, or when the engine is not where it is said to be, and says why', async () => {
    const describeIn = async (env: Record<string, string>): Promise<string> => {
      const { stdout } = await run(
        process.execPath,
        ['--input-type=module', '-e', `const m = await import('${gostNativeModule}'); console.log(m.gostBackend().description);`],
        {
          env: { ...process.env, ...env },
        },
      );
      return stdout.trim();
    };
    assert.equal(await describeIn({ WEFT_GOST_ENGINE: 'js' }), 'JavaScript (WEFT_GOST_ENGINE=js)');
    assert.equal(await describeIn({ WEFT_GOST_ENGINE: '/nowhere/gost.so' }), 'JavaScript (no OpenSSL GOST engine: /nowhere/gost.so (absent))');
    assert.match(await describeIn({}), /^native \(OpenSSL GOST engine, \/.*gost\.so\)$/);
  });
});
