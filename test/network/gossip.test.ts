/**
 * Propagation (src/network/gossip.ts) over the in-process transport double, on real forged
 * PoA chains: transactions, key blocks and micro-blocks reach nodes that are not directly
 * connected to the source, each link carries an item once, liquid blocks converge; a key
 * block that arrives before the micro-block it references applies once that micro-block
 * is in; an owner that does not answer a micro-block request is replaced by another.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { peerChainOf, type PeerPool } from '../../src/chain/peer-chain.js';
import { encodeBase58, equalBytes } from '../../src/crypto/encoding.js';
import { encodeBlock, encodeMicroBlockInventory, encodeMicroBlockResponse, signMicroBlockInventory } from '../../src/network/messages.js';
import { MessageCode, type Peer, type PeerTransportEvents, type Timers } from '../../src/network/types.js';
import type { MicroBlock } from '../../src/protocol/blocks.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { alice, bob, ChainNode, Clock, minerA, minerB, minerC, p, transfer, UTX, type Account } from '../chain/fork-fixture.js';
import { UtxPool } from '../../src/chain/utx.js';
import { SignatureVerifierPool } from '../../src/crypto/verify-pool.js';
import type { CryptoSuite } from '../../src/crypto/suite.js';
import type { NetworkDeps, SyncSettings } from '../../src/network/chain-deps.js';
import { forgeOwnKeyBlock, netNode, type NetNode } from './net-fixture.js';
import { HeldTimers, quiet, until, Wire, type DoublePeer } from './peer-double.js';

describe('gossip', () => {
  it('transactions reach every node of a line, once per link, never echoed back', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const [a, b, c] = ['a', 'b', 'c'].map((n) => netNode(wire, n, clock, [])) as [
      ReturnType<typeof netNode>,
      ReturnType<typeof netNode>,
      ReturnType<typeof netNode>,
    ];
    wire.connect(a.ep, b.ep);
    wire.connect(b.ep, c.ep);
    await quiet(wire);
    const txs = [transfer(clock, alice, bob, 1n), transfer(clock, bob, alice, 2n)];
    for (const tx of txs) {
      a.node.pool.put(tx);
      a.net.broadcastTransaction(tx);
    }
    await until(() => c.node.pool.size().size === 2, 'both transactions in c’s pool');
    await quiet(wire);
    assert.equal(b.node.pool.size().size, 2);
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'a', 'b'), 2);
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'b', 'c'), 2);
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'b', 'a'), 0, 'not sent back to its sender');
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'c', 'b'), 0);
    // The same transaction again from a: nothing new goes out.
    a.net.broadcastTransaction(txs[0]!);
    await quiet(wire);
    assert.equal(wire.count(MessageCode.BroadcastedTransaction), 4);
    // An invalid one is not relayed.
    const overspend = transfer(clock, bob, alice, 1_000_000_000n * 100_000_000n);
    const { atX } = wire.connect(a.ep, netNode(wire, 'd', clock, []).ep);
    atX.send(MessageCode.Transaction, overspend.bytes);
    await quiet(wire);
    assert.equal(wire.count(MessageCode.BroadcastedTransaction), 4, 'not relayed');
    for (const n of [a, b, c]) n.net.close();
  });

  it('a failure that is not a WE error (a bug) while admitting a peer’s transaction is logged; later ones still go in', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const [a, b] = ['a', 'b'].map((n) => netNode(wire, n, clock, [])) as [ReturnType<typeof netNode>, ReturnType<typeof netNode>];
    wire.connect(a.ep, b.ep);
    await quiet(wire);
    const put = b.node.pool.put.bind(b.node.pool);
    let failures = 1;
    b.node.pool.put = (tx) => {
      if (failures-- > 0) throw new Error('boom');
      return put(tx);
    };
    const first = transfer(clock, alice, bob, 1n);
    a.node.pool.put(first);
    a.net.broadcastTransaction(first);
    await until(() => b.logs.some((l) => l.startsWith('warn') && l.includes('boom')), 'the failure logged');
    const second = transfer(clock, alice, bob, 2n);
    a.node.pool.put(second);
    a.net.broadcastTransaction(second);
    await until(() => b.node.pool.get(second.id) !== undefined, 'the next transaction admitted');
    for (const n of [a, b]) n.net.close();
  });

  it('key blocks and micro-blocks propagate along a line; the liquid blocks converge', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const miner = netNode(wire, 'miner', clock, [minerA, minerB, minerC]);
    const b = netNode(wire, 'b', clock, []);
    const c = netNode(wire, 'c', clock, []);
    wire.connect(miner.ep, b.ep);
    wire.connect(b.ep, c.ep);
    await quiet(wire);
    for (let round = 0; round < 3; round++) {
      clock.nextRound();
      miner.node.forge();
      await until(() => c.node.chain.height() === miner.node.chain.height(), 'the key block reached c');
      // Key blocks from this node's own miners are signed by them, not by the owner key; micro-blocks
      // are announced only by the owner (minerA), so mine them in A's key blocks.
      const ownsLiquid = equalBytes(miner.node.chain.lastBlock().generator, minerA.keyPair.publicKey);
      if (!ownsLiquid) continue;
      miner.node.micro([transfer(clock, alice, bob, BigInt(round) + 1n)]);
      miner.node.micro([transfer(clock, bob, alice, BigInt(round) + 10n)]);
      await until(() => encodeBase58(c.node.chain.lastBlock().id) === encodeBase58(miner.node.chain.lastBlock().id), 'the micro-blocks reached c');
    }
    await quiet(wire);
    assert.deepEqual(b.node.ids(), miner.node.ids());
    assert.deepEqual(c.node.ids(), miner.node.ids());
    assert.equal(c.node.stateHash(), miner.node.stateHash());
    assert.ok(wire.count(MessageCode.MicroBlockRequest, 'c', 'b') > 0, 'c fetched micro-blocks from b, which relayed the inventory');
    assert.equal(wire.count(MessageCode.Block, 'b', 'miner'), 0, 'key blocks are not sent back');
    assert.equal(wire.count(MessageCode.Block, 'c', 'b'), 0);
    assert.equal(wire.count(MessageCode.MicroBlockInventory, 'c', 'b'), 0);
    for (const n of [miner, b, c]) n.net.close();
  });

  it('at DEBUG, each micro-block’s stages are logged once it is appended: at its forger and, in order, at a receiver', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const lines = (
      name: string,
      level = 'debug',
    ): Array<{ node: string; obj: Record<string, unknown>; msg: string }> & { log: NonNullable<NetworkDeps['microBlockLog']> } => {
      const out = [] as unknown as Array<{ node: string; obj: Record<string, unknown>; msg: string }> & { log: NonNullable<NetworkDeps['microBlockLog']> };
      out.log = { debug: (obj, msg) => void out.push({ node: name, obj: obj as Record<string, unknown>, msg }), isLevelEnabled: (l) => l === level };
      return out;
    };
    const [atMiner, atB, atC] = [lines('miner'), lines('b'), lines('c', 'info')];
    const miner = netNode(wire, 'miner', clock, [minerA, minerB, minerC], {}, { microBlockLog: atMiner.log });
    const b = netNode(wire, 'b', clock, [], {}, { microBlockLog: atB.log });
    const c = netNode(wire, 'c', clock, [], {}, { microBlockLog: atC.log });
    wire.connect(miner.ep, b.ep);
    wire.connect(b.ep, c.ep);
    await quiet(wire);
    forgeOwnKeyBlock(clock, miner.node);
    await until(() => c.node.chain.height() === miner.node.chain.height(), 'the key block reached c');
    const micro = miner.node.micro([transfer(clock, alice, bob, 7n), transfer(clock, bob, alice, 8n)]).microBlock!;
    await until(() => equalBytes(c.node.chain.lastBlock().id, micro.totalLiquidBlockSig), 'the micro-block reached c');
    await quiet(wire);
    const id = micro.idBase58;
    assert.deepEqual(
      atMiner.map((l) => [l.msg, l.obj.id, l.obj.origin ?? l.obj.to, l.obj.transactions]),
      [
        ['micro-block timeline', id, 'local', 2],
        ['micro-block served', id, 'b', undefined],
      ],
    );
    assert.deepEqual(Object.keys(atMiner[0]!.obj.at as object), ['appended', 'announced']);
    assert.deepEqual(
      atB.map((l) => [l.msg, l.obj.id]),
      [
        ['micro-block timeline', id],
        ['micro-block served', id],
      ],
      'b served c',
    );
    assert.equal(atB[0]!.obj.origin, 'network');
    const at = atB[0]!.obj.at as Record<string, number>;
    const stages = ['inventory', 'requested', 'arrived', 'received', 'verified', 'applying', 'appended', 'announced'];
    assert.deepEqual(Object.keys(at).sort(), [...stages].sort());
    for (let i = 1; i < stages.length; i++) assert.ok(at[stages[i]!]! >= at[stages[i - 1]!]!, `${stages[i]} not before ${stages[i - 1]}`);
    assert.equal(typeof atB[0]!.obj.commitMs, 'number');
    assert.equal(atC.length, 0, 'nothing below DEBUG');
    for (const n of [miner, b, c]) n.net.close();
  });

  it('a key block on a micro-block not here yet waits for it, then applies', async () => {
    const { clock, source, wire, c, key } = keyBlockAhead();
    const m1 = source.micro([transfer(clock, alice, bob, 5n)]).microBlock!;
    clock.nextRound();
    const next = source.forge();
    assert.ok(equalBytes(next.reference, m1.totalLiquidBlockSig));
    const x = scripted(wire, 'x', (peer, code) => {
      if (code === MessageCode.MicroBlockRequest) peer.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(m1));
    });
    const { atX } = wire.connect(x.ep, c.ep);
    atX.send(MessageCode.Block, encodeBlock(next));
    await quiet(wire);
    assert.equal(c.node.chain.height(), 2, 'the key block waits');
    atX.send(MessageCode.MicroBlockInventory, inventoryOf(m1, generatorOf(key.generator)));
    await until(() => c.node.chain.height() === 3, 'the key block applied after its micro-block');
    assert.deepEqual(c.node.ids(), source.ids());
    c.net.close();
  });

  it('an owner that does not answer a micro-block request is replaced by another', async () => {
    const clock = new Clock();
    const source = ChainNode.create('source', clock, [minerA, minerB, minerC]);
    const wire = new Wire();
    // The request's timeout runs when the test fires it: after the other owner's inventory is in.
    const timers = new HeldTimers(1);
    const c = netNode(wire, 'c', clock, [], { microBlockRequestTimeoutMs: 60 }, { timers });
    const key = source.forge();
    c.node.follow(source);
    const m1 = source.micro([transfer(clock, alice, bob, 6n)]).microBlock!;
    const inv = inventoryOf(m1, generatorOf(key.generator));
    const silent = scripted(wire, 'silent', () => undefined);
    const helpful = scripted(wire, 'helpful', (peer, code) => {
      if (code === MessageCode.MicroBlockRequest) peer.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(m1));
    });
    const s = wire.connect(silent.ep, c.ep);
    const h = wire.connect(helpful.ep, c.ep);
    s.atX.send(MessageCode.MicroBlockInventory, inv);
    await quiet(wire);
    h.atX.send(MessageCode.MicroBlockInventory, inv);
    await quiet(wire);
    assert.equal(wire.count(MessageCode.MicroBlockRequest, 'c', 'helpful'), 0, 'the other owner is asked only once the request times out');
    assert.equal(timers.fire(60), 1, 'the request to the silent owner times out');
    await until(() => equalBytes(c.node.chain.lastBlock().id, m1.totalLiquidBlockSig), 'the micro-block came from the other owner');
    assert.equal(wire.count(MessageCode.MicroBlockRequest, 'c', 'silent'), 1);
    assert.equal(wire.count(MessageCode.MicroBlockRequest, 'c', 'helpful'), 1);
    assert.ok(!s.atY.closed, 'a slow owner is not disconnected for it');
    // A forged inventory (signature by another key) closes the peer that sent it.
    const forged = { ...signMicroBlockInventory(p, minerB.keyPair, m1.totalLiquidBlockSig, m1.prevLiquidBlockSig), sender: minerA.keyPair.publicKey };
    const liar = scripted(wire, 'liar', () => undefined);
    const l = wire.connect(liar.ep, c.ep);
    l.atX.send(MessageCode.MicroBlockInventory, encodeMicroBlockInventory({ ...forged, totalSig: new Uint8Array(64).fill(3) }));
    await quiet(wire);
    assert.ok(l.atY.closed);
    c.net.close();
  });

  it('a micro-block transaction is taken as pooled only when its bytes are the pooled one’s: another proof under the same id is read from the micro-block', async () => {
    const { clock, source, wire, c, key } = keyBlockAhead();
    const relayed = transfer(clock, alice, bob, 7n);
    const other = transfer(clock, bob, alice, 8n);
    // The same transfer signed again (the signature takes a random nonce): same id, other bytes.
    const otherInBlock = p.sign(other.withProofs([]), bob.keyPair.privateKey);
    assert.notDeepEqual(otherInBlock.proofs, other.proofs);
    const m1 = source.micro([relayed, otherInBlock]).microBlock!;
    const x = scripted(wire, 'x', (peer, code) => {
      if (code === MessageCode.MicroBlockRequest) peer.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(m1));
    });
    const { atX } = wire.connect(x.ep, c.ep);
    atX.send(MessageCode.Transaction, relayed.bytes);
    // c holds `other` as a client broadcast it; the peer relays the copy the micro-block carries.
    c.node.pool.put(other);
    atX.send(MessageCode.Transaction, otherInBlock.bytes);
    await until(() => c.node.pool.get(relayed.id) !== undefined, 'the relayed transaction pooled');
    await quiet(wire);
    const pooled = c.node.pool.get(relayed.id)!;
    const applied: MicroBlock[] = [];
    peerChainOf(c.node.chain).on((e) => void (e.kind === 'micro-block' && applied.push(e.microBlock)));
    atX.send(MessageCode.MicroBlockInventory, inventoryOf(m1, generatorOf(key.generator)));
    await until(() => equalBytes(c.node.chain.lastBlock().id, m1.totalLiquidBlockSig), 'the micro-block applied');
    const [first, second] = applied[0]!.kind === 'tx' ? applied[0]!.transactions : [];
    assert.equal(first, pooled, 'the relayed transaction is taken as pooled, not decoded again');
    assert.deepEqual(second!.proofs, otherInBlock.proofs, 'the transaction with another proof is read from the micro-block');
    assert.deepEqual(second!.bytes, otherInBlock.bytes);
    assert.equal(c.node.stateHash(), source.stateHash());
    assert.deepEqual(c.node.chain.lastBlock().bytes, source.chain.lastBlock().bytes);
    c.net.close();
  });

  it('a transaction this node broadcast itself is taken as pooled from a peer’s micro-block, not decoded again', async () => {
    const { clock, source, wire, c, key } = keyBlockAhead();
    const own = transfer(clock, alice, bob, 9n);
    const m1 = source.micro([own]).microBlock!;
    const atX = await broadcastBesideServer(wire, c, own, m1);
    const pooled = c.node.pool.get(own.id)!;
    const applied: MicroBlock[] = [];
    peerChainOf(c.node.chain).on((e) => void (e.kind === 'micro-block' && applied.push(e.microBlock)));
    atX.send(MessageCode.MicroBlockInventory, inventoryOf(m1, generatorOf(key.generator)));
    await until(() => equalBytes(c.node.chain.lastBlock().id, m1.totalLiquidBlockSig), 'the micro-block applied');
    assert.equal(applied[0]!.kind === 'tx' ? applied[0]!.transactions[0] : undefined, pooled);
    assert.equal(c.node.stateHash(), source.stateHash());
    c.net.close();
  });

  it('a peer’s micro-block carrying a pooled transaction’s id with a forged proof is refused: the copy is read from the micro-block and its signature checked', async () => {
    const { clock, source, wire, c, key } = keyBlockAhead();
    const own = transfer(clock, alice, bob, 9n);
    const proof = Uint8Array.from(own.proofs[0]!);
    proof[10] = proof[10]! ^ 1;
    const forged = own.withProofs([proof]);
    assert.deepEqual(forged.id, own.id);
    // The forger does not check signatures when it builds (its pool did): it takes the forged copy.
    const m1 = source.micro([forged]).microBlock!;
    const atX = await broadcastBesideServer(wire, c, own, m1);
    const tip = c.node.chain.lastBlock().id;
    atX.send(MessageCode.MicroBlockInventory, inventoryOf(m1, generatorOf(key.generator)));
    // Refused once its signatures are checked (a fixed 50 ms wait let a loaded machine assert before the check).
    await until(() => c.logs.some((l) => l.includes(`Micro-block ${m1.idBase58} from`) && l.includes('not applied')), 'the micro-block refused');
    await quiet(wire);
    assert.ok(wire.count(MessageCode.MicroBlockResponse) >= 1, 'the micro-block was fetched');
    assert.deepEqual(c.node.chain.lastBlock().id, tip, 'not applied');
    assert.equal(c.node.chain.state().transactionHeight(own.id), undefined);
    assert.equal(c.node.pool.get(own.id), own, 'the genuine transfer stays pooled');
    c.net.close();
  });

  it('a transaction first read from a peer’s applied micro-block is not decoded or offered to the pool when a copy arrives after it; one rolled back is offered again', async () => {
    const clock = new Clock();
    const source = ChainNode.create('source', clock, [minerA, minerB, minerC]);
    const wire = new Wire();
    const offered: string[] = [];
    const c = netNode(wire, 'c', clock, [], {}, { peerPool: (pool) => recordingPool(pool, offered) });
    const key = source.forge();
    c.node.follow(source);
    const late = transfer(clock, alice, bob, 11n);
    const m1 = source.micro([late]).microBlock!;
    const x = scripted(wire, 'x', (peer, code) => {
      if (code === MessageCode.MicroBlockRequest) peer.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(m1));
    });
    const { atX } = wire.connect(x.ep, c.ep);
    await quiet(wire);
    atX.send(MessageCode.MicroBlockInventory, inventoryOf(m1, generatorOf(key.generator)));
    await until(() => equalBytes(c.node.chain.lastBlock().id, m1.totalLiquidBlockSig), 'the micro-block applied');
    // The copy a peer relays after the micro-block: known by its payload, dropped unparsed.
    atX.send(MessageCode.Transaction, late.bytes);
    await quiet(wire);
    assert.deepEqual(offered, [], 'nothing offered to the pool');
    assert.equal(c.node.chain.state().transactionHeight(late.id), c.node.chain.height());
    // Rolled back without returning it to the pool: a peer's copy goes to the pool again.
    c.node.chain.rollbackTo(c.node.chain.height() - 1, { origin: 'api', returnToPool: false });
    assert.equal(c.node.pool.get(late.id), undefined);
    atX.send(MessageCode.Transaction, late.bytes);
    await until(() => c.node.pool.get(late.id) !== undefined, 'the copy pooled after the rollback');
    assert.deepEqual(offered, [late.idBase58]);
    c.net.close();
  });

  it('micro-blocks announced together are fetched together and applied in chain order, whatever order they arrive in', async () => {
    const { clock, source, wire, c, key } = keyBlockAhead();
    const micros = [1n, 2n, 3n].map((n) => source.micro([transfer(clock, alice, bob, n)]).microBlock!);
    const applied: string[] = [];
    peerChainOf(c.node.chain).on((e) => void (e.kind === 'micro-block' && applied.push(e.microBlock.idBase58)));
    // x answers only once it was asked for all three, and then last first.
    const asked: Uint8Array[] = [];
    const x = scripted(wire, 'x', (peer, code, payload) => {
      if (code !== MessageCode.MicroBlockRequest) return;
      asked.push(payload);
      if (asked.length < micros.length) return;
      for (const m of [...micros].reverse()) peer.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(m));
    });
    const { atX } = wire.connect(x.ep, c.ep);
    for (const m of micros) atX.send(MessageCode.MicroBlockInventory, inventoryOf(m, generatorOf(key.generator)));
    await until(() => equalBytes(c.node.chain.lastBlock().id, micros[2]!.totalLiquidBlockSig), 'all three applied');
    assert.deepEqual(
      applied,
      micros.map((m) => m.idBase58),
      'applied in chain order',
    );
    assert.equal(wire.count(MessageCode.MicroBlockRequest, 'c', 'x'), 3, 'each asked for once');
    assert.equal(c.node.stateHash(), source.stateHash());
    await quiet(wire);
    assert.equal(c.net.gossip.cacheSizes().successfullyReceived, 3);
    c.net.close();
  });

  it('a new key block while micro-blocks are being fetched drops them: what arrives later is not applied', async () => {
    const { clock, source, wire, c, key } = keyBlockAhead();
    const rival = ChainNode.create('rival', clock, [minerA, minerB, minerC]);
    rival.follow(source);
    const micros = [1n, 2n, 3n].map((n) => source.micro([transfer(clock, alice, bob, n)]).microBlock!);
    // The next round's key block on the bare key block (the rival never saw the micro-blocks).
    clock.nextRound();
    const next = rival.forge();
    assert.ok(equalBytes(next.reference, key.id));
    const applied: string[] = [];
    peerChainOf(c.node.chain).on((e) => void (e.kind === 'micro-block' && applied.push(e.microBlock.idBase58)));
    const requests: Uint8Array[] = [];
    const x = scripted(wire, 'x', (_peer, code, payload) => void (code === MessageCode.MicroBlockRequest && requests.push(payload)));
    const { atX } = wire.connect(x.ep, c.ep);
    for (const m of micros) atX.send(MessageCode.MicroBlockInventory, inventoryOf(m, generatorOf(key.generator)));
    await until(() => requests.length === 3, 'all three asked for before any arrived');
    // The second and third arrive; they wait for the first.
    atX.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(micros[2]!));
    atX.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(micros[1]!));
    await quiet(wire);
    assert.deepEqual(applied, [], 'nothing applied out of order');
    atX.send(MessageCode.Block, encodeBlock(next));
    await until(() => equalBytes(c.node.chain.lastBlock().id, next.id), 'the new key block applied');
    // The first one arrives after the key block: the pipeline is gone, nothing of it applies.
    atX.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(micros[0]!));
    await quiet(wire);
    assert.deepEqual(applied, []);
    assert.deepEqual(c.node.ids(), rival.ids());
    assert.equal(c.node.stateHash(), rival.stateHash());
    c.net.close();
  });

  it('a micro-block given up takes out those fetched on top of it; they are fetched again once it comes', async () => {
    const timers = new HeldTimers(1);
    const { clock, source, wire, c, key } = keyBlockAhead({ microBlockRequestTimeoutMs: 60, microBlockRequestAttempts: 1 }, timers);
    const micros = [1n, 2n, 3n].map((n) => source.micro([transfer(clock, alice, bob, n)]).microBlock!);
    const applied: string[] = [];
    peerChainOf(c.node.chain).on((e) => void (e.kind === 'micro-block' && applied.push(e.microBlock.idBase58)));
    const answer = (only: readonly MicroBlock[]) => (peer: Peer, code: number, payload: Uint8Array) => {
      const m = only.find((x) => code === MessageCode.MicroBlockRequest && equalBytes(x.totalLiquidBlockSig, payload));
      if (m !== undefined) peer.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(m));
    };
    // x never answers for the first one.
    const x = scripted(wire, 'x', answer(micros.slice(1)));
    const { atX } = wire.connect(x.ep, c.ep);
    for (const m of micros) atX.send(MessageCode.MicroBlockInventory, inventoryOf(m, generatorOf(key.generator)));
    await until(() => wire.count(MessageCode.MicroBlockRequest, 'c', 'x') === 3, 'all three asked for');
    await quiet(wire);
    // The first one's request times out (the two answered have no timeout left): it is given up.
    assert.equal(timers.fire(60), 1, 'only the unanswered request is still timed');
    await quiet(wire);
    assert.deepEqual(applied, [], 'the first never came: nothing applied');
    const h = scripted(wire, 'h', answer(micros));
    const { atX: atH } = wire.connect(h.ep, c.ep);
    atH.send(MessageCode.MicroBlockInventory, inventoryOf(micros[0]!, generatorOf(key.generator)));
    await until(() => equalBytes(c.node.chain.lastBlock().id, micros[2]!.totalLiquidBlockSig), 'all three applied');
    assert.deepEqual(
      applied,
      micros.map((m) => m.idBase58),
    );
    assert.equal(c.node.stateHash(), source.stateHash());
    c.net.close();
  });

  it('a micro-block does not wait behind a relay batch entering the pool: it is fetched and applied while the batch is still being admitted', async () => {
    const { clock, source, wire, c, key } = keyBlockAhead();
    const relayed = Array.from({ length: 3000 }, (_, i) => transfer(clock, i % 2 === 0 ? bob : alice, i % 2 === 0 ? alice : bob, 1n));
    const micro = source.micro([transfer(clock, alice, bob, 9n)]).microBlock!;
    const x = scripted(wire, 'x', (peer, code) => {
      if (code === MessageCode.MicroBlockRequest) peer.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(micro));
    });
    const { atX, atY } = wire.connect(x.ep, c.ep);
    let pooledAtApply: number | undefined;
    peerChainOf(c.node.chain).on((e) => void (e.kind === 'micro-block' && (pooledAtApply = c.node.pool.size().size)));
    // The whole batch arrives in one read of the socket (as the transport hands a chunk's messages over), then the inventory.
    for (const tx of relayed) c.net.onMessage(atY, MessageCode.Transaction, tx.bytes);
    atX.send(MessageCode.MicroBlockInventory, inventoryOf(micro, generatorOf(key.generator)));
    await until(() => equalBytes(c.node.chain.lastBlock().id, micro.totalLiquidBlockSig), 'the micro-block applied', 20_000);
    assert.ok(pooledAtApply! < relayed.length, `applied with ${pooledAtApply} of ${relayed.length} relayed transactions admitted`);
    await until(() => c.node.pool.size().size === relayed.length, 'the whole batch admitted', 20_000);
    c.net.close();
  });

  it('a micro-block carrying a transaction still waiting for its admission takes that one and waits for its check: each signature is verified once', async () => {
    // The verifier verifies on the calling thread only (no worker), counting each signature it checks.
    const verified = new Map<string, number>();
    const counting: CryptoSuite = {
      ...p.crypto,
      verify: (publicKey, message, signature) => {
        const k = encodeBase58(signature);
        verified.set(k, (verified.get(k) ?? 0) + 1);
        return p.crypto.verify(publicKey, message, signature);
      },
    };
    const verifier = await SignatureVerifierPool.start(p.crypto.type, 0, counting);
    const clock = new Clock();
    const source = ChainNode.create('source', clock, [minerA, minerB, minerC]);
    const wire = new Wire();
    let pool: UtxPool | undefined;
    const c = netNode(wire, 'c', clock, [], {}, { pool: (node) => (pool = new UtxPool({ chain: node.chain, settings: UTX, now: clock.read, verifier })) });
    const key = source.forge();
    c.node.follow(source);
    const relayed = Array.from({ length: 3000 }, (_, i) => transfer(clock, i % 2 === 0 ? bob : alice, i % 2 === 0 ? alice : bob, 1n));
    const first = relayed[0]!;
    const micro = source.micro([first]).microBlock!;
    const x = scripted(wire, 'x', (peer, code) => {
      if (code === MessageCode.MicroBlockRequest) peer.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(micro));
    });
    const { atX, atY } = wire.connect(x.ep, c.ep);
    // The relay batch arrives in one read, its first transaction the one the micro-block carries (the calling thread verifies a backlog from its far end: that one last), then the inventory.
    for (const tx of relayed) c.net.onMessage(atY, MessageCode.Transaction, tx.bytes);
    atX.send(MessageCode.MicroBlockInventory, inventoryOf(micro, generatorOf(key.generator)));
    let admittedAtApply: number | undefined;
    peerChainOf(c.node.chain).on((e) => void (e.kind === 'micro-block' && (admittedAtApply = verified.size)));
    await until(() => equalBytes(c.node.chain.lastBlock().id, micro.totalLiquidBlockSig), 'the micro-block applied', 20_000);
    assert.ok(admittedAtApply! < relayed.length, `applied after ${admittedAtApply} of ${relayed.length} signatures checked: while the batch was being checked`);
    await until(() => verified.size === relayed.length && pool!.size().size === relayed.length - 1, 'the rest of the batch checked and admitted', 20_000);
    await quiet(wire);
    assert.deepEqual(
      [...verified.values()].filter((n) => n !== 1),
      [],
      'no signature verified twice',
    );
    assert.equal(pool!.get(first.id), undefined, 'the one in the micro-block is in the chain, not pooled');
    assert.equal(c.node.stateHash(), source.stateHash());
    c.net.close();
    await verifier.close();
  });

  it('peers’ transactions queued for admission count against the pool’s memory limit: past it they are refused (and counted) on arrival, not held', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const flood = Array.from({ length: 40 }, (_, i) => transfer(clock, i % 2 === 0 ? bob : alice, i % 2 === 0 ? alice : bob, 1n));
    const room = 10;
    const refusals: string[] = [];
    let queued = 0;
    let pool: UtxPool | undefined;
    const c = netNode(
      wire,
      'c',
      clock,
      [],
      {},
      {
        pool: (node) => {
          pool = new UtxPool({
            chain: node.chain,
            settings: { ...UTX, memoryLimitBytes: room * flood[0]!.bytes.length },
            now: clock.read,
            onRefused: (_tx, e) => void refusals.push(e.message),
          });
          const preverify = pool.preverify.bind(pool);
          pool.preverify = (txs, urgent) => {
            queued += txs.length;
            return preverify(txs, urgent);
          };
          return pool;
        },
      },
    );
    const { atY } = wire.connect(netNode(wire, 'x', clock, []).ep, c.ep);
    // The flood arrives in one read of the socket: none of it is in the pool yet when the rest comes.
    for (const tx of flood) c.net.onMessage(atY, MessageCode.Transaction, tx.bytes);
    await until(() => pool!.size().size === room, 'the pool full');
    await quiet(wire);
    assert.equal(queued, room, 'only what fits was taken for admission');
    assert.equal(pool!.size().size, room);
    assert.deepEqual(
      refusals,
      Array.from({ length: flood.length - room }, () => 'Transaction pool bytes size limit is reached'),
    );
    assert.equal(c.logs.filter((l) => l.startsWith('debug') && l.includes('Transaction pool bytes size limit is reached')).length, flood.length - room);
    // Room made: the next transaction is taken again (nothing is left counted as waiting).
    for (const tx of flood.slice(0, room)) pool!.remove(tx.id);
    const later = transfer(clock, alice, bob, 3n);
    c.net.onMessage(atY, MessageCode.Transaction, later.bytes);
    await until(() => pool!.get(later.id) !== undefined, 'a later transaction admitted');
    c.net.close();
  });

  it('a transaction relayed in a full mesh goes only to peers not yet known to have it: 6 messages among 4 nodes, not 9', async () => {
    const wire = new Wire();
    const clock = new Clock();
    // Each node's relay batch leaves when the test says: b first, then c, then d, the network
    // quiet in between (on real timers 20 ms apart this depended on the machine's load).
    const timers = [0, 1, 2, 3].map(() => new HeldTimers());
    const [a, b, c, d] = timers.map((t, i) => netNode(wire, 'abcd'[i]!, clock, [], { transactionRelayBatchMs: 40 }, { timers: t })) as [
      NetNode,
      NetNode,
      NetNode,
      NetNode,
    ];
    const all = [a, b, c, d];
    for (const [i, x] of all.entries()) for (const y of all.slice(i + 1)) wire.connect(x.ep, y.ep);
    await quiet(wire);
    const tx = transfer(clock, alice, bob, 1n);
    a.node.pool.put(tx);
    a.net.broadcastTransaction(tx);
    await until(() => all.every((n) => n.node.pool.get(tx.id) !== undefined), 'the transaction in every pool');
    await quiet(wire);
    for (const t of timers.slice(1)) {
      await until(() => t.held() > 0, 'a relay batch waiting');
      t.fire();
      await quiet(wire);
    }
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'a'), 3, 'the origin sends it to everyone');
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'b'), 2, 'the first to relay sends it to the two peers other than its source');
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'c'), 1, 'the second knows the origin and the first have it');
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'd'), 0, 'the last knows every peer has it');
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, undefined, 'a'), 0, 'never sent back to its origin');
    for (const n of all) n.net.close();
  });

  it('a transaction that goes into a micro-block before its relay batch leaves is not relayed', async () => {
    const wire = new Wire();
    const clock = new Clock();
    // The miner's and b's relay batches leave when the test says: after the micro-block took the
    // transaction (on real timers this raced the micro-block on a loaded machine).
    const held = { miner: new HeldTimers(1), b: new HeldTimers(1) };
    const miner = netNode(wire, 'miner', clock, [minerA, minerB, minerC], { transactionRelayBatchMs: 400 }, { timers: held.miner, random: () => 0.5 });
    const b = netNode(wire, 'b', clock, [], { transactionRelayBatchMs: 400 }, { timers: held.b, random: () => 0.5 });
    const c = netNode(wire, 'c', clock, []);
    for (const [x, y] of [
      [miner, b],
      [b, c],
      [c, miner],
    ] as const)
      wire.connect(x.ep, y.ep);
    await quiet(wire);
    forgeOwnKeyBlock(clock, miner.node);
    await until(() => b.node.chain.height() === miner.node.chain.height(), 'the key block reached b');
    const tx = transfer(clock, alice, bob, 2n);
    c.node.pool.put(tx);
    c.net.broadcastTransaction(tx);
    await until(() => miner.node.pool.get(tx.id) !== undefined && b.node.pool.get(tx.id) !== undefined, 'the transaction reached the miner and b');
    const micro = miner.node.micro([tx]).microBlock!;
    await until(() => equalBytes(b.node.chain.lastBlock().id, micro.totalLiquidBlockSig), 'b applied the micro-block');
    await quiet(wire);
    assert.equal(held.miner.fire(400), 1, "the miner's relay batch was waiting");
    assert.equal(held.b.fire(400), 1, "b's relay batch was waiting");
    await quiet(wire);
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'b'), 0, 'b did not relay it');
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'miner'), 0, 'nor did the miner');
    assert.equal(wire.count(MessageCode.BroadcastedTransaction), 2);
    for (const n of [miner, b, c]) n.net.close();
  });
});

/** Forges key blocks until one is the owner's (minerA's): micro-blocks are announced only on those. */

/** A forging source, a node `c` on the wire double, and the key block both have. */
function keyBlockAhead(
  settings: Partial<SyncSettings> = {},
  timers?: Timers,
): { clock: Clock; source: ChainNode; wire: Wire; c: ReturnType<typeof netNode>; key: ReturnType<ChainNode['forge']> } {
  const clock = new Clock();
  const source = ChainNode.create('source', clock, [minerA, minerB, minerC]);
  const wire = new Wire();
  const c = netNode(wire, 'c', clock, [], settings, timers === undefined ? {} : { timers });
  const key = source.forge();
  c.node.follow(source);
  return { clock, source, wire, c, key };
}

function generatorOf(publicKey: Uint8Array): Account {
  return [minerA, minerB, minerC].find((m) => equalBytes(m.keyPair.publicKey, publicKey))!;
}

function inventoryOf(micro: MicroBlock, miner: Account): Uint8Array {
  return encodeMicroBlockInventory(signMicroBlockInventory(p, miner.keyPair, micro.totalLiquidBlockSig, micro.prevLiquidBlockSig));
}

/**
 * Connects c to a peer x that answers every micro-block request with `micro`, then a client's
 * broadcast of `tx` to c: pooled and announced to x. Returns x's side of the link.
 */
async function broadcastBesideServer(wire: Wire, c: NetNode, tx: Transaction, micro: MicroBlock): Promise<DoublePeer> {
  const x = scripted(wire, 'x', (peer, code) => {
    if (code === MessageCode.MicroBlockRequest) peer.send(MessageCode.MicroBlockResponse, encodeMicroBlockResponse(micro));
  });
  const { atX } = wire.connect(x.ep, c.ep);
  await quiet(wire);
  c.node.pool.put(tx);
  assert.equal(c.net.broadcastTransaction(tx), 1);
  await quiet(wire);
  return atX;
}

/** A peer driven by the test: `onMessage` answers what it is sent. */
function scripted(
  wire: Wire,
  name: string,
  onMessage: (peer: Peer, code: number, payload: Uint8Array) => void,
): { ep: ReturnType<Wire['endpoint']>; peers: DoublePeer[] } {
  const peers: DoublePeer[] = [];
  const events: PeerTransportEvents = {
    onPeer: (peer) => void peers.push(peer as DoublePeer),
    onMessage: (peer, code, payload) => onMessage(peer, code, payload),
    onClose: () => undefined,
  };
  return { ep: wire.endpoint(name, events), peers };
}

/** The node's pool as the network sees it, recording the ids of the transactions offered to it (checkRoom, the first step of admission). */
function recordingPool(pool: PeerPool, offered: string[]): PeerPool {
  return {
    ...pool,
    checkRoom: (tx, waitingBytes) => {
      offered.push(tx.idBase58);
      pool.checkRoom(tx, waitingBytes);
    },
  };
}
