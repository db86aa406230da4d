/**
 * A confidential call on the miner (WE's ConfidentialCallPermittedSetup and
 * buildConfidentialExecutedTx for CallContract V6):
 *
 * - only a miner among the contract's group participants executes it, and only once it holds
 *   the call's confidential input (from its own `/confidential-contracts/call` or from a
 *   peer of the group) and every output of the contract's mined confidential calls; until
 *   then the call stays in the pool;
 * - the contract gets the input's entries as the call's params, and reads its own data
 *   as its confidential state shows it (state.ts);
 * - a success becomes an ExecutedContract V4 with no public results: `resultsHash` over the
 *   real results, `outputCommitment` = secureHash(results bytes ‖ the input's commitment
 *   key), `readings` empty and `readingsHash` absent (this node keeps no journal of the
 *   contract's reads); the results are kept off-chain as the call's confidential output and
 *   announced to the group. An error or failure goes as for any call (result.ts).
 */
import { CallContract, contractResultsHash, ExecutedContract } from '../../protocol/transactions/contracts.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import { isGroupParticipant } from '../../state/contract-info.js';
import type { StateView } from '../../state/view.js';
import type { ContractExecutionView } from '../state.js';
import { buildExecutedContract, type ExecutedBuild, type ExecutedBuildContext, type ExecutionResult } from '../result.js';
import { entriesCommitment, type ConfidentialDataUnit } from './data.js';
import type { ConfidentialState } from './state.js';
import type { ConfidentialStorage } from './storage.js';

/** What the miner does with an executable transaction as far as confidentiality goes. */
export type ConfidentialPreparation =
  | { readonly kind: 'plain' }
  | { readonly kind: 'skip'; readonly reason: string }
  /** Executable here: with its input as params, on `view` (the contract's confidential state shown as its data). */
  | { readonly kind: 'confidential'; readonly input: ConfidentialDataUnit; readonly view: ContractExecutionView };

export interface ConfidentialExecutionOptions {
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
  prepare(tx: Transaction, view: ContractExecutionView & Pick<StateView, 'executedTxFor' | 'transactionById' | 'transactionHeight'>): ConfidentialPreparation {
    if (!CallContract.is(tx) || !this.isConfidentialCall(tx, view)) return PLAIN;
    const info = view.contract(tx.data.contractId)!;
    if (!isGroupParticipant(info, this.o.ownerAddress)) return { kind: 'skip', reason: 'the miner is not a participant of the confidential contract' };
    const input = this.o.storage.get('input', tx.data.inputCommitment!);
    if (input === undefined) return { kind: 'skip', reason: 'the confidential input is not here yet' };
    if (this.o.missingOutputs(info.contractId)) return { kind: 'skip', reason: 'outputs of earlier confidential calls are not here yet' };
    return { kind: 'confidential', input, view: this.o.confidentialState.overlay(view, info.contractId) };
  }

  /** The 105 V4 of a confidential call's execution; its output is kept and announced. */
  build(tx: Transaction, result: ExecutionResult, input: ConfidentialDataUnit, ctx: ExecutedBuildContext): ExecutedBuild {
    if (result.kind !== 'success') return buildExecutedContract(tx, result, ctx);
    const results = result.results.flatMap((c) => [...c.results]);
    const p = ctx.protocol;
    const outputCommitment = entriesCommitment(results, input.commitmentKey, p);
    let executed: Transaction;
    try {
      executed = p.sign(
        p.transaction(ExecutedContract, 4, {
          senderPublicKey: ctx.miner.publicKey,
          tx,
          results: [],
          resultsHash: contractResultsHash(p, results, []),
          validationProofs: ctx.validationProofs ?? [],
          timestamp: ctx.timestamp,
          assetOperations: [],
          readings: [],
          readingsHash: null,
          outputCommitment,
        }),
        ctx.miner.privateKey,
      );
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      return { kind: 'none', reason: message, status: { status: 'Failure', code: null, message }, staysInPool: false };
    }
    const output: ConfidentialDataUnit = { commitment: outputCommitment, txId: tx.id, contractId: input.contractId, commitmentKey: input.commitmentKey, entries: results };
    this.o.storage.save('output', output);
    this.o.announce('output', output);
    return { kind: 'built', executed };
  }
}
