/**
 * `node.confidential-contracts` (WE's ConfidentialContractsSettings and its application.conf
 * defaults; the replication blocks mirror `node.privacy`'s): settings-keys.ts reads and
 * renders them, the replication engine runs on them (replication.ts).
 */

import type { DataCacheSettings, InventoryHandlerSettings, ReplicationSettings, ReplicationSynchronizerSettings } from '../../replication/settings.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** The replication blocks, in `node.privacy`'s shapes (`data-directory` is NodeConfig.node.confidentialDataDirectory). */
export interface ConfidentialContractsSettings extends ReplicationSettings {
  /** `replier.parallelism`: requests for data answered at once (the one key of privacy's replier it has). */
  readonly replier: ReplicationSettings['replier'];
  /** `cache`: units recently served to peers, kept ready to send (`max-size`, `expire-after`). */
  readonly cache: DataCacheSettings;
  readonly inventoryHandler: InventoryHandlerSettings;
  /** `synchronizer`: fetching the units this node lacks. */
  readonly synchronizer: ReplicationSynchronizerSettings;
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
