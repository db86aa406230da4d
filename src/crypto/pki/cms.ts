/**
 * Detached CMS SignedData (RFC 5652) with GOST R 34.10-2012 256-bit signatures over
 * Streebog-256 digests (RFC 4490/9215 identifiers), as CAdES-BES (ETSI EN 319 122-1): signed
 * attributes content-type, signing-time, message-digest and ESS signing-certificate-v2
 * (RFC 5035) naming the signer's certificate by its Streebog-256 hash.
 *
 * The signed attributes are a DER SET OF, written in DER order (sorted encodings), and the
 * signature is computed over exactly those bytes: the ordering defect of
 * @wavesenterprise/crypto-gost-js's CMS builder does not arise because only its
 * primitives (Streebog, GOST R 34.10) are used here.
 */
import {
  contextConstructed,
  DerError,
  DerNode,
  integer,
  nullValue,
  octetString,
  oid,
  readDer,
  readInteger,
  readOid,
  readTime,
  sequence,
  setOf,
  Tag,
  time,
  tlv,
} from './der.js';
import { OID } from './oids.js';
import { CertificateFormatError, parseCertificate, signedBy, type Certificate, type GostVerifiers } from './x509.js';
import { InternalError } from '../../errors/internal.js';

export class CmsFormatError extends InternalError {
  override readonly name = 'CmsFormatError';
}

export interface CadesBesInput {
  /** The signed data (not included: the signature is detached). */
  readonly content: Uint8Array;
  /** The signer's certificate; its key must be the signing key. */
  readonly signer: Certificate;
  /** Other certificates to include (issuers up to the root). */
  readonly chain: readonly Certificate[];
  readonly signingTime: bigint;
  /** Streebog-256. */
  readonly digest: (data: Uint8Array) => Uint8Array;
  /** GOST R 34.10-2012 256 signature of a message with the signer's private key (64 bytes, s‖r). */
  readonly sign: (message: Uint8Array) => Uint8Array;
}

const algorithm = (id: string): Uint8Array => sequence(oid(id), nullValue());
const attribute = (type: string, ...values: Uint8Array[]): Uint8Array => sequence(oid(type), setOf(...values));

/** ESS signing-certificate-v2 naming a certificate by its Streebog-256 hash and issuer/serial. */
function signingCertificateV2(cert: Certificate, digest: (d: Uint8Array) => Uint8Array): Uint8Array {
  const issuerSerial = sequence(sequence(contextConstructed(4, cert.issuer.der)), integer(cert.serialNumber));
  return sequence(sequence(sequence(algorithm(OID.streebog256), octetString(digest(cert.der)), issuerSerial)));
}

/** A detached CAdES-BES signature (DER ContentInfo). */
export function createDetachedCadesBes(input: CadesBesInput): Uint8Array {
  const { signer, digest } = input;
  const signedAttributes = setOf(
    attribute(OID.contentType, oid(OID.cmsData)),
    attribute(OID.signingTime, time(input.signingTime)),
    attribute(OID.messageDigest, octetString(digest(input.content))),
    attribute(OID.signingCertificateV2, signingCertificateV2(signer, digest)),
  );
  const signature = input.sign(signedAttributes);
  // In the SignerInfo the attributes are [0] IMPLICIT: same content, another tag.
  const implicitAttributes = Uint8Array.from(signedAttributes);
  implicitAttributes[0] = 0xa0;
  const signerInfo = sequence(
    integer(1n),
    sequence(signer.issuer.der, integer(signer.serialNumber)),
    algorithm(OID.streebog256),
    implicitAttributes,
    algorithm(OID.gost2012_256),
    octetString(signature),
  );
  const certificates = [signer, ...input.chain.filter((c) => c.der !== signer.der)];
  const signedData = sequence(
    integer(1n),
    setOf(algorithm(OID.streebog256)),
    sequence(oid(OID.cmsData)),
    tlv(0xa0, ...certificates.map((c) => c.der)),
    setOf(signerInfo),
  );
  return sequence(oid(OID.cmsSignedData), contextConstructed(0, signedData));
}

// ---------------------------------------------------------------------------
// Verification

export interface CmsSignerInfo {
  readonly issuerDer: Uint8Array | undefined;
  readonly serialNumber: bigint | undefined;
  readonly subjectKeyIdentifier: Uint8Array | undefined;
  readonly digestAlgorithm: string;
  /** DER of the signed attributes re-tagged as SET OF (what was signed), if present. */
  readonly signedAttributes: Uint8Array | undefined;
  readonly messageDigest: Uint8Array | undefined;
  readonly contentType: string | undefined;
  readonly signingTime: bigint | undefined;
  /** Streebog-256 hashes of certificates named by signing-certificate-v2. */
  readonly signingCertificateHashes: readonly Uint8Array[] | undefined;
  readonly signatureAlgorithm: string;
  readonly signature: Uint8Array;
}

export interface DetachedSignedData {
  /** Non-empty when the signature is not detached (the content is inside). */
  readonly encapsulatedContent: Uint8Array | undefined;
  readonly certificates: readonly Certificate[];
  readonly signers: readonly CmsSignerInfo[];
}

function readAlgorithmOid(node: DerNode): string {
  const [id] = node.expect(Tag.SEQUENCE, 'algorithm identifier').children();
  if (id === undefined) throw new DerError(`empty algorithm identifier at byte ${node.offset}`);
  return readOid(id);
}

function readSignerInfo(node: DerNode): CmsSignerInfo {
  const parts = node.expect(Tag.SEQUENCE, 'signer info').children();
  let i = 1;
  const sid = parts[i++];
  if (sid === undefined) throw new DerError('signer info ends early');
  let issuerDer: Uint8Array | undefined;
  let serialNumber: bigint | undefined;
  let subjectKeyIdentifier: Uint8Array | undefined;
  if (sid.tag === Tag.SEQUENCE) {
    const [issuer, serial] = sid.children();
    if (issuer === undefined || serial === undefined) throw new DerError('bad issuer and serial number');
    issuerDer = issuer.expect(Tag.SEQUENCE, 'issuer').der;
    serialNumber = readInteger(serial);
  } else if (sid.tag === 0x80) {
    subjectKeyIdentifier = sid.content;
  } else {
    throw new DerError(`bad signer identifier at byte ${sid.offset}`);
  }
  const digestAlgorithm = readAlgorithmOid(parts[i++] ?? node);
  let signedAttributes: Uint8Array | undefined;
  let messageDigest: Uint8Array | undefined;
  let contentType: string | undefined;
  let signingTime: bigint | undefined;
  let signingCertificateHashes: Uint8Array[] | undefined;
  if (parts[i]?.tag === 0xa0) {
    const attrs = parts[i++]!;
    signedAttributes = Uint8Array.from(attrs.der);
    signedAttributes[0] = Tag.SET;
    for (const a of attrs.children()) {
      const [type, values] = a.expect(Tag.SEQUENCE, 'attribute').children();
      if (type === undefined || values === undefined) throw new DerError(`bad attribute at byte ${a.offset}`);
      const first = values.expect(Tag.SET, 'attribute values').children()[0];
      if (first === undefined) throw new DerError(`attribute without a value at byte ${a.offset}`);
      switch (readOid(type)) {
        case OID.messageDigest:
          messageDigest = first.expect(Tag.OCTET_STRING, 'message digest').content;
          break;
        case OID.contentType:
          contentType = readOid(first);
          break;
        case OID.signingTime:
          signingTime = readTime(first);
          break;
        case OID.signingCertificateV2: {
          const [certs] = first.expect(Tag.SEQUENCE, 'signing certificate').children();
          signingCertificateHashes = (certs?.children() ?? []).map((id) => {
            const fields = id.expect(Tag.SEQUENCE, 'ESS certificate id').children();
            const hash = fields.find((f) => f.tag === Tag.OCTET_STRING);
            if (hash === undefined) throw new DerError(`ESS certificate id without a hash at byte ${id.offset}`);
            return hash.content;
          });
          break;
        }
      }
    }
  }
  const signatureAlgorithm = readAlgorithmOid(parts[i++] ?? node);
  const signature = (parts[i] ?? node).expect(Tag.OCTET_STRING, 'signature').content;
  return {
    issuerDer,
    serialNumber,
    subjectKeyIdentifier,
    digestAlgorithm,
    signedAttributes,
    messageDigest,
    contentType,
    signingTime,
    signingCertificateHashes,
    signatureAlgorithm,
    signature,
  };
}

/** Reads a DER CMS ContentInfo holding SignedData; throws CmsFormatError. */
export function parseSignedData(der: Uint8Array): DetachedSignedData {
  try {
    const [type, explicit, ...rest] = readDer(der).expect(Tag.SEQUENCE, 'content info').children();
    if (type === undefined || explicit === undefined || rest.length > 0 || readOid(type) !== OID.cmsSignedData) {
      throw new CmsFormatError('not a CMS SignedData (content type 1.2.840.113549.1.7.2)');
    }
    const [signedData] = explicit.expect(0xa0, 'signed data').children();
    const parts = (signedData ?? explicit).expect(Tag.SEQUENCE, 'signed data').children();
    let i = 2;
    const encap = (parts[i++] ?? explicit).expect(Tag.SEQUENCE, 'encapsulated content info').children();
    const eContent = encap[1]?.children()[0];
    const certificates: Certificate[] = [];
    if (parts[i]?.tag === 0xa0) for (const c of parts[i++]!.children()) if (c.tag === Tag.SEQUENCE) certificates.push(parseCertificate(c.der));
    if (parts[i]?.tag === 0xa1) i++; // CRLs
    const signers = (parts[i++] ?? explicit).expect(Tag.SET, 'signer infos').children().map(readSignerInfo);
    if (signers.length === 0) throw new CmsFormatError('the SignedData has no signer');
    return { encapsulatedContent: eContent === undefined ? undefined : eContent.content, certificates, signers };
  } catch (e) {
    if (e instanceof DerError) throw new CmsFormatError(`not a DER CMS signature: ${e.message}`);
    if (e instanceof CertificateFormatError) throw new CmsFormatError(`a certificate inside the signature is not valid: ${e.message}`);
    throw e;
  }
}

export type SignatureCheck =
  { readonly valid: true; readonly signer: Certificate } | { readonly valid: false; readonly reason: string; readonly signer?: Certificate };

/**
 * Checks a detached signature over `content`: for every signer, its certificate (from the
 * signature's certificates or `extraCertificates`), the message digest, the content type and
 * signing-certificate-v2 attributes, and the GOST signature over the signed attributes.
 * Answers the first signer's certificate on success.
 */
export function verifyDetached(
  signed: DetachedSignedData,
  content: Uint8Array,
  tools: { readonly digest: (d: Uint8Array) => Uint8Array; readonly verifiers: GostVerifiers; readonly extraCertificates?: readonly Certificate[] },
): SignatureCheck {
  if (signed.encapsulatedContent !== undefined && signed.encapsulatedContent.length > 0) {
    if (Buffer.compare(Buffer.from(signed.encapsulatedContent), Buffer.from(content)) !== 0)
      return { valid: false, reason: 'the signature holds other content than the data given' };
  }
  const pool = [...signed.certificates, ...(tools.extraCertificates ?? [])];
  const contentDigest = tools.digest(content);
  let first: Certificate | undefined;
  for (const s of signed.signers) {
    const cert = pool.find((c) =>
      s.subjectKeyIdentifier !== undefined
        ? c.subjectKeyIdentifier !== undefined && Buffer.compare(Buffer.from(c.subjectKeyIdentifier), Buffer.from(s.subjectKeyIdentifier)) === 0
        : c.serialNumber === s.serialNumber && Buffer.compare(Buffer.from(c.issuer.der), Buffer.from(s.issuerDer!)) === 0,
    );
    if (cert === undefined) return { valid: false, reason: "the signer's certificate is not in the signature" };
    first ??= cert;
    if (s.digestAlgorithm !== OID.streebog256) return { valid: false, reason: `digest algorithm ${s.digestAlgorithm} is not Streebog-256`, signer: cert };
    if (s.signatureAlgorithm !== OID.gost2012_256 && s.signatureAlgorithm !== OID.gost2012_256_signature) {
      return { valid: false, reason: `signature algorithm ${s.signatureAlgorithm} is not GOST R 34.10-2012 256-bit`, signer: cert };
    }
    let signedBytes: Uint8Array;
    if (s.signedAttributes !== undefined) {
      if (s.messageDigest === undefined || Buffer.compare(Buffer.from(s.messageDigest), Buffer.from(contentDigest)) !== 0)
        return { valid: false, reason: 'the message digest does not match the data', signer: cert };
      if (s.contentType !== OID.cmsData) return { valid: false, reason: 'the content-type attribute is not id-data', signer: cert };
      if (
        s.signingCertificateHashes !== undefined &&
        !s.signingCertificateHashes.some((h) => Buffer.compare(Buffer.from(h), Buffer.from(tools.digest(cert.der))) === 0)
      ) {
        return { valid: false, reason: 'signing-certificate-v2 names another certificate', signer: cert };
      }
      signedBytes = s.signedAttributes;
    } else {
      signedBytes = content;
    }
    const ok = signedBy({ signatureAlgorithm: OID.gost2012_256_signature, tbs: signedBytes, signature: s.signature }, cert.publicKey, tools.verifiers);
    if (!ok) return { valid: false, reason: 'the signature does not verify', signer: cert };
  }
  return { valid: true, signer: first! };
}
