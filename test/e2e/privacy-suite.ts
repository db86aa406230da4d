/**
 * The suite every storage runs against a node process (embedded, PostgreSQL, S3): send via
 * all three routes and read back byte-identical; each bad input of the send routes answered with
 * WE's code and text, with nothing stored, no PolicyDataHash pooled, and the node still
 * serving. The HTTP client is devkit/privacy-client.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { it } from 'node:test';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { httpRequest, type Answer } from '../../devkit/http.js';
import { form, generatedData } from '../../devkit/multipart.js';
import { b58sha, download, hashOfSource, PrivacyClient, upload, type PrivacyAccount, type PrivacyTarget } from '../../devkit/privacy-client.js';

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
    assert.deepEqual(info.json, {
      sender: client.target.owner.address,
      policy: policyId,
      info: { filename: 'e2e.bin', size: 1, timestamp: 1_711_357_000_000, author: 'e2e', comment: 'отчёт' },
      hash: largeHash,
    });
    for (const hash of [b58sha(small), b58sha(v2), largeHash]) await client.untilAnchored(policyId, hash);
  });

  it("answers each bad input with WE's code and text; nothing is stored, no PolicyDataHash goes out, the node keeps serving", async () => {
    const { other } = client.target;
    const data = randomBytes(2000);
    const hash = b58sha(data);
    const b64 = data.toString('base64');
    const json = (over: Record<string, unknown>, sender?: PrivacyAccount) => ({ ...client.request(policyId, hash, over, sender), data: b64 });
    // Wrong hash (JSON, multipart, streamed).
    expectAnswer(
      await client.post('/privacy/sendData', json({ hash: b58sha(randomBytes(5)) })),
      400,
      199,
      /^Invalid data hash\. Actual '\w+', expected '\w+'$/,
      'sendData wrong hash',
    );
    expectAnswer(await client.sendDataV2(policyId, data, { hash: b58sha(randomBytes(5)) }), 400, 199, /^Invalid data hash/, 'sendDataV2 wrong hash');
    expectAnswer(await client.sendLargeData(policyId, b58sha(randomBytes(5)), data), 400, 199, /^Invalid data hash/, 'sendLargeData wrong hash');
    // Wrong password.
    expectAnswer(
      await client.post('/privacy/sendData', json({ password: 'not the password' })),
      400,
      199,
      /^Failed to get senders private key, maybe password is wrong: 'Some\(\*\*\*\)'/,
      'wrong password',
    );
    // A sender outside the policy's recipients.
    expectAnswer(
      await client.post('/privacy/sendData', json({}, other)),
      400,
      199,
      `Sender '${other.address}' is not in policy recipients`,
      'non-member sender',
    );
    // An unknown policy.
    const unknown = encodeBase58(randomBytes(32));
    expectAnswer(
      await client.post('/privacy/sendData', json({ policyId: unknown })),
      400,
      612,
      `The requested policy ${unknown} does not exist`,
      'unknown policy',
    );
    // A multipart body cut short.
    const whole = form([
      { name: 'request', content: JSON.stringify(client.request(policyId, hash)) },
      { name: 'data', content: data },
    ]);
    const cut = (await whole.buffer()).subarray(0, whole.length - 500);
    const truncated = await upload(client.target, '/privacy/sendLargeData', {
      contentType: whole.contentType,
      length: cut.length,
      stream: () => Readable.from([cut]),
    });
    expectAnswer(truncated, 400, 199, /^The multipart body is malformed: /, 'truncated multipart');
    // Parts out of order.
    const outOfOrder = form([
      { name: 'data', content: data },
      { name: 'request', content: JSON.stringify(client.request(policyId, hash)) },
    ]);
    expectAnswer(
      await upload(client.target, '/privacy/sendLargeData', outOfOrder),
      400,
      199,
      "'request' part must be in the head of the Multipart, got 'data'",
      'parts out of order',
    );
    // A JSON body over 28 MiB.
    const huge = Buffer.from(JSON.stringify({ ...client.request(policyId, hash), data: 'A'.repeat(28 * 1024 * 1024) }));
    const oversize = await upload(client.target, '/privacy/sendData', {
      contentType: 'application/json',
      length: huge.length,
      stream: () => Readable.from([huge]),
    });
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
