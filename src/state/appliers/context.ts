/**
 * What every applier shares: the context a transaction is applied in and small helpers
 * (recipient resolution, fee payment). The errors WE's state differs raise are in the
 * error catalogue (errors/catalogue.ts); the chain layer wraps them into StateCheckFailed
 * 112 and friends.
 *
 * The state layer knows nothing of the chain layer: feature activation and the nested
 * pipeline an atomic container needs for its inner transactions come in through
 * `ApplyContext` as plain functions.
 */
import { Address, type Recipient } from '../../crypto/address.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import type { AccountReader, ChainStateReader, MutableState } from '../view.js';
import { aliasDoesNotExist } from '../../errors/catalogue.js';

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
 * One transaction type's state transition: checks WE's stateful rules for `tx` (one of the
 * type's own, `T`) against `state` and writes its changes (fee included) into `state`.
 * Returns what the miner gets when it is not simply the transaction's own fee (atomic
 * containers), else undefined.
 */
export type Applier<T extends Transaction = Transaction> = (state: MutableState, tx: T, ctx: ApplyContext) => MinerFee | undefined;

// ---------------------------------------------------------------------------
// Helpers

/** Address bytes of a public key. */
export function addressOf(state: ChainStateReader, publicKey: Uint8Array): Address {
  return state.protocol.addresses.fromPublicKey(publicKey);
}

/** The sender's address (every non-genesis transaction has a sender). */
export function senderOf(tx: Transaction): Address {
  const sender = tx.sender;
  if (sender === undefined) throw new Error(`Transaction of type ${tx.type} has no sender`);
  return sender;
}

/** WE's Blockchain.resolveAlias: an address as is; an alias to its owner, or AliasDoesNotExist. */
export function resolveRecipient(state: AccountReader, recipient: Recipient): Address {
  if (recipient instanceof Address) return recipient;
  const owner = state.aliasOwner(recipient.name);
  if (owner === undefined) throw aliasDoesNotExist({ alias: recipient.toString() });
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
