/**
 * The validation policy an execution answers to (reference contracts.md §1.8), for the
 * validator deciding whether to send its results (validating.ts) and for the miner deciding
 * which proofs the 105 needs (validation-gate.ts): the policy of the contract the
 * executable transaction runs — none while that contract is not known, the execution then
 * reports it — and, for a V5 (WASM-era) execution, the policies of the contracts it touched.
 */
import { WeError } from '../errors/catalogue.js';
import type { ExecutableContractTransaction, ValidationPolicy } from '../protocol/transactions/contracts.js';
import { policyOf } from '../state/appliers/contracts.js';
import type { MutableState } from '../state/view.js';
import type { ExecutionResult } from './result.js';

/** The policy of the contract `tx` executes (WE's validationPolicy), undefined while that contract is not known. */
export function knownPolicyOf(state: MutableState, tx: ExecutableContractTransaction): ValidationPolicy | undefined {
  try {
    return policyOf(state, tx);
  } catch (e) {
    if (e instanceof WeError) return undefined;
    throw e;
  }
}

/** The policies of the contracts a successful execution wrote data or moved assets of (contracts not known are left out). */
export function touchedPolicies(state: MutableState, result: ExecutionResult): ValidationPolicy[] {
  if (result.kind !== 'success') return [];
  const touched = [...result.results.map((r) => r.contractId), ...result.assetOperations.map((o) => o.contractId)];
  return touched.flatMap((id) => state.contract(id)?.validationPolicy ?? []);
}
