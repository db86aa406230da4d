/**
 * X.509 certificates with GOST R 34.10-2012 (256-bit) keys, read strictly from DER
 * (RFC 5280, RFC 4491/9215 for the GOST algorithm identifiers), and the names WE keys its
 * certificate store by:
 *
 * - the subject DN as Java's `X500Principal.getName()` prints it (RFC 2253 form: RDNs last
 *   first, only the keywords CN, C, L, ST, O, OU, STREET, DC, UID, any other attribute as
 *   `<oid>=#<hex of its DER value>`, RFC 2253 escaping);
 * - the DN hash: SHA-1 of that string's UTF-8 bytes;
 * - the fingerprint: SHA-1 of the DER certificate;
 * - the public key: the 64 bytes x(LE)‖y(LE) of the key, the account public key of a GOST
 *   network.
 *
 * Input is never trusted: anything that is not a well-formed certificate is a
 * `CertificateFormatError` naming the problem (no defaults are invented for missing parts).
 */
import { createHash } from 'node:crypto';
import {
  DerError,
  DerNode,
  oid,
  octetString,
  readBitFlags,
  readBitStringBytes,
  readBoolean,
  readDer,
  readInteger,
  readOid,
  readTime,
  sequence,
  Tag,
  tlv,
} from './der.js';
import { createGost256Verifier, type Gost256Curve, type Gost256Verify } from '../gost.js';
import { OID, paramSetCurve, type CurveChoice } from './oids.js';
import { InternalError } from '../../errors/internal.js';

export class CertificateFormatError extends InternalError {
  override readonly name = 'CertificateFormatError';
}

/** One attribute of a name, in the order the name holds it. */
export interface NameAttribute {
  readonly type: string;
  /** The attribute's DER value (tag, length, content). */
  readonly value: Uint8Array;
  readonly valueTag: number;
}

/** A distinguished name: its DER, its RDNs, and its Java RFC 2253 string. */
export interface DistinguishedName {
  readonly der: Uint8Array;
  readonly rdns: ReadonlyArray<readonly NameAttribute[]>;
  /** `X500Principal.getName()` (RFC 2253). */
  readonly rfc2253: string;
}

export interface GostPublicKey {
  readonly algorithm: string;
  readonly paramSet: string;
  readonly digest: string | undefined;
  /** The curve the library signs and verifies on, or why the key is not usable. */
  readonly curve: CurveChoice;
  /** x(LE) ‖ y(LE), 64 bytes. */
  readonly bytes: Uint8Array;
}

export interface Extension {
  readonly oid: string;
  readonly critical: boolean;
  readonly value: Uint8Array;
}

export interface Certificate {
  readonly der: Uint8Array;
  readonly tbs: Uint8Array;
  readonly version: number;
  readonly serialNumber: bigint;
  readonly signatureAlgorithm: string;
  readonly signature: Uint8Array;
  readonly issuer: DistinguishedName;
  readonly subject: DistinguishedName;
  readonly notBefore: bigint;
  readonly notAfter: bigint;
  readonly publicKey: GostPublicKey;
  readonly extensions: readonly Extension[];
  /** basicConstraints: a CA certificate, and its path length limit if any. */
  readonly ca: boolean;
  readonly pathLength: number | undefined;
  /** keyUsage bits (digitalSignature = 0 … decipherOnly = 8), undefined when absent. */
  readonly keyUsage: readonly boolean[] | undefined;
  /** extendedKeyUsage OIDs, undefined when absent. */
  readonly extendedKeyUsage: readonly string[] | undefined;
  /** CRL distribution point URIs. */
  readonly crlDistributionPoints: readonly string[];
  readonly subjectKeyIdentifier: Uint8Array | undefined;
  readonly authorityKeyIdentifier: Uint8Array | undefined;
}

// ---------------------------------------------------------------------------
// Names

const RFC2253_KEYWORDS = new Map([
  ['2.5.4.3', 'CN'],
  ['2.5.4.6', 'C'],
  ['2.5.4.7', 'L'],
  ['2.5.4.8', 'ST'],
  ['2.5.4.10', 'O'],
  ['2.5.4.11', 'OU'],
  ['2.5.4.9', 'STREET'],
  ['0.9.2342.19200300.100.1.25', 'DC'],
  ['0.9.2342.19200300.100.1.1', 'UID'],
]);

const ESCAPEES = ',=+<>#;"\\';

function stringValue(tag: number, content: Uint8Array): string | undefined {
  switch (tag) {
    case Tag.UTF8_STRING:
      return Buffer.from(content).toString('utf8');
    case Tag.BMP_STRING: {
      const swapped = Buffer.from(content);
      if (swapped.length % 2 !== 0) return undefined;
      swapped.swap16();
      return swapped.toString('utf16le');
    }
    case Tag.PRINTABLE_STRING:
    case Tag.T61_STRING:
    case Tag.IA5_STRING:
    case Tag.GENERAL_STRING:
      return Buffer.from(content).toString('latin1');
    default:
      return undefined;
  }
}

/** One attribute as Java's AVA.toRFC2253String writes it. */
function attributeRfc2253(a: NameAttribute): string {
  const keyword = RFC2253_KEYWORDS.get(a.type);
  const text = keyword === undefined ? undefined : stringValue(a.valueTag, readDer(a.value).content);
  if (keyword === undefined || text === undefined) {
    return `${keyword ?? a.type}=#${Buffer.from(a.value).toString('hex')}`;
  }
  let escaped = '';
  for (const c of text) {
    if (ESCAPEES.includes(c)) escaped += `\\${c}`;
    else if (c === '\u0000') escaped += '\\00';
    else escaped += c;
  }
  const chars = [...escaped];
  let lead = 0;
  while (lead < chars.length && (chars[lead] === ' ' || chars[lead] === '\r')) lead++;
  let trail = chars.length - 1;
  while (trail >= 0 && (chars[trail] === ' ' || chars[trail] === '\r')) trail--;
  const value = chars.map((c, i) => (i < lead || i > trail ? `\\${c}` : c)).join('');
  return `${keyword}=${value}`;
}

export function readName(node: DerNode): DistinguishedName {
  node.expect(Tag.SEQUENCE, 'name');
  const rdns = node.children().map((rdn) => {
    rdn.expect(Tag.SET, 'relative distinguished name');
    const attributes = rdn.children().map((ava) => {
      const [type, value, ...rest] = ava.expect(Tag.SEQUENCE, 'attribute').children();
      if (type === undefined || value === undefined || rest.length > 0) throw new DerError(`bad attribute at byte ${ava.offset}`);
      return { type: readOid(type), value: value.der, valueTag: value.tag };
    });
    if (attributes.length === 0) throw new DerError(`empty relative distinguished name at byte ${rdn.offset}`);
    return attributes;
  });
  const rfc2253 = [...rdns]
    .reverse()
    .map((rdn) => rdn.map(attributeRfc2253).join('+'))
    .join(',');
  return { der: node.der, rdns, rfc2253 };
}

/** SHA-1 of the UTF-8 bytes of a DN string: WE's DN hash key. */
export function dnHash(rfc2253: string): Uint8Array {
  return new Uint8Array(createHash('sha1').update(rfc2253, 'utf8').digest());
}

/** SHA-1 of the DER certificate: its fingerprint. */
export function fingerprint(der: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha1').update(der).digest());
}

// ---------------------------------------------------------------------------
// Certificates

function readAlgorithm(node: DerNode, what: string): { oid: string; params: DerNode | undefined } {
  const [id, params, ...rest] = node.expect(Tag.SEQUENCE, what).children();
  if (id === undefined || rest.length > 0) throw new DerError(`${what}: bad algorithm identifier at byte ${node.offset}`);
  return { oid: readOid(id), params };
}

/** A GOST signature algorithm's parameters: absent or NULL (both are met in the field). */
function checkNoParams(params: DerNode | undefined, what: string): void {
  if (params !== undefined && (params.tag !== Tag.NULL || params.content.length !== 0)) {
    throw new DerError(`${what}: unexpected algorithm parameters at byte ${params.offset}`);
  }
}

export function readGostPublicKey(spki: DerNode): GostPublicKey {
  const [algorithm, key, ...rest] = spki.expect(Tag.SEQUENCE, 'subject public key info').children();
  if (algorithm === undefined || key === undefined || rest.length > 0) throw new DerError('bad subject public key info');
  const alg = readAlgorithm(algorithm, 'public key algorithm');
  if (alg.oid !== OID.gost2012_256) {
    throw new CertificateFormatError(`the public key algorithm ${alg.oid} is not GOST R 34.10-2012 256-bit (${OID.gost2012_256})`);
  }
  if (alg.params === undefined) throw new CertificateFormatError('the GOST public key has no parameters (paramset OID)');
  const [paramSet, digest] = alg.params.expect(Tag.SEQUENCE, 'GOST key parameters').children();
  if (paramSet === undefined) throw new CertificateFormatError('the GOST public key names no paramset');
  const paramSetOid = readOid(paramSet);
  const inner = readDer(readBitStringBytes(key)).expect(Tag.OCTET_STRING, 'GOST public key');
  if (inner.content.length !== 64) throw new CertificateFormatError(`the GOST public key has ${inner.content.length} bytes, expected 64`);
  return {
    algorithm: alg.oid,
    paramSet: paramSetOid,
    digest: digest === undefined ? undefined : readOid(digest),
    curve: paramSetCurve(paramSetOid),
    bytes: new Uint8Array(inner.content),
  };
}

/**
 * The DER SubjectPublicKeyInfo of a 64-byte GOST R 34.10-2012 256-bit account key (104 bytes):
 * key algorithm 1.2.643.7.1.1.1.1, parameters { paramset (CryptoPro-XchA by default, the
 * curve of WE's account keys), Streebog-256 }, the key as an OCTET STRING in the BIT STRING.
 */
export function gostSubjectPublicKeyInfo(publicKey: Uint8Array, paramSet = '1.2.643.2.2.36.0'): Uint8Array {
  if (publicKey.length !== 64) throw new RangeError(`a GOST public key has 64 bytes, got ${publicKey.length}`);
  return sequence(
    sequence(oid(OID.gost2012_256), sequence(oid(paramSet), oid(OID.streebog256))),
    tlv(Tag.BIT_STRING, Uint8Array.of(0), octetString(publicKey)),
  );
}

function readExtensions(node: DerNode): Extension[] {
  const seq = node.children();
  if (seq.length !== 1) throw new DerError('bad extensions');
  const seen = new Set<string>();
  return seq[0]!
    .expect(Tag.SEQUENCE, 'extensions')
    .children()
    .map((ext) => {
      const parts = ext.expect(Tag.SEQUENCE, 'extension').children();
      const id = readOid(parts[0] ?? ext);
      let critical = false;
      let valueNode = parts[1];
      if (valueNode?.tag === Tag.BOOLEAN) {
        critical = readBoolean(valueNode);
        valueNode = parts[2];
      }
      if (valueNode === undefined) throw new DerError(`extension ${id} has no value`);
      if (seen.has(id)) throw new CertificateFormatError(`extension ${id} appears twice`);
      seen.add(id);
      return { oid: id, critical, value: new Uint8Array(valueNode.expect(Tag.OCTET_STRING, 'extension value').content) };
    });
}

function generalNameUris(node: DerNode): string[] {
  return node
    .children()
    .filter((n) => n.tag === 0x86)
    .map((n) => Buffer.from(n.content).toString('latin1'));
}

function crlDistributionPoints(value: Uint8Array): string[] {
  const out: string[] = [];
  for (const dp of readDer(value).expect(Tag.SEQUENCE, 'CRL distribution points').children()) {
    const name = dp.children().find((n) => n.tag === 0xa0);
    const full = name?.children().find((n) => n.tag === 0xa0);
    if (full !== undefined) out.push(...generalNameUris(full));
  }
  return out;
}

/** Parses a DER certificate with a GOST R 34.10-2012 256-bit key; throws CertificateFormatError. */
export function parseCertificate(der: Uint8Array): Certificate {
  try {
    return parse(der);
  } catch (e) {
    if (e instanceof CertificateFormatError) throw e;
    if (e instanceof DerError) throw new CertificateFormatError(`not a DER X.509 certificate: ${e.message}`);
    throw e;
  }
}

function parse(input: Uint8Array): Certificate {
  const der = new Uint8Array(input);
  const [tbs, sigAlg, sigValue, ...extra] = readDer(der).expect(Tag.SEQUENCE, 'certificate').children();
  if (tbs === undefined || sigAlg === undefined || sigValue === undefined || extra.length > 0)
    throw new DerError('a certificate is a sequence of three elements');
  const fields = tbs.expect(Tag.SEQUENCE, 'tbsCertificate').children();
  let i = 0;
  let version = 1;
  if (fields[0]?.tag === 0xa0) {
    const v = fields[0].children();
    if (v.length !== 1) throw new DerError('bad version');
    version = Number(readInteger(v[0]!)) + 1;
    i++;
  }
  if (version < 1 || version > 3) throw new CertificateFormatError(`unknown certificate version ${version}`);
  const need = (what: string): DerNode => {
    const n = fields[i++];
    if (n === undefined) throw new DerError(`tbsCertificate ends before its ${what}`);
    return n;
  };
  const serialNumber = readInteger(need('serial number'));
  const innerAlg = readAlgorithm(need('signature algorithm'), 'signature algorithm');
  const issuer = readName(need('issuer'));
  const validity = need('validity').expect(Tag.SEQUENCE, 'validity').children();
  if (validity.length !== 2) throw new DerError('validity is two times');
  const subject = readName(need('subject'));
  const publicKey = readGostPublicKey(need('subject public key info'));
  let extensions: Extension[] = [];
  for (; i < fields.length; i++) {
    const n = fields[i]!;
    if (n.tag === 0x81 || n.tag === 0x82) continue; // unique identifiers
    if (n.tag === 0xa3) extensions = readExtensions(n);
    else throw new DerError(`unexpected element 0x${n.tag.toString(16)} in tbsCertificate at byte ${n.offset}`);
  }
  const outerAlg = readAlgorithm(sigAlg, 'signature algorithm');
  if (outerAlg.oid !== innerAlg.oid) throw new CertificateFormatError('the two signature algorithm identifiers differ');
  checkNoParams(outerAlg.params, 'signature algorithm');
  checkNoParams(innerAlg.params, 'signature algorithm');
  const signature = readBitStringBytes(sigValue);

  const ext = (id: string): Extension | undefined => extensions.find((e) => e.oid === id);
  const bc = ext(OID.basicConstraints);
  let ca = false;
  let pathLength: number | undefined;
  if (bc !== undefined) {
    for (const n of readDer(bc.value).expect(Tag.SEQUENCE, 'basic constraints').children()) {
      if (n.tag === Tag.BOOLEAN) ca = readBoolean(n);
      else pathLength = Number(readInteger(n));
    }
  }
  const ku = ext(OID.keyUsage);
  const eku = ext(OID.extKeyUsage);
  const cdp = ext(OID.crlDistributionPoints);
  const ski = ext(OID.subjectKeyIdentifier);
  const aki = ext(OID.authorityKeyIdentifier);
  return {
    der,
    tbs: tbs.der,
    version,
    serialNumber,
    signatureAlgorithm: outerAlg.oid,
    signature: new Uint8Array(signature),
    issuer,
    subject,
    notBefore: readTime(validity[0]!),
    notAfter: readTime(validity[1]!),
    publicKey,
    extensions,
    ca,
    pathLength,
    keyUsage: ku === undefined ? undefined : readBitFlags(readDer(ku.value)),
    extendedKeyUsage: eku === undefined ? undefined : readDer(eku.value).expect(Tag.SEQUENCE, 'extended key usage').children().map(readOid),
    crlDistributionPoints: cdp === undefined ? [] : crlDistributionPoints(cdp.value),
    subjectKeyIdentifier: ski === undefined ? undefined : new Uint8Array(readDer(ski.value).expect(Tag.OCTET_STRING, 'subject key identifier').content),
    authorityKeyIdentifier:
      aki === undefined
        ? undefined
        : ((): Uint8Array | undefined => {
            const id = readDer(aki.value)
              .expect(Tag.SEQUENCE, 'authority key identifier')
              .children()
              .find((n) => n.tag === 0x80);
            return id === undefined ? undefined : new Uint8Array(id.content);
          })(),
  };
}

/** Whether a certificate's (or CRL's) signature verifies with `issuerKey` (GOST R 34.10-2012 256 over Streebog-256 of the TBS). */
export function signedBy(
  signed: { readonly signatureAlgorithm: string; readonly tbs: Uint8Array; readonly signature: Uint8Array },
  issuerKey: GostPublicKey,
  verifiers: GostVerifiers,
): boolean {
  if (signed.signatureAlgorithm !== OID.gost2012_256_signature || !('curve' in issuerKey.curve)) return false;
  return verifiers.forCurve(issuerKey.curve.curve)(issuerKey.bytes, signed.tbs, signed.signature);
}

/** GOST R 34.10-2012 256 verifiers by curve, made once per user (no module-level state). */
export class GostVerifiers {
  readonly #byCurve = new Map<Gost256Curve, Gost256Verify>();
  forCurve(curve: Gost256Curve): Gost256Verify {
    let v = this.#byCurve.get(curve);
    if (v === undefined) {
      v = createGost256Verifier(curve);
      this.#byCurve.set(curve, v);
    }
    return v;
  }
}
