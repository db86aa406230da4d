import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  expectedValidators,
  gatheringEnded,
  inVotingWindow,
  planCftKeyBlock,
  planVoting,
  seedBlockIds,
  validatorsAt,
  votingWindow,
  type VotingInput,
} from '../../src/consensus/cft.js';
import { periodicDelayMs, minerQueueAt } from '../../src/consensus/poa.js';
import { bytesKey } from '../../src/crypto/encoding.js';
import { Vote, type ConsensusData } from '../../src/protocol/blocks/consensus.js';
import { account, Harness, p, R, roundStart, ROUND } from './harness.js';

const a = account('cft voting a');
const b = account('cft voting b');
const c = account('cft voting c');
const names = (addresses: readonly Uint8Array[]): string =>
  addresses.map((x) => [a, b, c].find((m) => bytesKey(m.address) === bytesKey(x))?.name.slice(-1) ?? '?').join('');

describe('CFT voting: the window of a round', () => {
  // Round 3: [G + 3R, G + 3R + 17 s) mining, then 3 s of sync.
  const round = { roundStart: roundStart(3), syncStart: roundStart(3) + ROUND, roundEnd: roundStart(4) - 1n };

  it('runs from the sync start to finalization-timeout after the round end; the miner waits for all votes until full-vote-set-timeout', () => {
    assert.deepEqual(votingWindow(round, { finalizationTimeoutMs: 5000, fullVoteSetTimeoutMs: 2000 }), {
      syncStart: round.syncStart,
      finalizationEnd: round.roundEnd + 5000n,
      fullVoteSetEnd: round.syncStart + 2000n,
    });
    // Without full-vote-set-timeout WE waits for none (0 after the sync start).
    assert.equal(votingWindow(round, { finalizationTimeoutMs: 5000, fullVoteSetTimeoutMs: undefined }).fullVoteSetEnd, round.syncStart);
  });

  it('lets a vote micro-block carry a timestamp inside it, both bounds included', () => {
    const w = votingWindow(round, { finalizationTimeoutMs: 5000, fullVoteSetTimeoutMs: undefined });
    assert.deepEqual(
      [w.syncStart - 1n, w.syncStart, w.finalizationEnd, w.finalizationEnd + 1n].map((t) => inVotingWindow(w, t)),
      [false, true, true, false],
    );
  });
});

describe('CFT voting: who does what (MinerImplCft.votingAttempt)', () => {
  const round = { roundStart: roundStart(3), syncStart: roundStart(3) + ROUND, roundEnd: roundStart(4) - 1n };
  const window = votingWindow(round, { finalizationTimeoutMs: 5000, fullVoteSetTimeoutMs: undefined });
  const hash1 = new Uint8Array(32).fill(1);
  const hash2 = new Uint8Array(32).fill(2);
  let asked = 0;
  const input = (o: Partial<VotingInput> & { self: Uint8Array }): VotingInput => ({
    window,
    now: window.syncStart,
    tip: { height: 5, votingHash: hash1, miner: b.address },
    votedFor: undefined,
    validators: () => (asked++, [a.address, c.address]),
    ...o,
  });

  it('waits for the sync start, without asking for the validators', () => {
    asked = 0;
    assert.deepEqual(planVoting(input({ self: a.address, now: window.syncStart - 1n })), { kind: 'wait', at: window.syncStart });
    assert.equal(asked, 0);
  });

  it('ends with the finalization window, and never votes on genesis', () => {
    assert.deepEqual(planVoting(input({ self: a.address, now: window.finalizationEnd + 1n })), { kind: 'over', reason: 'Finalization time is over' });
    assert.deepEqual(planVoting(input({ self: a.address, tip: { height: 1, votingHash: hash1, miner: b.address } })), {
      kind: 'over',
      reason: 'Genesis block does not require voting',
    });
  });

  it('has a validator vote, and vote again only when the liquid block’s voting hash changes', () => {
    assert.deepEqual(planVoting(input({ self: a.address })), { kind: 'vote' });
    assert.deepEqual(planVoting(input({ self: a.address, votedFor: hash1, now: window.finalizationEnd })), {
      kind: 'watch',
      reason: 'Voted for the current liquid block',
      until: window.finalizationEnd,
    });
    // A late micro-block made another liquid block: another vote.
    assert.deepEqual(planVoting(input({ self: c.address, votedFor: hash1, tip: { height: 5, votingHash: hash2, miner: b.address } })), { kind: 'vote' });
  });

  it('has the tip’s miner gather its validators’ votes until the finalization end, and others only watch', () => {
    const collect = planVoting(input({ self: b.address }));
    assert.equal(collect.kind, 'collect');
    assert.equal(collect.kind === 'collect' && names(collect.validators), 'ac');
    assert.equal(collect.kind === 'collect' && collect.until, window.finalizationEnd);
    assert.deepEqual(planVoting(input({ self: account('cft voting outsider').address })), {
      kind: 'watch',
      reason: 'The current node owner is not validator for this round',
      until: window.finalizationEnd,
    });
  });
});

describe('CFT voting: when the tip’s miner stops gathering (votingEndCondition)', () => {
  const round = { roundStart: roundStart(3), syncStart: roundStart(3) + ROUND, roundEnd: roundStart(4) - 1n };

  it('without full-vote-set-timeout: as soon as the votes finalise', () => {
    const w = votingWindow(round, { finalizationTimeoutMs: 5000, fullVoteSetTimeoutMs: undefined });
    // 3 validators: (1 + 1)/4 is not more than half, (2 + 1)/4 is.
    assert.deepEqual(
      [0, 1, 2, 3].map((held) => gatheringEnded(w, w.syncStart, held, 3)),
      [false, false, true, true],
    );
    // No validator: the miner's word alone (WE still needs a non-empty vote list to call the block final).
    assert.equal(gatheringEnded(w, w.syncStart, 0, 0), true);
  });

  it('with it: every validator’s vote, or enough once the wait is over', () => {
    const w = votingWindow(round, { finalizationTimeoutMs: 5000, fullVoteSetTimeoutMs: 1000 });
    assert.equal(gatheringEnded(w, w.syncStart + 999n, 2, 3), false);
    assert.equal(gatheringEnded(w, w.syncStart + 999n, 3, 3), true);
    assert.equal(gatheringEnded(w, w.syncStart + 1000n, 2, 3), true);
    assert.equal(gatheringEnded(w, w.syncStart + 1000n, 1, 3), false);
  });
});

describe('CFT voting: the validators of the tip at an instant', () => {
  it('are the active miners but the tip’s, shuffled from the ids below the tip when more than max-validators', () => {
    const h = Harness.create({ miners: [a, b, c] });
    h.mine(b, 1);
    h.mine(c, 2);
    const tip = h.forge(a, roundStart(3) + 1000n);
    h.append(tip);
    const source = { state: h.store, blockIdAt: (height: number) => h.chain.headers[height - 1]?.id, fastHash: (d: Uint8Array) => p.crypto.fastHash(d) };
    const facts = { height: 4, reference: tip.reference, miner: a.address };
    assert.equal(names(validatorsAt({ ...source, maxValidators: 2 }, facts, roundStart(3) + ROUND)), 'bc');
    const one = validatorsAt({ ...source, maxValidators: 1 }, facts, roundStart(3) + ROUND);
    const expected = expectedValidators({
      activeMiners: minerQueueAt(h.store, roundStart(3)),
      blockMiner: a.address,
      maxValidators: 1,
      parentId: tip.reference,
      lastBlockIds: (n) => seedBlockIds(tip.reference, 3, n, (height) => h.chain.headers[height - 1]!.id),
      fastHash: source.fastHash,
    });
    assert.deepEqual(names(one), names(expected));
    assert.equal(one.length, 1);
  });
});

describe('CFT: the next key block (checkConsensusForgingRequirement)', () => {
  const FINALIZATION = 5000;
  const unfinal: ConsensusData = { type: 'cft', votes: [], overallSkippedRounds: 0n };
  const final: ConsensusData = { type: 'cft', votes: [Vote.sign(p, a.keys.privateKey, new Uint8Array(32))], overallSkippedRounds: 0n };
  const chain = (): Harness => {
    const h = Harness.create({ miners: [a, b, c] });
    h.mine(b, 1);
    return h;
  };
  const plan = (h: Harness, self: Uint8Array, now: bigint, consensus: ConsensusData, version = 3): ReturnType<typeof planCftKeyBlock> =>
    planCftKeyBlock(h.poa, { state: h.store, chain: h.chain, now, self, tip: { version, consensus, idBase58: 'TIP' }, finalizationTimeoutMs: FINALIZATION });

  it('forges on a final tip, or on genesis, as PoA would', () => {
    const h = chain();
    const forge = plan(h, c.address, roundStart(2) + 10n, final);
    assert.equal(forge.kind, 'forge');
    assert.equal(forge.kind === 'forge' && forge.timestamp, roundStart(2) + 10n);
    const fresh = Harness.create({ miners: [a, b, c] });
    assert.equal(plan(fresh, b.address, roundStart(1) + 10n, { type: 'cft', votes: [], overallSkippedRounds: 0n }, 1).kind, 'forge');
  });

  it('waits for an unfinal tip until finalization-timeout after the round start, spaced as WE spaces attempts', () => {
    const h = chain();
    const now = roundStart(2) + 10n;
    const waiting = plan(h, c.address, now, unfinal);
    assert.equal(waiting.kind, 'await-finality');
    assert.equal(waiting.kind === 'await-finality' && waiting.reason, "Last block 'TIP' not finalized yet, retrying");
    assert.equal(waiting.kind === 'await-finality' && waiting.retryAt, now + BigInt(periodicDelayMs(now, roundStart(3) - 1n, R, Number(R / 7n))));
    // The last instant of the wait: roundStart + timeout is not yet past.
    assert.equal(plan(h, c.address, roundStart(2) + BigInt(FINALIZATION), unfinal).kind, 'await-finality');
  });

  it('drops the unfinal tip once the timeout has passed', () => {
    const h = chain();
    assert.deepEqual(plan(h, c.address, roundStart(2) + BigInt(FINALIZATION) + 1n, unfinal), {
      kind: 'drop-tip',
      reason: "Last block 'TIP' finalization timeout, NG has been reset",
    });
  });

  it('leaves other miners’ rounds to PoA: no waiting, no dropping outside this node’s slot', () => {
    const h = chain();
    assert.equal(plan(h, a.address, roundStart(2) + BigInt(FINALIZATION) + 1n, unfinal).kind, 'wait');
  });
});

describe('PoA attempt spacing (calculatePeriodicDelay)', () => {
  it('is shortest at both ends of the interval and longest in its middle', () => {
    assert.equal(periodicDelayMs(0n, 7000n, 7000n, 1000), 100);
    assert.equal(periodicDelayMs(3500n, 7000n, 7000n, 1000), 1000);
    assert.equal(periodicDelayMs(7000n, 7000n, 7000n, 1000), 100);
    assert.equal(periodicDelayMs(1750n, 7000n, 7000n, 1000), 550);
  });

  it('waits the longest in the first half of a round already checked', () => {
    assert.equal(periodicDelayMs(0n, 7000n, 7000n, 1000, true), 1000);
    assert.equal(periodicDelayMs(7000n, 7000n, 7000n, 1000, true), 100);
  });
});
