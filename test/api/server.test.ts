import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { apiClient } from '../../src/api/client.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { openApiDocument, operationId } from '../../src/api/openapi.js';
import { apiKeyHash, createAuthenticator } from '../../src/api/auth.js';
import { errorBody } from '../../src/api/errors.js';
import { ROUTE_GROUPS } from '../../src/api/routes/index.js';
import { fastifyUrls } from '../../src/api/routing.js';
import { createApiServer, listen } from '../../src/api/server.js';
import fc from 'fast-check';
import { ADMIN_KEY, CONFIDENTIAL_KEY, MINER, PRIVACY_KEY, SECOND, fixtureChain, fixtureServer, protocol } from './fixture.js';
import { expectError } from './inject.js';
import { blockDoesNotExist, WeError, wrongJson } from '../../src/errors/catalogue.js';

const NOT_FOUND = 'The requested resource could not be found.';

function expectText(r: { status: number; text: string; headers: Record<string, unknown> }, status: number, text: string): void {
  assert.equal(r.status, status, r.text);
  assert.equal(r.text, text);
  assert.match(String(r.headers['content-type']), /^text\/plain/);
}

describe('conventions', () => {
  const f = fixtureServer();
  after(() => f.app.close());
  const { client } = f;

  it('unknown paths and wrong methods: the catch-all 404 text, without CORS', async () => {
    for (const [method, url] of [
      ['GET', '/nothing/here'],
      ['POST', '/blocks/height'],
      ['DELETE', '/blocks/last'],
      ['GET', '/blocks/last/'],
      ['GET', '/blocks/height/'],
      ['PUT', '/transactions/broadcast'],
    ] as const) {
      const r = await client.request({ method, url });
      expectText(r, 404, NOT_FOUND);
      assert.equal(r.headers['access-control-allow-origin'], undefined);
    }
  });

  it('CORS on every API answer, errors included; OPTIONS answered with WE headers, but never credentials with *', async () => {
    assert.equal((await client.call('GET /blocks/height')).headers['access-control-allow-origin'], '*');
    assert.equal((await client.call('GET /blocks/at/{height}', { params: { height: 0 } })).headers['access-control-allow-origin'], '*');
    const options = await client.request({ method: 'OPTIONS', url: '/blocks/height', headers: { origin: 'https://evil.example' } });
    assert.equal(options.status, 200);
    assert.equal(options.text, '');
    assert.equal(options.headers['access-control-allow-origin'], '*');
    assert.equal(options.headers['access-control-allow-credentials'], undefined);
    assert.equal(options.headers['access-control-allow-methods'], 'OPTIONS, POST, PUT, GET, DELETE');
    assert.equal(options.headers['access-control-allow-headers'], 'Authorization, Content-Type, X-Requested-With, Timestamp, X-API-Key, Signature');
  });

  it('listed origins: each echoed with credentials, any other origin gets no CORS header', async () => {
    const g = fixtureServer({ corsAllowedOrigins: ['https://wallet.example', 'http://localhost:3000'] });
    after(() => g.app.close());
    for (const origin of ['https://wallet.example', 'http://localhost:3000']) {
      for (const method of ['GET', 'OPTIONS'] as const) {
        const r = await g.client.request({ method, url: '/blocks/height', headers: { origin } });
        assert.equal(r.headers['access-control-allow-origin'], origin);
        assert.equal(r.headers['access-control-allow-credentials'], 'true');
        assert.match(String(r.headers['vary']), /Origin/);
      }
    }
    // An error answer of a route gets the same treatment.
    const error = await g.client.request({ method: 'GET', url: '/blocks/at/0', headers: { origin: 'https://wallet.example' } });
    assert.equal(error.status, 400);
    assert.equal(error.headers['access-control-allow-origin'], 'https://wallet.example');
    for (const headers of [{ origin: 'https://evil.example' }, {}] as Record<string, string>[]) {
      for (const method of ['GET', 'OPTIONS'] as const) {
        const r = await g.client.request({ method, url: '/blocks/height', headers });
        assert.equal(r.status, 200);
        assert.equal(r.headers['access-control-allow-origin'], undefined);
        assert.equal(r.headers['access-control-allow-credentials'], undefined);
      }
    }
  });

  it('no CORS header when cors is off', async () => {
    const g = fixtureServer({ cors: false });
    after(() => g.app.close());
    assert.equal((await g.client.call('GET /blocks/height')).headers['access-control-allow-origin'], undefined);
  });

  it('a body over 3 MiB is 611; a body that is not JSON is 1 with empty validationErrors', async () => {
    const limit = 3 * 1024 * 1024;
    const big = `{"x":"${'a'.repeat(limit - 7)}"}`;
    assert.equal(big.length, limit + 1);
    const r = expectError(await client.request({ method: 'POST', url: '/transactions/broadcast', rawBody: big, contentType: 'application/json' }), 400, 611);
    assert.equal(r['message'], `HttpEntity too big, actual size '${limit + 1}' bytes, max size '${limit}' bytes`);
    const bad = expectError(
      await client.request({ method: 'POST', url: '/transactions/sign', rawBody: 'nope', contentType: 'application/json; charset=utf-8' }),
      400,
      1,
      'failed to parse json message',
    );
    assert.deepEqual(bad['validationErrors'], {});
    assert.equal(bad['cause'], null);
  });

  it('routes without a body never read the entity', async () => {
    const r = await client.request({ method: 'GET', url: '/blocks/height', rawBody: '{broken', contentType: 'application/json' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { height: 4 });
  });

  it('JSON answers are application/json', async () => {
    const r = await client.call('GET /blocks/height');
    assert.match(String(r.headers['content-type']), /^application\/json/);
  });
});

describe('api-key auth', () => {
  const f = fixtureServer();
  after(() => f.app.close());
  const { client, blocks } = f;
  const admin = { 'X-API-Key': ADMIN_KEY };

  it('admin routes are refused without a key and with a wrong one (403, 2)', async () => {
    const message = 'Provided API key is not correct';
    const body = { rollbackTo: 2, returnTransactionsToUtx: false };
    expectError(await client.call('POST /debug/rollback', { body }), 403, 2, message);
    for (const key of ['wrong', PRIVACY_KEY, CONFIDENTIAL_KEY, '', `${ADMIN_KEY} `]) {
      expectError(await client.call('POST /debug/rollback', { body, headers: { 'X-API-Key': key } }), 403, 2, message);
    }
    expectError(await client.call('DELETE /debug/rollback-to/{signature}', { params: { signature: blocks[1]!.idBase58 } }), 403, 2, message);
    assert.equal(f.rollbacks.length, 0);
  });

  it('auth comes before the body is read', async () => {
    expectError(await client.request({ method: 'POST', url: '/debug/rollback', rawBody: 'not json', contentType: 'application/json' }), 403, 2);
  });

  it('the whole /debug prefix is guarded: unknown paths and OPTIONS are 403 without the key', async () => {
    expectError(await client.request({ method: 'GET', url: '/debug/whatever' }), 403, 2);
    expectError(await client.request({ method: 'GET', url: '/debug/rollback' }), 403, 2);
    expectError(await client.request({ method: 'OPTIONS', url: '/debug/rollback' }), 403, 2);
    expectText(await client.request({ method: 'GET', url: '/debug/whatever', headers: admin }), 404, NOT_FOUND);
    assert.equal((await client.request({ method: 'OPTIONS', url: '/debug/rollback', headers: admin })).status, 200);
  });

  it('user routes are open; the right key (any header casing) opens admin routes', async () => {
    assert.equal((await client.call('GET /blocks/height')).status, 200);
    const r = await client.call('POST /debug/rollback', { body: { rollbackTo: 4, returnTransactionsToUtx: false }, headers: { 'X-API-KEY': ADMIN_KEY } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { BlockId: encodeBase58(blocks[3]!.id) });
  });

  it('OAuth2 mode with an unusable public key is refused at start rather than served open', () => {
    const chain = fixtureChain();
    assert.throws(
      () => createApiServer({ ...chain.services, settings: { ...chain.services.settings, auth: { type: 'oauth2', publicKeyPem: 'x' } } }, { logger: false }),
      /OAuth2/,
    );
  });
});

describe('POST /debug/rollback and DELETE /debug/rollback-to/{signature}', () => {
  const admin = { 'X-API-Key': ADMIN_KEY };

  it('rolls back to a height, returning transactions to the pool when asked', async () => {
    const f = fixtureServer();
    after(() => f.app.close());
    const target = f.blocks[1]!.id;
    const r = await f.client.call('POST /debug/rollback', { body: { rollbackTo: 2, returnTransactionsToUtx: true }, headers: admin });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { BlockId: encodeBase58(target) });
    assert.deepEqual(f.rollbacks, [{ height: 2, returnTransactionsToUtx: true }]);
    assert.deepEqual((await f.client.call('GET /blocks/height')).body, { height: 2 });
    assert.equal(f.pool.txs.size, 4);
    assert.equal((await f.client.call('GET /transactions/unconfirmed')).body.length, 4);
  });

  it('errors: no block at the height (text 400), malformed bodies (1 with Play paths, or a bare 400)', async () => {
    const f = fixtureServer();
    after(() => f.app.close());
    const call = (body: unknown) => f.client.call('POST /debug/rollback', { body, headers: admin });
    expectText(await call({ rollbackTo: 99, returnTransactionsToUtx: false }), 400, 'Block at height not found');
    expectText(await call({ rollbackTo: 0, returnTransactionsToUtx: false }), 400, 'Block at height not found');
    const one = expectError(await call({ rollbackTo: 2 }), 400, 1);
    assert.deepEqual(one['validationErrors'], { 'obj.returnTransactionsToUtx': [{ msg: ['error.path.missing'], args: [] }] });
    const both = expectError(await call({ rollbackTo: '2', returnTransactionsToUtx: 1 }), 400, 1);
    assert.deepEqual(both['validationErrors'], {
      'obj.rollbackTo': [{ msg: ['error.expected.jsnumber'], args: [] }],
      'obj.returnTransactionsToUtx': [{ msg: ['error.expected.jsboolean'], args: [] }],
    });
    const fraction = expectError(await call({ rollbackTo: 1.5, returnTransactionsToUtx: true }), 400, 1);
    assert.deepEqual(fraction['validationErrors'], { 'obj.rollbackTo': [{ msg: ['error.expected.int'], args: [] }] });
    const array = expectError(await call([]), 400, 1);
    assert.deepEqual(array['validationErrors'], { obj: [{ msg: ['error.expected.jsobject'], args: [] }] });
    expectText(
      await f.client.request({ method: 'POST', url: '/debug/rollback', headers: admin }),
      400,
      'The request contains bad syntax or cannot be fulfilled.',
    );
    expectText(
      await f.client.request({ method: 'POST', url: '/debug/rollback', headers: admin, rawBody: 'x', contentType: 'text/plain' }),
      400,
      'The request contains bad syntax or cannot be fulfilled.',
    );
    assert.deepEqual(f.rollbacks, []);
  });

  it('rollback-to a block id', async () => {
    const f = fixtureServer();
    after(() => f.app.close());
    const target = f.blocks[2]!.idBase58;
    const r = await f.client.call('DELETE /debug/rollback-to/{signature}', { params: { signature: target }, headers: admin });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { BlockId: target });
    assert.deepEqual((await f.client.call('GET /blocks/height')).body, { height: 3 });
    expectError(await f.client.call('DELETE /debug/rollback-to/{signature}', { params: { signature: '0OIl' }, headers: admin }), 400, 101, 'invalid signature');
    const unknown = encodeBase58(new Uint8Array(64).fill(5));
    expectError(await f.client.call('DELETE /debug/rollback-to/{signature}', { params: { signature: unknown }, headers: admin }), 400, 199);
  });
});

describe('listen', () => {
  it('serves over a real socket', async () => {
    const chain = fixtureChain();
    const app = createApiServer(chain.services, { logger: false });
    after(() => app.close());
    const url = await listen(app, { bindAddress: '127.0.0.1', port: 0 });
    const r = await fetch(`${url}/blocks/height`, { headers: { accept: 'application/json' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(await r.json(), { height: 4 });
    const big = await fetch(`${url}/transactions/broadcast`, {
      method: 'POST',
      headers: { 'content-type': 'application/json;charset=UTF-8' },
      body: 'x'.repeat(3 * 1024 * 1024 + 10),
    });
    assert.equal(big.status, 400);
    assert.equal(((await big.json()) as { error: number }).error, 611);
  });
});

describe('the error catalogue', () => {
  it("renders WE's bodies: extras, Play validationErrors, the field", () => {
    const wrong = wrongJson([
      { path: 'obj.fee', messages: ['error.path.missing'] },
      { path: 'obj.fee', messages: ['error.expected.jsnumber'] },
      { path: 'obj.transfers[0].amount', messages: ['error.expected.long'] },
    ]);
    assert.deepEqual(errorBody(wrong), {
      error: 1,
      message: 'failed to parse json message',
      cause: null,
      validationErrors: {
        'obj.fee': [
          { msg: ['error.path.missing'], args: [] },
          { msg: ['error.expected.jsnumber'], args: [] },
        ],
        'obj.transfers[0].amount': [{ msg: ['error.expected.long'], args: [] }],
      },
      field: 'fee',
    });
    const withTx = new WeError('StateCheckFailed', 112, 'State check failed. Reason: x', undefined, 400, undefined, { tx: { id: 'abc' } });
    assert.deepEqual(errorBody(withTx), { error: 112, message: 'State check failed. Reason: x', tx: { id: 'abc' } });
    assert.deepEqual(errorBody(blockDoesNotExist('xyz', 'signature')), {
      error: 301,
      message: "block with signature 'xyz' does not exist",
      field: 'signature',
    });
    assert.equal(blockDoesNotExist('xyz').status, 404);
  });

  it("API key hashes follow WE's rule (Base58 of Keccak-256(Blake2b-256(key)))", () => {
    assert.equal(encodeBase58(apiKeyHash('ridethewaves!', protocol.crypto)), 'H6nsiifwYKYEx6YzYD7woP1XCn72RVvx6tC1zjjLXqsu');
    assert.equal(encodeBase58(apiKeyHash('we', protocol.crypto)), 'AWUhyXUX6Jam852Gy1DibK7wYNXSMbhtDsKzribM6iLR');
  });
});

describe('bad input', () => {
  const f = fixtureServer();
  after(() => f.app.close());
  const TYPES = [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 101, 102, 103, 104, 105, 106, 107, 110, 111, 112, 113, 114, 120];
  const field = fc.oneof(
    fc.jsonValue(),
    fc.constantFrom(SECOND.address.toString(), 'alias:T:fourth', '3N', '', 'secret'),
    fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
  );
  const request = fc.record(
    {
      type: fc.oneof(fc.constantFrom(...TYPES), fc.jsonValue()),
      version: fc.oneof(fc.integer({ min: -2, max: 8 }), fc.constantFrom('2', 'x', null)),
      sender: fc.constantFrom(SECOND.address.toString(), MINER.address.toString(), 'nope'),
      password: fc.constantFrom('secret', undefined),
      senderPublicKey: fc.constantFrom(encodeBase58(SECOND.keyPair.publicKey), 'zz', ''),
      recipient: field,
      amount: field,
      quantity: field,
      fee: field,
      timestamp: field,
      assetId: field,
      feeAssetId: field,
      attachment: field,
      proofs: fc.oneof(fc.jsonValue(), fc.array(fc.constantFrom('', '1', encodeBase58(new Uint8Array(64).fill(1))))),
      transfers: field,
      data: field,
      author: field,
      txId: field,
      leaseId: field,
      alias: field,
      name: field,
      description: field,
      script: field,
      transactions: field,
      certificates: field,
    },
    { requiredKeys: [] },
  );

  it('never yields a 500 on the transaction routes (always a WE error or a success)', async () => {
    await fc.assert(
      fc.asyncProperty(
        request,
        fc.constantFrom('/transactions/sign', '/transactions/broadcast', '/transactions/calculateFee', '/transactions/signAndBroadcast'),
        async (body, url) => {
          const r = await f.client.request({ method: 'POST', url, body });
          assert.ok(r.status === 200 || (r.status >= 400 && r.status < 500), `${r.status} ${r.text}`);
          if (r.status !== 200) assert.equal(typeof (r.body as { error: unknown }).error, 'number', r.text);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never yields a 500 on parameters', async () => {
    const segment = fc.oneof(fc.string(), fc.integer().map(String), fc.constantFrom('0', '-1', '+1', '2147483648', 'l', '1'.repeat(100)));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/blocks/at/',
          '/blocks/headers/at/',
          '/blocks/seq/1/',
          '/blocks/signature/',
          '/blocks/child/',
          '/blocks/height/',
          '/transactions/info/',
          '/transactions/unconfirmed/info/',
          '/transactions/address/',
        ),
        segment,
        async (prefix, seg) => {
          const r = await f.client.request({ method: 'GET', url: prefix + encodeURIComponent(seg) });
          assert.ok(r.status < 500, `${prefix}${seg}: ${r.status} ${r.text}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("the router's own refusals are WE errors naming the path: bad percent-encoding, an overlong parameter", async () => {
    for (const url of ['/blocks/signature/%E0%A4%A', `/blocks/signature/${'x'.repeat(5000)}`]) {
      const r = await f.client.request({ method: 'GET', url });
      assert.equal(r.status, 400, url);
      assert.deepEqual(JSON.parse(r.text), {
        error: 199,
        message: r.text.includes('longer') ? 'A path parameter is longer than 2048 characters' : 'The path is not valid percent-encoded UTF-8',
        field: 'path',
      });
      assert.match(r.headers['content-type'] as string, /^application\/json/);
    }
  });
});

describe('unexpected failures', () => {
  it('are a logged 500 with the code-0 body', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const chain = fixtureChain();
    const broken = {
      ...chain.services,
      chain: {
        ...chain.services.chain,
        height: () => {
          throw new Error('disk on fire');
        },
      },
    };
    const app = createApiServer(broken, { loggerInstance: pino({ level: 'error' }, sink) });
    after(() => app.close());
    const client = apiClient(app, ROUTE_GROUPS);
    const r = await client.call('GET /blocks/height');
    assert.equal(r.status, 500);
    assert.deepEqual(r.body, { error: 0, message: 'Error is unknown' });
    assert.ok(
      lines.some((l) => l.includes('disk on fire')),
      'the failure is logged',
    );
  });
});

describe('request logs', () => {
  interface LogLine {
    readonly level: number;
    readonly msg: string;
    readonly url?: string;
    readonly statusCode?: number;
  }
  function logged(level: string, slowRequestMs?: number) {
    const lines: LogLine[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    const app = createApiServer(fixtureChain().services, { loggerInstance: pino({ level }, sink), ...(slowRequestMs === undefined ? {} : { slowRequestMs }) });
    after(() => app.close());
    return { lines, client: apiClient(app, ROUTE_GROUPS) };
  }
  const INFO = 30;

  it('at INFO: nothing for requests that went well, one line for each error answer', async () => {
    const { lines, client } = logged('info');
    for (let i = 0; i < 5; i++) assert.equal((await client.call('GET /blocks/height')).status, 200);
    assert.equal(lines.length, 0, JSON.stringify(lines));
    assert.equal((await client.request({ method: 'GET', url: '/blocks/at/0' })).status, 400);
    assert.equal((await client.request({ method: 'GET', url: '/no/such/route' })).status, 404);
    assert.deepEqual(
      lines.map((l) => [l.level, l.url, l.statusCode]),
      [
        [INFO, '/blocks/at/0', 400],
        [INFO, '/no/such/route', 404],
      ],
    );
  });

  it('slow requests at INFO (a zero threshold makes every request slow); every request at DEBUG', async () => {
    const slow = logged('info', 0);
    await slow.client.call('GET /blocks/height');
    assert.deepEqual(
      slow.lines.map((l) => [l.level, l.msg, l.url]),
      [[INFO, 'slow request', '/blocks/height']],
    );
    const debug = logged('debug');
    await debug.client.call('GET /blocks/height');
    assert.deepEqual(
      debug.lines.map((l) => l.msg),
      ['incoming request', 'request completed'],
    );
  });
});

describe('documentation', () => {
  const f = fixtureServer();
  after(() => f.app.close());
  const { client, app } = f;

  it("WE's redirects and Swagger UI", async () => {
    for (const url of ['/', '/swagger', '/api-docs/index.html']) {
      const r = await client.request({ method: 'GET', url });
      assert.equal(r.status, 308, url);
      assert.equal(r.headers['location'], '/api-docs/');
    }
    const ui = await client.request({ method: 'GET', url: '/api-docs/' });
    assert.equal(ui.status, 200);
    assert.match(String(ui.headers['content-type']), /text\/html/);
    assert.match(ui.text, /swagger-ui/);
  });

  it('serves the generated OpenAPI document', async () => {
    const doc = openApiDocument(ROUTE_GROUPS, createAuthenticator(f.services.settings.auth, protocol.crypto), {
      title: 'Weft node REST API',
      version: '1.14-compatible',
    });
    for (const url of ['/api-docs/openapi.json', '/api-docs/open-api.json']) {
      const r = await client.request({ method: 'GET', url });
      assert.equal(r.status, 200);
      assert.deepEqual(JSON.parse(r.text), JSON.parse(JSON.stringify(doc)));
    }
  });

  it('the document and the route tables describe the same routes, all served', async () => {
    await app.ready();
    const doc = JSON.parse((await client.request({ method: 'GET', url: '/api-docs/openapi.json' })).text) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string; security: unknown[]; parameters?: Array<{ name: string; in: string }> }>>;
      components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
    };
    assert.equal(doc.openapi, '3.1.0');
    const routes = ROUTE_GROUPS.flatMap((g) => g.routes.map((r) => r));
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    const tabled = routes.filter((r) => r.hidden !== true).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual([...documented].sort(), [...tabled].sort());
    for (const r of routes) {
      for (const url of fastifyUrls(r)) assert.ok(app.hasRoute({ method: r.method, url }), `${r.method} ${url} is served`);
      if (r.hidden === true) continue;
      const op = doc.paths[r.path]![r.method.toLowerCase()]!;
      assert.equal(op.operationId, operationId(r));
      const names = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      assert.deepEqual(
        names,
        [...r.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
      );
      assert.equal(op.security.length > 0, r.auth === 'admin' || r.auth === 'privacy' || r.auth === 'confidential', `${r.method} ${r.path} security`);
    }
    const ids = documented.map((k) => {
      const [m, p] = k.split(' ') as [string, string];
      return doc.paths[p]![m.toLowerCase()]!.operationId;
    });
    assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
    // Every reference resolves.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(refs.length > 10);
    for (const ref of refs) assert.ok(doc.components.schemas[ref] !== undefined, `schema ${ref}`);
    assert.ok(doc.components.securitySchemes['API-Key'] !== undefined);
  });

  it('int64 fields are integers of format int64', async () => {
    const doc = JSON.parse((await client.request({ method: 'GET', url: '/api-docs/openapi.json' })).text) as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const s = doc.components.schemas;
    const int64 = { type: 'integer', format: 'int64' };
    assert.deepEqual(s['Transaction']!.properties['fee'], int64);
    assert.deepEqual(s['Block']!.properties['fee'], { ...int64, description: 'WEST fees of its transactions' });
    assert.deepEqual(s['BlockHeader']!.properties['timestamp'], int64);
    assert.deepEqual(s['UtxSize']!.properties['sizeInBytes'], int64);
    assert.deepEqual(s['FeeAnswer']!.properties['feeAmount'], int64);
    assert.deepEqual(s['RollbackParams']!.properties['rollbackTo'], {
      type: 'integer',
      format: 'int32',
      description: 'Height whose block becomes the last one',
    });
  });
});
