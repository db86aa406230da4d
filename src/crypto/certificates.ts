/**
 * X.509 certificates as WE's requests carry them (`certificates`: Base64 of DER), read
 * with WE's errors (ApiError 121 CertificateParseError, texts of WE's decodeBase64Certificates).
 */
import { X509Certificate } from 'node:crypto';
import { decodeBase64, EncodingError } from './encoding.js';
import { CryptoError } from '../errors/catalogue.js';

const parseError = (reason: string): CryptoError =>
  new CryptoError('CertificateParseError', 121, `Error while parsing a certificate: ${reason}`, 'certificates');

/**
 * A request's `certificates` value on a network without PKI (WE's certChainFromJson):
 * absent, not a list of strings or empty → none; else each must be Base64 of a DER X.509
 * certificate (121). No chain is built from them.
 */
export function checkCertificatesField(certificates: unknown): void {
  if (!Array.isArray(certificates) || certificates.length === 0) return;
  const texts = certificates.filter((c): c is string => typeof c === 'string');
  if (texts.length !== certificates.length) return;
  certificatesFromBase64(texts);
}

/** Each text as a certificate: Base64 of DER X.509, else WE's 121. */
export function certificatesFromBase64(texts: readonly string[]): X509Certificate[] {
  return texts.map((text) => {
    let der: Uint8Array;
    try {
      der = decodeBase64(text);
    } catch (e) {
      throw parseError(`Encountered an invalid Base64: ${e instanceof EncodingError ? e.message : String(e)}`);
    }
    try {
      return new X509Certificate(der);
    } catch {
      throw parseError('Expected a valid X.509 certificate in DER encoding');
    }
  });
}
