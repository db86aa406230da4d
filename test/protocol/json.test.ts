import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { JsonSyntaxError, parseJson, stringifyJson } from '../../src/protocol/json.js';

const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });

describe('int64-exact JSON', () => {
  it('parses integers beyond 2^53 as bigint with every digit', () => {
    const v = parseJson('{"amount":9223372036854775807,"fee":-9223372036854775808,"small":42,"big":[9007199254740993]}') as Record<string, unknown>;
    assert.equal(v['amount'], 9223372036854775807n);
    assert.equal(v['fee'], -9223372036854775808n);
    assert.equal(v['small'], 42);
    assert.deepEqual(v['big'], [9007199254740993n]);
  });

  it('keeps safe integers as numbers and floats as floats', () => {
    assert.deepEqual(parseJson('[9007199254740991,-9007199254740991,1.5,1e3,0,-0]'), [9007199254740991, -9007199254740991, 1.5, 1000, 0, -0]);
    // A float literal far beyond 2^53 stays a float: only integer literals become bigint.
    assert.deepEqual(parseJson('[1.5e300, 12345678901234567890.5]'), [1.5e300, Number('12345678901234567890.5')]);
  });

  it('writes bigint as bare numbers, or as strings on request', () => {
    const v = { a: 9223372036854775807n, b: [1n, -2n], c: 'x', d: null, e: true, f: 1.5 };
    assert.equal(stringifyJson(v), '{"a":9223372036854775807,"b":[1,-2],"c":"x","d":null,"e":true,"f":1.5}');
    assert.equal(stringifyJson(v, { int64AsString: true }), '{"a":"9223372036854775807","b":["1","-2"],"c":"x","d":null,"e":true,"f":1.5}');
  });

  it('writes any string and any key as JSON.stringify does (control characters, quotes, backslashes, lone surrogates)', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(text, text, (key, value) => {
        assert.equal(stringifyJson(value), JSON.stringify(value));
        assert.equal(stringifyJson({ [key]: [value] }), JSON.stringify({ [key]: [value] }));
      }),
    );
    for (const s of ['', '"', '\\', '\u0000', '\u001f', '\u007f', 'é', '\ud800', '\udc00x', '\ud83d\udd11', 'a"b\\c\nd'])
      assert.equal(stringifyJson([s]), JSON.stringify([s]), JSON.stringify(s));
  });

  it('round-trips any int64 and any JSON-compatible value', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(int64, fc.string(), fc.boolean(), fc.constant(null), fc.array(int64))), (obj) => {
        const back = parseJson(stringifyJson(obj)) as Record<string, unknown>;
        const norm = (x: unknown): unknown =>
          typeof x === 'bigint' && x >= BigInt(Number.MIN_SAFE_INTEGER) && x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x;
        for (const [k, v] of Object.entries(obj)) {
          if (Array.isArray(v)) assert.deepEqual(back[k], v.map(norm));
          else assert.deepEqual(back[k], norm(v));
        }
      }),
    );
  });

  it('agrees with JSON.parse on every text JSON.parse accepts, up to the digits JSON.parse loses', () => {
    const asNumbers = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x)));
    fc.assert(
      fc.property(fc.json(), (text) => {
        // Force the exact parser with a long integer appended, then compare the rest.
        const exact = parseJson(`[${text}, 12345678901234567890]`) as unknown[];
        assert.deepEqual(asNumbers(exact[0]), asNumbers(JSON.parse(text)));
        assert.equal(exact[1], 12345678901234567890n);
        assert.deepEqual(asNumbers(parseJson(text)), asNumbers(JSON.parse(text)));
      }),
    );
  });

  it('rejects malformed text with a JsonSyntaxError, never anything else', () => {
    for (const bad of [
      '',
      '{',
      '{"a":}',
      '[1,]',
      '{"a":1,}',
      '01',
      '-',
      '1.',
      '1e',
      '"\\x"',
      '"a\nb"',
      'tru',
      '{"a" 1}',
      '[12345678901234567890',
      '{"a":12345678901234567890',
    ]) {
      assert.throws(() => parseJson(bad), JsonSyntaxError, bad);
    }
    fc.assert(
      fc.property(fc.string(), (s) => {
        try {
          parseJson(`[99999999999999999999,${s}`);
        } catch (e) {
          assert.ok(e instanceof JsonSyntaxError, String(e));
        }
      }),
    );
  });

  it('keeps a __proto__ key as data, as JSON.parse does', () => {
    const v = parseJson('{"__proto__":{"polluted":true},"n":12345678901234567890}') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepEqual(Object.keys(v), ['__proto__', 'n']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('bounds nesting depth', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    assert.throws(() => parseJson(deep), JsonSyntaxError);
  });
});
