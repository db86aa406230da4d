/**
 * The certificate chain of a transaction's `certificates` field (WE's certChainFromJson):
 * Base64 DER certificates → a graph by subject and issuer DN → exactly one chain, ordered
 * from the user's certificate up to the topmost issuer present. Anything else is a
 * `CertificateChainError` with WE's wording.
 */
import { decodeBase64, EncodingError, equalBytes } from '../encoding.js';
import { CertificateFormatError, parseCertificate, type Certificate } from './x509.js';
import { InternalError } from '../../errors/internal.js';

export class CertificateChainError extends InternalError {
  override readonly name = 'CertificateChainError';
}

/** A chain from the user's certificate (first) to its topmost issuer in the set (last). */
export interface CertificateChain {
  readonly certificates: readonly Certificate[];
}

export function userCertificate(chain: CertificateChain): Certificate {
  return chain.certificates[0]!;
}

/** Parses Base64 DER certificates (121-family errors: bad Base64, bad DER). */
export function parseCertificatesBase64(texts: readonly string[]): Certificate[] {
  return texts.map((text) => {
    let der: Uint8Array;
    try {
      der = decodeBase64(text);
    } catch (e) {
      throw new CertificateChainError(`Encountered an invalid Base64: ${e instanceof EncodingError ? e.message : String(e)}`);
    }
    try {
      return parseCertificate(der);
    } catch (e) {
      if (e instanceof CertificateFormatError) throw new CertificateChainError(`Expected a valid X.509 certificate in DER encoding: ${e.message}`);
      throw e;
    }
  });
}

/**
 * The one chain a set of certificates forms. A chain starts at a certificate that issued no
 * other certificate of the set and follows issuer DNs; the set must form exactly one chain and
 * every certificate must be on it.
 */
export function buildCertificateChain(certs: readonly Certificate[]): CertificateChain {
  if (certs.length === 0) throw new CertificateChainError("Unexpected cert chains number. Provided: '0', expected: '1'");
  const bySubject = new Map<string, Certificate>();
  for (const c of certs) {
    const other = bySubject.get(c.subject.rfc2253);
    if (other !== undefined && Buffer.compare(Buffer.from(other.der), Buffer.from(c.der)) !== 0) {
      throw new CertificateChainError(`two different certificates for the subject '${c.subject.rfc2253}'`);
    }
    bySubject.set(c.subject.rfc2253, c);
  }
  const unique = [...bySubject.values()];
  const isIssuerOfAnother = (c: Certificate): boolean => unique.some((o) => o !== c && o.issuer.rfc2253 === c.subject.rfc2253);
  const leaves = unique.filter((c) => !isIssuerOfAnother(c));
  if (leaves.length !== 1) throw new CertificateChainError(`Unexpected cert chains number. Provided: '${leaves.length}', expected: '1'`);
  const ordered = issuerPath(leaves[0]!, bySubject);
  if (ordered.length !== unique.length) {
    throw new CertificateChainError(`Unexpected cert chains number. Provided: '${1 + unique.length - ordered.length}', expected: '1'`);
  }
  return { certificates: ordered };
}

/** `leaf`, then its issuers found by DN among `bySubject`, up to a self-issued one or the first missing. */
function issuerPath(leaf: Certificate, bySubject: ReadonlyMap<string, Certificate>): Certificate[] {
  const ordered: Certificate[] = [leaf];
  for (;;) {
    const last = ordered[ordered.length - 1]!;
    if (last.issuer.rfc2253 === last.subject.rfc2253) return ordered;
    const issuer = bySubject.get(last.issuer.rfc2253);
    if (issuer === undefined || ordered.includes(issuer)) return ordered;
    ordered.push(issuer);
  }
}

/**
 * The chain of one user's certificate within a set that may hold several chains (the
 * certificates a block or micro-block carried for its transactions, P2P 45/47): the
 * certificate holding `publicKey`, then its issuers present in the set; undefined when no
 * certificate of the set holds that key.
 */
export function chainOfKey(certs: readonly Certificate[], publicKey: Uint8Array): CertificateChain | undefined {
  const leaf = certs.find((c) => equalBytes(c.publicKey.bytes, publicKey));
  if (leaf === undefined) return undefined;
  return { certificates: issuerPath(leaf, new Map(certs.map((c) => [c.subject.rfc2253, c]))) };
}
