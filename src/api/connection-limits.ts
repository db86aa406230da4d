/**
 * The REST server's defences against slow and idle clients: a cap on open connections and
 * timeouts for headers, whole requests and silent sockets. A client that trickles a body or
 * holds sockets open is cut off, so REST clients cannot exhaust the node's file descriptors
 * (P2P and the miner share the process).
 */
import { closeSync, openSync, readFileSync } from 'node:fs';
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { RestConnectionLimits } from './services.js';

export const DEFAULT_REST_CONNECTION_LIMITS: RestConnectionLimits = {
  maxConnections: 1024,
  headerTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 30_000,
};

/** Fastify's server options for the limits (its own names for Node's server timeouts); `closer` answers and closes the connections Node times out. */
export function fastifyTimeoutOptions(limits: RestConnectionLimits, closer: SocketCloser) {
  const shortest = Math.min(limits.headerTimeoutMs, limits.requestTimeoutMs);
  return {
    clientErrorHandler: (error: NodeJS.ErrnoException, socket: Socket) => closer.clientError(error, socket),
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    // Node's own request deadline would cut legitimate large uploads (privacy sendLargeData
    // takes up to 5 GiB); watchRequestBodies cuts a body that stops progressing instead.
    requestTimeout: 0,
    // Node checks the header deadline on this period (30 s by default, which would let a slow
    // client overstay a short timeout by that much).
    http: { connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(shortest / 4))) },
  };
}

/** Descriptors the process keeps room for beyond the REST connection cap: peers, the store, logs, contract and privacy connections. */
const OTHER_DESCRIPTORS = 256;

/** Applies what Fastify's options do not carry: the header deadline and the connection cap; makes room for the cap's descriptors now (reserveDescriptorTable). */
export function applyConnectionLimits(server: Server, limits: RestConnectionLimits): void {
  server.headersTimeout = Math.min(limits.headerTimeoutMs, limits.requestTimeoutMs);
  server.maxConnections = limits.maxConnections;
  reserveDescriptorTable(limits.maxConnections + OTHER_DESCRIPTORS);
}

/** The descriptor count the table was last grown to hold. */
let reservedDescriptors = 0;

/**
 * Grows the process's file-descriptor table now to hold `count` descriptors, by opening
 * /dev/null until a descriptor numbered `count` comes back, then closing them all — Linux
 * keeps a table's size once grown. Linux doubles the table when a new descriptor passes its
 * size, and each growth waits for an RCU grace period (10–15 ms) inside the accept or open
 * that needed it: a flood of connections arriving at once grew it three times in one accept
 * loop and held the event loop ~40 ms. At start it costs those waits once, before anything
 * is served. It stops DESCRIPTOR_HEADROOM short of the process's open-file limit.
 */
export function reserveDescriptorTable(count: number): void {
  if (process.platform !== 'linux' || count <= reservedDescriptors) return;
  reservedDescriptors = count;
  // Never up to the open-file limit itself: other threads may be opening files meanwhile.
  const top = Math.min(count, openFileLimit() - DESCRIPTOR_HEADROOM);
  const opened: number[] = [];
  try {
    for (let fd = -1; fd < top;) {
      fd = openSync('/dev/null', 'r');
      opened.push(fd);
    }
  } catch {
    // EMFILE/ENFILE (descriptors taken by others meanwhile): the table holds what it could.
  } finally {
    for (const fd of opened) closeSync(fd);
  }
}

/** Descriptors reserveDescriptorTable leaves free below the open-file limit. */
const DESCRIPTOR_HEADROOM = 64;

/** The process's soft open-file limit (Linux /proc/self/limits), or 1024 when it cannot be read. */
function openFileLimit(): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m === null ? 1024 : m[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(m[1]);
  } catch {
    return 1024;
  }
}

/** What a request body must bring per `request-timeout` window unless it is complete. */
export const MIN_BODY_BYTES_PER_WINDOW = 1024 * 1024;

const REQUEST_TIMEOUT_ANSWER = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

/** Fastify's answer to a client error (its defaultClientErrorHandler's, which this replaces): a JSON body with the status. */
function clientErrorAnswer(code: string | undefined): string {
  const [status, message] =
    code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Client Timeout']
      : code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Exceeded maximum allowed HTTP header size']
        : [400, 'Client Error'];
  const reason = STATUS_CODES[status]!;
  const body = `{"error":"${reason}","message":"${message}","statusCode":${status}}`;
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${body.length}\r\nContent-Type: application/json\r\n\r\n${body}`;
}

/** A connection to answer and close: `graceful` ends it after the answer is sent (else the answer is written and the socket destroyed, as Node does). */
interface Closing {
  readonly socket: Socket;
  readonly answer: string;
  readonly graceful: boolean;
}

/** Longest stretch (ms) the closer answers and closes connections in one event-loop turn. */
const CLOSE_SLICE_MS = 2;

/**
 * Answers and closes the connections the server's defences cut, a slice of them per
 * event-loop turn. Connections opened together time out together: Node's header deadline
 * check hands over every expired one in a single callback, and the body sweep finds every
 * trickler of a flood in one pass. Answering and closing a socket costs ~40 µs on the event
 * loop, so a thousand at once held it for 40–60 ms — mining and every other client waited.
 * Queued here, each turn closes what fits in CLOSE_SLICE_MS and leaves the rest for the next.
 */
export class SocketCloser {
  private queue: Closing[] = [];
  private head = 0;
  private scheduled = false;

  constructor(private readonly sliceMs = CLOSE_SLICE_MS) {}

  /** The server's client errors (Fastify's clientErrorHandler): a timed-out or malformed request gets Fastify's answer, and the connection is closed. */
  clientError(error: NodeJS.ErrnoException, socket: Socket): void {
    // A reset connection is gone already: nothing to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    this.close(socket, clientErrorAnswer(error.code), false);
  }

  /** Queues `socket` to get `answer` and be closed in a later turn. */
  close(socket: Socket, answer: string, graceful: boolean): void {
    this.queue.push({ socket, answer, graceful });
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  /** Connections waiting to be closed. */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  private readonly run = (): void => {
    this.scheduled = false;
    const until = performance.now() + this.sliceMs;
    while (this.head < this.queue.length) {
      const { socket, answer, graceful } = this.queue[this.head++]!;
      if (!socket.destroyed) {
        if (graceful) {
          socket.end(answer);
          socket.destroySoon();
        } else {
          if (socket.writable) socket.write(answer);
          socket.destroy();
        }
      }
      if (performance.now() >= until) break;
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      return;
    }
    // A queue never drained (a flood that goes on) drops what it has closed now and then.
    if (this.head >= 1024) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.scheduled = true;
    setImmediate(this.run);
  };
}

/** A connection's request whose body is being watched: its bytes read when last seen progressing, and when. */
interface BodyWatch {
  request: IncomingMessage | undefined;
  seen: number;
  since: number;
}

/**
 * Cuts requests whose bodies trickle: every `windowMs` a body must be complete or have brought
 * MIN_BODY_BYTES_PER_WINDOW more bytes, else the client gets 408 and the connection is
 * closed. A body that keeps flowing is never cut, however large its route allows it to be.
 *
 * One sweep per server, every quarter window over its open connections (at most the
 * connection cap), checks the request each one is reading — so a trickling body is cut
 * between one window and a window and a quarter after it last made progress (`closer`
 * answers and closes it, a few per turn). Each request
 * costs only noting itself on its connection (no timer or listener of its own: at thousands
 * of requests per second those were several per cent of the request path), from a listener
 * of the server's 'request' event that runs before the framework's (a framework hook per
 * request costs its hook runner on every route).
 */
export function watchRequestBodies(server: Server, windowMs: number, closer: SocketCloser): void {
  const open = new Map<Socket, BodyWatch>();
  server.on('connection', (socket: Socket) => {
    open.set(socket, { request: undefined, seen: 0, since: 0 });
    socket.once('close', () => open.delete(socket));
  });
  const sweep = (): void => {
    const now = performance.now();
    for (const [socket, watch] of open) {
      const req = watch.request;
      if (req === undefined || now - watch.since < windowMs) continue;
      if (req.complete || socket.destroyed) {
        watch.request = undefined;
        continue;
      }
      if (socket.bytesRead - watch.seen < MIN_BODY_BYTES_PER_WINDOW) {
        watch.request = undefined;
        closer.close(socket, REQUEST_TIMEOUT_ANSWER, true);
        continue;
      }
      watch.seen = socket.bytesRead;
      watch.since = now;
    }
  };
  const timer = setInterval(sweep, Math.max(10, Math.floor(windowMs / 4)));
  timer.unref();
  server.once('close', () => clearInterval(timer));
  server.prependListener('request', (req: IncomingMessage) => {
    const socket = req.socket;
    const watch = open.get(socket);
    if (watch === undefined || req.complete) return;
    watch.request = req;
    watch.seen = socket.bytesRead;
    watch.since = performance.now();
  });
}
