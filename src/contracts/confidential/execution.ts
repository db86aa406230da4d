/**
 * A confidential call on the miner (WE's ConfidentialCallPermittedSetup and
 * buildConfidentialExecutedTx for CallContract V6):
 *
 * - only a miner among the contract's group participants executes it, and only once it holds
 *   the call's confidential input (from its own `/confidential-contracts/call` or from a
 *   peer of the group) and every output of the contract's mined confidential calls; until
 *   then the call stays in the pool;
 * - a miner outside the group builds the call's 105 V4 from the results its validators
 *   agreed on (WE's ConfidentialUnpermittedSetupProcess; validation-gate.ts), with no
 *   output of its own;
 * - the contract gets the input's entries as the call's params, and reads its own data
 *   as its confidential state shows it (state.ts); its reads are journaled (readings.ts);
 * - a success becomes an ExecutedContract V4 with no public results: `resultsHash` over the
 *   real results, `outputCommitment` = secureHash(results bytes ‖ the input's commitment
 *   key), the call's `readings` and `readingsHash`; the results are kept off-chain as the
 *   call's confidential output and announced to the group (a validator keeps its output
 *   without announcing it). An error or failure goes as for any call (result.ts).
 */
import { CallContract, contractResultsHash, ExecutedContract } from '../../protocol/transactions/contracts.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import { isGroupParticipant } from '../../state/contract-info.js';
import type { ContractStateReader, TransactionReader } from '../../state/view.js';
import type { ContractExecutionView } from '../state.js';
import { buildExecutedContract, type ExecutedBuild, type ExecutedBuildContext, type ExecutionResult } from '../result.js';
import { entriesCommitment, type ConfidentialDataUnit } from './data.js';
import type { ConfidentialState } from './state.js';
import type { ConfidentialStorage } from './storage.js';
import type { Readings } from './readings.js';
import { ResultReadings, type ConfidentialResults } from '../validator-results.js';
import type { Protocol } from '../../protocol/protocol.js';

/** What the miner does with an executable transaction as far as confidentiality goes. */
export type ConfidentialPreparation =
  | { readonly kind: 'plain' }
  | { readonly kind: 'skip'; readonly reason: string }
  /** This node is not in the contract's group: its validators' results make the 105. */
  | { readonly kind: 'unpermitted' }
  /** Executable here: with its input as params, on `view` (the contract's confidential state shown as its data). */
  | { readonly kind: 'confidential'; readonly input: ConfidentialDataUnit; readonly view: ContractExecutionView };

export interface ConfidentialExecutionOptions {
  readonly protocol: Protocol;
  readonly storage: ConfidentialStorage;
  readonly confidentialState: ConfidentialState;
  /** The miner's node owner address (26 bytes). */
  readonly ownerAddress: Uint8Array;
  /** Tells the group's peers this node holds a unit (replication). */
  announce(type: 'input' | 'output', unit: ConfidentialDataUnit): void;
  /** Whether an output of the contract that the chain holds has not reached this node yet (replication). */
  missingOutputs(contractId: Uint8Array): boolean;
}

const PLAIN: ConfidentialPreparation = { kind: 'plain' };

export class ConfidentialExecution {
  constructor(private readonly o: ConfidentialExecutionOptions) {}

  /** Whether `tx` calls a confidential contract (a CallContract V6 to one): cheap, no confidential state read. */
  isConfidentialCall(tx: Transaction, view: Pick<ContractExecutionView, 'contract'>): boolean {
    return CallContract.is(tx) && tx.version === 6 && view.contract(tx.data.contractId)?.isConfidential === true;
  }

  /** Whether `tx` is a confidential call, and if so whether this node can execute it now. */
  prepare(tx: Transaction, view: ContractExecutionView & Pick<ContractStateReader, 'executedTxFor'> & TransactionReader): ConfidentialPreparation {
    if (!CallContract.is(tx) || !this.isConfidentialCall(tx, view)) return PLAIN;
    const info = view.contract(tx.data.contractId)!;
    if (!isGroupParticipant(info, this.o.ownerAddress)) return { kind: 'unpermitted' };
    const input = this.o.storage.get('input', tx.data.inputCommitment!);
    if (input === undefined) return { kind: 'skip', reason: 'the confidential input is not here yet' };
    if (this.o.missingOutputs(info.contractId)) return { kind: 'skip', reason: 'outputs of earlier confidential calls are not here yet' };
    return { kind: 'confidential', input, view: this.o.confidentialState.overlay(view, info.contractId) };
  }

  /** What validators sign for a successful confidential execution (undefined for an error: it becomes a plain 105). */
  resultsOf(result: ExecutionResult, input: ConfidentialDataUnit, readings: Readings | undefined): ConfidentialResults | undefined {
    if (result.kind !== 'success') return undefined;
    const results = result.results.flatMap((c) => [...c.results]);
    const { readings: descriptors, readingsHash } = readings ?? NO_READINGS;
    return {
      readings: ResultReadings.of(this.o.protocol, descriptors),
      readingsHash,
      outputCommitment: entriesCommitment(results, input.commitmentKey, this.o.protocol),
    };
  }

  /**
   * The 105 V4 of a confidential call's execution, with `confidential` its results (resultsOf,
   * worked out once by the caller, which signs or checks proofs over them too); its output is
   * kept, and announced unless `announce` is false (a validator's own 105, never mined).
   */
  build(
    tx: Transaction,
    result: ExecutionResult,
    input: ConfidentialDataUnit,
    ctx: ExecutedBuildContext,
    confidential: ConfidentialResults | undefined,
    announce = true,
  ): ExecutedBuild {
    if (result.kind !== 'success' || confidential === undefined) return buildExecutedContract(tx, result, ctx);
    const results = result.results.flatMap((c) => [...c.results]);
    const built = signExecutedV4(tx, contractResultsHash(ctx.protocol, results, []), confidential, ctx);
    if (built.kind === 'none') return built;
    const output: ConfidentialDataUnit = {
      commitment: confidential.outputCommitment,
      txId: tx.id,
      contractId: input.contractId,
      commitmentKey: input.commitmentKey,
      entries: results,
    };
    this.o.storage.save('output', output);
    if (announce) this.o.announce('output', output);
    return built;
  }

  /** The 105 V4 of a call this miner could not execute, from what its validators agreed on (no output here). */
  buildFromValidators(
    tx: Transaction,
    agreed: { readonly resultsHash: Uint8Array; readonly confidential: ConfidentialResults },
    ctx: ExecutedBuildContext,
  ): ExecutedBuild {
    return signExecutedV4(tx, agreed.resultsHash, agreed.confidential, ctx);
  }
}

const NO_READINGS: Readings = { readings: [], readingsHash: null };

function signExecutedV4(tx: Transaction, resultsHash: Uint8Array, confidential: ConfidentialResults, ctx: ExecutedBuildContext): ExecutedBuild {
  const p = ctx.protocol;
  try {
    const executed = p.sign(
      p.transaction(ExecutedContract, 4, {
        senderPublicKey: ctx.miner.publicKey,
        tx,
        results: [],
        resultsHash,
        validationProofs: ctx.validationProofs ?? [],
        timestamp: ctx.timestamp,
        assetOperations: [],
        readings: [...confidential.readings.descriptors],
        readingsHash: confidential.readingsHash,
        outputCommitment: confidential.outputCommitment,
      }),
      ctx.miner.privateKey,
    );
    return { kind: 'built', executed };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { kind: 'none', reason: message, status: { status: 'Failure', code: null, message }, staysInPool: false };
  }
}
