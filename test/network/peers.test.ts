/**
 * The peer manager (src/network/peers.ts) over a fake transport and a manual clock: dialing
 * known peers with capped exponential back-off, suspension after a failed attempt (reported per
 * host), `connect` on request past a suspension, the connection limit, one connection per
 * owner, known peers' last-seen times and expiry, and WE's `Peers` message codec.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodePeers, encodePeers, MAX_CANDIDATES, PeerManager, socketAddressText, type PeerManagerOptions } from '../../src/network/peers.js';
import { MessageCode, type HandshakeInfo, type Peer, type PeerEndpoint, type Timers } from '../../src/network/types.js';

/** A clock and timers that move only when told. */
class ManualTime implements Timers {
  now = 1_700_000_000_000;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 1;

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ at: this.now + ms, fn, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Runs every timer due within `ms`, in time order, letting promises settle between them. */
  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      await flush();
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.now = Math.max(this.now, due.at);
      due.fn();
    }
    this.now = end;
    await flush();
  }
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await nextTurn();
};

let nextPeerId = 1;

class FakePeer implements Peer {
  readonly id = nextPeerId++;
  closed = false;
  closeReason: string | undefined;
  readonly sent: Array<{ code: number; payload: Uint8Array }> = [];
  readonly ownerPublicKey = new Uint8Array(32);
  constructor(
    readonly remote: PeerEndpoint,
    readonly outbound: boolean,
    readonly info: HandshakeInfo,
  ) {}

  send(code: MessageCode, payload: Uint8Array): boolean {
    if (this.closed) return false;
    this.sent.push({ code, payload });
    return true;
  }

  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
  }
}

const owner = (n: number): Uint8Array => {
  const a = new Uint8Array(26);
  a[0] = 1;
  a[1] = 84;
  a[2] = n;
  return a;
};

const info = (n: number, declared?: PeerEndpoint): HandshakeInfo => ({
  chainId: 84,
  version: [1, 14, 0],
  consensusType: 'PoA',
  declaredAddress: declared,
  nonce: BigInt(n),
  nodeName: `node-${n}`,
  ownerAddress: owner(n),
  sessionPublicKey: new Uint8Array(32),
});

const SELF = 5;
const ep = (port: number, host = '127.0.0.1'): PeerEndpoint => ({ host, port });

interface Harness {
  readonly time: ManualTime;
  readonly manager: PeerManager;
  /** Every dial attempt, in order. */
  readonly dials: PeerEndpoint[];
  /** Which ports accept (and which owner answers there); others refuse. */
  readonly up: Map<number, number>;
}

function harness(overrides: Partial<PeerManagerOptions> = {}, known: PeerEndpoint[] = [ep(7001), ep(7002)]): Harness {
  const time = new ManualTime();
  const dials: PeerEndpoint[] = [];
  const up = new Map<number, number>();
  const manager = new PeerManager({
    dial: (e) => {
      dials.push(e);
      const n = up.get(e.port);
      if (n === undefined) return Promise.reject(new Error(`connect ECONNREFUSED ${e.host}:${e.port}`));
      return Promise.resolve(new FakePeer(e, true, info(n, e)));
    },
    ownOwnerAddress: owner(SELF),
    ownEndpoints: [ep(7000)],
    knownPeers: known,
    maxConnections: 30,
    attemptDelayMs: 1000,
    initialDelayMs: 0,
    suspensionMs: 5000,
    peersResidenceMs: 60_000,
    now: () => time.now,
    timers: time,
    log: { info() {}, warn() {}, debug() {} },
    ...overrides,
  });
  return { time, manager, dials, up };
}

const dialsTo = (h: Harness, port: number): number => h.dials.filter((d) => d.port === port).length;

describe('PeerManager: dialing', () => {
  it('dials every known peer at start and keeps the ones that answer', async () => {
    const h = harness();
    h.up.set(7001, 1);
    h.up.set(7002, 2);
    h.manager.start();
    await h.time.advance(10);
    assert.deepEqual(
      h.manager
        .connected()
        .map((p) => p.info.nodeName)
        .sort(),
      ['node-1', 'node-2'],
    );
    // Connected addresses are not dialed again.
    await h.time.advance(10_000);
    assert.equal(dialsTo(h, 7001), 1);
    assert.equal(dialsTo(h, 7002), 1);
    h.manager.stop();
  });

  it('backs off exponentially (capped) from a peer that is down, and connects once it is up', async () => {
    const h = harness({ suspensionMs: 1, maxAttemptDelayMs: 4000 }, [ep(7001)]);
    h.manager.start();
    const attemptsAt: number[] = [];
    const start = h.time.now;
    for (let t = 0; t < 20_000; t += 100) {
      const before = h.dials.length;
      await h.time.advance(100);
      if (h.dials.length > before) attemptsAt.push(h.time.now - start);
    }
    const gaps = attemptsAt.slice(1).map((t, i) => t - attemptsAt[i]!);
    // 1 s, 2 s, 4 s, then capped at 4 s (within one 100 ms step of the schedule).
    assert.ok(gaps.length >= 5, `attempts at ${attemptsAt.join(', ')}`);
    const rounded = gaps.map((g) => Math.round(g / 1000));
    assert.deepEqual(rounded.slice(0, 5), [1, 2, 4, 4, 4], `gaps ${gaps.join(', ')}`);
    h.up.set(7001, 1);
    await h.time.advance(4100);
    assert.equal(h.manager.connected().length, 1);
    h.manager.stop();
  });

  it('suspends an address after a failed attempt (listed per host, as WE) and does not dial it until the suspension ends', async () => {
    const h = harness({ suspensionMs: 30_000, maxAttemptDelayMs: 1000 }, [ep(7001)]);
    h.manager.start();
    await h.time.advance(10);
    assert.equal(dialsTo(h, 7001), 1);
    const suspended = h.manager.suspended();
    assert.deepEqual(
      suspended.map((s) => s.hostname),
      ['/127.0.0.1'],
    );
    assert.ok(suspended[0]!.timestamp >= h.time.now - 10 && suspended[0]!.timestamp <= h.time.now);
    await h.time.advance(29_000);
    assert.equal(dialsTo(h, 7001), 1, 'not dialed while suspended');
    await h.time.advance(2000);
    assert.equal(dialsTo(h, 7001), 2, 'dialed again once the suspension ended');
    h.manager.stop();
  });

  it('a suspended address does not keep other ports of the same host from being dialed', async () => {
    const h = harness({ suspensionMs: 60_000 });
    h.up.set(7002, 2);
    h.manager.start();
    await h.time.advance(10);
    assert.deepEqual(
      h.manager.connected().map((p) => p.remote.port),
      [7002],
    );
    assert.equal(h.manager.suspended().length, 1);
    h.manager.stop();
  });

  it('connect() dials at once, suspended or not', async () => {
    const h = harness({ suspensionMs: 60_000 }, [ep(7001)]);
    h.manager.start();
    await h.time.advance(10);
    assert.equal(h.manager.connected().length, 0);
    h.up.set(7001, 1);
    h.manager.connect(ep(7001));
    await h.time.advance(1);
    assert.equal(h.manager.connected().length, 1);
    assert.equal(dialsTo(h, 7001), 2);
    // Connecting to a connected address does nothing.
    h.manager.connect(ep(7001));
    await h.time.advance(1);
    assert.equal(dialsTo(h, 7001), 2);
    h.manager.stop();
  });

  it('never dials its own addresses', async () => {
    const h = harness({}, [ep(7000), ep(7001)]);
    h.manager.start();
    h.manager.connect(ep(7000));
    await h.time.advance(5000);
    assert.equal(dialsTo(h, 7000), 0);
    h.manager.stop();
  });

  it('redials a peer whose connection dropped, after the attempt delay', async () => {
    const h = harness({}, [ep(7001)]);
    h.up.set(7001, 1);
    h.manager.start();
    await h.time.advance(10);
    const [peer] = h.manager.connected();
    peer!.close('connection closed by the remote side');
    assert.equal(h.manager.closed(peer!, 'connection closed by the remote side'), true);
    assert.equal(h.manager.connected().length, 0);
    await h.time.advance(500);
    assert.equal(dialsTo(h, 7001), 1);
    await h.time.advance(1000);
    assert.equal(dialsTo(h, 7001), 2);
    assert.equal(h.manager.connected().length, 1);
    h.manager.stop();
  });
});

describe('PeerManager: accepting connections', () => {
  it('refuses a connection to itself, a second one to the same owner, and any beyond the limit', () => {
    const h = harness({ maxConnections: 2 });
    const self = new FakePeer(ep(40000), false, info(SELF));
    assert.equal(h.manager.accept(self).accepted, false);
    assert.equal(self.closed, true);
    const a = new FakePeer(ep(40001), false, info(1));
    const b = new FakePeer(ep(40002), false, info(2));
    assert.equal(h.manager.accept(a).accepted, true);
    assert.equal(h.manager.accept(a).accepted, true, 'idempotent');
    const again = new FakePeer(ep(40003), false, info(1));
    const second = h.manager.accept(again);
    assert.equal(second.accepted, false);
    assert.match(again.closeReason!, /already exists/);
    assert.equal(h.manager.accept(b).accepted, true);
    const c = new FakePeer(ep(40004), false, info(3));
    const third = h.manager.accept(c);
    assert.equal(third.accepted, false);
    assert.match(c.closeReason!, /maximum number of allowed connections \('2'\)/);
    assert.equal(h.manager.connected().length, 2);
    assert.equal(h.manager.peerOf(owner(1)), a);
  });

  it('two nodes dialing each other keep the same one connection (dialed by the smaller owner address)', () => {
    // Self is owner 5: against owner 1 (smaller) the connection owner 1 dialed (inbound here) wins;
    // against owner 9 (larger) this node's outbound one wins — whatever the arrival order.
    for (const [other, winner] of [
      [1, 'inbound'],
      [9, 'outbound'],
    ] as const) {
      for (const order of [
        ['inbound', 'outbound'],
        ['outbound', 'inbound'],
      ] as const) {
        const h = harness();
        const peers = {
          inbound: new FakePeer(ep(40010), false, info(other)),
          outbound: new FakePeer(ep(7001), true, info(other)),
        };
        for (const which of order) h.manager.accept(peers[which]);
        assert.deepEqual(h.manager.connected(), [peers[winner]], `owner ${other}, order ${order.join(' then ')}`);
        assert.equal(peers[winner === 'inbound' ? 'outbound' : 'inbound'].closed, true);
      }
    }
  });

  it('learns and lists the declared address of an inbound peer on the same host, with when it was last seen', async () => {
    const h = harness({}, []);
    const p = new FakePeer(ep(40020), false, info(1, ep(7011)));
    h.manager.accept(p);
    const at = h.time.now;
    assert.deepEqual(
      h.manager.known().map((k) => [socketAddressText(k.endpoint), k.lastSeen]),
      [['/127.0.0.1:7011', at]],
    );
    await h.time.advance(5000);
    h.manager.seen(p);
    assert.equal(h.manager.known()[0]!.lastSeen, at + 5000);
    // A declared address on another host than the socket's is not trusted.
    h.manager.accept(new FakePeer(ep(40021), false, info(2, ep(7012, '10.9.9.9'))));
    assert.equal(h.manager.known().length, 1);
  });

  it('forgets learned peers after peers-data-residence-time, never the configured ones', async () => {
    const h = harness({ peersResidenceMs: 10_000 }, [ep(7001)]);
    h.manager.accept(new FakePeer(ep(40030), false, info(1, ep(7011))));
    assert.equal(h.manager.known().length, 2);
    await h.time.advance(11_000);
    assert.deepEqual(
      h.manager.known().map((k) => k.endpoint.port),
      [7001],
    );
  });
});

describe('PeerManager: peers exchange', () => {
  it('answers GetPeers with its known peers and dials the candidates a Peers message brings (at most 100 kept)', async () => {
    const h = harness({ peersExchangeIntervalMs: 60_000 }, [ep(7001)]);
    h.up.set(7001, 1);
    h.up.set(7050, 50);
    h.manager.start();
    await h.time.advance(10);
    const [peer] = h.manager.connected() as FakePeer[];
    assert.ok(
      peer!.sent.some((m) => m.code === MessageCode.GetPeers),
      'asks a new peer for its peers',
    );
    assert.equal(h.manager.handle(peer!, MessageCode.GetPeers, new Uint8Array(0)), true);
    const reply = peer!.sent.findLast((m) => m.code === MessageCode.Peers)!;
    assert.deepEqual(decodePeers(reply.payload), [ep(7001)]);
    const many = Array.from({ length: 150 }, (_, i) => ep(8000 + i));
    h.manager.handle(peer!, MessageCode.Peers, encodePeers([ep(7000), ...many, ep(7050)]));
    assert.equal(h.manager.candidateList().length, MAX_CANDIDATES);
    await h.time.advance(10);
    assert.ok(h.manager.connected().some((p) => p.remote.port === 7050));
    // Once connected, a candidate is a known peer.
    assert.ok(h.manager.known().some((k) => k.endpoint.port === 7050));
    assert.equal(dialsTo(h, 7000), 0, 'its own address is not a candidate');
    h.manager.stop();
  });

  it('Peers codec: round trip, WE layout, malformed input refused', () => {
    const bytes = encodePeers([{ host: 'a.example', port: 6864 }]);
    assert.equal(Buffer.from(bytes).toString('hex'), '0001' + '0009' + Buffer.from('a.example').toString('hex') + '00001ad0');
    assert.throws(() => decodePeers(new Uint8Array([0])), /without a count/);
    assert.throws(() => decodePeers(new Uint8Array([0, 2, 0, 1, 97, 0, 0, 0, 1])), /truncated/);
    assert.throws(() => decodePeers(new Uint8Array([0, 0, 7])), /trailing/);
    fc.assert(
      fc.property(
        fc.array(fc.record({ host: fc.stringMatching(/^[a-z0-9.:-]{1,40}$/), port: fc.integer({ min: 1, max: 65535 }) }), { maxLength: 50 }),
        (peers) => {
          assert.deepEqual(
            decodePeers(encodePeers(peers)),
            peers.map((p) => ({ host: p.host, port: p.port })),
          );
        },
      ),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (junk) => {
        // Junk either decodes or is refused by decodePeers' own checks (never a stray RangeError from a read past the end).
        try {
          decodePeers(junk);
        } catch (e) {
          assert.ok(e instanceof Error);
          assert.match(e.message, /^Peers message /);
        }
      }),
    );
  });
});
