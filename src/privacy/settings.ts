/**
 * The settings of confidential data (`node.privacy` in WE's config; defaults from WE's
 * application.conf, reference privacy-crypto-pki.md §3.5). settings-keys.ts reads and
 * renders them; everything here is already typed: durations in ms, sizes in bytes.
 *
 * `storage.vendor` chooses where items live: `embedded` (Weft's default: files and LMDB
 * under the node's data directory), `postgres` (WE's schema), `s3` (WE's object layout), or
 * `none` (the privacy routes answer 613, as WE's default does).
 */

import type { DataCacheSettings, InventoryHandlerSettings, ReplicationSettings, ReplicationSynchronizerSettings } from '../replication/settings.js';

export interface PostgresStorageSettings {
  readonly vendor: 'postgres';
  /** `jdbc-config.url`, a JDBC URL: `jdbc:postgresql://host[:port]/database[?user=…&password=…]`. */
  readonly url: string;
  readonly user: string | undefined;
  readonly password: string | undefined;
  /** `schema`: where WE's tables live (created by the migrations when missing). */
  readonly schema: string;
  /** `jdbc-config.connectionTimeout`, ms. */
  readonly connectionTimeoutMs: number;
  /** `jdbc-config.numThreads`: connections in the pool. */
  readonly poolSize: number;
  /** `upload-chunk-size`: how large items are written into large objects. */
  readonly uploadChunkSize: number;
}

export interface S3StorageSettings {
  readonly vendor: 's3';
  /** `url`: the endpoint, e.g. `http://localhost:9000/` (MinIO). */
  readonly url: string;
  readonly bucket: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** `path-style-access-enabled`: `endpoint/bucket/key` URLs (MinIO, s3rver) instead of `bucket.endpoint/key`. */
  readonly pathStyleAccessEnabled: boolean;
  readonly connectionTimeoutMs: number;
  readonly connectionAcquisitionTimeoutMs: number;
  readonly maxConcurrency: number;
  /** 0: no read timeout. */
  readonly readTimeoutMs: number;
  /** `upload-chunk-size`: the part size of multipart uploads (5 MiB … 5 GiB). */
  readonly uploadChunkSize: number;
}

export interface EmbeddedStorageSettings {
  readonly vendor: 'embedded';
  /** `storage.directory`: where items and their metadata live; undefined: `<data-directory>/privacy`. */
  readonly directory: string | undefined;
}

export type PrivacyStorageSettings = { readonly vendor: 'none' } | EmbeddedStorageSettings | PostgresStorageSettings | S3StorageSettings;

export interface PrivacyReplierSettings {
  readonly parallelism: number;
  readonly streamTimeoutMs: number;
  readonly streamChunkSize: number;
  readonly streamMaxPeersFullnessPercentage: number;
}

export interface PrivacySynchronizerSettings extends ReplicationSynchronizerSettings {
  readonly networkStreamBufferSize: number;
}

export interface PrivacySettings extends ReplicationSettings {
  readonly storage: PrivacyStorageSettings;
  readonly replier: PrivacyReplierSettings;
  readonly synchronizer: PrivacySynchronizerSettings;
  readonly inventoryHandler: InventoryHandlerSettings;
  /** LRU of small items served to peers. */
  readonly cache: DataCacheSettings;
  readonly service: {
    /** How far an upload is read ahead of the storage (bytes); beyond it the socket is paused. */
    readonly requestBufferSize: number;
    /** How long `sendLargeData` waits for its `request` part. */
    readonly metaDataAccumulationTimeoutMs: number;
  };
}

import { join } from 'node:path';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const MiB = 1024 * 1024;

/** WE's application.conf values (storage: Weft's embedded default, in `dataDirectory`/privacy). */
export const PRIVACY_DEFAULTS = {
  replier: { parallelism: 10, streamTimeoutMs: MINUTE, streamChunkSize: MiB, streamMaxPeersFullnessPercentage: 66 },
  synchronizer: {
    requestTimeoutMs: 2 * MINUTE,
    initRetryDelayMs: 5 * SECOND,
    inventoryStreamTimeoutMs: 15 * SECOND,
    inventoryRequestDelayMs: 3 * SECOND,
    inventoryTimestampThresholdMs: 10 * MINUTE,
    crawlingParallelism: 100,
    maxAttemptCount: 24,
    lostDataProcessingDelayMs: 10 * MINUTE,
    networkStreamBufferSize: 10,
    failedPeersCacheSize: 100,
    failedPeersCacheExpireTimeoutMs: 10 * MINUTE,
  },
  inventoryHandler: { maxBufferTimeMs: 500, maxBufferSize: 100, maxCacheSize: 100_000, expirationTimeMs: 5 * MINUTE, replierParallelism: 10 },
  cache: { maxSize: 100, expireAfterMs: 10 * MINUTE },
  service: { requestBufferSize: 10 * MiB, metaDataAccumulationTimeoutMs: 3 * SECOND },
  postgresUploadChunkSize: MiB,
  s3UploadChunkSize: 5 * MiB,
} as const;

/** The settings of a node that names nothing under `node.privacy`: the embedded store. */
export function defaultPrivacySettings(): PrivacySettings {
  const { replier, synchronizer, inventoryHandler, cache, service } = PRIVACY_DEFAULTS;
  return { storage: { vendor: 'embedded', directory: undefined }, replier, synchronizer, inventoryHandler, cache, service };
}

/** Where the embedded store lives for a node whose data directory is `dataDirectory`. */
export function embeddedStorageDirectory(settings: EmbeddedStorageSettings, dataDirectory: string): string {
  return settings.directory ?? join(dataDirectory, 'privacy');
}
