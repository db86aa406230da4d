/**
 * The auth matrix, over every route of the route tables — so routes added
 * later are covered without touching this file:
 *
 * - the auth level each seed route declares is the reference's (rest-api.md §2.6/§3);
 * - api-key mode, with three different keys configured: every admin/privacy/confidential
 *   route is refused without a key, with a wrong key and with another level's key (WE's
 *   403 and code: 2, 614, 649) and allowed with its own; user and open routes need nothing;
 *   a group wrapped in an auth directive refuses unknown sub-paths before answering 404;
 * - OAuth2 mode (RS256 JWT): every route but the open ones answers 401 618 without a token,
 *   401 622 for a bad one, 401 619 for an expired one, 403 621 without the level's role,
 *   403 636 (admin, privacy) without the node owner's address entry, and is allowed with
 *   the right token; open routes stay open; the OpenAPI document names the bearer scheme;
 * - the OAuth2 authenticator's reading of tokens and claims, case by case;
 * - rule PKI-1: with `node.crypto.pki.mode = ON` the routes WE lists answer the PKI error
 *   (after authentication), and only those.
 *
 * "Allowed" means: not refused for credentials (whatever the route then says about the
 * inputs). Routes that change the chain or stop the node are called allowed last.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign as rsaSign, type KeyObject } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { apiKeyHash, OAuth2Authenticator, type AuthLevel } from '../../src/api/auth.js';
import { ROUTE_GROUPS } from '../../src/api/routes/index.js';
import { fastifyUrls, type AnyRoute } from '../../src/api/routing.js';
import type { AuthMode } from '../../src/api/services.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { DESTRUCTIVE } from '../../devkit/api/fuzz-requests.js';
import { documentedOperations, routeKey, SEED_ALIAS, seededNode, servedDocument, type SeededNode } from '../../devkit/api/seeded-node.js';
import { SEED_ROUTES } from './seed-routes.js';
import { WeError } from '../../src/errors/catalogue.js';

const ADMIN_KEY = 'matrix admin key';
const PRIVACY_KEY = 'matrix privacy key';
const CONFIDENTIAL_KEY = 'matrix confidential key';

/** WE's api-key refusal per level. */
const API_KEY_REFUSAL: Partial<Record<AuthLevel, { code: number; message: string; key: string }>> = {
  admin: { code: 2, message: 'Provided API key is not correct', key: ADMIN_KEY },
  privacy: { code: 614, message: 'Provided privacy API key is not correct', key: PRIVACY_KEY },
  confidential: { code: 649, message: 'Provided ConfidentialContracts API key is not correct', key: CONFIDENTIAL_KEY },
};

const AUTH_CODES = new Set([2, 614, 649, 618, 619, 620, 621, 622, 636]);

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown> | undefined;
  readonly text: string;
}

interface Route {
  readonly route: AnyRoute;
  readonly key: string;
  /** A concrete URL of the route. */
  readonly url: string;
}

/** Every served route, with a concrete URL (valid seeded values where known), destructive ones last, /node/stop very last. */
function routes(s: SeededNode): Route[] {
  const [, a1] = s.accounts;
  const values: Record<string, string> = {
    address: a1!.address,
    addressOrAlias: a1!.address,
    alias: SEED_ALIAS,
    assetId: s.seed.assetId,
    id: s.seed.data.idBase58,
    publicKey: encodeBase58(a1!.keyPair.publicKey),
    key: s.seed.dataKeys.string,
    // An id no block has: DELETE /debug/rollback-to must not roll back when allowed.
    signature: '1111',
  };
  const out: Route[] = [];
  for (const g of ROUTE_GROUPS) {
    for (const route of g.routes) {
      const url = fastifyUrls(route)[0]!
        .replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeURIComponent(values[name] ?? '2'))
        .replace(/\*$/, 'x');
      out.push({ route, key: routeKey(route.method, route.path), url });
    }
  }
  const rank = (r: Route): number => (r.key === 'POST /node/stop' ? 2 : DESTRUCTIVE.has(r.key) ? 1 : 0);
  return out.sort((x, y) => rank(x) - rank(y));
}

async function request(s: SeededNode, r: Route, headers: Record<string, string>): Promise<Answer> {
  const res = await s.app.inject({ method: r.route.method, url: r.url, headers });
  let body: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(res.body);
    body = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, body, text: res.body };
}

function refusedWith(problems: string[], what: string, a: Answer, status: number, code: number, message?: string): void {
  if (a.status !== status || a.body?.['error'] !== code || (message !== undefined && a.body['message'] !== message)) {
    problems.push(`${what}: expected ${status} ${code}${message !== undefined ? ` '${message}'` : ''}, got ${a.status} ${a.text.slice(0, 200)}`);
  }
}

function allowed(problems: string[], what: string, a: Answer): void {
  const code = a.body?.['error'];
  if (a.status === 401 || (typeof code === 'number' && AUTH_CODES.has(code) && (a.status === 403 || a.status === 401 || a.status === 400))) {
    problems.push(`${what}: refused for credentials: ${a.status} ${a.text.slice(0, 200)}`);
  }
}

describe('auth levels follow the reference', () => {
  it('every seed route declares the reference level (none = open in every mode, user, admin)', () => {
    const declared = new Map<string, AuthLevel>();
    for (const g of ROUTE_GROUPS) for (const r of g.routes) declared.set(routeKey(r.method, r.path), r.auth);
    const wrong = SEED_ROUTES.filter((r) => declared.has(routeKey(r.method, r.path)) && declared.get(routeKey(r.method, r.path)) !== r.auth).map(
      (r) => `${r.method} ${r.path}: declared ${declared.get(routeKey(r.method, r.path))}, reference ${r.auth}`,
    );
    assert.deepEqual(wrong, []);
  });
});

describe('api-key mode: every protected route', () => {
  let s: SeededNode;
  before(async () => {
    const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
    const auth: AuthMode = {
      type: 'api-key',
      apiKeyHash: apiKeyHash(ADMIN_KEY, p.crypto),
      privacyApiKeyHash: apiKeyHash(PRIVACY_KEY, p.crypto),
      confidentialContractsApiKeyHash: apiKeyHash(CONFIDENTIAL_KEY, p.crypto),
    };
    s = await seededNode({ auth });
  });
  after(() => s.close());

  it('a group wrapped in an auth directive refuses unknown sub-paths for credentials first', async () => {
    const problems: string[] = [];
    for (const g of ROUTE_GROUPS) {
      if (g.prefixAuth === undefined) continue;
      const refusal = API_KEY_REFUSAL[g.prefixAuth.level]!;
      // Deep enough that no route of the group (one with path parameters included) matches it.
      const url = `${g.prefixAuth.prefix}/no-such-route-here/nor/here`;
      const without = await s.app.inject({ method: 'GET', url });
      if (without.statusCode !== 403 || !without.body.includes(`"error":${refusal.code}`))
        problems.push(`GET ${url} without a key: ${without.statusCode} ${without.body}`);
      const withKey = await s.app.inject({ method: 'GET', url, headers: { 'x-api-key': refusal.key } });
      if (withKey.statusCode !== 404) problems.push(`GET ${url} with the key: ${withKey.statusCode} ${withKey.body}`);
    }
    assert.deepEqual(problems, []);
  });

  it('refused without a key, with a wrong key and with another level’s key; allowed with its own; user and open routes need none', async () => {
    const problems: string[] = [];
    let protectedCount = 0;
    for (const r of routes(s)) {
      const refusal = API_KEY_REFUSAL[r.route.auth];
      const what = `${r.key} (${r.route.auth})`;
      if (refusal === undefined) {
        allowed(problems, `${what} without a key`, await request(s, r, {}));
        continue;
      }
      protectedCount++;
      refusedWith(problems, `${what} without a key`, await request(s, r, {}), 403, refusal.code, refusal.message);
      for (const wrong of ['wrong', '', `${refusal.key} `, refusal.key.toUpperCase()]) {
        refusedWith(problems, `${what} with key '${wrong}'`, await request(s, r, { 'x-api-key': wrong }), 403, refusal.code, refusal.message);
      }
      for (const other of [ADMIN_KEY, PRIVACY_KEY, CONFIDENTIAL_KEY].filter((k) => k !== refusal.key)) {
        refusedWith(problems, `${what} with another level's key`, await request(s, r, { 'X-API-Key': other }), 403, refusal.code, refusal.message);
      }
      allowed(problems, `${what} with its key`, await request(s, r, { 'X-API-KEY': refusal.key }));
    }
    assert.ok(protectedCount > 0, 'there are protected routes');
    assert.deepEqual(problems, []);
  });
});

// ---------------------------------------------------------------------------
// OAuth2

const b64url = (x: object | Buffer): string => (Buffer.isBuffer(x) ? x : Buffer.from(JSON.stringify(x))).toString('base64url');

function jwt(privateKey: KeyObject, claims: object, header: object = { alg: 'RS256', typ: 'JWT' }): string {
  const input = `${b64url(header)}.${b64url(claims)}`;
  return `${input}.${b64url(rsaSign('sha256', Buffer.from(input), privateKey))}`;
}

const ROLE_OF: Record<Exclude<AuthLevel, 'none'>, string> = { user: 'user', admin: 'admin', privacy: 'privacy', confidential: 'confidential_contracts' };
const ROLE_NAME: Record<Exclude<AuthLevel, 'none'>, string> = {
  user: 'User',
  admin: 'Administrator',
  privacy: 'PrivacyUser',
  confidential: 'ConfidentialContractsUser',
};

describe('OAuth2 mode: every route', () => {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let s: SeededNode;
  let owner: string;
  let other: string;
  before(async () => {
    s = await seededNode({ auth: { type: 'oauth2', publicKeyPem: keys.publicKey.export({ format: 'pem', type: 'spki' }).toString() } });
    owner = s.accounts[0]!.address;
    other = s.accounts[1]!.address;
  });
  after(() => s.close());

  const exp = (): number => Number(s.now() / 1000n) + 3600;
  const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

  it('a group wrapped in an auth directive refuses unknown sub-paths for the token first', async () => {
    const problems: string[] = [];
    for (const g of ROUTE_GROUPS) {
      if (g.prefixAuth === undefined || g.prefixAuth.level === 'none') continue;
      // Deep enough that no route of the group (one with path parameters included) matches it.
      const url = `${g.prefixAuth.prefix}/no-such-route-here/nor/here`;
      const without = await s.app.inject({ method: 'GET', url });
      if (without.statusCode !== 401 || !without.body.includes('"error":618'))
        problems.push(`GET ${url} without a token: ${without.statusCode} ${without.body}`);
      const role = ROLE_OF[g.prefixAuth.level];
      const withToken = await s.app.inject({
        method: 'GET',
        url,
        headers: bearer(jwt(keys.privateKey, { roles: [role], addresses: [{ address: owner, type: 'node' }], exp: exp() })),
      });
      if (withToken.statusCode !== 404) problems.push(`GET ${url} with the token: ${withToken.statusCode} ${withToken.body}`);
    }
    assert.deepEqual(problems, []);
  });

  it('401 618 without a token, 622 for a bad one, 619 expired, 403 621 without the role, 636 without the owner entry; allowed with the right token; open routes stay open', async () => {
    const problems: string[] = [];
    let protectedCount = 0;
    for (const r of routes(s)) {
      const level = r.route.auth;
      const what = `${r.key} (${level})`;
      if (level === 'none') {
        allowed(problems, `${what} without a token`, await request(s, r, {}));
        continue;
      }
      protectedCount++;
      const role = ROLE_OF[level];
      const ownerEntry = [{ address: owner, type: 'node' }];
      refusedWith(problems, `${what} without a token`, await request(s, r, {}), 401, 618, 'Authorization error. Missing authorization metadata');
      refusedWith(problems, `${what} with a Basic credential`, await request(s, r, { authorization: 'Basic dXNlcjpwYXNz' }), 401, 618);
      refusedWith(problems, `${what} with a malformed token`, await request(s, r, bearer('not.a.token')), 401, 622, 'Authorization error. Invalid token');
      refusedWith(
        problems,
        `${what} signed by another key`,
        await request(s, r, bearer(jwt(stranger.privateKey, { roles: [role], addresses: ownerEntry, exp: exp() }))),
        401,
        622,
      );
      refusedWith(
        problems,
        `${what} with an expired token`,
        await request(s, r, bearer(jwt(keys.privateKey, { roles: [role], addresses: ownerEntry, exp: Number(s.now() / 1000n) - 1 }))),
        401,
        619,
        'Authorization error. Token expired',
      );
      const otherRoles = level === 'user' ? ['nobody'] : Object.values(ROLE_OF).filter((x) => x !== role);
      refusedWith(
        problems,
        `${what} without its role`,
        await request(s, r, bearer(jwt(keys.privateKey, { roles: otherRoles, addresses: ownerEntry, exp: exp() }))),
        403,
        621,
        `Authorization error. No expected role '${ROLE_NAME[level]}' `,
      );
      if (level === 'admin' || level === 'privacy') {
        for (const addresses of [[], [{ address: other, type: 'node' }], [{ address: owner, type: 'user' }], [{ address: owner }]]) {
          refusedWith(
            problems,
            `${what} without the owner entry (${JSON.stringify(addresses)})`,
            await request(s, r, bearer(jwt(keys.privateKey, { roles: [role], addresses, exp: exp() }))),
            403,
            636,
            'Authorization error. Invalid node owner address',
          );
        }
      }
      allowed(
        problems,
        `${what} with the right token`,
        await request(s, r, bearer(jwt(keys.privateKey, { roles: [role], addresses: ownerEntry, exp: exp() }))),
      );
    }
    assert.ok(protectedCount > 0);
    assert.deepEqual(problems, []);
  });

  it('the OpenAPI document names the bearer scheme and its refusals on every route but the open ones', async () => {
    const s2 = await seededNode({ auth: { type: 'oauth2', publicKeyPem: keys.publicKey.export({ format: 'pem', type: 'spki' }).toString() } });
    after(() => s2.close());
    const doc = await servedDocument(s2.app);
    const levels = new Map<string, AuthLevel>();
    for (const g of ROUTE_GROUPS) for (const r of g.routes) levels.set(routeKey(r.method, r.path), r.auth);
    const wrong: string[] = [];
    for (const o of documentedOperations(doc)) {
      const expected = levels.get(routeKey(o.method, o.path)) === 'none' ? [] : [{ OAuth: [] }];
      if (JSON.stringify(o.operation['security']) !== JSON.stringify(expected)) wrong.push(`${o.method} ${o.path}: ${JSON.stringify(o.operation['security'])}`);
      const responses = o.operation['responses'] as Record<string, unknown>;
      if (expected.length > 0 && (responses['401'] === undefined || responses['403'] === undefined))
        wrong.push(`${o.method} ${o.path}: refusals 401/403 not documented`);
    }
    assert.deepEqual(wrong, []);
    const schemes = (doc['components'] as Record<string, Record<string, unknown>>)['securitySchemes']!;
    assert.deepEqual(
      { ...(schemes['OAuth'] as object), description: undefined },
      { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: undefined },
    );
  });
});

describe('OAuth2 tokens and claims, read as WE reads them', () => {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const OWNER = '3MtiEBF8HJsrNqhnfKRaMGoWm7Vjp1GhKfd';
  let now = 1_750_000_000_000n;
  const auth = new OAuth2Authenticator(
    { type: 'oauth2', publicKeyPem: keys.publicKey.export({ format: 'pem', type: 'spki' }).toString() },
    { nodeOwner: OWNER, parseAddress: (t) => (t.replace(/^address:/, '') === OWNER ? OWNER : undefined), now: () => now },
  );
  const exp = Number(now / 1000n) + 60;
  const token = (claims: object, header?: object): string => jwt(keys.privateKey, claims, header);
  const check = (level: AuthLevel, headers: Record<string, string>, code?: number, status?: number): void => {
    if (code === undefined) {
      auth.authorize(level, headers);
      return;
    }
    assert.throws(
      () => auth.authorize(level, headers),
      (e: unknown) => e instanceof WeError && e.code === code && e.status === status && e.field === 'Authorization',
      `expected ${code}`,
    );
  };
  const asBearer = (t: string): Record<string, string> => ({ authorization: `Bearer ${t}` });
  /** A token over payload text as written (numbers beyond doubles kept). */
  const rawToken = (payload: string): string => {
    const input = `${b64url({ alg: 'RS256' })}.${Buffer.from(payload).toString('base64url')}`;
    return `${input}.${b64url(rsaSign('sha256', Buffer.from(input), keys.privateKey))}`;
  };
  const admin = { roles: ['admin'], addresses: [{ address: OWNER, type: 'node' }], exp };

  it('takes a Bearer token (scheme in any case); anything else is 618', () => {
    check('admin', { authorization: `bearer ${token(admin)}` });
    check('admin', { authorization: `BEARER ${token(admin)}` });
    check('user', {}, 618, 401);
    check('user', { authorization: token(admin) }, 618, 401);
    check('user', { authorization: 'Bearer' }, 618, 401);
    check('user', { authorization: `Bearer ${token(admin)} extra` }, 618, 401);
    check('none', {});
  });

  it('622: not three parts, not Base64url JSON, alg other than RS256, unsigned, tampered', () => {
    const good = token(admin);
    const [h, p, sig] = good.split('.');
    check('user', asBearer(`${h}.${p}`), 622, 401);
    check('user', asBearer(`${h}.${p}.`), 622, 401);
    check('user', asBearer(`${h}.${p}.${sig}.x`), 622, 401);
    check('user', asBearer(`${h}.${b64url({ ...admin, roles: ['admin', 'user'] })}.${sig}`), 622, 401);
    check('user', asBearer(token(admin, { alg: 'RS512' })), 622, 401);
    check('user', asBearer(token(admin, { typ: 'JWT' })), 622, 401);
    check('user', asBearer(`${b64url({ alg: 'none' })}.${p}.${sig}`), 622, 401);
    check('user', asBearer(`${h}.${Buffer.from('not json').toString('base64url')}.${sig}`), 622, 401);
    check('user', asBearer(`${h}.${b64url([1, 2])}.${sig}`), 622, 401);
    check('user', asBearer(`${h}.${p}.${sig}!`), 618, 401);
  });

  it('619: exp missing, not an integer, or past (node time > exp·1000; equal is still valid); nbf ignored', () => {
    check('user', asBearer(token({ roles: ['user'] })), 619, 401);
    check('user', asBearer(token({ roles: ['user'], exp: String(exp) })), 619, 401);
    check('user', asBearer(token({ roles: ['user'], exp: exp + 0.5 })), 619, 401);
    const at = Number(now / 1000n);
    check('user', asBearer(token({ roles: ['user'], exp: at })));
    check('user', asBearer(token({ roles: ['user'], exp: at - 1 })), 619, 401);
    check('user', asBearer(token({ roles: ['user'], exp, nbf: exp + 1000 })));
    // exp read exactly; WE multiplies in Java long arithmetic, so an exp whose ×1000 wraps is expired.
    check('user', asBearer(rawToken('{"roles":["user"],"exp":9223372036854775}')));
    check('user', asBearer(rawToken('{"roles":["user"],"exp":9223372036854776}')), 619, 401);
    check('user', asBearer(rawToken('{"roles":["user"],"exp":9223372036854775807}')), 619, 401);
    check('user', asBearer(rawToken('{"roles":["user"],"exp":9223372036854775808}')), 619, 401);
    check('user', asBearer(rawToken(`{"roles":["user"],"exp":${exp}.0}`)));
    now += 61_000n;
    check('user', asBearer(token({ roles: ['user'], exp })), 619, 401);
    now -= 61_000n;
  });

  it('620: roles missing or not an array; addresses present but not an array', () => {
    check('user', asBearer(token({ exp })), 620, 400);
    check('user', asBearer(token({ roles: 'admin', exp })), 620, 400);
    check('user', asBearer(token({ roles: null, exp })), 620, 400);
    check('user', asBearer(token({ roles: ['user'], addresses: 'x', exp })), 620, 400);
    check('user', asBearer(token({ roles: ['user'], addresses: null, exp })));
  });

  it('621 names the role as WE prints it; user routes take any known role; unknown roles are dropped', () => {
    for (const r of ['user', 'admin', 'privacy', 'confidential_contracts']) check('user', asBearer(token({ roles: [r], exp })));
    check('user', asBearer(token({ roles: ['USER', 'root', 1], exp })), 621, 403);
    check('confidential', asBearer(token({ roles: ['confidential_contracts'], exp })));
    check('confidential', asBearer(token({ roles: ['admin'], addresses: [{ address: OWNER, type: 'node' }], exp })), 621, 403);
    assert.throws(() => auth.authorize('admin', asBearer(token({ roles: ['user'], exp }))), /No expected role 'Administrator' $/);
    assert.throws(() => auth.authorize('privacy', asBearer(token({ roles: ['admin'], exp }))), /No expected role 'PrivacyUser' $/);
  });

  it('636: admin and privacy need the owner as a `node` entry; malformed entries are dropped; `address:` prefix accepted', () => {
    check('privacy', asBearer(token({ roles: ['privacy'], addresses: [{ address: OWNER, type: 'node' }], exp })));
    check('admin', asBearer(token({ roles: ['admin'], addresses: [{ address: `address:${OWNER}`, type: 'node' }], exp })));
    check('admin', asBearer(token({ roles: ['admin'], addresses: ['x', 5, null, { address: 5, type: 'node' }, { address: OWNER, type: 'node' }], exp })));
    check('admin', asBearer(token({ roles: ['admin'], addresses: [{ address: OWNER, type: 'Node' }], exp })), 636, 403);
    check('admin', asBearer(token({ roles: ['admin'], exp })), 636, 403);
    check('privacy', asBearer(token({ roles: ['privacy'], addresses: [{ address: '3N', type: 'node' }], exp })), 636, 403);
  });

  it('refuses to start with a key that is not an RSA public key', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    assert.throws(
      () =>
        new OAuth2Authenticator(
          { type: 'oauth2', publicKeyPem: ec.publicKey.export({ format: 'pem', type: 'spki' }).toString() },
          { nodeOwner: OWNER, parseAddress: () => undefined, now: () => now },
        ),
      /RSA/,
    );
    assert.throws(
      () => new OAuth2Authenticator({ type: 'oauth2', publicKeyPem: 'x' }, { nodeOwner: OWNER, parseAddress: () => undefined, now: () => now }),
      /OAuth2/,
    );
  });
});

// ---------------------------------------------------------------------------
// PKI-1

describe('rule PKI-1: node.crypto.pki.mode = ON', () => {
  const PKI_ERROR = { error: 199, message: "This method is not available when 'node.crypto.pki.mode' is 'ON'", field: 'node.crypto.pki.mode' };

  it('the routes WE lists carry the flag, and only they', () => {
    const flagged = new Set<string>();
    const served = new Set<string>();
    for (const g of ROUTE_GROUPS) {
      for (const r of g.routes) {
        served.add(routeKey(r.method, r.path));
        if (r.unavailableInPkiMode === true) flagged.add(routeKey(r.method, r.path));
      }
    }
    const listed = SEED_ROUTES.filter((r) => r.unavailableInPkiMode === true).map((r) => routeKey(r.method, r.path));
    assert.deepEqual(
      listed.filter((k) => served.has(k) && !flagged.has(k)),
      [],
      'listed but not flagged',
    );
    assert.deepEqual(
      [...flagged].filter((k) => !listed.includes(k)),
      [],
      'flagged but not listed',
    );
  });

  for (const mode of ['ON', 'TEST', 'OFF'] as const) {
    it(`pki.mode = ${mode}: the flagged routes ${mode === 'ON' ? 'answer the PKI error' : 'work'}`, async () => {
      const s = await seededNode({ pkiMode: mode });
      after(() => s.close());
      const [, a1] = s.accounts;
      const calls: Array<{ url: string; payload: string; contentType: string }> = [
        { url: `/addresses/sign/${a1!.address}`, payload: JSON.stringify({ message: 'm', password: 'weft-dev-1' }), contentType: 'application/json' },
        { url: `/addresses/signText/${a1!.address}`, payload: JSON.stringify({ message: 'm', password: 'weft-dev-1' }), contentType: 'application/json' },
        { url: '/utils/hash/fast', payload: 'm', contentType: 'text/plain' },
      ];
      for (const c of calls) {
        const res = await s.app.inject({ method: 'POST', url: c.url, payload: c.payload, headers: { 'content-type': c.contentType } });
        if (mode === 'ON') {
          assert.equal(res.statusCode, 400, `${c.url}: ${res.body}`);
          assert.deepEqual(JSON.parse(res.body), PKI_ERROR);
        } else {
          assert.equal(res.statusCode, 200, `${c.url}: ${res.body}`);
        }
      }
      // WE blocks the whole privacy group in mode ON.
      const recipients = await s.app.inject({ method: 'GET', url: `/privacy/${s.seed.policy.idBase58}/recipients` });
      if (mode === 'ON') assert.deepEqual(JSON.parse(recipients.body), PKI_ERROR);
      else assert.equal(recipients.statusCode, 200, recipients.body);
      // Other routes are untouched: verifying and the secure hash still work.
      const secure = await s.app.inject({ method: 'POST', url: '/utils/hash/secure', payload: 'm', headers: { 'content-type': 'text/plain' } });
      assert.equal(secure.statusCode, 200, secure.body);
    });
  }
});
