/**
 * The script reader (WE's ScriptReader / Serde / ScriptEstimator): every rule with WE's
 * error, malformed input, fixed vectors.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeBase64 } from '../../src/crypto/encoding.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { functionCost } from '../../src/ride/context.js';
import { E, type Expr } from '../../src/ride/expr.js';
import { estimateComplexity, MAX_SCRIPT_COMPLEXITY, readScript, scriptBytes } from '../../src/ride/script.js';
import { deserializeExpr, serializeExpr } from '../../src/ride/serde.js';
import { exprArb } from '../oracle/cases/scripts.js';
import { expectWeError } from '../support/errors.js';
import { WeError } from '../../src/errors/catalogue.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const gost = await Protocol.create({ crypto: 'gost', chainId: 'T' });

const b64 = (b: Uint8Array): string => `base64:${encodeBase64(b)}`;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));

/** version ‖ expression bytes ‖ a correct checksum (the expression need not be valid). */
function withChecksum(version: number, expr: Uint8Array, proto: Protocol = p): Uint8Array {
  const body = new Uint8Array([version, ...expr]);
  return new Uint8Array([...body, ...proto.crypto.secureHash(body).subarray(0, 4)]);
}

function parseError(bytes: Uint8Array, message: string | RegExp): WeError {
  const e = expectWeError(() => readScript(bytes, p), 199, typeof message === 'string' ? `ScriptParseError(${message})` : message);
  assert.equal(e.kind, 'ScriptParseError');
  return e;
}

/** Serde bytes of a string (i32 length ‖ UTF-8). */
const sized = (s: string | Uint8Array): number[] => {
  const b = typeof s === 'string' ? Buffer.from(s, 'utf8') : Buffer.from(s);
  return [...Buffer.from([0, 0, 0, 0].map((_, i) => (b.length >> (8 * (3 - i))) & 0xff)), ...b];
};

describe('script reader: fixed vectors', () => {
  it('reads the published TRUE scripts of RIDE V1 and V2 (waves crypto)', () => {
    const v1 = readScript(fromHex('0106b76fcb47'), p);
    assert.equal(v1.version, 1);
    assert.deepEqual(v1.expr, E.TRUE);
    assert.equal(v1.complexity, 1);
    assert.equal(b64(v1.bytes), 'base64:AQa3b8tH');
    assert.equal(b64(readScript(new Uint8Array(Buffer.from('AgZ7TN8j', 'base64')), p).bytes), 'base64:AgZ7TN8j');
  });

  it('uses the suite secureHash for the checksum (gost differs)', () => {
    const g = scriptBytes(1, E.TRUE, gost);
    assert.notEqual(hex(g), '0106b76fcb47');
    assert.equal(readScript(g, gost).version, 1);
    parseError(g, 'Invalid checksum');
  });

  it('serializes each expression kind as Serde does', () => {
    const expr = E.block('x', E.long(-2), E.if(E.native(0, E.ref('x'), E.getter(E.ref('tx'), 'fee')), E.bytes([1, 2]), E.user('f', E.str('é'))));
    const expected = [
      4,
      ...sized('x'),
      0,
      0xff,
      0xff,
      0xff,
      0xff,
      0xff,
      0xff,
      0xff,
      0xfe,
      3,
      9,
      0,
      0,
      0,
      0,
      0,
      0,
      2,
      5,
      ...sized('x'),
      8,
      5,
      ...sized('tx'),
      ...sized('fee'),
      1,
      ...sized(new Uint8Array([1, 2])),
      9,
      1,
      ...sized('f'),
      0,
      0,
      0,
      1,
      2,
      ...sized('é'),
    ];
    assert.deepEqual([...serializeExpr(expr)], expected);
    assert.deepEqual(deserializeExpr(Uint8Array.from(expected)), expr);
  });

  it("has WE's function costs (natives, constructors, user functions from their bodies)", () => {
    const costs: Array<[string | number, number]> = [
      [0, 1],
      [500, 100],
      [203, 10],
      [401, 2],
      [1003, 100],
      [1040, 10],
      ['!', 11],
      ['!=', 26],
      ['-', 9],
      ['throw', 2],
      ['extract', 13],
      ['isDefined', 35],
      ['takeRight', 19],
      ['dropRightBytes', 19],
      ['getInteger', 30],
      ['wavesBalance', 109],
      ['addressFromPublicKey', 62],
      ['addressFromString', 114],
      ['Address', 1],
      ['Order', 13],
      ['TransferTransaction', 13],
      ['GenesisTransaction', 6],
    ];
    for (const [f, cost] of costs) assert.equal(functionCost(typeof f === 'number' ? { native: f } : { user: f }), cost, String(f));
    assert.equal(functionCost({ native: 999 }), undefined);
    assert.equal(functionCost({ user: 'Buy' }), undefined);
  });

  it('estimates as WE: lets at first use, max of IF branches, leaked block lets', () => {
    assert.equal(estimateComplexity(E.if(E.TRUE, E.native(500), E.long(1)), 1), 1 + 100 + 1);
    // let x = sigVerify(); x == x → 5 + (1 + (100 + 2) + 2)
    assert.equal(estimateComplexity(E.block('x', E.native(500), E.native(0, E.ref('x'), E.ref('x'))), 1), 110);
    // An unused let costs nothing.
    assert.equal(estimateComplexity(E.block('x', E.native(500), E.TRUE), 1), 6);
    // A let stays visible after its block (WE's estimator leaks it).
    assert.equal(estimateComplexity(E.native(0, E.block('y', E.TRUE, E.TRUE), E.ref('y')), 1), 1 + 6 + 3);
    assert.equal(estimateComplexity(E.ref('Buy'), 2), 2);
    expectWeError(() => estimateComplexity(E.ref('Buy'), 1), 199, "ScriptParseError(ScriptValidator: Undeclared variable 'Buy')");
  });
});

describe('script reader: every rule, with WE messages', () => {
  it('empty script', () => {
    parseError(new Uint8Array(0), 'Empty script');
  });

  it('checksum (also for scripts shorter than a checksum)', () => {
    parseError(fromHex('0106b76fcb48'), 'Invalid checksum');
    parseError(fromHex('01'), 'Invalid checksum');
    parseError(fromHex('0106b7'), 'Invalid checksum');
  });

  it('version 1 or 2, printed as a signed byte', () => {
    parseError(withChecksum(3, Uint8Array.of(6)), 'Invalid version: 3');
    parseError(withChecksum(0, Uint8Array.of(6)), 'Invalid version: 0');
    parseError(withChecksum(0xff, Uint8Array.of(6)), 'Invalid version: -1');
  });

  it('expression at most 8192 bytes', () => {
    // A string constant filling exactly 8192 bytes is fine; one more byte is not.
    const ok = Uint8Array.from([2, ...sized('a'.repeat(8192 - 5))]);
    assert.equal(readScript(withChecksum(1, ok), p).complexity, 1);
    const big = Uint8Array.from([2, ...sized('a'.repeat(8192 - 4))]);
    parseError(withChecksum(1, big), 'Script is too large: 8193 bytes > 8192 bytes');
  });

  it("Serde failures carry the Java exception's message", () => {
    parseError(withChecksum(1, Uint8Array.of(10)), '10 (of class java.lang.Byte)');
    parseError(withChecksum(1, Uint8Array.of(0x80)), '-128 (of class java.lang.Byte)');
    // Buffer underflow: Java's exception has no message.
    parseError(withChecksum(1, new Uint8Array(0)), 'null');
    parseError(withChecksum(1, Uint8Array.of(0, 1, 2)), 'null');
    parseError(withChecksum(1, Uint8Array.of(3, 6, 6)), 'null');
    parseError(withChecksum(1, Uint8Array.of(2, 0xff, 0xff, 0xff, 0xff)), 'Invalid array size (-1)');
    // Larger than the whole buffer vs. larger than what is left.
    parseError(withChecksum(1, Uint8Array.of(2, 0, 0, 0, 9)), 'Invalid array size (9)');
    parseError(withChecksum(1, Uint8Array.of(2, 0, 0, 0, 5)), 'null');
    parseError(withChecksum(1, Uint8Array.of(9, 2, 0, 0)), 'Unknown function header type: 2');
    parseError(withChecksum(1, Uint8Array.of(6, 6, 7)), '2 bytes left');
  });

  it('estimator: undeclared names, unknown functions, complexity limit', () => {
    parseError(withChecksum(1, serializeExpr(E.ref('x'))), "ScriptValidator: Undeclared variable 'x'");
    parseError(withChecksum(1, serializeExpr(E.native(999))), "ScriptValidator: Unknown function 'Native(999)'");
    parseError(withChecksum(1, serializeExpr(E.native(-1))), "ScriptValidator: Unknown function 'Native(-1)'");
    parseError(withChecksum(2, serializeExpr(E.user('foo', E.TRUE))), "ScriptValidator: Unknown function 'User(foo)'");
    // Errors come in traversal order: the unknown function is met before the undeclared name.
    parseError(withChecksum(1, serializeExpr(E.if(E.native(998), E.ref('zz'), E.TRUE))), "ScriptValidator: Unknown function 'Native(998)'");
    // An unknown function in a let that is never used is never looked at.
    assert.equal(readScript(withChecksum(1, serializeExpr(E.block('x', E.native(998), E.TRUE))), p).complexity, 6);
    // 19 sigVerify calls fit (1900 + 18 IFs), 20 do not.
    const chain = (n: number): Expr => (n === 1 ? E.native(500) : E.if(E.native(500), chain(n - 1), E.TRUE));
    assert.equal(readScript(scriptBytes(1, chain(19), p), p).complexity, 1918);
    parseError(scriptBytes(1, chain(20), p), `Script is too complex: 2019 > ${MAX_SCRIPT_COMPLEXITY}`);
  });

  it('keeps the canonical (re-serialized) bytes, as WE does', () => {
    // Invalid UTF-8 in a string becomes U+FFFD; a negative argument count becomes 0.
    const odd = Uint8Array.of(3, 2, ...sized(Uint8Array.of(0xc3)), 9, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 6);
    const s = readScript(withChecksum(1, odd), p);
    const canonical = Uint8Array.of(3, 2, ...sized('\ufffd'), 9, 0, 0, 0, 0, 0, 0, 0, 6);
    assert.equal(hex(s.bytes), hex(withChecksum(1, canonical)));
    assert.equal(hex(readScript(s.bytes, p).bytes), hex(s.bytes));
  });

  it('reads deep expressions without exhausting the stack', () => {
    // 2700 nested IFs (8101 bytes): too complex, but answered cleanly.
    const deep = new Uint8Array(2700 * 3 + 1);
    deep.fill(3, 0, 2700);
    deep.fill(6, 2700);
    parseError(withChecksum(1, deep), 'Script is too complex: 5401 > 2000');
    // 900 nested getters: accepted.
    let e: Expr = E.ref('tx');
    for (let i = 0; i < 900; i++) e = E.getter(e, '');
    const s = readScript(scriptBytes(1, e, p), p);
    assert.equal(s.complexity, 2 + 900 * 2);
    assert.equal(hex(serializeExpr(s.expr)), hex(serializeExpr(e)));
  });

  it('stops an estimate that would blow up exponentially', () => {
    // l_k = if (true) then l_{k-1} else l_{k-1}: linear complexity, exponential work.
    let e: Expr = E.native(0, E.ref('l60'), E.TRUE);
    for (let k = 60; k >= 1; k--) e = E.block(`l${k}`, E.if(E.TRUE, E.ref(`l${k - 1}`), E.ref(`l${k - 1}`)), e);
    e = E.block('l0', E.TRUE, e);
    parseError(scriptBytes(1, e, p), /^ScriptParseError\(Script is too complex: estimation exceeds \d+ steps\)$/);
  });

  it('SerdeTest: the spec input decodes or fails at once; a 10 000-term sum serializes', () => {
    const spec = Int8Array.of(1, 113, -1, 63, 0, -1, 127, 0, -1, 39, -1, 87, -41, 50, -111, -38, 12, 1, 0, -19, 101, -128, -1, 54);
    assert.throws(() => deserializeExpr(new Uint8Array(spec.buffer)), /Invalid array size|bytes left|null/);
    let sum: Expr = E.long(0);
    for (let i = 1; i <= 10_000; i++) sum = E.native(100, sum, E.long(i));
    const bytes = serializeExpr(E.native(0, E.long(1), sum));
    assert.ok(bytes.length > 10_000 * 17);
    // (compared through bytes: a recursive deep-equal would itself exhaust the stack)
    assert.equal(hex(serializeExpr(deserializeExpr(bytes))), hex(bytes));
  });

  it('never fails with anything but a ScriptParseError on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.constantFrom(1, 2), (expr, v) => {
        try {
          readScript(withChecksum(v, expr), p);
        } catch (e) {
          assert.ok(e instanceof WeError && e.kind === 'ScriptParseError', String(e));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips random valid expressions', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<1 | 2>(1, 2).chain((v) => exprArb(v).map((e) => [v, e] as const)),
        ([v, e]) => {
          const bytes = scriptBytes(v, e, p);
          const s = readScript(bytes, p);
          assert.equal(hex(s.bytes), hex(bytes));
          assert.deepEqual(s.expr, e);
        },
      ),
      { numRuns: 300 },
    );
  });
});
