/**
 * A certificate as readable text (`/pki/certificate/...?plainText=true`), in the layout of
 * `openssl x509 -text`: version, serial, algorithms, issuer and subject (RFC 2253), validity,
 * the GOST key, the extensions Weft reads, and the signature.
 */
import { OID } from './oids.js';
import type { Certificate } from './x509.js';

const NAMES = new Map<string, string>([
  [OID.gost2012_256, 'GOST R 34.10-2012 with 256 bit modulus'],
  [OID.gost2012_256_signature, 'GOST R 34.10-2012 with GOST R 34.11-2012 (256 bit)'],
  [OID.streebog256, 'GOST R 34.11-2012 with 256 bit hash'],
  ['1.3.6.1.5.5.7.3.1', 'TLS Web Server Authentication'],
  ['1.3.6.1.5.5.7.3.2', 'TLS Web Client Authentication'],
  ['1.3.6.1.5.5.7.3.3', 'Code Signing'],
  ['1.3.6.1.5.5.7.3.4', 'E-mail Protection'],
  ['1.3.6.1.5.5.7.3.8', 'Time Stamping'],
  ['1.3.6.1.5.5.7.3.9', 'OCSP Signing'],
]);

const KEY_USAGES = [
  'Digital Signature',
  'Non Repudiation',
  'Key Encipherment',
  'Data Encipherment',
  'Key Agreement',
  'Certificate Sign',
  'CRL Sign',
  'Encipher Only',
  'Decipher Only',
];

const named = (oid: string): string => (NAMES.has(oid) ? `${NAMES.get(oid)!} (${oid})` : oid);
const hex = (b: Uint8Array): string => [...b].map((x) => x.toString(16).padStart(2, '0').toUpperCase()).join(':');
const wrap = (text: string, indent: string): string => (text.match(/.{1,54}/g) ?? []).map((l) => `${indent}${l}`).join('\n');
const serialHex = (n: bigint): string => {
  const digits = n.toString(16);
  return hex(Buffer.from(digits.length % 2 === 0 ? digits : `0${digits}`, 'hex'));
};
const date = (ms: bigint): string => new Date(Number(ms)).toUTCString().replace(/^\w+, /, '');

export function certificateText(c: Certificate): string {
  const lines = [
    'Certificate:',
    '    Data:',
    `        Version: ${c.version} (0x${(c.version - 1).toString(16)})`,
    '        Serial Number:',
    `            ${serialHex(c.serialNumber)}`,
    `        Signature Algorithm: ${named(c.signatureAlgorithm)}`,
    `        Issuer: ${c.issuer.rfc2253}`,
    '        Validity',
    `            Not Before: ${date(c.notBefore)}`,
    `            Not After : ${date(c.notAfter)}`,
    `        Subject: ${c.subject.rfc2253}`,
    '        Subject Public Key Info:',
    `            Public Key Algorithm: ${named(c.publicKey.algorithm)}`,
    `            Parameter set: ${c.publicKey.paramSet}`,
    '            Public key (x‖y, little-endian):',
    wrap(hex(c.publicKey.bytes), '                '),
  ];
  if (c.extensions.length > 0) {
    lines.push('        X509v3 extensions:');
    for (const e of c.extensions) {
      const critical = e.critical ? ' critical' : '';
      switch (e.oid) {
        case OID.basicConstraints:
          lines.push(
            `            X509v3 Basic Constraints:${critical}`,
            `                CA:${c.ca ? 'TRUE' : 'FALSE'}${c.pathLength === undefined ? '' : `, pathlen:${c.pathLength}`}`,
          );
          break;
        case OID.keyUsage:
          lines.push(
            `            X509v3 Key Usage:${critical}`,
            `                ${(c.keyUsage ?? []).flatMap((on, i) => (on ? [KEY_USAGES[i] ?? `bit ${i}`] : [])).join(', ')}`,
          );
          break;
        case OID.extKeyUsage:
          lines.push(`            X509v3 Extended Key Usage:${critical}`, `                ${(c.extendedKeyUsage ?? []).map(named).join(', ')}`);
          break;
        case OID.crlDistributionPoints:
          lines.push(`            X509v3 CRL Distribution Points:${critical}`, ...c.crlDistributionPoints.map((u) => `                URI:${u}`));
          break;
        case OID.subjectKeyIdentifier:
          lines.push(`            X509v3 Subject Key Identifier:${critical}`, `                ${hex(c.subjectKeyIdentifier ?? new Uint8Array(0))}`);
          break;
        case OID.authorityKeyIdentifier:
          lines.push(`            X509v3 Authority Key Identifier:${critical}`, `                ${hex(c.authorityKeyIdentifier ?? new Uint8Array(0))}`);
          break;
        default:
          lines.push(`            ${e.oid}:${critical}`, wrap(hex(e.value), '                '));
      }
    }
  }
  lines.push(`    Signature Algorithm: ${named(c.signatureAlgorithm)}`, '    Signature Value:', wrap(hex(c.signature), '        '));
  return `${lines.join('\n')}\n`;
}
