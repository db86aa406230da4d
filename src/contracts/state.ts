/**
 * The state a contract sees and changes, as interfaces the chain implements over its
 * StateView / MutableState (state/view.ts). Each method maps one-to-one onto a view
 * method: the ones StateView already has keep its names and signatures (a MutableState
 * satisfies them as is), the contract ones are what the chain adds next to them.
 *
 * Holders of balances are raw bytes, as in StateView: a 26-byte address, or a contract's
 * 32-byte id (WE's ContractId holder). Both live side by side in the same balance map
 * because their lengths differ.
 */
import type { DataEntry } from '../protocol/transactions/fields.js';
import type { Protocol } from '../protocol/protocol.js';
import type { AssetInfo, LeaseBalance, LeaseDetails, PermissionOp, Policy } from '../state/model.js';
import type { ContractInfo } from './model.js';

/** Reads of contract state (the chain adds these to StateView). */
export interface ContractStateReader {
  /** A contract by id (any state: active or disabled). */
  contract(contractId: Uint8Array): ContractInfo | undefined;
  /** Ids of every contract, in creation order. */
  contractIds(): readonly Uint8Array[];
  /** One value a contract stored (the latest write wins; there is no delete). */
  contractData(contractId: Uint8Array, key: string): DataEntry | undefined;
  /** Every key a contract ever wrote, in UTF-8 byte order. */
  contractKeys(contractId: Uint8Array): readonly string[];
  /** The id of the ExecutedContract (105) that executed an executable transaction, once applied. */
  executedTxFor(txId: Uint8Array): Uint8Array | undefined;
}

/** Writes of contract state (the chain adds these to MutableState). */
export interface ContractStateWriter {
  putContract(info: ContractInfo): void;
  putContractData(contractId: Uint8Array, entry: DataEntry): void;
  putExecutedTxFor(txId: Uint8Array, executedTxId: Uint8Array): void;
}

/**
 * What a running contract may read, against the state its transaction executes on (the
 * block being built, with the transactions before it applied). StateView's methods plus
 * the contract reads and two listings StateView lacks today (account data entries, the
 * data hashes of a policy) — the store has both.
 */
export interface ContractExecutionView extends ContractStateReader {
  readonly protocol: Protocol;
  /** Height of the block the transaction goes into. */
  height(): number;
  /** WEST (null) or asset balance of an address or a contract (32-byte id). */
  balance(holder: Uint8Array, assetId: Uint8Array | null): bigint;
  /** Lease balance of an address or a contract. */
  leaseBalance(holder: Uint8Array): LeaseBalance;
  asset(assetId: Uint8Array): AssetInfo | undefined;
  lease(leaseId: Uint8Array): LeaseDetails | undefined;
  aliasOwner(name: string): Uint8Array | undefined;
  dataEntry(address: Uint8Array, key: string): DataEntry | undefined;
  /** Every data entry of an account, in key order. */
  dataEntries(address: Uint8Array): readonly DataEntry[];
  permissionOps(address: Uint8Array): readonly PermissionOp[];
  policy(policyId: Uint8Array): Policy | undefined;
  /** Data hashes registered for a policy (PolicyDataHash), in registration order. */
  policyDataHashes(policyId: Uint8Array): readonly { readonly hash: Uint8Array }[];
  transactionHeight(id: Uint8Array): number | undefined;
}

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
