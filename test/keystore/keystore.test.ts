/**
 * The keystore: per-key passwords (scrypt + AES-256-GCM), WE's error 115 for every failure
 * to unlock, tamper detection, reload, atomic 0600 writes, both crypto suites.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Protocol } from '../../src/protocol/protocol.js';
import { decodeBase64, encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import { DEFAULT_SCRYPT, Keystore, KeystoreError, type KeystoreOptions } from '../../src/keystore/keystore.js';
import { expectWeError } from '../support/errors.js';
import { tempDir } from '../../devkit/tmp.js';

const CHEAP: KeystoreOptions = { scrypt: { N: 1024, r: 8, p: 1 } };
const MESSAGE_115 = 'no private key for sender address in wallet or provided password is incorrect';

const waves = await Protocol.create({ crypto: 'waves', chainId: 'T' });

function fresh(protocol = waves, options = CHEAP): { ks: Keystore; file: string } {
  const file = join(tempDir('weft-ks-'), 'keystore.json');
  return { ks: Keystore.open(file, protocol.addresses, options), file };
}

type Doc = { entries: Array<{ address: string; publicKey: string; passwordProtected: boolean; cipher: Record<string, string>; kdf: Record<string, unknown> }> };
const readDoc = (file: string): Doc => JSON.parse(readFileSync(file, 'utf8')) as Doc;
const writeDoc = (file: string, doc: Doc): void => writeFileSync(file, JSON.stringify(doc));

describe('keystore', () => {
  it('round-trips key pairs with their passwords, for waves and gost', async () => {
    const gost = await Protocol.create({ crypto: 'gost', chainId: 'T' });
    for (const protocol of [waves, gost]) {
      const { ks, file } = fresh(protocol);
      const a = protocol.crypto.generateKeyPair();
      const b = protocol.crypto.keyPairFromSeedPhrase('keystore test b');
      const addrA = ks.addKeyPair(a, 'pass-a');
      const addrB = ks.addKeyPair(b, 'pässwörd b ✓');
      assert.equal(addrA, protocol.addresses.fromPublicKey(a.publicKey).toString());
      assert.deepEqual(ks.addresses(), [addrA, addrB]);
      const reopened = Keystore.open(file, protocol.addresses);
      assert.deepEqual(reopened.addresses(), [addrA, addrB]);
      assert.deepEqual(reopened.keyPair(addrA, 'pass-a'), { privateKey: a.privateKey, publicKey: a.publicKey });
      assert.deepEqual(reopened.keyPair(addrB, 'pässwörd b ✓').privateKey, b.privateKey);
      assert.deepEqual(reopened.publicKey(addrB), b.publicKey);
      // The file holds no private key in clear.
      const text = readFileSync(file, 'utf8');
      assert.ok(!text.includes(encodeBase58(a.privateKey)) && !text.includes(encodeBase64(a.privateKey)));
      assert.equal(readDoc(file).entries[0]!.publicKey, encodeBase58(a.publicKey));
    }
  });

  it('answers WE error 115 for a wrong or missing password and an unknown address', () => {
    const { ks } = fresh();
    const kp = waves.crypto.generateKeyPair();
    const address = ks.addKeyPair(kp, 'right');
    expectWeError(() => ks.keyPair(address, 'wrong'), 115, MESSAGE_115);
    expectWeError(() => ks.keyPair(address), 115, MESSAGE_115);
    expectWeError(() => ks.keyPair(address, ''), 115, MESSAGE_115);
    const other = waves.addresses.fromPublicKey(waves.crypto.generateKeyPair().publicKey).toString();
    expectWeError(() => ks.keyPair(other, 'right'), 115, MESSAGE_115);
    expectWeError(() => ks.publicKey(other), 115, MESSAGE_115);
    // A cached unlock does not let a wrong password through.
    assert.deepEqual(ks.keyPair(address, 'right').privateKey, kp.privateKey);
    expectWeError(() => ks.keyPair(address, 'wrong'), 115, MESSAGE_115);
    assert.deepEqual(ks.keyPair(address, 'right').privateKey, kp.privateKey);
  });

  it('unlocks an entry with the empty password whatever password is given, as WE does for plain entries', () => {
    const { ks, file } = fresh();
    const kp = waves.crypto.generateKeyPair();
    const address = ks.addKeyPair(kp, '');
    assert.equal(readDoc(file).entries[0]!.passwordProtected, false);
    for (const pw of [undefined, '', 'anything']) assert.deepEqual(ks.keyPair(address, pw).privateKey, kp.privateKey);
  });

  it('detects tampering: any changed byte of an entry, or a ciphertext moved to another entry, is 115', () => {
    const { ks, file } = fresh();
    const a = ks.addKeyPair(waves.crypto.generateKeyPair(), 'same');
    const b = ks.addKeyPair(waves.crypto.generateKeyPair(), 'same');
    const original = readDoc(file);
    const flip = (b64: string): string => {
      const bytes = decodeBase64(b64);
      bytes[0] = bytes[0]! ^ 1;
      return encodeBase64(bytes);
    };
    for (const field of ['ciphertext', 'tag', 'nonce'] as const) {
      const doc = readDoc(file);
      doc.entries[0]!.cipher[field] = flip(doc.entries[0]!.cipher[field]!);
      writeDoc(file, doc);
      ks.reload();
      expectWeError(() => ks.keyPair(a, 'same'), 115);
    }
    const salted = structuredClone(original);
    salted.entries[0]!.kdf['salt'] = flip(salted.entries[0]!.kdf['salt'] as string);
    writeDoc(file, salted);
    ks.reload();
    expectWeError(() => ks.keyPair(a, 'same'), 115);
    // Same password, ciphertexts swapped: the authenticated data binds each to its address.
    const swapped = structuredClone(original);
    [swapped.entries[0]!.cipher, swapped.entries[1]!.cipher] = [swapped.entries[1]!.cipher, swapped.entries[0]!.cipher];
    [swapped.entries[0]!.kdf, swapped.entries[1]!.kdf] = [swapped.entries[1]!.kdf, swapped.entries[0]!.kdf];
    writeDoc(file, swapped);
    ks.reload();
    expectWeError(() => ks.keyPair(a, 'same'), 115);
    expectWeError(() => ks.keyPair(b, 'same'), 115);
    // Back to the original: both unlock again.
    writeDoc(file, original);
    ks.reload();
    ks.keyPair(a, 'same');
    ks.keyPair(b, 'same');
    // A public key that does not match its address is a corrupt file.
    const mismatched = structuredClone(original);
    mismatched.entries[0]!.publicKey = mismatched.entries[1]!.publicKey;
    writeDoc(file, mismatched);
    assert.throws(
      () => ks.reload(),
      (e: unknown) => e instanceof KeystoreError && /entries\[0\]\.address does not match its public key/.test(e.message),
    );
  });

  it('reload() sees keys another process added; addKeyPair keeps them', () => {
    const { ks, file } = fresh();
    const other = Keystore.open(file, waves.addresses, CHEAP);
    const a = ks.addKeyPair(waves.crypto.generateKeyPair(), 'a');
    const b = other.addKeyPair(waves.crypto.generateKeyPair(), 'b');
    assert.deepEqual(other.addresses(), [a, b]);
    assert.deepEqual(ks.addresses(), [a]);
    expectWeError(() => ks.keyPair(b, 'b'), 115);
    ks.reload();
    assert.deepEqual(ks.addresses(), [a, b]);
    ks.keyPair(b, 'b');
    const c = other.addKeyPair(waves.crypto.generateKeyPair(), 'c');
    const d = ks.addKeyPair(waves.crypto.generateKeyPair(), 'd');
    assert.deepEqual(Keystore.open(file, waves.addresses).addresses(), [a, b, c, d]);
  });

  it('writes the file atomically with mode 0600 and leaves no temp files', () => {
    const { ks, file } = fresh();
    ks.addKeyPair(waves.crypto.generateKeyPair(), 'x');
    ks.addKeyPair(waves.crypto.generateKeyPair(), 'y');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const dir = join(file, '..');
    assert.deepEqual(readdirSync(dir), ['keystore.json']);
  });

  it('uses scrypt with the default cost unless told otherwise, and records it per entry', () => {
    const { ks, file } = fresh(waves, {});
    const address = ks.addKeyPair(waves.crypto.keyPairFromSeedPhrase('default cost'), 'pw');
    const kdf = readDoc(file).entries[0]!.kdf;
    assert.deepEqual({ name: kdf['name'], N: kdf['N'], r: kdf['r'], p: kdf['p'] }, { name: 'scrypt', ...DEFAULT_SCRYPT });
    assert.equal(decodeBase64(kdf['salt'] as string).length, 16);
    // A keystore opened with other options still reads entries by their own parameters.
    assert.ok(Keystore.open(file, waves.addresses, CHEAP).keyPair(address, 'pw'));
  });

  it('refuses duplicate keys, mismatched key pairs, other networks and malformed files', async () => {
    const { ks, file } = fresh();
    const kp = waves.crypto.generateKeyPair();
    ks.addKeyPair(kp, 'x');
    assert.throws(() => ks.addKeyPair(kp, 'y'), /is already in the keystore/);
    assert.throws(
      () => ks.addKeyPair({ privateKey: kp.privateKey, publicKey: waves.crypto.generateKeyPair().publicKey }, 'z'),
      /does not belong to the private key/,
    );
    assert.throws(() => ks.addKeyPair({ privateKey: kp.privateKey, publicKey: kp.publicKey.subarray(1) }, 'z'), /public key must be 32 bytes/);
    const otherChain = await Protocol.create({ crypto: 'waves', chainId: 'E' });
    assert.throws(() => Keystore.open(file, otherChain.addresses), /holds keys of chain 'T' \(waves crypto\), but this network is chain 'E'/);
    writeFileSync(file, '{ not json');
    assert.throws(() => ks.reload(), /is not valid JSON/);
    writeFileSync(file, JSON.stringify({ format: 'weft-keystore', version: 2 }));
    assert.throws(() => ks.reload(), /unsupported keystore version 2/);
    writeFileSync(file, JSON.stringify({ format: 'weft-keystore', version: 1, crypto: 'waves', chainId: 'T', entries: [{ address: 'x' }] }));
    assert.throws(() => ks.reload(), KeystoreError);
    // An empty file is an empty keystore.
    writeFileSync(file, '');
    ks.reload();
    assert.deepEqual(ks.addresses(), []);
  });

  it('refuses absurd scrypt parameters in a file', () => {
    const { ks, file } = fresh();
    ks.addKeyPair(waves.crypto.generateKeyPair(), 'x');
    const doc = readDoc(file);
    doc.entries[0]!.kdf['N'] = 2 ** 30;
    writeDoc(file, doc);
    assert.throws(() => ks.reload(), /scrypt parameters out of range/);
  });
});

describe('keystore under password guessing', () => {
  /** The WeError an async unlock rejects with. */
  async function rejection(p: Promise<unknown>): Promise<() => never> {
    try {
      await p;
    } catch (e) {
      return () => {
        throw e;
      };
    }
    return assert.fail('expected the unlock to fail');
  }

  it('unlock derives off the event loop: the loop keeps turning while a wrong-password flood runs, every one answered 115', async () => {
    const { ks } = fresh(waves, { scrypt: { N: 2 ** 14, r: 8, p: 1 }, unlockLimit: { maxFailures: 1000, windowMs: 60_000 } });
    const address = ks.addKeyPair(waves.crypto.generateKeyPair(), 'right');
    let turns = 0;
    const ticker = setInterval(() => turns++, 1);
    const attempts = Array.from({ length: 16 }, (_, i) => rejection(ks.unlock(address, `wrong-${i}`)));
    // Nothing of the flood has run on this thread yet: the attempts are all pending.
    const settled = await Promise.all(attempts);
    clearInterval(ticker);
    for (const thrown of settled) expectWeError(thrown, 115, MESSAGE_115);
    assert.ok(turns > 0, 'timers fired while the derivations ran');
    // The right password unlocks, and the key stays unlocked (the sync path finds it without deriving).
    const kp = await ks.unlock(address, 'right');
    assert.deepEqual(ks.keyPair(address, 'right'), kp);
  });

  it('after repeated wrong passwords an address refuses even the right one (115, 429) until the window passes; other addresses are untouched', async () => {
    let now = 1_000_000;
    const { ks } = fresh(waves, { ...CHEAP, unlockLimit: { maxFailures: 3, windowMs: 60_000 }, now: () => now });
    const address = ks.addKeyPair(waves.crypto.generateKeyPair(), 'right');
    const other = ks.addKeyPair(waves.crypto.generateKeyPair(), 'other');
    for (let i = 0; i < 3; i++) expectWeError(await rejection(ks.unlock(address, 'wrong')), 115, MESSAGE_115);
    const limited = expectWeError(await rejection(ks.unlock(address, 'right')), 115, /too many wrong passwords .* try again in 60 s/);
    assert.equal(limited.status, 429);
    expectWeError(() => ks.keyPair(address, 'right'), 115, /too many wrong passwords/);
    assert.ok((await ks.unlock(other, 'other')).privateKey.length > 0);
    now += 30_000;
    expectWeError(await rejection(ks.unlock(address, 'right')), 115, /try again in 30 s/);
    now += 30_000;
    assert.ok((await ks.unlock(address, 'right')).privateKey.length > 0);
    // A success clears the count; a key already unlocked is served whatever the count.
    for (let i = 0; i < 3; i++) expectWeError(await rejection(ks.unlock(address, 'wrong')), 115, MESSAGE_115);
    assert.ok((await ks.unlock(address, 'right')).privateKey.length > 0);
  });

  it('a burst of concurrent wrong passwords gets no more tries than the limit', async () => {
    const { ks } = fresh(waves, { ...CHEAP, unlockLimit: { maxFailures: 4, windowMs: 60_000 } });
    const address = ks.addKeyPair(waves.crypto.generateKeyPair(), 'right');
    const settled = await Promise.all(Array.from({ length: 20 }, (_, i) => rejection(ks.unlock(address, `guess-${i}`))));
    const limited = settled.filter((thrown) => expectWeError(thrown, 115).status === 429);
    assert.equal(limited.length, 16);
  });
});
