/**
 * `/crypto/*` through the HTTP layer: what one keystore account encrypts, every recipient
 * decrypts (with its own keystore key, and with the official JS client), and every refusal
 * WE gives, with its code and text.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, describe, it } from 'node:test';
import { decodeBase58, decodeBase64, encodeBase58 } from '../../src/crypto/encoding.js';
import { ENCRYPT_BODY_LIMIT } from '../../src/api/routes/crypto.js';
import { expectError } from './inject.js';
import { fixtureServer, FOURTH, MINER, OUTSIDER, SECOND, THIRD } from './fixture.js';

const require = createRequire(import.meta.url);
const jsTool = require('@wavesenterprise/js-sdk/raw/src/libs/cryptoTool.js') as {
  decrypt(recipientPrivateKey: string, senderPublicKey: string, encryptedText: string, wrappedKey: string): string;
  encryptSeparate(recipients: string[], senderPrivateKey: string, text: string): Array<{ encryptedText: string; publicKey: string; wrappedKey: string }>;
};

const f = fixtureServer();
after(() => f.app.close());
const client = f.client;
const pk = (a: { keyPair: { publicKey: Uint8Array } }): string => encodeBase58(a.keyPair.publicKey);
const TEXT = 'it is good weather today! — сегодня хорошая погода';

const decrypt = (recipient: typeof THIRD, encryptedText: string, wrappedKey: string, extra: Record<string, unknown> = {}) =>
  client.call('POST /crypto/decrypt', {
    body: { recipient: recipient.address.toString(), encryptedText, wrappedKey, senderPublicKey: pk(SECOND), cryptoAlgo: 'aes', ...extra },
  });

describe('/crypto/encryptSeparate, /crypto/encryptCommon, /crypto/decrypt', () => {
  it('encrypts separately for each recipient in order; each decrypts its own entry only', async () => {
    const r = await client.call('POST /crypto/encryptSeparate', {
      body: { sender: SECOND.address.toString(), password: 'secret', encryptionText: TEXT, recipientsPublicKeys: [pk(THIRD), pk(FOURTH)], cryptoAlgo: 'aes' },
    });
    assert.equal(r.status, 200, r.text);
    const entries = r.body as Array<{ encryptedText: string; publicKey: string; wrappedKey: string }>;
    assert.deepEqual(
      entries.map((e) => e.publicKey),
      [pk(THIRD), pk(FOURTH)],
    );
    assert.equal(decodeBase58(entries[0]!.wrappedKey).length, 48);
    assert.equal(decodeBase64(entries[0]!.encryptedText).length, Buffer.byteLength(TEXT) + 32);
    assert.notEqual(entries[0]!.encryptedText, entries[1]!.encryptedText, 'a content key per recipient');
    for (const [i, recipient] of [THIRD, FOURTH].entries()) {
      const d = await decrypt(recipient, entries[i]!.encryptedText, entries[i]!.wrappedKey);
      assert.equal(d.status, 200, d.text);
      assert.deepEqual(d.body, { decryptedText: TEXT });
    }
    expectError(await decrypt(FOURTH, entries[0]!.encryptedText, entries[0]!.wrappedKey), 400, 199, 'Decryption failed: Error in AES decrypt: Tag mismatch');
  });

  it('encrypts once for everyone; each recipient (and the JS client with its key) opens the common text', async () => {
    const r = await client.call('POST /crypto/encryptCommon', {
      body: {
        sender: SECOND.address.toString(),
        password: 'secret',
        encryptionText: TEXT,
        recipientsPublicKeys: [pk(THIRD), pk(FOURTH), pk(THIRD)],
        cryptoAlgo: 'aes',
      },
    });
    assert.equal(r.status, 200, r.text);
    const { encryptedText, recipientToWrappedStructure } = r.body;
    assert.deepEqual(Object.keys(recipientToWrappedStructure).sort(), [pk(THIRD), pk(FOURTH)].sort(), 'a key listed twice appears once');
    for (const recipient of [THIRD, FOURTH]) {
      assert.deepEqual((await decrypt(recipient, encryptedText, recipientToWrappedStructure[pk(recipient)]!)).body, { decryptedText: TEXT });
    }
    assert.equal(jsTool.decrypt(encodeBase58(FOURTH.keyPair.privateKey), pk(SECOND), encryptedText, recipientToWrappedStructure[pk(FOURTH)]!), TEXT);
  });

  it('decrypts what the official JS client encrypted', async () => {
    const [entry] = jsTool.encryptSeparate([pk(THIRD)], encodeBase58(SECOND.keyPair.privateKey), 'from the js client');
    assert.deepEqual((await decrypt(THIRD, entry!.encryptedText, entry!.wrappedKey)).body, { decryptedText: 'from the js client' });
  });

  it('answers an empty recipient list as WE does', async () => {
    const separate = await client.call('POST /crypto/encryptSeparate', {
      body: { sender: OUTSIDER.address.toString(), encryptionText: 'x', recipientsPublicKeys: [], cryptoAlgo: 'aes' },
    });
    assert.deepEqual(separate.body, [], 'no recipients: no sender lookup at all');
    const common = await client.call('POST /crypto/encryptCommon', {
      body: { sender: MINER.address.toString(), encryptionText: 'x', recipientsPublicKeys: [], cryptoAlgo: 'aes' },
    });
    assert.equal(common.status, 200, common.text);
    assert.deepEqual((common.body as { recipientToWrappedStructure: unknown }).recipientToWrappedStructure, {});
  });

  it('refuses a bad cryptoAlgo inside error 1, with any other field problem', async () => {
    const base = { sender: MINER.address.toString(), encryptionText: 'x', recipientsPublicKeys: [pk(THIRD)] };
    const unknown = expectError(await client.call('POST /crypto/encryptSeparate', { body: { ...base, cryptoAlgo: 'des' } }), 400, 1);
    assert.deepEqual(unknown['validationErrors'], { 'obj.cryptoAlgo': [{ msg: ["Unknown crypto algorithm 'des'. Possible values: aes"], args: [] }] });
    const empty = expectError(await client.call('POST /crypto/encryptCommon', { body: { ...base, cryptoAlgo: '' } }), 400, 1);
    assert.deepEqual(empty['validationErrors'], { 'obj.cryptoAlgo': [{ msg: ["'cryptoAlgo' parameter is required. Possible values: aes"], args: [] }] });
    const notString = expectError(
      await client.call('POST /crypto/decrypt', { body: { recipient: 'x', encryptedText: '', wrappedKey: '', senderPublicKey: '', cryptoAlgo: 1 } }),
      400,
      1,
    );
    assert.deepEqual(notString['validationErrors'], { 'obj.cryptoAlgo': [{ msg: ["Invalid 'cryptoAlgo' parameter. Expected string value."], args: [] }] });
    const both = expectError(
      await client.call('POST /crypto/encryptSeparate', { body: { encryptionText: 'x', recipientsPublicKeys: [], cryptoAlgo: 'x' } }),
      400,
      1,
    );
    assert.deepEqual(Object.keys(both['validationErrors'] as object), ['obj.sender', 'obj.cryptoAlgo']);
    const missing = expectError(await client.call('POST /crypto/encryptSeparate', { body: base }), 400, 1);
    assert.deepEqual(missing['validationErrors'], { 'obj.cryptoAlgo': [{ msg: ['error.path.missing'], args: [] }] });
  });

  it("refuses bad addresses, keys, passwords and encodings with WE's codes", async () => {
    const encrypt = (body: Record<string, unknown>) =>
      client.call('POST /crypto/encryptSeparate', {
        body: { sender: MINER.address.toString(), encryptionText: 'x', recipientsPublicKeys: [pk(THIRD)], cryptoAlgo: 'aes', ...body },
      });
    expectError(await encrypt({ sender: 'nonsense' }), 400, 102, /^invalid address/);
    expectError(await encrypt({ sender: OUTSIDER.address.toString() }), 400, 115);
    expectError(await encrypt({ sender: SECOND.address.toString(), password: 'wrong' }), 400, 115);
    expectError(
      await encrypt({ recipientsPublicKeys: [pk(THIRD), 'bad-key'] }),
      400,
      108,
      /^invalid public key: Can't create public key from string 'bad-key'/,
    );
    const ok = (await encrypt({})).body as Array<{ encryptedText: string; wrappedKey: string }>;
    expectError(await decrypt(THIRD, '%%%', ok[0]!.wrappedKey), 400, 199, /^Illegal base64 character/);
    expectError(await decrypt(THIRD, ok[0]!.encryptedText, '0OIl'), 400, 199, /Wrong char/);
    expectError(await decrypt(THIRD, ok[0]!.encryptedText, ok[0]!.wrappedKey, { senderPublicKey: 'x' }), 400, 108);
    expectError(await decrypt(OUTSIDER, ok[0]!.encryptedText, ok[0]!.wrappedKey), 400, 115);
    // Decrypted as MINER's message (the sender was MINER, not SECOND): the wrapped key does not open.
    expectError(await decrypt(THIRD, ok[0]!.encryptedText, ok[0]!.wrappedKey), 400, 199, /^Decryption failed: /);
    assert.deepEqual((await decrypt(THIRD, ok[0]!.encryptedText, ok[0]!.wrappedKey, { senderPublicKey: pk(MINER) })).body, { decryptedText: 'x' });
    const cut = Buffer.from(decodeBase64(ok[0]!.encryptedText)).subarray(0, 20).toString('base64');
    expectError(await decrypt(THIRD, cut, ok[0]!.wrappedKey, { senderPublicKey: pk(MINER) }), 400, 199, /^Decryption failed: /);
  });

  it('takes at most 165 KiB on the encrypt routes (611), but more on decrypt', async () => {
    const big = 'x'.repeat(ENCRYPT_BODY_LIMIT);
    const r = await client.call('POST /crypto/encryptCommon', {
      body: { sender: MINER.address.toString(), encryptionText: big, recipientsPublicKeys: [pk(THIRD)], cryptoAlgo: 'aes' },
    });
    expectError(r, 400, 611, /^HttpEntity too big, actual size '\d+' bytes, max size '168960' bytes$/);
    const d = await decrypt(THIRD, Buffer.alloc(200_000).toString('base64'), '1');
    expectError(d, 400, 199, /^Decryption failed/);
  });
});
