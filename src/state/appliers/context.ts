/**
 * What every applier shares: the context a transaction is applied in, the errors WE's
 * state differs raise (rendered as WE's ApiError.fromValidationError renders them, before
 * the chain layer wraps them into StateCheckFailed 112 and friends), and small helpers
 * (recipient resolution, fee payment).
 *
 * The state layer knows nothing of the chain layer: feature activation and the nested
 * pipeline an atomic container needs for its inner transactions come in through
 * `ApplyContext` as plain functions.
 */
import { Address, type Recipient } from '../../crypto/address.js';
import { encodeBase58 } from '../../crypto/encoding.js';
import { ValidationError } from '../../protocol/errors.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import type { MutableState, StateView } from '../view.js';

/**
 * What a transaction gives the block's miner, in WEST: sponsored asset fees count 1:1.
 * (A fee asset needs sponsored fees, feature 120, active — every version with a
 * `feeAssetId` requires it — so no fee ever reaches a miner as an asset.)
 */
export interface MinerFee {
  readonly fee: bigint;
}

export interface ApplyContext {
  /** Height of the block the transaction goes into. */
  readonly height: number;
  /** Timestamp of that block (WE's currentBlockTimestamp: the node's time when the pool validates). */
  readonly blockTimestamp: bigint;
  /** Whether a blockchain feature is active at `height`. */
  isFeatureActive(id: number): boolean;
  /** Genesis `sender-role-enabled`. */
  readonly senderRoleEnabled: boolean;
  /**
   * Public key of the block's generator when the transaction is applied in a block (or
   * mined into one); undefined while validating for the pool. Atomic containers must be
   * mined by it.
   */
  readonly blockGenerator: Uint8Array | undefined;
  /**
   * The whole admission pipeline for an inner transaction of an atomic container (WE runs
   * its TransactionDiffer with `atomically = true`), applied to `state`.
   */
  applyInner(state: MutableState, tx: Transaction): MinerFee;
}

/**
 * One family's state transition: checks WE's stateful rules for `tx` against `state` and
 * writes its changes (fee included) into `state`. Returns what the miner gets when it is
 * not simply the transaction's own fee (atomic containers), else undefined.
 */
export type Applier = (state: MutableState, tx: Transaction, ctx: ApplyContext) => MinerFee | undefined;

// ---------------------------------------------------------------------------
// Errors raised while diffing, as fromValidationError renders them

/** WE's GenericError. */
export const stateError = (message: string, field?: string): ValidationError => new ValidationError('GenericError', 199, message, field);

/** WE's AliasDoesNotExist (ApiError 302 outside the differ). */
export const aliasDoesNotExist = (alias: string): ValidationError =>
  new ValidationError('AliasDoesNotExist', 302, `alias '${alias}' doesn't exist`, undefined, 404);

/** WE's AddressIsLastOfRole (ApiError 117). */
export const addressIsLastOfRole = (address: string, role: string): ValidationError =>
  new ValidationError('AddressIsLastOfRole', 117, `Trying to revoke role '${role}' from it's last owner: '${address}'`);

/** WE's PermissionError, rendered with its Scala toString. */
export const permissionError = (message: string): ValidationError => new ValidationError('PermissionError', 199, `PermissionError(${message})`);

/** WE's ActivationError, rendered with its Scala toString. */
export const activationError = (message: string): ValidationError => new ValidationError('ActivationError', 199, `ActivationError(${message})`);

/** WE's AlreadyInTheState. */
export const alreadyInTheState = (id: Uint8Array, height: number): ValidationError =>
  new ValidationError('AlreadyInTheState', 199, `Transaction ${encodeBase58(id)} is already in the state on a height of ${height}`);

/** WE's BalanceErrors (account part). */
export const balanceErrors = (accountErrors: ReadonlyArray<readonly [string, string]>): ValidationError =>
  new ValidationError('BalanceErrors', 199, `Account errors: ${accountErrors.map(([a, e]) => `${a} -> ${e}`).join(', ')}`);

/** WE's privacy error kinds keep their own ApiError inside the differ. */
export const policyDoesNotExist = (policyId: Uint8Array): ValidationError =>
  new ValidationError('PolicyDoesNotExist', 612, `The requested policy ${encodeBase58(policyId)} does not exist`);

export const policyDataHashAlreadyExists = (hash: Uint8Array): ValidationError =>
  new ValidationError('PolicyDataHashAlreadyExists', 615, `The specified dataset with hash ${encodeBase58(hash)} was added earlier`);

export const senderIsNotInPolicyRecipients = (sender: string): ValidationError =>
  new ValidationError('SenderIsNotInPolicyRecipients', 199, `Sender '${sender}' is not in policy recipients`);

/** Error kinds (WE's PrivacyError and ContractError families) that keep their own code when raised while diffing. */
export const OWN_CODE_KINDS: ReadonlySet<string> = new Set([
  'PolicyDoesNotExist',
  'PolicyDataHashAlreadyExists',
  'SenderIsNotInPolicyRecipients',
  'ContractNotFound',
  'ContractIsDisabled',
  'ContractAlreadyDisabled',
  'ContractTransactionTooBig',
]);

// ---------------------------------------------------------------------------
// Helpers

/** Address bytes of a public key. */
export function addressOf(state: StateView, publicKey: Uint8Array): Address {
  return state.protocol.addresses.fromPublicKey(publicKey);
}

/** The sender's address (every non-genesis transaction has a sender). */
export function senderOf(tx: Transaction): Address {
  const sender = tx.sender;
  if (sender === undefined) throw new Error(`Transaction of type ${tx.type} has no sender`);
  return sender;
}

/** WE's Blockchain.resolveAlias: an address as is; an alias to its owner, or AliasDoesNotExist. */
export function resolveRecipient(state: StateView, recipient: Recipient): Address {
  if (recipient instanceof Address) return recipient;
  const owner = state.aliasOwner(recipient.name);
  if (owner === undefined) throw aliasDoesNotExist(recipient.toString());
  return new Address(owner);
}

/**
 * WE's Diff.feeAssetIdPortfolio: the payer pays the fee in WEST, or in its fee asset; when
 * that asset is sponsored, its issuer receives the asset fee and pays the same amount of
 * WEST (1:1).
 */
export function payFee(state: MutableState, payer: Uint8Array, tx: Transaction): void {
  const feeAssetId = tx.feeAssetId;
  if (feeAssetId === null) {
    state.addBalance(payer, null, -tx.fee);
    return;
  }
  const asset = state.asset(feeAssetId);
  state.addBalance(payer, feeAssetId, -tx.fee);
  if (asset !== undefined && asset.sponsorship) {
    const issuer = addressOf(state, asset.issuer).bytes;
    state.addBalance(issuer, feeAssetId, tx.fee);
    state.addBalance(issuer, null, -tx.fee);
  }
}
