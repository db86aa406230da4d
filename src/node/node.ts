/**
 * One running node, built from a NodeConfig: the composition root. `Node.start` reads top
 * to bottom as the order things start — the chain on its store, the keys, the pool, the
 * miner, the P2P network, PKI and licences, anchoring, the REST API, mining — and `stop()` closes what started in
 * reverse. What the API asks of the node lives in services/ (one module per use case),
 * assembled by api-services.ts. No module-level state: two nodes can live in one process.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { ApiServices } from '../api/services.js';
import { createApiServer, listen } from '../api/server.js';
import { Blockchain } from '../chain/blockchain.js';
import { ChainFeatures } from '../chain/features.js';
import { peerChainOf } from '../chain/peer-chain.js';
import { ScriptVerifier } from '../chain/scripts/verifier.js';
import { UtxPool } from '../chain/utx.js';
import { Miner } from '../consensus/miner.js';
import { consensusRulesFor } from '../consensus/rules.js';
import { encodeBase58 } from '../crypto/encoding.js';
import { SignatureVerifierPool } from '../crypto/verify-pool.js';
import { NodeNetwork } from '../network/node-network.js';
import { Protocol } from '../protocol/protocol.js';
import { Store } from '../state/store.js';
import { anchoringHealthChecks, createNodeAnchoring } from './anchoring-wiring.js';
import { apiServices, type NodeParts } from './api-services.js';
import type { NodeConfig } from './config.js';
import { watchFeatures } from './feature-watch.js';
import { NodeHealth } from './health.js';
import { Keystore } from './keystore.js';
import { levelOfPino, NODE_LOGGERS, NodeLoggers } from './logging.js';
import { startNodeLicences } from './licences-wiring.js';
import { startNodePki } from './pki-wiring.js';
import { LiquidBlockTracker } from './services/liquid-block.js';
import { transactionsService } from './services/transactions.js';
import { WE_PROTOCOL_VERSION } from './version.js';

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

const systemClock = (): bigint => BigInt(Date.now());

/** What has started, in order: closed in reverse. */
class Started {
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

export class Node {
  private stopping: Promise<void> | undefined;
  private apiServicesCache: ApiServices | undefined;
  private restUrl: string | undefined;

  private constructor(
    private readonly parts: NodeParts,
    private readonly started: Started,
  ) {}

  /** Opens the store (applying genesis on first start), joins the network, serves REST and starts mining. */
  static async start(config: NodeConfig, options: NodeOptions = {}): Promise<Node> {
    const loggers =
      options.logger !== undefined
        ? new NodeLoggers(options.logger, levelOfPino(options.logger.level), NODE_LOGGERS)
        : new NodeLoggers(pino({ base: undefined }), config.node.loggingLevel, NODE_LOGGERS);
    const log = loggers.get('node');
    const started = new Started();
    // A stop asked from inside (POST /node/stop, an unsupported feature) reaches the node once it exists.
    const late: { node?: Node } = {};
    const requestStop = (): void => {
      // After the answer that asked for it has gone out.
      setImmediate(() => {
        void (late.node?.stop() ?? started.closeAll(log))
          .catch((e: unknown) => log.error({ err: e }, 'stopping the node failed'))
          .finally(() => options.onStopRequested?.());
      });
    };
    try {
      const now = options.now ?? systemClock;

      // The chain on its store: genesis applied on first start, pre-activated and voted features, consensus rules, the script verifier.
      const protocol = await Protocol.create({ crypto: config.chain.crypto, chainId: config.chain.chainId });
      const scripts = await ScriptVerifier.create(protocol);
      mkdirSync(config.node.dataDirectory, { recursive: true });
      const store = started.add('store', Store.open(join(config.node.dataDirectory, 'state'), protocol), (s) => s.close());
      const features = new ChainFeatures(config.chain.functionality, store);
      const rules = consensusRulesFor(config.chain, features, store);
      const chain = new Blockchain({ store, protocol, settings: config.chain, features, consensus: rules, txExpireTimeoutMs: config.utx.txExpireTimeoutMs, now, scripts });
      started.add('chain log', logChainEvents(chain, loggers.get('chain')), (unsubscribe) => unsubscribe());
      started.add('feature watch', watchFeatures({ chain, features, autoShutdown: config.features.autoShutdownOnUnsupportedFeature, log, requestStop }), (unsubscribe) => unsubscribe());
      chain.ensureGenesis();
      const liquid = new LiquidBlockTracker(chain);
      log.info({ height: chain.height(), chainId: config.chain.chainId, owner: config.node.ownerAddress.toString() }, 'chain opened');

      // The node owner's keys.
      const keystore = Keystore.open(config.node.wallet.file, protocol.addresses);
      const owner = keystore.keyPair(config.node.ownerAddress.toString(), config.node.ownerPassword);

      // The pool, its signatures checked on worker threads.
      const verifier = started.add('verifier threads', await SignatureVerifierPool.start(config.chain.crypto, undefined, protocol.crypto), (v) => v.close());
      const poolLog = loggers.get('pool');
      const pool = new UtxPool({
        chain,
        settings: config.utx,
        now,
        verifier,
        onDrop: (tx, reason) => poolLog.debug({ id: tx.idBase58, reason: reason.message }, 'transaction dropped from the pool'),
        onReturned: (returned, offered) => poolLog.info({ returned, offered }, 'transactions of rolled-back blocks returned to the pool'),
      });

      // The miner, asking the network for its quorum before it forges (the network starts next).
      const p2p: { network?: NodeNetwork } = {};
      const waitForNetwork = config.miner.quorum > 0 && config.network.port !== 0;
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
            canForge: () => (p2p.network !== undefined ? p2p.network.forgingBlocker() : waitForNetwork ? { reason: 'the P2P network is not up yet', retryInMs: 100 } : undefined),
          })
        : undefined;

      // The P2P network (none when node.network.port is 0).
      if (config.network.port !== 0) {
        const network = await NodeNetwork.start({
          protocol,
          chain: peerChainOf(chain),
          pool,
          owner,
          settings: config.network,
          consensusType: config.chain.consensus.type === 'poa' ? 'PoA' : 'PoS',
          version: WE_PROTOCOL_VERSION,
          quorum: config.miner.quorum,
          noQuorumMiningDelayMs: config.miner.noQuorumMiningDelayMs,
          now,
          log: loggers.get('network'),
        });
        p2p.network = started.add('network', network, (n) => n.close());
      }

      // PKI of a GOST network (certificate store, CRLs, chain validation) and the node's licences.
      const pki = startNodePki({ config, protocol, chain, keystore, now });
      if (pki !== undefined) started.add('PKI', pki, (p) => p.close());
      const licences = startNodeLicences({ config, suite: protocol.crypto, chain, now, log, mining: miner, stopNode: requestStop });

      // How a transaction the node itself sends goes out: admitted to the pool, the miner woken, the peers told.
      const transactions = transactionsService({
        pool,
        ...(miner === undefined ? {} : { wakeMiner: () => miner.wake() }),
        ...(p2p.network === undefined ? {} : { announce: (tx) => p2p.network?.broadcastTransaction(tx) }),
      });

      // Anchoring into a target network (node.anchoring), started once the node serves.
      const anchoring = await createNodeAnchoring({ config, protocol, chain, store, pool, owner, transactions, now, log: loggers.get('anchoring') });

      const systemNow = options.systemNow ?? systemClock;
      const consensus = config.chain.consensus;
      const health = new NodeHealth({
        tip: () => ({ height: chain.height(), timestamp: chain.headerAt(chain.height()).timestamp }),
        readStore: () => void store.height(),
        dataDirectory: config.node.dataDirectory,
        blockIntervalMs: consensus.type === 'poa' ? consensus.roundDurationMs + consensus.syncDurationMs : consensus.averageBlockDelayMs,
        maxBlockSizeInBytes: config.miner.maxBlockSizeInBytes,
        clock: systemNow,
        external: anchoringHealthChecks(anchoring),
        log: loggers.get('health'),
      });
      const node = new Node(
        { config, protocol, store, chain, rules, features, pool, transactions, keystore, owner, miner, network: p2p.network, pki: pki?.service, licences, loggers, health, liquid, now, systemNow, requestStop, log },
        started,
      );
      late.node = node;

      // The REST API.
      if (config.api.enabled) {
        const api = started.add('REST API', createApiServer(node.services(), { loggerInstance: loggers.get('api') }), (a) => a.close());
        node.restUrl = await listen(api, config.api);
        log.info({ url: node.restUrl }, 'REST API listening');
      }

      // Mining, and anchoring.
      if (miner !== undefined) started.add('miner', miner, (m) => m.stop()).start();
      licences.check();
      if (anchoring !== undefined) started.add('anchoring', anchoring, (a) => a.stop()).start();
      return node;
    } catch (e) {
      // Nothing half-running: a node that cannot start (a port taken, a wrong password) closes what it opened.
      await started.closeAll(log);
      throw e;
    }
  }

  get config(): NodeConfig {
    return this.parts.config;
  }

  get log(): Logger {
    return this.parts.log;
  }

  get protocol(): Protocol {
    return this.parts.protocol;
  }

  get store(): Store {
    return this.parts.store;
  }

  get chain(): Blockchain {
    return this.parts.chain;
  }

  get pool(): UtxPool {
    return this.parts.pool;
  }

  get keystore(): Keystore {
    return this.parts.keystore;
  }

  get owner(): NodeParts['owner'] {
    return this.parts.owner;
  }

  get miner(): Miner | undefined {
    return this.parts.miner;
  }

  /** The P2P network (undefined when `node.network.port` is 0). */
  get network(): NodeNetwork | undefined {
    return this.parts.network;
  }

  get url(): string | undefined {
    return this.restUrl;
  }

  /** What the HTTP layer may call. */
  services(): ApiServices {
    this.apiServicesCache ??= apiServices(this.parts, () => this.stopping === undefined);
    return this.apiServicesCache;
  }

  /** Stops what started, in reverse: mining, serving, the network, the verifier threads, the store. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.started.closeAll(this.parts.log);
      this.parts.log.info({}, 'node stopped');
    })();
    return this.stopping;
  }
}

/** Logs each chain change; returns the unsubscribe function. */
function logChainEvents(chain: Blockchain, log: Logger): () => void {
  return chain.on((event) => {
    if (event.kind === 'block') log.info({ height: event.height, id: event.block.idBase58, generator: event.block.generatorAddress }, 'block appended');
    if (event.kind === 'micro-block') log.debug({ height: event.height, id: encodeBase58(event.microBlock.totalLiquidBlockSig), transactions: event.transactions.length }, 'micro-block appended');
    if (event.kind === 'rollback') log.info({ height: event.height, returned: event.removed.length, origin: event.origin }, 'rolled back');
  });
}
