import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decidingOp, hasRole, orderedOps } from '../../src/state/permissions.js';
import type { PermissionOp } from '../../src/state/model.js';

/** A deterministic generator (xorshift32), so a failing case can be run again. */
function numbers(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('permission ops: the op deciding a role', () => {
  it('is the newest op of the role at or before the time, the first applied when ops share a timestamp', () => {
    const ops: PermissionOp[] = [
      { opType: 'add', role: 1, timestamp: 100n, dueTimestamp: null },
      { opType: 'remove', role: 1, timestamp: 200n, dueTimestamp: null },
      // Same timestamp and role as the one before: WE's set keeps the first.
      { opType: 'add', role: 1, timestamp: 200n, dueTimestamp: null },
      { opType: 'add', role: 2, timestamp: 300n, dueTimestamp: 400n },
    ];
    assert.equal(decidingOp(ops, 1, 99n), undefined);
    assert.equal(decidingOp(ops, 1, 150n), ops[0]);
    assert.equal(decidingOp(ops, 1, 250n), ops[1]);
    assert.equal(hasRole(ops, 1, 250n), false);
    assert.equal(hasRole(ops, 2, 350n), true);
    assert.equal(hasRole(ops, 2, 400n), false);
  });

  it('agrees with the first match in WE order (orderedOps) on mixed histories', () => {
    const next = numbers(0x5eed);
    for (let round = 0; round < 500; round++) {
      const ops: PermissionOp[] = Array.from({ length: Math.floor(next() * 12) }, () => ({
        opType: next() < 0.6 ? 'add' : 'remove',
        role: 1 + Math.floor(next() * 3),
        // Few distinct timestamps, so that ties are common.
        timestamp: BigInt(Math.floor(next() * 6) * 10),
        dueTimestamp: next() < 0.3 ? BigInt(Math.floor(next() * 8) * 10) : null,
      }));
      for (const role of [1, 2, 3]) {
        for (let at = -5n; at <= 65n; at += 5n) {
          const expected = orderedOps(ops).find((op) => op.role === role && op.timestamp <= at);
          assert.equal(decidingOp(ops, role, at), expected, `round ${round}, role ${role}, at ${at}`);
        }
      }
    }
  });
});
