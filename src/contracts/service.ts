/**
 * What the REST routes (`/contracts/*`) read about contracts: the contract state as of now
 * (the chain's, on every node) and the execution statuses this node's engine recorded —
 * none on a node that runs no engine, as on a WE node without `docker-engine`.
 */
import type { AssetInfo, LeaseBalance } from '../state/model.js';
import type { TransactionReader } from '../state/view.js';
import type { ContractStateReader } from './state.js';
import type { ContractExecutionMessage, ExecutionStatusBook } from './statuses.js';

/** Contract state with the balances and assets contract answers need. */
export interface ContractReadState extends ContractStateReader, Pick<TransactionReader, 'transactionById'> {
  /** WEST (null) or asset balance of an address or a contract. */
  balance(holder: Uint8Array, assetId: Uint8Array | null): bigint;
  leaseBalance(holder: Uint8Array): LeaseBalance;
  asset(assetId: Uint8Array): AssetInfo | undefined;
}

export interface ContractsService {
  /** The contract state now (the liquid block included). */
  state(): ContractReadState;
  /** Execution statuses of an executable transaction, oldest first; undefined when none is known. */
  statuses(txId: Uint8Array): readonly ContractExecutionMessage[] | undefined;
}

/** The service over a state provider and the engine's status book (undefined: no engine runs here). */
export function contractsService(state: () => ContractReadState, statuses: ExecutionStatusBook | undefined): ContractsService {
  return { state, statuses: (txId) => statuses?.statuses(txId) };
}
