/**
 * A TCP proxy on loopback that keeps every byte it forwards, both ways: e2e suites put it
 * between two nodes to see what travels on the wire (and can slow it down).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { freeLoopbackPort } from '../../src/cli/devnet.js';

/** A TCP proxy to `port` that keeps every byte it forwards, both ways. */
export class RecordingProxy {
  readonly seen: Buffer[] = [];
  /** Bytes per second each direction of each connection may carry (0: unlimited). */
  rate = 0;
  /** While set, the resumes of connections stopped by `hold()`. */
  private held: Array<() => void> | undefined;
  private readonly sockets = new Set<Socket>();
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(to: number): Promise<RecordingProxy> {
    const port = await freeLoopbackPort();
    const server = createServer();
    const proxy = new RecordingProxy(server, port);
    server.on('connection', (inbound) => {
      const outbound = connect({ host: '127.0.0.1', port: to });
      for (const [from, into] of [
        [inbound, outbound],
        [outbound, inbound],
      ] as const) {
        proxy.sockets.add(from);
        from.on('data', (chunk: Buffer) => {
          proxy.seen.push(chunk);
          into.write(chunk);
          if (proxy.held !== undefined) {
            from.pause();
            proxy.held.push(() => from.resume());
          } else if (proxy.rate > 0) {
            from.pause();
            setTimeout(() => from.resume(), (chunk.length / proxy.rate) * 1000);
          }
        });
        from.on('error', () => into.destroy());
        from.on('close', () => {
          proxy.sockets.delete(from);
          into.destroy();
        });
      }
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return proxy;
  }

  /** Stops every connection after the chunk each forwards next, until `release()`. */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const resumes = this.held ?? [];
    this.held = undefined;
    for (const resume of resumes) resume();
  }

  get bytes(): number {
    return this.seen.reduce((n, c) => n + c.length, 0);
  }

  /** Whether any 32-byte stretch of `data` (sampled every 997 bytes) went through. */
  sawAnyOf(data: Uint8Array): boolean {
    const all = Buffer.concat(this.seen);
    for (let at = 0; at + 32 <= data.length; at += 997) if (all.includes(Buffer.from(data.subarray(at, at + 32)))) return true;
    return false;
  }

  sawExactly(bytes: Uint8Array): boolean {
    return Buffer.concat(this.seen).includes(Buffer.from(bytes));
  }

  close(): void {
    for (const s of this.sockets) s.destroy();
    this.server.close();
  }
}
