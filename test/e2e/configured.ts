/**
 * Nodes brought up the way an operator does it (`generate accounts`, a WE-style node.conf,
 * `generate genesis`, `start --config`), for the e2e tests of configured nodes.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { httpRequest } from '../../devkit/http.js';
import { freePort, until } from './support.js';

export const CLI = fileURLToPath(new URL('../../src/cli/cli.js', import.meta.url));
export const runCli = (args: readonly string[]): Promise<{ stdout: string; stderr: string }> => promisify(execFile)(process.execPath, [CLI, ...args]);

export interface JsonAnswer {
  readonly status: number;
  readonly text: string;
  readonly json: Record<string, unknown>;
}

export interface GeneratedAccount {
  readonly address: string;
  readonly publicKey: string;
}

export interface ConfiguredNodeSpec {
  /** The address scheme character of the chain. */
  readonly chainId: string;
  /** The HOCON of `blockchain.consensus`, e.g. `type = pos`. */
  readonly consensus: string;
  readonly preActivatedFeatures: readonly number[];
  /** `genesis.average-block-delay`, e.g. `60s`. */
  readonly averageBlockDelay: string;
  /** The on-chain roles of the owner (the other account has none). */
  readonly ownerRoles: readonly string[];
  /** More HOCON inside `node { … }` (e.g. a `privacy { … }` section). */
  readonly extraNodeConfig?: string;
}

export interface PreparedConfiguredNode {
  /** Every account `generate accounts` wrote (the first is the owner). */
  readonly accounts: readonly GeneratedAccount[];
  readonly owner: GeneratedAccount;
  readonly other: GeneratedAccount;
  readonly conf: string;
  readonly restPort: number;
}

/**
 * In `dir`: `generate accounts` (two, password `owner secret`) into a keystore, a WE-style
 * node.conf for a one-node chain (genesis: 990 000 WEST to the owner, 10 000 to the other;
 * quorum 0; the dev API key), then `generate genesis` to sign it.
 */
export async function prepareConfiguredNode(dir: string, spec: ConfiguredNodeSpec): Promise<PreparedConfiguredNode> {
  const keystore = join(dir, 'keystore.json');
  const generated = await runCli([
    'generate',
    'accounts',
    '--keystore',
    keystore,
    '--chain-id',
    spec.chainId,
    '--count',
    '2',
    '--password',
    'owner secret',
    '--json',
  ]);
  const accounts = (JSON.parse(generated.stdout) as { accounts: GeneratedAccount[] }).accounts;
  const [owner, other] = accounts as [GeneratedAccount, GeneratedAccount];
  const restPort = await freePort();
  const conf = join(dir, 'node.conf');
  writeFileSync(
    conf,
    `node {
  owner-address = "${owner.address}"
  directory = "${dir}"
  data-directory = "${join(dir, 'data')}"
  wallet { file = "${keystore}", password = "unused" }
  blockchain {
    type = CUSTOM
    consensus { ${spec.consensus} }
    custom {
      address-scheme-character = "${spec.chainId}"
      functionality {
        feature-check-blocks-period = 2
        blocks-for-feature-activation = 1
        pre-activated-features = { ${spec.preActivatedFeatures.map((id) => `${id} = 0`).join(', ')} }
      }
      genesis {
        average-block-delay: ${spec.averageBlockDelay}
        initial-base-target: 153722867
        block-timestamp: 1700000000000
        initial-balance: 1000000 WEST
        genesis-public-key-base-58: ""
        signature: ""
        transactions = [
          { recipient: "${owner.address}", amount: 990000 WEST },
          { recipient: "${other.address}", amount: 10000 WEST }
        ]
        network-participants = [
          { public-key: "${owner.publicKey}", roles: [${spec.ownerRoles.join(', ')}] },
          { public-key: "${other.publicKey}", roles: [] }
        ]
      }
    }
  }
  # quorum 0: this one node forges without any miner peer (WE's default quorum is 1).
  miner { micro-block-interval = 500ms, quorum = 0 }
  api {
    rest { port = ${restPort}, bind-address = "127.0.0.1" }
    # The gRPC API (on by default, as in WE) on any free port: tests run side by side.
    grpc { port = 0 }
    auth { type = "api-key", api-key-hash = "AWUhyXUX6Jam852Gy1DibK7wYNXSMbhtDsKzribM6iLR", privacy-api-key-hash = "AWUhyXUX6Jam852Gy1DibK7wYNXSMbhtDsKzribM6iLR", confidential-contracts-api-key-hash = "AWUhyXUX6Jam852Gy1DibK7wYNXSMbhtDsKzribM6iLR" }
  }
  network { port = ${await freePort()}, bind-address = "127.0.0.1" }
${spec.extraNodeConfig ?? ''}
}
`,
  );
  await runCli(['generate', 'genesis', '--config', conf]);
  return { accounts, owner, other, conf, restPort };
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
    get: (path) => httpRequest(url, 'GET', path, undefined, { apiKey: null }),
    output: () => log,
  };
}

/** Waits until the node serves and its chain reaches `height`. */
export async function untilHeight(node: ConfiguredNode, height: number, what: string, timeoutMs = 30_000): Promise<number> {
  return until(
    what,
    async () => {
      const r = await node.get('/blocks/height').catch(() => undefined);
      const h = r?.json['height'] as number | undefined;
      return h !== undefined && h >= height ? h : undefined;
    },
    timeoutMs,
  );
}

/** A transfer signed by the node's keystore (`/transactions/signAndBroadcast`), waited for until confirmed; its JSON. */
export async function confirmedTransfer(
  node: ConfiguredNode,
  o: { sender: string; password: string; recipient: string; amount: number },
): Promise<Record<string, unknown>> {
  const signed = await httpRequest(
    node.url,
    'POST',
    '/transactions/signAndBroadcast',
    { type: 4, version: 3, sender: o.sender, password: o.password, recipient: o.recipient, amount: o.amount, fee: 1000000, attachment: '' },
    { apiKey: null },
  );
  if (signed.status !== 200) throw new Error(`signAndBroadcast: ${signed.status} ${signed.text}`);
  const tx = signed.json as Record<string, unknown>;
  return until(
    'the transfer to be confirmed',
    async () => {
      const r = await node.get(`/transactions/info/${String(tx['id'])}`);
      return r.status === 200 ? r.json : undefined;
    },
    20_000,
  );
}
