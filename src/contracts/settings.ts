/**
 * Settings of the contract engine: WE's `node.docker-engine` keys (timeouts, memory, the
 * gRPC address told to contracts, the token lifetime, the status cache), `node.wasm`, the
 * node's gRPC server (`node.api.grpc`) and Weft's own `node.contracts` section, which maps
 * contract images to local packages run as processes (no Docker needed).
 *
 * Defaults are WE's application.conf values; settings-keys.ts reads and renders the HOCON keys.
 */

/** Which runtime starts the contracts of an image. */
export type ContractRuntimeKind = 'process' | 'docker';

/** `node.docker-engine.execution-limits`. */
export interface ExecutionLimits {
  /** Container (or process) start → first Connect. */
  readonly startupTimeoutMs: number;
  /** Push of a transaction → its commit. */
  readonly timeoutMs: number;
  /**
   * Memory limit, MB: a Docker container's; a contract process's whole tree's where the node
   * has a memory cgroup (contract-cgroups.ts), and the heap limit of `node` programs always.
   */
  readonly memoryMb: number;
  /** Docker's memory+swap limit, MB (0 = Docker's default, twice the memory; the same for a contract process's cgroup). */
  readonly memorySwapMb: number;
}

export interface RegistryAuth {
  readonly domain: string;
  readonly username: string;
  readonly password: string;
}

/** `node.docker-engine` (the keys Weft uses). */
export interface DockerEngineSettings {
  readonly enable: boolean;
  /** `docker-host`: `unix:///path` or `tcp://host:port`; undefined = DOCKER_HOST or the default socket. */
  readonly dockerHost: string | undefined;
  readonly contractsParallelism: number;
  readonly executionLimits: ExecutionLimits;
  /** Idle time after which a container (or process) is removed. */
  readonly removeContainerAfterMs: number;
  readonly remoteRegistries: readonly RegistryAuth[];
  readonly defaultRegistryDomain: string | undefined;
  /** Lifetime of the tokens given to contracts. */
  readonly contractAuthExpiresInMs: number;
  /** What NODE / NODE_PORT tell a contract: `grpc-server.host` (undefined: the runtime's default) and `grpc-server.port`. */
  readonly grpcServer: { readonly host: string | undefined; readonly port: number };
  readonly removeContainerOnFail: boolean;
  readonly executionMessagesCache: ExecutionMessagesCacheSettings;
}

/** `node.docker-engine.contract-execution-messages-cache`: the status book and what follows from statuses. */
export interface ExecutionMessagesCacheSettings {
  readonly maxSize: number;
  readonly expireAfterMs: number;
  /** How often executable transactions with `contractErrorQuorum` Error statuses leave the pool. */
  readonly utxCleanupIntervalMs: number;
  /** Error statuses from distinct nodes that take an executable transaction out of the pool. */
  readonly contractErrorQuorum: number;
  /** `Success` statuses are kept but not sent to peers. */
  readonly ignoreSuccessful: boolean;
}

/** One entry of `node.contracts.packages`: an image the node runs from a local package. */
export interface ContractPackageSettings {
  /** The image name as contracts' 103 transactions give it (matched after WE's normalisation). */
  readonly image: string;
  readonly runtime: ContractRuntimeKind;
  /** A built package: a folder, or a `.tgz` (process runtime; required for it). */
  readonly source: string | undefined;
  /** The start command, run in the package folder; default `node <main of package.json>` (or `node dist/index.js`). */
  readonly command: readonly string[] | undefined;
  /** Extra environment for the contract beyond the four variables every contract gets. */
  readonly env: Readonly<Record<string, string>>;
  /** Executions pushed to one running contract at once (default `node.contracts.max-in-flight`). */
  readonly maxInFlight?: number;
  /** Running contracts (processes or containers) of the image (default `node.contracts.instances`). */
  readonly instances?: number;
  /** Process runtime: a network of its own with only the node's contract gRPC API in reach (default `node.contracts.isolate-network`). */
  readonly isolateNetwork?: boolean;
}

export interface ContractsSettings {
  /** Contract execution on (`node.contracts.enable` or WE's `node.docker-engine.enable`). */
  readonly enable: boolean;
  readonly dockerEngine: DockerEngineSettings;
  /** `node.wasm.fuel-limit`: fuel of one WASM execution, its whole call tree (every frame and host function) together. */
  readonly wasmFuelLimit: number;
  /** `node.wasm`'s limits of this node beside fuel (Weft's keys); DEFAULT_WASM_EXECUTION when absent. */
  readonly wasmExecution?: WasmExecutionSettings;
  /**
   * `node.api.grpc`: where the gRPC server listens (the contract services and the public
   * ContractStatusService; `bind-address` defaults to loopback, see defaultGrpcBindAddress);
   * `services.contract-status-events.max-connections` (default 5) caps the open
   * ContractsExecutionEvents streams of the node, and Weft's
   * `services.contract-status-events.max-connections-per-channel` (unset: the node's cap) those
   * of one client connection.
   */
  readonly grpc: {
    readonly bindAddress: string;
    readonly port: number;
    readonly contractStatusMaxConnections?: number;
    readonly contractStatusMaxConnectionsPerChannel?: number;
  };
  readonly packages: readonly ContractPackageSettings[];
  /** Where `.tgz` packages are unpacked (one folder per content digest). */
  readonly packageCacheDirectory: string;
  /**
   * `node.contracts.max-in-flight`: executions pushed to one running contract at once
   * (default 1). WE pushes without a limit, but the JS SDK 1.0.x keeps an execution's
   * context and token in per-process singletons, so concurrent executions in one process
   * read and commit with each other's; raise it for contracts that isolate executions.
   */
  readonly maxInFlight?: number;
  /**
   * `node.contracts.instances`: running contracts (processes or containers) per image
   * (default 1; WE runs one). Calls of its contracts are spread over them, so with
   * `max-in-flight` 1 several calls of a contract still run at once; the extra ones start
   * when the first does. Contracts must keep no state of their own between calls (the SDK's
   * worker pool already gives no such guarantee). SDK 1.0.x takes one call per process at a
   * time, so this is what runs a contract's calls side by side: on a 2-core machine 2 measured
   * best for the SDK key-value contract (3 and 4 only added processes contending for the
   * same cores); the default stays WE's one.
   */
  readonly instances?: number;
  /**
   * `node.contracts.isolate-network` (default true): a contract process runs in a network
   * namespace of its own where only the node's contract gRPC API is in reach (at
   * NODE:NODE_PORT, as before) — not the node's REST or admin ports, not its peers, not the
   * internet. A package entry's `isolate-network = false` gives a contract that needs it the
   * host's network. Where the machine allows no namespaces the node says so at start.
   */
  readonly isolateNetwork?: boolean;
  /**
   * `node.contracts.first-user-id` (default 1879048192, 0x70000000, a range no distribution
   * or systemd assigns): contract processes of a root node run as users (and groups) of their
   * own, numbered from here on (CONTRACT_USER_ID_SPAN of them; no passwd entries needed).
   */
  readonly firstUserId?: number;
  /**
   * `node.contracts.max-failed-executions` (Weft's own, default 3): executions of a legacy
   * 103/104 that leave it in the pool (a recoverable error, the execution timeout, a contract
   * that could not start, an unknown error code) before the miner drops it with an `Error`
   * status. WE executes such a transaction again on every key block until it expires.
   */
  readonly maxFailedExecutions?: number;
}

/** `node.contracts.first-user-id`'s default. */
export const DEFAULT_FIRST_USER_ID = 0x7000_0000;

/** How many user ids the contracts of all nodes on a machine draw from (first-user-id on). */
export const CONTRACT_USER_ID_SPAN = 2 ** 26;

/** Default of `node.contracts.max-failed-executions` (Weft's own: WE sets no limit). */
export const DEFAULT_MAX_FAILED_EXECUTIONS = 3;

/** The most running contracts per image. */
export const MAX_CONTRACT_INSTANCES = 16;

const SECOND = 1000;
const MINUTE = 60 * SECOND;

export const DEFAULT_DOCKER_ENGINE: DockerEngineSettings = {
  enable: false,
  dockerHost: undefined,
  contractsParallelism: 8,
  executionLimits: { startupTimeoutMs: 20 * SECOND, timeoutMs: 5 * SECOND, memoryMb: 512, memorySwapMb: 0 },
  removeContainerAfterMs: 10 * MINUTE,
  remoteRegistries: [],
  defaultRegistryDomain: undefined,
  contractAuthExpiresInMs: MINUTE,
  grpcServer: { host: undefined, port: 6865 },
  removeContainerOnFail: true,
  executionMessagesCache: { maxSize: 100_000, expireAfterMs: 60 * MINUTE, utxCleanupIntervalMs: MINUTE, contractErrorQuorum: 2, ignoreSuccessful: false },
};

export const DEFAULT_WASM_FUEL_LIMIT = 20_000;

/**
 * What bounds a WASM execution besides its fuel, and where it runs (Weft's keys under
 * `node.wasm`; WE runs WASM in the node's JVM with fuel alone). Fuel ends every run the same
 * way on every node; these two limits are this node's backstop against what fuel does not
 * measure (a slow machine, a runaway heap), and a run that reaches one ends with error
 * code 2 (contracts/wasm/engine.ts).
 */
export interface WasmExecutionSettings {
  /**
   * `node.wasm.execution-timeout` (default 5 s, WE's `execution-limits.timeout` for Docker
   * contracts): the most an execution thread spends on one execution, not counting its waits
   * for the node's state reads. The thread is then terminated and replaced.
   */
  readonly timeoutMs: number;
  /**
   * `node.wasm.memory-limit` (default 128 MiB): the JavaScript heap of an execution thread
   * (its modules, host-side copies and results); the WebAssembly memories are bounded apart
   * (16 pages a frame, 64 frames). The thread is then ended and replaced.
   */
  readonly memoryLimitBytes: number;
  /** `node.wasm.threads` (default 1): execution threads; WASM executions beyond them wait in order. */
  readonly threads: number;
}

export const DEFAULT_WASM_EXECUTION: WasmExecutionSettings = { timeoutMs: 5 * SECOND, memoryLimitBytes: 128 * 2 ** 20, threads: 1 };

/** The most `node.wasm.threads` takes. */
export const MAX_WASM_THREADS = 64;

/** WE's `api.grpc.services.contract-status-events.max-connections`. */
export const DEFAULT_CONTRACT_STATUS_MAX_CONNECTIONS = 5;

/**
 * Where the gRPC server listens when `node.api.grpc.bind-address` is not set: loopback,
 * where the process runtime and Docker containers on the host's network (the default)
 * reach it. WE listens on every interface (0.0.0.0), which puts the contract services and
 * the status streams before anyone who can reach the machine. With
 * `docker-engine.grpc-server.host` naming a host that is not loopback, containers on
 * Docker's own network dial that address, so the server listens on every interface as WE's
 * does; set `bind-address` to the one address they dial to narrow it.
 */
export function defaultGrpcBindAddress(grpcServerHost: string | undefined): string {
  return grpcServerHost === undefined || isLoopbackHost(grpcServerHost) ? '127.0.0.1' : '0.0.0.0';
}

/** `localhost`, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** The settings of a node that names nothing about contracts. */
export function defaultContractsSettings(dataDirectory: string): ContractsSettings {
  return {
    enable: false,
    dockerEngine: DEFAULT_DOCKER_ENGINE,
    wasmFuelLimit: DEFAULT_WASM_FUEL_LIMIT,
    grpc: { bindAddress: defaultGrpcBindAddress(undefined), port: 6865 },
    packages: [],
    packageCacheDirectory: `${dataDirectory}/contract-packages`,
    maxInFlight: 1,
  };
}
