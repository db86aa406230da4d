/**
 * The pool (src/chain/utx.ts) following the chain: re-validation after every key block,
 * and what a rollback hands back, on real forged PoA chains.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alice, bob, ChainNode, Clock, minerA, transfer, WEST } from './fork-fixture.js';

const poolIds = (n: ChainNode): string[] => n.pool.all().map((tx) => tx.idBase58);

describe('pool re-validation', () => {
  it('runs after every key block, not only the first (a pass over a small pool finishes at once)', async () => {
    const clock = new Clock();
    const node = ChainNode.create('revalidate', clock, [minerA]);
    node.forge(); // block 2: the pass over an empty pool finishes synchronously
    await node.pool.revalidate();

    // Alice's whole balance spent twice: one transfer waits in the pool, the other is mined directly.
    const pooled = transfer(clock, alice, bob, 9_000n * WEST);
    node.pool.put(pooled);
    node.micro([transfer(clock, alice, bob, 9_000n * WEST)]);
    assert.deepEqual(poolIds(node), [pooled.idBase58], 'the pooled transfer is still there until the next key block');

    node.forge(); // block 3 must re-validate the pool again
    await node.pool.revalidate();
    assert.deepEqual(poolIds(node), [], 'the transfer that no longer fits the balance is dropped');
  });

  it('a rollback asked without returning transactions leaves them out of the pool', () => {
    const clock = new Clock();
    const node = ChainNode.create('rollback', clock, [minerA]);
    node.forge();
    const tx = transfer(clock, alice, bob, 5n * WEST);
    node.micro([tx]);
    node.chain.rollbackTo(1, { origin: 'api', returnToPool: false });
    assert.deepEqual(poolIds(node), []);
    node.forge();
    node.micro([transfer(clock, alice, bob, 6n * WEST)]);
    const removed = node.chain.rollbackTo(1, { origin: 'api', returnToPool: true });
    assert.deepEqual(poolIds(node), removed.map((t) => t.idBase58), 'returned when asked');
  });
});
