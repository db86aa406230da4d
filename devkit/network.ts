/**
 * A devnet of real node processes for end-to-end tests and benchmarks: src/cli/devnet.ts
 * prepares the directory (shared genesis, one HOCON config and keystore per node, every node
 * a registered miner and a known peer of the others), and each node runs as
 * `weft start --config node-i/node.conf` on free loopback ports.
 *
 * Every wait has a deadline; every process is killed and the directory removed when the test
 * file ends (or the runner exits), whatever happened.
 */
import { readHoconFile, renderHoconText } from '../src/config/hocon.js';
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { freeLoopbackPort, prepareDevnet, spawnDevnetNode, type DevnetLayout, type DevnetNode, type DevnetOptions } from '../src/cli/devnet.js';

import { httpRequest, type Answer, type RequestOptions } from './http.js';
import { sleep, until } from './wait.js';

export type { Answer };

export { sleep, until };

const LOG_TAIL_CHARS = 24_576;

/** One devnet node process (restartable). */
export class NetNode {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private tail = '';
  /** Every output line with the time it arrived (ms, Date.now()), for log-based measurements. */
  readonly lines: Array<{ at: number; line: string }> = [];
  keepLines = false;

  constructor(readonly spec: DevnetNode) {}

  get index(): number {
    return this.spec.index;
  }

  get url(): string {
    return this.spec.restUrl;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Starts the process; resolves once its REST API serves. */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.child !== undefined) throw new Error(`${this.spec.name} is running`);
    const child = spawnDevnetNode(this.spec, { pipe: true });
    this.child = child;
    let pending = '';
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      this.tail = (this.tail + text).slice(-LOG_TAIL_CHARS);
      if (!this.keepLines) return;
      const at = Date.now();
      pending += text;
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const line of parts) this.lines.push({ at, line });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.tail += `\n[${this.spec.name} exited: code ${code}, signal ${signal}]\n`;
        if (this.child === child) this.child = undefined;
        resolve();
      });
    });
    try {
      await until(
        `${this.spec.name} to serve`,
        async () => {
          if (this.child !== child) throw new Error('the process exited');
          const r = await this.get('/node/version', 1000);
          return r.status === 200 ? true : undefined;
        },
        timeoutMs,
        150,
      );
    } catch (e) {
      this.kill();
      throw new Error(`${(e as Error).message}\n--- ${this.spec.name} output ---\n${this.output()}`, { cause: e });
    }
  }

  /** SIGTERM, waits for the exit (SIGKILL after the deadline). */
  async stop(timeoutMs = 10_000): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    child.kill('SIGTERM');
    const done = await Promise.race([this.exited.then(() => true), sleep(timeoutMs).then(() => false)]);
    if (!done) {
      child.kill('SIGKILL');
      await this.exited;
    }
  }

  /** SIGKILL now; resolves once gone. */
  async killHard(): Promise<void> {
    this.kill();
    await Promise.race([this.exited, sleep(5000)]);
  }

  kill(): void {
    this.child?.kill('SIGKILL');
  }

  output(): string {
    return this.tail;
  }

  /** Rewrites this node's config (HOCON, as the devnet writes it) with `edit`; effective at the next start. */
  async editConfig(edit: (node: Record<string, unknown>) => void): Promise<void> {
    const doc = (await readHoconFile(this.spec.configFile)) as { node: Record<string, unknown> };
    edit(doc.node);
    writeFileSync(this.spec.configFile, renderHoconText(doc, `${this.spec.name}, edited by a test`));
  }

  /**
   * Cuts this node off (when stopped): at its next start it listens on a P2P port nobody
   * knows and knows no peer — no connection either way until one is asked for
   * (`POST /peers/connect`).
   */
  async isolate(): Promise<void> {
    const port = await freeLoopbackPort();
    await this.editConfig((node) => {
      const network = node['network'] as Record<string, unknown>;
      network['port'] = port;
      network['declared-address'] = `127.0.0.1:${port}`;
      network['known-peers'] = [];
    });
  }

  request(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<Answer> {
    return httpRequest(this.url, method, path, body, options);
  }

  get(path: string, timeoutMs?: number): Promise<Answer> {
    return this.request('GET', path, undefined, timeoutMs === undefined ? {} : { timeoutMs });
  }

  post(path: string, body: unknown): Promise<Answer> {
    return this.request('POST', path, body);
  }

  async height(): Promise<number> {
    return ((await this.get('/blocks/height')).json as { height: number }).height;
  }

  /** Block signatures at heights 1…to. */
  async signatures(to: number): Promise<string[]> {
    const out: string[] = [];
    for (let from = 1; from <= to; from += 99) {
      const r = await this.get(`/blocks/headers/seq/${from}/${Math.min(to, from + 98)}`);
      if (r.status !== 200) throw new Error(`${this.spec.name} /blocks/headers/seq: ${r.status} ${r.text}`);
      for (const h of r.json as Array<{ signature: string }>) out.push(h.signature);
    }
    return out;
  }

  async connectedPeers(): Promise<Array<{ address: string; declaredAddress: string; nodeOwnerAddress: string; peerName: string }>> {
    return (
      (await this.get('/peers/connected')).json as { peers: Array<{ address: string; declaredAddress: string; nodeOwnerAddress: string; peerName: string }> }
    ).peers;
  }
}

/** A devnet of node processes for one test file, cleaned up after it. */
export class Devnet {
  readonly nodes: NetNode[];

  private constructor(
    readonly layout: DevnetLayout,
    private readonly ownDir: string | undefined,
  ) {
    this.nodes = layout.nodes.map((n) => new NetNode(n));
  }

  /**
   * Prepares a devnet in a fresh temp directory (free ports) and registers its cleanup with
   * the current test context (`register: false` leaves `dispose` to the caller, e.g. when
   * created inside a `before` hook); its processes are killed when the test process exits either way.
   */
  static async create(options: Omit<DevnetOptions, 'dir' | 'basePort'> & { readonly register?: boolean }): Promise<Devnet> {
    const dir = mkdtempSync(join(tmpdir(), 'weft-devnet-'));
    const layout = await prepareDevnet({ keystore: { scrypt: { N: 1024, r: 8, p: 1 } }, ...options, dir, basePort: 0 });
    const net = new Devnet(layout, dir);
    // Whoever disposes of it, its node processes never outlive the test process.
    process.once('exit', () => net.killAll());
    if (options.register !== false) after(() => net.dispose());
    return net;
  }

  /** Starts every node (in parallel); resolves when all serve. */
  async startAll(timeoutMs = 45_000): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.start(timeoutMs)));
  }

  /** Resolves once every running node has every other running node as a peer. */
  async meshed(timeoutMs = 20_000): Promise<void> {
    const running = this.nodes.filter((n) => n.running);
    await until(
      'a full mesh of peers',
      async () => {
        for (const n of running) if ((await n.connectedPeers()).length < running.length - 1) return undefined;
        return true;
      },
      timeoutMs,
    );
  }

  killAll(): void {
    for (const n of this.nodes) n.kill();
  }

  async dispose(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop(5000).catch(() => n.kill())));
    if (this.ownDir !== undefined) rmSync(this.ownDir, { recursive: true, force: true });
  }

  /** Output tails of every node (for failure messages). */
  outputs(chars = 3000): string {
    return this.nodes.map((n) => `--- ${n.spec.name} ---\n${n.output().slice(-chars)}`).join('\n');
  }
}

/** Every node reports the same signature at every height below the lowest top (the top may be liquid). */
export async function oneChain(nodes: readonly NetNode[], timeoutMs = 20_000): Promise<number> {
  return until(
    `one chain on ${nodes.map((n) => n.spec.name).join(', ')}`,
    async () => {
      const heights = await Promise.all(nodes.map((n) => n.height()));
      const common = Math.min(...heights) - 1;
      if (common < 2) return undefined;
      const chains = await Promise.all(nodes.map((n) => n.signatures(common)));
      return chains.every((c) => c.join() === chains[0]!.join()) ? common : undefined;
    },
    timeoutMs,
    500,
  );
}
