/**
 * The GOST dev chain in PKI mode TEST (`start --crypto gost --pki test`, src/cli/dev-pki.ts):
 *
 * - the dev root CA and the dev accounts' certificates verify with OpenSSL's GOST engine
 *   (`openssl verify` against `dev-pki-root.pem`), carry the accounts' keys and the usages
 *   clientAuth and emailProtection; they are issued once per data directory and read back
 *   unchanged; a WAVES dev chain refuses `--pki`, and `start --pki` with `--config` is refused;
 * - a node on that config: `/node/config` says TEST; a dev account transacts without sending
 *   certificates (certified in the genesis) and finds its certificate by public key; another
 *   key's first transaction without a chain is refused (120); `/pki/sign` as a dev account
 *   makes a CAdES-BES signature `openssl cms` verifies against the dev root;
 * - `devnet --crypto gost --pki test`: every node's config, as `start --config` reads it,
 *   runs PKI TEST with the dev root trusted and the dev accounts certified in the genesis.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { decodeBase64, encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import { derToPem, openssl, opensslCmsSign, opensslCmsVerify } from '../../devkit/pki/openssl-gost.js';
import { devAccounts, devNodeConfig, devProtocol } from '../../src/cli/dev.js';
import { DEV_PKI_ROOT_PEM } from '../../src/cli/dev-pki.js';
import { Node } from '../../src/node/node.js';
import { resolveStartConfig } from '../../src/cli/start.js';
import { pkiArg } from '../../src/cli/cli.js';
import { loadNodeConfig } from '../../src/node/config.js';
import { prepareDevnet } from '../../src/cli/devnet.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { Transfer } from '../../src/protocol/transactions/transfer.js';
import { httpRequest } from '../../devkit/http.js';

const CHEAP = { scrypt: { N: 1024, r: 8, p: 1 } };
const dirs: string[] = [];
const tempDir = (prefix: string): string => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the GOST dev chain in PKI mode TEST', { timeout: 120_000 }, () => {
  it('certifies the dev accounts by a dev root CA that OpenSSL verifies, once per data directory', async () => {
    const dir = tempDir('weft-dev-pki-');
    const config = await devNodeConfig({ dataDir: dir, restPort: 0, p2pPort: 0, keystore: CHEAP, crypto: 'gost', pki: 'TEST' });
    const pki = config.pki!;
    assert.equal(pki.mode, 'TEST');
    assert.equal(config.api.pkiMode, 'TEST');
    const [root, ...accounts] = pki.genesis.certificates;
    assert.equal(root!.subject.rfc2253, 'CN=Weft dev root CA,O=Weft dev chain,C=RU');
    assert.equal(root!.ca, true);
    const dev = devAccounts(await devProtocol('gost'));
    assert.equal(accounts.length, dev.length);
    accounts.forEach((c, i) => {
      assert.deepEqual(c.publicKey.bytes, dev[i]!.keyPair.publicKey);
      assert.equal(c.subject.rfc2253, `CN=Weft dev account ${i},O=Weft dev chain,C=RU`);
      assert.deepEqual(c.extendedKeyUsage, ['1.3.6.1.5.5.7.3.2', '1.3.6.1.5.5.7.3.4']);
      writeFileSync(join(dir, `account-${i}.pem`), derToPem(c.der, 'CERTIFICATE'));
      const verified = openssl(['verify', '-engine', 'gost', '-CAfile', DEV_PKI_ROOT_PEM, `account-${i}.pem`], dir).toString();
      assert.match(verified, new RegExp(`account-${i}\\.pem: OK`));
      // A signing key's paramset (CryptoPro-A), as docs/gost.md says: OpenSSL signs with a key carrying it (not with XchA).
      assert.equal(c.publicKey.paramSet, '1.2.643.2.2.35.1');
    });
    // A reader's path: the dev account's private key as an OpenSSL key with its certificate's parameters signs a CMS
    // that OpenSSL verifies against the dev root.
    const algorithm = Buffer.from('301f06082a85030701010101301306072a85030202230106082a85030701010202', 'hex');
    const d = Buffer.from(dev[1]!.keyPair.privateKey);
    const pkcs8 = Buffer.concat([Buffer.from([0x30, 3 + algorithm.length + 2 + d.length, 0x02, 0x01, 0x00]), algorithm, Buffer.from([0x04, d.length]), d]);
    writeFileSync(join(dir, 'account-1.key'), derToPem(pkcs8, 'PRIVATE KEY'));
    const content = Buffer.from('signed by a dev account');
    const signature = opensslCmsSign(dir, content, join(dir, 'account-1.pem'), join(dir, 'account-1.key'));
    assert.deepEqual(opensslCmsVerify(dir, signature, content, [join(dir, DEV_PKI_ROOT_PEM)]), { ok: true });
    // Read back unchanged at the next start.
    const again = await devNodeConfig({ dataDir: dir, restPort: 0, p2pPort: 0, keystore: CHEAP, crypto: 'gost', pki: 'TEST' });
    assert.deepEqual(
      again.pki!.genesis.certificates.map((c) => encodeBase64(c.der)),
      pki.genesis.certificates.map((c) => encodeBase64(c.der)),
    );
    await assert.rejects(
      devNodeConfig({ dataDir: tempDir('weft-dev-pki-waves-'), crypto: 'waves', pki: 'TEST', keystore: CHEAP }),
      /--pki is for GOST dev chains/,
    );
    await assert.rejects(resolveStartConfig({ config: join(dir, 'none.conf'), pki: 'TEST' }), /--pki is for the dev chain only/);
    assert.equal(pkiArg('test'), 'TEST');
    assert.throws(() => pkiArg('on'), /'on' is not a dev chain PKI mode: test \(ON needs TLS and CRLs/);
  });

  it('runs a node on which dev accounts transact and sign without sending certificates, and a stranger needs its chain', async () => {
    const dir = tempDir('weft-dev-pki-node-');
    const config = await devNodeConfig({ dataDir: dir, restPort: 0, p2pPort: 0, keystore: CHEAP, crypto: 'gost', pki: 'TEST' });
    const node = await Node.start(config, { logger: pino({ level: 'silent' }) });
    try {
      const p = node.protocol;
      const request = (method: string, path: string, body?: unknown) => httpRequest(node.url!, method, path, body);
      assert.equal((await request('GET', '/node/config')).json.pkiMode, 'TEST');
      const [, one, two] = devAccounts(p);
      const transfer = (keys: { publicKey: Uint8Array; privateKey: Uint8Array }, nonce: number) =>
        stringifyJson(
          p
            .sign(
              p.transaction(Transfer, 3, {
                senderPublicKey: keys.publicKey,
                assetId: null,
                feeAssetId: null,
                timestamp: BigInt(Date.now()) + BigInt(nonce),
                amount: 1000n,
                fee: 1_000_000n,
                recipient: p.addresses.parseAddress(two!.address),
                attachment: new Uint8Array(0),
                atomicBadge: null,
              }),
              keys.privateKey,
            )
            .toJson(),
        );
      const sent = await request('POST', '/transactions/broadcast', transfer(one!.keyPair, 0));
      assert.equal(sent.status, 200, sent.text);
      const stranger = p.crypto.generateKeyPair();
      const refused = await request('POST', '/transactions/broadcast', transfer(stranger, 1));
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.error, 120);
      const found = await request('GET', `/pki/certificate/by-public-key/${encodeBase58(one!.keyPair.publicKey)}`);
      assert.equal(found.status, 200, found.text);
      const data = Buffer.from('signed on the dev chain');
      const signed = await request('POST', '/pki/sign', {
        inputData: encodeBase64(data),
        keystoreAlias: one!.address,
        password: one!.keystorePassword,
        sigType: 1,
      });
      assert.equal(signed.status, 200, signed.text);
      writeFileSync(join(dir, 'sig.der'), decodeBase64(signed.json.signature as string));
      writeFileSync(join(dir, 'data.bin'), data);
      openssl(
        [
          'cms',
          '-engine',
          'gost',
          '-verify',
          '-binary',
          '-inform',
          'DER',
          '-in',
          'sig.der',
          '-content',
          'data.bin',
          '-CAfile',
          DEV_PKI_ROOT_PEM,
          '-purpose',
          'any',
          '-out',
          '/dev/null',
        ],
        dir,
      );
      assert.match(readFileSync(join(dir, DEV_PKI_ROOT_PEM), 'utf8'), /^-----BEGIN CERTIFICATE-----/);
    } finally {
      await node.stop();
    }
  });

  it('writes devnet node configs in PKI mode TEST with the dev root and accounts in the genesis', async () => {
    const dir = tempDir('weft-devnet-pki-');
    const layout = await prepareDevnet({ nodes: 2, dir, basePort: 0, crypto: 'gost', pki: 'TEST', keystore: CHEAP });
    const pems = readFileSync(join(dir, DEV_PKI_ROOT_PEM), 'utf8');
    for (const n of layout.nodes) {
      const config = await loadNodeConfig(n.configFile, { env: {} });
      assert.equal(config.pki?.mode, 'TEST', n.name);
      assert.equal(config.api.pkiMode, 'TEST', n.name);
      const [root, ...accounts] = config.pki.genesis.certificates;
      assert.equal(derToPem(root!.der, 'CERTIFICATE'), pems);
      assert.deepEqual(
        accounts.map((c) => encodeBase58(c.publicKey.bytes)),
        layout.accounts.map((a) => a.publicKey),
      );
      assert.equal(config.pki.genesis.trustedRootFingerprints.length, 1);
    }
  });
});
