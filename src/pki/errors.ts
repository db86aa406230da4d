/**
 * WE's PKI errors (ApiError.fromValidationError of CertificateNotFound, CertificatePathBuildError
 * and CertificateParseError): 119 (404), 120 and 121.
 */
import { WeError } from '../crypto/errors.js';

export class PkiError extends WeError {}

/** 119: `Couldn't find a certificate with <keyName> '<value>'`. */
export const certificateNotFound = (keyName: string, value: string, field?: string): PkiError =>
  new PkiError('CertificateNotFound', 119, `Couldn't find a certificate with ${keyName} '${value}'`, field, 404);

/** 120: a chain that does not validate for the public key of its user. */
export const certificatePathBuildError = (publicKeyBase58: string, reason: string, field = 'certificates'): PkiError =>
  new PkiError('CertificatePathBuildError', 120, `Error while validating provided certificate chain for the public key '${publicKeyBase58}': ${reason}`, field);

/** 121: certificates that cannot be read or do not form one chain. */
export const certificateParseError = (reason: string, field = 'certificates'): PkiError =>
  new PkiError('CertificateParseError', 121, `Error while parsing a certificate: ${reason}`, field);

/** 199 for PKI requests WE refuses with a free-text message. */
export const pkiRequestError = (message: string, field?: string): PkiError => new PkiError('CustomValidationError', 199, message, field);
