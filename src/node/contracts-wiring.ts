/**
 * The contract engine of a node: built from `config.contracts` when execution is on
 * (`node.contracts.enable` or WE's `node.docker-engine.enable`), over the chain's current
 * state and its blocks. node.ts calls `startNodeContracts` once its chain and keystore are
 * up, passes `service` to the API (ApiServices.contracts), `readOnlyToken` to
 * `/debug/createGrpcAuth`, `engine.executor` / `engine.statuses` to the miner, and `close`
 * at shutdown (it stops every contract process and container and the gRPC server).
 */
import { confidentialContractService } from '../contracts/grpc/confidential-service.js';
import type { ConfidentialContractsApi } from '../contracts/confidential/service.js';
import type { Logger } from 'pino';
import type { KeyPair } from '../crypto/suite.js';
import type { Block } from '../protocol/blocks.js';
import type { Protocol } from '../protocol/protocol.js';
import { encodeBase58 } from '../crypto/encoding.js';
import type { AuthMode, ExternalServiceName } from '../api/services.js';
import { grpcAuthorizer, userAuthorization } from '../api/grpc/auth.js';
import type { ExternalCheck } from './health.js';
import { startContractEngine, type ContractEngine } from '../contracts/engine.js';
import { contractsService, type ContractsService } from '../contracts/service.js';
import { decodeStatusMessage, encodeStatusMessage, ExecutionStatusBook } from '../contracts/statuses.js';
import type { ContractStatusMessages } from '../network/contract-status-messages.js';
import { defaultContractsSettings, type ContractsSettings, type ExecutionMessagesCacheSettings } from '../contracts/settings.js';
import { removeErroredExecutables } from '../contracts/utx-cleanup.js';
import type { UtxPool } from '../chain/utx.js';
import type { BlockInfo, ContractBlockHeader, ContractExecutionView, ContractNodeContext } from '../contracts/state.js';
import type { StateView } from '../state/view.js';
import type { NodeConfig } from './config.js';
import type { GrpcEndpoint } from '../contracts/grpc/endpoint.js';

/** The chain reads the engine needs besides state. */
export interface ContractChainReads {
  /** Height, the liquid block counted. */
  height(): number;
  /** The block at a height (the liquid block as assembled so far at the top). */
  blockAt(height: number): Block | undefined;
  /** A block and its height by id (a liquid block's intermediate ids included). */
  blockById(id: Uint8Array): { readonly block: Block; readonly height: number } | undefined;
}

export interface NodeContractsOptions {
  /** `config.contracts` (absent: the defaults, engine off). */
  readonly settings: ContractsSettings | undefined;
  readonly dataDirectory: string;
  readonly protocol: Protocol;
  /** The node owner's key: it signs execution statuses. */
  readonly ownerKey: KeyPair;
  readonly now: () => bigint;
  /**
   * The current state with contract state (the chain's StateView once it implements
   * ContractStateReader and the two listings of ContractExecutionView).
   */
  currentState(): ContractExecutionView & Pick<StateView, 'transactionById'>;
  readonly chain: ContractChainReads;
  walletAddresses(): readonly string[];
  readonly log: Logger;
  /** The node's status book (contractStatusBook); the engine makes its own when absent. */
  readonly statuses?: ExecutionStatusBook;
  /** The API's auth mode (`node.api.auth`): under OAuth2 the public gRPC services need a user token. */
  readonly auth?: AuthMode;
  /** The node's own files and folders, hidden from contract processes (nodePrivatePaths). */
  readonly privatePaths?: readonly string[];
  /** The node's gRPC port (grpc-wiring.ts), already listening; the engine opens its own when absent. */
  readonly endpoint?: GrpcEndpoint;
}

/**
 * What of the node a contract process must not see, whatever the files' modes: the config
 * file (it may hold passwords and keys), the node's home and data folders, the keystore, the
 * confidential data and privacy storage folders, the P2P TLS key, the anchoring wallet.
 */
export function nodePrivatePaths(config: NodeConfig): string[] {
  const n = config.node;
  const storage = config.privacy?.storage;
  const paths = [
    config.source,
    n.directory,
    n.dataDirectory,
    n.wallet.file,
    n.confidentialDataDirectory,
    storage?.vendor === 'embedded' ? storage.directory : undefined,
    config.network.tls?.keyFile,
    config.anchoring?.targetnet.wallet.file,
  ];
  return [...new Set(paths.filter((p): p is string => p !== undefined && p !== null))];
}

/**
 * WE's GrpcAuth for the public services on the contract port: open under API-key auth; under
 * OAuth2 the `authorization` metadata must carry a token with any known role ("Bearer " optional).
 */
function grpcAuthorization(o: Pick<NodeContractsOptions, 'auth' | 'protocol' | 'ownerKey' | 'now'>): ((authorization: string | undefined) => void) | undefined {
  if (o.auth?.type !== 'oauth2') return undefined;
  return userAuthorization(grpcAuthorizer(o.auth, o.protocol, o.ownerKey.publicKey, o.now));
}

export interface NodeContracts {
  readonly engine: ContractEngine;
  /** For ApiServices.contracts. */
  readonly service: ContractsService;
  /** For DebugService.contractAuthToken (`/debug/createGrpcAuth`). */
  readOnlyToken(contractId: Uint8Array): Promise<string>;
  /** Serves WE's public ConfidentialContractService on the contract gRPC port. */
  serveConfidentialContracts(api: ConfidentialContractsApi): void;
  close(): Promise<void>;
}

function headerOf(block: Block, height: number): ContractBlockHeader {
  return {
    version: block.version,
    height,
    signature: block.id,
    reference: block.reference,
    generator: block.generator,
    transactionCount: block.transactionCount,
    timestamp: block.timestamp,
  };
}

/** What contracts learn about blocks, the wallet and time from the node. */
export function contractNodeContext(o: Pick<NodeContractsOptions, 'chain' | 'walletAddresses' | 'now'>): ContractNodeContext {
  return {
    lastBlockInfo: (): BlockInfo => {
      const height = o.chain.height();
      const block = o.chain.blockAt(height);
      if (block === undefined) throw new Error(`no block at height ${height}`);
      return { height, timestamp: block.timestamp, minerAddress: block.generatorAddress, reference: encodeBase58(block.reference) };
    },
    blockHeaderAt: (height) => {
      const block = o.chain.blockAt(height);
      return block === undefined ? undefined : headerOf(block, height);
    },
    blockHeaderById: (id) => {
      const at = o.chain.blockById(id);
      return at === undefined ? undefined : headerOf(at.block, at.height);
    },
    walletAddresses: () => o.walletAddresses(),
    now: o.now,
    systemTime: () => BigInt(Date.now()),
  };
}

/** Starts the node's contract engine; undefined when contract execution is off. */
export async function startNodeContracts(o: NodeContractsOptions): Promise<NodeContracts | undefined> {
  const settings = o.settings ?? defaultContractsSettings(o.dataDirectory);
  if (!settings.enable) return undefined;
  const authorizeGrpc = grpcAuthorization(o);
  const engine = await startContractEngine({
    settings,
    protocol: o.protocol,
    now: o.now,
    nodeKey: o.ownerKey,
    currentView: () => o.currentState(),
    node: contractNodeContext(o),
    log: o.log,
    ...(o.statuses === undefined ? {} : { statuses: o.statuses }),
    ...(authorizeGrpc === undefined ? {} : { authorizeGrpc }),
    ...(o.privatePaths === undefined ? {} : { privatePaths: o.privatePaths }),
    ...(o.endpoint === undefined ? {} : { endpoint: o.endpoint }),
  });
  o.log.info({ port: engine.grpcPort, docker: engine.runtimes.docker !== undefined, packages: settings.packages.length }, 'contract engine started');
  return {
    engine,
    service: contractsService(() => o.currentState(), engine.statuses),
    readOnlyToken: (contractId) => engine.readOnlyToken(encodeBase58(contractId)),
    serveConfidentialContracts: (api) => {
      const service = confidentialContractService({ api, protocol: o.protocol, ...(authorizeGrpc === undefined ? {} : { authorize: authorizeGrpc }) });
      engine.endpoint.serve(service.definition, service.implementation);
    },
    close: () => engine.close(),
  };
}

/**
 * The `docker` health check (`/node/healthcheck` without `service` checks it, as WE does):
 * the Docker daemon must answer a ping now. Given only when contracts run with
 * `docker-engine.enable`; otherwise the service is disabled (637), as on a WE node without
 * its Docker engine.
 */
export function contractsHealthChecks(contracts: NodeContracts | undefined): Partial<Record<ExternalServiceName, ExternalCheck>> {
  const answers = contracts?.engine.dockerAnswers;
  if (answers === undefined) return {};
  return {
    docker: async () => {
      if (!(await answers())) throw new Error("Can't connect to docker daemon");
    },
  };
}

/**
 * The node's execution status book (WE's ContractExecutionMessagesCache, sized by
 * `contract-execution-messages-cache`): every node keeps one, so a node that does not
 * execute still answers `/contracts/status/{txId}` with the statuses its peers sent.
 */
export function contractStatusBook(o: Pick<NodeContractsOptions, 'settings' | 'dataDirectory' | 'protocol' | 'ownerKey' | 'now'>): ExecutionStatusBook {
  const cache = statusCacheSettings(o);
  return new ExecutionStatusBook({ protocol: o.protocol, node: o.ownerKey, now: o.now, maxSize: cache.maxSize, expireAfterMs: cache.expireAfterMs });
}

/** `node.docker-engine.contract-execution-messages-cache` (WE's defaults when `config.contracts` is absent). */
export function statusCacheSettings(o: Pick<NodeContractsOptions, 'settings' | 'dataDirectory'>): ExecutionMessagesCacheSettings {
  return (o.settings ?? defaultContractsSettings(o.dataDirectory)).dockerEngine.executionMessagesCache;
}

/** What statuses do besides travelling (`contract-execution-messages-cache`). */
export interface StatusGossipOptions {
  /** `ignore-successful`: `Success` statuses are kept but neither sent nor passed on. */
  readonly ignoreSuccessful: boolean;
  /** On a node that executes no contracts: a peer's non-Success status takes the transaction out of the pool (WE). */
  readonly removeFromPool?: (txId: Uint8Array) => void;
}

/**
 * Statuses over P2P: the node's own statuses go to every peer; a peer's status is decoded,
 * its signature checked, kept once and passed on to the other peers (so it reaches nodes not
 * connected to its signer). A status whose signature does not hold is dropped and logged;
 * bytes that do not parse close that peer (the transport's rule for malformed messages).
 * Returns the function that stops it.
 */
export function gossipContractStatuses(
  book: ExecutionStatusBook,
  peers: ContractStatusMessages,
  protocol: Protocol,
  log: Logger,
  options: StatusGossipOptions = { ignoreSuccessful: false },
): () => void {
  const { publicKeyLength, signatureLength } = protocol.crypto;
  const travels = (status: string): boolean => status !== 'Success' || !options.ignoreSuccessful;
  const unsubscribe = book.subscribe((message, origin) => {
    // Without peers the message is not encoded (nor, so, signed: the book signs a status when first read).
    if (origin === 'own' && travels(message.status) && peers.hasPeers()) peers.broadcast(encodeStatusMessage(message));
  });
  const stopListening = peers.onMessage((payload, from) => {
    const message = decodeStatusMessage(payload, publicKeyLength, signatureLength);
    const taken = book.accept(message);
    if (taken === 'invalid') log.warn({ peer: from.id, txId: encodeBase58(message.txId) }, 'contract execution status with a wrong signature dropped');
    if (taken !== 'new') return;
    if (travels(message.status)) peers.broadcast(payload, from);
    if (message.status !== 'Success') options.removeFromPool?.(message.txId);
  });
  return () => {
    unsubscribe();
    stopListening();
  };
}

/** Every `utx-cleanup-interval`: executable transactions with `contract-error-quorum` Error statuses leave the pool. Returns the stop. */
export function cleanUpErroredExecutables(
  book: ExecutionStatusBook,
  pool: UtxPool,
  settings: ExecutionMessagesCacheSettings,
  protocol: Protocol,
  log: Logger,
): () => void {
  const timer = setInterval(
    () => {
      for (const r of removeErroredExecutables(pool, book, settings.contractErrorQuorum, protocol))
        log.info({ txId: r.txId, reason: r.reason }, 'executable transaction removed from the pool');
    },
    Math.max(1, settings.utxCleanupIntervalMs),
  );
  timer.unref();
  return () => clearInterval(timer);
}
