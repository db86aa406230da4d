/**
 * The storage `node.privacy.storage.vendor` names, opened and ready (schema migrated,
 * bucket present, interrupted uploads cleared); undefined for `none`.
 */
import { embeddedStorageDirectory, type PrivacyStorageSettings } from '../settings.js';
import { EmbeddedStorage } from './embedded.js';
import { PostgresStorage } from './postgres.js';
import { S3Storage } from './s3.js';
import type { PolicyStorage } from './storage.js';

export async function openPolicyStorage(settings: PrivacyStorageSettings, dataDirectory: string): Promise<PolicyStorage | undefined> {
  switch (settings.vendor) {
    case 'none':
      return undefined;
    case 'embedded':
      return EmbeddedStorage.open(embeddedStorageDirectory(settings, dataDirectory));
    case 'postgres':
      return PostgresStorage.open(settings);
    case 's3':
      return S3Storage.open(settings);
  }
}
