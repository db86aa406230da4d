/**
 * The script reader (WE's ScriptReader / Serde / ScriptEstimator) and SetScript (13),
 * SetAssetScript (15): every rule with WE's error, malformed input, fixed vectors.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBase58, encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { deserializeExpr, E, estimateComplexity, functionCost, MAX_SCRIPT_COMPLEXITY, readScript, scriptBytes, serializeExpr, type Expr } from '../../src/protocol/script.js';
import { SetAssetScript, SetScript } from '../../src/protocol/transactions/scripts.js';
import { exprArb } from '../oracle/cases/scripts.js';
import { WeError } from '../../src/errors/catalogue.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const gost = await Protocol.create({ crypto: 'gost', chainId: 'T' });
const kp = p.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
const PK = encodeBase58(kp.publicKey);
const ASSET = encodeBase58(new Uint8Array(32).fill(7));

const b64 = (b: Uint8Array): string => `base64:${encodeBase64(b)}`;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));

/** version ‖ expression bytes ‖ a correct checksum (the expression need not be valid). */
function withChecksum(version: number, expr: Uint8Array, proto: Protocol = p): Uint8Array {
  const body = new Uint8Array([version, ...expr]);
  return new Uint8Array([...body, ...proto.crypto.secureHash(body).subarray(0, 4)]);
}

function weError(f: () => unknown, code: number, message?: string | RegExp, kind?: string): WeError {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof WeError, `expected a WeError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (typeof message === 'string') assert.equal(caught.message, message);
  else if (message) assert.match(caught.message, message);
  if (kind !== undefined) assert.equal(caught.kind, kind);
  return caught;
}

const parseError = (bytes: Uint8Array, message: string | RegExp): WeError =>
  weError(() => readScript(bytes, p), 199, typeof message === 'string' ? `ScriptParseError(${message})` : message, 'ScriptParseError');

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
      4, ...sized('x'), 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
      3, 9, 0, 0, 0, 0, 0, 0, 2, 5, ...sized('x'), 8, 5, ...sized('tx'), ...sized('fee'),
      1, ...sized(new Uint8Array([1, 2])),
      9, 1, ...sized('f'), 0, 0, 0, 1, 2, ...sized('é'),
    ];
    assert.deepEqual([...serializeExpr(expr)], expected);
    assert.deepEqual(deserializeExpr(Uint8Array.from(expected)), expr);
  });

  it("has WE's function costs (natives, constructors, user functions from their bodies)", () => {
    const costs: Array<[string | number, number]> = [
      [0, 1], [500, 100], [203, 10], [401, 2], [1003, 100], [1040, 10],
      ['!', 11], ['!=', 26], ['-', 9], ['throw', 2], ['extract', 13], ['isDefined', 35], ['takeRight', 19], ['dropRightBytes', 19],
      ['getInteger', 30], ['wavesBalance', 109], ['addressFromPublicKey', 62], ['addressFromString', 114],
      ['Address', 1], ['Order', 13], ['TransferTransaction', 13], ['GenesisTransaction', 6],
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
    weError(() => estimateComplexity(E.ref('Buy'), 1), 199, "ScriptParseError(ScriptValidator: Undeclared variable 'Buy')");
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
      fc.property(fc.constantFrom<1 | 2>(1, 2).chain((v) => exprArb(v).map((e) => [v, e] as const)), ([v, e]) => {
        const bytes = scriptBytes(v, e, p);
        const s = readScript(bytes, p);
        assert.equal(hex(s.bytes), hex(bytes));
        assert.deepEqual(s.expr, e);
      }),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------
// SetScript and SetAssetScript

const TRUE_V1 = 'base64:AQa3b8tH';

const setScriptJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 13,
  version: 1,
  senderPublicKey: PK,
  script: TRUE_V1,
  name: 'my script',
  description: 'what it does',
  fee: 50000000,
  timestamp: 1700000000000,
  proofs: [],
  ...over,
});

const setAssetScriptJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 15,
  version: 1,
  senderPublicKey: PK,
  assetId: ASSET,
  script: TRUE_V1,
  fee: 100000000,
  timestamp: 1700000000000,
  proofs: [],
  ...over,
});

const fromJson = (json: Record<string, unknown>) => p.transactionFromJson(parseJson(stringifyJson(json)));

function binaryOf(json: Record<string, unknown>, patch?: (bytes: Uint8Array) => void): Uint8Array {
  const bytes = fromJson(json).bytes.slice();
  patch?.(bytes);
  return bytes;
}

describe('SetScript (13)', () => {
  it('writes the body in scheme order and the JSON WE writes', () => {
    const tx = p.sign(fromJson(setScriptJson()), kp.privateKey);
    const expected = [
      '0d', '01', '54', hex(kp.publicKey), '01', '0006', '0106b76fcb47',
      '0009', hex(Buffer.from('my script')), '000c', hex(Buffer.from('what it does')),
      '0000000002faf080', '0000018bcfe56800',
    ].join('');
    assert.equal(hex(tx.bodyBytes), expected);
    assert.equal(hex(tx.bytes), `00${expected}0100010040${hex(tx.proofs[0]!)}`);
    assert.deepEqual(Object.keys(tx.toJson()), ['type', 'id', 'sender', 'senderPublicKey', 'fee', 'timestamp', 'proofs', 'version', 'chainId', 'script', 'name', 'description']);
    assert.equal(tx.toJson()['chainId'], 84);
    assert.equal(tx.toJson()['script'], TRUE_V1);
    assert.equal(stringifyJson(p.transactionFromBytes(tx.bytes).toJson()), stringifyJson(tx.toJson()));
  });

  it('script: absent, null and "" are None; "base64:" is an empty script', () => {
    for (const script of [undefined, null, '']) {
      const tx = fromJson(setScriptJson({ script }));
      assert.equal(tx.toJson()['script'], null);
      assert.equal(hex(tx.bodyBytes).slice(2 * 35, 2 * 36), '00');
    }
    weError(() => fromJson(setScriptJson({ script: 'base64:' })), 199, 'ScriptParseError(Empty script)');
    // The prefix is optional on input.
    assert.equal(fromJson(setScriptJson({ script: 'AQa3b8tH' })).toJson()['script'], TRUE_V1);
  });

  it('script errors are ScriptParseError (199)', () => {
    const e = weError(() => fromJson(setScriptJson({ script: 'base64:AQa3b8tI' })), 199, 'ScriptParseError(Invalid checksum)', 'ScriptParseError');
    assert.equal(e.field, 'script');
    weError(() => fromJson(setScriptJson({ script: 'base64:AQ*' })), 199, 'ScriptParseError(Unable to decode base64: Illegal base64 character 2a)');
    weError(() => fromJson(setScriptJson({ script: 'base64:A' })), 199, /^ScriptParseError\(Unable to decode base64: /);
    weError(() => fromJson(setScriptJson({ script: 5 })), 1, 'failed to parse json message', 'WrongJson');
  });

  it('name: 1 to 128 characters (UTF-16 units after decoding)', () => {
    const msg = 'name field length must be between 1 and 128';
    const e = weError(() => fromJson(setScriptJson({ name: '' })), 199, msg, 'GenericError');
    assert.equal(e.field, 'name');
    fromJson(setScriptJson({ name: 'n'.repeat(128) }));
    weError(() => fromJson(setScriptJson({ name: 'n'.repeat(129) })), 199, msg);
    // 128 three-byte characters (384 bytes) are fine; 64 astral characters are 128 units.
    fromJson(setScriptJson({ name: 'ж'.repeat(128) }));
    fromJson(setScriptJson({ name: '😀'.repeat(64) }));
    weError(() => fromJson(setScriptJson({ name: '😀'.repeat(64) + 'x' })), 199, msg);
    weError(() => fromJson(setScriptJson({ name: undefined })), 1, 'failed to parse json message');
  });

  it('description: at most 32767 bytes; absent or null is ""', () => {
    const msg = 'description field length in bytes must be less 32767';
    fromJson(setScriptJson({ description: 'd'.repeat(32767) }));
    const e = weError(() => fromJson(setScriptJson({ description: 'd'.repeat(32768) })), 199, msg);
    assert.equal(e.field, 'description');
    weError(() => fromJson(setScriptJson({ description: 'ж'.repeat(16384) })), 199, msg);
    for (const description of [undefined, null]) assert.equal(fromJson(setScriptJson({ description })).toJson()['description'], '');
    weError(() => fromJson(setScriptJson({ description: 1 })), 1, 'failed to parse json message');
  });

  it('chainId: the node\'s own from JSON, checked from binary', () => {
    assert.equal(fromJson(setScriptJson({ chainId: 1 })).toJson()['chainId'], 84);
    const bad = binaryOf(setScriptJson(), (b) => (b[3] = 1));
    weError(() => p.transactionFromBytes(bad), 199, 'Wrong chainId actual: 1, expected: 84');
  });

  it('a bad script in binary is refused', () => {
    const bytes = binaryOf(setScriptJson(), (b) => (b[44] = b[44]! ^ 1));
    weError(() => p.transactionFromBytes(bytes), 199, 'ScriptParseError(Invalid checksum)');
  });
});

describe('SetAssetScript (15)', () => {
  it('writes chainId, assetId, script in scheme order', () => {
    const tx = fromJson(setAssetScriptJson());
    assert.equal(hex(tx.bodyBytes), ['0f', '01', '54', hex(kp.publicKey), hex(decodeBase58(ASSET)), '01', '0006', '0106b76fcb47', '0000000005f5e100', '0000018bcfe56800'].join(''));
    assert.deepEqual(Object.keys(tx.toJson()).slice(8), ['chainId', 'assetId', 'script']);
  });

  it('a None script passes stateless validation', () => {
    assert.equal(fromJson(setAssetScriptJson({ script: undefined })).toJson()['script'], null);
    assert.equal(fromJson(setAssetScriptJson({ script: '' })).toJson()['script'], null);
    p.transaction(SetAssetScript, 1, { ...fromJson(setAssetScriptJson()).data, script: null });
    weError(() => p.transaction(SetAssetScript, 1, { ...fromJson(setAssetScriptJson()).data, script: new Uint8Array(0) }), 199, 'ScriptParseError(Empty script)');
  });

  it('assetId and chainId rules', () => {
    weError(() => fromJson(setAssetScriptJson({ assetId: 'l0' })), 199, 'invalid.assetId');
    weError(() => fromJson(setAssetScriptJson({ assetId: encodeBase58(new Uint8Array(31)) })), 199, 'invalid.assetId');
    weError(() => fromJson(setAssetScriptJson({ assetId: undefined })), 1, 'failed to parse json message');
    weError(() => p.transactionFromBytes(binaryOf(setAssetScriptJson(), (b) => (b[3] = 0x80))), 199, 'Wrong chainId actual: -128, expected: 84');
    weError(() => fromJson(setAssetScriptJson({ script: 'base64:AQa3b8tI' })), 199, 'ScriptParseError(Invalid checksum)');
  });
});

describe('SetScript / SetAssetScript: malformed input never crashes', () => {
  const bad: unknown[] = [null, true, 1, -1, 2 ** 53, 12345678901234567890n, 1.5, '', 'x', 'l0O', [], {}, [1], { a: 1 }];
  for (const [name, base] of [
    ['SetScript', setScriptJson()],
    ['SetAssetScript', setAssetScriptJson()],
  ] as const) {
    it(`${name}: every field with every wrong JSON value gives a WeError`, () => {
      for (const key of Object.keys(base)) {
        if (key === 'type') continue;
        for (const v of bad) {
          try {
            fromJson({ ...base, [key]: v });
          } catch (e) {
            assert.ok(e instanceof WeError && e.status === 400, `${key}=${String(v)}: ${String(e)}`);
          }
        }
      }
    });

    it(`${name}: every truncation and random corruption of the bytes gives a WeError or a transaction`, () => {
      const bytes = p.sign(fromJson(base), kp.privateKey).bytes;
      for (let n = 0; n < bytes.length; n++) weError(() => p.transactionFromBytes(bytes.subarray(0, n)), 199);
      fc.assert(
        fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), (i, x) => {
          const copy = bytes.slice();
          copy[i] = copy[i]! ^ x;
          try {
            p.transactionFromBytes(copy);
          } catch (e) {
            assert.ok(e instanceof WeError, String(e));
          }
        }),
        { numRuns: 500 },
      );
    });
  }

  it('SetScript typed data round-trips through Protocol.transaction', () => {
    const tx = fromJson(setScriptJson());
    const again = p.transaction(SetScript, 1, tx.data);
    assert.equal(hex(again.bodyBytes), hex(tx.bodyBytes));
  });
});
