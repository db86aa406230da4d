/**
 * Who may call a route. A route declares a protection level; an Authenticator for the
 * configured mode checks a request against it and throws WE's error when it fails.
 *
 * api-key mode (WE's ApiRoute.checkApiKeyHeader): the `X-API-Key` header (any casing) is
 * hashed with the network's secureHash and compared in constant time with the configured
 * hash of the level — admin → `api-key-hash` (403, 2), privacy → `privacy-api-key-hash`
 * (403, 614), confidential → `confidential-contracts-api-key-hash` (403, 649). `user`
 * and `none` routes are open.
 *
 * OAuth2 (JWT) mode is not implemented yet: a server for it refuses to start rather than
 * run open.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { CryptoSuite } from '../crypto/suite.js';
import type { AuthMode } from './services.js';
import { apiKeyNotValid, confidentialContractsApiKeyNotValid, privacyApiKeyNotValid, type ApiError } from './errors.js';

/**
 * `none`: open in every mode (WE's node status, swagger); `user`: WE's WithoutProtection
 * (open with API keys, any known role with OAuth2); the others need their credential.
 */
export type AuthLevel = 'none' | 'user' | 'admin' | 'privacy' | 'confidential';

export interface Authenticator {
  /** Throws WE's error unless the request may use a route of this level. */
  authorize(level: AuthLevel, headers: IncomingHttpHeaders): void;
  /** OpenAPI security requirement of a level (empty when open). */
  security(level: AuthLevel): Array<Record<string, string[]>>;
}

/** OpenAPI security schemes, named as in WE's own swagger file. */
export const SECURITY_SCHEMES = {
  'API-Key': { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Admin routes: the key whose hash is `api-key-hash`' },
  'Privacy-API-Key': { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Privacy routes: the key whose hash is `privacy-api-key-hash`' },
  'Confidential-Contracts-API-Key': {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'Confidential contract routes: the key whose hash is `confidential-contracts-api-key-hash`',
  },
} as const;

const SCHEME_OF_LEVEL: Partial<Record<AuthLevel, keyof typeof SECURITY_SCHEMES>> = {
  admin: 'API-Key',
  privacy: 'Privacy-API-Key',
  confidential: 'Confidential-Contracts-API-Key',
};

/** The first `X-API-Key` header value (Node lowercases names; repeated headers come as an array). */
function apiKeyHeader(headers: IncomingHttpHeaders): string | undefined {
  const v = headers['x-api-key'];
  return Array.isArray(v) ? v[0] : v;
}

export class ApiKeyAuthenticator implements Authenticator {
  private readonly expected: Partial<Record<AuthLevel, { hash: Uint8Array; error: () => ApiError }>>;

  constructor(
    mode: Extract<AuthMode, { type: 'api-key' }>,
    private readonly crypto: CryptoSuite,
  ) {
    this.expected = {
      admin: { hash: mode.apiKeyHash, error: apiKeyNotValid },
      privacy: { hash: mode.privacyApiKeyHash, error: privacyApiKeyNotValid },
      confidential: { hash: mode.confidentialContractsApiKeyHash, error: confidentialContractsApiKeyNotValid },
    };
  }

  authorize(level: AuthLevel, headers: IncomingHttpHeaders): void {
    const expected = this.expected[level];
    if (expected === undefined) return;
    const key = apiKeyHeader(headers);
    if (key === undefined || !this.matches(key, expected.hash)) throw expected.error();
  }

  /** secureHash(UTF-8 key) equals the configured hash, compared in constant time. */
  matches(key: string, hash: Uint8Array): boolean {
    const digest = apiKeyHash(key, this.crypto);
    return digest.length === hash.length && timingSafeEqual(digest, hash);
  }

  security(level: AuthLevel): Array<Record<string, string[]>> {
    const scheme = SCHEME_OF_LEVEL[level];
    return scheme === undefined ? [] : [{ [scheme]: [] }];
  }
}

/** The authenticator of a configured mode. */
export function createAuthenticator(mode: AuthMode, crypto: CryptoSuite): Authenticator {
  if (mode.type === 'api-key') return new ApiKeyAuthenticator(mode, crypto);
  throw new Error('OAuth2 authorization (node.api.auth.type = oauth2) is not supported yet; use api-key');
}

/** secureHash(UTF-8 key): the bytes whose Base58 `api-key-hash` holds for `key` (WE's ApiKeyHashGenerator rule). */
export function apiKeyHash(key: string, crypto: CryptoSuite): Uint8Array {
  return crypto.secureHash(new Uint8Array(Buffer.from(key, 'utf8')));
}
