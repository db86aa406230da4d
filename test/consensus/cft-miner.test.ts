/**
 * The miner loop's CFT part on a real chain (test/chain/fork-fixture.ts: Blockchain, LMDB
 * store, pool; PoA rules, so the tip is never final) with mocked timers and the fixture's
 * clock: the validator's vote at the sync start, the tip's miner's vote micro-block, and the
 * unfinal tip dropped after finalization-timeout. The vote book, the vote broadcast and
 * the vote micro-block are the injected CftMining, recorded.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { Miner, type CftMining, type MinerLog, type MinerOptions } from '../../src/consensus/miner.js';
import { bytesKey } from '../../src/crypto/encoding.js';
import { equalBytes } from '../../src/protocol/bytes.js';
import { Vote } from '../../src/protocol/blocks/consensus.js';
import { alice, bob, ChainNode, Clock, minerA, minerB, minerC, p, transfer, WEST, type Account } from '../chain/fork-fixture.js';

/** The fixture's rounds: 4 s mining, 1 s sync. */
const ROUND = 4000n;
const PERIOD = 5000n;
const FINALIZATION_MS = 2000;

class RecordedCft implements CftMining {
  readonly settings: CftMining['settings'];
  readonly held: Vote[] = [];
  readonly offered: Vote[] = [];
  readonly broadcast: Vote[] = [];
  readonly appended: Vote[][] = [];
  private readonly listeners = new Set<(vote: Vote) => void>();
  readonly votes: CftMining['votes'] = {
    offer: (vote) => this.offered.push(vote),
    votesFor: (hash) => this.held.filter((v) => equalBytes(v.blockVotingHash, hash)),
    subscribe: (listener) => {
      this.listeners.add(listener);
      return () => this.listeners.delete(listener);
    },
  };

  constructor(fullVoteSetTimeoutMs?: number) {
    this.settings = { finalizationTimeoutMs: FINALIZATION_MS, fullVoteSetTimeoutMs, maxValidators: 10 };
  }

  broadcastVote(vote: Vote): void {
    this.broadcast.push(vote);
  }

  appendVoteMicroBlock(votes: readonly Vote[]): void {
    this.appended.push([...votes]);
  }

  /** A peer's vote reaches the book. */
  arrive(vote: Vote): void {
    this.held.push(vote);
    for (const l of this.listeners) l(vote);
  }
}

class RecordedLog implements MinerLog {
  readonly lines: Array<{ msg: string; obj: object }> = [];
  info(obj: object, msg: string): void {
    this.lines.push({ obj, msg });
  }
  warn(obj: object, msg: string): void {
    this.lines.push({ obj, msg });
  }
  error(obj: object, msg: string): void {
    this.lines.push({ obj, msg });
  }
  debug(obj: object, msg: string): void {
    this.lines.push({ obj, msg });
  }
}

interface Setup {
  readonly clock: Clock;
  /** Block 2, forged by miner B, with one transfer in a micro-block, is its tip. */
  readonly node: ChainNode;
  readonly syncStart: bigint;
  readonly nextRoundStart: bigint;
}

function chainWithUnfinalTip(): Setup {
  const clock = new Clock();
  const node = ChainNode.create('cft', clock, [minerB]);
  const key = node.forge();
  node.micro([transfer(clock, alice, bob, 3n * WEST)]);
  const roundStart = key.timestamp - ((key.timestamp - node.rules.poa.rounds.genesisTimestamp) % PERIOD);
  return { clock, node, syncStart: roundStart + ROUND, nextRoundStart: roundStart + PERIOD };
}

function minerOf(s: Setup, owner: Account, cft: RecordedCft, log: MinerLog = new RecordedLog(), canForge?: MinerOptions['canForge']): Miner {
  return new Miner({
    ...(canForge === undefined ? {} : { canForge }),
    chain: s.node.chain,
    pool: s.node.pool,
    rules: s.node.rules,
    cft,
    settings: { enabled: true, microBlockIntervalMs: 500, maxTransactionsInMicroBlock: 255, maxBlockSizeInBytes: 1 << 20, minMicroBlockAgeMs: 500, quorum: 0 },
    keyPair: owner.keyPair,
    now: s.clock.read,
    log,
  });
}

/** Moves the clock to `at`, the timers with it, in 10 ms steps. */
function advanceTo(s: Setup, at: bigint): void {
  while (s.clock.now < at) {
    const step = at - s.clock.now < 10n ? at - s.clock.now : 10n;
    s.clock.now += step;
    mock.timers.tick(Number(step));
  }
}

const senders = (votes: readonly Vote[]): string[] => votes.map((v) => p.addresses.fromPublicKey(v.sender).toString());

describe('the miner loop under CFT (real chain, mocked timers)', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  it('signs the tip’s validator’s vote for the liquid block at the sync start, once, to its book and its peers', () => {
    const s = chainWithUnfinalTip();
    s.clock.now = s.syncStart - 500n;
    const cft = new RecordedCft();
    const miner = minerOf(s, minerC, cft);
    miner.start();
    try {
      advanceTo(s, s.syncStart - 1n);
      assert.equal(cft.broadcast.length, 0, 'no vote before the sync part');
      advanceTo(s, s.syncStart + 20n);
      assert.equal(cft.broadcast.length, 1);
      const [vote] = cft.broadcast;
      assert.deepEqual(senders(cft.broadcast), [minerC.b58]);
      assert.ok(equalBytes(vote!.blockVotingHash, s.node.chain.lastBlock().votingHash), 'for the liquid block, micro-block included');
      assert.ok(vote!.hasValidSignature(p));
      assert.deepEqual(cft.offered, [vote]);
      advanceTo(s, s.nextRoundStart + 1000n);
      assert.equal(cft.broadcast.length, 1, 'the liquid block did not change: no second vote');
    } finally {
      miner.stop();
    }
  });

  it('has the tip’s miner put its validators’ votes in one vote micro-block as soon as they finalise', () => {
    const s = chainWithUnfinalTip();
    s.clock.now = s.syncStart - 500n;
    const cft = new RecordedCft();
    const miner = minerOf(s, minerB, cft);
    const hash = s.node.chain.lastBlock().votingHash;
    miner.start();
    try {
      // Before the sync part, and a vote from a non-validator (alice holds no miner role).
      cft.arrive(Vote.sign(p, minerA.keyPair.privateKey, hash));
      cft.arrive(Vote.sign(p, alice.keyPair.privateKey, hash));
      advanceTo(s, s.syncStart - 1n);
      assert.equal(cft.appended.length, 0, 'no vote micro-block before the sync part');
      advanceTo(s, s.syncStart + 20n);
      // Validators A and C: A's vote alone makes (1 + 1)/3 > 0.5.
      assert.deepEqual(cft.appended.map(senders), [[minerA.b58]]);
      cft.arrive(Vote.sign(p, minerC.keyPair.privateKey, hash));
      advanceTo(s, s.nextRoundStart);
      assert.equal(cft.appended.length, 1, 'one vote micro-block per round');
      assert.equal(cft.broadcast.length, 0, 'the miner does not vote for its own block');
    } finally {
      miner.stop();
    }
  });

  it('with full-vote-set-timeout, waits for every validator’s vote until then', () => {
    const s = chainWithUnfinalTip();
    s.clock.now = s.syncStart - 500n;
    const cft = new RecordedCft(600);
    const miner = minerOf(s, minerB, cft);
    const hash = s.node.chain.lastBlock().votingHash;
    miner.start();
    try {
      cft.arrive(Vote.sign(p, minerA.keyPair.privateKey, hash));
      advanceTo(s, s.syncStart + 300n);
      assert.equal(cft.appended.length, 0, 'C has not voted and the wait is not over');
      cft.arrive(Vote.sign(p, minerC.keyPair.privateKey, hash));
      advanceTo(s, s.syncStart + 310n);
      assert.deepEqual(cft.appended.map(senders), [[minerA.b58, minerC.b58]], 'every validator voted: at once');
    } finally {
      miner.stop();
    }
    const late = chainWithUnfinalTip();
    late.clock.now = late.syncStart - 500n;
    const alone = new RecordedCft(600);
    const second = minerOf(late, minerB, alone);
    second.start();
    try {
      alone.arrive(Vote.sign(p, minerA.keyPair.privateKey, late.node.chain.lastBlock().votingHash));
      advanceTo(late, late.syncStart + 590n);
      assert.equal(alone.appended.length, 0);
      advanceTo(late, late.syncStart + 700n);
      assert.deepEqual(alone.appended.map(senders), [[minerA.b58]], 'enough votes once the wait is over');
    } finally {
      second.stop();
    }
  });

  it('drops a micro-block it prepared before the sync start when the commit turn comes after it (the votes stand), its transfer kept in the pool', () => {
    const s = chainWithUnfinalTip();
    s.clock.now = s.syncStart - 20n;
    const votedOn = s.node.chain.lastBlock().votingHash;
    const late = transfer(s.clock, alice, bob, 2n * WEST);
    s.node.pool.put(late);
    // The prepare turn runs before the sync start, the sign and commit turns after it (a loaded event loop).
    let prepared = false;
    const prepare = s.node.chain.prepareOwnMicroBlock.bind(s.node.chain);
    mock.method(s.node.chain, 'prepareOwnMicroBlock', (...args: Parameters<typeof prepare>) => {
      prepared = true;
      return prepare(...args);
    });
    const log = new RecordedLog();
    const miner = new Miner({
      chain: s.node.chain,
      pool: s.node.pool,
      rules: s.node.rules,
      cft: new RecordedCft(),
      settings: { enabled: true, microBlockIntervalMs: 500, maxTransactionsInMicroBlock: 255, maxBlockSizeInBytes: 1 << 20, minMicroBlockAgeMs: 0, quorum: 0 },
      keyPair: minerB.keyPair,
      now: () => (prepared ? s.syncStart + 5n : s.clock.read()),
      log,
    });
    miner.start();
    try {
      mock.timers.tick(0);
      mock.timers.tick(0);
      mock.timers.tick(0);
      assert.ok(prepared, 'a micro-block was prepared');
      assert.ok(log.lines.some((l) => l.msg === 'prepared micro-block dropped: the voting has begun'));
      assert.ok(equalBytes(s.node.chain.lastBlock().votingHash, votedOn), 'the liquid block the validators vote on is unchanged');
      assert.ok(
        s.node.pool.all().some((tx) => bytesKey(tx.id) === bytesKey(late.id)),
        'the transfer waits in the pool',
      );
    } finally {
      miner.stop();
    }
  });

  it('waits in its slot for the tip to become final, then drops it after finalization-timeout, its transfer back in the pool', () => {
    const s = chainWithUnfinalTip();
    const minedTransfer = s.node.chain.lastBlock().transactions[0]!;
    // A has the round after B's.
    s.clock.now = s.nextRoundStart - 100n;
    const log = new RecordedLog();
    const miner = minerOf(s, minerA, new RecordedCft(), log);
    miner.start();
    try {
      advanceTo(s, s.nextRoundStart + BigInt(FINALIZATION_MS));
      assert.equal(s.node.chain.height(), 2, 'the tip is kept while it may still become final');
      assert.ok(
        log.lines.some(
          (l) =>
            l.msg === 'no key block forged' &&
            (l.obj as { reason: string }).reason === `Last block '${s.node.chain.lastBlock().idBase58}' not finalized yet, retrying`,
        ),
      );
      const liquidId = s.node.chain.lastBlock().idBase58;
      // The next look comes at most R/7 (714 ms) later.
      advanceTo(s, s.nextRoundStart + BigInt(FINALIZATION_MS) + PERIOD / 7n + 1n);
      assert.equal(s.node.chain.height(), 1, 'the unfinal tip rolled back');
      const dropped = log.lines.find((l) => l.msg === 'unfinal tip dropped');
      assert.deepEqual(dropped?.obj, {
        height: 2,
        id: liquidId,
        returned: 1,
        reason: `Last block '${liquidId}' finalization timeout, NG has been reset`,
      });
      assert.ok(
        s.node.pool.all().some((tx) => bytesKey(tx.id) === bytesKey(minedTransfer.id)),
        'its transfer is back in the pool',
      );
    } finally {
      miner.stop();
    }
  });

  it('drops nothing while it may not forge (no quorum, catching up)', () => {
    const s = chainWithUnfinalTip();
    s.clock.now = s.nextRoundStart - 100n;
    const miner = minerOf(s, minerA, new RecordedCft(), new RecordedLog(), () => ({ reason: 'no miner peer connected', retryInMs: 500 }));
    miner.start();
    try {
      advanceTo(s, s.nextRoundStart + BigInt(FINALIZATION_MS) + 2000n);
      assert.equal(s.node.chain.height(), 2);
    } finally {
      miner.stop();
    }
  });
});
