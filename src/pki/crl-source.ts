/**
 * Where the validator gets CRLs: those the genesis lists, then the certificate's CRL
 * distribution points (http/https), fetched and kept until the CRL's nextUpdate or the
 * sync period, whichever comes first (WE's CrlSyncManager period, 2 hours by default).
 * A CRL is accepted only when its issuer DN is the certificate's issuer and its signature
 * verifies with the issuer's key.
 */
import { parseCrl, type RevocationList } from '../crypto/pki/crl.js';
import { signedBy, type Certificate, type GostVerifiers } from '../crypto/pki/x509.js';
import type { GenesisCrl } from './settings.js';

/** Fetches a URL's bytes; undefined when it cannot be had. */
export type CrlFetch = (url: string) => Promise<Uint8Array | undefined>;

/** The default fetch: plain HTTP(S) GET with a 5 s deadline. */
export const httpCrlFetch: CrlFetch = async (url) => {
  if (!/^https?:\/\//i.test(url)) return undefined;
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(5000) });
    if (!r.ok) return undefined;
    return new Uint8Array(await r.arrayBuffer());
  } catch {
    return undefined;
  }
};

export interface CrlSourceOptions {
  readonly genesisCrls: readonly GenesisCrl[];
  readonly syncPeriodMs: number;
  readonly verifiers: GostVerifiers;
  readonly now: () => bigint;
  readonly fetch?: CrlFetch;
}

/** How long a distribution point that failed is left alone. */
const FAILED_RETRY_MS = 60_000;

export class CrlSource {
  readonly #fetched = new Map<string, { readonly crl: RevocationList; readonly until: bigint }>();
  /** Distribution points that failed, not asked again until then (a broadcast must not wait on a dead URL each time). */
  readonly #failedUntil = new Map<string, bigint>();
  readonly #fetch: CrlFetch;

  constructor(private readonly o: CrlSourceOptions) {
    this.#fetch = o.fetch ?? httpCrlFetch;
  }

  private issuedBy(crl: RevocationList, issuer: Certificate): boolean {
    return crl.issuer.rfc2253 === issuer.subject.rfc2253 && signedBy(crl, issuer.publicKey, this.o.verifiers);
  }

  /** The newest CRL of `issuer` that covers `cert`, or undefined when none can be had. */
  async crlFor(cert: Certificate, issuer: Certificate): Promise<RevocationList | undefined> {
    const candidates: RevocationList[] = this.o.genesisCrls
      .filter((g) => Buffer.compare(Buffer.from(g.issuerPublicKey), Buffer.from(issuer.publicKey.bytes)) === 0)
      .map((g) => g.crl);
    const now = this.o.now();
    for (const url of cert.crlDistributionPoints) {
      let entry = this.#fetched.get(url);
      if ((entry === undefined || entry.until <= now) && (this.#failedUntil.get(url) ?? 0n) <= now) {
        const bytes = await this.#fetch(url);
        let crl: RevocationList | undefined;
        try {
          crl = bytes === undefined ? undefined : parseCrl(bytes);
        } catch {
          crl = undefined; // Not a CRL: as if the point were unreachable.
        }
        if (crl === undefined) {
          this.#failedUntil.set(url, now + BigInt(Math.min(FAILED_RETRY_MS, this.o.syncPeriodMs)));
        } else {
          const until = now + BigInt(this.o.syncPeriodMs);
          entry = { crl, until: crl.nextUpdate !== undefined && crl.nextUpdate < until ? crl.nextUpdate : until };
          this.#fetched.set(url, entry);
          this.#failedUntil.delete(url);
        }
      }
      if (entry !== undefined) candidates.push(entry.crl);
    }
    const valid = candidates.filter((c) => this.issuedBy(c, issuer));
    valid.sort((a, b) => (a.thisUpdate < b.thisUpdate ? 1 : a.thisUpdate > b.thisUpdate ? -1 : 0));
    return valid[0];
  }
}
