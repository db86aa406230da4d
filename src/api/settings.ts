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
  /** `node.api.grpc`'s public API keys (where it listens is `node.api.grpc.bind-address`/`port`, read with the contract keys). */
  readonly grpc: PublicGrpcSettings;
}

/**
 * `node.api.grpc`: the public gRPC API (api/grpc/) and its stream limits. `history-events-buffer`
 * (WE's buffer of history events read ahead) has no use here: a subscriber's history is read
 * from the store as it takes it.
 */
export interface PublicGrpcSettings {
  /** `enable` (WE's default yes): the public services on the node's gRPC port. */
  readonly enabled: boolean;
  /** `services.blockchain-events.max-connections` (5): open BlockchainEventsService streams. */
  readonly blockchainEventsMaxConnections: number;
  /** `services.privacy-events.max-connections` (5): open PrivacyEventsService streams. */
  readonly privacyEventsMaxConnections: number;
}

/** WE's application.conf values of `node.api.grpc`. */
export const PUBLIC_GRPC_DEFAULTS: PublicGrpcSettings = { enabled: true, blockchainEventsMaxConnections: 5, privacyEventsMaxConnections: 5 };

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
