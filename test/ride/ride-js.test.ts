/**
 * The public chain's compiler (@waves/ride-js 2.3.0) as an oracle: generated scripts of
 * the subset WE shares with it (versions 1 and 2, expression scripts, Waves types and
 * functions — no secureHash, no WE transaction types) must compile to identical script
 * bytes (expression and checksum) with Weft's compiler, and each compiler must accept
 * exactly what the other accepts. `ORACLE_RUNS` sets the number of scripts per version.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { compileScript } from '../../src/ride/script-compiler.js';

interface RideJs {
  compile(code: string): { result: { base64: string } } | { error: string };
}

const rideJs = createRequire(import.meta.url)('@waves/ride-js') as RideJs;
const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const RUNS = Number(process.env['ORACLE_RUNS'] ?? 100);

interface Exprs {
  int: fc.Arbitrary<string>;
  bool: fc.Arbitrary<string>;
  bytes: fc.Arbitrary<string>;
  str: fc.Arbitrary<string>;
}

const name = fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,5}$/).map((s) => `v${s}`);
const text = fc.stringMatching(/^[a-zA-Z0-9 ]{0,8}$/);
const byteLiteral = fc
  .uint8Array({ maxLength: 12 })
  .chain((b) => fc.constantFrom(`base58'${encodeBase58(b)}'`, `base64'${Buffer.from(b).toString('base64')}'`));
const longLiteral = fc.oneof(fc.integer({ min: -1000, max: 1000 }).map(String), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String));

/** Typed expressions of the common subset; `refs` are let names of each type in scope. */
function exprs(refs: { int: string[]; bool: string[]; bytes: string[]; str: string[] }): Exprs {
  const pick = (names: string[], fallback: fc.Arbitrary<string>): fc.Arbitrary<string> =>
    names.length === 0 ? fallback : fc.oneof(fallback, fc.constantFrom(...names));
  const { int, bool, bytes, str } = fc.letrec<{ int: string; bool: string; bytes: string; str: string }>((tie) => {
    const i = tie('int');
    const b = tie('bool');
    const y = tie('bytes');
    const s = tie('str');
    const small = { maxDepth: 3, depthSize: 'small' } as const;
    return {
      int: fc.oneof(
        small,
        pick(refs.int, longLiteral),
        fc.constant('height'),
        fc.tuple(i, fc.constantFrom('+', '-', '*', '/', '%'), i).map(([a, op, c]) => `(${a} ${op} ${c})`),
        i.map((a) => `-(${a})`),
        fc.tuple(i, i, i).map(([a, c, d]) => `fraction(${a}, ${c}, ${d})`),
        y.map((a) => `size(${a})`),
        s.map((a) => `size(${a})`),
        fc.tuple(b, i, i).map(([c, a, d]) => `(if (${c}) then ${a} else ${d})`),
        i.map((a) => `(match tx {\n case t: TransferTransaction => t.amount\n case _ => ${a}\n})`),
      ),
      bool: fc.oneof(
        small,
        pick(refs.bool, fc.constantFrom('true', 'false')),
        fc.tuple(i, fc.constantFrom('==', '!=', '>', '>=', '<', '<='), i).map(([a, op, c]) => `(${a} ${op} ${c})`),
        fc.tuple(b, fc.constantFrom('&&', '||'), b).map(([a, op, c]) => `(${a} ${op} ${c})`),
        b.map((a) => `!(${a})`),
        fc.tuple(y, y).map(([a, c]) => `(${a} == ${c})`),
        fc.tuple(s, s).map(([a, c]) => `(${a} != ${c})`),
        fc.tuple(y, y, y).map(([a, c, d]) => `sigVerify(${a}, ${c}, ${d})`),
        s.map((a) => `isDefined(getInteger(tx.sender, ${a}))`),
        fc
          .tuple(b, b)
          .map(
            ([a, c]) =>
              `(match tx {\n case d: DataTransaction => ${a}\n case t: TransferTransaction | MassTransferTransaction => t.fee > 0\n case _ => ${c}\n})`,
          ),
      ),
      bytes: fc.oneof(
        small,
        pick(refs.bytes, byteLiteral),
        fc.constantFrom('tx.id', 'tx.bodyBytes', 'tx.senderPublicKey'),
        fc.tuple(y, y).map(([a, c]) => `(${a} + ${c})`),
        fc.tuple(fc.constantFrom('take', 'drop', 'takeRight', 'dropRight'), y, i).map(([f, a, c]) => `${f}(${a}, ${c})`),
        fc.tuple(fc.constantFrom('sha256', 'blake2b256', 'keccak256'), y).map(([f, a]) => `${f}(${a})`),
        i.map((a) => `toBytes(${a})`),
        s.map((a) => `toBytes(${a})`),
        s.map((a) => `fromBase58String(${a})`),
      ),
      str: fc.oneof(
        small,
        pick(
          refs.str,
          text.map((t) => `"${t}"`),
        ),
        fc.tuple(s, s).map(([a, c]) => `(${a} + ${c})`),
        fc.tuple(fc.constantFrom('take', 'drop', 'takeRight', 'dropRight'), s, i).map(([f, a, c]) => `${f}(${a}, ${c})`),
        i.map((a) => `toString(${a})`),
        y.map((a) => `toBase58String(${a})`),
      ),
    };
  });
  return { int, bool, bytes, str };
}

/** A script: a few lets of each type (values without references), then a Boolean body using them. */
const scriptArb = fc.tuple(fc.uniqueArray(name, { minLength: 4, maxLength: 4 })).chain(([[ni, nb, ny, ns]]) => {
  const plain = exprs({ int: [], bool: [], bytes: [], str: [] });
  const scoped = exprs({ int: [ni!], bool: [nb!], bytes: [ny!], str: [ns!] });
  return fc
    .tuple(plain.int, plain.bool, plain.bytes, plain.str, scoped.bool)
    .map(([i, b, y, s, body]) => `let ${ni} = ${i}\nlet ${nb} = ${b}\nlet ${ny} = ${y}\nlet ${ns} = ${s}\n${body}`);
});

function compareWithRideJs(version: 1 | 2, source: string): 'compiled' | 'refused' {
  const oracle = rideJs.compile(`{-# STDLIB_VERSION ${version} #-}\n{-# CONTENT_TYPE EXPRESSION #-}\n${source}`);
  const ours = compileScript(`{-# LANGUAGE_VERSION ${version} #-}\n${source}`, { assetScript: false, crypto: p });
  if ('error' in oracle) {
    assert.ok(!ours.ok, `ride-js refuses (${oracle.error}) what Weft compiles:\n${source}`);
    return 'refused';
  }
  assert.ok(ours.ok, `Weft refuses (${ours.ok ? '' : ours.error}) what ride-js compiles:\n${source}`);
  assert.equal(`${Buffer.from(ours.script.bytes).toString('base64')}`, oracle.result.base64, source);
  return 'compiled';
}

describe('compiler against @waves/ride-js 2.3.0', () => {
  it('the reference sources of the common subset', () => {
    for (const version of [1, 2] as const) {
      for (const source of [
        'true',
        '1 == 2',
        'let x = 10\n20 == x + x',
        'sigVerify(tx.bodyBytes, tx.proofs[0], tx.senderPublicKey)',
        'height != 0',
        'match tx {\ncase t: TransferTransaction => true\ncase _ => false\n}',
        'let a = 1 < 2\n!a || 5 <= 6',
        'wavesBalance(tx.sender) > 0 && isDefined(getInteger(tx.sender, "a"))',
        'let x = extract(addressFromString("a")) \n x == tx.sender',
        'takeRight(base58\'2\', 1) == base58\'\' && dropRight("abc", 1) == "ab"',
      ]) {
        assert.equal(compareWithRideJs(version, source), 'compiled', source);
      }
    }
    compareWithRideJs(
      2,
      'match tx {\ncase t: TransferTransaction | MassTransferTransaction => t.fee < 100\ncase o: Order => o.orderType == Buy\ncase _ => false\n}',
    );
  });

  it(`generated scripts compile to identical bytes (${RUNS} per version)`, () => {
    for (const version of [1, 2] as const) {
      let compiled = 0;
      fc.assert(
        fc.property(scriptArb, (source) => {
          if (compareWithRideJs(version, source) === 'compiled') compiled++;
        }),
        { numRuns: RUNS },
      );
      // Most generated scripts are valid: the comparison is of bytes, not of refusals.
      assert.ok(compiled >= RUNS / 2, `only ${compiled} of ${RUNS} generated scripts compiled`);
    }
  });
});
