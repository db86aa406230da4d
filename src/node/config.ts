/**
 * The node's configuration: a WE-style HOCON file with a `node { … }` section (the keys of
 * we-node's application.conf and configs/node-example.conf), read into typed settings —
 * assembled here from each subsystem's key table (its settings-keys.ts beside its
 * settings.ts; config/ holds the HOCON reading and the key-table machinery) and the node's
 * own keys below. config-render.ts writes the same tables back.
 *
 * Defaults are WE's application.conf values, applied key by key, so a config only has to
 * name what differs (as with WE, where the file is merged over application.conf). The value
 * syntaxes are WE's (config/values.ts; WEST amounts: chain/settings-keys.ts parseAmount), and
 * every invalid or missing required value is a ConfigError whose message starts with the
 * key's full path, e.g. `node.blockchain.consensus.round-duration: expected a duration, got "abc"`.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Address } from '../crypto/address.js';
import { encodeBase58 } from '../crypto/encoding.js';
import type { CryptoSuite } from '../crypto/suite.js';
import type { ConsensusType } from '../protocol/blocks.js';
import { Protocol } from '../protocol/protocol.js';
import { WeError } from '../errors/catalogue.js';
import {
  boolKey,
  checkedKey,
  choiceKey,
  customKey,
  intKey,
  keyTable,
  listKey,
  optionalFileKey,
  optionalKey,
  stringKey,
  type KeyTable,
} from '../config/key-table.js';
import { ConfigSection, type RawObject } from '../config/section.js';
import { describeValue, fail, parseInt32 } from '../config/values.js';
import { readHoconFile } from '../config/hocon.js';
import { DEFAULT_MAX_ROLLBACK_DEPTH, UTX_DEFAULTS, type ChainSettings, type NodeUtxSettings } from '../chain/settings.js';
import { CHAIN_ID_KEY, CHAIN_TABLE, chainSettings, CRYPTO_TYPE_KEY, UTX_TABLE, type ChainReadOptions } from '../chain/settings-keys.js';
import { MINER_DEFAULTS, type NodeMinerSettings } from '../consensus/settings.js';
import { MINER_TABLE } from '../consensus/settings-keys.js';
import { REST_DEFAULTS, type NodeApiSettings } from '../api/settings.js';
import { API_TABLE } from '../api/settings-keys.js';
import { ROUTE_GROUPS } from '../api/routes/index.js';
import { NETWORK_DEFAULTS, type NetworkSettings } from '../network/settings.js';
import { NETWORK_TABLE } from '../network/settings-keys.js';
import type { AnchoringSettings } from '../anchoring/settings.js';
import { readAnchoring } from '../anchoring/settings-keys.js';
import type { PrivacySettings } from '../privacy/settings.js';
import { PRIVACY_TABLE } from '../privacy/settings-keys.js';
import type { ConfidentialContractsSettings } from '../contracts/confidential/settings.js';
import { CONFIDENTIAL_CONTRACTS_TABLE } from '../contracts/confidential/settings-keys.js';
import type { PkiSettings } from '../pki/settings.js';
import { PKI_TABLE } from '../pki/settings-keys.js';
import type { LicenceSettings } from '../licences/licence-service.js';
import { LICENCES_TABLE } from '../licences/settings-keys.js';
import type { ContractsSettings } from '../contracts/settings.js';
import { CONTRACTS_TABLE, namesContractSettings } from '../contracts/settings-keys.js';

export type { NetworkTlsFiles } from '../network/node-network.js';
export type { NetworkSettings, PeerAddress } from '../network/settings.js';
export type { NodeMinerSettings } from '../consensus/settings.js';
export type { NodeUtxSettings } from '../chain/settings.js';
export type { NodeApiSettings } from '../api/settings.js';

// ---------------------------------------------------------------------------
// Settings types

export type LoggingLevel = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/** The node's own settings (`node.*` outside the sections below). */
export interface NodeSettings {
  /** `node.directory`: the node's home. */
  readonly directory: string;
  /** `node.data-directory`: where the store lives. */
  readonly dataDirectory: string;
  /** `node.owner-address`: the node's identity; its key must be in the keystore. */
  readonly ownerAddress: Address;
  /**
   * Password of the owner's keystore entry — not from the file: WE reads it from the
   * environment (`WE_NODE_OWNER_PASSWORD`, or `WE_NODE_OWNER_PASSWORD_EMPTY=true` for none)
   * or asks on the console. Undefined: not known yet (start.ts asks).
   */
  readonly ownerPassword: string | undefined;
  readonly wallet: {
    /** `node.wallet.file`: the keystore file (see src/keystore/keystore.ts). */
    readonly file: string;
    /**
     * `node.wallet.password`. WE encrypts its whole wallet file with it; Weft's keystore encrypts
     * each key with that key's own password and keeps public data in clear, so this value is
     * read (and must be a string) but protects nothing.
     */
    readonly password: string;
  };
  readonly loggingLevel: LoggingLevel;
  /**
   * `node.crypto.verifier-threads` (Weft's): the threads that verify transaction signatures
   * beside the event loop (pool admission, peers' blocks, imports). Absent: one per core but
   * one (at least one). 0: the event loop verifies them itself, between its other work — for
   * nodes that share a machine's cores with other busy nodes (a devnet on a small machine),
   * where a thread of their own gains no core and costs each signature its hand-offs.
   */
  readonly verifierThreads?: number;
  /** `node.confidential-contracts.data-directory`: confidential contract inputs and outputs (absent: `<data directory>/confidential-data`). */
  readonly confidentialDataDirectory?: string;
}

/**
 * `node.metrics` (Weft's; WE reports to InfluxDB instead): Prometheus exposition on the REST
 * port. `enable` (default yes), `path` (default `/metrics`), `protected` (default no: open to
 * any scraper; yes: the admin credentials, as `/debug` — `X-API-Key`, or an OAuth2 token with
 * the admin role).
 */
export interface MetricsSettings {
  readonly enabled: boolean;
  readonly path: string;
  readonly protected: boolean;
}

export interface FeaturesSettings {
  readonly autoSupportImplementedFeatures: boolean;
  readonly autoShutdownOnUnsupportedFeature: boolean;
  readonly supported: readonly number[];
}

/** Everything a node runs on. */
export interface NodeConfig {
  /** The config file, or null for settings built in code (the dev chain). */
  readonly source: string | null;
  readonly node: NodeSettings;
  /** Includes the genesis settings (`chain.genesis`), signed. */
  readonly chain: ChainSettings;
  /** The consensus type the genesis block was signed for. */
  readonly consensusType: ConsensusType;
  readonly miner: NodeMinerSettings;
  readonly utx: NodeUtxSettings;
  readonly api: NodeApiSettings;
  readonly network: NetworkSettings;
  readonly features: FeaturesSettings;
  readonly metrics: MetricsSettings;
  /** `node.anchoring` when `enable = yes`; absent: the node does no anchoring. */
  readonly anchoring?: AnchoringSettings;
  /** PKI of a GOST network (absent: OFF, no genesis PKI). */
  readonly pki?: PkiSettings;
  /** Licence issuers and what an unlicensed node does (absent: no issuer, `report`). */
  readonly licences?: LicenceSettings;
  /** Contract execution (`node.contracts`, `node.docker-engine`, `node.wasm`, `node.api.grpc`); absent: the defaults. */
  readonly contracts?: ContractsSettings;
  /** `node.privacy`; when absent (settings built in code): the defaults, embedded storage in the data directory. */
  readonly privacy?: PrivacySettings;
  /** `node.confidential-contracts` replication blocks; when absent: WE's defaults. */
  readonly confidentialContracts?: ConfidentialContractsSettings;
}

// ---------------------------------------------------------------------------
// WE's application.conf defaults

/** The most `node.crypto.verifier-threads` takes. */
const MAX_VERIFIER_THREADS = 256;

export const DEFAULTS = {
  loggingLevel: 'DEBUG' as LoggingLevel,
  walletPassword: 'some string as password',
  maxRollbackDepth: DEFAULT_MAX_ROLLBACK_DEPTH,
  miner: MINER_DEFAULTS,
  utx: UTX_DEFAULTS,
  rest: REST_DEFAULTS,
  network: NETWORK_DEFAULTS,
  features: { autoSupportImplementedFeatures: true, autoShutdownOnUnsupportedFeature: true, supported: [] as number[] },
  metrics: { enabled: true, path: '/metrics', protected: false } satisfies MetricsSettings,
} as const;

/**
 * WE's API-key hash (ApiKeyHashGenerator, and what the node compares `X-API-Key` with):
 * Base58(secureHash(UTF-8 bytes of the key)).
 */
export function apiKeyHash(suite: CryptoSuite, key: string): string {
  return encodeBase58(suite.secureHash(new Uint8Array(Buffer.from(key, 'utf8'))));
}

// ---------------------------------------------------------------------------
// The node's own keys

/** The node's own settings as the file holds them (the owner's password comes from the environment). */
export type NodeKeys = Omit<NodeSettings, 'ownerPassword'>;

/** `node.directory` (the other directories default to places in it). */
const nodeDirectory = (node: ConfigSection): string => resolve(node.string('directory', join(homedir(), 'node')));

/** The node's own keys, rooted at `node`; the owner address is read with the network's protocol. */
export const NODE_TABLE: KeyTable<NodeKeys, Protocol> = keyTable<NodeKeys, Protocol>({
  directory: customKey('directory', nodeDirectory, (v) => v),
  dataDirectory: customKey(
    'data-directory',
    (node) => resolve(node.string('data-directory', join(nodeDirectory(node), 'data'))),
    (v) => v,
  ),
  ownerAddress: customKey(
    'owner-address',
    (node, protocol: Protocol): Address => {
      const ownerText = node.string('owner-address', '', { allowEmpty: true });
      if (ownerText.trim() === '') fail(node.at('owner-address'), 'required: the address of the node owner (its key must be in the keystore)');
      try {
        return protocol.addresses.parseAddress(ownerText.trim());
      } catch (e) {
        if (e instanceof WeError) fail(node.at('owner-address'), e.message);
        throw e;
      }
    },
    (address) => address.toString(),
  ),
  loggingLevel: choiceKey('logging-level', ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'], DEFAULTS.loggingLevel),
  confidentialDataDirectory: optionalKey(optionalFileKey('confidential-contracts.data-directory')),
  wallet: customKey(
    'wallet',
    (node) => ({
      file: resolve(node.string('wallet.file', join(nodeDirectory(node), 'wallet', 'wallet.dat'))),
      password: node.string('wallet.password', DEFAULTS.walletPassword, { allowEmpty: true }),
    }),
    (wallet) => ({ file: wallet.file, password: wallet.password }),
  ),
  verifierThreads: optionalKey(intKey('crypto.verifier-threads', undefined, { min: 0, max: MAX_VERIFIER_THREADS })),
});

/** `node.features`. */
export const FEATURES_TABLE: KeyTable<FeaturesSettings> = keyTable<FeaturesSettings>({
  autoSupportImplementedFeatures: boolKey('auto-support-implemented-features', DEFAULTS.features.autoSupportImplementedFeatures),
  autoShutdownOnUnsupportedFeature: boolKey('auto-shutdown-on-unsupported-feature', DEFAULTS.features.autoShutdownOnUnsupportedFeature),
  supported: listKey(
    'supported',
    (x, path) => parseInt32(x, path, { min: -32768, max: 32767 }),
    (id) => id,
    DEFAULTS.features.supported,
  ),
});

/** First path segments the REST API serves under (its route groups, the explorer, the API documents). */
function restPathRoots(): Set<string> {
  const roots = new Set(['explorer', 'api-docs', 'swagger']);
  for (const group of ROUTE_GROUPS) for (const r of group.routes) roots.add(r.path.split('/')[1] ?? '');
  return roots;
}

/** `node.metrics`: a path of plain segments, outside every path the REST API serves. */
export const METRICS_TABLE: KeyTable<MetricsSettings> = keyTable<MetricsSettings>({
  enabled: boolKey('enable', DEFAULTS.metrics.enabled),
  path: checkedKey(stringKey('path', DEFAULTS.metrics.path), (path, at) => {
    if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) fail(at, `expected a URL path of plain segments such as "/metrics", got ${describeValue(path)}`);
    const root = path.split('/')[1]!;
    if (restPathRoots().has(root)) fail(at, `"${path}" lies under /${root}, which the REST API serves; choose another path such as "/metrics"`);
  }),
  protected: boolKey('protected', DEFAULTS.metrics.protected),
});

// ---------------------------------------------------------------------------
// Reading

export interface BlockchainConfig {
  readonly protocol: Protocol;
  readonly chain: ChainSettings;
  readonly consensusType: ConsensusType;
}

/** `node.crypto` and `node.blockchain` (a CUSTOM chain with a plain genesis). */
export async function blockchainFromConfig(root: RawObject, options: ChainReadOptions): Promise<BlockchainConfig> {
  const node = new ConfigSection(root, '').section('node');
  const protocol = await Protocol.create({ crypto: CRYPTO_TYPE_KEY.read(node, undefined), chainId: CHAIN_ID_KEY.read(node, undefined) });
  const { chain, consensusType } = chainSettings(CHAIN_TABLE.read(node, { protocol }), node, protocol, options);
  return { protocol, chain, consensusType };
}

export interface NodeConfigOptions {
  /** The file the config came from (for messages and relative paths); null when built in code. */
  readonly source?: string | null;
  /** Environment for the owner password (WE_NODE_OWNER_PASSWORD / WE_NODE_OWNER_PASSWORD_EMPTY). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The owner key's password from the environment, as WE's Application.readOwnerPasswordMode. */
export function ownerPasswordFromEnv(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const empty = env['WE_NODE_OWNER_PASSWORD_EMPTY'];
  if (empty === 'true' || empty === 'yes') return '';
  return env['WE_NODE_OWNER_PASSWORD'];
}

/** A full node config from a parsed HOCON document. */
export async function nodeConfigFromHocon(root: RawObject, options: NodeConfigOptions = {}): Promise<NodeConfig> {
  const { protocol, chain, consensusType } = await blockchainFromConfig(root, { requireSignedGenesis: true });
  const node = new ConfigSection(root, '').section('node');
  const own = NODE_TABLE.read(node, protocol);
  const network = NETWORK_TABLE.read(node.section('network'), undefined);
  const anchoring = await readAnchoring(node.section('anchoring'));
  const pki = PKI_TABLE.read(node, { crypto: chain.crypto, tlsEnabled: network.tls !== undefined });
  return {
    source: options.source ?? null,
    node: { ...own, ownerPassword: ownerPasswordFromEnv(options.env ?? {}) },
    chain,
    consensusType,
    miner: MINER_TABLE.read(node.section('miner'), undefined),
    utx: UTX_TABLE.read(node.section('utx'), undefined),
    api: API_TABLE.read(node.section('api'), { watcher: network.mode === 'watcher', pkiMode: pki.mode }),
    network,
    features: FEATURES_TABLE.read(node.section('features'), undefined),
    privacy: PRIVACY_TABLE.read(node.section('privacy'), undefined),
    // Only a config with a `confidential-contracts` section carries them (absent: WE's defaults).
    ...(node.has('confidential-contracts')
      ? { confidentialContracts: CONFIDENTIAL_CONTRACTS_TABLE.read(node.section('confidential-contracts'), undefined) }
      : {}),
    metrics: METRICS_TABLE.read(node.section('metrics'), undefined),
    ...(anchoring === undefined ? {} : { anchoring }),
    pki,
    licences: LICENCES_TABLE.read(node.section('licenses'), { publicKeyLength: protocol.crypto.publicKeyLength }),
    // Only a config that names contract settings carries them (absent: the defaults, engine off).
    ...(namesContractSettings(node) ? { contracts: CONTRACTS_TABLE.read(node, { dataDirectory: own.dataDirectory }) } : {}),
  };
}

/** Reads a node config file. Relative paths in it are taken from the current directory, as WE does. */
export async function loadNodeConfig(file: string, options: Omit<NodeConfigOptions, 'source'> = {}): Promise<NodeConfig> {
  const root = await readHoconFile(file);
  return nodeConfigFromHocon(root, { ...options, source: resolve(file) });
}

export interface ConfigOverrides {
  readonly dataDir?: string;
  readonly restPort?: number;
  readonly p2pPort?: number;
}

/** The config with command-line overrides applied (`--data-dir`, `--rest-port`, `--p2p-port`). */
export function withOverrides(config: NodeConfig, o: ConfigOverrides): NodeConfig {
  return {
    ...config,
    node: o.dataDir === undefined ? config.node : { ...config.node, dataDirectory: resolve(o.dataDir) },
    api: o.restPort === undefined ? config.api : { ...config.api, port: o.restPort },
    network: o.p2pPort === undefined ? config.network : { ...config.network, port: o.p2pPort },
  };
}
