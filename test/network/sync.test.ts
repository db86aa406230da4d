/**
 * Message payloads (src/network/messages.ts) and catching up with peers
 * (src/network/sync.ts): a lagging node catches up from a longer chain in several
 * signature rounds and block batches; partitioned nodes converge on the higher score with
 * the loser's transactions back in its pool; a peer that stops answering is closed after
 * the step timeout; a node downloads from every peer ahead of it at once, and a helper peer
 * that serves broken copies or stalls is closed while the others finish the sync. Real forged
 * PoA chains, wired through the in-process transport double.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { Block } from '../../src/protocol/blocks.js';
import {
  decodeBlock,
  decodeGetBlocks,
  decodeHistoryBlock,
  decodeMicroBlockInventory,
  decodeMicroBlockRequest,
  decodeMissingBlock,
  decodeScore,
  decodeSignatures,
  decodeTransaction,
  encodeBlock,
  encodeGetBlocks,
  encodeHistoryBlock,
  encodeMicroBlockInventory,
  encodeScore,
  encodeSignatures,
  MalformedMessage,
  signMicroBlockInventory,
  verifyMicroBlockInventory,
} from '../../src/network/messages.js';
import { MessageCode } from '../../src/network/types.js';
import { alice, bob, Clock, minerA, minerB, minerC, p, transfer } from '../chain/fork-fixture.js';
import { netNode, type NetNode } from './net-fixture.js';
import { HeldTimers, quiet, until, Wire } from './peer-double.js';

const ID = 64;

describe('messages', () => {
  it('Score is Java BigInteger bytes, read back unsigned', () => {
    assert.deepEqual([...encodeScore(0n)], [0]);
    assert.deepEqual([...encodeScore(127n)], [0x7f]);
    assert.deepEqual([...encodeScore(128n)], [0x00, 0x80], 'a set top bit gets a zero byte first');
    assert.deepEqual([...encodeScore(186330748219288401n)], [...Buffer.from('0295fad40a57eb51', 'hex')]);
    assert.equal(decodeScore(Uint8Array.from([0xff, 0xff])), 65535n, 'unsigned');
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: (1n << 500n) - 1n }), (n) => decodeScore(encodeScore(n)) === n));
    assert.throws(() => decodeScore(new Uint8Array(0)), MalformedMessage);
    assert.throws(() => decodeScore(new Uint8Array(65)), MalformedMessage);
  });

  it('Signatures and GetBlocks carry ids; lengths are checked exactly', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: ID, maxLength: ID }), { maxLength: 200 }), (ids) => {
        assert.deepEqual(decodeSignatures(MessageCode.Signatures, encodeSignatures(ids), ID), ids);
        if (ids.length > 0) assert.deepEqual(decodeGetBlocks(encodeGetBlocks(ids), ID), ids);
      }),
      { numRuns: 30 },
    );
    const two = encodeSignatures([new Uint8Array(ID), new Uint8Array(ID).fill(1)]);
    assert.throws(() => decodeSignatures(MessageCode.Signatures, two.subarray(0, two.length - 1), ID), MalformedMessage);
    assert.throws(() => decodeSignatures(MessageCode.GetSignatures, Uint8Array.from([0xff, 0xff, 0xff, 0xff]), ID), MalformedMessage);
    assert.throws(() => decodeSignatures(MessageCode.GetSignatures, Uint8Array.from([0, 0, 0]), ID), MalformedMessage);
    assert.throws(() => decodeGetBlocks(new Uint8Array(ID + 1), ID), MalformedMessage);
    assert.throws(() => decodeGetBlocks(new Uint8Array(0), ID), MalformedMessage);
    assert.throws(() => decodeGetBlocks(new Uint8Array(201 * ID), ID), MalformedMessage);
    assert.throws(() => decodeMissingBlock(new Uint8Array(ID - 1), ID), MalformedMessage);
    assert.throws(() => decodeMicroBlockRequest(new Uint8Array(ID + 1), ID), MalformedMessage);
  });

  it('MicroBlockInventory V1: pubKey ‖ totalSig ‖ prevSig ‖ signature over address ‖ totalSig ‖ prevSig', () => {
    const total = new Uint8Array(ID).fill(7);
    const prev = new Uint8Array(ID).fill(9);
    const inv = signMicroBlockInventory(p, minerA.keyPair, total, prev);
    const bytes = encodeMicroBlockInventory(inv);
    assert.equal(bytes.length, 32 + 3 * 64);
    const back = decodeMicroBlockInventory(p, bytes);
    assert.ok(verifyMicroBlockInventory(p, back));
    const signed = Buffer.concat([minerA.address, total, prev]);
    assert.ok(p.crypto.verify(minerA.keyPair.publicKey, signed, back.signature), 'the signed bytes are address ‖ totalSig ‖ prevSig');
    assert.ok(!verifyMicroBlockInventory(p, { ...back, prevSig: total }));
    assert.throws(() => decodeMicroBlockInventory(p, bytes.subarray(1)), MalformedMessage);
  });

  it('Block and Transaction payloads are the raw bytes; garbage is malformed', () => {
    const clock = new Clock();
    const tx = transfer(clock, alice, bob, 1n);
    assert.equal(decodeTransaction(p, tx.bytes).idBase58, tx.idBase58);
    assert.throws(() => decodeTransaction(p, Uint8Array.from([4, 3, 1])), MalformedMessage);
    assert.throws(() => decodeBlock(p, Uint8Array.from([3, 0, 0])), MalformedMessage);
    const wire = new Wire();
    const n = netNode(wire, 'm', clock, []);
    const genesis = n.node.chain.lastBlock();
    assert.equal(decodeBlock(p, encodeBlock(genesis)).idBase58, genesis.idBase58);
  });
});

/** `count` more key blocks on `n` alone, each with a micro-block holding one transfer. */
function grow(n: NetNode, clock: Clock, count: number): void {
  for (let i = 0; i < count; i++) {
    n.node.forge();
    n.node.micro([transfer(clock, alice, bob, BigInt(n.node.chain.height()))]);
    clock.nextRound();
  }
}

describe('sync', () => {
  it('a lagging node catches up from a longer chain, in signature rounds and block batches', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const a = netNode(wire, 'a', clock, [minerA, minerB, minerC], { maxChainLength: 7 });
    const b = netNode(wire, 'b', clock, [], { extensionBatchSize: 3 });
    grow(a, clock, 16);
    let sawSyncing = false;
    b.node.chain.on(() => {
      sawSyncing ||= b.net.status().syncing;
    });
    wire.connect(a.ep, b.ep);
    await until(() => b.node.chain.height() === a.node.chain.height() && !b.net.status().syncing, 'b caught up');
    assert.deepEqual(b.node.ids(), a.node.ids());
    assert.equal(b.node.stateHash(), a.node.stateHash());
    assert.ok(sawSyncing, 'the status shows the sync while it runs');
    const status = b.net.status();
    assert.equal(status.blocksApplied, 16);
    assert.equal(status.localScore, a.net.sync.localScore());
    assert.ok(wire.count(MessageCode.GetSignatures, 'b', 'a') >= 3, 'several signature rounds (max-chain-length 7)');
    assert.ok(wire.count(MessageCode.GetBlocks, 'b', 'a') >= 6, 'batches of 3 blocks');
    assert.ok(
      b.logs.some((l) => l.startsWith('info Applied') && l.includes('height')),
      'progress is logged',
    );
    assert.equal(a.net.status().syncing, false);
    a.net.close();
    b.net.close();
  });

  it('partitioned nodes converge on the higher score; the loser’s transactions go back to its pool', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const a = netNode(wire, 'a', clock, [minerA]);
    const bc = netNode(wire, 'bc', clock, [minerB, minerC]);
    // Shared start, then each side alone.
    grow(bc, clock, 2);
    a.node.follow(bc.node);
    const onlyA: string[] = [];
    for (let i = 0; i < 7; i++) {
      clock.nextRound();
      if (a.node.tryForge() !== undefined) {
        const tx = transfer(clock, alice, bob, 500n + BigInt(i));
        a.node.micro([tx]);
        onlyA.push(tx.idBase58);
      }
      if (bc.node.tryForge() !== undefined) bc.node.micro([transfer(clock, bob, alice, 900n + BigInt(i))]);
    }
    assert.ok(onlyA.length > 0);
    assert.ok(bc.net.sync.localScore() > a.net.sync.localScore());
    const bcIds = bc.node.ids();
    wire.connect(a.ep, bc.ep);
    await until(() => a.node.ids().join() === bc.node.ids().join(), 'a switched to the better branch');
    await quiet(wire);
    assert.deepEqual(bc.node.ids(), bcIds, 'the better node kept its chain');
    assert.equal(a.node.stateHash(), bc.node.stateHash());
    for (const id of onlyA)
      assert.ok(
        a.node.pool.all().some((t) => t.idBase58 === id),
        `${id} is pooled again on a`,
      );
    assert.ok(a.logs.some((l) => /rolled back/.test(l) && !/0 rolled back/.test(l)));
    a.net.close();
    bc.net.close();
  });

  it('a peer that stalls is closed after the step timeout', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const a = netNode(wire, 'a', clock, [minerA, minerB, minerC]);
    // b's step timeouts run when the test fires them: once b is waiting for the blocks (on a real
    // 150 ms timer a loaded machine could time out the signatures step instead).
    const timers = new HeldTimers(1);
    const b = netNode(wire, 'b', clock, [], { synchronizationTimeoutMs: 150 }, { timers });
    grow(a, clock, 3);
    a.ep.muted.add(MessageCode.HistoryBlock); // a answers GetBlocks with nothing
    const { atY: aAtB } = wire.connect(a.ep, b.ep);
    await until(() => wire.count(MessageCode.GetBlocks, 'b', 'a') > 0, 'b asked the stalling peer for blocks');
    await quiet(wire);
    assert.equal(aAtB.closed, false, 'nothing timed out yet');
    assert.equal(timers.fire(150), 1, 'the blocks step is timed');
    await until(() => aAtB.closed, 'b closed the stalling peer', 3000);
    assert.match(aAtB.closeReason ?? '', /Timeout \(150 ms\) waiting for 3 blocks/);
    assert.equal(b.node.chain.height(), 1);
    assert.equal(b.net.status().syncing, false);
    assert.match(b.net.status().lastError ?? '', /Timeout/);
    // A second, answering peer still gets it in sync.
    const a2 = netNode(wire, 'a2', clock, []);
    a2.node.follow(a.node);
    wire.connect(a2.ep, b.ep);
    await until(() => b.node.chain.height() === a.node.chain.height(), 'b synced from the other peer');
    assert.equal(encodeBase58(b.node.chain.lastBlock().id), encodeBase58(a.node.chain.lastBlock().id));
    for (const n of [a, b, a2]) n.net.close();
  });

  it('a lagging node downloads each extension from every peer ahead of it at once', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const a = netNode(wire, 'a', clock, [minerA, minerB, minerC], { maxChainLength: 7 });
    const helpers = ['a2', 'a3'].map((name) => netNode(wire, name, clock, [], { maxChainLength: 7 }));
    const b = netNode(wire, 'b', clock, [], { extensionBatchSize: 2 });
    grow(a, clock, 20);
    for (const h of helpers) h.node.follow(a.node);
    for (const n of [a, ...helpers]) wire.connect(n.ep, b.ep);
    await until(() => b.node.chain.height() === a.node.chain.height() && !b.net.status().syncing, 'b caught up', 10_000);
    assert.deepEqual(b.node.ids(), a.node.ids());
    assert.equal(b.node.stateHash(), a.node.stateHash());
    assert.equal(b.net.status().blocksApplied, 20);
    for (const name of ['a', 'a2', 'a3']) assert.ok(wire.count(MessageCode.GetBlocks, 'b', name) >= 2, `b asked ${name} for blocks`);
    assert.equal(
      wire.count(MessageCode.GetSignatures, 'b', 'a2') + wire.count(MessageCode.GetSignatures, 'b', 'a3'),
      0,
      'only the sync channel names the extension',
    );
    assert.ok(wire.count(MessageCode.GetSignatures, 'b', 'a') >= 4, 'several signature rounds (max-chain-length 7)');
    for (const n of [a, b, ...helpers]) n.net.close();
  });

  it('a peer that serves a broken copy of a block is closed; the others finish the sync and the block is taken from them', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const a = netNode(wire, 'a', clock, [minerA, minerB, minerC]);
    const liar = netNode(wire, 'liar', clock, []);
    const a3 = netNode(wire, 'a3', clock, []);
    const b = netNode(wire, 'b', clock, [], { extensionBatchSize: 2 });
    grow(a, clock, 12);
    liar.node.follow(a.node);
    a3.node.follow(a.node);
    // The liar's blocks keep their ids (signatures) but not what was signed: a timestamp moved by 1 ms.
    liar.ep.tamper = (code, payload) => {
      if (code !== MessageCode.HistoryBlock) return payload;
      const { block } = decodeHistoryBlock(p, payload);
      return encodeHistoryBlock(Block.build(p, { ...block, timestamp: block.timestamp + 1n }, block.signature), []);
    };
    // a's score arrives first: a is the sync channel, the liar and a3 help.
    const atB = [a, liar, a3].map((n) => wire.connect(n.ep, b.ep).atY);
    await until(() => b.node.chain.height() === a.node.chain.height() && !b.net.status().syncing, 'b caught up', 10_000);
    assert.deepEqual(b.node.ids(), a.node.ids());
    assert.ok(wire.count(MessageCode.GetBlocks, 'b', 'liar') > 0, 'the liar was asked for blocks');
    assert.match(atB[1]!.closeReason ?? '', /has an invalid signature/);
    assert.equal(atB[0]!.closed, false, 'the sync channel stays');
    assert.equal(atB[2]!.closed, false, 'the honest helper stays');
    for (const n of [a, b, liar, a3]) n.net.close();
  });

  it('a helper peer that stalls is closed after the step timeout; its batches go to the others', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const a = netNode(wire, 'a', clock, [minerA, minerB, minerC]);
    const staller = netNode(wire, 'staller', clock, []);
    const timers = new HeldTimers(1);
    const b = netNode(wire, 'b', clock, [], { synchronizationTimeoutMs: 150, extensionBatchSize: 3 }, { timers });
    grow(a, clock, 9);
    staller.node.follow(a.node);
    staller.ep.muted.add(MessageCode.HistoryBlock);
    const aAtB = wire.connect(a.ep, b.ep).atY;
    const stallerAtB = wire.connect(staller.ep, b.ep).atY;
    await until(() => wire.count(MessageCode.GetBlocks, 'b', 'staller') > 0, 'b asked the staller for blocks');
    await quiet(wire);
    assert.ok(b.node.chain.height() < a.node.chain.height(), 'the staller’s batch holds the sync up');
    assert.ok(timers.fire(150) >= 1, 'the staller’s requests are timed');
    await until(() => b.node.chain.height() === a.node.chain.height() && !b.net.status().syncing, 'b caught up from the sync channel', 10_000);
    assert.match(stallerAtB.closeReason ?? '', /Timeout \(150 ms\) waiting for 3 blocks/);
    assert.equal(aAtB.closed, false);
    assert.deepEqual(b.node.ids(), a.node.ids());
    for (const n of [a, b, staller]) n.net.close();
  });

  it('garbage from a peer closes only that peer', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const a = netNode(wire, 'a', clock, []);
    const b = netNode(wire, 'b', clock, []);
    const c = netNode(wire, 'c', clock, []);
    const ab = wire.connect(a.ep, b.ep);
    const ac = wire.connect(a.ep, c.ep);
    ab.atY.send(MessageCode.Signatures, Uint8Array.from([0, 0, 0, 5, 1]));
    ab.atY.send(MessageCode.Score, new Uint8Array(0));
    await quiet(wire);
    assert.ok(ab.atX.closed);
    assert.match(ab.atX.closeReason ?? '', /Malformed message/);
    assert.ok(!ac.atX.closed);
    for (const n of [a, b, c]) n.net.close();
  });
});
