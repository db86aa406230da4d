/**
 * The compiler against the reference vectors (ride.md §12) and the expected values of
 * WE's CompilerV1Test, ErrorTest, TypeInferrerTest, IntegrationTest (compile side),
 * ScriptCompilerV1Test and ScriptV1Test, in the contexts those tests build.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Protocol } from '../../src/protocol/protocol.js';
import { compileTree, CompileError, type Typed } from '../../src/ride/compiler.js';
import { E, type Expr } from '../../src/ride/expr.js';
import type { FunctionDef } from '../../src/ride/library.js';
import { ANY_POS, parse, valid, type PExpr } from '../../src/ride/parser.js';
import { readScript } from '../../src/ride/script.js';
import { compileScript } from '../../src/ride/script-compiler.js';
import { scriptText } from '../../src/ride/script-text.js';
import {
  BOOLEAN,
  BYTEVECTOR,
  caseType,
  inferTypeParams,
  list,
  LONG,
  NOTHING,
  plist,
  punion,
  STRING,
  T,
  typeParam,
  union,
  UNIT,
  type Final,
  type Type,
} from '../../src/ride/types.js';
import { caseDef, compilerContext } from './support.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });

// ---------------------------------------------------------------------------
// Reference vectors

/** ride.md §12: source, script bytes (Base64), complexity. */
export const VECTORS: ReadonlyArray<readonly [string, string, number]> = [
  ['true', 'AQa3b8tH', 1],
  ['{-# LANGUAGE_VERSION 2 #-}\ntrue', 'AgZ7TN8j', 1],
  ['1 == 2', 'AQkAAAAAAAACAAAAAAAAAAABAAAAAAAAAAACpxnnnA==', 3],
  ['let x = 10\n20 == x + x', 'AQQAAAABeAAAAAAAAAAACgkAAAAAAAACAAAAAAAAAAAUCQAAZAAAAAIFAAAAAXgFAAAAAXjlxJUL', 13],
  ['8676462059414395023 >= -7700670521773283522', 'AQkAAGcAAAACAHho/EXujJiPAJUhuPXZYac+rt2jYg==', 3],
  [
    'sigVerify(tx.bodyBytes, tx.proofs[0], tx.senderPublicKey)',
    'AQkAAfQAAAADCAUAAAACdHgAAAAJYm9keUJ5dGVzCQABkQAAAAIIBQAAAAJ0eAAAAAZwcm9vZnMAAAAAAAAAAAAIBQAAAAJ0eAAAAA9zZW5kZXJQdWJsaWNLZXkIbc0v',
    115,
  ],
  ['height != 0', 'AQkBAAAAAiE9AAAAAgUAAAAGaGVpZ2h0AAAAAAAAAAAAHEsqVA==', 29],
  [
    'match tx {\ncase t: TransferTransaction => true\ncase _ => false\n}',
    'AQQAAAAHJG1hdGNoMAUAAAACdHgDCQAAAQAAAAIFAAAAByRtYXRjaDACAAAAE1RyYW5zZmVyVHJhbnNhY3Rpb24EAAAAAXQFAAAAByRtYXRjaDAGB5yQ/+k=',
    18,
  ],
  ['let a = 1 < 2\n!a || 5 <= 6', 'AQQAAAABYQkAAGYAAAACAAAAAAAAAAACAAAAAAAAAAABAwkBAAAAASEAAAABBQAAAAFhBgkAAGcAAAACAAAAAAAAAAAGAAAAAAAAAAAFNEujoQ==', 25],
  [
    '{-# LANGUAGE_VERSION 2 #-}\nmatch tx {\ncase t: TransferTransaction | MassTransferTransaction => t.fee < 100\ncase o: Order => o.orderType == Buy\ncase _ => false\n}',
    'AgQAAAAHJG1hdGNoMAUAAAACdHgDAwkAAAEAAAACBQAAAAckbWF0Y2gwAgAAABdNYXNzVHJhbnNmZXJUcmFuc2FjdGlvbgYJAAABAAAAAgUAAAAHJG1hdGNoMAIAAAATVHJhbnNmZXJUcmFuc2FjdGlvbgQAAAABdAUAAAAHJG1hdGNoMAkAAGYAAAACAAAAAAAAAABkCAUAAAABdAAAAANmZWUDCQAAAQAAAAIFAAAAByRtYXRjaDACAAAABU9yZGVyBAAAAAFvBQAAAAckbWF0Y2gwCQAAAAAAAAIIBQAAAAFvAAAACW9yZGVyVHlwZQUAAAADQnV5B9hPXDY=',
    36,
  ],
  ["size(secureHash(base58'')) == 32", 'AQkAAAAAAAACCQAAyAAAAAEJAAH4AAAAAQEAAAAAAAAAAAAAAAAgEx8g2A==', 14],
  [
    'match tx {\ncase c: CallContractTransaction => c.contractVersion == 1\ncase _ => true\n}',
    'AQQAAAAHJG1hdGNoMAUAAAACdHgDCQAAAQAAAAIFAAAAByRtYXRjaDACAAAAF0NhbGxDb250cmFjdFRyYW5zYWN0aW9uBAAAAAFjBQAAAAckbWF0Y2gwCQAAAAAAAAIIBQAAAAFjAAAAD2NvbnRyYWN0VmVyc2lvbgAAAAAAAAAAAQZ1q3oi',
    25,
  ],
];

function compiled(source: string, assetScript = false): { bytes: string; complexity: number; expr: Expr } {
  const r = compileScript(source, { assetScript, crypto: p });
  assert.ok(r.ok, `${JSON.stringify(source)}: ${r.ok ? '' : r.error}`);
  return { bytes: Buffer.from(r.script.bytes).toString('base64'), complexity: r.script.complexity, expr: r.script.expr };
}

function compileError(source: string, assetScript = false): string {
  const r = compileScript(source, { assetScript, crypto: p });
  assert.ok(!r.ok, `${JSON.stringify(source)} compiled`);
  return r.ok ? '' : r.error;
}

describe('compiler: reference vectors (ride.md §11, §12)', () => {
  it('compiles each source to its bytes and complexity; the reader agrees', () => {
    for (const [source, b64, complexity] of VECTORS) {
      const c = compiled(source);
      assert.deepEqual([c.bytes, c.complexity], [b64, complexity], source);
      const read = readScript(new Uint8Array(Buffer.from(b64, 'base64')), p);
      assert.equal(read.complexity, complexity, source);
      assert.deepEqual(read.expr, c.expr, source);
    }
  });

  it("scriptText of compiled scripts (WE's UtilsRouteSpec, AddressRouteSpec, derived)", () => {
    assert.equal(scriptText(compiled('true').expr), 'TRUE');
    assert.equal(scriptText(compiled('1 == 2').expr), 'FUNCTION_CALL(Native(0),List(CONST_LONG(1), CONST_LONG(2)))');
    assert.equal(
      scriptText(compiled('let x = 10\n20 == x + x').expr),
      'BLOCK(LET(x,CONST_LONG(10)),FUNCTION_CALL(Native(0),List(CONST_LONG(20), FUNCTION_CALL(Native(100),List(REF(x), REF(x))))))',
    );
    assert.equal(
      scriptText(compiled('match tx {\ncase t: TransferTransaction => true\ncase _ => false\n}').expr),
      'BLOCK(LET($match0,REF(tx)),IF(FUNCTION_CALL(Native(1),List(REF($match0), CONST_STRING(TransferTransaction))),BLOCK(LET(t,REF($match0)),TRUE),FALSE))',
    );
  });

  it('ScriptCompilerV1Test: version directive 1 or none; unsupported and unparsable versions', () => {
    const expected = compiled('let x = 10\n20 == x + x');
    for (const directive of ['{-# LANGUAGE_VERSION 1 #-}', '']) {
      const c = compiled(`\n ${directive}\n\n let x = 10\n 20 == x + x\n\n `);
      assert.deepEqual([c.bytes, c.complexity], [expected.bytes, 13]);
    }
    assert.equal(compileError('\n {-# LANGUAGE_VERSION 8 #-}\n let x = 10\n 20 == x + x'), 'Unsupported language version');
    assert.equal(compileError('\n {-# LANGUAGE_VERSION oOooOps #-}\n let x = 10\n 20 == x + x'), "Can't parse language version");
  });

  it('ScriptV1Test: 19 sigVerify fit, 21 are too complex; a big sum is too large', () => {
    const sig = "sigVerify(base58'2', base58'2', base58'2')";
    const chain = (n: number): string => Array.from({ length: n }, () => sig).reduce((a, b) => `if (${a}) then ${b} else false`);
    assert.ok(compileScript(chain(19), { assetScript: false, crypto: p }).ok);
    assert.match(compileError(chain(21)), /^Script is too complex: \d+ > 2000$/);
    const bigSum = Array.from({ length: 100 }, (_, i) => String(i + 1)).reduce((a, b) => `(${a} + ${b})`, '0');
    const expr = Array.from({ length: 9 }, () => bigSum).reduce((a, b) => `(${a} == ${b})`, '0');
    assert.match(compileError(`(${expr}) == true`), /^Compilation failed: Can't match inferred types/);
    assert.match(compileError(Array.from({ length: 9 }, () => `${bigSum} == 0`).join(' && ')), /^Script is too large: \d+ bytes > 8192 bytes$/);
  });

  it("WE's compile errors through the whole pipeline", () => {
    for (const [source, message] of [
      ['1', 'Script should return boolean'],
      [' "string" ', 'Script should return boolean'],
      [" base58'string' ", 'Script should return boolean'],
      ['throw()', 'Script should return boolean'],
      ['let drop = 2\ntrue', "Compilation failed: Value 'drop' can't be defined because function with this name is already defined in 0-17"],
      ['let unit = 2\ntrue', "Compilation failed: Value 'unit' already defined in the scope in 0-17"],
      ['true + 1', "Compilation failed: Can't find a function '+'(Boolean, Int) in 0-8"],
      ['Address() == Address()', "Compilation failed: Function 'Address' requires 1 arguments, but 0 are provided in 0-9"],
      ["Addr(base58'') == 1", "Compilation failed: Can't find a function 'Addr'(ByteVector) in 0-14"],
      ['Address("x") == Address("y")', 'Compilation failed: Non-matching types: expected: ByteVector, actual: String in 0-12'],
      ['   "x" == 3     ', "Compilation failed: Can't match inferred types of TYPEPARAM(84) over List(String, Int) in 3-11"],
      ['   "x" != 3     ', "Compilation failed: Can't match inferred types of TYPEPARAM(84) over List(String, Int) in 3-11"],
      ['if (0) then true else false', 'Compilation failed: Unexpected type, required: Boolean, but Int found in 0-27'],
      ["dropRight(true, 1) == base58''", "Compilation failed: Can't find a function 'dropRight'(Boolean, Int) in 0-18"],
      [
        'size(throw()) == 1',
        "Compilation failed: Can't choose an overloaded function. Candidates: 'size'((byteVector,ByteVector)); 'size'((xs,String)); 'size'((arr,PARAMETERIZEDLIST(TYPEPARAM(84)))) in 0-13",
      ],
      ['Buy == Sell', "Compilation failed: A definition of 'Buy' is not found in 0-3"],
      ['match 1 { case _ => true }', 'Compilation failed: Only union type can be matched in 0-26'],
      [
        'match tx { case t: Foo => true }',
        "Compilation failed: Value 'ArrayBuffer(VALID(RealPos(19,22),Foo))' declared as non-existing type, while all possible types are List() in 11-30",
      ],
      ['extract(unit) == 1', 'key not found: TYPEPARAM(84)'],
      ['throw().x', 'List() (of class scala.collection.immutable.Nil$)'],
      ['99999999999999999999 == 1', 'For input string: "99999999999999999999"'],
    ] as const) {
      assert.equal(compileError(source), message, source);
    }
    assert.match(
      compileError('match tx { case t: TransferTransaction => true }'),
      /^Compilation failed: Matching not exhaustive: possibleTypes are List\(Order, ReissueTransaction, /,
    );
    assert.match(
      compileError('match tx { case t: TransferTransaction | Foo => true\n case _ => false }'),
      /^Compilation failed: Value 't' declared as non-existing type, while all possible types are List\(/,
    );
  });

  it('the asset context has no proofs; the account context has them', () => {
    const src = "match tx {\n case t: TransferTransaction => t.proofs[1] == base58''\n case _ => true\n}";
    assert.ok(compileScript(src, { assetScript: false, crypto: p }).ok);
    assert.equal(compileError(src, true), 'Compilation failed: Undefined field `proofs` of variable of type `Union(List(TransferTransaction))` in 43-51');
    // `tx` of an asset script is one of six types: an Order case cannot match.
    assert.match(compileError('match tx { case o: Order => true\n case _ => false }', true), /^Compilation failed: Matching not exhaustive/);
  });

  it('the common subset compiles: getters over unions, extract, data and state functions', () => {
    for (const source of [
      'tx.sender == addressFromPublicKey(tx.senderPublicKey)',
      'match tx {\n case t: DataTransaction => extract(getInteger(t.data, "k")) > 0 && isDefined(getString(t.data, 0))\n case _ => false\n}',
      'let a = addressFromString("3N...") \n !isDefined(a) || wavesBalance(extract(a)) > 0',
      'getBoolean(Alias("alias"), "x") == true',
      "match transactionById(base58'11') {\n case t: TransferTransaction => t.amount > 0\n case _ => false\n}",
      'transactionHeightById(tx.id) == 5',
      "assetBalance(tx.sender, base58'') == 0 && assetBalance(tx.sender, unit) >= 0",
      'toBase58String(tx.id) != "" && fromBase64String("base64:AA==") == base64\'AA==\'',
      'takeRight("abc", 2) == "bc" && dropRight(base58\'2\', 1) == base58\'\'',
      'fraction(1, 2, 3) == 0 && 5 % 3 == 2 && -(5) / 2 == -3',
      'keccak256(tx.bodyBytes) != blake2b256(tx.bodyBytes) && sha256(toBytes(1)) != secureHash(toBytes("s"))',
    ]) {
      compiled(source);
    }
  });
});

// ---------------------------------------------------------------------------
// WE's own compiler tests, in their contexts

const POINT = caseType('Point', [
  ['x', LONG],
  ['y', LONG],
]);
const POINT_A = caseType('PointA', [
  ['X', LONG],
  ['YA', LONG],
]);
const POINT_B = caseType('PointB', [
  ['X', LONG],
  ['YB', LONG],
]);
const POINT_C = caseType('PointC', [['YB', LONG]]);
const A_OR_B = union([POINT_A, POINT_B]);

const testNative = (name: string, id: number, result: Type, params: ReadonlyArray<readonly [string, Type]>): FunctionDef => ({
  kind: 'native',
  name,
  id,
  cost: 1,
  params,
  result,
  impl: () => {
    throw new Error('not evaluated here');
  },
});

/** compiler/package.scala's compilerContext: PureContext + Point types + test values and functions. */
const ctx = compilerContext({
  types: [caseDef(POINT), caseDef(POINT_A), caseDef(POINT_B)],
  vars: [
    ['p', A_OR_B],
    ['l', list(LONG)],
    ['lpa', list(POINT_A)],
    ['lpabc', list(union([POINT_A, POINT_B, POINT_C]))],
  ],
  functions: [
    testNative('MULTIPLY', 10005, LONG, [
      ['x1', LONG],
      ['x2', LONG],
    ]),
    testNative('functionWithTwoPrarmsOfTheSameType', 1005, T, [
      ['p1', T],
      ['p2', T],
    ]),
    testNative('idT', 10000, T, [['p1', T]]),
    testNative('undefinedOptionLong', 1002, list(LONG), []),
    testNative('idOptionLong', 1003, UNIT, [['opt', union([LONG, UNIT])]]),
  ],
});

const A = ANY_POS;
const n = (value: number): PExpr => ({ t: 'CONST_LONG', pos: A, value: BigInt(value) });
const r = (name: string): PExpr => ({ t: 'REF', pos: A, key: valid(A, name) });
const fc = (name: string, ...args: PExpr[]): PExpr => ({ t: 'FUNCTION_CALL', pos: A, name: valid(A, name), args });

function typed(e: PExpr, context = ctx): Typed {
  return compileTree(context, e);
}

function failure(e: PExpr, context = ctx): string {
  try {
    compileTree(context, e);
  } catch (err) {
    if (err instanceof CompileError) return err.message;
    throw err;
  }
  return assert.fail('compiled');
}

describe('compiler: CompilerV1Test, ErrorTest', () => {
  it('infers generic and inner types', () => {
    assert.deepEqual(typed(fc('idT', n(1))).type, LONG);
    assert.deepEqual(typed(fc('getElement', fc('undefinedOptionLong'), n(0))).type, LONG);
    assert.deepEqual(typed(fc('getElement', r('l'), n(1))), { expr: E.native(401, E.ref('l'), E.long(1)), type: LONG });
    assert.deepEqual(typed(fc('getElement', r('lpa'), n(1))).type, POINT_A);
    assert.deepEqual(typed(fc('getElement', r('lpabc'), n(1))).type, union([POINT_A, POINT_B, POINT_C]));
    assert.deepEqual(typed(fc('MULTIPLY', n(1), n(2))), { expr: E.native(10005, E.long(1), E.long(2)), type: LONG });
    assert.deepEqual(typed(fc('idOptionLong', r('unit'))), { expr: E.native(1003, E.ref('unit')), type: UNIT });
  });

  it('getters and references', () => {
    const pointCtx = compilerContext({ types: [caseDef(POINT)], vars: [['p', POINT]] });
    assert.deepEqual(typed({ t: 'GETTER', pos: A, ref: r('p'), field: valid(A, 'x') }, pointCtx), { expr: E.getter(E.ref('p'), 'x'), type: LONG });
    assert.deepEqual(typed(r('p'), pointCtx), { expr: E.ref('p'), type: POINT });
  });

  it('union comparison: let a = if (true) then 1 else ""; a == 3', () => {
    const e: PExpr = {
      t: 'BLOCK',
      pos: A,
      let: {
        pos: A,
        name: valid(A, 'a'),
        value: { t: 'IF', pos: A, cond: { t: 'TRUE', pos: A }, ifTrue: n(1), ifFalse: { t: 'CONST_STRING', pos: A, value: valid(A, '') } },
        types: [],
        allowShadowing: false,
      },
      body: fc('==', r('a'), n(3)),
    };
    assert.deepEqual(typed(e), { expr: E.block('a', E.if(E.TRUE, E.long(1), E.str('')), E.native(0, E.ref('a'), E.long(3))), type: BOOLEAN });
  });

  it('match: shadowing the matched reference, nested matches, denied shadowing, unknown types', () => {
    const matchP = (name: string, subject: PExpr): PExpr => ({
      t: 'MATCH',
      pos: A,
      expr: subject,
      cases: [
        { pos: A, newVarName: valid(A, name), types: [valid(A, 'PointA'), valid(A, 'PointB')], expr: { t: 'TRUE', pos: A } },
        { pos: A, newVarName: undefined, types: [], expr: { t: 'FALSE', pos: A } },
      ],
    });
    assert.deepEqual(typed(matchP('p', r('p'))), {
      expr: E.block(
        '$match0',
        E.ref('p'),
        E.if(
          E.if(E.native(1, E.ref('$match0'), E.str('PointB')), E.TRUE, E.native(1, E.ref('$match0'), E.str('PointA'))),
          E.block('p', E.ref('$match0'), E.TRUE),
          E.FALSE,
        ),
      ),
      type: BOOLEAN,
    });
    const nested = parse('\n let a = match p {\n  case _ =>\n    match p {\n      case _ => 1\n    }\n }\n let b = match p {\n  case _ => 2\n }\n a + b\n');
    assert.ok(nested.ok);
    if (nested.ok) {
      assert.deepEqual(typed(nested.expr), {
        expr: E.block(
          'a',
          E.block('$match0', E.ref('p'), E.block('$match1', E.ref('p'), E.long(1))),
          E.block('b', E.block('$match0', E.ref('p'), E.long(2)), E.native(100, E.ref('a'), E.ref('b'))),
        ),
        type: LONG,
      });
    }
    const fooLet: PExpr = {
      t: 'BLOCK',
      pos: A,
      let: { pos: A, name: valid(A, 'foo'), value: { t: 'TRUE', pos: A }, types: [], allowShadowing: false },
      body: matchP('foo', r('p')),
    };
    assert.equal(failure(fooLet), "Compilation failed: Value 'foo' already defined in the scope in -1--1");
    assert.equal(failure(matchP('p', fc('idT', r('p')))), "Compilation failed: Value 'p' already defined in the scope in -1--1");
    const unknown: PExpr = {
      t: 'MATCH',
      pos: A,
      expr: fc('idT', r('p')),
      cases: [
        { pos: A, newVarName: valid(A, 'p1'), types: [valid(A, 'Point0'), valid(A, 'PointB')], expr: { t: 'TRUE', pos: A } },
        { pos: A, newVarName: undefined, types: [], expr: { t: 'FALSE', pos: A } },
      ],
    };
    // The predefined types in the order of WE's Scala HashMap.
    assert.equal(
      failure(unknown),
      "Compilation failed: Value 'p1' declared as non-existing type, while all possible types are List(Point, PointB, Boolean, Int, PointA, ByteVector, Unit, String) in -1--1",
    );
  });

  it('invalid parts report their own position', () => {
    const badLet: PExpr = {
      t: 'BLOCK',
      pos: A,
      let: {
        pos: A,
        name: { valid: false, pos: { start: 0, end: 1 }, message: "can't parse" },
        value: { t: 'TRUE', pos: A },
        types: [],
        allowShadowing: false,
      },
      body: r('x'),
    };
    assert.equal(failure(badLet), "Compilation failed: can't parse in 0-1");
    assert.equal(
      failure({ t: 'GETTER', pos: A, ref: r('x'), field: { valid: false, pos: { start: 2, end: 3 }, message: "can't parse" } }),
      "Compilation failed: can't parse in 2-3",
    );
    assert.equal(
      failure({ t: 'CONST_BYTEVECTOR', pos: A, value: { valid: false, pos: A, message: "can't parse" } }),
      "Compilation failed: can't parse in -1--1",
    );
    assert.equal(failure({ t: 'CONST_STRING', pos: A, value: { valid: false, pos: A, message: "can't parse" } }), "Compilation failed: can't parse in -1--1");
    assert.equal(failure({ t: 'REF', pos: A, key: { valid: false, pos: A, message: "can't parse" } }), "Compilation failed: can't parse in -1--1");
    assert.equal(
      failure({ t: 'FUNCTION_CALL', pos: A, name: { valid: false, pos: A, message: "can't parse" }, args: [] }),
      "Compilation failed: can't parse in -1--1",
    );
    assert.equal(failure({ t: 'INVALID', pos: A, message: '###' }), 'Compilation failed: ### in -1--1');
  });

  it('user function overloading', () => {
    assert.deepEqual(typed(fc('dropRight', { t: 'CONST_BYTEVECTOR', pos: A, value: valid(A, new Uint8Array(0)) }, n(1))), {
      expr: E.user('dropRightBytes', E.bytes([]), E.long(1)),
      type: BYTEVECTOR,
    });
    assert.deepEqual(typed(fc('dropRight', { t: 'CONST_STRING', pos: A, value: valid(A, '') }, n(1))), {
      expr: E.user('dropRight', E.str(''), E.long(1)),
      type: STRING,
    });
    assert.equal(failure(fc('dropRight', { t: 'TRUE', pos: A }, n(1))), "Compilation failed: Can't find a function 'dropRight'(Boolean, Int) in -1--1");
  });

  it('ErrorTest messages', () => {
    const block = (name: string, value: PExpr, body: PExpr): PExpr => ({
      t: 'BLOCK',
      pos: A,
      let: { pos: A, name: valid(A, name), value, types: [], allowShadowing: false },
      body,
    });
    assert.match(failure(block('X', n(1), block('X', n(2), { t: 'TRUE', pos: A }))), /already defined in the scope/);
    assert.match(failure(block('unit', n(2), { t: 'TRUE', pos: A })), /already defined in the scope/);
    assert.match(failure(block('drop', n(2), { t: 'TRUE', pos: A })), /function with this name is already defined/);
    assert.match(failure({ t: 'BINARY_OP', pos: A, a: { t: 'TRUE', pos: A }, op: '+', b: n(1) }), /^Compilation failed: Can't find a function '\+'/);
    assert.match(
      failure({ t: 'IF', pos: A, cond: n(0), ifTrue: { t: 'TRUE', pos: A }, ifFalse: { t: 'FALSE', pos: A } }),
      /Unexpected type, required: Boolean/,
    );
    assert.match(failure(fc('MULTIPLY', n(0))), /requires 2 arguments/);
    assert.match(failure(fc('MULTIPLY', n(0), { t: 'FALSE', pos: A })), /^Compilation failed: Non-matching types/);
    assert.match(
      failure(fc('functionWithTwoPrarmsOfTheSameType', n(1), { t: 'CONST_BYTEVECTOR', pos: A, value: valid(A, new Uint8Array(0)) })),
      /Can't match inferred types/,
    );
  });

  it('successful on very deep expressions (100 000 nested additions)', () => {
    let e: PExpr = n(0);
    for (let i = 0; i < 100_000; i++) e = { t: 'BINARY_OP', pos: A, a: e, op: '+', b: n(1) };
    assert.deepEqual(typed(e).type, LONG);
  });
});

describe('compiler: IntegrationTest (compile side)', () => {
  const pointCtx = compilerContext({
    types: [caseDef(POINT_A), caseDef(POINT_B), caseDef(POINT_C), { kind: 'union', name: 'PointBC', types: [POINT_B, POINT_C] }],
    vars: [['p', union([POINT_A, POINT_B, POINT_C])]],
  });
  const src = (s: string): Typed => {
    const parsed = parse(s);
    assert.ok(parsed.ok);
    return compileTree(pointCtx, parsed.ok ? parsed.expr : n(0));
  };
  const srcError = (s: string): string => {
    try {
      src(s);
    } catch (e) {
      if (e instanceof CompileError) return e.message;
      throw e;
    }
    return assert.fail('compiled');
  };

  it('union types have only common fields', () => {
    assert.match(srcError('match p {\n  case pa: PointA => pa.X\n  case pb: PointBC => pb.X\n}'), /^Compilation failed: Undefined field `X`/);
    assert.deepEqual(src('match p {\n  case pa: PointA => pa.X\n  case pb: PointBC => pb.YB\n}').type, LONG);
  });

  it('"proper error message": a let without a body', () => {
    assert.match(srcError('\nmatch p {\n  case pa: PointA => let x = 3\n  case _ => throw()\n}\n'), /can't parse the expression/);
  });

  it('match with not case types', () => {
    // `x: Int` is typed UNION(Int) (a case variable's type is a union of the listed types).
    assert.deepEqual(src('\nlet a = if (true) then 1 else ""\n\nmatch a {\n case x: Int => x \n case y: String => 2\n}').type, union([LONG]));
  });
});

describe('compiler: TypeInferrerTest', () => {
  const G = typeParam('G');
  const ok = (pairs: ReadonlyArray<readonly [Final, Type]>): Record<number, Final> => {
    const r2 = inferTypeParams(pairs);
    assert.ok('ok' in r2, 'error' in r2 ? r2.error : '');
    return 'ok' in r2 ? Object.fromEntries(r2.ok) : {};
  };
  const err = (pairs: ReadonlyArray<readonly [Final, Type]>): string => {
    const r2 = inferTypeParams(pairs);
    return 'error' in r2 ? r2.error : assert.fail('inferred');
  };
  const user = caseType('User', []);
  const optionLong = union([LONG, UNIT]);
  const optionT = punion(T, UNIT);

  it('no types to infer', () => {
    assert.deepEqual(
      ok([
        [STRING, STRING],
        [STRING, STRING],
        [user, user],
      ]),
      {},
    );
    assert.match(err([[LONG, BYTEVECTOR]]), /Non-matching types/);
    assert.match(err([[user, caseType('Admin', [])]]), /Non-matching types/);
  });

  it('inferring simple types, lists, unions', () => {
    assert.deepEqual(ok([[LONG, T]]), { 84: LONG });
    assert.deepEqual(
      ok([
        [LONG, T],
        [BYTEVECTOR, G],
      ]),
      { 84: LONG, 71: BYTEVECTOR },
    );
    assert.deepEqual(
      ok([
        [LONG, T],
        [LONG, T],
        [LONG, T],
      ]),
      { 84: LONG },
    );
    assert.deepEqual(ok([[list(LONG), T]]), { 84: list(LONG) });
    assert.deepEqual(ok([[list(LONG), plist(T)]]), { 84: LONG });
    assert.deepEqual(
      ok([
        [list(LONG), plist(T)],
        [list(LONG), plist(T)],
      ]),
      { 84: LONG },
    );
    assert.deepEqual(
      ok([
        [LONG, T],
        [list(LONG), plist(T)],
      ]),
      { 84: LONG },
    );
    assert.deepEqual(
      ok([
        [LONG, T],
        [list(NOTHING), plist(T)],
      ]),
      { 84: LONG },
    );
    assert.match(
      err([
        [BYTEVECTOR, T],
        [BYTEVECTOR, plist(T)],
      ]),
      /Non-matching types/,
    );
    assert.match(
      err([
        [LONG, T],
        [list(list(NOTHING)), plist(T)],
      ]),
      /Can't match inferred types/,
    );
    assert.match(
      err([
        [BYTEVECTOR, T],
        [list(LONG), plist(T)],
      ]),
      /Can't match inferred types/,
    );
    assert.deepEqual(ok([[LONG, optionLong]]), {});
    assert.match(err([[LONG, union([BOOLEAN, UNIT])]]), /Non-matching types/);
    assert.deepEqual(ok([[list(LONG), list(optionLong)]]), {});
    assert.match(err([[list(LONG), list(union([BOOLEAN, UNIT]))]]), /Non-matching types/);
    assert.deepEqual(ok([[UNIT, union([BOOLEAN, UNIT])]]), {});
    assert.deepEqual(ok([[LONG, optionT]]), { 84: LONG });
    assert.deepEqual(ok([[list(LONG), plist(optionT)]]), { 84: LONG });
    assert.deepEqual(ok([[optionLong, optionT]]), { 84: LONG });
    assert.deepEqual(ok([[optionLong, T]]), { 84: optionLong });
    assert.deepEqual(
      ok([
        [optionLong, T],
        [LONG, T],
      ]),
      { 84: optionLong },
    );
    assert.match(err([[LONG, punion(T, G)]]), /Can't resolve correct type/);
  });
});
