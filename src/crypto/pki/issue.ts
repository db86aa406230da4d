/**
 * Issuing GOST R 34.10-2012 (256-bit) X.509 v3 certificates (RFC 5280, RFC 9215): what a
 * dev chain's test CA signs its root and its accounts' certificates with. Names are
 * C / O / OU / CN attributes (C as PrintableString, the rest UTF8String); a CA certificate
 * gets a critical basicConstraints (cA) and keyUsage keyCertSign + cRLSign, an end-entity
 * certificate keyUsage digitalSignature + nonRepudiation and the extended key usages given.
 * The signature is the network's GOST signature over the TBSCertificate, as `signedBy`
 * (and OpenSSL's GOST engine) verify it.
 */
import { contextConstructed, integer, oid, sequence, setOf, tlv, time, Tag } from './der.js';
import { ekuOid, OID } from './oids.js';
import { gostSubjectPublicKeyInfo } from './x509.js';

/** A name, most significant attribute first: `{ C: 'RU', O: 'Weft', CN: 'Root' }`. */
export interface CertificateName {
  readonly C?: string;
  readonly O?: string;
  readonly OU?: string;
  readonly CN: string;
}

export interface CertificateRequest {
  readonly serial: bigint;
  readonly issuer: CertificateName;
  readonly subject: CertificateName;
  /** Validity, ms since the epoch. */
  readonly notBefore: bigint;
  readonly notAfter: bigint;
  /** The subject's 64-byte GOST public key. */
  readonly publicKey: Uint8Array;
  /** A CA certificate (basicConstraints cA, keyCertSign). */
  readonly ca: boolean;
  /** Extended key usages of an end-entity certificate: names (clientAuth, …) or dotted OIDs. */
  readonly extendedKeyUsage?: readonly string[];
  /** The issuer's GOST signature (its private key) over the TBSCertificate. */
  readonly sign: (tbs: Uint8Array) => Uint8Array;
}

const ATTRIBUTES: ReadonlyArray<readonly [keyof CertificateName, string, number]> = [
  ['C', '2.5.4.6', Tag.PRINTABLE_STRING],
  ['O', '2.5.4.10', Tag.UTF8_STRING],
  ['OU', '2.5.4.11', Tag.UTF8_STRING],
  ['CN', '2.5.4.3', Tag.UTF8_STRING],
];

function name(n: CertificateName): Uint8Array {
  const rdns = ATTRIBUTES.flatMap(([key, type, tag]) => {
    const value = n[key];
    return value === undefined ? [] : [setOf(sequence(oid(type), tlv(tag, Buffer.from(value, 'utf8'))))];
  });
  return sequence(...rdns);
}

function extension(id: string, critical: boolean, value: Uint8Array): Uint8Array {
  return sequence(oid(id), ...(critical ? [tlv(Tag.BOOLEAN, Uint8Array.of(0xff))] : []), tlv(Tag.OCTET_STRING, value));
}

/** A BIT STRING of named bits (bit 0 first), trailing zero bits dropped as DER wants. */
function namedBits(bits: readonly number[]): Uint8Array {
  const highest = Math.max(...bits);
  const bytes = new Uint8Array(Math.floor(highest / 8) + 1);
  for (const b of bits) bytes[Math.floor(b / 8)]! |= 0x80 >> (b % 8);
  const unused = 7 - (highest % 8);
  return tlv(Tag.BIT_STRING, Uint8Array.of(unused), bytes);
}

const KEY_USAGE = { digitalSignature: 0, nonRepudiation: 1, keyCertSign: 5, cRLSign: 6 } as const;

/** The DER certificate. Throws RangeError for an extended key usage that is neither a known name nor an OID. */
export function issueGostCertificate(r: CertificateRequest): Uint8Array {
  const algorithm = sequence(oid(OID.gost2012_256_signature));
  const extensions: Uint8Array[] = [];
  if (r.ca) {
    extensions.push(extension(OID.basicConstraints, true, sequence(tlv(Tag.BOOLEAN, Uint8Array.of(0xff)))));
    extensions.push(extension(OID.keyUsage, true, namedBits([KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign])));
  } else {
    extensions.push(extension(OID.keyUsage, true, namedBits([KEY_USAGE.digitalSignature, KEY_USAGE.nonRepudiation])));
    const ekus = (r.extendedKeyUsage ?? []).map((text) => {
      const id = ekuOid(text);
      if (id === undefined) throw new RangeError(`'${text}' is neither an extended key usage name nor a dotted OID`);
      return oid(id);
    });
    if (ekus.length > 0) extensions.push(extension(OID.extKeyUsage, false, sequence(...ekus)));
  }
  const tbs = sequence(
    contextConstructed(0, integer(2n)),
    integer(r.serial),
    algorithm,
    name(r.issuer),
    sequence(time(r.notBefore), time(r.notAfter)),
    name(r.subject),
    // A signing key: the CryptoPro-A paramset (XchA, the default, is for the handshake's key-exchange keys; OpenSSL will not sign with it).
    gostSubjectPublicKeyInfo(r.publicKey, '1.2.643.2.2.35.1'),
    contextConstructed(3, sequence(...extensions)),
  );
  const signature = r.sign(tbs);
  return sequence(tbs, algorithm, tlv(Tag.BIT_STRING, Uint8Array.of(0), signature));
}
