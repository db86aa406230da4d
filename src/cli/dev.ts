/**
 * The one-command dev chain: everything a single-node chain needs, on embedded defaults,
 * with nothing random that would change between runs on the same data directory.
 *
 * Network: chain id 'T' (the official js-sdk's TESTNET network byte), `waves` crypto (or
 * `gost` with `start --crypto gost`: Streebog, GOST R 34.10-2012, 64-byte keys), PoA
 * with 4 s rounds + 1 s sync (a key block every 5 s) and a micro-block every second; WE's default fee table, enforced from height 2 (feature-check
 * period 2: WE enforces minimum fees from FeeSwitch's activation height + that period); every
 * feature Weft implements pre-activated at height 0. REST on 127.0.0.1:6862, P2P on
 * 127.0.0.1:6864 (overridable), no peers. Contracts: the engine runs, its gRPC API on
 * 127.0.0.1:6865 (any free port when another REST port is given; `--grpc-port`), the
 * images named with `--contract IMAGE=DIR` run as local processes; WASM contracts need nothing.
 *
 * Accounts — seed phrases (keys derived exactly as the official clients derive them):
 *
 *   0  "weft dev chain account 0 - never use this seed on a real network"   9 600 000 WEST
 *      roles: miner, issuer, dex, permissioner, blacklister, contract_developer,
 *             connection_manager, contract_validator (every role but `sender`, which is
 *             off: sender-role-enabled = false, and `banned`); the node owner.
 *   1…4 "weft dev chain account <i> - never use this seed on a real network"   100 000 WEST each,
 *      no roles; registered as network participants (so they can be policy members).
 *
 * Licence: `<data-dir>/data/licenses.json` holds a licence for account 0 from the genesis day
 * with no end date, signed by the dev licence issuer the config lists (licences-wiring.ts).
 *
 * Keystore: `<data-dir>/keystore.json` holds all five; the password of account i is
 * `weft-dev-<i>` (devKeystorePassword). REST API key: `weft-dev-api-key` (all three
 * hashes: api, privacy, confidential contracts).
 *
 * Genesis: signed by the key of the seed "weft dev chain genesis signer - never use this seed
 * on a real network". Its timestamp is the clock at the first start; timestamp and signature
 * are kept in `<data-dir>/dev-genesis.json` (signatures are randomised, so re-signing would
 * give another genesis id), which makes every later start on that directory rebuild the
 * same genesis block and resume the chain. Anyone can re-check it: rebuild the block from
 * these defaults and the stored timestamp and verify the stored signature with the
 * signer's public key.
 *
 * `<data-dir>/dev-accounts.json` tells clients all of this:
 *   {"restUrl","grpcAddress","apiKey","chainId","accounts":[{"seed","address","publicKey","keystorePassword","roles"}]}
 */
import { DEFAULT_REST_CONNECTION_LIMITS } from '../api/connection-limits.js';
import { PUBLIC_GRPC_DEFAULTS } from '../api/settings.js';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { encodeBase58, decodeBase58, equalBytes } from '../crypto/encoding.js';
import type { CryptoType, KeyPair } from '../crypto/suite.js';
import { genesisBlock, GENESIS_MIN_TIMESTAMP, signGenesisBlock, UNITS_IN_WEST, type GenesisSettings } from '../protocol/blocks.js';
import { Protocol } from '../protocol/protocol.js';
import type { RoleName } from '../protocol/transactions/permissions.js';
import { DEFAULT_FEES, IMPLEMENTED_FEATURES, type ChainSettings, type PoaSettings } from '../chain/settings.js';
import { defaultPrivacySettings } from '../privacy/settings.js';
import { apiKeyHash, DEFAULTS, type NodeApiSettings, type NodeConfig } from '../node/config.js';
import { Keystore, readTextIfPresent, writeFileAtomic, type KeystoreOptions } from '../keystore/keystore.js';
import { PKI_OFF } from '../pki/settings.js';
import { defaultContractsSettings, type ContractPackageSettings, type ContractsSettings } from '../contracts/settings.js';
import { devPkiSettings } from './dev-pki.js';
import { devLicenceSettings, writeDevLicence } from '../node/licences-wiring.js';

export const DEV_CHAIN_ID = 'T';
export const DEV_API_KEY = 'weft-dev-api-key';
export const DEV_REST_PORT = 6862;
export const DEV_P2P_PORT = 6864;
/** The contract gRPC port of a dev chain on the default REST port (WE's default). */
export const DEV_GRPC_PORT = 6865;
/** Where `start` keeps the dev chain when no `--data-dir` is given (relative to the current directory). */
export const DEV_DEFAULT_DATA_DIR = 'data/dev';
/** The same for a GOST dev chain (`start --crypto gost`), so both can be kept side by side. */
export const DEV_GOST_DEFAULT_DATA_DIR = 'data/dev-gost';

export const DEV_SEEDS: readonly string[] = [0, 1, 2, 3, 4].map((i) => `weft dev chain account ${i} - never use this seed on a real network`);
export const DEV_GENESIS_SIGNER_SEED = 'weft dev chain genesis signer - never use this seed on a real network';

/** Genesis WEST per account (account 0 holds most). */
export const DEV_BALANCES_WEST: readonly bigint[] = [9_600_000n, 100_000n, 100_000n, 100_000n, 100_000n];

/** Every role but `sender` (sender-role-enabled is false) and `banned`. */
export const DEV_OWNER_ROLES: readonly RoleName[] = [
  'miner',
  'issuer',
  'dex',
  'permissioner',
  'blacklister',
  'contract_developer',
  'connection_manager',
  'contract_validator',
];

export const DEV_POA = { roundDurationMs: 4000, syncDurationMs: 1000, banDurationBlocks: 100, warningsForBan: 3, maxBansPercentage: 40 } as const;
export const DEV_MICRO_BLOCK_INTERVAL_MS = 1000;

/** Keystore password of dev account `index`. */
export function devKeystorePassword(index: number): string {
  return `weft-dev-${index}`;
}

export interface DevAccount {
  readonly index: number;
  readonly seed: string;
  readonly keyPair: KeyPair;
  readonly address: string;
  readonly keystorePassword: string;
  readonly roles: readonly RoleName[];
  readonly balance: bigint;
}

export function devAccounts(protocol: Protocol): DevAccount[] {
  return DEV_SEEDS.map((seed, index) => {
    const keyPair = protocol.crypto.keyPairFromSeedPhrase(seed);
    return {
      index,
      seed,
      keyPair,
      address: protocol.addresses.fromPublicKey(keyPair.publicKey).toString(),
      keystorePassword: devKeystorePassword(index),
      roles: index === 0 ? DEV_OWNER_ROLES : [],
      balance: DEV_BALANCES_WEST[index]! * UNITS_IN_WEST,
    };
  });
}

/** The dev chain's protocol: chain id 'T' with `waves` crypto, or `gost` (`start --crypto gost`). */
export function devProtocol(crypto: CryptoType = 'waves'): Promise<Protocol> {
  return Protocol.create({ crypto, chainId: DEV_CHAIN_ID });
}

/** The dev genesis for a block timestamp, signed by `signature` (null: unsigned). */
export function devGenesisSettings(protocol: Protocol, blockTimestamp: bigint, signature: Uint8Array | null): GenesisSettings {
  const accounts = devAccounts(protocol);
  const transactions = accounts.map((a) => ({ recipient: protocol.addresses.parseAddress(a.address), amount: a.balance }));
  return {
    version: 1,
    blockTimestamp,
    initialBalance: transactions.reduce((sum, t) => sum + t.amount, 0n),
    initialBaseTarget: 153_722_867n,
    genesisPublicKey: protocol.crypto.keyPairFromSeedPhrase(DEV_GENESIS_SIGNER_SEED).publicKey,
    signature,
    transactions,
    networkParticipants: accounts.map((a) => ({ publicKey: a.keyPair.publicKey, roles: a.roles })),
    senderRoleEnabled: false,
  };
}

const GENESIS_FILE = 'dev-genesis.json';
const GENESIS_FILE_FORMAT = 'weft-dev-genesis';

/**
 * The dev genesis of a data directory: read from `dev-genesis.json`, or — on the first start —
 * signed for the clock's time and written there. Fails when the stored one does not verify
 * against these defaults (a data directory of another dev chain).
 */
export function devGenesis(protocol: Protocol, dataDir: string, now: () => bigint): GenesisSettings {
  const file = join(dataDir, GENESIS_FILE);
  const text = readTextIfPresent(file);
  if (text === undefined) {
    const timestamp = now();
    if (timestamp < GENESIS_MIN_TIMESTAMP) throw new Error(`the clock reads ${timestamp}, before the earliest genesis time ${GENESIS_MIN_TIMESTAMP}`);
    const unsigned = devGenesisSettings(protocol, timestamp, null);
    const signer = protocol.crypto.keyPairFromSeedPhrase(DEV_GENESIS_SIGNER_SEED);
    const block = signGenesisBlock(protocol, unsigned, 'poa', signer.privateKey);
    const doc = {
      format: GENESIS_FILE_FORMAT,
      version: 1,
      chainId: DEV_CHAIN_ID,
      crypto: protocol.crypto.type,
      blockTimestamp: timestamp.toString(),
      genesisPublicKey: encodeBase58(signer.publicKey),
      signature: encodeBase58(block.signature),
    };
    writeFileAtomic(file, `${JSON.stringify(doc, null, 2)}\n`);
    return { ...unsigned, signature: block.signature };
  }
  const broken = (why: string): never => {
    throw new Error(`${file}: ${why}; this data directory holds another dev chain — remove it to start a new one`);
  };
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return broken('not valid JSON');
  }
  if (doc['format'] !== GENESIS_FILE_FORMAT || doc['version'] !== 1) broken('not a dev genesis file of this version');
  if (doc['chainId'] !== DEV_CHAIN_ID) broken(`chain id ${JSON.stringify(doc['chainId'])} is not '${DEV_CHAIN_ID}'`);
  // Files written before GOST dev chains existed name no crypto: they are `waves` chains.
  const storedCrypto: unknown = doc['crypto'] ?? 'waves';
  if (storedCrypto !== protocol.crypto.type) broken(`it is a ${JSON.stringify(storedCrypto)} chain, not a ${protocol.crypto.type} one`);
  const ts = doc['blockTimestamp'];
  if (typeof ts !== 'string' || !/^\d{1,19}$/.test(ts)) return broken('blockTimestamp must be a decimal string');
  let signature: Uint8Array;
  let publicKey: Uint8Array;
  try {
    signature = decodeBase58(String(doc['signature']));
    publicKey = decodeBase58(String(doc['genesisPublicKey']));
  } catch {
    return broken('signature and genesisPublicKey must be Base58');
  }
  const settings = devGenesisSettings(protocol, BigInt(ts), signature);
  if (!equalBytes(publicKey, settings.genesisPublicKey!)) broken('the genesis was signed by another key');
  try {
    genesisBlock(protocol, settings, 'poa');
  } catch (e) {
    broken(`the stored genesis does not verify (${(e as Error).message})`);
  }
  return settings;
}

export interface DevOptions {
  /** Data directory (created if missing). */
  readonly dataDir: string;
  readonly restPort?: number;
  readonly p2pPort?: number;
  /** Time in ms, for the genesis timestamp of a new chain. */
  readonly now?: () => bigint;
  /** Keystore options (tests use a cheap scrypt). */
  readonly keystore?: KeystoreOptions;
  /** The chain's crypto (default `waves`). */
  readonly crypto?: CryptoType;
  /** PKI mode TEST with a dev root CA certifying the dev accounts (GOST only; dev-pki.ts). */
  readonly pki?: 'TEST';
  /** The contract gRPC port: DEV_GRPC_PORT when no REST port is given, else any free port (0). */
  readonly grpcPort?: number;
  /** Contract images the node runs from local packages (process runtime). */
  readonly contractPackages?: readonly ContractPackageSettings[];
}

/**
 * Contracts on the dev chain: the engine on, its gRPC API on loopback, the images the user
 * named run as local processes (WASM contracts need none).
 */
export function devContractsSettings(dataDirectory: string, options: Pick<DevOptions, 'grpcPort' | 'restPort' | 'contractPackages'>): ContractsSettings {
  const defaults = defaultContractsSettings(dataDirectory);
  const port = options.grpcPort ?? (options.restPort === undefined ? DEV_GRPC_PORT : 0);
  return {
    ...defaults,
    enable: true,
    grpc: { bindAddress: '127.0.0.1', port },
    // What contracts are told to dial (NODE_PORT): the port the API listens on, as WE advises.
    dockerEngine: { ...defaults.dockerEngine, grpcServer: { ...defaults.dockerEngine.grpcServer, port } },
    packages: options.contractPackages ?? [],
  };
}

/** The chain settings of the dev chain and of devnets: PoA (`poa`, the dev chain's by default), every implemented feature active from genesis. */
export function devChainSettings(genesis: GenesisSettings, poa: Omit<PoaSettings, 'type'> = DEV_POA, crypto: CryptoType = 'waves'): ChainSettings {
  return {
    crypto,
    chainId: DEV_CHAIN_ID,
    consensus: { type: 'poa', ...poa },
    genesis,
    fees: DEFAULT_FEES,
    functionality: {
      featureCheckBlocksPeriod: 2,
      blocksForFeatureActivation: 1,
      preActivatedFeatures: new Map([...IMPLEMENTED_FEATURES.keys()].map((id) => [id, 0])),
    },
    maxRollbackDepth: DEFAULTS.maxRollbackDepth,
  };
}

/** REST on loopback with one API key for every key kind (dev chain and devnet nodes). */
export function loopbackApi(port: number, keyHash: Uint8Array): NodeApiSettings {
  return {
    enabled: true,
    bindAddress: '127.0.0.1',
    port,
    cors: true,
    corsAllowedOrigins: [],
    connectionLimits: DEFAULT_REST_CONNECTION_LIMITS,
    transactionsByAddressLimit: DEFAULTS.rest.transactionsByAddressLimit,
    distributionAddressLimit: DEFAULTS.rest.distributionAddressLimit,
    auth: { type: 'api-key', apiKeyHash: keyHash, privacyApiKeyHash: keyHash, confidentialContractsApiKeyHash: keyHash },
    grpc: PUBLIC_GRPC_DEFAULTS,
    watcher: false,
  };
}

/**
 * Prepares a dev data directory — genesis (fixed at the first call), keystore with the five
 * dev accounts — and returns the node config for it. Idempotent: calls on the same directory
 * return equal configs.
 */
export async function devNodeConfig(options: DevOptions): Promise<NodeConfig> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const protocol = await devProtocol(options.crypto);
  const genesis = devGenesis(protocol, dataDir, options.now ?? (() => BigInt(Date.now())));
  const accounts = devAccounts(protocol);
  const walletFile = join(dataDir, 'keystore.json');
  const keystore = Keystore.open(walletFile, protocol.addresses, options.keystore);
  for (const account of accounts) {
    if (!keystore.has(account.address)) keystore.addKeyPair(account.keyPair, account.keystorePassword);
  }
  const hash = decodeBase58(apiKeyHash(protocol.crypto, DEV_API_KEY));
  const pki =
    options.pki === undefined
      ? PKI_OFF
      : devPkiSettings(
          protocol,
          dataDir,
          accounts.map((a) => a.keyPair.publicKey),
          genesis.blockTimestamp,
        );
  // Licensed from the genesis on, with no end date (licences-wiring.ts).
  writeDevLicence(protocol.crypto, join(dataDir, 'data'), accounts[0]!.address, genesis.blockTimestamp);
  return {
    source: null,
    node: {
      directory: dataDir,
      dataDirectory: join(dataDir, 'data'),
      ownerAddress: protocol.addresses.parseAddress(accounts[0]!.address),
      ownerPassword: accounts[0]!.keystorePassword,
      wallet: { file: walletFile, password: '' },
      loggingLevel: 'INFO',
    },
    chain: devChainSettings(genesis, DEV_POA, protocol.crypto.type),
    consensusType: 'poa',
    miner: {
      ...DEFAULTS.miner,
      // 0: mine without any peer (WE's "off-line generation").
      quorum: 0,
      microBlockIntervalMs: DEV_MICRO_BLOCK_INTERVAL_MS,
      minMicroBlockAgeMs: DEV_MICRO_BLOCK_INTERVAL_MS,
    },
    utx: { ...DEFAULTS.utx },
    api: { ...loopbackApi(options.restPort ?? DEV_REST_PORT, hash), pkiMode: pki.mode },
    privacy: defaultPrivacySettings(),
    network: {
      ...DEFAULTS.network,
      bindAddress: '127.0.0.1',
      port: options.p2pPort ?? DEV_P2P_PORT,
      declaredAddress: undefined,
      nodeName: 'weft-dev',
      // Random, as WE draws it when none is configured.
      nonce: undefined,
      knownPeers: [],
      tls: undefined,
    },
    features: { ...DEFAULTS.features, supported: [] },
    metrics: DEFAULTS.metrics,
    pki,
    licences: devLicenceSettings(protocol.crypto),
    contracts: devContractsSettings(join(dataDir, 'data'), options),
  };
}

export interface DevAccountsFile {
  readonly restUrl: string;
  /** `host:port` of the node's gRPC API (public services, contracts); absent when it is not open. */
  readonly grpcAddress?: string;
  readonly apiKey: string;
  readonly chainId: string;
  /** `waves` or `gost`: how the clients must derive keys and sign. */
  readonly crypto: CryptoType;
  readonly accounts: ReadonlyArray<{
    readonly seed: string;
    readonly address: string;
    readonly publicKey: string;
    readonly keystorePassword: string;
    readonly roles: readonly string[];
  }>;
}

/** What `dev-accounts.json` holds for a dev config; `grpcPort`: the port the node's gRPC API took. */
export async function devAccountsFile(config: NodeConfig, grpcPort?: number): Promise<DevAccountsFile> {
  const protocol = await devProtocol(config.chain.crypto);
  const hostOf = (bind: string): string => {
    const host = bind === '0.0.0.0' ? '127.0.0.1' : bind;
    return host.includes(':') ? `[${host}]` : host;
  };
  const grpcBind = config.contracts?.grpc.bindAddress;
  return {
    restUrl: `http://${hostOf(config.api.bindAddress)}:${config.api.port}`,
    ...(grpcPort === undefined || grpcBind === undefined ? {} : { grpcAddress: `${hostOf(grpcBind)}:${grpcPort}` }),
    apiKey: DEV_API_KEY,
    chainId: DEV_CHAIN_ID,
    crypto: config.chain.crypto,
    accounts: devAccounts(protocol).map((a) => ({
      seed: a.seed,
      address: a.address,
      publicKey: encodeBase58(a.keyPair.publicKey),
      keystorePassword: a.keystorePassword,
      roles: [...a.roles],
    })),
  };
}

/** Writes `<data-dir>/dev-accounts.json` (the data dir is the config's node directory); returns its path. */
export async function writeDevAccounts(config: NodeConfig, grpcPort?: number): Promise<string> {
  const file = join(config.node.directory, 'dev-accounts.json');
  writeFileAtomic(file, `${JSON.stringify(await devAccountsFile(config, grpcPort), null, 2)}\n`);
  return file;
}
