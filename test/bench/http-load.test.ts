import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { postAllLean } from '../../bench/http-load.js';

/** A server that answers each POST after reading its whole body, in the way `answer` says. */
async function withServer(
  answer: (body: string, res: http.ServerResponse, n: number) => void,
  run: (url: string, seen: string[]) => Promise<void>,
): Promise<void> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${req.headers['content-type']} ${body}`);
      answer(body, res, seen.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/transactions/broadcast`, seen);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

const bodies = Array.from({ length: 40 }, (_, i) => JSON.stringify({ n: i, text: 'ä'.repeat(i) }));

test('every body is POSTed once, whole, and 200 replies with a length are counted as answered', async () => {
  await withServer(
    (body, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body),
    async (url, seen) => {
      assert.deepEqual(await postAllLean(url, bodies, 4), { failed: 0, firstError: '' });
      assert.deepEqual([...seen].sort(), bodies.map((b) => `POST /transactions/broadcast application/json ${b}`).sort());
    },
  );
});

test('chunked replies written in pieces are read to their end before the next request', async () => {
  await withServer(
    (body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(body.slice(0, 3));
      setImmediate(() => res.end(body.slice(3)));
    },
    async (url, seen) => {
      assert.deepEqual(await postAllLean(url, bodies, 3), { failed: 0, firstError: '' });
      assert.equal(seen.length, bodies.length);
    },
  );
});

test('replies other than 200 are counted with the first one kept; a connection the server closes is opened again', async () => {
  await withServer(
    (body, res, n) => {
      const status = n % 5 === 0 ? 400 : 200;
      const text = status === 200 ? body : '{"error":112,"message":"already in the state"}';
      // Every third reply closes its connection, as a server's keep-alive limit would.
      res
        .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...(n % 3 === 0 ? { connection: 'close' } : {}) })
        .end(text);
    },
    async (url, seen) => {
      const outcome = await postAllLean(url, bodies, 1);
      assert.equal(seen.length, bodies.length);
      assert.equal(outcome.failed, bodies.length / 5);
      assert.equal(outcome.firstError, '400 {"error":112,"message":"already in the state"}');
    },
  );
});
