/**
 * The settings a node runs on, written back in WE's HOCON layout as JSON — what WE's
 * `/debug/configInfo` shows (its resolved config rendered as JSON). Every value is the
 * effective one, defaults included: durations as HOCON duration strings (`"4s"`, `"2h"`),
 * memory sizes in bytes, amounts in units, keys and addresses in Base58.
 *
 * Secrets are shown as WE shows them: the API key hashes (never the keys), the
 * `wallet.password` setting (which protects nothing in Weft's keystore, see config.ts) and
 * the anchoring section as configured (it is admin-only, as all of `/debug`). The owner's
 * keystore password is not part of the config and never appears.
 */
import { encodeBase58, encodeBase64 } from '../crypto/encoding.js';
import { PKI_OFF, type PkiSettings } from '../pki/settings.js';
import { FEE_NAMES } from '../chain/settings.js';
import type { JsonValue } from '../protocol/json.js';
import type { AnchoringSettings } from '../anchoring/settings.js';
import type { PrivacySettings, PrivacyStorageSettings } from '../privacy/settings.js';
import type { DataCacheSettings, InventoryHandlerSettings, ReplicationSynchronizerSettings } from '../replication/settings.js';
import type { ConfidentialContractsSettings } from '../contracts/confidential/settings.js';
import type { ContractsSettings } from '../contracts/settings.js';
import type { NodeConfig, PeerAddress } from './config.js';
import { DEFAULT_REST_CONNECTION_LIMITS } from '../api/connection-limits.js';
import type { RestConnectionLimits } from '../api/services.js';

type JsonMap = { [key: string]: JsonValue };

const UNITS: ReadonlyArray<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/** A duration in HOCON form: the largest unit that divides it (`"4s"`, `"5m"`), else milliseconds. */
export function durationText(ms: number): string {
  if (ms === 0) return '0ms';
  for (const [unit, size] of UNITS) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

const peer = (p: PeerAddress): string => (p.host.includes(':') ? `[${p.host}]:${p.port}` : `${p.host}:${p.port}`);

function feeMap(fees: ReadonlyMap<number, bigint>): JsonMap {
  const out: JsonMap = {};
  for (const [type, amount] of [...fees].sort(([a], [b]) => a - b)) out[FEE_NAMES.get(type) ?? String(type)] = amount;
  return out;
}

/** `node.anchoring` in WE's keys (Weft's `retry-delay` and `height-poll-interval` too); `enable = false` when off. */
function connectionLimitsSection(l: RestConnectionLimits): JsonMap {
  return {
    'max-connections': l.maxConnections,
    'header-timeout': durationText(l.headerTimeoutMs),
    'request-timeout': durationText(l.requestTimeoutMs),
    'idle-timeout': durationText(l.idleTimeoutMs),
  };
}

function anchoringSection(a: AnchoringSettings | undefined): JsonMap {
  if (a === undefined) return { enable: false };
  const t = a.targetnet;
  const auth: JsonMap =
    t.auth.type === 'api-key'
      ? { type: 'api-key' }
      : { type: 'oauth2', 'authorization-token': t.auth.authorizationToken, 'authorization-service-url': t.auth.authorizationServiceUrl, 'token-update-interval': durationText(t.auth.tokenUpdateIntervalMs) };
  return {
    enable: true,
    'height-condition': { range: a.heightRange, above: a.heightAbove },
    threshold: a.threshold,
    targetnet: {
      auth,
      'scheme-byte': t.schemeByte,
      'node-address': t.nodeAddress,
      'node-recipient-address': t.nodeRecipientAddress,
      ...(t.privateKeyPassword === undefined ? {} : { 'private-key-password': t.privateKeyPassword }),
      wallet: { file: t.wallet.file, password: t.wallet.password },
      fee: t.fee,
    },
    'sidechain-fee': a.sidechainFee,
    'tx-mining-check-delay': durationText(a.txMiningCheckDelayMs),
    'tx-mining-check-count': a.txMiningCheckCount,
    'retry-delay': durationText(a.retryDelayMs),
    'height-poll-interval': durationText(a.heightPollIntervalMs),
  };
}

/** `node.crypto.pki` in WE's layout. */
function pkiSection(pki: PkiSettings): JsonMap {
  return {
    mode: pki.mode,
    'required-oids': [...pki.requiredOids],
    'crl-checks-enabled': pki.crlChecksEnabled,
    'crl-sync-manager-settings': { period: durationText(pki.crlSyncPeriodMs) },
  };
}

/** `blockchain.custom.genesis.pki`, absent when the genesis has none. */
function genesisPki(pki: PkiSettings): JsonMap | undefined {
  const g = pki.genesis;
  if (g.trustedRootFingerprints.length === 0 && g.certificates.length === 0 && g.crls.length === 0) return undefined;
  return {
    'trusted-root-fingerprints': g.trustedRootFingerprints.map((f) => Buffer.from(f).toString('hex')),
    certificates: g.certificates.map((c) => encodeBase64(c.der)),
    crls: g.crls.map((c) => ({ publicKeyBase58: encodeBase58(c.issuerPublicKey), cdp: c.cdp, crl: encodeBase64(c.crl.der) })),
  };
}

function privacyStorage(s: PrivacyStorageSettings): JsonMap {
  switch (s.vendor) {
    case 'none':
      return { vendor: 'none' };
    case 'embedded':
      return { vendor: 'embedded', ...(s.directory === undefined ? {} : { directory: s.directory }) };
    case 'postgres':
      return {
        vendor: 'postgres',
        schema: s.schema,
        'upload-chunk-size': s.uploadChunkSize,
        'jdbc-config': {
          url: s.url,
          ...(s.user === undefined ? {} : { user: s.user }),
          ...(s.password === undefined ? {} : { password: s.password }),
          connectionTimeout: durationText(s.connectionTimeoutMs),
          numThreads: s.poolSize,
        },
      };
    case 's3':
      return {
        vendor: 's3',
        url: s.url,
        bucket: s.bucket,
        region: s.region,
        'access-key-id': s.accessKeyId,
        'secret-access-key': s.secretAccessKey,
        'path-style-access-enabled': s.pathStyleAccessEnabled,
        'connection-timeout': durationText(s.connectionTimeoutMs),
        'connection-acquisition-timeout': durationText(s.connectionAcquisitionTimeoutMs),
        'max-concurrency': s.maxConcurrency,
        'read-timeout': durationText(s.readTimeoutMs),
        'upload-chunk-size': s.uploadChunkSize,
      };
  }
}

/** `node.contracts`, `node.docker-engine` and `node.wasm` (config.ts readContracts reads them back). */
/** `node.api.grpc`: where the gRPC server listens and the cap on contract status event streams. */
function contractsGrpcHocon(g: ContractsSettings['grpc']): JsonMap {
  return {
    'bind-address': g.bindAddress,
    port: g.port,
    ...(g.contractStatusMaxConnections === undefined && g.contractStatusMaxConnectionsPerChannel === undefined
      ? {}
      : {
          services: {
            'contract-status-events': {
              ...(g.contractStatusMaxConnections === undefined ? {} : { 'max-connections': g.contractStatusMaxConnections }),
              ...(g.contractStatusMaxConnectionsPerChannel === undefined ? {} : { 'max-connections-per-channel': g.contractStatusMaxConnectionsPerChannel }),
            },
          },
        }),
  };
}

function contractSections(c: ContractsSettings): JsonMap {
  const e = c.dockerEngine;
  return {
    contracts: {
      enable: c.enable,
      'package-cache-directory': c.packageCacheDirectory,
      ...(c.maxInFlight === undefined ? {} : { 'max-in-flight': c.maxInFlight }),
      ...(c.instances === undefined ? {} : { instances: c.instances }),
      ...(c.isolateNetwork === undefined ? {} : { 'isolate-network': c.isolateNetwork }),
      ...(c.firstUserId === undefined ? {} : { 'first-user-id': c.firstUserId }),
      ...(c.maxFailedExecutions === undefined ? {} : { 'max-failed-executions': c.maxFailedExecutions }),
      packages: c.packages.map((p) => ({
        image: p.image,
        runtime: p.runtime,
        ...(p.source === undefined ? {} : { source: p.source }),
        ...(p.command === undefined ? {} : { command: [...p.command] }),
        env: { ...p.env },
        ...(p.maxInFlight === undefined ? {} : { 'max-in-flight': p.maxInFlight }),
        ...(p.instances === undefined ? {} : { instances: p.instances }),
        ...(p.isolateNetwork === undefined ? {} : { 'isolate-network': p.isolateNetwork }),
      })),
    },
    'docker-engine': {
      enable: e.enable,
      ...(e.dockerHost === undefined ? {} : { 'docker-host': e.dockerHost }),
      'contracts-parallelism': e.contractsParallelism,
      'execution-limits': {
        'startup-timeout': durationText(e.executionLimits.startupTimeoutMs),
        timeout: durationText(e.executionLimits.timeoutMs),
        memory: e.executionLimits.memoryMb,
        'memory-swap': e.executionLimits.memorySwapMb,
      },
      'remove-container-after': durationText(e.removeContainerAfterMs),
      'remote-registries': e.remoteRegistries.map((r) => ({ domain: r.domain, username: r.username, password: r.password })),
      ...(e.defaultRegistryDomain === undefined ? {} : { 'default-registry-domain': e.defaultRegistryDomain }),
      'contract-auth-expires-in': durationText(e.contractAuthExpiresInMs),
      'grpc-server': { ...(e.grpcServer.host === undefined ? {} : { host: e.grpcServer.host }), port: e.grpcServer.port },
      'remove-container-on-fail': e.removeContainerOnFail,
      'contract-execution-messages-cache': {
        'max-size': e.executionMessagesCache.maxSize,
        'expire-after': durationText(e.executionMessagesCache.expireAfterMs),
        'utx-cleanup-interval': durationText(e.executionMessagesCache.utxCleanupIntervalMs),
        'contract-error-quorum': e.executionMessagesCache.contractErrorQuorum,
        'ignore-successful': e.executionMessagesCache.ignoreSuccessful,
      },
    },
    wasm: {
      'fuel-limit': c.wasmFuelLimit,
      ...(c.wasmExecution === undefined
        ? {}
        : { 'execution-timeout': durationText(c.wasmExecution.timeoutMs), 'memory-limit': c.wasmExecution.memoryLimitBytes, threads: c.wasmExecution.threads }),
    },
  };
}

/** The synchronizer keys `node.privacy` and `node.confidential-contracts` share. */
function synchronizerSection(sy: ReplicationSynchronizerSettings): JsonMap {
  return {
    'request-timeout': durationText(sy.requestTimeoutMs),
    'init-retry-delay': durationText(sy.initRetryDelayMs),
    'inventory-stream-timeout': durationText(sy.inventoryStreamTimeoutMs),
    'inventory-request-delay': durationText(sy.inventoryRequestDelayMs),
    'inventory-timestamp-threshold': durationText(sy.inventoryTimestampThresholdMs),
    'crawling-parallelism': sy.crawlingParallelism,
    'max-attempt-count': sy.maxAttemptCount,
    'lost-data-processing-delay': durationText(sy.lostDataProcessingDelayMs),
    'failed-peers-cache-size': sy.failedPeersCacheSize,
    'failed-peers-cache-expire-timeout': durationText(sy.failedPeersCacheExpireTimeoutMs),
  };
}

function inventoryHandlerSection(inv: InventoryHandlerSettings): JsonMap {
  return {
    'max-buffer-time': durationText(inv.maxBufferTimeMs),
    'max-buffer-size': inv.maxBufferSize,
    'max-cache-size': inv.maxCacheSize,
    'expiration-time': durationText(inv.expirationTimeMs),
    'replier-parallelism': inv.replierParallelism,
  };
}

const cacheSection = (c: DataCacheSettings): JsonMap => ({ 'max-size': c.maxSize, 'expire-after': durationText(c.expireAfterMs) });

/** `node.confidential-contracts`: its data directory (when set) and replication blocks. */
function confidentialContractsSection(directory: string | undefined, c: ConfidentialContractsSettings | undefined): JsonMap {
  return {
    ...(directory === undefined ? {} : { 'data-directory': directory }),
    ...(c === undefined
      ? {}
      : { replier: { parallelism: c.replier.parallelism }, cache: cacheSection(c.cache), 'inventory-handler': inventoryHandlerSection(c.inventoryHandler), synchronizer: synchronizerSection(c.synchronizer) }),
  };
}

/** `node.privacy`. */
function privacySection(p: PrivacySettings): JsonMap {
  const { replier: r, synchronizer: sy, inventoryHandler: inv } = p;
  return {
    storage: privacyStorage(p.storage),
    replier: {
      parallelism: r.parallelism,
      'stream-timeout': durationText(r.streamTimeoutMs),
      'stream-chunk-size': r.streamChunkSize,
      'stream-max-peers-fullness-percentage': r.streamMaxPeersFullnessPercentage,
    },
    synchronizer: { ...synchronizerSection(sy), 'network-stream-buffer-size': sy.networkStreamBufferSize },
    'inventory-handler': inventoryHandlerSection(inv),
    cache: cacheSection(p.cache),
    service: { 'request-buffer-size': p.service.requestBufferSize, 'meta-data-accumulation-timeout': durationText(p.service.metaDataAccumulationTimeoutMs) },
  };
}

/** `{"node": {...}}`: the node's settings in WE's key layout. */
export function renderNodeConfig(config: NodeConfig): { node: JsonMap } {
  const { node, chain, miner, utx, api, network, features } = config;
  const pki = config.pki ?? { ...PKI_OFF, mode: api.pkiMode ?? 'OFF' };
  const g = chain.genesis;
  const consensus: JsonMap =
    chain.consensus.type === 'poa'
      ? {
          type: 'poa',
          'round-duration': durationText(chain.consensus.roundDurationMs),
          'sync-duration': durationText(chain.consensus.syncDurationMs),
          'ban-duration-blocks': chain.consensus.banDurationBlocks,
          'warnings-for-ban': chain.consensus.warningsForBan,
          'max-bans-percentage': chain.consensus.maxBansPercentage,
        }
      : { type: 'pos' };
  const genesis: JsonMap = {
    type: 'plain',
    version: g.version,
    'block-timestamp': g.blockTimestamp,
    'initial-balance': g.initialBalance,
    'initial-base-target': g.initialBaseTarget,
    ...(chain.consensus.type === 'pos' ? { 'average-block-delay': durationText(chain.consensus.averageBlockDelayMs) } : {}),
    'genesis-public-key-base-58': g.genesisPublicKey === null ? '' : encodeBase58(g.genesisPublicKey),
    signature: g.signature === null ? '' : encodeBase58(g.signature),
    'sender-role-enabled': g.senderRoleEnabled,
    transactions: g.transactions.map((t) => ({ recipient: t.recipient.toString(), amount: t.amount })),
    'network-participants': g.networkParticipants.map((p) => ({ 'public-key': encodeBase58(p.publicKey), roles: [...p.roles] })),
  };
  const gPki = genesisPki(pki);
  if (gPki !== undefined) genesis['pki'] = gPki;
  const preActivated: JsonMap = {};
  for (const [id, height] of [...chain.functionality.preActivatedFeatures].sort(([a], [b]) => a - b)) preActivated[String(id)] = height;
  const auth: JsonMap =
    api.auth.type === 'api-key'
      ? {
          type: 'api-key',
          'api-key-hash': encodeBase58(api.auth.apiKeyHash),
          'privacy-api-key-hash': encodeBase58(api.auth.privacyApiKeyHash),
          'confidential-contracts-api-key-hash': encodeBase58(api.auth.confidentialContractsApiKeyHash),
        }
      : { type: 'oauth2', 'public-key': api.auth.publicKeyPem.replace(/-----[A-Z ]+-----|\s/g, '') };
  return {
    node: {
      directory: node.directory,
      'data-directory': node.dataDirectory,
      'owner-address': node.ownerAddress.toString(),
      'logging-level': node.loggingLevel,
      ...(node.confidentialDataDirectory === undefined && config.confidentialContracts === undefined
        ? {}
        : { 'confidential-contracts': confidentialContractsSection(node.confidentialDataDirectory, config.confidentialContracts) }),
      wallet: { file: node.wallet.file, password: node.wallet.password },
      crypto: { type: chain.crypto === 'gost' ? 'GOST' : 'WAVES', pki: pkiSection(pki), ...(node.verifierThreads === undefined ? {} : { 'verifier-threads': node.verifierThreads }) },
      ...(pki.tspServer === undefined ? {} : { pki: { 'tsp-server': pki.tspServer } }),
      licenses: { issuers: (config.licences?.issuers ?? []).map((k) => encodeBase58(k)), 'on-expiry': config.licences?.onExpiry ?? 'report' },
      blockchain: {
        type: 'CUSTOM',
        consensus,
        custom: {
          'address-scheme-character': chain.chainId,
          functionality: {
            'feature-check-blocks-period': chain.functionality.featureCheckBlocksPeriod,
            'blocks-for-feature-activation': chain.functionality.blocksForFeatureActivation,
            'pre-activated-features': preActivated,
          },
          genesis,
        },
        fees: { enabled: chain.fees.enabled, base: feeMap(chain.fees.base), additional: feeMap(chain.fees.additional) },
      },
      'additional-cache': { rocksdb: { 'max-rollback-depth': chain.maxRollbackDepth } },
      features: {
        'auto-support-implemented-features': features.autoSupportImplementedFeatures,
        'auto-shutdown-on-unsupported-feature': features.autoShutdownOnUnsupportedFeature,
        supported: [...features.supported],
      },
      miner: {
        enable: miner.enabled,
        quorum: miner.quorum,
        'interval-after-last-block-then-generation-is-allowed': durationText(miner.intervalAfterLastBlockThenGenerationIsAllowedMs),
        'no-quorum-mining-delay': durationText(miner.noQuorumMiningDelayMs),
        'micro-block-interval': durationText(miner.microBlockIntervalMs),
        'minimal-block-generation-offset': durationText(miner.minimalBlockGenerationOffsetMs),
        'max-block-size-in-bytes': miner.maxBlockSizeInBytes,
        'max-transactions-in-micro-block': miner.maxTransactionsInMicroBlock,
        'min-micro-block-age': durationText(miner.minMicroBlockAgeMs),
        'pulling-buffer-size': miner.pullingBufferSize,
        'utx-check-delay': durationText(miner.utxCheckDelayMs),
      },
      utx: {
        'memory-limit': utx.memoryLimitBytes,
        'cleanup-interval': durationText(utx.cleanupIntervalMs),
        'allow-transactions-from-smart-accounts': utx.allowTransactionsFromSmartAccounts,
        'tx-expire-timeout': durationText(utx.txExpireTimeoutMs),
        'rebroadcast-threshold': durationText(utx.rebroadcastThresholdMs),
        'rebroadcast-interval': durationText(utx.rebroadcastIntervalMs),
      },
      api: {
        rest: {
          enable: api.enabled,
          'bind-address': api.bindAddress,
          port: api.port,
          cors: api.cors,
          'cors-allowed-origins': [...(api.corsAllowedOrigins ?? [])],
          ...connectionLimitsSection(api.connectionLimits ?? DEFAULT_REST_CONNECTION_LIMITS),
          'transactions-by-address-limit': api.transactionsByAddressLimit,
          'distribution-address-limit': api.distributionAddressLimit,
        },
        auth,
        ...(config.contracts === undefined ? {} : { grpc: contractsGrpcHocon(config.contracts.grpc) }),
      },
      anchoring: anchoringSection(config.anchoring),
      metrics: { enable: config.metrics.enabled, path: config.metrics.path, protected: config.metrics.protected },
      network: {
        'bind-address': network.bindAddress,
        port: network.port,
        ...(network.declaredAddress === undefined ? {} : { 'declared-address': peer(network.declaredAddress) }),
        ...(network.nodeName === undefined ? {} : { 'node-name': network.nodeName }),
        ...(network.nonce === undefined ? {} : { nonce: network.nonce }),
        'known-peers': network.knownPeers.map(peer),
        mode: network.mode,
        'max-simultaneous-connections': network.maxSimultaneousConnections,
        'handshake-timeout': durationText(network.handshakeTimeoutMs),
        'connection-timeout': durationText(network.connectionTimeoutMs),
        'break-idle-connections-timeout': durationText(network.breakIdleConnectionsTimeoutMs),
        'attempt-connection-delay': durationText(network.attemptConnectionDelayMs),
        'peers-request-interval': durationText(network.peersRequestIntervalMs),
        'enable-peers-exchange': network.enablePeersExchange,
        'received-txs-cache-timeout': durationText(network.receivedTxsCacheTimeoutMs),
        'tx-buffer-size': network.txBufferSize,
        'peers-data-residence-time': durationText(network.peersDataResidenceTimeMs),
        'suspension-residence-time': durationText(network.suspensionResidenceTimeMs),
        ...(network.tls === undefined
          ? {}
          : { tls: { enable: true, 'key-file': network.tls.keyFile, 'cert-file': network.tls.certFile, ...(network.tls.caFile === undefined ? {} : { 'ca-file': network.tls.caFile }) } }),
      },
      ...(config.privacy === undefined ? {} : { privacy: privacySection(config.privacy) }),
      ...(config.contracts === undefined ? {} : contractSections(config.contracts)),
    },
  };
}
