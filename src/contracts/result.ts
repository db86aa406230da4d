/**
 * What an execution came to, and what WE does with it (reference contracts.md §1.5, §1.7):
 * the status message it leaves, whether the executable transaction stays in the pool, and
 * the ExecutedContract (105) the miner mines for it — its version chosen as
 * MinerTransactionsExecutor chooses it:
 *
 *   103 V7 / 104 V7 / 107 V6          → V5: resultsMap, assetOperationsMap, statusCode, errorMessage
 *   other docker 107 (image checked)  → V1 without results
 *   other 103 / 104                   → V1 before feature 162, V2 after, V3 once 1120 is active
 *
 * Legacy transactions get a 105 only on success; V7 ones also on a contract error (its code
 * as statusCode). Results that cannot make a valid 105 (bad keys, too big, asset
 * operations before their feature) take a legacy transaction out of the pool with WE's
 * "Executed transaction creation error" Failure (its rule for V7 and update transactions:
 * WE leaves a legacy one in the pool without a status, to be executed again for nothing
 * on every key block until it expires); a V7 one gets a 105 with statusCode 1 and the
 * error instead.
 */
import { FEATURE } from '../protocol/features.js';
import type { Protocol } from '../protocol/protocol.js';
import type { KeyPair } from '../crypto/suite.js';
import {
  CallContract,
  contractResultsHash,
  contractResultsMapHash,
  CreateContract,
  ExecutedContract,
  UpdateContract,
  type ContractAssetOperation,
  type ContractOperations,
  type ContractResults,
  type ExecutedContractTransaction,
  type ValidationProof,
} from '../protocol/transactions/contracts.js';
import type { DataEntry } from '../protocol/transactions/fields.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { NODE_FAILURE_CODE, RECOVERABLE_ERROR_CODE, WeError } from '../errors/catalogue.js';

/** The outcome of running (or trying to run) an executable transaction. */
export type ExecutionResult =
  /** Results per contract (a WASM call may touch several; a Docker contract only its own). */
  | { readonly kind: 'success'; readonly results: readonly ContractResults[]; readonly assetOperations: readonly ContractOperations[] }
  /** A Docker UpdateContract whose image checked out (the contract is not run). */
  | { readonly kind: 'update' }
  /** The contract (or the node around its run) reported an error; `code` as WE records it. */
  | { readonly kind: 'error'; readonly code: number; readonly message: string }
  /** The transaction could not be executed at all (start-up, image, unknown contract); `fatal` ones leave the pool. */
  | { readonly kind: 'failure'; readonly code: number | undefined; readonly message: string; readonly fatal: boolean };

export type ExecutionStatus = 'Success' | 'Error' | 'Failure';

/** A status message to record for the executable transaction. */
export interface StatusDraft {
  readonly status: ExecutionStatus;
  readonly code: number | null;
  readonly message: string;
}

/** Whether a transaction carries WE 1.14's execution fields (its 105 is a V5). */
export function isV5Executable(tx: Transaction): boolean {
  return (CreateContract.is(tx) && tx.version >= 7) || (CallContract.is(tx) && tx.version >= 7) || (UpdateContract.is(tx) && tx.version >= 6);
}

export const SUCCESS_MINED_MESSAGE = 'Contract transaction successfully mined';

/** The status an execution leaves at once (a success gets its `Success` when its 105 is mined). */
export function statusOf(result: ExecutionResult): StatusDraft | undefined {
  switch (result.kind) {
    case 'success':
    case 'update':
      return undefined;
    case 'error':
      return { status: result.code === RECOVERABLE_ERROR_CODE ? 'Failure' : 'Error', code: result.code, message: result.message };
    case 'failure':
      return { status: 'Failure', code: result.code ?? null, message: result.message };
  }
}

/**
 * Whether the executable transaction stays in the pool for another try. A transaction that
 * gets a 105 leaves with it; a legacy one with error 0/2 is dropped (WE's handleError), one
 * with error 1 or an unknown code stays; failures stay unless fatal.
 */
export function staysInPool(tx: Transaction, result: ExecutionResult): boolean {
  switch (result.kind) {
    case 'success':
    case 'update':
      return false;
    case 'error':
      if (isV5Executable(tx)) return false;
      return result.code !== NODE_FAILURE_CODE && result.code !== 0;
    case 'failure':
      return !result.fatal;
  }
}

export interface ExecutedBuildContext {
  readonly protocol: Protocol;
  /** Whether a feature is active at the height the 105 goes into. */
  isFeatureActive(id: number): boolean;
  /** The miner: the 105's sender and signer. */
  readonly miner: KeyPair;
  readonly timestamp: bigint;
  /** Validators' proofs collected for the results hash (empty for policy `any`). */
  readonly validationProofs?: readonly ValidationProof[];
  /** The 105 is built without its proof: the caller signs it (protocol.sign with the miner's key) before it is mined. */
  readonly unsigned?: boolean;
}

/** The 105 for an execution, or why none can be built (then `status` tells what to record). */
export type ExecutedBuild =
  | { readonly kind: 'built'; readonly executed: ExecutedContractTransaction; readonly status?: StatusDraft }
  | { readonly kind: 'none'; readonly reason: string; readonly status?: StatusDraft; readonly staysInPool: boolean };

const flattenResults = (results: readonly ContractResults[]): DataEntry[] => results.flatMap((c) => [...c.results]);
const flattenOperations = (ops: readonly ContractOperations[]): ContractAssetOperation[] => ops.flatMap((c) => [...c.operations]);

/** Whether a 105 — and so a results hash (resultsHashOf) — comes of an execution: not of a failure, nor of a legacy transaction's error. */
export function hasResultsHash(tx: Transaction, result: ExecutionResult): boolean {
  if (result.kind === 'failure') return false;
  return isV5Executable(tx) || result.kind !== 'error';
}

/**
 * The results hash of the 105 an execution becomes, as validators sign it: V5 form for
 * 103 V7 / 104 V7 / 107 V6 (empty for a contract error), the legacy form otherwise (an
 * update's empty results). Undefined when no 105 comes of it (a failure, a legacy error).
 */
export function resultsHashOf(protocol: Protocol, tx: Transaction, result: ExecutionResult): Uint8Array | undefined {
  if (result.kind === 'failure') return undefined;
  if (isV5Executable(tx)) {
    return result.kind === 'success' ? contractResultsMapHash(protocol, result.results, result.assetOperations) : contractResultsMapHash(protocol, [], []);
  }
  if (result.kind === 'error') return undefined;
  if (result.kind === 'update') return contractResultsHash(protocol, [], []);
  return contractResultsHash(protocol, flattenResults(result.results), flattenOperations(result.assetOperations));
}

/** WE's ValidationError rendered with its Scala toString (what lands in errorMessage). */
function scalaError(e: unknown): string {
  if (e instanceof WeError) return `${e.kind}(${e.message})`;
  return e instanceof Error ? e.message : String(e);
}

function sign(ctx: ExecutedBuildContext, version: number, data: object): ExecutedContractTransaction {
  const tx = ctx.protocol.transaction(ExecutedContract, version, { senderPublicKey: ctx.miner.publicKey, ...data });
  return ctx.unsigned === true ? tx : ctx.protocol.sign(tx, ctx.miner.privateKey);
}

function v5(
  ctx: ExecutedBuildContext,
  tx: Transaction,
  results: readonly ContractResults[],
  ops: readonly ContractOperations[],
  statusCode: number,
  errorMessage: string | null,
): ExecutedContractTransaction {
  return sign(ctx, 5, {
    tx,
    resultsMap: results,
    resultsHash: contractResultsMapHash(ctx.protocol, results, ops),
    validationProofs: ctx.validationProofs ?? [],
    timestamp: ctx.timestamp,
    readings: [],
    readingsHash: null,
    outputCommitmentOpt: null,
    assetOperationsMap: ops,
    statusCode,
    errorMessage,
  });
}

function legacy(ctx: ExecutedBuildContext, tx: Transaction, results: DataEntry[], ops: ContractAssetOperation[]): ExecutedContractTransaction {
  if (!ctx.isFeatureActive(FEATURE.CONTRACT_VALIDATIONS)) {
    if (ops.length > 0) throw new WeError('BaseAssetOpsNotSupported', 199, 'BaseAssetOpsNotSupported');
    return sign(ctx, 1, { tx, results, timestamp: ctx.timestamp });
  }
  if (!ctx.isFeatureActive(FEATURE.CONTRACT_NATIVE_TOKENS_AND_PKI) && ops.length > 0)
    throw new WeError('BaseAssetOpsNotSupported', 199, 'BaseAssetOpsNotSupported');
  if (!ctx.isFeatureActive(FEATURE.LEASE_OPS_FOR_CONTRACTS) && ops.some((o) => o.operationType === 'lease' || o.operationType === 'cancel-lease')) {
    throw new WeError('LeaseAssetOpsNotSupported', 199, 'LeaseAssetOpsNotSupported');
  }
  const common = {
    tx,
    results,
    resultsHash: contractResultsHash(ctx.protocol, results, ops),
    validationProofs: ctx.validationProofs ?? [],
    timestamp: ctx.timestamp,
  };
  if (ctx.isFeatureActive(FEATURE.CONTRACT_NATIVE_TOKENS_AND_PKI)) return sign(ctx, 3, { ...common, assetOperations: ops });
  return sign(ctx, 2, common);
}

/** The ExecutedContract the miner puts into its micro-block for `tx`, as WE builds it. */
export function buildExecutedContract(tx: Transaction, result: ExecutionResult, ctx: ExecutedBuildContext): ExecutedBuild {
  const status = statusOf(result);
  if (result.kind === 'failure') return { kind: 'none', reason: result.message, status, staysInPool: !result.fatal };
  if (result.kind === 'update') {
    try {
      return { kind: 'built', executed: sign(ctx, 1, { tx, results: [], timestamp: ctx.timestamp }) };
    } catch (e) {
      return creationFailed(tx, e);
    }
  }
  if (isV5Executable(tx)) {
    try {
      if (result.kind === 'error') return { kind: 'built', executed: v5(ctx, tx, [], [], result.code, result.message), status };
      return { kind: 'built', executed: v5(ctx, tx, result.results, result.assetOperations, 0, null) };
    } catch (e) {
      if (result.kind === 'error') return creationFailed(tx, e);
      // WE: handleExecutionError(RecoverableErrorCode, err.toString) — a 105 with status 1 instead.
      const message = scalaError(e);
      try {
        return {
          kind: 'built',
          executed: v5(ctx, tx, [], [], RECOVERABLE_ERROR_CODE, message),
          status: { status: 'Failure', code: RECOVERABLE_ERROR_CODE, message },
        };
      } catch (again) {
        return creationFailed(tx, again);
      }
    }
  }
  if (result.kind === 'error') return { kind: 'none', reason: result.message, status, staysInPool: staysInPool(tx, result) };
  try {
    return { kind: 'built', executed: legacy(ctx, tx, flattenResults(result.results), flattenOperations(result.assetOperations)) };
  } catch (e) {
    // WE returns the error to its miner loop: no status, and the same results again on every key block. Its rule for the
    // other transactions instead: the transaction leaves the pool with a Failure every node sees.
    return creationFailed(tx, e);
  }
}

/** WE's handleExecutedTxCreationFailed: the transaction leaves the pool with a Failure status. */
function creationFailed(tx: Transaction, e: unknown): ExecutedBuild {
  const message = `Executed transaction creation error: '${scalaError(e)}'`;
  return { kind: 'none', reason: message, status: { status: 'Failure', code: null, message }, staysInPool: false };
}
