/**
 * The target node client and the authorization to it, over real HTTP on loopback: the path
 * prefix of the node address, the headers sent, what "unreachable" covers (refused
 * connection, deadline), a stop cutting a call short; the OAuth2 token provider against a
 * small authorization service (token use, refusal, pause and retry on an injected clock,
 * redirects); and the `anchoring-auth` check of a running Anchoring.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { Anchoring, AUTH_SERVICE_UNAVAILABLE } from '../../src/anchoring/anchoring.js';
import { targetAuthProvider } from '../../src/anchoring/target-auth.js';
import { TargetNode, TargetUnreachable } from '../../src/anchoring/target-node.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { FakeChain, FakePool, ManualClock, MemoryProgress, RecordingLog } from './doubles.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** An HTTP server on a free loopback port; every request recorded. */
async function serve(
  handler: Handler,
): Promise<{ url: string; server: Server; requests: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> }> {
  const requests: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests };
}

const reply = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

/** A loopback port nothing listens on. */
async function closedPort(): Promise<string> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const never = new AbortController().signal;

describe('TargetNode', () => {
  it('keeps the path of the node address, sends the authorization headers, gives status and text', async () => {
    const t = await serve((req, res) => reply(res, 200, { height: 42 }));
    const node = new TargetNode(`${t.url}/node-1/`, { headers: () => ({ authorization: 'Bearer abc' }) });
    const answer = await node.height(never);
    assert.deepEqual(answer, { status: 200, text: '{"height":42}' });
    await node.broadcast('{"type":12}', never);
    await node.transactionInfo('Abc', never);
    await node.unconfirmedInfo('Abc', never);
    assert.deepEqual(
      t.requests.map((r) => `${r.method} ${r.url}`),
      [
        'GET /node-1/blocks/height',
        'POST /node-1/transactions/broadcast',
        'GET /node-1/transactions/info/Abc',
        'GET /node-1/transactions/unconfirmed/info/Abc',
      ],
    );
    assert.ok(t.requests.every((r) => r.headers.authorization === 'Bearer abc'));
    assert.equal(t.requests[1]!.headers['content-type'], 'application/json');
  });

  it('no answer is TargetUnreachable: a refused connection, a deadline; a stop ends a call at once', async () => {
    const down = new TargetNode(await closedPort(), { headers: () => ({}) });
    await assert.rejects(down.height(never), (e: unknown) => e instanceof TargetUnreachable && /ECONNREFUSED/.test(e.message));
    const slow = await serve(() => undefined); // never answers
    const late = new TargetNode(slow.url, { headers: () => ({}) }, { timeoutMs: 200 });
    await assert.rejects(late.height(never), (e: unknown) => e instanceof TargetUnreachable && /no answer within 200 ms/.test(e.message));
    const stop = new AbortController();
    const pending = new TargetNode(slow.url, { headers: () => ({}) }, { timeoutMs: 60_000 }).height(stop.signal);
    const reason = new Error('stopped');
    stop.abort(reason);
    await assert.rejects(pending, (e: unknown) => e === reason);
  });
});

describe('targetnet authorization', () => {
  it('api-key: no header, always alive', () => {
    const p = targetAuthProvider({ type: 'api-key' }, { clock: new ManualClock(), log: new RecordingLog(), timeoutMs: 1000 });
    assert.deepEqual(p.headers(), {});
    assert.equal(p.isAlive(), true);
  });

  it('oauth2: fetches a token with the authorization token, uses it, refreshes it after the interval; a refusal is logged, retried after the pause', async () => {
    let issued = 0;
    let accepting = true;
    const auth = await serve((req, res) => {
      if (req.method !== 'POST' || req.headers.authorization !== 'Bearer static-secret' || !accepting) return reply(res, 401, { error: 'unauthorized' });
      issued++;
      reply(res, 200, { access_token: `token-${issued}`, refresh_token: 'r', token_type: 'bearer' });
    });
    const clock = new ManualClock();
    const log = new RecordingLog();
    const p = targetAuthProvider(
      { type: 'oauth2', authorizationToken: 'static-secret', authorizationServiceUrl: `${auth.url}/token`, tokenUpdateIntervalMs: 60_000 },
      { clock, log, timeoutMs: 5000, errorPauseMs: 10_000 },
    );
    assert.deepEqual(p.headers(), { authorization: 'Bearer uninitialized' });
    assert.equal(p.isAlive(), false);
    p.start();
    await until(() => p.isAlive());
    assert.deepEqual(p.headers(), { authorization: 'Bearer token-1' });
    await clock.advance(60_000);
    await until(() => p.headers()['authorization'] === 'Bearer token-2');
    accepting = false;
    await clock.advance(60_000);
    await until(() => !p.isAlive());
    assert.ok(log.said(/targetnet auth service failed to give a token/, 'error') >= 1);
    assert.match(JSON.stringify(log.lines.at(-1)!.obj), /HTTP 401/);
    accepting = true;
    await clock.advance(9_999);
    assert.equal(p.isAlive(), false, 'not before the pause is over');
    await clock.advance(1);
    await until(() => p.isAlive());
    assert.deepEqual(p.headers(), { authorization: 'Bearer token-3' });
    await p.stop();
  });

  it('oauth2: one same-host 307/308 redirect is followed; another host is not', async () => {
    const target = await serve((req, res) => {
      if (req.url === '/moved') return reply(res, 200, { access_token: 'moved-token', refresh_token: 'r' });
      res.writeHead(307, { location: '/moved' });
      res.end();
    });
    const clock = new ManualClock();
    const followed = targetAuthProvider(
      { type: 'oauth2', authorizationToken: 's', authorizationServiceUrl: `${target.url}/token`, tokenUpdateIntervalMs: 60_000 },
      { clock, log: new RecordingLog(), timeoutMs: 5000 },
    );
    followed.start();
    await until(() => followed.isAlive());
    assert.deepEqual(followed.headers(), { authorization: 'Bearer moved-token' });
    assert.deepEqual(
      target.requests.map((r) => `${r.method} ${r.url}`),
      ['POST /token', 'POST /moved'],
    );
    await followed.stop();

    const away = await serve((_req, res) => {
      res.writeHead(308, { location: 'http://elsewhere.invalid/token' });
      res.end();
    });
    const log = new RecordingLog();
    const refused = targetAuthProvider(
      { type: 'oauth2', authorizationToken: 's', authorizationServiceUrl: away.url, tokenUpdateIntervalMs: 60_000 },
      { clock, log, timeoutMs: 5000 },
    );
    refused.start();
    await until(() => log.said(/failed to give a token/) > 0);
    assert.equal(refused.isAlive(), false);
    assert.match(JSON.stringify(log.lines.at(-1)!.obj), /another host/);
    await refused.stop();
  });
});

const protocol = await Protocol.create({ crypto: 'waves', chainId: 'T' });

describe('the anchoring-auth check', () => {
  const key = protocol.crypto.keyPairFromSeedPhrase('anchoring auth check');
  const anchoring = (nodeAddress: string, auth: Parameters<typeof targetAuthProvider>[0] = { type: 'api-key' }): Anchoring =>
    new Anchoring({
      settings: {
        heightRange: 5,
        heightAbove: 1,
        threshold: 1,
        targetnet: { auth, schemeByte: 'T', nodeAddress, nodeRecipientAddress: '', privateKeyPassword: undefined, wallet: { file: '', password: '' }, fee: 1n },
        sidechainFee: 1n,
        txMiningCheckDelayMs: 1,
        txMiningCheckCount: 1,
        retryDelayMs: 1,
        heightPollIntervalMs: 1,
      },
      chain: new FakeChain(1),
      pool: new FakePool(),
      protocol,
      targetProtocol: protocol,
      owner: key,
      targetKey: key,
      clock: new ManualClock(),
      progress: new MemoryProgress(),
      log: new RecordingLog(),
      callTimeoutMs: 2000,
    });

  it('passes when the target answers its height with the credentials; fails naming why otherwise', async () => {
    let status = 200;
    const t = await serve((_req, res) =>
      status === 200 ? reply(res, 200, { height: 7 }) : reply(res, status, { error: 618, message: 'Authorization error. Missing authorization metadata' }),
    );
    const a = anchoring(t.url);
    await a.checkAuth();
    status = 401;
    await assert.rejects(
      a.checkAuth(),
      /^Error: Targetnet node http:\/\/127\.0\.0\.1:\d+ refused the request: HTTP 401: Authorization error\. Missing authorization metadata$/,
    );
    await assert.rejects(
      anchoring(await closedPort()).checkAuth(),
      /Targetnet node is not reachable: GET http:\/\/127\.0\.0\.1:\d+\/blocks\/height: ECONNREFUSED/,
    );
  });

  it("oauth2 without a token: WE's 'Targetnet auth service is not available'", async () => {
    const t = await serve((_req, res) => reply(res, 200, { height: 7 }));
    const a = anchoring(t.url, { type: 'oauth2', authorizationToken: 'x', authorizationServiceUrl: await closedPort(), tokenUpdateIntervalMs: 1000 });
    await assert.rejects(a.checkAuth(), new Error(AUTH_SERVICE_UNAVAILABLE));
    assert.equal(t.requests.length, 0, 'the target is not asked without a token');
  });
});

/** Waits (real time, bounded) until `probe` holds. */
async function until(probe: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
