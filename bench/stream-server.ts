/**
 * The bare baseline of the privacy figures, in its own process as the node is:
 *   node dist/bench/stream-server.js <dir>
 * A plain node:http server on loopback that
 * - POST /file/<name>: copies the request body to <dir>/<name> as it streams, fsyncs it, answers 200;
 * - GET /file/<name>: streams <dir>/<name> back with its Content-Length;
 * - POST /small: writes the whole request body to a new file in <dir>, fsyncs it, answers 200.
 * Prints "ready <url>" once listening.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: stream-server <dir>');
let small = 0;

async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  if (req.method === 'POST' && url.startsWith('/file/')) {
    const path = join(dir!, url.slice('/file/'.length));
    await pipeline(req, createWriteStream(path));
    await fsyncFile(path);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  } else if (req.method === 'GET' && url.startsWith('/file/')) {
    const path = join(dir!, url.slice('/file/'.length));
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': (await stat(path)).size });
    await pipeline(createReadStream(path), res);
  } else if (req.method === 'POST' && url === '/small') {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const file = await open(join(dir!, `small-${small++}`), 'w');
    try {
      await file.writeFile(Buffer.concat(chunks));
      await file.sync();
    } finally {
      await file.close();
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  } else {
    res.writeHead(404).end();
  }
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((e: unknown) => {
    if (!res.headersSent) res.writeHead(500).end(String(e));
    else res.destroy();
  });
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  if (a === null || typeof a === 'string') throw new Error('no address');
  process.stdout.write(`ready http://127.0.0.1:${a.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
