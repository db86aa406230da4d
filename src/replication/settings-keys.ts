/**
 * The key tables of the replication blocks `node.privacy` and `node.confidential-contracts`
 * share (the same keys under both, each with its own application.conf defaults).
 */
import { durationKey, intKey, keyTable, nestedKey, type Keys, type KeyTable } from '../config/key-table.js';
import type { DataCacheSettings, InventoryHandlerSettings, ReplicationSettings, ReplicationSynchronizerSettings } from './settings.js';

/** `synchronizer`'s keys (a section extends them with its own). */
export function synchronizerKeys(d: ReplicationSynchronizerSettings): Keys<ReplicationSynchronizerSettings, unknown> {
  return {
    requestTimeoutMs: durationKey('request-timeout', d.requestTimeoutMs),
    initRetryDelayMs: durationKey('init-retry-delay', d.initRetryDelayMs),
    inventoryStreamTimeoutMs: durationKey('inventory-stream-timeout', d.inventoryStreamTimeoutMs),
    inventoryRequestDelayMs: durationKey('inventory-request-delay', d.inventoryRequestDelayMs),
    inventoryTimestampThresholdMs: durationKey('inventory-timestamp-threshold', d.inventoryTimestampThresholdMs),
    crawlingParallelism: intKey('crawling-parallelism', d.crawlingParallelism, { min: 1 }),
    maxAttemptCount: intKey('max-attempt-count', d.maxAttemptCount, { min: 1 }),
    lostDataProcessingDelayMs: durationKey('lost-data-processing-delay', d.lostDataProcessingDelayMs),
    failedPeersCacheSize: intKey('failed-peers-cache-size', d.failedPeersCacheSize, { min: 1 }),
    failedPeersCacheExpireTimeoutMs: durationKey('failed-peers-cache-expire-timeout', d.failedPeersCacheExpireTimeoutMs),
  };
}

/** `inventory-handler`. */
export function inventoryHandlerTable(d: InventoryHandlerSettings): KeyTable<InventoryHandlerSettings> {
  return keyTable<InventoryHandlerSettings>({
    maxBufferTimeMs: durationKey('max-buffer-time', d.maxBufferTimeMs),
    maxBufferSize: intKey('max-buffer-size', d.maxBufferSize, { min: 1 }),
    maxCacheSize: intKey('max-cache-size', d.maxCacheSize, { min: 1 }),
    expirationTimeMs: durationKey('expiration-time', d.expirationTimeMs),
    replierParallelism: intKey('replier-parallelism', d.replierParallelism, { min: 1 }),
  });
}

/** `cache`. */
export function dataCacheTable(d: DataCacheSettings): KeyTable<DataCacheSettings> {
  return keyTable<DataCacheSettings>({ maxSize: intKey('max-size', d.maxSize, { min: 1 }), expireAfterMs: durationKey('expire-after', d.expireAfterMs) });
}

/** The blocks of a replicated section as the engine reads them, `replier.parallelism` included. */
export function replicationTable(d: ReplicationSettings): KeyTable<ReplicationSettings> {
  return keyTable<ReplicationSettings>({
    replier: nestedKey('replier', keyTable({ parallelism: intKey('parallelism', d.replier.parallelism, { min: 1 }) })),
    cache: nestedKey('cache', dataCacheTable(d.cache)),
    inventoryHandler: nestedKey('inventory-handler', inventoryHandlerTable(d.inventoryHandler)),
    synchronizer: nestedKey('synchronizer', keyTable(synchronizerKeys(d.synchronizer))),
  });
}
