/**
 * `node.privacy`'s key table (WE's keys and application.conf defaults; storage: Weft's
 * embedded store unless `storage.vendor` says otherwise).
 */
import {
  boolKey,
  checkedKey,
  choiceKey,
  customKey,
  durationKey,
  intKey,
  keyTable,
  nestedKey,
  optionalFileKey,
  optionalStringKey,
  sizeKey,
  stringKey,
  variantTable,
  type KeyTable,
} from '../config/key-table.js';
import { fail } from '../config/values.js';
import { dataCacheTable, inventoryHandlerTable, synchronizerKeys } from '../replication/settings-keys.js';
import {
  PRIVACY_DEFAULTS,
  type EmbeddedStorageSettings,
  type PostgresStorageSettings,
  type PrivacySettings,
  type PrivacyStorageSettings,
  type S3StorageSettings,
} from './settings.js';

const d = PRIVACY_DEFAULTS;

/** `storage`: the vendor's own keys. */
const STORAGE = variantTable<PrivacyStorageSettings, PrivacyStorageSettings['vendor']>(
  'vendor',
  {
    embedded: keyTable<EmbeddedStorageSettings>({ vendor: choiceKey('vendor', ['embedded'], 'embedded'), directory: optionalFileKey('directory') }),
    postgres: keyTable<PostgresStorageSettings>({
      vendor: choiceKey('vendor', ['postgres']),
      schema: stringKey('schema', 'public'),
      uploadChunkSize: sizeKey('upload-chunk-size', d.postgresUploadChunkSize),
      url: stringKey('jdbc-config.url'),
      user: optionalStringKey('jdbc-config.user'),
      password: customKey(
        'jdbc-config.password',
        (s) => (s.has('jdbc-config.password') ? s.string('jdbc-config.password', undefined, { allowEmpty: true }) : undefined),
        (v) => v,
      ),
      connectionTimeoutMs: durationKey('jdbc-config.connectionTimeout', 5000),
      poolSize: intKey('jdbc-config.numThreads', 20, { min: 1 }),
    }),
    s3: keyTable<S3StorageSettings>({
      vendor: choiceKey('vendor', ['s3']),
      url: stringKey('url'),
      bucket: stringKey('bucket'),
      region: stringKey('region'),
      accessKeyId: stringKey('access-key-id'),
      secretAccessKey: stringKey('secret-access-key'),
      pathStyleAccessEnabled: boolKey('path-style-access-enabled', true),
      connectionTimeoutMs: durationKey('connection-timeout', 30_000),
      connectionAcquisitionTimeoutMs: durationKey('connection-acquisition-timeout', 10_000),
      maxConcurrency: intKey('max-concurrency', 200, { min: 1 }),
      readTimeoutMs: durationKey('read-timeout', 0),
      uploadChunkSize: checkedKey(sizeKey('upload-chunk-size', d.s3UploadChunkSize), (size, path) => {
        if (size < 5 * 2 ** 20 || size > 5 * 2 ** 30) fail(path, `must be from 5MiB to 5GiB for s3, got ${size} bytes`);
      }),
    }),
    none: keyTable<{ vendor: 'none' }>({ vendor: choiceKey('vendor', ['none'], 'none') }),
  },
  (storage) => storage.vendor,
  'embedded',
);

/** `node.privacy`. */
export const PRIVACY_TABLE: KeyTable<PrivacySettings> = keyTable<PrivacySettings>({
  storage: nestedKey('storage', STORAGE),
  replier: nestedKey(
    'replier',
    keyTable({
      parallelism: intKey('parallelism', d.replier.parallelism, { min: 1 }),
      streamTimeoutMs: durationKey('stream-timeout', d.replier.streamTimeoutMs),
      streamChunkSize: sizeKey('stream-chunk-size', d.replier.streamChunkSize),
      streamMaxPeersFullnessPercentage: intKey('stream-max-peers-fullness-percentage', d.replier.streamMaxPeersFullnessPercentage, { min: 0, max: 100 }),
    }),
  ),
  synchronizer: nestedKey(
    'synchronizer',
    keyTable({
      ...synchronizerKeys(d.synchronizer),
      networkStreamBufferSize: intKey('network-stream-buffer-size', d.synchronizer.networkStreamBufferSize, { min: 1 }),
    }),
  ),
  inventoryHandler: nestedKey('inventory-handler', inventoryHandlerTable(d.inventoryHandler)),
  cache: nestedKey('cache', dataCacheTable(d.cache)),
  service: nestedKey(
    'service',
    keyTable({
      requestBufferSize: sizeKey('request-buffer-size', d.service.requestBufferSize),
      metaDataAccumulationTimeoutMs: durationKey('meta-data-accumulation-timeout', d.service.metaDataAccumulationTimeoutMs),
    }),
  ),
});
