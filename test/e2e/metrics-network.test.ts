/**
 * Prometheus metrics of a 2-node devnet (two miner processes on loopback): each node sees
 * its one peer, counts the other's key blocks and micro-blocks as appended from the
 * `network` (each with its propagation delay), and its P2P counters agree with the other
 * side's — a node never counts more messages or bytes of a code received than its only peer
 * counted sent before.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { devAccounts, devProtocol } from '../../src/cli/dev.js';
import { Devnet, until, type NetNode } from '../../devkit/network.js';
import { Exposition } from '../support/prometheus.js';
import { signedTransfer } from '../support/transfers.js';

async function scrape(node: NetNode): Promise<Exposition> {
  const r = await node.request('GET', '/metrics', undefined, { apiKey: null });
  assert.equal(r.status, 200, r.text.slice(0, 500));
  return Exposition.parse(r.text);
}

/** Messages and bytes by code of one direction, keyed `code message`. */
function traffic(e: Exposition, direction: 'received' | 'sent'): Map<string, { messages: number; bytes: number }> {
  const out = new Map<string, { messages: number; bytes: number }>();
  const bytesName = direction === 'received' ? 'weft_network_received_bytes_total' : 'weft_network_sent_bytes_total';
  for (const s of e.matching(`weft_network_messages_${direction}_total`)) {
    const key = `${s.labels['code']} ${s.labels['message']}`;
    out.set(key, { messages: s.value, bytes: e.value(bytesName, { code: s.labels['code']!, message: s.labels['message']! }) });
  }
  return out;
}

/** What `receiver` counted received is at most what `sender` (its only peer) counted sent, scraped after it. */
function receivedAtMostSent(receiver: Exposition, sender: Exposition, what: string): void {
  const sent = traffic(sender, 'sent');
  for (const [key, got] of traffic(receiver, 'received')) {
    const out = sent.get(key) ?? { messages: 0, bytes: 0 };
    assert.ok(
      got.messages <= out.messages && got.bytes <= out.bytes,
      `${what}: message ${key} received ${JSON.stringify(got)} but sent ${JSON.stringify(out)}`,
    );
  }
}

describe('metrics on a 2-node devnet', { timeout: 150_000 }, () => {
  it('peers, blocks and micro-blocks from the network with their propagation, message counters that agree across the link', async () => {
    const net = await Devnet.create({ nodes: 2, roundDurationMs: 2000, syncDurationMs: 1000, microBlockIntervalMs: 500 });
    await net.startAll();
    await net.meshed(20_000);
    const [a, b] = net.nodes as [NetNode, NetNode];
    const p = await devProtocol();
    const [from, to] = devAccounts(p) as [ReturnType<typeof devAccounts>[0], ReturnType<typeof devAccounts>[0]];
    const start = await Promise.all([a.height(), b.height()]);

    // Transfers to both nodes over several rounds, so each mines some and hears of the other's.
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) {
      const tx = signedTransfer(p, from, to, 1000n + BigInt(i), BigInt(Date.now()));
      const r = await (i % 2 === 0 ? a : b).post('/transactions/broadcast', tx.body);
      assert.equal(r.status, 200, r.text);
      ids.push(tx.id);
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    for (const node of [a, b]) {
      for (const id of ids)
        await until(
          `${id} confirmed on ${node.spec.name}`,
          async () => ((await node.get(`/transactions/info/${id}`)).status === 200 ? true : undefined),
          30_000,
        );
    }
    // A few rounds more: both miners forge in turn.
    await until('four new blocks on both', async () => ((await a.height()) >= start[0] + 4 && (await b.height()) >= start[1] + 4 ? true : undefined), 60_000);

    // Scraped B, A, B: each "received" scrape follows the peer's "sent" scrape it is compared with.
    const b1 = await scrape(b);
    const a1 = await scrape(a);
    const b2 = await scrape(b);
    receivedAtMostSent(b1, a1, 'B then A');
    receivedAtMostSent(a1, b2, 'A then B');

    let microFromPeers = 0;
    for (const [name, m] of [
      ['A', a1],
      ['B', b2],
    ] as const) {
      assert.equal(m.value('weft_network_peers_connected'), 1, name);
      assert.equal(m.value('weft_network_sync_active'), 0, `${name} is in sync`);
      // Key blocks from the other miner arrived as messages and were appended from the network.
      const blocksIn = m.sum('weft_network_messages_received_total', { message: 'Block' });
      const fromNetwork = m.value('weft_chain_blocks_appended_total', { origin: 'network' });
      assert.ok(fromNetwork >= 1 && blocksIn >= 1, `${name}: ${fromNetwork} blocks from the network, ${blocksIn} Block messages`);
      assert.ok(m.sum('weft_network_received_bytes_total', { message: 'Block' }) > 0);
      assert.ok(m.sum('weft_network_messages_sent_total', { message: 'Score' }) >= 1, `${name} tells its score`);
      // Every block after the genesis (written, not appended): this node's or a peer's, once each (a fork switch would append some again).
      const appended = m.value('weft_chain_blocks_appended_total', { origin: 'local' }) + fromNetwork;
      const height = m.value('weft_chain_height');
      if (m.sum('weft_chain_rollbacks_total') === 0) assert.equal(appended, height - 1, name);
      else assert.ok(appended > height, name);
      // Each transfer appended once on each node, in its own or the peer's micro-block (the genesis' transactions are not counted).
      if (m.sum('weft_chain_rollbacks_total') === 0) assert.equal(m.sum('weft_chain_transactions_appended_total'), ids.length, name);
      // Propagation: a delay for every micro-block from the peer, and for the peer's key blocks taken outside a catch-up or a fork switch.
      const micro = m.value('weft_chain_micro_blocks_appended_total', { origin: 'network' });
      // (A fork switch re-appends micro-blocks without a sample.)
      if (m.sum('weft_chain_rollbacks_total') === 0) assert.equal(m.value('weft_network_propagation_seconds_count', { kind: 'micro-block' }), micro, name);
      else assert.ok(m.value('weft_network_propagation_seconds_count', { kind: 'micro-block' }) <= micro, name);
      microFromPeers += micro;
      const propagatedBlocks = m.value('weft_network_propagation_seconds_count', { kind: 'block' });
      assert.ok(
        propagatedBlocks >= 1 && propagatedBlocks <= fromNetwork,
        `${name}: ${propagatedBlocks} propagation delays for ${fromNetwork} blocks from the network`,
      );
      assert.ok(m.value('weft_network_propagation_seconds_sum', { kind: 'block' }) >= 0);
    }
    assert.ok(microFromPeers >= 1, 'micro-blocks crossed the link');
  });
});
