/**
 * Nodes brought up the way an operator does it (`generate accounts`, a WE-style node.conf,
 * `generate genesis`, `start --config`), for the e2e tests of configured nodes.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { until } from './support.js';

export const CLI = fileURLToPath(new URL('../../src/node/cli.js', import.meta.url));
export const runCli = (args: readonly string[]): Promise<{ stdout: string; stderr: string }> => promisify(execFile)(process.execPath, [CLI, ...args]);

export interface JsonAnswer {
  readonly status: number;
  readonly text: string;
  readonly json: Record<string, unknown>;
}

export interface ConfiguredNode {
  readonly child: ChildProcess;
  readonly url: string;
  get(path: string): Promise<JsonAnswer>;
  /** The node's output so far (stdout and stderr), for failure messages. */
  output(): string;
}

/** `start --config <conf>` with the owner's password in WE's environment variable. */
export function startConfiguredNode(conf: string, restPort: number, ownerPassword: string): ConfiguredNode {
  const child = spawn(process.execPath, [CLI, 'start', '--config', conf], {
    env: { ...process.env, WE_NODE_OWNER_PASSWORD: ownerPassword },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const url = `http://127.0.0.1:${restPort}`;
  return {
    child,
    url,
    async get(path) {
      const r = await fetch(url + path);
      const text = await r.text();
      return { status: r.status, text, json: JSON.parse(text) as Record<string, unknown> };
    },
    output: () => log,
  };
}

/** Waits until the node serves and its chain reaches `height`. */
export async function untilHeight(node: ConfiguredNode, height: number, what: string, timeoutMs = 30_000): Promise<number> {
  return until(what, async () => {
    const r = await node.get('/blocks/height').catch(() => undefined);
    const h = r?.json['height'] as number | undefined;
    return h !== undefined && h >= height ? h : undefined;
  }, timeoutMs);
}

/** A transfer signed by the node's keystore (`/transactions/signAndBroadcast`), waited for until confirmed; its JSON. */
export async function confirmedTransfer(node: ConfiguredNode, o: { sender: string; password: string; recipient: string; amount: number }): Promise<Record<string, unknown>> {
  const signed = await fetch(`${node.url}/transactions/signAndBroadcast`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 4, version: 3, sender: o.sender, password: o.password, recipient: o.recipient, amount: o.amount, fee: 1000000, attachment: '' }),
  });
  const tx = (await signed.json()) as Record<string, unknown>;
  if (signed.status !== 200) throw new Error(`signAndBroadcast: ${signed.status} ${JSON.stringify(tx)}`);
  return until('the transfer to be confirmed', async () => {
    const r = await node.get(`/transactions/info/${String(tx['id'])}`);
    return r.status === 200 ? r.json : undefined;
  }, 20_000);
}
