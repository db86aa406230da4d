/**
 * PkiPublicService driven by the official generated client
 * (`@wavesenterprise/js-contract-grpc-client/pki/pki_public_service`) on the gRPC port of a
 * real GOST node in PKI TEST mode whose network trusts an OpenSSL GOST test CA
 * (devkit/pki/gost-node.ts): an account's certificate, mined with its first transfer, and the
 * genesis root are found by DN, DN hash, public key and fingerprint — the DER bytes REST's
 * `/pki/certificate/*` answers in Base64; unknown and malformed keys are REST's NOT_FOUND
 * 119 with REST's message; the service is open under API-key auth and asks OAuth2 for a
 * token; a WAVES node does not serve it (UNIMPLEMENTED).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { PkiPublicServiceClient } from '@wavesenterprise/js-contract-grpc-client/pki/pki_public_service.js';
import { generateKeyPairSync } from 'node:crypto';
import { grpcAuthorizer } from '../../src/api/grpc/auth.js';
import { pkiPublicService } from '../../src/api/grpc/pki-service.js';
import { grpcErrorOf } from '../../src/contracts/grpc/server.js';
import { decodeBase64, encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import { dnHash, fingerprint, parseCertificate } from '../../src/crypto/pki/x509.js';
import type { DevAccount } from '../../src/cli/dev.js';
import { startPkiNode, type PkiNode } from '../../devkit/pki/gost-node.js';
import { GostTestCa, type Issued } from '../../devkit/pki/openssl-gost.js';
import { call, refusal, servePublicGrpc, type PublicGrpcServer } from './grpc-public.js';

const insecure = grpc.credentials.createInsecure();

let ca: GostTestCa;
let n: PkiNode;
let client: PkiPublicServiceClient;
let holder: DevAccount;
let issued: Issued;

before(async () => {
  // TEST mode checks no CRL: the distribution point is never fetched.
  ca = GostTestCa.root('/C=RU/O=Weft Test/CN=Weft gRPC Test Root', 'http://127.0.0.1:9/root.crl');
  n = await startPkiNode(ca, { mode: 'TEST' });
  holder = n.accounts[1]!;
  issued = ca.issue({ subject: '/C=RU/O=Weft Test/CN=gRPC Holder', publicKey: holder.keyPair.publicKey, eku: ['clientAuth'] });
  const t = n.transfer(holder, n.accounts[2]!, [issued.base64, ca.cert.base64]);
  const r = await n.request('POST', '/transactions/broadcast', t.body);
  assert.equal(r.status, 200, r.text);
  await n.mined(t.id);
  assert.notEqual(n.node.grpcPort, undefined, 'the node opens its gRPC port');
  client = new PkiPublicServiceClient(`127.0.0.1:${n.node.grpcPort}`, insecure);
});

after(async () => {
  client?.close();
  await n?.stop();
  ca?.dispose();
});

/** The four lookups of one certificate, as gRPC requests and as REST paths. */
function lookups(der: Uint8Array, publicKey: Uint8Array) {
  const subject = parseCertificate(der).subject.rfc2253;
  const hash = Buffer.from(dnHash(subject)).toString('hex');
  const print = encodeBase64(fingerprint(der));
  const key = encodeBase58(publicKey);
  return [
    { name: 'GetCertificateByDn', grpc: () => call(client.getCertificateByDn.bind(client), { dn: subject }), rest: `by-dn/${encodeURIComponent(subject)}` },
    { name: 'GetCertificateByDnHash', grpc: () => call(client.getCertificateByDnHash.bind(client), { dnHash: hash }), rest: `by-dn-hash/${hash}` },
    {
      name: 'GetCertificateByPublicKey',
      grpc: () => call(client.getCertificateByPublicKey.bind(client), { publicKeyBase58: key }),
      rest: `by-public-key/${key}`,
    },
    {
      name: 'GetCertificateByFingerprint',
      grpc: () => call(client.getCertificateByFingerprint.bind(client), { fingerprintBase64: print }),
      rest: `by-fingerprint/${encodeURIComponent(print)}`,
    },
  ];
}

describe('PkiPublicService on a GOST node', { timeout: 120_000 }, () => {
  it("answers a mined certificate by all four keys: REST's certificate, as DER bytes", async () => {
    for (const lookup of lookups(issued.der, holder.keyPair.publicKey)) {
      const answer = await lookup.grpc();
      const rest = await n.request('GET', `/pki/certificate/${lookup.rest}`);
      assert.equal(rest.status, 200, `${lookup.name}: ${rest.text}`);
      assert.deepEqual(Buffer.from(answer.certificate), Buffer.from(decodeBase64(rest.text)), lookup.name);
      assert.deepEqual(Buffer.from(answer.certificate), issued.der, lookup.name);
    }
  });

  it('answers the genesis root by all four keys', async () => {
    const root = parseCertificate(ca.cert.der);
    for (const lookup of lookups(ca.cert.der, root.publicKey.bytes)) {
      const answer = await lookup.grpc();
      const rest = await n.request('GET', `/pki/certificate/${lookup.rest}`);
      assert.deepEqual(Buffer.from(answer.certificate), Buffer.from(decodeBase64(rest.text)), lookup.name);
      assert.deepEqual(Buffer.from(answer.certificate), ca.cert.der, lookup.name);
    }
  });

  it("answers an unknown or malformed key with REST's NOT_FOUND 119 and its message", async () => {
    const stranger = encodeBase58(n.accounts[3]!.keyPair.publicKey);
    const cases = [
      { grpc: () => call(client.getCertificateByDn.bind(client), { dn: 'CN=Nobody' }), rest: 'by-dn/CN%3DNobody' },
      { grpc: () => call(client.getCertificateByDnHash.bind(client), { dnHash: 'ab'.repeat(20) }), rest: `by-dn-hash/${'ab'.repeat(20)}` },
      { grpc: () => call(client.getCertificateByDnHash.bind(client), { dnHash: 'not hex' }), rest: 'by-dn-hash/not%20hex' },
      { grpc: () => call(client.getCertificateByPublicKey.bind(client), { publicKeyBase58: stranger }), rest: `by-public-key/${stranger}` },
      { grpc: () => call(client.getCertificateByPublicKey.bind(client), { publicKeyBase58: '0OIl' }), rest: 'by-public-key/0OIl' },
      {
        grpc: () => call(client.getCertificateByFingerprint.bind(client), { fingerprintBase64: encodeBase64(new Uint8Array(20)) }),
        rest: `by-fingerprint/${encodeURIComponent(encodeBase64(new Uint8Array(20)))}`,
      },
      { grpc: () => call(client.getCertificateByFingerprint.bind(client), { fingerprintBase64: '%%%' }), rest: 'by-fingerprint/%25%25%25' },
    ];
    for (const c of cases) {
      const rest = await n.request('GET', `/pki/certificate/${c.rest}`);
      assert.equal(rest.status, 404, `${c.rest}: ${rest.text}`);
      assert.equal(rest.json.error, 119, c.rest);
      assert.deepEqual(await refusal(c.grpc()), { code: grpc.status.NOT_FOUND, errorCode: '119', message: rest.json.message }, c.rest);
    }
    // An empty request (every field at its default) is a lookup of the empty key.
    assert.deepEqual(await refusal(call(client.getCertificateByDn.bind(client), { dn: '' })), {
      code: grpc.status.NOT_FOUND,
      errorCode: '119',
      message: "Couldn't find a certificate with DN ''",
    });
  });

  it("asks WE's OAuth2 for a token (UNAUTHENTICATED 618 without one) before any lookup", async () => {
    const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const authorize = grpcAuthorizer(
      { type: 'oauth2', publicKeyPem: keys.publicKey.export({ format: 'pem', type: 'spki' }).toString() },
      n.p,
      holder.keyPair.publicKey,
      () => BigInt(Date.now()),
    );
    const services = n.node.services();
    const server: PublicGrpcServer = await servePublicGrpc([pkiPublicService({ services, authorize, errorOf: grpcErrorOf }, services.pki!)]);
    const oauthClient = new PkiPublicServiceClient(server.address, insecure);
    try {
      const refused = await refusal(call(oauthClient.getCertificateByPublicKey.bind(oauthClient), { publicKeyBase58: encodeBase58(holder.keyPair.publicKey) }));
      assert.equal(refused.code, grpc.status.UNAUTHENTICATED);
      assert.equal(refused.errorCode, '618');
    } finally {
      oauthClient.close();
      await server.close();
    }
  });
});

describe('PkiPublicService on a WAVES node', { timeout: 60_000 }, () => {
  it('is not served (UNIMPLEMENTED), as the REST routes answer 199 there', async () => {
    const waves = await startPkiNode(ca, undefined, 'waves');
    const wavesClient = new PkiPublicServiceClient(`127.0.0.1:${waves.node.grpcPort}`, insecure);
    try {
      const refused = await refusal(call(wavesClient.getCertificateByDn.bind(wavesClient), { dn: 'CN=x' }));
      assert.equal(refused.code, grpc.status.UNIMPLEMENTED);
      assert.equal((await waves.request('GET', '/pki/certificate/by-dn/CN%3Dx')).json.error, 199);
    } finally {
      wavesClient.close();
      await waves.stop();
    }
  });
});
