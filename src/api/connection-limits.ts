/**
 * The REST server's defences against slow and idle clients: a cap on open connections and
 * timeouts for headers, whole requests and silent sockets. A client that trickles a body or
 * holds sockets open is cut off, so REST clients cannot exhaust the node's file descriptors
 * (P2P and the miner share the process).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { RestConnectionLimits } from './services.js';

export const DEFAULT_REST_CONNECTION_LIMITS: RestConnectionLimits = {
  maxConnections: 1024,
  headerTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 30_000,
};

/** Fastify's server options for the limits (its own names for Node's server timeouts). */
export function fastifyTimeoutOptions(limits: RestConnectionLimits) {
  const shortest = Math.min(limits.headerTimeoutMs, limits.requestTimeoutMs);
  return {
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

/** Applies what Fastify's options do not carry: the header deadline and the connection cap. */
export function applyConnectionLimits(server: Server, limits: RestConnectionLimits): void {
  server.headersTimeout = Math.min(limits.headerTimeoutMs, limits.requestTimeoutMs);
  server.maxConnections = limits.maxConnections;
}

/** What a request body must bring per `request-timeout` window unless it is complete. */
export const MIN_BODY_BYTES_PER_WINDOW = 1024 * 1024;

const REQUEST_TIMEOUT_ANSWER = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

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
 * between one window and a window and a quarter after it last made progress. Each request
 * costs only noting itself on its connection (no timer or listener of its own: at thousands
 * of requests per second those were several per cent of the request path). Returns what
 * the server calls with each request as it arrives.
 */
export function watchRequestBodies(server: Server, windowMs: number): (req: IncomingMessage) => void {
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
        socket.end(REQUEST_TIMEOUT_ANSWER);
        socket.destroySoon();
        continue;
      }
      watch.seen = socket.bytesRead;
      watch.since = now;
    }
  };
  const timer = setInterval(sweep, Math.max(10, Math.floor(windowMs / 4)));
  timer.unref();
  server.once('close', () => clearInterval(timer));
  return (req) => {
    // Injected requests have no socket (and are complete from the start).
    const socket = req.socket as Socket | undefined;
    const watch = socket === undefined ? undefined : open.get(socket);
    if (watch === undefined || req.complete) return;
    watch.request = req;
    watch.seen = socket!.bytesRead;
    watch.since = performance.now();
  };
}
