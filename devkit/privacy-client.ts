/**
 * Confidential data driven over HTTP the way an application does it: a policy created
 * through `/transactions/signAndBroadcast`, data sent through the three send routes
 * (multipart bodies streamed with their length, as curl sends them) and read back, each
 * byte compared by SHA-256 as it streams. Used by the e2e suites and the bench.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequestRaw } from 'node:http';
import { pipeline } from 'node:stream';
import { encodeBase58 } from '../src/crypto/encoding.js';
import { httpRequest, type Answer } from './http.js';
import { form, type Form, type FormPart } from './multipart.js';
import { until } from './wait.js';

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

export const b58sha = (data: Uint8Array): string => encodeBase58(createHash('sha256').update(data).digest());

/**
 * `size` random bytes whose SHA-256 has `hashLength` Base58 characters (43 or 44): the
 * largest data sendData takes depends on the item's metadata, which holds the hash text.
 */
export function randomDataWithHashLength(size: number, hashLength: number): Buffer {
  for (;;) {
    const data = randomBytes(size);
    if (b58sha(data).length === hashLength) return data;
  }
}

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
export function download(
  target: Pick<PrivacyTarget, 'url' | 'apiKey'>,
  path: string,
): Promise<{ status: number; contentLength: number; bytes: number; hash: string; contentType: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequestRaw(`${target.url}${path}`, { headers: { 'x-api-key': target.apiKey } }, (res) => {
      const h = createHash('sha256');
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        h.update(c);
        bytes += c.length;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentLength: Number(res.headers['content-length']),
          bytes,
          hash: encodeBase58(h.digest()),
          contentType: String(res.headers['content-type']),
        }),
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

  /** A policy of the owner (its only owner; the recipients, by default the owner alone), confirmed on this node's chain; its id. */
  async createPolicy(recipients: readonly string[] = [this.target.owner.address]): Promise<string> {
    const { owner } = this.target;
    const r = await this.post('/transactions/signAndBroadcast', {
      type: 112,
      version: 3,
      sender: owner.address,
      password: owner.password,
      policyName: `e2e-${randomBytes(4).toString('hex')}`,
      description: 'privacy e2e',
      recipients,
      owners: [owner.address],
      fee: 100_000_000,
    });
    assert.equal(r.status, 200, `CreatePolicy: ${r.text}`);
    const id = String(r.json.id);
    await this.untilPolicy(id);
    return id;
  }

  /** Waits until a policy is on this node's chain. */
  async untilPolicy(policyId: string): Promise<void> {
    await until(
      `the policy ${policyId} to be confirmed`,
      async () => ((await this.get(`/privacy/${policyId}/recipients`)).status === 200 ? true : undefined),
      60_000,
      300,
    );
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
    return upload(
      this.target,
      '/privacy/sendDataV2',
      form([
        { name: 'data', content: data, filename: 'v2.bin' },
        { name: 'request', content: JSON.stringify(this.request(policyId, b58sha(data), over)) },
      ]),
    );
  }

  sendLargeData(policyId: string, hash: string, data: FormPart['content'], over: Record<string, unknown> = {}): Promise<Answer> {
    return upload(
      this.target,
      '/privacy/sendLargeData',
      form([
        { name: 'request', content: JSON.stringify(this.request(policyId, hash, over)) },
        { name: 'data', content: data, filename: 'large.bin' },
      ]),
    );
  }

  /** No PolicyDataHash of `hash` in the pool, and the item is not stored (getInfo: 617). */
  async assertNothingFrom(policyId: string, hash: string): Promise<void> {
    const pool = (await this.get('/transactions/unconfirmed')).json as Array<{ type: number; dataHash?: string }>;
    assert.deepEqual(
      pool.filter((t) => t.type === 114 && t.dataHash === hash),
      [],
      'no PolicyDataHash pooled',
    );
    const info = await this.get(`/privacy/${policyId}/getInfo/${hash}`);
    assert.equal(info.json?.error, 617, `not stored: ${info.text}`);
  }

  /** Waits until a PolicyDataHash is on chain (the policy lists its hash). */
  async untilAnchored(policyId: string, hash: string): Promise<void> {
    await until(
      `the hash ${hash} to be anchored`,
      async () => (((await this.get(`/privacy/${policyId}/hashes`)).json as string[]).includes(hash) ? true : undefined),
      60_000,
      300,
    );
  }
}
