/**
 * The pool (src/chain/utx.ts) following the chain: re-validation after every key block,
 * and what a rollback hands back, on real forged PoA chains.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UtxPool } from '../../src/chain/utx.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { alice, bob, ChainNode, Clock, minerA, transfer, UTX, WEST } from './fork-fixture.js';

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

describe('what the pool reports (the node counts admissions and refusals from it)', () => {
  it('each admission once, each refusal once with its WE kind; a transaction offered again or returned by a rollback is no admission', async () => {
    const clock = new Clock();
    const node = ChainNode.create('reports', clock, [minerA]);
    node.forge();
    const admitted: string[] = [];
    const refused: Array<[string, string]> = [];
    const pool = new UtxPool({ chain: node.chain, settings: UTX, now: clock.read, onAdmitted: (tx) => admitted.push(tx.idBase58), onRefused: (tx, e) => refused.push([tx.idBase58, e.kind]) });

    const first = transfer(clock, alice, bob, 5n * WEST);
    await pool.broadcast(first);
    pool.put(first);
    assert.deepEqual(admitted, [first.idBase58], 'admitted once');
    // Broadcast again within the known-tx window: refused by broadcast, once.
    await assert.rejects(pool.broadcast(first), /AlreadyInProcessing/);
    // More than Alice holds: refused at admission (broadcast → put), once.
    const overspend = transfer(clock, alice, bob, 1_000_000n * WEST);
    await assert.rejects(pool.broadcast(overspend));
    // From a peer (put) into the far future: Mistiming.
    const early: Transaction = transfer(clock, alice, bob, 1n * WEST);
    clock.now -= 3n * 3600_000n;
    assert.throws(() => pool.put(early));
    clock.now += 3n * 3600_000n;
    assert.deepEqual(refused.map(([id]) => id), [first.idBase58, overspend.idBase58, early.idBase58]);
    assert.deepEqual(refused.map(([, kind]) => kind), ['GenericError', refused[1]![1], 'Mistiming']);
    assert.notEqual(refused[1]![1], 'GenericError', `the overspend has its own kind: ${refused[1]![1]}`);

    // Mined, rolled back and returned to the pool: back in the pool, but no new admission.
    node.forge();
    node.micro([first]);
    assert.equal(pool.size().size, 0);
    node.chain.rollbackTo(2, { origin: 'api', returnToPool: true });
    assert.deepEqual(pool.all().map((t) => t.idBase58), [first.idBase58]);
    assert.deepEqual(admitted, [first.idBase58]);
  });
});
