import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base58 } from '@scure/base';
import fc from 'fast-check';
import { bytesKey, decodeBase58, encodeBase58, EncodingError } from '../../src/crypto/encoding.js';

/** Bytes with a run of leading zeros, as ids, keys and addresses sometimes have. */
const bytesWithLeadingZeros = fc.tuple(fc.nat(6), fc.uint8Array({ maxLength: 300 })).map(([zeros, rest]) => {
  const out = new Uint8Array(zeros + rest.length);
  out.set(rest, zeros);
  return out;
});

const base58Text = fc
  .tuple(fc.nat(6), fc.array(fc.constantFrom(...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'), { maxLength: 400 }))
  .map(([ones, chars]) => '1'.repeat(ones) + chars.join(''));

describe('Base58 codec', () => {
  it('encodes exactly as @scure/base (Bitcoin alphabet), leading zeros included', () => {
    fc.assert(
      fc.property(bytesWithLeadingZeros, (bytes) => {
        assert.equal(encodeBase58(bytes), bytes.length === 0 ? '' : base58.encode(bytes));
      }),
      { numRuns: 3000 },
    );
  });

  it('decodes exactly as @scure/base, leading ones included', () => {
    fc.assert(
      fc.property(base58Text, (text) => {
        assert.deepEqual(decodeBase58(text), text === '' ? new Uint8Array(0) : base58.decode(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('round-trips the sizes the protocol uses, at their extremes', () => {
    for (const size of [1, 2, 3, 4, 5, 20, 26, 32, 64, 140, 512, 513, 1000]) {
      for (const fill of [0x00, 0x01, 0x7f, 0xff]) {
        const bytes = new Uint8Array(size).fill(fill);
        const text = encodeBase58(bytes);
        assert.equal(text, base58.encode(bytes));
        assert.deepEqual(decodeBase58(text), bytes);
      }
    }
    assert.equal(encodeBase58(new Uint8Array(0)), '');
    assert.deepEqual(decodeBase58(''), new Uint8Array(0));
  });

  it("refuses a char outside the alphabet with WE's wording", () => {
    for (const bad of ['0', 'O', 'I', 'l', '+', 'é', ' ']) {
      assert.throws(
        () => decodeBase58(`3N${bad}x`),
        (e: unknown) => e instanceof EncodingError && e.message === `assertion failed: Wrong char '${bad}' in Base58 string '3N${bad}x'`,
      );
    }
  });
});

describe('bytesKey', () => {
  it('is one char per byte (latin1) for short and long inputs and for views into larger buffers', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(8), (bytes, offset) => {
        const backing = new Uint8Array(offset + bytes.length + 3).fill(0xee);
        backing.set(bytes, offset);
        const view = backing.subarray(offset, offset + bytes.length);
        const latin1 = Buffer.from(bytes).toString('latin1');
        assert.equal(bytesKey(bytes), latin1);
        assert.equal(bytesKey(view), latin1);
      }),
    );
  });

  it('is latin1 for the lengths it passes byte by byte (addresses, ids) and their neighbours', () => {
    for (const n of [25, 26, 27, 31, 32, 33]) {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: n, maxLength: n }), fc.nat(8), (bytes, offset) => {
          const view = new Uint8Array(offset + n + 3).fill(0xee).subarray(offset, offset + n);
          view.set(bytes);
          const latin1 = Buffer.from(bytes).toString('latin1');
          assert.equal(bytesKey(bytes), latin1);
          assert.equal(bytesKey(view), latin1);
        }),
      );
    }
  });

  it('tells apart inputs that differ in one byte or in length (a 64- and a 65-byte input alike)', () => {
    for (const n of [26, 32, 64, 65]) {
      const a = new Uint8Array(n).fill(7);
      const b = a.slice();
      b[n - 1] = 8;
      assert.notEqual(bytesKey(a), bytesKey(b));
      assert.notEqual(bytesKey(a), bytesKey(a.subarray(0, n - 1)));
    }
  });
});
