/**
 * The key table of contract execution: `node.contracts`, `node.docker-engine`, `node.wasm`
 * and `node.api.grpc` (rooted at `node`; WE's keys and defaults, Weft's own beside them).
 */
import { join, resolve } from 'node:path';
import {
  boolKey,
  checkedKey,
  choiceKey,
  customKey,
  durationKey,
  intKey,
  keyTable,
  nestedKey,
  optionalFileKey,
  optionalKey,
  optionalStringKey,
  positiveDurationKey,
  sizeKey,
  stringKey,
  tableListKey,
  type KeyTable,
} from '../config/key-table.js';
import { fail, parseString } from '../config/values.js';
import {
  CONTRACT_USER_ID_SPAN,
  DEFAULT_CONTRACT_STATUS_MAX_CONNECTIONS,
  DEFAULT_DOCKER_ENGINE,
  DEFAULT_FIRST_USER_ID,
  DEFAULT_MAX_FAILED_EXECUTIONS,
  DEFAULT_WASM_EXECUTION,
  DEFAULT_WASM_FUEL_LIMIT,
  defaultGrpcBindAddress,
  MAX_CONTRACT_INSTANCES,
  MAX_WASM_THREADS,
  type ContractPackageSettings,
  type ContractsSettings,
  type DockerEngineSettings,
  type RegistryAuth,
  type WasmExecutionSettings,
} from './settings.js';

/** What the contract keys read beside them: the node's data directory (the package cache lies in it by default). */
export interface ContractsReadContext {
  readonly dataDirectory: string;
}

const d = DEFAULT_DOCKER_ENGINE;

/** `node.docker-engine`. */
const DOCKER_ENGINE = keyTable<DockerEngineSettings>({
  enable: boolKey('enable', d.enable),
  dockerHost: optionalStringKey('docker-host'),
  contractsParallelism: intKey('contracts-parallelism', d.contractsParallelism, { min: 1 }),
  executionLimits: nestedKey(
    'execution-limits',
    keyTable({
      startupTimeoutMs: durationKey('startup-timeout', d.executionLimits.startupTimeoutMs),
      timeoutMs: durationKey('timeout', d.executionLimits.timeoutMs),
      memoryMb: intKey('memory', d.executionLimits.memoryMb, { min: 6 }),
      memorySwapMb: intKey('memory-swap', d.executionLimits.memorySwapMb, { min: 0 }),
    }),
  ),
  removeContainerAfterMs: durationKey('remove-container-after', d.removeContainerAfterMs),
  remoteRegistries: tableListKey(
    'remote-registries',
    keyTable<RegistryAuth>({ domain: stringKey('domain'), username: stringKey('username'), password: stringKey('password', undefined, { allowEmpty: true }) }),
    '{ domain, username, password }',
  ),
  defaultRegistryDomain: optionalStringKey('default-registry-domain'),
  contractAuthExpiresInMs: durationKey('contract-auth-expires-in', d.contractAuthExpiresInMs),
  // grpc-server.port 0: tell contracts the port the gRPC API took (node.api.grpc.port 0 picks any free one).
  grpcServer: nestedKey('grpc-server', keyTable({ host: optionalStringKey('host'), port: intKey('port', d.grpcServer.port, { min: 0, max: 65535 }) })),
  removeContainerOnFail: boolKey('remove-container-on-fail', d.removeContainerOnFail),
  executionMessagesCache: nestedKey(
    'contract-execution-messages-cache',
    keyTable({
      maxSize: intKey('max-size', d.executionMessagesCache.maxSize, { min: 1 }),
      expireAfterMs: durationKey('expire-after', d.executionMessagesCache.expireAfterMs),
      utxCleanupIntervalMs: durationKey('utx-cleanup-interval', d.executionMessagesCache.utxCleanupIntervalMs),
      contractErrorQuorum: intKey('contract-error-quorum', d.executionMessagesCache.contractErrorQuorum, { min: 1 }),
      ignoreSuccessful: boolKey('ignore-successful', d.executionMessagesCache.ignoreSuccessful),
    }),
  ),
});

/** One of `node.contracts.packages`: a `command` names at least the program. */
const CONTRACT_PACKAGE = keyTable<ContractPackageSettings>(
  {
    image: stringKey('image'),
    runtime: choiceKey('runtime', ['process', 'docker'], 'process'),
    // The process runtime runs the package from its source, so it must name one.
    source: customKey(
      'source',
      (p) => {
        const source = optionalFileKey('source').read(p, undefined);
        if (source === undefined && p.choice('runtime', ['process', 'docker'] as const, 'process') === 'process') {
          fail(p.at('source'), 'required for the process runtime: a built package folder or a .tgz');
        }
        return source;
      },
      (source) => source,
    ),
    command: customKey<readonly string[] | undefined>(
      'command',
      (p) => {
        if (!p.has('command')) return undefined;
        const command = p.list('command').map((c, i) => parseString(c, `${p.at('command')}(${i})`));
        return command.length === 0 ? fail(p.at('command'), 'expected a non-empty list: the program and its arguments') : command;
      },
      (command) => [...command],
    ),
    env: customKey(
      'env',
      (p) => {
        const env: Record<string, string> = {};
        const section = p.section('env');
        for (const key of Object.keys(section.raw)) env[key] = section.string(key, undefined, { allowEmpty: true });
        return env;
      },
      (env) => ({ ...env }),
    ),
    maxInFlight: optionalKey(intKey('max-in-flight', undefined, { min: 1 })),
    instances: optionalKey(intKey('instances', undefined, { min: 1, max: MAX_CONTRACT_INSTANCES })),
    isolateNetwork: optionalKey(boolKey('isolate-network', true)),
  },
  { readFirst: ['runtime', 'source', 'command', 'env', 'maxInFlight', 'instances', 'isolateNetwork'] },
);

const MIN_WASM_MEMORY_LIMIT = 16 * 2 ** 20;

/**
 * `node.wasm`'s Weft keys (WasmExecutionSettings): `execution-timeout` (a duration, > 0),
 * `memory-limit` (a memory size, at least 16 MiB: a thread's own code needs some), `threads`
 * (1…64). Read only when one of them is named.
 */
const WASM_EXECUTION = keyTable<WasmExecutionSettings>({
  timeoutMs: positiveDurationKey('execution-timeout', DEFAULT_WASM_EXECUTION.timeoutMs),
  memoryLimitBytes: checkedKey(sizeKey('memory-limit', DEFAULT_WASM_EXECUTION.memoryLimitBytes), (bytes, path) => {
    if (bytes < MIN_WASM_MEMORY_LIMIT) fail(path, `must be at least 16MiB, got ${bytes} bytes`);
  }),
  threads: intKey('threads', DEFAULT_WASM_EXECUTION.threads, { min: 1, max: MAX_WASM_THREADS }),
});

/** `node.api.grpc`: where the gRPC server listens (by default where contracts reach it) and the cap on contract status event streams. */
const GRPC = keyTable<ContractsSettings['grpc'], { readonly grpcServerHost: string | undefined }>({
  bindAddress: customKey(
    'bind-address',
    (g, { grpcServerHost }: { readonly grpcServerHost: string | undefined }) => g.string('bind-address', defaultGrpcBindAddress(grpcServerHost)),
    (v) => v,
  ),
  port: intKey('port', 6865, { min: 0, max: 65535 }),
  contractStatusMaxConnections: optionalKey(intKey('services.contract-status-events.max-connections', DEFAULT_CONTRACT_STATUS_MAX_CONNECTIONS, { min: 1 })),
  contractStatusMaxConnectionsPerChannel: optionalKey(
    intKey('services.contract-status-events.max-connections-per-channel', DEFAULT_CONTRACT_STATUS_MAX_CONNECTIONS, { min: 1 }),
  ),
});

/** The contract keys, rooted at `node`. `contracts.enable` is on too when the Docker engine is. */
export const CONTRACTS_TABLE: KeyTable<ContractsSettings, ContractsReadContext> = keyTable<ContractsSettings, ContractsReadContext>(
  {
    enable: boolKey('contracts.enable', false),
    packageCacheDirectory: customKey(
      'contracts.package-cache-directory',
      (s, { dataDirectory }: ContractsReadContext) => resolve(s.string('contracts.package-cache-directory', join(dataDirectory, 'contract-packages'))),
      (v) => v,
    ),
    maxInFlight: intKey('contracts.max-in-flight', 1, { min: 1 }),
    instances: optionalKey(intKey('contracts.instances', 1, { min: 1, max: MAX_CONTRACT_INSTANCES })),
    isolateNetwork: optionalKey(boolKey('contracts.isolate-network', true)),
    firstUserId: optionalKey(intKey('contracts.first-user-id', DEFAULT_FIRST_USER_ID, { min: 1000, max: 2 ** 31 - 1 - CONTRACT_USER_ID_SPAN })),
    maxFailedExecutions: optionalKey(intKey('contracts.max-failed-executions', DEFAULT_MAX_FAILED_EXECUTIONS, { min: 1 })),
    packages: tableListKey('contracts.packages', CONTRACT_PACKAGE, '{ image = "…", source = "…" }'),
    dockerEngine: nestedKey('docker-engine', DOCKER_ENGINE),
    wasmFuelLimit: intKey('wasm.fuel-limit', DEFAULT_WASM_FUEL_LIMIT, { min: 1 }),
    wasmExecution: optionalKey(nestedKey('wasm', WASM_EXECUTION)),
    grpc: customKey(
      'api.grpc',
      (s) => GRPC.read(s.section('api.grpc'), { grpcServerHost: s.optionalString('docker-engine.grpc-server.host') }),
      (grpc) => GRPC.render(grpc),
    ),
  },
  { finish: (c) => ({ ...c, enable: c.enable || c.dockerEngine.enable }) },
);

/** Whether a config names contract settings (otherwise the node runs on the defaults, engine off). */
export function namesContractSettings(node: { has(key: string): boolean }): boolean {
  return ['contracts', 'docker-engine', 'wasm', 'api.grpc'].some((key) => node.has(key));
}
