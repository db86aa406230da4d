/**
 * `node.api`: what the REST API runs on beyond what services.ts names (WE's keys and
 * application.conf defaults; settings-keys.ts reads and renders them).
 */
import type { ApiSettings } from './services.js';

/** `node.api` as the node reads it. */
export interface NodeApiSettings extends ApiSettings {
  /** `node.api.rest.enable`. */
  readonly enabled: boolean;
  readonly distributionAddressLimit: number;
}

/** `H6nsii…`: the hash of `ridethewaves!`, WE's default for all three API-key hashes. */
export const WE_DEFAULT_API_KEY_HASH = 'H6nsiifwYKYEx6YzYD7woP1XCn72RVvx6tC1zjjLXqsu';

/** WE's application.conf values of `node.api.rest`. */
export const REST_DEFAULTS = {
  enabled: true,
  bindAddress: '0.0.0.0',
  port: 6862,
  cors: true,
  transactionsByAddressLimit: 10_000,
  distributionAddressLimit: 1000,
} as const;
