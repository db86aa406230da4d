/**
 * The WE 1.14 messages Weft did not speak before, each frame built by hand from WE's layout
 * (network/message/MessageSpec.scala, network/messages.scala) and read through the frame
 * decoder to the expected fields; what Weft sends checked against the same layouts; and the
 * per-peer forms (NodeVersion from 1.11.1, node attributes) over the in-process transport.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import { equalBytes } from '../../src/crypto/encoding.js';
import { FrameDecoder } from '../../src/network/framing.js';
import {
  answerSnapshotRequest,
  decodeCrlDataByHashesRequest,
  decodeCrlDataByTimestampRangeRequest,
  decodeCrlDataResponse,
  decodeGenesisSnapshotError,
  decodeGenesisSnapshotRequest,
  decodeMissingCrlsRequest,
  decodeSnapshotMessage,
  decodeVote,
  FeatureOffMessages,
  noSnapshotMessage,
} from '../../src/network/feature-off-messages.js';
import {
  decodeMicroBlockInventory,
  encodeMicroBlockInventory,
  encodeMicroBlockResponseV2,
  MalformedMessage,
  signMicroBlockInventory,
  verifyMicroBlockInventory,
} from '../../src/network/messages.js';
import { decodeRawAttributes, PeerAttributes, readAttributesBody, signNodeAttributes } from '../../src/network/node-attributes.js';
import { peerFormsOf, type PeerForms } from '../../src/network/peer-forms.js';
import { MessageCode, type Peer } from '../../src/network/types.js';
import { alice, bob, ChainNode, Clock, minerA, minerB, minerC, p, transfer } from '../chain/fork-fixture.js';
import { forgeOwnKeyBlock, netNode } from './net-fixture.js';
import { quiet, until, Wire } from './peer-double.js';

const K = 32;
const S = 64;

/** A whole frame as WE's MetaMessageCodec and length prefix write it. */
function weFrame(code: number, payload: Uint8Array): Buffer {
  const head = Buffer.alloc(13);
  head.writeInt32BE(payload.length === 0 ? 9 : 13 + payload.length, 0);
  head.writeInt32BE(0x12345678, 4);
  head.writeUInt8(code, 8);
  head.writeInt32BE(payload.length, 9);
  if (payload.length === 0) return head;
  return Buffer.concat([head, createHash('sha256').update(payload).digest().subarray(0, 4), payload]);
}

/** The payload of a hand-built frame after the frame decoder took it. */
function throughFrames(code: number, payload: Uint8Array): Uint8Array {
  const [m] = new FrameDecoder().feed(weFrame(code, payload));
  assert.equal(m?.code, code);
  return m.payload;
}

const fill = (n: number, v: number): Buffer => Buffer.alloc(n, v);
const i64 = (v: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return b;
};
const i32 = (v: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};
const i16 = (v: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
};
const shortBytes = (b: Uint8Array): Buffer => Buffer.concat([i16(b.length), b]);
const keys = { publicKeyLength: K, signatureLength: S };

/** A peer as the feature-off handler sees it. */
function fakePeer(): Peer & { sent: Array<{ code: number; payload: Uint8Array }>; closedWith?: string } {
  const peer = {
    id: 1,
    remote: { host: '127.0.0.1', port: 1 },
    outbound: false,
    info: {
      chainId: 84,
      version: [1, 14, 0] as const,
      consensusType: 'PoA',
      declaredAddress: undefined,
      nonce: 1n,
      nodeName: 'we',
      ownerAddress: p.addresses.fromPublicKey(minerA.keyPair.publicKey).bytes,
      sessionPublicKey: new Uint8Array(32),
    },
    ownerPublicKey: minerA.keyPair.publicKey,
    closed: false,
    sent: [] as Array<{ code: number; payload: Uint8Array }>,
    closedWith: undefined as string | undefined,
    send(code: number, payload: Uint8Array): boolean {
      this.sent.push({ code, payload });
      return true;
    },
    close(reason: string): void {
      this.closed = true;
      this.closedWith = reason;
    },
  };
  return peer;
}

const owner = p.addresses.fromPublicKey(minerB.keyPair.publicKey).bytes;
const handler = (): FeatureOffMessages => new FeatureOffMessages(keys, owner, { debug: () => undefined });

describe('WE 1.14 messages Weft reads', () => {
  it('33 Vote: key ‖ voting hash ‖ signature, read and dropped (no CFT); a truncated one is malformed', () => {
    const payload = throughFrames(MessageCode.Vote, Buffer.concat([fill(K, 1), fill(32, 2), fill(S, 3)]));
    const vote = decodeVote(keys, payload);
    assert.deepEqual([vote.sender[0], vote.votingHash[0], vote.signature[0], vote.signature.length], [1, 2, 3, S]);
    const peer = fakePeer();
    assert.equal(handler().handle(peer, MessageCode.Vote, payload), true);
    assert.equal(peer.closed, false);
    assert.deepEqual(peer.sent, []);
    assert.throws(() => handler().handle(peer, MessageCode.Vote, payload.subarray(0, K + 32 + S - 1)), MalformedMessage);
  });

  it('35 SnapshotNotification and 36 SnapshotRequest: key ‖ int64; 38 GenesisSnapshotError: int32 n ‖ UTF-8', () => {
    const n = decodeSnapshotMessage(MessageCode.SnapshotNotification, keys, throughFrames(35, Buffer.concat([fill(K, 4), i64(123456789n)])));
    assert.equal(n.value, 123456789n);
    assert.equal(n.sender[0], 4);
    const r = decodeSnapshotMessage(MessageCode.SnapshotRequest, keys, throughFrames(36, Buffer.concat([fill(K, 5), i64(77n)])));
    assert.equal(r.value, 77n);
    const text = Buffer.from('Snapshot is not ready', 'utf8');
    assert.equal(decodeGenesisSnapshotError(throughFrames(38, Buffer.concat([i32(text.length), text]))), 'Snapshot is not ready');
    assert.throws(() => decodeGenesisSnapshotError(Buffer.concat([i32(text.length + 1), text])), MalformedMessage);
    const peer = fakePeer();
    assert.equal(handler().handle(peer, 35, Buffer.concat([fill(K, 4), i64(1n)])), true);
    assert.equal(handler().handle(peer, 38, Buffer.concat([i32(text.length), text])), true);
    assert.equal(peer.closed, false);
  });

  it("37 GenesisSnapshotRequest gets WE's no-snapshot error (38, as WE writes it); a 36 closes the channel as WE's unidentified one", () => {
    const request = Buffer.concat([fill(K, 6), fill(S, 7), i64(0n), fill(S, 8)]);
    const read = decodeGenesisSnapshotRequest(keys, throughFrames(37, request));
    assert.deepEqual([read.sender[0], read.genesis[0], read.offset, read.signature[0]], [6, 7, 0n, 8]);
    const peer = fakePeer();
    assert.equal(handler().handle(peer, 37, request), true);
    assert.equal(peer.closed, false);
    assert.equal(peer.sent.length, 1);
    assert.equal(peer.sent[0]!.code, MessageCode.GenesisSnapshotError);
    const message = noSnapshotMessage(owner);
    assert.match(message, /^Snapshot is not found for address '3[1-9A-HJ-NP-Za-km-z]+'$/);
    const text = Buffer.from(message, 'utf8');
    assert.deepEqual(Buffer.from(peer.sent[0]!.payload), Buffer.concat([i32(text.length), text]));
    const answer = answerSnapshotRequest(keys, owner, 36, Buffer.concat([fill(K, 5), i64(0n)]));
    assert.equal(answer.reply, undefined);
    assert.match(answer.close, /Unidentified channel/);
    handler().handle(peer, 36, Buffer.concat([fill(K, 5), i64(0n)]));
    assert.equal(peer.closed, true);
  });

  it('48–51 CRL sync: read by their layouts and dropped; malformed ones throw', () => {
    const cdp = Buffer.from('http://ca.example/crl.crl', 'utf8');
    const missing = decodeMissingCrlsRequest(
      keys,
      throughFrames(48, Buffer.concat([fill(K, 9), shortBytes(cdp), i16(2), shortBytes(Buffer.from([1, 0])), shortBytes(Buffer.from([7]))])),
    );
    assert.equal(missing.cdp, 'http://ca.example/crl.crl');
    assert.deepEqual(
      missing.missingIds.map((b) => Buffer.from(b).toString('hex')),
      ['0100', '07'],
    );
    const hashes = decodeCrlDataByHashesRequest(throughFrames(49, Buffer.concat([i16(1), shortBytes(fill(20, 0xab))])));
    assert.equal(hashes.length, 1);
    assert.equal(hashes[0]!.length, 20);
    assert.deepEqual(decodeCrlDataByTimestampRangeRequest(throughFrames(50, Buffer.concat([i64(10n), i64(20n)]))), { from: 10n, to: 20n });
    assert.throws(() => decodeCrlDataByTimestampRangeRequest(Buffer.concat([i64(20n), i64(10n)])), MalformedMessage);
    const crl = Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]);
    const response = decodeCrlDataResponse(keys, throughFrames(51, Buffer.concat([Buffer.from([1]), i16(1), shortBytes(crl), fill(K, 3), shortBytes(cdp)])));
    assert.equal(response.contextId, 1);
    assert.equal(response.crls.length, 1);
    assert.deepEqual(Buffer.from(response.crls[0]!.crl), crl);
    assert.throws(() => decodeCrlDataResponse(keys, Buffer.concat([Buffer.from([3]), i16(0)])), MalformedMessage, 'unknown context id');
    assert.throws(() => decodeMissingCrlsRequest(keys, Buffer.concat([fill(K, 9), shortBytes(Buffer.from('not a url')), i16(0)])), MalformedMessage);
    const peer = fakePeer();
    for (const [code, payload] of [
      [49, Buffer.concat([i16(0)])],
      [50, Buffer.concat([i64(0n), i64(0n)])],
      [51, Buffer.concat([Buffer.from([0]), i16(0)])],
    ] as const)
      assert.equal(handler().handle(peer, code, payload), true);
    assert.equal(peer.closed, false);
    assert.deepEqual(peer.sent, []);
    assert.equal(handler().handle(peer, MessageCode.Score, new Uint8Array(1)), false, 'other codes are not its');
  });

  it('42 RawAttributes: WE’s layout both ways; a peer’s count only signed by its owner', () => {
    const body = Buffer.from([1, 1]);
    const signature = p.crypto.sign(minerA.keyPair.privateKey, body);
    const bytes = Buffer.concat([minerA.keyPair.publicKey, i16(2), body, signature]);
    const raw = decodeRawAttributes(p, throughFrames(42, bytes));
    assert.deepEqual(Buffer.from(raw.body), body);
    assert.deepEqual(readAttributesBody(raw.body), { mode: 'watcher', p2pTls: true });
    assert.deepEqual(readAttributesBody(Uint8Array.of(0)), { mode: 'default', p2pTls: false }, 'a body without the TLS byte');
    assert.equal(typeof readAttributesBody(Uint8Array.of(2, 0)), 'string');
    // What Weft sends: key ‖ short 2 ‖ mode ‖ TLS ‖ signature over the body.
    const own = signNodeAttributes(p, minerB.keyPair, { mode: 'default', p2pTls: false });
    assert.equal(own.length, K + 2 + 2 + S);
    assert.deepEqual(Buffer.from(own.subarray(0, K + 4)), Buffer.concat([minerB.keyPair.publicKey, i16(2), Buffer.from([0, 0])]));
    assert.ok(p.crypto.verify(minerB.keyPair.publicKey, own.subarray(K + 2, K + 4), own.subarray(K + 4)));
    const warnings: string[] = [];
    const book = new PeerAttributes(p, { debug: () => undefined, warn: (m) => void warnings.push(m) });
    const peer = fakePeer();
    book.onMessage(peer, bytes);
    assert.equal(book.isWatcher(peer), true);
    assert.equal(book.p2pTls(peer), true);
    // On a plain connection of this node the claim does not take the encryption away.
    const plain = Object.assign(fakePeer(), { receiveStream: () => undefined, session: minerB.keyPair, tls: false });
    book.onMessage(plain, bytes);
    assert.equal(book.of(plain)?.p2pTls, true);
    assert.equal(book.p2pTls(plain), false);
    const other = fakePeer();
    book.onMessage(other, own);
    assert.equal(book.of(other), undefined, "minerB's attributes on minerA's connection are refused");
    assert.match(warnings[0] ?? '', /node owner not found among active peers/);
    assert.throws(() => book.onMessage(other, bytes.subarray(0, K + 1)), MalformedMessage);
    assert.throws(() => decodeRawAttributes(p, Buffer.concat([minerA.keyPair.publicKey, i16(0), signature])), MalformedMessage, 'an empty body');
  });

  it('43 MicroBlockInventoryV2: pk ‖ total ‖ prev ‖ key block ‖ signature over address ‖ total ‖ key block ‖ prev', () => {
    const [total, prev, keyBlock] = [fill(S, 0x11), fill(S, 0x22), fill(S, 0x33)];
    const address = p.addresses.fromPublicKey(minerA.keyPair.publicKey).bytes;
    const signature = p.crypto.sign(minerA.keyPair.privateKey, Buffer.concat([address, total, keyBlock, prev]));
    const bytes = Buffer.concat([minerA.keyPair.publicKey, total, prev, keyBlock, signature]);
    const inv = decodeMicroBlockInventory(p, throughFrames(43, bytes), MessageCode.MicroBlockInventoryV2);
    assert.ok(equalBytes(inv.keyBlockSig!, keyBlock));
    assert.ok(equalBytes(inv.prevSig, prev));
    assert.ok(verifyMicroBlockInventory(p, inv));
    assert.ok(!verifyMicroBlockInventory(p, { ...inv, keyBlockSig: prev, prevSig: keyBlock }), 'the order of the signed fields counts');
    const signed = signMicroBlockInventory(p, minerA.keyPair, total, prev, keyBlock);
    assert.deepEqual(Buffer.from(encodeMicroBlockInventory(signed)).subarray(0, K + 3 * S), bytes.subarray(0, K + 3 * S));
    assert.ok(verifyMicroBlockInventory(p, decodeMicroBlockInventory(p, encodeMicroBlockInventory(signed), MessageCode.MicroBlockInventoryV2)));
    assert.throws(() => decodeMicroBlockInventory(p, bytes.subarray(1), MessageCode.MicroBlockInventoryV2), MalformedMessage);
  });
});

/** A peer on the wire double that records what it gets and answers by `onMessage`. */
function scripted(
  wire: Wire,
  name: string,
  version: readonly [number, number, number],
  onMessage: (peer: Peer, code: number, payload: Uint8Array) => void = () => undefined,
) {
  const got: Array<{ code: number; payload: Uint8Array }> = [];
  const ep = wire.endpoint(name, {
    onPeer: () => undefined,
    onMessage: (peer, code, payload) => {
      got.push({ code, payload });
      onMessage(peer, code, payload);
    },
    onClose: () => undefined,
  });
  ep.version = version;
  return { ep, got };
}

/** b's forms: a peer named 'old' is a Weft node from before 43 (sent no attributes); the others read 43. */
const formsOfB: PeerForms = { ...peerFormsOf(undefined), readsInventoryV2: (peer) => peer.info.nodeName !== 'old' };

describe('per-peer message forms', () => {
  it('a 43 from a WE miner is fetched, applied and relayed as 43 to the peers that read it (none to an older Weft); one naming another key block is not fetched', async () => {
    const clock = new Clock();
    const source = ChainNode.create('source', clock, [minerA, minerB, minerC]);
    const wire = new Wire();
    const b = netNode(wire, 'b', clock, [], {}, { forms: formsOfB });
    const key = source.forge();
    b.node.follow(source);
    const c = netNode(wire, 'c', clock, []);
    c.node.follow(source);
    const m1 = source.micro([transfer(clock, alice, bob, 6n)]).microBlock!;
    const miner = [minerA, minerB, minerC].find((m) => equalBytes(m.keyPair.publicKey, key.generator))!;
    const inventory = (total: Uint8Array, keyBlock: Uint8Array): Uint8Array =>
      encodeMicroBlockInventory(signMicroBlockInventory(p, miner.keyPair, total, m1.prevLiquidBlockSig, keyBlock));
    const we = scripted(wire, 'we', [1, 14, 0], (peer, code) => {
      if (code === MessageCode.MicroBlockRequest) peer.send(MessageCode.MicroBlockResponseV2, encodeMicroBlockResponseV2(m1, []));
    });
    const old = scripted(wire, 'old', [1, 14, 0]);
    wire.connect(b.ep, c.ep);
    wire.connect(b.ep, old.ep);
    const { atX } = wire.connect(we.ep, b.ep);
    atX.send(MessageCode.MicroBlockInventoryV2, inventory(fill(S, 1), fill(S, 9)));
    await quiet(wire);
    assert.equal(wire.count(MessageCode.MicroBlockRequest, 'b', 'we'), 0, 'a 43 on another key block is not fetched');
    assert.equal(atX.closed, false);
    const other = signMicroBlockInventory(p, miner.keyPair, fill(S, 2), m1.prevLiquidBlockSig, key.id);
    atX.send(MessageCode.MicroBlockInventoryV2, inventory(m1.totalLiquidBlockSig, key.id));
    await until(() => equalBytes(c.node.chain.lastBlock().id, m1.totalLiquidBlockSig), 'c got the micro-block through b');
    assert.ok(equalBytes(b.node.chain.lastBlock().id, m1.totalLiquidBlockSig));
    assert.equal(wire.count(MessageCode.MicroBlockInventoryV2, 'b', 'c'), 1, 'relayed as it came');
    assert.equal(wire.count(MessageCode.MicroBlockInventoryV2, 'b', 'old'), 0);
    assert.equal(wire.count(MessageCode.MicroBlockInventory, 'b', 'old'), 0, "a miner's 43 cannot become a 26");
    assert.equal(wire.count(MessageCode.MicroBlockResponseV2, 'b', 'c'), 1, 'c (1.14) got the micro-block as 47');
    // A 43 whose key block is not the one signed closes the peer.
    atX.send(MessageCode.MicroBlockInventoryV2, encodeMicroBlockInventory({ ...other, keyBlockSig: fill(S, 3) }));
    await quiet(wire);
    assert.equal(atX.closed, true);
    for (const n of [b, c]) n.net.close();
  });

  it("this node's own micro-blocks are announced by 43 naming the key block (feature 173 active), as 26 to a peer that does not read 43", async () => {
    const clock = new Clock();
    const wire = new Wire();
    const miner = netNode(wire, 'miner', clock, [minerA, minerB, minerC], {}, { forms: formsOfB });
    const we = scripted(wire, 'we', [1, 14, 0]);
    const old = scripted(wire, 'old', [1, 14, 0]);
    wire.connect(miner.ep, we.ep);
    wire.connect(miner.ep, old.ep);
    forgeOwnKeyBlock(clock, miner.node);
    const keyBlockId = miner.node.chain.lastBlock().id;
    const micro = miner.node.micro([transfer(clock, alice, bob, 3n)]).microBlock!;
    await quiet(wire);
    const v2 = we.got.filter((m) => m.code === MessageCode.MicroBlockInventoryV2);
    assert.equal(v2.length, 1);
    const inv = decodeMicroBlockInventory(p, v2[0]!.payload, MessageCode.MicroBlockInventoryV2);
    assert.ok(equalBytes(inv.keyBlockSig!, keyBlockId));
    assert.ok(equalBytes(inv.totalSig, micro.totalLiquidBlockSig));
    assert.ok(verifyMicroBlockInventory(p, inv));
    const v1 = old.got.filter((m) => m.code === MessageCode.MicroBlockInventory);
    assert.equal(v1.length, 1);
    assert.ok(verifyMicroBlockInventory(p, decodeMicroBlockInventory(p, v1[0]!.payload)));
    assert.equal(old.got.filter((m) => m.code === MessageCode.MicroBlockInventoryV2).length, 0);
    miner.net.close();
  });

  it('a peer from WE 1.11.1 gets 45, 46 and 47 with an empty certificate list (int32 0); an older one 23, 25 and 28', async () => {
    const clock = new Clock();
    const wire = new Wire();
    const miner = netNode(wire, 'miner', clock, [minerA, minerB, minerC], {}, { forms: formsOfB });
    const newer = scripted(wire, 'newer', [1, 11, 1]);
    const older = scripted(wire, 'older', [1, 11, 0]);
    const n = wire.connect(miner.ep, newer.ep);
    const o = wire.connect(miner.ep, older.ep);
    forgeOwnKeyBlock(clock, miner.node);
    const tx = transfer(clock, alice, bob, 4n);
    miner.node.pool.put(tx);
    miner.net.broadcastTransaction(tx);
    const micro = miner.node.micro([tx]).microBlock!;
    const block = miner.node.chain.blockAt(1)!;
    for (const side of [n.atY, o.atY]) {
      side.send(MessageCode.GetBlocks, block.id);
      side.send(MessageCode.MicroBlockRequest, micro.totalLiquidBlockSig);
    }
    await quiet(wire);
    const codes = (got: ReadonlyArray<{ code: number }>): number[] =>
      got
        .map((m) => m.code)
        .filter((c) => c !== MessageCode.Score && c !== MessageCode.MicroBlockInventoryV2 && c !== MessageCode.MicroBlockInventory && c !== MessageCode.Block);
    assert.deepEqual(codes(newer.got).sort(), [MessageCode.HistoryBlock, MessageCode.BroadcastedTransaction, MessageCode.MicroBlockResponseV2].sort());
    assert.deepEqual(codes(older.got).sort(), [MessageCode.Transaction, MessageCode.MicroBlockResponse].sort());
    assert.equal(older.got.filter((m) => m.code === MessageCode.Block).length >= 1, true, 'the GetBlocks answer is a 23');
    // 46 = int32 n ‖ transaction ‖ int32 4 ‖ int32 0 (an empty cert-chain store).
    const broadcast = Buffer.from(newer.got.find((m) => m.code === MessageCode.BroadcastedTransaction)!.payload);
    assert.deepEqual(broadcast, Buffer.concat([i32(tx.bytes.length), tx.bytes, i32(4), i32(0)]));
    const history = Buffer.from(newer.got.find((m) => m.code === MessageCode.HistoryBlock)!.payload);
    assert.deepEqual(history, Buffer.concat([i32(block.bytes.length), block.bytes, i32(4), i32(0)]));
    const response = Buffer.from(newer.got.find((m) => m.code === MessageCode.MicroBlockResponseV2)!.payload);
    assert.deepEqual(response, Buffer.concat([i32(micro.bytes.length), micro.bytes, i32(4), i32(0), i16(0)]));
    miner.net.close();
  });

  it('a watcher (by its attributes) gets no transactions', async () => {
    const clock = new Clock();
    const wire = new Wire();
    const a = netNode(wire, 'a', clock, [], {}, { forms: { ...peerFormsOf(undefined), isWatcher: (peer) => peer.info.nodeName === 'watcher' } });
    const watcher = scripted(wire, 'watcher', [1, 14, 0]);
    const other = scripted(wire, 'other', [1, 14, 0]);
    wire.connect(a.ep, watcher.ep);
    wire.connect(a.ep, other.ep);
    const tx = transfer(clock, alice, bob, 5n);
    a.node.pool.put(tx);
    a.net.broadcastTransaction(tx);
    await quiet(wire);
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'a', 'other'), 1);
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'a', 'watcher'), 0);
    a.net.close();
  });
});
