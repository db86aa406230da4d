/**
 * The parser, against the expected trees of WE's ParserTest and DirectiveParserTest
 * (we-core lang/jvm/src/test/.../ParserTest.scala): operator priority, literals and
 * their faults, blocks, getters and accessors, match cases and their faults, comments,
 * positions where WE asserts them; plus fastparse's failure text for unparseable input.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { parse, type PExpr } from '../../src/ride/parser.js';
import { prettyIndex } from '../../src/ride/parsing.js';
import { languageVersionDirectives, scalaLines } from '../../src/ride/script-compiler.js';
import { shape } from './support.js';

function tree(source: string): PExpr {
  const r = parse(source);
  assert.ok(r.ok, `${JSON.stringify(source)}: ${r.ok ? '' : r.message}`);
  return r.expr;
}

const parsed = (source: string): unknown => shape(tree(source));
const ref = (name: string): unknown => ({ REF: name });
const call = (name: string, ...args: unknown[]): unknown => ({ CALL: name, ARGS: args });
const invalid = (message: string): unknown => ({ INVALID: message });
const bytes = (b: Uint8Array | string): unknown => ({ CONST_BYTEVECTOR: new Uint8Array(typeof b === 'string' ? Buffer.from(b) : b) });

describe('parser: WE ParserTest', () => {
  it('priority in binary expressions', () => {
    assert.deepEqual(parsed('1 == 0 || 3 == 2'), [[1n, '==', 0n], '||', [3n, '==', 2n]]);
    assert.deepEqual(parsed('3 + 2 > 2 + 1'), [[3n, '+', 2n], '>', [2n, '+', 1n]]);
    assert.deepEqual(parsed('1 >= 0 || 3 > 2'), [[1n, '>=', 0n], '||', [3n, '>', 2n]]);
  });

  it('operations priority; `<` and `<=` swap their operands', () => {
    assert.deepEqual(parsed('a-b+c'), [[ref('a'), '-', ref('b')], '+', ref('c')]);
    assert.deepEqual(parsed('a+b-c'), [[ref('a'), '+', ref('b')], '-', ref('c')]);
    assert.deepEqual(parsed('a+b*c'), [ref('a'), '+', [ref('b'), '*', ref('c')]]);
    assert.deepEqual(parsed('a*b-c'), [[ref('a'), '*', ref('b')], '-', ref('c')]);
    assert.deepEqual(parsed('a/b*c'), [[ref('a'), '/', ref('b')], '*', ref('c')]);
    assert.deepEqual(parsed('a<b==c>=d'), [[ref('b'), '>', ref('a')], '==', [ref('c'), '>=', ref('d')]]);
    assert.deepEqual(parsed('if (10 < 15) then true else false'), { IF: [[15n, '>', 10n], true, false] });
  });

  it('byte vector literals', () => {
    assert.deepEqual(parsed("false || sigVerify(base58'333', base58'222', base58'111')"), [
      false,
      '||',
      call('sigVerify', bytes(decodeBase58('333')), bytes(decodeBase58('222')), bytes(decodeBase58('111'))),
    ]);
    assert.deepEqual(parsed("base58'bQbp'"), bytes('foo'));
    assert.deepEqual(parsed("base58''"), bytes(new Uint8Array(0)));
    assert.deepEqual(parsed("base58' bQbp'"), { CONST_BYTEVECTOR: { invalid: "can't parse Base58 string" } });
    assert.deepEqual(parsed("base64'TElLRQ=='"), bytes('LIKE'));
    assert.deepEqual(parsed("base64''"), bytes(new Uint8Array(0)));
    assert.deepEqual(parsed("base64'mid-size'"), { CONST_BYTEVECTOR: { invalid: "can't parse Base64 string" } });
  });

  it('a literal over 12288 characters, with its positions', () => {
    const e = tree(`base58'${'A'.repeat(12289)}'`);
    assert.equal(e.t, 'CONST_BYTEVECTOR');
    if (e.t !== 'CONST_BYTEVECTOR') return;
    // WE's ParserTest: Pos(0, to + 1) and Pos(8, to) with to = 8 + 12288 (WE counts `base58'` as 8).
    assert.deepEqual(e.pos, { start: 0, end: 8 + 12288 + 1 });
    assert.deepEqual(e.value, { valid: false, pos: { start: 8, end: 8 + 12288 }, message: 'base58Decode input exceeds 12288' });
  });

  it('strings: consumed whole, unicode, escapes and their faults', () => {
    const s = tree(' "   fooo    bar" ');
    assert.deepEqual(s, { t: 'CONST_STRING', pos: { start: 1, end: 17 }, value: { valid: true, pos: { start: 2, end: 16 }, v: '   fooo    bar' } });
    const unicode = '❤✓☀★☂♞☯☭☢€☎∞❄♫\u20BD';
    assert.deepEqual(tree(`\n\n "${unicode}"\n\n       `), {
      t: 'CONST_STRING',
      pos: { start: 3, end: 20 },
      value: { valid: true, pos: { start: 4, end: 19 }, v: unicode },
    });
    assert.deepEqual(tree('"\\u1234"'), { t: 'CONST_STRING', pos: { start: 0, end: 8 }, value: { valid: true, pos: { start: 1, end: 7 }, v: 'ሴ' } });
    assert.deepEqual(parsed('"\\uqwer"'), { CONST_STRING: { invalid: "can't parse 'qwer' as HEX string in '\\uqwer'" } });
    assert.deepEqual(parsed('"\\u12 test"'), { CONST_STRING: { invalid: "incomplete UTF-8 symbol definition: '\\u12'" } });
    assert.deepEqual(parsed('"\\u"'), { CONST_STRING: { invalid: "incomplete UTF-8 symbol definition: '\\u'" } });
    assert.deepEqual(parsed('"\\t\\n\\r\\\\\\""'), { CONST_STRING: '\t\n\r\\"' });
    assert.deepEqual(parsed('"\\ test"'), { CONST_STRING: { invalid: "unknown escaped symbol: '\\ '. The valid are \b, \f, \n, \r, \t" } });
  });

  it('blocks: newline or `;` after the lets, else "expected \';\'"', () => {
    const expected = { LET: ['q', 1n], BODY: ref('c') };
    assert.deepEqual(parsed('let q = 1\nc'), expected);
    assert.deepEqual(parsed('let q = 1;\nc'), expected);
    assert.deepEqual(parsed('let q = 1\n; c'), expected);
    assert.deepEqual(parsed('let q = 1; c'), expected);
    assert.deepEqual(parsed('let q = 1 c'), { LET: ['q', 1n], BODY: invalid("expected ';'") });
    assert.deepEqual(parsed('let x = a &&\nlet y = 1\ntrue\ntrue'), { LET: ['x', [ref('a'), '&&', { LET: ['y', 1n], BODY: true }]], BODY: true });
    assert.deepEqual(parsed('let a = (foo)\n(bar)'), { LET: ['a', ref('foo')], BODY: ref('bar') });
  });

  it('keywords are not names', () => {
    for (const kw of ['if', 'let', 'then', 'else', 'true', 'false']) {
      assert.deepEqual(parsed(`let ${kw.padEnd(4, ' ')} = 1\ntrue`), { LET: [{ invalid: `keywords are restricted: ${kw}` }, 1n], BODY: true }, kw);
    }
    assert.deepEqual(parsed('let + 1'), { LET: [{ invalid: "expected a variable's name" }, invalid('expected a value')], BODY: invalid("expected ';'") });
    assert.deepEqual(parsed('if + 1'), [
      { IF: [invalid('expected a condition'), invalid('expected a true branch'), invalid('expected a false branch')] },
      '+',
      1n,
    ]);
    assert.deepEqual(parsed('then + 1'), [
      { IF: [invalid('expected a condition'), invalid("expected a true branch's expression"), invalid('expected a false branch')] },
      '+',
      1n,
    ]);
    assert.deepEqual(parsed('else + 1'), [
      { IF: [invalid('expected a condition'), invalid('expected a true branch'), invalid("expected a false branch's expression")] },
      '+',
      1n,
    ]);
    for (const name of ['ifx', 'thenx', 'elsex', 'matchx', 'truex', 'falsex']) assert.deepEqual(parsed(name), ref(name));
  });

  it('the multisig sample parses', () => {
    const script = `

let A = base58'PK1PK1PK1PK1PK1'
let B = base58'PK2PK2PK2PK2PK2'
let C = base58'PK3PK3PK3PK3PK3'

let W = tx.bodyBytes
let P = tx.PROOF
let V = sigVerify(W,P,A)

let AC = if(V) then 1 else 0
let BC = if(sigVerify(tx.bodyBytes,tx.PROOF,B)) then 1 else 0
let CC = if(sigVerify(tx.bodyBytes,tx.PROOF,C)) then 1 else 0

 AC + BC+ CC >= 2

      `;
    tree(script);
  });

  it('calls, getters, accessors', () => {
    assert.deepEqual(parsed('FOO(1,2)'), call('FOO', 1n, 2n));
    assert.deepEqual(parsed('FOO(X)'), call('FOO', ref('X')));
    assert.deepEqual(parsed('if(isDefined(X)) then extract(X) else Y'), { IF: [call('isDefined', ref('X')), call('extract', ref('X')), ref('Y')] });
    for (const s of ['xxx  .yyy', 'xxx.  yyy', 'xxx.yyy']) assert.deepEqual(parsed(s), { GETTER: [ref('xxx'), 'yyy'] });
    for (const s of ['xxx(yyy).zzz', '(xxx(yyy)).zzz', '{xxx(yyy)}.zzz']) assert.deepEqual(parsed(s), { GETTER: [call('xxx', ref('yyy')), 'zzz'] });
    assert.deepEqual(parsed('{\n  let yyy = aaa(bbb)\n  xxx(yyy)\n}.zzz'), {
      GETTER: [{ LET: ['yyy', call('aaa', ref('bbb'))], BODY: call('xxx', ref('yyy')) }, 'zzz'],
    });
    assert.deepEqual(parsed('x.y.z'), { GETTER: [{ GETTER: [ref('x'), 'y'] }, 'z'] });
    assert.deepEqual(parsed('x[0]'), call('getElement', ref('x'), 0n));
    assert.deepEqual(parsed('x[0][1]'), call('getElement', call('getElement', ref('x'), 0n), 1n));
    assert.deepEqual(parsed('x[0].y'), { GETTER: [call('getElement', ref('x'), 0n), 'y'] });
    assert.deepEqual(parsed('x.y[0]'), call('getElement', { GETTER: [ref('x'), 'y'] }, 0n));
    assert.deepEqual(parsed('x(y)[0]'), call('getElement', call('x', ref('y')), 0n));
  });

  it('positions of a call with a base58 argument (crypto functions: sha256)', () => {
    const text = '❤✓☀★☂♞☯☭☢€☎∞❄♫\u20BD=test message';
    const e = tree(`sha256(base58'${encodeBase58(Buffer.from(text))}')`);
    assert.deepEqual(e, {
      t: 'FUNCTION_CALL',
      pos: { start: 0, end: 96 },
      name: { valid: true, pos: { start: 0, end: 6 }, v: 'sha256' },
      args: [{ t: 'CONST_BYTEVECTOR', pos: { start: 7, end: 95 }, value: { valid: true, pos: { start: 15, end: 94 }, v: new Uint8Array(Buffer.from(text)) } }],
    });
  });

  it('a binary operation without its second operand', () => {
    assert.deepEqual(parsed('a &&'), [ref('a'), '&&', invalid('expected a second operator')]);
  });

  it('match: cases, union types, shadowing, faults', () => {
    assert.deepEqual(parsed('match tx {\n  case a: TypeA => 0\n  case b: TypeB => 1\n}'), {
      MATCH: ref('tx'),
      CASES: [
        ['a', ['TypeA'], 0n],
        ['b', ['TypeB'], 1n],
      ],
    });
    assert.deepEqual(parsed('match tx {\n  case txa: TypeA => 0\n  case underscore : TypeB | TypeC => 1\n}'), {
      MATCH: ref('tx'),
      CASES: [
        ['txa', ['TypeA'], 0n],
        ['underscore', ['TypeB', 'TypeC'], 1n],
      ],
    });
    assert.deepEqual(parsed('match foo(x) + bar {\n  case x:TypeA => 0\n  case y:TypeB | TypeC => 1\n}'), {
      MATCH: [call('foo', ref('x')), '+', ref('bar')],
      CASES: [
        ['x', ['TypeA'], 0n],
        ['y', ['TypeB', 'TypeC'], 1n],
      ],
    });
    assert.deepEqual(parsed('match p { \n  case p: PointA | PointB => true\n  case _ => false\n}'), {
      MATCH: ref('p'),
      CASES: [
        ['p', ['PointA', 'PointB'], true],
        ['_', [], false],
      ],
    });
    assert.deepEqual(parsed('match tx { case x => 1 } '), { MATCH: ref('tx'), CASES: [['x', [], 1n]] });
    assert.deepEqual(parsed('match tx { case  _:TypeA => 1 } '), { MATCH: ref('tx'), CASES: [['_', ['TypeA'], 1n]] });
    assert.deepEqual(parsed('match tx { } '), invalid('pattern matching requires case branches'));
    const badSyntax = { invalid: 'invalid syntax, should be: `case varName: Type => expr` or `case _ => expr`' };
    assert.deepEqual(parsed('match tx { case => } '), { MATCH: ref('tx'), CASES: [[badSyntax, [], invalid('expected expression')]] });
    assert.deepEqual(parsed('match tx { case => 1 } '), { MATCH: ref('tx'), CASES: [[badSyntax, [], 1n]] });
    assert.deepEqual(parsed('match tx { case TypeA => } '), { MATCH: ref('tx'), CASES: [['TypeA', [], invalid('expected expression')]] });
    assert.deepEqual(parsed('match tx { case :TypeA => 1 } '), { MATCH: ref('tx'), CASES: [[badSyntax, [], 1n]] });
    assert.deepEqual(parsed('match tx { case 1 + 1 => 1 } '), { MATCH: ref('tx'), CASES: [[badSyntax, [], 1n]] });
    const noType = { invalid: 'the type for variable should be specified: `case varName: Type => expr`' };
    assert.deepEqual(parsed('match tx { case _: | => 1 } '), { MATCH: ref('tx'), CASES: [['_', [noType], 1n]] });
    assert.deepEqual(parsed('match tx { case  _: |||| => 1 } '), { MATCH: ref('tx'), CASES: [['_', [noType], 1n]] });
    assert.deepEqual(parsed('match tx {\n  case a => true &&\n  case b => 1\n}'), {
      MATCH: ref('tx'),
      CASES: [
        ['a', [], [true, '&&', invalid('expected a second operator')]],
        ['b', [], 1n],
      ],
    });
    assert.deepEqual(parsed('match tx {\n  case a =>\n    let x = true\n    x &&\n  case b => 1\n}'), {
      MATCH: ref('tx'),
      CASES: [
        ['a', [], { LET: ['x', true], BODY: [ref('x'), '&&', invalid('expected a second operator')] }],
        ['b', [], 1n],
      ],
    });
  });

  it('if without parentheses, across lines; numbers with underscores', () => {
    for (const s of ['if 10 < 15 then true else false', 'if (10 < 15)\nthen true\nelse false', 'if 10 < 15\nthen true\nelse false']) {
      assert.deepEqual(parsed(s), { IF: [[15n, '>', 10n], true, false] });
    }
    assert.deepEqual(parsed('100_000_000'), 100000000n);
  });

  it('comments wherever WE allows them', () => {
    const letX = { LET: ['x', true], BODY: ref('x') };
    assert.equal(parsed('# foo\ntrue'), true);
    assert.equal(parsed('true\n# foo'), true);
    assert.deepEqual(parsed('let # foo\n  x = true\nx'), letX);
    assert.deepEqual(parsed('let x # foo\n  = true\nx'), letX);
    assert.deepEqual(parsed('let x = true\n# foo\nx'), letX);
    assert.deepEqual(parsed('let x = true # foo\nx'), letX);
    assert.deepEqual(parsed('if 10 < 15 # test\nthen true else false'), { IF: [[15n, '>', 10n], true, false] });
    const m = {
      MATCH: ref('p'),
      CASES: [
        ['p', ['PointA', 'PointB'], true],
        ['_', [], false],
      ],
    };
    for (const s of [
      'match p {\n  case # test\n       p: PointA | PointB => true\n  case _ => false\n}',
      'match p {\n  case p # test\n       : PointA\n       | PointB => true\n  case _ => false\n}',
      'match p {\n  case p: # test\n         PointA | PointB => true\n  case _ => false\n}',
      'match p {\n  case p: PointA | PointB # test\n         => true\n  case _ => false\n}',
      'match p {\n  case p : PointA # foo\n         | PointB # bar\n         => true\n  case _ => false\n}',
      'match p {\n  case p: PointA | # foo\n          PointB   # bar\n         => true\n  case _ => false\n}',
      'match p {\n  # foo\n  case p: PointA | PointB => true\n  # bar\n  case _ => false\n  # baz\n}',
    ]) {
      assert.deepEqual(parsed(s), m, s);
    }
    assert.deepEqual(parsed('x # foo\n.y'), { GETTER: [ref('x'), 'y'] });
    assert.deepEqual(parsed('x. # foo\ny'), { GETTER: [ref('x'), 'y'] });
    assert.deepEqual(parsed('f(\n # foo\n 1 # bar\n # baz\n , 2\n # quux\n)'), call('f', 1n, 2n));
    assert.deepEqual(parsed('xs[\n # foo\n 1\n # bar\n]'), call('getElement', ref('xs'), 1n));
  });

  it('10 000 lets and a 10 000-term sum parse (no stack overflow)', () => {
    const lets = Array.from({ length: 10_001 }, (_, i) => `let i${i} = 1`).join('\n');
    const sum = Array.from({ length: 10_001 }, (_, i) => `i${i}`).join(' + ');
    assert.ok(parse(`${lets}\n${sum}`).ok);
  });
});

describe('parser: text it cannot parse', () => {
  it('fails where fastparse fails, with its message', () => {
    for (const [source, message] of [
      ['foo (1)', 'Parsed.Failure(Position 1:5, found "(1)")'],
      ['true )', 'Parsed.Failure(Position 1:6, found ")")'],
      ['', 'Parsed.Failure(Position 1:1, found "")'],
      ['1 ==\n\n  true false', 'Parsed.Failure(Position 3:8, found "false")'],
      ['"unterminated', 'Parsed.Failure(Position 1:14, found "")'],
      ['match tx { case _ => 1 ', 'Parsed.Failure(Position 1:24, found "")'],
    ] as const) {
      const r = parse(source);
      assert.equal(r.ok, false, source);
      if (!r.ok) assert.equal(r.message, message, source);
    }
  });

  it('a line that starts no expression becomes "can\'t parse the expression"', () => {
    assert.deepEqual(parsed(')\n'), invalid("can't parse the expression"));
    const r = parse('let x = 1\n) + 2');
    assert.ok(r.ok);
    if (r.ok && r.expr.t === 'BLOCK') assert.deepEqual(r.expr.body, { t: 'INVALID', pos: { start: 10, end: 15 }, message: "can't parse the expression" });
  });

  it('line:column as fastparse counts them', () => {
    assert.equal(prettyIndex('ab\ncd', 4), '2:2');
    assert.equal(prettyIndex('\n\nx', 2), '3:1');
    assert.equal(prettyIndex('ab', 2), '1:3');
  });
});

describe('directives', () => {
  it('LANGUAGE_VERSION lines anywhere, other keys ignored (DirectiveParserTest)', () => {
    assert.deepEqual(languageVersionDirectives('{-# LANGUAGE_VERSION 10 #-}'), ['10']);
    assert.deepEqual(languageVersionDirectives('\n\n{-# LANGUAGE_VERSION 10 #-}\n\n      '), ['10']);
    assert.deepEqual(languageVersionDirectives('{-# STDLIB_VERSION 3 #-}\n{-#LANGUAGE_VERSION 2#-} trailing\n{-# LANGUAGE_VERSION 1 #-}'), ['2', '1']);
    assert.deepEqual(languageVersionDirectives('{-# LANGUAGE_VERSION2 #-}'), []);
  });

  it("Scala's linesIterator: LF and FF end lines, CR before LF dropped, no empty last line", () => {
    assert.deepEqual(scalaLines('a\r\nb\fc\n'), ['a', 'b', 'c']);
    assert.deepEqual(scalaLines('a\n\nb\r'), ['a', '', 'b\r']);
    assert.deepEqual(scalaLines(''), []);
  });
});
