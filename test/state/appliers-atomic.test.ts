import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Atomic, mineAtomic, type AtomicData } from '../../src/protocol/transactions/atomic.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { alice, assertRejected, blockTime, bob, carol, p, root, scf, TestChain, WEST, type Account } from '../../devkit/chain/validation-fixture.js';

const transfer = (c: TestChain, from: Account, to: Account, amount: bigint, badge: Record<string, unknown> | null = {}) =>
  c.tx(from, { type: 4, version: 3, recipient: to.b58, amount, fee: 1_000_000n, attachment: '', atomicBadge: badge });

function atomic(c: TestChain, sender: Account, transactions: Transaction[], timestamp = c.ts()): Transaction<AtomicData> {
  const tx = p.transaction<AtomicData>(Atomic, 1, { senderPublicKey: sender.publicKey, miner: null, transactions, timestamp });
  return p.sign(tx, sender.keyPair.privateKey);
}

describe('Atomic applier', () => {
  it('applies every inner transaction, records each, and gives the miner their fees', () => {
    const c = TestChain.open();
    const t1 = transfer(c, alice, bob, 5n * WEST);
    const d = c.tx(alice, { type: 12, version: 3, data: [{ key: 'a', type: 'string', value: 'b' }], fee: 5_000_000n, atomicBadge: {} });
    const container = atomic(c, alice, [t1, d]);
    const height = c.nextHeight;
    const result = c.apply(container);
    assert.deepEqual(result, { fee: 6_000_000n });
    assert.equal(c.west(alice), 1_000n * WEST - 5n * WEST - 6_000_000n);
    assert.equal(c.west(bob), 15n * WEST);
    assert.deepEqual(c.store.dataEntry(alice.bytes, 'a'), { key: 'a', type: 'string', value: 'b' });
    for (const tx of [t1, d, container]) assert.equal(c.store.transactionHeight(tx.id), height);
  });

  it('lets an inner transaction see the ones before it (trusted sender)', () => {
    const c = TestChain.open();
    const first = transfer(c, alice, bob, 50n * WEST);
    const second = transfer(c, bob, carol, 55n * WEST, { trustedSender: alice.b58 });
    c.apply(atomic(c, alice, [first, second]));
    assert.equal(c.west(bob), 10n * WEST + 50n * WEST - 55n * WEST - 1_000_000n);
    assert.equal(c.west(carol), 155n * WEST);
  });

  it('is all or nothing: one failing inner transaction leaves the state as it was', () => {
    const c = TestChain.open();
    const ok = transfer(c, alice, bob, 5n * WEST);
    const overspend = transfer(c, alice, carol, 2_000n * WEST);
    const container = atomic(c, alice, [ok, overspend]);
    const e = c.reject(container);
    assertRejected(
      e,
      112,
      scf(
        scf(
          'Attempt to transfer unavailable funds: Transaction application leads to negative WEST balance to (at least) temporary negative state, ' +
            `current balance equals ${995n * WEST - 1_000_000n}, spends equals -${2_000n * WEST + 1_000_000n}, result is ${995n * WEST - 1_000_000n - 2_000n * WEST - 1_000_000n}`,
        ),
      ),
    );
    assert.equal((e.extra?.['tx'] as { id: string }).id, container.idBase58);
    assert.equal(c.west(alice), 1_000n * WEST);
    assert.equal(c.store.transactionHeight(ok.id), undefined);
  });

  it('renders an inner Mistiming inside the container error; checks inner signatures with the container', () => {
    const c = TestChain.open();
    const future = transfer(c, alice, bob, 1n);
    const late = c.tx(alice, {
      type: 4,
      version: 3,
      recipient: bob.b58,
      amount: 1n,
      fee: 1_000_000n,
      attachment: '',
      atomicBadge: {},
      timestamp: blockTime(c.nextHeight) + 91n * 60_000n,
    });
    assertRejected(
      c.reject(atomic(c, alice, [future, late])),
      112,
      scf(`Transaction ts ${late.timestamp} is from far future. BlockTime: ${blockTime(c.nextHeight)}`),
    );
    const forged = late.withProofs([future.proofs[0]!]);
    assertRejected(
      c.reject(atomic(c, alice, [future, forged])),
      112,
      /^State check failed\. Reason: Script doesn't exist and proof doesn't validate as signature for '\{"type":4,/,
    );
  });

  it('refuses a badge outside a container, and an inner transaction already in the state', () => {
    const c = TestChain.open();
    const badged = transfer(c, alice, bob, 1n);
    assertRejected(c.reject(badged), 112, scf('Transactions with atomic badge cannot be mined outside of atomic container'));
    const first = transfer(c, alice, bob, 1n);
    const height = c.nextHeight;
    c.apply(atomic(c, alice, [first, transfer(c, alice, bob, 2n)]));
    assertRejected(
      c.reject(atomic(c, alice, [first, transfer(c, alice, bob, 3n)])),
      112,
      scf(scf(`Transaction ${first.idBase58} is already in the state on a height of ${height}`)),
    );
  });

  it('must be mined by the block generator when applied in a block', () => {
    const c = TestChain.open();
    const unmined = atomic(c, alice, [transfer(c, alice, bob, 1n), transfer(c, alice, bob, 2n)]);
    assertRejected(c.reject(unmined, { blockGenerator: root.publicKey }), 112, scf('Atomic transaction validation failed: miner is empty'));
    const minedByCarol = mineAtomic(unmined, [], { publicKey: carol.publicKey, privateKey: carol.keyPair.privateKey });
    assertRejected(
      c.reject(minedByCarol, { blockGenerator: root.publicKey }),
      112,
      scf(`Atomic transaction must be mined only by block creator: miner is '${carol.b58}', but block creator is '${root.b58}'`),
    );
    const forgedProof = p.transaction(Atomic, 1, minedByCarol.data, [minedByCarol.proofs[0]!, unmined.proofs[0]!]);
    assertRejected(c.reject(forgedProof, { blockGenerator: carol.publicKey }), 112, scf('Invalid miner proof of atomic transaction'));
    c.apply(minedByCarol, { blockGenerator: carol.publicKey });
    assert.equal(c.west(bob), 10n * WEST + 3n);
  });

  it('applies all inner transfers or none (random containers)', () => {
    const people = [alice, bob, carol];
    fc.assert(
      fc.property(
        fc.array(fc.record({ from: fc.nat(2), to: fc.nat(2), amount: fc.bigInt({ min: 1n, max: 150n * WEST }) }), { minLength: 2, maxLength: 5 }),
        (steps) => {
          const c = TestChain.open();
          const inner = steps.map((s) => transfer(c, people[s.from]!, people[s.to]!, s.amount, s.from === 0 ? {} : { trustedSender: alice.b58 }));
          const before = people.map((a) => c.west(a));
          // Expected outcome: each transfer, in order, must be covered by what its sender has at that point.
          const sim = [...before];
          let ok = true;
          for (const s of steps) {
            if (sim[s.from]! < s.amount + 1_000_000n) ok = false;
            sim[s.from]! -= s.amount + 1_000_000n;
            sim[s.to]! += s.amount;
          }
          const container = atomic(c, alice, inner);
          if (ok) {
            assert.deepEqual(c.apply(container), { fee: BigInt(steps.length) * 1_000_000n });
            assert.deepEqual(
              people.map((a) => c.west(a)),
              sim,
            );
          } else {
            assertRejected(c.reject(container), 112, /^State check failed\. Reason: State check failed\. Reason: /);
            assert.deepEqual(
              people.map((a) => c.west(a)),
              before,
            );
          }
          void c.close();
        },
      ),
      { numRuns: 20 },
    );
  });
});
