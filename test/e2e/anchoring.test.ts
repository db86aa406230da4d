/**
 * Anchoring between two chains, each a one-node devnet process on loopback (devkit/network.ts:
 * the dev accounts funded on both; `node.conf` edited as an operator would):
 *
 * - chain B (the target) runs with OAuth2: its REST API wants RS256 tokens, which an
 *   authorization service in this test issues for a static client secret;
 * - chain A anchors into B (`node.anchoring`: every 3 heights, threshold 1, 2 target blocks
 *   above) with OAuth2, signing B's transactions with dev account 1's key from a target
 *   wallet of its own.
 *
 * Checked as a user would see it: `/anchoring/config`; the anchors on B at the right
 * heights with A's block signatures, and the confirmations on A pointing at them; B
 * stopped — A keeps producing blocks, logs its retries, records the failure (WE's code 2),
 * its health check fails, and anchoring resumes once B is back; A restarted — no height
 * anchored twice; every anchor on B accounted for on A; wrong credentials — the
 * `anchoring-auth` health check answers 503.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign as rsaSign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ANCHOR_KEYS } from '../../src/anchoring/transactions.js';
import { devAccounts, devProtocol } from '../../src/cli/dev.js';
import { Keystore } from '../../src/keystore/keystore.js';
import { Devnet, until, type NetNode } from '../../devkit/network.js';

const RANGE = 3;
const THRESHOLD = 1;
const ABOVE = 2;
const CLIENT_SECRET = 'anchoring e2e client secret';

const b64url = (x: object | Buffer): string => (Buffer.isBuffer(x) ? x : Buffer.from(JSON.stringify(x))).toString('base64url');

function jwt(privateKey: KeyObject, claims: object): string {
  const input = `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url(claims)}`;
  return `${input}.${b64url(rsaSign('sha256', Buffer.from(input), privateKey))}`;
}

interface DataEntryJson {
  readonly key: string;
  readonly type: string;
  readonly value: unknown;
}

interface TxJson {
  readonly id: string;
  readonly type: number;
  readonly sender: string;
  readonly timestamp: number;
  readonly height: number;
  readonly data?: readonly DataEntryJson[];
}

const entries = (tx: TxJson): Record<string, unknown> => Object.fromEntries((tx.data ?? []).map((d) => [d.key, d.value]));
const isAnchoring = (tx: TxJson): boolean => tx.type === 12 && (tx.data ?? []).some((d) => d.key === ANCHOR_KEYS.signature);
const base58ToBase64 = async (b58: string): Promise<string> =>
  `base64:${Buffer.from((await import('../../src/crypto/encoding.js')).decodeBase58(b58)).toString('base64')}`;

describe('anchoring chain A into chain B over REST', { timeout: 600_000 }, () => {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const token = (): string => jwt(keys.privateKey, { roles: ['user'], exp: Math.floor(Date.now() / 1000) + 3600 });
  let authService: Server;
  let authUrl = '';
  const tokenRequests: string[] = [];
  let netA: Devnet;
  let netB: Devnet;
  let A: NetNode;
  let B: NetNode;
  let targetAddress = '';
  let ownerA = '';

  /** A GET on B with a token (B wants OAuth2). */
  const onB = async (path: string): Promise<{ status: number; json: unknown }> => {
    const r = await fetch(`${B.url}${path}`, { headers: { authorization: `Bearer ${token()}` }, signal: AbortSignal.timeout(10_000) });
    const text = await r.text();
    return { status: r.status, json: text === '' ? undefined : JSON.parse(text) };
  };

  /** Anchoring data transactions of an address on a chain, oldest first. */
  const anchoringTxs = async (get: (path: string) => Promise<{ json: unknown }>, address: string): Promise<TxJson[]> => {
    const r = await get(`/transactions/address/${address}/limit/1000`);
    return ((r.json as TxJson[][])[0] ?? []).filter(isAnchoring).reverse();
  };
  const onA = (path: string): Promise<{ status: number; json: unknown }> => A.get(path);
  const confirmations = async (): Promise<TxJson[]> => (await anchoringTxs(onA, ownerA)).filter((t) => ANCHOR_KEYS.targetnetTxId in entries(t));
  const errors = async (): Promise<TxJson[]> => (await anchoringTxs(onA, ownerA)).filter((t) => ANCHOR_KEYS.errorCode in entries(t));

  /** Waits until A holds at least `count` confirmations; they are returned. */
  const untilConfirmations = (count: number, timeoutMs = 90_000): Promise<TxJson[]> =>
    until(
      `${count} anchoring confirmations on A`,
      async () => {
        const c = await confirmations();
        return c.length >= count ? c : undefined;
      },
      timeoutMs,
      500,
    );

  const anchoringSection = (authorizationToken: string): Record<string, unknown> => ({
    enable: true,
    'height-condition': { range: RANGE, above: ABOVE },
    threshold: THRESHOLD,
    targetnet: {
      auth: {
        type: 'oauth2',
        'authorization-token': authorizationToken,
        'authorization-service-url': `${authUrl}/oauth/token`,
        'token-update-interval': '10m',
      },
      'scheme-byte': 'T',
      'node-address': B.url,
      'node-recipient-address': targetAddress,
      'private-key-password': 'target secret',
      wallet: { file: targetWallet, password: '' },
      fee: 5_000_000,
    },
    'sidechain-fee': 5_000_000,
    'tx-mining-check-delay': '500ms',
    'tx-mining-check-count': 40,
    'retry-delay': '300ms',
    'height-poll-interval': '500ms',
  });
  let targetWallet = '';

  before(async () => {
    authService = createServer((req, res) => {
      tokenRequests.push(String(req.headers.authorization));
      const ok = req.method === 'POST' && req.url === '/oauth/token' && req.headers.authorization === `Bearer ${CLIENT_SECRET}`;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { access_token: token(), refresh_token: 'not used', token_type: 'bearer' } : { error: 'invalid_client' }));
    });
    await new Promise<void>((resolve) => authService.listen(0, '127.0.0.1', resolve));
    authUrl = `http://127.0.0.1:${(authService.address() as AddressInfo).port}`;

    const timing = { nodes: 1, quorum: 0, microBlockIntervalMs: 500, register: false } as const;
    netB = await Devnet.create({ ...timing, roundDurationMs: 1000, syncDurationMs: 500 });
    netA = await Devnet.create({ ...timing, roundDurationMs: 1500, syncDurationMs: 500 });
    process.once('exit', () => {
      netA.killAll();
      netB.killAll();
    });
    B = netB.nodes[0]!;
    A = netA.nodes[0]!;
    ownerA = A.spec.ownerAddress;
    // A's own wallet for the target: dev account 1 (funded on B too), in A's directory.
    const protocol = await devProtocol();
    const account1 = devAccounts(protocol)[1]!;
    targetAddress = account1.address;
    targetWallet = join(A.spec.dir, 'targetnet.json');
    Keystore.open(targetWallet, protocol.addresses, { scrypt: { N: 1024, r: 8, p: 1 } }).addKeyPair(account1.keyPair, 'target secret');
    await B.editConfig((node) => {
      (node['api'] as Record<string, unknown>)['auth'] = {
        type: 'oauth2',
        'public-key': keys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
      };
    });
    await A.editConfig((node) => {
      node['anchoring'] = anchoringSection(CLIENT_SECRET);
    });
    A.keepLines = true;
    await Promise.all([B.start(90_000), A.start(90_000)]);
  });

  after(async () => {
    await Promise.all([netA?.dispose(), netB?.dispose()]);
    await new Promise<void>((resolve) => (authService === undefined ? resolve() : authService.close(() => resolve())));
  });

  const failWith = (e: unknown): never => {
    throw new Error(`${(e as Error).message}\n${netA.outputs(6000)}\n${netB.outputs(3000)}`, { cause: e });
  };

  it('B refuses requests without a token; A reports its anchoring settings and a healthy target', async () => {
    assert.equal((await fetch(`${B.url}/blocks/height`)).status, 401);
    const config = await A.get('/anchoring/config');
    assert.deepEqual(config.json, {
      enabled: true,
      currentChainOwnerAddress: ownerA,
      targetnetNodeAddress: B.url,
      targetnetSchemeByte: 'T',
      targetnetRecipientAddress: targetAddress,
      targetnetFee: 5_000_000,
      currentChainFee: 5_000_000,
      heightRange: RANGE,
      heightAbove: ABOVE,
      threshold: THRESHOLD,
    });
    await until(
      'anchoring-auth healthy',
      async () => ((await A.get('/node/healthcheck?service=anchoring-auth')).status === 200 ? true : undefined),
      20_000,
    ).catch(failWith);
    assert.deepEqual((await A.get('/node/healthcheck?service=anchoring-auth')).json, {});
    assert.ok(tokenRequests.includes(`Bearer ${CLIENT_SECRET}`));
  });

  it("the anchors appear on B at the right heights with A's block signatures; the confirmations on A point at them", async () => {
    const confirmed = await untilConfirmations(2).catch(failWith);
    const heightB = ((await onB('/blocks/height')).json as { height: number }).height;
    for (const c of confirmed) {
      const e = entries(c);
      const height = e[ANCHOR_KEYS.height] as number;
      assert.equal((height + THRESHOLD) % RANGE, 0, `height ${height} is a trigger height minus the threshold`);
      const header = (await A.get(`/blocks/headers/at/${height}`)).json as { signature: string };
      assert.equal(e[ANCHOR_KEYS.signature], await base58ToBase64(header.signature), `the block signature of A at ${height}`);
      assert.equal(c.sender, ownerA, "signed by A's node owner");
      const onTarget = await onB(`/transactions/info/${String(e[ANCHOR_KEYS.targetnetTxId])}`);
      assert.equal(onTarget.status, 200, `the target transaction of height ${height} is on B`);
      const t = onTarget.json as TxJson;
      assert.deepEqual(entries(t), { [ANCHOR_KEYS.signature]: e[ANCHOR_KEYS.signature], [ANCHOR_KEYS.height]: height });
      assert.equal(t.sender, targetAddress);
      assert.equal(t.timestamp, e[ANCHOR_KEYS.targetnetTxTimestamp]);
      assert.ok(heightB >= t.height + ABOVE, 'confirmed once B was deep enough');
    }
    assert.deepEqual(await errors(), [], 'no failed round while B is up');
  });

  it('B unreachable: A keeps producing blocks, logs its retries, records the failure; anchoring resumes when B is back', async () => {
    const before = await confirmations();
    const lastAnchored = Math.max(...before.map((c) => entries(c)[ANCHOR_KEYS.height] as number));
    await B.stop();
    const heightAtStop = await A.height();
    const failed = await until(
      'a failed round on A (code 2)',
      async () => {
        const e = (await errors()).filter((t) => entries(t)[ANCHOR_KEYS.errorCode] === 2);
        return e.length > 0 ? e : undefined;
      },
      120_000,
      500,
    ).catch(failWith);
    assert.equal(entries(failed[0]!)[ANCHOR_KEYS.errorMessage], 'failed to send the transaction to targetnet');
    assert.ok(A.lines.filter((l) => l.line.includes('failed to send the transaction to targetnet, retrying')).length >= 10, 'each retry is logged');
    assert.ok((await A.height()) >= heightAtStop + 2, 'A went on producing blocks');
    const health = await A.get('/node/healthcheck?service=anchoring-auth');
    assert.equal(health.status, 503);
    assert.equal(health.json.error, 640);
    assert.match(health.json.message, /^Targetnet node is not reachable: /);

    await B.start(90_000);
    const resumed = await until(
      'a new anchor after B is back',
      async () => {
        const c = await confirmations();
        return c.some((t) => (entries(t)[ANCHOR_KEYS.height] as number) > lastAnchored) ? c : undefined;
      },
      120_000,
      500,
    ).catch(failWith);
    assert.ok(resumed.length > before.length);
    assert.equal((await A.get('/node/healthcheck?service=anchoring-auth')).status, 200);
  });

  it('A restarted: a round in flight resumes, no height is anchored twice, every anchor on B is accounted for on A', async () => {
    const count = (await confirmations()).length;
    await A.stop();
    const progress = JSON.parse(readFileSync(join(A.spec.dir, 'data', 'anchoring-progress.json'), 'utf8')) as {
      lastHeight: number;
      round: { height: number } | null;
    };
    assert.ok(progress.lastHeight > 0, 'the progress is kept in the data directory');
    const linesBefore = A.lines.length;
    await A.start(90_000);
    await untilConfirmations(count + 1).catch(failWith);
    if (progress.round !== null) {
      assert.ok(
        A.lines
          .slice(linesBefore)
          .some((l) => l.line.includes('resuming the anchoring round in flight') && l.line.includes(`"height":${progress.round!.height}`)),
        'the round in flight at the stop resumed',
      );
    }
    const onTarget = await anchoringTxs(onB, targetAddress);
    const heightsOnB = onTarget.map((t) => entries(t)[ANCHOR_KEYS.height] as number);
    assert.equal(new Set(heightsOnB).size, heightsOnB.length, `no height anchored twice: ${heightsOnB.join(', ')}`);
    const confirmedIds = new Set((await confirmations()).map((c) => entries(c)[ANCHOR_KEYS.targetnetTxId]));
    const failedHeights = new Set((await errors()).map((e) => entries(e)[ANCHOR_KEYS.height]));
    const lastFinished = Math.max(...[...(await anchoringTxs(onA, ownerA))].map((t) => entries(t)[ANCHOR_KEYS.height] as number));
    for (const t of onTarget) {
      const h = entries(t)[ANCHOR_KEYS.height] as number;
      assert.ok(
        confirmedIds.has(t.id) || failedHeights.has(h) || h > lastFinished,
        `the anchor of height ${h} on B (${t.id}) is confirmed or recorded as failed on A, or still in flight`,
      );
    }
    const heightsOnA = (await anchoringTxs(onA, ownerA)).map((t) => entries(t)[ANCHOR_KEYS.height] as number);
    assert.equal(new Set(heightsOnA).size, heightsOnA.length, `one outcome per height on A: ${heightsOnA.join(', ')}`);
  });

  it('wrong credentials for the authorization service: anchoring-auth answers 503', async () => {
    await A.stop();
    await A.editConfig((node) => {
      node['anchoring'] = anchoringSection('a wrong secret');
    });
    const linesBefore = A.lines.length;
    await A.start(90_000);
    await until(
      'the refused token request logged',
      () => (A.lines.slice(linesBefore).some((l) => l.line.includes('targetnet auth service failed to give a token')) ? true : undefined),
      20_000,
    ).catch(failWith);
    assert.ok(tokenRequests.includes('Bearer a wrong secret'));
    const r = await A.get('/node/healthcheck?service=anchoring-auth');
    assert.equal(r.status, 503);
    assert.deepEqual(r.json, { error: 640, message: 'Targetnet auth service is not available' });
  });
});
