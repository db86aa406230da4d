/**
 * The ApiServices the HTTP layer calls, assembled from a running node's parts: each use
 * case is its own module in services/, built from the few parts it needs.
 */
import type { Logger } from 'pino';
import type { ApiServices, PoolService, SyncProgress } from '../api/services.js';
import type { Admission } from '../chain/admission.js';
import type { Blockchain } from '../chain/blockchain.js';
import type { ChainFeatures } from '../chain/features.js';
import type { UtxPool } from '../chain/utx.js';
import type { Miner } from '../consensus/miner.js';
import type { PoaRules, PosRules } from '../consensus/rules.js';
import type { KeyPair } from '../crypto/suite.js';
import type { LicenceService } from '../licences/licence-service.js';
import type { NodeNetwork } from '../network/node-network.js';
import type { PkiService } from '../pki/pki-service.js';
import type { PrivacyApi } from '../privacy/service.js';
import type { Protocol } from '../protocol/protocol.js';
import type { Store } from '../state/store.js';
import type { GrpcEndpoint } from '../contracts/grpc/endpoint.js';
import type { NodeConfig } from './config.js';
import type { NodeHealth } from './health.js';
import type { Keystore } from '../keystore/keystore.js';
import type { NodeLoggers } from './logging.js';
import { contractsService } from '../contracts/service.js';
import type { NodeContracts } from './contracts-wiring.js';
import type { ConfidentialContractsApi } from '../contracts/confidential/service.js';
import type { ExecutionStatusBook } from '../contracts/statuses.js';
import type { NodeMetrics } from './metrics.js';
import { adminService } from './services/admin.js';
import { chainReader, stateHistory } from './services/chain-reads.js';
import { activationService, consensusService } from './services/consensus.js';
import { debugService } from './services/debug.js';
import type { LiquidBlockTracker } from './services/liquid-block.js';
import { nodeControlService } from './services/node-control.js';
import { peersService } from './services/peers.js';
import { walletService } from './services/wallet.js';
import { tipFinality } from '../consensus/cft.js';

/** The parts of a running node (node.ts builds them in this order). */
export interface NodeParts {
  readonly config: NodeConfig;
  readonly log: Logger;
  readonly loggers: NodeLoggers;
  readonly protocol: Protocol;
  readonly store: Store;
  readonly chain: Blockchain;
  readonly rules: PoaRules | PosRules;
  readonly features: ChainFeatures;
  readonly pool: UtxPool;
  /** The chain's one door into the pool (chain/admission.ts). */
  readonly admission: Admission;
  /** A client's transaction through the admission; the pool's contents (services/transactions.ts). */
  readonly transactions: PoolService;
  readonly keystore: Keystore;
  readonly owner: KeyPair;
  readonly miner: Miner | undefined;
  /** Undefined when `node.network.port` is 0. */
  readonly network: NodeNetwork | undefined;
  /** PKI of a GOST network; undefined on a WAVES network. */
  readonly pki: PkiService | undefined;
  readonly licences: LicenceService;
  /** Confidential data (`/privacy/*`). */
  readonly privacy: PrivacyApi;
  /** Prometheus metrics; undefined when `node.metrics.enable` or the REST API is off. */
  readonly metrics: NodeMetrics | undefined;
  readonly health: NodeHealth;
  readonly liquid: LiquidBlockTracker;
  /** Confidential contract calls and reads (`/confidential-contracts/*`). */
  readonly confidentialContracts?: ConfidentialContractsApi;
  /** The contract engine; undefined when contract execution is off (`node.contracts.enable`). */
  readonly contracts?: NodeContracts;
  /** The node's gRPC port (grpc-wiring.ts); absent when nothing is served on it. */
  readonly grpc?: GrpcEndpoint;
  /** Execution statuses this node recorded or took from its peers (every node keeps them). */
  readonly contractStatuses?: ExecutionStatusBook;
  /** Node time (ms). */
  readonly now: () => bigint;
  /** The machine's clock (ms). */
  readonly systemNow: () => bigint;
  /** Stops the node after the current answers (and exits the process when run from the CLI). */
  readonly requestStop: () => void;
}

/** A running catch-up from a peer, as `/node/status` and `/debug/info` show it. */
export function syncProgress(network: NodeNetwork | undefined): SyncProgress | undefined {
  const s = network?.syncStatus();
  if (s === undefined || !s.syncing || s.peer === undefined) return undefined;
  return {
    peer: s.peer,
    targetScore: (s.targetScore ?? s.bestPeerScore ?? 0n).toString(),
    localScore: s.localScore.toString(),
    blocksApplied: s.blocksApplied,
  };
}

/** `running`: false once the node is stopping (its miner then counts as disabled). */
export function apiServices(parts: NodeParts, running: () => boolean): ApiServices {
  const { config, protocol, store, chain, pool, keystore, miner, network, now } = parts;
  const progress = (): SyncProgress | undefined => syncProgress(network);
  return {
    protocol,
    settings: config.api,
    chain: chainReader({ chain, store }),
    pool: parts.transactions,
    wallet: walletService(keystore),
    admin: adminService(chain),
    history: stateHistory({ chain, store }),
    node: nodeControlService({
      config,
      loggers: parts.loggers,
      health: parts.health,
      systemClock: parts.systemNow,
      requestStop: parts.requestStop,
      syncProgress: progress,
      ...(config.chain.consensus.type === 'cft' ? { finality: () => tipFinality(chain.height(), chain.lastBlock().consensus) } : {}),
    }),
    debug: debugService({
      config,
      protocol,
      store,
      chain,
      pool,
      admission: parts.admission,
      rules: parts.rules,
      keystore,
      ownerPublicKey: parts.owner.publicKey,
      mining: () => miner !== undefined && running(),
      liquid: parts.liquid,
      now,
      syncProgress: progress,
      loaderStats: () => network?.loaderStats(),
      ...(parts.contracts === undefined ? {} : { contractAuthToken: (contractId: Uint8Array) => parts.contracts!.readOnlyToken(contractId) }),
    }),
    consensus: consensusService({ settings: config.chain.consensus, rules: parts.rules, chain, store }),
    activation: activationService(parts.features, () => chain.height(), config.features),
    ...(network === undefined ? {} : { peers: peersService(network) }),
    ...(parts.pki === undefined ? {} : { pki: parts.pki }),
    licences: parts.licences,
    privacy: parts.privacy,
    ...(parts.confidentialContracts === undefined ? {} : { confidentialContracts: parts.confidentialContracts }),
    // Contract state is the chain's on every node; statuses are the engine's where one runs.
    contracts: contractsService(() => chain.state(), parts.contractStatuses ?? parts.contracts?.engine.statuses),
    ...(parts.metrics === undefined ? {} : { metrics: parts.metrics.service() }),
    nodeOwnerPublicKey: parts.owner.publicKey,
    now,
  };
}
