/**
 * Importing a peer's extension (src/network/extension-import.ts): blocks that continue the
 * tip are applied one by one, each as soon as its own signatures are checked while the
 * later ones still wait on the verifiers; a block the verifiers refuse stops the import
 * with the blocks before it kept; a fork is applied whole, by the score rule. Real forged
 * PoA chains; the verifier is a double whose verdicts the test releases.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { peerChainOf } from '../../src/chain/peer-chain.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { Block } from '../../src/protocol/blocks.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { ExtensionImport } from '../../src/network/extension-import.js';
import { alice, bob, ChainNode, Clock, minerA, minerB, minerC, p, transfer } from '../chain/fork-fixture.js';

/** `count` key blocks on `n`, each with a micro-block holding one transfer. */
function grow(n: ChainNode, clock: Clock, count: number): void {
  for (let i = 0; i < count; i++) {
    n.forge();
    n.micro([transfer(clock, alice, bob, BigInt(n.chain.height()))]);
    clock.nextRound();
  }
}

/** The blocks of `n` above `from`, as a peer would send them: bytes decoded afresh. */
function blocksAbove(n: ChainNode, from: number): Block[] {
  const out: Block[] = [];
  for (let h = from + 1; h <= n.chain.height(); h++) out.push(Block.fromBytes(p, n.chain.blockAt(h)!.bytes));
  return out;
}

/** A verifier double: each preverify call waits until the test releases it, then gives the verdicts `valid` says. */
class HeldVerifier {
  readonly held: Array<() => void> = [];
  constructor(private readonly valid: (tx: Transaction) => boolean = (tx) => p.crypto.verify(tx.senderPublicKey!, tx.proofSourceBytes, tx.proofs[0]!)) {}
  preverify = (txs: readonly Transaction[]): Promise<void> =>
    new Promise((resolve) =>
      this.held.push(() => {
        for (const tx of txs) tx.adoptSignatureVerdict(this.valid(tx));
        resolve();
      }),
    );
}

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await nextTurn();
};

describe('extension import', () => {
  it('applies each block that continues the tip as soon as its signatures are checked', async () => {
    const clock = new Clock();
    const a = ChainNode.create('a', clock, [minerA, minerB, minerC]);
    const b = ChainNode.create('b', clock, []);
    grow(a, clock, 4);
    const verifier = new HeldVerifier();
    const extension = new ExtensionImport(peerChainOf(b.chain), verifier);
    extension.add(blocksAbove(a, 1));
    assert.equal(verifier.held.length, 4, 'every block went to the verifiers at once');
    const done = extension.apply(10);
    await turns(3);
    assert.equal(b.chain.height(), 1, 'nothing applied before its verdicts');
    verifier.held[0]!();
    await turns(3);
    assert.equal(b.chain.height(), 2, 'the first block is applied while the others wait');
    verifier.held[1]!();
    verifier.held[2]!();
    await turns(5);
    assert.equal(b.chain.height(), 4);
    verifier.held[3]!();
    const result = await done;
    assert.equal(result.kind, 'applied');
    assert.equal(result.kind === 'applied' && result.added, 4);
    assert.deepEqual(b.ids(), a.ids());
    assert.equal(b.stateHash(), a.stateHash());
  });

  it('a download tried again takes the blocks the unfinished one received, with their verdicts, instead of verifying them again', async () => {
    const clock = new Clock();
    const a = ChainNode.create('a', clock, [minerA, minerB, minerC]);
    const b = ChainNode.create('b', clock, []);
    grow(a, clock, 4);
    const verifier = new HeldVerifier();
    // The peer lacked a block after the first two: that import is never applied.
    const unfinished = new ExtensionImport(peerChainOf(b.chain), verifier);
    unfinished.add(blocksAbove(a, 1).slice(0, 2));
    // The retry downloads all four again (new instances, as decoded from the peer's bytes).
    const retry = new ExtensionImport(peerChainOf(b.chain), verifier, unfinished);
    retry.add(blocksAbove(a, 1));
    assert.equal(verifier.held.length, 4, 'only the two blocks not received before go to the verifiers');
    for (const release of verifier.held) release();
    const result = await retry.apply(10);
    assert.equal(result.kind === 'applied' && result.added, 4);
    assert.deepEqual(b.ids(), a.ids());
    assert.equal(b.stateHash(), a.stateHash());
  });

  it('stops at a block holding a refused signature, keeping the blocks before it', async () => {
    const clock = new Clock();
    const a = ChainNode.create('a', clock, [minerA, minerB, minerC]);
    const b = ChainNode.create('b', clock, []);
    grow(a, clock, 4);
    const blocks = blocksAbove(a, 1);
    const refused = blocks[2]!.transactions[0]!.idBase58;
    const verifier = new HeldVerifier((tx) => tx.idBase58 !== refused);
    const extension = new ExtensionImport(peerChainOf(b.chain), verifier);
    extension.add(blocks);
    for (const release of verifier.held) release();
    const result = await extension.apply(10);
    assert.equal(result.kind, 'failed');
    assert.equal(result.kind === 'failed' && encodeBase58(result.block), blocks[2]!.idBase58);
    assert.equal(b.chain.height(), 3, 'the two blocks before the refused one stay');
    assert.deepEqual(b.ids(), a.ids().slice(0, 3));
    assert.equal(b.chain.state().transactionHeight(blocks[2]!.transactions[0]!.id), undefined, 'nothing of the refused block is applied');
  });

  it('a fork is decided by the score of the whole extension', async () => {
    const clock = new Clock();
    const bc = ChainNode.create('bc', clock, [minerB, minerC]);
    const a = ChainNode.create('a', clock, [minerA]);
    grow(bc, clock, 2);
    a.follow(bc);
    const common = bc.chain.height();
    // Each side alone: a forges in its slots, bc in the others (twice as many).
    for (let i = 0; i < 6; i++) {
      clock.nextRound();
      if (a.tryForge() !== undefined) a.micro([transfer(clock, alice, bob, 700n + BigInt(i))]);
      if (bc.tryForge() !== undefined) bc.micro([transfer(clock, bob, alice, 900n + BigInt(i))]);
    }
    assert.ok(a.chain.height() > common && bc.chain.score() > a.chain.score());
    const verifier = new HeldVerifier();
    const extension = new ExtensionImport(peerChainOf(a.chain), verifier);
    extension.add(blocksAbove(bc, common));
    const done = extension.apply(10);
    // The first verdicts alone change nothing: a's own blocks stay until the whole extension is checked.
    verifier.held[0]!();
    await turns(3);
    assert.notDeepEqual(a.ids(), bc.ids());
    for (const release of verifier.held.slice(1)) release();
    const result = await done;
    assert.equal(result.kind, 'applied');
    assert.ok(result.kind === 'applied' && result.removed > 0, 'a rolled its own blocks back');
    assert.deepEqual(a.ids(), bc.ids());
    assert.equal(a.stateHash(), bc.stateHash());
  });
});
