/**
 * A tiny in-process stand-in for the P2P transport, for the sync and gossip tests only:
 * `connect(x, y)` joins two nodes' events objects with a pair of Peer objects; a message
 * one side sends arrives at the other side's onMessage on a later turn of the event loop,
 * in order. A handler that throws closes that peer (as the transport does). A side can be
 * muted for some message codes (it "stalls": what it would send is dropped), or rewrite what
 * it sends (`tamper`: a peer that serves broken copies).
 */
import {
  NODE_TIMERS,
  type HandshakeInfo,
  type MessageCode,
  type Peer,
  type PeerEndpoint,
  type PeerTransportEvents,
  type Timers,
} from '../../src/network/types.js';

export interface Endpoint {
  readonly name: string;
  readonly events: PeerTransportEvents;
  /** Codes whose sending this node drops. */
  readonly muted: Set<number>;
  /** Rewrites the payload of each message this node sends (none by default). */
  tamper: ((code: number, payload: Uint8Array) => Uint8Array) | undefined;
  /** The version this node announces in its handshake (as its peers see it; set before connecting). */
  version: readonly [number, number, number];
}

export interface Traffic {
  readonly from: string;
  readonly to: string;
  readonly code: number;
}

let nextId = 1;

export class Wire {
  readonly traffic: Traffic[] = [];
  inFlight = 0;

  endpoint(name: string, events: PeerTransportEvents): Endpoint {
    return { name, events, muted: new Set(), tamper: undefined, version: [1, 14, 0] };
  }

  /** Connects two nodes; returns the peer objects as each side sees the other. */
  connect(x: Endpoint, y: Endpoint): { atX: DoublePeer; atY: DoublePeer } {
    const atX = new DoublePeer(this, x, y);
    const atY = new DoublePeer(this, y, x);
    atX.twin = atY;
    atY.twin = atX;
    x.events.onPeer(atX);
    y.events.onPeer(atY);
    return { atX, atY };
  }

  count(code: number, from?: string, to?: string): number {
    return this.traffic.filter((t) => t.code === code && (from === undefined || t.from === from) && (to === undefined || t.to === to)).length;
  }
}

/** The peer `remoteSide` as `localSide` sees it. */
export class DoublePeer implements Peer {
  readonly id = nextId++;
  readonly remote: PeerEndpoint;
  readonly outbound = false;
  readonly info: HandshakeInfo;
  readonly ownerPublicKey = new Uint8Array(32);
  closed = false;
  closeReason: string | undefined;
  twin!: DoublePeer;

  constructor(
    private readonly wire: Wire,
    readonly localSide: Endpoint,
    readonly remoteSide: Endpoint,
  ) {
    this.remote = { host: remoteSide.name, port: 6864 };
    this.info = {
      chainId: 'T'.charCodeAt(0),
      version: remoteSide.version,
      consensusType: 'PoA',
      declaredAddress: undefined,
      nonce: BigInt(this.id),
      nodeName: remoteSide.name,
      ownerAddress: new Uint8Array(26),
      sessionPublicKey: new Uint8Array(32),
    };
  }

  send(code: MessageCode, payload: Uint8Array): boolean {
    if (this.closed) return false;
    if (this.localSide.muted.has(code)) return true;
    const copy = Uint8Array.from(this.localSide.tamper?.(code, payload) ?? payload);
    this.wire.traffic.push({ from: this.localSide.name, to: this.remoteSide.name, code });
    this.wire.inFlight++;
    setImmediate(() => {
      this.wire.inFlight--;
      const receiver = this.twin;
      if (receiver.closed) return;
      try {
        receiver.localSide.events.onMessage(receiver, code, copy);
      } catch (e) {
        receiver.close(`handler of message ${code} failed: ${(e as Error).message}`);
      }
    });
    return true;
  }

  close(reason: string, misbehaved = false): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    this.twin.closed = true;
    this.twin.closeReason = `closed by the remote: ${reason}`;
    this.localSide.events.onClose(this, reason, misbehaved);
    this.twin.localSide.events.onClose(this.twin, this.twin.closeReason, false);
  }
}

/** Waits (real time, bounded) until `cond` holds. */
export async function until(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Waits until no message has been in flight for a few turns. */
export async function quiet(wire: Wire, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let idle = 0;
  while (idle < 5) {
    if (Date.now() > end) throw new Error('the network did not go quiet');
    await new Promise((r) => setTimeout(r, 2));
    idle = wire.inFlight === 0 ? idle + 1 : 0;
  }
}

/**
 * Timers that run only when the test fires them, so a test decides the order of a node's
 * timeouts and the network's traffic instead of the machine's speed. Timers shorter than
 * `holdFromMs` (a turn deferred with 0 ms, say) run on the real clock.
 */
export class HeldTimers implements Timers {
  private readonly pending = new Map<object, { readonly f: () => void; readonly ms: number }>();

  constructor(private readonly holdFromMs = 0) {}

  /** How many timers wait to be fired (those of `ms` only, when given). */
  held(ms?: number): number {
    return [...this.pending.values()].filter((t) => ms === undefined || t.ms === ms).length;
  }

  setTimeout(f: () => void, ms: number): unknown {
    if (ms < this.holdFromMs) return NODE_TIMERS.setTimeout(f, ms);
    const handle = {};
    this.pending.set(handle, { f, ms });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    if (!this.pending.delete(handle as object)) NODE_TIMERS.clearTimeout(handle);
  }

  /** Runs the timers held now (those of `ms` only, when given); timers they set wait for the next call. */
  fire(ms?: number): number {
    const due = [...this.pending].filter(([, t]) => ms === undefined || t.ms === ms);
    for (const [handle] of due) this.pending.delete(handle);
    for (const [, t] of due) t.f();
    return due.length;
  }
}
