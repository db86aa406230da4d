/**
 * `/privacy/*` on a real node in this process (seeded-node.ts: a policy of accounts 0 and
 * 1 with a small and a large item stored and anchored; the embedded storage): what each
 * route answers, every refusal with WE's code and text in WE's order, and that a refused
 * send stores nothing and puts no PolicyDataHash into the pool.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiServer, listen } from '../../src/api/server.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { checkSendDataRequest, MAX_POLICY_DATA_LENGTH, type SendDataRequest } from '../../src/privacy/requests.js';
import { PrivacyService, type PrivacyApi } from '../../src/privacy/service.js';
import { PrivacyState } from '../../src/privacy/state.js';
import type { DevAccount } from '../../src/cli/dev.js';
import { form, type FormPart } from '../../devkit/multipart.js';
import { randomDataWithHashLength } from '../../devkit/privacy-client.js';
import { until } from '../../devkit/wait.js';
import { watchKeystore } from '../support/keystore-calls.js';
import { DEV_API_KEY, seededNode, type SeededNode } from '../../devkit/api/seeded-node.js';
import { fixtureServer, PRIVACY_KEY } from './fixture.js';
import { inject, type Answer } from './inject.js';

const hashOf = (data: Uint8Array): string => encodeBase58(createHash('sha256').update(data).digest());
const KEY = { 'x-api-key': DEV_API_KEY };

/** A request with the dev privacy key: a JSON body (int64 exact), a multipart form, or raw JSON text. */
async function send(
  app: FastifyInstance,
  method: 'GET' | 'POST',
  url: string,
  o: { body?: unknown; parts?: readonly FormPart[]; raw?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers = { ...KEY, ...(o.headers ?? {}) };
  if (o.parts !== undefined) {
    const f = form(o.parts);
    return inject(app, method, url, { headers, raw: await f.buffer(), contentType: f.contentType });
  }
  return inject(app, method, url, { headers, ...(o.body !== undefined ? { body: stringifyJson(o.body) } : o.raw !== undefined ? { body: o.raw } : {}) });
}

function expectError(r: Answer, status: number, code: number, message?: string | RegExp): void {
  assert.equal(r.status, status, r.text);
  assert.equal(r.json?.error, code, r.text);
  if (typeof message === 'string') assert.equal(r.json.message, message);
  else if (message !== undefined) assert.match(r.json.message as string, message);
}

let s: SeededNode;
let app: FastifyInstance;
let owner: DevAccount;
let member: DevAccount;
let outsider: DevAccount;
let policyId: string;
let dataDir: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'weft-privacy-api-'));
  s = await seededNode({ dataDir });
  app = s.app;
  [owner, member, outsider] = s.accounts as [DevAccount, DevAccount, DevAccount];
  policyId = s.seed.policy.idBase58;
});
after(() => s?.close());

const info = (over: Record<string, unknown> = {}) => ({ filename: 'f.txt', size: 3, timestamp: 1_711_357_000_000n, author: 'tester', comment: 'c', ...over });

/** A sendData request body of `data` by the owner; `over` replaces fields (undefined removes one). */
function request(data: Uint8Array, over: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    version: 3,
    sender: owner.address,
    password: owner.keystorePassword,
    policyId,
    hash: hashOf(data),
    info: info(),
    fee: 5_000_000n,
    ...over,
  };
  for (const [k, v] of Object.entries(over)) if (v === undefined) delete body[k];
  return body;
}

/** Nothing of `hash` became visible and no PolicyDataHash of it is in the pool. */
async function assertNothingFrom(hash: string): Promise<void> {
  const r = await send(app, 'GET', `/privacy/${policyId}/getInfo/${hash}`);
  expectError(r, 400, 617, `The requested dataset ${hash} is missing in privacy storage`);
  const pooled = s.services.pool.unconfirmed().filter((tx) => tx.type === 114 && tx.toJson()['dataHash'] === hash);
  assert.deepEqual(pooled, [], 'no PolicyDataHash of it in the pool');
}

describe('policy reads', () => {
  it('answer members, hashes and the ids of the PolicyDataHash transactions', async () => {
    assert.deepEqual((await send(app, 'GET', `/privacy/${policyId}/recipients`, { headers: {} })).json, [owner.address, member.address]);
    assert.deepEqual((await send(app, 'GET', `/privacy/${policyId}/owners`)).json, [owner.address]);
    const hashes = (await send(app, 'GET', `/privacy/${policyId}/hashes`)).json as string[];
    assert.deepEqual([...hashes].sort(), [s.seed.privacyItems.small.hash, s.seed.privacyItems.large.hash].sort());
    const ids = (await send(app, 'GET', `/privacy/${policyId}/transactions`)).json as string[];
    const anchoring = s.seed.confirmed.length;
    assert.equal(ids.length, 2);
    for (const id of ids) {
      const tx = await send(app, 'GET', `/transactions/info/${id}`);
      assert.equal(tx.json.type, 114, `${id} is a PolicyDataHash (${anchoring} seeded transactions)`);
      assert.equal(tx.json.policyId, policyId);
    }
  });

  it('refuse an undecodable or unknown policy id', async () => {
    expectError(await send(app, 'GET', '/privacy/0OIl/recipients'), 400, 199, "Failed to decode policyId: '0OIl'");
    const unknown = encodeBase58(randomBytes(32));
    for (const what of ['recipients', 'owners', 'hashes', 'transactions']) {
      expectError(await send(app, 'GET', `/privacy/${unknown}/${what}`), 400, 612, `The requested policy ${unknown} does not exist`);
    }
  });
});

describe('item reads', () => {
  it('serve a small item as text/plain Base64 and a large one streamed with its length', async () => {
    const { small, large } = s.seed.privacyItems;
    const d = await send(app, 'GET', `/privacy/${policyId}/getData/${small.hash}`);
    assert.equal(d.status, 200, d.text);
    assert.match(d.contentType, /^text\/plain/);
    assert.equal(d.text, small.data.toString('base64'));
    const l = await app.inject({ method: 'GET', url: `/privacy/${policyId}/getLargeData/${large.hash}`, headers: KEY });
    assert.equal(l.statusCode, 200);
    assert.equal(l.headers['content-type'], 'application/octet-stream');
    assert.equal(l.headers['content-length'], String(large.data.length));
    assert.ok(l.rawPayload.equals(large.data));
    const i = await send(app, 'GET', `/privacy/${policyId}/getInfo/${small.hash}`);
    assert.deepEqual(i.json, {
      sender: owner.address,
      policy: policyId,
      info: { filename: 'small.txt', size: small.data.length, timestamp: i.json.info.timestamp, author: 'seeder', comment: '' },
      hash: small.hash,
    });
  });

  it('need the privacy key', async () => {
    const url = `/privacy/${policyId}/getData/${s.seed.privacyItems.small.hash}`;
    const r = await app.inject({ method: 'GET', url });
    assert.equal(r.statusCode, 403);
    assert.deepEqual(JSON.parse(r.body), { error: 614, message: 'Provided privacy API key is not correct', field: 'X-API-Key' });
    assert.equal((await app.inject({ method: 'GET', url, headers: { 'x-api-key': 'wrong' } })).statusCode, 403);
  });

  it('answer 647 for the other route, 646 for an unknown item, 199 for a bad hash (after the policy check)', async () => {
    const { small, large } = s.seed.privacyItems;
    expectError(
      await send(app, 'GET', `/privacy/${policyId}/getData/${large.hash}`),
      400,
      647,
      `Policy '${policyId}' item '${large.hash}' data size is too big, you should use 'getPolicyItemDataLarge' for grpc and 'policyItemDataLarge' for rest methods instead`,
    );
    expectError(
      await send(app, 'GET', `/privacy/${policyId}/getLargeData/${small.hash}`),
      400,
      647,
      `Policy '${policyId}' item '${small.hash}' data size is small, you should use 'getPolicyItemData' for grpc and 'policyItemData' for rest methods instead`,
    );
    const unknown = encodeBase58(randomBytes(32));
    expectError(await send(app, 'GET', `/privacy/${policyId}/getData/${unknown}`), 404, 646, `Policy ${policyId} item ${unknown} not found in database`);
    expectError(await send(app, 'GET', `/privacy/${policyId}/getLargeData/${unknown}`), 404, 646);
    expectError(await send(app, 'GET', `/privacy/${policyId}/getData/0OIl`), 400, 199, "Failed to decode policy data hash: '0OIl'");
    expectError(await send(app, 'GET', `/privacy/${policyId}/getData/${encodeBase58(randomBytes(31))}`), 400, 199, 'Invalid policy data hash length');
    expectError(await send(app, 'GET', `/privacy/0OIl/getData/0OIl`), 400, 199, "Failed to decode policyId: '0OIl'");
  });

  it('answer 617 for an anchored item whose data the node lacks, and queue it for download once', async () => {
    const hash = randomBytes(32);
    const hashText = encodeBase58(hash);
    s.block([s.sign(owner, { type: 114, version: 3, policyId, dataHash: hashText, fee: 5_000_000n })]);
    expectError(
      await send(app, 'GET', `/privacy/${policyId}/getInfo/${hashText}`),
      400,
      617,
      `The requested dataset ${hashText} is missing in privacy storage`,
    );
    // No descriptor and no data: the node does not know the item (WE's 646, not 617).
    expectError(await send(app, 'GET', `/privacy/${policyId}/getData/${hashText}`), 404, 646, `Policy ${policyId} item ${hashText} not found in database`);
    const state = PrivacyState.open(join(dataDir, 'data', 'privacy-state'));
    after(() => state.close());
    assert.equal(state.isPending({ policyId, hash: hashText }), true, 'the node owner is a recipient: the 114 itself queued it');
    assert.equal(state.pending().filter((k) => k.hash === hashText).length, 1);
  });

  it('answer getInfos for the stored items asked for, dropping undecodable policy ids', async () => {
    const { small, large } = s.seed.privacyItems;
    const r = await send(app, 'POST', '/privacy/getInfos', {
      body: {
        policiesDataHashes: [
          { policyId, datahashes: [small.hash, large.hash, encodeBase58(randomBytes(32))] },
          { policyId: '0OIl', datahashes: [small.hash] },
        ],
      },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.policiesDataInfo.length, 1);
    assert.equal(r.json.policiesDataInfo[0].policyId, policyId);
    assert.deepEqual((r.json.policiesDataInfo[0].datasInfo as Array<{ hash: string }>).map((i) => i.hash).sort(), [small.hash, large.hash].sort());
    expectError(
      await send(app, 'POST', '/privacy/getInfos', { body: { policiesDataHashes: [{ policyId: '0OIl', datahashes: [] }] } }),
      400,
      199,
      'Failed to decode all policy ids.',
    );
    expectError(await send(app, 'POST', '/privacy/getInfos', { body: { policiesDataHashes: [{ policyId }] } }), 400, 1);
  });
});

describe('sendData', () => {
  it('stores the data, anchors it by a PolicyDataHash of the requested version in the pool', async () => {
    for (const version of [1, 2, 3]) {
      const data = randomBytes(100);
      const r = await send(app, 'POST', '/privacy/sendData', { body: { ...request(data, { version }), data: data.toString('base64') } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.type, 114);
      assert.equal(r.json.version, version);
      assert.equal(r.json.dataHash, hashOf(data));
      assert.equal(r.json.senderPublicKey, encodeBase58(owner.keyPair.publicKey));
      assert.ok(
        s.services.pool.unconfirmed().some((tx) => tx.idBase58 === r.json.id),
        'in the pool',
      );
      assert.equal((await send(app, 'GET', `/privacy/${policyId}/getData/${hashOf(data)}`)).text, data.toString('base64'));
    }
  });

  it('with broadcast=false (V3 only) stores the data and answers the 114 without pooling it', async () => {
    const data = randomBytes(50);
    const r = await send(app, 'POST', '/privacy/sendData?broadcast=false', {
      body: { ...request(data, { atomicBadge: { trustedSender: owner.address } }), data: data.toString('base64') },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.atomicBadge, { trustedSender: owner.address });
    assert.equal(s.services.pool.unconfirmedById(Buffer.from(r.json.id)), undefined);
    assert.equal(
      s.services.pool.unconfirmed().some((tx) => tx.idBase58 === r.json.id),
      false,
    );
    assert.equal((await send(app, 'GET', `/privacy/${policyId}/getData/${hashOf(data)}`)).status, 200);
    const v1 = await send(app, 'POST', '/privacy/sendData?broadcast=false', { body: { ...request(randomBytes(5), { version: 1 }) } });
    expectError(v1, 400, 199, "SendDataRequest V1/V2 with 'broadcast=false' is not allowed. Use V3 instead");
  });

  it('with broadcast=false checks the policy and the sender as a broadcast does, storing nothing for a policy the item cannot join', async () => {
    const data = randomBytes(60);
    const body = (over: Record<string, unknown>) => ({ body: { ...request(data, over), data: data.toString('base64') } });
    const unknown = encodeBase58(randomBytes(32));
    expectError(
      await send(app, 'POST', '/privacy/sendData?broadcast=false', body({ policyId: unknown })),
      400,
      612,
      `The requested policy ${unknown} does not exist`,
    );
    const outside = { sender: outsider.address, password: outsider.keystorePassword };
    expectError(
      await send(app, 'POST', '/privacy/sendData?broadcast=false', body(outside)),
      400,
      199,
      `Sender '${outsider.address}' is not in policy recipients`,
    );
    const v2 = await send(app, 'POST', '/privacy/sendDataV2?broadcast=false', {
      parts: [
        { name: 'request', content: stringifyJson(request(data, outside)) },
        { name: 'data', content: data },
      ],
    });
    expectError(v2, 400, 199, `Sender '${outsider.address}' is not in policy recipients`);
    const storage = (s.services.privacy as unknown as { parts: ConstructorParameters<typeof PrivacyService>[0] }).parts.storage!;
    assert.equal(await storage.exists({ policyId: unknown, hash: hashOf(data) }), false, 'nothing stored under the unknown policy');
    await assertNothingFrom(hashOf(data));
  });

  it('refuses (607) data too large for the one P2P message that carries it to the other members, before storing or anchoring it; takes the largest that fits', async () => {
    const tooLarge = randomBytes(22 * 1024 * 1024);
    const r = await send(app, 'POST', '/privacy/sendDataV2', {
      parts: [
        { name: 'request', content: stringifyJson(request(tooLarge)) },
        { name: 'data', content: tooLarge },
      ],
    });
    expectError(r, 400, 607, /^Policy data too big, actual size '23068672' bytes, max size '\d+' bytes: .+ send it with \/privacy\/sendLargeData$/);
    await assertNothingFrom(hashOf(tooLarge));
    const max = Number(/max size '(\d+)'/.exec(r.json.message as string)![1]);
    // WE's cap of 20 MiB + 128 B, less the answer's head, wrapped key and encryption, and the item's metadata.
    assert.ok(max > 20 * 1024 * 1024 - 1024 && max < 20 * 1024 * 1024, `max ${max}`);
    const hashLength = hashOf(tooLarge).length;
    const overByOne = randomDataWithHashLength(max + 1, hashLength);
    const json = await send(app, 'POST', '/privacy/sendData', { body: { ...request(overByOne), data: overByOne.toString('base64') } });
    expectError(json, 400, 607, new RegExp(`^Policy data too big, actual size '${max + 1}' bytes, max size '${max}' bytes: `));
    await assertNothingFrom(hashOf(overByOne));
    const largest = randomDataWithHashLength(max, hashLength);
    const taken = await send(app, 'POST', '/privacy/sendDataV2', {
      parts: [
        { name: 'request', content: stringifyJson(request(largest)) },
        { name: 'data', content: largest },
      ],
    });
    assert.equal(taken.status, 200, taken.text);
    assert.ok(
      s.services.pool.unconfirmed().some((tx) => tx.idBase58 === taken.json.id),
      'its PolicyDataHash in the pool',
    );
  });

  it("refuses each bad request with WE's code and text, storing nothing and pooling no PolicyDataHash", async () => {
    const data = randomBytes(40);
    const b64 = data.toString('base64');
    const hash = hashOf(data);
    const cases: Array<[string, Record<string, unknown>, number, number, string | RegExp]> = [
      ['unknown version', { version: 4 }, 400, 199, "Unknown version '4' provided for '/privacy/sendData'"],
      ['version not a byte', { version: 'x' }, 400, 1, 'failed to parse json message'],
      ['missing info field', { info: { filename: 'f', size: 1, timestamp: 1, author: 'a' } }, 400, 1, 'failed to parse json message'],
      ['missing fee', { fee: undefined }, 400, 1, 'failed to parse json message'],
      [
        'feeAssetId with V1',
        { version: 1, feeAssetId: encodeBase58(randomBytes(32)) },
        400,
        199,
        "'feeAssetId' field is not allowed for the SendDataRequest version '1'",
      ],
      ['file name too long', { info: info({ filename: 'x'.repeat(32_769) }) }, 400, 199, "File name is too long '32769', maximum is '32768'"],
      ['author too long', { info: info({ author: 'x'.repeat(32_769) }) }, 400, 199, "Author name is too long '32769', maximum is '32768'"],
      ['comment too long', { info: info({ comment: 'x'.repeat(32_769) }) }, 400, 199, "Comment is too long '32769', maximum is '32768'"],
      ['garbage certificate', { certificates: ['AAAA'] }, 400, 121, 'Error while parsing a certificate: Expected a valid X.509 certificate in DER encoding'],
      ['bad feeAssetId', { feeAssetId: '0OIl' }, 400, 199, 'invalid feeAssetId'],
      ['bad hash', { hash: 'abc0' }, 400, 199, "Failed to decode policy data hash: 'abc0'"],
      ['bad policy id', { policyId: '0OIl' }, 400, 199, "Failed to decode policyId: '0OIl'"],
      ['bad sender', { sender: 'not-an-address' }, 400, 199, /^Failed to decode sender address 'not-an-address', reason: InvalidAddress\(/],
      ['wrong password', { password: 'wrong' }, 400, 199, /^Failed to get senders private key, maybe password is wrong: 'Some\(\*\*\*\)', error reason: '/],
      [
        'sender not in the keystore',
        { sender: owner.address.slice(0, -1) + (owner.address.endsWith('a') ? 'b' : 'a') },
        400,
        199,
        /^Failed to decode sender address|^Failed to get senders private key/,
      ],
      [
        'hash anchored already',
        { hash: s.seed.privacyItems.small.hash },
        400,
        615,
        `The specified dataset with hash ${s.seed.privacyItems.small.hash} was added earlier`,
      ],
      ['unknown policy', { policyId: encodeBase58(randomBytes(32)) }, 400, 612, /^The requested policy \w+ does not exist$/],
      [
        'sender outside the recipients',
        { sender: outsider.address, password: outsider.keystorePassword },
        400,
        199,
        `Sender '${outsider.address}' is not in policy recipients`,
      ],
      ['wrong hash', { hash: hashOf(randomBytes(3)) }, 400, 199, /^Invalid data hash\. Actual '\w+', expected '\w+'$/],
    ];
    for (const [what, over, status, code, message] of cases) {
      const body = { ...request(data, over), data: b64 };
      const r = await send(app, 'POST', '/privacy/sendData', { body });
      assert.equal(r.status, status, `${what}: ${r.text.slice(0, 300)}`);
      assert.equal(r.json?.error, code, `${what}: ${r.text.slice(0, 300)}`);
      if (typeof message === 'string') assert.equal(r.json.message, message, what);
      else assert.match(r.json.message as string, message, what);
    }
    const missingInfo = await send(app, 'POST', '/privacy/sendData', {
      body: { ...request(data, { info: { filename: 'f', size: 1, timestamp: 1, author: 'a' } }), data: b64 },
    });
    assert.deepEqual(missingInfo.json.validationErrors, { 'obj.info.comment': [{ msg: ['error.path.missing'], args: [] }] });
    expectError(
      await send(app, 'POST', '/privacy/sendData', { body: { ...request(data), data: '%%%' } }),
      400,
      199,
      'Failed to decode policy data from Base64',
    );
    await assertNothingFrom(hash);
  });

  it('refuses without the privacy key (614) and a body over 28 MiB (611)', async () => {
    const data = randomBytes(4);
    const r = await send(app, 'POST', '/privacy/sendData', { body: { ...request(data), data: data.toString('base64') }, headers: { 'x-api-key': 'wrong' } });
    expectError(r, 403, 614);
    const huge = JSON.stringify({ ...JSON.parse(stringifyJson(request(data))), data: 'A'.repeat(29_360_128) });
    expectError(
      await send(app, 'POST', '/privacy/sendData', { raw: huge }),
      400,
      611,
      `HttpEntity too big, actual size '${Buffer.byteLength(huge)}' bytes, max size '29360128' bytes`,
    );
    await assertNothingFrom(hashOf(data));
  });

  it('answers 607 for data of 34 Mi characters or more (a limit the 28 MiB body keeps out of reach over HTTP)', async () => {
    const req = { ...request(new Uint8Array(0)), info: info(), version: 3 } as unknown as SendDataRequest;
    await assert.rejects(
      () => checkSendDataRequest(req, MAX_POLICY_DATA_LENGTH, { protocol: s.node.protocol, unlock: () => Promise.resolve(owner.keyPair) }),
      (e: unknown) =>
        (e as { code: number }).code === 607 && (e as Error).message === "Policy data too big, actual size '35651584' bytes, max size '35651584' bytes",
    );
  });
});

describe('sendDataV2', () => {
  it('takes the parts in any order and any case, ignoring certificates', async () => {
    const data = randomBytes(3000);
    const parts: FormPart[] = [
      { name: 'DATA', content: data, filename: 'blob.bin' },
      { name: 'Request', content: stringifyJson(request(data, { certificates: ['garbage'] })), contentType: 'application/json' },
    ];
    const r = await send(app, 'POST', '/privacy/sendDataV2', { parts });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.dataHash, hashOf(data));
    const back = await send(app, 'GET', `/privacy/${policyId}/getData/${hashOf(data)}`);
    assert.equal(back.text, data.toString('base64'));
  });

  it('refuses a body without its data or request part, an unknown part and a wrong hash, storing nothing', async () => {
    const data = randomBytes(10);
    const req = stringifyJson(request(data));
    // A JSON body (the form of sendData) or none: 415 saying the route takes multipart, not WE's 404 (it reads as a wrong URL).
    for (const route of ['/privacy/sendDataV2', '/privacy/sendLargeData']) {
      expectError(
        await send(app, 'POST', route, { body: request(data) }),
        415,
        199,
        new RegExp(`^${route} takes a multipart/form-data body .*Content-Type is 'application/json`),
      );
      expectError(await send(app, 'POST', route), 415, 199, /takes a multipart\/form-data body.*Content-Type is absent/);
    }
    expectError(await send(app, 'POST', '/privacy/sendDataV2', { parts: [{ name: 'request', content: req }] }), 400, 199, /no 'data' part/);
    expectError(await send(app, 'POST', '/privacy/sendDataV2', { parts: [{ name: 'data', content: data }] }), 400, 199, /no 'request' part/);
    expectError(
      await send(app, 'POST', '/privacy/sendDataV2', {
        parts: [
          { name: 'request', content: req },
          { name: 'extra', content: 'x' },
          { name: 'data', content: data },
        ],
      }),
      400,
      199,
      /Unexpected part 'extra'/,
    );
    expectError(
      await send(app, 'POST', '/privacy/sendDataV2', {
        parts: [
          { name: 'request', content: '{not json' },
          { name: 'data', content: data },
        ],
      }),
      400,
      1,
    );
    expectError(
      await send(app, 'POST', '/privacy/sendDataV2', {
        parts: [
          { name: 'request', content: stringifyJson(request(randomBytes(3))) },
          { name: 'data', content: data },
        ],
      }),
      400,
      199,
      /^Invalid data hash/,
    );
    // Bodies that end early: inside the request part, inside the data part.
    const whole = form([
      { name: 'request', content: req },
      { name: 'data', content: data },
    ]);
    const full = await whole.buffer();
    for (const at of [200, full.length - 60]) {
      for (const url of ['/privacy/sendDataV2', '/privacy/sendLargeData']) {
        const truncated = await app.inject({ method: 'POST', url, headers: { ...KEY, 'content-type': whole.contentType }, payload: full.subarray(0, at) });
        expectError(
          { status: truncated.statusCode, text: truncated.body, contentType: '', headers: {}, json: JSON.parse(truncated.body) },
          400,
          199,
          /^The multipart body is malformed: /,
        );
      }
    }
    await assertNothingFrom(hashOf(data));
  });
});

/** An upload of `total` bytes pushed in `chunk`-byte pieces as fast as it is read, the owner's request for it, and how much was read so far. */
function chunkedUpload(chunk: number, total: number): { request: SendDataRequest; stream: Readable; chunk: number; total: number; pulled: () => number } {
  const piece = randomBytes(chunk);
  const hash = createHash('sha256');
  for (let at = 0; at < total; at += chunk) hash.update(piece);
  let pulled = 0;
  const stream = new Readable({
    highWaterMark: chunk,
    read() {
      pulled += chunk;
      this.push(piece);
      if (pulled === total) this.push(null);
    },
  });
  const body = { ...request(randomBytes(1), { hash: encodeBase58(hash.digest()) }), info: { ...info(), size: total } };
  return { request: body as unknown as SendDataRequest, stream, chunk, total, pulled: () => pulled };
}

describe('sendLargeData', () => {
  it('streams the data part into the storage as a large item', async () => {
    const data = randomBytes(1_500_000);
    const r = await send(app, 'POST', '/privacy/sendLargeData', {
      parts: [
        { name: 'request', content: stringifyJson(request(data)) },
        { name: 'data', content: data, filename: 'big.bin' },
        { name: 'ignored', content: 'later parts are skipped' },
      ],
    });
    assert.equal(r.status, 200, r.text);
    const l = await app.inject({ method: 'GET', url: `/privacy/${policyId}/getLargeData/${hashOf(data)}`, headers: KEY });
    assert.ok(l.rawPayload.equals(data));
    expectError(await send(app, 'GET', `/privacy/${policyId}/getData/${hashOf(data)}`), 400, 647);
  });

  it("refuses parts out of order with WE's texts, and checks the request before any data", async () => {
    const data = randomBytes(1000);
    const req = stringifyJson(request(data));
    expectError(
      await send(app, 'POST', '/privacy/sendLargeData', {
        parts: [
          { name: 'data', content: data },
          { name: 'request', content: req },
        ],
      }),
      400,
      199,
      "'request' part must be in the head of the Multipart, got 'data'",
    );
    expectError(
      await send(app, 'POST', '/privacy/sendLargeData', {
        parts: [
          { name: 'request', content: req },
          { name: 'other', content: data },
        ],
      }),
      400,
      199,
      "'data' part must be followed by the 'request' part",
    );
    expectError(await send(app, 'POST', '/privacy/sendLargeData', { parts: [{ name: 'request', content: req }] }), 400, 199, 'Unexpected state');
    expectError(await send(app, 'POST', '/privacy/sendLargeData', { parts: [] }), 400, 199, 'Unexpected state');
    const anchored = stringifyJson(request(data, { hash: s.seed.privacyItems.large.hash }));
    expectError(
      await send(app, 'POST', '/privacy/sendLargeData', {
        parts: [
          { name: 'request', content: anchored },
          { name: 'data', content: data },
        ],
      }),
      400,
      615,
    );
    expectError(
      await send(app, 'POST', '/privacy/sendLargeData', {
        parts: [
          { name: 'request', content: stringifyJson(request(data, { password: 'nope' })) },
          { name: 'data', content: data },
        ],
      }),
      400,
      199,
      /^Failed to get senders private key/,
    );
    expectError(
      await send(app, 'POST', '/privacy/sendLargeData', {
        parts: [
          { name: 'request', content: stringifyJson(request(randomBytes(9))) },
          { name: 'data', content: data },
        ],
      }),
      400,
      199,
      /^Invalid data hash/,
    );
    await assertNothingFrom(hashOf(data));
  });

  it('reads the upload only as fast as the storage takes it: at most request-buffer-size bytes wait in between', async () => {
    const parts = (s.services.privacy as unknown as { parts: ConstructorParameters<typeof PrivacyService>[0] }).parts;
    const storage = parts.storage!;
    const bufferSize = 1024 * 1024;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    // A storage that starts reading only once released.
    const stalled: typeof storage = Object.assign(Object.create(storage) as typeof storage, {
      save: async (...args: Parameters<typeof storage.save>) => {
        await released;
        return storage.save(...args);
      },
    });
    const service = new PrivacyService({
      ...parts,
      storage: stalled,
      settings: { ...parts.settings, service: { ...parts.settings.service, requestBufferSize: bufferSize } },
    });
    const upload = chunkedUpload(16 * 1024, 64 * 1024 * 1024);
    const sent = service.sendLargeData(await service.checkLargeUpload(upload.request), upload.stream, false);
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(upload.pulled() <= bufferSize + 4 * upload.chunk, `${upload.pulled()} bytes read while the storage took none`);
    release();
    const tx = await sent;
    assert.equal(upload.pulled(), upload.total);
    assert.equal(tx.type, 114);
  });

  it('hands the storage the upload in the pieces it came in: a slow storage never gets megabytes joined into one chunk (to hash in one go)', async () => {
    const parts = (s.services.privacy as unknown as { parts: ConstructorParameters<typeof PrivacyService>[0] }).parts;
    const storage = parts.storage!;
    const seen: number[] = [];
    async function* watched(data: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
      for await (const c of data) {
        seen.push(c.length);
        // A storage slower than the upload: the read-ahead fills while it works.
        await new Promise((r) => setTimeout(r, 2));
        yield c;
      }
    }
    const slow: typeof storage = Object.assign(Object.create(storage) as typeof storage, {
      save: async (meta: Parameters<typeof storage.save>[0], type: Parameters<typeof storage.save>[1], data: Parameters<typeof storage.save>[2]) => {
        await new Promise((r) => setTimeout(r, 100));
        return storage.save(meta, type, data instanceof Uint8Array ? data : watched(data));
      },
    });
    const service = new PrivacyService({ ...parts, storage: slow });
    const upload = chunkedUpload(16 * 1024, 4 * 1024 * 1024);
    const tx = await service.sendLargeData(await service.checkLargeUpload(upload.request), upload.stream, false);
    assert.equal(tx.type, 114);
    assert.equal(
      seen.reduce((a, b) => a + b, 0),
      upload.total,
    );
    assert.ok(Math.max(...seen) <= upload.chunk, `the storage got a chunk of ${Math.max(...seen)} bytes; the upload came in ${upload.chunk}-byte chunks`);
  });
});

describe('refused uploads over a socket', () => {
  let url: string;
  let server: FastifyInstance | undefined;
  before(async () => {
    server = createApiServer(s.services, { logger: false });
    url = await listen(server, { bindAddress: '127.0.0.1', port: 0 });
  });
  after(() => server?.close());

  /** A raw connection: what it received, whether it closed or failed. */
  function rawConnection(): { socket: Socket; received: () => string; closed: () => boolean; failed: () => Error | undefined } {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    let received = '';
    let closed = false;
    let failed: Error | undefined;
    socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
    socket.on('error', (e) => (failed = e));
    socket.on('close', () => (closed = true));
    return { socket, received: () => received, closed: () => closed, failed: () => failed };
  }

  it('answer while the client still sends, then take the rest of the body so the connection serves the next request', async () => {
    const c = rawConnection();
    const length = 29 * 1024 * 1024;
    c.socket.write(
      `POST /privacy/sendData HTTP/1.1\r\nHost: x\r\nX-API-Key: ${DEV_API_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"data":"`,
    );
    await until('the 611 answer', () => (c.received().includes('"error":611') ? true : undefined));
    assert.doesNotMatch(c.received(), /connection: close/i);
    // The client goes on sending its body as it would, unaware of the answer: none of it fails.
    const chunk = Buffer.alloc(1024 * 1024, 0x41);
    for (let sent = 9; sent < length; sent += chunk.length) {
      await new Promise<void>((resolve, reject) =>
        c.socket.write(chunk.subarray(0, Math.min(chunk.length, length - sent)), (e) => (e ? reject(e) : resolve())),
      );
    }
    c.socket.write('GET /blocks/height HTTP/1.1\r\nHost: x\r\n\r\n');
    await until('the next answer on the same connection', () => (/HTTP\/1\.1 200[^]*"height":\d+/.test(c.received()) ? true : undefined));
    assert.equal(c.failed(), undefined);
    c.socket.destroy();
  });

  it('close a refused upload that does not end, instead of reading it forever', async () => {
    const c = rawConnection();
    c.socket.write(
      `POST /privacy/sendLargeData HTTP/1.1\r\nHost: x\r\nX-API-Key: ${DEV_API_KEY}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 999999999\r\n\r\n--b\r\nContent-Disposition: form-data; name="data"\r\n\r\n`,
    );
    const trickle = setInterval(() => c.socket.write(Buffer.alloc(1024)), 50);
    await until('the connection to be closed', () => (c.closed() ? true : undefined), 30_000);
    clearInterval(trickle);
    assert.match(c.received(), /^HTTP\/1\.1 400 [^]*'request' part must be in the head of the Multipart, got 'data'/);
  });
});

describe('guards', () => {
  it('feature 180 inactive: the large-item routes answer 648', async () => {
    const privacy = s.services.privacy!;
    const gated: PrivacyApi = Object.assign(Object.create(privacy) as PrivacyApi, { largeObjectsActive: () => false });
    const gatedApp = createApiServer({ ...s.services, privacy: gated }, { logger: false });
    after(() => gatedApp.close());
    const message = 'Large privacy object feature is not activated yet, so using appropriate api methods(for getting or sending large data) is not allowed';
    expectError(await send(gatedApp, 'GET', `/privacy/${policyId}/getLargeData/${s.seed.privacyItems.large.hash}`), 400, 648, message);
    expectError(await send(gatedApp, 'POST', '/privacy/sendLargeData', { parts: [{ name: 'request', content: '{}' }] }), 400, 648, message);
  });

  it('storage switched off: data routes answer 613, policy reads and getInfos still work', async () => {
    const privacy = s.services.privacy! as PrivacyService;
    const off = new PrivacyService({ ...(privacy as unknown as { parts: ConstructorParameters<typeof PrivacyService>[0] }).parts, storage: undefined });
    const offApp = createApiServer({ ...s.services, privacy: off }, { logger: false });
    after(() => offApp.close());
    const message = 'The privacy feature is switched off';
    expectError(await send(offApp, 'GET', `/privacy/${policyId}/getData/${s.seed.privacyItems.small.hash}`), 400, 613, message);
    expectError(await send(offApp, 'GET', `/privacy/${policyId}/getInfo/${s.seed.privacyItems.small.hash}`), 400, 613, message);
    expectError(await send(offApp, 'POST', '/privacy/sendData', { body: {} }), 400, 613, message);
    assert.equal((await send(offApp, 'GET', `/privacy/${policyId}/recipients`)).status, 200);
    assert.deepEqual(
      (await send(offApp, 'POST', '/privacy/getInfos', { body: { policiesDataHashes: [{ policyId, datahashes: [s.seed.privacyItems.small.hash] }] } })).json,
      { policiesDataInfo: [] },
    );
  });

  it('forceSync: the count restarted; 612 for an unknown policy; 613 without storage; 610 without a synchronizer (watcher)', async () => {
    const all = await send(s.app, 'POST', '/privacy/forceSync');
    assert.equal(all.status, 200, all.text);
    assert.equal(typeof all.json.forceRestarted, 'number');
    const hashes = (await send(s.app, 'GET', `/privacy/${policyId}/hashes`)).json as string[];
    const one = await send(s.app, 'GET', `/privacy/forceSync/${policyId}`);
    assert.equal(one.status, 200, one.text);
    assert.ok(one.json.forceRestarted >= hashes.length, `every anchored item of the policy is re-checked: ${one.text}`);
    const unknown = encodeBase58(randomBytes(32));
    expectError(await send(s.app, 'GET', `/privacy/forceSync/${unknown}`), 400, 612, `The requested policy ${unknown} does not exist`);
    expectError(await send(s.app, 'GET', '/privacy/forceSync/0OIl'), 400, 199, "Failed to decode policyId: '0OIl'");
    const parts = (s.services.privacy as unknown as { parts: ConstructorParameters<typeof PrivacyService>[0] }).parts;
    const noSync = createApiServer({ ...s.services, privacy: new PrivacyService({ ...parts, sync: undefined }) }, { logger: false });
    const noStorage = createApiServer({ ...s.services, privacy: new PrivacyService({ ...parts, storage: undefined }) }, { logger: false });
    after(() => Promise.all([noSync.close(), noStorage.close()]));
    expectError(await send(noSync, 'POST', '/privacy/forceSync'), 500, 610, 'Force sync error');
    expectError(await send(noSync, 'GET', `/privacy/forceSync/${policyId}`), 500, 610, 'Force sync error');
    expectError(await send(noStorage, 'POST', '/privacy/forceSync'), 400, 613, 'The privacy feature is switched off');
  });

  it('watcher node: sendData refuses with 638 before the storage check, sendLargeData checks the storage first', async () => {
    const watcher = fixtureServer({ watcher: true });
    after(() => watcher.app.close());
    const key = { 'x-api-key': PRIVACY_KEY };
    const r = await watcher.app.inject({ method: 'POST', url: '/privacy/sendData', headers: { ...key, 'content-type': 'application/json' }, payload: '{}' });
    assert.equal(JSON.parse(r.body).error, 638);
    const l = await watcher.app.inject({ method: 'POST', url: '/privacy/sendLargeData', headers: key });
    assert.equal(JSON.parse(l.body).error, 613, 'no privacy service on the fixture node');
  });
});

describe('keystore passwords on sendData', () => {
  it("are derived off the event loop under the signing routes' failed-unlock limit: WE's error for a wrong one, 429 after the limit, the unlocked key still signs", async () => {
    const watch = watchKeystore(s.node.keystore);
    try {
      const data = (i: number) => Buffer.from(`member item ${i}`);
      const asMember = (i: number, password: string) =>
        send(app, 'POST', '/privacy/sendData', { body: { ...request(data(i), { sender: member.address, password }), data: data(i).toString('base64') } });
      const first = await asMember(1, member.keystorePassword);
      assert.equal(first.status, 200, first.text);
      for (let i = 0; i < 5; i++) {
        expectError(
          await asMember(2, `wrong-${i}`),
          400,
          199,
          /^Failed to get senders private key, maybe password is wrong: 'Some\(\*\*\*\)', error reason: 'no private key for sender address in wallet or provided password is incorrect'$/,
        );
      }
      expectError(await asMember(2, 'wrong-5'), 429, 115, /too many wrong passwords for this address/);
      // The same limit as the signing routes: /transactions/sign refuses the address too.
      const sign = await send(app, 'POST', '/transactions/sign', {
        body: { type: 4, version: 2, sender: member.address, password: 'wrong-6', recipient: owner.address, amount: 1, fee: 1_000_000 },
      });
      expectError(sign, 429, 115, /too many wrong passwords/);
      // The key unlocked before is kept: the right password still sends.
      const again = await asMember(3, member.keystorePassword);
      assert.equal(again.status, 200, again.text);
      await assertNothingFrom(hashOf(data(2)));
      assert.equal(watch.calls.keyPair, 0, 'no password was derived on the event loop');
      assert.ok(watch.calls.unlock >= 8);
    } finally {
      watch.restore();
    }
  });
});
