/**
 * The chain rules of one transaction type, declared beside its applier: everything the
 * admission pipeline, the fee calculator and the settings need to know about a family
 * (WE spreads these over TxScheme.requiredFeatures, PermissionValidator, CommonValidation,
 * FeeCalculator and the fee config). Each type's rules take its own typed transaction; one
 * registry (index.ts) ties each codec to its rules and RIDE binding, so adding a transaction
 * type touches its protocol module, its applier module and one line of that registry.
 */
import type { RoleName } from '../../protocol/transactions/permissions.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import type { Applier } from './context.js';

/** What a transaction takes from its sender's balance before it is applied (CommonValidation.disallowSendingGreaterThanBalance). */
export interface Spending {
  /** WEST (null) or an asset. */
  readonly assetId: Uint8Array | null;
  readonly amount: bigint;
}

/** How a type's fee is reckoned (FeeCalculator) and named in the config (`fees.base.<name>`), for its transactions `T`. */
export type FeeRule<T extends Transaction = Transaction> =
  /** FeeCalculator.zeroFeeTransactionTypes: no fee is checked, the minimal fee is 0. */
  | { readonly kind: 'zero' }
  | {
      readonly kind: 'paid';
      /** WE's fee config name, e.g. `transfer`, `mass-transfer`. */
      readonly name: string;
      /** application.conf's default minimal fee in WEST units. */
      readonly defaultBase: bigint;
      /**
       * A per-unit fee on top of the base (`fees.additional.<name>`): its default and how
       * many units a transaction counts (MassTransfer: pairs of transfers; Data: KiB).
       */
      readonly additional?: {
        readonly defaultFee: bigint;
        readonly units: (tx: T, isFeatureActive: (id: number) => boolean) => bigint;
      };
    };

/** WE's class of a transaction type (fee and activation errors quote it). */
export interface ScalaClass {
  readonly pkg: string;
  readonly name: string;
  /** Whether WE's class names carry the version (`TransferTransactionV3`). */
  readonly versioned: boolean;
}

/** The rules of one transaction type, whose transactions are `T`. */
export interface TransactionRules<T extends Transaction = Transaction> {
  /** The state transition. */
  readonly apply: Applier<T>;
  /** WE's class (package and simple name). */
  readonly scalaClass: ScalaClass;
  /** Features each version requires (TxScheme.requiredFeatures), by version: every version the protocol registers is listed. */
  readonly features: ReadonlyMap<number, readonly number[]>;
  /** Features a transaction's fields require on top of its version's (e.g. an Issue with a script needs Smart Assets). */
  readonly fieldFeatures?: (tx: T) => readonly number[];
  /** Roles the sender needs, one of them (beyond not `banned` and, where enabled, `sender`). */
  readonly roles?: (tx: T) => readonly RoleName[];
  /** What the transaction spends from its sender, checked against the balance before the applier runs. */
  readonly spends?: (tx: T) => Spending | undefined;
  /** Assets whose scripts WE runs for the transaction (`checkedAssets`). */
  readonly smartAssets?: (tx: T) => readonly Uint8Array[];
  readonly fee: FeeRule<T>;
}

/** The version → features table of a type, from an object literal keyed by version. */
export function featuresByVersion(table: Readonly<Record<number, readonly number[]>>): ReadonlyMap<number, readonly number[]> {
  return new Map(Object.entries(table).map(([version, ids]) => [Number(version), ids]));
}

/** The same features for every listed version. */
export function sameFeatures(versions: readonly number[], ids: readonly number[] = []): ReadonlyMap<number, readonly number[]> {
  return new Map(versions.map((v) => [v, ids]));
}

const WEST = 100_000_000n;
/** An amount of WEST in its units (10^8 per WEST), from a decimal with at most 8 places. */
export const west = (x: number): bigint => BigInt(Math.round(x * 1e8));
export const ONE_WEST = WEST;

/** A paid fee without an additional part. */
export const paidFee = (name: string, defaultBase: bigint): FeeRule => ({ kind: 'paid', name, defaultBase });
export const ZERO_FEE: FeeRule = { kind: 'zero' };

export const TX_PACKAGE = 'com.wavesenterprise.transaction';

/** The asset id of a transaction that names one (`assetId` of transfers, reissues, burns, …), as a list. */
export function namedAsset(tx: Transaction<{ readonly assetId: Uint8Array | null }>): readonly Uint8Array[] {
  const assetId = tx.data.assetId;
  return assetId === null ? [] : [assetId];
}
