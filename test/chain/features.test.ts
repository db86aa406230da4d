/**
 * Feature voting end to end on a real chain (PoS test chain, P = 4, N = 3): key blocks vote,
 * the block at H ≡ 0 (mod 4) approves what got ≥ 3 votes in its window, activation comes
 * one period later and takes effect in validation (Fee Switch), a rollback across an
 * approval undoes it, and `/activation/status` reads it all.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activationStatus, featuresToVote, FEATURE, SUPPORT_ALL_IMPLEMENTED, votingWindow, type FeatureActivationStatus } from '../../src/chain/features.js';
import { IMPLEMENTED_FEATURES } from '../../src/chain/settings.js';
import { Miner } from '../../src/consensus/miner.js';
import { UtxPool } from '../../src/chain/utx.js';
import { forger, functionality, outsider, PosTestChain, WEST } from '../consensus/pos-chain.js';

const FEE_SWITCH = FEATURE.FEE_SWITCH;
/** Needed by nothing these tests send (unlike 140: TransferV3 needs atomics). */
const WASM = FEATURE.WASM_CONTRACTS;
/** A feature id no node implements. */
const UNKNOWN = 999;

/** Every implemented feature pre-activated except Fee Switch (7) and WASM contracts (1140). */
const votingFunctionality = () =>
  functionality({
    preActivatedFeatures: new Map([...IMPLEMENTED_FEATURES.keys()].filter((id) => id !== FEE_SWITCH && id !== WASM).map((id) => [id, 0])),
  });

function feature(c: PosTestChain, id: number): FeatureActivationStatus | undefined {
  return activationStatus(c.features, c.chain.height(), SUPPORT_ALL_IMPLEMENTED).features.find((f) => f.id === id);
}

describe('voting windows', () => {
  it('window k is heights (k−1)·P+1 … k·P', () => {
    assert.deepEqual(votingWindow(1, 4), { index: 1, first: 1, last: 4 });
    assert.deepEqual(votingWindow(4, 4), { index: 1, first: 1, last: 4 });
    assert.deepEqual(votingWindow(5, 4), { index: 2, first: 5, last: 8 });
    assert.deepEqual(votingWindow(1500, 1500), { index: 1, first: 1, last: 1500 });
    assert.deepEqual(votingWindow(1501, 1500), { index: 2, first: 1501, last: 3000 });
  });
});

describe('feature voting on a chain (P = 4, N = 3)', () => {
  it('approves at the window end with ≥ N votes, activates one period later; fewer votes stay VOTING', () => {
    const c = PosTestChain.create(votingFunctionality());
    // Window 1 = heights 1…4 (1 is genesis): 7 gets 3 votes, 1140 two, 999 three.
    c.forge(forger, [FEE_SWITCH, WASM, UNKNOWN]); // 2
    c.forge(forger, [FEE_SWITCH, WASM, UNKNOWN]); // 3
    assert.deepEqual(feature(c, FEE_SWITCH), { id: 7, description: 'Fee Switch', blockchainStatus: 'VOTING', nodeStatus: 'VOTED', supportingBlocks: 2 });
    assert.equal(c.features.approvalHeight(FEE_SWITCH), undefined);
    c.forge(forger, [FEE_SWITCH, UNKNOWN]); // 4: the check
    assert.equal(c.features.approvalHeight(FEE_SWITCH), 4);
    assert.equal(c.features.activationHeight(FEE_SWITCH), 8);
    assert.equal(c.features.approvalHeight(WASM), undefined, '2 votes < 3');
    assert.deepEqual(feature(c, FEE_SWITCH), { id: 7, description: 'Fee Switch', blockchainStatus: 'APPROVED', nodeStatus: 'VOTED', activationHeight: 8 });
    assert.deepEqual(feature(c, WASM), {
      id: 1140,
      description: 'Support of WASM smart-contracts',
      blockchainStatus: 'VOTING',
      nodeStatus: 'VOTED',
      supportingBlocks: 2,
    });
    assert.deepEqual(feature(c, UNKNOWN), {
      id: 999,
      description: 'Unknown feature',
      blockchainStatus: 'APPROVED',
      nodeStatus: 'NOT_IMPLEMENTED',
      activationHeight: 8,
    });

    // Window 2 = 5…8: counts start again; 1140 gets its three votes now.
    c.forge(forger, [WASM]); // 5
    assert.deepEqual(feature(c, WASM), {
      id: 1140,
      description: 'Support of WASM smart-contracts',
      blockchainStatus: 'VOTING',
      nodeStatus: 'VOTED',
      supportingBlocks: 1,
    });
    c.forge(forger, [WASM]); // 6
    c.forge(forger, [WASM, FEE_SWITCH]); // 7: a late vote for an approved feature changes nothing
    assert.equal(c.features.isActive(FEE_SWITCH, 7), false);
    assert.equal(c.features.isActive(FEE_SWITCH, 8), true);
    c.forge(forger, []); // 8
    assert.equal(c.features.approvalHeight(WASM), 8);
    assert.equal(c.features.activationHeight(WASM), 12);
    assert.equal(c.features.approvalHeight(FEE_SWITCH), 4, 'an approval keeps its height');
    assert.deepEqual(feature(c, FEE_SWITCH), { id: 7, description: 'Fee Switch', blockchainStatus: 'ACTIVATED', nodeStatus: 'VOTED', activationHeight: 8 });
    assert.deepEqual(c.features.unimplementedActive(8), [UNKNOWN]);
    assert.deepEqual(c.features.unimplementedActive(7), []);

    const status = activationStatus(c.features, c.chain.height(), SUPPORT_ALL_IMPLEMENTED);
    assert.equal(status.height, 8);
    assert.equal(status.votingInterval, 4);
    assert.equal(status.votingThreshold, 3);
    assert.equal(status.nextCheck, 8);
    assert.deepEqual(
      status.features.map((f) => f.id),
      [...new Set([...IMPLEMENTED_FEATURES.keys(), UNKNOWN])].sort((a, b) => a - b),
      'implemented ∪ voted ∪ approved, by id',
    );
    for (const f of status.features) {
      assert.equal(f.supportingBlocks !== undefined, f.blockchainStatus === 'VOTING', `supportingBlocks only while voting (${f.id})`);
    }
    c.forge(forger, []); // 9
    assert.equal(activationStatus(c.features, 9, SUPPORT_ALL_IMPLEMENTED).nextCheck, 12);
  });

  it('a Fee Switch activated by voting turns on minimal-fee enforcement (activation + P)', () => {
    const c = PosTestChain.create(votingFunctionality());
    c.forge(forger, [FEE_SWITCH]);
    c.forge(forger, [FEE_SWITCH]);
    c.forge(forger, [FEE_SWITCH]); // 4: approved, active from 8, enforced from 12
    while (c.chain.height() < 11) c.forge();
    const cheap = c.microBlock([c.transfer(forger, outsider, WEST, 1n)]);
    assert.equal(cheap.included.length, 1, 'at height 11 a positive fee is enough');
    c.forge(); // 12
    const refused = c.microBlock([c.transfer(forger, outsider, WEST, 1n)]);
    assert.equal(refused.included.length, 0);
    assert.match(
      refused.rejected[0]!.error.message,
      /Fee '1' in 'WEST' for 'com\.wavesenterprise\.transaction\.transfer\.TransferTransactionV3' does not exceed minimal value of '1000000'/,
    );
    assert.equal(c.microBlock([c.transfer(forger, outsider, WEST)]).included.length, 1, 'the minimal fee passes');
  });

  it('a rollback across the approval height undoes the approval; the window counts again', () => {
    const c = PosTestChain.create(votingFunctionality());
    c.forge(forger, [FEE_SWITCH]);
    c.forge(forger, [FEE_SWITCH]);
    const hash3 = c.store.stateHash();
    c.forge(forger, [FEE_SWITCH]);
    c.forge(forger, []); // 5
    assert.equal(c.features.approvalHeight(FEE_SWITCH), 4);
    c.chain.rollbackTo(3);
    assert.equal(c.store.stateHash(), hash3);
    assert.equal(c.features.approvalHeight(FEE_SWITCH), undefined);
    assert.equal(c.features.activationHeight(FEE_SWITCH), undefined);
    assert.deepEqual(feature(c, FEE_SWITCH), { id: 7, description: 'Fee Switch', blockchainStatus: 'VOTING', nodeStatus: 'VOTED', supportingBlocks: 2 });
    c.forge(forger, []); // 4 again, without the vote
    assert.equal(c.features.approvalHeight(FEE_SWITCH), undefined, '2 votes < 3');
    assert.deepEqual(feature(c, FEE_SWITCH), { id: 7, description: 'Fee Switch', blockchainStatus: 'VOTING', nodeStatus: 'VOTED', supportingBlocks: 2 });
    c.forge(forger, []); // 5: a new window
    assert.deepEqual(feature(c, FEE_SWITCH), { id: 7, description: 'Fee Switch', blockchainStatus: 'VOTING', nodeStatus: 'VOTED', supportingBlocks: 0 });
  });

  it('pre-activated features: active from their height whatever the votes, their height shown while still voting', () => {
    const c = PosTestChain.create(
      functionality({
        preActivatedFeatures: new Map([
          [2, 0],
          [3, 0],
          [FEE_SWITCH, 3],
        ]),
      }),
    );
    assert.equal(c.features.isActive(FEE_SWITCH, 2), false);
    assert.equal(c.features.isActive(FEE_SWITCH, 3), true);
    assert.deepEqual(feature(c, FEE_SWITCH), {
      id: 7,
      description: 'Fee Switch',
      blockchainStatus: 'VOTING',
      nodeStatus: 'VOTED',
      activationHeight: 3,
      supportingBlocks: 0,
    });
    c.forge();
    c.forge();
    assert.deepEqual(feature(c, FEE_SWITCH), { id: 7, description: 'Fee Switch', blockchainStatus: 'ACTIVATED', nodeStatus: 'VOTED', activationHeight: 3 });
  });

  it('node status follows features.supported when auto-support is off', () => {
    const c = PosTestChain.create(votingFunctionality());
    const support = { autoSupportImplementedFeatures: false, supported: [FEE_SWITCH, UNKNOWN] };
    const byId = new Map(activationStatus(c.features, 1, support).features.map((f) => [f.id, f.nodeStatus]));
    assert.equal(byId.get(FEE_SWITCH), 'VOTED');
    assert.equal(byId.get(WASM), 'IMPLEMENTED');
    assert.equal(byId.get(UNKNOWN), undefined, 'listed only once voted for or approved');
  });
});

describe('what a miner votes for', () => {
  it('supported and implemented, minus pre-activated, minus approved, ascending, at most 64', () => {
    const f = votingFunctionality();
    assert.deepEqual(featuresToVote(SUPPORT_ALL_IMPLEMENTED, f, new Map()), [FEE_SWITCH, WASM]);
    assert.deepEqual(featuresToVote(SUPPORT_ALL_IMPLEMENTED, f, new Map([[FEE_SWITCH, 4]])), [WASM]);
    assert.deepEqual(
      featuresToVote({ autoSupportImplementedFeatures: false, supported: [WASM, UNKNOWN, 2] }, f, new Map()),
      [WASM],
      'unimplemented and pre-activated ids are dropped',
    );
    const none = functionality({ preActivatedFeatures: new Map() });
    assert.deepEqual(
      featuresToVote(SUPPORT_ALL_IMPLEMENTED, none, new Map()),
      [...IMPLEMENTED_FEATURES.keys()].sort((a, b) => a - b),
    );
  });

  it("the miner's key blocks carry its votes and get the feature approved", () => {
    const c = PosTestChain.create(votingFunctionality());
    const pool = new UtxPool({
      chain: c.chain,
      settings: { memoryLimitBytes: 1 << 20, txExpireTimeoutMs: 3_600_000, cleanupIntervalMs: 60_000, allowTransactionsFromSmartAccounts: true },
      now: () => c.clock,
    });
    const quiet = { info() {}, warn() {}, error() {}, debug() {} };
    const miner = new Miner({
      chain: c.chain,
      pool,
      rules: c.rules,
      settings: {
        enabled: true,
        microBlockIntervalMs: 1000,
        maxTransactionsInMicroBlock: 255,
        maxBlockSizeInBytes: 1 << 20,
        minMicroBlockAgeMs: 6000,
        quorum: 1,
      },
      keyPair: forger.keyPair,
      now: () => c.clock,
      log: quiet,
      featureSupport: { autoSupportImplementedFeatures: false, supported: [FEE_SWITCH] },
    });
    for (let h = 2; h <= 4; h++) {
      assert.deepEqual(miner.featureVotes(), [FEE_SWITCH]);
      c.forge(forger, miner.featureVotes());
    }
    assert.equal(c.features.approvalHeight(FEE_SWITCH), 4);
    assert.deepEqual(miner.featureVotes(), [], 'no votes once approved');
    assert.deepEqual([...c.chain.headerAt(3).featureVotes], [FEE_SWITCH]);
  });
});
