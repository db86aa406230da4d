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
 *
 * Certificates that came with a peer's block or micro-block (45, 47) are only offered, by
 * that block's id, once the network's certificate policy let them through: they are carried
 * by the block's transactions just before the block is appended and taken back when it is
 * refused, so they are stored with that block alone and only when it is accepted. Offers of
 * blocks never tried expire like entries.
 */
import { bytesKey } from '../crypto/encoding.js';
import { dnHash, fingerprint, type Certificate } from '../crypto/pki/x509.js';
import type { StoredCertificate } from '../state/store.js';

const NOTHING_TO_TAKE_BACK = (): void => undefined;

interface Entry {
  readonly certificates: readonly Certificate[];
  readonly at: bigint;
}

export class CarriedCertificates {
  readonly #entries = new Map<string, Entry>();
  /** Certificates a peer's block or micro-block brought, by the block's id, until it is tried. */
  readonly #offers = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => bigint,
    private readonly maxEntries = 100_000,
    private readonly maxOffers = 1_000,
  ) {}

  /** Keeps `certificates` with each of the transactions (a transaction's chain, admitted with it). */
  carry(transactionIds: readonly Uint8Array[], certificates: readonly Certificate[]): void {
    if (certificates.length === 0) return;
    const at = this.now();
    this.put(transactionIds, certificates, at);
    expire(this.#entries, at - BigInt(this.ttlMs), this.maxEntries);
  }

  /** Adds the certificates to each transaction's entry; returns the entries as they were. */
  private put(transactionIds: readonly Uint8Array[], certificates: readonly Certificate[], at: bigint): Array<readonly [string, Entry | undefined]> {
    const before: Array<readonly [string, Entry | undefined]> = [];
    for (const id of transactionIds) {
      const key = bytesKey(id);
      const prior = this.#entries.get(key);
      before.push([key, prior]);
      const known = prior?.certificates ?? [];
      const merged = [...known, ...certificates.filter((c) => !known.some((k) => k.subject.rfc2253 === c.subject.rfc2253))];
      this.#entries.delete(key);
      this.#entries.set(key, { certificates: merged, at });
    }
    return before;
  }

  /**
   * Certificates that came with a peer's block (its id) or micro-block (its total liquid-block
   * signature), already through the certificate policy: neither stored nor sent on until that
   * block is appended (`takeOffer`).
   */
  offer(blockId: Uint8Array, certificates: readonly Certificate[]): void {
    if (certificates.length === 0) return;
    const at = this.now();
    const key = bytesKey(blockId);
    this.#offers.delete(key);
    this.#offers.set(key, { certificates, at });
    expire(this.#offers, at - BigInt(this.ttlMs), this.maxOffers);
  }

  /**
   * Just before the block `blockId` is appended: the certificates offered with it are carried
   * by its transactions, so its commit stores them (the offer is used up). Returns what takes
   * them back — the entries as they were — for when the block is refused.
   */
  takeOffer(blockId: Uint8Array, transactions: ReadonlyArray<{ readonly id: Uint8Array }>): () => void {
    // Blocks without certificates (nearly all) cost nothing here.
    if (this.#offers.size === 0) return NOTHING_TO_TAKE_BACK;
    const key = bytesKey(blockId);
    const offer = this.#offers.get(key);
    if (offer === undefined) return NOTHING_TO_TAKE_BACK;
    this.#offers.delete(key);
    const before = this.put(
      transactions.map((t) => t.id),
      offer.certificates,
      this.now(),
    );
    return () => {
      for (const [txKey, prior] of before.reverse()) {
        if (prior === undefined) this.#entries.delete(txKey);
        else this.#entries.set(txKey, prior);
      }
    };
  }

  /** Forgets the offers of blocks that were tried (or refused before being tried). */
  withdraw(blockIds: Iterable<Uint8Array>): void {
    if (this.#offers.size === 0) return;
    for (const id of blockIds) this.#offers.delete(bytesKey(id));
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

/** Drops the oldest entries (insertion order) older than `limit` or beyond `max`. */
function expire(entries: Map<string, Entry>, limit: bigint, max: number): void {
  for (const [key, e] of entries) {
    if (entries.size <= max && e.at >= limit) break;
    entries.delete(key);
  }
}
