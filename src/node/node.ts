/**
 * One running node, built from a NodeConfig: protocol, store, chain, pool, miner and the
 * REST API, wired together. No module-level state: two nodes can live in one process.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { createApiServer, listen } from '../api/server.js';
import type { ApiServices, ChainReader, PeersService } from '../api/services.js';
import { Blockchain } from '../chain/blockchain.js';
import { ChainFeatures } from '../chain/features.js';
import { minimalFee } from '../chain/fees.js';
import { UtxPool } from '../chain/utx.js';
import { Miner } from '../consensus/miner.js';
import { blockScore, consensusRulesFor, type PoaRules, type PosRules } from '../consensus/rules.js';
import type { KeyPair } from '../crypto/suite.js';
import { SignatureVerifierPool } from '../crypto/verify-pool.js';
import { encodeBase58 } from '../crypto/encoding.js';
import { WeError } from '../protocol/errors.js';
import { NodeNetwork } from '../network/node-network.js';
import { socketAddressText } from '../network/peers.js';
import { Protocol } from '../protocol/protocol.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { Store } from '../state/store.js';
import { k } from '../state/view.js';
import type { NodeConfig } from './config.js';
import { NodeHealth } from './health.js';
import { activationService, consensusService } from './consensus-services.js';
import { Keystore } from './keystore.js';
import { levelOfPino, NODE_LOGGERS, NodeLoggers } from './logging.js';
import { debugService, LiquidBlockTracker, nodeControlService, type NodeApiParts } from './node-api.js';
import { WE_PROTOCOL_VERSION } from './version.js';
import { startPrivacy, type PrivacyWiring } from './privacy-wiring.js';

export interface NodeOptions {
  /** Node time in ms; the system clock by default. */
  readonly now?: () => bigint;
  /** A logger; by default pino at the config's level on stdout. Its modules log through named children (see logging.ts). */
  readonly logger?: Logger;
  /** The machine's clock in ms (`/utils/time` `system`, health check times); the system clock by default. */
  readonly systemNow?: () => bigint;
  /** Called once a stop asked over the API (`POST /node/stop`) has finished; the CLI exits the process there. */
  readonly onStopRequested?: () => void;
}

/** What the node's own REST services need besides the chain parts. */
interface NodeControlParts {
  readonly loggers: NodeLoggers;
  readonly health: NodeHealth;
  readonly liquid: LiquidBlockTracker;
  readonly systemNow: () => bigint;
  readonly onStopRequested: (() => void) | undefined;
}

export class Node {
  private api: FastifyInstance | undefined;
  private restUrl: string | undefined;
  private stopping: Promise<void> | undefined;
  private control: NodeControlParts | undefined;
  private apiParts: NodeApiParts | undefined;
  /** The P2P network; undefined when `node.network.port` is 0. */
  private p2p: NodeNetwork | undefined;
  private privacy: PrivacyWiring | undefined;
  /** The consensus rules and feature activation the chain runs on. */
  private consensusParts: { readonly rules: PoaRules | PosRules; readonly features: ChainFeatures } | undefined;

  private constructor(
    readonly config: NodeConfig,
    readonly protocol: Protocol,
    readonly store: Store,
    readonly chain: Blockchain,
    readonly pool: UtxPool,
    readonly keystore: Keystore,
    readonly owner: KeyPair,
    readonly miner: Miner | undefined,
    private readonly verifier: SignatureVerifierPool,
    readonly log: Logger,
    private readonly now: () => bigint,
  ) {}

  /** Opens the store (applying genesis on first start), starts mining and serves REST. */
  static async start(config: NodeConfig, options: NodeOptions = {}): Promise<Node> {
    const loggers =
      options.logger !== undefined
        ? new NodeLoggers(options.logger, levelOfPino(options.logger.level), NODE_LOGGERS)
        : new NodeLoggers(pino({ base: undefined }), config.node.loggingLevel, NODE_LOGGERS);
    const log = loggers.get('node');
    const now = options.now ?? ((): bigint => BigInt(Date.now()));
    const protocol = await Protocol.create({ crypto: config.chain.crypto, chainId: config.chain.chainId });
    mkdirSync(config.node.dataDirectory, { recursive: true });
    const store = Store.open(join(config.node.dataDirectory, 'state'), protocol);
    // Pre-activated features plus those approved by voting (read from the store).
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
    });
    chain.ensureGenesis();
    const keystore = Keystore.open(config.node.wallet.file, protocol.addresses);
    const owner = keystore.keyPair(config.node.ownerAddress.toString(), config.node.ownerPassword);
    const verifier = await SignatureVerifierPool.start(config.chain.crypto, undefined, protocol.crypto);
    const pool = new UtxPool({
      chain,
      settings: config.utx,
      now,
      verifier,
      onDrop: (tx, reason) => loggers.get('pool').debug({ id: tx.idBase58, reason: reason.message }, 'transaction dropped from the pool'),
    });
    // The network starts after the miner is built; the miner asks it for the quorum when it forges.
    let network: NodeNetwork | undefined;
    const miner = config.miner.enabled
      ? new Miner({
          chain,
          pool,
          rules,
          settings: config.miner,
          keyPair: owner,
          now,
          log: loggers.get('miner'),
          featureSupport: config.features,
          minimalBlockGenerationOffsetMs: config.miner.minimalBlockGenerationOffsetMs,
          canForge: () => (network === undefined ? (config.miner.quorum > 0 && config.network.port !== 0 ? { reason: 'the P2P network is not up yet', retryInMs: 100 } : undefined) : network.forgingBlocker()),
        })
      : undefined;
    const node = new Node(config, protocol, store, chain, pool, keystore, owner, miner, verifier, log, now);
    node.consensusParts = { rules, features };
    const systemNow = options.systemNow ?? ((): bigint => BigInt(Date.now()));
    const consensus = config.chain.consensus;
    node.control = {
      loggers,
      health: new NodeHealth({
        tip: () => ({ height: chain.height(), timestamp: chain.headerAt(chain.height()).timestamp }),
        readStore: () => void store.height(),
        dataDirectory: config.node.dataDirectory,
        blockIntervalMs: consensus.type === 'poa' ? consensus.roundDurationMs + consensus.syncDurationMs : consensus.averageBlockDelayMs,
        maxBlockSizeInBytes: config.miner.maxBlockSizeInBytes,
        clock: systemNow,
        log: loggers.get('health'),
      }),
      liquid: new LiquidBlockTracker(chain),
      systemNow,
      onStopRequested: options.onStopRequested,
    };
    const chainLog = loggers.get('chain');
    chain.on((event) => {
      if (event.kind === 'block') chainLog.info({ height: event.height, id: event.block.idBase58, generator: event.block.generatorAddress }, 'block appended');
      if (event.kind === 'micro-block') chainLog.debug({ height: event.height, id: encodeBase58(event.microBlock.totalLiquidBlockSig), transactions: event.transactions.length }, 'micro-block appended');
      if (event.kind === 'rollback') chainLog.info({ height: event.height, returned: event.removed.length }, 'rolled back');
      if (event.kind === 'block') node.watchFeatures(event.height);
    });
    log.info({ height: chain.height(), chainId: config.chain.chainId, owner: config.node.ownerAddress.toString() }, 'chain opened');
    if (config.network.port !== 0) {
      try {
        network = await NodeNetwork.start({
          protocol,
          chain,
          pool,
          owner,
          settings: config.network,
          consensusType: config.chain.consensus.type === 'poa' ? 'PoA' : 'PoS',
          version: WE_PROTOCOL_VERSION,
          quorum: config.miner.quorum,
          noQuorumMiningDelayMs: config.miner.noQuorumMiningDelayMs,
          now,
          log: loggers.get('network'),
          blockScore,
        });
        node.p2p = network;
      } catch (e) {
        // Nothing half-running: a node that cannot listen for peers stops (e.g. the port is taken).
        await node.stop();
        throw e;
      }
    }
    node.privacy = await startPrivacy({ config, protocol, chain, keystore, log: loggers.get('privacy'), now, broadcast: (tx) => node.services().pool.broadcast(tx) }).catch(async (e: unknown) => {
      await node.stop();
      throw e;
    });
    if (config.api.enabled) {
      node.api = createApiServer(node.services(), { loggerInstance: loggers.get('api') });
      try {
        node.restUrl = await listen(node.api, config.api);
      } catch (e) {
        // Nothing half-running: a node that cannot serve stops (e.g. the port is taken).
        await node.stop();
        throw e;
      }
      log.info({ url: node.restUrl }, 'REST API listening');
    }
    miner?.start();
    return node;
  }

  get url(): string | undefined {
    return this.restUrl;
  }

  /** The P2P network (undefined when `node.network.port` is 0). */
  get network(): NodeNetwork | undefined {
    return this.p2p;
  }

  /** What the HTTP layer may call. */
  services(): ApiServices {
    const { chain, pool, keystore, protocol } = this;
    const reader: ChainReader = {
      height: () => chain.height(),
      blockAt: (h) => chain.blockAt(h),
      blockById: (id) => chain.blockById(id),
      childOf: (id) => chain.childOf(id),
      transaction: (id) => {
        const loc = this.store.transaction(id);
        return loc === undefined ? undefined : { tx: protocol.transactionFromBytes(loc.bytes), height: loc.height };
      },
      addressTransactions: (address, limit, afterId) => this.addressTransactions(address, limit, afterId),
      state: () => chain.state(),
      minimalFee: (tx) => minimalFee(tx, chain.state(), { settings: chain.settings, features: chain.features, height: chain.height() }),
    };
    return {
      protocol,
      settings: this.config.api,
      chain: reader,
      pool: {
        broadcast: async (tx) => {
          const admitted = await pool.broadcast(tx);
          this.miner?.wake();
          this.p2p?.broadcastTransaction(admitted);
          return admitted;
        },
        unconfirmed: () => pool.all(),
        unconfirmedById: (id) => pool.get(id),
        size: () => pool.size(),
      },
      wallet: {
        keyPair: (address, password) => keystore.keyPair(address, password),
        reload: () => keystore.reload(),
        addresses: () => keystore.addresses(),
        publicKey: (address) => keystore.publicKey(address),
      },
      admin: {
        rollback: (height, returnToUtx) => {
          const removed = chain.rollbackTo(height);
          if (!returnToUtx) for (const tx of removed) pool.remove(tx.id);
          return chain.lastBlock().id;
        },
        rollbackTo: (id) => {
          const found = chain.blockById(id);
          if (found === undefined || k(found.block.id) !== k(id)) {
            throw new WeError('BlockDoesNotExist', 301, `block with signature '${encodeBase58(id)}' does not exist`, 'signature', 404);
          }
          const removed = chain.rollbackTo(found.height);
          for (const tx of removed) pool.remove(tx.id);
          return chain.lastBlock().id;
        },
      },
      history: {
        balanceAt: (address, assetId, height) => this.store.balanceAt(address, assetId, height),
        minBalance: (address, from, to) => this.store.minBalance(address, from, to),
        minEffectiveBalance: (address, from, to) => this.store.minEffectiveBalance(address, from, to),
        dataEntries: (address) => this.store.dataEntries(address),
        assetBalances: (holder) => this.store.assetBalances(holder),
        assetHolders: (assetId, after) => this.store.assetHolders(assetId, after),
        minRollbackHeight: () => chain.minRollbackHeight(),
      },
      node: nodeControlService(this.nodeApiParts()),
      debug: debugService(this.nodeApiParts()),
      consensus: consensusService({ settings: this.config.chain.consensus, rules: this.chainConsensus().rules, chain, store: this.store }),
      activation: activationService(this.chainConsensus().features, () => chain.height(), this.config.features),
      ...(this.p2p === undefined ? {} : { peers: peersService(this.p2p) }),
      ...(this.privacy === undefined ? {} : { privacy: this.privacy.api }),
      nodeOwnerPublicKey: this.owner.publicKey,
      now: this.now,
    };
  }

  private chainConsensus(): { readonly rules: PoaRules | PosRules; readonly features: ChainFeatures } {
    if (this.consensusParts === undefined) throw new Error('The node is not started');
    return this.consensusParts;
  }

  /**
   * After a block at `height` (WE's BlockchainUpdaterImpl): logs features the block
   * approved; a feature this node does not implement that is active from `height` stops the
   * node when `features.auto-shutdown-on-unsupported-feature` is on (else it logs: the node
   * will fork off).
   */
  private watchFeatures(height: number): void {
    const { features } = this.chainConsensus();
    const log = this.log;
    if (height % features.functionality.featureCheckBlocksPeriod === 0) {
      const approved = [...features.approved()].filter(([, at]) => at === height).map(([id]) => id);
      if (approved.length > 0) log.info({ height, features: approved }, 'features approved');
    }
    const unimplemented = features.unimplementedActive(height);
    if (unimplemented.length === 0) return;
    if (this.config.features.autoShutdownOnUnsupportedFeature) {
      log.error({ height, features: unimplemented }, 'features this node does not implement are active on the chain: stopping the node');
      if (this.stopping === undefined) {
        setImmediate(() => {
          this.stop()
            .catch((e: unknown) => log.error({ err: e }, 'stopping the node failed'))
            .finally(() => this.control?.onStopRequested?.());
        });
      }
    } else if (unimplemented.some((id) => features.activationHeight(id) === height)) {
      log.error({ height, features: unimplemented }, 'features this node does not implement are active on the chain: this node will end up on a fork');
    }
  }

  /** The parts the `/node` and `/debug` services work on (node-api.ts). */
  private nodeApiParts(): NodeApiParts {
    const control = this.control;
    if (control === undefined) throw new Error('The node is not started');
    this.apiParts ??= {
      config: this.config,
      protocol: this.protocol,
      store: this.store,
      chain: this.chain,
      pool: this.pool,
      keystore: this.keystore,
      ownerPublicKey: this.owner.publicKey,
      mining: () => this.miner !== undefined && this.stopping === undefined,
      loggers: control.loggers,
      health: control.health,
      liquid: control.liquid,
      now: this.now,
      systemClock: control.systemNow,
      syncProgress: () => {
        const s = this.p2p?.syncStatus();
        if (s === undefined || !s.syncing || s.peer === undefined) return undefined;
        return { peer: s.peer, targetScore: (s.targetScore ?? s.bestPeerScore ?? 0n).toString(), localScore: s.localScore.toString(), blocksApplied: s.blocksApplied };
      },
      requestStop: () => {
        // After the answer that asked for it has gone out.
        setImmediate(() => {
          this.stop()
            .catch((e: unknown) => this.log.error({ err: e }, 'stopping the node failed'))
            .finally(() => control.onStopRequested?.());
        });
      },
    };
    return this.apiParts;
  }

  /** Confirmed transactions of an address, newest first, optionally after a given id. */
  private addressTransactions(address: Uint8Array, limit: number, afterId?: Uint8Array): { txs: Array<{ tx: Transaction; height: number }>; afterFound: boolean } {
    const txs: Array<{ tx: Transaction; height: number }> = [];
    let afterFound = afterId === undefined;
    const after = afterId === undefined ? undefined : k(afterId);
    for (const id of this.store.addressTransactionIds(address)) {
      if (!afterFound) {
        if (k(id) === after) afterFound = true;
        continue;
      }
      if (txs.length >= limit) break;
      const loc = this.store.transaction(id);
      if (loc !== undefined) txs.push({ tx: this.protocol.transactionFromBytes(loc.bytes), height: loc.height });
    }
    return { txs, afterFound };
  }

  /** Stops mining and serving, and closes the store. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.miner?.stop();
      if (this.p2p !== undefined) await this.p2p.close();
      if (this.api !== undefined) await this.api.close();
      await this.privacy?.close();
      await this.verifier.close();
      await this.store.close();
      this.log.info({}, 'node stopped');
    })();
    return this.stopping;
  }
}

/** `/peers/*` over the node's network. */
function peersService(network: NodeNetwork): PeersService {
  return {
    connected: () => network.connectedViews(),
    all: () => network.peers.known().map((k) => ({ address: socketAddressText(k.endpoint), lastSeen: BigInt(k.lastSeen) })),
    suspended: () => network.peers.suspended().map((s) => ({ hostname: s.hostname, timestamp: BigInt(s.timestamp) })),
    connect: (host, port) => network.connect(host, port),
    hostname: (owner) => network.hostnameOf(owner),
    rebroadcastPool: () => network.rebroadcastPool(),
  };
}
