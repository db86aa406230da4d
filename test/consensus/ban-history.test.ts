import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { dropWarnings, hasWarnings, isBanned, warnOrBan, type BanHistoryMode } from '../../src/consensus/poa.js';
import type { MinerBanEntry } from '../../src/state/model.js';

const RULES = { banDurationBlocks: 5, warningsForBan: 3 };
const W = (timestamp: bigint): MinerBanEntry => ({ kind: 'warning', timestamp });
const B = (timestamp: bigint, beginHeight: number, prior: bigint[] = []): MinerBanEntry => ({
  kind: 'ban',
  timestamp,
  beginHeight,
  priorWarningTimestamps: prior,
});
const V1_LEGACY: BanHistoryMode = { version: 1, modernOrdering: false };
const V1_MODERN: BanHistoryMode = { version: 1, modernOrdering: true };

describe('miner ban history', () => {
  it('warns twice, then bans on the third warning (warnings-for-ban 3)', () => {
    let h: MinerBanEntry[] = [];
    h = warnOrBan(h, 10, 100n, RULES);
    assert.deepEqual(h, [W(100n)]);
    h = warnOrBan(h, 12, 200n, RULES);
    assert.deepEqual(h, [W(100n), W(200n)]);
    h = warnOrBan(h, 15, 300n, RULES);
    // The two warnings become the ban's prior warnings, newest first (WE's order).
    assert.deepEqual(h, [B(300n, 15, [200n, 100n])]);
    // After the ban the count starts again.
    h = warnOrBan(h, 30, 400n, RULES);
    assert.deepEqual(h, [B(300n, 15, [200n, 100n]), W(400n)]);
  });

  it('bans at once with warnings-for-ban 1', () => {
    assert.deepEqual(warnOrBan([], 7, 50n, { banDurationBlocks: 5, warningsForBan: 1 }), [B(50n, 7, [])]);
  });

  it('is banned for [beginHeight, beginHeight + ban-duration-blocks)', () => {
    const h = [B(300n, 15, [200n, 100n])];
    assert.equal(isBanned(h, 14, RULES), false);
    for (let height = 15; height < 20; height++) assert.equal(isBanned(h, height, RULES), true, `height ${height}`);
    assert.equal(isBanned(h, 20, RULES), false);
    // Warnings after the ban do not hide it; a ban of duration 0 never applies.
    assert.equal(isBanned([...h, W(400n)], 16, RULES), true);
    assert.equal(isBanned(h, 15, { banDurationBlocks: 0 }), false);
  });

  it('v2 ignores an entry that is not newer than the newest one', () => {
    const h = [W(100n)];
    assert.deepEqual(warnOrBan(h, 11, 100n, RULES), h);
    assert.deepEqual(warnOrBan(h, 11, 99n, RULES), h);
  });

  it('cancels only the trailing warnings in v2, every warning in v1', () => {
    const h = [W(10n), B(20n, 3, [15n, 12n]), W(30n), W(40n)];
    assert.equal(hasWarnings(h, 2), true);
    assert.deepEqual(dropWarnings(h, 2), [W(10n), B(20n, 3, [15n, 12n])]);
    assert.deepEqual(dropWarnings(h, 1), [B(20n, 3, [15n, 12n])]);
    const noTrailing = [W(10n), B(20n, 3)];
    assert.equal(hasWarnings(noTrailing, 2), false);
    assert.equal(hasWarnings(noTrailing, 1), true);
    assert.deepEqual(dropWarnings(noTrailing, 2), noTrailing);
  });

  it('v1 keeps timestamp order; modern ordering collapses equal timestamps, legacy keeps both', () => {
    assert.deepEqual(warnOrBan([W(100n)], 11, 100n, { ...RULES, warningsForBan: 5 }, V1_MODERN), [W(100n)]);
    assert.deepEqual(warnOrBan([W(100n)], 11, 100n, { ...RULES, warningsForBan: 5 }, V1_LEGACY), [W(100n), W(100n)]);
    // An older timestamp goes in its place (v2 would ignore it).
    assert.deepEqual(warnOrBan([W(100n)], 11, 50n, { ...RULES, warningsForBan: 5 }, V1_MODERN), [W(50n), W(100n)]);
    // Two warnings with the same timestamp still count as two towards a ban in v1.
    assert.deepEqual(warnOrBan([W(90n), W(100n)], 11, 100n, RULES, V1_MODERN), [B(100n, 11, [100n, 90n])]);
  });

  it('agrees between v1 and v2 on histories built in time order', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 6 }), (steps, w, dur) => {
        const rules = { banDurationBlocks: dur, warningsForBan: w };
        let v1: MinerBanEntry[] = [];
        let v2: MinerBanEntry[] = [];
        steps.forEach((missed, i) => {
          const height = 2 + i;
          const ts = BigInt(1000 + 10 * i);
          if (missed) {
            v1 = warnOrBan(v1, height, ts, rules, V1_MODERN);
            v2 = warnOrBan(v2, height, ts, rules);
          } else {
            v1 = dropWarnings(v1, 1);
            v2 = dropWarnings(v2, 2);
          }
          for (let q = 0; q < height + 3; q++) assert.equal(isBanned(v1, q, rules, 1), isBanned(v2, q, rules, 2));
        });
        assert.deepEqual(v1, v2);
      }),
      { numRuns: 200 },
    );
  });
});
