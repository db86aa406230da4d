/**
 * A contract engine for tests: the real one (tokens, gRPC server on a free loopback port,
 * runtimes, executor) over a ContractTestState, with settings overridable per test.
 */
import { encodeBase58 } from '../../../src/crypto/encoding.js';
import type { KeyPair } from '../../../src/crypto/suite.js';
import { Protocol } from '../../../src/protocol/protocol.js';
import { CallContract, CreateContract, UpdateContract } from '../../../src/protocol/transactions/contracts.js';
import type { DataEntry } from '../../../src/protocol/transactions/fields.js';
import type { Transaction } from '../../../src/protocol/transactions/schema.js';
import { startContractEngine, type ContractEngine } from '../../../src/contracts/engine.js';
import type { ExecutionResult } from '../../../src/contracts/result.js';
import { DEFAULT_DOCKER_ENGINE, type ContractPackageSettings, type ContractsSettings, type DockerEngineSettings } from '../../../src/contracts/settings.js';
import type { BlockInfo, ContractNodeContext } from '../../../src/contracts/state.js';
import { ContractTestState } from './state.js';
import { tempDir } from '../../support/tmp.js';

export const protocol = await Protocol.create({ crypto: 'waves', chainId: 'T' });
export const developer = protocol.crypto.keyPairFromSeedPhrase('weft contract tests developer');
export const node = protocol.crypto.keyPairFromSeedPhrase('weft contract tests node');
export const developerAddress = protocol.addresses.fromPublicKey(developer.publicKey);

export const BLOCK: BlockInfo = { height: 2, timestamp: 1_700_000_000_000n, minerAddress: protocol.addresses.fromPublicKey(node.publicKey).toString(), reference: encodeBase58(new Uint8Array(64).fill(3)) };

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
  readonly dockerEngine?: Partial<DockerEngineSettings>;
  readonly wasmFuelLimit?: number;
}

export interface TestEngine {
  readonly engine: ContractEngine;
  readonly state: ContractTestState;
  execute(tx: Transaction): Promise<ExecutionResult>;
  close(): Promise<void>;
}

export async function startTestEngine(o: TestEngineOptions = {}): Promise<TestEngine> {
  const state = ContractTestState.create(protocol);
  const settings: ContractsSettings = {
    enable: true,
    dockerEngine: { ...DEFAULT_DOCKER_ENGINE, ...o.dockerEngine, executionLimits: { ...DEFAULT_DOCKER_ENGINE.executionLimits, ...o.dockerEngine?.executionLimits } },
    wasmFuelLimit: o.wasmFuelLimit ?? 20_000,
    grpc: { bindAddress: '127.0.0.1', port: 0 },
    packages: o.packages ?? [],
    packageCacheDirectory: tempDir('weft-contract-cache-'),
  };
  const engine = await startContractEngine({
    settings,
    protocol,
    now: () => BigInt(Date.now()),
    nodeKey: node,
    currentView: () => state,
    node: nodeContext(),
  });
  return {
    engine,
    state,
    execute: (tx) => engine.executor.execute(tx, { view: state, blockInfo: BLOCK }),
    close: () => engine.close(),
  };
}

const params = (o: Readonly<Record<string, string | number | boolean>>): DataEntry[] =>
  Object.entries(o).map(([key, value]) =>
    typeof value === 'number' ? { key, type: 'integer', value: BigInt(value) } : typeof value === 'boolean' ? { key, type: 'boolean', value } : { key, type: 'string', value },
  );

let clock = 1_700_000_000_000n;
const nextTimestamp = (): bigint => ++clock;

function signed(codec: Parameters<Protocol['transaction']>[0], version: number, data: object, key: KeyPair = developer): Transaction {
  return protocol.sign(protocol.transaction(codec, version, data), key.privateKey);
}

/** A CreateContract V5 of a Docker-protocol image. */
export function createTx(image: string, imageHash: string, p: Readonly<Record<string, string | number | boolean>>, key: KeyPair = developer): Transaction {
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
export function callTx(contractId: Uint8Array, p: Readonly<Record<string, string | number | boolean>>, version = 1, key: KeyPair = developer): Transaction {
  return signed(
    CallContract,
    5,
    { senderPublicKey: key.publicKey, contractId, params: params(p), fee: 10_000_000n, timestamp: nextTimestamp(), contractVersion: version, feeAssetId: null, atomicBadge: null, payments: [] },
    key,
  );
}

/** An UpdateContract V4 to another image. */
export function updateTx(contractId: Uint8Array, image: string, imageHash: string, key: KeyPair = developer): Transaction {
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
