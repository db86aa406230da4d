/**
 * GOST PKI below the REST layer, against an independent PKI made by OpenSSL's GOST engine:
 * certificate parsing and WE's keys (RFC 2253 DN as Java prints it, DN hash, fingerprint,
 * public key), chain building, the P2P cert-chain codec, the certificate families of the state store, chain
 * validation (trusted roots, intermediates, EKUs, CRLs fetched from the distribution point,
 * validity), and CAdES-BES signatures checked by `openssl cms` both ways.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createGostSuite, createStreebog256 } from '../../src/crypto/gost.js';
import { buildCertificateChain, CertificateChainError, parseCertificatesBase64 } from '../../src/crypto/pki/chain.js';
import { createDetachedCadesBes, parseSignedData, verifyDetached } from '../../src/crypto/pki/cms.js';
import { CertificateFormatError, dnHash, fingerprint, GostVerifiers, parseCertificate, signedBy, type Certificate } from '../../src/crypto/pki/x509.js';
import type { CryptoSuite, KeyPair } from '../../src/crypto/suite.js';
import { decodeCertChainStore, decodeWithCertificates, encodeWithCertificates, CertChainCodecError } from '../../src/network/cert-chain-codec.js';
import { storedCertificate } from '../../src/chain/carried-certificates.js';
import { CertificateStore } from '../../src/pki/certificate-store.js';
import { PkiService } from '../../src/pki/pki-service.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { Store } from '../../src/state/store.js';
import { MutableState } from '../../src/state/view.js';
import { CrlSource } from '../../src/pki/crl-source.js';
import { PKI_OFF, type PkiSettings } from '../../src/pki/settings.js';
import { ChainValidator } from '../../src/pki/validation.js';
import { tempDir } from '../../devkit/tmp.js';
import { admitBlockCertificates } from '../../src/network/block-certificates.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { GostTestCa, openssl, type Issued } from '../../devkit/pki/openssl-gost.js';

let suite: CryptoSuite;
let server: Server;
let crlBytes: Map<string, Uint8Array>;
let base: string;
let root: GostTestCa;
let intermediate: GostTestCa;
let user: KeyPair;
let userCert: Issued;
let otherUser: KeyPair;
let otherCert: Issued;
let opensslUser: Issued;

const cert = (i: Issued): Certificate => parseCertificate(i.der);
const digest = createStreebog256();

before(async () => {
  suite = await createGostSuite();
  crlBytes = new Map();
  server = createServer((req, res) => {
    const body = crlBytes.get(req.url ?? '');
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/pkix-crl' }).end(Buffer.from(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  root = GostTestCa.root('/C=RU/O=Weft Test/CN=Weft Test Root', `${base}/root.crl`);
  intermediate = root.intermediate('/C=RU/O=Weft Test/OU=Issuing/CN=Weft Test Issuing CA', `${base}/issuing.crl`);
  user = suite.keyPairFromSeedPhrase('pki test user');
  otherUser = suite.keyPairFromSeedPhrase('pki test other user');
  userCert = intermediate.issue({
    subject: '/C=RU/O=Weft Test/CN=User, One+UID=u1/emailAddress=one@example.com',
    publicKey: user.publicKey,
    eku: ['clientAuth', 'emailProtection'],
  });
  otherCert = intermediate.issue({ subject: '/C=RU/O=Weft Test/CN=User Two', publicKey: otherUser.publicKey, eku: ['emailProtection'] });
  opensslUser = intermediate.issue({ subject: '/C=RU/O=Weft Test/CN=OpenSSL Signer', eku: ['clientAuth'] });
  crlBytes.set('/root.crl', root.crl());
  crlBytes.set('/issuing.crl', intermediate.crl());
});

after(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  root?.dispose();
  intermediate?.dispose();
});

function settings(o: Partial<PkiSettings> = {}): PkiSettings {
  return {
    ...PKI_OFF,
    mode: 'TEST',
    ...o,
    genesis: { trustedRootFingerprints: [fingerprint(root.cert.der)], certificates: [], crls: [], ...o.genesis },
  };
}

/**
 * The certificate families of a real state store (no blocks: each height commits only the
 * certificates given), read through PKI's CertificateStore.
 */
async function stateCertificates(): Promise<{
  certs: CertificateStore;
  commit: (height: number, certificates: readonly Certificate[]) => void;
  rollbackTo: (height: number) => void;
  close: () => Promise<void>;
}> {
  const state = Store.open(tempDir('weft-certs-'), await Protocol.create({ crypto: 'gost', chainId: 'T'.charCodeAt(0) }));
  return {
    certs: new CertificateStore(state),
    commit: (height, certificates) => {
      while (state.height() < height) {
        const h = state.height() + 1;
        state.commit({
          height: h,
          blockIds: [],
          changes: new MutableState(state, h).changes(),
          certificates: h === height ? certificates.map(storedCertificate) : [],
        });
      }
    },
    rollbackTo: (height) => void state.rollbackTo(height),
    close: () => state.close(),
  };
}

function validator(s: PkiSettings, store: CertificateStore, now = (): bigint => BigInt(Date.now())): ChainValidator {
  const verifiers = new GostVerifiers();
  return new ChainValidator({ settings: s, store, crls: new CrlSource({ genesisCrls: s.genesis.crls, syncPeriodMs: 1000, verifiers, now }), verifiers, now });
}

describe('GOST X.509 certificates', () => {
  it('are read with the keys WE stores them under: Java RFC 2253 DN, its SHA-1, the SHA-1 fingerprint, the 64-byte account key', () => {
    const c = cert(userCert);
    // Java's X500Principal.getName(): RDNs last first, a multi-valued RDN joined by '+', ',' escaped, other attributes as OID=#hex.
    assert.equal(c.subject.rfc2253, '1.2.840.113549.1.9.1=#160f6f6e65406578616d706c652e636f6d,CN=User\\, One+UID=u1,O=Weft Test,C=RU');
    assert.equal(c.issuer.rfc2253, 'CN=Weft Test Issuing CA,OU=Issuing,O=Weft Test,C=RU');
    // OpenSSL agrees on names without other attributes.
    const printed = openssl(['x509', '-in', intermediate.cert.pemFile, '-noout', '-subject', '-nameopt', 'RFC2253'], root.dir).toString().trim();
    assert.equal(printed, `subject=${cert(intermediate.cert).subject.rfc2253}`);
    assert.deepEqual(dnHash(c.subject.rfc2253), new Uint8Array(createHash('sha1').update(c.subject.rfc2253, 'utf8').digest()));
    assert.deepEqual(fingerprint(c.der), new Uint8Array(createHash('sha1').update(userCert.der).digest()));
    assert.deepEqual(c.publicKey.bytes, user.publicKey);
    assert.deepEqual(c.extendedKeyUsage, ['1.3.6.1.5.5.7.3.2', '1.3.6.1.5.5.7.3.4']);
    assert.deepEqual(c.crlDistributionPoints, [`${base}/issuing.crl`]);
    assert.equal(c.ca, false);
    assert.ok(signedBy(c, cert(intermediate.cert).publicKey, new GostVerifiers()));
    assert.ok(!signedBy(c, cert(root.cert).publicKey, new GostVerifiers()));
  });

  it('refuse what is not a GOST DER certificate, saying why, and never make one up', () => {
    const bad: Array<[Uint8Array, RegExp]> = [
      [new Uint8Array(0), /truncated/],
      [Buffer.from('not a certificate at all'), /not a DER X.509 certificate/],
      [userCert.der.subarray(0, userCert.der.length - 10), /claims \d+ content bytes/],
      [Buffer.concat([userCert.der, Buffer.of(0)]), /1 bytes follow/],
    ];
    for (const [der, message] of bad)
      assert.throws(
        () => parseCertificate(der),
        (e: unknown) => e instanceof CertificateFormatError && message.test(e.message),
      );
    const dir = tempDir('weft-rsa-');
    openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'k.pem', '-subj', '/CN=rsa', '-outform', 'DER', '-out', 'rsa.der', '-days', '1'], dir);
    assert.throws(
      () => parseCertificate(Buffer.from(openssl(['x509', '-inform', 'DER', '-in', 'rsa.der', '-outform', 'DER'], dir))),
      /1\.2\.840\.113549\.1\.1\.1 is not GOST R 34\.10-2012 256-bit/,
    );
  });
});

describe('the certificates of a transaction', () => {
  it('form exactly one chain, user first, whatever their order', () => {
    const chain = buildCertificateChain(parseCertificatesBase64([root.cert.base64, userCert.base64, intermediate.cert.base64]));
    assert.deepEqual(
      chain.certificates.map((c) => c.subject.rfc2253),
      [cert(userCert).subject.rfc2253, cert(intermediate.cert).subject.rfc2253, cert(root.cert).subject.rfc2253],
    );
    assert.throws(
      () => buildCertificateChain(parseCertificatesBase64([userCert.base64, otherCert.base64, intermediate.cert.base64])),
      /Unexpected cert chains number\. Provided: '2', expected: '1'/,
    );
    assert.throws(
      () => parseCertificatesBase64(['@@@']),
      (e: unknown) => e instanceof CertificateChainError && /Encountered an invalid Base64/.test(e.message),
    );
    assert.throws(() => parseCertificatesBase64([Buffer.from('garbage').toString('base64')]), /Expected a valid X\.509 certificate in DER encoding/);
  });

  it("travel between nodes in WE's cert-chain store layout (message 46)", () => {
    const certs = [cert(userCert), cert(intermediate.cert)];
    const tx = Buffer.from('transaction bytes');
    const bytes = Buffer.from(encodeWithCertificates(tx, certs));
    assert.equal(bytes.readInt32BE(0), tx.length);
    assert.equal(bytes.readInt32BE(4 + tx.length + 4), 2, 'count');
    assert.equal(bytes.readUInt16BE(4 + tx.length + 8), userCert.der.length, 'first certificate length');
    const back = decodeWithCertificates(bytes);
    assert.deepEqual(Buffer.from(back.payload), tx);
    assert.deepEqual(
      back.certificates.map((c) => Buffer.from(c.der)),
      [userCert.der, intermediate.cert.der],
    );
    assert.equal(back.end, bytes.length);
    assert.equal(decodeCertChainStore(Buffer.from([0, 0, 0, 0])).certificates.length, 0);
    assert.throws(() => decodeWithCertificates(bytes.subarray(0, bytes.length - 3)), CertChainCodecError);
  });
});

describe('the certificate families of the state store', () => {
  it('find a stored certificate by DN, DN hash, public key and fingerprint; keep the first per DN; roll back with their height', async () => {
    const { certs, commit, rollbackTo, close } = await stateCertificates();
    const c = cert(userCert);
    commit(5, [c, cert(intermediate.cert)]);
    for (const found of [
      certs.byDn(c.subject.rfc2253),
      certs.byDnHash(dnHash(c.subject.rfc2253)),
      certs.byPublicKey(user.publicKey),
      certs.byFingerprint(fingerprint(c.der)),
    ]) {
      assert.deepEqual(Buffer.from(found!.der), userCert.der);
    }
    // Another certificate for a DN already stored is not stored (WE keeps the first).
    const again = intermediate.issue({ subject: '/C=RU/O=Weft Test/CN=User, One+UID=u1/emailAddress=one@example.com', publicKey: otherUser.publicKey });
    commit(6, [cert(again)]);
    assert.deepEqual(Buffer.from(certs.byDn(c.subject.rfc2253)!.der), userCert.der);
    assert.equal(certs.byPublicKey(otherUser.publicKey), undefined);
    commit(7, [cert(otherCert)]);
    assert.ok(certs.byPublicKey(otherUser.publicKey) !== undefined);
    rollbackTo(6);
    assert.equal(certs.byPublicKey(otherUser.publicKey), undefined);
    assert.ok(certs.byPublicKey(user.publicKey) !== undefined);
    rollbackTo(4);
    assert.equal(certs.byDn(c.subject.rfc2253), undefined);
    assert.equal(certs.byFingerprint(fingerprint(c.der)), undefined);
    assert.equal(certs.byDn(cert(intermediate.cert).subject.rfc2253), undefined);
    await close();
  });
});

describe('chain validation (PKI TEST/ON)', () => {
  const chainOf = (...issued: Issued[]) => buildCertificateChain(issued.map(cert));

  it('accepts a chain to a trusted root for its own key, completing it from the store', async () => {
    const { certs: store, commit, close } = await stateCertificates();
    const v = validator(settings(), store);
    assert.equal(await v.problem(chainOf(userCert, intermediate.cert, root.cert), user.publicKey), undefined);
    // The issuers may already be on the chain (stored), the user sends only its certificate.
    assert.match((await v.problem(chainOf(userCert), user.publicKey))!, /the issuer 'CN=Weft Test Issuing CA,OU=Issuing,O=Weft Test,C=RU' of .* is not known/);
    commit(2, [cert(intermediate.cert), cert(root.cert)]);
    assert.equal(await v.problem(chainOf(userCert), user.publicKey), undefined);
    await close();
  });

  it('refuses a chain for another key, to an untrusted root, without a required EKU, or past its validity', async () => {
    const { certs: store, close } = await stateCertificates();
    const full = chainOf(userCert, intermediate.cert, root.cert);
    assert.match((await validator(settings(), store).problem(full, otherUser.publicKey))!, /holds the public key/);
    assert.match(
      (await validator(settings({ genesis: { trustedRootFingerprints: [fingerprint(userCert.der)], certificates: [], crls: [] } }), store).problem(
        full,
        user.publicKey,
      ))!,
      /is not a trusted root/,
    );
    assert.match(
      (await validator(settings({ genesis: { trustedRootFingerprints: [], certificates: [], crls: [] } }), store).problem(full, user.publicKey))!,
      /no trusted root is configured/,
    );
    assert.match(
      (await validator(settings({ requiredOids: ['1.3.6.1.5.5.7.3.3'] }), store).problem(full, user.publicKey))!,
      /lacks the extended key usage 1\.3\.6\.1\.5\.5\.7\.3\.3/,
    );
    assert.equal(await validator(settings({ requiredOids: ['1.3.6.1.5.5.7.3.2'] }), store).problem(full, user.publicKey), undefined);
    const later = (): bigint => BigInt(Date.now()) + 400n * 86_400_000n;
    assert.match((await validator(settings(), store, later).problem(full, user.publicKey))!, /expired at/);
    await close();
  });

  it('with CRL checks, refuses a revoked certificate (CRL from its distribution point) and one whose CRL cannot be had', async () => {
    const { certs: store, close } = await stateCertificates();
    const revoked = intermediate.issue({ subject: '/C=RU/O=Weft Test/CN=Revoked User', publicKey: otherUser.publicKey, eku: ['clientAuth'] });
    intermediate.revoke(revoked);
    crlBytes.set('/issuing.crl', intermediate.crl());
    const s = settings({ crlChecksEnabled: true });
    assert.equal(await validator(s, store).problem(chainOf(userCert, intermediate.cert, root.cert), user.publicKey), undefined);
    assert.match(
      (await validator(s, store).problem(chainOf(revoked, intermediate.cert, root.cert), otherUser.publicKey))!,
      /'CN=Revoked User,O=Weft Test,C=RU' \(serial [0-9a-f]+\) was revoked at/,
    );
    // Without CRL checks (TEST may run so) the revocation is not looked at.
    assert.equal(await validator(settings(), store).problem(chainOf(revoked, intermediate.cert, root.cert), otherUser.publicKey), undefined);
    const saved = crlBytes.get('/root.crl')!;
    crlBytes.delete('/root.crl');
    assert.match(
      (await validator(s, store).problem(chainOf(userCert, intermediate.cert, root.cert), user.publicKey))!,
      /no CRL of 'CN=Weft Test Root,O=Weft Test,C=RU' can be had/,
    );
    crlBytes.set('/root.crl', saved);
    await close();
  });
});

describe("peers' transactions in PKI mode TEST (the rules of a broadcast's certificates)", () => {
  function service(s: PkiSettings, store: CertificateStore): PkiService {
    return new PkiService({
      settings: s,
      store,
      validator: validator(s, store),
      verifiers: new GostVerifiers(),
      keystore: { addresses: () => [], unlock: () => assert.fail('no keystore in this test') },
      digest,
      sign: (privateKey, message) => suite.sign(privateKey, message),
      now: () => BigInt(Date.now()),
    });
  }

  it('refuse an uncertified sender without a chain, a chain for another key or two chains; accept a valid chain and, once stored, none', async () => {
    const { certs, commit, close } = await stateCertificates();
    const pki = service(settings(), certs);
    assert.match((await pki.peerTransactionProblem(user.publicKey, []))!, /first transaction must carry its certificate chain/);
    assert.equal(await pki.peerTransactionProblem(user.publicKey, [cert(userCert), cert(intermediate.cert), cert(root.cert)]), undefined);
    assert.match((await pki.peerTransactionProblem(otherUser.publicKey, [cert(userCert), cert(intermediate.cert), cert(root.cert)]))!, /holds the public key/);
    assert.match(
      (await pki.peerTransactionProblem(user.publicKey, [cert(userCert), cert(otherCert), cert(intermediate.cert)]))!,
      /Unexpected cert chains number\. Provided: '2', expected: '1'/,
    );
    commit(3, [cert(userCert)]);
    assert.equal(await pki.peerTransactionProblem(user.publicKey, []), undefined);
    // OFF takes anything.
    assert.equal(await service({ ...settings(), mode: 'OFF' }, certs).peerTransactionProblem(otherUser.publicKey, []), undefined);
    await close();
  });

  it("a peer's block keeps of its certificates (45, 47) only the chains of its senders that pass the same rules", async () => {
    const { certs, close } = await stateCertificates();
    const pki = service(settings(), certs);
    const policy = (tx: Transaction, certificates: readonly Certificate[]): Promise<string | undefined> =>
      pki.peerTransactionProblem(tx.senderPublicKey, certificates);
    const gost = await Protocol.create({ crypto: 'gost', chainId: 'T'.charCodeAt(0) });
    const send = (from: KeyPair, to: KeyPair, n: bigint): Transaction =>
      gost.sign(
        gost.transactionFromJson(
          {
            type: 4,
            version: 3,
            senderPublicKey: encodeBase58(from.publicKey),
            recipient: gost.addresses.fromPublicKey(to.publicKey).toString(),
            amount: n,
            fee: 1_000_000n,
            attachment: '',
            timestamp: BigInt(Date.now()) + n,
            proofs: [],
          },
          { forBroadcast: false },
        ),
        from.privateKey,
      );
    // otherUser's chain goes to a root the network does not trust.
    const rogueRoot = GostTestCa.root('/C=RU/O=Rogue/CN=Rogue Root', `${base}/rogue.crl`);
    try {
      const rogueCert = rogueRoot.issue({ subject: '/C=RU/O=Rogue/CN=User Two Elsewhere', publicKey: otherUser.publicKey, eku: ['clientAuth'] });
      const carried = [cert(userCert), cert(intermediate.cert), cert(root.cert), cert(rogueCert), cert(rogueRoot.cert), cert(opensslUser)];
      const { admitted, refused } = await admitBlockCertificates(
        [send(user, otherUser, 1n), send(otherUser, user, 2n), send(user, otherUser, 3n)],
        carried,
        policy,
      );
      assert.deepEqual(
        admitted.map((c) => c.subject.rfc2253),
        [cert(userCert), cert(intermediate.cert), cert(root.cert)].map((c) => c.subject.rfc2253),
      );
      assert.deepEqual(
        refused.map((r) => r.subject),
        [cert(rogueCert), cert(rogueRoot.cert), cert(opensslUser)].map((c) => c.subject.rfc2253),
      );
      assert.match(refused[0]!.reason, /is not a trusted root/);
      assert.match(refused[2]!.reason, /on the certificate chain of no sender/);
    } finally {
      rogueRoot.dispose();
      await close();
    }
  });
});

describe('CAdES-BES detached signatures (GOST R 34.10-2012 256, Streebog-256)', () => {
  const data = Buffer.from('a document to sign: Погода хорошая', 'utf8');

  it('made by Weft are verified by `openssl cms` against the root, and by Weft; a changed byte fails', () => {
    const signature = createDetachedCadesBes({
      content: data,
      signer: cert(userCert),
      chain: [cert(intermediate.cert)],
      signingTime: BigInt(Date.now()),
      digest,
      sign: (m) => suite.sign(user.privateKey, m),
    });
    assert.deepEqual(root.cmsVerify(signature, data, [root.cert.pemFile]), { ok: true });
    const changed = Buffer.from(data);
    changed[0] = changed[0]! ^ 1;
    assert.equal(root.cmsVerify(signature, changed, [root.cert.pemFile]).ok, false);
    const parsed = parseSignedData(signature);
    const signerInfo = parsed.signers[0]!;
    assert.ok(signerInfo.signingCertificateHashes !== undefined, 'CAdES-BES names its signing certificate');
    assert.equal(verifyDetached(parsed, data, { digest, verifiers: new GostVerifiers() }).valid, true);
    assert.equal(verifyDetached(parsed, changed, { digest, verifiers: new GostVerifiers() }).valid, false);
  });

  it('made by `openssl cms -sign` are verified by Weft; another signer certificate or data is refused', () => {
    const signature = root.cmsSign(data, opensslUser);
    const parsed = parseSignedData(signature);
    const check = verifyDetached(parsed, data, { digest, verifiers: new GostVerifiers() });
    assert.equal(check.valid, true);
    assert.equal(check.valid && check.signer.subject.rfc2253, 'CN=OpenSSL Signer,O=Weft Test,C=RU');
    assert.deepEqual(verifyDetached(parsed, Buffer.from('other data'), { digest, verifiers: new GostVerifiers() }), {
      valid: false,
      reason: 'the message digest does not match the data',
      signer: check.valid ? check.signer : undefined,
    });
  });
});
