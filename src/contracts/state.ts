/**
 * The state a contract sees and changes, as interfaces the chain's StateView /
 * MutableState (state/view.ts) satisfy: each method maps one-to-one onto a view method.
 *
 * Holders of balances are raw bytes, as in StateView: a 26-byte address, or a contract's
 * 32-byte id (WE's ContractId holder). Both live side by side in the same balance map
 * because their lengths differ.
 */
import type { ReadingsJournal } from './confidential/readings.js';
import type { DataEntry } from '../protocol/transactions/fields.js';
import type {
  AccountDataReader,
  AccountReader,
  AssetReader,
  BalanceReader,
  ChainStateReader,
  ContractStateReader,
  PermissionReader,
  PolicyReader,
  TransactionReader,
} from '../state/view.js';

/** Contract state reads and writes: the chain's StateView and MutableState implement them. */
export type { ContractStateReader, ContractStateWriter } from '../state/view.js';

/**
 * What a running contract may read, against the state its transaction executes on (the
 * block being built, with the transactions before it applied): the part of StateView
 * contracts use (any StateView is one).
 */
export type ContractExecutionView = ContractStateReader &
  BalanceReader &
  AssetReader &
  AccountDataReader &
  Pick<ChainStateReader, 'protocol' | 'height'> &
  Pick<AccountReader, 'aliasOwner'> &
  Pick<PermissionReader, 'permissionOps'> &
  Pick<PolicyReader, 'policy' | 'policyDataHashes'> &
  Pick<TransactionReader, 'transactionHeight'>;

/** The last block as a contract is told about it (`current_block_info`, BlockService). */
export interface BlockInfo {
  /** Chain height (the liquid block counted). */
  readonly height: number;
  readonly timestamp: bigint;
  /** Generator address of the last block. */
  readonly minerAddress: string;
  /** Parent reference of the last block, Base58. */
  readonly reference: string;
}

/** A block header as BlockService answers it. */
export interface ContractBlockHeader {
  readonly version: number;
  readonly height: number;
  readonly signature: Uint8Array;
  readonly reference: Uint8Array;
  readonly generator: Uint8Array;
  readonly transactionCount: number;
  readonly timestamp: bigint;
}

/** What the node (not the state) gives contracts: block headers, its wallet, its clock. */
export interface ContractNodeContext {
  /** The last block (liquid included). */
  lastBlockInfo(): BlockInfo;
  blockHeaderAt(height: number): ContractBlockHeader | undefined;
  blockHeaderById(signature: Uint8Array): ContractBlockHeader | undefined;
  /** Addresses in the node's keystore. */
  walletAddresses(): readonly string[];
  /** Node time (ms) and the machine clock. */
  now(): bigint;
  systemTime(): bigint;
}

/** What one execution runs against. */
export interface ExecutionContext {
  /** The state the transaction executes on (the block being built, earlier transactions applied). */
  readonly view: ContractExecutionView;
  /** The last block, pushed to Docker contracts as `current_block_info`. */
  readonly blockInfo: BlockInfo;
  /** Params given instead of the transaction's (a confidential call's decrypted input). */
  readonly params?: readonly DataEntry[];
  /** Records the contract's reads (a confidential call's readings). */
  readonly readings?: ReadingsJournal;
}
