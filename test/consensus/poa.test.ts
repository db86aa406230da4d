import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addressString,
  bannedMiners,
  blockDescription,
  microBlockWindow,
  minerQueueAt,
  minersAtHeight,
  minersAtTimestamp,
  minersWarningsAndBans,
  planKeyBlock,
  type FeatureActivation,
} from '../../src/consensus/poa.js';
import { FEATURE } from '../../src/chain/features.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { produceMicroBlock } from '../../src/protocol/blocks/micro-block.js';
import { Transfer } from '../../src/protocol/transactions/transfer.js';
import type { MinerBanEntry } from '../../src/state/model.js';
import { expectWeError } from '../support/errors.js';
import { account, G, grant, Harness, p, R, revoke, ROUND, roundStart, type Miner } from './harness.js';

const [a, b, c, d, e, x] = ['a', 'b', 'c', 'd', 'e', 'x'].map(account) as [Miner, Miner, Miner, Miner, Miner, Miner];
const names = new Map([a, b, c, d, e, x].map((m) => [m.id, m.name]));
/** Miner names of address bytes, for readable assertions. */
const who = (addresses: readonly Uint8Array[]): string[] => addresses.map((x) => names.get(addressString(x)) ?? addressString(x));
const W = (timestamp: bigint): MinerBanEntry => ({ kind: 'warning', timestamp });
const B = (timestamp: bigint, beginHeight: number, prior: bigint[]): MinerBanEntry => ({ kind: 'ban', timestamp, beginHeight, priorWarningTimestamps: prior });
const at = (n: number, offset = 1_000n): bigint => roundStart(n) + offset;

describe('PoA miner queue', () => {
  it('orders active miners by the timestamp of their grant, honouring due dates and removals', () => {
    const h = Harness.create({
      miners: [
        { miner: a, granted: G - 1n },
        { miner: b, granted: G - 3n },
        { miner: c, granted: G - 2n },
      ],
    });
    h.commitChanges((s) => {
      s.addPermissionOp(x.address, grant(G + 10n, G + 100n));
      s.addPermissionOp(a.address, revoke(G + 50n));
    });
    assert.deepEqual(who(minerQueueAt(h.store, G)), ['b', 'c', 'a']);
    assert.deepEqual(who(minerQueueAt(h.store, G + 10n)), ['b', 'c', 'a', 'x']);
    assert.deepEqual(who(minerQueueAt(h.store, G + 50n)), ['b', 'c', 'x']);
    // The due timestamp is exclusive: at G + 100 the grant has lapsed.
    assert.deepEqual(who(minerQueueAt(h.store, G + 99n)), ['b', 'c', 'x']);
    assert.deepEqual(who(minerQueueAt(h.store, G + 100n)), ['b', 'c']);
  });

  it('gives the first block after genesis to queue index 1, then walks the queue per skipped round', () => {
    const h = Harness.create({ miners: [a, b, c, d] });
    // Parent = genesis (signed by a non-miner): index (1 + s) mod 4.
    assert.deepEqual(who([1, 2, 3, 4, 5].map((n) => h.expectedAt(at(n)))), ['b', 'c', 'd', 'a', 'b']);
    h.mine(b, 1);
    // Parent by b (index 1): index 2 + (s mod 4), s = 0 in round 2.
    assert.deepEqual(who([2, 3, 4, 5, 6, 9].map((n) => h.expectedAt(at(n)))), ['c', 'd', 'a', 'b', 'c', 'b']);
    h.mine(d, 3);
    assert.deepEqual(who([4, 5, 6, 7].map((n) => h.expectedAt(at(n)))), ['a', 'b', 'c', 'd']);
  });

  it('walks back through older blocks when the last generator is no longer a miner', () => {
    const h = Harness.create({ miners: [a, b, c, d] });
    h.mine(b, 1); // height 2
    h.mine(c, 2); // height 3
    h.commitChanges((s) => s.addPermissionOp(c.address, revoke(roundStart(3))));
    // Queue at round 3 = [a, b, d]; c (height 3) is gone, so the walk stops at b (height 2): next is d.
    assert.deepEqual(who(minerQueueAt(h.store, at(3))), ['a', 'b', 'd']);
    assert.deepEqual(who([h.expectedAt(at(3))]), ['d']);
    h.mine(d, 3);
  });

  it('falls back to the genesis rule when no block down to height 2 has a current miner', () => {
    const h = Harness.create({ miners: [a, b, c] });
    h.mine(b, 1);
    h.commitChanges((s) => s.addPermissionOp(b.address, revoke(roundStart(2))));
    // Queue [a, c]; height 2's b is gone, genesis signer is no miner: index (1 + s) mod 2.
    assert.deepEqual(who([2, 3, 4].map((n) => h.expectedAt(at(n)))), ['c', 'a', 'c']);
  });

  it('uses the genesis signer as the anchor when it is a miner (as WE does)', () => {
    const h = Harness.create({ miners: [a, b, c], genesisGenerator: b });
    // b at index 1 signed genesis, so round 1 goes to index 2 — not to index 1 as with a non-miner signer.
    assert.deepEqual(who([1, 2].map((n) => h.expectedAt(at(n)))), ['c', 'a']);
  });

  it("skips miners banned at the parent height, over WE's truncated candidate list", () => {
    const h = Harness.create({ miners: [a, b, c] });
    h.mine(c, 2); // genesis rule, s = 1 → index 2 = c; height 2
    h.commitChanges((s) => s.putMinerBanHistory(c.address, [B(at(2), 2, [])]));
    // Anchor c (index 2). s=0: candidates a, b, c → a. s=1: b, c → b. s=2: only c → banned.
    assert.deepEqual(who([3, 4].map((n) => h.expectedAt(at(n)))), ['a', 'b']);
    expectWeError(() => h.expectedAt(at(5)), 199, 'All miners are banned');
    // With a banned too, s=0 gives b.
    h.commitChanges((s) => s.putMinerBanHistory(a.address, [B(at(2), 2, [])]));
    assert.deepEqual(who([h.expectedAt(at(3))]), ['b']);
  });

  it("checks bans at the parent height, not at the new block's", () => {
    const h = Harness.create({ miners: [a, b, c] });
    h.mine(c, 2); // height 2
    // A ban from height 3 does not yet cover the parent (height 2): c keeps its slot.
    h.commitChanges((s) => s.putMinerBanHistory(c.address, [B(at(2), 3, [])]));
    assert.deepEqual(who([h.expectedAt(at(5))]), ['c']);
    // One that ended with height 2 (covering −2…2) still does.
    h.commitChanges((s) => s.putMinerBanHistory(c.address, [B(at(2), -2, [])]));
    expectWeError(() => h.expectedAt(at(5)), 199, 'All miners are banned');
  });

  it('refuses an empty queue', () => {
    const h = Harness.create({ miners: [a] });
    h.commitChanges((s) => s.addPermissionOp(a.address, revoke(roundStart(1))));
    expectWeError(() => h.expectedAt(at(1)), 199, "Couldn't determine miner: miner queue is empty!");
  });
});

describe('PoA key-block validation', () => {
  const fresh = (): Harness => Harness.create({ miners: [a, b, c] });

  it('accepts the expected miner in its round and returns the post action', () => {
    const h = fresh();
    const post = h.append(h.forge(c, at(2))); // s = 1 → index 2
    assert.equal(post.height, 2);
    assert.equal(post.skippedRounds, 1);
    assert.equal(post.overallSkippedRounds, 1n);
    assert.deepEqual(who(post.miners), ['a', 'b', 'c']);
    // No faulty miners right after genesis.
    assert.deepEqual(post.faultyMiners, []);
  });

  it('prints the block as WE does in its messages', () => {
    const h = fresh();
    const block = h.forge(b, G + 5_000n);
    const expected =
      `Block Block(${block.idBase58} -> ${encodeBase58(h.chain.tip().id)}, version=3, signer=${b.id}, txs=0, features=Set(), ts=${G + 5_000n}) ` +
      'is invalid: Block is in the same round as its referenced block';
    assert.equal(blockDescription(block), expected.slice(6, expected.indexOf(' is invalid')));
    expectWeError(() => h.append(block), 199, expected, 'timestamp');
  });

  it('refuses a block version other than 3', () => {
    const h = fresh();
    expectWeError(() => h.append(h.forge(b, at(1), { version: 2 })), 199, /is invalid: Expected block version 3 for any block, except Genesis$/, 'version');
  });

  it('refuses a block 100 ms or more ahead of the clock', () => {
    const h = fresh();
    const ts = at(1);
    expectWeError(
      () => h.append(h.forge(b, ts), ts - 100n),
      199,
      `BlockFromFuture(rejected block timestamp is '${ts}', but current timestamp is '${ts - 100n}')`,
      'timestamp',
    );
    h.append(h.forge(b, ts), ts - 99n);
  });

  it('refuses a block in the sync part of its round', () => {
    const h = fresh();
    const ts = roundStart(1) + ROUND;
    const block = h.forge(b, ts);
    expectWeError(
      () => h.append(block),
      199,
      `Block ${blockDescription(block)} is invalid: Block's ${block.idBase58} timestamp is after sync start (${ts} >= ${ts})`,
      'timestamp',
    );
    // The last ms before sync is fine.
    h.append(h.forge(b, ts - 1n));
  });

  it('refuses the last ms of a round when there is no sync part (WE prints the round start)', () => {
    const h = Harness.create({ miners: [a, b, c], settings: { syncDurationMs: 0 } });
    const round1 = h.poa.rounds.timestamps(G + 17_000n);
    const block = h.forge(b, round1.roundEnd);
    expectWeError(
      () => h.append(block),
      199,
      `Block ${blockDescription(block)} is invalid: Block's ${block.idBase58} timestamp is after current round end (${round1.roundEnd} >= ${round1.roundStart})`,
    );
    h.append(h.forge(b, round1.roundEnd - 1n));
  });

  it("refuses a block not after its parent's round end", () => {
    const h = fresh();
    h.append(h.forge(c, at(2)));
    const block = h.forge(a, at(1));
    expectWeError(
      () => h.append(block, at(3)),
      199,
      `Block ${blockDescription(block)} is invalid: Block's ${block.idBase58} timestamp is not after parent's round end (${at(1)} <= ${roundStart(3) - 1n})`,
    );
  });

  it('refuses a generator other than the expected miner', () => {
    const h = fresh();
    expectWeError(
      () => h.append(h.forge(a, at(1))),
      199,
      new RegExp(`is invalid: Block signer ${a.id} isn't a valid miner for height 2; Expected ${b.id}$`),
      'generator',
    );
  });

  it('refuses a wrong overall-skipped-rounds and non-PoA consensus data', () => {
    const h = fresh();
    expectWeError(
      () => h.append(h.forge(c, at(2), { overallSkippedRounds: 0n })),
      199,
      /is invalid: Block's overall-skipped-rounds is 0, expected 1 \(parent's 0 \+ 1 skipped\)$/,
      'consensusData',
    );
    const pos = h.forge(c, at(2), { consensus: { type: 'pos', baseTarget: 100n, generationSignature: new Uint8Array(32) } });
    expectWeError(() => h.append(pos), 199, /is invalid: Expected PoA consensus block data, but got PoS instead$/, 'consensusData');
    h.append(h.forge(c, at(2)));
    // The counter is cumulative: c (index 2) → a in round 3 (s=0), b in round 4 (s=1) …
    assert.equal(h.append(h.forge(b, at(4))).overallSkippedRounds, 2n);
  });

  it('refuses a parent it cannot find', () => {
    const h = fresh();
    const block = h.forge(b, at(1));
    expectWeError(() => h.poa.validateKeyBlock(h.store, h.chain, block, 5, at(1)), 199, /is invalid: History does not contain parent of 'Block\(/);
  });

  it("bounds tx micro-blocks strictly inside (roundStart, syncStart) of the key block's round", () => {
    const h = fresh();
    const key = at(1);
    const start = roundStart(1);
    const sync = start + ROUND;
    expectWeError(
      () => h.poa.checkMicroBlockTimestamp(key, start),
      199,
      `Invalid TxMicroBlock timestamp '${start}', it must be older than '${start}'`,
      'timestamp',
    );
    h.poa.checkMicroBlockTimestamp(key, start + 1n);
    h.poa.checkMicroBlockTimestamp(key, sync - 1n);
    expectWeError(
      () => h.poa.checkMicroBlockTimestamp(key, sync),
      199,
      `Invalid TxMicroBlock timestamp '${sync}', it must be earlier than '${sync}'`,
      'timestamp',
    );

    // A real tx micro-block on b's key block.
    const keyBlock = h.forge(b, key);
    const tx = p.sign(
      p.transaction(Transfer, 2, {
        senderPublicKey: b.keys.publicKey,
        assetId: null,
        feeAssetId: null,
        timestamp: key,
        amount: 1n,
        fee: 1_000_000n,
        recipient: p.addresses.fromPublicKey(a.keys.publicKey),
        attachment: new Uint8Array(0),
        atomicBadge: undefined,
      }),
      b.keys.privateKey,
    );
    const micro = (timestamp: bigint): ReturnType<typeof produceMicroBlock>['microBlock'] =>
      produceMicroBlock(p, keyBlock, { transactions: [tx] }, { timestamp, privateKey: b.keys.privateKey, modifiedTotalSign: false }).microBlock;
    h.poa.validateMicroBlock(key, micro(key + 5_000n));
    expectWeError(() => h.poa.validateMicroBlock(key, micro(sync)), 199, /must be earlier than/);
  });
});

describe('PoA warnings and bans', () => {
  /**
   * Four miners, only a forges: a's slot is 3 rounds after its own block, so each of a's
   * blocks skips b, c and d. warnings-for-ban 3, ban 5 blocks, 50 % → at most 2 banned.
   */
  function lonelyMiner(settings: { maxBansPercentage?: number } = {}): Harness {
    const h = Harness.create({ miners: [a, b, c, d], settings });
    h.mine(a, 4); // height 2, genesis rule s=3 → index 0
    return h;
  }

  it('warns the miners of the skipped rounds, bans on the third miss, up to bansLimit', () => {
    const h = lonelyMiner();
    const p3 = h.mine(a, 8);
    assert.deepEqual(who(p3.faultyMiners), ['b', 'c', 'd']);
    for (const m of [b, c, d]) assert.deepEqual(h.history(m), [W(at(8))], m.name);
    h.mine(a, 12);
    for (const m of [b, c, d]) assert.deepEqual(h.history(m), [W(at(8)), W(at(12))], m.name);
    h.mine(a, 16); // height 5
    // b, then c reach three misses and are banned from height 5; the limit (⌊4·50/100⌋ = 2) stops before d.
    assert.deepEqual(h.history(b), [B(at(16), 5, [at(12), at(8)])]);
    assert.deepEqual(h.history(c), [B(at(16), 5, [at(12), at(8)])]);
    assert.deepEqual(h.history(d), [W(at(8)), W(at(12))]);
    assert.deepEqual(h.history(a), []);

    // Banned miners are skipped: from a, s=0 passes over b and c to d; a's own slot is now s=3 → round 20.
    assert.deepEqual(who([17, 18, 19, 20].map((n) => h.expectedAt(at(n)))), ['d', 'd', 'd', 'a']);
    // a forges round 20 (d missed three rounds), but two miners are banned already: nobody is warned.
    assert.deepEqual(who(h.mine(a, 20).faultyMiners), ['d', 'd', 'd']);
    assert.deepEqual(h.history(d), [W(at(8)), W(at(12))]);
    // d forges: its warnings are cancelled.
    h.mine(d, 21); // height 7
    assert.deepEqual(h.history(d), []);
    h.mine(a, 22); // height 8
    h.mine(d, 23); // height 9 (b, c still banned at parent height 8)
    assert.deepEqual(bannedMiners(h.poa, h.store, h.chain, 9).bannedMiners, [b.id, c.id]);
    h.mine(a, 24); // height 10
    // The bans covered heights 5…9: at parent height 10, b is next after a again.
    assert.deepEqual(bannedMiners(h.poa, h.store, h.chain, 10).bannedMiners, []);
    assert.deepEqual(who([h.expectedAt(at(25))]), ['b']);
    h.mine(b, 25);

    assert.deepEqual(minersWarningsAndBans(h.store), {
      warningsAndBans: [
        { address: a.id, bans: [], warnings: [] },
        { address: b.id, bans: [{ timestamp: at(16), beginHeight: 5 }], warnings: [] },
        { address: c.id, bans: [{ timestamp: at(16), beginHeight: 5 }], warnings: [] },
        { address: d.id, bans: [], warnings: [] },
      ],
    });
  });

  it('rolls bans back with the height that made them', () => {
    const h = lonelyMiner();
    h.mine(a, 8);
    h.mine(a, 12);
    h.mine(a, 16);
    assert.equal(h.history(b).length, 1);
    h.store.rollbackTo(4);
    assert.deepEqual(h.history(b), [W(at(8)), W(at(12))]);
  });

  it('warns nobody with max-bans-percentage 0, or when the limit rounds down to 0', () => {
    for (const maxBansPercentage of [0, 20]) {
      const h = lonelyMiner({ maxBansPercentage });
      const post = h.mine(a, 8);
      // 0 % finds no faulty miners at all; 20 % of 4 miners finds them but may ban ⌊0.8⌋ = 0.
      assert.equal(post.faultyMiners.length, maxBansPercentage === 0 ? 0 : 3);
      for (const m of [b, c, d]) assert.deepEqual(h.history(m), [], `${maxBansPercentage}% ${m.name}`);
    }
  });

  it('cancels only the trailing warnings with feature 130, all warnings before it', () => {
    const seeded = [W(1n), B(2n, 1, []), W(3n)];
    for (const v2 of [true, false]) {
      const features: FeatureActivation = (id) => id !== FEATURE.MINER_BAN_HISTORY_OPTIMISATION || v2;
      const h = Harness.create({ miners: [a, b, c], features });
      h.commitChanges((s) => s.putMinerBanHistory(b.address, seeded));
      h.mine(b, 1);
      assert.deepEqual(h.history(b), v2 ? [W(1n), B(2n, 1, [])] : [B(2n, 1, [])]);
    }
  });

  it('counts a miner missing two rounds of one gap once (v2) or twice (v1 with feature 119)', () => {
    // Three miners; b forges height 2; a forges 4 rounds later, so the gap's expected miners are c, a, b, c.
    const run = (features: FeatureActivation): Harness => {
      const h = Harness.create({ miners: [a, b, c], features });
      h.mine(b, 1);
      h.commitChanges((s) => s.putMinerBanHistory(c.address, [W(G)]));
      const post = h.mine(a, 6);
      assert.deepEqual(who(post.faultyMiners), ['c', 'a', 'b', 'c']);
      return h;
    };
    const v2 = run(() => true);
    assert.deepEqual(v2.history(c), [W(G), W(at(6))]);
    // The generator itself can be the miner of a skipped round: its warnings are cancelled, then it is warned.
    assert.deepEqual(v2.history(a), [W(at(6))]);
    assert.deepEqual(v2.history(b), [W(at(6))]);
    const v1 = run((id) => id !== FEATURE.MINER_BAN_HISTORY_OPTIMISATION);
    assert.deepEqual(v1.history(c), [B(at(6), 3, [at(6), G])]);
  });

  it('with feature 119 caps the faulty rounds at n·warningsForBan − ⌊n·(1 − pct/100)⌋', () => {
    for (const fix of [true, false]) {
      const h = Harness.create({ miners: [a, b, c], features: (id) => id !== FEATURE.POA_OPTIMISATION || fix });
      h.mine(b, 1);
      // a's slot 3·k + 1 rounds after b: s = 10 → round 12.
      const post = h.mine(a, 12);
      assert.equal(post.skippedRounds, 10);
      // 3·3 − ⌊3·0.5⌋ = 8 with the fix; without it the list repeats every 3 rounds and is cut there.
      assert.equal(post.faultyMiners.length, fix ? 8 : 3);
      for (const m of [b, c]) assert.deepEqual(h.history(m), [W(at(12))], `${fix} ${m.name}`);
    }
  });
});

describe('PoA miner schedule', () => {
  it("finds this node's next slot among other miners' rounds", () => {
    const h = Harness.create({ miners: [a, b, c] });
    const plan = (now: bigint): ReturnType<typeof planKeyBlock> => planKeyBlock(h.poa, { state: h.store, chain: h.chain, now, self: a.address });
    // Rounds after genesis go to b (s=0), c (s=1), a (s=2).
    assert.deepEqual(plan(at(1, 5n)), {
      kind: 'wait',
      at: roundStart(3),
      height: 2,
      round: h.poa.rounds.timestamps(roundStart(3)),
      skippedRounds: 2,
      overallSkippedRounds: 2n,
    });
    const now = at(3, 10n);
    const forge = plan(now);
    assert.ok(forge.kind === 'forge');
    assert.equal(forge.timestamp, now);
    assert.equal(forge.overallSkippedRounds, 2n);
    // In the sync part of its round the slot is gone: next is s = 5, round 6.
    const late = plan(roundStart(3) + ROUND);
    assert.ok(late.kind === 'wait' && late.at === roundStart(6) && late.skippedRounds === 5);
    // What it plans validates.
    h.append(h.forge(a, forge.timestamp, { overallSkippedRounds: forge.overallSkippedRounds }), now);
    // Its own round is taken now; b, c, then a again.
    const next = plan(now + 1_000n);
    assert.ok(next.kind === 'wait' && next.at === roundStart(6) && next.height === 3 && next.skippedRounds === 2);
  });

  it('says why it cannot forge', () => {
    const h = Harness.create({ miners: [a, b, c] });
    const plan = (self: Miner, now: bigint, maxTipAgeMs?: number): ReturnType<typeof planKeyBlock> =>
      planKeyBlock(h.poa, { state: h.store, chain: h.chain, now, self: self.address, ...(maxTipAgeMs === undefined ? {} : { maxTipAgeMs }) });
    assert.deepEqual(plan(x, at(1)), { kind: 'idle', reason: `Current account '${x.id}' is not miner`, retryAt: roundStart(2) });
    // The age limit does not apply right after genesis.
    assert.equal(plan(a, at(100), 1_000).kind, 'wait');
    h.mine(b, 1);
    const old = plan(a, at(100), 1_000);
    assert.ok(old.kind === 'idle' && old.reason.startsWith('Block chain is too old'));
    h.commitChanges((s) => s.putMinerBanHistory(a.address, [B(at(1), 2, [])]));
    const banned = plan(a, at(1, 5_000n));
    assert.ok(
      banned.kind === 'idle' && banned.reason.startsWith(`No round of '${a.id}'`),
      JSON.stringify(banned, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
    );
    h.commitChanges((s) => s.putScript(c.address, new Uint8Array([1, 2, 3])));
    assert.deepEqual(plan(c, at(1, 5_000n)), {
      kind: 'idle',
      reason: `Account '${c.id}' is scripted and therefore not allowed to forge blocks`,
      retryAt: roundStart(2),
    });
  });

  it('keeps a lone miner among five producing valid blocks, banning at most bansLimit of the others', () => {
    const h = Harness.create({ miners: [a, b, c, d, e], settings: { maxBansPercentage: 40, banDurationBlocks: 4 } });
    let now = G + 1n;
    const gaps: number[] = [];
    while (h.chain.height() < 25) {
      const plan = planKeyBlock(h.poa, { state: h.store, chain: h.chain, now, self: a.address });
      if (plan.kind === 'idle') assert.fail(plan.reason);
      if (plan.kind === 'wait') {
        now = plan.at + 7n;
        continue;
      }
      gaps.push(plan.skippedRounds);
      h.append(h.forge(a, plan.timestamp, { overallSkippedRounds: plan.overallSkippedRounds }), now);
      const height = h.chain.height();
      assert.ok(bannedMiners(h.poa, h.store, h.chain, height).bannedMiners.length <= 2, `height ${height}`);
      now += 1_000n;
    }
    assert.deepEqual(h.history(a), []);
    // a's turn comes every 5 rounds (4 skipped) until miners queued before it in the wrap
    // (d, e) are banned; then the walk passes over them and a forges every 3rd round.
    assert.ok(gaps.includes(4) && gaps.includes(2), gaps.join(','));
    for (const m of [b, c, d, e])
      assert.ok(
        h.history(m).some((x) => x.kind === 'ban'),
        m.name,
      );
    assert.equal(h.chain.tip().overallSkippedRounds, BigInt(gaps.reduce((x, y) => x + y, 0)));
  });

  it("allows micro-blocks strictly inside the key block's round, before sync", () => {
    const h = Harness.create({ miners: [a, b] });
    const key = roundStart(1);
    assert.equal(microBlockWindow(h.poa, key, key).allowed, false);
    assert.deepEqual(microBlockWindow(h.poa, key, key + 1n), { allowed: true, timestamp: key + 1n, roundStart: key, syncStart: key + ROUND });
    assert.equal(microBlockWindow(h.poa, key + 5n, key).timestamp, key + 5n);
    assert.equal(microBlockWindow(h.poa, key, key + ROUND - 1n).allowed, true);
    assert.equal(microBlockWindow(h.poa, key, key + ROUND).allowed, false);
    assert.equal(microBlockWindow(h.poa, key, key + R).allowed, false);
  });
});

describe('PoA REST answers', () => {
  it("lists miners at a height's timestamp and at a timestamp, without ban filtering", () => {
    const h = Harness.create({ miners: [a, b, c] });
    h.mine(b, 1);
    h.commitChanges((s) => {
      s.addPermissionOp(c.address, revoke(roundStart(2)));
      s.putMinerBanHistory(a.address, [B(at(1), 2, [])]);
    });
    // a is banned at parent height 2, so b forges again.
    h.mine(b, 2);
    assert.deepEqual(minersAtHeight(h.store, h.chain, 2), { miners: [a.id, b.id, c.id], height: 2 });
    assert.deepEqual(minersAtHeight(h.store, h.chain, 3), { miners: [a.id, b.id], height: 3 });
    assert.deepEqual(minersAtTimestamp(h.store, roundStart(2) - 1n), { miners: [a.id, b.id, c.id], timestamp: roundStart(2) - 1n });
    assert.deepEqual(bannedMiners(h.poa, h.store, h.chain, 2), { bannedMiners: [a.id], height: 2 });
    for (const height of [0, 4, -1, 1.5]) {
      expectWeError(() => minersAtHeight(h.store, h.chain, height), 310, `Requested height '${height}' is greater than current state height '3'`);
      expectWeError(() => bannedMiners(h.poa, h.store, h.chain, height), 310);
    }
  });
});
