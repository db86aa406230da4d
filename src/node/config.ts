/**
 * The node's configuration: a WE-style HOCON file with a `node { … }` section (the keys of
 * we-node's application.conf and configs/node-example.conf), read into typed settings.
 *
 * Defaults are WE's application.conf values, applied key by key, so a config only has to
 * name what differs (as with WE, where the file is merged over application.conf). Value
 * syntaxes are WE's (Typesafe Config / pureconfig): durations ("17s", "3 seconds", "1m",
 * "500ms", "1d"; a bare number is milliseconds), memory sizes ("100MiB", "3m"; a bare
 * number is bytes), WEST amounts (units, or "<decimal> WEST" with at most 8 decimals and
 * at most 10 billion WEST), booleans (true/false/yes/no/on/off).
 *
 * Every invalid or missing required value is a ConfigError whose message starts with the
 * key's full path, e.g. `node.blockchain.consensus.round-duration: expected a duration, got "abc"`.
 *
 * Integers: the HOCON parser reads numbers as JS numbers, so an integer literal beyond 2^53
 * has lost digits before we see it. Such a value is refused with its path; amounts that
 * large are written as strings ("100000000000000000") or as "<n> WEST".
 */
import { createPublicKey } from 'node:crypto';
import { createRequire } from 'node:module';
import { homedir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import type { Address } from '../crypto/address.js';
import { decodeBase58, decodeBase64, encodeBase58, EncodingError } from '../crypto/encoding.js';
import type { CryptoSuite, CryptoType } from '../crypto/suite.js';
import {
  genesisBlock,
  genesisSettingsFromConfig,
  parseWestAmount,
  type ConsensusType,
  type GenesisSettings,
} from '../protocol/blocks.js';
import { Protocol } from '../protocol/protocol.js';
import type { AuthMode, ApiSettings, RestConnectionLimits } from '../api/services.js';
import {
  DEFAULT_FEES,
  FEE_NAMES,
  type ChainSettings,
  type ConsensusSettings,
  type FeeSettings,
  type FunctionalitySettings,
  type MinerSettings,
  type UtxSettings,
} from '../chain/settings.js';
import type { NetworkTlsFiles, NodeNetworkSettings } from '../network/node-network.js';
import { ANCHORING_DEFAULTS, type AnchoringSettings, type TargetnetAuth } from '../anchoring/settings.js';
import { PRIVACY_DEFAULTS, type PrivacySettings, type PrivacyStorageSettings } from '../privacy/settings.js';
import type { DataCacheSettings, InventoryHandlerSettings, ReplicationSynchronizerSettings } from '../replication/settings.js';
import { CONFIDENTIAL_CONTRACTS_DEFAULTS, type ConfidentialContractsSettings } from '../contracts/confidential/settings.js';
import { INT64 } from '../protocol/bytes.js';
import { WeError } from '../errors/catalogue.js';
import { parseCrl, CrlFormatError } from '../crypto/pki/crl.js';
import { ekuOid } from '../crypto/pki/oids.js';
import { CertificateFormatError, parseCertificate } from '../crypto/pki/x509.js';
import { PKI_OFF, type GenesisCrl, type PkiSettings } from '../pki/settings.js';
import type { LicenceSettings } from '../licences/licence-service.js';
import {
  DEFAULT_DOCKER_ENGINE,
  CONTRACT_USER_ID_SPAN,
  DEFAULT_CONTRACT_STATUS_MAX_CONNECTIONS,
  DEFAULT_WASM_EXECUTION,
  DEFAULT_FIRST_USER_ID,
  DEFAULT_MAX_FAILED_EXECUTIONS,
  defaultGrpcBindAddress,
  DEFAULT_WASM_FUEL_LIMIT,
  MAX_CONTRACT_INSTANCES,
  MAX_WASM_THREADS,
  type ContractPackageSettings,
  type ContractsSettings,
  type DockerEngineSettings,
  type WasmExecutionSettings,
} from '../contracts/settings.js';
import { ROUTE_GROUPS } from '../api/routes/index.js';
import { DEFAULT_REST_CONNECTION_LIMITS } from '../api/connection-limits.js';
import { InternalError } from '../errors/internal.js';

// ---------------------------------------------------------------------------
// Errors

/** An invalid or missing configuration value; `path` is the key's full HOCON path. */
export class ConfigError extends InternalError {
  override readonly name = 'ConfigError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path === '' ? reason : `${path}: ${reason}`);
  }
}

/** How a value looks in an error message. */
export function describeValue(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(v);
    case 'undefined':
      return 'nothing';
    default:
      return v === null ? 'null' : Array.isArray(v) ? 'a list' : 'an object';
  }
}

function fail(path: string, reason: string): never {
  throw new ConfigError(path, reason);
}

// ---------------------------------------------------------------------------
// Value syntaxes

const MS_PER_UNIT = new Map<string, number>();
for (const [names, ms] of [
  [['ns', 'nano', 'nanos', 'nanosecond', 'nanoseconds'], 1e-6],
  [['us', 'micro', 'micros', 'microsecond', 'microseconds'], 1e-3],
  [['', 'ms', 'milli', 'millis', 'millisecond', 'milliseconds'], 1],
  [['s', 'second', 'seconds'], 1000],
  [['m', 'minute', 'minutes'], 60_000],
  [['h', 'hour', 'hours'], 3_600_000],
  [['d', 'day', 'days'], 86_400_000],
] as const) {
  for (const name of names) MS_PER_UNIT.set(name, ms);
}

/** A duration in whole milliseconds (fractions of a millisecond are dropped, as WE's toMillis does). */
export function parseDuration(v: unknown, path: string): number {
  let ms: number | undefined;
  if (typeof v === 'number' && Number.isFinite(v)) ms = v;
  else if (typeof v === 'string') {
    const m = /^([+-]?\d+(?:\.\d+)?)\s*([A-Za-z]*)$/.exec(v.trim());
    const perUnit = m === null ? undefined : MS_PER_UNIT.get(m[2]!);
    if (m !== null && perUnit !== undefined) ms = Number(m[1]) * perUnit;
  }
  if (ms === undefined) return fail(path, `expected a duration, got ${describeValue(v)}`);
  if (ms < 0) return fail(path, `expected a non-negative duration, got ${describeValue(v)}`);
  const whole = Math.trunc(ms);
  if (!Number.isSafeInteger(whole)) return fail(path, `duration ${describeValue(v)} is too long`);
  return whole;
}

const BYTES_PER_UNIT = new Map<string, number>();
for (const [names, bytes] of [
  [['', 'B', 'b', 'byte', 'bytes'], 1],
  [['kB', 'kilobyte', 'kilobytes'], 1e3],
  [['MB', 'megabyte', 'megabytes'], 1e6],
  [['GB', 'gigabyte', 'gigabytes'], 1e9],
  [['TB', 'terabyte', 'terabytes'], 1e12],
  [['K', 'k', 'Ki', 'KiB', 'kibibyte', 'kibibytes'], 2 ** 10],
  [['M', 'm', 'Mi', 'MiB', 'mebibyte', 'mebibytes'], 2 ** 20],
  [['G', 'g', 'Gi', 'GiB', 'gibibyte', 'gibibytes'], 2 ** 30],
  [['T', 't', 'Ti', 'TiB', 'tebibyte', 'tebibytes'], 2 ** 40],
] as const) {
  for (const name of names) BYTES_PER_UNIT.set(name, bytes);
}

/** A memory size in bytes (HOCON size units: "100MiB", "3m" = 3 MiB, "50MB" = 50·10^6, a bare number = bytes). */
export function parseSize(v: unknown, path: string): number {
  let bytes: number | undefined;
  if (typeof v === 'number' && Number.isFinite(v)) bytes = v;
  else if (typeof v === 'string') {
    const m = /^(\d+(?:\.\d+)?)\s*([A-Za-z]*)$/.exec(v.trim());
    const perUnit = m === null ? undefined : BYTES_PER_UNIT.get(m[2]!);
    if (m !== null && perUnit !== undefined) bytes = Number(m[1]) * perUnit;
  }
  if (bytes === undefined) return fail(path, `expected a memory size (e.g. "100MiB"), got ${describeValue(v)}`);
  if (bytes < 0) return fail(path, `expected a non-negative memory size, got ${describeValue(v)}`);
  const whole = Math.floor(bytes);
  if (!Number.isSafeInteger(whole)) return fail(path, `memory size ${describeValue(v)} is too large`);
  return whole;
}

/** true/false, or the strings yes/no/on/off/true/false (any case). */
export function parseBoolean(v: unknown, path: string): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true' || s === 'yes' || s === 'on') return true;
    if (s === 'false' || s === 'no' || s === 'off') return false;
  }
  return fail(path, `expected a boolean (true/false, yes/no, on/off), got ${describeValue(v)}`);
}

export interface IntRange {
  readonly min?: number;
  readonly max?: number;
}

/** A 32-bit integer (a number or a numeric string), optionally within [min, max]. */
export function parseInt32(v: unknown, path: string, range: IntRange = {}): number {
  let n: number | undefined;
  if (typeof v === 'number' && Number.isInteger(v)) n = v;
  else if (typeof v === 'bigint') n = Number(v);
  else if (typeof v === 'string' && /^[+-]?\d{1,10}$/.test(v.trim())) n = Number(v.trim());
  if (n === undefined || n < -(2 ** 31) || n > 2 ** 31 - 1) return fail(path, `expected an integer, got ${describeValue(v)}`);
  const { min, max } = range;
  if (min !== undefined && max !== undefined && (n < min || n > max)) return fail(path, `expected an integer from ${min} to ${max}, got ${n}`);
  if (min !== undefined && n < min) return fail(path, `expected an integer ≥ ${min}, got ${n}`);
  if (max !== undefined && n > max) return fail(path, `expected an integer ≤ ${max}, got ${n}`);
  return n;
}


/** A signed 64-bit integer: a safe number, or a numeric string for anything beyond 2^53. */
export function parseLong(v: unknown, path: string): bigint {
  let n: bigint | undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'bigint') n = v;
  else if (typeof v === 'string' && /^[+-]?\d{1,19}$/.test(v.trim())) n = BigInt(v.trim());
  if (n === undefined || n < INT64.MIN || n > INT64.MAX) return fail(path, `expected a 64-bit integer, got ${describeValue(v)}`);
  return n;
}

/** A WEST amount in units: an integer of units, or "<decimal> WEST" (WE's WestAmount). */
export function parseAmount(v: unknown, path: string): bigint {
  try {
    return parseWestAmount(v, path);
  } catch (e) {
    if (e instanceof WeError) return fail(path, e.message);
    throw e;
  }
}

/** A non-empty string (numbers are taken as their text, as Typesafe Config does). */
export function parseString(v: unknown, path: string, options: { allowEmpty?: boolean } = {}): string {
  let s: string | undefined;
  if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
  if (s === undefined) return fail(path, `expected a string, got ${describeValue(v)}`);
  if (s === '' && options.allowEmpty !== true) return fail(path, 'expected a non-empty string, got ""');
  return s;
}

/** Base58 bytes. */
export function parseBase58(v: unknown, path: string): Uint8Array {
  const s = parseString(v, path);
  try {
    return decodeBase58(s);
  } catch (e) {
    if (e instanceof EncodingError) return fail(path, `expected a Base58 string, got ${describeValue(v)}: ${e.message}`);
    throw e;
  }
}

// ---------------------------------------------------------------------------
// Reading sections

type RawObject = Record<string, unknown>;

const isObject = (v: unknown): v is RawObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One object of the parsed config, with its path, and typed getters with defaults. */
export class ConfigSection {
  constructor(
    readonly raw: RawObject,
    readonly path: string,
  ) {}

  /** Full path of a key of this section. */
  at(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  /** The raw value at a (possibly dotted) key; undefined when absent. */
  get(key: string): unknown {
    let v: unknown = this.raw;
    let walked = this.path;
    for (const part of key.split('.')) {
      if (v === undefined || v === null) return undefined;
      if (!isObject(v)) return fail(walked, `expected an object, got ${describeValue(v)}`);
      v = v[part];
      walked = walked === '' ? part : `${walked}.${part}`;
    }
    return v === null ? undefined : v;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** A sub-section; an absent key gives an empty section. */
  section(key: string): ConfigSection {
    const v = this.get(key);
    if (v === undefined) return new ConfigSection({}, this.at(key));
    if (!isObject(v)) return fail(this.at(key), `expected an object, got ${describeValue(v)}`);
    return new ConfigSection(v, this.at(key));
  }

  private value<T>(key: string, parse: (v: unknown, path: string) => T, fallback: T | undefined): T {
    const v = this.get(key);
    if (v === undefined) {
      if (fallback === undefined) return fail(this.at(key), 'required, but not set');
      return fallback;
    }
    return parse(v, this.at(key));
  }

  string(key: string, fallback?: string, options: { allowEmpty?: boolean } = {}): string {
    return this.value(key, (v, p) => parseString(v, p, options), fallback);
  }
  optionalString(key: string): string | undefined {
    const v = this.get(key);
    return v === undefined ? undefined : parseString(v, this.at(key));
  }
  int(key: string, fallback?: number, range?: IntRange): number {
    return this.value(key, (v, p) => parseInt32(v, p, range), fallback);
  }
  long(key: string, fallback?: bigint): bigint {
    return this.value(key, parseLong, fallback);
  }
  bool(key: string, fallback?: boolean): boolean {
    return this.value(key, parseBoolean, fallback);
  }
  duration(key: string, fallback?: number): number {
    return this.value(key, parseDuration, fallback);
  }
  size(key: string, fallback?: number): number {
    return this.value(key, parseSize, fallback);
  }
  amount(key: string, fallback?: bigint): bigint {
    return this.value(key, parseAmount, fallback);
  }
  list(key: string, fallback?: readonly unknown[]): readonly unknown[] {
    return this.value(
      key,
      (v, p) => {
        if (Array.isArray(v)) return v;
        // Typesafe Config reads an empty string where a list is expected as no list at all only for some
        // readers; WE's configs write `known-peers = []`, so a string here is an error.
        return fail(p, `expected a list, got ${describeValue(v)}`);
      },
      fallback,
    );
  }
  /** One of `choices` (case-insensitive); returns the choice as written in `choices`. */
  choice<T extends string>(key: string, choices: readonly T[], fallback?: T): T {
    return this.value(
      key,
      (v, p) => {
        const s = parseString(v, p).toLowerCase();
        const found = choices.find((c) => c.toLowerCase() === s);
        return found ?? fail(p, `expected one of ${choices.join(', ')}, got ${describeValue(v)}`);
      },
      fallback,
    );
  }
}

// ---------------------------------------------------------------------------
// HOCON

interface HoconParser {
  parse(options: { url?: string; text?: string; strict?: boolean; env?: boolean; scope?: RawObject }): Promise<unknown>;
}

const requireCjs = createRequire(import.meta.url);

function hoconParser(): HoconParser {
  return requireCjs('@pushcorn/hocon-parser') as HoconParser;
}

/** The Java system properties a WE config may substitute (`${user.home}` in application.conf). */
function systemProperties(): RawObject {
  let name = '';
  try {
    name = userInfo().username;
  } catch {
    // no user name on this system
  }
  return { user: { home: homedir(), dir: process.cwd(), name } };
}

/**
 * Every number of the parsed document must be exact: an integer beyond 2^53 has already lost
 * digits in the parser, so it is refused with its path.
 */
function refuseInexactIntegers(v: unknown, path: string): void {
  if (typeof v === 'number') {
    if (Number.isFinite(v) && Math.abs(v) > Number.MAX_SAFE_INTEGER) {
      fail(
        path,
        `an integer beyond 2^53 (read as ${BigInt(v)}) cannot be read without losing digits; ` +
          'write it as a string ("100000000000000001") or, for an amount, as "<n> WEST"',
      );
    }
    return;
  }
  if (Array.isArray(v)) v.forEach((x, i) => refuseInexactIntegers(x, `${path}(${i})`));
  else if (isObject(v)) for (const [k, x] of Object.entries(v)) refuseInexactIntegers(x, path === '' ? k : `${path}.${k}`);
}

async function parseHocon(options: { url?: string; text?: string }, origin: string): Promise<RawObject> {
  let doc: unknown;
  try {
    doc = await hoconParser().parse({ ...options, strict: true, env: true, scope: systemProperties() });
  } catch (e) {
    throw new ConfigError('', `${origin}: cannot parse HOCON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isObject(doc)) throw new ConfigError('', `${origin}: expected a HOCON object at the top level`);
  refuseInexactIntegers(doc, '');
  return doc;
}

/** Parses HOCON text (substitutions see environment variables and `${user.home}`, `${user.dir}`, `${user.name}`). */
export function parseHoconText(text: string): Promise<RawObject> {
  return parseHocon({ text }, 'config text');
}

/** Reads and parses a HOCON file; `include`s are resolved relative to it. */
export async function readHoconFile(file: string): Promise<RawObject> {
  const path = resolve(file);
  if (!existsSync(path)) throw new ConfigError('', `Configuration file '${file}' does not exist`);
  return await parseHocon({ url: path }, path);
}

// ---------------------------------------------------------------------------
// Settings types beyond chain/settings.ts and api/services.ts

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
    /** `node.wallet.file`: the keystore file (see keystore.ts). */
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

export type { NetworkTlsFiles };

export interface PeerAddress {
  readonly host: string;
  readonly port: number;
}

/** `node.network`: what the P2P network runs on, and the settings only the node reads. */
export interface NetworkSettings extends NodeNetworkSettings {
  readonly mode: 'default' | 'watcher';
  readonly receivedTxsCacheTimeoutMs: number;
  readonly txBufferSize: number;
  readonly tls: NetworkTlsFiles | undefined;
}

/** `node.miner` beyond what chain/settings.ts names. */
export interface NodeMinerSettings extends MinerSettings {
  readonly intervalAfterLastBlockThenGenerationIsAllowedMs: number;
  readonly noQuorumMiningDelayMs: number;
  readonly minimalBlockGenerationOffsetMs: number;
  readonly pullingBufferSize: number;
  readonly utxCheckDelayMs: number;
}

/** `node.utx` beyond what chain/settings.ts names. */
export interface NodeUtxSettings extends UtxSettings {
  readonly rebroadcastThresholdMs: number;
  readonly rebroadcastIntervalMs: number;
}

/** `node.api` beyond what api/services.ts names. */
export interface NodeApiSettings extends ApiSettings {
  /** `node.api.rest.enable`. */
  readonly enabled: boolean;
  readonly distributionAddressLimit: number;
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

/** `H6nsii…`: the hash of `ridethewaves!`, WE's default for all three API-key hashes. */
export const WE_DEFAULT_API_KEY_HASH = 'H6nsiifwYKYEx6YzYD7woP1XCn72RVvx6tC1zjjLXqsu';

/** The most `node.crypto.verifier-threads` takes. */
const MAX_VERIFIER_THREADS = 256;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const DEFAULTS = {
  loggingLevel: 'DEBUG' as LoggingLevel,
  walletPassword: 'some string as password',
  maxRollbackDepth: 2000,
  miner: {
    enabled: true,
    quorum: 1,
    intervalAfterLastBlockThenGenerationIsAllowedMs: 24 * HOUR,
    noQuorumMiningDelayMs: 5 * SECOND,
    microBlockIntervalMs: 5 * SECOND,
    minimalBlockGenerationOffsetMs: 200,
    maxBlockSizeInBytes: 1_048_576,
    maxTransactionsInMicroBlock: 255,
    minMicroBlockAgeMs: 6 * SECOND,
    pullingBufferSize: 100,
    utxCheckDelayMs: 1000,
  } satisfies NodeMinerSettings,
  utx: {
    memoryLimitBytes: 100 * 2 ** 20,
    cleanupIntervalMs: 5 * MINUTE,
    allowTransactionsFromSmartAccounts: true,
    txExpireTimeoutMs: 2 * HOUR,
    rebroadcastThresholdMs: 5 * MINUTE,
    rebroadcastIntervalMs: 5 * MINUTE,
  } satisfies NodeUtxSettings,
  rest: { enabled: true, bindAddress: '0.0.0.0', port: 6862, cors: true, transactionsByAddressLimit: 10_000, distributionAddressLimit: 1000 },
  network: {
    bindAddress: '0.0.0.0',
    port: 6864,
    mode: 'default' as const,
    maxSimultaneousConnections: 30,
    handshakeTimeoutMs: 30 * SECOND,
    connectionTimeoutMs: 30 * SECOND,
    breakIdleConnectionsTimeoutMs: MINUTE,
    attemptConnectionDelayMs: 5 * SECOND,
    peersRequestIntervalMs: 2 * MINUTE,
    enablePeersExchange: true,
    receivedTxsCacheTimeoutMs: 3 * MINUTE,
    txBufferSize: 10_000,
    peersDataResidenceTimeMs: 24 * HOUR,
    suspensionResidenceTimeMs: MINUTE,
  },
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

/** WE's Miner.MaxTransactionsPerMicroblock. */
export const MAX_TRANSACTIONS_PER_MICRO_BLOCK = 6000;
/** WE's Miner.MinUtxCheckDelay. */
export const MIN_UTX_CHECK_DELAY_MS = 100;
const MAX_NODE_NAME_BYTES = 127;

// ---------------------------------------------------------------------------
// Sections

function readCryptoType(node: ConfigSection): CryptoType {
  const crypto = node.section('crypto');
  const type = crypto.choice('type', ['WAVES', 'GOST'] as const, 'WAVES');
  const pkiMode = crypto.choice('pki.mode', ['OFF', 'ON', 'TEST'] as const, 'OFF');
  if (type === 'WAVES' && pkiMode !== 'OFF') fail(crypto.at('pki.mode'), "Usage of 'node.crypto.pki = ON | TEST' is forbidden for 'node.crypto.type = Waves'");
  return type === 'WAVES' ? 'waves' : 'gost';
}

function base64Der(path: string, v: unknown): Uint8Array {
  const text = parseString(v, path);
  try {
    return decodeBase64(text.replace(/\s/g, ''));
  } catch (e) {
    return fail(path, `expected Base64 DER: ${e instanceof EncodingError ? e.message : String(e)}`);
  }
}

/** A SHA-1 fingerprint: 40 hex digits (colons allowed) or Base64 of the 20 bytes. */
function readFingerprint(v: unknown, path: string): Uint8Array {
  const text = parseString(v, path).trim();
  const hex = text.replace(/:/g, '');
  if (/^[0-9a-fA-F]{40}$/.test(hex)) return new Uint8Array(Buffer.from(hex, 'hex'));
  try {
    const bytes = decodeBase64(text);
    if (bytes.length === 20) return bytes;
  } catch {
    // reported below
  }
  return fail(path, `expected a SHA-1 fingerprint (40 hex digits or Base64 of 20 bytes), got ${describeValue(v)}`);
}

/**
 * `node.crypto.pki`, `node.pki.tsp-server` and `node.blockchain.custom.genesis.pki`. WAVES
 * networks allow only OFF and no genesis PKI; ON needs CRL checks and P2P TLS (WE's rules).
 */
function readPki(node: ConfigSection, crypto: CryptoType, tlsEnabled: boolean): PkiSettings {
  const c = node.section('crypto');
  const mode = c.choice('pki.mode', ['OFF', 'ON', 'TEST'] as const, 'OFF');
  const pki = c.section('pki');
  const requiredOids = pki.list('required-oids', []).map((v, i) => {
    const path = `${pki.at('required-oids')}(${i})`;
    const oid = ekuOid(parseString(v, path));
    if (oid === undefined) fail(path, `expected a dotted OID or one of serverAuth, clientAuth, codeSigning, emailProtection, timeStamping, OCSPSigning, got ${describeValue(v)}`);
    return oid;
  });
  const crlChecksEnabled = pki.bool('crl-checks-enabled', false);
  if (mode === 'ON' && !crlChecksEnabled) fail(pki.at('crl-checks-enabled'), "Setting 'crl-checks-enabled = false' is forbidden for 'pki.mode = ON'");
  if (mode === 'ON' && !tlsEnabled) fail(node.at('network.tls'), "'node.crypto.pki.mode = ON' requires TLS on the P2P network (node.network.tls { enable = true, … })");
  const crlSyncPeriodMs = pki.duration('crl-sync-manager-settings.period', PKI_OFF.crlSyncPeriodMs);
  const tspServer = node.optionalString('pki.tsp-server');
  const genesis = node.section('blockchain.custom.genesis');
  if (!genesis.has('pki')) return { mode, requiredOids, crlChecksEnabled, crlSyncPeriodMs, tspServer, genesis: PKI_OFF.genesis };
  if (crypto !== 'gost') fail(genesis.at('pki'), "the genesis PKI settings are for GOST networks (node.crypto.type = GOST)");
  const g = genesis.section('pki');
  const trustedRootFingerprints = g.list('trusted-root-fingerprints', []).map((v, i) => readFingerprint(v, `${g.at('trusted-root-fingerprints')}(${i})`));
  const certificates = g.list('certificates', []).map((v, i) => {
    const path = `${g.at('certificates')}(${i})`;
    try {
      return parseCertificate(base64Der(path, v));
    } catch (e) {
      if (e instanceof CertificateFormatError) return fail(path, e.message);
      throw e;
    }
  });
  const crls = g.list('crls', []).map((v, i): GenesisCrl => {
    const path = `${g.at('crls')}(${i})`;
    if (!isObject(v)) return fail(path, `expected { publicKeyBase58, cdp, crl }, got ${describeValue(v)}`);
    const entry = new ConfigSection(v, path);
    let issuerPublicKey: Uint8Array;
    try {
      issuerPublicKey = decodeBase58(entry.string('publicKeyBase58'));
    } catch {
      return fail(entry.at('publicKeyBase58'), 'expected a Base58 public key');
    }
    try {
      return { issuerPublicKey, cdp: entry.string('cdp'), crl: parseCrl(base64Der(entry.at('crl'), entry.get('crl'))) };
    } catch (e) {
      if (e instanceof CrlFormatError) return fail(entry.at('crl'), e.message);
      throw e;
    }
  });
  return { mode, requiredOids, crlChecksEnabled, crlSyncPeriodMs, tspServer, genesis: { trustedRootFingerprints, certificates, crls } };
}

function readChainId(custom: ConfigSection): string {
  const key = 'address-scheme-character';
  const id = custom.string(key);
  if (id.length !== 1 || id.charCodeAt(0) > 127) fail(custom.at(key), `expected one ASCII character, got ${describeValue(id)}`);
  return id;
}

function readConsensus(blockchain: ConfigSection, genesis: ConfigSection, genesisSettings: GenesisSettings): { settings: ConsensusSettings; type: ConsensusType } {
  const c = blockchain.section('consensus');
  const type = c.choice('type', ['poa', 'pos', 'cft'] as const, 'pos');
  // WE's PlainGenesisSettings requires `average-block-delay` whatever the consensus.
  const averageBlockDelayMs = genesis.duration('average-block-delay');
  if (type === 'cft') return fail(c.at('type'), 'CFT consensus is not supported by Weft; use poa or pos');
  if (type === 'pos') {
    if (averageBlockDelayMs <= 0) fail(genesis.at('average-block-delay'), 'must be positive for PoS');
    return { type, settings: { type, averageBlockDelayMs, initialBaseTarget: genesisSettings.initialBaseTarget } };
  }
  const roundDurationMs = c.duration('round-duration');
  const syncDurationMs = c.duration('sync-duration');
  if (roundDurationMs <= 0) fail(c.at('round-duration'), 'must be positive');
  return {
    type,
    settings: {
      type,
      roundDurationMs,
      syncDurationMs,
      banDurationBlocks: c.int('ban-duration-blocks', undefined, { min: 0 }),
      warningsForBan: c.int('warnings-for-ban', undefined, { min: 0 }),
      maxBansPercentage: c.int('max-bans-percentage', undefined, { min: 0, max: 100 }),
    },
  };
}

const FEE_TYPE_BY_NAME = new Map([...FEE_NAMES].map(([type, name]) => [name, type]));

function readFeeMap(section: ConfigSection, defaults: ReadonlyMap<number, bigint>): Map<number, bigint> {
  const out = new Map(defaults);
  for (const name of Object.keys(section.raw)) {
    const type = FEE_TYPE_BY_NAME.get(name);
    if (type === undefined) fail(section.at(name), `unknown transaction type name '${name}' (known: ${[...FEE_TYPE_BY_NAME.keys()].join(', ')})`);
    out.set(type, section.amount(name));
  }
  return out;
}

function readFees(blockchain: ConfigSection): FeeSettings {
  const fees = blockchain.section('fees');
  const enabled = fees.bool('enabled', true);
  const base = readFeeMap(fees.section('base'), DEFAULT_FEES.base);
  const additional = readFeeMap(fees.section('additional'), DEFAULT_FEES.additional);
  // WE's FeesDisabled charges nothing: the maps are empty, every minimal fee is 0.
  return enabled ? { enabled, base, additional } : { enabled, base: new Map(), additional: new Map() };
}

function readFunctionality(custom: ConfigSection): FunctionalitySettings {
  const f = custom.section('functionality');
  const period = f.int('feature-check-blocks-period');
  if (period <= 1) fail(f.at('feature-check-blocks-period'), `must be greater than 1, got ${period}`);
  const blocksForFeatureActivation = f.int('blocks-for-feature-activation');
  if (blocksForFeatureActivation < 1 || blocksForFeatureActivation > period) {
    fail(f.at('blocks-for-feature-activation'), `must be in range 1 to ${period}, got ${blocksForFeatureActivation}`);
  }
  const preActivatedFeatures = new Map<number, number>();
  const raw = f.get('pre-activated-features');
  if (raw !== undefined && raw !== '') {
    if (!isObject(raw)) fail(f.at('pre-activated-features'), `expected an object { <feature id> = <height> }, got ${describeValue(raw)}`);
    const features = f.section('pre-activated-features');
    for (const key of Object.keys(features.raw)) {
      const id = parseInt32(key, features.at(key), { min: -32768, max: 32767 });
      preActivatedFeatures.set(id, features.int(key, undefined, { min: 0 }));
    }
  }
  return { featureCheckBlocksPeriod: period, blocksForFeatureActivation, preActivatedFeatures };
}

/** Re-attributes a protocol error about a genesis field to its full config path. */
function genesisError(genesis: ConfigSection, e: unknown): never {
  if (e instanceof WeError) throw new ConfigError(e.field === undefined ? genesis.path : genesis.at(e.field), e.message);
  throw e;
}

export interface BlockchainConfig {
  readonly protocol: Protocol;
  readonly chain: ChainSettings;
  readonly consensusType: ConsensusType;
}

export interface BlockchainReadOptions {
  /**
   * Require `genesis-public-key-base-58` and `signature` and verify the genesis block
   * (true for a node; false for the genesis generator, which fills them in).
   */
  readonly requireSignedGenesis: boolean;
}

/** `node.crypto` and `node.blockchain` (a CUSTOM chain with a plain genesis). */
export async function blockchainFromConfig(root: RawObject, options: BlockchainReadOptions): Promise<BlockchainConfig> {
  const node = new ConfigSection(root, '').section('node');
  const crypto = readCryptoType(node);
  const blockchain = node.section('blockchain');
  const chainType = blockchain.choice('type', ['CUSTOM', 'DEFAULT', 'MAINNET'] as const, 'DEFAULT');
  if (chainType !== 'CUSTOM') {
    fail(blockchain.at('type'), `only CUSTOM blockchains are supported (set node.blockchain.type = CUSTOM and a node.blockchain.custom section), got ${chainType}`);
  }
  const custom = blockchain.section('custom');
  const chainId = readChainId(custom);
  const protocol = await Protocol.create({ crypto, chainId });
  const genesisSection = custom.section('genesis');
  const rawGenesis: RawObject = { ...genesisSection.raw };
  if (genesisSection.has('sender-role-enabled')) rawGenesis['sender-role-enabled'] = genesisSection.bool('sender-role-enabled');
  let genesis: GenesisSettings;
  try {
    genesis = genesisSettingsFromConfig(protocol, rawGenesis);
  } catch (e) {
    return genesisError(genesisSection, e);
  }
  const consensus = readConsensus(blockchain, genesisSection, genesis);
  if (options.requireSignedGenesis) {
    const unsigned = 'the genesis block is not signed yet: run "generate genesis --config FILE" first';
    if (genesis.genesisPublicKey === null || genesis.genesisPublicKey.length === 0) fail(genesisSection.at('genesis-public-key-base-58'), unsigned);
    if (genesis.signature === null || genesis.signature.length === 0) fail(genesisSection.at('signature'), unsigned);
    try {
      genesisBlock(protocol, genesis, consensus.type);
    } catch (e) {
      genesisError(genesisSection, e);
    }
  }
  const chain: ChainSettings = {
    crypto,
    chainId,
    consensus: consensus.settings,
    genesis,
    fees: readFees(blockchain),
    functionality: readFunctionality(custom),
    maxRollbackDepth: node.int('additional-cache.rocksdb.max-rollback-depth', DEFAULTS.maxRollbackDepth, { min: 1 }),
  };
  return { protocol, chain, consensusType: consensus.type };
}

function readMiner(node: ConfigSection): NodeMinerSettings {
  const m = node.section('miner');
  const d = DEFAULTS.miner;
  return {
    enabled: m.bool('enable', d.enabled),
    quorum: m.int('quorum', d.quorum, { min: 0 }),
    intervalAfterLastBlockThenGenerationIsAllowedMs: m.duration('interval-after-last-block-then-generation-is-allowed', d.intervalAfterLastBlockThenGenerationIsAllowedMs),
    noQuorumMiningDelayMs: m.duration('no-quorum-mining-delay', d.noQuorumMiningDelayMs),
    microBlockIntervalMs: m.duration('micro-block-interval', d.microBlockIntervalMs),
    minimalBlockGenerationOffsetMs: m.duration('minimal-block-generation-offset', d.minimalBlockGenerationOffsetMs),
    maxBlockSizeInBytes: m.int('max-block-size-in-bytes', d.maxBlockSizeInBytes, { min: 1 }),
    maxTransactionsInMicroBlock: m.int('max-transactions-in-micro-block', d.maxTransactionsInMicroBlock, { min: 1, max: MAX_TRANSACTIONS_PER_MICRO_BLOCK }),
    minMicroBlockAgeMs: m.duration('min-micro-block-age', d.minMicroBlockAgeMs),
    pullingBufferSize: m.int('pulling-buffer-size', d.pullingBufferSize, { min: 1 }),
    utxCheckDelayMs: ((): number => {
      const ms = m.duration('utx-check-delay', d.utxCheckDelayMs);
      if (ms < MIN_UTX_CHECK_DELAY_MS) fail(m.at('utx-check-delay'), `must be ≥ ${MIN_UTX_CHECK_DELAY_MS}ms, got ${ms}ms`);
      return ms;
    })(),
  };
}

function readUtx(node: ConfigSection): NodeUtxSettings {
  const u = node.section('utx');
  const d = DEFAULTS.utx;
  const txExpireTimeoutMs = u.duration('tx-expire-timeout', d.txExpireTimeoutMs);
  if (txExpireTimeoutMs < 5 * MINUTE || txExpireTimeoutMs > 96 * HOUR) {
    fail(u.at('tx-expire-timeout'), `should be between 5 minutes and 96 hours, got ${txExpireTimeoutMs}ms`);
  }
  return {
    memoryLimitBytes: u.size('memory-limit', d.memoryLimitBytes),
    cleanupIntervalMs: u.duration('cleanup-interval', d.cleanupIntervalMs),
    allowTransactionsFromSmartAccounts: u.bool('allow-transactions-from-smart-accounts', d.allowTransactionsFromSmartAccounts),
    txExpireTimeoutMs,
    rebroadcastThresholdMs: u.duration('rebroadcast-threshold', d.rebroadcastThresholdMs),
    rebroadcastIntervalMs: u.duration('rebroadcast-interval', d.rebroadcastIntervalMs),
  };
}

function readApiKeyHash(auth: ConfigSection, key: string): Uint8Array {
  const text = auth.string(key, WE_DEFAULT_API_KEY_HASH, { allowEmpty: true });
  if (text === '') fail(auth.at(key), `'${auth.at(key)}' setting is empty`);
  try {
    return decodeBase58(text);
  } catch {
    return fail(auth.at(key), `Failed to decode ${key}: '${text}'`);
  }
}

function readAuth(api: ConfigSection): AuthMode {
  const auth = api.section('auth');
  const type = auth.choice('type', ['api-key', 'oauth2', 'tls-whitelist'] as const, 'api-key');
  if (type === 'tls-whitelist') {
    return fail(auth.at('type'), "'tls-whitelist' is not supported (WE leaves every REST route open with it); use api-key or oauth2");
  }
  if (type === 'oauth2') {
    const text = auth.string('public-key');
    try {
      const key = createPublicKey({ key: Buffer.from(decodeBase64(text.trim())), format: 'der', type: 'spki' });
      if (key.asymmetricKeyType !== 'rsa') fail(auth.at('public-key'), `expected an RSA public key, got a ${key.asymmetricKeyType ?? 'unknown'} key`);
      return { type, publicKeyPem: key.export({ format: 'pem', type: 'spki' }).toString() };
    } catch (e) {
      if (e instanceof ConfigError) throw e;
      return fail(auth.at('public-key'), `Failed to decode authorization public key: '${text}' (expected a Base64 X.509 RSA public key)`);
    }
  }
  return {
    type,
    apiKeyHash: readApiKeyHash(auth, 'api-key-hash'),
    privacyApiKeyHash: readApiKeyHash(auth, 'privacy-api-key-hash'),
    confidentialContractsApiKeyHash: readApiKeyHash(auth, 'confidential-contracts-api-key-hash'),
  };
}

/** A browser origin as browsers send it: `scheme://host[:port]`, nothing after. */
function readOrigin(v: unknown, path: string): string {
  const text = parseString(v, path).trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]+$/i.test(text)) return fail(path, `expected an origin such as "https://app.example.com", got ${describeValue(v)}`);
  return text;
}

/** `node.api.rest` connection cap and timeouts (Weft's; WE has none). */
function readConnectionLimits(rest: ConfigSection): RestConnectionLimits {
  const d = DEFAULT_REST_CONNECTION_LIMITS;
  const positive = (key: string, fallback: number): number => {
    const ms = rest.duration(key, fallback);
    return ms > 0 ? ms : fail(rest.at(key), 'must be positive');
  };
  return {
    maxConnections: rest.int('max-connections', d.maxConnections, { min: 1 }),
    headerTimeoutMs: positive('header-timeout', d.headerTimeoutMs),
    requestTimeoutMs: positive('request-timeout', d.requestTimeoutMs),
    idleTimeoutMs: positive('idle-timeout', d.idleTimeoutMs),
  };
}

function readApi(node: ConfigSection, watcher: boolean): NodeApiSettings {
  const api = node.section('api');
  const rest = api.section('rest');
  const d = DEFAULTS.rest;
  return {
    enabled: rest.bool('enable', d.enabled),
    bindAddress: rest.string('bind-address', d.bindAddress),
    port: rest.int('port', d.port, { min: 0, max: 65535 }),
    cors: rest.bool('cors', d.cors),
    corsAllowedOrigins: rest.list('cors-allowed-origins', []).map((v, i) => readOrigin(v, `${rest.at('cors-allowed-origins')}(${i})`)),
    connectionLimits: readConnectionLimits(rest),
    transactionsByAddressLimit: rest.int('transactions-by-address-limit', d.transactionsByAddressLimit, { min: 1 }),
    distributionAddressLimit: rest.int('distribution-address-limit', d.distributionAddressLimit, { min: 1 }),
    auth: readAuth(api),
    watcher,
    // Checked against the crypto type by readCryptoType (WAVES allows only OFF).
    pkiMode: node.section('crypto').choice('pki.mode', ['OFF', 'ON', 'TEST'] as const, 'OFF'),
  };
}

/** `host:port` (WE reads it as the authority of a `my://` URI). */
export function parsePeerAddress(v: unknown, path: string): PeerAddress {
  const text = parseString(v, path).trim();
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:/[\]]+)):(\d{1,5})$/.exec(text);
  const port = m === null ? NaN : Number(m[3]);
  if (m === null || port > 65535) return fail(path, `expected "host:port", got ${describeValue(v)}`);
  return { host: m[1] ?? m[2]!, port };
}

function readNetwork(node: ConfigSection): NetworkSettings {
  const n = node.section('network');
  const d = DEFAULTS.network;
  const positive = (key: string, fallback: number): number => {
    const ms = n.duration(key, fallback);
    if (ms <= 0) fail(n.at(key), 'must be > 0');
    return ms;
  };
  const nodeName = n.optionalString('node-name');
  if (nodeName !== undefined && Buffer.byteLength(nodeName, 'utf8') > MAX_NODE_NAME_BYTES) {
    fail(n.at('node-name'), `Node name should have length less than ${MAX_NODE_NAME_BYTES} bytes`);
  }
  return {
    bindAddress: n.string('bind-address', d.bindAddress),
    port: n.int('port', d.port, { min: 0, max: 65535 }),
    declaredAddress: n.has('declared-address') ? parsePeerAddress(n.get('declared-address'), n.at('declared-address')) : undefined,
    nodeName,
    nonce: n.has('nonce') ? n.long('nonce') : undefined,
    knownPeers: n.list('known-peers', []).map((peer, i) => parsePeerAddress(peer, `${n.at('known-peers')}(${i})`)),
    mode: n.choice('mode', ['default', 'watcher'] as const, d.mode),
    maxSimultaneousConnections: n.int('max-simultaneous-connections', d.maxSimultaneousConnections, { min: 1 }),
    handshakeTimeoutMs: positive('handshake-timeout', d.handshakeTimeoutMs),
    connectionTimeoutMs: positive('connection-timeout', d.connectionTimeoutMs),
    breakIdleConnectionsTimeoutMs: positive('break-idle-connections-timeout', d.breakIdleConnectionsTimeoutMs),
    attemptConnectionDelayMs: positive('attempt-connection-delay', d.attemptConnectionDelayMs),
    peersRequestIntervalMs: positive('peers-request-interval', d.peersRequestIntervalMs),
    enablePeersExchange: n.bool('enable-peers-exchange', d.enablePeersExchange),
    receivedTxsCacheTimeoutMs: positive('received-txs-cache-timeout', d.receivedTxsCacheTimeoutMs),
    txBufferSize: n.int('tx-buffer-size', d.txBufferSize, { min: 1 }),
    peersDataResidenceTimeMs: positive('peers-data-residence-time', d.peersDataResidenceTimeMs),
    suspensionResidenceTimeMs: positive('suspension-residence-time', d.suspensionResidenceTimeMs),
    tls: readNetworkTls(n),
  };
}

function readNetworkTls(n: ConfigSection): NetworkTlsFiles | undefined {
  const v = n.get('tls');
  if (v === undefined || v === false) return undefined;
  if (v === true) fail(n.at('tls'), 'Weft reads TLS keys from PEM files: write tls { enable = true, key-file = "…", cert-file = "…", ca-file = "…" }');
  const t = n.section('tls');
  if (!t.bool('enable', true)) return undefined;
  const caFile = t.optionalString('ca-file');
  return { keyFile: t.string('key-file'), certFile: t.string('cert-file'), caFile };
}

function readFeatures(node: ConfigSection): FeaturesSettings {
  const f = node.section('features');
  const d = DEFAULTS.features;
  return {
    autoSupportImplementedFeatures: f.bool('auto-support-implemented-features', d.autoSupportImplementedFeatures),
    autoShutdownOnUnsupportedFeature: f.bool('auto-shutdown-on-unsupported-feature', d.autoShutdownOnUnsupportedFeature),
    supported: f.list('supported', d.supported).map((x, i) => parseInt32(x, `${f.at('supported')}(${i})`, { min: -32768, max: 32767 })),
  };
}

/** First path segments the REST API serves under (its route groups, the explorer, the API documents). */
function restPathRoots(): Set<string> {
  const roots = new Set(['explorer', 'api-docs', 'swagger']);
  for (const group of ROUTE_GROUPS) for (const r of group.routes) roots.add(r.path.split('/')[1] ?? '');
  return roots;
}

/** `node.metrics`: a path of plain segments, outside every path the REST API serves. */
function readMetrics(node: ConfigSection): MetricsSettings {
  const m = node.section('metrics');
  const d = DEFAULTS.metrics;
  const path = m.string('path', d.path);
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) fail(m.at('path'), `expected a URL path of plain segments such as "/metrics", got ${describeValue(path)}`);
  const root = path.split('/')[1]!;
  if (restPathRoots().has(root)) fail(m.at('path'), `"${path}" lies under /${root}, which the REST API serves; choose another path such as "/metrics"`);
  return { enabled: m.bool('enable', d.enabled), path, protected: m.bool('protected', d.protected) };
}

/** An http(s) URL. */
function parseHttpUrl(v: unknown, path: string): string {
  const text = parseString(v, path).trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(path, `expected an http or https URL, got ${describeValue(v)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(path, `expected an http or https URL, got ${describeValue(v)}`);
  return text;
}

function readTargetnetAuth(auth: ConfigSection): TargetnetAuth {
  const type = auth.choice('type', ['api-key', 'oauth2'] as const);
  if (type === 'api-key') return { type };
  const tokenUpdateIntervalMs = auth.duration('token-update-interval');
  if (tokenUpdateIntervalMs <= 0) fail(auth.at('token-update-interval'), 'must be > 0');
  return {
    type,
    authorizationToken: auth.string('authorization-token'),
    authorizationServiceUrl: parseHttpUrl(auth.get('authorization-service-url') ?? fail(auth.at('authorization-service-url'), 'required, but not set'), auth.at('authorization-service-url')),
    tokenUpdateIntervalMs,
  };
}

/**
 * `node.anchoring` (WE's AnchoringSettings): nothing unless `enable = yes`; then every key
 * WE requires must be set. Beyond WE's reader, values that cannot work are refused here:
 * `height-condition.range` 0 (WE divides by it), `threshold` 0 (the anchored block would be
 * the liquid block, whose id changes with each micro-block), fees ≤ 0, a target address
 * of another network than `scheme-byte`, and WE's sample key `targetnet-fee` (which WE's
 * reader ignores) is named when `targetnet.fee` is missing.
 */
async function readAnchoring(node: ConfigSection): Promise<AnchoringSettings | undefined> {
  const a = node.section('anchoring');
  if (!a.bool('enable', false)) return undefined;
  const condition = a.section('height-condition');
  const t = a.section('targetnet');
  const schemeByte = t.string('scheme-byte');
  if (schemeByte.charCodeAt(0) > 127) fail(t.at('scheme-byte'), `expected an ASCII character, got ${describeValue(schemeByte)}`);
  const chainId = schemeByte[0]!;
  const recipient = t.string('node-recipient-address').trim();
  const targetProtocol = await Protocol.create({ crypto: 'waves', chainId });
  try {
    targetProtocol.addresses.parseAddress(recipient);
  } catch (e) {
    if (e instanceof WeError) fail(t.at('node-recipient-address'), `not an address of the targetnet '${chainId}': ${e.message}`);
    throw e;
  }
  const positiveLong = (section: ConfigSection, key: string, hint?: string): bigint => {
    if (!section.has(key) && hint !== undefined) fail(section.at(key), hint);
    const v = section.long(key);
    if (v <= 0n) fail(section.at(key), `must be > 0, got ${v}`);
    return v;
  };
  const wallet = t.section('wallet');
  const privateKeyPassword = t.get('private-key-password');
  return {
    heightRange: condition.int('range', undefined, { min: 1 }),
    heightAbove: condition.int('above', undefined, { min: 0 }),
    threshold: a.int('threshold', undefined, { min: 1 }),
    targetnet: {
      auth: readTargetnetAuth(t.section('auth')),
      schemeByte: chainId,
      nodeAddress: parseHttpUrl(t.get('node-address') ?? fail(t.at('node-address'), 'required, but not set'), t.at('node-address')),
      nodeRecipientAddress: recipient,
      privateKeyPassword: privateKeyPassword === undefined ? undefined : parseString(privateKeyPassword, t.at('private-key-password'), { allowEmpty: true }),
      wallet: { file: resolve(wallet.string('file')), password: wallet.string('password', '', { allowEmpty: true }) },
      fee: positiveLong(t, 'fee', a.has('targetnet-fee') ? `required, but not set (WE's sample key ${a.at('targetnet-fee')} is not read: write targetnet.fee)` : undefined),
    },
    sidechainFee: positiveLong(a, 'sidechain-fee'),
    txMiningCheckDelayMs: a.duration('tx-mining-check-delay', ANCHORING_DEFAULTS.txMiningCheckDelayMs),
    txMiningCheckCount: a.int('tx-mining-check-count', ANCHORING_DEFAULTS.txMiningCheckCount, { min: 0 }),
    retryDelayMs: a.duration('retry-delay', ANCHORING_DEFAULTS.retryDelayMs),
    heightPollIntervalMs: a.duration('height-poll-interval', ANCHORING_DEFAULTS.heightPollIntervalMs),
  };
}

function readDockerEngine(node: ConfigSection): DockerEngineSettings {
  const e = node.section('docker-engine');
  const d = DEFAULT_DOCKER_ENGINE;
  const limits = e.section('execution-limits');
  const cache = e.section('contract-execution-messages-cache');
  return {
    enable: e.bool('enable', d.enable),
    dockerHost: e.optionalString('docker-host'),
    contractsParallelism: e.int('contracts-parallelism', d.contractsParallelism, { min: 1 }),
    executionLimits: {
      startupTimeoutMs: limits.duration('startup-timeout', d.executionLimits.startupTimeoutMs),
      timeoutMs: limits.duration('timeout', d.executionLimits.timeoutMs),
      memoryMb: limits.int('memory', d.executionLimits.memoryMb, { min: 6 }),
      memorySwapMb: limits.int('memory-swap', d.executionLimits.memorySwapMb, { min: 0 }),
    },
    removeContainerAfterMs: e.duration('remove-container-after', d.removeContainerAfterMs),
    remoteRegistries: e.list('remote-registries', []).map((entry, i) => {
      const path = `${e.at('remote-registries')}(${i})`;
      if (!isObject(entry)) return fail(path, `expected an object { domain, username, password }, got ${describeValue(entry)}`);
      const r = new ConfigSection(entry, path);
      return { domain: r.string('domain'), username: r.string('username'), password: r.string('password', undefined, { allowEmpty: true }) };
    }),
    defaultRegistryDomain: e.optionalString('default-registry-domain'),
    contractAuthExpiresInMs: e.duration('contract-auth-expires-in', d.contractAuthExpiresInMs),
    // grpc-server.port 0: tell contracts the port the gRPC API took (node.api.grpc.port 0 picks any free one).
    grpcServer: { host: e.optionalString('grpc-server.host'), port: e.int('grpc-server.port', d.grpcServer.port, { min: 0, max: 65535 }) },
    removeContainerOnFail: e.bool('remove-container-on-fail', d.removeContainerOnFail),
    executionMessagesCache: {
      maxSize: cache.int('max-size', d.executionMessagesCache.maxSize, { min: 1 }),
      expireAfterMs: cache.duration('expire-after', d.executionMessagesCache.expireAfterMs),
      utxCleanupIntervalMs: cache.duration('utx-cleanup-interval', d.executionMessagesCache.utxCleanupIntervalMs),
      contractErrorQuorum: cache.int('contract-error-quorum', d.executionMessagesCache.contractErrorQuorum, { min: 1 }),
      ignoreSuccessful: cache.bool('ignore-successful', d.executionMessagesCache.ignoreSuccessful),
    },
  };
}

function readContractPackage(entry: unknown, path: string): ContractPackageSettings {
  if (!isObject(entry)) return fail(path, `expected an object { image = "…", source = "…" }, got ${describeValue(entry)}`);
  const p = new ConfigSection(entry, path);
  const runtime = p.choice('runtime', ['process', 'docker'] as const, 'process');
  const source = p.optionalString('source');
  if (runtime === 'process' && source === undefined) fail(p.at('source'), 'required for the process runtime: a built package folder or a .tgz');
  const command = p.has('command') ? p.list('command').map((c, i) => parseString(c, `${p.at('command')}(${i})`)) : undefined;
  if (command !== undefined && command.length === 0) fail(p.at('command'), 'expected a non-empty list: the program and its arguments');
  const env: Record<string, string> = {};
  const envSection = p.section('env');
  for (const key of Object.keys(envSection.raw)) env[key] = envSection.string(key, undefined, { allowEmpty: true });
  const maxInFlight = p.has('max-in-flight') ? p.int('max-in-flight', undefined, { min: 1 }) : undefined;
  const instances = p.has('instances') ? p.int('instances', undefined, { min: 1, max: MAX_CONTRACT_INSTANCES }) : undefined;
  const isolateNetwork = p.has('isolate-network') ? p.bool('isolate-network', true) : undefined;
  return {
    image: p.string('image'),
    runtime,
    source: source === undefined ? undefined : resolve(source),
    command,
    env,
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
    ...(instances === undefined ? {} : { instances }),
    ...(isolateNetwork === undefined ? {} : { isolateNetwork }),
  };
}

/**
 * `node.wasm`'s Weft keys (contracts/settings.ts WasmExecutionSettings): `execution-timeout`
 * (a duration, > 0), `memory-limit` (a memory size, at least 16 MiB: a thread's own code
 * needs some), `threads` (1…64).
 */
function readWasmExecution(node: ConfigSection): WasmExecutionSettings {
  const d = DEFAULT_WASM_EXECUTION;
  const timeoutMs = node.duration('wasm.execution-timeout', d.timeoutMs);
  if (timeoutMs <= 0) fail(node.at('wasm.execution-timeout'), 'must be positive');
  const memoryLimitBytes = node.size('wasm.memory-limit', d.memoryLimitBytes);
  if (memoryLimitBytes < MIN_WASM_MEMORY_LIMIT) fail(node.at('wasm.memory-limit'), `must be at least 16MiB, got ${memoryLimitBytes} bytes`);
  return { timeoutMs, memoryLimitBytes, threads: node.int('wasm.threads', d.threads, { min: 1, max: MAX_WASM_THREADS }) };
}

const MIN_WASM_MEMORY_LIMIT = 16 * 2 ** 20;
const WASM_EXECUTION_KEYS = ['wasm.execution-timeout', 'wasm.memory-limit', 'wasm.threads'];

/** `node.contracts`, `node.docker-engine`, `node.wasm` and `node.api.grpc`. */
export function readContracts(node: ConfigSection, dataDirectory: string): ContractsSettings {
  const c = node.section('contracts');
  const dockerEngine = readDockerEngine(node);
  const grpc = node.section('api.grpc');
  return {
    enable: c.bool('enable', false) || dockerEngine.enable,
    dockerEngine,
    wasmFuelLimit: node.int('wasm.fuel-limit', DEFAULT_WASM_FUEL_LIMIT, { min: 1 }),
    ...(WASM_EXECUTION_KEYS.some((key) => node.has(key)) ? { wasmExecution: readWasmExecution(node) } : {}),
    grpc: {
      bindAddress: grpc.string('bind-address', defaultGrpcBindAddress(dockerEngine.grpcServer.host)),
      port: grpc.int('port', 6865, { min: 0, max: 65535 }),
      ...(grpc.has('services.contract-status-events.max-connections')
        ? { contractStatusMaxConnections: grpc.int('services.contract-status-events.max-connections', DEFAULT_CONTRACT_STATUS_MAX_CONNECTIONS, { min: 1 }) }
        : {}),
      ...(grpc.has('services.contract-status-events.max-connections-per-channel')
        ? { contractStatusMaxConnectionsPerChannel: grpc.int('services.contract-status-events.max-connections-per-channel', DEFAULT_CONTRACT_STATUS_MAX_CONNECTIONS, { min: 1 }) }
        : {}),
    },
    packages: c.list('packages', []).map((entry, i) => readContractPackage(entry, `${c.at('packages')}(${i})`)),
    packageCacheDirectory: resolve(c.string('package-cache-directory', join(dataDirectory, 'contract-packages'))),
    maxInFlight: c.int('max-in-flight', 1, { min: 1 }),
    ...(c.has('instances') ? { instances: c.int('instances', 1, { min: 1, max: MAX_CONTRACT_INSTANCES }) } : {}),
    ...(c.has('isolate-network') ? { isolateNetwork: c.bool('isolate-network', true) } : {}),
    ...(c.has('first-user-id') ? { firstUserId: c.int('first-user-id', DEFAULT_FIRST_USER_ID, { min: 1000, max: 2 ** 31 - 1 - CONTRACT_USER_ID_SPAN }) } : {}),
    ...(c.has('max-failed-executions') ? { maxFailedExecutions: c.int('max-failed-executions', DEFAULT_MAX_FAILED_EXECUTIONS, { min: 1 }) } : {}),
  };
}

function readPrivacyStorage(s: ConfigSection): PrivacyStorageSettings {
  const vendor = s.choice('vendor', ['embedded', 'postgres', 's3', 'none'] as const, 'embedded');
  switch (vendor) {
    case 'none':
      return { vendor };
    case 'embedded':
      return { vendor, directory: s.has('directory') ? resolve(s.string('directory')) : undefined };
    case 'postgres': {
      const jdbc = s.section('jdbc-config');
      return {
        vendor,
        url: jdbc.string('url'),
        user: jdbc.optionalString('user'),
        password: jdbc.has('password') ? jdbc.string('password', undefined, { allowEmpty: true }) : undefined,
        schema: s.string('schema', 'public'),
        connectionTimeoutMs: jdbc.duration('connectionTimeout', 5000),
        poolSize: jdbc.int('numThreads', 20, { min: 1 }),
        uploadChunkSize: s.size('upload-chunk-size', PRIVACY_DEFAULTS.postgresUploadChunkSize),
      };
    }
    case 's3': {
      const uploadChunkSize = s.size('upload-chunk-size', PRIVACY_DEFAULTS.s3UploadChunkSize);
      if (uploadChunkSize < 5 * 2 ** 20 || uploadChunkSize > 5 * 2 ** 30) fail(s.at('upload-chunk-size'), `must be from 5MiB to 5GiB for s3, got ${uploadChunkSize} bytes`);
      return {
        vendor,
        url: s.string('url'),
        bucket: s.string('bucket'),
        region: s.string('region'),
        accessKeyId: s.string('access-key-id'),
        secretAccessKey: s.string('secret-access-key'),
        pathStyleAccessEnabled: s.bool('path-style-access-enabled', true),
        connectionTimeoutMs: s.duration('connection-timeout', 30_000),
        connectionAcquisitionTimeoutMs: s.duration('connection-acquisition-timeout', 10_000),
        maxConcurrency: s.int('max-concurrency', 200, { min: 1 }),
        readTimeoutMs: s.duration('read-timeout', 0),
        uploadChunkSize,
      };
    }
  }
}

/** The synchronizer keys `node.privacy` and `node.confidential-contracts` share. */
function readSynchronizer(sy: ConfigSection, d: ReplicationSynchronizerSettings): ReplicationSynchronizerSettings {
  return {
    requestTimeoutMs: sy.duration('request-timeout', d.requestTimeoutMs),
    initRetryDelayMs: sy.duration('init-retry-delay', d.initRetryDelayMs),
    inventoryStreamTimeoutMs: sy.duration('inventory-stream-timeout', d.inventoryStreamTimeoutMs),
    inventoryRequestDelayMs: sy.duration('inventory-request-delay', d.inventoryRequestDelayMs),
    inventoryTimestampThresholdMs: sy.duration('inventory-timestamp-threshold', d.inventoryTimestampThresholdMs),
    crawlingParallelism: sy.int('crawling-parallelism', d.crawlingParallelism, { min: 1 }),
    maxAttemptCount: sy.int('max-attempt-count', d.maxAttemptCount, { min: 1 }),
    lostDataProcessingDelayMs: sy.duration('lost-data-processing-delay', d.lostDataProcessingDelayMs),
    failedPeersCacheSize: sy.int('failed-peers-cache-size', d.failedPeersCacheSize, { min: 1 }),
    failedPeersCacheExpireTimeoutMs: sy.duration('failed-peers-cache-expire-timeout', d.failedPeersCacheExpireTimeoutMs),
  };
}

/** `inventory-handler` of `node.privacy` and `node.confidential-contracts`. */
function readInventoryHandler(inv: ConfigSection, d: InventoryHandlerSettings): InventoryHandlerSettings {
  return {
    maxBufferTimeMs: inv.duration('max-buffer-time', d.maxBufferTimeMs),
    maxBufferSize: inv.int('max-buffer-size', d.maxBufferSize, { min: 1 }),
    maxCacheSize: inv.int('max-cache-size', d.maxCacheSize, { min: 1 }),
    expirationTimeMs: inv.duration('expiration-time', d.expirationTimeMs),
    replierParallelism: inv.int('replier-parallelism', d.replierParallelism, { min: 1 }),
  };
}

/** `cache` of `node.privacy` and `node.confidential-contracts`. */
function readDataCache(cache: ConfigSection, d: DataCacheSettings): DataCacheSettings {
  return { maxSize: cache.int('max-size', d.maxSize, { min: 1 }), expireAfterMs: cache.duration('expire-after', d.expireAfterMs) };
}

/** `node.confidential-contracts` (WE's keys and application.conf defaults; `data-directory` is read with the node's directories). */
export function readConfidentialContracts(node: ConfigSection): ConfidentialContractsSettings {
  const c = node.section('confidential-contracts');
  const d = CONFIDENTIAL_CONTRACTS_DEFAULTS;
  return {
    replier: { parallelism: c.section('replier').int('parallelism', d.replier.parallelism, { min: 1 }) },
    cache: readDataCache(c.section('cache'), d.cache),
    inventoryHandler: readInventoryHandler(c.section('inventory-handler'), d.inventoryHandler),
    synchronizer: readSynchronizer(c.section('synchronizer'), d.synchronizer),
  };
}

/** `node.privacy` (WE's keys and application.conf defaults; storage: Weft's embedded store unless `storage.vendor` says otherwise). */
function readPrivacy(node: ConfigSection): PrivacySettings {
  const p = node.section('privacy');
  const d = PRIVACY_DEFAULTS;
  const r = p.section('replier');
  const sy = p.section('synchronizer');
  const inv = p.section('inventory-handler');
  const cache = p.section('cache');
  const service = p.section('service');
  return {
    storage: readPrivacyStorage(p.section('storage')),
    replier: {
      parallelism: r.int('parallelism', d.replier.parallelism, { min: 1 }),
      streamTimeoutMs: r.duration('stream-timeout', d.replier.streamTimeoutMs),
      streamChunkSize: r.size('stream-chunk-size', d.replier.streamChunkSize),
      streamMaxPeersFullnessPercentage: r.int('stream-max-peers-fullness-percentage', d.replier.streamMaxPeersFullnessPercentage, { min: 0, max: 100 }),
    },
    synchronizer: {
      ...readSynchronizer(sy, d.synchronizer),
      networkStreamBufferSize: sy.int('network-stream-buffer-size', d.synchronizer.networkStreamBufferSize, { min: 1 }),
    },
    inventoryHandler: readInventoryHandler(inv, d.inventoryHandler),
    cache: readDataCache(cache, d.cache),
    service: {
      requestBufferSize: service.size('request-buffer-size', d.service.requestBufferSize),
      metaDataAccumulationTimeoutMs: service.duration('meta-data-accumulation-timeout', d.service.metaDataAccumulationTimeoutMs),
    },
  };
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

/**
 * `node.licenses`: the issuer public keys whose licences the node accepts (Base58) and what
 * an unlicensed node does (`on-expiry`: report, stop-mining or stop-node; default report).
 */
function readLicences(node: ConfigSection, suite: CryptoSuite): LicenceSettings {
  const l = node.section('licenses');
  const issuers = l.list('issuers', []).map((v, i) => {
    const path = `${l.at('issuers')}(${i})`;
    const text = parseString(v, path);
    let key: Uint8Array | undefined;
    try {
      key = decodeBase58(text);
    } catch {
      key = undefined;
    }
    if (key === undefined || key.length !== suite.publicKeyLength) fail(path, `expected a Base58 public key of ${suite.publicKeyLength} bytes, got ${describeValue(v)}`);
    return key;
  });
  return { issuers, onExpiry: l.choice('on-expiry', ['report', 'stop-mining', 'stop-node'] as const, 'report') };
}

/** A full node config from a parsed HOCON document. */
export async function nodeConfigFromHocon(root: RawObject, options: NodeConfigOptions = {}): Promise<NodeConfig> {
  const { protocol, chain, consensusType } = await blockchainFromConfig(root, { requireSignedGenesis: true });
  const node = new ConfigSection(root, '').section('node');
  const directory = resolve(node.string('directory', join(homedir(), 'node')));
  const ownerText = node.string('owner-address', '', { allowEmpty: true });
  if (ownerText.trim() === '') fail(node.at('owner-address'), 'required: the address of the node owner (its key must be in the keystore)');
  let ownerAddress: Address;
  try {
    ownerAddress = protocol.addresses.parseAddress(ownerText.trim());
  } catch (e) {
    if (e instanceof WeError) fail(node.at('owner-address'), e.message);
    throw e;
  }
  const wallet = node.section('wallet');
  const network = readNetwork(node);
  const anchoring = await readAnchoring(node);
  const dataDirectory = resolve(node.string('data-directory', join(directory, 'data')));
  return {
    source: options.source ?? null,
    node: {
      directory,
      dataDirectory,
      ownerAddress,
      ownerPassword: ownerPasswordFromEnv(options.env ?? {}),
      wallet: {
        file: resolve(wallet.string('file', join(directory, 'wallet', 'wallet.dat'))),
        password: wallet.string('password', DEFAULTS.walletPassword, { allowEmpty: true }),
      },
      loggingLevel: node.choice('logging-level', ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const, DEFAULTS.loggingLevel),
      ...(node.has('crypto.verifier-threads') ? { verifierThreads: node.int('crypto.verifier-threads', undefined, { min: 0, max: MAX_VERIFIER_THREADS }) } : {}),
      ...(node.has('confidential-contracts.data-directory') ? { confidentialDataDirectory: resolve(node.string('confidential-contracts.data-directory')) } : {}),
    },
    chain,
    consensusType,
    miner: readMiner(node),
    utx: readUtx(node),
    api: readApi(node, network.mode === 'watcher'),
    network,
    features: readFeatures(node),
    privacy: readPrivacy(node),
    // Only a config with a `confidential-contracts` section carries them (absent: WE's defaults).
    ...(node.has('confidential-contracts') ? { confidentialContracts: readConfidentialContracts(node) } : {}),
    metrics: readMetrics(node),
    ...(anchoring === undefined ? {} : { anchoring }),
    pki: readPki(node, chain.crypto, network.tls !== undefined),
    licences: readLicences(node, protocol.crypto),
    // Only a config that names contract settings carries them (absent: the defaults, engine off).
    ...(['contracts', 'docker-engine', 'wasm', 'api.grpc'].some((key) => node.has(key)) ? { contracts: readContracts(node, dataDirectory) } : {}),
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
