/**
 * Following peers on the chain side (src/chain/fork.ts): locators, the common block,
 * switching to a better branch with the dropped transactions back in the pool, exact
 * restore when a block of the new branch fails, the rollback depth limit, a key block on
 * an earlier micro-block, and competing key blocks for the same parent (§2.5).
 *
 * Real forged PoA chains (three miners A, B, C) on real stores: a node holding only A
 * forges in A's rounds; a node holding B and C forges in theirs, so a partition gives two
 * branches and the one with fewer skipped rounds scores higher.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyExtension, applyKeyBlock, blockLocator, newBlockIds, signaturesReply } from '../../src/chain/fork.js';
import { decodeBase58, encodeBase58, equalBytes } from '../../src/crypto/encoding.js';
import { Block } from '../../src/protocol/blocks.js';
import { alice, blockScore, bob, ChainNode, chainSettings, Clock, minerA, minerB, minerC, transfer, WEST } from './fork-fixture.js';

const b58 = (ids: readonly Uint8Array[]): string[] => ids.map(encodeBase58);

/** Two nodes on one chain of `shared` key blocks (with a micro-block each), forged by both sides. */
function twoNodes(shared: number, settings = chainSettings()): { clock: Clock; a: ChainNode; bc: ChainNode } {
  const clock = new Clock();
  const a = ChainNode.create('a', clock, [minerA], settings);
  const bc = ChainNode.create('bc', clock, [minerB, minerC], settings);
  while (a.chain.height() < shared + 1) {
    clock.nextRound();
    const forger = [a, bc].find((n) => n.tryForge() !== undefined);
    if (forger === undefined) continue;
    forger.micro([transfer(clock, alice, bob, BigInt(forger.chain.height()) * 1000n)]);
    const other = forger === a ? bc : a;
    other.follow(forger);
  }
  assert.deepEqual(a.ids(), bc.ids());
  return { clock, a, bc };
}

/** Partitioned: each side forges alone for `rounds` rounds, each block with one transfer of its own. */
function diverge(clock: Clock, a: ChainNode, bc: ChainNode, rounds: number): { onlyA: string[]; onlyBc: string[] } {
  const onlyA: string[] = [];
  const onlyBc: string[] = [];
  for (let i = 0; i < rounds; i++) {
    clock.nextRound();
    for (const [n, sent, from] of [
      [a, onlyA, alice],
      [bc, onlyBc, bob],
    ] as const) {
      if (n.tryForge() === undefined) continue;
      const tx = transfer(clock, from, from === alice ? bob : alice, 100n + BigInt(i));
      n.micro([tx]);
      sent.push(tx.idBase58);
    }
  }
  return { onlyA, onlyBc };
}

function blocksAbove(n: ChainNode, height: number): Block[] {
  const out: Block[] = [];
  for (let h = height + 1; h <= n.chain.height(); h++) out.push(n.chain.blockAt(h)!);
  return out;
}

const commonHeight = (x: ChainNode, y: ChainNode): number => {
  const xs = x.ids();
  const ys = y.ids();
  let h = 0;
  while (h < xs.length && h < ys.length && xs[h] === ys[h]) h++;
  return h;
};

describe('locator and common block', () => {
  it('lists the last ids newest first with the liquid tip, and a peer answers from the common block', () => {
    const { clock, a, bc } = twoNodes(4);
    const top = a.chain.height();
    const locator = blockLocator(a.chain);
    assert.equal(locator.length, top);
    assert.ok(equalBytes(locator[0]!, a.chain.lastBlock().id), 'the liquid id comes first');
    assert.ok(equalBytes(locator[1]!, a.chain.lastBlock().reference));
    assert.equal(blockLocator(a.chain, 3).length, 3);

    diverge(clock, a, bc, 6);
    const reply = signaturesReply(bc.chain, blockLocator(a.chain))!;
    const common = commonHeight(a, bc);
    assert.equal(encodeBase58(reply[0]!), a.ids()[common - 1], 'the reply starts at the common block');
    assert.deepEqual(b58(reply.slice(1)), bc.ids().slice(common));
    assert.equal(signaturesReply(bc.chain, blockLocator(a.chain), 2)!.length, 3, 'at most max-chain-length ids after the common one');

    const news = newBlockIds(a.chain, reply)!;
    assert.equal(news.common.height, common);
    assert.deepEqual(b58(news.unknown), bc.ids().slice(common));
    assert.equal(newBlockIds(a.chain, reply.slice(1)), undefined, 'no id of ours: nothing in common');
    assert.equal(signaturesReply(bc.chain, [new Uint8Array(64)]), undefined);
  });
});

describe('switching branch', () => {
  it('takes the higher-scored branch; the loser’s transactions go back to the pool', () => {
    const { clock, a, bc } = twoNodes(3);
    const { onlyA, onlyBc } = diverge(clock, a, bc, 6);
    const common = commonHeight(a, bc);
    assert.ok(onlyA.length > 0 && onlyBc.length > onlyA.length, 'both sides forged; B and C more often');
    assert.ok(bc.chain.score() > a.chain.score());

    // The worse branch does not replace the better one.
    const worse = applyExtension(bc.chain, blocksAbove(a, common));
    assert.equal(worse.kind, 'not-better');

    const aTop = a.chain.height();
    const result = applyExtension(a.chain, blocksAbove(bc, common));
    assert.equal(result.kind, 'applied');
    assert.deepEqual(a.ids(), bc.ids());
    assert.equal(a.stateHash(), bc.stateHash());
    for (const id of onlyA) assert.ok(a.pool.get(decodeBase58(id)) !== undefined, `tx ${id} of the dropped branch is pooled again`);
    if (result.kind === 'applied') {
      assert.equal(result.removed, aTop - common);
      assert.equal(result.returnedToPool, onlyA.length);
    }
    // Already ours: nothing to do.
    assert.equal(applyExtension(a.chain, blocksAbove(bc, common)).kind, 'known');
  });

  it('restores the dropped blocks exactly when a block of the new branch fails', () => {
    const { clock, a, bc } = twoNodes(3);
    diverge(clock, a, bc, 6);
    const common = commonHeight(a, bc);
    const before = { hash: a.stateHash(), ids: a.ids(), micros: a.chain.liquidMicroBlocks().length, score: a.chain.score() };
    const branch = blocksAbove(bc, common);
    // The branch's last block re-signed by its own miner with an overspending transfer in it.
    const last = branch[branch.length - 1]!;
    const generator = [minerB, minerC].find((m) => equalBytes(m.keyPair.publicKey, last.generator))!;
    const bad = Block.sign(bc.chain.protocol, { ...last.withContent([transfer(clock, bob, alice, 1_000_000n * WEST)]) }, generator.keyPair.privateKey);
    const result = applyExtension(a.chain, [...branch.slice(0, -1), bad]);
    assert.equal(result.kind, 'failed');
    if (result.kind === 'failed') {
      assert.ok(result.restored);
      assert.ok(equalBytes(result.block, bad.id));
    }
    assert.equal(a.stateHash(), before.hash, 'the state is exactly as before');
    assert.deepEqual(a.ids(), before.ids);
    assert.equal(a.chain.liquidMicroBlocks().length, before.micros, 'the liquid block keeps its micro-blocks');
    assert.equal(a.chain.score(), before.score);
    // The chain still works: the good branch applies afterwards.
    assert.equal(applyExtension(a.chain, branch).kind, 'applied');
    assert.equal(a.stateHash(), bc.stateHash());
  });

  it('refuses a switch deeper than max-rollback, leaving the chain alone', () => {
    const { clock, a, bc } = twoNodes(3);
    diverge(clock, a, bc, 6);
    const common = commonHeight(a, bc);
    const depth = a.chain.height() - common;
    assert.ok(depth >= 2);
    const hash = a.stateHash();
    const result = applyExtension(a.chain, blocksAbove(bc, common), { maxRollback: depth - 1 });
    assert.equal(result.kind, 'rejected');
    assert.equal(a.stateHash(), hash);
    // The store's own rollback depth limits too.
    const shallow = twoNodes(3, chainSettings(2));
    diverge(shallow.clock, shallow.a, shallow.bc, 8);
    const c2 = commonHeight(shallow.a, shallow.bc);
    assert.ok(shallow.a.chain.height() - c2 > 2);
    assert.equal(applyExtension(shallow.a.chain, blocksAbove(shallow.bc, c2)).kind, 'rejected');
  });

  it('rejects an extension with an unknown reference or broken links', () => {
    const { clock, a, bc } = twoNodes(3);
    diverge(clock, a, bc, 6);
    const common = commonHeight(a, bc);
    const branch = blocksAbove(bc, common);
    assert.equal(applyExtension(a.chain, branch.slice(1)).kind, 'rejected');
    assert.equal(applyExtension(a.chain, [branch[0]!, branch[2]!]).kind, 'rejected');
  });
});

describe('key blocks from peers', () => {
  it('a key block on an earlier micro-block cuts our liquid block back; the later transactions return to the pool', () => {
    const { clock, a, bc } = twoNodes(2);
    // A forges and mines three micro-blocks; the BC node got only the first two.
    a.forgeFollowing(bc);
    bc.follow(a);
    const m1 = a.micro([transfer(clock, alice, bob, 1n)]).microBlock!;
    const m2 = a.micro([transfer(clock, alice, bob, 2n)]).microBlock!;
    const t3 = transfer(clock, alice, bob, 3n);
    a.micro([t3]);
    bc.chain.appendMicroBlock(m1);
    bc.chain.appendMicroBlock(m2);
    assert.ok(a.chain.microBlock(m2.totalLiquidBlockSig) !== undefined, 'micro-blocks of the liquid block are kept by total signature');
    // The next key block (B or C) on the BC node references m2.
    let next: Block | undefined;
    while (next === undefined) {
      clock.nextRound();
      next = bc.tryForge();
    }
    assert.ok(equalBytes(next.reference, m2.totalLiquidBlockSig));
    const result = applyKeyBlock(a.chain, next);
    assert.equal(result.kind, 'switched');
    assert.deepEqual(a.ids(), bc.ids());
    assert.equal(a.stateHash(), bc.stateHash());
    assert.ok(a.pool.get(t3.id) !== undefined, 'the dropped micro-block’s transaction is pooled again');
    assert.equal(applyKeyBlock(a.chain, next).kind, 'known');
  });

  it('competing key blocks for one parent: the higher block score wins on both nodes', () => {
    const { clock, a, bc } = twoNodes(2);
    let fromA: Block | undefined;
    let fromBc: Block | undefined;
    while (fromA === undefined || fromBc === undefined) {
      clock.nextRound();
      fromA ??= a.tryForge();
      fromBc ??= bc.tryForge();
    }
    assert.ok(equalBytes(fromA.reference, fromBc.reference));
    const txA = transfer(clock, alice, bob, 5n);
    a.micro([txA]);
    const better = blockScore(fromA) > blockScore(fromBc) ? 'a' : 'bc';
    const [winner, loser] = better === 'a' ? [a, bc] : [bc, a];
    const winnerBlock = better === 'a' ? fromA : fromBc;
    const loserBlock = better === 'a' ? fromBc : fromA;
    assert.equal(applyKeyBlock(winner.chain, loserBlock).kind, 'rejected');
    assert.equal(applyKeyBlock(loser.chain, winnerBlock).kind, 'switched');
    assert.ok(equalBytes(loser.chain.lastBlock().id, winnerBlock.id));
    if (loser === a) assert.ok(a.pool.get(txA.id) !== undefined, 'the replaced liquid block’s transaction is pooled again');
  });

  it('the same key block with more transactions replaces ours; with no more it does not', () => {
    const { clock, a, bc } = twoNodes(2);
    let key: Block | undefined;
    while (key === undefined) {
      clock.nextRound();
      key = a.tryForge();
      if (key === undefined && bc.tryForge() !== undefined) a.follow(bc);
    }
    bc.follow(a);
    a.micro([transfer(clock, alice, bob, 7n)]);
    const liquid = a.chain.lastBlock();
    assert.equal(applyKeyBlock(bc.chain, key).kind, 'known');
    const result = applyKeyBlock(bc.chain, liquid);
    assert.equal(result.kind, 'switched');
    assert.ok(equalBytes(bc.chain.lastBlock().id, liquid.id));
    assert.equal(bc.stateHash(), a.stateHash());
  });

  it('a key block on an unknown block is reported as such', () => {
    const { clock, a, bc } = twoNodes(2);
    diverge(clock, a, bc, 6);
    const common = commonHeight(a, bc);
    const branch = blocksAbove(bc, common);
    assert.equal(applyKeyBlock(a.chain, branch[branch.length - 1]!).kind, 'unknown-reference');
  });
});
