/**
 * `/activation/status` on a real node (consensus-chains.ts: P = 4, N = 3, Fee Switch and
 * WASM contracts left to voting): the answer's exact JSON while features are voted for,
 * approved and activated, after a rollback across an approval, and on the small API fixture.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IMPLEMENTED_FEATURES } from '../../src/chain/settings.js';
import { consensusChain, DEV_API_KEY, FEE_SWITCH, POA, POS, WASM, type ConsensusChain } from './consensus-chains.js';
import { fixtureServer } from './fixture.js';

interface Status {
  height: number;
  votingInterval: number;
  votingThreshold: number;
  nextCheck: number;
  features: Array<Record<string, unknown> & { id: number }>;
}

async function status(c: ConsensusChain): Promise<Status> {
  const r = await c.client.call('GET /activation/status');
  assert.equal(r.status, 200, r.text);
  return r.body;
}

const byId = (s: Status, id: number) => s.features.find((f) => f.id === id);

for (const consensus of [POA, POS]) {
  describe(`/activation/status on a ${consensus.type} node`, () => {
    let c: ConsensusChain;
    before(async () => {
      c = await consensusChain(consensus);
    });
    after(() => c.close());

    it('VOTING with supporting blocks, then APPROVED with its activation height, then ACTIVATED', async () => {
      let s = await status(c);
      assert.deepEqual({ ...s, features: undefined }, { height: 1, votingInterval: 4, votingThreshold: 3, nextCheck: 4, features: undefined });
      assert.deepEqual(
        s.features.map((f) => f.id),
        [...IMPLEMENTED_FEATURES.keys()].sort((a, b) => a - b),
      );
      assert.deepEqual(byId(s, 2), { id: 2, description: 'NG Protocol', blockchainStatus: 'ACTIVATED', nodeStatus: 'VOTED', activationHeight: 0 });
      assert.deepEqual(byId(s, FEE_SWITCH), { id: 7, description: 'Fee Switch', blockchainStatus: 'VOTING', nodeStatus: 'VOTED', supportingBlocks: 0 });

      c.forge([FEE_SWITCH, WASM]); // 2
      c.forge([FEE_SWITCH, WASM, 555]); // 3
      s = await status(c);
      assert.equal(s.height, 3);
      assert.deepEqual(byId(s, FEE_SWITCH), { id: 7, description: 'Fee Switch', blockchainStatus: 'VOTING', nodeStatus: 'VOTED', supportingBlocks: 2 });
      assert.deepEqual(
        byId(s, 555),
        { id: 555, description: 'Unknown feature', blockchainStatus: 'VOTING', nodeStatus: 'NOT_IMPLEMENTED', supportingBlocks: 1 },
        'a voted unknown id is listed',
      );

      c.forge([FEE_SWITCH]); // 4: 7 approved (3 votes), 1140 not (2)
      const r = await c.client.call('GET /activation/status');
      assert.ok(
        r.text.includes('{"id":7,"description":"Fee Switch","blockchainStatus":"APPROVED","nodeStatus":"VOTED","activationHeight":8}'),
        "WE's fields in WE's order",
      );
      s = r.body;
      assert.equal(s.nextCheck, 4);
      assert.deepEqual(byId(s, WASM), {
        id: 1140,
        description: 'Support of WASM smart-contracts',
        blockchainStatus: 'VOTING',
        nodeStatus: 'VOTED',
        supportingBlocks: 2,
      });

      c.forge(); // 5: a new window
      s = await status(c);
      assert.equal(s.nextCheck, 8);
      assert.deepEqual(byId(s, WASM), {
        id: 1140,
        description: 'Support of WASM smart-contracts',
        blockchainStatus: 'VOTING',
        nodeStatus: 'VOTED',
        supportingBlocks: 0,
      });
      assert.equal(byId(s, 555), undefined, 'no longer voted for in this window');
      while (c.node.chain.height() < 8) c.forge();
      s = await status(c);
      assert.deepEqual(byId(s, FEE_SWITCH), { id: 7, description: 'Fee Switch', blockchainStatus: 'ACTIVATED', nodeStatus: 'VOTED', activationHeight: 8 });
      assert.equal(c.node.chain.features.isActive(FEE_SWITCH, 8), true, "the chain's validation sees it");
    });

    it('a rollback across the approval puts the feature back to VOTING', async () => {
      const rolled = await c.client.call('POST /debug/rollback', {
        body: { rollbackTo: 3, returnTransactionsToUtx: false },
        headers: { 'X-API-Key': DEV_API_KEY },
      });
      assert.equal(rolled.status, 200, rolled.text);
      const s = await status(c);
      assert.equal(s.height, 3);
      assert.deepEqual(byId(s, FEE_SWITCH), { id: 7, description: 'Fee Switch', blockchainStatus: 'VOTING', nodeStatus: 'VOTED', supportingBlocks: 2 });
      assert.equal(c.node.chain.features.activationHeight(FEE_SWITCH), undefined);
    });
  });
}

describe('/activation/status on the API fixture', () => {
  const f = fixtureServer();
  after(() => f.app.close());

  it('answers for the fixture chain (period 10, threshold 8)', async () => {
    const r = await f.client.call('GET /activation/status');
    assert.equal(r.status, 200);
    const s = r.body as unknown as Status;
    assert.equal(s.height, f.blocks.length);
    assert.equal(s.votingInterval, 10);
    assert.equal(s.votingThreshold, 8);
    assert.equal(s.nextCheck, 10);
    assert.deepEqual(byId(s, 7), { id: 7, description: 'Fee Switch', blockchainStatus: 'ACTIVATED', nodeStatus: 'VOTED', activationHeight: 0 });
  });
});

describe('a feature this node does not implement becoming active', () => {
  it('stops the node (auto-shutdown-on-unsupported-feature = yes)', async () => {
    const c = await consensusChain(POA, { extraPreActivated: new Map([[999, 3]]) });
    try {
      c.forge(); // 2
      assert.equal(byId(await status(c), 999), undefined, 'WE lists voted, approved and implemented features only');
      assert.equal(c.node.chain.features.isActive(999, 3), true);
      c.forge(); // 3: 999 active
      await c.stoppedItself;
    } finally {
      await c.close();
    }
  });
});
