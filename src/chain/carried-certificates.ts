/**
 * Certificate chains travelling with transactions (reference/privacy-crypto-pki.md §6.3):
 * a chain arrives with a transaction — in the `certificates` of a REST broadcast, in a
 * peer's BroadcastedTransaction (46), or with a micro-block (47) or history block (45) that
 * holds the transaction — and waits here, by transaction id, until a block holding the
 * transaction is committed. The chain then stores, in the block's own commit, each
 * certificate whose subject DN the network does not hold yet (WE's Diff.fromCertChain), so
 * a rollback of the block takes them away again.
 *
 * Entries are kept for the pool's tx-expire-timeout (a transaction older than that is not
 * mined any more) and at most `maxEntries` of them, the oldest dropped first; they stay after
 * the transaction is mined, so a rolled-back transaction mined again brings its chain again
 * and a peer asking for the micro-block still gets it.
 */
import { bytesKey } from '../crypto/encoding.js';
import { dnHash, fingerprint, type Certificate } from '../crypto/pki/x509.js';
import type { StoredCertificate } from '../state/store.js';

export class CarriedCertificates {
  readonly #entries = new Map<string, { readonly certificates: readonly Certificate[]; readonly at: bigint }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => bigint,
    private readonly maxEntries = 100_000,
  ) {}

  /** Keeps `certificates` with each of the transactions (several for a block's or micro-block's certificates). */
  carry(transactionIds: readonly Uint8Array[], certificates: readonly Certificate[]): void {
    if (certificates.length === 0) return;
    const at = this.now();
    for (const id of transactionIds) {
      const key = bytesKey(id);
      const known = this.#entries.get(key)?.certificates ?? [];
      const merged = [...known, ...certificates.filter((c) => !known.some((k) => k.subject.rfc2253 === c.subject.rfc2253))];
      this.#entries.delete(key);
      this.#entries.set(key, { certificates: merged, at });
    }
    this.expire(at);
  }

  private expire(now: bigint): void {
    const limit = now - BigInt(this.ttlMs);
    for (const [key, e] of this.#entries) {
      if (this.#entries.size <= this.maxEntries && e.at >= limit) break;
      this.#entries.delete(key);
    }
  }

  /** The certificates carried with any of the transactions, each subject DN once. */
  of(transactionIds: Iterable<Uint8Array>): Certificate[] {
    const out: Certificate[] = [];
    // Networks without PKI carry none: no key is computed per committed transaction.
    if (this.#entries.size === 0) return out;
    const limit = this.now() - BigInt(this.ttlMs);
    for (const id of transactionIds) {
      const e = this.#entries.get(bytesKey(id));
      if (e === undefined || e.at < limit) continue;
      for (const c of e.certificates) if (!out.some((o) => o.subject.rfc2253 === c.subject.rfc2253)) out.push(c);
    }
    return out;
  }
}

/** A certificate under the keys the store files it by. */
export function storedCertificate(c: Certificate): StoredCertificate {
  return { dnHash: dnHash(c.subject.rfc2253), der: c.der, publicKey: c.publicKey.bytes, fingerprint: fingerprint(c.der) };
}
