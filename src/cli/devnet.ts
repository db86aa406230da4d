/**
 * `npm run devnet -- --nodes 4`: a local PoA network of N nodes on loopback in one command;
 * `--consensus cft` makes it a CFT network (PoA's rounds plus finality voting).
 *
 *   node dist/src/cli/devnet.js [--nodes N] [--dir DIR] [--base-port P] [--round 3s] [--sync 1s] [--crypto gost]
 *                               [--consensus cft [--finalization-timeout 2s]]
 *
 * Prepares DIR (a fresh temp directory by default; an existing devnet directory is reused, so
 * its chain resumes): one shared genesis, signed once, in which every node owner is a
 * registered participant holding the `miner` role (node 0 also `permissioner` and
 * `connection_manager`), plus the five dev-chain accounts of dev.ts with their balances
 * (account 0 with every role but miner and sender) so clients can use the same seeds as on the
 * dev chain. Then for node i: `node-i/node.conf` (WE's HOCON layout, written by the same
 * renderer as /debug/configInfo), `node-i/keystore.json` holding the owner key (password
 * `weft-devnet-<i>`), REST on 127.0.0.1:P+2i, P2P on 127.0.0.1:P+2i+1, gRPC (the public gRPC
 * API, and the contract engine's with `--contract`) on 127.0.0.1:P+2N+i (free ports chosen by
 * the OS when P is 0), every other node as a known peer. `devnet.json` lists all of it.
 *
 * Then it starts N `weft start --config node-i/node.conf` processes (owner password through
 * WE_NODE_OWNER_PASSWORD), their output in `node-i/node.log`, prints the REST URLs and the
 * API key, and stops them all on Ctrl-C (SIGINT/SIGTERM).
 *
 * Owner keys come from the seeds `weft devnet node <i> - never use this seed on a real
 * network`, so a devnet is reproducible except for its genesis time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { decodeBase58, encodeBase58 } from '../crypto/encoding.js';
import type { CryptoType, KeyPair } from '../crypto/suite.js';
import { signGenesisBlock, UNITS_IN_WEST, type GenesisSettings } from '../protocol/blocks.js';
import type { Protocol } from '../protocol/protocol.js';
import type { RoleName } from '../protocol/transactions/permissions.js';
import type { ChainSettings, ConsensusSettings } from '../chain/settings.js';
import { apiKeyHash, DEFAULTS, loadNodeConfig, type NetworkTlsFiles, type NodeConfig, type PeerAddress } from '../node/config.js';
import { cryptoArg, pkiArg } from './cli.js';
import { devPkiSettings } from './dev-pki.js';
import { renderNodeConfig } from '../node/config-render.js';
import { renderHoconText } from '../config/hocon.js';
import { defaultContractsSettings } from '../contracts/settings.js';
import {
  DEV_API_KEY,
  DEV_CHAIN_ID,
  DEV_OWNER_ROLES,
  DEV_POA,
  devAccounts,
  devChainSettings,
  devContractsSettings,
  devProtocol,
  loopbackApi,
  type DevAccount,
} from './dev.js';
import { devContractPackage } from './start.js';
import type { ContractPackageSettings } from '../contracts/settings.js';
import { Keystore, writeFileAtomic, type KeystoreOptions } from '../keystore/keystore.js';
import { PKI_OFF, type PkiSettings } from '../pki/settings.js';
import { devLicenceSettings, writeDevLicence } from '../node/licences-wiring.js';
import { isMainModule } from './main-module.js';

export const DEVNET_FILE = 'devnet.json';
export const DEVNET_DEFAULT_BASE_PORT = 6870;
const FORMAT = 'weft-devnet';

export interface DevnetOptions {
  /** How many nodes (1…30). */
  readonly nodes: number;
  /** The devnet directory (created; an existing devnet there is reused). */
  readonly dir: string;
  /** REST of node i on basePort + 2i, P2P on basePort + 2i + 1; 0: free ports picked by the OS. */
  readonly basePort?: number;
  readonly roundDurationMs?: number;
  readonly syncDurationMs?: number;
  readonly microBlockIntervalMs?: number;
  /** `miner.quorum` (default 1: a node forges only with a miner peer connected; 0 for a devnet of one node). */
  readonly quorum?: number;
  /** Pool and block limits, for benchmarks. */
  readonly maxTransactionsInMicroBlock?: number;
  readonly maxBlockSizeInBytes?: number;
  readonly utxMemoryLimitBytes?: number;
  readonly loggingLevel?: NodeConfig['node']['loggingLevel'];
  /**
   * How many of the nodes (the last ones) are left out of the genesis: their owners are
   * neither funded nor registered participants until a RegisterNode (111) adds them, so the
   * others refuse their handshakes until then. Default 0.
   */
  readonly joining?: number;
  /** `poa` (default) or `cft`. */
  readonly consensus?: DevnetConsensus;
  /** CFT: how long after its round ends a block may still be finalised (default DEVNET_FINALIZATION_TIMEOUT_MS; less than the round). */
  readonly finalizationTimeoutMs?: number;
  /** PoA warnings and bans (default WE's example: 100 blocks, 3 warnings, 40 %). */
  readonly bans?: Partial<DevnetBans>;
  /** Each node's `node.crypto.verifier-threads` (default: devnetVerifierThreads for this machine). */
  readonly verifierThreads?: number;
  /** TLS on the P2P connections, the same PEM files for every node. */
  readonly tls?: NetworkTlsFiles;
  /** Keystore options (tests use a cheap scrypt). */
  readonly keystore?: KeystoreOptions;
  /** Genesis time (default now). */
  readonly now?: () => bigint;
  /** The network's crypto (default `waves`). */
  readonly crypto?: CryptoType;
  /** PKI mode TEST with the dev root CA certifying the dev accounts (GOST only; dev-pki.ts). */
  readonly pki?: 'TEST';
  /**
   * Contract images every node runs from local packages (process runtime), each node's contract
   * engine on a gRPC port of its own. Chosen when the devnet is created; without it the nodes run
   * no contract engine.
   */
  readonly contractPackages?: readonly ContractPackageSettings[];
}

export type DevnetConsensus = 'poa' | 'cft';

/**
 * A CFT devnet's finalization-timeout: a block not final by its round end + 2 s is dropped by
 * the next miner 2 s into its round. Under the 3 s default round (WE requires less than the
 * round), and long enough for validators on one loaded machine to vote after the sync start.
 */
export const DEVNET_FINALIZATION_TIMEOUT_MS = 2000;

export interface DevnetBans {
  readonly banDurationBlocks: number;
  readonly warningsForBan: number;
  readonly maxBansPercentage: number;
}

export interface DevnetNode {
  readonly index: number;
  readonly name: string;
  readonly dir: string;
  readonly configFile: string;
  readonly logFile: string;
  readonly restPort: number;
  readonly p2pPort: number;
  readonly restUrl: string;
  readonly ownerAddress: string;
  readonly ownerPublicKey: string;
  readonly keystorePassword: string;
  /** The contract engine's gRPC port, on a devnet created with contract packages. */
  readonly grpcPort?: number;
  /**
   * The node's gRPC port, where its public gRPC API serves (the same port as `grpcPort` on a
   * devnet with contract packages); absent in devnets written before every node had one (their
   * configs keep the public gRPC API off).
   */
  readonly publicGrpcPort?: number;
}

/** `devnet.json`. */
export interface DevnetLayout {
  readonly format: typeof FORMAT;
  readonly dir: string;
  readonly chainId: string;
  /** `waves` or `gost` (absent in devnets written before GOST devnets: `waves`). */
  readonly crypto?: CryptoType;
  /** `poa` or `cft` (absent in devnets written before CFT devnets: `poa`). */
  readonly consensus?: DevnetConsensus;
  readonly apiKey: string;
  readonly genesisTimestamp: string;
  readonly roundDurationMs: number;
  readonly syncDurationMs: number;
  readonly nodes: readonly DevnetNode[];
  /** The dev-chain accounts (dev.ts), with balances on this network too. */
  readonly accounts: ReadonlyArray<{ readonly seed: string; readonly address: string; readonly publicKey: string; readonly roles: readonly string[] }>;
}

export const devnetNodeSeed = (index: number): string => `weft devnet node ${index} - never use this seed on a real network`;
export const devnetKeystorePassword = (index: number): string => `weft-devnet-${index}`;
/** WEST each node owner gets in the genesis. */
const NODE_BALANCE_WEST = 1000n;

export function devnetNodeKeyPair(protocol: Protocol, index: number): KeyPair {
  return protocol.crypto.keyPairFromSeedPhrase(devnetNodeSeed(index));
}

function nodeRoles(index: number): RoleName[] {
  return index === 0 ? ['miner', 'permissioner', 'connection_manager'] : ['miner'];
}

/** A loopback TCP port nobody listens on right now. */
export async function freeLoopbackPort(): Promise<number> {
  return (await freeLoopbackPorts(1))[0]!;
}

/** The first port of the kernel's ephemeral range (outgoing connections' source ports, `listen(0)`); 32768 where unknown. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 ? low : 32768;
  } catch {
    return 32768;
  }
}

const PICK_FROM = 10_000;

/** Listens on `port` of 127.0.0.1 (0: the kernel picks), or undefined when it is taken. */
function holdPort(port: number): Promise<Server | undefined> {
  return new Promise((resolveServer, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' || e.code === 'EACCES' ? resolveServer(undefined) : reject(e)));
    server.listen(port, '127.0.0.1', () => resolveServer(server));
  });
}

/**
 * `count` distinct loopback TCP ports nobody listens on right now, all held while they are
 * picked (ports picked one after another, each released before the next, can be the same one:
 * a devnet node then found its REST port taken by its own P2P listener). They are drawn below
 * the kernel's ephemeral range: a port from that range, free when picked, may be taken as the
 * source port of any outgoing connection before the node listens on it.
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const high = ephemeralLow();
  const servers: Server[] = [];
  for (let attempts = 0; servers.length < count && attempts < 50 * count; attempts++) {
    const server = high - PICK_FROM > 100 ? await holdPort(PICK_FROM + Math.floor(Math.random() * (high - PICK_FROM))) : undefined;
    if (server !== undefined) servers.push(server);
  }
  // A machine with that range full or closed: the kernel's choice.
  while (servers.length < count) {
    const server = await holdPort(0);
    if (server !== undefined) servers.push(server);
  }
  const ports = servers.map((server) => {
    const address = server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  });
  await Promise.all(servers.map((server) => new Promise<void>((closed) => server.close(() => closed()))));
  return ports;
}

/** The shared genesis: node owners (miners) first, then the dev accounts. */
function devnetGenesis(
  protocol: Protocol,
  nodes: readonly KeyPair[],
  dev: readonly DevAccount[],
  timestamp: bigint,
  consensus: DevnetConsensus,
): GenesisSettings {
  const transactions = [
    ...nodes.map((k) => ({ recipient: protocol.addresses.fromPublicKey(k.publicKey), amount: NODE_BALANCE_WEST * UNITS_IN_WEST })),
    ...dev.map((a) => ({ recipient: protocol.addresses.parseAddress(a.address), amount: a.balance })),
  ];
  const unsigned: GenesisSettings = {
    version: 1,
    blockTimestamp: timestamp,
    initialBalance: transactions.reduce((sum, t) => sum + t.amount, 0n),
    initialBaseTarget: 153_722_867n,
    genesisPublicKey: null,
    signature: null,
    transactions,
    networkParticipants: [
      ...nodes.map((k, i) => ({ publicKey: k.publicKey, roles: nodeRoles(i) })),
      ...dev.map((a) => ({ publicKey: a.keyPair.publicKey, roles: a.index === 0 ? DEV_OWNER_ROLES.filter((r) => r !== 'miner') : [] })),
    ],
    senderRoleEnabled: false,
  };
  const signer = protocol.crypto.generateKeyPair();
  const block = signGenesisBlock(protocol, { ...unsigned, genesisPublicKey: signer.publicKey }, consensus, signer.privateKey);
  signer.privateKey.fill(0);
  return { ...unsigned, genesisPublicKey: signer.publicKey, signature: block.signature };
}

/**
 * The signature verifier threads of each of `nodes` nodes sharing `cores` cores: the cores
 * each node gets, less one for its event loop. A devnet with as many nodes as cores or more
 * (four on a 2-core laptop) gets none: its nodes' event loops already keep every core busy,
 * so a verifier thread of their own would gain no core and only cost each signature its
 * hand-offs between threads (4 nodes on 2 cores, the network bench: about 15 % less CPU per
 * transfer and a quarter more transfers confirmed per second without them). Undefined for
 * one node alone: the node's own default (one per core but one).
 */
export function devnetVerifierThreads(nodes: number, cores = availableParallelism()): number | undefined {
  return nodes <= 1 ? undefined : Math.max(0, Math.floor(cores / nodes) - 1);
}

function verifierThreadsOf(o: DevnetOptions): { verifierThreads?: number } {
  const threads = o.verifierThreads ?? devnetVerifierThreads(o.nodes);
  return threads === undefined ? {} : { verifierThreads: threads };
}

/** One node's config (as `start --config` will read it back from node.conf). */
function nodeConfig(o: DevnetOptions, protocol: Protocol, chain: ChainSettings, node: DevnetNode, peers: readonly PeerAddress[], pki: PkiSettings): NodeConfig {
  const hash = decodeBase58(apiKeyHash(protocol.crypto, DEV_API_KEY));
  const micro = o.microBlockIntervalMs ?? 500;
  return {
    source: null,
    node: {
      directory: node.dir,
      dataDirectory: join(node.dir, 'data'),
      ownerAddress: protocol.addresses.parseAddress(node.ownerAddress),
      ownerPassword: undefined,
      wallet: { file: join(node.dir, 'keystore.json'), password: '' },
      loggingLevel: o.loggingLevel ?? 'INFO',
      ...verifierThreadsOf(o),
    },
    chain,
    consensusType: chain.consensus.type,
    miner: {
      ...DEFAULTS.miner,
      // A node alone has no miner peer to wait for: it forges by itself (WE's miner.quorum = 0).
      quorum: o.quorum ?? (o.nodes === 1 ? 0 : 1),
      noQuorumMiningDelayMs: 500,
      microBlockIntervalMs: micro,
      minMicroBlockAgeMs: micro,
      ...(o.maxTransactionsInMicroBlock === undefined ? {} : { maxTransactionsInMicroBlock: o.maxTransactionsInMicroBlock }),
      ...(o.maxBlockSizeInBytes === undefined ? {} : { maxBlockSizeInBytes: o.maxBlockSizeInBytes }),
    },
    utx: { ...DEFAULTS.utx, ...(o.utxMemoryLimitBytes === undefined ? {} : { memoryLimitBytes: o.utxMemoryLimitBytes }) },
    api: { ...loopbackApi(node.restPort, hash), pkiMode: pki.mode },
    network: {
      ...DEFAULTS.network,
      bindAddress: '127.0.0.1',
      port: node.p2pPort,
      declaredAddress: { host: '127.0.0.1', port: node.p2pPort },
      nodeName: node.name,
      nonce: BigInt(node.index + 1),
      knownPeers: peers,
      attemptConnectionDelayMs: 1000,
      suspensionResidenceTimeMs: 5000,
      tls: o.tls,
    },
    features: { ...DEFAULTS.features, supported: [] },
    metrics: DEFAULTS.metrics,
    contracts:
      node.grpcPort !== undefined
        ? devContractsSettings(join(node.dir, 'data'), { grpcPort: node.grpcPort, contractPackages: o.contractPackages ?? [] })
        : // No contract engine: the contract keys only say where the node's gRPC port listens.
          { ...defaultContractsSettings(join(node.dir, 'data')), grpc: { bindAddress: '127.0.0.1', port: node.publicGrpcPort ?? 0 } },
    pki,
    licences: devLicenceSettings(protocol.crypto),
  };
}

/** The contract images a devnet's nodes run, as their configs (node-i/node.conf, written when it was created) hold them; none without an engine. */
export async function devnetContractPackages(layout: DevnetLayout): Promise<readonly ContractPackageSettings[]> {
  const first = layout.nodes[0];
  if (first === undefined || first.grpcPort === undefined) return [];
  return (await loadNodeConfig(first.configFile, { env: {} })).contracts?.packages ?? [];
}

/**
 * The devnet's consensus section: PoA's, or CFT's on PoA's rounds and bans with every other
 * miner a validator of each block (max-validators: all the nodes but the block's miner, so no
 * shuffle), the finalization-timeout of the options, and no full-vote-set-timeout (the miner
 * publishes its votes as soon as they finalise the block — the shortest time to finality).
 */
function devnetConsensus(poa: ConsensusSettings, o: DevnetOptions): ConsensusSettings {
  if ((o.consensus ?? 'poa') === 'poa' || poa.type !== 'poa') return poa;
  const finalizationTimeoutMs = o.finalizationTimeoutMs ?? DEVNET_FINALIZATION_TIMEOUT_MS;
  if (finalizationTimeoutMs >= poa.roundDurationMs) {
    throw new Error(`--finalization-timeout must be less than the round (${finalizationTimeoutMs} ms ≥ ${poa.roundDurationMs} ms)`);
  }
  const { type: _poa, ...rounds } = poa;
  return { ...rounds, type: 'cft', maxValidators: Math.max(1, o.nodes - 1), finalizationTimeoutMs, fullVoteSetTimeoutMs: undefined };
}

/** `IMAGE=SOURCE, …` of contract images, in image order (as `--contract` names them). */
function packagesText(packages: readonly ContractPackageSettings[]): string {
  return (
    packages
      .map((p) => `${p.image}=${p.source ?? ''}`)
      .sort()
      .join(', ') || 'none'
  );
}

/** Reads `devnet.json` of a directory, if there is one. */
export function readDevnet(dir: string): DevnetLayout | undefined {
  const file = join(dir, DEVNET_FILE);
  if (!existsSync(file)) return undefined;
  const layout = JSON.parse(readFileSync(file, 'utf8')) as DevnetLayout;
  if (layout.format !== FORMAT) throw new Error(`${file} is not a devnet description`);
  return layout;
}

/**
 * Writes a devnet into `o.dir` (configs, keystores, devnet.json) and returns its layout; an
 * existing devnet of as many nodes there is returned as it is.
 */
export async function prepareDevnet(o: DevnetOptions): Promise<DevnetLayout> {
  if (!Number.isInteger(o.nodes) || o.nodes < 1 || o.nodes > 30) throw new Error(`--nodes must be 1…30, got ${o.nodes}`);
  const joining = o.joining ?? 0;
  if (!Number.isInteger(joining) || joining < 0 || joining >= o.nodes) throw new Error(`joining must be 0…${o.nodes - 1}, got ${joining}`);
  if (o.consensus === 'cft' && o.nodes - joining < 2) {
    // WE calls a block final only when it carries votes, and a lone miner has no validator to vote.
    throw new Error(`--consensus cft needs at least 2 nodes in the genesis: a lone miner's blocks are never final, got ${o.nodes - joining}`);
  }
  const dir = resolve(o.dir);
  const existing = readDevnet(dir);
  if (existing !== undefined) {
    if (existing.nodes.length !== o.nodes) throw new Error(`${dir} holds a devnet of ${existing.nodes.length} nodes, not ${o.nodes}: use another --dir`);
    const existingConsensus = existing.consensus ?? 'poa';
    if (existingConsensus !== (o.consensus ?? 'poa'))
      throw new Error(`${dir} holds a ${existingConsensus} devnet, not a ${o.consensus ?? 'poa'} one: use another --dir`);
    const existingCrypto = existing.crypto ?? 'waves';
    if (existingCrypto !== (o.crypto ?? 'waves'))
      throw new Error(`${dir} holds a ${existingCrypto} devnet, not a ${o.crypto ?? 'waves'} one: use another --dir`);
    if (o.contractPackages !== undefined && existing.nodes.some((n) => n.grpcPort === undefined)) {
      throw new Error(
        `${dir} holds a devnet created without --contract: its nodes run no contract engine; contract images are chosen when a devnet is created — use another --dir`,
      );
    }
    if (o.contractPackages !== undefined) {
      // Its nodes' configs keep the images it was created with: another list would be silently ignored.
      const kept = packagesText(await devnetContractPackages(existing));
      const given = packagesText(o.contractPackages);
      if (kept !== given) {
        throw new Error(
          `${dir} holds a devnet whose nodes run the contract images ${kept}, not ${given}: contract images are chosen when a devnet is created — reopen it without --contract (it keeps its images) or use another --dir`,
        );
      }
    }
    return existing;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const protocol = await devProtocol(o.crypto);
  const roundDurationMs = o.roundDurationMs ?? 3000;
  const syncDurationMs = o.syncDurationMs ?? 1000;
  const base = o.basePort ?? DEVNET_DEFAULT_BASE_PORT;
  const keys = Array.from({ length: o.nodes }, (_, i) => devnetNodeKeyPair(protocol, i));
  const nodes: DevnetNode[] = [];
  const withContracts = o.contractPackages !== undefined;
  // REST and P2P of node i at base+2i and base+2i+1; its gRPC after all of them, at base+2n+i.
  const free = base === 0 ? await freeLoopbackPorts(3 * o.nodes) : undefined;
  for (let i = 0; i < o.nodes; i++) {
    const nodeDir = join(dir, `node-${i}`);
    const restPort = free === undefined ? base + 2 * i : free[2 * i]!;
    const p2pPort = free === undefined ? base + 2 * i + 1 : free[2 * i + 1]!;
    const publicGrpcPort = free === undefined ? base + 2 * o.nodes + i : free[2 * o.nodes + i]!;
    nodes.push({
      index: i,
      name: `devnet-node-${i}`,
      dir: nodeDir,
      configFile: join(nodeDir, 'node.conf'),
      logFile: join(nodeDir, 'node.log'),
      restPort,
      p2pPort,
      restUrl: `http://127.0.0.1:${restPort}`,
      ownerAddress: protocol.addresses.fromPublicKey(keys[i]!.publicKey).toString(),
      ownerPublicKey: encodeBase58(keys[i]!.publicKey),
      keystorePassword: devnetKeystorePassword(i),
      ...(withContracts ? { grpcPort: publicGrpcPort } : {}),
      publicGrpcPort,
    });
  }
  const dev = devAccounts(protocol);
  const consensus = o.consensus ?? 'poa';
  const genesis = devnetGenesis(protocol, keys.slice(0, o.nodes - joining), dev, (o.now ?? (() => BigInt(Date.now())))(), consensus);
  // The dev chain's ban settings (WE's example: ban-duration-blocks 100, warnings-for-ban 3, max-bans-percentage 40) unless overridden.
  const poaChain = devChainSettings(genesis, { ...DEV_POA, roundDurationMs, syncDurationMs, ...o.bans }, protocol.crypto.type);
  const chain: ChainSettings = { ...poaChain, consensus: devnetConsensus(poaChain.consensus, o) };
  const pki =
    o.pki === undefined
      ? PKI_OFF
      : devPkiSettings(
          protocol,
          dir,
          dev.map((a) => a.keyPair.publicKey),
          genesis.blockTimestamp,
        );
  for (const node of nodes) {
    mkdirSync(node.dir, { recursive: true, mode: 0o700 });
    const keystore = Keystore.open(join(node.dir, 'keystore.json'), protocol.addresses, o.keystore);
    writeDevLicence(protocol.crypto, join(node.dir, 'data'), node.ownerAddress, genesis.blockTimestamp);
    if (!keystore.has(node.ownerAddress)) keystore.addKeyPair(keys[node.index]!, node.keystorePassword);
    const peers = nodes.filter((n) => n !== node).map((n) => ({ host: '127.0.0.1', port: n.p2pPort }));
    const rendered = renderNodeConfig(nodeConfig(o, protocol, chain, node, peers, pki));
    // WE requires genesis.average-block-delay whatever the consensus (unused by PoA).
    (rendered.node['blockchain'] as { custom: { genesis: Record<string, unknown> } }).custom.genesis['average-block-delay'] = '60s';
    writeFileAtomic(node.configFile, renderHoconText(rendered, `${node.name} of a Weft devnet — WE's HOCON keys; blocks may be appended (docs/devnet.md)`));
  }
  const layout: DevnetLayout = {
    format: FORMAT,
    dir,
    chainId: DEV_CHAIN_ID,
    crypto: protocol.crypto.type,
    ...(consensus === 'poa' ? {} : { consensus }),
    apiKey: DEV_API_KEY,
    genesisTimestamp: genesis.blockTimestamp.toString(),
    roundDurationMs,
    syncDurationMs,
    nodes,
    accounts: dev.map((a) => ({
      seed: a.seed,
      address: a.address,
      publicKey: encodeBase58(a.keyPair.publicKey),
      roles: a.index === 0 ? DEV_OWNER_ROLES.filter((r) => r !== 'miner') : [],
    })),
  };
  writeFileAtomic(join(dir, DEVNET_FILE), `${JSON.stringify(layout, null, 2)}\n`);
  return layout;
}

const CLI = fileURLToPath(new URL('./cli.js', import.meta.url));

/**
 * Spawns `weft start --config` for a devnet node, its output appended to node.log (or piped
 * when `pipe`); `nodeOptions` go to Node itself (e.g. `--cpu-prof`, which NODE_OPTIONS refuses).
 */
export function spawnDevnetNode(
  node: DevnetNode,
  options: { pipe?: boolean; extraArgs?: readonly string[]; nodeOptions?: readonly string[] } = {},
): ChildProcess {
  const child = spawn(process.execPath, [...(options.nodeOptions ?? []), CLI, 'start', '--config', node.configFile, ...(options.extraArgs ?? [])], {
    env: { ...process.env, WE_NODE_OWNER_PASSWORD: node.keystorePassword },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (options.pipe !== true) {
    const log = createWriteStream(node.logFile, { flags: 'a' });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
  }
  return child;
}

/** Whether a devnet node's REST API answers. */
async function serving(node: DevnetNode): Promise<boolean> {
  try {
    const r = await fetch(`${node.restUrl}/node/version`, { signal: AbortSignal.timeout(1000) });
    return r.status === 200;
  } catch {
    return false;
  }
}

function durationArg(value: string): number {
  const m = /^(\d+)(ms|s)?$/.exec(value.trim());
  if (m === null) throw new InvalidArgumentError('expected a duration like 3s or 500ms');
  return Number(m[1]) * (m[2] === 'ms' ? 1 : 1000);
}

function consensusArg(value: string): DevnetConsensus {
  const v = value.trim().toLowerCase();
  if (v !== 'poa' && v !== 'cft') throw new InvalidArgumentError('expected poa or cft');
  return v;
}

function intArg(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new InvalidArgumentError(`expected a number from ${min} to ${max}`);
    return Number(value);
  };
}

export interface DevnetCliOptions {
  nodes: number;
  dir?: string;
  basePort: number;
  round: number;
  sync: number;
  crypto?: CryptoType;
  consensus?: DevnetConsensus;
  finalizationTimeout?: number;
  pki?: 'TEST';
  /** `--contract IMAGE=DIR`, repeatable. */
  contract?: string[];
}

/** Runs the devnet until SIGINT/SIGTERM; resolves when every node has stopped. */
export async function runDevnet(o: DevnetCliOptions, out: (text: string) => void = (t) => process.stdout.write(t)): Promise<void> {
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'weft-devnet-'));
  const layout = await prepareDevnet({
    nodes: o.nodes,
    dir,
    basePort: o.basePort,
    roundDurationMs: o.round,
    syncDurationMs: o.sync,
    ...(o.crypto === undefined ? {} : { crypto: o.crypto }),
    ...(o.consensus === undefined ? {} : { consensus: o.consensus }),
    ...(o.finalizationTimeout === undefined ? {} : { finalizationTimeoutMs: o.finalizationTimeout }),
    ...(o.pki === undefined ? {} : { pki: o.pki }),
    ...(o.contract === undefined ? {} : { contractPackages: o.contract.map(devContractPackage) }),
  });
  const images = packagesText(o.contract !== undefined ? o.contract.map(devContractPackage) : await devnetContractPackages(layout));
  const children = layout.nodes.map((n) => ({ node: n, child: spawnDevnetNode(n), exited: false }));
  let stopping = false;
  const done = Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolveExit) => {
          c.child.once('exit', (code, signal) => {
            c.exited = true;
            if (!stopping) out(`${c.node.name} exited (code ${code}, signal ${signal}); its log: ${c.node.logFile}\n`);
            resolveExit();
          });
        }),
    ),
  );
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    out('\nstopping the devnet…\n');
    for (const c of children) if (!c.exited) c.child.kill('SIGTERM');
    setTimeout(() => {
      for (const c of children) if (!c.exited) c.child.kill('SIGKILL');
    }, 10_000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const deadline = Date.now() + 60_000;
  const ready = new Set<number>();
  while (!stopping && ready.size < children.length && Date.now() < deadline) {
    for (const c of children) if (!ready.has(c.node.index) && !c.exited && (await serving(c.node))) ready.add(c.node.index);
    if (ready.size < children.length) await new Promise((r) => setTimeout(r, 200));
  }
  if (!stopping) {
    const lines = [
      `Weft devnet: ${layout.nodes.length} ${(layout.consensus ?? 'poa').toUpperCase()} nodes (chain id '${layout.chainId}', ${layout.crypto ?? 'waves'} crypto, rounds ${layout.roundDurationMs} ms + ${layout.syncDurationMs} ms sync) in ${layout.dir}`,
      ...layout.nodes.map(
        (n) =>
          `  ${n.name}  REST ${n.restUrl}  P2P 127.0.0.1:${n.p2pPort}${n.grpcPort !== undefined ? `  gRPC (public API, contracts) 127.0.0.1:${n.grpcPort}` : n.publicGrpcPort !== undefined ? `  gRPC (public API) 127.0.0.1:${n.publicGrpcPort}` : ''}  owner ${n.ownerAddress}${ready.has(n.index) ? '' : '  (NOT SERVING — see its log)'}  log ${n.logFile}`,
      ),
      ...(layout.nodes.some((n) => n.grpcPort !== undefined)
        ? [`Contract images (every node; kept in its node.conf, also when reopened without --contract): ${images}`]
        : []),
      `Explorer: any node's REST URL + /explorer/ (e.g. ${layout.nodes[0]?.restUrl ?? ''}/explorer/)`,
      `Metrics:  any node's REST URL + /metrics (Prometheus)`,
      `API key:  ${layout.apiKey}`,
      `Accounts (seeds, roles): ${join(layout.dir, DEVNET_FILE)}`,
      'Ctrl-C stops every node.',
      '',
    ];
    out(lines.join('\n'));
  }
  await done;
}

export function buildDevnetProgram(): Command {
  return new Command('devnet')
    .description('start N local PoA (or CFT) nodes on loopback with a shared genesis')
    .option('-n, --nodes <n>', 'how many nodes', intArg(1, 30), 4)
    .option('--dir <dir>', 'devnet directory (default: a new temp directory; an existing devnet is resumed)')
    .option('--base-port <port>', `REST of node i on port+2i, P2P on port+2i+1, gRPC on port+2n+i (0: free ports)`, intArg(0, 65000), DEVNET_DEFAULT_BASE_PORT)
    .option('--round <duration>', 'PoA round duration', durationArg, 3000)
    .option('--sync <duration>', 'PoA sync duration', durationArg, 1000)
    .option('--crypto <type>', 'waves (default) or gost', cryptoArg)
    .option('--consensus <type>', 'poa (default) or cft: PoA rounds plus finality voting', consensusArg)
    .option(
      '--finalization-timeout <duration>',
      `CFT: how long after its round ends a block may still be finalised (default ${DEVNET_FINALIZATION_TIMEOUT_MS} ms; less than --round)`,
      durationArg,
    )
    .option('--pki <mode>', 'GOST only: test = PKI mode TEST, the dev accounts certified by a dev root CA', pkiArg)
    .option(
      '--contract <image=dir>',
      'every node runs contract IMAGE from the package in DIR (or a .tgz) as a local process, its contract gRPC API on port base+2n+i; repeatable; chosen when the devnet is created: reopened, it keeps them (the option may be left out; other images are refused)',
      (v: string, all: string[] = []) => [...all, v],
    );
}

if (isMainModule(import.meta.url)) {
  const program = buildDevnetProgram();
  program.parse(process.argv);
  const opts = program.opts<DevnetCliOptions>();
  try {
    await runDevnet(opts);
  } catch (e) {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  }
}
