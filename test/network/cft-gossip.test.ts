/**
 * CFT over the chain protocol (src/network/gossip.ts, on the in-process transport double):
 * the miner's vote micro-block propagates like a transaction micro-block, so nodes that
 * are not directly connected to the miner hold the same final liquid block, and take the
 * next key block on it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isFinalised } from '../../src/consensus/cft.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { CFT, finalise } from '../chain/cft-fixture.js';
import { alice, bob, Clock, minerA, transfer } from '../chain/fork-fixture.js';
import { netNode } from './net-fixture.js';
import { quiet, until, Wire } from './peer-double.js';

describe('CFT gossip', () => {
  it('vote micro-blocks propagate along a line: every node holds the final liquid block and takes the next key block on it', async () => {
    const wire = new Wire();
    const clock = new Clock();
    // Micro-blocks are announced by the owner (minerA): the miner node forges only in A's rounds.
    const miner = netNode(wire, 'miner', clock, [minerA], {}, { chain: CFT });
    const b = netNode(wire, 'b', clock, [], {}, { chain: CFT });
    const c = netNode(wire, 'c', clock, [], {}, { chain: CFT });
    wire.connect(miner.ep, b.ep);
    wire.connect(b.ep, c.ep);
    await quiet(wire);
    const sameTip = (): boolean => encodeBase58(c.node.chain.lastBlock().id) === encodeBase58(miner.node.chain.lastBlock().id);
    for (let round = 0; round < 3; round++) {
      clock.nextRound();
      miner.node.forge();
      await until(sameTip, 'the key block reached c');
      miner.node.micro([transfer(clock, alice, bob, BigInt(round) + 1n)]);
      await until(sameTip, 'the transaction micro-block reached c');
      assert.equal(isFinalised(c.node.chain.lastBlock().consensus), false);
      finalise(miner.node);
      await until(sameTip, 'the vote micro-block reached c');
      assert.equal(isFinalised(c.node.chain.lastBlock().consensus), true);
    }
    await quiet(wire);
    assert.deepEqual(b.node.ids(), miner.node.ids());
    assert.deepEqual(c.node.ids(), miner.node.ids());
    assert.equal(c.node.stateHash(), miner.node.stateHash());
    for (const n of [miner, b, c]) n.net.close();
  });
});
