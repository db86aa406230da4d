/**
 * Minimal fees and the fee check, as WE 1.14's FeeCalculator computes them
 * (we-node transaction/validation/FeeCalculator.scala; reference chain §6.2–6.4).
 *
 * - Fees disabled in config: no check; the minimal fee is 0.
 * - Zero-fee types (genesis ×3, ExecutedContract, Atomic): no check; minimal fee 0.
 * - Minimal fee = base of the type + additional: MassTransfer ⌊(transfers + 1) / 2⌋ ×
 *   additional, Data ⌊(size − 1) / 1024⌋ × additional, size = body bytes once Smart
 *   Accounts (4) is active, else full bytes.
 * - The check "fee ≥ minimal" applies from FeeSwitch's (7) activation height +
 *   feature-check-blocks-period on; before that only fee > 0 (≥ 0 when the base is 0).
 * - Once sponsored fees (120) are active a fee may be paid in an asset that exists and is
 *   sponsored, at 1:1 with WEST. Before that a fee asset is compared as if it were WEST.
 */
import { encodeBase58 } from '../crypto/encoding.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { rulesFor, TRANSACTION_RULES, TX_PACKAGE } from '../state/appliers/index.js';
import type { AssetReader } from '../state/view.js';
import { FEATURE, type FeatureView } from './features.js';
import type { ChainSettings } from './settings.js';
import { genericError, type ValidationError } from '../errors/catalogue.js';

/** FeeCalculator.zeroFeeTransactionTypes (genesis ×3, ExecutedContract, Atomic), from the families' rules. */
export const ZERO_FEE_TYPES: ReadonlySet<number> = new Set([...TRANSACTION_RULES].filter(([, r]) => r.fee.kind === 'zero').map(([type]) => type));

/** What the fee rules need to know about where the transaction goes. */
export interface FeeContext {
  readonly settings: ChainSettings;
  readonly features: FeatureView;
  /** Height of the block the transaction goes into. */
  readonly height: number;
}

/** A minimal fee: WEST (feeAssetId null) or units of a sponsored asset. */
export interface MinimalFee {
  readonly feeAssetId: Uint8Array | null;
  readonly amount: bigint;
}

// ---------------------------------------------------------------------------
// Scala class names (fee errors quote `tx.builder.classTag`; each family declares its class)

/** WE's simple class name of a (type, version), e.g. `TransferTransactionV3` (`getClass.getSimpleName`). */
export function scalaSimpleName(type: number, version: number): string {
  const c = rulesFor(type)?.scalaClass;
  if (c === undefined) return `Transaction${type}V${version}`;
  return c.versioned ? `${c.name}V${version}` : c.name;
}

/** WE's fully-qualified class name, e.g. `com.wavesenterprise.transaction.transfer.TransferTransactionV3`. */
export function scalaClassName(type: number, version: number): string {
  return `${rulesFor(type)?.scalaClass.pkg ?? TX_PACKAGE}.${scalaSimpleName(type, version)}`;
}

// ---------------------------------------------------------------------------
// Minimal fee

/** Base + additional fee in WEST (FeeCalculator.baseFeeInWest). */
export function baseFeeInWest(tx: Transaction, ctx: FeeContext): bigint {
  const fees = ctx.settings.fees;
  const base = fees.base.get(tx.type) ?? 0n;
  const rule = rulesFor(tx.type)?.fee;
  if (rule?.kind !== 'paid' || rule.additional === undefined) return base;
  const units = rule.additional.units(tx, (id) => ctx.features.isActive(id, ctx.height));
  return base + units * (fees.additional.get(tx.type) ?? 0n);
}

const assetMissing = (assetId: Uint8Array): ValidationError =>
  genericError(`Asset '${encodeBase58(assetId)}' does not exist, cannot be used to pay fees`, 'feeAssetId');
const assetNotSponsored = (assetId: Uint8Array): ValidationError =>
  genericError(`Asset '${encodeBase58(assetId)}' is not sponsored, cannot be used to pay fees`, 'feeAssetId');

/**
 * The minimal fee of a transaction at `ctx.height` (FeeCalculator.calculateMinFee, what
 * `POST /transactions/calculateFee` answers). Throws WE's GenericError (199) for a fee
 * asset that does not exist or is not sponsored.
 */
export function minimalFee(tx: Transaction, state: AssetReader, ctx: FeeContext): MinimalFee {
  if (!ctx.settings.fees.enabled || ZERO_FEE_TYPES.has(tx.type)) return { feeAssetId: null, amount: 0n };
  const west = baseFeeInWest(tx, ctx);
  const feeAssetId = tx.feeAssetId;
  if (feeAssetId === null || !ctx.features.isActive(FEATURE.SPONSORED_FEES, ctx.height)) return { feeAssetId: null, amount: west };
  const asset = state.asset(feeAssetId);
  if (asset === undefined) throw assetMissing(feeAssetId);
  if (!asset.sponsorship) throw assetNotSponsored(feeAssetId);
  return { feeAssetId, amount: west };
}

/** Whether "fee ≥ minimal" is enforced at this height (FeeSwitch + one check period, WE's legacy rule). */
export function isFeeSwitchEnforced(ctx: FeeContext): boolean {
  const at = ctx.features.activationHeight(FEATURE.FEE_SWITCH);
  return at !== undefined && ctx.height >= at + ctx.settings.functionality.featureCheckBlocksPeriod;
}

/** FeeCalculator.validateTxFee: throws WE's GenericError when the fee is too small. */
export function validateFee(tx: Transaction, state: AssetReader, ctx: FeeContext): void {
  if (!ctx.settings.fees.enabled || ZERO_FEE_TYPES.has(tx.type)) return;
  if (!isFeeSwitchEnforced(ctx)) {
    const base = ctx.settings.fees.base.get(tx.type) ?? 0n;
    if (base === 0n) {
      if (tx.fee < 0n) throw genericError(`Fee must be non negative for tx type ${tx.type}.`, 'fee');
    } else if (tx.fee <= 0n) {
      throw genericError(`Fee must be positive for tx type ${tx.type}.`, 'fee');
    }
    return;
  }
  const min = minimalFee(tx, state, ctx);
  if (tx.fee < min.amount) {
    const unit = min.feeAssetId === null ? 'WEST' : encodeBase58(min.feeAssetId);
    throw genericError(`Fee '${tx.fee}' in '${unit}' for '${scalaClassName(tx.type, tx.version)}' does not exceed minimal value of '${min.amount}'`, 'fee');
  }
}
