/**
 * The REST server's defences against slow and idle clients: a cap on open connections and
 * timeouts for headers, whole requests and silent sockets. A client that trickles a body or
 * holds sockets open is cut off, so REST clients cannot exhaust the node's file descriptors
 * (P2P and the miner share the process).
 */
import type { Server } from 'node:http';
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
    requestTimeout: limits.requestTimeoutMs,
    // Node checks header and request deadlines on this period (30 s by default, which would
    // let a slow client overstay a short timeout by that much).
    http: { connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(shortest / 4))) },
  };
}

/** Applies what Fastify's options do not carry: the header deadline and the connection cap. */
export function applyConnectionLimits(server: Server, limits: RestConnectionLimits): void {
  // Node requires headersTimeout <= requestTimeout.
  server.headersTimeout = Math.min(limits.headerTimeoutMs, limits.requestTimeoutMs);
  server.maxConnections = limits.maxConnections;
}
