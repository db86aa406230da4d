/**
 * Which blockchain features are active at a height (WE's FeatureProvider).
 *
 * "Active at height h" ⇔ the feature's activation height is known and ≤ h. Rules ask a
 * `FeatureView`; where activation heights come from is the implementation's business.
 * Today that is the configured pre-activated features; feature voting (approval when a
 * window closes, activation one window later) can provide another implementation of the
 * same interface without touching the rules.
 */
import type { FunctionalitySettings } from './settings.js';

/** WE's BlockchainFeature ids this code refers to by name. */
export const FEATURE = {
  NG: 2,
  MASS_TRANSFER: 3,
  SMART_ACCOUNTS: 4,
  DATA_TRANSACTION: 5,
  BURN_ANY_TOKENS: 6,
  FEE_SWITCH: 7,
  SMART_ASSETS: 9,
  SMART_ACCOUNT_TRADING: 10,
  CONSENSUS_FIX: 100,
  CONTRACTS_GRPC: 101,
  POA_OPTIMISATION: 119,
  SPONSORED_FEES: 120,
  MINER_BAN_HISTORY_OPTIMISATION: 130,
  ATOMIC_TRANSACTIONS: 140,
  PARALLEL_LIQUID_BLOCK: 160,
  CONTRACT_VALIDATIONS: 162,
  MICRO_BLOCK_INVENTORY_V2: 173,
  PRIVACY_LARGE_OBJECTS: 180,
  CONTRACT_NATIVE_TOKENS_AND_PKI: 1120,
  OTHER_TX_TYPES_ATOMIC: 1122,
  LEASE_OPS_FOR_CONTRACTS: 1123,
  CONFIDENTIAL_DATA_IN_CONTRACTS: 1130,
  WASM_CONTRACTS: 1140,
} as const;

/** WE's feature descriptions (BlockchainFeature.description), as error messages quote them. */
export const FEATURE_DESCRIPTIONS: ReadonlyMap<number, string> = new Map([
  [2, 'NG Protocol'],
  [3, 'Mass Transfer Transaction'],
  [4, 'Smart Accounts'],
  [5, 'Data Transaction'],
  [6, 'Burn Any Tokens'],
  [7, 'Fee Switch'],
  [9, 'Smart Assets'],
  [10, 'Smart Account Trading'],
  [100, 'Updated PoS'],
  [101, 'Support of gRPC for Docker contracts'],
  [119, 'Performance optimisation for PoA'],
  [120, 'Sponsored fees support'],
  [130, 'Performance optimisation for miner ban history'],
  [140, 'Support of atomic transaction'],
  [160, 'Support of parallel generation of liquid block with micro-block'],
  [162, 'Support of Docker contracts validation'],
  [173, 'Support of micro-block inventory v2'],
  [180, 'Support of privacy large object subsystem'],
  [1120, 'Support of token operations for smart-contracts, PKI support v1 and REST-based smart-contract deprecation'],
  [1122, 'Atomic support for other transactions'],
  [1123, 'Support of Lease/CancelLease operations for smart-contracts'],
  [1130, 'Support of operating over confidential data in smart contracts'],
  [1140, 'Support of WASM smart-contracts'],
]);

export interface FeatureView {
  /** Whether feature `id` is active at `height` (its activation height is ≤ height). */
  isActive(id: number, height: number): boolean;
  /** The height the feature is (or will be) active from, when known. */
  activationHeight(id: number): number | undefined;
}

/** Features active from the heights configured in `pre-activated-features`; no voting. */
export class PreActivatedFeatures implements FeatureView {
  private readonly heights: ReadonlyMap<number, number>;

  constructor(preActivated: ReadonlyMap<number, number>) {
    this.heights = new Map(preActivated);
  }

  static fromSettings(functionality: FunctionalitySettings): PreActivatedFeatures {
    return new PreActivatedFeatures(functionality.preActivatedFeatures);
  }

  isActive(id: number, height: number): boolean {
    const at = this.heights.get(id);
    return at !== undefined && at <= height;
  }

  activationHeight(id: number): number | undefined {
    return this.heights.get(id);
  }
}
