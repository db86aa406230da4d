/**
 * `/crypto/*` on a GOST dev node (in process, real REST server and keystore): the network's
 * algorithm is `gost-3412-2015-k` (reference/privacy-crypto-pki.md §5.1, §5.3):
 *
 * - encryptSeparate / encryptCommon / decrypt round trips between keystore accounts;
 * - the shapes of the reference: ciphertext as long as the text (Kuznyechik CFB, no IV or
 *   tag in it), 96-byte wrapped structures `agreementIV(16) ‖ contentIV(16) ‖ expUKM(8) ‖
 *   extendedUKM(8) ‖ wrappedKey(48)`; encryptCommon uses one content key and IV for all
 *   recipients (the same contentIV in every structure), each with its own UKM;
 * - `aes` is refused on a GOST network with WE's error 1 text; encryptCommon for no
 *   recipients is refused (199) as WE's GOST node does; an altered structure fails to decrypt (199).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { decodeBase58, decodeBase64, encodeBase58 } from '../../src/crypto/encoding.js';
import { devAccounts, devNodeConfig, type DevAccount } from '../../src/cli/dev.js';
import { Node } from '../../src/node/node.js';
import { httpRequest, type Answer } from '../../devkit/http.js';

const GOST = 'gost-3412-2015-k';
let node: Node;
let dir: string;
let accounts: DevAccount[];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-crypto-gost-'));
  const config = await devNodeConfig({ dataDir: dir, restPort: 0, p2pPort: 0, keystore: { scrypt: { N: 1024, r: 8, p: 1 } }, crypto: 'gost' });
  node = await Node.start({ ...config, miner: { ...config.miner, enabled: false } }, { logger: pino({ level: 'silent' }) });
  accounts = devAccounts(node.protocol);
});

after(async () => {
  await node?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, body: unknown): Promise<Answer> => httpRequest(node.url!, 'POST', path, body);

function encrypt(route: 'encryptSeparate' | 'encryptCommon', from: DevAccount, to: readonly DevAccount[], text: string, cryptoAlgo = GOST): Promise<Answer> {
  return post(`/crypto/${route}`, {
    sender: from.address,
    password: from.keystorePassword,
    encryptionText: text,
    recipientsPublicKeys: to.map((a) => encodeBase58(a.keyPair.publicKey)),
    cryptoAlgo,
  });
}

function decrypt(as: DevAccount, from: DevAccount, encryptedText: string, wrappedKey: string): Promise<Answer> {
  return post('/crypto/decrypt', {
    recipient: as.address,
    password: as.keystorePassword,
    encryptedText,
    wrappedKey,
    senderPublicKey: encodeBase58(from.keyPair.publicKey),
    cryptoAlgo: GOST,
  });
}

describe('/crypto on a GOST network (gost-3412-2015-k)', { timeout: 60_000 }, () => {
  const text = 'Встреча в 10:00 — meet at ten';
  const textBytes = Buffer.byteLength(text, 'utf8');

  it('encryptSeparate: a ciphertext per recipient, as long as the text, with 96-byte structures; each recipient decrypts its own', async () => {
    const [a, b, c] = accounts as [DevAccount, DevAccount, DevAccount];
    const r = await encrypt('encryptSeparate', a, [b, c], text);
    assert.equal(r.status, 200, r.text);
    const entries = r.json as Array<{ encryptedText: string; publicKey: string; wrappedKey: string }>;
    assert.deepEqual(
      entries.map((e) => e.publicKey),
      [b, c].map((x) => encodeBase58(x.keyPair.publicKey)),
    );
    for (const e of entries) {
      assert.equal(decodeBase64(e.encryptedText).length, textBytes);
      assert.equal(decodeBase58(e.wrappedKey).length, 96);
    }
    assert.notEqual(entries[0]!.encryptedText, entries[1]!.encryptedText, 'each recipient has its own content key');
    assert.deepEqual((await decrypt(b, a, entries[0]!.encryptedText, entries[0]!.wrappedKey)).json, { decryptedText: text });
    assert.deepEqual((await decrypt(c, a, entries[1]!.encryptedText, entries[1]!.wrappedKey)).json, { decryptedText: text });
    // b cannot open c's entry.
    const wrong = await decrypt(b, a, entries[1]!.encryptedText, entries[1]!.wrappedKey);
    assert.equal(wrong.status, 400, wrong.text);
    assert.equal(wrong.json.error, 199);
    assert.match(String(wrong.json.message), /^Decryption failed: Error in decrypt/);
  });

  it('encryptCommon: one ciphertext and content IV for all, a structure per recipient with its own UKM; everyone decrypts', async () => {
    const [a, b, c, d] = accounts as [DevAccount, DevAccount, DevAccount, DevAccount];
    const r = await encrypt('encryptCommon', a, [b, c, d], text);
    assert.equal(r.status, 200, r.text);
    const { encryptedText, recipientToWrappedStructure } = r.json as { encryptedText: string; recipientToWrappedStructure: Record<string, string> };
    assert.equal(decodeBase64(encryptedText).length, textBytes);
    const structures = [b, c, d].map((x) => decodeBase58(recipientToWrappedStructure[encodeBase58(x.keyPair.publicKey)]!));
    for (const s of structures) assert.equal(s.length, 96);
    const part = (s: Uint8Array, from: number, to: number): string => Buffer.from(s.subarray(from, to)).toString('hex');
    assert.equal(new Set(structures.map((s) => part(s, 16, 32))).size, 1, 'one content IV');
    assert.equal(new Set(structures.map((s) => part(s, 0, 16))).size, 3, 'a UKM per recipient');
    for (const [i, x] of [b, c, d].entries()) {
      assert.deepEqual((await decrypt(x, a, encryptedText, encodeBase58(structures[i]!))).json, { decryptedText: text });
    }
    const altered = Uint8Array.from(structures[0]!);
    altered[60] = altered[60]! ^ 1;
    const r2 = await decrypt(b, a, encryptedText, encodeBase58(altered));
    assert.equal(r2.status, 400);
    assert.match(String(r2.json.message), /^Decryption failed: Error in decrypt: the wrapped key does not verify/);
  });

  it("refuses `aes` on a GOST network with WE's error 1, and encryptCommon for no recipients", async () => {
    const [a, b] = accounts as [DevAccount, DevAccount];
    const r = await encrypt('encryptSeparate', a, [b], text, 'aes');
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.error, 1);
    assert.deepEqual(r.json.validationErrors, { 'obj.cryptoAlgo': [{ msg: [`Unknown crypto algorithm 'aes'. Possible values: ${GOST}`], args: [] }] });
    const none = await encrypt('encryptCommon', a, [], text);
    assert.equal(none.status, 400, none.text);
    assert.equal(none.json.error, 199);
    assert.match(String(none.json.message), /^EncryptForMany failed: Cannot encrypt for an empty list of recipients/);
    assert.deepEqual((await encrypt('encryptSeparate', a, [], text)).json, []);
  });
});
