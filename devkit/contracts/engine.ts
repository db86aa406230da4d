/**
 * A contract engine for tests: the real one (tokens, gRPC server on a free loopback port,
 * runtimes, executor) over a ContractTestState, with settings overridable per test.
 */
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { Protocol } from '../../src/protocol/protocol.js';
import {
  CallContract,
  CreateContract,
  UpdateContract,
  type CallContractTransaction,
  type ContractTransferIn,
  type CreateContractTransaction,
  type ExecutableContractTransaction,
  type StoredContract,
  type UpdateContractTransaction,
} from '../../src/protocol/transactions/contracts.js';
import type { DataEntry } from '../../src/protocol/transactions/fields.js';
import type { Transaction, TypedTxCodec } from '../../src/protocol/transactions/schema.js';
import { startContractEngine, type ContractEngine } from '../../src/contracts/engine.js';
import { buildExecutedContract, type ExecutedBuild, type ExecutionResult } from '../../src/contracts/result.js';
import { applyExecutedContract } from '../../src/state/appliers/contracts.js';
import type { RuntimeLog } from '../../src/contracts/runtime.js';
import { ROLES } from '../../src/protocol/transactions/permissions.js';
import {
  DEFAULT_DOCKER_ENGINE,
  type ContractPackageSettings,
  type ContractsSettings,
  type DockerEngineSettings,
  type WasmExecutionSettings,
} from '../../src/contracts/settings.js';
import type { BlockInfo, ContractNodeContext } from '../../src/contracts/state.js';
import { KeyBlockValidators } from '../../src/contracts/validator-set.js';
import type { Blockchain } from '../../src/chain/blockchain.js';
import { ContractTestState } from './state.js';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const protocol = await Protocol.create({ crypto: 'waves', chainId: 'T' });
export const developer = protocol.crypto.keyPairFromSeedPhrase('weft contract tests developer');
export const node = protocol.crypto.keyPairFromSeedPhrase('weft contract tests node');
export const developerAddress = protocol.addresses.fromPublicKey(developer.publicKey);

export const BLOCK: BlockInfo = {
  height: 2,
  timestamp: 1_700_000_000_000n,
  minerAddress: protocol.addresses.fromPublicKey(node.publicKey).toString(),
  reference: encodeBase58(new Uint8Array(64).fill(3)),
};

export function nodeContext(): ContractNodeContext {
  return {
    lastBlockInfo: () => BLOCK,
    blockHeaderAt: () => undefined,
    blockHeaderById: () => undefined,
    walletAddresses: () => [developerAddress.toString()],
    now: () => BigInt(Date.now()),
    systemTime: () => BigInt(Date.now()),
  };
}

export interface TestEngineOptions {
  readonly packages?: readonly ContractPackageSettings[];
  readonly log?: RuntimeLog;
  readonly dockerEngine?: Partial<DockerEngineSettings>;
  readonly wasmFuelLimit?: number;
  /** `node.wasm`'s time and memory limits and threads; the defaults when absent. */
  readonly wasmExecution?: WasmExecutionSettings;
  /** The engine's clock (token expiry); default Date.now. */
  readonly now?: () => bigint;
  /** `contract-status-events.max-connections-per-channel`; unset by default. */
  readonly statusStreamsPerChannel?: number;
}

export interface TestEngine {
  readonly engine: ContractEngine;
  readonly state: ContractTestState;
  execute(tx: ExecutableContractTransaction): Promise<ExecutionResult>;
  /** Builds the 105 for an execution (every feature active) and applies it to the state, as a miner would. */
  mine(tx: Transaction, result: ExecutionResult): ExecutedBuild;
  close(): Promise<void>;
}

/** An engine over a fresh state; its files live in a temporary folder removed by `close`. */
export async function startTestEngine(o: TestEngineOptions = {}): Promise<TestEngine> {
  const root = mkdtempSync(join(tmpdir(), 'weft-contract-engine-'));
  mkdirSync(join(root, 'state'));
  const state = ContractTestState.create(protocol, join(root, 'state'));
  const settings: ContractsSettings = {
    enable: true,
    dockerEngine: {
      ...DEFAULT_DOCKER_ENGINE,
      ...o.dockerEngine,
      executionLimits: { ...DEFAULT_DOCKER_ENGINE.executionLimits, ...o.dockerEngine?.executionLimits },
    },
    wasmFuelLimit: o.wasmFuelLimit ?? 20_000,
    ...(o.wasmExecution === undefined ? {} : { wasmExecution: o.wasmExecution }),
    grpc: {
      bindAddress: '127.0.0.1',
      port: 0,
      ...(o.statusStreamsPerChannel === undefined ? {} : { contractStatusMaxConnectionsPerChannel: o.statusStreamsPerChannel }),
    },
    packages: o.packages ?? [],
    packageCacheDirectory: join(root, 'packages'),
  };
  const engine = await startContractEngine({
    settings,
    protocol,
    now: o.now ?? ((): bigint => BigInt(Date.now())),
    nodeKey: node,
    currentView: () => state,
    node: nodeContext(),
    log: o.log,
  });
  return {
    engine,
    state,
    execute: (tx) => engine.executor.execute(tx, { view: state, blockInfo: BLOCK }),
    mine: (tx, result) => mineInto(state, tx, result),
    close: async () => {
      await engine.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * Executes until a run succeeds, at most `attempts` times: a fresh SDK 1.0.14 contract may
 * lose its first transaction to its threads' race to connect (the broker then moves the
 * work to the next stream), as a pool would retry it.
 */
export async function firstSuccess(te: TestEngine, make: () => ExecutableContractTransaction, attempts = 5): Promise<ExecutionResult> {
  let r: ExecutionResult | undefined;
  for (let i = 0; i < attempts; i++) {
    r = await te.execute(make());
    if (r.kind === 'success') return r;
  }
  return r!;
}

/** The context a 105 is applied in: the test block, mined by `node`, every feature active. */
export const APPLY_CONTEXT = {
  height: BLOCK.height,
  blockTimestamp: BLOCK.timestamp,
  isFeatureActive: () => true,
  senderRoleEnabled: false,
  blockGenerator: node.publicKey,
  applyInner: () => {
    throw new Error('no atomic containers here');
  },
};

/** Gives an account WEST and the contract_developer role. */
export function fund(state: ContractTestState, key: KeyPair = developer, amount = 1_000n * 100_000_000n): void {
  const address = protocol.addresses.fromPublicKey(key.publicKey).bytes;
  state.addBalance(address, null, amount);
  state.addPermissionOp(address, { opType: 'add', role: ROLES.contract_developer, timestamp: 0n, dueTimestamp: null });
}

export function mineInto(state: ContractTestState, tx: Transaction, result: ExecutionResult): ExecutedBuild {
  const built = buildExecutedContract(tx, result, { protocol, isFeatureActive: () => true, miner: node, timestamp: BLOCK.timestamp + 1n });
  if (built.kind === 'built') {
    applyExecutedContract(state, built.executed, APPLY_CONTEXT);
    // Confirmed as a block's transaction is (chain/validation.ts): readers find the 105 by id.
    state.addTransaction(built.executed);
  }
  return built;
}

const params = (o: Readonly<Record<string, string | number | boolean>>): DataEntry[] =>
  Object.entries(o).map(([key, value]) =>
    typeof value === 'number'
      ? { key, type: 'integer', value: BigInt(value) }
      : typeof value === 'boolean'
        ? { key, type: 'boolean', value }
        : { key, type: 'string', value },
  );

let clock = 1_700_000_000_000n;
const nextTimestamp = (): bigint => ++clock;

/** Timestamps of the transactions built here continue from `now` (a running node refuses old ones). */
export function timestampsFrom(now: bigint): void {
  if (now > clock) clock = now;
}

function signed<T extends Transaction>(codec: TypedTxCodec<T>, version: number, data: object, key: KeyPair = developer): T {
  return protocol.sign(protocol.transaction(codec, version, data), key.privateKey);
}

/** A CreateContract V5 of a Docker-protocol image. */
export function createTx(
  image: string,
  imageHash: string,
  p: Readonly<Record<string, string | number | boolean>>,
  key: KeyPair = developer,
): CreateContractTransaction {
  return signed(
    CreateContract,
    5,
    {
      senderPublicKey: key.publicKey,
      image,
      imageHash,
      contractName: 'kv',
      params: params(p),
      fee: 100_000_000n,
      timestamp: nextTimestamp(),
      feeAssetId: null,
      atomicBadge: null,
      validationPolicy: { type: 'any' },
      apiVersion: { major: 1, minor: 0 },
      payments: [],
    },
    key,
  );
}

/** A CallContract V5. */
export function callTx(
  contractId: Uint8Array,
  p: Readonly<Record<string, string | number | boolean>>,
  version = 1,
  key: KeyPair = developer,
): CallContractTransaction {
  return signed(
    CallContract,
    5,
    {
      senderPublicKey: key.publicKey,
      contractId,
      params: params(p),
      fee: 10_000_000n,
      timestamp: nextTimestamp(),
      contractVersion: version,
      feeAssetId: null,
      atomicBadge: null,
      payments: [],
    },
    key,
  );
}

/** An UpdateContract V4 to another image. */
export function updateTx(contractId: Uint8Array, image: string, imageHash: string, key: KeyPair = developer): UpdateContractTransaction {
  return signed(
    UpdateContract,
    4,
    {
      senderPublicKey: key.publicKey,
      contractId,
      image,
      imageHash,
      fee: 100_000_000n,
      timestamp: nextTimestamp(),
      feeAssetId: null,
      atomicBadge: null,
      validationPolicy: { type: 'any' },
      apiVersion: { major: 1, minor: 0 },
    },
    key,
  );
}

export { params };

/** A CreateContract V7 of a stored contract (Docker image or WASM bytecode). */
export function createV7(
  storedContract: StoredContract,
  p: readonly DataEntry[] | Readonly<Record<string, string | number | boolean>>,
  key: KeyPair = developer,
): CreateContractTransaction {
  return signed(
    CreateContract,
    7,
    {
      senderPublicKey: key.publicKey,
      contractName: 'v7',
      params: Array.isArray(p) ? p : params(p as Readonly<Record<string, string | number | boolean>>),
      fee: 100_000_000n,
      timestamp: nextTimestamp(),
      feeAssetId: null,
      atomicBadge: null,
      validationPolicy: { type: 'any' },
      payments: [],
      isConfidential: false,
      groupParticipants: [],
      groupOwners: [],
      storedContract,
    },
    key,
  );
}

/** A CallContract V7 (`contractEngine`, `callFunc`), with optional payments. */
export function callV7(
  contractId: Uint8Array,
  engine: 'docker' | 'wasm',
  callFunc: string | null,
  p: readonly DataEntry[] | Readonly<Record<string, string | number | boolean>>,
  payments: readonly ContractTransferIn[] = [],
  key: KeyPair = developer,
): CallContractTransaction {
  return signed(
    CallContract,
    7,
    {
      senderPublicKey: key.publicKey,
      contractId,
      params: Array.isArray(p) ? p : params(p as Readonly<Record<string, string | number | boolean>>),
      fee: 10_000_000n,
      timestamp: nextTimestamp(),
      contractVersion: 1,
      feeAssetId: null,
      atomicBadge: null,
      payments,
      inputCommitmentOpt: null,
      contractEngine: engine,
      callFunc,
    },
    key,
  );
}

/** The validators of the key block `keyBlock()` names, read from `state` (KeyBlockValidators over the parts of a chain it reads). */
export function keyBlockValidators(state: ContractTestState, keyBlock: () => { readonly id: Uint8Array; readonly timestamp: bigint }): KeyBlockValidators {
  return new KeyBlockValidators({ protocol, height: () => 2, headerAt: () => keyBlock(), state: () => state } as unknown as Blockchain);
}
