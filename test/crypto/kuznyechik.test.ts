/**
 * The table Kuznyechik against GOST R 34.12-2015's own example and against
 * @wavesenterprise/crypto-gost-js's byte-wise cipher (CFB of many lengths); CTR and OMAC are
 * cross-checked against OpenSSL in gost-encryption.test.ts, which runs over this cipher.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import gostPkg from '@wavesenterprise/crypto-gost-js/dist/CryptoGost.js';
import { KuznyechikKey } from '../../src/crypto/kuznyechik.js';

const { GostEngine } = gostPkg as {
  GostEngine: { getGostCipher(a: Record<string, unknown>): { encrypt(k: ArrayBuffer, d: ArrayBuffer, iv?: ArrayBuffer): ArrayBuffer } };
};
const ab = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('Kuznyechik (GOST R 34.12-2015)', () => {
  it("encrypts the standard's example block (A.2)", () => {
    const key = new KuznyechikKey(Buffer.from('8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef', 'hex'));
    const out = new Uint8Array(16);
    key.encryptBlock(Buffer.from('1122334455667700ffeeddccbbaa9988', 'hex'), 0, out, 0);
    assert.equal(hex(out), '7f679d90bebc24305a468d42b9d4edcd');
  });

  it('CFB equals crypto-gost-js for whole and partial blocks, and decrypts back', () => {
    const lib = GostEngine.getGostCipher({ name: 'GOST R 34.12', version: 2015, length: 128, block: 'CFB' });
    for (const length of [1, 15, 16, 17, 100, 1000]) {
      const k = randomBytes(32);
      const iv = randomBytes(16);
      const data = randomBytes(length);
      const ours = new KuznyechikKey(k).cfb('encrypt', iv, data);
      assert.equal(hex(ours), hex(new Uint8Array(lib.encrypt(ab(k), ab(data), ab(iv)))), `CFB of ${length} bytes`);
      assert.deepEqual(new KuznyechikKey(k).cfb('decrypt', iv, ours), new Uint8Array(data));
    }
  });

  it('refuses keys and IVs of the wrong size', () => {
    assert.throws(() => new KuznyechikKey(new Uint8Array(16)), /32 bytes/);
    const key = new KuznyechikKey(new Uint8Array(32));
    assert.throws(() => key.ctr(new Uint8Array(16), new Uint8Array(1)), /8-byte IV/);
    assert.throws(() => key.cfb('encrypt', new Uint8Array(8), new Uint8Array(1)), /16-byte IV/);
  });
});
