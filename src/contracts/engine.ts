/**
 * The contract engine of one node, assembled from its settings: the token service, the
 * gRPC server on the node's gRPC port, the runtimes (local processes always; Docker when
 * `docker-engine.enable`, after a ping as WE does at start-up), the WASM engine, the
 * executor and the status book. `close` stops every contract and the server.
 *
 * With process-runtime packages configured, the engine first finds which guards this machine
 * gives contract processes (process-sandbox.ts) and logs, as a warning, each one it cannot
 * set up and why; contracts in network namespaces reach the gRPC server on a unix socket in
 * a folder of their own under the system's temporary folder, made on first use.
 */
import type { KeyPair } from '../crypto/suite.js';
import type { Protocol } from '../protocol/protocol.js';
import { ExecutionBroker } from './broker.js';
import { DockerLauncher } from './docker-launcher.js';
import { ContractExecutor } from './executor.js';
import { ContractGrpcServer } from './grpc/server.js';
import { statusServiceDeps } from './grpc/status-service.js';
import { GrpcEndpoint } from './grpc/endpoint.js';
import { chmodSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractPackages } from './packages.js';
import { ProcessLauncher } from './process-launcher.js';
import { ProcessSandbox } from './process-sandbox.js';
import { ContractRuntime, type RuntimeLog } from './runtime.js';
import { DEFAULT_FIRST_USER_ID, DEFAULT_WASM_EXECUTION, isLoopbackHost, type ContractsSettings } from './settings.js';
import type { ContractExecutionView, ContractNodeContext } from './state.js';
import { ExecutionStatusBook } from './statuses.js';
import { ContractTokens } from './tokens.js';
import { WasmEngine } from './wasm/engine.js';

export interface ContractEngineOptions {
  readonly settings: ContractsSettings;
  readonly protocol: Protocol;
  readonly now: () => bigint;
  /** The node owner's key: it signs status messages. */
  readonly nodeKey: KeyPair;
  /** The current state (reads of tokens that name no running execution). */
  currentView(): ContractExecutionView;
  readonly node: ContractNodeContext;
  readonly log?: RuntimeLog;
  /** The node's status book (the node keeps one whether or not it executes); a new one when absent. */
  readonly statuses?: ExecutionStatusBook;
  /**
   * Checks the `authorization` metadata of a public gRPC call (the node's OAuth2 mode; throws
   * the WeError to answer); public calls are open when absent (API-key mode, as WE).
   */
  readonly authorizeGrpc?: (authorization: string | undefined) => void;
  /** The node's own files and folders (config, keystore, data directory): contract processes do not see them. */
  readonly privatePaths?: readonly string[];
  /**
   * The node's gRPC port, already listening (the node opens it for its public API too); the
   * engine opens one of its own on `settings.grpc` when absent, and closes only its own.
   */
  readonly endpoint?: GrpcEndpoint;
}

export interface ContractEngine {
  readonly tokens: ContractTokens;
  readonly broker: ExecutionBroker;
  readonly server: ContractGrpcServer;
  /** The gRPC port the contract services are served on. */
  readonly endpoint: GrpcEndpoint;
  /** The port the gRPC server listens on. */
  readonly grpcPort: number;
  readonly packages: ContractPackages;
  readonly runtimes: { readonly process: ContractRuntime; readonly docker?: ContractRuntime };
  /** The guards contract processes get on this machine; absent when no process-runtime package is configured. */
  readonly sandbox?: ProcessSandbox;
  readonly wasm: WasmEngine;
  /** Whether the Docker daemon answers a ping now; absent when `docker-engine.enable` is off. */
  readonly dockerAnswers?: () => Promise<boolean>;
  readonly executor: ContractExecutor;
  readonly statuses: ExecutionStatusBook;
  /** WE's createGrpcAuth: a 365-day token for a contract's read-only calls. */
  readOnlyToken(contractId: string): Promise<string>;
  close(): Promise<void>;
}

const READ_ONLY_TOKEN_LIFETIME_MS = 365 * 24 * 3600 * 1000;

export async function startContractEngine(o: ContractEngineOptions): Promise<ContractEngine> {
  const s = o.settings;
  const engine = s.dockerEngine;
  const tokens = await ContractTokens.create({ now: o.now, lifetimeMs: engine.contractAuthExpiresInMs });
  const broker = new ExecutionBroker(tokens);
  const statuses =
    o.statuses ??
    new ExecutionStatusBook({
      protocol: o.protocol,
      node: o.nodeKey,
      now: o.now,
      maxSize: engine.executionMessagesCache.maxSize,
      expireAfterMs: engine.executionMessagesCache.expireAfterMs,
    });
  const statusService = statusServiceDeps(s.grpc, statuses, o.protocol, o.authorizeGrpc);

  const closing: Array<() => Promise<void>> = [];
  let endpoint = o.endpoint;
  if (endpoint === undefined) {
    const own = new GrpcEndpoint();
    await own.listen(s.grpc.bindAddress, s.grpc.port);
    closing.push(() => own.close());
    logGrpcListening(o.log, s.grpc.bindAddress, own.boundPort!);
    endpoint = own;
  }
  const grpcPort = endpoint.boundPort!;
  const server = new ContractGrpcServer({ tokens, broker, currentView: () => o.currentView(), node: o.node, log: o.log, statusService }, endpoint);
  try {
    // NODE_PORT: the configured grpc-server.port, or the port bound when the server took any free one (or grpc-server.port is 0).
    const nodePort = (): number =>
      s.grpc.port === 0 || engine.grpcServer.port === 0 || engine.grpcServer.port === s.grpc.port ? grpcPort : engine.grpcServer.port;
    const packages = new ContractPackages(
      s.packages,
      s.packageCacheDirectory,
      engine.defaultRegistryDomain,
      engine.enable ? 'docker' : undefined,
      s.maxInFlight ?? 1,
      s.instances ?? 1,
      s.isolateNetwork ?? true,
    );
    const sandbox = s.packages.some((p) => p.runtime === 'process')
      ? await ProcessSandbox.detect({ firstUserId: s.firstUserId ?? DEFAULT_FIRST_USER_ID })
      : undefined;
    if (sandbox !== undefined) {
      for (const m of sandbox.missingGuards) o.log?.warn({ guard: m.guard, reason: m.reason }, 'contract processes run without this guard on this machine');
      if (sandbox.missingGuards.length === 0) o.log?.info({}, 'contract processes run as users of their own, in namespaces of their own, with a memory cgroup');
    }
    let nodeSocket: Promise<string> | undefined;
    const unixSocket = (): Promise<string> =>
      (nodeSocket ??= (async () => {
        const folder = mkdtempSync(join(tmpdir(), 'weft-contract-grpc-'));
        // Searchable by contracts' users (who only connect to the socket), not listable; removed once the server is closed.
        chmodSync(folder, 0o711);
        closing.unshift(() => rm(folder, { recursive: true, force: true }));
        const path = join(folder, 'grpc.sock');
        await endpoint.listenUnix(path);
        return path;
      })());
    const runtimeOptions = {
      startupTimeoutMs: engine.executionLimits.startupTimeoutMs,
      idleTimeoutMs: engine.removeContainerAfterMs,
      removeOnFail: engine.removeContainerOnFail,
      nodePort,
      log: o.log,
    };
    let docker: ContractRuntime | undefined;
    let dockerAnswers: (() => Promise<boolean>) | undefined;
    if (engine.enable) {
      const launcher = new DockerLauncher({
        dockerHost: engine.dockerHost,
        memoryMb: engine.executionLimits.memoryMb,
        memorySwapMb: engine.executionLimits.memorySwapMb,
        defaultRegistryDomain: engine.defaultRegistryDomain,
        registries: engine.remoteRegistries,
        nodeHost: engine.grpcServer.host,
        envFor: (image) => packages.envFor(image),
        log: o.log,
      });
      if (!(await launcher.ping())) throw new Error("Can't connect to docker daemon. Install docker or disable docker-engine or check auth credentials");
      docker = new ContractRuntime(launcher, broker, tokens, runtimeOptions);
      dockerAnswers = () => launcher.ping();
      closing.push(() => docker!.close());
    }
    const processRuntime = new ContractRuntime(
      new ProcessLauncher({
        packages,
        memoryMb: engine.executionLimits.memoryMb,
        memorySwapMb: engine.executionLimits.memorySwapMb,
        nodeHost: engine.grpcServer.host,
        log: o.log,
        ...(sandbox === undefined ? {} : { sandbox }),
        nodeSocket: unixSocket,
        scope: s.packageCacheDirectory,
        privatePaths: o.privatePaths ?? [],
      }),
      broker,
      tokens,
      runtimeOptions,
    );
    closing.push(() => processRuntime.close());
    const limits = s.wasmExecution ?? DEFAULT_WASM_EXECUTION;
    const wasm = await WasmEngine.start({
      protocol: o.protocol,
      fuelLimit: s.wasmFuelLimit,
      timeoutMs: limits.timeoutMs,
      memoryLimitBytes: limits.memoryLimitBytes,
      threads: limits.threads,
      ...(o.log === undefined ? {} : { log: o.log }),
    });
    closing.push(() => wasm.close());
    o.log?.info(
      { fuelLimit: s.wasmFuelLimit, executionTimeoutMs: limits.timeoutMs, memoryLimitBytes: limits.memoryLimitBytes, threads: limits.threads },
      'WASM contracts run on their own threads, each execution bounded by node.wasm.fuel-limit, execution-timeout and memory-limit',
    );
    const executor = new ContractExecutor({
      broker,
      packages,
      runtimes: { process: processRuntime, docker },
      wasm,
      executionTimeoutMs: engine.executionLimits.timeoutMs,
      parallelism: engine.contractsParallelism,
    });
    return {
      tokens,
      broker,
      server,
      endpoint,
      grpcPort,
      packages,
      runtimes: { process: processRuntime, docker },
      ...(sandbox === undefined ? {} : { sandbox }),
      wasm,
      ...(dockerAnswers === undefined ? {} : { dockerAnswers }),
      executor,
      statuses,
      readOnlyToken: (contractId) => tokens.executionToken({ txId: '', contractId, executionId: '' }, READ_ONLY_TOKEN_LIFETIME_MS),
      close: async () => {
        broker.close();
        for (const c of closing.reverse()) await c();
      },
    };
  } catch (e) {
    for (const c of closing.reverse()) await c();
    throw e;
  }
}

/** Says where the node's gRPC port listens; beyond loopback as a warning (see defaultGrpcBindAddress). */
export function logGrpcListening(log: RuntimeLog | undefined, bindAddress: string, port: number): void {
  if (isLoopbackHost(bindAddress)) log?.info({ bindAddress, port }, 'gRPC API listening on loopback');
  else
    log?.warn(
      { bindAddress, port },
      'gRPC API listening beyond loopback (node.api.grpc.bind-address): whoever reaches this address can read the chain, broadcast, open event streams and call the contract services',
    );
}
