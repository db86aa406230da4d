/**
 * A self-signed P-256 certificate and its key for P2P TLS in tests, written with the openssl
 * command line (installed by .ci/run).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export interface CertificateFiles {
  readonly keyFile: string;
  readonly certFile: string;
}

/** `key.pem` and `cert.pem` in `dir` (valid one day, CN `subject`); undefined when openssl cannot be run. */
export function writeSelfSignedCertificate(dir: string, subject = 'weft-test'): CertificateFiles | undefined {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'];
  try {
    execFileSync('openssl', [...args, '-subj', `/CN=${subject}`, '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return { keyFile, certFile };
}
