/**
 * Object identifiers of GOST PKI (RFC 4491, RFC 9215, TC 26 recommendations), X.509
 * extensions, CMS and CAdES, and the curves of GOST R 34.10-2012 256-bit paramsets.
 */
import type { Gost256Curve } from '../gost.js';

export const OID = {
  gost2012_256: '1.2.643.7.1.1.1.1',
  gost2012_512: '1.2.643.7.1.1.1.2',
  streebog256: '1.2.643.7.1.1.2.2',
  gost2012_256_signature: '1.2.643.7.1.1.3.2',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  crlDistributionPoints: '2.5.29.31',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  subjectAltName: '2.5.29.17',
  certificatePolicies: '2.5.29.32',
  crlNumber: '2.5.29.20',
  cmsData: '1.2.840.113549.1.7.1',
  cmsSignedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
} as const;

/** Extensions a validator understands, so they may be critical. */
export const UNDERSTOOD_EXTENSIONS: ReadonlySet<string> = new Set([
  OID.basicConstraints,
  OID.keyUsage,
  OID.extKeyUsage,
  OID.crlDistributionPoints,
  OID.subjectKeyIdentifier,
  OID.authorityKeyIdentifier,
  OID.subjectAltName,
  OID.certificatePolicies,
]);

/** The curve of a paramset, or why there is none the library can use. */
export type CurveChoice = { readonly curve: Gost256Curve } | { readonly unsupported: string };

const PARAM_SETS = new Map<string, Gost256Curve>([
  ['1.2.643.2.2.35.1', 'S-256-A'], // CryptoPro-A
  ['1.2.643.2.2.35.2', 'S-256-B'], // CryptoPro-B
  ['1.2.643.2.2.35.3', 'S-256-C'], // CryptoPro-C
  ['1.2.643.2.2.36.0', 'S-256-A'], // CryptoPro-XchA
  ['1.2.643.2.2.36.1', 'S-256-C'], // CryptoPro-XchB
  ['1.2.643.7.1.2.1.1.2', 'S-256-A'], // TC26 256 paramSetB = CryptoPro-A
  ['1.2.643.7.1.2.1.1.3', 'S-256-B'], // TC26 256 paramSetC = CryptoPro-B
  ['1.2.643.7.1.2.1.1.4', 'S-256-C'], // TC26 256 paramSetD = CryptoPro-C
]);

export function paramSetCurve(oid: string): CurveChoice {
  const curve = PARAM_SETS.get(oid);
  if (curve !== undefined) return { curve };
  if (oid === '1.2.643.7.1.2.1.1.1')
    return { unsupported: 'the twisted Edwards paramset TC26 256 A (1.2.643.7.1.2.1.1.1) is not supported by the GOST library' };
  return { unsupported: `unknown GOST R 34.10-2012 256-bit paramset ${oid}` };
}

/** WE's `required-oids` names (case-insensitive) for extended key usages. */
export const EKU_NAMES = new Map([
  ['serverauth', '1.3.6.1.5.5.7.3.1'],
  ['clientauth', '1.3.6.1.5.5.7.3.2'],
  ['codesigning', '1.3.6.1.5.5.7.3.3'],
  ['emailprotection', '1.3.6.1.5.5.7.3.4'],
  ['timestamping', '1.3.6.1.5.5.7.3.8'],
  ['ocspsigning', '1.3.6.1.5.5.7.3.9'],
]);

/** An EKU as WE's config and `/pki/verify` take it: a name or a dotted OID; undefined when neither. */
export function ekuOid(text: string): string | undefined {
  const named = EKU_NAMES.get(text.toLowerCase());
  if (named !== undefined) return named;
  return /^(\d+\.)*\d+$/.test(text) ? text : undefined;
}
