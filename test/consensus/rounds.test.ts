import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PoaRounds } from '../../src/consensus/poa.js';
import { expectWeError } from '../support/errors.js';

// WE's example config: round 17 s, sync 3 s → R = 20 000 ms.
const G = 1_700_000_000_000n;
const rounds = new PoaRounds(G, { roundDurationMs: 17_000, syncDurationMs: 3_000 });

describe('PoA rounds', () => {
  it('cuts time into rounds from the genesis timestamp (hand-computed)', () => {
    // t = G + 45 000: ⌊45 000 / 20 000⌋ = 2 → roundStart G + 40 000, syncStart + 17 000, roundEnd + 19 999.
    assert.deepEqual(rounds.timestamps(G + 45_000n), { roundStart: G + 40_000n, syncStart: G + 57_000n, roundEnd: G + 59_999n });
    assert.equal(rounds.nextRoundStart(G + 45_000n), G + 60_000n);
    // Boundaries: the first and last ms of round 0, the first of round 1.
    assert.equal(rounds.roundStart(G), G);
    assert.equal(rounds.roundEnd(G + 19_999n), G + 19_999n);
    assert.equal(rounds.roundStart(G + 20_000n), G + 20_000n);
    assert.equal(rounds.syncStart(G + 16_999n), G + 17_000n);
    assert.ok(rounds.sameRound(G + 20_000n, G + 39_999n));
    assert.ok(!rounds.sameRound(G + 19_999n, G + 20_000n));
    assert.deepEqual(rounds.roundAfter(G + 45_000n, 3), rounds.timestamps(G + 100_000n));
  });

  it('counts skipped rounds between a parent and a block', () => {
    // Parent in round 0: round 1 ([G+20 000, G+40 000)) skips nothing, round 2 skips one, …
    assert.equal(rounds.skippedRounds(G + 5_000n, G + 20_000n), 0);
    assert.equal(rounds.skippedRounds(G + 5_000n, G + 39_999n), 0);
    assert.equal(rounds.skippedRounds(G + 5_000n, G + 40_000n), 1);
    // (95 000 − 20 000) / 20 000 = 3.75 → 3.
    assert.equal(rounds.skippedRounds(G + 5_000n, G + 95_000n), 3);
    // A block in the parent's own round: (t − next) is within (−R, 0) and truncates to 0, as in WE.
    assert.equal(rounds.skippedRounds(G + 5_000n, G + 6_000n), 0);
  });

  it('uses Java long division (toward zero) before the genesis timestamp', () => {
    // (−1) / 20 000 = 0 in Java, so an instant just before genesis lands in round 0.
    assert.equal(rounds.roundStart(G - 1n), G);
    // life = −1: −1 − (−1 % 20 000) + 20 000 + G = G + 20 000.
    assert.equal(rounds.nextRoundStart(G - 1n), G + 20_000n);
    // (−20 001) / 20 000 = −1 → G − 20 000.
    assert.equal(rounds.roundStart(G - 20_001n), G - 20_000n);
  });

  it('refuses more skipped rounds than an int holds, with WE message', () => {
    const fast = new PoaRounds(G, { roundDurationMs: 1, syncDurationMs: 0 });
    assert.equal(fast.skippedRounds(G, G + 1n + 0x7fffffffn), 0x7fffffff);
    expectWeError(() => fast.skippedRounds(G, G + 2n + 0x7fffffffn), 199, "Something wrong happened, skipped rounds counter has overflown integer's max value");
  });

  it('refuses a round duration that is not positive', () => {
    expectWeError(() => new PoaRounds(G, { roundDurationMs: 0, syncDurationMs: 3_000 }), 199);
    expectWeError(() => new PoaRounds(G, { roundDurationMs: 1_000, syncDurationMs: -1 }), 199);
  });

  it('keeps every instant after genesis inside its round, rounds adjacent', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60_000 }), fc.integer({ min: 0, max: 10_000 }), fc.bigInt({ min: 0n, max: 10n ** 12n }), (round, sync, offset) => {
        const r = new PoaRounds(G, { roundDurationMs: round, syncDurationMs: sync });
        const t = G + offset;
        const ts = r.timestamps(t);
        const period = BigInt(round + sync);
        assert.ok(ts.roundStart <= t && t <= ts.roundEnd);
        assert.equal((ts.roundStart - G) % period, 0n);
        assert.equal(ts.syncStart - ts.roundStart, BigInt(round));
        assert.equal(r.nextRoundStart(t), ts.roundEnd + 1n);
        // A block k rounds after the parent's next round skipped k rounds.
        const k = Number(offset % 7n);
        assert.equal(r.skippedRounds(t, r.nextRoundStart(t) + BigInt(k) * period), k);
      }),
      { numRuns: 300 },
    );
  });
});
