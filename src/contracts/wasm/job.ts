/**
 * What the node hands a WASM execution thread (engine.ts → worker.ts) and what comes back:
 * a job names the function to run, its contract's bytecode, the transaction as the run
 * sees it and the fuel budget; the outcome is the execution's results or its error, in
 * the structured-clone form messages between threads carry (class instances travel as
 * their fields: `reviveOutcome` makes the results the node's types again).
 */
import { Address } from '../../crypto/address.js';
import { ByteWriter } from '../../protocol/bytes.js';
import type { ContractAssetOperation, ContractOperations, ContractResults } from '../../protocol/transactions/contracts.js';
import { CONTRACT_DATA_ENTRY, type DataEntry } from '../../protocol/transactions/fields.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import type { WasmExecutionTx } from './service.js';

/** wevm's DataEntry params: `u16 count ‖ (u16 key length ‖ key ‖ type ‖ value)*`. */
export function serializeParams(params: readonly DataEntry[], p: Transaction['protocol']): Uint8Array {
  const w = new ByteWriter(64).u16(params.length);
  for (const e of params) CONTRACT_DATA_ENTRY.write(w, e, p);
  return w.result();
}

export interface WasmJob {
  readonly contractId: Uint8Array;
  readonly bytecode: Uint8Array;
  /** The export to run (`_constructor` for a create). */
  readonly func: string;
  /** The params in wevm's form (serializeParams). */
  readonly params: Uint8Array;
  readonly tx: WasmExecutionTx;
  /** The last block's timestamp. */
  readonly blockTimestamp: bigint;
  /** `node.wasm.fuel-limit`: the budget of the whole call tree. */
  readonly fuelLimit: number;
}

export type WasmOutcome =
  | { readonly kind: 'success'; readonly results: readonly ContractResults[]; readonly assetOperations: readonly ContractOperations[] }
  | { readonly kind: 'error'; readonly code: number; readonly message: string };

/** WE's status message of a failed WASM execution. */
export function wasmFailure(code: number, message?: string): WasmOutcome {
  return { kind: 'error', code, message: `contract failed with error code ${code}${message === undefined ? '' : ` and message ${message}`}` };
}

/** An outcome as a message brought it: the recipients of transfers and leases are Addresses again. */
export function reviveOutcome(o: WasmOutcome): WasmOutcome {
  if (o.kind === 'error') return o;
  const revive = (op: ContractAssetOperation): ContractAssetOperation =>
    op.operationType === 'transfer' || op.operationType === 'lease'
      ? { ...op, recipient: new Address((op.recipient as { readonly bytes: Uint8Array }).bytes) }
      : op;
  return { ...o, assetOperations: o.assetOperations.map((c) => ({ contractId: c.contractId, operations: c.operations.map(revive) })) };
}
