/**
 * `node.confidential-contracts` (WE's ConfidentialContractsSettings and its application.conf
 * defaults; the replication blocks mirror `node.privacy`'s): node/config.ts reads the HOCON
 * into these, replication.ts runs on them.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** The replication blocks (`data-directory` is NodeConfig.node.confidentialDataDirectory). */
export interface ConfidentialContractsSettings {
  /** `replier.parallelism`: requests for data answered at once. */
  readonly replier: { readonly parallelism: number };
  /** `cache`: units recently served to peers, kept ready to send (`max-size`, `expire-after`). */
  readonly cache: { readonly maxSize: number; readonly expireAfterMs: number };
  /** `inventory-handler`: inventories are taken in batches and remembered so each is handled once. */
  readonly inventoryHandler: {
    readonly maxBufferTimeMs: number;
    readonly maxBufferSize: number;
    readonly maxCacheSize: number;
    readonly expirationTimeMs: number;
    readonly replierParallelism: number;
  };
  /** `synchronizer`: fetching the units this node lacks. */
  readonly synchronizer: {
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
  };
}

/** WE 1.14's application.conf values. */
export const CONFIDENTIAL_CONTRACTS_DEFAULTS: ConfidentialContractsSettings = {
  replier: { parallelism: 10 },
  cache: { maxSize: 100, expireAfterMs: 10 * MINUTE },
  inventoryHandler: { maxBufferTimeMs: 500, maxBufferSize: 100, maxCacheSize: 100_000, expirationTimeMs: 5 * MINUTE, replierParallelism: 10 },
  synchronizer: {
    requestTimeoutMs: 2 * MINUTE,
    initRetryDelayMs: 5 * SECOND,
    inventoryStreamTimeoutMs: 15 * SECOND,
    inventoryRequestDelayMs: 3 * SECOND,
    inventoryTimestampThresholdMs: 10 * MINUTE,
    crawlingParallelism: 100,
    maxAttemptCount: 24,
    lostDataProcessingDelayMs: 10 * MINUTE,
    failedPeersCacheSize: 100,
    failedPeersCacheExpireTimeoutMs: 10 * MINUTE,
  },
};
