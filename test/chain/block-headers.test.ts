/**
 * Header reads without decoding transactions (Blockchain.blockHeaderAt, the store's block
 * summaries): at every height and every step — a key block, micro-blocks this node made or
 * received, a whole block from a peer, the next key block, a rollback, a restart — a header
 * read shows exactly what the whole block shows (id, size, transaction count, fee, header
 * fields), and a data directory written before summaries were kept still answers headers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Blockchain } from '../../src/chain/blockchain.js';
import { open } from 'lmdb';
import { stringifyJson } from '../../src/protocol/json.js';
import { F, Store } from '../../src/state/store.js';
import { tempDir } from '../../devkit/tmp.js';
import { alice, bob, chainSettings, ChainNode, Clock, minerA, p, scripts, transfer } from './fork-fixture.js';

/** Every height's header read against the whole block's own header JSON. */
function assertHeadersMatchBlocks(chain: Blockchain, what: string): void {
  for (let h = 1; h <= chain.height(); h++) {
    const block = chain.blockAt(h)!;
    const view = chain.blockHeaderAt(h);
    assert.ok(view !== undefined, `${what}: a header at height ${h}`);
    assert.equal(
      stringifyJson({ ...view.header.headerJson(view.summary.size, view.summary.transactionCount), fee: view.summary.fee }),
      stringifyJson({ ...block.headerJson(), fee: block.fee }),
      `${what}: the header at height ${h} is the block's`,
    );
    assert.equal(view.summary.size, block.bytes.length, `${what}: blocksize at height ${h}`);
    const decoded = [...chain.blockTransactionsAt(h)!].map((tx) => tx.idBase58);
    assert.deepEqual(
      decoded,
      block.transactions.map((tx) => tx.idBase58),
      `${what}: the transactions decoded one by one at height ${h} are the block's`,
    );
  }
  assert.equal(chain.blockTransactionsAt(chain.height() + 1), undefined);
  assert.equal(chain.blockHeaderAt(chain.height() + 1), undefined);
  assert.equal(chain.blockHeaderAt(0), undefined);
}

describe('block headers read without the transactions', () => {
  it('match the whole block at every step, and are kept as summaries for final heights', () => {
    const clock = new Clock();
    const node = ChainNode.create('headers', clock, [minerA]);
    assertHeadersMatchBlocks(node.chain, 'genesis');
    node.forge();
    const h1 = node.chain.height();
    assertHeadersMatchBlocks(node.chain, 'a key block');
    node.micro([transfer(clock, alice, bob, 1n), transfer(clock, bob, alice, 2n)]);
    node.micro([transfer(clock, alice, bob, 3n)]);
    assertHeadersMatchBlocks(node.chain, 'a liquid block of two micro-blocks');
    const liquid = node.chain.lastBlock();
    clock.nextRound();
    node.forge();
    const final = node.store.blockSummary(h1);
    assert.ok(final !== undefined, 'the final block has a stored summary');
    assert.deepEqual(final, liquid.summary);
    assert.equal(final.transactionCount, 3);
    assertHeadersMatchBlocks(node.chain, 'after the next key block');

    // A peer taking the blocks whole, and micro-blocks as received from the producer.
    const peer = ChainNode.create('headers-peer', clock, [minerA]);
    peer.follow(node);
    assertHeadersMatchBlocks(peer.chain, 'blocks appended whole');
    node.micro([transfer(clock, alice, bob, 4n)]);
    peer.chain.appendMicroBlock(node.chain.liquidMicroBlocks()[0]!);
    assertHeadersMatchBlocks(peer.chain, 'a received micro-block');

    // A rollback restores the summaries of the heights it makes the top again.
    const inRound = clock.now;
    clock.nextRound();
    node.forge();
    node.micro([transfer(clock, alice, bob, 5n)]);
    node.chain.rollbackTo(h1 + 1);
    assertHeadersMatchBlocks(node.chain, 'after a rollback');
    clock.now = inRound;
    node.micro([transfer(clock, bob, alice, 6n)]);
    assertHeadersMatchBlocks(node.chain, 'a micro-block after the rollback');

    // A restart on the same store.
    const reopened = new Blockchain({
      store: node.store,
      protocol: p,
      settings: node.chain.settings,
      features: node.chain.features,
      consensus: node.rules,
      txExpireTimeoutMs: 3_600_000,
      now: clock.read,
      scripts,
    });
    assertHeadersMatchBlocks(reopened, 'after a restart');
  });

  it('a data directory written before summaries were kept answers headers from its blocks', async () => {
    const clock = new Clock();
    const dir = tempDir('weft-headers-old-');
    const node = ChainNode.create('headers-old', clock, [minerA], chainSettings(), dir);
    node.forge();
    node.micro([transfer(clock, alice, bob, 1n), transfer(clock, bob, alice, 2n)]);
    clock.nextRound();
    node.forge();
    node.micro([transfer(clock, alice, bob, 3n)]);
    const blocks = Array.from({ length: node.chain.height() }, (_, i) => node.chain.blockAt(i + 1)!);
    await node.store.close();
    // What an older node left: no summary records at all.
    const env = open<Uint8Array, Uint8Array>({ path: dir, keyEncoding: 'binary', encoding: 'binary', compression: false });
    const removed = env.transactionSync(() => {
      let n = 0;
      for (const key of env.getKeys({ start: Uint8Array.from([F.BLOCK_SUMMARY]), end: Uint8Array.from([F.BLOCK_SUMMARY + 1]) })) {
        void env.remove(key);
        n++;
      }
      return n;
    });
    await env.close();
    assert.equal(removed, blocks.length, 'every height had a summary');
    const store = Store.open(dir, p);
    try {
      const chain = new Blockchain({
        store,
        protocol: p,
        settings: node.chain.settings,
        features: node.chain.features,
        consensus: node.rules,
        txExpireTimeoutMs: 3_600_000,
        now: clock.read,
        scripts,
      });
      for (let h = 1; h <= blocks.length; h++) assert.equal(store.blockSummary(h), undefined);
      assertHeadersMatchBlocks(chain, 'an older data directory');
      for (let h = 1; h <= blocks.length; h++) assert.deepEqual(chain.blockHeaderAt(h)!.summary, blocks[h - 1]!.summary);
    } finally {
      await store.close();
    }
  });
});
