/**
 * The evaluator against the expected values of WE's EvaluatorV1Test, IntegrationTest,
 * EvaluatorV1CaseObjField and ScriptEstimatorTest: lazy memoized lets, scopes, user
 * functions, constructors, arithmetic limits, the log of forced lets, and the estimator
 * with those tests' own cost tables.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { blake2b } from '@noble/hashes/blake2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { compileTree } from '../../src/ride/compiler.js';
import { ExecutionError } from '../../src/ride/errors.js';
import { estimate } from '../../src/ride/estimator.js';
import { E, headerKey, type Expr } from '../../src/ride/expr.js';
import type { FunctionDef } from '../../src/ride/library.js';
import { parse } from '../../src/ride/parser.js';
import { BYTEVECTOR, caseType, LONG, STRING, union, UNIT, type Real } from '../../src/ride/types.js';
import { CaseObj, unit, type Value } from '../../src/ride/values.js';
import { ACCOUNT_TYPES } from '../../src/ride/we-types.js';
import { ev, evaluationContext, result, waves } from './eval-support.js';
import { caseDef, compilerContext } from './support.js';

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

const sum = (a: Expr, b: Expr): Expr => E.native(100, a, b);
const eq = (a: Expr, b: Expr): Expr => E.native(0, a, b);
const simpleDeclarationAndUsage = (i: number): Expr => E.block('x', E.long(i), E.ref('x'));

const native = (name: string, id: number, impl: (args: readonly Value[]) => Value, params: number): FunctionDef => ({
  kind: 'native',
  name,
  id,
  cost: 1,
  params: Array.from({ length: params }, (_, i) => [`x${i}`, LONG] as const),
  result: LONG,
  impl,
});

const userFn = (name: string, params: string[], body: Expr): FunctionDef => ({
  kind: 'user',
  name,
  internal: name,
  params: params.map((p) => [p, LONG] as const),
  result: LONG,
  body,
});

describe('evaluator: EvaluatorV1Test', () => {
  it('successful on very deep expressions (100 000 nested additions)', () => {
    let term: Expr = E.long(0);
    for (let i = 0; i < 100_000; i++) term = sum(term, E.long(1));
    assert.equal(result(ev(term)), 100000n);
  });

  it('returns the error and an empty log of a failed evaluation', () => {
    const r = ev(E.block('x', E.long(3), E.block('x', sum(E.long(3), E.long(0)), eq(E.ref('z'), E.long(1)))));
    assert.deepEqual(r, { log: [], result: { error: "A definition of 'z' not found" } });
  });

  it('lets: unused, x = y, shadowing, multiple, in branches', () => {
    assert.equal(result(ev(E.block('x', E.long(3), E.long(3)))), 3n);
    assert.equal(result(ev(E.block('x', E.long(3), E.block('y', E.ref('x'), sum(E.ref('x'), E.ref('y')))))), 6n);
    assert.equal(result(ev(simpleDeclarationAndUsage(3))), 3n);
    assert.equal(result(ev(E.block('x', E.long(3), eq(E.ref('x'), E.long(2))))), false);
    assert.equal(result(ev(E.block('x', E.long(3), E.block('y', E.long(3), eq(E.ref('x'), E.ref('y')))))), true);
    assert.equal(result(ev(E.block('x', E.long(3), E.block('y', sum(E.long(3), E.long(0)), eq(E.ref('x'), E.ref('y')))))), true);
    assert.equal(result(ev(E.if(eq(E.long(1), E.long(2)), simpleDeclarationAndUsage(3), E.long(4)))), 4n);
    assert.equal(result(ev(E.if(eq(E.long(1), E.long(2)), simpleDeclarationAndUsage(3), simpleDeclarationAndUsage(4)))), 4n);
    assert.deepEqual(result(ev(sum(E.ref('x'), E.long(2)))), { error: "A definition of 'x' not found" });
  });

  it('custom type field access; a failing let that is never used does not fail', () => {
    const point = caseType('Point', [
      ['X', LONG],
      ['Y', LONG],
    ]);
    const p = CaseObj.of(point, [
      ['X', 3n],
      ['Y', 4n],
    ]);
    const ctx = evaluationContext({
      lets: [
        ['p', { value: p }],
        [
          'badVal',
          {
            compute: () => {
              throw new ExecutionError('Error');
            },
          },
        ],
      ],
    });
    assert.equal(result(ev(sum(E.getter(E.ref('p'), 'X'), E.long(2)), ctx)), 5n);
    assert.equal(result(ev(E.block('Z', E.ref('badVal'), sum(E.getter(E.ref('p'), 'X'), E.long(2))), ctx)), 5n);
    assert.deepEqual(result(ev(E.block('Z', E.ref('badVal'), E.ref('Z')), ctx)), { error: 'Error' });
  });

  it('ne works', () => {
    assert.equal(result(ev(E.user('!=', E.long(1), E.long(2)))), true);
    assert.equal(result(ev(E.user('!=', E.long(1), E.long(1)))), false);
  });

  it('a let is evaluated at most once; each user-function argument once', () => {
    let calls = 0;
    const f = native(
      'F',
      258,
      () => {
        calls++;
        return 1n;
      },
      1,
    );
    const ctx = evaluationContext({ functions: [f, userFn('ID', ['x'], sum(E.ref('x'), E.ref('x')))] });
    assert.equal(result(ev(E.block('X', E.native(258, E.long(1000)), sum(E.ref('X'), E.ref('X'))), ctx)), 2n);
    assert.equal(calls, 1);
    calls = 0;
    let expr: Expr = E.native(258, E.long(1000));
    for (let i = 0; i < 6; i++) expr = E.user('ID', expr);
    assert.equal(result(ev(expr, ctx)), 64n);
    assert.equal(calls, 1);
  });

  it('getters on references, calls and blocks', () => {
    const foo = caseType('Foo', [
      ['bar', STRING],
      ['buz', LONG],
    ]);
    const fooObj = CaseObj.of(foo, [
      ['bar', 'bAr'],
      ['buz', 1n],
    ]);
    const ctor: FunctionDef = { kind: 'native', name: 'createFoo', id: 259, cost: 1, params: [], result: foo, impl: () => fooObj };
    const transform: FunctionDef = {
      kind: 'native',
      name: 'transformFoo',
      id: 260,
      cost: 1,
      params: [['foo', foo]],
      result: foo,
      impl: (args) => CaseObj.of(foo, [...(args[0] as CaseObj).fields.filter(([k]) => k !== 'bar'), ['bar', 'TRANSFORMED_BAR']]),
    };
    const ctx = evaluationContext({ pure: false, lets: [['fooInstance', { value: fooObj }]], functions: [ctor, transform] });
    assert.equal(result(ev(E.getter(E.ref('fooInstance'), 'bar'), ctx)), 'bAr');
    assert.equal(result(ev(E.getter(E.native(259), 'bar'), ctx)), 'bAr');
    assert.equal(result(ev(E.getter(E.block('fooInstance', E.native(259), E.native(260, E.ref('fooInstance'))), 'bar'), ctx)), 'TRANSFORMED_BAR');
  });

  it('sigVerify: a valid signature, a wrong one, one of the wrong length (a result, not an error)', () => {
    const kp = waves.keyPairFromSeedPhrase('evaluator sigVerify test');
    const other = waves.keyPairFromSeedPhrase('evaluator sigVerify other');
    const body = Buffer.from('message');
    const ctx = evaluationContext({ crypto: true });
    const verify = (sig: Uint8Array, pk = kp.publicKey): Value | { error: string } => result(ev(E.native(500, E.bytes(body), E.bytes(sig), E.bytes(pk)), ctx));
    assert.equal(verify(waves.sign(kp.privateKey, body)), true);
    assert.equal(verify(waves.sign(other.privateKey, body)), false);
    assert.equal(verify(Buffer.from('signature')), false);
  });

  it('returns correct context: aliceSigned && bobSigned logs aliceSigned only', () => {
    const alice = waves.keyPairFromSeedPhrase('alice');
    const bob = waves.keyPairFromSeedPhrase('bob');
    const body = Buffer.from('message');
    const txType = caseType('Transaction', [
      ['bodyBytes', BYTEVECTOR],
      ['senderPk', BYTEVECTOR],
      ['proof0', BYTEVECTOR],
      ['proof1', BYTEVECTOR],
    ]);
    const tx = CaseObj.of(txType, [
      ['bodyBytes', body],
      ['senderPk', waves.keyPairFromSeedPhrase('sender').publicKey],
      ['proof0', waves.sign(alice.privateKey, body)],
      ['proof1', waves.sign(bob.privateKey, body)],
    ]);
    const compileCtx = compilerContext({
      types: [caseDef(txType)],
      vars: [
        ['tx', txType],
        ['alicePubKey', BYTEVECTOR],
        ['bobPubKey', BYTEVECTOR],
      ],
      crypto: true,
    });
    const parsed = parse(
      '\nlet aliceSigned  = sigVerify(tx.bodyBytes, tx.proof0, alicePubKey)\nlet bobSigned    = sigVerify(tx.bodyBytes, tx.proof1, bobPubKey  )\n\naliceSigned && bobSigned\n   ',
    );
    assert.ok(parsed.ok);
    const expr = compileTree(compileCtx, parsed.ok ? parsed.expr : (E.TRUE as never)).expr;
    const ctx = evaluationContext({
      crypto: true,
      lets: [
        ['tx', { value: tx }],
        ['alicePubKey', { value: bob.publicKey }],
        ['bobPubKey', { value: bob.publicKey }],
      ],
    });
    const r = ev(expr, ctx);
    assert.equal(result(r), false);
    assert.deepEqual(r.log, [{ name: 'aliceSigned', value: false }]);
  });

  it('take/drop/takeRight/dropRight on bytes and strings, size of strings', () => {
    const bytes = Uint8Array.of(1, 2, 3, 4, 5);
    const cases: Array<[bigint, number]> = [
      [-1n, 0],
      [0n, 0],
      [2n, 2],
      [5n, 5],
      [7n, 5],
      [INT64_MAX, 5],
      [INT64_MIN, 0],
    ];
    for (const [n, k] of cases) {
      assert.deepEqual(result(ev(E.native(201, E.bytes(bytes), E.long(n)))), bytes.slice(0, k), `take ${n}`);
      assert.deepEqual(result(ev(E.native(202, E.bytes(bytes), E.long(n)))), bytes.slice(k), `drop ${n}`);
      // takeRight(xs, n) = drop(xs, size(xs) - n): the subtraction overflows for n = MIN.
      const takeRight = n === INT64_MIN ? { error: 'long overflow' } : bytes.slice(n >= 0n ? 5 - k : 5);
      assert.deepEqual(result(ev(E.user('takeRightBytes', E.bytes(bytes), E.long(n)))), takeRight, `takeRight ${n}`);
    }
    const s = 'a€𝄞b';
    assert.equal(result(ev(E.native(305, E.str(s)))), 5n, 'UTF-16 units');
    assert.equal(result(ev(E.native(303, E.str(s), E.long(3)))), s.slice(0, 3));
    assert.equal(result(ev(E.native(304, E.str(s), E.long(-5)))), s);
    assert.equal(result(ev(E.native(304, E.str(s), E.long(INT64_MAX)))), '');
    assert.equal(result(ev(E.user('takeRight', E.str(s), E.long(2)))), s.slice(3));
    assert.equal(result(ev(E.user('dropRight', E.str(s), E.long(2)))), s.slice(0, 3));
    assert.deepEqual(result(ev(E.user('dropRight', E.str(s), E.long(INT64_MIN)))), { error: 'long overflow' });
  });

  it('fromBase58String / fromBase64String and their limits', () => {
    const ctx = evaluationContext({ crypto: true });
    assert.deepEqual(result(ev(E.native(601, E.str('2NEpo7TZRRrLZSi2U')), ctx)), new Uint8Array(Buffer.from('Hello World!')));
    assert.deepEqual(result(ev(E.native(601, E.str('1'.repeat(101))), ctx)), { error: 'base58Decode input exceeds 100' });
    assert.deepEqual(result(ev(E.native(601, E.str('0OIl')), ctx)), { error: "can't parse Base58 string" });
    assert.deepEqual(result(ev(E.native(603, E.str('base64:SGk=')), ctx)), new Uint8Array(Buffer.from('Hi')));
    assert.deepEqual(result(ev(E.native(603, E.str('SGk=')), ctx)), new Uint8Array(Buffer.from('Hi')));
    assert.deepEqual(result(ev(E.native(603, E.str('A'.repeat(45057))), ctx)), { error: 'base64Decode input exceeds 45056' });
    assert.deepEqual(result(ev(E.native(603, E.str('!!')), ctx)), { error: "can't parse Base64 string" });
    assert.deepEqual(result(ev(E.native(600, E.bytes(new Uint8Array(65))), ctx)), { error: 'base58Encode input exceeds 64' });
    assert.deepEqual(result(ev(E.native(602, E.bytes(new Uint8Array(32769))), ctx)), { error: 'base64Encode input exceeds 32768' });
  });

  it('hashes of a message (sha256, blake2b256, keccak256) equal the reference implementations', () => {
    const ctx = evaluationContext({ crypto: true });
    const text = Buffer.from('some text for test');
    const hash = (id: number): Value | { error: string } => result(ev(E.native(id, E.bytes(text)), ctx));
    assert.deepEqual(hash(503), new Uint8Array(createHash('sha256').update(text).digest()));
    assert.deepEqual(hash(502), blake2b(text, { dkLen: 32 }));
    assert.deepEqual(hash(501), keccak_256(text));
    assert.deepEqual(hash(504), waves.secureHash(text));
  });

  it('math functions, fraction and their overflows', () => {
    assert.equal(result(ev(sum(E.long(5), E.long(5)))), 10n);
    assert.equal(result(ev(E.native(104, E.long(5), E.long(5)))), 25n);
    assert.equal(result(ev(E.native(105, E.long(10), E.long(3)))), 3n);
    assert.equal(result(ev(E.native(106, E.long(10), E.long(3)))), 1n);
    assert.equal(result(ev(E.native(107, E.long(INT64_MAX), E.long(2), E.long(4)))), INT64_MAX / 2n);
    assert.deepEqual(result(ev(E.native(107, E.long(INT64_MAX), E.long(3), E.long(2)))), {
      error: `Long overflow: value \`${(INT64_MAX * 3n) / 2n}\` greater than 2^63-1`,
    });
    assert.deepEqual(result(ev(E.native(107, E.long(-INT64_MAX), E.long(3), E.long(2)))), {
      error: `Long overflow: value \`${(-INT64_MAX * 3n) / 2n}\` less than -2^63-1`,
    });
    assert.equal(result(ev(E.native(107, E.long(INT64_MAX), E.long(-2), E.long(-4)))), INT64_MAX / 2n);
    // Floor division and modulo; the JVM's division by zero; MIN / -1.
    assert.equal(result(ev(E.native(105, E.long(-7), E.long(2)))), -4n);
    assert.equal(result(ev(E.native(106, E.long(-7), E.long(2)))), 1n);
    assert.equal(result(ev(E.native(106, E.long(7), E.long(-2)))), -1n);
    assert.deepEqual(result(ev(E.native(105, E.long(1), E.long(0)))), { error: '/ by zero' });
    assert.deepEqual(result(ev(E.native(106, E.long(1), E.long(0)))), { error: '/ by zero' });
    assert.equal(result(ev(E.native(105, E.long(INT64_MIN), E.long(-1)))), INT64_MIN);
    assert.deepEqual(result(ev(E.native(104, E.long(INT64_MAX), E.long(2)))), { error: 'long overflow' });
    assert.deepEqual(result(ev(E.user('-', E.long(INT64_MIN)))), { error: 'long overflow' });
  });

  it('data constructors; toString; toBytes', () => {
    const point = caseType('Point', [
      ['X', LONG],
      ['Y', LONG],
    ]);
    const ctx = evaluationContext({ pure: false, types: [point] });
    const p = result(ev(E.user('Point', E.long(1), E.long(2)), ctx)) as CaseObj;
    assert.deepEqual(
      [p.typeName, p.fields],
      [
        'Point',
        [
          ['X', 1n],
          ['Y', 2n],
        ],
      ],
    );
    assert.equal(result(ev(E.native(421, E.TRUE))), 'true');
    assert.equal(result(ev(E.native(421, E.FALSE))), 'false');
    for (const n of [0n, -1n, INT64_MIN, INT64_MAX, 1234567890123n]) {
      assert.equal(result(ev(E.native(420, E.long(n)))), n.toString());
      const b = Buffer.alloc(8);
      b.writeBigInt64BE(n);
      assert.deepEqual(result(ev(E.native(410, E.long(n)))), new Uint8Array(b));
    }
    assert.deepEqual(result(ev(E.native(412, E.TRUE))), Uint8Array.of(1));
    assert.deepEqual(result(ev(E.native(412, E.FALSE))), Uint8Array.of(0));
    assert.deepEqual(result(ev(E.native(411, E.str('ё\ud800')))), new Uint8Array([0xd1, 0x91, 0x3f]), "Java's UTF-8: a lone surrogate is '?'");
  });

  it("function parameters come from the arguments; the caller's scope is untouched", () => {
    const ctx = evaluationContext({
      lets: [
        ['x', { value: 3n }],
        ['y', { value: 100n }],
      ],
      functions: [
        userFn('doubleFn', ['x'], sum(E.ref('x'), E.ref('x'))),
        userFn('mulFn', ['y', 'x'], E.native(101, E.ref('y'), E.ref('x'))),
        userFn('ID', ['x'], sum(E.ref('x'), E.ref('x'))),
      ],
    });
    assert.equal(result(ev(E.user('mulFn', E.user('doubleFn', E.ref('x')), E.long(7)), ctx)), -1n);
    assert.equal(result(ev(E.user('mulFn', E.long(7), E.user('doubleFn', E.ref('x'))), ctx)), 1n);
    assert.equal(result(ev(sum(E.user('ID', E.long(1000)), E.ref('x')), ctx)), 2003n);
    assert.equal(result(ev(sum(E.block('x', E.long(5), E.ref('x')), E.ref('x')), ctx)), 8n);
  });

  it('unknown functions and failing lets', () => {
    assert.deepEqual(result(ev(E.native(999))), { error: "function 'Native(999)' not found" });
    assert.deepEqual(result(ev(E.user('nope', E.long(1)))), { error: "function 'User(nope)' not found" });
    // A failed let logs its error, innermost first; later references reuse the error.
    const r = ev(E.block('a', E.block('b', E.native(2, E.str('boom')), E.ref('b')), E.if(E.TRUE, E.ref('a'), E.ref('a'))));
    assert.deepEqual(r, {
      log: [
        { name: 'b', error: 'boom' },
        { name: 'a', error: 'boom' },
      ],
      result: { error: 'boom' },
    });
    // A user function's arguments are logged as (arg)<name> when first read.
    const withArgs = ev(E.user('!=', E.long(1), E.long(2)));
    assert.deepEqual(withArgs.log, [
      { name: '(arg)@a', value: 1n },
      { name: '(arg)@b', value: 2n },
      { name: '(arg)@p', value: false },
    ]);
  });
});

describe('evaluator: IntegrationTest and EvaluatorV1CaseObjField', () => {
  const pointA = caseType('PointA', [
    ['X', LONG],
    ['YA', LONG],
  ]);
  const pointB = caseType('PointB', [
    ['X', LONG],
    ['YB', LONG],
  ]);
  const pointC = caseType('PointC', [['YB', LONG]]);
  const pointD = caseType('PointD', [['YB', union([LONG, UNIT])]]);
  const instance = (t: Real, fields: ReadonlyArray<readonly [string, Value]>): CaseObj => CaseObj.of(t, fields);
  const A = instance(pointA, [
    ['X', 3n],
    ['YA', 40n],
  ]);
  const B = instance(pointB, [
    ['X', 3n],
    ['YB', 41n],
  ]);
  const C = instance(pointC, [['YB', 42n]]);
  const D1 = instance(pointD, [['YB', 43n]]);
  const D2 = instance(pointD, [['YB', unit]]);
  const sampleTypes = [
    caseDef(pointA),
    caseDef(pointB),
    caseDef(pointC),
    caseDef(pointD),
    { kind: 'union' as const, name: 'PointAB', types: [pointA, pointB] },
    { kind: 'union' as const, name: 'PointBC', types: [pointB, pointC] },
    { kind: 'union' as const, name: 'PointCD', types: [pointC, pointD] },
  ];

  function run(code: string, p?: CaseObj, pType = union([pointA, pointB, pointC])): Value | { error: string } {
    const parsed = parse(code);
    assert.ok(parsed.ok, code);
    const ctx = compilerContext({ types: sampleTypes, vars: [['p', pType]] });
    let expr: Expr;
    try {
      expr = compileTree(ctx, parsed.ok ? parsed.expr : (undefined as never)).expr;
    } catch (e) {
      return { error: (e as Error).message };
    }
    return result(ev(expr, evaluationContext({ lets: p === undefined ? [] : [['p', { value: p }]] })));
  }

  it('simple let, function call, priorities, overflows at the limits', () => {
    assert.equal(run('\nlet a = 1\nlet b = a + a\nb + b + b\n'), 6n);
    assert.equal(run('10 + 2'), 12n);
    assert.deepEqual(run(`${INT64_MAX} + 1 - 1`), { error: 'long overflow' });
    assert.deepEqual(run(`${INT64_MIN} - 1 + 1`), { error: 'long overflow' });
    assert.equal(run(`${INT64_MAX} - 1 + 1`), INT64_MAX);
    assert.equal(run(`${INT64_MIN} + 1 - 1`), INT64_MIN);
    assert.equal(run(`${INT64_MAX} / ${INT64_MIN} + 1`), 0n);
    assert.equal(run(`(${INT64_MAX} / 2) * 2`), INT64_MAX - 1n);
    assert.equal(run('2 + 2 * 2'), 6n);
    assert.equal(run('2 * 3 == 2 + 4'), true);
    assert.deepEqual(run(`${INT64_MAX} + fraction(-9223372036854775807, 3, 2)`), {
      error: `Long overflow: value \`${(-INT64_MAX * 3n) / 2n}\` less than -2^63-1`,
    });
    assert.equal(run('(10 + 10)#jhk\n '), 20n);
    assert.equal(run('(10 % 3)'), 1n);
    assert.equal(run('fraction(9223372036854775807, -2, -4)'), INT64_MAX / 2n);
  });

  it('equality on primitive types and unions', () => {
    assert.equal(run("base58'3My3KZgFQ3CrVHgz6vGRt8687sH4oAA1qp8' == base58'3My3KZgFQ3CrVHgz6vGRt8687sH4oAA1qp8'"), true);
    assert.equal(run('false == false'), true);
    assert.equal(run('true == false'), false);
    assert.equal(run('   "x" != "y"     '), true);
    assert.equal(run(' let union = if(true) then "x" else 3; union == "x"   '), true);
    assert.equal(run('let x = (-7763390488025868909>-1171895536391400041); let v = false; (v&&true)'), false);
    assert.equal(run('let mshUmcl = (if(true) then true else true); true || mshUmcl'), true);
    assert.equal(run('if(((1+-1)==-1)) then 1 else (1+1)'), 2n);
    assert.equal(
      run('((((if(true) then 1 else 1)==2)||((if(true)\nthen true else true)&&(true||true)))||(if(((1>1)||(-1>=-1)))\nthen (-1>=1) else false))'),
      true,
    );
  });

  it('pattern matching: types, named unions, `_`, any, blocks, fields of unions, nesting', () => {
    const three = 'match p {\n  case pa: PointA => 0\n  case pa: PointB => 1\n  case pa: PointC => 2\n}';
    assert.equal(run(three, A), 0n);
    assert.equal(run(three, B), 1n);
    const named = 'match p {\n  case pa: PointA => 0\n  case pa: PointBC => 1\n}';
    assert.equal(run(named, A), 0n);
    assert.equal(run(named, B), 1n);
    const fields = 'match p {\n  case pa: PointA => pa.X\n  case pb: PointBC => pb.YB\n}';
    assert.equal(run(fields, A), 3n);
    assert.equal(run(fields, B), 41n);
    assert.equal(run(fields, C), 42n);
    assert.equal(run('\nmatch p {\n  case _: PointA => 0\n  case _: PointB  => 1\n  case _: PointC => 2\n}\n', B), 1n);
    assert.equal(run('\nmatch p {\n  case _: PointA => 0\n  case _  => 1\n}\n', B), 1n);
    assert.equal(run('\nmatch (let x = 1; p) {\n  case _  => 1\n}\n', B), 1n);
    assert.equal(run('\nlet a = if (true) then 1 else ""\n\nmatch a {\n case x: Int => x \n case y: String => 2\n}'), 1n);
    const nested =
      'match p {\n  case p1: PointBC => {\n    match p1 {\n      case pb: PointB => pb.X\n      case pc: PointC => pc.YB\n    }\n  }\n  case other => throw()\n}';
    assert.equal(run(nested, B), 3n);
    assert.equal(run(nested, C), 42n);
    const sameField = 'match (p.YB) {\n case l: Int => l\n case u: Unit => 1\n }\n      ';
    const cd = union([pointC, pointD]);
    assert.equal(run(sameField, C, cd), 42n);
    assert.equal(run(sameField, D1, cd), 43n);
    assert.equal(run(sameField, D2, cd), 1n);
    assert.equal(run('p.YB', D2, cd), unit);
  });

  it('throw, and scopes of inner lets and if branches', () => {
    const script = '\nlet result = match p {\n  case a: PointA => 0\n  case b: PointB => throw()\n  case c: PointC => throw("arrgh")\n}\nresult\n';
    assert.equal(run(script, A), 0n);
    assert.deepEqual(run(script, B), { error: 'Explicit script termination' });
    assert.deepEqual(run(script, C), { error: 'arrgh' });
    assert.equal(run('{ let x = 3; x } + { let x = 5; x}', A), 8n);
    assert.equal(run('if ({let x= 0; x > 0 }) then { let x = 3; x } else { let x = 5; x}', A), 5n);
  });

  it('case object field access over unions (EvaluatorV1CaseObjField)', () => {
    const access = (p: CaseObj, field: string): Value | { error: string } =>
      result(ev(sum(E.getter(E.ref('p'), field), E.long(2)), evaluationContext({ lets: [['p', { value: p }]] })));
    assert.equal(access(A, 'X'), 5n);
    assert.equal(access(B, 'X'), 5n);
    assert.equal(access(A, 'YA'), 42n);
    assert.equal(access(B, 'YB'), 43n);
  });
});

describe('estimator: ScriptEstimatorTest (its own cost table)', () => {
  const costs = new Map([
    [headerKey({ native: 100 }), 100],
    [headerKey({ native: 101 }), 10],
    [headerKey({ native: 102 }), 10],
  ]);
  const transfer = ACCOUNT_TYPES.byName.get('TransferTransaction')!;
  const ctx = compilerContext({ types: [caseDef(transfer)], vars: [['tx', transfer]] });
  const compile = (code: string): Expr => {
    const parsed = parse(code);
    assert.ok(parsed.ok);
    return compileTree(ctx, parsed.ok ? parsed.expr : (undefined as never)).expr;
  };
  const declared = ['unit', 'tx'];

  it('constants, getters, lazy lets, lets counted once, if branches', () => {
    assert.equal(estimate(compile('false'), declared, new Map()), 1);
    assert.equal(estimate(compile('tx.amount'), declared, new Map()), 4);
    assert.equal(estimate(compile('let t = 1+1; t'), declared, costs), 5 + 102 + 2);
    assert.equal(estimate(compile('let t = 1+1; 2'), declared, costs), 5 + 1);
    assert.equal(estimate(compile('let x = 2+2; let y = x-x; x-y'), declared, costs), 5 + 102 + (5 + 14) + 14);
    assert.equal(estimate(compile('let a = 1+2; let b = 2; let c = a+b; b'), declared, costs), 5 + (5 + 1) + 5 + 2);
    assert.equal(estimate(compile('let a = 1+2; let b = 3+4; let c = if (tx.amount > 5) then a else b; c'), declared, costs), 5 + 102 + 5 + (5 + 16 + 2) + 2);
  });

  it('a recursive let and a 100 000-deep expression', () => {
    // let v = v; v: the body's REF marks v evaluated before costing its value (REF v: 2).
    assert.equal(estimate(E.block('v', E.ref('v'), E.ref('v')), declared, new Map()), 5 + 2 + 2);
    let expr: Expr = E.long(0);
    for (let i = 0; i < 100_000; i++) expr = E.native(100, E.long(1), expr);
    assert.equal(estimate(expr, declared, costs), 1 + 100_000 * 101);
  });
});
