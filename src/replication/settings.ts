/**
 * The replication blocks `node.privacy` and `node.confidential-contracts` share (WE's
 * application.conf keys, the same under both): settings-keys.ts reads and renders them,
 * the engine runs on them. Durations in ms.
 */

/** `synchronizer`: fetching the items this node lacks. */
export interface ReplicationSynchronizerSettings {
  readonly requestTimeoutMs: number;
  readonly initRetryDelayMs: number;
  readonly inventoryStreamTimeoutMs: number;
  readonly inventoryRequestDelayMs: number;
  readonly inventoryTimestampThresholdMs: number;
  readonly crawlingParallelism: number;
  readonly maxAttemptCount: number;
  readonly lostDataProcessingDelayMs: number;
  readonly failedPeersCacheSize: number;
  readonly failedPeersCacheExpireTimeoutMs: number;
}

/** `inventory-handler`: inventories are taken in batches and remembered so each is handled once. */
export interface InventoryHandlerSettings {
  readonly maxBufferTimeMs: number;
  readonly maxBufferSize: number;
  readonly maxCacheSize: number;
  readonly expirationTimeMs: number;
  readonly replierParallelism: number;
}

/** `cache`: data recently served to peers, kept ready to send. */
export interface DataCacheSettings {
  readonly maxSize: number;
  readonly expireAfterMs: number;
}

/** What the engine reads of a user's settings. */
export interface ReplicationSettings {
  /** `replier.parallelism`: requests for data answered at once (twice as many wait; more are dropped). */
  readonly replier: { readonly parallelism: number };
  readonly cache: DataCacheSettings;
  readonly inventoryHandler: InventoryHandlerSettings;
  readonly synchronizer: ReplicationSynchronizerSettings;
}
