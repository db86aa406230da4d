/**
 * The store keeps a liquid block as its key block plus its micro-blocks, one record each,
 * and writes the full block once the next height is committed (store.ts, F.MICRO): the
 * block bytes read back are the chain's at every step — while liquid, once final, after a
 * rollback that makes it liquid again, on a chain reopened over the store — and a rollback returns every
 * transaction of the removed liquid blocks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { equalBytes } from '../../src/crypto/encoding.js';
import { Blockchain } from '../../src/chain/blockchain.js';
import { Block } from '../../src/protocol/blocks/block.js';
import { alice, bob, ChainNode, Clock, minerA, p, scripts, transfer } from '../chain/fork-fixture.js';

const bytesAt = (node: ChainNode, h: number): Uint8Array => node.store.blockBytes(h)!;

describe('liquid blocks in the store', () => {
  it('read back exactly while liquid, once final, and liquid again after a rollback', () => {
    const clock = new Clock();
    const node = ChainNode.create('liquid', clock, [minerA]);
    const key1 = node.forge();
    const h1 = node.chain.height();
    assert.ok(equalBytes(bytesAt(node, h1), key1.bytes), 'a key block alone');
    const sent = [transfer(clock, alice, bob, 1n), transfer(clock, alice, bob, 2n), transfer(clock, bob, alice, 3n)];
    for (const tx of sent) node.micro([tx]);
    const liquid1 = node.chain.lastBlock();
    const inRound1 = clock.now;
    assert.equal(liquid1.transactions.length, 3);
    assert.ok(equalBytes(bytesAt(node, h1), liquid1.bytes), 'the liquid block assembled from its micro-blocks');
    assert.ok(equalBytes(Block.fromBytes(p, bytesAt(node, h1)).id, liquid1.id));
    // A chain opened on the store (a restart) has the liquid block and its micro-blocks back.
    const reopened = new Blockchain({
      store: node.store,
      protocol: p,
      settings: node.chain.settings,
      features: node.chain.features,
      consensus: node.rules,
      txExpireTimeoutMs: 3_600_000,
      now: clock.read,
      scripts,
    });
    assert.ok(equalBytes(reopened.lastBlock().id, liquid1.id));
    assert.equal(reopened.liquidMicroBlocks().length, 3);
    assert.ok(reopened.microBlock(liquid1.id) !== undefined, 'peers can still ask for its micro-blocks');

    clock.nextRound();
    node.forge();
    const h2 = node.chain.height();
    assert.equal(h2, h1 + 1);
    assert.ok(equalBytes(bytesAt(node, h1), liquid1.bytes), 'final after the next key block');
    // Each read of a final block is its own buffer (not LMDB's shared one, not another read's).
    const first = bytesAt(node, h1);
    const second = bytesAt(node, h1);
    assert.equal(Object.getPrototypeOf(first), Uint8Array.prototype);
    first.fill(0);
    assert.ok(equalBytes(second, liquid1.bytes) && equalBytes(bytesAt(node, h1), liquid1.bytes), 'changing one read changes no other');
    node.micro([transfer(clock, alice, bob, 4n)]);
    const liquid2 = node.chain.lastBlock();
    assert.ok(equalBytes(bytesAt(node, h2), liquid2.bytes));

    // Back to h1: h1 is liquid again (its micro-blocks assemble it), its block unchanged.
    const returned = node.chain.rollbackTo(h1);
    assert.deepEqual(
      returned.map((t) => t.idBase58),
      liquid2.transactions.map((t) => t.idBase58),
    );
    assert.ok(equalBytes(bytesAt(node, h1), liquid1.bytes));
    // It takes more micro-blocks, then a key block finalizes it with all of them.
    clock.now = inRound1;
    node.micro([transfer(clock, alice, bob, 5n)]);
    const liquid1b = node.chain.lastBlock();
    assert.equal(liquid1b.transactions.length, 4);
    assert.ok(equalBytes(bytesAt(node, h1), liquid1b.bytes));
    clock.nextRound();
    node.forge();
    assert.ok(equalBytes(bytesAt(node, h1), liquid1b.bytes));

    // Rolling back below h1 returns every transaction of the liquid block, in order.
    const all = node.chain.rollbackTo(h1 - 1);
    assert.deepEqual(
      all.map((t) => t.idBase58),
      liquid1b.transactions.map((t) => t.idBase58),
    );
    assert.equal(node.store.blockBytes(h1), undefined);
  });
  it('a confirmed transaction read back is the one applied (id, bytes, JSON), and each read has bytes of its own', () => {
    const clock = new Clock();
    const node = ChainNode.create('stored-tx', clock, [minerA]);
    node.forge();
    const sent = [transfer(clock, alice, bob, 1n), transfer(clock, bob, alice, 2n)];
    node.micro(sent);
    for (const tx of sent) {
      const read = node.store.transactionById(tx.id)!;
      assert.ok(equalBytes(read.id, tx.id), 'the id, hashed from the stored body');
      assert.ok(equalBytes(read.bytes, tx.bytes));
      assert.deepEqual(read.toJson(), tx.toJson());
      const first = node.store.transaction(tx.id)!;
      const second = node.store.transaction(tx.id)!;
      assert.equal(first.height, node.chain.height());
      first.bytes.fill(0);
      assert.ok(equalBytes(second.bytes, tx.bytes) && equalBytes(node.store.transactionById(tx.id)!.bytes, tx.bytes), 'changing one read changes no other');
    }
  });
});
