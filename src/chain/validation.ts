/**
 * Applying one transaction to state, with WE 1.14's stateful validation in WE's order
 * (we-node TransactionDiffer, CommonValidation, Verifier, PermissionValidator,
 * FeeCalculator, BalanceDiffValidation; reference crypto-and-transactions §5.1):
 *
 *   1. verification (Verifier): the sender's account script if it has one, else proofs[0]
 *      by the sender over the proof-source bytes; then the scripts of the smart assets the
 *      transaction touches (chain/scripts/verifier.ts). An atomic container: its own proof,
 *      every inner transaction verified so, the miner's proof. Scripts read the state the
 *      transaction is validated on, at the height of the block it goes into — never a
 *      clock — so every node, and a node re-validating after a fork, decides alike;
 *   2. timestamp: not more than 90 min after the block time, not older than the previous
 *      block time − tx-expire-timeout;
 *   3. features required by the type and version active;
 *   4. id not already in the state;
 *   5. Transfer / MassTransfer: the sender's balances cover amounts and fee;
 *   6. permissions of the sender;
 *   7. fee;
 *   8. no atomic badge outside an atomic container;
 *   9. the family's applier (its stateful rules and state changes, fee included);
 *  10. no resulting negative balance, no spending of leased-out WEST.
 *
 * Everything is applied into a fork merged only on success, so a failing transaction
 * leaves the state untouched. Errors are rendered as WE renders a TransactionValidationError:
 * StateCheckFailed 112 `State check failed. Reason: …` with the transaction as `tx`, except
 * Mistiming (303), AddressIsLastOfRole (117, with `tx`), privacy/contract kinds (their
 * own codes) and a script's rejection (306/307 with `transaction`, `script`, `vars`). The NG fee split is the chain engine's: this returns the fee the block's
 * miner shares.
 */
import { encodeBase58 } from '../crypto/encoding.js';
import { stringifyJson } from '../protocol/json.js';
import type { DataTransaction } from '../protocol/transactions/data.js';
import { orderBodyBytes, type Order } from '../protocol/transactions/exchange.js';
import { isGenesisType } from '../protocol/transactions/genesis.js';
import { atomicBadgeOf, isAtomic, minerProofSource } from '../protocol/transactions/atomic.js';
import { ExecutedContract, type ExecutedContractTransaction } from '../protocol/transactions/contracts.js';
import { ROLES } from '../protocol/transactions/permissions.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { activeRoles, hasRole } from '../state/permissions.js';
import { DelegatingView, type MutableState, type StateView } from '../state/view.js';
import { rulesFor, validateBalances, type Applier, type ApplyContext, type MinerFee } from '../state/appliers/index.js';
import { applyOwnExecutedContract } from '../state/appliers/contracts.js';
import { FEATURE_DESCRIPTIONS } from './features.js';
import { scalaSimpleName, validateFee, type FeeContext } from './fees.js';
import type { ScriptState, ScriptVerifier, SignatureChecks } from './scripts/verifier.js';
import {
  activationError,
  alreadyInTheState,
  genericError,
  innerScriptRejection,
  mistiming,
  permissionError,
  ScriptRejection,
  transactionRejection,
  unsupportedTransactionType,
  WeError,
} from '../errors/catalogue.js';

/** CommonValidation.MaxTimeTransactionOverBlockDiff. */
export const MAX_TIME_TX_OVER_BLOCK_MS = 90n * 60n * 1000n;

/** Where a transaction is applied. */
export interface TxContext extends FeeContext {
  /** Timestamp of the block the transaction goes into (the pool passes the node's time, as WE does). */
  readonly blockTimestamp: bigint;
  /** Timestamp of the last persisted block (WE's lastPersistenceBlock), if any. */
  readonly lastBlockTimestamp: bigint | undefined;
  /**
   * The node's clock. WE's rules compare against the block time (deterministic for every
   * node applying the block); the clock is kept for callers that validate for the pool.
   */
  readonly now: bigint;
  /** `utx.tx-expire-timeout`. */
  readonly txExpireTimeoutMs: number;
  /** The block's generator, when applying in (or mining into) a block: atomic containers must name it as miner. */
  readonly blockGenerator?: Uint8Array;
  /** Runs account and asset scripts (one per chain: its network's contexts and parsed scripts). */
  readonly scripts: ScriptVerifier;
}

/** What the block's miner gets from a transaction. */
export interface AppliedTransaction extends MinerFee {
  /** WEST to share between this block's miner and the next (sponsored asset fees converted 1:1). */
  readonly fee: bigint;
}

/**
 * Validates `tx` against `state` and applies it (fee deduction and the transaction record
 * included). Throws TransactionRejected and leaves `state` untouched on failure.
 */
export function applyTransaction(state: MutableState, tx: Transaction, ctx: TxContext, options: { verifySignature?: boolean } = {}): AppliedTransaction {
  return run(state, tx, ctx, options.verifySignature ?? true, false);
}

/**
 * A contract validator's own execution applied to its working state (src/contracts
 * validating.ts): the 105 it built and signed itself, checked as any transaction but
 * through applyOwnExecutedContract — it carries no validation proofs, the thing a block's
 * 105 is checked for. Throws TransactionRejected and leaves `state` untouched on failure.
 */
export function applyOwnExecution(state: MutableState, executed: ExecutedContractTransaction, ctx: TxContext): AppliedTransaction {
  return run(state, executed, ctx, false, false, applyOwnExecutedContract);
}

function run<T extends Transaction>(
  state: MutableState,
  tx: T,
  ctx: TxContext,
  verifySignature: boolean,
  atomically: boolean,
  applier?: Applier<T>,
): AppliedTransaction {
  try {
    verify(state, tx, ctx, verifySignature);
    checkTimestamps(tx, ctx);
    checkFeatures(tx, ctx);
    const height = state.transactionHeight(tx.id);
    if (height !== undefined) throw alreadyInTheState(tx.idBase58, height);
    checkSpendings(state, tx);
    checkPermissions(state, tx, ctx);
    validateFee(tx, state, ctx);
    if (!atomically && !ExecutedContract.is(tx)) {
      const badge = atomicBadgeOf(tx);
      if (badge !== undefined && badge !== null) throw genericError('Transactions with atomic badge cannot be mined outside of atomic container');
    }
    const apply = applier ?? rulesFor(tx.type)?.apply;
    if (apply === undefined) throw unsupportedTransactionType();
    const fork = state.fork();
    const own = apply(fork, tx, applyContext(ctx));
    validateBalances(state, fork);
    const miner = own ?? minerFee(fork, tx);
    fork.addTransaction(tx);
    fork.mergeInto(state);
    return { fee: miner.fee };
  } catch (e) {
    if (!(e instanceof WeError)) throw e;
    // An inner transaction's script refusing it on the state its container built so far: WE reports it under the container (112).
    throw atomically && e instanceof ScriptRejection ? innerScriptRejection(e) : transactionRejection(e, tx.toJson());
  }
}

function applyContext(ctx: TxContext): ApplyContext {
  return {
    height: ctx.height,
    blockTimestamp: ctx.blockTimestamp,
    isFeatureActive: (id) => ctx.features.isActive(id, ctx.height),
    senderRoleEnabled: ctx.settings.genesis.senderRoleEnabled,
    blockGenerator: ctx.blockGenerator,
    // Inner signatures were verified with the container's (Verifier does both); their scripts
    // run again on the state the container built so far, as WE's AtomicTransactionDiff does.
    applyInner: (state, inner) => run(state, inner, ctx, false, true),
  };
}

// ---------------------------------------------------------------------------
// 1. Verification (Verifier): scripts, else signatures

const txString = (tx: Transaction): string => stringifyJson(tx.toJson());

/** Verifier.verifyAsEllipticCurveSignature. */
function verifySenderProof(tx: Transaction, exactlyOneProof: boolean): void {
  checkSenderProofCount(tx, exactlyOneProof);
  if (!tx.hasValidSenderSignature()) throw genericError(`Script doesn't exist and proof doesn't validate as signature for '${txString(tx)}'`);
}

/**
 * The proof count of an unscripted sender's transaction. Checked whoever verified the
 * signature: whether the sender is scripted is a matter of state (a transaction admitted with
 * two proofs while its sender had a script is refused once the script is removed).
 */
function checkSenderProofCount(tx: Transaction, exactlyOneProof: boolean): void {
  if (exactlyOneProof && tx.proofs.length !== 1) throw genericError('Transactions from non-scripted accounts must have exactly 1 proof');
  if (tx.proofs.length === 0) throw genericError('Transactions from non-scripted accounts must have proof');
}

/** An Exchange's order signed by its (unscripted) sender. */
function verifyOrderProof(tx: Transaction, order: Order): void {
  const proof = order.proofs[0];
  if (proof === undefined || !tx.protocol.crypto.verify(order.senderPublicKey, orderBodyBytes(order), proof)) {
    throw genericError(
      `Script doesn't exist and proof doesn't validate as signature for order of '${tx.protocol.addresses.fromPublicKey(order.senderPublicKey).toString()}'`,
    );
  }
}

/** Verifier.verifyDataTxAuthorSignature: a Data V1 of a scripted sender written by another author carries the author's proof first. */
function verifyDataAuthorProof(tx: DataTransaction): void {
  const proof = tx.proofs[0];
  if (proof === undefined) throw genericError(`Proofs is empty for ${txString(tx)}`);
  const author = tx.data.author;
  if (!tx.protocol.crypto.verify(author, tx.proofSourceBytes, proof)) throw genericError(`Proof is not valid for author for ${txString(tx)}`);
}

const SIGNATURE_CHECKS: SignatureChecks = {
  senderSignature: (tx) => verifySenderProof(tx, true),
  orderSignature: verifyOrderProof,
  dataAuthorSignature: verifyDataAuthorProof,
};

/**
 * Signatures already verified (the pool's candidates, re-validation, inner transactions):
 * scripts run, and an unscripted sender's transaction must not carry more than one proof. (A
 * verified signature is a proof; none at all is only the miner's own 105, applied before it is
 * signed.)
 */
const SIGNATURES_VERIFIED: SignatureChecks = {
  senderSignature: (tx) => {
    if (tx.proofs.length > 1) checkSenderProofCount(tx, true);
  },
  orderSignature: () => undefined,
  dataAuthorSignature: () => undefined,
};

/**
 * What scripts read: the state the transaction is validated on (pool and block validation
 * alike), with `height` the height of the block it goes into.
 */
export function scriptState(state: StateView, height: number): ScriptState {
  return new StateScriptReads(state, height);
}

/** scriptState's reads: the state's own, at the block's height (one object per validated transaction, not a closure per read). */
class StateScriptReads extends DelegatingView implements ScriptState {
  constructor(
    state: StateView,
    private readonly blockHeight: number,
  ) {
    super(state);
  }
  override height(): number {
    return this.blockHeight;
  }
  assetScript(assetId: Uint8Array): Uint8Array | null {
    return this.base.asset(assetId)?.script ?? null;
  }
}

function verify(state: StateView, tx: Transaction, ctx: TxContext, verifySignature: boolean): void {
  if (isGenesisType(tx.type)) return;
  const checks = verifySignature ? SIGNATURE_CHECKS : SIGNATURES_VERIFIED;
  const scripts = scriptState(state, ctx.height);
  if (!isAtomic(tx)) {
    ctx.scripts.verify(tx, scripts, checks);
    return;
  }
  if (verifySignature) verifySenderProof(tx, false);
  try {
    for (const inner of tx.data.transactions) ctx.scripts.verify(inner, scripts, checks);
  } catch (e) {
    // WE reports an inner transaction's script rejection with the container.
    throw e instanceof ScriptRejection ? e.forTransaction(tx.toJson()) : e;
  }
  const miner = tx.data.miner;
  if (miner !== null && verifySignature) {
    const proof = tx.proofs[1];
    if (proof === undefined) throw genericError('The miner proof of atomic transaction is missing');
    if (!tx.protocol.crypto.verify(miner, minerProofSource(tx), proof)) throw genericError('Invalid miner proof of atomic transaction');
  }
}

// ---------------------------------------------------------------------------
// 2. Timestamps

function checkTimestamps(tx: Transaction, ctx: TxContext): void {
  const ts = tx.timestamp;
  if (ts - ctx.blockTimestamp > MAX_TIME_TX_OVER_BLOCK_MS) {
    throw mistiming(`Transaction ts ${ts} is from far future. BlockTime: ${ctx.blockTimestamp}`);
  }
  const prev = ctx.lastBlockTimestamp;
  if (prev !== undefined && prev - ts > BigInt(ctx.txExpireTimeoutMs)) {
    throw mistiming(`Transaction ts ${ts} is too old. Previous block time: Some(${prev})`);
  }
}

// ---------------------------------------------------------------------------
// 3. Features (each version's requiredFeatures, we-core TxScheme; declared with the family's rules)

const NO_FEATURES: readonly number[] = [];

/** Whether `ids` is strictly ascending (then it is its own sorted set). */
function strictlyAscending(ids: readonly number[]): boolean {
  for (let i = 1; i < ids.length; i++) if (ids[i]! <= ids[i - 1]!) return false;
  return true;
}

/** Transaction.requiredFeatures of WE, ascending by id (the order WE checks them in). */
export function requiredFeatures(tx: Transaction): readonly number[] {
  const rules = rulesFor(tx.type);
  const own = rules?.features.get(tx.version) ?? NO_FEATURES;
  const byFields = rules?.fieldFeatures?.(tx) ?? NO_FEATURES;
  // The version's own list alone (most transactions): nothing to merge.
  if (byFields.length === 0 && strictlyAscending(own)) return own;
  return [...new Set([...own, ...byFields])].sort((a, b) => a - b);
}

function checkFeatures(tx: Transaction, ctx: TxContext): void {
  for (const id of requiredFeatures(tx)) {
    if (!ctx.features.isActive(id, ctx.height)) {
      throw activationError(
        `Blockchain feature '${FEATURE_DESCRIPTIONS.get(id) ?? String(id)}' (id: '${id}') has not been activated yet, but is required for ${scalaSimpleName(tx.type, tx.version)}`,
      );
    }
  }
}

// ---------------------------------------------------------------------------
// 5. Spendings (CommonValidation.disallowSendingGreaterThanBalance)

function checkSpendings(state: StateView, tx: Transaction): void {
  const spending = rulesFor(tx.type)?.spends?.(tx);
  if (spending === undefined) return;
  const { amount, assetId } = spending;
  const sender = tx.sender;
  if (sender === undefined) return;
  const feeAssetId = tx.feeAssetId;
  const westSpend = (assetId === null ? -amount : 0n) + (feeAssetId === null ? -tx.fee : 0n);
  const oldWest = state.balance(sender.bytes, null);
  const newWest = oldWest + westSpend;
  if (newWest < 0n) {
    throw genericError(
      'Attempt to transfer unavailable funds: Transaction application leads to negative WEST balance to (at least) temporary negative state, ' +
        `current balance equals ${oldWest}, spends equals ${westSpend}, result is ${newWest}`,
    );
  }
  if (assetId === null && feeAssetId === null) return;
  const assetParts: Array<readonly [Uint8Array, bigint]> = [];
  if (assetId !== null) assetParts.push([assetId, -amount]);
  if (feeAssetId !== null) assetParts.push([feeAssetId, -tx.fee]);
  checkAssetSpendings(state, sender.bytes, assetParts);
}

/** The asset part of checkSpendings: per asset (amount and fee in one asset add up), the sender's balance must cover it. */
function checkAssetSpendings(state: StateView, sender: Uint8Array, parts: ReadonlyArray<readonly [Uint8Array, bigint]>): void {
  const assetSpends = new Map<string, { id: Uint8Array; delta: bigint }>();
  for (const [id, delta] of parts) {
    const key = encodeBase58(id);
    const cur = assetSpends.get(key);
    assetSpends.set(key, { id, delta: (cur?.delta ?? 0n) + delta });
  }
  for (const [key, { id, delta }] of assetSpends) {
    const old = state.balance(sender, id);
    if (old + delta < 0n) {
      throw genericError(
        `Attempt to transfer unavailable funds: Transaction application leads to negative asset '${key}' balance to (at least) temporary negative state, ` +
          `current balance is ${old}, spends equals ${delta}, result is ${old + delta}`,
      );
    }
  }
}

// ---------------------------------------------------------------------------
// 6. Permissions (PermissionValidator.validatePermissionForTx)

function checkPermissions(state: StateView, tx: Transaction, ctx: TxContext): void {
  if (isGenesisType(tx.type)) return;
  const sender = tx.sender;
  if (sender === undefined) throw permissionError(`Transaction ${tx.idBase58} is unauthorized, permission validation impossible.`);
  const ops = state.permissionOps(sender.bytes);
  const at = tx.timestamp;
  const fail = (reason: string): never => {
    throw permissionError(`Sender ${sender.toString()} permission validation failed: ${reason}`);
  };
  if (hasRole(ops, ROLES.banned, at)) fail("Sender is 'banned'");
  if (ctx.settings.genesis.senderRoleEnabled && !hasRole(ops, ROLES.sender, at)) fail("Has no active 'sender' role");
  const required = rulesFor(tx.type)?.roles?.(tx) ?? [];
  if (required.length === 1) {
    if (!hasRole(ops, ROLES[required[0]!], at)) fail(`Has no active '${required[0]!}' role`);
  } else if (required.length > 1) {
    const active = new Set(activeRoles(ops, at));
    if (!required.some((r) => active.has(ROLES[r]))) fail(`Doesn't have any of required roles: ${required.join(', ')}`);
  }
}

// ---------------------------------------------------------------------------
// What the miner gets (BlockFeeCalculator.calcNgFee before the 40/60 split)

function minerFee(state: StateView, tx: Transaction): MinerFee {
  const feeAssetId = tx.feeAssetId;
  if (feeAssetId === null) return { fee: tx.fee };
  // Sponsored asset fees are converted 1:1 into WEST; other asset fees give the miner nothing.
  return { fee: state.asset(feeAssetId)?.sponsorship === true ? tx.fee : 0n };
}
