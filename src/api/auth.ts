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
 * OAuth2 mode (WE's Oauth2Authorization): every route but the `none` ones needs
 * `Authorization: Bearer <JWT>`, a token signed RS256 with the key whose public half the
 * node is configured with. In WE's order:
 *   no bearer token                                   → 401 618
 *   not header.payload.signature, not Base64url JSON,
 *   `alg` other than RS256, signature does not verify → 401 622
 *   `exp` (seconds) absent, not an integer, or past
 *   (node time > exp·1000)                            → 401 619   (`nbf` is not checked)
 *   claims without a `roles` array, or `addresses`
 *   present but not an array                          → 400 620
 *   role missing for the level                        → 403 621
 *   admin/privacy without the node owner's address
 *   entry `{"address": <owner>, "type": "node"}`      → 403 636
 * A `user` route takes any known role (user, admin, privacy, confidential_contracts);
 * admin needs `admin`, privacy `privacy`, confidential `confidential_contracts` (no owner
 * check). Unknown role strings and malformed `addresses` entries are dropped, as WE's
 * claim reader drops them.
 */
import { createPublicKey, timingSafeEqual, verify as verifySignature, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { CryptoSuite } from '../crypto/suite.js';
import { parseJson } from '../protocol/json.js';
import type { Protocol } from '../protocol/protocol.js';
import type { AuthMode } from './services.js';
import { INT64 } from '../protocol/bytes.js';
import {
  type ApiError,
  apiKeyNotValid,
  authTokenExpired,
  cantParseJwtClaims,
  confidentialContractsApiKeyNotValid,
  invalidNodeOwnerAddress,
  invalidTokenError,
  missingAuthorizationMetadata,
  noRequiredAuthRole,
  privacyApiKeyNotValid,
} from '../errors/catalogue.js';

/**
 * `none`: open in every mode (WE's node status, swagger); `user`: WE's WithoutProtection
 * (open with API keys, any known role with OAuth2); the others need their credential.
 */
export type AuthLevel = 'none' | 'user' | 'admin' | 'privacy' | 'confidential';

export interface Authenticator {
  /** Throws WE's error unless the request may use a route of this level. */
  authorize(level: AuthLevel, headers: IncomingHttpHeaders): void;
  /** True when routes of this level check nothing (their requests skip authorization). */
  isOpen(level: AuthLevel): boolean;
  /** OpenAPI security requirement of a level (empty when open). */
  security(level: AuthLevel): Array<Record<string, string[]>>;
  /** The statuses a request to a route of this level can be refused with, described for the OpenAPI document. */
  refusals?(level: AuthLevel): Readonly<Record<number, string>>;
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
  OAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'node.api.auth.type = oauth2: an RS256 JWT with `exp` and `roles` (user, admin, privacy, confidential_contracts); admin and privacy routes also need `addresses: [{"address": <node owner>, "type": "node"}]`',
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

  isOpen(level: AuthLevel): boolean {
    return this.expected[level] === undefined;
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

  refusals(level: AuthLevel): Readonly<Record<number, string>> {
    const refusal = this.expected[level]?.error();
    return refusal === undefined ? {} : { [refusal.status]: `${refusal.code} (${refusal.message}): \`X-API-Key\` missing or wrong` };
  }
}

// ---------------------------------------------------------------------------
// OAuth2 (JWT)

/** WE's AuthRole values, as tokens carry them. */
export type JwtRole = 'user' | 'privacy' | 'admin' | 'confidential_contracts';

export const JWT_ROLES: readonly JwtRole[] = ['user', 'privacy', 'admin', 'confidential_contracts'];

/** The role each protected level needs (`user` routes take any known role). */
export const ROLE_OF_LEVEL: Readonly<Record<Exclude<AuthLevel, 'none'>, JwtRole>> = {
  user: 'user',
  admin: 'admin',
  privacy: 'privacy',
  confidential: 'confidential_contracts',
};

/** The Scala object name WE prints in error 621 for each role. */
const ROLE_OBJECT_NAME: Readonly<Record<JwtRole, string>> = {
  user: 'User',
  privacy: 'PrivacyUser',
  admin: 'Administrator',
  confidential_contracts: 'ConfidentialContractsUser',
};

/** Levels whose tokens must also name the node owner (WE: Administrator and PrivacyUser). */
const OWNER_LEVELS: ReadonlySet<AuthLevel> = new Set(['admin', 'privacy']);

/** Claims WE's JWT library takes out of the payload before the node reads `roles` and `addresses`. */
const REGISTERED_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti'];

/** What OAuth2 checks need from the node. */
export interface OAuth2Context {
  /** The node owner's address (Base58), which admin and privacy tokens must name. */
  readonly nodeOwner: string;
  /** Base58 form of an address of this network (an `address:` prefix allowed), or undefined when the text is not one. */
  readonly parseAddress: (text: string) => string | undefined;
  /** Node time in ms. */
  readonly now: () => bigint;
}

/** The roles and node-type addresses a verified token grants. */
export interface JwtContent {
  readonly roles: ReadonlySet<JwtRole>;
  /** Addresses of the `addresses` entries whose `type` is `node`. */
  readonly nodeAddresses: ReadonlySet<string>;
}

/** `Authorization: Bearer <token68>` (scheme case-insensitive); anything else is no token. */
function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const text = headers['authorization'];
  if (text === undefined) return undefined;
  const m = /^[Bb][Ee][Aa][Rr][Ee][Rr] +([A-Za-z0-9\-._~+/]+=*) *$/.exec(text);
  return m?.[1];
}

/** Strict Base64url (padding optional), as Java's URL decoder reads it; undefined otherwise. */
function base64url(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) return undefined;
  const bare = text.replace(/=+$/, '');
  if (bare.length % 4 === 1) return undefined;
  if (text.length !== bare.length && text.length % 4 !== 0) return undefined;
  return Buffer.from(bare, 'base64url');
}

function jsonObject(bytes: Buffer | undefined): Record<string, unknown> | undefined {
  if (bytes === undefined) return undefined;
  let value: unknown;
  try {
    value = parseJson(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A JSON number with an integral value that fits a Java long (Play's Reads[Long]); undefined otherwise. */
function jsonLong(v: unknown): bigint | undefined {
  let n: bigint;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isInteger(v)) n = BigInt(v);
  else return undefined;
  return n >= INT64.MIN && n <= INT64.MAX ? n : undefined;
}

export class OAuth2Authenticator implements Authenticator {
  private readonly key: KeyObject;

  constructor(
    mode: Extract<AuthMode, { type: 'oauth2' }>,
    private readonly context: OAuth2Context,
  ) {
    try {
      this.key = createPublicKey(mode.publicKeyPem);
    } catch (e) {
      throw new Error(`OAuth2 authorization (node.api.auth.type = oauth2): the public key is not a valid PEM public key (${(e as Error).message})`, {
        cause: e,
      });
    }
    if (this.key.asymmetricKeyType !== 'rsa') {
      throw new Error(`OAuth2 authorization (node.api.auth.type = oauth2): expected an RSA public key, got a ${this.key.asymmetricKeyType ?? 'unknown'} key`);
    }
  }

  isOpen(level: AuthLevel): boolean {
    return level === 'none';
  }

  authorize(level: AuthLevel, headers: IncomingHttpHeaders): void {
    if (level === 'none') return;
    const token = bearerToken(headers);
    if (token === undefined) throw missingAuthorizationMetadata();
    const claims = this.verifiedClaims(token);
    const content = this.content(claims);
    const required = ROLE_OF_LEVEL[level];
    const allowed = level === 'user' ? content.roles.size > 0 : content.roles.has(required);
    if (!allowed) throw noRequiredAuthRole(ROLE_OBJECT_NAME[required]);
    if (OWNER_LEVELS.has(level) && !content.nodeAddresses.has(this.context.nodeOwner)) throw invalidNodeOwnerAddress();
  }

  /** The payload of a token whose RS256 signature verifies and whose `exp` has not passed (622, 619). */
  verifiedClaims(token: string): Record<string, unknown> {
    const parts = token.split('.');
    const [header64, payload64, signature64] = parts;
    if (parts.length !== 3 || header64 === undefined || payload64 === undefined || signature64 === undefined || signature64 === '') throw invalidTokenError();
    const header = jsonObject(base64url(header64));
    const payload = jsonObject(base64url(payload64));
    const signature = base64url(signature64);
    if (header === undefined || payload === undefined || signature === undefined || header['alg'] !== 'RS256') throw invalidTokenError();
    let valid: boolean;
    try {
      valid = verifySignature('sha256', Buffer.from(`${header64}.${payload64}`, 'ascii'), this.key, signature);
    } catch {
      valid = false;
    }
    if (!valid) throw invalidTokenError();
    const exp = jsonLong(payload['exp']);
    // WE compares with exp * 1000 in Java long arithmetic (wrapping on overflow).
    if (exp === undefined || this.context.now() > BigInt.asIntN(64, exp * 1000n)) throw authTokenExpired();
    return payload;
  }

  /** `roles` and `addresses` of verified claims, read as WE reads them (620 when they cannot be). */
  content(claims: Record<string, unknown>): JwtContent {
    const rest = { ...claims };
    for (const k of REGISTERED_CLAIMS) delete rest[k];
    const roles = rest['roles'];
    const addresses = rest['addresses'] ?? [];
    if (!Array.isArray(roles) || !Array.isArray(addresses)) throw cantParseJwtClaims();
    const granted = new Set<JwtRole>();
    for (const r of roles) if (typeof r === 'string' && (JWT_ROLES as readonly string[]).includes(r)) granted.add(r as JwtRole);
    const nodeAddresses = new Set<string>();
    for (const entry of addresses as unknown[]) {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
      const { address, type } = entry as Record<string, unknown>;
      if (typeof address !== 'string' || typeof type !== 'string') continue;
      const parsed = this.context.parseAddress(address);
      if (parsed !== undefined && type === 'node') nodeAddresses.add(parsed);
    }
    return { roles: granted, nodeAddresses };
  }

  security(level: AuthLevel): Array<Record<string, string[]>> {
    return level === 'none' ? [] : [{ OAuth: [] }];
  }

  refusals(level: AuthLevel): Readonly<Record<number, string>> {
    if (level === 'none') return {};
    return {
      401: '618 no bearer token; 622 invalid token (not RS256 or signed by another key); 619 expired or without `exp`',
      400: "620 the token's claims cannot be read",
      403: OWNER_LEVELS.has(level)
        ? "621 the token lacks the level's role; 636 no `node` address entry for the node owner"
        : "621 the token lacks the level's role",
    };
  }
}

/** What tokens are checked against on a node: its owner's address, its network's addresses, its clock. */
export function nodeOAuth2Context(protocol: Protocol, ownerPublicKey: Uint8Array, now: () => bigint): OAuth2Context {
  return {
    nodeOwner: protocol.addresses.fromPublicKey(ownerPublicKey).toString(),
    parseAddress: (text) => {
      try {
        return protocol.addresses.parseAddress(text).toString();
      } catch {
        return undefined;
      }
    },
    now,
  };
}

/**
 * The authenticator of a configured mode. OAuth2 needs the node's owner and clock; a
 * server asked for OAuth2 without them refuses to start rather than run open.
 */
export function createAuthenticator(mode: AuthMode, crypto: CryptoSuite, oauth2?: OAuth2Context): Authenticator {
  if (mode.type === 'api-key') return new ApiKeyAuthenticator(mode, crypto);
  if (oauth2 === undefined) throw new Error('OAuth2 authorization (node.api.auth.type = oauth2) needs the node owner address and the node clock');
  return new OAuth2Authenticator(mode, oauth2);
}

/** secureHash(UTF-8 key): the bytes whose Base58 `api-key-hash` holds for `key` (WE's ApiKeyHashGenerator rule). */
export function apiKeyHash(key: string, crypto: CryptoSuite): Uint8Array {
  return crypto.secureHash(new Uint8Array(Buffer.from(key, 'utf8')));
}
