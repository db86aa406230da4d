/**
 * The PKI key table: `node.crypto.pki`, `node.pki.tsp-server` and
 * `node.blockchain.custom.genesis.pki` (rooted at `node`). WAVES networks allow only OFF and
 * no genesis PKI; ON needs CRL checks and P2P TLS (WE's rules) — checked with what the node
 * reads beside them (the crypto type, whether TLS is on).
 */
import type { CryptoType } from '../crypto/suite.js';
import { decodeBase58, decodeBase64, encodeBase58, encodeBase64, EncodingError } from '../crypto/encoding.js';
import { parseCrl, CrlFormatError } from '../crypto/pki/crl.js';
import { ekuOid } from '../crypto/pki/oids.js';
import { CertificateFormatError, parseCertificate } from '../crypto/pki/x509.js';
import { boolKey, choiceKey, customKey, durationKey, keyTable, listKey, optionalStringKey, type HoconObject, type KeyTable } from '../config/key-table.js';
import { ConfigSection, isObject } from '../config/section.js';
import { describeValue, fail, parseString } from '../config/values.js';
import { PKI_OFF, type GenesisCrl, type GenesisPki, type PkiSettings } from './settings.js';

/** What the PKI keys are checked against: the network's crypto type and whether its P2P network runs TLS. */
export interface PkiReadContext {
  readonly crypto: CryptoType;
  readonly tlsEnabled: boolean;
}

function base64Der(path: string, v: unknown): Uint8Array {
  const text = parseString(v, path);
  try {
    return decodeBase64(text.replace(/\s/g, ''));
  } catch (e) {
    return fail(path, `expected Base64 DER: ${e instanceof EncodingError ? e.message : String(e)}`);
  }
}

/** A SHA-1 fingerprint: 40 hex digits (colons allowed) or Base64 of the 20 bytes. */
function readFingerprint(v: unknown, path: string): Uint8Array {
  const text = parseString(v, path).trim();
  const hex = text.replace(/:/g, '');
  if (/^[0-9a-fA-F]{40}$/.test(hex)) return new Uint8Array(Buffer.from(hex, 'hex'));
  try {
    const bytes = decodeBase64(text);
    if (bytes.length === 20) return bytes;
  } catch {
    // reported below
  }
  return fail(path, `expected a SHA-1 fingerprint (40 hex digits or Base64 of 20 bytes), got ${describeValue(v)}`);
}

function readOid(v: unknown, path: string): string {
  const oid = ekuOid(parseString(v, path));
  return (
    oid ??
    fail(path, `expected a dotted OID or one of serverAuth, clientAuth, codeSigning, emailProtection, timeStamping, OCSPSigning, got ${describeValue(v)}`)
  );
}

function readGenesisCrl(v: unknown, path: string): GenesisCrl {
  if (!isObject(v)) return fail(path, `expected { publicKeyBase58, cdp, crl }, got ${describeValue(v)}`);
  const entry = new ConfigSection(v, path);
  let issuerPublicKey: Uint8Array;
  try {
    issuerPublicKey = decodeBase58(entry.string('publicKeyBase58'));
  } catch {
    return fail(entry.at('publicKeyBase58'), 'expected a Base58 public key');
  }
  try {
    return { issuerPublicKey, cdp: entry.string('cdp'), crl: parseCrl(base64Der(entry.at('crl'), entry.get('crl'))) };
  } catch (e) {
    if (e instanceof CrlFormatError) return fail(entry.at('crl'), e.message);
    throw e;
  }
}

/** `blockchain.custom.genesis.pki`: the trust anchors the genesis carries (GOST networks only). */
const GENESIS_PKI = keyTable<GenesisPki>({
  trustedRootFingerprints: listKey('trusted-root-fingerprints', readFingerprint, (f) => Buffer.from(f).toString('hex')),
  certificates: listKey(
    'certificates',
    (v, path) => {
      try {
        return parseCertificate(base64Der(path, v));
      } catch (e) {
        if (e instanceof CertificateFormatError) return fail(path, e.message);
        throw e;
      }
    },
    (c) => encodeBase64(c.der),
  ),
  crls: listKey('crls', readGenesisCrl, (c) => ({ publicKeyBase58: encodeBase58(c.issuerPublicKey), cdp: c.cdp, crl: encodeBase64(c.crl.der) })),
});

const GENESIS_PKI_PATH = 'blockchain.custom.genesis.pki';

export const PKI_TABLE: KeyTable<PkiSettings, PkiReadContext> = keyTable<PkiSettings, PkiReadContext>(
  {
    mode: choiceKey('crypto.pki.mode', ['OFF', 'ON', 'TEST'], 'OFF'),
    requiredOids: listKey('crypto.pki.required-oids', readOid, (oid) => oid),
    crlChecksEnabled: boolKey('crypto.pki.crl-checks-enabled', false),
    crlSyncPeriodMs: durationKey('crypto.pki.crl-sync-manager-settings.period', PKI_OFF.crlSyncPeriodMs),
    tspServer: optionalStringKey('pki.tsp-server'),
    genesis: customKey(
      GENESIS_PKI_PATH,
      (node, { crypto }: PkiReadContext) => {
        if (!node.has(GENESIS_PKI_PATH)) return PKI_OFF.genesis;
        if (crypto !== 'gost') fail(node.at(GENESIS_PKI_PATH), 'the genesis PKI settings are for GOST networks (node.crypto.type = GOST)');
        return GENESIS_PKI.read(node.section(GENESIS_PKI_PATH), undefined);
      },
      // Absent when the genesis has none.
      (g): HoconObject | undefined =>
        g.trustedRootFingerprints.length === 0 && g.certificates.length === 0 && g.crls.length === 0 ? undefined : GENESIS_PKI.render(g),
    ),
  },
  {
    finish: (pki, node, { tlsEnabled }) => {
      if (pki.mode === 'ON' && !pki.crlChecksEnabled)
        fail(node.at('crypto.pki.crl-checks-enabled'), "Setting 'crl-checks-enabled = false' is forbidden for 'pki.mode = ON'");
      if (pki.mode === 'ON' && !tlsEnabled)
        fail(node.at('network.tls'), "'node.crypto.pki.mode = ON' requires TLS on the P2P network (node.network.tls { enable = true, … })");
      return pki;
    },
  },
);
