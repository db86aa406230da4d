/**
 * CFT on the chain (src/consensus/rules.ts CftRules, Blockchain's vote micro-blocks,
 * fork.ts): a key block only on a final parent, vote micro-blocks within their window and
 * with enough of the block's validators' votes, a whole block's votes checked, the rollback
 * depth of a switch, and the same-parent replacement of an unfinal tip only.
 *
 * Real forged CFT chains (three miners A, B, C: a block's validators are the two others, one
 * vote finalises it) on real stores, as fork.test.ts runs PoA.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyExtension, applyKeyBlock } from '../../src/chain/fork.js';
import { isFinalised, VoteBook } from '../../src/consensus/cft.js';
import { followTopBlock } from '../../src/consensus/cft/follow-chain.js';
import { planKeyBlock } from '../../src/consensus/poa.js';
import { poaHeaders } from '../../src/consensus/rules.js';
import { consensusService } from '../../src/node/services/consensus.js';
import { equalBytes } from '../../src/crypto/encoding.js';
import { Block, produceMicroBlock, Vote, VoteMicroBlock } from '../../src/protocol/blocks.js';
import { tempDir } from '../../devkit/tmp.js';
import { CFT, cftRules, finalise, generatorOf, MINERS, validatorsOfTop, votesFor } from './cft-fixture.js';
import { alice, bob, ChainNode, chainSettings, Clock, FINALIZATION_TIMEOUT_MS, minerA, minerB, minerC, p, transfer } from './fork-fixture.js';

/** A vote micro-block on `n`'s top block stamped `timestamp`, signed by its miner, not appended. */
function voteMicro(n: ChainNode, votes: readonly Vote[], timestamp: bigint): VoteMicroBlock {
  const tip = n.chain.lastBlock();
  const { microBlock } = produceMicroBlock(p, tip, { votes }, { timestamp, privateKey: generatorOf(tip).keyPair.privateKey, modifiedTotalSign: false });
  assert.equal(microBlock.kind, 'vote');
  return microBlock;
}

const isFinal = (n: ChainNode): boolean => isFinalised(n.chain.lastBlock().consensus);

/** Two nodes on one CFT chain of `shared` final key blocks, forged by both sides: `a` holds A, `bc` holds B and C. */
function twoNodes(shared: number): { clock: Clock; a: ChainNode; bc: ChainNode } {
  const clock = new Clock();
  const a = ChainNode.create('a', clock, [minerA], CFT);
  const bc = ChainNode.create('bc', clock, [minerB, minerC], CFT);
  while (a.chain.height() < shared + 1) {
    clock.nextRound();
    const forger = [a, bc].find((n) => n.tryForge() !== undefined);
    if (forger === undefined) continue;
    finalise(forger);
    (forger === a ? bc : a).follow(forger);
  }
  assert.deepEqual(a.ids(), bc.ids());
  return { clock, a, bc };
}

describe('CFT chain: finality', () => {
  it('takes a key block only on a final parent; the vote micro-block finalises the liquid block on the miner and on a peer', () => {
    const clock = new Clock();
    const a = ChainNode.create('a', clock, MINERS, CFT);
    const b = ChainNode.create('b', clock, [], CFT);
    const k2 = a.forge(); // on genesis: final by its version
    b.chain.appendKeyBlock(k2, 'network');
    const tx = a.micro([transfer(clock, alice, bob, 1000n)]).microBlock!;
    b.chain.appendMicroBlock(tx);
    assert.equal(isFinal(a), false);

    clock.nextRound();
    assert.throws(() => a.tryForge(), /Parent block '\w+' is not finalized/);
    assert.equal(a.chain.height(), 2);

    // In the next round, within finalization-timeout of the block's round end.
    const vote = finalise(a);
    assert.equal(isFinal(a), true);
    b.chain.appendMicroBlock(vote);
    assert.equal(isFinal(b), true);
    assert.deepEqual(b.ids(), a.ids());
    // The votes changed no state: the transfer is there once.
    assert.equal(b.stateHash(), a.stateHash());

    const k3 = a.forge();
    b.chain.appendKeyBlock(k3, 'network');
    assert.deepEqual(b.ids(), a.ids());

    // A node syncing whole blocks checks the votes each carries.
    const c = ChainNode.create('c', clock, [], CFT);
    c.follow(a);
    assert.deepEqual(c.ids(), a.ids());
    assert.equal(isFinalised(c.chain.blockAt(2)!.consensus), true);
  });

  it('refuses a vote micro-block outside its window or without enough validators’ votes, and transactions after the votes', () => {
    const clock = new Clock();
    const a = ChainNode.create('a', clock, MINERS, CFT);
    const b = ChainNode.create('b', clock, [], CFT);
    const k2 = a.forge();
    b.chain.appendKeyBlock(k2, 'network');
    const tip = b.chain.lastBlock();
    const validators = validatorsOfTop(b);
    assert.equal(validators.length, 2);
    const { syncStart, roundEnd } = cftRules(b).poa.rounds.timestamps(tip.timestamp);
    const good = votesFor(tip, validators.slice(0, 1));

    assert.throws(
      () => b.chain.appendMicroBlock(voteMicro(b, good, syncStart - 1n)),
      (e: Error) => e.message === `Invalid VoteMicroBlock timestamp '${syncStart - 1n}', it must be older than '${syncStart}'`,
    );
    const end = roundEnd + FINALIZATION_TIMEOUT_MS;
    assert.throws(
      () => b.chain.appendMicroBlock(voteMicro(b, good, end + 1n)),
      (e: Error) => e.message === `Invalid VoteMicroBlock timestamp '${end + 1n}', it must be earlier than '${end}'`,
    );
    // The block's own miner and a non-miner are no validators: their votes do not count.
    const generator = generatorOf(tip);
    assert.throws(
      () => b.chain.appendMicroBlock(voteMicro(b, votesFor(tip, [generator, alice]), syncStart)),
      /: Micro-block '\w+' does not contain the required percent of votes '0.5', current - '0.3333333333333333'/,
    );
    // A vote for another block does not count either.
    const elsewhere = Vote.sign(p, validators[0]!.keyPair.privateKey, new Uint8Array(32).fill(7));
    assert.throws(() => b.chain.appendMicroBlock(voteMicro(b, [elsewhere], syncStart)), /does not contain the required percent of votes/);
    assert.equal(isFinal(b), false);

    // One validator of two finalises: (1 + 1) / (2 + 1) > 0.5.
    b.chain.appendMicroBlock(voteMicro(b, good, end));
    assert.equal(isFinal(b), true);

    // A transaction micro-block stamped inside the round, after the votes: refused.
    const late = produceMicroBlock(
      p,
      b.chain.lastBlock(),
      { transactions: [transfer(clock, alice, bob, 5n)] },
      {
        timestamp: tip.timestamp + 200n,
        privateKey: generator.keyPair.privateKey,
        modifiedTotalSign: false,
      },
    ).microBlock;
    assert.throws(() => b.chain.appendMicroBlock(late), /carries its votes already/);
  });

  it('refuses a whole block whose votes do not finalise it', () => {
    const clock = new Clock();
    const a = ChainNode.create('a', clock, MINERS, CFT);
    a.forge();
    a.micro([transfer(clock, alice, bob, 1000n)]);
    finalise(a);
    const real = a.chain.blockAt(2)!;
    const generator = generatorOf(real);
    const forged = Block.sign(
      p,
      real.withContent(real.transactions, { type: 'cft', overallSkippedRounds: 0n, votes: votesFor(real, [generator, alice]) }),
      generator.keyPair.privateKey,
    );
    const c = ChainNode.create('c', clock, [], CFT);
    assert.throws(() => c.chain.appendBlock(forged, 'network'), /: Block '\w+' does not contain the required percent of votes '0.5'/);
    assert.equal(c.chain.height(), 1);
    c.chain.appendBlock(real, 'network');
    assert.equal(isFinal(c), true);
  });

  it('refuses a key block with PoA consensus data on a CFT chain', () => {
    const clock = new Clock();
    const a = ChainNode.create('a', clock, MINERS, CFT);
    clock.nextRound();
    const plan = MINERS.map((m) => ({
      m,
      plan: planKeyBlock(cftRules(a).poa, { state: a.chain.state(), chain: poaHeaders(a.chain), now: clock.now, self: m.address }),
    })).find((x) => x.plan.kind === 'forge');
    assert.ok(plan !== undefined && plan.plan.kind === 'forge');
    const fields = { version: 3, timestamp: plan.plan.timestamp, reference: a.chain.lastBlock().id, transactions: [], featureVotes: [], genesisData: null };
    const poaBlock = Block.sign(p, { ...fields, consensus: { type: 'poa', overallSkippedRounds: plan.plan.overallSkippedRounds } }, plan.m.keyPair.privateKey);
    assert.throws(() => a.chain.appendKeyBlock(poaBlock, 'network'), /Expected CFT consensus block data, but got PoA instead/);
    const cftBlock = Block.sign(
      p,
      { ...fields, consensus: { type: 'cft', overallSkippedRounds: plan.plan.overallSkippedRounds, votes: [] } },
      plan.m.keyPair.privateKey,
    );
    a.chain.appendKeyBlock(cftBlock, 'network');
    assert.equal(a.chain.height(), 2);
  });

  it('refuses vote micro-blocks on a PoA chain', () => {
    const clock = new Clock();
    const a = ChainNode.create('a', clock, MINERS, chainSettings());
    const k2 = a.forge();
    clock.now = k2.timestamp + 4_000n;
    const votes = votesFor(k2, [minerB]);
    // A peer's: PoA's rules refuse it. This node's: PoA block data takes no votes.
    const micro = VoteMicroBlock.sign(
      p,
      { version: 4, timestamp: clock.now, prevLiquidBlockSig: k2.id, totalLiquidBlockSig: new Uint8Array(64), votes },
      generatorOf(k2).keyPair.privateKey,
    );
    assert.throws(() => a.chain.appendMicroBlock(micro), /Vote micro-blocks belong to CFT consensus, which this chain does not run/);
    assert.throws(() => a.chain.appendOwnVoteMicroBlock(votes, generatorOf(k2).keyPair.privateKey, false), /Expected CFT consensus block data, but got PoA/);
    assert.equal(a.chain.lastBlock(), k2);
  });
});

describe('CFT chain: the vote book follows the top block', () => {
  it('gathers votes for the liquid block as it stands, with its validators', () => {
    const clock = new Clock();
    const a = ChainNode.create('a', clock, MINERS, CFT);
    const book = new VoteBook(p);
    const stop = followTopBlock(book, a.chain, cftRules(a));
    a.forge();
    const keyHash = a.chain.lastBlock().votingHash;
    const [validator] = validatorsOfTop(a);
    assert.equal(book.offer(Vote.sign(p, validator!.keyPair.privateKey, keyHash)), 'accepted');
    assert.equal(book.offer(Vote.sign(p, generatorOf(a.chain.lastBlock()).keyPair.privateKey, keyHash)), 'not-validator');
    a.micro([transfer(clock, alice, bob, 7n)]);
    const liquidHash = a.chain.lastBlock().votingHash;
    assert.notDeepEqual(liquidHash, keyHash);
    assert.equal(book.offer(Vote.sign(p, validator!.keyPair.privateKey, liquidHash)), 'accepted');
    // The miner's vote micro-block with the book's votes finalises the block.
    clock.now = cftRules(a).poa.rounds.syncStart(a.chain.lastBlock().timestamp) + 10n;
    a.chain.appendOwnVoteMicroBlock(book.votesFor(liquidHash), generatorOf(a.chain.lastBlock()).keyPair.privateKey, false);
    assert.equal(isFinal(a), true);
    stop();
  });
});

describe('CFT chain: the /consensus services', () => {
  it('answers with PoA’s queue and bans (the rules of a CFT chain are PoA’s plus finality)', () => {
    const a = ChainNode.create('a', new Clock(), MINERS, CFT);
    const service = consensusService({ settings: CFT.consensus, rules: a.rules, chain: a.chain, store: a.store });
    assert.equal(service.poa, cftRules(a).poa);
    assert.equal(service.poa.settings.type, 'cft');
  });
});

describe('CFT chain: switching branches', () => {
  it('takes back at most one block when the tip is final (WE checkExtensionRollback)', () => {
    const { clock, a, bc } = twoNodes(2);
    const common = a.chain.height();
    // Partitioned: each side forges alone and finalises its blocks with the other side's keys.
    while (a.chain.height() < common + 2 || bc.chain.height() < common + 2) {
      clock.nextRound();
      for (const n of [a, bc]) if (n.chain.height() < common + 2 && n.tryForge() !== undefined) finalise(n);
    }
    assert.equal(isFinal(a), true);
    const theirs: Block[] = [bc.chain.blockAt(common + 1)!, bc.chain.blockAt(common + 2)!];
    const before = a.ids();
    const result = applyExtension(a.chain, theirs);
    assert.equal(result.kind, 'rejected');
    assert.equal(result.kind === 'rejected' && result.error.message, "CFT consensus does not allow rollback more than '1' block, current depth '2'");
    assert.deepEqual(a.ids(), before);
  });

  it('takes back two blocks when the tip is unfinal', () => {
    const { clock, a, bc } = twoNodes(2);
    const common = a.chain.height();
    // As above, but `a` leaves its second block of the partition unfinal.
    while (a.chain.height() < common + 2 || bc.chain.height() < common + 2) {
      clock.nextRound();
      for (const n of [a, bc]) {
        if (n.chain.height() >= common + 2 || n.tryForge() === undefined) continue;
        if (n === bc || a.chain.height() < common + 2) finalise(n);
      }
    }
    assert.equal(isFinal(a), false);
    const result = applyExtension(a.chain, [bc.chain.blockAt(common + 1)!, bc.chain.blockAt(common + 2)!], { force: true });
    // The depth allows it; the scores decide.
    assert.notEqual(result.kind === 'rejected' ? result.error.message : '', "CFT consensus does not allow rollback more than '2' block, current depth '2'");
    assert.ok(result.kind === 'applied' || result.kind === 'not-better', result.kind);
  });

  it('keeps a final liquid block final over a restart', async () => {
    const clock = new Clock();
    const dir = tempDir('weft-cft-restart-');
    const a = ChainNode.create('a', clock, MINERS, CFT, dir);
    a.forge();
    a.micro([transfer(clock, alice, bob, 9n)]);
    finalise(a);
    const ids = a.ids();
    await a.store.close();
    const again = ChainNode.create('a', clock, MINERS, CFT, dir);
    assert.deepEqual(again.ids(), ids);
    assert.equal(isFinal(again), true);
    again.forge();
    assert.equal(again.chain.height(), 3);
  });

  it('replaces an unfinal tip by a key block on its parent from a later round, and never a final one', () => {
    for (const finalTip of [false, true]) {
      const { clock, a, bc } = twoNodes(2);
      // `a` forges on the shared final block; `bc` never sees it and forges in a later round.
      let ours: Block | undefined;
      while (ours === undefined) {
        clock.nextRound();
        ours = a.tryForge();
        if (ours === undefined && bc.tryForge() !== undefined) {
          finalise(bc);
          a.follow(bc);
        }
      }
      const height = a.chain.height();
      if (finalTip) finalise(a);
      const theirs = bc.forge();
      assert.ok(equalBytes(theirs.reference, a.chain.lastBlock().reference));
      const result = applyKeyBlock(a.chain, theirs);
      if (finalTip) {
        assert.equal(result.kind, 'rejected');
        assert.match(result.kind === 'rejected' ? result.error.message : '', /does not replace the last block .*: it is final/);
        assert.ok(equalBytes(a.chain.lastBlock().id, a.chain.blockIdAt(a.chain.height())!));
        assert.equal(isFinal(a), true);
      } else {
        assert.equal(result.kind, 'switched', JSON.stringify(result.kind === 'rejected' ? result.error.message : result));
        assert.ok(equalBytes(a.chain.lastBlock().id, theirs.id));
        assert.equal(a.chain.height(), height);
      }
    }
  });
});
