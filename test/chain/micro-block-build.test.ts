/**
 * Building this node's micro-block from pool candidates (Blockchain.appendOwnMicroBlock, or
 * prepareOwnMicroBlock and commitOwnMicroBlock in two event-loop turns as the miner does):
 * signatures were checked when the pool admitted them and are not checked again, but every
 * check against state is, on the state the micro-block has built so far — so a candidate an
 * earlier one in the same micro-block made invalid is left out and leaves no trace, and a
 * peer that validates the micro-block in full reaches the same state.
 */
import assert from 'node:assert/strict';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { describe, it } from 'node:test';
import { minerShare } from '../../src/chain/blockchain.js';
import { alice, bob, ChainNode, Clock, minerA, p, transfer } from './fork-fixture.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';

/** A forged node and 40 transfers from alice to bob, the clock moved past them. */
function fortyTransfers(name: string): { clock: Clock; node: ChainNode; candidates: Transaction[] } {
  const clock = new Clock();
  const node = ChainNode.create(name, clock, [minerA]);
  node.forge();
  const candidates = Array.from({ length: 40 }, (_, i) => transfer(clock, alice, bob, BigInt(i + 1)));
  clock.now += 100n;
  return { clock, node, candidates };
}

describe("this node's micro-block from pool candidates", () => {
  it('leaves out a candidate an earlier one in the same micro-block made invalid, and a peer agrees', () => {
    const clock = new Clock();
    const node = ChainNode.create('build', clock, [minerA]);
    const peer = ChainNode.create('build-peer', clock, [minerA]);
    node.forge();
    peer.follow(node);
    const state = node.chain.state();
    const fee = 1_000_000n;
    const aliceBefore = state.balance(alice.address, null);
    const bobBefore = state.balance(bob.address, null);
    const minerBefore = state.balance(minerA.address, null);
    // Each valid alone; the second no longer is once the first spent everything alice has.
    const spendAll = transfer(clock, alice, bob, aliceBefore - fee);
    const spendMore = transfer(clock, alice, bob, 1n);
    const back = transfer(clock, bob, alice, 5n);
    clock.now += 100n;
    const build = node.chain.appendOwnMicroBlock(
      [spendAll, spendMore, back],
      { maxTransactions: 100, maxBlockBytes: 1 << 20 },
      minerA.keyPair.privateKey,
      false,
    );

    assert.deepEqual(
      build.included.map((t) => t.idBase58),
      [spendAll.idBase58, back.idBase58],
    );
    assert.deepEqual(
      build.rejected.map((r) => r.tx.idBase58),
      [spendMore.idBase58],
    );
    assert.match(build.rejected[0]!.error.message, /negative|balance/i);
    assert.deepEqual(
      build.microBlock?.transactions.map((t) => t.idBase58),
      [spendAll.idBase58, back.idBase58],
    );
    // The refused candidate changed nothing: balances are those of the two included transfers.
    assert.equal(state.balance(alice.address, null), 5n);
    assert.equal(state.balance(bob.address, null), bobBefore + (aliceBefore - fee) - 5n - fee);
    assert.equal(state.balance(minerA.address, null), minerBefore + 2n * minerShare(fee));
    assert.equal(state.transactionHeight(spendMore.id), undefined);

    // A peer validating every transaction of the micro-block (signatures included) ends in the same state.
    peer.chain.appendMicroBlock(build.microBlock);
    assert.equal(peer.stateHash(), node.stateHash());
  });

  it('keeps room within the deadline for committing what it took: the rest waits for the next micro-block', () => {
    const { clock, node, candidates } = fortyTransfers('build-reserve');
    // A second to go, but committing is expected to take 100 ms a transaction: about ten fit.
    const limits = { maxTransactions: 100, maxBlockBytes: 1 << 20, deadline: performance.now() + 1000, commitMsPerTransaction: 100 };
    const first = node.chain.appendOwnMicroBlock(candidates, limits, minerA.keyPair.privateKey, false);
    assert.ok(first.outOfTime);
    assert.ok(first.included.length > 0 && first.included.length < 16, `took ${first.included.length}`);
    assert.equal(node.chain.lastBlock().transactionCount, first.included.length);
    // Without the reserve, the rest fits in one micro-block.
    clock.now += 100n;
    const second = node.chain.appendOwnMicroBlock(
      candidates.slice(first.included.length),
      { ...limits, commitMsPerTransaction: 0 },
      minerA.keyPair.privateKey,
      false,
    );
    assert.equal(second.outOfTime, false);
    assert.equal(first.included.length + second.included.length, 40);
  });

  it('with a commit budget of its own (a commit in its own event-loop turn), stops when the expected commit reaches it', () => {
    const { node, candidates } = fortyTransfers('build-commit-budget');
    // A long deadline, which no longer keeps room for the commit: 10 ms a transaction within 50 ms takes five.
    const limits = { maxTransactions: 100, maxBlockBytes: 1 << 20, deadline: performance.now() + 60_000, commitMsPerTransaction: 10, commitBudgetMs: 50 };
    const build = node.chain.appendOwnMicroBlock(candidates, limits, minerA.keyPair.privateKey, false);
    assert.ok(build.outOfTime);
    assert.equal(build.included.length, 5);
    assert.equal(node.chain.lastBlock().transactionCount, 5);
  });

  it('a micro-block prepared on a tip that changed before its commit is dropped, and the chain keeps what it had', () => {
    const { clock, node, candidates: forty } = fortyTransfers('build-stale');
    const candidates = forty.slice(0, 2);
    const limits = { maxTransactions: 100, maxBlockBytes: 1 << 20 };
    const prepareSigned = (txs: readonly Transaction[]) =>
      node.chain.signOwnMicroBlock(node.chain.prepareOwnMicroBlock(txs, limits, minerA.keyPair.privateKey), false);
    // Prepared and signed, then another micro-block commits first: the prepared one no longer extends the tip.
    const prepared = prepareSigned(candidates.slice(0, 1));
    assert.notEqual(prepared.signed, undefined);
    const first = node.chain.appendOwnMicroBlock(candidates.slice(1), limits, minerA.keyPair.privateKey, false);
    const tip = node.chain.lastBlock();
    const stale = node.chain.commitOwnMicroBlock(prepared, false);
    assert.equal(stale.stale, true);
    assert.equal(stale.microBlock, undefined);
    assert.equal(node.chain.lastBlock(), tip);
    assert.deepEqual(
      node.chain.lastBlock().transactions.map((t) => t.idBase58),
      first.included.map((t) => t.idBase58),
    );
    assert.equal(node.chain.state().transactionHeight(candidates[0]!.id), undefined);
    // Prepared again on the new tip, signed, it commits: the micro-block signed is the one appended.
    clock.now += 100n;
    const signed = prepareSigned(candidates.slice(0, 1));
    const again = node.chain.commitOwnMicroBlock(signed, false);
    assert.equal(again.microBlock, signed.signed?.microBlock);
    assert.equal(node.chain.lastBlock(), signed.signed?.liquidBlock);
    assert.equal(node.chain.state().transactionHeight(candidates[0]!.id), node.chain.height());
  });

  it("leaves out an unscripted sender's transaction with two proofs, which every peer refuses", () => {
    const clock = new Clock();
    const node = ChainNode.create('build-proofs', clock, [minerA]);
    const peer = ChainNode.create('build-proofs-peer', clock, [minerA]);
    node.forge();
    peer.follow(node);
    // Its first proof is a valid signature: what was verified of it holds, but an unscripted
    // sender's transaction must carry exactly one proof.
    const signed = transfer(clock, alice, bob, 7n);
    const twoProofs = p.transactionFromJson({ ...signed.toJson(), proofs: [...signed.proofs, ...signed.proofs].map(encodeBase58) }, { forBroadcast: false });
    assert.ok(twoProofs.hasValidSenderSignature());
    const fine = transfer(clock, bob, alice, 3n);
    clock.now += 100n;
    const build = node.chain.appendOwnMicroBlock([twoProofs, fine], { maxTransactions: 100, maxBlockBytes: 1 << 20 }, minerA.keyPair.privateKey, false);
    assert.deepEqual(
      build.included.map((t) => t.idBase58),
      [fine.idBase58],
    );
    assert.match(build.rejected[0]?.error.message ?? '', /exactly 1 proof/);
    peer.chain.appendMicroBlock(build.microBlock!);
    assert.equal(peer.stateHash(), node.stateHash());
  });
});
