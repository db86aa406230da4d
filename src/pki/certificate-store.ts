/**
 * The network's certificates as PKI reads them. They live in the chain's state store, in
 * the key families WE keeps in its "certs" column family (DN hash → DER certificate, public
 * key → DN hash, fingerprint → DN hash, height → DN hashes), written in the commit of the
 * block that mined the transaction carrying them and undone with it (chain/carried-certificates.ts,
 * state/store.ts). This is the read side over those families.
 */
import { dnHash, parseCertificate, type Certificate } from '../crypto/pki/x509.js';

/** The certificate families of the chain's state store (state/store.ts's Store has them). */
export interface CertificateRecords {
  certificateByDnHash(dnHash: Uint8Array): Uint8Array | undefined;
  certificateDnHashByPublicKey(publicKey: Uint8Array): Uint8Array | undefined;
  certificateDnHashByFingerprint(fingerprint: Uint8Array): Uint8Array | undefined;
}

export class CertificateStore {
  constructor(private readonly records: CertificateRecords) {}

  byDnHash(hash: Uint8Array): Certificate | undefined {
    const der = this.records.certificateByDnHash(hash);
    return der === undefined ? undefined : parseCertificate(der);
  }

  byDn(rfc2253: string): Certificate | undefined {
    return this.byDnHash(dnHash(rfc2253));
  }

  byPublicKey(publicKey: Uint8Array): Certificate | undefined {
    const hash = this.records.certificateDnHashByPublicKey(publicKey);
    return hash === undefined ? undefined : this.byDnHash(hash);
  }

  byFingerprint(sha1: Uint8Array): Certificate | undefined {
    const hash = this.records.certificateDnHashByFingerprint(sha1);
    return hash === undefined ? undefined : this.byDnHash(hash);
  }
}
