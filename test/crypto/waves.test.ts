import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { createWavesSuite, isWeakPublicKey, montgomeryToEdwards } from '../../src/crypto/waves.js';
import { AddressScheme } from '../../src/crypto/address.js';

const suite = await createWavesSuite();
const PHRASE = 'examples seed phrase for testing only please ignore';

describe('waves crypto', () => {
  it('derives the reference key pair and address from a seed phrase', () => {
    const kp = suite.keyPairFromSeedPhrase(PHRASE);
    assert.equal(encodeBase58(kp.publicKey), 'FRacvWiuWqVJiTDFQEAG327Mh11ZbTuHgmi2p4SjBRyB');
    assert.equal(encodeBase58(kp.privateKey), 'BGFbMJirPSxzffu3bmarcSZdihQyEyaDSMqrWR5TN8Ze');
    const addresses = new AddressScheme('T'.charCodeAt(0), suite);
    assert.equal(addresses.fromPublicKey(kp.publicKey).toString(), '3N75XuUxaztmvSTXLie2ibFjXKZscqnMR3d');
    const second = suite.keyPairFromSeedPhrase('second seed phrase for testing only please ignore');
    assert.equal(encodeBase58(second.publicKey), '6Sd4bygAw9RtYLexRcKtpjSnaRK94SagAQoKKQPEqzrh');
    assert.equal(addresses.fromPublicKey(second.publicKey).toString(), '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkC');
  });

  it('hashes with Blake2b-256 and Keccak256(Blake2b256)', () => {
    assert.equal(encodeBase58(suite.fastHash(Buffer.from('hello'))), '4PNCZERNLKAqwSYHhZpb7B4GE34eiYDPXGgeNKWNNaBp');
    // secureHash is Keccak-256 (original padding) over the Blake2b digest.
    assert.equal(Buffer.from(suite.secureHash(new Uint8Array(0))).toString('hex'), Buffer.from(keccakOfBlake(new Uint8Array(0))).toString('hex'));
  });

  it('signs with fresh randomness and verifies its own and tampered signatures correctly', () => {
    const kp = suite.keyPairFromSeedPhrase(PHRASE);
    const msg = Buffer.from('a message');
    const s1 = suite.sign(kp.privateKey, msg);
    const s2 = suite.sign(kp.privateKey, msg);
    assert.notDeepEqual(s1, s2);
    assert.ok(suite.verify(kp.publicKey, msg, s1));
    assert.ok(suite.verify(kp.publicKey, msg, s2));
    assert.ok(!suite.verify(kp.publicKey, Buffer.from('another message'), s1));
    const flipped = Uint8Array.from(s1);
    flipped[10] = flipped[10]! ^ 1;
    assert.ok(!suite.verify(kp.publicKey, msg, flipped));
    const wrongSign = Uint8Array.from(s1);
    wrongSign[63] = wrongSign[63]! ^ 0x80;
    assert.ok(!suite.verify(kp.publicKey, msg, wrongSign));
    assert.ok(!suite.verify(kp.publicKey, msg, s1.subarray(0, 63)));
    assert.ok(!suite.verify(kp.publicKey.subarray(0, 31), msg, s1));
  });

  it('converts Montgomery keys to the Edwards point of the same secret', () => {
    for (let i = 0; i < 20; i++) {
      const kp = suite.generateKeyPair();
      const a = bytesToBigLE(kp.privateKey) % ed25519.Point.Fn.ORDER;
      const expected = ed25519.Point.BASE.multiply(a).toBytes();
      const converted = montgomeryToEdwards(kp.publicKey, expected[31]! & 0x80);
      assert.deepEqual(converted, expected);
    }
  });

  it("signs so that an independent Ed25519 verifier accepts each signature under the key's Edwards form", () => {
    // @noble/curves' verifier, not the suite's native one: R must be the nonce's point and S = r + k·a for the key's scalar.
    for (let i = 0; i < 30; i++) {
      const kp = suite.generateKeyPair();
      const msg = Buffer.from(`message ${i}`);
      const signature = suite.sign(kp.privateKey, msg);
      const a = bytesToBigLE(kp.privateKey) % ed25519.Point.Fn.ORDER;
      const edwards = ed25519.Point.BASE.multiply(a).toBytes();
      assert.equal(signature[63]! & 0x80, edwards[31]! & 0x80, 'the sign bit of the Edwards key travels in the signature');
      const plain = Uint8Array.from(signature);
      plain[63] = plain[63]! & 0x7f;
      assert.ok(ed25519.verify(plain, msg, edwards, { zip215: false }));
      assert.ok(!ed25519.verify(plain, Buffer.from(`message ${i + 1}`), edwards, { zip215: false }));
    }
  });

  it('refuses the seven weak Curve25519 keys', () => {
    const weak = ['0000000000000000000000000000000000000000000000000000000000000000', 'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'];
    for (const hex of weak) {
      const pk = Buffer.from(hex, 'hex');
      assert.ok(isWeakPublicKey(pk));
      assert.ok(!suite.verify(pk, Buffer.from('m'), new Uint8Array(64)));
    }
    assert.ok(!isWeakPublicKey(decodeBase58('FRacvWiuWqVJiTDFQEAG327Mh11ZbTuHgmi2p4SjBRyB')));
  });
});

function bytesToBigLE(b: Uint8Array): bigint {
  let x = 0n;
  for (let i = b.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[i]!);
  return x;
}

function keccakOfBlake(data: Uint8Array): Uint8Array {
  return keccak_256(blake2b(data, { dkLen: 32 }));
}
