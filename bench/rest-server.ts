/**
 * A REST server for bench/rest.ts, in its own process so the load generator does not share
 * its event loop:
 *   node dist/bench/rest-server.js node   — a node with the seeded chain of the API tests
 *                                          (devkit/api/seeded-node.ts), its REST API
 *   node dist/bench/rest-server.js bare   — bare Fastify, one GET route answering a fixed
 *                                          small JSON
 *   node dist/bench/rest-server.js bare-post — bare Fastify, one POST /transactions/broadcast
 *                                          route that parses the JSON body and answers it
 *                                          back (bench/chain.ts's HTTP ingest baseline)
 * Both listen on 127.0.0.1 (a free port), without request logging, and print
 * "ready <url> <address>" (the address whose balance the bench asks for). SIGTERM stops them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { seededNode } from '../devkit/api/seeded-node.js';

/** What the bare route answers: the shape of a balance answer. */
export const BARE_BODY = { address: '3MtiEBF8HJsrNqhnfKRaMGoWm7Vjp1GhKfd', confirmations: 0, balance: 500_000_000_000 };

const mode = process.argv[2];
if (mode === 'node') {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-rest-'));
  const s = await seededNode({ dataDir: dir });
  const url = await s.app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`ready ${url} ${s.accounts[1]!.address}\n`);
  process.on('SIGTERM', () => {
    void s.close().finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
} else if (mode === 'bare') {
  const app = Fastify({ logger: false });
  const text = JSON.stringify(BARE_BODY);
  app.get('/bare', (_request, reply) => reply.type('application/json; charset=utf-8').send(text));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`ready ${url} ${BARE_BODY.address}\n`);
  process.on('SIGTERM', () => void app.close().finally(() => process.exit(0)));
} else if (mode === 'bare-post') {
  const app = Fastify({ logger: false });
  app.post('/transactions/broadcast', (request, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify(request.body)));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`ready ${url} -\n`);
  process.on('SIGTERM', () => void app.close().finally(() => process.exit(0)));
} else {
  throw new Error('usage: rest-server.js node|bare|bare-post');
}
