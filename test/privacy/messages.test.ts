/**
 * The privacy P2P messages (30, 31, 39, 40, 44) and the large-item stream, byte for byte as
 * reference §4.2 lays them out (WE's MessageSpec, PolicyDataReplier): layouts checked
 * against bytes built here by hand, round trips in any split, and every malformed input
 * refused.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { x25519SharedSecret } from '../../src/crypto/encryption.js';
import { StreamDecryptor } from '../../src/crypto/stream-cipher.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { encodeItemMeta, type PolicyItemMeta } from '../../src/privacy/item.js';
import {
  framesOf,
  itemFrames,
  MalformedItemStream,
  readItemFrames,
  refusalFrames,
  STREAM_CHUNK_MAGIC,
  type StreamDecryption,
} from '../../src/privacy/item-stream.js';
import { transportEncryptionFor } from '../../src/crypto/transport-encryption.js';
import { gostSubjectPublicKeyInfo } from '../../src/crypto/pki/x509.js';
import {
  decodeInventory,
  decodeItemRequest,
  decodePrivateDataResponse,
  decodeStrictPayload,
  encodeInventory,
  encodeItemRequest,
  encodePrivateDataResponse,
  encodeStrictPayload,
  inventoryBodyBytes,
  inventoryId,
  MalformedPrivacyMessage,
  MAX_PRIVATE_DATA_RESPONSE,
  maxStrictItemData,
  privateDataResponseLength,
  signInventory,
  verifyInventory,
} from '../../src/privacy/messages.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fill = (n: number, v: number): Uint8Array => new Uint8Array(n).fill(v);
const id = { policyId: fill(32, 1), dataHash: fill(32, 2) };
const WAVES = transportEncryptionFor('waves');
const meta: PolicyItemMeta = { policyId: 'P', hash: 'H', sender: 'S', filename: 'f.bin', size: 3, timestamp: 258n, author: 'a', comment: 'é' };

describe('PrivateDataRequest (30) and PrivacyInventoryRequest (40)', () => {
  it('are policyId ‖ dataHash', () => {
    assert.equal(hex(encodeItemRequest(id)), '01'.repeat(32) + '02'.repeat(32));
    assert.deepEqual(decodeItemRequest(30, encodeItemRequest(id)), id);
    assert.throws(() => decodeItemRequest(40, fill(63, 0)), MalformedPrivacyMessage);
    assert.throws(() => decodeItemRequest(30, fill(65, 0)), MalformedPrivacyMessage);
    assert.throws(() => encodeItemRequest({ policyId: fill(31, 1), dataHash: fill(32, 2) }), RangeError);
  });
});

describe('PrivateDataResponse (31)', () => {
  it('no data: policyId ‖ dataHash ‖ 0', () => {
    const bytes = encodePrivateDataResponse({ ...id, kind: 'no-data' });
    assert.equal(hex(bytes), '01'.repeat(32) + '02'.repeat(32) + '00');
    assert.deepEqual(decodePrivateDataResponse(bytes, undefined), { ...id, kind: 'no-data' });
    assert.deepEqual(decodePrivateDataResponse(bytes, 48), { ...id, kind: 'no-data' });
  });

  it('on TLS: ‖ 1 ‖ u32 len ‖ payload, the payload being u32 dataLen ‖ data ‖ WE metadata bytes', () => {
    const payload = encodeStrictPayload(meta, Uint8Array.of(7, 8, 9));
    assert.equal(hex(payload.subarray(0, 7)), '00000003070809');
    assert.deepEqual(payload.subarray(7), encodeItemMeta(meta));
    const bytes = encodePrivateDataResponse({ ...id, kind: 'data', payload });
    assert.equal(hex(bytes.subarray(64, 69)), '01' + payload.length.toString(16).padStart(8, '0'));
    assert.deepEqual(bytes.subarray(69), payload);
    const back = decodePrivateDataResponse(bytes, undefined);
    assert.equal(back.kind, 'data');
    assert.deepEqual(decodeStrictPayload((back as { payload: Uint8Array }).payload), { data: Uint8Array.of(7, 8, 9), meta });
  });

  it('on a plain channel: ‖ 1 ‖ wrappedKey(48) ‖ u32 len ‖ ciphertext', () => {
    const wrappedKey = fill(48, 9);
    const encrypted = fill(40, 5);
    const bytes = encodePrivateDataResponse({ ...id, kind: 'encrypted', wrappedKey, encrypted });
    assert.equal(hex(bytes.subarray(64)), '01' + '09'.repeat(48) + '00000028' + '05'.repeat(40));
    assert.deepEqual(decodePrivateDataResponse(bytes, 48), { ...id, kind: 'encrypted', wrappedKey, encrypted });
  });

  it('has a length known before it is built, in clear or sealed; the largest data maxStrictItemData allows fills the cap exactly', () => {
    const own = p.crypto.generateKeyPair();
    const peer = p.crypto.generateKeyPair();
    const payload = encodeStrictPayload(meta, randomBytes(1000));
    assert.equal(privateDataResponseLength(payload.length, undefined), encodePrivateDataResponse({ ...id, kind: 'data', payload }).length);
    const sealed = WAVES.encrypt(payload, own.privateKey, peer.publicKey);
    assert.equal(privateDataResponseLength(payload.length, WAVES), encodePrivateDataResponse({ ...id, kind: 'encrypted', ...sealed }).length);
    const max = maxStrictItemData(encodeItemMeta(meta).length, WAVES);
    assert.equal(privateDataResponseLength(encodeStrictPayload(meta, new Uint8Array(max)).length, WAVES), MAX_PRIVATE_DATA_RESPONSE, 'sealed, the worst case');
    assert.ok(privateDataResponseLength(encodeStrictPayload(meta, new Uint8Array(max)).length, undefined) < MAX_PRIVATE_DATA_RESPONSE, 'in clear');
  });

  it('refuses cut or padded answers and bad flags', () => {
    const good = encodePrivateDataResponse({ ...id, kind: 'data', payload: fill(10, 1) });
    assert.throws(() => decodePrivateDataResponse(good.subarray(0, good.length - 1), undefined), MalformedPrivacyMessage);
    assert.throws(() => decodePrivateDataResponse(new Uint8Array([...good, 0]), undefined), MalformedPrivacyMessage);
    assert.throws(() => decodePrivateDataResponse(new Uint8Array([...id.policyId, ...id.dataHash, 2]), undefined), /has-data flag 2/);
    assert.throws(() => decodePrivateDataResponse(new Uint8Array([...id.policyId, ...id.dataHash, 0, 0]), undefined), MalformedPrivacyMessage);
    assert.throws(() => decodePrivateDataResponse(good, 48), MalformedPrivacyMessage, 'a TLS answer read as encrypted does not fit');
    assert.throws(() => decodeStrictPayload(Uint8Array.of(0, 0, 0, 9, 1)), MalformedPrivacyMessage);
  });
});

describe('PrivacyInventory V1 (39) and V2 (44)', () => {
  const signer = p.crypto.keyPairFromSeedPhrase('weft privacy inventory signer');
  const address = p.addresses.fromPublicKey(signer.publicKey).bytes;

  it('V1: senderPublicKey ‖ policyId ‖ dataHash ‖ signature over senderAddress ‖ policyId ‖ dataHash', () => {
    const inv = signInventory(p, signer, id, 'default', 1);
    const bytes = encodeInventory(inv);
    assert.equal(bytes.length, 32 + 32 + 32 + 64);
    assert.equal(hex(bytes.subarray(0, 96)), hex(signer.publicKey) + '01'.repeat(32) + '02'.repeat(32));
    assert.equal(hex(inventoryBodyBytes(p, inv)), hex(address) + '01'.repeat(32) + '02'.repeat(32));
    assert.ok(p.crypto.verify(signer.publicKey, inventoryBodyBytes(p, inv), bytes.subarray(96)));
    const back = decodeInventory(p, 39, bytes);
    assert.deepEqual(back, inv);
    assert.ok(verifyInventory(p, back));
    assert.deepEqual(inventoryId(p, back), p.crypto.fastHash(inventoryBodyBytes(p, inv)));
    assert.throws(() => signInventory(p, signer, id, 'large', 1), RangeError);
  });

  it('V2: with the data type byte, inside the signed bytes too', () => {
    for (const [type, byte] of [
      ['default', '00'],
      ['large', '01'],
    ] as const) {
      const inv = signInventory(p, signer, id, type, 2);
      const bytes = encodeInventory(inv);
      assert.equal(bytes.length, 32 + 32 + 32 + 1 + 64);
      assert.equal(hex(bytes.subarray(96, 97)), byte);
      assert.equal(hex(inventoryBodyBytes(p, inv)), hex(address) + '01'.repeat(32) + '02'.repeat(32) + byte);
      const back = decodeInventory(p, 44, bytes);
      assert.deepEqual(back, inv);
      assert.ok(verifyInventory(p, back));
      // The type is signed: flipping it breaks the signature.
      const flipped = Uint8Array.from(bytes);
      flipped[96] = flipped[96]! ^ 1;
      assert.equal(verifyInventory(p, decodeInventory(p, 44, flipped)), false);
    }
    assert.throws(
      () => decodeInventory(p, 44, new Uint8Array([...encodeInventory(signInventory(p, signer, id, 'default', 2))].map((b, i) => (i === 96 ? 7 : b)))),
      /data type 7/,
    );
    assert.throws(() => decodeInventory(p, 44, encodeInventory(signInventory(p, signer, id, 'default', 1))), MalformedPrivacyMessage);
    assert.throws(() => decodeInventory(p, 39, fill(159, 0)), MalformedPrivacyMessage);
  });

  it('a tampered inventory does not verify', () => {
    const inv = signInventory(p, signer, id, 'large', 2);
    assert.equal(verifyInventory(p, { ...inv, dataHash: fill(32, 3) }), false);
    assert.equal(verifyInventory(p, { ...inv, senderPublicKey: p.crypto.keyPairFromSeedPhrase('someone else').publicKey }), false);
  });
});

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

/** The frames re-cut at random points into frames of the same stream (magic on each, empty last). */
function recut(frames: Uint8Array[], seed: number): Uint8Array[] {
  const content = Buffer.concat(frames.filter((f) => f.length > 0).map((f) => f.subarray(4)));
  const out: Uint8Array[] = [];
  let x = seed;
  for (let at = 0; at < content.length;) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const n = Math.min(content.length - at, 1 + (x % 300));
    out.push(Buffer.concat([Buffer.from([0x87, 0x65, 0x43, 0x21]), content.subarray(at, at + n)]));
    at += n;
  }
  out.push(new Uint8Array(0));
  return out;
}

// eslint-disable-next-line @typescript-eslint/require-await -- an async source
async function* from(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

describe('the large-item stream', () => {
  const sender = p.crypto.keyPairFromSeedPhrase('weft privacy stream replier session');
  const receiver = p.crypto.keyPairFromSeedPhrase('weft privacy stream reader session');

  it('on TLS: frames of magic ‖ content, content = 0x01 ‖ u32 metaLen ‖ meta ‖ data, then an empty frame', async () => {
    const data = randomBytes(3000);
    const frames = await collect(itemFrames(meta, from([data.subarray(0, 1000), data.subarray(1000)]), 1024));
    const metaBytes = encodeItemMeta(meta);
    const content = Buffer.concat(frames.slice(0, -1).map((f) => f.subarray(4)));
    assert.equal(frames.at(-1)!.length, 0, 'an empty frame ends the stream');
    for (const f of frames.slice(0, -1)) {
      assert.equal(new DataView(f.buffer, f.byteOffset).getUint32(0), STREAM_CHUNK_MAGIC);
      assert.ok(f.length <= 1024 + 4);
    }
    assert.equal(hex(content.subarray(0, 5)), '01' + metaBytes.length.toString(16).padStart(8, '0'));
    assert.deepEqual(new Uint8Array(content.subarray(5, 5 + metaBytes.length)), metaBytes);
    assert.ok(content.subarray(5 + metaBytes.length).equals(data));
    for (const cut of [frames, recut(frames, 1), recut(frames, 2)]) {
      const got = await readItemFrames(from(cut));
      assert.equal(got.status, 'data');
      if (got.status !== 'data') return;
      assert.deepEqual(got.meta, meta);
      assert.ok(Buffer.concat(await collect(got.data)).equals(data));
    }
  });

  it('on a plain channel: 0x01 ‖ u32 chunkSize ‖ wrappedKey ‖ u32 metaLen ‖ the stream cipher over meta ‖ data', async () => {
    const data = randomBytes(5000);
    const frames = await collect(
      itemFrames(meta, from([data]), 1024, { transport: WAVES, senderPrivateKey: sender.privateKey, recipientPublicKey: receiver.publicKey }),
    );
    const content = Buffer.concat(frames.slice(0, -1).map((f) => f.subarray(4)));
    const metaBytes = encodeItemMeta(meta);
    assert.equal(hex(content.subarray(0, 5)), '01' + '00000400');
    const wrapped = content.subarray(5, 53);
    assert.equal(content.readUInt32BE(53), metaBytes.length);
    // The cipher, opened by hand with the content key the wrapped key carries.
    const cek = (await import('../../src/crypto/encryption.js')).openAesGcm(x25519SharedSecret(receiver.privateKey, sender.publicKey), wrapped);
    const decryptor = new StreamDecryptor(cek, 1024);
    const plain = Buffer.concat([decryptor.update(content.subarray(57)), decryptor.final()]);
    assert.ok(plain.equals(Buffer.concat([metaBytes, data])));
    const got = await readItemFrames(from(recut(frames, 3)), { transport: WAVES, recipientPrivateKey: receiver.privateKey, senderPublicKey: sender.publicKey });
    assert.equal(got.status, 'data');
    if (got.status !== 'data') return;
    assert.deepEqual(got.meta, meta);
    assert.ok(Buffer.concat(await collect(got.data)).equals(data));
  });

  it('round-trips any data in any framing, TLS or encrypted', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 4000 }),
        fc.integer({ min: 64, max: 2048 }),
        fc.boolean(),
        fc.nat(),
        async (data, chunkSize, encrypted, seed) => {
          const enc = encrypted ? { transport: WAVES, senderPrivateKey: sender.privateKey, recipientPublicKey: receiver.publicKey } : undefined;
          const frames = recut(await collect(itemFrames(meta, from([data]), chunkSize, enc)), seed);
          const got = await readItemFrames(
            from(frames),
            encrypted ? { transport: WAVES, recipientPrivateKey: receiver.privateKey, senderPublicKey: sender.publicKey } : undefined,
          );
          assert.equal(got.status, 'data');
          if (got.status === 'data') assert.ok(Buffer.concat(await collect(got.data)).equals(Buffer.from(data)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('carries the refusals: 0x00 no data, 0x02 overloaded', async () => {
    const none = await collect(refusalFrames('no-data'));
    assert.deepEqual(none.map(hex), ['8765432100', '']);
    assert.deepEqual(await readItemFrames(from(none)), { status: 'no-data' });
    const busy = await collect(refusalFrames('overloaded'));
    assert.deepEqual(busy.map(hex), ['8765432102', '']);
    assert.deepEqual(await readItemFrames(from(busy)), { status: 'overloaded' });
  });

  it('refuses a frame without the magic, a stream without its end, a bad status, cut metadata, a tampered cipher', async () => {
    const frames = await collect(itemFrames(meta, from([fill(100, 1)]), 64));
    const noMagic = frames.map((f, i) => (i === 1 ? Uint8Array.from(f).fill(0, 0, 4) : f));
    await assert.rejects(readThrough(noMagic), MalformedItemStream);
    await assert.rejects(readThrough(frames.slice(0, -1)), /without its empty end frame/);
    await assert.rejects(readItemFrames(from(await collect(framesOf(from([Uint8Array.of(7)]), 16)))), /status byte 7/);
    await assert.rejects(readItemFrames(from(await collect(framesOf(from([Uint8Array.of(0, 1)]), 16)))), /bytes after/);
    await assert.rejects(readItemFrames(from(await collect(framesOf(from([Uint8Array.of(1, 0, 0, 0, 50, 1, 2)]), 16)))), /ended inside the metadata/);
    const encrypted = await collect(
      itemFrames(meta, from([fill(3000, 2)]), 256, { transport: WAVES, senderPrivateKey: sender.privateKey, recipientPublicKey: receiver.publicKey }),
    );
    const tampered = encrypted.map((f, i) => (i === 5 ? Uint8Array.from(f).map((b, j) => (j === 40 ? b ^ 1 : b)) : f));
    await assert.rejects(
      readThrough(tampered, { transport: WAVES, recipientPrivateKey: receiver.privateKey, senderPublicKey: sender.publicKey }),
      /Tag mismatch/,
    );
  });
});

describe('on a GOST network (104-byte session keys, 96-byte wrapped structures)', async () => {
  const gost = await Protocol.create({ crypto: 'gost', chainId: 'T' });
  const GOST = transportEncryptionFor('gost');
  // Session keys as the handshake carries them: an ephemeral GOST key pair, its public half as a SubjectPublicKeyInfo.
  const session = (): { privateKey: Uint8Array; publicKey: Uint8Array } => {
    const pair = gost.crypto.generateKeyPair();
    return { privateKey: pair.privateKey, publicKey: gostSubjectPublicKeyInfo(pair.publicKey) };
  };
  const sender = session();
  const receiver = session();
  const stranger = session();

  it('a small item: ‖ 1 ‖ structure(96) ‖ u32 len ‖ Kuznyechik ciphertext as long as the payload, opened only by the peer', () => {
    assert.equal(sender.publicKey.length, 104);
    const payload = encodeStrictPayload(meta, randomBytes(3000));
    const sealed = GOST.encrypt(payload, sender.privateKey, receiver.publicKey);
    assert.equal(sealed.wrappedKey.length, 96);
    assert.equal(sealed.encrypted.length, payload.length);
    assert.ok(!Buffer.from(sealed.encrypted).equals(Buffer.from(payload)));
    const bytes = encodePrivateDataResponse({ ...id, kind: 'encrypted', ...sealed });
    assert.equal(privateDataResponseLength(payload.length, GOST), bytes.length);
    assert.equal(hex(bytes.subarray(64, 65)), '01');
    assert.equal(Buffer.from(bytes).readUInt32BE(65 + 96), payload.length);
    const back = decodePrivateDataResponse(bytes, GOST.wrappedKeyLength);
    assert.equal(back.kind, 'encrypted');
    if (back.kind !== 'encrypted') return;
    assert.deepEqual(GOST.decrypt(back.encrypted, back.wrappedKey, receiver.privateKey, sender.publicKey), payload);
    assert.throws(() => GOST.decrypt(back.encrypted, back.wrappedKey, stranger.privateKey, sender.publicKey), /does not verify/);
    assert.throws(() => decodePrivateDataResponse(bytes, 48), MalformedPrivacyMessage, 'a WAVES reading of a GOST answer does not fit');
  });

  it('a large item: 0x01 ‖ u32 chunkSize ‖ structure(96, KExp15 header zero-padded) ‖ u32 metaLen ‖ Kuznyechik chunks, in any framing', async () => {
    const enc = { transport: GOST, senderPrivateKey: sender.privateKey, recipientPublicKey: receiver.publicKey };
    const dec = { transport: GOST, recipientPrivateKey: receiver.privateKey, senderPublicKey: sender.publicKey };
    const data = randomBytes(20_000);
    const frames = await collect(itemFrames(meta, from([data.subarray(0, 7000), data.subarray(7000)]), 1024, enc));
    const content = Buffer.concat(frames.slice(0, -1).map((f) => f.subarray(4)));
    assert.equal(hex(content.subarray(0, 5)), '01' + '00000400');
    assert.equal(hex(content.subarray(5 + 80, 5 + 96)), '00'.repeat(16));
    assert.equal(content.readUInt32BE(101), encodeItemMeta(meta).length);
    // 32 bytes of IV and MAC per 1024-byte chunk; the data never shows in clear.
    const cipher = content.subarray(105);
    assert.equal(cipher.length, encodeItemMeta(meta).length + data.length + 4 + 37 * Math.ceil(cipher.length / 1024));
    assert.equal(content.indexOf(data.subarray(5000, 5032)), -1);
    for (const cut of [1, 2, 5]) {
      const got = await readItemFrames(from(recut(frames, cut)), dec);
      assert.equal(got.status, 'data');
      if (got.status !== 'data') return;
      assert.deepEqual(got.meta, meta);
      assert.ok(Buffer.concat(await collect(got.data)).equals(data));
    }
    await assert.rejects(readThrough(frames, { ...dec, recipientPrivateKey: stranger.privateKey }), /does not verify/);
    const tampered = frames.map((f, i) => (i === 3 ? Uint8Array.from(f).map((b, j) => (j === 40 ? b ^ 1 : b)) : f));
    await assert.rejects(readThrough(tampered, dec), /chunk MAC does not verify/);
    const dropped = frames.filter((_, i) => i !== 4);
    await assert.rejects(readThrough(dropped, dec), /reordered or lost|MAC|index/);
  });
});

/** Reads a stream to its end (errors surface while the data streams). */
async function readThrough(frames: Uint8Array[], keys?: StreamDecryption): Promise<void> {
  const got = await readItemFrames(from(frames), keys);
  if (got.status === 'data') await collect(got.data);
}
