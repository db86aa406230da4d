/**
 * Confidential data driven over HTTP the way an application does it, against a node
 * process whatever its storage: a policy created through `/transactions/signAndBroadcast`,
 * data sent through the three send routes (multipart bodies streamed with their length,
 * as curl sends them) and read back, each byte compared by SHA-256 as it streams.
 *
 * `privacyNodeSuite` is the suite every storage runs (embedded, PostgreSQL, S3): send via
 * all three routes and read back byte-identical; each bad input of issue 12 answered with
 * WE's code and text, with nothing stored, no PolicyDataHash pooled, and the node still
 * serving.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequestRaw } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import { it } from 'node:test';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { httpRequest, type Answer } from '../support/http.js';
import { form, generatedData, type Form, type FormPart } from '../support/multipart.js';
import { until } from '../support/wait.js';

export interface PrivacyAccount {
  readonly address: string;
  readonly password: string;
}

export interface PrivacyTarget {
  readonly url: string;
  readonly apiKey: string;
  /** A keystore account registered on chain; the policy's owner and only recipient. */
  readonly owner: PrivacyAccount;
  /** Another keystore account, registered but outside the policy. */
  readonly other: PrivacyAccount;
}

const b58sha = (data: Uint8Array): string => encodeBase58(createHash('sha256').update(data).digest());

/** SHA-256 (Base58) of a generated source, computed by reading it once. */
export async function hashOfSource(source: { stream: () => AsyncIterable<Uint8Array> }): Promise<string> {
  const h = createHash('sha256');
  for await (const c of source.stream()) h.update(c);
  return encodeBase58(h.digest());
}

/** A body to stream: its media type, exact length and bytes (a Form is one). */
export type StreamedBody = Pick<Form, 'contentType' | 'length' | 'stream'>;

/** POSTs a body with its Content-Length, streaming it; the answer (an early answer stops the upload). */
export function upload(target: Pick<PrivacyTarget, 'url' | 'apiKey'>, path: string, body: StreamedBody, timeoutMs = 600_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequestRaw(`${target.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': body.contentType, 'content-length': String(body.length), 'x-api-key': target.apiKey },
      timeout: timeoutMs,
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer to POST ${path} within ${timeoutMs} ms`)));
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    pipeline(body.stream(), req, () => undefined);
  });
}

/** GETs a stream and answers its status, Content-Length, byte count and SHA-256 (Base58), never holding it. */
export function download(target: Pick<PrivacyTarget, 'url' | 'apiKey'>, path: string): Promise<{ status: number; contentLength: number; bytes: number; hash: string; contentType: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequestRaw(`${target.url}${path}`, { headers: { 'x-api-key': target.apiKey } }, (res) => {
      const h = createHash('sha256');
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        h.update(c);
        bytes += c.length;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, contentLength: Number(res.headers['content-length']), bytes, hash: encodeBase58(h.digest()), contentType: String(res.headers['content-type']) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export class PrivacyClient {
  constructor(readonly target: PrivacyTarget) {}

  get(path: string): Promise<Answer> {
    return httpRequest(this.target.url, 'GET', path, undefined, { apiKey: this.target.apiKey, timeoutMs: 30_000 });
  }

  post(path: string, body: unknown): Promise<Answer> {
    return httpRequest(this.target.url, 'POST', path, body, { apiKey: this.target.apiKey, timeoutMs: 120_000 });
  }

  /** A policy of the owner (the only owner and recipient), confirmed on chain; its id. */
  async createPolicy(): Promise<string> {
    const { owner } = this.target;
    const r = await this.post('/transactions/signAndBroadcast', {
      type: 112,
      version: 3,
      sender: owner.address,
      password: owner.password,
      policyName: `e2e-${randomBytes(4).toString('hex')}`,
      description: 'privacy e2e',
      recipients: [owner.address],
      owners: [owner.address],
      fee: 100_000_000,
    });
    assert.equal(r.status, 200, `CreatePolicy: ${r.text}`);
    const id = String(r.json.id);
    await until('the CreatePolicy to be confirmed', async () => ((await this.get(`/privacy/${id}/recipients`)).status === 200 ? true : undefined), 60_000, 300);
    return id;
  }

  /** A sendData request body (no data) by `sender`. */
  request(policyId: string, hash: string, over: Record<string, unknown> = {}, sender: PrivacyAccount = this.target.owner): Record<string, unknown> {
    const body: Record<string, unknown> = {
      version: 3,
      sender: sender.address,
      password: sender.password,
      policyId,
      hash,
      info: { filename: 'e2e.bin', size: 1, timestamp: 1_711_357_000_000, author: 'e2e', comment: 'отчёт' },
      fee: 5_000_000,
      ...over,
    };
    for (const [k, v] of Object.entries(over)) if (v === undefined) delete body[k];
    return body;
  }

  sendData(policyId: string, data: Uint8Array, over: Record<string, unknown> = {}): Promise<Answer> {
    return this.post('/privacy/sendData', { ...this.request(policyId, b58sha(data), over), data: Buffer.from(data).toString('base64') });
  }

  sendDataV2(policyId: string, data: Uint8Array, over: Record<string, unknown> = {}): Promise<Answer> {
    return upload(this.target, '/privacy/sendDataV2', form([{ name: 'data', content: data, filename: 'v2.bin' }, { name: 'request', content: JSON.stringify(this.request(policyId, b58sha(data), over)) }]));
  }

  sendLargeData(policyId: string, hash: string, data: FormPart['content'], over: Record<string, unknown> = {}): Promise<Answer> {
    return upload(this.target, '/privacy/sendLargeData', form([{ name: 'request', content: JSON.stringify(this.request(policyId, hash, over)) }, { name: 'data', content: data, filename: 'large.bin' }]));
  }

  /** No PolicyDataHash of `hash` in the pool, and the item is not stored (getInfo: 617). */
  async assertNothingFrom(policyId: string, hash: string): Promise<void> {
    const pool = (await this.get('/transactions/unconfirmed')).json as Array<{ type: number; dataHash?: string }>;
    assert.deepEqual(pool.filter((t) => t.type === 114 && t.dataHash === hash), [], 'no PolicyDataHash pooled');
    const info = await this.get(`/privacy/${policyId}/getInfo/${hash}`);
    assert.equal(info.json?.error, 617, `not stored: ${info.text}`);
  }

  /** Waits until a PolicyDataHash is on chain (the policy lists its hash). */
  async untilAnchored(policyId: string, hash: string): Promise<void> {
    await until(`the hash ${hash} to be anchored`, async () => (((await this.get(`/privacy/${policyId}/hashes`)).json as string[]).includes(hash) ? true : undefined), 60_000, 300);
  }
}

function expectAnswer(r: Answer, status: number, code: number, message: string | RegExp, what: string): void {
  assert.equal(r.status, status, `${what}: ${r.text.slice(0, 400)}`);
  assert.equal(r.json?.error, code, `${what}: ${r.text.slice(0, 400)}`);
  if (typeof message === 'string') assert.equal(r.json.message, message, what);
  else assert.match(String(r.json.message), message, what);
}

/**
 * The tests every storage runs, registered on the current describe. `target()` gives the
 * running node; `largeSize` is the size of the streamed item.
 */
export function privacyNodeSuite(target: () => PrivacyTarget, largeSize: number): void {
  let client: PrivacyClient;
  let policyId = '';

  it('sends through sendData, sendDataV2 and sendLargeData and reads every item back byte-identical', async () => {
    client = new PrivacyClient(target());
    policyId = await client.createPolicy();
    const small = randomBytes(10_000);
    const sent = await client.sendData(policyId, small);
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.json.type, 114);
    assert.equal(sent.json.dataHash, b58sha(small));
    const v2 = randomBytes(1_000_000);
    const sentV2 = await client.sendDataV2(policyId, v2);
    assert.equal(sentV2.status, 200, sentV2.text);
    const large = generatedData(largeSize, largeSize);
    const largeHash = await hashOfSource(large);
    const sentLarge = await client.sendLargeData(policyId, largeHash, large);
    assert.equal(sentLarge.status, 200, sentLarge.text.slice(0, 400));
    assert.equal(sentLarge.json.dataHash, largeHash);

    const smallBack = await client.get(`/privacy/${policyId}/getData/${b58sha(small)}`);
    assert.equal(smallBack.status, 200);
    assert.ok(Buffer.from(smallBack.text, 'base64').equals(small));
    const v2Back = await client.get(`/privacy/${policyId}/getData/${b58sha(v2)}`);
    assert.ok(Buffer.from(v2Back.text, 'base64').equals(v2));
    const largeBack = await download(client.target, `/privacy/${policyId}/getLargeData/${largeHash}`);
    assert.deepEqual(largeBack, { status: 200, contentLength: largeSize, bytes: largeSize, hash: largeHash, contentType: 'application/octet-stream' });
    const info = await client.get(`/privacy/${policyId}/getInfo/${largeHash}`);
    assert.deepEqual(info.json, { sender: client.target.owner.address, policy: policyId, info: { filename: 'e2e.bin', size: 1, timestamp: 1_711_357_000_000, author: 'e2e', comment: 'отчёт' }, hash: largeHash });
    for (const hash of [b58sha(small), b58sha(v2), largeHash]) await client.untilAnchored(policyId, hash);
  });

  it("answers each bad input with WE's code and text; nothing is stored, no PolicyDataHash goes out, the node keeps serving", async () => {
    const { other } = client.target;
    const data = randomBytes(2000);
    const hash = b58sha(data);
    const b64 = data.toString('base64');
    const json = (over: Record<string, unknown>, sender?: PrivacyAccount) => ({ ...client.request(policyId, hash, over, sender), data: b64 });
    // Wrong hash (JSON, multipart, streamed).
    expectAnswer(await client.post('/privacy/sendData', json({ hash: b58sha(randomBytes(5)) })), 400, 199, /^Invalid data hash\. Actual '\w+', expected '\w+'$/, 'sendData wrong hash');
    expectAnswer(await client.sendDataV2(policyId, data, { hash: b58sha(randomBytes(5)) }), 400, 199, /^Invalid data hash/, 'sendDataV2 wrong hash');
    expectAnswer(await client.sendLargeData(policyId, b58sha(randomBytes(5)), data), 400, 199, /^Invalid data hash/, 'sendLargeData wrong hash');
    // Wrong password.
    expectAnswer(await client.post('/privacy/sendData', json({ password: 'not the password' })), 400, 199, /^Failed to get senders private key, maybe password is wrong: 'Some\(\*\*\*\)'/, 'wrong password');
    // A sender outside the policy's recipients.
    expectAnswer(await client.post('/privacy/sendData', json({}, other)), 400, 199, `Sender '${other.address}' is not in policy recipients`, 'non-member sender');
    // An unknown policy.
    const unknown = encodeBase58(randomBytes(32));
    expectAnswer(await client.post('/privacy/sendData', json({ policyId: unknown })), 400, 612, `The requested policy ${unknown} does not exist`, 'unknown policy');
    // A multipart body cut short.
    const whole = form([{ name: 'request', content: JSON.stringify(client.request(policyId, hash)) }, { name: 'data', content: data }]);
    const cut = (await whole.buffer()).subarray(0, whole.length - 500);
    const truncated = await upload(client.target, '/privacy/sendLargeData', { contentType: whole.contentType, length: cut.length, stream: () => Readable.from([cut]) });
    expectAnswer(truncated, 400, 199, /^The multipart body is malformed: /, 'truncated multipart');
    // Parts out of order.
    const outOfOrder = form([{ name: 'data', content: data }, { name: 'request', content: JSON.stringify(client.request(policyId, hash)) }]);
    expectAnswer(await upload(client.target, '/privacy/sendLargeData', outOfOrder), 400, 199, "'request' part must be in the head of the Multipart, got 'data'", 'parts out of order');
    // A JSON body over 28 MiB.
    const huge = Buffer.from(JSON.stringify({ ...client.request(policyId, hash), data: 'A'.repeat(28 * 1024 * 1024) }));
    const oversize = await upload(client.target, '/privacy/sendData', { contentType: 'application/json', length: huge.length, stream: () => Readable.from([huge]) });
    expectAnswer(oversize, 400, 611, `HttpEntity too big, actual size '${huge.length}' bytes, max size '29360128' bytes`, 'oversize JSON body');
    // Missing info fields.
    const missing = await client.post('/privacy/sendData', json({ info: { filename: 'f', size: 1 } }));
    expectAnswer(missing, 400, 1, 'failed to parse json message', 'missing info fields');
    assert.deepEqual(Object.keys(missing.json.validationErrors as object).sort(), ['obj.info.author', 'obj.info.comment', 'obj.info.timestamp']);
    // broadcast=false with V1.
    const v1 = await httpRequest(client.target.url, 'POST', '/privacy/sendData?broadcast=false', json({ version: 1 }), { apiKey: client.target.apiKey });
    expectAnswer(v1, 400, 199, "SendDataRequest V1/V2 with 'broadcast=false' is not allowed. Use V3 instead", 'broadcast=false V1');
    await client.assertNothingFrom(policyId, hash);
    assert.equal((await client.get('/node/status')).status, 200, 'the node keeps serving');
    // And the same data goes through afterwards.
    const ok = await client.sendData(policyId, data);
    assert.equal(ok.status, 200, ok.text);
  });
}
