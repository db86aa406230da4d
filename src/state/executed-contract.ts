/**
 * Which ExecutedContract (105) executed an executable transaction (103, 104, 107): the one
 * lookup every reader of that link goes through (the contracts routes, confidential calls'
 * answers and state). /transactions/info and the address lists need none of it: the store
 * records the executable transaction itself with its 105 (view.ts addExecutedTransaction, written
 * by the store's flush).
 */
import { ExecutedContract, type ExecutedContractTransaction } from '../protocol/transactions/contracts-executed.js';
import type { ContractStateReader, TransactionReader } from './view.js';

/** The ExecutedContract (105) in `view` that executed the transaction `txId`; undefined until one is applied. */
export function executedContractFor(
  view: Pick<ContractStateReader, 'executedTxFor'> & Pick<TransactionReader, 'transactionById'>,
  txId: Uint8Array,
): ExecutedContractTransaction | undefined {
  const executedId = view.executedTxFor(txId);
  const executed = executedId === undefined ? undefined : view.transactionById(executedId);
  return executed !== undefined && ExecutedContract.is(executed) ? executed : undefined;
}
