/**
 * `PeerTransport` over node:net (node:tls when configured): WE's V3 signed handshake on
 * every connection, then WE's framed messages (reference/chain-consensus-network.md §11).
 *
 * - The dialing side sends its handshake first; the accepting side validates it, then
 *   replies with its own; each side validates the other (handshake.ts: WE's rules, the
 *   owner key read from the node registry through `participantPublicKey` at handshake
 *   time, so a revoked node is refused on its next connection).
 * - On the accepting side the first byte decides: 0x02/0x03 a handshake, 0x66 a
 *   PeerIdentityRequest (answered, then the connection closes); a frame whose code the
 *   caller's `handshakeFreeMessages` names (WE's HandshakeFreeMessagesDecoder: magic at
 *   offset 4, the code at 8 — snapshot requests) is answered by the caller, then the
 *   connection closes; anything else closes.
 * - Each peer has a bounded send queue (bytes and messages): while the socket reports
 *   back-pressure, messages wait in it; when it is full `send` drops and returns false.
 *   A message whose code the caller's `skipsSendQueue` names (the chain routing's block
 *   traffic) skips the queue under back-pressure: it goes to the socket at once, within the
 *   queue's byte bound, instead of waiting behind the rest.
 * - A message's frame is encoded once for all the peers it goes to (framing.ts
 *   OutgoingFrames), and the messages sent to a peer in one callback leave in one write:
 *   the socket is corked at the first and uncorked when the callback is done.
 * - Large confidential-data items arrive as stream frames between messages (framing.ts):
 *   they go to the stream a caller asked for with `receiveStream` (oldest first), at most
 *   its buffer ahead — beyond that the socket is paused, as WE turns auto-read off; stream
 *   frames nobody waits for are dropped. `sendStream` writes one stream at a time.
 * - Any bad input — garbage, a malformed or oversize frame, a failing handshake, a
 *   throwing event handler, a socket error — closes that one connection; nothing throws
 *   out of a socket callback.
 */
import { generateKeyPairSync } from 'node:crypto';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { encodeBase58, equalBytes } from '../crypto/encoding.js';
import {
  encodeFrame,
  encodeStreamFrame,
  FRAME_HEADER_LENGTH,
  FRAME_MAGIC,
  FrameDecoder,
  FrameError,
  frameSize,
  MAX_PAYLOAD,
  OutgoingFrames,
  STREAM_FRAME,
} from './framing.js';
import {
  decodePeerIdentityRequest,
  decodePeerIdentityResponse,
  encodeHandshake,
  encodePeerIdentityMessage,
  encodePeerIdentityRequest,
  encodePeerIdentitySuccess,
  HANDSHAKE_V2,
  HANDSHAKE_V3,
  HandshakeDecoder,
  PEER_IDENTITY_REQUEST,
  PEER_IDENTITY_REQUEST_LENGTH,
  validateHandshake,
} from './handshake.js';
import {
  MessageCode,
  type HandshakeInfo,
  type IncomingFrames,
  type NetworkTrafficObserver,
  type Peer,
  type PeerEndpoint,
  type PeerTransport,
  type PeerTransportEvents,
  type SessionKeyPair,
  type StreamPeer,
} from './types.js';
import { InternalError } from '../errors/internal.js';

/** The pino methods the transport uses. */
export interface TransportLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface TransportTlsOptions {
  readonly key: string | Buffer;
  readonly cert: string | Buffer;
  /** Trusted CAs for the remote side's certificate; when absent the system store. */
  readonly ca?: string | Buffer | readonly (string | Buffer)[];
  /** Refuse peers whose certificate does not verify against `ca` (default true). */
  readonly rejectUnauthorized?: boolean;
}

export interface SendQueueBounds {
  /** Bytes waiting in the queue (default 32 MiB). */
  readonly maxBytes?: number;
  /** Messages waiting in the queue (default 10 000). */
  readonly maxMessages?: number;
}

export interface PeerTransportOptions {
  /** What we say about ourselves; the session key is made per connection. */
  readonly info: Omit<HandshakeInfo, 'sessionPublicKey'>;
  /** Signs with the owner's private key. */
  readonly sign: (message: Uint8Array) => Uint8Array;
  /** Verifies with the configured crypto suite. */
  readonly verify: (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;
  /** The registered public key of a node owner address (node registry), or undefined. */
  readonly participantPublicKey: (address: Uint8Array) => Uint8Array | undefined;
  readonly events: PeerTransportEvents;
  /** A fresh session key pair per connection (default: a new X25519 pair); its public half goes in the handshake. */
  readonly sessionKeys?: () => SessionKeyPair;
  /** The length of peers' session keys: the network crypto's (handshake.ts sessionKeyLength; default 32, WAVES). */
  readonly sessionKeyLength?: number;
  /** WE's network.handshake-timeout (default 30 s). */
  readonly handshakeTimeoutMs?: number;
  /** WE's network.connection-timeout for dialing (default 30 s). */
  readonly connectTimeoutMs?: number;
  /** WE's break-idle-connections-timeout: close a peer that sent nothing for this long (default 60 s; 0 = never). */
  readonly idleTimeoutMs?: number;
  /** WE's max-simultaneous-connections (default 30). */
  readonly maxConnections?: number;
  readonly sendQueue?: SendQueueBounds;
  /** Per-code payload caps (default MAX_PAYLOAD). */
  readonly maxPayload?: ReadonlyMap<number, number>;
  readonly tls?: TransportTlsOptions;
  readonly logger?: TransportLogger;
  /** Told of every message in and out (metrics); absent: nothing is counted. */
  readonly traffic?: NetworkTrafficObserver;
  /**
   * Codes of messages written to the socket at once while the send queue holds
   * back-pressured ones, which they would otherwise wait behind (the chain routing's block
   * traffic: chain-messages.ts skipsSendQueue). Absent: every message keeps its turn.
   */
  readonly skipsSendQueue?: (code: number) => boolean;
  /**
   * Framed messages a connection may open with instead of a handshake: their codes, and what
   * each gets — a message written back, then the connection closes (a payload that does not
   * read throws: closed at once). Absent: such a connection closes.
   */
  readonly handshakeFreeMessages?: {
    readonly codes: ReadonlySet<number>;
    answer(code: number, payload: Uint8Array): { readonly close: string; readonly reply?: { readonly code: number; readonly payload: Uint8Array } };
  };
}

const NO_LOG: TransportLogger = { info() {}, warn() {}, debug() {} };

function defaultSessionKeys(): SessionKeyPair {
  const { privateKey } = generateKeyPairSync('x25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return { publicKey: new Uint8Array(Buffer.from(jwk.x ?? '', 'base64url')), privateKey: new Uint8Array(Buffer.from(jwk.d ?? '', 'base64url')) };
}

/**
 * One incoming stream: frames queued for its reader, at most `capacity` ahead (the
 * connection pauses its socket beyond that). Cancelled in the middle of its stream, it
 * swallows the rest of that stream up to its end frame; cancelled before any of it
 * arrived, it leaves the queue at once (a stream that arrives later goes to the next
 * reader, whose item check refuses it).
 */
class StreamInbox implements IncomingFrames {
  readonly #frames: Uint8Array[] = [];
  #wake: (() => void) | undefined;
  #failed: Error | undefined;
  /** The end frame arrived (the stream is complete in the queue). */
  ended = false;
  /** A frame of its stream arrived. */
  started = false;

  constructor(
    readonly capacity: number,
    private readonly onRead: () => void,
    private readonly onCancel: (inbox: StreamInbox) => void,
  ) {}

  get cancelled(): boolean {
    return this.#failed !== undefined;
  }

  get full(): boolean {
    return this.#frames.length >= this.capacity;
  }

  /** A frame from the socket (dropped once cancelled). */
  push(frame: Uint8Array): void {
    this.started = true;
    if (frame.length === 0) this.ended = true;
    if (this.#failed !== undefined) return;
    this.#frames.push(frame);
    this.#wake?.();
  }

  cancel(reason?: Error): void {
    if (this.#failed !== undefined) return;
    this.#failed = reason ?? new Error('stream cancelled');
    this.#frames.length = 0;
    this.#wake?.();
    this.onCancel(this);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    for (;;) {
      if (this.#failed !== undefined) throw this.#failed;
      const frame = this.#frames.shift();
      if (frame === undefined) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
        continue;
      }
      this.onRead();
      yield frame;
      if (frame.length === 0) return;
    }
  }
}

function remoteEndpoint(socket: net.Socket): PeerEndpoint {
  const host = (socket.remoteAddress ?? '').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  return { host, port: socket.remotePort ?? 0 };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Opens a TCP (or TLS) connection to a peer; listen for 'connect' (or 'secureConnect'). */
function dialSocket(endpoint: PeerEndpoint, t: TransportTlsOptions | undefined): net.Socket {
  if (t === undefined) return net.connect({ host: endpoint.host, port: endpoint.port });
  return tls.connect({
    host: endpoint.host,
    port: endpoint.port,
    key: t.key,
    cert: t.cert,
    ca: t.ca as tls.ConnectionOptions['ca'],
    rejectUnauthorized: t.rejectUnauthorized ?? true,
    // Peers are identified by their signed handshake, not by host names in certificates.
    checkServerIdentity: () => undefined,
  });
}

interface Settings {
  readonly handshakeTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly maxConnections: number;
  readonly maxQueueBytes: number;
  readonly maxQueueMessages: number;
  readonly maxPayload: ReadonlyMap<number, number>;
}

type State = 'handshake' | 'identity' | 'handshake-free' | 'open' | 'closed';

/** One socket from accept/dial to close. Becomes a Peer once its handshake is accepted. */
class Connection implements StreamPeer {
  readonly remote: PeerEndpoint;
  #state: State = 'handshake';
  #info: HandshakeInfo | undefined;
  #ownerPublicKey: Uint8Array | undefined;
  readonly #own: HandshakeInfo;
  readonly #handshake: HandshakeDecoder;
  readonly #frames: FrameDecoder;
  #identityBytes: Buffer | undefined;
  #sawFirstByte = false;
  #timer: NodeJS.Timeout | undefined;
  #idle: NodeJS.Timeout | undefined;
  readonly #queue: Buffer[] = [];
  #queuedBytes = 0;
  #blocked = false;
  #settle: { resolve(p: Peer): void; reject(e: Error): void } | undefined;
  readonly session: SessionKeyPair;
  /** Streams asked for, oldest first; the first takes the stream frames arriving now. */
  readonly #inboxes: StreamInbox[] = [];
  #paused = false;
  /** The stream being written; the next waits for it. */
  #streamOut: Promise<void> = Promise.resolve();
  readonly #drainWaiters: Array<() => void> = [];
  /** Writes are being gathered for one write at the end of this callback. */
  #corked = false;

  constructor(
    readonly id: number,
    readonly socket: net.Socket,
    readonly outbound: boolean,
    private readonly transport: NetPeerTransport,
    settle?: { resolve(p: Peer): void; reject(e: Error): void },
    dialed?: PeerEndpoint,
  ) {
    this.remote = dialed ?? remoteEndpoint(socket);
    this.#settle = settle;
    this.session = transport.newSessionKeys();
    this.#own = { ...transport.options.info, sessionPublicKey: this.session.publicKey };
    this.#handshake = new HandshakeDecoder(transport.options.sessionKeyLength);
    this.#frames = new FrameDecoder({ maxPayload: transport.settings.maxPayload, streamFrames: true });
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (e) => this.close(`socket error: ${e.message}`));
    socket.on('close', () => this.close('connection closed by the remote side'));
  }

  get info(): HandshakeInfo {
    if (!this.#info) throw new Error('peer has not completed its handshake');
    return this.#info;
  }

  get ownerPublicKey(): Uint8Array {
    if (!this.#ownerPublicKey) throw new Error('peer has not completed its handshake');
    return this.#ownerPublicKey;
  }

  get closed(): boolean {
    return this.#state === 'closed';
  }

  get tls(): boolean {
    return this.transport.options.tls !== undefined;
  }

  get isOpen(): boolean {
    return this.#state === 'open';
  }

  get ownerAddress(): Uint8Array | undefined {
    return this.#info?.ownerAddress;
  }

  /** Starts the handshake clock; the dialing side sends its handshake first. */
  start(): void {
    if (this.#state === 'closed') return;
    this.socket.setNoDelay(true);
    this.socket.setKeepAlive(true);
    this.#timer = setTimeout(() => this.close('handshake timeout expired'), this.transport.settings.handshakeTimeoutMs);
    if (this.outbound) this.socket.write(encodeHandshake(this.#own, this.transport.options.sign));
  }

  #onData(chunk: Buffer): void {
    try {
      if (this.#state === 'open') {
        this.#idle?.refresh();
        this.#deliver(chunk);
      } else if (this.#state === 'handshake') {
        this.#onHandshakeBytes(chunk);
      } else if (this.#state === 'identity') {
        this.#onIdentityBytes(chunk);
      } else if (this.#state === 'handshake-free') {
        this.#onHandshakeFreeBytes(chunk);
      }
    } catch (e) {
      this.close(errorText(e), e instanceof FrameError);
    }
  }

  #onHandshakeBytes(chunk: Buffer): void {
    if (!this.outbound && !this.#sawFirstByte && chunk.length > 0) {
      this.#sawFirstByte = true;
      const first = chunk[0]!;
      if (first === PEER_IDENTITY_REQUEST) {
        this.#state = 'identity';
        this.#onIdentityBytes(chunk);
        return;
      }
      if (first !== HANDSHAKE_V3 && first !== HANDSHAKE_V2) {
        if (this.transport.options.handshakeFreeMessages === undefined) {
          this.close(`unexpected first byte ${first} (expected a handshake)`);
          return;
        }
        this.#state = 'handshake-free';
        this.#identityBytes = Buffer.alloc(0);
        this.#onHandshakeFreeBytes(chunk);
        return;
      }
    }
    const remote = this.#handshake.feed(chunk);
    if (!remote) return;
    const publicKey = validateHandshake(remote, this.#own, {
      participantPublicKey: this.transport.options.participantPublicKey,
      verify: this.transport.options.verify,
    });
    this.#info = remote.info;
    this.#ownerPublicKey = publicKey;
    const refusal = this.transport.admit(this);
    if (refusal !== undefined) {
      this.close(refusal);
      return;
    }
    if (!this.outbound) this.socket.write(encodeHandshake(this.#own, this.transport.options.sign));
    this.#state = 'open';
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const idle = this.transport.settings.idleTimeoutMs;
    if (idle > 0) this.#idle = setTimeout(() => this.close(`no messages for ${idle} ms`), idle);
    this.transport.log.info(
      { peer: this.id, owner: encodeBase58(remote.info.ownerAddress), remote: this.remote, outbound: this.outbound },
      'peer handshake accepted',
    );
    this.transport.opened(this);
    const settle = this.#settle;
    this.#settle = undefined;
    try {
      this.transport.options.events.onPeer(this);
    } catch (e) {
      this.close(`onPeer failed: ${errorText(e)}`);
      settle?.reject(new Error(`onPeer failed: ${errorText(e)}`));
      return;
    }
    if (this.#state !== 'open') {
      settle?.reject(new Error('peer closed during onPeer'));
      return;
    }
    settle?.resolve(this);
    const rest = this.#handshake.rest();
    if (rest.length > 0) this.#deliver(rest);
  }

  #deliver(chunk: Uint8Array): void {
    const traffic = this.transport.options.traffic;
    for (const m of this.#frames.feed(chunk)) {
      if (this.#state !== 'open') return;
      traffic?.received(m.code as MessageCode, frameSize(m.payload.length));
      if (m.code === STREAM_FRAME) {
        this.#streamFrame(m.payload);
        continue;
      }
      try {
        this.transport.options.events.onMessage(this, m.code as MessageCode, m.payload);
      } catch (e) {
        this.close(`handler of message ${m.code} failed: ${errorText(e)}`, true);
        return;
      }
    }
  }

  #onIdentityBytes(chunk: Buffer): void {
    this.#identityBytes = Buffer.concat([this.#identityBytes ?? Buffer.alloc(0), chunk]);
    if (this.#identityBytes.length < PEER_IDENTITY_REQUEST_LENGTH) return;
    const request = decodePeerIdentityRequest(this.#identityBytes.subarray(0, PEER_IDENTITY_REQUEST_LENGTH));
    const reply = this.transport.identityReply(request.address, request.signature);
    this.transport.log.debug({ remote: this.remote, requester: encodeBase58(request.address) }, 'answered a peer identity request');
    clearTimeout(this.#timer);
    this.#state = 'closed';
    this.transport.forget(this);
    this.socket.end(reply);
    // A peer that never reads the reply must not hold the socket open.
    setTimeout(() => this.socket.destroy(), 5_000).unref();
  }

  /**
   * A connection that opened with neither a handshake nor a peer identity request: once the
   * first frame's header is in (WE looks at the magic at offset 4 and the code at 8), one of
   * the handshake-free codes is read whole and answered, then the connection closes; any
   * other bytes close it.
   */
  #onHandshakeFreeBytes(chunk: Buffer): void {
    const free = this.transport.options.handshakeFreeMessages!;
    let bytes = chunk;
    if (this.#identityBytes !== undefined) {
      // The header is not in yet: bytes are held until it is.
      bytes = Buffer.concat([this.#identityBytes, chunk]);
      if (bytes.length < FRAME_HEADER_LENGTH) {
        this.#identityBytes = bytes;
        return;
      }
      if (bytes.readInt32BE(4) !== FRAME_MAGIC || !free.codes.has(bytes[8]!)) {
        this.close(`unexpected first byte ${bytes[0]!} (expected a handshake)`);
        return;
      }
      this.#identityBytes = undefined;
    }
    // The frame decoder checks the header (caps, lengths) before the body is buffered.
    const [message] = this.#frames.feed(bytes);
    if (message === undefined) return;
    const answer = free.answer(message.code, message.payload);
    this.transport.log.debug({ remote: this.remote, code: message.code, reason: answer.close }, 'answered a handshake-free message');
    clearTimeout(this.#timer);
    this.#state = 'closed';
    this.transport.forget(this);
    if (answer.reply === undefined) this.socket.destroy();
    else this.socket.end(encodeFrame(answer.reply.code, answer.reply.payload));
    setTimeout(() => this.socket.destroy(), 5_000).unref();
  }

  /** A stream frame: to the oldest stream asked for, or dropped when nobody waits for one. */
  #streamFrame(payload: Uint8Array): void {
    const inbox = this.#inboxes[0];
    if (inbox === undefined) {
      this.transport.log.debug({ peer: this.id, bytes: payload.length }, 'a stream frame nobody waits for: dropped');
      return;
    }
    inbox.push(payload);
    if (inbox.ended) this.#inboxes.shift();
    this.#regulate();
  }

  /** Pauses the socket while the current stream's reader is `capacity` frames behind; resumes once it catches up. */
  #regulate(): void {
    const inbox = this.#inboxes[0];
    const hold = inbox !== undefined && !inbox.cancelled && inbox.full;
    if (hold && !this.#paused) this.socket.pause();
    if (!hold && this.#paused) this.socket.resume();
    this.#paused = hold;
  }

  receiveStream(bufferSize: number): IncomingFrames {
    const inbox = new StreamInbox(
      Math.max(1, bufferSize),
      () => this.#regulate(),
      (cancelled) => {
        const i = this.#inboxes.indexOf(cancelled);
        if (i >= 0 && (i > 0 || !cancelled.started)) this.#inboxes.splice(i, 1);
        this.#regulate();
      },
    );
    if (this.#state === 'closed') inbox.cancel(new Error('the connection is closed'));
    else this.#inboxes.push(inbox);
    return inbox;
  }

  sendStream(frames: AsyncIterable<Uint8Array>): Promise<void> {
    const run = this.#streamOut.then(() => this.#writeStream(frames));
    this.#streamOut = run.catch(() => undefined);
    return run;
  }

  async #writeStream(frames: AsyncIterable<Uint8Array>): Promise<void> {
    for await (const frame of frames) {
      while (this.#blocked && this.#state === 'open') await new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
      if (this.#state !== 'open') throw new Error('the connection closed during a stream');
      let flowing = true;
      for (const part of encodeStreamFrame(frame)) flowing = this.socket.write(part);
      if (!flowing) {
        this.#blocked = true;
        this.socket.once('drain', () => this.#flush());
      }
    }
  }

  send(code: MessageCode, payload: Uint8Array): boolean {
    if (this.#state !== 'open') return false;
    const cap = this.transport.settings.maxPayload.get(code);
    if (cap === undefined || payload.length > cap) {
      this.transport.log.warn({ peer: this.id, code, size: payload.length }, 'outgoing message exceeds its cap; dropped');
      return false;
    }
    const frame = this.transport.frames.frame(code, payload);
    const s = this.transport.settings;
    // A message the caller lets skip the queue (block traffic) does not wait behind the rest:
    // it goes to the socket now, behind only what the socket already holds — within the same
    // byte bound, counting what the socket holds unsent.
    const ahead = this.#blocked && this.transport.options.skipsSendQueue?.(code) === true;
    if (ahead && this.#queuedBytes + this.socket.writableLength + frame.length > s.maxQueueBytes) {
      this.transport.log.debug({ peer: this.id, code, queued: this.#queue.length }, 'send queue full; message dropped');
      return false;
    }
    if (!this.#blocked || ahead) {
      if (!this.#write(frame) && !this.#blocked) {
        this.#blocked = true;
        this.socket.once('drain', () => this.#flush());
      }
      this.transport.options.traffic?.sent(code, frame.length);
      return true;
    }
    if (this.#queue.length >= s.maxQueueMessages || this.#queuedBytes + frame.length > s.maxQueueBytes) {
      this.transport.log.debug({ peer: this.id, code, queued: this.#queue.length }, 'send queue full; message dropped');
      return false;
    }
    this.#queue.push(frame);
    this.#queuedBytes += frame.length;
    this.transport.options.traffic?.sent(code, frame.length);
    return true;
  }

  /** Writes a frame into the socket corked until the current callback is done: one write for all its messages. */
  #write(frame: Buffer): boolean {
    if (!this.#corked) {
      this.#corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.#corked = false;
        this.socket.uncork();
      });
    }
    return this.socket.write(frame);
  }

  #flush(): void {
    this.#blocked = false;
    while (this.#state === 'open' && this.#queue.length > 0) {
      const frame = this.#queue.shift()!;
      this.#queuedBytes -= frame.length;
      if (!this.#write(frame)) {
        this.#blocked = true;
        this.socket.once('drain', () => this.#flush());
        return;
      }
    }
    for (const wake of this.#drainWaiters.splice(0)) wake();
  }

  close(reason: string, misbehaved = false): void {
    const was = this.#state;
    if (was === 'closed') return;
    this.#state = 'closed';
    clearTimeout(this.#timer);
    clearTimeout(this.#idle);
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    for (const inbox of this.#inboxes.splice(0)) inbox.cancel(new Error(`the connection closed: ${reason}`));
    for (const wake of this.#drainWaiters.splice(0)) wake();
    this.socket.destroy();
    this.transport.forget(this);
    const level = was === 'open' ? 'info' : 'debug';
    this.transport.log[level]({ peer: this.id, remote: this.remote, reason }, 'connection closed');
    if (was === 'open') {
      try {
        this.transport.options.events.onClose(this, reason, misbehaved);
      } catch (e) {
        this.transport.log.warn({ peer: this.id, err: errorText(e) }, 'onClose handler failed');
      }
    }
    const settle = this.#settle;
    this.#settle = undefined;
    settle?.reject(new Error(reason));
  }
}

class NetPeerTransport implements PeerTransport {
  readonly settings: Settings;
  readonly log: TransportLogger;
  /** Frames shared by the connections: a message to many peers is encoded once. */
  readonly frames = new OutgoingFrames();
  readonly #connections = new Set<Connection>();
  readonly #open = new Set<Connection>();
  #server: net.Server | undefined;
  #nextId = 1;
  #closing = false;

  constructor(readonly options: PeerTransportOptions) {
    const maxConnections = options.maxConnections ?? 30;
    this.settings = {
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? 30_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
      maxConnections,
      maxQueueBytes: options.sendQueue?.maxBytes ?? 32 * 1024 * 1024,
      maxQueueMessages: options.sendQueue?.maxMessages ?? 10_000,
      maxPayload: options.maxPayload ?? MAX_PAYLOAD,
    };
    this.log = options.logger ?? NO_LOG;
  }

  newSessionKeys(): SessionKeyPair {
    return (this.options.sessionKeys ?? defaultSessionKeys)();
  }

  listen(host: string, port: number): Promise<number> {
    if (this.#server) return Promise.reject(new Error('transport is already listening'));
    if (this.#closing) return Promise.reject(new Error('transport is closed'));
    const t = this.options.tls;
    const server = t
      ? tls.createServer(
          { key: t.key, cert: t.cert, ca: t.ca as tls.TlsOptions['ca'], requestCert: t.ca !== undefined, rejectUnauthorized: t.rejectUnauthorized ?? true },
          (socket) => this.#accept(socket),
        )
      : net.createServer((socket) => this.#accept(socket));
    if (t) {
      server.on('tlsClientError', (e: Error, socket: tls.TLSSocket) => {
        this.log.debug({ remote: remoteEndpoint(socket), err: e.message }, 'TLS handshake failed');
        socket.destroy();
      });
    }
    this.#server = server;
    return new Promise<number>((resolve, reject) => {
      const onError = (e: Error): void => {
        this.#server = undefined;
        reject(e);
      };
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        server.on('error', (e: Error) => this.log.warn({ err: e.message }, 'P2P server error'));
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  #accept(socket: net.Socket): void {
    if (this.#closing) {
      socket.destroy();
      return;
    }
    // Half-finished handshakes are bounded too: at most maxConnections of them besides the peers.
    if (this.#connections.size - this.#open.size >= this.settings.maxConnections) {
      this.log.warn({ remote: remoteEndpoint(socket) }, 'too many pending handshakes; connection refused');
      socket.on('error', () => {});
      socket.destroy();
      return;
    }
    const c = new Connection(this.#nextId++, socket, false, this);
    this.#connections.add(c);
    c.start();
  }

  connect(endpoint: PeerEndpoint): Promise<Peer> {
    if (this.#closing) return Promise.reject(new Error('transport is closed'));
    if (this.#open.size >= this.settings.maxConnections) {
      return Promise.reject(new Error(`no free connection slots (${this.settings.maxConnections})`));
    }
    return new Promise<Peer>((resolve, reject) => {
      const t = this.options.tls;
      const socket = dialSocket(endpoint, t);
      const c = new Connection(
        this.#nextId++,
        socket,
        true,
        this,
        { resolve, reject },
        {
          host: endpoint.host,
          port: endpoint.port,
        },
      );
      this.#connections.add(c);
      const timer = setTimeout(() => c.close(`connection to ${endpoint.host}:${endpoint.port} timed out`), this.settings.connectTimeoutMs);
      socket.once(t ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        c.start();
      });
      socket.once('close', () => clearTimeout(timer));
    });
  }

  /**
   * Decides whether a connection whose handshake verified may become a peer; returns the
   * refusal reason. A second connection to an owner already connected is refused, except
   * when two nodes dialed each other at the same moment: then both keep the connection
   * dialed by the node with the lower owner address, so they keep the same one.
   */
  admit(c: Connection): string | undefined {
    if (this.#closing) return 'transport is closing';
    const owner = c.ownerAddress!;
    const ownAddress = this.options.info.ownerAddress;
    for (const other of this.#open) {
      if (!equalBytes(other.ownerAddress!, owner)) continue;
      const text = `already connected to ${encodeBase58(owner)} (peer ${other.id})`;
      if (other.outbound === c.outbound) return text;
      const dialerOfNew = c.outbound ? ownAddress : owner;
      const dialerOfOld = other.outbound ? ownAddress : owner;
      if (Buffer.compare(dialerOfNew, dialerOfOld) >= 0) return text;
      other.close(`replaced by connection ${c.id} (simultaneous dial)`);
    }
    if (this.#open.size >= this.settings.maxConnections) return `no free connection slots (${this.settings.maxConnections})`;
    return undefined;
  }

  opened(c: Connection): void {
    this.#open.add(c);
  }

  forget(c: Connection): void {
    this.#connections.delete(c);
    this.#open.delete(c);
  }

  /** WE's PeersIdentityService: the requester must be a participant whose signature over its address verifies. */
  identityReply(address: Uint8Array, signature: Uint8Array): Uint8Array {
    const requesterKey = this.options.participantPublicKey(address);
    if (!requesterKey) return encodePeerIdentityMessage(`ParticipantNotRegistered(${encodeBase58(address)})`);
    if (!this.options.verify(requesterKey, address, signature)) return encodePeerIdentityMessage('InvalidRequestSignature');
    const ownKey = this.options.participantPublicKey(this.options.info.ownerAddress);
    if (!ownKey) {
      this.log.warn({ owner: encodeBase58(this.options.info.ownerAddress) }, 'own owner address is not a registered participant');
      return encodePeerIdentityMessage('GenericError(Invalid server state)');
    }
    return encodePeerIdentitySuccess(ownKey);
  }

  peers(): readonly Peer[] {
    return [...this.#open];
  }

  async close(): Promise<void> {
    this.#closing = true;
    for (const c of [...this.#connections]) c.close('transport closed');
    const server = this.#server;
    this.#server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export function createPeerTransport(options: PeerTransportOptions): PeerTransport {
  return new NetPeerTransport(options);
}

/** The remote node refused a PeerIdentityRequest; `message` is its reply. */
export class PeerIdentityError extends InternalError {
  constructor(message: string) {
    super(message);
    this.name = 'PeerIdentityError';
  }

  /** WE's initial sync tells "your node is not registered" apart by this marker. */
  get notRegistered(): boolean {
    return this.message.toLowerCase().includes('participantnotregistered');
  }
}

/**
 * Asks a node, without a handshake, for its owner public key (WE's initial sync): sends
 * `0x66 | ownerAddress | sign(ownerAddress)` and reads the reply. Rejects with a
 * PeerIdentityError when the node answers with a message, with an Error on timeout or a
 * dropped connection.
 */
export function requestPeerIdentity(
  endpoint: PeerEndpoint,
  ownerAddress: Uint8Array,
  sign: (message: Uint8Array) => Uint8Array,
  timeoutMs: number,
  tlsOptions?: TransportTlsOptions,
): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    let request: Uint8Array;
    try {
      request = encodePeerIdentityRequest(ownerAddress, sign);
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    const socket = dialSocket(endpoint, tlsOptions);
    let buffer = Buffer.alloc(0);
    let done = false;
    const finish = (error: Error | undefined, key?: Uint8Array): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(key!);
    };
    const timer = setTimeout(() => finish(new Error(`peer identity request to ${endpoint.host}:${endpoint.port} timed out`)), timeoutMs);
    socket.once(tlsOptions ? 'secureConnect' : 'connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      try {
        const response = decodePeerIdentityResponse(buffer);
        if (!response) return;
        if (response.kind === 'success') finish(undefined, response.publicKey);
        else finish(new PeerIdentityError(response.message));
      } catch (e) {
        finish(e instanceof Error ? e : new Error(String(e)));
      }
    });
    socket.on('error', (e: Error) => finish(new Error(`peer identity request to ${endpoint.host}:${endpoint.port} failed: ${e.message}`)));
    socket.on('close', () => finish(new Error(`${endpoint.host}:${endpoint.port} closed the connection without a peer identity reply`)));
  });
}
