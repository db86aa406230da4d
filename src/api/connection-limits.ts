/**
 * The REST server's defences against slow and idle clients: a cap on open connections and
 * timeouts for headers, whole requests and silent sockets. A client that trickles a body or
 * holds sockets open is cut off, so REST clients cannot exhaust the node's file descriptors
 * (P2P and the miner share the process).
 */
import type { IncomingMessage, Server } from 'node:http';
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
    // takes up to 5 GiB); watchBodyProgress enforces a rate instead.
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

/**
 * Cuts a request whose body trickles: every `windowMs` the body must be complete or have
 * brought MIN_BODY_BYTES_PER_WINDOW more bytes, else the client gets 408 and the connection
 * is closed. A body that keeps flowing is never cut, however large its route allows it to be.
 */
export function watchBodyProgress(req: IncomingMessage, windowMs: number): void {
  const socket = req.socket as IncomingMessage['socket'] | undefined;
  // Injected requests have no socket and are complete from the start.
  if (req.complete || socket === undefined || typeof socket.bytesRead !== 'number') return;
  let seen = socket.bytesRead;
  const check = (): void => {
    if (req.complete || socket.destroyed) return;
    if (socket.bytesRead - seen < MIN_BODY_BYTES_PER_WINDOW) {
      socket.end(REQUEST_TIMEOUT_ANSWER);
      socket.destroySoon();
      return;
    }
    seen = socket.bytesRead;
    timer.refresh();
  };
  const timer = setTimeout(check, windowMs);
  timer.unref();
  const stop = (): void => clearTimeout(timer);
  req.once('end', stop);
  req.once('close', stop);
}
