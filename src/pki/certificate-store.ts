/**
 * The certificate store, keyed as WE keys its "certs" column family:
 *
 *   D ‖ DN hash (SHA-1 of the RFC 2253 subject DN)  → DER certificate
 *   P ‖ public key (64 bytes)                        → DN hash
 *   F ‖ fingerprint (SHA-1 of the DER)               → DN hash
 *   H ‖ height (u32 BE) ‖ DN hash                    → (empty): what each height added
 *
 * A certificate is stored only if its subject DN is new (WE's Diff.fromCertChain); a
 * rollback removes what the heights above the target added. The store works on any LMDB
 * database handle: its own environment (`open`), or — once integrated — a handle of the
 * node's state environment, so that certificates are written in the block's transaction.
 */
import { open, type Database, type RootDatabase } from 'lmdb';
import { dnHash, fingerprint, parseCertificate, type Certificate } from '../crypto/pki/x509.js';

const D = 0x44;
const P = 0x50;
const F = 0x46;
const H = 0x48;

const key = (family: number, ...parts: Uint8Array[]): Uint8Array => Buffer.concat([Uint8Array.of(family), ...parts]);
const heightBytes = (h: number): Uint8Array => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(h, 0);
  return b;
};

export class CertificateStore {
  private constructor(
    private readonly db: Database<Uint8Array, Uint8Array>,
    private readonly root: RootDatabase<Uint8Array, Uint8Array> | undefined,
  ) {}

  /** A store in its own LMDB environment at `path`. */
  static open(path: string): CertificateStore {
    const root = open<Uint8Array, Uint8Array>({ path, keyEncoding: 'binary', encoding: 'binary' });
    return new CertificateStore(root, root);
  }

  /** A store over a database of an environment someone else owns (and closes). */
  static over(db: Database<Uint8Array, Uint8Array>): CertificateStore {
    return new CertificateStore(db, undefined);
  }

  /**
   * Records the certificates a block at `height` carried, each only if its subject DN is new;
   * returns the ones stored. Runs in the caller's LMDB transaction when there is one.
   */
  putAt(height: number, certificates: readonly Certificate[]): Certificate[] {
    const stored: Certificate[] = [];
    const write = (): void => {
      for (const c of certificates) {
        const hash = dnHash(c.subject.rfc2253);
        if (this.db.get(key(D, hash)) !== undefined || stored.some((s) => s.subject.rfc2253 === c.subject.rfc2253)) continue;
        void this.db.put(key(D, hash), c.der);
        void this.db.put(key(P, c.publicKey.bytes), hash);
        void this.db.put(key(F, fingerprint(c.der)), hash);
        void this.db.put(key(H, heightBytes(height), hash), new Uint8Array(0));
        stored.push(c);
      }
    };
    if (this.root !== undefined) this.root.transactionSync(write);
    else write();
    return stored;
  }

  /** Removes every certificate added above `height`. */
  rollbackTo(height: number): void {
    const remove = (): void => {
      for (const { key: k } of this.db.getRange({ start: key(H, heightBytes(height + 1)), end: key(H + 1) })) {
        const hash = k.subarray(5);
        const der = this.db.get(key(D, hash));
        if (der !== undefined) {
          const c = parseCertificate(der);
          void this.db.remove(key(P, c.publicKey.bytes));
          void this.db.remove(key(F, fingerprint(c.der)));
          void this.db.remove(key(D, hash));
        }
        void this.db.remove(k);
      }
    };
    if (this.root !== undefined) this.root.transactionSync(remove);
    else remove();
  }

  byDnHash(hash: Uint8Array): Certificate | undefined {
    const der = this.db.get(key(D, hash));
    return der === undefined ? undefined : parseCertificate(der);
  }

  byDn(rfc2253: string): Certificate | undefined {
    return this.byDnHash(dnHash(rfc2253));
  }

  byPublicKey(publicKey: Uint8Array): Certificate | undefined {
    const hash = this.db.get(key(P, publicKey));
    return hash === undefined ? undefined : this.byDnHash(hash);
  }

  byFingerprint(sha1: Uint8Array): Certificate | undefined {
    const hash = this.db.get(key(F, sha1));
    return hash === undefined ? undefined : this.byDnHash(hash);
  }

  /** Closes the environment if the store owns it. */
  async close(): Promise<void> {
    if (this.root !== undefined) await this.root.close();
  }
}
