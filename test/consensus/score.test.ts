import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { poaBlockScore, poaTimestampTerm, posBlockScore } from '../../src/consensus/score.js';
import { WeError } from '../../src/errors/catalogue.js';

/**
 * Expected PoA scores. The first two are reference §4.5's examples; the rest were computed
 * with java.math.BigDecimal on OpenJDK 17 by test/consensus/PoaScoreOracle.java, which
 * evaluates the formula step by step (divide with MathContext.DECIMAL128, the double term
 * through Double.toString, add with DECIMAL128, setScale(0, CEILING)); the same program
 * agreed with Scala's own `BigDecimal` expression on 2,000 random inputs.
 *
 * By hand:
 *  - s=0, ts=1700000000000: 2^64/99 = 186330748219288400.1616…; ts/1e3 = 1.7e9 is a multiple of
 *    1e4, so the term is 0.0; ceil → 186330748219288401.
 *  - s=3, ts=1700000012345: 2^64/102 = 180850432095191682.5098…; term = (1700000012.345 mod 1e4)
 *    · 170.0000012345 = 12.345… · 170.0000012345 = 2098.6500201036415 (double);
 *    sum 180850432095193781.1598… → 180850432095193782.
 *  - s=29: 99+29 = 128, so the quotient is 2^57 = 144115188075855872 exactly; with a zero term the
 *    ceiling adds nothing, with ts one ms later the term is 0.1699… and the score one more.
 *  - s=157: 99+157 = 256 → 2^56 = 72057594037927936 (1690000000000 ms is again a multiple of 1e7).
 */
const TABLE: ReadonlyArray<readonly [bigint, bigint, bigint]> = [
  [0n, 1700000000000n, 186330748219288401n],
  [3n, 1700000012345n, 180850432095193782n],
  [0n, 0n, 186330748219288401n],
  [0n, 1n, 186330748219288401n],
  [0n, 999n, 186330748219288401n],
  [1n, 1000n, 184467440737095517n],
  [29n, 1700000000000n, 144115188075855872n],
  [157n, 1690000000000n, 72057594037927936n],
  [29n, 1700000000001n, 144115188075855873n],
  [7n, 1234567890123n, 174025887488800048n],
  [12n, 1600000017000n, 166186883546935618n],
  [100n, 1650000000999n, 92697206400550676n],
  [1000n, 1700000019999n, 16785026454698170n],
  [123456n, 1699999999999n, 149299860659246n],
  [1000000n, 1700000123456n, 18444918047813n],
  [999999999n, 1710000000000n, 18446742266n],
  [1000000000000n, 1705555555555n, 19394275n],
  [0n, 9223372036854n, 186330748221167067n],
  [42n, 1672531200000n, 130827972154169155n],
  [5n, 1700000060000n, 177372539170294351n],
];

describe('PoA block score', () => {
  it('reproduces reference §4.5 and the BigDecimal oracle', () => {
    for (const [s, ts, expected] of TABLE) assert.equal(poaBlockScore(s, ts), expected, `s=${s} ts=${ts}`);
  });

  it('computes the double term as Java does', () => {
    assert.equal(poaTimestampTerm(1700000012345n), 2098.6500201036415);
    assert.equal(poaTimestampTerm(1700000000000n), 0);
    assert.equal(poaTimestampTerm(1672531200000n), 200703.744);
  });

  it('lies between the rounded-up quotient and quotient + term + 1', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 4_000_000_000_000n }), (s, ts) => {
        const score = poaBlockScore(s, ts);
        const d = 99n + s;
        const q = (1n << 64n) / d; // ⌊2^64 / d⌋
        const term = BigInt(Math.floor(poaTimestampTerm(ts)));
        assert.ok(score >= q, `${score} < ${q}`);
        assert.ok(score <= q + term + 2n, `${score} > ${q} + ${term} + 2`);
      }),
      { numRuns: 300 },
    );
  });

  it('falls as overall-skipped-rounds grow (at the same timestamp)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 6n }), fc.bigInt({ min: 1_600_000_000_000n, max: 1_800_000_000_000n }), (s, ts) => {
        assert.ok(poaBlockScore(s, ts) > poaBlockScore(s + 1n, ts));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a negative overall-skipped-rounds with a WeError', () => {
    assert.throws(
      () => poaBlockScore(-1n, 0n),
      (e: unknown) => e instanceof WeError && e.code === 199,
    );
  });
});

describe('PoS block score', () => {
  it('is ⌊2^64 / baseTarget⌋', () => {
    assert.equal(posBlockScore(1n), 18446744073709551616n);
    assert.equal(posBlockScore(153722867n), 120000000219n); // 2^64 = 153722867 · 120000000219 + 44243743
    assert.equal(posBlockScore(1n << 32n), 1n << 32n);
    assert.equal(posBlockScore(3n), 6148914691236517205n); // 2^64 = 3 · 6148914691236517205 + 1
  });

  it('refuses a base target that is not positive', () => {
    assert.throws(
      () => posBlockScore(0n),
      (e: unknown) => e instanceof WeError && e.code === 199,
    );
  });
});
