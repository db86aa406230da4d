/**
 * The benches' HTTP load generator: POSTs many JSON bodies to one route over `concurrency`
 * keep-alive HTTP/1.1 connections, one request in flight on each (as node:http's agent did,
 * and as autocannon or wrk do it): each request's bytes are built before the run, each reply
 * is read as far as its status and the end of its body. The node and the bench client share
 * the machine's cores, so the client's own CPU per request is taken from the node's: node:http's
 * client costs ~100 µs per request here, this one a fraction of that.
 * BENCH_HTTP_CLIENT=node sends through node:http instead (the figures before this client).
 */
import { connect, type Socket } from 'node:net';

/** What came back: how many replies were not 200, and the first such reply's status and body. */
export interface PostOutcome {
  readonly failed: number;
  readonly firstError: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** One reply read from a connection's bytes; `null` until the whole reply has arrived. */
function parseReply(buf: Buffer): { status: number; body: string; length: number; close: boolean } | null {
  const headEnd = buf.indexOf(HEADER_END);
  if (headEnd < 0) return null;
  const head = buf.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const close = /\r\nconnection:\s*close/i.test(head);
  const lengthMatch = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  const bodyStart = headEnd + 4;
  if (lengthMatch !== null) {
    const end = bodyStart + Number(lengthMatch[1]);
    if (buf.length < end) return null;
    return { status, body: status === 200 ? '' : buf.toString('utf8', bodyStart, end), length: end, close };
  }
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) throw new Error(`bench HTTP client: a reply with neither content-length nor chunked encoding: ${head}`);
  // Chunked: size line, data, CRLF … until a zero-size chunk and the final CRLF.
  let at = bodyStart;
  const parts: Buffer[] = [];
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', at);
    if (lineEnd < 0) return null;
    const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
    if (size === 0) {
      if (buf.length < lineEnd + 4) return null;
      return { status, body: status === 200 ? '' : Buffer.concat(parts).toString('utf8'), length: lineEnd + 4, close };
    }
    if (buf.length < lineEnd + 2 + size + 2) return null;
    parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** One keep-alive connection sending requests one after another; reconnects if the server closes it. */
class Connection {
  #socket: Socket | null = null;
  #pending: Buffer = Buffer.alloc(0);
  #waiting: { resolve: (r: { status: number; body: string }) => void; reject: (e: Error) => void } | null = null;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  #open(): Socket {
    const socket = connect({ host: this.host, port: this.port, noDelay: true });
    socket.on('data', (chunk: Buffer) => {
      this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
      const waiting = this.#waiting;
      if (waiting === null) return;
      let reply;
      try {
        reply = parseReply(this.#pending);
      } catch (e) {
        this.#waiting = null;
        waiting.reject(e as Error);
        return;
      }
      if (reply === null) return;
      this.#pending = this.#pending.subarray(reply.length);
      this.#waiting = null;
      // The server ends this connection after its reply: the next request goes on a new one.
      if (reply.close) this.close();
      waiting.resolve(reply);
    });
    const fail = (e: Error): void => {
      this.#socket = null;
      this.#pending = Buffer.alloc(0);
      const waiting = this.#waiting;
      this.#waiting = null;
      waiting?.reject(e);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('bench HTTP client: the server closed the connection')));
    return socket;
  }

  send(request: Buffer): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      (this.#socket ??= this.#open()).write(request);
    });
  }

  close(): void {
    this.#socket?.removeAllListeners('close');
    this.#socket?.destroy();
    this.#socket = null;
    this.#pending = Buffer.alloc(0);
  }
}

/** POSTs every body to `url` (`http://host:port/path`) with `concurrency` requests in flight. */
export async function postAllLean(url: string, bodies: readonly string[], concurrency: number): Promise<PostOutcome> {
  const u = new URL(url);
  const head = `POST ${u.pathname}${u.search} HTTP/1.1\r\nhost: ${u.host}\r\ncontent-type: application/json\r\ncontent-length: `;
  const requests = bodies.map((body) => Buffer.from(`${head}${Buffer.byteLength(body)}\r\n\r\n${body}`));
  let next = 0;
  let failed = 0;
  let firstError = '';
  const worker = async (): Promise<void> => {
    const conn = new Connection(u.hostname, Number(u.port));
    try {
      while (next < requests.length) {
        const request = requests[next++]!;
        // A connection the server closed while idle is opened again by the next send.
        const reply = await conn.send(request);
        if (reply.status !== 200) {
          failed++;
          firstError ||= `${reply.status} ${reply.body}`;
        }
      }
    } finally {
      conn.close();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  return { failed, firstError };
}
