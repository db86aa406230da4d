/**
 * Certificate chain validation of a GOST network in PKI mode TEST or ON (RFC 5280 path
 * validation, the parts a permissioned network needs):
 *
 * 1. the user's certificate holds the public key the chain is presented for;
 * 2. the chain is completed upwards from the genesis certificates and the certificate store
 *    until a self-signed root, whose SHA-1 fingerprint must be one of
 *    `blockchain.custom.genesis.pki.trusted-root-fingerprints`;
 * 3. every certificate is within its validity period at the node's time, names no critical
 *    extension the validator does not understand, and has a key on a curve the GOST library has;
 * 4. every certificate is signed by the next one, which is a CA (basicConstraints cA, keyCertSign
 *    when keyUsage is present, path length respected);
 * 5. the user's extended key usage holds every `required-oids` OID (and any the caller adds);
 * 6. with `crl-checks-enabled`, every certificate but the root is checked against a current CRL
 *    of its issuer (a missing or expired CRL fails the check, as PKIX does).
 *
 * The first failed rule is the reason; the caller turns it into WE's error 120.
 */
import { encodeBase58 } from '../crypto/encoding.js';
import type { CertificateChain } from '../crypto/pki/chain.js';
import { UNDERSTOOD_EXTENSIONS } from '../crypto/pki/oids.js';
import { fingerprint, signedBy, type Certificate, type GostVerifiers } from '../crypto/pki/x509.js';
import type { CertificateStore } from './certificate-store.js';
import type { CrlSource } from './crl-source.js';
import { certificatePathBuildError } from '../errors/catalogue.js';
import type { PkiSettings } from './settings.js';

const KEY_CERT_SIGN = 5;

export interface ChainValidatorOptions {
  readonly settings: PkiSettings;
  readonly store: CertificateStore;
  readonly crls: CrlSource;
  readonly verifiers: GostVerifiers;
  readonly now: () => bigint;
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
const isoTime = (ms: bigint): string => new Date(Number(ms)).toISOString();

export class ChainValidator {
  constructor(private readonly o: ChainValidatorOptions) {}

  /** The issuer certificate of `cert` from the chain itself, the genesis or the store. */
  private issuerOf(cert: Certificate, given: readonly Certificate[]): Certificate | undefined {
    const dn = cert.issuer.rfc2253;
    return given.find((c) => c.subject.rfc2253 === dn) ?? this.o.settings.genesis.certificates.find((c) => c.subject.rfc2253 === dn) ?? this.o.store.byDn(dn);
  }

  /** The chain completed up to a self-issued certificate, or why it cannot be. */
  private complete(chain: CertificateChain): Certificate[] | string {
    const path = [...chain.certificates];
    for (;;) {
      const top = path[path.length - 1]!;
      if (top.issuer.rfc2253 === top.subject.rfc2253) return path;
      if (path.length > 16) return 'the chain is longer than 16 certificates';
      const issuer = this.issuerOf(top, chain.certificates);
      if (issuer === undefined) return `the issuer '${top.issuer.rfc2253}' of '${top.subject.rfc2253}' is not known to the network`;
      if (path.includes(issuer)) return `the chain loops at '${issuer.subject.rfc2253}'`;
      path.push(issuer);
    }
  }

  /** Why the chain does not validate for `publicKey` (undefined: it validates). */
  async problem(chain: CertificateChain, publicKey: Uint8Array | undefined, extraEkus: readonly string[] = []): Promise<string | undefined> {
    const user = chain.certificates[0]!;
    if (publicKey !== undefined && !sameBytes(user.publicKey.bytes, publicKey)) {
      return `the user certificate '${user.subject.rfc2253}' holds the public key '${encodeBase58(user.publicKey.bytes)}', not this one`;
    }
    const path = this.complete(chain);
    if (typeof path === 'string') return path;
    const root = path[path.length - 1]!;
    const trusted = this.o.settings.genesis.trustedRootFingerprints;
    if (trusted.length === 0) return 'no trusted root is configured (blockchain.custom.genesis.pki.trusted-root-fingerprints)';
    if (!trusted.some((f) => sameBytes(f, fingerprint(root.der)))) return `the root '${root.subject.rfc2253}' is not a trusted root`;
    if (!signedBy(root, root.publicKey, this.o.verifiers)) return `the root '${root.subject.rfc2253}' is not validly self-signed`;
    const now = this.o.now();
    for (let i = 0; i < path.length; i++) {
      const c = path[i]!;
      const name = `'${c.subject.rfc2253}'`;
      if (!('curve' in c.publicKey.curve)) return `the key of ${name}: ${c.publicKey.curve.unsupported}`;
      if (now < c.notBefore) return `${name} is not valid before ${isoTime(c.notBefore)}`;
      if (now > c.notAfter) return `${name} expired at ${isoTime(c.notAfter)}`;
      const unknown = c.extensions.find((e) => e.critical && !UNDERSTOOD_EXTENSIONS.has(e.oid));
      if (unknown !== undefined) return `${name} has the critical extension ${unknown.oid}, which is not understood`;
      if (i === path.length - 1) break;
      const issuer = path[i + 1]!;
      if (!signedBy(c, issuer.publicKey, this.o.verifiers)) return `the signature of ${name} does not verify with the key of '${issuer.subject.rfc2253}'`;
      if (!issuer.ca) return `'${issuer.subject.rfc2253}' is not a CA certificate (basicConstraints)`;
      if (issuer.keyUsage !== undefined && issuer.keyUsage[KEY_CERT_SIGN] !== true) return `'${issuer.subject.rfc2253}' may not sign certificates (keyUsage)`;
      // CA certificates between this issuer and the user (self-issued ones excepted).
      const below = path.slice(1, i + 1).filter((x) => x.issuer.rfc2253 !== x.subject.rfc2253).length;
      if (issuer.pathLength !== undefined && below > issuer.pathLength)
        return `'${issuer.subject.rfc2253}' allows ${issuer.pathLength} intermediate CA certificate(s) below it`;
    }
    const required = [...new Set([...this.o.settings.requiredOids, ...extraEkus])];
    const missing = required.filter((oid) => !(user.extendedKeyUsage ?? []).includes(oid));
    if (missing.length > 0) return `the user certificate '${user.subject.rfc2253}' lacks the extended key usage ${missing.join(', ')}`;
    if (this.o.settings.crlChecksEnabled) {
      for (let i = 0; i < path.length - 1; i++) {
        const c = path[i]!;
        const issuer = path[i + 1]!;
        const crl = await this.o.crls.crlFor(c, issuer);
        if (crl === undefined) {
          const points = c.crlDistributionPoints.length === 0 ? 'it names no distribution point' : `distribution points: ${c.crlDistributionPoints.join(', ')}`;
          return `no CRL of '${issuer.subject.rfc2253}' can be had to check '${c.subject.rfc2253}' (${points})`;
        }
        if (crl.nextUpdate !== undefined && crl.nextUpdate < now) return `the newest CRL of '${issuer.subject.rfc2253}' expired at ${isoTime(crl.nextUpdate)}`;
        const revokedAt = crl.revoked.get(c.serialNumber);
        if (revokedAt !== undefined && revokedAt <= now)
          return `'${c.subject.rfc2253}' (serial ${c.serialNumber.toString(16)}) was revoked at ${isoTime(revokedAt)}`;
      }
    }
    return undefined;
  }

  /** Throws WE's 120 when the chain does not validate. */
  async validate(chain: CertificateChain, publicKey: Uint8Array, extraEkus: readonly string[] = []): Promise<void> {
    const reason = await this.problem(chain, publicKey, extraEkus);
    if (reason !== undefined) throw certificatePathBuildError(encodeBase58(publicKey), reason);
  }
}
