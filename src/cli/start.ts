/**
 * `start`: resolves what to run — a configured node (`--config FILE`) or the dev chain on
 * embedded defaults (no `--config`) — and runs it.
 *
 * Command-line options override the config: `--data-dir` (the dev chain's whole directory, or
 * a configured node's `data-directory`), `--rest-port`, `--p2p-port`; `--crypto gost` runs the
 * dev chain on GOST crypto, and `--pki test` with it in PKI mode TEST (dev-pki.ts).
 */
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { CryptoType } from '../crypto/suite.js';
import type { ContractPackageSettings } from '../contracts/settings.js';
import { Protocol } from '../protocol/protocol.js';
import { loadNodeConfig, withOverrides, type NodeConfig } from '../node/config.js';
import { DEV_API_KEY, DEV_DEFAULT_DATA_DIR, DEV_GOST_DEFAULT_DATA_DIR, devNodeConfig, writeDevAccounts } from './dev.js';
import { Keystore } from '../keystore/keystore.js';
import { Node } from '../node/node.js';

export interface StartOptions {
  /** A WE-style node config; absent: the dev chain. */
  readonly config?: string;
  readonly dataDir?: string;
  readonly restPort?: number;
  readonly p2pPort?: number;
  /** The dev chain's crypto (default `waves`); a configured node takes `node.crypto.type` from its config. */
  readonly crypto?: CryptoType;
  /** The dev chain's PKI mode: TEST with a dev root CA (GOST only); a configured node takes `node.crypto.pki` from its config. */
  readonly pki?: 'TEST';
  /** Dev chain only: the contract gRPC port. */
  readonly grpcPort?: number;
  /** Dev chain only: `IMAGE=DIR` — contract images run from local packages. */
  readonly contract?: readonly string[];
}

/** `--contract IMAGE=DIR|FILE.tgz`: a contract image the dev chain runs as a local process. */
export function devContractPackage(spec: string): ContractPackageSettings {
  const at = spec.lastIndexOf('=');
  if (at <= 0 || at === spec.length - 1) throw new Error(`--contract '${spec}': expected IMAGE=DIR (or IMAGE=FILE.tgz)`);
  return { image: spec.slice(0, at), runtime: 'process', source: resolve(spec.slice(at + 1)), command: undefined, env: {} };
}

export interface StartIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Asks for a secret on the console; undefined when there is no console. */
  readonly askSecret: ((prompt: string) => Promise<string>) | undefined;
  readonly out: (text: string) => void;
}

/** Reads a line from the terminal without echoing it. */
export function askSecretOnTerminal(prompt: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback): void {
      if (!muted) process.stdout.write(chunk);
      callback();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolve) => {
    rl.question(prompt, (answer) => {
      rl.close();
      process.stdout.write('\n');
      resolve(answer);
    });
    muted = true;
  });
}

export function processIo(): StartIo {
  return {
    env: process.env,
    askSecret: process.stdin.isTTY ? askSecretOnTerminal : undefined,
    out: (text) => process.stdout.write(text),
  };
}

export interface ResolvedStart {
  readonly config: NodeConfig;
  /** True for the dev chain. */
  readonly dev: boolean;
}

/**
 * The owner's keystore password, as WE's node gets it: WE_NODE_OWNER_PASSWORD(_EMPTY) in the
 * environment (already in the config), else the console. An entry without a password needs none.
 */
async function withOwnerPassword(config: NodeConfig, io: StartIo): Promise<NodeConfig> {
  const protocol = await Protocol.create({ crypto: config.chain.crypto, chainId: config.chain.chainId });
  const keystore = Keystore.open(config.node.wallet.file, protocol.addresses);
  const owner = config.node.ownerAddress.toString();
  if (!keystore.has(owner)) throw new Error(`Node owner address '${owner}' does not exist in the keystore '${keystore.path}'`);
  if (config.node.ownerPassword !== undefined) return config;
  const entry = keystore.info().find((e) => e.address === owner);
  let password: string;
  if (entry !== undefined && !entry.passwordProtected) password = '';
  else if (io.askSecret !== undefined) password = await io.askSecret('Enter the password for private key: ');
  else {
    throw new Error(
      "Node owner's password has not been received: there is no console to ask it on. " +
        'Set WE_NODE_OWNER_PASSWORD, or WE_NODE_OWNER_PASSWORD_EMPTY=true for a key without a password',
    );
  }
  return { ...config, node: { ...config.node, ownerPassword: password } };
}

/** The config `start` runs with these options. */
export async function resolveStartConfig(options: StartOptions, io: StartIo = processIo()): Promise<ResolvedStart> {
  if (options.config === undefined) {
    const config = await devNodeConfig({
      dataDir: options.dataDir ?? (options.crypto === 'gost' ? DEV_GOST_DEFAULT_DATA_DIR : DEV_DEFAULT_DATA_DIR),
      ...(options.restPort === undefined ? {} : { restPort: options.restPort }),
      ...(options.p2pPort === undefined ? {} : { p2pPort: options.p2pPort }),
      ...(options.crypto === undefined ? {} : { crypto: options.crypto }),
      ...(options.pki === undefined ? {} : { pki: options.pki }),
      ...(options.grpcPort === undefined ? {} : { grpcPort: options.grpcPort }),
      contractPackages: (options.contract ?? []).map(devContractPackage),
    });
    return { config, dev: true };
  }
  if (options.crypto !== undefined) {
    throw new Error(`--crypto is for the dev chain only: a configured node runs the crypto of its config's node.crypto.type`);
  }
  if (options.pki !== undefined) {
    throw new Error(`--pki is for the dev chain only: a configured node runs the PKI of its config's node.crypto.pki`);
  }
  if (options.grpcPort !== undefined || (options.contract ?? []).length > 0) {
    throw new Error('--grpc-port and --contract are for the dev chain only: a configured node reads node.api.grpc and node.contracts from its config');
  }
  const loaded = withOverrides(await loadNodeConfig(options.config, { env: io.env }), options);
  return { config: await withOwnerPassword(loaded, io), dev: false };
}

/** What the dev chain prints at start; `grpcPort` is the port its gRPC API took (the config may say 0: any free port). */
export function devBanner(config: NodeConfig, accountsFile: string, grpcPort?: number): string {
  const host = config.api.bindAddress;
  return [
    `Weft dev chain (chain id '${config.chain.chainId}', ${config.chain.crypto} crypto) in ${config.node.directory}`,
    `REST API:  http://${host}:${config.api.port}`,
    `Explorer:  http://${host}:${config.api.port}/explorer/`,
    ...(config.metrics.enabled ? [`Metrics:   http://${host}:${config.api.port}${config.metrics.path} (Prometheus)`] : []),
    `API key:   ${DEV_API_KEY}`,
    ...(grpcPort !== undefined && config.api.grpc.enabled && config.contracts !== undefined
      ? [`gRPC API:  ${config.contracts.grpc.bindAddress}:${grpcPort} (WE's public services: blockchain events, transactions, addresses, node info…)`]
      : []),
    ...(config.contracts?.enable === true
      ? [
          `Contracts: gRPC on ${config.contracts.grpc.bindAddress}:${grpcPort ?? config.contracts.grpc.port}; images run as processes: ${config.contracts.packages.map((p) => p.image).join(', ') || 'none (add --contract IMAGE=DIR)'}`,
        ]
      : []),
    `Accounts, seeds and keystore passwords: ${accountsFile}`,
    '',
  ].join('\n');
}

/** `start`: resolves the config, runs the node, and stops it cleanly on SIGINT/SIGTERM. */
export async function startNode(options: StartOptions, io: StartIo = processIo()): Promise<Node> {
  const { config, dev } = await resolveStartConfig(options, io);
  // POST /node/stop: the node stops cleanly, then the process exits (WE's node exits its JVM).
  const node = await Node.start(config, { onStopRequested: () => process.exit(0) });
  // dev-accounts.json appears once the API is serving, so a script may wait for the file.
  if (dev) io.out(devBanner(config, await writeDevAccounts(config, node.grpcPort), node.grpcPort));
  const stop = (signal: string): void => {
    node.log.info({ signal }, 'stopping');
    void node.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return node;
}
