/**
 * The shapes of the REST answers the explorer reads (WE 1.14's JSON; int64 fields as
 * strings, see api.ts). Only the members the pages use are declared; transactions keep
 * every other member for the field view.
 */
import type { Int64 } from './format.js';

/** WE's limit of blocks per `/blocks/seq`, `/blocks/seqext` and `/blocks/headers/seq` request. */
export const BLOCKS_PER_REQUEST = 100;

export interface BlockHeader {
  readonly version: number;
  readonly timestamp: Int64;
  readonly reference: string;
  readonly generator: string;
  readonly signature: string;
  readonly 'poa-consensus'?: { readonly 'overall-skipped-rounds': Int64 };
  readonly 'pos-consensus'?: { readonly 'base-target': Int64; readonly 'generation-signature': string };
  readonly 'cft-consensus'?: { readonly 'overall-skipped-rounds': Int64; readonly votes: readonly unknown[] };
  readonly features?: readonly number[];
  readonly blocksize: number;
  readonly transactionCount: number;
  readonly height: number;
}

export interface Block extends BlockHeader {
  readonly fee: Int64;
  readonly transactions: readonly Tx[];
}

/** A transaction's JSON: the common members, and whatever its type adds. */
export interface Tx {
  readonly type: number;
  readonly id: string;
  readonly version?: number;
  readonly sender?: string;
  readonly senderPublicKey?: string;
  readonly fee: Int64;
  readonly timestamp: Int64;
  readonly height?: number;
  readonly [field: string]: unknown;
}

export interface NodeStatus {
  readonly blockchainHeight: number;
  readonly stateHeight: number;
  readonly updatedTimestamp: Int64;
  readonly updatedDate: string;
  readonly lastCheckTimestamp: Int64;
  readonly synchronization?: { readonly peer: string; readonly targetScore: string; readonly localScore: string; readonly blocksApplied: number };
}

export interface NodeConfig {
  readonly version: string;
  readonly cryptoType: string;
  readonly chainId: string;
  /** `POA`, `POS` or `CFT`. */
  readonly consensus: string;
  readonly maxTransactionsInMicroBlock: number;
  readonly microBlockInterval: number;
  readonly blockTiming: { readonly roundDuration?: number; readonly syncDuration?: number; readonly averageBlockDelay?: number };
}

export interface PoolSize {
  readonly size: number;
  readonly sizeInBytes: Int64;
}

export interface DataEntry {
  readonly key: string;
  readonly type: string;
  readonly value: unknown;
}

export interface ContractStatus {
  readonly sender: string;
  readonly senderPublicKey: string;
  readonly txId: string;
  /** `Success`, `Error` or `Failure`. */
  readonly status: string;
  readonly code: number | null;
  readonly message: string;
  readonly timestamp: Int64;
  readonly signature: string;
}

export interface ContractInfo {
  readonly creator: string;
  readonly contractId: string;
  readonly storedContract?: Readonly<Record<string, unknown>>;
  readonly image?: string;
  readonly imageHash?: string;
  readonly version: number;
  readonly active: boolean;
  readonly validationPolicy?: { readonly type: string; readonly addresses?: readonly string[] };
  readonly isConfidential?: boolean;
  readonly groupParticipants?: readonly string[];
  readonly groupOwners?: readonly string[];
}

export interface AssetDetails {
  readonly assetId: string;
  readonly issueHeight: number;
  readonly issueTimestamp: Int64;
  readonly issuer: { readonly type: 'Account'; readonly address: string } | { readonly type: 'Contract'; readonly contractId: string } | string;
  readonly name: string;
  readonly description: string;
  readonly decimals: number;
  readonly reissuable: boolean;
  readonly quantity: Int64;
  readonly scripted: boolean;
  readonly sponsorshipIsEnabled?: boolean;
  readonly scriptDetails?: { readonly scriptComplexity: Int64; readonly script: string; readonly scriptText: string };
}

/** CFT: whether a block is final — its votes published, as WE counts it (genesis is final); undefined on other consensus. */
export const finalityOf = (h: BlockHeader): boolean | undefined => {
  const cft = h['cft-consensus'];
  if (cft === undefined) return undefined;
  return h.height === 1 || cft.votes.length > 0;
};

export const skippedRoundsOf = (h: BlockHeader): bigint | undefined => {
  const c = h['poa-consensus'] ?? h['cft-consensus'];
  return c === undefined ? undefined : BigInt(c['overall-skipped-rounds']);
};
