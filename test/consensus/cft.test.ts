import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  allowedRollbackDepth,
  canReplaceUnfinalisedTip,
  countVotes,
  expectedValidators,
  finalisingVoteCount,
  hasFinalisingVotes,
  isFinalised,
  LcgRandom,
  requireFinalisingVotes,
  requireRollbackDepth,
  seedBlockCount,
  seedBlockIds,
  signedBigEndian,
  VoteTally,
} from '../../src/consensus/cft.js';
import { minerQueueAt, PoaRounds } from '../../src/consensus/poa.js';
import { blockScore } from '../../src/consensus/rules.js';
import { bytesKey, encodeBase58 } from '../../src/crypto/encoding.js';
import { Block } from '../../src/protocol/blocks/block.js';
import { Vote, type ConsensusData } from '../../src/protocol/blocks/consensus.js';
import { expectWeError } from '../support/errors.js';
import { account, G, Harness, p, roundStart, SETTINGS } from './harness.js';

// Expected values below were worked out outside this code, from LcgRandom.scala's
// semantics: Java BigInteger arithmetic, remainder taking the dividend's sign, the seed
// read as a signed big-endian integer, one step in the constructor and one per draw.
// (Python with a sign-following remainder; the first is also checked by hand in its test.)

const ids = (...bytes: number[]): Uint8Array[] => bytes.map((b) => new Uint8Array(64).fill(b));

describe('CFT: WE’s LCG (utils/LcgRandom)', () => {
  it('steps a zero seed as hand-computed', () => {
    const r = new LcgRandom(new Uint8Array(32));
    // state0 = (0·a + c) rem m = 12345; draw 1 = 12345·1103515246 rem (2^31 − 1)
    //   = 13 622 895 711 870 − 6343 · 2 147 483 647 (= 13 621 488 772 921) = 1 406 938 949.
    assert.equal(r.nextInt(), 1_406_938_949);
    assert.equal(r.nextInt(), 178_066_070);
    assert.equal(r.nextInt(), 1_543_701_248);
    assert.equal(r.nextInt(), 427_461_576);
  });

  it('reads the seed as a signed integer and keeps negative states negative (Java remainder)', () => {
    assert.equal(signedBigEndian(new Uint8Array(32).fill(0xff)), -1n);
    assert.equal(signedBigEndian(Uint8Array.of(0x80, 0)), -32768n);
    assert.equal(signedBigEndian(Uint8Array.of(0x7f, 0xff)), 32767n);
    // Seed −1: state0 = (−a + c) rem m = −1 103 502 900; the draws stay negative.
    const r = new LcgRandom(new Uint8Array(32).fill(0xff));
    assert.deepEqual([r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt()], [-278_070_789, -1_339_112_587, -68_082_246, -1_527_637_986]);
    // nextInt(n) takes the magnitude first: 278 070 789 rem 10 = 9, …
    const below = new LcgRandom(new Uint8Array(32).fill(0xff));
    assert.deepEqual([below.nextIntBelow(10), below.nextIntBelow(10), below.nextIntBelow(10), below.nextIntBelow(10)], [9, 7, 6, 6]);
  });

  it('shuffles as WE does from a Blake2b-256 seed of block ids', () => {
    const seed = p.crypto.fastHash(new Uint8Array(Buffer.concat(ids(1, 2, 3))));
    assert.equal(Buffer.from(seed).toString('hex'), '09027bd246f7f7f941c9451d4b9bdceacde274d79dc51271527521a97521cdb9');
    assert.deepEqual(new LcgRandom(seed).shuffle([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), [6, 1, 2, 9, 0, 8, 5, 4, 3, 7]);
    assert.deepEqual(new LcgRandom(seed).shuffle([...'ABCDEFG']), [...'BGFDEAC']);
    // A seed with the top bit set (a negative BigInt).
    const negative = p.crypto.fastHash(new Uint8Array(Buffer.concat(ids(5, 6))));
    assert.equal(negative[0]! >= 0x80, true);
    assert.deepEqual(new LcgRandom(negative).shuffle([0, 1, 2, 3, 4, 5]), [4, 5, 0, 3, 1, 2]);
    // Nothing to shuffle: no draw.
    assert.deepEqual(new LcgRandom(seed).shuffle([7]), [7]);
  });
});

describe('CFT: validators of a block (CftConsensus.expectedValidators)', () => {
  const miners = [...'ABCDEFGH'].map((n) => account(`cft ${n}`));
  const queue = miners.map((m) => m.address);
  const names = (addresses: readonly Uint8Array[]): string =>
    addresses.map((a) => miners.find((m) => bytesKey(m.address) === bytesKey(a))!.name.slice(-1)).join('');

  it('seeds with min(⌈max/2⌉ + 1, max) block ids, the parent first', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 10].map(seedBlockCount), [1, 2, 3, 3, 4, 4, 5, 6]);
    const idAt = (h: number): Uint8Array => new Uint8Array(64).fill(h);
    const liquid = new Uint8Array(64).fill(0xaa);
    assert.deepEqual(seedBlockIds(liquid, 5, 3, idAt), [liquid, idAt(4), idAt(3)]);
    // Never below genesis.
    assert.deepEqual(seedBlockIds(liquid, 2, 4, idAt), [liquid, idAt(1)]);
  });

  it('takes every active miner but the block’s own, in queue order, up to max-validators', () => {
    const lastBlockIds = (): never => assert.fail('no shuffle needed');
    const base = { activeMiners: queue, parentId: ids(9)[0]!, lastBlockIds, fastHash: p.crypto.fastHash.bind(p.crypto) };
    assert.equal(names(expectedValidators({ ...base, blockMiner: miners[2]!.address, maxValidators: 7 })), 'ABDEFGH');
    assert.equal(names(expectedValidators({ ...base, blockMiner: miners[2]!.address, maxValidators: 100 })), 'ABDEFGH');
    // The block's miner no longer active: all eight, still ≤ max.
    assert.equal(names(expectedValidators({ ...base, blockMiner: account('cft outsider').address, maxValidators: 8 })), 'ABCDEFGH');
    assert.deepEqual(expectedValidators({ ...base, activeMiners: [miners[0]!.address], blockMiner: miners[0]!.address, maxValidators: 1 }), []);
  });

  it('shuffles when more remain than max-validators, deterministically from the last block ids', () => {
    const asked: number[] = [];
    const candidates = {
      activeMiners: queue,
      blockMiner: miners[7]!.address, // H: seven candidates A…G remain
      maxValidators: 3,
      parentId: ids(1)[0]!,
      lastBlockIds: (count: number) => (asked.push(count), ids(1, 2, 3).slice(0, count)),
      fastHash: p.crypto.fastHash.bind(p.crypto),
    };
    // Seed of ids 1, 2, 3 shuffles A…G to B G F D E A C (see the LCG test); the first three.
    assert.equal(names(expectedValidators(candidates)), 'BGF');
    assert.deepEqual(asked, [3]);
    assert.equal(names(expectedValidators(candidates)), 'BGF');
    // Another parent, another draw.
    assert.notEqual(names(expectedValidators({ ...candidates, lastBlockIds: () => ids(4, 5, 6) })), 'BGF');
    expectWeError(() => expectedValidators({ ...candidates, lastBlockIds: () => undefined }), 199, `Parent block '${encodeBase58(ids(1)[0]!)}' not found`);
  });

  it('reads the candidates from the miner queue at the round end', () => {
    const [a, b, c] = miners;
    const late = account('cft late');
    const h = Harness.create({ miners: [a!, b!, c!, { miner: late, granted: roundStart(1) + 5_000n }] });
    const rounds = new PoaRounds(G, SETTINGS);
    const roundEnd = rounds.roundEnd(roundStart(1));
    const candidates = (at: bigint): Uint8Array[] =>
      expectedValidators({
        activeMiners: minerQueueAt(h.store, at),
        blockMiner: b!.address,
        maxValidators: 10,
        parentId: ids(1)[0]!,
        lastBlockIds: () => ids(1),
        fastHash: p.crypto.fastHash.bind(p.crypto),
      });
    // Granted during round 1: a validator of round 1's block (judged at its round end), not of round 0's.
    assert.deepEqual(candidates(roundEnd).map(bytesKey), [a!.address, c!.address, late.address].map(bytesKey));
    assert.deepEqual(candidates(rounds.roundEnd(G)).map(bytesKey), [a!.address, c!.address].map(bytesKey));
  });
});

describe('CFT: finality', () => {
  it('needs (votes + 1)/(validators + 1) > 0.5: the thresholds at 0…7 validators', () => {
    // Worked out by hand: 2(v + 1) > n + 1 ⇔ v ≥ ⌈n/2⌉.
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7].map(finalisingVoteCount), [0, 1, 1, 2, 2, 3, 3, 4]);
    assert.equal(hasFinalisingVotes(1, 2), true); // 2/3
    assert.equal(hasFinalisingVotes(1, 3), false); // 2/4 = 0.5 exactly: not more
    assert.equal(hasFinalisingVotes(2, 4), true); // 3/5
    assert.equal(hasFinalisingVotes(2, 5), false); // 3/6
    for (let n = 0; n <= 500; n++) for (let v = 0; v <= n; v++) assert.equal(hasFinalisingVotes(v, n), 2 * (v + 1) > n + 1, `${v} of ${n}`);
  });

  const validators = [...'PQR'].map((n) => account(`cft validator ${n}`));
  const addresses = validators.map((v) => v.address);
  const hash = p.crypto.fastHash(Uint8Array.of(1, 2, 3));
  const other = p.crypto.fastHash(Uint8Array.of(4));
  const vote = (i: number, h = hash): Vote => Vote.sign(p, validators[i]!.keys.privateKey, h);
  const forged = (i: number, h = hash): Vote => new Vote(validators[i]!.keys.publicKey, h, new Uint8Array(64).fill(7));

  it('counts a vote only for the block’s hash, from a validator, with a good signature — the last of a sender’s', () => {
    const outsider = account('cft outsider');
    const count = countVotes(p, hash, [vote(0), vote(1, other), Vote.sign(p, outsider.keys.privateKey, hash), forged(2)], addresses);
    assert.deepEqual(count.counted.map(bytesKey), [bytesKey(addresses[0]!)]);
    assert.equal(count.satisfaction, 0.5);
    // WE keys the votes by sender: a forged vote after a good one leaves the sender missing.
    assert.equal(countVotes(p, hash, [vote(0), forged(0)], addresses).counted.length, 0);
    assert.equal(countVotes(p, hash, [forged(0), vote(0)], addresses).counted.length, 1);
  });

  it('refuses votes that do not finalise, with WE’s message', () => {
    assert.equal(requireFinalisingVotes(p, "Block 'x'", hash, [vote(0), vote(2)], addresses).satisfaction, 0.75);
    assert.equal(requireFinalisingVotes(p, "Block 'x'", hash, [], []).satisfaction, 1);
    expectWeError(
      () => requireFinalisingVotes(p, "Micro-block 'y'", hash, [vote(1)], addresses),
      199,
      /^Micro-block 'y' does not contain the required percent of votes '0\.5', current - '0\.5'\. Current votes: 'Vote\(/,
    );
  });

  it('holds one vote per validator for a block and says why it refuses the others', () => {
    const outsider = account('cft outsider');
    const tally = new VoteTally(p, hash, addresses);
    const first = vote(0);
    assert.equal(tally.offer(forged(0)), 'invalid-signature');
    assert.equal(tally.offer(first), 'accepted');
    assert.equal(tally.offer(first), 'known');
    // The same validator and hash signed again (WAVES signatures carry a random nonce): a double vote; a forgery is only invalid.
    const again = vote(0);
    assert.notDeepEqual(again.signature, first.signature);
    assert.equal(tally.offer(again), 'double-vote');
    assert.equal(tally.offer(forged(0)), 'invalid-signature');
    assert.equal(tally.offer(vote(1, other)), 'other-block');
    assert.equal(tally.offer(Vote.sign(p, outsider.keys.privateKey, hash)), 'not-validator');
    assert.equal(tally.count, 1);
    assert.equal(tally.finalising, false); // 2/4
    assert.equal(tally.offer(vote(2)), 'accepted');
    assert.equal(tally.finalising, true); // 3/4
    assert.equal(tally.complete, false);
    assert.equal(tally.offer(vote(1)), 'accepted');
    assert.equal(tally.complete, true);
    assert.deepEqual(
      tally.votes().map((v) => bytesKey(v.sender)),
      [0, 2, 1].map((i) => bytesKey(validators[i]!.keys.publicKey)),
    );
  });
});

describe('CFT: what finality allows', () => {
  const cft = (votes: number): ConsensusData => ({
    type: 'cft',
    votes: Array.from({ length: votes }, () => Vote.sign(p, account('cft v').keys.privateKey, new Uint8Array(32))),
    overallSkippedRounds: 4n,
  });

  it('calls a block final once it carries votes', () => {
    assert.equal(isFinalised(cft(0)), false);
    assert.equal(isFinalised(cft(1)), true);
    assert.equal(isFinalised({ type: 'poa', overallSkippedRounds: 0n }), false);
  });

  it('limits a fork’s rollback to one block, two below an unfinal tip', () => {
    assert.equal(allowedRollbackDepth(cft(1)), 1);
    assert.equal(allowedRollbackDepth(cft(0)), 2);
    requireRollbackDepth(2, cft(0));
    expectWeError(() => requireRollbackDepth(2, cft(1)), 199, "CFT consensus does not allow rollback more than '1' block, current depth '2'");
    expectWeError(() => requireRollbackDepth(3, cft(0)), 199, "CFT consensus does not allow rollback more than '2' block, current depth '3'");
  });

  it('lets a key block on the same parent replace an unfinal tip from the next round on', () => {
    const rounds = new PoaRounds(G, SETTINGS);
    const parent = new Uint8Array(64).fill(3);
    const tip = { reference: parent, timestamp: roundStart(1) + 1_000n, consensus: cft(0) };
    const next = roundStart(2);
    const candidate = { reference: parent, timestamp: next, consensus: cft(0) };
    assert.equal(canReplaceUnfinalisedTip(rounds, next, candidate, tip), true);
    assert.equal(canReplaceUnfinalisedTip(rounds, next - 1n, candidate, tip), false); // the clock still in the tip's round
    assert.equal(canReplaceUnfinalisedTip(rounds, next, { ...candidate, timestamp: next - 1n }, tip), false);
    assert.equal(canReplaceUnfinalisedTip(rounds, next, { ...candidate, reference: new Uint8Array(64) }, tip), false);
    assert.equal(canReplaceUnfinalisedTip(rounds, next, candidate, { ...tip, consensus: cft(1) }), false);
  });

  it('scores a CFT block as PoA scores it (votes do not count)', () => {
    const miner = account('cft miner');
    const block = (consensus: ConsensusData): Block =>
      Block.sign(
        p,
        { version: 3, timestamp: 1_700_000_012_345n, reference: new Uint8Array(64), consensus, transactions: [], featureVotes: [], genesisData: null },
        miner.keys.privateKey,
      );
    // Reference chain §4.5: s = 3, ts = 1700000012345 → 180850432095193782.
    assert.equal(blockScore(block({ type: 'poa', overallSkippedRounds: 3n })), 180_850_432_095_193_782n);
    assert.equal(blockScore(block({ type: 'cft', votes: [], overallSkippedRounds: 3n })), 180_850_432_095_193_782n);
    assert.equal(blockScore(block({ ...cft(2), overallSkippedRounds: 3n } as ConsensusData)), 180_850_432_095_193_782n);
  });
});
