/**
 * The REST server's SocketCloser (api/connection-limits.ts): connections cut by the timeouts
 * are answered and closed a slice per event-loop turn, so a flood timing out together does
 * not hold the loop; each still gets its answer and is closed. And reserveDescriptorTable,
 * which grows the descriptor table before a flood would (Linux).
 */
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { reserveDescriptorTable, SocketCloser } from '../../src/api/connection-limits.js';

describe('SocketCloser', () => {
  let server: Server;
  let port = 0;
  /** Server-side sockets, in the order their clients connected. */
  const accepted: Socket[] = [];
  before(async () => {
    server = createServer((s) => accepted.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  /** `n` connected pairs: the server's sockets and, per client, what it received by the time it closed. */
  async function pairs(n: number): Promise<{ sockets: Socket[]; received: Array<Promise<string>> }> {
    const start = accepted.length;
    const received: Array<Promise<string>> = [];
    for (let i = 0; i < n; i++) {
      const c = connect(port, '127.0.0.1');
      c.on('error', () => undefined);
      let text = '';
      c.setEncoding('latin1');
      c.on('data', (d: string) => (text += d));
      received.push(new Promise((r) => c.once('close', () => r(text))));
    }
    while (accepted.length < start + n) await turn();
    return { sockets: accepted.slice(start, start + n), received };
  }

  it('closes a slice per turn (one per turn with a zero slice), each with its answer', async () => {
    const { sockets, received } = await pairs(5);
    const closer = new SocketCloser(0);
    for (const s of sockets) closer.close(s, 'HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n', false);
    assert.equal(closer.waiting, 5);
    await turn();
    assert.equal(sockets.filter((s) => s.destroyed).length, 1, 'one turn closed one connection');
    assert.equal(closer.waiting, 4);
    for (let i = 0; i < 10 && closer.waiting > 0; i++) await turn();
    assert.equal(closer.waiting, 0);
    assert.ok(sockets.every((s) => s.destroyed));
    for (const text of await Promise.all(received)) assert.match(text, /^HTTP\/1\.1 408 /);
  });

  it('gives a client error Fastify’s answer for its code, and skips a connection already reset or gone', async () => {
    const { sockets, received } = await pairs(4);
    const closer = new SocketCloser();
    const error = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code });
    closer.clientError(error('ERR_HTTP_REQUEST_TIMEOUT'), sockets[0]!);
    closer.clientError(error('HPE_HEADER_OVERFLOW'), sockets[1]!);
    closer.clientError(error('HPE_INVALID_METHOD'), sockets[2]!);
    sockets[3]!.destroy();
    closer.clientError(error('ECONNRESET'), sockets[3]!);
    assert.equal(closer.waiting, 3, 'a reset connection is not queued');
    const [timeout, overflow, invalid] = await Promise.all(received.slice(0, 3));
    assert.match(timeout!, /^HTTP\/1\.1 408 Request Timeout\r\n[^]*\r\n\r\n\{"error":"Request Timeout","message":"Client Timeout","statusCode":408\}$/);
    assert.match(overflow!, /^HTTP\/1\.1 431 /);
    assert.match(invalid!, /^HTTP\/1\.1 400 Bad Request\r\n/);
  });

  it('ends a graceful close after its answer, and passes over a socket destroyed while it waited', async () => {
    const { sockets, received } = await pairs(2);
    const closer = new SocketCloser();
    closer.close(sockets[0]!, 'bye', true);
    closer.close(sockets[1]!, 'never sent', true);
    sockets[1]!.destroy();
    const [first, second] = await Promise.all(received);
    assert.equal(first, 'bye');
    assert.equal(second, '');
    assert.equal(closer.waiting, 0);
  });

  it('keeps closing a queue that is fed while it drains (the closed front is dropped as it goes), each socket once', async () => {
    // Stand-ins for sockets: what the closer calls, counted.
    const fake = () => ({
      destroyed: false,
      writable: true,
      writes: 0,
      write() {
        this.writes++;
        return true;
      },
      destroy() {
        this.destroyed = true;
      },
    });
    const all: Array<ReturnType<typeof fake>> = [];
    const closer = new SocketCloser(0);
    const feed = (n: number): void => {
      for (let i = 0; i < n; i++) {
        const s = fake();
        all.push(s);
        closer.close(s as unknown as Socket, 'x', false);
      }
    };
    feed(1500);
    // One a turn (a zero slice); more arrive while the first ones are being closed.
    for (let turns = 0; turns < 1200; turns++) await turn();
    feed(500);
    assert.equal(closer.waiting, 2000 - 1200);
    while (closer.waiting > 0) await turn();
    assert.ok(all.every((s) => s.destroyed && s.writes === 1));
  });
});

describe('reserveDescriptorTable', { skip: process.platform !== 'linux' }, () => {
  /** The process's descriptor table size (Linux /proc/self/status FDSize). */
  const tableSize = (): number => Number(/^FDSize:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
  const openCount = (): number => readdirSync('/proc/self/fd').length;

  it('grows the table to hold the count asked for and leaves no descriptor open; asking for less does nothing', () => {
    const want = tableSize() + 1000;
    const open = openCount();
    reserveDescriptorTable(want);
    assert.ok(tableSize() >= want, `FDSize ${tableSize()} after reserving ${want}`);
    assert.equal(openCount(), open);
    const size = tableSize();
    reserveDescriptorTable(want - 500);
    assert.equal(tableSize(), size);
    assert.equal(openCount(), open);
  });

  it('stops short of a low open-file limit instead of using it up (a process under prlimit --nofile=300)', () => {
    const module = new URL('../../src/api/connection-limits.js', import.meta.url).href;
    const script = `import { reserveDescriptorTable } from '${module}';
      import { openSync, readFileSync } from 'node:fs';
      reserveDescriptorTable(5000);
      const size = /^FDSize:\\s+(\\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))[1];
      // Descriptors are still there to open after it (an EMFILE here fails the process).
      for (let i = 0; i < 32; i++) openSync('/dev/null', 'r');
      process.stdout.write(size);`;
    const child = spawnSync('prlimit', ['--nofile=300:300', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const size = Number(child.stdout);
    // Stopped 64 short of the limit (at descriptor 236): the table grew to 256, not to the 512 that descriptor 299 would need.
    assert.equal(size, 256, `FDSize ${size} under a limit of 300`);
  });
});
