import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { AddressScheme } from '../../src/crypto/address.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { createWavesSuite } from '../../src/crypto/waves.js';
import { skipsSendQueue } from '../../src/network/chain-messages.js';
import { encodeFrame, FrameDecoder } from '../../src/network/framing.js';
import { encodeHandshake, HandshakeDecoder } from '../../src/network/handshake.js';
import { createPeerTransport, PeerIdentityError, requestPeerIdentity, type PeerTransportOptions } from '../../src/network/transport.js';
import { MessageCode, type HandshakeInfo, type Peer, type PeerTransport } from '../../src/network/types.js';
import { writeSelfSignedCertificate } from '../../devkit/tls.js';

const suite = await createWavesSuite();
const T = 'T'.charCodeAt(0);
const scheme = new AddressScheme(T, suite);
const HOST = '127.0.0.1';

interface Node {
  readonly name: string;
  readonly keys: KeyPair;
  readonly address: Uint8Array;
}
const node = (name: string): Node => {
  const keys = suite.keyPairFromSeedPhrase(`transport test ${name}`);
  return { name, keys, address: scheme.fromPublicKey(keys.publicKey).bytes };
};
const A = node('a');
const B = node('b');
const C = node('c');
const OUTSIDER = node('outsider');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

function registryOf(...nodes: Node[]): (a: Uint8Array) => Uint8Array | undefined {
  const m = new Map(nodes.map((n) => [hex(n.address), n.keys.publicKey]));
  return (a) => m.get(hex(a));
}
const EVERYONE = registryOf(A, B, C);

function ownInfo(n: Node, over: Partial<HandshakeInfo> = {}): Omit<HandshakeInfo, 'sessionPublicKey'> {
  return {
    chainId: T,
    version: [1, 14, 0],
    consensusType: 'PoA',
    declaredAddress: undefined,
    nonce: 42n,
    nodeName: n.name,
    ownerAddress: n.address,
    ...over,
  };
}

interface Harness {
  readonly transport: PeerTransport;
  readonly port: number;
  readonly messages: { peer: Peer; code: number; payload: Uint8Array }[];
  readonly closed: { peer: Peer; reason: string; misbehaved: boolean }[];
  readonly opened: Peer[];
}

const live: PeerTransport[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(live.splice(0).map((t) => t.close()));
});

async function start(
  n: Node,
  over: Partial<PeerTransportOptions> & {
    infoOver?: Partial<HandshakeInfo>;
    onMessage?: Harness['messages'][number] extends infer M ? (m: M) => void : never;
  } = {},
): Promise<Harness> {
  const messages: Harness['messages'] = [];
  const closed: Harness['closed'] = [];
  const opened: Peer[] = [];
  const transport = createPeerTransport({
    info: ownInfo(n, over.infoOver),
    sign: (m) => suite.sign(n.keys.privateKey, m),
    verify: (pk, m, s) => suite.verify(pk, m, s),
    participantPublicKey: EVERYONE,
    handshakeTimeoutMs: 2000,
    connectTimeoutMs: 2000,
    idleTimeoutMs: 0,
    ...over,
    events: {
      onPeer: (p) => opened.push(p),
      onMessage: (peer, code, payload) => {
        const m = { peer, code, payload };
        over.onMessage?.(m);
        messages.push(m);
      },
      onClose: (peer, reason, misbehaved) => closed.push({ peer, reason, misbehaved }),
    },
  });
  live.push(transport);
  const port = await transport.listen(HOST, 0);
  return { transport, port, messages, closed, opened };
}

async function waitFor(what: string, cond: () => boolean, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function rawSocket(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: HOST, port }, () => resolve(s));
    s.on('error', reject);
    sockets.push(s);
  });
}

function closedPromise(s: net.Socket): Promise<void> {
  return new Promise((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));
}

/** A hand-rolled peer: raw socket, valid handshake, then whatever the test writes. */
async function rawPeer(port: number, n: Node): Promise<{ socket: net.Socket; frames: FramedInbox }> {
  const socket = await rawSocket(port);
  socket.write(encodeHandshake({ ...ownInfo(n), sessionPublicKey: new Uint8Array(32).fill(1) }, (m) => suite.sign(n.keys.privateKey, m)));
  const hs = new HandshakeDecoder();
  const frames: FramedInbox = { decoder: new FrameDecoder(), got: [], raw: [] };
  await new Promise<void>((resolve, reject) => {
    let done = false;
    socket.on('data', (chunk: Buffer) => {
      if (!done) {
        const h = hs.feed(chunk);
        if (!h) return;
        done = true;
        frames.raw.push(Buffer.from(hs.rest()));
        frames.got.push(...frames.decoder.feed(hs.rest()));
        resolve();
      } else {
        frames.raw.push(chunk);
        frames.got.push(...frames.decoder.feed(chunk));
      }
    });
    socket.once('close', () => reject(new Error('closed before the handshake reply')));
  });
  return { socket, frames };
}
interface FramedInbox {
  decoder: FrameDecoder;
  got: { code: number; payload: Uint8Array }[];
  /** The bytes after the handshake, as they came. */
  raw: Buffer[];
}

describe('peer transport', () => {
  it('connects two nodes that exchange messages both ways', async () => {
    const a = await start(A);
    const b = await start(B);
    const peerOfA = await b.transport.connect({ host: HOST, port: a.port });
    await waitFor('A sees B', () => a.opened.length === 1);
    const peerOfB = a.opened[0]!;
    assert.equal(peerOfA.outbound, true);
    assert.equal(peerOfB.outbound, false);
    assert.deepEqual(peerOfA.info.ownerAddress, A.address);
    assert.deepEqual(peerOfA.ownerPublicKey, A.keys.publicKey);
    assert.equal(peerOfA.info.nodeName, 'a');
    assert.deepEqual(peerOfB.info.ownerAddress, B.address);
    assert.equal(peerOfB.info.sessionPublicKey.length, 32);
    assert.equal(peerOfB.remote.host, HOST);

    assert.equal(peerOfA.send(MessageCode.Score, Uint8Array.of(1, 2)), true);
    assert.equal(peerOfB.send(MessageCode.GetPeers, new Uint8Array(0)), true);
    const big = new Uint8Array(140 * 1024).fill(5);
    assert.equal(peerOfB.send(MessageCode.Transaction, big), true);
    await waitFor('messages', () => a.messages.length === 1 && b.messages.length === 2);
    assert.deepEqual([a.messages[0]!.code, [...a.messages[0]!.payload]], [MessageCode.Score, [1, 2]]);
    assert.equal(b.messages[0]!.code, MessageCode.GetPeers);
    assert.deepEqual(b.messages[1]!.payload, big);
    // A message above its cap is not sent at all.
    assert.equal(peerOfB.send(MessageCode.Score, new Uint8Array(1000)), false);

    peerOfA.close('test done');
    assert.equal(peerOfA.closed, true);
    assert.equal(peerOfA.send(MessageCode.Score, Uint8Array.of(1)), false);
    await waitFor('both sides closed', () => a.closed.length === 1 && b.closed.length === 1);
    assert.equal(b.closed[0]!.reason, 'test done');
    assert.equal(b.closed[0]!.misbehaved, false, 'an ordinary close is no misbehaviour');
    assert.equal(a.transport.peers().length, 0);
  });

  it('tells its traffic observer every message in and out with its frame size; a dropped message is not counted', async () => {
    const seen = (): { received: Array<[number, number]>; sent: Array<[number, number]> } => ({ received: [], sent: [] });
    const [ta, tb] = [seen(), seen()];
    const observer = (t: ReturnType<typeof seen>) => ({
      received: (code: number, bytes: number) => void t.received.push([code, bytes]),
      sent: (code: number, bytes: number) => void t.sent.push([code, bytes]),
    });
    const a = await start(A, { traffic: observer(ta) });
    const b = await start(B, { traffic: observer(tb) });
    const peerOfA = await b.transport.connect({ host: HOST, port: a.port });
    await waitFor('A sees B', () => a.opened.length === 1);
    assert.equal(peerOfA.send(MessageCode.Score, Uint8Array.of(1, 2)), true);
    assert.equal(a.opened[0]!.send(MessageCode.GetPeers, new Uint8Array(0)), true);
    assert.equal(peerOfA.send(MessageCode.Score, new Uint8Array(1000)), false, 'over its cap');
    await waitFor('messages', () => a.messages.length === 1 && b.messages.length === 1);
    // Score with 2 payload bytes: 13 header + 4 checksum + 2; GetPeers without payload: 13.
    assert.deepEqual(tb.sent, [[MessageCode.Score, 19]]);
    assert.deepEqual(ta.received, [[MessageCode.Score, 19]]);
    assert.deepEqual(ta.sent, [[MessageCode.GetPeers, 13]]);
    assert.deepEqual(tb.received, [[MessageCode.GetPeers, 13]]);
  });

  for (const [skipping, order] of [
    [true, [0, 3, 1, 2, 4]],
    [false, [0, 1, 2, 3, 4]],
  ] as const) {
    it(`writes the messages of one turn to several peers byte for byte as their frames, in order but for ${skipping ? "a block (the chain routing's block traffic) that skips" : 'nothing skipping (no skipsSendQueue given): a block waits behind'} the ones held back, the same payload under two codes included`, async () => {
      const a = await start(A, skipping ? { skipsSendQueue } : {});
      const b = await rawPeer(a.port, B);
      const c = await rawPeer(a.port, C);
      await waitFor('A sees B and C', () => a.opened.length === 2);
      const shared = new Uint8Array(140 * 1024).map((_, i) => i % 251);
      const score = Uint8Array.of(7, 7);
      const messages: Array<[MessageCode, Uint8Array]> = [
        [MessageCode.Transaction, shared],
        [MessageCode.Score, score],
        [MessageCode.GetPeers, new Uint8Array(0)],
        [MessageCode.Block, shared],
        [MessageCode.Score, score],
      ];
      for (const [code, payload] of messages) for (const peer of a.opened) assert.equal(peer.send(code, payload), true);
      // The transaction fills the socket's buffer: the scores and GetPeers wait in the send queue, the block only when nothing lets it skip.
      const expected = Buffer.concat(order.map((i) => encodeFrame(messages[i]![0], messages[i]![1])));
      for (const r of [b, c]) {
        await waitFor('every byte', () => r.frames.raw.reduce((n, x) => n + x.length, 0) >= expected.length);
        assert.deepEqual(Buffer.concat(r.frames.raw), expected);
      }
    });
  }

  it('refuses an unregistered node in both directions', async () => {
    const a = await start(A);
    const outsider = await start(OUTSIDER, { participantPublicKey: EVERYONE });
    await assert.rejects(outsider.transport.connect({ host: HOST, port: a.port }), /closed/);
    // A dials the outsider: A refuses the outsider's reply handshake.
    await assert.rejects(a.transport.connect({ host: HOST, port: outsider.port }), /is not a registered network participant/);
    // A node whose registry lacks A refuses A's handshake.
    const c = await start(C, { participantPublicKey: registryOf(B, C) });
    await assert.rejects(a.transport.connect({ host: HOST, port: c.port }), /closed/);
    assert.equal(a.transport.peers().length + c.transport.peers().length + outsider.transport.peers().length, 0);
  });

  it('reads the registry at handshake time, so a revoked node is refused on its next connection', async () => {
    let registered = true;
    const a = await start(A, { participantPublicKey: (x) => (hex(x) === hex(B.address) && !registered ? undefined : EVERYONE(x)) });
    const b = await start(B);
    const p = await b.transport.connect({ host: HOST, port: a.port });
    p.close('reconnect');
    registered = false;
    await assert.rejects(b.transport.connect({ host: HOST, port: a.port }));
  });

  it('refuses another chain id and another consensus type, naming the reason', async () => {
    const reasons: string[] = [];
    const logger = {
      info() {},
      warn() {},
      debug: (o: object) => {
        if ('reason' in o) reasons.push(String(o.reason));
      },
    };
    const a = await start(A);
    const v = await start(B, { infoOver: { chainId: 'V'.charCodeAt(0) }, logger });
    // The accepting side validates first and closes; the dialer sees the connection end.
    await assert.rejects(v.transport.connect({ host: HOST, port: a.port }), /closed/);
    await assert.rejects(a.transport.connect({ host: HOST, port: v.port }), /closed/);
    await waitFor('V logged why', () => reasons.some((r) => /peer \w+ is on chain 'T', we are on 'V'/.test(r)));
    const pos = await start(C, { infoOver: { consensusType: 'PoS' }, logger });
    await assert.rejects(a.transport.connect({ host: HOST, port: pos.port }), /closed/);
    await waitFor('PoS node logged why', () => reasons.some((r) => /runs consensus 'PoA', we run 'PoS'/.test(r)));
    assert.equal(a.transport.peers().length + v.transport.peers().length + pos.transport.peers().length, 0);
  });

  it('closes only the connection that sends garbage or oversize frames', async () => {
    const a = await start(A);
    const b = await start(B);
    const peerOfA = await b.transport.connect({ host: HOST, port: a.port });

    // Garbage instead of a handshake
    const g1 = await rawSocket(a.port);
    g1.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await closedPromise(g1);

    // Valid handshake, then garbage
    const c1 = await rawPeer(a.port, C);
    await waitFor('C admitted', () => a.transport.peers().length === 2);
    c1.socket.write(Buffer.from('this is not a frame at all'));
    await closedPromise(c1.socket);

    // Valid handshake, then a frame header announcing a 10 MB transaction (the body never comes)
    const c2 = await rawPeer(a.port, C);
    const header = Buffer.alloc(13);
    header.writeInt32BE(9 + 4 + 10_000_000, 0);
    header.writeInt32BE(0x12345678, 4);
    header[8] = MessageCode.Transaction;
    header.writeInt32BE(10_000_000, 9);
    c2.socket.write(header);
    await closedPromise(c2.socket);

    // Valid handshake, then a frame with a bad checksum
    const c3 = await rawPeer(a.port, C);
    const bad = Buffer.from(encodeFrame(MessageCode.Score, Uint8Array.of(1, 2, 3)));
    bad[bad.length - 1] = bad[bad.length - 1]! ^ 1;
    c3.socket.write(bad);
    await closedPromise(c3.socket);
    await waitFor('C gone', () => a.transport.peers().length === 1);
    assert.ok(a.closed.some((c) => /checksum/.test(c.reason)));
    assert.ok(a.closed.some((c) => /exceeds/.test(c.reason)));
    assert.ok(
      a.closed.filter((c) => /checksum|exceeds/.test(c.reason)).every((c) => c.misbehaved),
      'bad frames are misbehaviour (the node suspends the address)',
    );

    // B still works both ways
    assert.equal(peerOfA.closed, false);
    peerOfA.send(MessageCode.Score, Uint8Array.of(9));
    await waitFor('A got B’s score', () => a.messages.some((m) => m.code === MessageCode.Score && m.payload[0] === 9));
    a.opened[0]!.send(MessageCode.Score, Uint8Array.of(8));
    await waitFor('B got A’s score', () => b.messages.some((m) => m.payload[0] === 8));
  });

  it('closes a peer whose message handler throws, and only that one', async () => {
    const a = await start(A, {
      onMessage: (m) => {
        if (m.code === MessageCode.MissingBlock) throw new Error('boom');
      },
    });
    const b = await start(B);
    const c = await start(C);
    const fromB = await b.transport.connect({ host: HOST, port: a.port });
    const fromC = await c.transport.connect({ host: HOST, port: a.port });
    fromB.send(MessageCode.MissingBlock, new Uint8Array(64));
    await waitFor('B closed', () => fromB.closed);
    assert.match(a.closed[0]!.reason, /boom/);
    assert.equal(a.closed[0]!.misbehaved, true, 'a message its handler refused is misbehaviour');
    fromC.send(MessageCode.Score, Uint8Array.of(1));
    await waitFor('C still delivers', () => a.messages.some((m) => m.code === MessageCode.Score));
    assert.equal(fromC.closed, false);
  });

  it('times out a silent or half-sent handshake', async () => {
    const a = await start(A, { handshakeTimeoutMs: 150 });
    const silent = await rawSocket(a.port);
    const half = await rawSocket(a.port);
    half.write(Uint8Array.of(3, 0, 0, 0, 50, 1, 2));
    await Promise.all([closedPromise(silent), closedPromise(half)]);
    // A dialer whose remote never answers gives up too.
    const mute = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => mute.listen(0, HOST, () => r()));
    try {
      const port = (mute.address() as net.AddressInfo).port;
      await assert.rejects(a.transport.connect({ host: HOST, port }), /handshake timeout/);
    } finally {
      for (const s of sockets.splice(0)) s.destroy();
      await new Promise((r) => mute.close(r));
    }
  });

  it('closes a peer that sends nothing for the idle timeout', async () => {
    const a = await start(A, { idleTimeoutMs: 200 });
    const b = await start(B);
    const p = await b.transport.connect({ host: HOST, port: a.port });
    await waitFor('idle close', () => p.closed);
    assert.match(a.closed[0]!.reason, /no messages for 200 ms/);
  });

  it('bounds the send queue of a peer that stops reading', async () => {
    const a = await start(A, { sendQueue: { maxBytes: 2 * 1024 * 1024, maxMessages: 8 } });
    const reader = await rawPeer(a.port, B);
    reader.socket.pause();
    await waitFor('A sees B', () => a.opened.length === 1);
    const peer = a.opened[0]!;
    const block = new Uint8Array(512 * 1024);
    let accepted = 0;
    while (peer.send(MessageCode.Block, block)) {
      accepted++;
      assert.ok(accepted < 200, 'send queue never filled');
    }
    assert.equal(peer.closed, false);
    // Resuming the reader drains everything that was accepted, in order and intact.
    reader.socket.resume();
    await waitFor('queued blocks arrive', () => reader.frames.got.length === accepted, 5000);
    assert.ok(reader.frames.got.every((m) => m.code === MessageCode.Block && m.payload.length === block.length));
    assert.equal(peer.send(MessageCode.Block, block), true);
  });

  it('sends a micro-block inventory ahead of the transactions its send queue holds back, within the queue bound', async () => {
    const a = await start(A, { sendQueue: { maxBytes: 8 * 1024 * 1024, maxMessages: 10_000 }, skipsSendQueue });
    const reader = await rawPeer(a.port, B);
    await waitFor('A sees B', () => a.opened.length === 1);
    const peer = a.opened[0]!;
    // In one turn: the first transactions fill the socket's buffer, the rest wait in the send queue.
    const tx = new Uint8Array(2000).fill(1);
    for (let i = 0; i < 2000; i++) assert.ok(peer.send(MessageCode.Transaction, tx));
    const inventory = new Uint8Array(224).fill(7);
    assert.ok(peer.send(MessageCode.MicroBlockInventory, inventory));
    // Within the byte bound, counting what the socket holds: a micro-block that would overfill it is dropped.
    assert.equal(peer.send(MessageCode.MicroBlockResponse, new Uint8Array(5 * 1024 * 1024)), false);
    await waitFor('everything arrives', () => reader.frames.got.length === 2001, 10_000);
    const at = reader.frames.got.findIndex((m) => m.code === MessageCode.MicroBlockInventory);
    assert.ok(at < 100, `the inventory came after ${at} of 2000 transactions`);
    assert.deepEqual(reader.frames.got[at]!.payload, inventory);
    assert.equal(reader.frames.got.filter((m) => m.code === MessageCode.Transaction).length, 2000, 'every transaction still arrives');
  });

  it('refuses a second connection to an owner already connected, keeping the first', async () => {
    const a = await start(A);
    const b = await start(B);
    const first = await b.transport.connect({ host: HOST, port: a.port });
    await assert.rejects(b.transport.connect({ host: HOST, port: a.port }), /already connected|closed/);
    assert.equal(first.closed, false);
    assert.equal(a.transport.peers().length, 1);
    assert.equal(b.transport.peers().length, 1);
    first.send(MessageCode.Score, Uint8Array.of(7));
    await waitFor('first still works', () => a.messages.length === 1);
  });

  it('keeps exactly one connection when two nodes dial each other at once', async () => {
    const a = await start(A);
    const b = await start(B);
    await Promise.allSettled([a.transport.connect({ host: HOST, port: b.port }), b.transport.connect({ host: HOST, port: a.port })]);
    await waitFor('one peer each', () => a.transport.peers().length === 1 && b.transport.peers().length === 1);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(a.transport.peers().length, 1);
    assert.equal(b.transport.peers().length, 1);
    a.transport.peers()[0]!.send(MessageCode.Score, Uint8Array.of(3));
    b.transport.peers()[0]!.send(MessageCode.Score, Uint8Array.of(4));
    await waitFor('exchange', () => a.messages.length === 1 && b.messages.length === 1);
  });

  it('refuses peers beyond max connections', async () => {
    const a = await start(A, { maxConnections: 1 });
    const b = await start(B);
    const c = await start(C);
    await b.transport.connect({ host: HOST, port: a.port });
    await assert.rejects(c.transport.connect({ host: HOST, port: a.port }));
    assert.equal(a.transport.peers().length, 1);
  });

  it("answers a framed snapshot request without a handshake (WE's handshake-free 36/37), split over chunks; other frames first close", async () => {
    const answers: number[] = [];
    const a = await start(A, {
      handshakeFreeMessages: {
        codes: new Set([MessageCode.SnapshotRequest, MessageCode.GenesisSnapshotRequest]),
        answer: (code, payload) => {
          answers.push(code, payload.length);
          return code === MessageCode.GenesisSnapshotRequest
            ? { close: 'no snapshot', reply: { code: MessageCode.GenesisSnapshotError, payload: Buffer.from([0, 0, 0, 2, 0x68, 0x69]) } }
            : { close: 'unidentified' };
        },
      },
    });
    const genesis = await rawSocket(a.port);
    const got: Buffer[] = [];
    genesis.on('data', (b: Buffer) => got.push(b));
    const frame = encodeFrame(MessageCode.GenesisSnapshotRequest, new Uint8Array(32 + 64 + 8 + 64).fill(1));
    genesis.write(frame.subarray(0, 5));
    await new Promise((r) => setTimeout(r, 20));
    genesis.write(frame.subarray(5, 40));
    await new Promise((r) => setTimeout(r, 20));
    genesis.write(frame.subarray(40));
    await closedPromise(genesis);
    assert.deepEqual(answers, [MessageCode.GenesisSnapshotRequest, 168]);
    const [reply] = new FrameDecoder().feed(Buffer.concat(got));
    assert.equal(reply?.code, MessageCode.GenesisSnapshotError);
    assert.deepEqual(Buffer.from(reply.payload), Buffer.from([0, 0, 0, 2, 0x68, 0x69]));
    const request = await rawSocket(a.port);
    request.write(encodeFrame(MessageCode.SnapshotRequest, new Uint8Array(40)));
    await closedPromise(request);
    assert.deepEqual(answers.slice(2), [MessageCode.SnapshotRequest, 40]);
    const score = await rawSocket(a.port);
    score.write(encodeFrame(MessageCode.Score, Uint8Array.of(1)));
    await closedPromise(score);
    assert.equal(answers.length, 4, 'a score before a handshake is not handed on');
    assert.equal(a.transport.peers().length, 0);
  });

  it('answers a peer identity request without a handshake', async () => {
    const a = await start(A);
    const key = await requestPeerIdentity({ host: HOST, port: a.port }, B.address, (m) => suite.sign(B.keys.privateKey, m), 2000);
    assert.deepEqual(key, A.keys.publicKey);
    const refused = requestPeerIdentity({ host: HOST, port: a.port }, OUTSIDER.address, (m) => suite.sign(OUTSIDER.keys.privateKey, m), 2000);
    await assert.rejects(refused, (e: unknown) => e instanceof PeerIdentityError && e.notRegistered);
    // B's address signed with C's key
    await assert.rejects(
      requestPeerIdentity({ host: HOST, port: a.port }, B.address, (m) => suite.sign(C.keys.privateKey, m), 2000),
      (e: unknown) => e instanceof PeerIdentityError && /InvalidRequestSignature/.test(e.message),
    );
    // A node that is not registered itself cannot vouch for its key.
    const outsider = await start(OUTSIDER);
    await assert.rejects(
      requestPeerIdentity({ host: HOST, port: outsider.port }, B.address, (m) => suite.sign(B.keys.privateKey, m), 2000),
      /Invalid server state/,
    );
    assert.equal(a.transport.peers().length, 0);
  });

  it('runs over TLS when configured', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-tls-'));
    const files = writeSelfSignedCertificate(dir);
    if (files === undefined) {
      rmSync(dir, { recursive: true, force: true });
      t.skip('openssl is not available');
      return;
    }
    const key = readFileSync(files.keyFile);
    const cert = readFileSync(files.certFile);
    rmSync(dir, { recursive: true, force: true });
    const tlsOptions = { key, cert, ca: cert };
    const a = await start(A, { tls: tlsOptions });
    const b = await start(B, { tls: tlsOptions });
    const p = await b.transport.connect({ host: HOST, port: a.port });
    p.send(MessageCode.Score, Uint8Array.of(5));
    await waitFor('TLS message', () => a.messages.length === 1);
    // A plain-TCP dialer cannot talk to a TLS node.
    const plain = await start(C);
    await assert.rejects(plain.transport.connect({ host: HOST, port: a.port }));
    const identity = await requestPeerIdentity({ host: HOST, port: a.port }, B.address, (m) => suite.sign(B.keys.privateKey, m), 2000, tlsOptions);
    assert.deepEqual(identity, A.keys.publicKey);
  });
});
