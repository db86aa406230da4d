/**
 * GOST `/crypto` encryption (gost-3412-2015-k): every building block checked against an
 * independent implementation — OpenSSL's GOST engine for Kuznyechik CTR and CFB,
 * HMAC-Streebog-256 (so KDF_TREE) and VKO GOST R 34.10-2012; the GOST R 34.13-2015 test
 * vector for OMAC — then the scheme: round trips for separate and common encryption, the
 * 96-byte wrapped structure, and refusals of wrong keys and altered wrapped keys.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { createGostSuite, createStreebog256 } from '../../src/crypto/gost.js';
import {
  createGostEncryption,
  GostEncryptionError,
  hmacStreebog256,
  kdfTree,
  Kuznyechik,
  vkoGost2012_256,
  WRAPPED_STRUCTURE_LENGTH,
} from '../../src/crypto/gost-encryption.js';
import type { CryptoSuite } from '../../src/crypto/suite.js';
import { openssl } from '../../devkit/pki/openssl-gost.js';
import { tempDir } from '../../devkit/tmp.js';

let suite: CryptoSuite;
const dir = tempDir('weft-gost-enc-');
const kuz = new Kuznyechik();
const streebog = createStreebog256();

before(async () => {
  suite = await createGostSuite();
});

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

function opensslEnc(cipher: string, key: Uint8Array, iv: Uint8Array, data: Uint8Array): Buffer {
  writeFileSync(join(dir, 'in.bin'), data);
  return openssl(['enc', '-engine', 'gost', `-${cipher}`, '-K', hex(key), '-iv', hex(iv), '-in', 'in.bin'], dir);
}

function opensslHmac(key: Uint8Array, data: Uint8Array): string {
  writeFileSync(join(dir, 'in.bin'), data);
  const out = openssl(['dgst', '-engine', 'gost', '-md_gost12_256', '-mac', 'hmac', '-macopt', `hexkey:${hex(key)}`, 'in.bin'], dir).toString();
  return /=\s*([0-9a-f]+)/.exec(out)![1]!;
}

describe('GOST encryption building blocks', () => {
  it('Kuznyechik CTR (8-byte IV) and CFB (16-byte IV) equal OpenSSL for whole and partial blocks', () => {
    for (const length of [1, 15, 16, 17, 48, 1000]) {
      const key = randomBytes(32);
      const data = randomBytes(length);
      const ctrIv = randomBytes(8);
      assert.equal(hex(kuz.ctr(key, ctrIv, data)), hex(opensslEnc('kuznyechik-ctr', key, ctrIv, data)), `CTR of ${length} bytes`);
      const cfbIv = randomBytes(16);
      const cfb = kuz.cfbEncrypt(key, cfbIv, data);
      assert.equal(hex(cfb), hex(opensslEnc('kuznyechik-cfb', key, cfbIv, data)), `CFB of ${length} bytes`);
      assert.deepEqual(kuz.cfbDecrypt(key, cfbIv, cfb), new Uint8Array(data));
    }
  });

  it('OMAC gives the GOST R 34.13-2015 test vector', () => {
    const key = Buffer.from('8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef', 'hex');
    const data = Buffer.from(
      '1122334455667700ffeeddccbbaa998800112233445566778899aabbcceeff0a112233445566778899aabbcceeff0a002233445566778899aabbcceeff0a0011',
      'hex',
    );
    assert.equal(hex(kuz.omac(key, data)).slice(0, 16), '336f4d296059fbe3');
  });

  it('HMAC-Streebog-256 equals OpenSSL, and KDF_TREE is HMAC over counter ‖ label ‖ 0 ‖ seed ‖ length', () => {
    for (const keyLength of [32, 80]) {
      const key = randomBytes(keyLength);
      const data = randomBytes(100);
      assert.equal(hex(hmacStreebog256(streebog, key, data)), opensslHmac(key, data));
    }
    const key = randomBytes(32);
    const seed = randomBytes(8);
    const label = Buffer.from('kdf tree');
    const tree = kdfTree(streebog, key, label, seed, 64);
    assert.equal(hex(tree.subarray(0, 32)), opensslHmac(key, Buffer.concat([Buffer.of(1), label, Buffer.of(0), seed, Buffer.of(2, 0)])));
    assert.equal(hex(tree.subarray(32)), opensslHmac(key, Buffer.concat([Buffer.of(2), label, Buffer.of(0), seed, Buffer.of(2, 0)])));
  });

  it('VKO GOST R 34.10-2012 256 equals `openssl pkeyutl -derive` with the same UKM', () => {
    openssl(['genpkey', '-engine', 'gost', '-algorithm', 'gost2012_256', '-pkeyopt', 'paramset:A', '-out', 'a.key'], dir);
    openssl(['genpkey', '-engine', 'gost', '-algorithm', 'gost2012_256', '-pkeyopt', 'paramset:A', '-out', 'b.key'], dir);
    openssl(['pkey', '-engine', 'gost', '-in', 'b.key', '-pubout', '-out', 'b.pub'], dir);
    const ukm = randomBytes(8);
    openssl(['pkeyutl', '-engine', 'gost', '-derive', '-inkey', 'a.key', '-peerkey', 'b.pub', '-pkeyopt', `ukmhex:${hex(ukm)}`, '-out', 'vko.bin'], dir);
    const text = (file: string): string => openssl(['pkey', '-engine', 'gost', '-in', file, '-text', '-noout'], dir).toString();
    const le = (h: string): Buffer => Buffer.from(h.padStart(64, '0'), 'hex').reverse();
    const a = text('a.key');
    const b = text('b.key');
    const priv = le(/Private key: ([0-9A-F]+)/.exec(a)![1]!);
    const pub = Buffer.concat([le(/X:([0-9A-F]+)/.exec(b)![1]!), le(/Y:([0-9A-F]+)/.exec(b)![1]!)]);
    assert.equal(hex(vkoGost2012_256(priv, pub, ukm)), hex(readFileSync(join(dir, 'vko.bin'))));
  });
});

describe('GOST /crypto encryption (gost-3412-2015-k)', () => {
  it('encryptSeparate and encryptCommon round-trip for every recipient; sizes as WE lays them out', () => {
    const e = createGostEncryption();
    const sender = suite.generateKeyPair();
    const recipients = [suite.generateKeyPair(), suite.generateKeyPair(), suite.generateKeyPair()];
    const text = new Uint8Array(Buffer.from('встреча в 10, пароль — «кузнечик»', 'utf8'));
    const separate = e.encryptSeparate(
      sender.privateKey,
      text,
      recipients.map((r) => r.publicKey),
    );
    assert.equal(separate.length, 3);
    separate.forEach((c, i) => {
      assert.deepEqual(c.recipientPublicKey, recipients[i]!.publicKey);
      assert.equal(c.ciphertext.length, text.length);
      assert.equal(c.wrappedKey.length, WRAPPED_STRUCTURE_LENGTH);
      assert.deepEqual(e.decrypt(recipients[i]!.privateKey, sender.publicKey, c.ciphertext, c.wrappedKey), text);
    });
    assert.notDeepEqual(separate[0]!.ciphertext, separate[1]!.ciphertext, 'each recipient has its own content key');
    const common = e.encryptCommon(
      sender.privateKey,
      text,
      recipients.map((r) => r.publicKey),
    );
    assert.equal(common.wrappedKeys.length, 3);
    common.wrappedKeys.forEach((w, i) => assert.deepEqual(e.decrypt(recipients[i]!.privateKey, sender.publicKey, common.ciphertext, w.wrappedKey), text));
    assert.deepEqual(e.encryptSeparate(sender.privateKey, text, []), []);
    assert.throws(() => e.encryptCommon(sender.privateKey, text, []), /Cannot encrypt for an empty list of recipients/);
    const empty = e.encryptSeparate(sender.privateKey, new Uint8Array(0), [recipients[0]!.publicKey])[0]!;
    assert.deepEqual(e.decrypt(recipients[0]!.privateKey, sender.publicKey, empty.ciphertext, empty.wrappedKey), new Uint8Array(0));
  });

  it('refuses another recipient, another sender and an altered or short wrapped key', () => {
    const e = createGostEncryption();
    const [sender, recipient, other] = [suite.generateKeyPair(), suite.generateKeyPair(), suite.generateKeyPair()];
    const c = e.encryptSeparate(sender.privateKey, Buffer.from('secret'), [recipient.publicKey])[0]!;
    const refused = (f: () => unknown, message: RegExp): void =>
      assert.throws(f, (err: unknown) => err instanceof GostEncryptionError && message.test(err.message));
    refused(() => e.decrypt(other.privateKey, sender.publicKey, c.ciphertext, c.wrappedKey), /^Error in decrypt: the wrapped key does not verify/);
    refused(() => e.decrypt(recipient.privateKey, other.publicKey, c.ciphertext, c.wrappedKey), /does not verify/);
    for (const at of [0, 20, 35, 44, 60, 95]) {
      const altered = Uint8Array.from(c.wrappedKey);
      altered[at] = altered[at]! ^ 0x01;
      if (at >= 16 && at < 32) {
        // The content IV is not covered by the key wrap: the plaintext comes out different.
        assert.notDeepEqual(e.decrypt(recipient.privateKey, sender.publicKey, c.ciphertext, altered), new Uint8Array(Buffer.from('secret')));
      } else {
        refused(() => e.decrypt(recipient.privateKey, sender.publicKey, c.ciphertext, altered), /does not verify/);
      }
    }
    refused(() => e.decrypt(recipient.privateKey, sender.publicKey, c.ciphertext, c.wrappedKey.subarray(0, 48)), /has 48 bytes, expected 96/);
    refused(() => e.encryptSeparate(sender.privateKey, Buffer.from('x'), [new Uint8Array(32)]), /a GOST public key has 64 bytes/);
  });
});
