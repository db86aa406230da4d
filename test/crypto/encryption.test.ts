import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBase58, decodeBase64, encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import {
  DecryptionFailure,
  decryptFromSender,
  encryptForRecipient,
  encryptForRecipients,
  openAesGcm,
  sealAesGcm,
  x25519SharedSecret,
  type RandomBytes,
} from '../../src/crypto/encryption.js';
import { StreamDecryptor, StreamEncryptor, streamDecryptorFor, streamEncryptorFor } from '../../src/crypto/stream-cipher.js';
import { createWavesSuite } from '../../src/crypto/waves.js';

/**
 * Fixed vectors computed with the JDK (OpenJDK 17: XDH X25519, MD5, AES/GCM/NoPadding with a
 * 16-byte IV — the providers WE's AesEncryption and StreamCipher use) by
 * test/crypto/EncryptionOracle.java. Keys: clamped SHA-256 of 'weft encryption vector
 * sender' (A), '… recipient 1' (B), '… recipient 2' (C); byte runs `run(s, n)` are s, s+1, ….
 */
const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const run = (start: number, n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (start + i) & 0xff);

const A = {
  priv: hex('80320fcfadd9faa918d9202e4d85bcf2e2edcbc78c1d6902de3cc6b8e3ff2556'),
  pub: hex('82500f9d1bbfa04a3b43d311e9a9f645b92181cbf4ec830232e2f2b575cdd60a'),
};
const B = {
  priv: hex('78f197dbd49b5be719490e99c4a48a33f10d39e98ca53924cbac154d87f7ef72'),
  pub: hex('03e45f201d9c04ec71b088924b82daa376faba33f8d33c41f4722485993c8a7f'),
};
const C = {
  priv: hex('e0e87686d333a115a717eb9a52714e49a38da7c41ae0d7e9518ef85fa59c9b51'),
  pub: hex('12b8c2edffd4a10607f7eeb5db0ae207298db77b739434a73e2b44da17a20c4e'),
};
const S_AB = '9d638bb3da7690fcfc3f4f174e97d7093f4578677a4d33b4ae2141a81ce4480e';
const S_AC = '9a1c2ad762f0fdcadad75fa3cee500e6590018a13a8f67a737286b3028d6cf1b';
const CEK = run(0xc0, 16);
const TEXT = 'meet at 10 — встреча';
/** seal(CEK, IV run(0x20), TEXT). */
const ENCRYPTED_TEXT = '202122232425262728292a2b2c2d2e2facb432ea01a784bbda3d0868e3f6c028886192a2ae2f0703dd231c4b2f1d0e6541c531996addea02eb2f5b8842';
/** seal(S_AB, IV run(0x30), CEK) and seal(S_AC, IV run(0x50), CEK). */
const WRAPPED_FOR_B = '303132333435363738393a3b3c3d3e3fa19fea55357df73fbd4a818772978db9c44a8d3c353e9d053393b9457f257e3f';
const WRAPPED_FOR_C = '505152535455565758595a5b5c5d5e5f96881f962d6d440bac14a9eca027ee4e567bfb3d6c8c6075a28a0e9c91a3e707';

/** Random bytes served from a fixed list, in order (fails when a draw of another size comes). */
function scripted(...draws: Uint8Array[]): RandomBytes {
  const queue = [...draws];
  return (n) => {
    const next = queue.shift();
    assert.ok(next !== undefined, `unexpected random draw of ${n} bytes`);
    assert.equal(next.length, n, 'random draw of an unexpected size');
    return next;
  };
}

describe('waves encryption (WE AesEncryption / WavesAlgorithms)', () => {
  it('agrees on the X25519 shared secret with the JDK, from both sides', () => {
    assert.equal(toHex(x25519SharedSecret(A.priv, B.pub)), S_AB);
    assert.equal(toHex(x25519SharedSecret(B.priv, A.pub)), S_AB);
    assert.equal(toHex(x25519SharedSecret(A.priv, C.pub)), S_AC);
  });

  it('seals with MD5-derived AES-128-GCM and a 16-byte IV exactly as Java does', () => {
    assert.equal(
      toHex(sealAesGcm(run(0xa0, 16), Buffer.from('it is good weather today!'), scripted(run(0x10, 16)))),
      '101112131415161718191a1b1c1d1e1f30a040a765dc03357aa7d69b6116e6359803a9924f56ec39ace9825f20e103cc9f4040bf73a730af98',
    );
    assert.equal(
      toHex(sealAesGcm(run(0xa0, 16), new Uint8Array(0), scripted(run(0x10, 16)))),
      '101112131415161718191a1b1c1d1e1fca89527d1798438012d5391f1aa4137b',
    );
  });

  it('encrypts for one recipient byte-exactly (content key, data IV, wrapping IV drawn in WE order)', () => {
    const out = encryptForRecipient(Buffer.from(TEXT, 'utf8'), A.priv, B.pub, scripted(CEK, run(0x20, 16), run(0x30, 16)));
    assert.equal(toHex(out.encrypted), ENCRYPTED_TEXT);
    assert.equal(toHex(out.wrappedKey), WRAPPED_FOR_B);
    assert.equal(out.wrappedKey.length, 48);
    assert.equal(out.encrypted.length, Buffer.byteLength(TEXT) + 32);
  });

  it('encrypts once for many recipients, each with its own wrapped key', () => {
    const out = encryptForRecipients(Buffer.from(TEXT, 'utf8'), A.priv, [B.pub, C.pub], scripted(CEK, run(0x20, 16), run(0x30, 16), run(0x50, 16)));
    assert.equal(toHex(out.encrypted), ENCRYPTED_TEXT);
    assert.deepEqual(out.wrappedKeys.map(toHex), [WRAPPED_FOR_B, WRAPPED_FOR_C]);
  });

  it('decrypts the fixed vectors as each recipient', () => {
    assert.equal(Buffer.from(decryptFromSender(hex(ENCRYPTED_TEXT), hex(WRAPPED_FOR_B), B.priv, A.pub)).toString('utf8'), TEXT);
    assert.equal(Buffer.from(decryptFromSender(hex(ENCRYPTED_TEXT), hex(WRAPPED_FOR_C), C.priv, A.pub)).toString('utf8'), TEXT);
  });

  it("refuses altered ciphertext, another recipient's key and a cut box with WE's reason", () => {
    const altered = hex(ENCRYPTED_TEXT);
    altered[20] = altered[20]! ^ 1;
    assert.throws(
      () => decryptFromSender(altered, hex(WRAPPED_FOR_B), B.priv, A.pub),
      (e: unknown) => e instanceof DecryptionFailure && e.message === 'Error in AES decrypt: Tag mismatch',
    );
    assert.throws(() => decryptFromSender(hex(ENCRYPTED_TEXT), hex(WRAPPED_FOR_B), C.priv, A.pub), DecryptionFailure);
    assert.throws(() => openAesGcm(CEK, hex('0011')), DecryptionFailure);
    const longer = Buffer.concat([hex(ENCRYPTED_TEXT), Buffer.from('oops')]);
    assert.throws(() => decryptFromSender(longer, hex(WRAPPED_FOR_B), B.priv, A.pub), DecryptionFailure);
  });

  it('round-trips any bytes between any key pairs', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.integer({ min: 1, max: 4 }), (data, n) => {
        const keys = Array.from({ length: n }, () => keyPair());
        const sender = keyPair();
        const many = encryptForRecipients(
          data,
          sender.priv,
          keys.map((k) => k.pub),
        );
        keys.forEach((k, i) => assert.deepEqual(decryptFromSender(many.encrypted, many.wrappedKeys[i]!, k.priv, sender.pub), data));
        const one = encryptForRecipient(data, sender.priv, keys[0]!.pub);
        assert.deepEqual(decryptFromSender(one.encrypted, one.wrappedKey, keys[0]!.priv, sender.pub), data);
      }),
      { numRuns: 50 },
    );
  });

  it('interoperates with the official JS client (transactions-factory Encryptor via js-sdk cryptoTool) both ways', async () => {
    const require = createRequire(import.meta.url);
    const tool = require('@wavesenterprise/js-sdk/raw/src/libs/cryptoTool.js') as {
      decrypt(recipientPrivateKey: string, senderPublicKey: string, encryptedText: string, wrappedKey: string): string;
      encryptSeparate(recipients: string[], senderPrivateKey: string, text: string): Array<{ encryptedText: string; publicKey: string; wrappedKey: string }>;
      encryptCommon(recipients: string[], senderPrivateKey: string, text: string): Array<{ encryptedText: string; publicKey: string; wrappedKey: string }>;
    };
    const suite = await createWavesSuite();
    const sender = suite.keyPairFromSeedPhrase('weft encryption interop sender');
    const recipients = [suite.keyPairFromSeedPhrase('weft encryption interop recipient 1'), suite.keyPairFromSeedPhrase('weft encryption interop recipient 2')];
    const text = 'it is good weather today!';
    // Theirs → ours.
    for (const [i, item] of tool
      .encryptCommon(
        recipients.map((r) => encodeBase58(r.publicKey)),
        encodeBase58(sender.privateKey),
        text,
      )
      .entries()) {
      const plain = decryptFromSender(decodeBase64(item.encryptedText), decodeBase58(item.wrappedKey), recipients[i]!.privateKey, sender.publicKey);
      assert.equal(Buffer.from(plain).toString('utf8'), text);
    }
    const separate = tool.encryptSeparate([encodeBase58(recipients[1]!.publicKey)], encodeBase58(sender.privateKey), text)[0]!;
    assert.equal(
      Buffer.from(
        decryptFromSender(decodeBase64(separate.encryptedText), decodeBase58(separate.wrappedKey), recipients[1]!.privateKey, sender.publicKey),
      ).toString('utf8'),
      text,
    );
    // Ours → theirs.
    const ours = encryptForRecipients(
      Buffer.from(text),
      sender.privateKey,
      recipients.map((r) => r.publicKey),
    );
    recipients.forEach((r, i) => {
      assert.equal(
        tool.decrypt(encodeBase58(r.privateKey), encodeBase58(sender.publicKey), encodeBase64(ours.encrypted), encodeBase58(ours.wrappedKeys[i]!)),
        text,
      );
    });
  });
});

/** The JDK's chunk streams for CEK, chunk size 64 (27 data bytes a chunk), IVs run(0x60 + 16·i), data run(1, n). */
const STREAM_VECTORS: ReadonlyArray<readonly [number, readonly string[]]> = [
  [0, ['606162636465666768696a6b6c6d6e6fce6434d0726548fcbe8ef1e5c71d28a6ffd39c552193479a57']],
  [1, ['606162636465666768696a6b6c6d6e6fce6434d0726448fcbfe9ddf489422068d2de967914b2f61dc28e']],
  // 23 data bytes: the count fills the chunk exactly, which becomes a full final chunk.
  [23, ['606162636465666768696a6b6c6d6e6fce6434d072644affbbed7ae72251f387c75f296dfb8989d4cf0f49b6e215c0c2e7d819feb759af1530e5aa87790e09f4']],
  // 25: two count bytes fit; the rest spills into a final chunk of its own.
  [
    25,
    [
      '606162636465666768696a6b6c6d6e6fcf6434d072644affbbed7ae72251f387c75f296dfb8989d4cf0f49b6fa0cc0c3a0e2d87a3ad575f479e037c9d35a03f4',
      '707172737475767778797a7b7c7d7e7f29271d219431a1f402271cd20e98a906a9df6a0c954777',
    ],
  ],
  [
    27,
    [
      '606162636465666768696a6b6c6d6e6fcf6434d072644affbbed7ae72251f387c75f296dfb8989d4cf0f49b6fa0cdad8d86e6771c129b0fb1c35e26d11066b08',
      '707172737475767778797a7b7c7d7e7f29271d219431a37b34841232f7e2410baa19331c925a47df30',
    ],
  ],
  [
    60,
    [
      '606162636465666768696a6b6c6d6e6fcf6434d072644affbbed7ae72251f387c75f296dfb8989d4cf0f49b6fa0cdad8d86e6771c129b0fb1c35e26d11066b08',
      '707172737475767778797a7b7c7d7e7f28271d21942dbe652941f59d61cda33a2bcf34e5aaf88b395fd8240e67238366b94f9013e29c7017d55f6c5924eb103b',
      '808182838485868788898a8b8c8d8e8f040b71f978ca360f47b096179243327e248643989753aa549ffa84afecb75d',
    ],
  ],
];

const ivRandom = (): RandomBytes => {
  let i = 0;
  return (n) => {
    assert.equal(n, 16);
    return run(0x60 + 16 * i++, 16);
  };
};

function encryptAll(encryptor: StreamEncryptor, data: Uint8Array, splits: readonly number[] = []): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const s of [...splits, data.length]) {
    const end = Math.min(data.length, Math.max(at, s));
    out.push(...encryptor.update(data.subarray(at, end)));
    at = end;
  }
  out.push(...encryptor.final());
  return out;
}

function decryptAll(decryptor: StreamDecryptor, stream: Uint8Array, pieces: number): Uint8Array {
  const out: Uint8Array[] = [];
  const step = Math.max(1, Math.ceil(stream.length / pieces));
  for (let at = 0; at < stream.length; at += step) out.push(decryptor.update(stream.subarray(at, at + step)));
  out.push(decryptor.final());
  return new Uint8Array(Buffer.concat(out));
}

describe('waves chunked stream cipher (WE StreamCipher / AesStream)', () => {
  for (const [n, chunks] of STREAM_VECTORS) {
    it(`produces the JDK's chunks for ${n} data bytes and reads them back`, () => {
      const produced = encryptAll(new StreamEncryptor(CEK, 64, ivRandom()), run(1, n), [Math.floor(n / 3)]);
      assert.deepEqual(produced.map(toHex), chunks);
      assert.ok(
        produced.slice(0, -1).every((c) => c.length === 64),
        'every chunk but the last is chunkSize bytes',
      );
      const stream = new Uint8Array(Buffer.concat(chunks.map(hex)));
      assert.deepEqual(decryptAll(new StreamDecryptor(CEK, 64), stream, 5), run(1, n));
    });
  }

  it('round-trips any data in any split of input and output, across chunk sizes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 3000 }),
        fc.integer({ min: 41, max: 700 }),
        fc.array(fc.nat(3000), { maxLength: 4 }),
        fc.integer({ min: 1, max: 9 }),
        (data, chunkSize, splits, pieces) => {
          const key = randomBytes(16);
          const stream = new Uint8Array(
            Buffer.concat(
              encryptAll(
                new StreamEncryptor(key, chunkSize),
                data,
                [...splits].sort((a, b) => a - b),
              ),
            ),
          );
          assert.deepEqual(decryptAll(new StreamDecryptor(key, chunkSize), stream, pieces), data);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('detects a lost, a reordered, a truncated and an altered chunk', () => {
    const key = randomBytes(16);
    const chunks = encryptAll(new StreamEncryptor(key, 64), run(1, 100));
    assert.equal(chunks.length, 4);
    const tryDecrypt = (list: Uint8Array[]): Uint8Array => decryptAll(new StreamDecryptor(key, 64), new Uint8Array(Buffer.concat(list)), 1);
    assert.throws(() => tryDecrypt([chunks[0]!, chunks[2]!, chunks[3]!]), /Invalid chunk index/);
    assert.throws(() => tryDecrypt([chunks[1]!, chunks[0]!, chunks[2]!, chunks[3]!]), /Invalid chunk index/);
    assert.throws(() => tryDecrypt(chunks.slice(0, 3)), /reordered or lost/);
    // Bytes after the final chunk run into the next chunk boundary and fail authentication.
    assert.throws(() => tryDecrypt([...chunks, chunks[3]!]), DecryptionFailure);
    assert.throws(() => tryDecrypt([...chunks.slice(0, 3), chunks[3]!.subarray(0, 40)]), DecryptionFailure);
    const altered = chunks.map((c) => Uint8Array.from(c));
    altered[1]![30] = altered[1]![30]! ^ 0x40;
    assert.throws(() => tryDecrypt(altered), /Tag mismatch/);
  });

  it('carries its content key wrapped for the recipient of the stream', () => {
    const { wrappedKey, encryptor } = streamEncryptorFor(A.priv, B.pub, 1024);
    assert.equal(wrappedKey.length, 48);
    const data = randomBytes(5000);
    const stream = new Uint8Array(Buffer.concat(encryptAll(encryptor, data)));
    assert.deepEqual(decryptAll(streamDecryptorFor(wrappedKey, B.priv, A.pub, 1024), stream, 3), new Uint8Array(data));
    assert.throws(() => streamDecryptorFor(wrappedKey, C.priv, A.pub, 1024), DecryptionFailure);
  });
});

function keyPair(): { priv: Uint8Array; pub: Uint8Array } {
  const priv = new Uint8Array(randomBytes(32));
  priv[0] = priv[0]! & 248;
  priv[31] = (priv[31]! & 127) | 64;
  // The public key through the JDK-checked agreement with the base point u = 9.
  const base = new Uint8Array(32);
  base[0] = 9;
  return { priv, pub: x25519SharedSecret(priv, base) };
}
