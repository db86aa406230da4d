/**
 * PKI settings from a node config: `node.crypto.pki` (mode, required-oids by name or OID,
 * crl-checks-enabled, the CRL sync period), `node.pki.tsp-server` and
 * `blockchain.custom.genesis.pki` (trusted root fingerprints, certificates, CRLs), with WE's
 * rules: WAVES allows only OFF, ON needs CRL checks and P2P TLS; every bad value names its key.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readHoconFile } from '../../src/config/hocon.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { fingerprint, parseCertificate } from '../../src/crypto/pki/x509.js';
import { loadNodeConfig } from '../../src/node/config.js';
import { ConfigError } from '../../src/config/values.js';
import { prepareDevnet } from '../../src/cli/devnet.js';
import { tempDir } from '../../devkit/tmp.js';
import { GostTestCa } from '../../devkit/pki/openssl-gost.js';

const CHEAP = { scrypt: { N: 1024, r: 8, p: 1 } };

let ca: GostTestCa;
let gostConf: string;
let wavesConf: string;
/** Made in `before`, removed when the file ends (an `after` registered inside `before` would run when the hook ends). */
const devnetDirs: string[] = [];

before(async () => {
  ca = GostTestCa.root('/C=RU/O=Weft Test/CN=Config Test Root', 'http://127.0.0.1:1/root.crl');
  devnetDirs.push(mkdtempSync(join(tmpdir(), 'weft-pki-conf-')), mkdtempSync(join(tmpdir(), 'weft-pki-conf-')));
  gostConf = (await prepareDevnet({ nodes: 1, dir: devnetDirs[0]!, crypto: 'gost', keystore: CHEAP, basePort: 0 })).nodes[0]!.configFile;
  wavesConf = (await prepareDevnet({ nodes: 1, dir: devnetDirs[1]!, keystore: CHEAP, basePort: 0 })).nodes[0]!.configFile;
});
after(() => {
  ca?.dispose();
  for (const dir of devnetDirs) rmSync(dir, { recursive: true, force: true });
});

type Doc = { node: Record<string, Record<string, unknown>> };

/** A copy of a devnet node config edited by `edit`, loaded. */
async function load(file: string, edit: (doc: Doc) => void) {
  const doc = (await readHoconFile(file)) as Doc;
  edit(doc);
  const copy = `${tempDir('weft-pki-conf-')}/node.conf`;
  writeFileSync(copy, JSON.stringify(doc));
  return loadNodeConfig(copy);
}

const genesisOf = (doc: Doc): Record<string, unknown> => (doc.node['blockchain'] as { custom: { genesis: Record<string, unknown> } }).custom.genesis;

async function rejects(p: Promise<unknown>, path: string, message: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof ConfigError && e.path === path && message.test(e.message));
}

describe('PKI settings in a node config', () => {
  it('reads mode, required OIDs, CRL checks, the TSP server and the genesis PKI of a GOST network', async () => {
    const crl = ca.crl();
    const root = parseCertificate(ca.cert.der);
    const c = await load(gostConf, (doc) => {
      doc.node['crypto'] = {
        type: 'GOST',
        pki: {
          mode: 'TEST',
          'required-oids': ['clientAuth', '1.2.643.100.113.1'],
          'crl-checks-enabled': 'yes',
          'crl-sync-manager-settings': { period: '10m' },
        },
      };
      doc.node['pki'] = { 'tsp-server': 'http://localhost/TSP/tsp.srf' };
      genesisOf(doc)['pki'] = {
        'trusted-root-fingerprints': [
          Buffer.from(fingerprint(ca.cert.der))
            .toString('hex')
            .replace(/(..)(?!$)/g, '$1:'),
        ],
        certificates: [ca.cert.base64],
        crls: [{ publicKeyBase58: encodeBase58(root.publicKey.bytes), cdp: 'http://127.0.0.1:1/root.crl', crl: crl.toString('base64') }],
      };
    });
    const pki = c.pki!;
    assert.equal(pki.mode, 'TEST');
    assert.equal(c.api.pkiMode, 'TEST');
    assert.deepEqual(pki.requiredOids, ['1.3.6.1.5.5.7.3.2', '1.2.643.100.113.1']);
    assert.equal(pki.crlChecksEnabled, true);
    assert.equal(pki.crlSyncPeriodMs, 600_000);
    assert.equal(pki.tspServer, 'http://localhost/TSP/tsp.srf');
    assert.deepEqual(pki.genesis.trustedRootFingerprints, [fingerprint(ca.cert.der)]);
    assert.equal(pki.genesis.certificates[0]!.subject.rfc2253, 'CN=Config Test Root,O=Weft Test,C=RU');
    assert.equal(pki.genesis.crls[0]!.crl.issuer.rfc2253, 'CN=Config Test Root,O=Weft Test,C=RU');
  });

  it("follows WE's rules: WAVES only OFF, ON with CRL checks and TLS; bad values name their key", async () => {
    await rejects(
      load(wavesConf, (doc) => void (doc.node['crypto'] = { type: 'WAVES', pki: { mode: 'TEST' } })),
      'node.crypto.pki.mode',
      /^node\.crypto\.pki\.mode: Usage of 'node\.crypto\.pki = ON \| TEST' is forbidden for 'node\.crypto\.type = Waves'$/,
    );
    await rejects(
      load(gostConf, (doc) => void (doc.node['crypto'] = { type: 'GOST', pki: { mode: 'ON' } })),
      'node.crypto.pki.crl-checks-enabled',
      /Setting 'crl-checks-enabled = false' is forbidden for 'pki\.mode = ON'/,
    );
    await rejects(
      load(gostConf, (doc) => void (doc.node['crypto'] = { type: 'GOST', pki: { mode: 'ON', 'crl-checks-enabled': true } })),
      'node.network.tls',
      /requires TLS on the P2P network/,
    );
    await rejects(
      load(gostConf, (doc) => void (doc.node['crypto'] = { type: 'GOST', pki: { mode: 'TEST', 'required-oids': ['anyPurpose'] } })),
      'node.crypto.pki.required-oids(0)',
      /expected a dotted OID or one of serverAuth/,
    );
    await rejects(
      load(gostConf, (doc) => void (genesisOf(doc)['pki'] = { 'trusted-root-fingerprints': ['abc'] })),
      'node.blockchain.custom.genesis.pki.trusted-root-fingerprints(0)',
      /expected a SHA-1 fingerprint/,
    );
    await rejects(
      load(gostConf, (doc) => void (genesisOf(doc)['pki'] = { certificates: ['AAAA'] })),
      'node.blockchain.custom.genesis.pki.certificates(0)',
      /not a DER X\.509 certificate/,
    );
    await rejects(
      load(wavesConf, (doc) => void (genesisOf(doc)['pki'] = { certificates: [] })),
      'node.blockchain.custom.genesis.pki',
      /for GOST networks/,
    );
  });
});
