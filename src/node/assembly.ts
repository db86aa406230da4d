/**
 * The steps `Node.start` takes, one function each, in the order a node starts: the chain on
 * its store, the keys, the pool with its verifier threads, the miner, the P2P network and
 * the health checks. Each registers what it opened with `started`, so a start that fails
 * half-way, and `Node.stop`, close it in reverse.
 */
import type { ConfidentialExecution } from '../contracts/confidential/execution.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Blockchain } from '../chain/blockchain.js';
import { ChainFeatures, FEATURE } from '../chain/features.js';
import { Admission, type CertificatePolicy } from '../chain/admission.js';
import { peerChainOf, peerPoolOf } from '../chain/peer-chain.js';
import { ScriptVerifier } from '../chain/scripts/verifier.js';
import { UtxPool } from '../chain/utx.js';
import { Miner, type CftMining, type MicroBlockContracts } from '../consensus/miner.js';
import { ContractMining } from '../contracts/mining.js';
import { contractValidation, type ContractValidation } from '../contracts/contract-validation.js';
import { contractNodeContext, nodePrivatePaths, startNodeContracts, type NodeContracts } from './contracts-wiring.js';
import type { GrpcEndpoint } from '../contracts/grpc/endpoint.js';
import type { ExecutionStatusBook } from '../contracts/statuses.js';
import { VoteBook } from '../consensus/cft.js';
import { followTopBlock } from '../consensus/cft/follow-chain.js';
import { CftRules, consensusRulesFor, type PoaRules, type PosRules } from '../consensus/rules.js';
import { encodeBase58 } from '../crypto/encoding.js';
import { gostBackend } from '../crypto/gost-native.js';
import type { KeyPair } from '../crypto/suite.js';
import { SignatureVerifierPool } from '../crypto/verify-pool.js';
import { NodeNetwork } from '../network/node-network.js';
import { Protocol } from '../protocol/protocol.js';
import { Store } from '../state/store.js';
import type { NodeConfig } from './config.js';
import { watchFeatures } from './feature-watch.js';
import { NodeHealth, type ExternalCheck } from './health.js';
import { Keystore } from '../keystore/keystore.js';
import type { NodeLoggers } from './logging.js';
import type { NodeMetrics } from './metrics.js';
import { LiquidBlockTracker } from './services/liquid-block.js';
import type { ExternalServiceName } from '../api/services.js';
import { WE_PROTOCOL_VERSION } from './version.js';
import { contractMetrics } from './subsystem-metrics.js';

/** What has started, in order: closed in reverse. */
export class Started {
  private readonly parts: Array<{ readonly name: string; readonly close: () => unknown }> = [];

  add<T>(name: string, part: T, close: (part: T) => unknown): T {
    this.parts.push({ name, close: () => close(part) });
    return part;
  }

  async closeAll(log: Logger): Promise<void> {
    for (const part of this.parts.splice(0).reverse()) {
      try {
        await part.close();
      } catch (e) {
        log.error({ err: e, part: part.name }, 'closing failed');
      }
    }
  }
}

/** What every step gets. */
export interface StartContext {
  readonly config: NodeConfig;
  readonly started: Started;
  readonly loggers: NodeLoggers;
  /** Node time, ms. */
  readonly now: () => bigint;
  /** Stops the node from inside (an unsupported feature active, a stop asked over the API). */
  readonly requestStop: () => void;
  /** Prometheus metrics (`node.metrics`); undefined when off. Each step hands its part to them. */
  readonly metrics: NodeMetrics | undefined;
}

export interface ChainParts {
  readonly protocol: Protocol;
  readonly store: Store;
  readonly features: ChainFeatures;
  readonly rules: PoaRules | PosRules;
  readonly chain: Blockchain;
  readonly liquid: LiquidBlockTracker;
  /** CFT: the validators' votes for the top block, from peers and this node's voter; undefined under PoA and PoS. */
  readonly votes: VoteBook | undefined;
}

/** The chain on its store: genesis applied on first start, pre-activated and voted features, consensus rules, the script verifier; its changes logged and watched. */
export async function openChain(ctx: StartContext): Promise<ChainParts> {
  const { config, started, loggers, now } = ctx;
  const protocol = await Protocol.create({ crypto: config.chain.crypto, chainId: config.chain.chainId });
  const scripts = await ScriptVerifier.create(protocol);
  mkdirSync(config.node.dataDirectory, { recursive: true });
  const store = started.add('store', Store.open(join(config.node.dataDirectory, 'state'), protocol), (s) => s.close());
  const features = new ChainFeatures(config.chain.functionality, store);
  const rules = consensusRulesFor(config.chain, features, store);
  const chain = new Blockchain({
    store,
    protocol,
    settings: config.chain,
    features,
    consensus: rules,
    txExpireTimeoutMs: config.utx.txExpireTimeoutMs,
    now,
    scripts,
  });
  started.add('chain log', logChainEvents(chain, loggers.get('chain')), (unsubscribe) => unsubscribe());
  const log = loggers.get('node');
  started.add(
    'feature watch',
    watchFeatures({ chain, features, autoShutdown: config.features.autoShutdownOnUnsupportedFeature, log, requestStop: ctx.requestStop }),
    (unsubscribe) => unsubscribe(),
  );
  ctx.metrics?.watchChain(chain, config.chain.consensus.type);
  ctx.metrics?.watchDataDirectory(config.node.dataDirectory);
  chain.ensureGenesis();
  const liquid = new LiquidBlockTracker(chain);
  let votes: VoteBook | undefined;
  if (rules instanceof CftRules) {
    votes = new VoteBook(protocol);
    started.add('vote book', followTopBlock(votes, chain, rules), (stop) => stop());
  }
  log.info({ height: chain.height(), chainId: config.chain.chainId, owner: config.node.ownerAddress.toString() }, 'chain opened');
  // Which GOST implementation signs, verifies, hashes and encrypts (WEFT_GOST_ENGINE; docs/gost.md).
  if (config.chain.crypto === 'gost') log.info({ implementation: gostBackend().description }, 'GOST crypto');
  return { protocol, store, features, rules, chain, liquid, votes };
}

/** The node's keystore and its owner's keys (the owner's password from the config; a wrong one stops the start). */
export function openKeys(config: NodeConfig, protocol: Protocol): { readonly keystore: Keystore; readonly owner: KeyPair } {
  const keystore = Keystore.open(config.node.wallet.file, protocol.addresses);
  return { keystore, owner: keystore.keyPair(config.node.ownerAddress.toString(), config.node.ownerPassword) };
}

/**
 * The pool and the chain's admission in front of it (with the PKI's certificate policy on a
 * GOST network), signatures checked on the verifier threads (`node.crypto.verifier-threads`;
 * none: on the event loop).
 */
export async function startPool(
  ctx: StartContext,
  { protocol, chain }: ChainParts,
  certificates: CertificatePolicy | undefined,
): Promise<{ readonly pool: UtxPool; readonly admission: Admission; readonly verifier: SignatureVerifierPool }> {
  const verifier = ctx.started.add(
    'verifier threads',
    await SignatureVerifierPool.start(ctx.config.chain.crypto, ctx.config.node.verifierThreads, protocol.crypto),
    (v) => v.close(),
  );
  const log = ctx.loggers.get('pool');
  // How many run (0: the event loop verifies), as started — an operator sizing a shared machine reads it here.
  log.info({ threads: verifier.size }, 'signature verifier threads started');
  const pool = new UtxPool({
    chain,
    settings: ctx.config.utx,
    now: ctx.now,
    verifier,
    onDrop: (tx, reason) => log.debug({ id: tx.idBase58, reason: reason.message }, 'transaction dropped from the pool'),
    onReturned: (returned, offered) => log.info({ returned, offered }, 'transactions of rolled-back blocks returned to the pool'),
    ...ctx.metrics?.poolCallbacks,
  });
  ctx.metrics?.watchPool(pool, ctx.config.utx.memoryLimitBytes);
  const admission = new Admission({
    chain,
    pool,
    now: ctx.now,
    verifier,
    ...(certificates === undefined ? {} : { certificates }),
    ...ctx.metrics?.poolCallbacks,
  });
  return { pool, admission, verifier };
}

/**
 * What follows a transaction the chain's admission took from a client or from this node: the
 * miner looks at the pool again and the peers hear of it (peers' own are relayed by the
 * network in its batches). Returns the function that stops it.
 */
export function followAdmissions(admission: Admission, miner: Miner | undefined, network: NodeNetwork | undefined): () => void {
  return admission.onAdmitted((tx, origin) => {
    if (origin === 'network') return;
    miner?.wake();
    network?.broadcastTransaction(tx);
  });
}

/**
 * The miner (undefined when `miner.enable` is off). It asks the network for WE's quorum of
 * connected miners before it forges; the network starts after it, hence `network()`.
 */
export function buildMiner(
  ctx: StartContext,
  { chain, rules, votes }: ChainParts,
  pool: UtxPool,
  owner: KeyPair,
  network: () => NodeNetwork | undefined,
  contracts?: MicroBlockContracts,
): Miner | undefined {
  const { config } = ctx;
  if (!config.miner.enabled) return undefined;
  const waitForNetwork = config.miner.quorum > 0 && config.network.port !== 0;
  const consensus = config.chain.consensus;
  // CFT: the voter and the tip's miner work on the chain's vote book; votes go to the peers, the vote micro-block announces itself.
  const cft: CftMining | undefined =
    consensus.type !== 'cft' || votes === undefined
      ? undefined
      : {
          settings: {
            finalizationTimeoutMs: consensus.finalizationTimeoutMs,
            fullVoteSetTimeoutMs: consensus.fullVoteSetTimeoutMs,
            maxValidators: consensus.maxValidators,
          },
          votes: {
            offer: (vote) => votes.offer(vote),
            votesFor: (hash) => votes.votesFor(hash),
            subscribe: (listener) => votes.onVote((_hash, vote) => listener(vote)),
          },
          broadcastVote: (vote) => void network()?.broadcastVote(vote),
          appendVoteMicroBlock: (held) =>
            void chain.appendOwnVoteMicroBlock(held, owner.privateKey, chain.features.isActive(FEATURE.PARALLEL_LIQUID_BLOCK, chain.height())),
        };
  return new Miner({
    chain,
    pool,
    rules,
    settings: config.miner,
    keyPair: owner,
    now: ctx.now,
    log: ctx.loggers.get('miner'),
    featureSupport: config.features,
    minimalBlockGenerationOffsetMs: config.miner.minimalBlockGenerationOffsetMs,
    canForge: () => {
      const up = network();
      if (up !== undefined) return up.forgingBlocker();
      return waitForNetwork ? { reason: 'the P2P network is not up yet', retryInMs: 100 } : undefined;
    },
    ...(contracts === undefined ? {} : { contracts }),
    ...(cft === undefined ? {} : { cft }),
  });
}

/**
 * The contract engine when `node.contracts.enable` (or `docker-engine.enable`) is on, over the
 * chain's state, and what the miner executes contracts with; closed after the miner stops.
 */
export async function startContracts(
  ctx: StartContext,
  { protocol, chain }: ChainParts,
  pool: UtxPool,
  keystore: Keystore,
  owner: KeyPair,
  statuses?: ExecutionStatusBook,
  confidential?: ConfidentialExecution,
  endpoint?: GrpcEndpoint,
): Promise<{ node: NodeContracts; mining: ContractMining; validation: ContractValidation } | undefined> {
  const { config } = ctx;
  const log = ctx.loggers.get('contracts');
  const contracts = await startNodeContracts({
    settings: config.contracts,
    dataDirectory: config.node.dataDirectory,
    protocol,
    ownerKey: owner,
    now: ctx.now,
    currentState: () => chain.state(),
    chain,
    walletAddresses: () => keystore.addresses(),
    log,
    auth: config.api.auth,
    privatePaths: nodePrivatePaths(config),
    ...(statuses === undefined ? {} : { statuses }),
    ...(endpoint === undefined ? {} : { endpoint }),
  });
  if (contracts === undefined) return undefined;
  ctx.started.add('contract engine', contracts, (c) => c.close());
  const { engine } = contracts;
  const nodeContext = contractNodeContext({ chain, walletAddresses: () => keystore.addresses(), now: ctx.now });
  const validation = contractValidation({
    chain,
    pool,
    engine,
    owner,
    now: ctx.now,
    node: nodeContext,
    log,
    ...(confidential === undefined ? {} : { confidential }),
  });
  const mining = new ContractMining({
    chain,
    pool,
    executor: engine.executor,
    statuses: engine.statuses,
    minerKey: owner,
    node: nodeContext,
    now: ctx.now,
    log,
    ...(ctx.metrics === undefined ? {} : { observer: contractMetrics(ctx.metrics) }),
    validation: validation.gate,
    ...(confidential === undefined ? {} : { confidential }),
    ...(config.contracts?.maxFailedExecutions === undefined ? {} : { maxFailedExecutions: config.contracts.maxFailedExecutions }),
  });
  // A miner starts a contract's process or container as its first call enters the pool, not when the call's round comes.
  if (config.miner.enabled)
    ctx.started.add(
      'contract warm-up',
      pool.onAdmission((tx) => mining.warmUp(tx)),
      (stop) => void stop(),
    );
  return { node: contracts, mining, validation };
}

/** The consensus name the handshake carries: WE's ConsensusType.toString. */
const HANDSHAKE_CONSENSUS = { poa: 'PoA', pos: 'PoS', cft: 'CFT' } as const;

/**
 * The P2P network (undefined when `node.network.port` is 0). Peers' transactions go through
 * the chain's admission; with PKI in mode TEST/ON, the certificates of peers' blocks are kept
 * only under the rules of a broadcast's certificates too.
 */
export async function startNetwork(
  ctx: StartContext,
  { protocol, chain, votes }: ChainParts,
  admission: Admission,
  owner: KeyPair,
  certificates: CertificatePolicy | undefined,
  verifier?: SignatureVerifierPool,
): Promise<NodeNetwork | undefined> {
  const { config } = ctx;
  if (config.network.port === 0) return undefined;
  const network = await NodeNetwork.start({
    protocol,
    chain: peerChainOf(chain),
    pool: peerPoolOf(admission),
    owner,
    settings: config.network,
    consensusType: HANDSHAKE_CONSENSUS[config.chain.consensus.type],
    version: WE_PROTOCOL_VERSION,
    mode: config.network.mode,
    quorum: config.miner.quorum,
    noQuorumMiningDelayMs: config.miner.noQuorumMiningDelayMs,
    now: ctx.now,
    log: ctx.loggers.get('network'),
    microBlockLog: ctx.loggers.get('network.micro-blocks'),
    ...(ctx.metrics === undefined ? {} : { traffic: ctx.metrics.traffic }),
    ...(certificates?.peerProblem === undefined ? {} : { certificatePolicy: certificates.peerProblem }),
    // CFT: peers' votes to the book, their signatures on the verifier threads ahead of transactions (a vote is late within a round).
    ...(votes === undefined
      ? {}
      : { votes: { book: votes, ...(verifier === undefined ? {} : { verifyEach: (checks) => verifier.verifyEach(checks, true) }) } }),
  });
  ctx.metrics?.watchNetwork(network);
  return ctx.started.add('network', network, (n) => n.close());
}

/** The health checks of `/node/status` and `/node/healthcheck`, with the external services the node runs. */
export function nodeHealth(
  ctx: StartContext,
  { chain, store }: ChainParts,
  systemNow: () => bigint,
  external: Partial<Record<ExternalServiceName, ExternalCheck>>,
): NodeHealth {
  const { config } = ctx;
  const consensus = config.chain.consensus;
  return new NodeHealth({
    tip: () => ({ height: chain.height(), timestamp: chain.headerAt(chain.height()).timestamp }),
    readStore: () => void store.height(),
    dataDirectory: config.node.dataDirectory,
    blockIntervalMs: consensus.type === 'pos' ? consensus.averageBlockDelayMs : consensus.roundDurationMs + consensus.syncDurationMs,
    maxBlockSizeInBytes: config.miner.maxBlockSizeInBytes,
    clock: systemNow,
    external,
    log: ctx.loggers.get('health'),
  });
}

/** Logs each chain change; returns the unsubscribe function. */
function logChainEvents(chain: Blockchain, log: Logger): () => void {
  return chain.on((event) => {
    if (event.kind === 'block') log.info({ height: event.height, id: event.block.idBase58, generator: event.block.generatorAddress }, 'block appended');
    if (event.kind === 'micro-block')
      log.debug(
        { height: event.height, id: encodeBase58(event.microBlock.totalLiquidBlockSig), transactions: event.transactions.length },
        'micro-block appended',
      );
    if (event.kind === 'rollback') log.info({ height: event.height, returned: event.removed.length, origin: event.origin }, 'rolled back');
  });
}
