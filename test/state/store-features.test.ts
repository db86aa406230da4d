/**
 * The store's feature-vote, approval and chain-score families: written through
 * MutableState, read back after each height, and a rollback to any height restores exactly
 * the state (and these values) of that height — the property of store.test.ts, for these
 * families.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Protocol } from '../../src/protocol/protocol.js';
import { Store } from '../../src/state/store.js';
import { MutableState } from '../../src/state/view.js';
import { tempDir } from '../../devkit/tmp.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const ADDR = p.addresses.fromPublicKey(p.crypto.keyPairFromSeedPhrase('store features test').publicKey).bytes;

function stateHash(store: Store): string {
  const h = createHash('sha256');
  for (const { key, value } of store.entries())
    h.update(key)
      .update(Buffer.from([0xff]))
      .update(value)
      .update(Buffer.from([0xfe]));
  return h.digest('hex');
}

type Op =
  { kind: 'votes'; window: number; ids: number[] } | { kind: 'approve'; id: number } | { kind: 'score'; add: bigint } | { kind: 'balance'; delta: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('votes' as const),
    window: fc.integer({ min: 1, max: 3 }),
    ids: fc.uniqueArray(fc.constantFrom(2, 7, 140, 1140, -5, 32767), { maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('approve' as const), id: fc.constantFrom(7, 140, 999, -32768) }),
  fc.record({ kind: fc.constant('score' as const), add: fc.bigInt({ min: 1n, max: 1n << 70n }) }),
  fc.record({ kind: fc.constant('balance' as const), delta: fc.integer({ min: -100, max: 100 }) }),
);

interface Seen {
  readonly votes: Array<Map<number, number>>;
  readonly approved: Map<number, number>;
  readonly score: bigint;
}

function apply(store: Store, height: number, ops: Op[]): void {
  const s = new MutableState(store, height);
  for (const op of ops) {
    if (op.kind === 'votes') s.addFeatureVotes(op.window, op.ids);
    else if (op.kind === 'approve') s.approveFeatures(new Map([[op.id, height]]));
    else if (op.kind === 'score') s.setChainScore(s.chainScore() + op.add);
    else s.addBalance(ADDR, null, BigInt(op.delta));
  }
  store.commit({
    height,
    blockBytes: Uint8Array.from([height & 0xff]),
    blockIds: [{ id: new Uint8Array(64).fill(height & 0xff), transactionCount: 0 }],
    changes: s.changes(),
  });
}

function seen(store: Store): Seen {
  return { votes: [1, 2, 3].map((w) => new Map(store.featureVotes(w))), approved: new Map(store.approvedFeatures()), score: store.chainScore() };
}

describe('store: feature votes, approvals, chain score', () => {
  it('reads back what a height wrote; counts add up; an approval keeps its first height', () => {
    const store = Store.open(tempDir(), p);
    apply(store, 1, [
      { kind: 'votes', window: 1, ids: [7, 140] },
      { kind: 'score', add: 5n },
    ]);
    apply(store, 2, [
      { kind: 'votes', window: 1, ids: [7] },
      { kind: 'approve', id: 7 },
      { kind: 'score', add: 1n << 65n },
    ]);
    apply(store, 3, [
      { kind: 'approve', id: 7 },
      { kind: 'approve', id: -32768 },
    ]);
    assert.deepEqual(
      store.featureVotes(1),
      new Map([
        [7, 2],
        [140, 1],
      ]),
    );
    assert.deepEqual(store.featureVotes(2), new Map());
    assert.deepEqual(
      store.approvedFeatures(),
      new Map([
        [7, 2],
        [-32768, 3],
      ]),
    );
    assert.equal(store.chainScore(), 5n + (1n << 65n));
    assert.equal(store.chainScoreAt(1), 5n);
    assert.equal(store.chainScoreAt(3), 5n + (1n << 65n));
    // A layer sees its own writes, a fork merges into it.
    const s = new MutableState(store, 4);
    const f = s.fork();
    f.addFeatureVotes(1, [140, 140]);
    f.setChainScore(1n);
    assert.deepEqual(
      s.featureVotes(1),
      new Map([
        [7, 2],
        [140, 1],
      ]),
    );
    f.mergeInto(s);
    assert.deepEqual(
      s.featureVotes(1),
      new Map([
        [7, 2],
        [140, 2],
      ]),
      'a block votes once per id',
    );
    assert.equal(s.chainScore(), 1n);
    void store.close();
  });

  it('a rollback to any height restores exactly that height’s state', () => {
    fc.assert(
      fc.property(fc.array(fc.array(opArb, { maxLength: 8 }), { minLength: 1, maxLength: 7 }), fc.nat(), (blocks, cut) => {
        const store = Store.open(tempDir(), p);
        const hashes = [stateHash(store)];
        const values = [seen(store)];
        blocks.forEach((ops, i) => {
          apply(store, i + 1, ops);
          hashes.push(stateHash(store));
          values.push(seen(store));
        });
        const target = cut % (blocks.length + 1);
        store.rollbackTo(target);
        assert.equal(stateHash(store), hashes[target]);
        assert.deepEqual(seen(store), values[target]);
        for (let i = target; i < blocks.length; i++) {
          apply(store, i + 1, blocks[i]!);
          assert.equal(stateHash(store), hashes[i + 1]);
          assert.deepEqual(seen(store), values[i + 1]);
        }
        void store.close();
      }),
      { numRuns: 40 },
    );
  });
});
