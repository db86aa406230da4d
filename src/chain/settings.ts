/**
 * The settings the chain, consensus and miner run on — WE's `node.blockchain`, `node.miner`
 * and `node.utx` sections after parsing and defaults (settings-keys.ts reads and renders them).
 * Durations are milliseconds; amounts are WEST units (10^8 per WEST).
 */
import type { CryptoType } from '../crypto/suite.js';
import type { GenesisSettings } from '../protocol/blocks.js';
import { TRANSACTION_RULES } from '../state/appliers/index.js';

export type { GenesisSettings };

export interface PoaSettings {
  readonly type: 'poa';
  readonly roundDurationMs: number;
  readonly syncDurationMs: number;
  readonly banDurationBlocks: number;
  readonly warningsForBan: number;
  /** 0–100 under PoA (WE's CftSettings does not check it). */
  readonly maxBansPercentage: number;
}

export interface PosSettings {
  readonly type: 'pos';
  readonly averageBlockDelayMs: number;
  readonly initialBaseTarget: bigint;
}

/**
 * CFT: PoA's rounds, queue and bans plus finality voting (WE's CftSettings). Validators
 * vote in the sync part of a round; the miner gathers votes until `finalizationTimeoutMs`
 * after the round ends.
 */
export interface CftSettings extends Omit<PoaSettings, 'type'> {
  readonly type: 'cft';
  /** At most this many validators per block (positive). */
  readonly maxValidators: number;
  /** How long after its round ends a block may still be finalised; less than round-duration. */
  readonly finalizationTimeoutMs: number;
  /**
   * How long after the sync part starts the miner waits for every validator's vote before
   * publishing the votes it holds (absent: it publishes as soon as enough are held); at
   * most finalization-timeout + sync-duration.
   */
  readonly fullVoteSetTimeoutMs: number | undefined;
}

export type ConsensusSettings = PoaSettings | PosSettings | CftSettings;

/** The consensus types that run PoA's rounds, queue and bans. */
export type PoaLikeSettings = PoaSettings | CftSettings;

export interface FeeSettings {
  readonly enabled: boolean;
  /** Minimal fee per transaction type id (WE's `fees.base.<name>`). */
  readonly base: ReadonlyMap<number, bigint>;
  /** Per-type additional fee (mass-transfer per 2 transfers, data per KiB). */
  readonly additional: ReadonlyMap<number, bigint>;
}

export interface FunctionalitySettings {
  readonly featureCheckBlocksPeriod: number;
  readonly blocksForFeatureActivation: number;
  /** Feature id → activation height. */
  readonly preActivatedFeatures: ReadonlyMap<number, number>;
}

export interface ChainSettings {
  readonly crypto: CryptoType;
  /** `address-scheme-character`. */
  readonly chainId: string;
  readonly consensus: ConsensusSettings;
  /** The plain genesis (protocol/blocks/genesis-block.ts), with its signature. */
  readonly genesis: GenesisSettings;
  readonly fees: FeeSettings;
  readonly functionality: FunctionalitySettings;
  /** Height-history kept for rollbacks (WE's max-rollback-depth). */
  readonly maxRollbackDepth: number;
}

export interface MinerSettings {
  readonly enabled: boolean;
  readonly microBlockIntervalMs: number;
  readonly maxTransactionsInMicroBlock: number;
  /** Consensus-relevant: keep it equal on every node. */
  readonly maxBlockSizeInBytes: number;
  readonly minMicroBlockAgeMs: number;
  /** Connected miner peers required to mine (1 for a single node: itself). */
  readonly quorum: number;
}

export interface UtxSettings {
  readonly memoryLimitBytes: number;
  readonly txExpireTimeoutMs: number;
  readonly cleanupIntervalMs: number;
  /** WE's `utx.allow-transactions-from-smart-accounts` (default true): false keeps scripted senders' transactions out of this node's pool. */
  readonly allowTransactionsFromSmartAccounts: boolean;
}

/** `node.utx` beyond what the pool reads: how the node rebroadcasts what waits in it. */
export interface NodeUtxSettings extends UtxSettings {
  readonly rebroadcastThresholdMs: number;
  readonly rebroadcastIntervalMs: number;
}

/** WE's application.conf values of `node.utx`. */
export const UTX_DEFAULTS: NodeUtxSettings = {
  memoryLimitBytes: 100 * 2 ** 20,
  cleanupIntervalMs: 5 * 60_000,
  allowTransactionsFromSmartAccounts: true,
  txExpireTimeoutMs: 2 * 3_600_000,
  rebroadcastThresholdMs: 5 * 60_000,
  rebroadcastIntervalMs: 5 * 60_000,
};

/** WE's `node.additional-cache.rocksdb.max-rollback-depth` default. */
export const DEFAULT_MAX_ROLLBACK_DEPTH = 2000;

/** WE's fee config names, by transaction type (each family declares its own). */
export const FEE_NAMES: ReadonlyMap<number, string> = new Map(
  [...TRANSACTION_RULES].flatMap(([type, rules]) => (rules.fee.kind === 'paid' ? [[type, rules.fee.name] as const] : [])),
);

/** application.conf defaults for custom chains (crypto-and-transactions §5.4), from the families' rules. */
export const DEFAULT_FEES: FeeSettings = {
  enabled: true,
  base: new Map([...TRANSACTION_RULES].flatMap(([type, rules]) => (rules.fee.kind === 'paid' ? [[type, rules.fee.defaultBase] as const] : []))),
  additional: new Map(
    [...TRANSACTION_RULES].flatMap(([type, rules]) =>
      rules.fee.kind === 'paid' && rules.fee.additional !== undefined ? [[type, rules.fee.additional.defaultFee] as const] : [],
    ),
  ),
};

/** Features Weft implements (WE 1.14's list, reference chain §7.3). */
export const IMPLEMENTED_FEATURES: ReadonlyMap<number, string> = new Map([
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
