/**
 * The dev chain's test PKI (`start --crypto gost --pki test`): a dev root CA whose key comes
 * from a public seed, and a certificate of each dev account issued by it, so a GOST dev chain
 * runs in PKI mode TEST out of the box — the dev accounts are certified in the genesis
 * (`blockchain.custom.genesis.pki`: the root as the trusted root, the root and account
 * certificates), any other account needs a chain to that root or another trusted one.
 *
 * The certificates are issued once, when the data directory is new, valid from a day before
 * the genesis for ten years, and kept in `dev-pki.json`; the root is also written as
 * `dev-pki-root.pem` (for `openssl cms -verify -CAfile` and the like). The root key is as
 * public as the dev seeds: never trust this root anywhere else.
 */
import { join } from 'node:path';
import { decodeBase64, encodeBase64, equalBytes } from '../crypto/encoding.js';
import { issueGostCertificate, type CertificateName } from '../crypto/pki/issue.js';
import { CertificateFormatError, fingerprint, parseCertificate, type Certificate } from '../crypto/pki/x509.js';
import type { Protocol } from '../protocol/protocol.js';
import { PKI_OFF, type PkiSettings } from '../pki/settings.js';
import { readTextIfPresent, writeFileAtomic } from '../keystore/keystore.js';

export const DEV_PKI_ROOT_SEED = 'weft dev pki root ca - never use this seed on a real network';
const DEV_PKI_FILE = 'dev-pki.json';
export const DEV_PKI_ROOT_PEM = 'dev-pki-root.pem';
const FORMAT = 'weft-dev-pki';
const DAY_MS = 86_400_000n;

const ROOT_NAME: CertificateName = { C: 'RU', O: 'Weft dev chain', CN: 'Weft dev root CA' };
const accountName = (index: number): CertificateName => ({ C: 'RU', O: 'Weft dev chain', CN: `Weft dev account ${index}` });

const pem = (der: Uint8Array): string => `-----BEGIN CERTIFICATE-----\n${(encodeBase64(der).match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;

/**
 * The TEST-mode PKI settings of a GOST dev chain in `dataDir`: read from `dev-pki.json`, or
 * issued (and written) on the first start. Fails when the file holds certificates of other
 * keys (a data directory of another dev chain).
 */
export function devPkiSettings(protocol: Protocol, dataDir: string, accountKeys: readonly Uint8Array[], genesisTimestamp: bigint): PkiSettings {
  if (protocol.crypto.type !== 'gost')
    throw new Error("--pki is for GOST dev chains (add --crypto gost): a WAVES network allows only 'node.crypto.pki.mode = OFF'");
  const root = protocol.crypto.keyPairFromSeedPhrase(DEV_PKI_ROOT_SEED);
  const file = join(dataDir, DEV_PKI_FILE);
  let certificates: Certificate[];
  const text = readTextIfPresent(file);
  if (text === undefined) {
    const notBefore = genesisTimestamp - DAY_MS;
    const notAfter = genesisTimestamp + 3650n * DAY_MS;
    const sign = (tbs: Uint8Array): Uint8Array => protocol.crypto.sign(root.privateKey, tbs);
    const ders = [
      issueGostCertificate({ serial: 1n, issuer: ROOT_NAME, subject: ROOT_NAME, notBefore, notAfter, publicKey: root.publicKey, ca: true, sign }),
      ...accountKeys.map((publicKey, i) =>
        issueGostCertificate({
          serial: BigInt(i + 2),
          issuer: ROOT_NAME,
          subject: accountName(i),
          notBefore,
          notAfter,
          publicKey,
          ca: false,
          extendedKeyUsage: ['clientAuth', 'emailProtection'],
          sign,
        }),
      ),
    ];
    writeFileAtomic(file, `${JSON.stringify({ format: FORMAT, version: 1, certificates: ders.map(encodeBase64) }, null, 2)}\n`);
    certificates = ders.map((der) => parseCertificate(der));
  } else {
    const broken = (why: string): never => {
      throw new Error(`${file}: ${why}; this data directory holds another dev chain — remove it to start a new one`);
    };
    let doc: { format?: unknown; version?: unknown; certificates?: unknown };
    try {
      doc = JSON.parse(text) as typeof doc;
    } catch {
      return broken('not valid JSON');
    }
    if (doc.format !== FORMAT || doc.version !== 1 || !Array.isArray(doc.certificates)) return broken('not a dev PKI file of this version');
    try {
      certificates = (doc.certificates as unknown[]).map((c) => parseCertificate(decodeBase64(String(c))));
    } catch (e) {
      if (e instanceof CertificateFormatError || e instanceof Error) return broken(`a certificate does not read: ${e.message}`);
      throw e;
    }
    const keys = [root.publicKey, ...accountKeys];
    if (certificates.length !== keys.length || !certificates.every((c, i) => equalBytes(c.publicKey.bytes, keys[i]!)))
      broken('its certificates are not of the dev root and accounts');
  }
  writeFileAtomic(join(dataDir, DEV_PKI_ROOT_PEM), pem(certificates[0]!.der));
  return {
    ...PKI_OFF,
    mode: 'TEST',
    genesis: { trustedRootFingerprints: [fingerprint(certificates[0]!.der)], certificates, crls: [] },
  };
}
