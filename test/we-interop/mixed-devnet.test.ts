/**
 * A mixed network: two Weft node processes and a simulated WE 1.14 miner (devkit/we-peer) as
 * the devnet's third registered miner, on its P2P port, which the Weft nodes dial. For a
 * minute (WE_INTEROP_MINUTES=N for longer) all three forge in their PoA turns — the WE
 * miner's micro-blocks announced by 43, as WE's miner does with feature 173 — while
 * transfers arrive at the Weft nodes over REST; then every node holds the same chain,
 * including blocks the WE miner forged, no connection between Weft and the WE miner was
 * dropped, and Weft sent it nothing a WE node would not send a 1.14 peer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Devnet, oneChain, sleep, until } from '../../devkit/network.js';
import { devnetWePeer } from '../../devkit/we-peer/devnet.js';
import type { WePeer } from '../../devkit/we-peer/peer.js';
import { devAccounts, type DevAccount } from '../../src/cli/dev.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { signedTransfer, signedTransferTx } from '../support/transfers.js';

const MINUTES = Number(process.env['WE_INTEROP_MINUTES'] ?? '1');

describe('a mixed devnet of Weft nodes and a WE 1.14 miner', { timeout: (MINUTES * 60 + 180) * 1000 }, () => {
  let net: Devnet;
  let peer: WePeer;
  let p: Protocol;
  let accounts: DevAccount[];
  let amount = 1n;

  before(async () => {
    net = await Devnet.create({ nodes: 3, roundDurationMs: 3000, syncDurationMs: 1000, bans: { maxBansPercentage: 0 }, register: false });
    const pending: Transaction[] = [];
    ({ peer, protocol: p } = await devnetWePeer(net.layout, 2, {
      mine: true,
      listen: true,
      transactions: () => pending.splice(0),
      microBlockIntervalMs: 1000,
    }));
    accounts = devAccounts(p);
    // The WE miner's own transactions: a transfer from dev account 3 for each micro-block it may make.
    setInterval(() => {
      if (pending.length < 2) pending.push(signedTransferTx(p, accounts[3]!, accounts[4]!, amount++, BigInt(Date.now())));
    }, 500).unref();
    peer.start();
    await Promise.all([net.nodes[0]!.start(), net.nodes[1]!.start()]);
  });

  after(async () => {
    await peer?.stop();
    await net?.dispose();
  });

  it(`forges and agrees on every block for ${MINUTES} minute(s) with no disconnect`, async () => {
    const weft = [net.nodes[0]!, net.nodes[1]!];
    await until('both Weft nodes connected to the WE miner', () => (peer.openConnections().length >= 2 ? true : undefined), 30_000, 250);
    const handshaken = new Set(peer.connections.filter((c) => c.open));
    const end = Date.now() + MINUTES * 60_000;
    let sent = 0;
    while (Date.now() < end) {
      const node = weft[sent % 2]!;
      await node.post('/transactions/broadcast', signedTransfer(p, accounts[1]!, accounts[2]!, amount++, BigInt(Date.now())).body);
      sent++;
      await sleep(700);
    }
    const common = await oneChain(weft, 30_000);
    const ours = await weft[0]!.signatures(common);
    const peerIds = peer.chain.blocks.slice(0, common).map((b) => encodeBase58(b.id));
    assert.deepEqual(peerIds, ours.slice(0, peerIds.length), 'the WE miner holds the chain the Weft nodes hold');
    assert.ok(peerIds.length >= common - 1, `the WE miner followed the chain (${peerIds.length} of ${common} blocks)`);
    const weMined = peer.chain.blocks.slice(0, common).filter((b) => Buffer.from(b.generator).equals(Buffer.from(peer.owner.publicKey)));
    assert.ok(weMined.length > 0, `blocks the WE miner forged are in the common chain (${peer.forged.length} forged)`);
    const dropped = [...handshaken].filter((c) => c.closed).map((c) => `${c.remote?.nodeName ?? c.id}: ${c.closeReason ?? ''}`);
    assert.deepEqual(dropped, [], 'no connection between Weft and the WE miner was dropped');
    assert.deepEqual(peer.violations, []);
  });
});
