/**
 * `node.api`'s key table: `rest` (WE's keys, and Weft's origins, connection cap and timeouts),
 * `auth` (API key hashes or an OAuth2 public key) and the public gRPC API's `grpc` keys. Where
 * the gRPC port listens is read with contract execution's keys (contracts/settings-keys.ts);
 * watcher mode and the PKI mode come from the network and crypto keys, read beside these.
 */
import { createPublicKey } from 'node:crypto';
import { decodeBase58, decodeBase64, encodeBase58 } from '../crypto/encoding.js';
import {
  boolKey,
  choiceKey,
  contextKey,
  customKey,
  intKey,
  positiveDurationKey,
  keyTable,
  listKey,
  nestedKey,
  stringKey,
  variantTable,
  type Key,
  type KeyTable,
} from '../config/key-table.js';
import { ConfigError, describeValue, fail, parseString } from '../config/values.js';
import { DEFAULT_REST_CONNECTION_LIMITS } from './connection-limits.js';
import type { AuthMode, RestConnectionLimits } from './services.js';
import { PUBLIC_GRPC_DEFAULTS, REST_DEFAULTS as d, WE_DEFAULT_API_KEY_HASH, type NodeApiSettings, type PublicGrpcSettings } from './settings.js';

/** What the API settings take from keys read elsewhere: watcher mode (`node.network.mode`) and `node.crypto.pki.mode`. */
export interface ApiReadContext {
  readonly watcher: boolean;
  readonly pkiMode: 'OFF' | 'ON' | 'TEST';
}

/** A browser origin as browsers send it: `scheme://host[:port]`, nothing after. */
function readOrigin(v: unknown, path: string): string {
  const text = parseString(v, path).trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]+$/i.test(text)) return fail(path, `expected an origin such as "https://app.example.com", got ${describeValue(v)}`);
  return text;
}

/** `node.api.rest` connection cap and timeouts (Weft's; WE has none). */
const CONNECTION_LIMITS = keyTable<RestConnectionLimits>({
  maxConnections: intKey('max-connections', DEFAULT_REST_CONNECTION_LIMITS.maxConnections, { min: 1 }),
  headerTimeoutMs: positiveDurationKey('header-timeout', DEFAULT_REST_CONNECTION_LIMITS.headerTimeoutMs),
  requestTimeoutMs: positiveDurationKey('request-timeout', DEFAULT_REST_CONNECTION_LIMITS.requestTimeoutMs),
  idleTimeoutMs: positiveDurationKey('idle-timeout', DEFAULT_REST_CONNECTION_LIMITS.idleTimeoutMs),
});

function apiKeyHashKey(key: string): Key<Uint8Array> {
  return customKey(
    key,
    (auth) => {
      const text = auth.string(key, WE_DEFAULT_API_KEY_HASH, { allowEmpty: true });
      if (text === '') fail(auth.at(key), `'${auth.at(key)}' setting is empty`);
      try {
        return decodeBase58(text);
      } catch {
        return fail(auth.at(key), `Failed to decode ${key}: '${text}'`);
      }
    },
    (hash) => encodeBase58(hash),
  );
}

const AUTH = variantTable<AuthMode, AuthMode['type'] | 'tls-whitelist'>(
  'type',
  {
    'api-key': keyTable<Extract<AuthMode, { type: 'api-key' }>>({
      type: choiceKey('type', ['api-key'], 'api-key'),
      apiKeyHash: apiKeyHashKey('api-key-hash'),
      privacyApiKeyHash: apiKeyHashKey('privacy-api-key-hash'),
      confidentialContractsApiKeyHash: apiKeyHashKey('confidential-contracts-api-key-hash'),
    }),
    oauth2: keyTable<Extract<AuthMode, { type: 'oauth2' }>>({
      type: choiceKey('type', ['oauth2']),
      publicKeyPem: customKey(
        'public-key',
        (auth) => {
          const text = auth.string('public-key');
          try {
            const key = createPublicKey({ key: Buffer.from(decodeBase64(text.trim())), format: 'der', type: 'spki' });
            if (key.asymmetricKeyType !== 'rsa') fail(auth.at('public-key'), `expected an RSA public key, got a ${key.asymmetricKeyType ?? 'unknown'} key`);
            return key.export({ format: 'pem', type: 'spki' }).toString();
          } catch (e) {
            if (e instanceof ConfigError) throw e;
            return fail(auth.at('public-key'), `Failed to decode authorization public key: '${text}' (expected a Base64 X.509 RSA public key)`);
          }
        },
        (pem) => pem.replace(/-----[A-Z ]+-----|\s/g, ''),
      ),
    }),
    'tls-whitelist': "'tls-whitelist' is not supported (WE leaves every REST route open with it); use api-key or oauth2",
  },
  (auth) => auth.type,
  'api-key',
);

/** `node.api.grpc`'s public API keys. */
const PUBLIC_GRPC = keyTable<PublicGrpcSettings>({
  enabled: boolKey('enable', PUBLIC_GRPC_DEFAULTS.enabled),
  blockchainEventsMaxConnections: intKey('services.blockchain-events.max-connections', PUBLIC_GRPC_DEFAULTS.blockchainEventsMaxConnections, { min: 1 }),
  privacyEventsMaxConnections: intKey('services.privacy-events.max-connections', PUBLIC_GRPC_DEFAULTS.privacyEventsMaxConnections, { min: 1 }),
});

/** `node.api`. */
export const API_TABLE: KeyTable<NodeApiSettings, ApiReadContext> = keyTable<NodeApiSettings, ApiReadContext>({
  enabled: boolKey('rest.enable', d.enabled),
  bindAddress: stringKey('rest.bind-address', d.bindAddress),
  port: intKey('rest.port', d.port, { min: 0, max: 65535 }),
  cors: boolKey('rest.cors', d.cors),
  corsAllowedOrigins: listKey('rest.cors-allowed-origins', readOrigin, (origin) => origin),
  connectionLimits: nestedKey('rest', CONNECTION_LIMITS),
  transactionsByAddressLimit: intKey('rest.transactions-by-address-limit', d.transactionsByAddressLimit, { min: 1 }),
  distributionAddressLimit: intKey('rest.distribution-address-limit', d.distributionAddressLimit, { min: 1 }),
  auth: nestedKey('auth', AUTH),
  grpc: nestedKey('grpc', PUBLIC_GRPC),
  watcher: contextKey((c: ApiReadContext) => c.watcher),
  pkiMode: contextKey((c: ApiReadContext) => c.pkiMode),
});
