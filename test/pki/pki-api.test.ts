/**
 * PKI over REST on a GOST dev node (in process, real chain, real miner), with a test CA made
 * by OpenSSL's GOST engine whose root is the network's trusted root:
 *
 * - TEST mode: a sender's first transaction must carry its chain (120); malformed Base64,
 *   bad DER and two chains are WE's 121; a valid chain is mined and its certificate is found
 *   by DN, DN hash, public key and fingerprint (and as text), 119 for unknown ones; the
 *   sender's next transaction needs none; a rollback of its block removes it; sendData's
 *   `certificates` are admitted the same way (a newcomer's PolicyDataHash needs its chain);
 * - `/pki/keystoreAliases`, `/pki/sign` (verified by `openssl cms`), `/pki/verify` of an
 *   OpenSSL signature, with `extendedKeyUsageList` / `extended_key_usage_list` enforced;
 *   unknown alias and wrong password (115), bad Base64 and unsupported sigType (199);
 * - ON mode: a revoked (CRL) or wrong-EKU certificate is refused; PKI-1's methods answer 199
 *   in ON and are served in TEST;
 * - `/node/config` reports the PKI settings; a WAVES node refuses `/pki/*` (PKI-2).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { dnHash, fingerprint, parseCertificate } from '../../src/crypto/pki/x509.js';
import { decodeBase64, encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import type { DevAccount } from '../../src/cli/dev.js';
import type { PkiSettings } from '../../src/pki/settings.js';
import type { Answer } from '../../devkit/http.js';
import { until } from '../../devkit/wait.js';
import { watchKeystore } from '../support/keystore-calls.js';
import { GostTestCa, type Issued } from '../../devkit/pki/openssl-gost.js';
import { startPkiNode, type PkiNode } from '../../devkit/pki/gost-node.js';

let server: Server;
let crlBytes: Map<string, Uint8Array>;
let ca: GostTestCa;

before(async () => {
  crlBytes = new Map();
  server = createServer((req, res) => {
    const body = crlBytes.get(req.url ?? '');
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200).end(Buffer.from(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  ca = GostTestCa.root('/C=RU/O=Weft Test/CN=Weft API Test Root', `${base}/root.crl`);
  crlBytes.set('/root.crl', ca.crl());
});

/** Nodes of the file, stopped when it ends (hooks inside `before` would run too early). */
const started: PkiNode[] = [];

after(async () => {
  for (const n of started) await n.stop();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  ca?.dispose();
});

async function startNode(pki: Partial<PkiSettings> | undefined, crypto: 'gost' | 'waves' = 'gost'): Promise<PkiNode> {
  const n = await startPkiNode(ca, pki, crypto);
  started.push(n);
  return n;
}

function assertError(r: Answer, status: number, code: number, message: RegExp): void {
  assert.equal(r.status, status, r.text);
  assert.equal(r.json?.error, code, r.text);
  assert.match(String(r.json.message), message);
}

describe('PKI in TEST mode on a GOST node', { timeout: 120_000 }, () => {
  let n: PkiNode;
  let sender: DevAccount;
  let userCert: Issued;
  let opensslSigner: Issued;

  before(async () => {
    n = await startNode({ mode: 'TEST' });
    sender = n.accounts[1]!;
    userCert = ca.issue({ subject: '/C=RU/O=Weft Test/CN=Account One', publicKey: sender.keyPair.publicKey, eku: ['clientAuth', 'emailProtection'] });
    opensslSigner = ca.issue({ subject: '/C=RU/O=Weft Test/CN=OpenSSL Signer', eku: ['emailProtection'] });
  });

  it('reports the PKI settings in /node/config', async () => {
    const r = await n.request('GET', '/node/config');
    assert.equal(r.json.cryptoType, 'GOST');
    assert.equal(r.json.pkiMode, 'TEST');
    assert.deepEqual(r.json.requiredOids, []);
    assert.equal(r.json.crlChecksEnabled, false);
  });

  it("refuses a sender's first transaction without certificates, and malformed certificates with WE's errors", async () => {
    const other = n.accounts[2]!;
    assertError(
      await n.request('POST', '/transactions/broadcast', n.transfer(sender, other).body),
      400,
      120,
      /first transaction must carry its certificate chain/,
    );
    assertError(
      await n.request('POST', '/transactions/broadcast', n.transfer(sender, other, ['not base64!']).body),
      400,
      121,
      /^Error while parsing a certificate: Encountered an invalid Base64/,
    );
    assertError(
      await n.request('POST', '/transactions/broadcast', n.transfer(sender, other, [encodeBase64(Buffer.from('no DER'))]).body),
      400,
      121,
      /Expected a valid X\.509 certificate in DER encoding/,
    );
    const second = ca.issue({ subject: '/C=RU/O=Weft Test/CN=Someone Else', publicKey: other.keyPair.publicKey });
    assertError(
      await n.request('POST', '/transactions/broadcast', n.transfer(sender, other, [userCert.base64, second.base64, ca.cert.base64]).body),
      400,
      121,
      /Unexpected cert chains number\. Provided: '2', expected: '1'/,
    );
    // Another account's certificate is not this sender's.
    assertError(
      await n.request('POST', '/transactions/broadcast', n.transfer(other, sender, [userCert.base64, ca.cert.base64]).body),
      400,
      120,
      new RegExp(`for the public key '${encodeBase58(other.keyPair.publicKey)}'.*holds the public key`),
    );
  });

  it('mines a transaction with a valid chain and finds its certificate by all four keys', async () => {
    const t = n.transfer(sender, n.accounts[2]!, [userCert.base64, ca.cert.base64]);
    const r = await n.request('POST', '/transactions/broadcast', t.body);
    assert.equal(r.status, 200, r.text);
    await n.mined(t.id);
    const subject = parseCertificate(userCert.der).subject.rfc2253;
    assert.equal(subject, 'CN=Account One,O=Weft Test,C=RU');
    const paths = [
      `/pki/certificate/by-dn/${encodeURIComponent(subject)}`,
      `/pki/certificate/by-dn-hash/${Buffer.from(dnHash(subject)).toString('hex')}`,
      `/pki/certificate/by-public-key/${encodeBase58(sender.keyPair.publicKey)}`,
      `/pki/certificate/by-fingerprint/${encodeURIComponent(encodeBase64(fingerprint(userCert.der)))}`,
    ];
    for (const path of paths) {
      await until(`${path} found`, async () => ((await n.request('GET', path)).status === 200 ? true : undefined), 10_000, 100);
      const found = await n.request('GET', path);
      assert.deepEqual(Buffer.from(decodeBase64(found.text)), userCert.der, path);
      const text = await n.request('GET', `${path}?plainText=true`);
      assert.match(text.text, /Subject: CN=Account One,O=Weft Test,C=RU/);
      assert.match(text.text, /TLS Web Client Authentication/);
    }
    assertError(
      await n.request('GET', `/pki/certificate/by-public-key/${encodeBase58(n.accounts[3]!.keyPair.publicKey)}`),
      404,
      119,
      /^Couldn't find a certificate with public key '/,
    );
    assertError(await n.request('GET', '/pki/certificate/by-dn/CN%3DNobody'), 404, 119, /^Couldn't find a certificate with DN 'CN=Nobody'$/);
    // Now that the network holds its certificate, the sender needs to send none.
    const next = n.transfer(sender, n.accounts[2]!);
    assert.equal((await n.request('POST', '/transactions/broadcast', next.body)).status, 200);
  });

  it('signs CAdES-BES with a keystore key (checked by openssl cms) and verifies OpenSSL signatures with the EKUs asked for', async () => {
    const aliases = await n.request('GET', '/pki/keystoreAliases');
    assert.deepEqual(
      aliases.json,
      n.accounts.map((a) => a.address),
    );
    const data = Buffer.from('the contract text');
    // The certificate of account 1 is on the chain (previous test).
    await until(
      'account 1 certified',
      async () => ((await n.request('GET', `/pki/certificate/by-public-key/${encodeBase58(sender.keyPair.publicKey)}`)).status === 200 ? true : undefined),
      10_000,
      100,
    );
    const signed = await n.request('POST', '/pki/sign', {
      inputData: encodeBase64(data),
      keystoreAlias: sender.address,
      password: sender.keystorePassword,
      sigType: 1,
    });
    assert.equal(signed.status, 200, signed.text);
    const signature = Buffer.from(decodeBase64(signed.json.signature as string));
    assert.deepEqual(ca.cmsVerify(signature, data, [ca.cert.pemFile]), { ok: true });
    const verify = (body: Record<string, unknown>) => n.request('POST', '/pki/verify', { inputData: encodeBase64(data), sigType: 1, ...body });
    assert.deepEqual((await verify({ signature: signed.json.signature })).json, { sigStatus: true });

    const theirs = encodeBase64(ca.cmsSign(data, opensslSigner));
    assert.deepEqual((await verify({ signature: theirs })).json, { sigStatus: true });
    assert.deepEqual((await verify({ signature: theirs, extendedKeyUsageList: ['1.3.6.1.5.5.7.3.4'] })).json, { sigStatus: true });
    assert.deepEqual((await verify({ signature: theirs, extendedKeyUsageList: ['clientAuth'] })).json, { sigStatus: false });
    assert.deepEqual((await verify({ signature: theirs, extended_key_usage_list: ['1.3.6.1.5.5.7.3.2'] })).json, { sigStatus: false });
    assert.deepEqual((await n.request('POST', '/pki/verify', { inputData: encodeBase64(Buffer.from('other')), signature: theirs, sigType: 1 })).json, {
      sigStatus: false,
    });
    // sigType by name, as the specification's own sample sends it.
    const byName = await n.request('POST', '/pki/sign', {
      inputData: encodeBase64(data),
      keystoreAlias: sender.address,
      password: sender.keystorePassword,
      sigType: 'CAdES_BES',
    });
    assert.equal(byName.status, 200, byName.text);
    assert.deepEqual((await verify({ signature: byName.json.signature, sigType: 'CADES_BES' })).json, { sigStatus: true });
    assertError(await verify({ signature: theirs, sigType: 'CAdES_T' }), 400, 199, /sigType 3 \(CAdES-T\) is not supported/);
    assertError(await verify({ signature: theirs, sigType: 'PKCS7' }), 400, 199, /Unknown sigType 'PKCS7'\. Possible values: 1 or CAdES_BES/);

    assertError(
      await n.request('POST', '/pki/sign', { inputData: encodeBase64(data), keystoreAlias: sender.address, password: 'wrong', sigType: 1 }),
      400,
      115,
      /no private key/,
    );
    assertError(
      await n.request('POST', '/pki/sign', { inputData: encodeBase64(data), keystoreAlias: 'nobody', password: '', sigType: 1 }),
      400,
      115,
      /no private key/,
    );
    assertError(
      await n.request('POST', '/pki/sign', { inputData: '%%%', keystoreAlias: sender.address, password: sender.keystorePassword, sigType: 1 }),
      400,
      199,
      /Invalid Base64 in 'inputData'/,
    );
    assertError(
      await n.request('POST', '/pki/sign', { inputData: encodeBase64(data), keystoreAlias: sender.address, password: sender.keystorePassword, sigType: 3 }),
      400,
      199,
      /sigType 3 \(CAdES-T\) is not supported/,
    );
    assertError(
      await n.request('POST', '/pki/sign', {
        inputData: encodeBase64(data),
        keystoreAlias: n.accounts[4]!.address,
        password: n.accounts[4]!.keystorePassword,
        sigType: 1,
      }),
      404,
      119,
      /public key/,
    );
    assertError(await verify({ signature: encodeBase64(Buffer.from('not cms')) }), 400, 199, /Invalid signature: not a DER CMS signature/);
    assertError(await verify({ signature: theirs, extendedKeyUsageList: ['no oid'] }), 400, 199, /'no oid' in extendedKeyUsageList/);
  });

  it('serves the PKI-1 methods in TEST mode', async () => {
    const fast = await n.request('POST', '/utils/hash/fast', 'x');
    assert.equal(fast.status, 200, fast.text);
    for (const path of [`/addresses/sign/${sender.address}`, `/addresses/signText/${sender.address}`]) {
      const r = await n.request('POST', path, { message: 'x', password: sender.keystorePassword });
      assert.equal(r.status, 200, `${path}: ${r.text}`);
    }
    const signed = await n.request('POST', '/pki/sign', { inputData: 'AA==', keystoreAlias: sender.address, password: sender.keystorePassword, sigType: 1 });
    assert.equal(signed.status, 200, signed.text);
  });

  it("takes a sendData's certificates as a broadcast's: a newcomer's PolicyDataHash needs its chain, which is stored when mined", async () => {
    const owner = n.accounts[1]!;
    const newcomer = n.accounts[3]!;
    const policy = await n.request('POST', '/transactions/signAndBroadcast', {
      type: 112,
      version: 3,
      sender: owner.address,
      password: owner.keystorePassword,
      policyName: 'pki policy',
      description: 'certificates on sendData',
      recipients: [owner.address, newcomer.address],
      owners: [owner.address],
      fee: 100_000_000,
    });
    assert.equal(policy.status, 200, policy.text);
    const policyId = String(policy.json.id);
    await n.mined(policyId);
    const data = Buffer.from('confidential, certified');
    const sendData = (certificates?: readonly string[]) =>
      n.request('POST', '/privacy/sendData', {
        version: 3,
        sender: newcomer.address,
        password: newcomer.keystorePassword,
        policyId,
        hash: encodeBase58(createHash('sha256').update(data).digest()),
        info: { filename: 'c.txt', size: data.length, timestamp: 1_711_357_000_000, author: 'pki', comment: '' },
        fee: 5_000_000,
        data: data.toString('base64'),
        ...(certificates === undefined ? {} : { certificates }),
      });
    assertError(await sendData(), 400, 120, /first transaction must carry its certificate chain/);
    const issued = ca.issue({ subject: '/C=RU/O=Weft Test/CN=Policy Member', publicKey: newcomer.keyPair.publicKey });
    assertError(await sendData(['%%%']), 400, 121, /invalid Base64/);
    const sent = await sendData([issued.base64, ca.cert.base64]);
    assert.equal(sent.status, 200, sent.text);
    await n.mined(String(sent.json.id));
    const found = await n.request('GET', `/pki/certificate/by-public-key/${encodeBase58(newcomer.keyPair.publicKey)}`);
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(Buffer.from(decodeBase64(found.text)), issued.der);
  });

  it('loses a certificate when the block that stored it is rolled back', async () => {
    const holder = n.accounts[4]!;
    const issued = ca.issue({ subject: '/C=RU/O=Weft Test/CN=Rolled Back', publicKey: holder.keyPair.publicKey });
    const t = n.transfer(holder, n.accounts[2]!, [issued.base64, ca.cert.base64]);
    assert.equal((await n.request('POST', '/transactions/broadcast', t.body)).status, 200);
    await n.mined(t.id);
    const info = await n.request('GET', `/transactions/info/${t.id}`);
    const height = Number(info.json.height);
    const lookups = [
      `/pki/certificate/by-dn/${encodeURIComponent('CN=Rolled Back,O=Weft Test,C=RU')}`,
      `/pki/certificate/by-public-key/${encodeBase58(holder.keyPair.publicKey)}`,
      `/pki/certificate/by-fingerprint/${encodeURIComponent(encodeBase64(fingerprint(issued.der)))}`,
    ];
    for (const path of lookups) assert.equal((await n.request('GET', path)).status, 200, path);
    const rolled = await n.request('POST', '/debug/rollback', { rollbackTo: height - 1, returnTransactionsToUtx: false });
    assert.equal(rolled.status, 200, rolled.text);
    for (const path of lookups) assertError(await n.request('GET', path), 404, 119, /^Couldn't find a certificate with /);
    // The root came with the chain too, but the network holds it in its genesis: still found.
    assert.equal((await n.request('GET', `/pki/certificate/by-fingerprint/${encodeURIComponent(encodeBase64(fingerprint(ca.cert.der)))}`)).status, 200);
  });

  it("unlocks /pki/sign keys off the event loop under the signing routes' failed-unlock limit", async () => {
    // Account 2 only ever receives here: it has no certificate.
    const holder = n.accounts[2]!;
    const watch = watchKeystore(n.node.keystore);
    try {
      const sign = (password: string) => n.request('POST', '/pki/sign', { inputData: 'AA==', keystoreAlias: holder.address, password, sigType: 1 });
      // The right password unlocks the key (which has no certificate: 119).
      assertError(await sign(holder.keystorePassword), 404, 119, /public key/);
      for (let i = 0; i < 5; i++) assertError(await sign(`wrong-${i}`), 400, 115, /no private key/);
      assertError(await sign('wrong-5'), 429, 115, /too many wrong passwords/);
      // One limit for every route that takes the password.
      assertError(
        await n.request('POST', `/addresses/signText/${holder.address}`, { message: 'x', password: 'wrong-6' }),
        429,
        115,
        /too many wrong passwords/,
      );
      assertError(await sign(holder.keystorePassword), 404, 119, /public key/);
      assert.equal(watch.calls.keyPair, 0, 'no password was derived on the event loop');
      assert.ok(watch.calls.unlock >= 8);
    } finally {
      watch.restore();
    }
  });
});

describe('PKI in ON mode on a GOST node', { timeout: 120_000 }, () => {
  let n: PkiNode;
  before(async () => {
    n = await startNode({ mode: 'ON', crlChecksEnabled: true, requiredOids: ['1.3.6.1.5.5.7.3.2'] });
  });

  it('refuses a revoked or wrong-EKU certificate and accepts a good one', async () => {
    const [, a1, a2, a3] = n.accounts as [DevAccount, DevAccount, DevAccount, DevAccount];
    const good = ca.issue({ subject: '/C=RU/O=Weft Test/CN=Good User', publicKey: a1.keyPair.publicKey, eku: ['clientAuth'] });
    const noClientAuth = ca.issue({ subject: '/C=RU/O=Weft Test/CN=Mail Only User', publicKey: a2.keyPair.publicKey, eku: ['emailProtection'] });
    const revoked = ca.issue({ subject: '/C=RU/O=Weft Test/CN=Revoked User', publicKey: a3.keyPair.publicKey, eku: ['clientAuth'] });
    ca.revoke(revoked);
    crlBytes.set('/root.crl', ca.crl());
    assertError(
      await n.request('POST', '/transactions/broadcast', n.transfer(a2, a1, [noClientAuth.base64]).body),
      400,
      120,
      /lacks the extended key usage 1\.3\.6\.1\.5\.5\.7\.3\.2/,
    );
    assertError(await n.request('POST', '/transactions/broadcast', n.transfer(a3, a1, [revoked.base64]).body), 400, 120, /was revoked at/);
    const t = n.transfer(a1, a2, [good.base64]);
    const r = await n.request('POST', '/transactions/broadcast', t.body);
    assert.equal(r.status, 200, r.text);
    await n.mined(t.id);
  });

  it("refuses PKI-1's methods with one documented error", async () => {
    const a1 = n.accounts[1]!;
    for (const [path, body] of [
      ['/utils/hash/fast', 'x'],
      [`/addresses/sign/${a1.address}`, 'x'],
      [`/addresses/signText/${a1.address}`, 'x'],
      ['/pki/sign', { inputData: 'AA==', keystoreAlias: a1.address, password: a1.keystorePassword, sigType: 1 }],
    ] as const) {
      assertError(await n.request('POST', path, body), 400, 199, /^This method is not available when 'node\.crypto\.pki\.mode' is 'ON'$/);
    }
    const config = await n.request('GET', '/node/config');
    assert.equal(config.json.pkiMode, 'ON');
    assert.deepEqual(config.json.requiredOids, ['1.3.6.1.5.5.7.3.2']);
    assert.equal(config.json.crlChecksEnabled, true);
  });
});

describe('PKI on a WAVES node (rule PKI-2)', { timeout: 60_000 }, () => {
  it('answers every /pki route with 199: GOST networks only', async () => {
    const n = await startNode(undefined, 'waves');
    assertError(await n.request('GET', '/pki/keystoreAliases'), 400, 199, /available only on GOST networks/);
    assertError(await n.request('GET', '/pki/certificate/by-dn/CN%3Dx'), 400, 199, /available only on GOST networks/);
  });
});
