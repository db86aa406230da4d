/**
 * What the HTTP layer needs from a node. Route modules call these and nothing else; the
 * node (node/node.ts) implements them over the chain, pool and wallet. Keeping it an
 * interface lets API tests run against a real chain or a small fixture alike.
 */
import type { ConfidentialContractsApi } from '../contracts/confidential/service.js';
import type { KeyPair } from '../crypto/suite.js';
import type { Block, BlockHeaderView } from '../protocol/blocks.js';
import type { JsonObject } from '../protocol/json.js';
import type { Protocol } from '../protocol/protocol.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import type { DataEntry } from '../protocol/transactions/fields.js';
import type { StateView } from '../state/view.js';
import type { ActivationStatus } from '../chain/features.js';
import type { ConsensusSettings } from '../chain/settings.js';
import type { ChainHeaders as PoaChainHeaders, PoaConsensus } from '../consensus/poa.js';
import type { ConnectedPeerView } from '../network/node-network.js';
import type { PkiApi } from '../pki/pki-service.js';
import type { LicenceApi } from '../licences/licence-service.js';
import type { ContractsService } from '../contracts/service.js';
import type { PrivacyApi } from '../privacy/service.js';

export interface BlockAt {
  readonly block: Block;
  readonly height: number;
}

export interface ChainReader {
  /** Current height, counting the liquid block while one exists. */
  height(): number;
  /** The block at a height; for the top height, the liquid block as assembled so far. */
  blockAt(height: number): Block | undefined;
  /** The block at a height as header reads show it, its transactions not decoded (the top height: the liquid block so far). */
  blockHeaderAt(height: number): BlockHeaderView | undefined;
  /** The transactions of the block at a height, decoded one by one as they are iterated (for answers built in slices). */
  blockTransactionsAt(height: number): Iterable<Transaction> | undefined;
  /**
   * A block by id. The id may be a liquid block's intermediate total signature: the
   * block is then assembled up to that micro-block, at the current height.
   */
  blockById(id: Uint8Array): BlockAt | undefined;
  /** The block whose parent is `id`. */
  childOf(id: Uint8Array): Block | undefined;
  /** A confirmed transaction and its height. */
  transaction(id: Uint8Array): { tx: Transaction; height: number } | undefined;
  /** Confirmed transactions involving an address, newest first (liquid block first), after `afterId` if given. */
  addressTransactions(address: Uint8Array, limit: number, afterId?: Uint8Array): { txs: Array<{ tx: Transaction; height: number }>; afterFound: boolean };
  /** Current state (persisted + liquid). */
  state(): StateView;
  /** Minimal fee of a transaction at the next height: WEST, or the sponsored asset's units. */
  minimalFee(tx: Transaction): { feeAssetId: Uint8Array | null; amount: bigint };
}

export interface PoolService {
  /**
   * A client's signed transaction through the chain's admission (chain/admission.ts) with the
   * request's `certificates` value: checked, into the pool (idempotent for a transaction
   * already there) and out to the miner and the peers. Throws a WeError with WE's code on
   * rejection — also after the pool took it, for what WE does not support yet.
   */
  broadcast(tx: Transaction, certificates?: unknown): Promise<Transaction>;
  /** Pool transactions ordered by timestamp. */
  unconfirmed(): readonly Transaction[];
  unconfirmedById(id: Uint8Array): Transaction | undefined;
  size(): { size: number; sizeInBytes: number };
}

export interface WalletService {
  /**
   * The key pair of an address in the node's keystore, its password derived off the event
   * loop (unlocked keys are kept); WE error 115 otherwise, with status 429 after repeated
   * wrong passwords. Every route that takes a keystore password unlocks through it.
   */
  unlock(address: string, password: string | undefined): Promise<KeyPair>;
  /** Re-reads the keystore file. */
  reload(): void;
  /** Addresses in the keystore, in keystore order. */
  addresses(): readonly string[];
  /** Public key of a keystore address (no password needed); WE error 115 when it is not there. */
  publicKey(address: string): Uint8Array;
}

/**
 * State history and indexes beyond StateView (the store's): balances at past heights and
 * over windows, every data entry of an address, asset holders. Heights count the liquid
 * block, as StateView.height() does.
 */
export interface StateHistoryReader {
  /** Balance of an address in WEST (null) or an asset after the block at `height` was applied. */
  balanceAt(address: Uint8Array, assetId: Uint8Array | null, height: number): bigint;
  /** The smallest regular WEST balance in force at any height of [from, to]. */
  minBalance(address: Uint8Array, from: number, to: number): bigint;
  /** The smallest effective WEST balance (regular + lease in − lease out) in force at any height of [from, to]. */
  minEffectiveBalance(address: Uint8Array, from: number, to: number): bigint;
  /** Every data entry of an address (any order). */
  dataEntries(address: Uint8Array): readonly DataEntry[];
  /** Current asset balances of a holder: every asset it ever held (zero balances included), by asset id bytes. */
  assetBalances(holder: Uint8Array): Iterable<{ readonly assetId: Uint8Array; readonly balance: bigint }>;
  /** Every address whose balance of the asset ever changed, in address byte order, strictly after `after` if given. */
  assetHolders(assetId: Uint8Array, after?: Uint8Array): Iterable<Uint8Array>;
  /** The lowest height a rollback may reach (WE's safe-rollback height + 1). */
  minRollbackHeight(): number;
}

/** `/node/status` (WE's NodeStatusResponse): both heights count the liquid block. */
export interface NodeStatus {
  readonly blockchainHeight: number;
  readonly stateHeight: number;
  /** Timestamp of the block at that height. */
  readonly updatedTimestamp: bigint;
  /** The same instant as ISO-8601 (Java's Instant.toString). */
  readonly updatedDate: string;
  /** When the check finished (system clock, ms). */
  readonly lastCheckTimestamp: bigint;
  /** Beyond WE, on a CFT network only: whether the tip (the liquid block) is final. */
  readonly lastBlockFinalized?: boolean;
  /** Beyond WE, on a CFT network only: the height of the last final block (the tip's, or the one below it). */
  readonly lastFinalizedHeight?: number;
  /** Beyond WE: present only while the node catches up from a peer. */
  readonly synchronization?: SyncProgress;
}

/** A running catch-up from a peer (the sync channel). */
export interface SyncProgress {
  /** The peer, `/host:port`. */
  readonly peer: string;
  /** The chain score the peer announced, and this node's (decimal: scores pass 2^64). */
  readonly targetScore: string;
  readonly localScore: string;
  /** Blocks taken from peers' extensions since the node started. */
  readonly blocksApplied: number;
}

/** The external services WE's `/node/healthcheck?service=` knows (its Hyphencase names). */
export type ExternalServiceName = 'docker' | 'privacy-storage' | 'anchoring-auth';

/** Logback's levels as WE's `/node/logging` takes them. */
export type LogLevelName = 'ALL' | 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/** What `/node/config` reports (WE's NodeConfigResponse). */
export interface NodeConfigInfo {
  /** The node's version, e.g. `0.1.0`. */
  readonly version: string;
  /** `WAVES` or `GOST`. */
  readonly cryptoType: string;
  readonly chainId: string;
  /** `POA`, `POS` or `CFT` (WE's consensus type upper-cased). */
  readonly consensus: string;
  /** Minimal fee by transaction type id, at the current height (0 for all when fees are disabled). */
  readonly minimumFee: ReadonlyMap<number, bigint>;
  readonly additionalFee: ReadonlyMap<number, bigint>;
  readonly maxTransactionsInMicroBlock: number;
  readonly minMicroBlockAgeMs: number;
  readonly microBlockIntervalMs: number;
  readonly pkiMode: 'OFF' | 'ON' | 'TEST';
  readonly requiredOids: readonly string[];
  readonly crlChecksEnabled: boolean;
  readonly blockTiming: { readonly roundDurationMs: number; readonly syncDurationMs: number } | { readonly averageBlockDelayMs: number };
}

/** `/anchoring/config` (WE's AnchoringApiService): `enabled` alone when the node does no anchoring. */
export type AnchoringConfig =
  | { readonly enabled: false }
  | {
      readonly enabled: true;
      readonly currentChainOwnerAddress: string;
      readonly targetnetNodeAddress: string;
      readonly targetnetSchemeByte: string;
      readonly targetnetRecipientAddress: string;
      readonly targetnetFee: bigint;
      readonly currentChainFee: bigint;
      readonly heightRange: number;
      readonly heightAbove: number;
      readonly threshold: number;
    };

/** The node itself: identity, settings, health, logging, lifecycle (`/node/*`, `/utils/time`, `/anchoring/config`). */
export interface NodeControlService {
  /** `/node/version`: the agent name in WE's form, e.g. `Weft v0.1.0`. */
  readonly agentName: string;
  config(): NodeConfigInfo;
  /** Runs the node's health checks; WE's 640 (503) with the reason when one fails. */
  status(): Promise<NodeStatus>;
  /** Checks an external service: 637 (404) when the node has none configured, 640 (503) when its check fails. */
  externalStatus(service: ExternalServiceName): Promise<void>;
  /** Every logger with its effective level, the root (`ROOT`) first, then by name. */
  loggers(): ReadonlyArray<{ readonly name: string; readonly level: LogLevelName | 'OFF' }>;
  /** Sets a logger's level at runtime (`ROOT` sets every logger without a level of its own). */
  setLoggerLevel(logger: string, level: LogLevelName): void;
  /** Stops the node once the current answers are sent (the process then exits, as WE's does). */
  stop(): void;
  /** The machine's clock, ms (WE's `/utils/time` `system`; `now()` is the node time, `NTP`). */
  systemTime(): bigint;
  anchoring(): AnchoringConfig;
}

/** A holder's WEST, lease and asset balances (WE's Portfolio). */
export interface Portfolio {
  readonly balance: bigint;
  readonly lease: { readonly in: bigint; readonly out: bigint };
  readonly assets: ReadonlyArray<{ readonly assetId: Uint8Array; readonly balance: bigint }>;
}

/** `/debug/info` (WE's field names; the network parts describe this node's block and micro-block loaders). */
export interface DebugInfo {
  readonly stateHeight: number;
  readonly extensionLoaderState: string;
  readonly historyReplierCacheSizes: { readonly blocks: number; readonly microBlocks: number };
  /** The micro-block loader's caches (WE's MicroBlockLoaderStorage.CacheSizes); absent without a P2P network. */
  readonly microBlockSynchronizerCacheSizes?: { readonly microBlockOwners: number; readonly inventories: number; readonly successfullyReceived: number };
  /** WE's ScoreObserver stats; absent without a P2P network. */
  readonly scoreObserverStats?: { readonly localScore: bigint; readonly currentBestChannel: string; readonly scoresCacheSize: number };
  /** `mining blocks`, `mining microblocks`, `disabled` or `error: …`. */
  readonly minerState: string;
}

/** What the `/debug/*` routes read beyond the chain (admin). */
export interface DebugService {
  /** Validates a signed transaction against the current state (fee, signature, the family's rules), pool left aside; throws WE's error. */
  validate(tx: Transaction): void;
  info(): DebugInfo;
  /** Keystore accounts without a script: mining balance (effective over 1000 blocks) and when the miner next looks for a slot. */
  minerInfo(): ReadonlyArray<{ readonly address: string; readonly miningBalance: bigint; readonly timestamp: bigint }>;
  /** Ids of the last 10 blocks below the liquid one (newest first) and the liquid block's micro-block ids (newest first). */
  historyInfo(): { readonly lastBlockIds: readonly Uint8Array[]; readonly microBlockIds: readonly Uint8Array[] };
  /** The node's settings in WE's HOCON layout, as JSON: `{"node": {...}}`. `full` adds what lies outside `node` (nothing in Weft). */
  configInfo(full: boolean): JsonObject;
  /** A holder's balances; with `considerUnspent`, lowered by what pool transactions would take from it (WE's pessimistic portfolio). */
  portfolio(address: Uint8Array, considerUnspent: boolean): Portfolio;
  /** Every address with a positive WEST balance after the block at `height` (the current state when `height` ≥ the current height). */
  westDistribution(height: number): Iterable<{ readonly address: Uint8Array; readonly balance: bigint }>;
  /** A token for a contract's read-only gRPC calls, valid 365 days (WE's createGrpcAuth); undefined when the node runs no contract engine. */
  contractAuthToken(contractId: Uint8Array): Promise<string | undefined>;
}

export interface AdminService {
  /** Rolls back to `height` (the block there becomes the tip); returns the new tip's id. */
  rollback(height: number, returnTransactionsToUtx: boolean): Uint8Array;
  /** Rolls back to the block with this id, without returning transactions to the pool. */
  rollbackTo(id: Uint8Array): Uint8Array;
}

export type AuthMode =
  | { readonly type: 'api-key'; readonly apiKeyHash: Uint8Array; readonly privacyApiKeyHash: Uint8Array; readonly confidentialContractsApiKeyHash: Uint8Array }
  | { readonly type: 'oauth2'; readonly publicKeyPem: string };

/** How many REST connections a node keeps and how long it waits on each (`node.api.rest`). */
export interface RestConnectionLimits {
  /** `max-connections`: sockets beyond this many open ones are closed on arrival. */
  readonly maxConnections: number;
  /** `header-timeout`: a request whose headers are not all in by then is answered 408 and closed. */
  readonly headerTimeoutMs: number;
  /**
   * `request-timeout`: a request body must be complete or bring at least 1 MiB more within each
   * such window, else it is answered 408 and closed (a trickled body is cut; a large upload that
   * keeps flowing is not).
   */
  readonly requestTimeoutMs: number;
  /** `idle-timeout`: a socket silent this long (nothing received or sent) is closed. */
  readonly idleTimeoutMs: number;
}

export interface ApiSettings {
  readonly bindAddress: string;
  readonly port: number;
  readonly cors: boolean;
  /**
   * `node.api.rest.cors-allowed-origins`: the browser origins CORS answers for, each echoed
   * back with credentials allowed. Empty or absent: `*` for any origin, never with credentials.
   */
  readonly corsAllowedOrigins?: readonly string[];
  /** Connection cap and timeouts of the REST server (absent: DEFAULT_REST_CONNECTION_LIMITS of api/connection-limits.ts). */
  readonly connectionLimits?: RestConnectionLimits;
  readonly auth: AuthMode;
  readonly transactionsByAddressLimit: number;
  /** `node.api.rest.distribution-address-limit`: asset distribution pages hold fewer holders than this. */
  readonly distributionAddressLimit: number;
  /** `node.network.mode = watcher`: no transaction submission (638). */
  readonly watcher: boolean;
  /** `node.crypto.pki.mode` (absent: OFF). ON makes the routes flagged `unavailableInPkiMode` answer WE's error (rule PKI-1). */
  readonly pkiMode?: 'OFF' | 'ON' | 'TEST';
}

/** What the `/consensus/*` routes read: the chain's consensus, its settings and PoS/PoA facts. */
export interface ConsensusService {
  /** `node.blockchain.consensus` (type and parameters). */
  readonly settings: ConsensusSettings;
  /** The PoA rules (miner queue, bans) when the chain runs PoA. */
  readonly poa: PoaConsensus | undefined;
  /** Header facts of the stored blocks (heights 1 … height, the liquid block counted). */
  readonly headers: PoaChainHeaders;
  /** WE's generating balance: the least effective WEST balance over the 1000 blocks up to `height`. */
  generatingBalance(address: Uint8Array, height: number): bigint;
  /** The chain score: the sum of every block's score. */
  chainScore(): bigint;
}

/** A connected peer as `/peers/connected` shows it (WE's PeerInfo): the network layer's view of it. */
export type ConnectedPeerInfo = ConnectedPeerView;

/** The node's P2P network, as `/peers/*` and `/debug/utx-rebroadcast` see it. */
export interface PeersService {
  connected(): readonly ConnectedPeerInfo[];
  /** Known peer addresses (`/ip:port`) with when each was last seen (ms), at most 1000. */
  all(): ReadonlyArray<{ readonly address: string; readonly lastSeen: bigint }>;
  /** Suspended hosts (`/ip`) with when they were suspended (ms), at most 1000. */
  suspended(): ReadonlyArray<{ readonly hostname: string; readonly timestamp: bigint }>;
  /**
   * Starts connecting to a peer (the attempt goes on in the background). Resolves the host
   * first: an unknown host is WE error 199. Answers the host name as WE shows it.
   */
  connect(host: string, port: number): Promise<{ readonly hostname: string }>;
  /** Host name and IP of the connection to a node owner; undefined when not connected. */
  hostname(ownerAddress: Uint8Array): Promise<{ readonly hostname: string; readonly ip: string } | undefined>;
  /** Sends every pool transaction to the peers again; returns how many were sent. */
  rebroadcastPool(): number;
}

/** `/activation/status`. */
export interface ActivationService {
  status(): ActivationStatus;
}

/**
 * The node's Prometheus exposition (`node.metrics`), served on the REST port at `path`. Absent
 * from ApiServices when the node runs without metrics.
 */
export interface MetricsService {
  /** Where it is served, e.g. `/metrics`. */
  readonly path: string;
  /** Whether a scrape needs the admin credentials (`X-API-Key`, or an OAuth2 token with the admin role). */
  readonly protected: boolean;
  /** The exposition as of now: Prometheus text and its content type. */
  scrape(): Promise<{ readonly contentType: string; readonly text: string }>;
}

export interface ApiServices {
  readonly protocol: Protocol;
  readonly settings: ApiSettings;
  readonly chain: ChainReader;
  readonly pool: PoolService;
  readonly wallet: WalletService;
  readonly admin: AdminService;
  readonly history: StateHistoryReader;
  readonly node: NodeControlService;
  readonly debug: DebugService;
  readonly consensus: ConsensusService;
  readonly activation: ActivationService;
  /**
   * The P2P network; absent when the node runs none (`node.network.port = 0`): it then has no
   * peers, and `POST /peers/connect` is refused.
   */
  readonly peers?: PeersService;
  /** PKI (`/pki/*`, the `certificates` of broadcasts): present on GOST networks only (rule PKI-2). */
  readonly pki?: PkiApi;
  /** The node's licences (`/licenses/*`). */
  readonly licences?: LicenceApi;
  /** Contract state and execution statuses (`/contracts/*`). */
  readonly contracts: ContractsService;
  /** Confidential contract calls and reads (`/confidential-contracts/*`); absent on a node built without them (the routes are then not served). */
  readonly confidentialContracts?: ConfidentialContractsApi;
  /** Confidential data (`/privacy/*`); absent on a node built without it (the routes then answer 613). */
  readonly privacy?: PrivacyApi;
  /** Prometheus metrics (`node.metrics`); absent when they are off. */
  readonly metrics?: MetricsService;
  /** Public key of the node owner: `/transactions/calculateFee` builds its estimate as this account, as WE does. */
  readonly nodeOwnerPublicKey: Uint8Array;
  /** Node time in ms (NTP-corrected in WE). */
  now(): bigint;
}
