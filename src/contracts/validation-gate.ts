/**
 * The miner's side of validation policies (WE's MinerTransactionsExecutor.enoughProofs and
 * selectValidationProofs; reference contracts.md §1.8). With feature 162 active, an
 * executable transaction whose contract's policy is not `any` is executed only once
 * validators agreeing on one results hash reach the majority of the validators at the
 * last block (the miner left out); its 105 then carries exactly that many of their
 * signatures over the miner's own results hash as `validationProofs`. A V5 execution
 * answers to the strictest policy of every contract it touched.
 *
 * A confidential call (104 V6 to a confidential contract) is judged among the contract's
 * group participants that are validators (the miner left out), on their V2 results only,
 * which must agree on readings, readingsHash and outputCommitment as well as the results
 * hash (WE's checkProofsMajorityConfidential). A miner outside the group cannot execute it:
 * it builds the 105 V4 from the agreeing validators' results (WE's
 * ConfidentialUnpermittedSetupProcess) — see `fromValidators`.
 */
import { encodeBase58 } from '../crypto/encoding.js';
import { WeError } from '../errors/catalogue.js';
import { FEATURE } from '../protocol/features.js';
import type { Protocol } from '../protocol/protocol.js';
import type { ValidationProof } from '../protocol/transactions/contracts.js';
import { executedContractIdOf, type ExecutableContractTransaction } from '../protocol/transactions/contracts.js';
import { confidentialContractOf } from '../state/contract-info.js';
import type { MutableState } from '../state/view.js';
import { knownPolicyOf, touchedPolicies } from './execution-policy.js';
import { hasResultsHash, isV5Executable, resultsHashOf, type ExecutionResult } from './result.js';
import {
  agreementKey,
  enoughResults,
  selectProofs,
  strictestPolicy,
  type ConfidentialResults,
  type HeldValidatorResult,
  type ValidatorResultsStore,
  type ValidatorSet,
} from './validator-results.js';
import type { KeyBlockValidators } from './validator-set.js';

/** The key block a miner's micro-blocks go on. */
export interface KeyBlockRef {
  readonly id: Uint8Array;
  readonly timestamp: bigint;
  readonly height: number;
}

export type ProofsVerdict =
  | { readonly kind: 'proofs'; readonly proofs: readonly ValidationProof[] }
  /** Not (or no longer) enough agreeing validators: the transaction stays in the pool. */
  | { readonly kind: 'wait'; readonly reason: string }
  /** The execution cannot become a 105 (incompatible policies): WE drops it with a Failure. */
  | { readonly kind: 'refused'; readonly message: string };

export interface ValidationGateOptions {
  readonly protocol: Protocol;
  readonly store: ValidatorResultsStore;
  /** The validators of the current key block (validator-set.ts: read once per key block). */
  readonly validators: Pick<KeyBlockValidators, 'addresses'>;
  /** The miner's address (Base58): not counted among the validators. */
  readonly minerAddress: string;
  isFeatureActive(id: number, height: number): boolean;
}

export class ValidationGate {
  /** The key block's validators with the miner left out, made again only when the set read changes. */
  private counted: { readonly from: ReadonlySet<string>; readonly set: ValidatorSet } | undefined;

  constructor(private readonly o: ValidationGateOptions) {}

  /** Holders of `contract_validator` at the current key block, the miner left out. */
  private validatorSet(): ValidatorSet {
    const from = this.o.validators.addresses();
    if (this.counted?.from !== from) {
      const addresses = new Set(from);
      addresses.delete(this.o.minerAddress);
      this.counted = { from, set: { addresses } };
    }
    return this.counted.set;
  }

  /** The validators a transaction's results are judged among, and the results that count. */
  private scope(tx: ExecutableContractTransaction, state: MutableState, keyBlock: KeyBlockRef): { validators: ValidatorSet; results: HeldValidatorResult[] } {
    const validators = this.validatorSet();
    const results = this.o.store.find(keyBlock.id, tx.id);
    const confidential = confidentialContractOf(tx, state);
    if (confidential === undefined) return { validators, results };
    const members = new Set(confidential.groupParticipants.map((a) => a.toString()));
    return {
      validators: { addresses: new Set([...validators.addresses].filter((a) => members.has(a))) },
      results: results.filter((r) => r.confidential !== undefined),
    };
  }

  /** May `tx` be executed for a micro-block on `keyBlock` (policy `any`, or enough agreeing results at hand)? */
  ready(tx: ExecutableContractTransaction, state: MutableState, keyBlock: KeyBlockRef): boolean {
    if (!this.o.isFeatureActive(FEATURE.CONTRACT_VALIDATIONS, keyBlock.height)) return true;
    const policy = knownPolicyOf(state, tx);
    if (policy === undefined || policy.type === 'any') return true;
    const { validators, results } = this.scope(tx, state, keyBlock);
    return enoughResults(policy, validators, results);
  }

  /**
   * A confidential call this miner cannot execute (not in the group): the results the
   * largest agreeing group of validators sent, with their proofs, once they reach the
   * policy's majority; undefined while they do not (policy `any` never does).
   */
  fromValidators(
    tx: ExecutableContractTransaction,
    state: MutableState,
    keyBlock: KeyBlockRef,
  ): { resultsHash: Uint8Array; confidential: ConfidentialResults; proofs: readonly ValidationProof[] } | undefined {
    if (!this.o.isFeatureActive(FEATURE.CONTRACT_VALIDATIONS, keyBlock.height)) return undefined;
    const policy = knownPolicyOf(state, tx);
    if (policy === undefined || policy.type === 'any') return undefined;
    const { validators, results } = this.scope(tx, state, keyBlock);
    const tried = new Set<string>();
    let best: { resultsHash: Uint8Array; confidential: ConfidentialResults; proofs: readonly ValidationProof[] } | undefined;
    for (const r of results) {
      if (tried.has(r.agreement) || r.confidential === undefined) continue;
      tried.add(r.agreement);
      const proofs = selectProofs(policy, validators, results, r.agreement);
      if (proofs !== undefined && (best === undefined || proofs.length > best.proofs.length))
        best = { resultsHash: r.resultsHash, confidential: r.confidential, proofs };
    }
    return best;
  }

  /** The proofs the 105 of this execution carries (`confidential`: a confidential call's readings and output commitment). */
  proofs(
    tx: ExecutableContractTransaction,
    result: ExecutionResult,
    state: MutableState,
    keyBlock: KeyBlockRef,
    confidential?: ConfidentialResults,
  ): ProofsVerdict {
    if (!this.o.isFeatureActive(FEATURE.CONTRACT_VALIDATIONS, keyBlock.height)) return { kind: 'proofs', proofs: [] };
    // No 105 comes of it, or a Docker update's V1 (which carries no proofs).
    if (!hasResultsHash(tx, result) || result.kind === 'update') return { kind: 'proofs', proofs: [] };
    const own = knownPolicyOf(state, tx);
    if (own === undefined) return { kind: 'proofs', proofs: [] };
    let policy = own;
    if (isV5Executable(tx) && result.kind === 'success') {
      const policies = [own, ...touchedPolicies(state, result)];
      try {
        policy = strictestPolicy(executedContractIdOf(tx), policies);
      } catch (e) {
        if (e instanceof WeError) return { kind: 'refused', message: `Executed transaction creation error: '${e.kind}(${e.message})'` };
        throw e;
      }
    }
    if (policy.type === 'any') return { kind: 'proofs', proofs: [] };
    // Hashed only here: under policy `any` — most calls — the hash was made for nothing (the 105 makes its own).
    const hash = resultsHashOf(this.o.protocol, tx, result)!;
    const { validators, results } = this.scope(tx, state, keyBlock);
    const proofs = selectProofs(policy, validators, results, agreementKey(this.o.protocol, hash, confidential));
    if (proofs === undefined) return { kind: 'wait', reason: `not enough validators agree on results hash '${encodeBase58(hash)}'` };
    return { kind: 'proofs', proofs };
  }
}
