import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AddressScheme, Alias } from '../../src/crypto/address.js';
import { base64DecodedLength, decodeBase58, decodeBase64, encodeBase58, EncodingError } from '../../src/crypto/encoding.js';
import { createWavesSuite } from '../../src/crypto/waves.js';
import { WeError } from '../../src/errors/catalogue.js';

const suite = await createWavesSuite();
const T = new AddressScheme('T'.charCodeAt(0), suite);
const V = new AddressScheme('V'.charCodeAt(0), suite);
const ADDR = '3N75XuUxaztmvSTXLie2ibFjXKZscqnMR3d';

function weError(f: () => unknown, code: number, message?: string | RegExp): WeError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof WeError, `expected a WeError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (typeof message === 'string') assert.equal(e.message, message);
    else if (message) assert.match(e.message, message);
    return e;
  }
  assert.fail('expected an error');
}

describe('addresses', () => {
  it('parses a valid address, with or without the address: prefix', () => {
    assert.equal(T.parseAddress(ADDR).toString(), ADDR);
    assert.equal(T.parseAddress(`address:${ADDR}`).toString(), ADDR);
    assert.equal(T.parseAddress(ADDR).chainId, 84);
  });

  it('reports each malformed address with WE code 102 and its reason', () => {
    weError(() => T.parseAddress('3N75XuUxaztmvSTXLie2ibFjXKZscqnMR3dXXXX'), 102, 'invalid address: Wrong address string length: max=36, actual: 39');
    weError(() => T.parseAddress('3N75XuUxaztmvSTXLie2ibFjXKZscqnMR3l'), 102, /^invalid address: Unable to decode base58: .*Wrong char 'l'/);
    weError(() => V.parseAddress(ADDR), 102, 'invalid address: Data from other network: expected: 86(V), actual: 84(T)');
    const bytes = decodeBase58(ADDR);
    bytes[25] = bytes[25]! ^ 1;
    weError(() => T.parseAddress(encodeBase58(bytes)), 102, /Bad address checksum/);
    weError(() => T.addressFromBytes(bytes.subarray(0, 20)), 102, 'invalid address: Wrong addressBytes length: expected: 26, actual: 20');
    const v2 = decodeBase58(ADDR);
    v2[0] = 2;
    weError(() => T.addressFromBytes(v2), 102, 'invalid address: Unknown address version: 2');
    weError(() => T.addressFromBytes(new Uint8Array(0)), 102);
    weError(() => T.parseAddress(''), 102);
  });

  it('an address read from bytes again is the same valid address; bytes that differ in any byte are still checked after it', () => {
    const scheme = new AddressScheme('T'.charCodeAt(0), suite);
    const bytes = decodeBase58(ADDR);
    const first = scheme.addressFromBytes(bytes);
    // A copy of the bytes (as a block read anew gives) reads as the same address.
    assert.equal(scheme.addressFromBytes(Uint8Array.from(bytes)).toString(), ADDR);
    assert.ok(scheme.addressFromBytes(Uint8Array.from(bytes)).equals(first));
    // The caller's buffer changing later does not change the address it read.
    const mutable = Uint8Array.from(bytes);
    const read = scheme.addressFromBytes(mutable);
    mutable[5] = mutable[5]! ^ 0xff;
    assert.equal(read.toString(), ADDR);
    for (let i = 0; i < bytes.length; i++) {
      const changed = Uint8Array.from(bytes);
      changed[i] = changed[i]! ^ 1;
      weError(() => scheme.addressFromBytes(changed), 102);
    }
    // Another network's scheme refuses it, whatever this one remembers.
    weError(() => V.addressFromBytes(bytes), 102, 'invalid address: Data from other network: expected: 86(V), actual: 84(T)');
  });

  it('never throws anything but a WeError for arbitrary text or bytes', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        try {
          T.parseRecipient(s);
        } catch (e) {
          assert.ok(e instanceof WeError, String(e));
        }
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (b) => {
        try {
          T.addressFromBytes(b);
        } catch (e) {
          assert.ok(e instanceof WeError, String(e));
        }
      }),
    );
  });

  it('builds aliases by WE rules and rejects the rest with GenericError 199', () => {
    const a = T.parseAlias('alias:T:john');
    assert.ok(a instanceof Alias);
    assert.equal(a.toString(), 'alias:T:john');
    assert.equal(Buffer.from(a.bytes).toString('hex'), '025400046a6f686e');
    assert.equal(T.parseRecipient('alias:T:john_doe@x.-0').toString(), 'alias:T:john_doe@x.-0');
    weError(() => T.alias('Joh n'), 199, 'Alias should contain only following characters: -.0123456789@_abcdefghijklmnopqrstuvwxyz');
    weError(() => T.alias('abc'), 199, "Alias 'abc' length should be between 4 and 30");
    weError(() => T.alias('a'.repeat(31)), 199, /length should be between 4 and 30/);
    weError(() => T.parseAlias('alias:V:john'), 199, "Alias network char doesn't match current scheme");
    weError(() => T.parseAlias('alias:Tjohn'), 199, "Alias string pattern is 'alias:<chain-id>:<address-alias>");
    weError(() => T.parseAlias('alias:'), 199);
    weError(() => T.aliasFromBytes(Buffer.from('025600046a6f686e', 'hex')), 199, "Alias network byte doesn't match current scheme");
    weError(() => T.aliasFromBytes(Buffer.from('03', 'hex')), 199, 'Bad alias bytes');
  });

  it('parses public keys with WE code 108 on failure', () => {
    assert.equal(T.parsePublicKey('FRacvWiuWqVJiTDFQEAG327Mh11ZbTuHgmi2p4SjBRyB').length, 32);
    weError(() => T.parsePublicKey(encodeBase58(new Uint8Array(31).fill(7))), 108, /Bad public key bytes length: expected: '32', found: '31'/);
    weError(() => T.parsePublicKey('0RacvWiuWqVJiTDFQEAG327Mh11ZbTuHgmi2p4SjBRyB'), 108, /Unable to decode base58/);
    weError(() => T.parsePublicKey('F'.repeat(45)), 108, /Bad public key string length: expected: '44', found: '45'/);
  });
});

describe('encodings', () => {
  it('round-trips Base58 with leading zeros', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (b) => {
        assert.deepEqual(decodeBase58(encodeBase58(b)), b);
      }),
    );
    assert.equal(encodeBase58(new Uint8Array([0, 0, 1])), '112');
    assert.deepEqual(decodeBase58(''), new Uint8Array(0));
  });

  it('decodes Base64 like Java, with an optional base64: prefix', () => {
    assert.deepEqual(decodeBase64('base64:AQID'), new Uint8Array([1, 2, 3]));
    assert.deepEqual(decodeBase64('AQI='), new Uint8Array([1, 2]));
    assert.deepEqual(decodeBase64('AQI'), new Uint8Array([1, 2]));
    assert.deepEqual(decodeBase64(''), new Uint8Array(0));
    for (const bad of ['A', 'AQ=', 'AQ===', 'A?B=', 'AQ ID', 'base64:AQ=I']) assert.throws(() => decodeBase64(bad), EncodingError, bad);
  });

  it('counts the bytes Base64 text decodes to without decoding it', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.boolean(), fc.boolean(), (bytes, prefixed, padded) => {
        let text = Buffer.from(bytes).toString('base64');
        if (!padded) text = text.replace(/=+$/, '');
        if (prefixed) text = `base64:${text}`;
        assert.equal(base64DecodedLength(text), decodeBase64(text).length);
      }),
    );
  });
});
