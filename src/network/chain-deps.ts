/**
 * What the chain protocol over the peers (sync.ts, gossip.ts, routed by chain-messages.ts)
 * runs on: the chain and pool through their peer-facing interfaces, the node's clock and
 * keys, and WE's `synchronization.*` settings. No node/ or api/ parts.
 */
import type { PeerChain, PeerPool } from '../chain/peer-chain.js';
import type { KeyPair } from '../crypto/suite.js';
import type { Certificate } from '../crypto/pki/x509.js';
import type { Protocol } from '../protocol/protocol.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import type { MicroBlockTimelineLog } from './micro-block-timeline.js';
import type { PeerForms } from './peer-forms.js';
import type { Timers } from './types.js';

/** WE's `synchronization.*` settings that Weft uses (defaults from WE's application.conf). */
export interface SyncSettings {
  /** Locator length and deepest branch switch (max-rollback). */
  readonly maxRollback: number;
  /** Ids after the common one in a Signatures reply (max-chain-length). */
  readonly maxChainLength: number;
  /** Ids per GetBlocks (extension-batch-size). */
  readonly extensionBatchSize: number;
  /** Hard timeout of each sync step (synchronization-timeout). */
  readonly synchronizationTimeoutMs: number;
  /** How long a peer's score counts (score-ttl). */
  readonly scoreTtlMs: number;
  /** How long a block that failed stays refused (invalid-blocks-storage timeout). */
  readonly invalidBlocksTtlMs: number;
  /** Micro-block request timeout and attempts (micro-block-synchronizer). */
  readonly microBlockRequestTimeoutMs: number;
  readonly microBlockRequestAttempts: number;
  /** Seen-caches: how long and how many ids (received-txs-cache-timeout, …). */
  readonly seenCacheTtlMs: number;
  readonly seenCacheSize: number;
  /** A key block on a micro-block not here yet is retried (key-block-appending). */
  readonly keyBlockAppendAttempts: number;
  readonly keyBlockAppendRetryMs: number;
  /**
   * Transactions from peers are relayed in batches (transaction-broadcaster max-batch-size /
   * max-batch-time): a batch goes once it holds this many, or after about this long (between
   * half and one and a half times, at random, so that nodes that took a transaction at the
   * same moment relay it at different ones and learn from each other who has it).
   */
  readonly transactionRelayBatchSize: number;
  readonly transactionRelayBatchMs: number;
}

export const DEFAULT_SYNC_SETTINGS: SyncSettings = {
  maxRollback: 100,
  maxChainLength: 101,
  extensionBatchSize: 10,
  synchronizationTimeoutMs: 40_000,
  scoreTtlMs: 90_000,
  invalidBlocksTtlMs: 5 * 60_000,
  microBlockRequestTimeoutMs: 5_000,
  microBlockRequestAttempts: 3,
  seenCacheTtlMs: 3 * 60_000,
  seenCacheSize: 100_000,
  keyBlockAppendAttempts: 10,
  keyBlockAppendRetryMs: 400,
  transactionRelayBatchSize: 500,
  transactionRelayBatchMs: 500,
};

export interface NetworkLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
}

export interface NetworkDeps {
  readonly chain: PeerChain;
  readonly pool: PeerPool;
  readonly protocol: Protocol;
  /** Node time (ms), for score and cache ages. */
  readonly now: () => bigint;
  readonly logger: NetworkLogger;
  readonly settings?: Partial<SyncSettings>;
  /** The node owner's keys: sign the inventories of micro-blocks this node mines. */
  readonly ownerKeys?: KeyPair;
  readonly timers?: Timers;
  /** Uniform in [0, 1): spreads the transaction relay batches (tests make it fixed); Math.random by default. */
  readonly random?: () => number;
  /**
   * PKI (GOST networks in mode TEST/ON): whether a transaction of a peer's block, with the
   * certificates that block carried (45, 47), is certified — the reason it is not, if so;
   * those certificates are kept only for the transactions it lets through. Absent: a block's
   * certificates are taken as they come. (Peers' own transactions (46) go through the chain's
   * admission, which holds the same policy: PeerPool.certificateProblem.)
   */
  readonly certificatePolicy?: (tx: Transaction, certificates: readonly Certificate[]) => Promise<string | undefined>;
  /** Where each micro-block's stage times go at DEBUG (micro-block-timeline.ts); absent: nowhere. */
  readonly microBlockLog?: MicroBlockTimelineLog;
  /** Which message forms each peer gets (peer-forms.ts); absent: by the peers' versions alone (no 43 sent, no watcher known). */
  readonly forms?: PeerForms;
}

/** The settings given, WE's defaults for the rest. */
export function syncSettings(given: Partial<SyncSettings> | undefined): SyncSettings {
  return { ...DEFAULT_SYNC_SETTINGS, ...given };
}
