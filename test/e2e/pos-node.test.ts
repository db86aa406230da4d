/**
 * A PoS node as an operator brings one up (`generate accounts`, a WE-style node.conf with
 * `consensus.type = pos`, `generate genesis`, `start --config`): its miner forges PoS key
 * blocks in real time, votes for the implemented features that are not pre-activated (here
 * WASM contracts, 1140) and gets them approved (P = 2, N = 1), confirms a transfer through
 * micro-blocks, and answers the PoS `/consensus` routes and `/activation/status`.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { confirmedTransfer, prepareConfiguredNode, startConfiguredNode, untilHeight } from './configured.js';
import { until } from './support.js';

describe('a PoS node started from a WE-style config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-pos-node-'));
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('forges PoS blocks, approves voted features, confirms a transfer, answers /consensus and /activation', async () => {
    const { owner, other, conf, restPort } = await prepareConfiguredNode(dir, {
      chainId: 'P',
      consensus: 'type = pos',
      // Every implemented feature pre-activated but 1140 (WASM contracts), which the miner votes for.
      preActivatedFeatures: [2, 3, 4, 5, 6, 7, 9, 10, 100, 101, 119, 120, 130, 140, 160, 162, 173, 180, 1120, 1122, 1123, 1130],
      averageBlockDelay: '10s',
      ownerRoles: ['permissioner', 'miner'],
    });

    const node = startConfiguredNode(conf, restPort, 'owner secret');
    children.push(node.child);
    const get = (path: string) => node.get(path);
    try {
      await untilHeight(node, 2, 'the node to serve and forge block 2');
      assert.deepEqual((await get('/consensus/algo')).json, { consensusAlgo: 'Fair Proof-of-Stake (FairPoS)' });
      const second = await get('/blocks/at/2');
      assert.equal(second.json['generator'], owner.address);
      assert.ok(second.json['pos-consensus'] !== undefined, 'PoS consensus data in the block');

      const info = await confirmedTransfer(node, { sender: owner.address, password: 'owner secret', recipient: other.address, amount: 12345 });
      assert.equal(info['amount'], 12345);

      // Block 2 voted for 1140: approved at 2 (N = 1), active from 4.
      const wasm = await until(
        'feature 1140 to be activated',
        async () => {
          const s = await get('/activation/status');
          const f = (s.json['features'] as Array<Record<string, unknown>>).find((x) => x['id'] === 1140);
          return f !== undefined && f['blockchainStatus'] === 'ACTIVATED' ? f : undefined;
        },
        30_000,
      );
      assert.deepEqual(wasm, {
        id: 1140,
        description: 'Support of WASM smart-contracts',
        blockchainStatus: 'ACTIVATED',
        nodeStatus: 'VOTED',
        activationHeight: 4,
      });
      const status = (await get('/activation/status')).json;
      assert.equal(status['votingInterval'], 2);
      assert.equal(status['votingThreshold'], 1);

      const bt = await get('/consensus/basetarget');
      assert.equal(bt.status, 200, bt.text);
      assert.equal(typeof bt.json['baseTarget'], 'number');
      assert.match(bt.text, /"score":"[0-9]+"/);
      const gs = await get('/consensus/generationsignature');
      assert.match(String(gs.json['generationSignature']), /^[1-9A-HJ-NP-Za-km-z]{40,44}$/);
      const balance = await get(`/consensus/generatingbalance/${other.address}`);
      assert.deepEqual(balance.json, { address: other.address, balance: 10000 * 100_000_000 });
      const poa = await get('/consensus/minersAtHeight/1');
      assert.deepEqual([poa.status, poa.json], [400, { error: 199, message: 'Expected PoA consensus block data, but got PoS instead' }]);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n--- node output ---\n${node.output().slice(-3000)}`, { cause: e });
    }
  });
});
