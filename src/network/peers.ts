/**
 * The peer manager: which nodes this node knows, talks to and keeps away from — WE's
 * PeerDatabase, P2PNetwork connection loop and ActivePeerConnections, over a PeerTransport
 * (reference/chain-consensus-network.md §11, §12).
 *
 * - Known peers: the config's `known-peers` (never expire), addresses this node connected to,
 *   and the declared addresses of peers that connected to it (when the declared host is the
 *   socket's host, as WE checks); each with when it was last seen. Entries other than the
 *   config's expire after `peers-data-residence-time`. `/peers/all` lists them.
 * - Candidates: addresses learned from other peers (message 4 `Peers`), at most 100, dialed
 *   like known peers and known once a connection to them succeeds.
 * - Dialing: every known or candidate address not connected is dialed when due. A failed
 *   attempt backs off exponentially from `attempt-connection-delay` (doubling, capped), and
 *   suspends the address for `suspension-residence-time` (WE suspends a host after a failed
 *   outbound attempt; a peer closed for sending garbage is suspended too). `/peers/suspended`
 *   lists suspended hosts as WE does. `connect()` (POST /peers/connect) dials at once,
 *   suspended or not.
 * - Connections: at most `max-simultaneous-connections` handshaken peers and one per node
 *   owner (WE refuses a second connection to the same owner). When two nodes dial each other
 *   at the same moment, both keep the connection dialed by the owner with the smaller address
 *   bytes, so they never close both.
 *
 * Suspension is kept per dialed address (host:port) and reported per host: on a loopback
 * network every node shares 127.0.0.1, and suspending the whole host after one node went
 * down would cut the others off too (WE keys its suspension by host only).
 */
import { encodeBase58 } from '../crypto/encoding.js';
import { MAX_PEERS_PAYLOAD } from './framing.js';
import { MessageCode, NODE_TIMERS, type Peer, type PeerEndpoint, type Timers } from './types.js';

/** WE's PeerDatabaseImpl keeps at most this many unverified candidates. */
export const MAX_CANDIDATES = 100;
/** `/peers/all` and `/peers/suspended` show at most this many (WE's PeersApiService). */
export const MAX_PEERS_IN_RESPONSE = 1000;
/** WE's P2PNetwork: the first connection attempt 1 s after start. */
const INITIAL_ATTEMPT_DELAY_MS = 1000;

export interface PeerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface PeerManagerOptions {
  /** Dials and handshakes (PeerTransport.connect). */
  readonly dial: (endpoint: PeerEndpoint) => Promise<Peer>;
  /** This node's owner address bytes: a connection to itself is refused. */
  readonly ownOwnerAddress: Uint8Array;
  /** This node's own listening and declared addresses: never dialed. */
  readonly ownEndpoints: readonly PeerEndpoint[];
  /** `network.known-peers`. */
  readonly knownPeers: readonly PeerEndpoint[];
  /** `network.max-simultaneous-connections`. */
  readonly maxConnections: number;
  /** `network.attempt-connection-delay`: the first back-off step. */
  readonly attemptDelayMs: number;
  /** Cap of the back-off (default 12 × attemptDelayMs). */
  readonly maxAttemptDelayMs?: number;
  /** First attempt after start (default min(1 s, attemptDelayMs), as WE's P2PNetwork). */
  readonly initialDelayMs?: number;
  /** `network.suspension-residence-time`. */
  readonly suspensionMs: number;
  /** `network.peers-data-residence-time`. */
  readonly peersResidenceMs: number;
  /** `network.enable-peers-exchange` with `peers-request-interval`; undefined: no exchange. */
  readonly peersExchangeIntervalMs?: number | undefined;
  /** Wall clock, ms. */
  readonly now: () => number;
  readonly timers?: Timers;
  readonly log: PeerLog;
}

/** host:port key, host lower-cased and IPv4-mapped IPv6 unwrapped. */
export function endpointKey(e: PeerEndpoint): string {
  return `${normalizeHost(e.host)}:${e.port}`;
}

export function normalizeHost(host: string): string {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h.startsWith('::ffff:') && h.includes('.') ? h.slice(7) : h;
}

/** Java's InetSocketAddress.toString for an address without a resolved name: `/ip:port`. */
export function socketAddressText(e: PeerEndpoint): string {
  return `/${normalizeHost(e.host)}:${e.port}`;
}

/** WE's `Peers` (code 4) payload: `short n`, then n × (short len + UTF-8 hostname + int port). */
export function encodePeers(peers: readonly PeerEndpoint[]): Uint8Array {
  const parts: Buffer[] = [];
  let count = 0;
  let size = 2;
  for (const p of peers) {
    const host = Buffer.from(p.host, 'utf8');
    if (host.length > 0x7fff || count >= 0x7fff) continue;
    const entry = Buffer.alloc(2 + host.length + 4);
    entry.writeUInt16BE(host.length, 0);
    host.copy(entry, 2);
    entry.writeInt32BE(p.port, 2 + host.length);
    if (size + entry.length > MAX_PEERS_PAYLOAD) break;
    parts.push(entry);
    size += entry.length;
    count++;
  }
  const head = Buffer.alloc(2);
  head.writeUInt16BE(count, 0);
  return new Uint8Array(Buffer.concat([head, ...parts]));
}

/** Decodes a `Peers` payload; throws on a malformed one (the sender's connection is then closed). */
export function decodePeers(payload: Uint8Array): PeerEndpoint[] {
  if (payload.length > MAX_PEERS_PAYLOAD) throw new Error(`Peers message of ${payload.length} bytes is over ${MAX_PEERS_PAYLOAD}`);
  const b = Buffer.from(payload.buffer, payload.byteOffset, payload.length);
  if (b.length < 2) throw new Error('Peers message without a count');
  const n = b.readInt16BE(0);
  if (n < 0) throw new Error(`Peers message with a negative count ${n}`);
  let at = 2;
  const out: PeerEndpoint[] = [];
  for (let i = 0; i < n; i++) {
    if (at + 2 > b.length) throw new Error('Peers message truncated');
    const len = b.readInt16BE(at);
    if (len < 0 || at + 2 + len + 4 > b.length) throw new Error('Peers message truncated');
    const host = b.toString('utf8', at + 2, at + 2 + len);
    const port = b.readInt32BE(at + 2 + len);
    at += 2 + len + 4;
    if (host !== '' && port > 0 && port <= 65535) out.push({ host, port });
  }
  if (at !== b.length) throw new Error('Peers message has trailing bytes');
  return out;
}

interface KnownEntry {
  readonly endpoint: PeerEndpoint;
  lastSeen: number;
  /** From the config: never expires. */
  readonly fixed: boolean;
}

interface DialState {
  failures: number;
  nextAt: number;
  pending: boolean;
}

interface Suspension {
  readonly host: string;
  readonly since: number;
}

const ownerKey = (address: Uint8Array): string => Buffer.from(address).toString('hex');

export type AcceptResult = { readonly accepted: true } | { readonly accepted: false; readonly reason: string };

export class PeerManager {
  private readonly o: PeerManagerOptions;
  private readonly timers: Timers;
  private readonly peers = new Map<number, Peer>();
  private readonly byOwner = new Map<string, Peer>();
  private readonly knownPeers = new Map<string, KnownEntry>();
  /** The known-peer key a connected peer's messages touch (null: none), worked out at its first message instead of at every one. */
  private readonly seenKeys = new WeakMap<Peer, string | null>();
  private readonly candidates = new Map<string, PeerEndpoint>();
  private readonly dialing = new Map<string, DialState>();
  private readonly suspensions = new Map<string, Suspension>();
  /** Which owner answered at a dialed address (to tell an address is connected through an inbound connection). */
  private readonly ownerAt = new Map<string, string>();
  private readonly own: ReadonlySet<string>;
  private timer: unknown;
  private exchangeTimer: unknown;
  private running = false;

  constructor(o: PeerManagerOptions) {
    this.o = o;
    this.timers = o.timers ?? NODE_TIMERS;
    this.own = new Set(o.ownEndpoints.map(endpointKey));
    const now = o.now();
    for (const e of o.knownPeers) {
      const key = endpointKey(e);
      if (!this.own.has(key)) this.knownPeers.set(key, { endpoint: e, lastSeen: now, fixed: true });
    }
  }

  /** Starts dialing known peers (and the periodic peers exchange). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(this.o.initialDelayMs ?? Math.min(INITIAL_ATTEMPT_DELAY_MS, this.o.attemptDelayMs));
    if (this.o.peersExchangeIntervalMs !== undefined) this.scheduleExchange();
  }

  /** Stops dialing; connections are the transport's to close. */
  stop(): void {
    this.running = false;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    if (this.exchangeTimer !== undefined) this.timers.clearTimeout(this.exchangeTimer);
    this.timer = undefined;
    this.exchangeTimer = undefined;
  }

  // -------------------------------------------------------------------------
  // Connections

  /**
   * A peer finished its handshake (inbound or outbound): keeps it, or closes it and says why
   * (a connection to this node itself, a second connection to the same owner, no free slot).
   * Idempotent for a peer already kept.
   */
  accept(peer: Peer): AcceptResult {
    if (this.peers.has(peer.id)) return { accepted: true };
    if (peer.closed) return { accepted: false, reason: 'closed' };
    const owner = ownerKey(peer.info.ownerAddress);
    const ownerText = encodeBase58(peer.info.ownerAddress);
    if (owner === ownerKey(this.o.ownOwnerAddress)) return this.refuse(peer, 'a connection to this node itself');
    const existing = this.byOwner.get(owner);
    if (existing !== undefined) {
      // Simultaneous dials: keep the connection dialed by the smaller owner address, on both sides.
      const selfSmaller = Buffer.compare(this.o.ownOwnerAddress, peer.info.ownerAddress) < 0;
      const preferred = (p: Peer): boolean => p.outbound === selfSmaller;
      if (preferred(peer) && !preferred(existing)) {
        this.forget(existing);
        existing.close(`Connection to peer with address '${ownerText}' already exists`);
      } else {
        return this.refuse(peer, `Connection to peer with address '${ownerText}' already exists`);
      }
    }
    if (this.peers.size >= this.o.maxConnections) {
      return this.refuse(
        peer,
        `Connection from '${socketAddressText(peer.remote)}' reached maximum number of allowed connections ('${this.o.maxConnections}')`,
      );
    }
    this.peers.set(peer.id, peer);
    this.byOwner.set(owner, peer);
    if (peer.outbound) {
      const key = endpointKey(peer.remote);
      this.ownerAt.set(key, owner);
      this.touch(peer.remote);
      const d = this.dialing.get(key);
      if (d !== undefined) {
        d.failures = 0;
        d.nextAt = 0;
      }
    }
    const declared = peer.info.declaredAddress;
    if (declared !== undefined) {
      this.ownerAt.set(endpointKey(declared), owner);
      // WE touches a declared address only when it names the host the connection comes from.
      if (normalizeHost(declared.host) === normalizeHost(peer.remote.host)) this.touch(declared);
    }
    this.o.log.info(
      { peer: socketAddressText(peer.remote), owner: ownerText, name: peer.info.nodeName, outbound: peer.outbound, connected: this.peers.size },
      'peer connected',
    );
    if (this.o.peersExchangeIntervalMs !== undefined) peer.send(MessageCode.GetPeers, new Uint8Array(0));
    return { accepted: true };
  }

  private refuse(peer: Peer, reason: string): AcceptResult {
    this.o.log.debug({ peer: socketAddressText(peer.remote), owner: encodeBase58(peer.info.ownerAddress), reason }, 'peer refused');
    peer.close(reason);
    return { accepted: false, reason };
  }

  /** A connection ended: forgets it; its address is dialed again after the back-off. Returns whether it was a kept peer. */
  closed(peer: Peer, reason: string): boolean {
    if (!this.forget(peer)) return false;
    this.o.log.info(
      { peer: socketAddressText(peer.remote), owner: encodeBase58(peer.info.ownerAddress), reason, connected: this.peers.size },
      'peer disconnected',
    );
    if (peer.outbound) {
      const d = this.dialState(endpointKey(peer.remote));
      d.nextAt = Math.max(d.nextAt, this.o.now() + this.o.attemptDelayMs);
    }
    if (this.running) this.schedule(this.o.attemptDelayMs);
    return true;
  }

  private forget(peer: Peer): boolean {
    if (!this.peers.delete(peer.id)) return false;
    const owner = ownerKey(peer.info.ownerAddress);
    if (this.byOwner.get(owner) === peer) this.byOwner.delete(owner);
    return true;
  }

  /** The kept (handshaken, accepted) peers. */
  connected(): readonly Peer[] {
    return [...this.peers.values()].filter((p) => !p.closed);
  }

  /** The connection to a node owner, if any. */
  peerOf(ownerAddress: Uint8Array): Peer | undefined {
    const p = this.byOwner.get(ownerKey(ownerAddress));
    return p === undefined || p.closed ? undefined : p;
  }

  /** A message came from a peer: it is alive (WE touches its declared address on every read). */
  seen(peer: Peer): void {
    let key = this.seenKeys.get(peer);
    if (key === undefined) {
      const declared = peer.info.declaredAddress;
      const at = peer.outbound
        ? peer.remote
        : declared !== undefined && normalizeHost(declared.host) === normalizeHost(peer.remote.host)
          ? declared
          : undefined;
      key = at === undefined ? null : endpointKey(at);
      this.seenKeys.set(peer, key);
    }
    if (key === null) return;
    const entry = this.knownPeers.get(key);
    if (entry !== undefined) entry.lastSeen = this.o.now();
  }

  // -------------------------------------------------------------------------
  // Known peers, candidates, suspension

  /** Records an address as seen now (WE's PeerDatabase.touch). */
  touch(endpoint: PeerEndpoint): void {
    const key = endpointKey(endpoint);
    if (this.own.has(key)) return;
    this.candidates.delete(key);
    const entry = this.knownPeers.get(key);
    if (entry !== undefined) entry.lastSeen = this.o.now();
    else this.knownPeers.set(key, { endpoint: { host: normalizeHost(endpoint.host), port: endpoint.port }, lastSeen: this.o.now(), fixed: false });
  }

  /** Addresses learned from a peer (message 4): unknown ones become candidates (at most 100 kept). Returns those added. */
  addCandidates(endpoints: readonly PeerEndpoint[]): PeerEndpoint[] {
    const added: PeerEndpoint[] = [];
    for (const e of endpoints) {
      const key = endpointKey(e);
      if (this.own.has(key) || this.knownPeers.has(key) || this.candidates.has(key)) continue;
      if (normalizeHost(e.host) === '0.0.0.0' || normalizeHost(e.host) === '::') continue;
      if (this.candidates.size >= MAX_CANDIDATES) {
        const oldest = this.candidates.keys().next().value;
        if (oldest !== undefined) this.candidates.delete(oldest);
      }
      this.candidates.set(key, e);
      added.push(e);
    }
    if (added.length > 0 && this.running) this.schedule(0);
    return added;
  }

  /** Known peers with when each was last seen (ms), newest first, at most 1000. */
  known(): Array<{ readonly endpoint: PeerEndpoint; readonly lastSeen: number }> {
    this.expire();
    return [...this.knownPeers.values()]
      .sort((a, b) => b.lastSeen - a.lastSeen)
      .slice(0, MAX_PEERS_IN_RESPONSE)
      .map((e) => ({ endpoint: e.endpoint, lastSeen: e.lastSeen }));
  }

  /** Candidates learned from peers, not yet connected. */
  candidateList(): readonly PeerEndpoint[] {
    return [...this.candidates.values()];
  }

  /** Keeps an address from being dialed automatically for `suspension-residence-time`. */
  suspend(endpoint: PeerEndpoint, reason: string): void {
    const key = endpointKey(endpoint);
    this.candidates.delete(key);
    this.suspensions.set(key, { host: normalizeHost(endpoint.host), since: this.o.now() });
    this.o.log.debug({ peer: socketAddressText(endpoint), reason }, 'peer suspended');
  }

  /** Suspended hosts with when they were suspended (ms), as WE lists them: `/host`, newest first. */
  suspended(): Array<{ readonly hostname: string; readonly timestamp: number }> {
    this.expire();
    const byHost = new Map<string, number>();
    for (const s of this.suspensions.values()) byHost.set(s.host, Math.max(byHost.get(s.host) ?? 0, s.since));
    return [...byHost]
      .sort((a, b) => b[1] - a[1])
      .slice(0, MAX_PEERS_IN_RESPONSE)
      .map(([host, since]) => ({ hostname: `/${host}`, timestamp: since }));
  }

  private isSuspended(key: string): boolean {
    const s = this.suspensions.get(key);
    if (s === undefined) return false;
    if (this.o.now() - s.since >= this.o.suspensionMs) {
      this.suspensions.delete(key);
      return false;
    }
    return true;
  }

  private expire(): void {
    const now = this.o.now();
    for (const [key, s] of this.suspensions) if (now - s.since >= this.o.suspensionMs) this.suspensions.delete(key);
    for (const [key, e] of this.knownPeers) if (!e.fixed && now - e.lastSeen >= this.o.peersResidenceMs) this.knownPeers.delete(key);
  }

  // -------------------------------------------------------------------------
  // Dialing

  /** Dials an address now (POST /peers/connect), suspended or not; nothing happens when it is connected or being dialed. */
  connect(endpoint: PeerEndpoint): void {
    const key = endpointKey(endpoint);
    if (this.own.has(key) || this.isConnected(key)) return;
    const d = this.dialState(key);
    if (d.pending) return;
    if (this.peers.size >= this.o.maxConnections) {
      this.o.log.warn(
        { peer: socketAddressText(endpoint), connected: this.peers.size },
        'New outgoing connection will not be added: current connections count is equal or greater than max',
      );
      return;
    }
    this.dial(key, endpoint);
  }

  private dialState(key: string): DialState {
    let d = this.dialing.get(key);
    if (d === undefined) {
      d = { failures: 0, nextAt: 0, pending: false };
      this.dialing.set(key, d);
    }
    return d;
  }

  /** Whether a kept peer is reachable at that address (dialed there, or declared it). */
  private isConnected(key: string): boolean {
    for (const p of this.peers.values()) {
      if (p.closed) continue;
      if (p.outbound && endpointKey(p.remote) === key) return true;
      if (p.info.declaredAddress !== undefined && endpointKey(p.info.declaredAddress) === key) return true;
    }
    const owner = this.ownerAt.get(key);
    return owner !== undefined && this.byOwner.has(owner);
  }

  private backoffMs(failures: number): number {
    const cap = this.o.maxAttemptDelayMs ?? this.o.attemptDelayMs * 12;
    return Math.min(cap, this.o.attemptDelayMs * 2 ** Math.max(0, failures - 1));
  }

  private dial(key: string, endpoint: PeerEndpoint): void {
    const d = this.dialState(key);
    d.pending = true;
    this.o.log.debug({ peer: socketAddressText(endpoint) }, 'connecting to peer');
    this.o
      .dial(endpoint)
      .then(
        (peer) => {
          d.failures = 0;
          d.nextAt = 0;
          // The transport reports the peer through onPeer too; accepting twice is a no-op.
          if (!peer.closed) this.accept(peer);
        },
        (e: unknown) => {
          d.failures++;
          d.nextAt = this.o.now() + this.backoffMs(d.failures);
          const reason = e instanceof Error ? e.message : String(e);
          this.o.log.debug({ peer: socketAddressText(endpoint), reason, failures: d.failures, retryInMs: d.nextAt - this.o.now() }, "Can't connect to peer");
          this.suspend(endpoint, reason);
        },
      )
      .finally(() => {
        d.pending = false;
        if (this.running) this.schedule(0);
      });
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = undefined;
        this.tick();
      },
      Math.max(0, delayMs),
    );
  }

  /** Dials every due address; sleeps until the next one is due. */
  private tick(): void {
    if (!this.running) return;
    this.expire();
    const now = this.o.now();
    let pending = 0;
    for (const d of this.dialing.values()) if (d.pending) pending++;
    let nextWake = this.o.attemptDelayMs;
    const targets: Array<[string, PeerEndpoint]> = [...[...this.knownPeers].map(([k, e]): [string, PeerEndpoint] => [k, e.endpoint]), ...this.candidates];
    for (const [key, endpoint] of targets) {
      if (this.own.has(key) || this.isConnected(key)) continue;
      const d = this.dialState(key);
      if (d.pending) continue;
      const suspension = this.suspensions.get(key);
      const eligibleAt = Math.max(d.nextAt, suspension === undefined ? 0 : suspension.since + this.o.suspensionMs);
      if (eligibleAt > now) {
        nextWake = Math.min(nextWake, eligibleAt - now);
        continue;
      }
      if (this.isSuspended(key)) continue;
      if (this.peers.size + pending >= this.o.maxConnections) break;
      pending++;
      this.dial(key, endpoint);
    }
    this.schedule(Math.max(50, nextWake));
  }

  // -------------------------------------------------------------------------
  // Peers exchange (messages 3 and 4)

  /** Handles GetPeers / Peers from a peer; returns false for any other code. Throws on a malformed Peers message. */
  handle(peer: Peer, code: number, payload: Uint8Array): boolean {
    if (code === MessageCode.GetPeers) {
      peer.send(MessageCode.Peers, encodePeers(this.known().map((k) => k.endpoint)));
      return true;
    }
    if (code === MessageCode.Peers) {
      const added = this.addCandidates(decodePeers(payload));
      if (added.length > 0) this.o.log.debug({ peer: socketAddressText(peer.remote), added: added.map(socketAddressText) }, 'peer candidates learned');
      return true;
    }
    return false;
  }

  private scheduleExchange(): void {
    const interval = this.o.peersExchangeIntervalMs;
    if (interval === undefined || !this.running) return;
    this.exchangeTimer = this.timers.setTimeout(() => {
      this.exchangeTimer = undefined;
      for (const p of this.connected()) p.send(MessageCode.GetPeers, new Uint8Array(0));
      this.scheduleExchange();
    }, interval);
  }
}
