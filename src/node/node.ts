/**
 * One running node, built from a NodeConfig: the composition root. `Node.start` reads top
 * to bottom as the order things start — the metrics, the chain on its store, the keys, PKI, the pool and
 * the chain's admission, the contract engine, the miner, the P2P network, licences, confidential data, anchoring, the REST API, mining — each step a
 * function of assembly.ts; `stop()` closes what started in reverse. What the API asks of
 * the node lives in services/ (one module per use case), assembled by api-services.ts. No
 * module-level state: two nodes can live in one process.
 */
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { ApiServices } from '../api/services.js';
import { createApiServer, listen } from '../api/server.js';
import type { Admission } from '../chain/admission.js';
import type { Blockchain } from '../chain/blockchain.js';
import type { UtxPool } from '../chain/utx.js';
import type { Miner } from '../consensus/miner.js';
import type { NodeNetwork } from '../network/node-network.js';
import type { Protocol } from '../protocol/protocol.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import type { Store } from '../state/store.js';
import { anchoringHealthChecks, createNodeAnchoring } from './anchoring-wiring.js';
import { NodeConfidentialContracts } from './confidential-wiring.js';
import { apiServices, type NodeParts } from './api-services.js';
import { cleanUpErroredExecutables, contractsHealthChecks, contractStatusBook, gossipContractStatuses, statusCacheSettings } from './contracts-wiring.js';
import {
  buildMiner,
  followAdmissions,
  nodeHealth,
  openChain,
  openKeys,
  Started,
  startContracts,
  startNetwork,
  startPool,
  type StartContext,
} from './assembly.js';
import { openGrpcEndpoint, servePublicGrpc } from './grpc-wiring.js';
import type { NodeConfig } from './config.js';
import type { Keystore } from '../keystore/keystore.js';
import { startNodeLicences } from './licences-wiring.js';
import { levelOfPino, NODE_LOGGERS, NodeLoggers } from './logging.js';
import { NodeMetrics } from './metrics.js';
import { certificatePolicyOf, startNodePki } from './pki-wiring.js';
import { privacyHealthChecks, startPrivacy } from './privacy-wiring.js';
import { transactionsService } from './services/transactions.js';

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
    const now = options.now ?? systemClock;
    // Prometheus metrics (node.metrics), served on the REST port: none without it. Each step below reports to them.
    const metrics =
      config.metrics.enabled && config.api.enabled ? started.add('metrics', new NodeMetrics({ settings: config.metrics, now }), (m) => m.close()) : undefined;
    const ctx: StartContext = { config, started, loggers, now, requestStop, metrics };
    try {
      const chainParts = await openChain(ctx);
      const { protocol, store, chain } = chainParts;
      const { keystore, owner } = openKeys(config, protocol);
      const pki = startNodePki({ config, protocol, chain, keystore, now });
      const certificates = certificatePolicyOf(pki);
      const { pool, admission, verifier } = await startPool(ctx, chainParts, certificates);
      // Execution statuses: kept on every node, its own and its peers' (gossiped once the network is up).
      const contractStatuses = contractStatusBook({ settings: config.contracts, dataDirectory: config.node.dataDirectory, protocol, ownerKey: owner, now });
      // Confidential contracts: their off-chain inputs and outputs, executed by the miner, replicated once the network is up.
      const confidential = started.add(
        'confidential contracts',
        new NodeConfidentialContracts({
          directory: config.node.confidentialDataDirectory ?? join(config.node.dataDirectory, 'confidential-data'),
          protocol,
          chain,
          owner,
          log: loggers.get('contracts'),
          ...(config.confidentialContracts === undefined ? {} : { settings: config.confidentialContracts }),
        }),
        (c) => c.close(),
      );
      const grpcEndpoint = await openGrpcEndpoint(ctx);
      const contracts = await startContracts(ctx, chainParts, pool, keystore, owner, contractStatuses, confidential.execution, grpcEndpoint);
      const p2p: { network?: NodeNetwork } = {};
      const miner = buildMiner(ctx, chainParts, pool, owner, () => p2p.network, contracts?.mining);
      p2p.network = await startNetwork(ctx, chainParts, admission, owner, certificates, verifier);
      const statusSettings = statusCacheSettings({ settings: config.contracts, dataDirectory: config.node.dataDirectory });
      // A node that executes no contracts drops a transaction a peer could not execute (WE).
      const gossip = {
        ignoreSuccessful: statusSettings.ignoreSuccessful,
        ...(contracts === undefined ? { removeFromPool: (txId: Uint8Array) => void pool.remove(txId) } : {}),
      };
      if (p2p.network !== undefined)
        started.add(
          'contract status gossip',
          gossipContractStatuses(contractStatuses, p2p.network.contractStatuses, protocol, loggers.get('contracts'), gossip),
          (stop) => stop(),
        );
      started.add('contract error quorum', cleanUpErroredExecutables(contractStatuses, pool, statusSettings, protocol, loggers.get('contracts')), (stop) =>
        stop(),
      );
      if (p2p.network !== undefined && contracts !== undefined) {
        started.add(
          'contract validation',
          contracts.validation.start(p2p.network.contractValidatorResults, () => miner?.wake(), p2p.network.contractValidatorResultsV2),
          (stop) => stop(),
        );
      }
      const licences = startNodeLicences({ config, suite: protocol.crypto, chain, now, log, mining: miner, stopNode: requestStop });
      // A transaction admitted from a client or sent by the node itself: the miner woken, the peers told.
      const network = p2p.network;
      started.add('admission followers', followAdmissions(admission, miner, network), (stop) => stop());
      // The node's own transactions (confidential calls, privacy sends, anchoring write-backs) take the same door.
      const sendOwn = (tx: Transaction): Promise<Transaction> => admission.admit(tx, { origin: 'local' });
      confidential.connect(network?.confidentialContracts, sendOwn);
      if (confidential.api !== undefined) contracts?.node.serveConfidentialContracts(confidential.api);
      const privacy = started.add(
        'privacy',
        await startPrivacy({ config, protocol, chain, keystore, log: loggers.get('privacy'), now, admission, owner, peers: network?.privacy, metrics }),
        (p) => p.close(),
      );
      const anchoring = await createNodeAnchoring({ config, protocol, chain, store, pool, owner, send: sendOwn, now, log: loggers.get('anchoring') });
      const systemNow = options.systemNow ?? systemClock;
      const health = nodeHealth(ctx, chainParts, systemNow, {
        ...anchoringHealthChecks(anchoring),
        ...privacyHealthChecks(privacy),
        ...contractsHealthChecks(contracts?.node),
      });
      const node = new Node(
        {
          ...chainParts,
          config,
          log,
          loggers,
          pool,
          admission,
          transactions: transactionsService(admission),
          keystore,
          owner,
          miner,
          network,
          pki,
          licences,
          privacy: privacy.api,
          metrics,
          health,
          now,
          systemNow,
          requestStop,
          contracts: contracts?.node,
          ...(grpcEndpoint === undefined ? {} : { grpc: grpcEndpoint }),
          contractStatuses,
          confidentialContracts: confidential.api,
        },
        started,
      );
      late.node = node;
      servePublicGrpc(grpcEndpoint, {
        config,
        services: node.services(),
        chain,
        owner,
        now,
        log: loggers.get('api'),
        statuses: contractStatuses,
        contractsRun: contracts !== undefined,
      });
      if (config.api.enabled) {
        const api = started.add(
          'REST API',
          createApiServer(node.services(), { loggerInstance: loggers.get('api'), ...(metrics === undefined ? {} : { requests: metrics.requests }) }),
          (a) => a.close(),
        );
        node.restUrl = await listen(api, config.api);
        log.info({ url: node.restUrl }, 'REST API listening');
        if (metrics !== undefined) log.info({ url: `${node.restUrl}${config.metrics.path}`, protected: config.metrics.protected }, 'Prometheus metrics served');
      }
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

  /** The chain's one door into the pool. */
  get admission(): Admission {
    return this.parts.admission;
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

  /** Prometheus metrics (undefined when `node.metrics.enable` or the REST API is off); subsystems register their collectors on it. */
  get metrics(): NodeMetrics | undefined {
    return this.parts.metrics;
  }

  get url(): string | undefined {
    return this.restUrl;
  }

  /** The port the contract engine's gRPC API listens on (undefined when no engine runs). */
  get contractsGrpcPort(): number | undefined {
    return this.parts.contracts?.engine.grpcPort;
  }

  /** The port of the node's gRPC API (public services and contract services); undefined when it is not open. */
  get grpcPort(): number | undefined {
    return this.parts.grpc?.boundPort;
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
