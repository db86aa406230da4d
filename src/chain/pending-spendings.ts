/**
 * What the transactions waiting in the pool will take from each balance once mined (against
 * double spends from the pool). WE validates each broadcast against the confirmed state alone, so
 * two transfers that each spend a sender's whole balance are both accepted and one vanishes
 * later. Weft admits a transaction against the state *minus* the pending spendings of the
 * pool: WEST and asset balances lowered by the amounts, fees, burns, exchange legs and
 * sponsor fee payments of pooled transactions, and lease-out raised by pooled leases.
 *
 * Incoming amounts of pooled transactions are not credited (as in WE, a spend that needs a
 * transfer still in the pool is refused until that transfer is mined): a pool whose
 * spendings all fit the confirmed balances fits in any mining order.
 *
 * Bookkeeping is incremental: a transaction's spendings are recorded when the pool admits it
 * (read off the state changes its validation produced) and released when it leaves the pool
 * (mined, expired, invalidated, removed); nothing is rescanned per broadcast.
 */
import { bytesKey, encodeBase58 } from '../crypto/encoding.js';
import type { LeaseBalance } from '../state/model.js';
import { DelegatingView, type MutableState, type StateView } from '../state/view.js';

/** One amount a pooled transaction takes: from a balance (WEST when `assetId` is null, or an asset), or WEST newly leased out. */
export interface Spending {
  readonly holder: Uint8Array;
  readonly assetId: Uint8Array | null;
  /** Lease-out added (the WEST stays on the balance but can no longer be spent). */
  readonly leaseOut: boolean;
  readonly amount: bigint;
  /** The ledger's key of the balance (or lease-out) spent from. */
  readonly key: string;
}

const LEASE_OUT = 'L';
/** The ledger's key of a balance, from its holder's `bytesKey`. */
const balanceKey = (holderKey: string, assetId: Uint8Array | null): string => holderKey + '|' + (assetId === null ? '' : bytesKey(assetId));
/** The ledger's key of a lease-out, from its holder's `bytesKey`. */
const leaseOutKey = (holderKey: string): string => holderKey + '|' + LEASE_OUT;

/** The pool's ledger: per balance the sum of pending spendings, per transaction what it added. */
export class PendingSpendings {
  private readonly totals = new Map<string, bigint>();
  private readonly byTx = new Map<string, readonly Spending[]>();

  /** Records what the pooled transaction `txKey` takes (replacing what it had recorded). */
  record(txKey: string, spendings: readonly Spending[]): void {
    this.release(txKey);
    if (spendings.length === 0) return;
    this.byTx.set(txKey, spendings);
    for (const s of spendings) {
      this.totals.set(s.key, (this.totals.get(s.key) ?? 0n) + s.amount);
    }
  }

  /** Forgets what a transaction leaving the pool had recorded (nothing if it had recorded nothing). */
  release(txKey: string): void {
    const spendings = this.byTx.get(txKey);
    if (spendings === undefined) return;
    this.byTx.delete(txKey);
    for (const s of spendings) {
      const left = (this.totals.get(s.key) ?? 0n) - s.amount;
      if (left === 0n) this.totals.delete(s.key);
      else this.totals.set(s.key, left);
    }
  }

  /** Pending spendings from one balance or lease-out, by its key (`balanceKey`, `leaseOutKey`). */
  pending(key: string): bigint {
    return this.totals.size === 0 ? 0n : (this.totals.get(key) ?? 0n);
  }

  /** The state as a pool admission sees it: `base` with every pending spending taken off. */
  over(base: StateView): PendingSpendingsView {
    return new PendingSpendingsView(base, this);
  }
}

/** What a PendingSpendingsView read of one holder: its ledger key, and its WEST and lease balances once answered. */
interface HolderReads {
  readonly key: string;
  west: bigint | undefined;
  lease: LeaseBalance | undefined;
}

/**
 * `base` with the pool's pending spendings taken off its balances and added to lease-outs.
 * It remembers which balances it lowered (for the refusal message) and what it answered for
 * each balance (so the spendings of the transaction validated over it are read off without
 * reading the store again).
 */
export class PendingSpendingsView extends DelegatingView {
  /** Balances (and lease-outs) this view answered, by key, with what it answered. */
  private readonly answered = new Map<string, bigint>();
  /** The pending spendings this view took off (described only for a refusal). */
  private readonly lowered: Spending[] = [];
  /**
   * Per holder, by the very Uint8Array read (one validation reads the same few many times):
   * its ledger key, and the WEST balance and lease balance answered — the base does not change
   * while one transaction is validated over this view, and a transfer's validation reads its
   * sender's WEST several times.
   */
  private readonly holders = new Map<Uint8Array, HolderReads>();

  constructor(
    base: StateView,
    private readonly ledger: PendingSpendings,
  ) {
    super(base);
  }

  /** What `validated` (a state layered over this view, the transaction applied) takes from balances and lease-outs. */
  spendingsOf(validated: MutableState): Spending[] {
    const out: Spending[] = [];
    for (const b of validated.changedBalances()) {
      const key = balanceKey(this.holderKey(b.holder), b.assetId);
      const before = this.answered.get(key) ?? this.balance(b.holder, b.assetId);
      if (b.value < before) out.push({ holder: b.holder, assetId: b.assetId, leaseOut: false, amount: before - b.value, key });
    }
    for (const l of validated.changedLeaseBalances()) {
      const key = leaseOutKey(this.holderKey(l.address));
      const before = this.answered.get(key) ?? this.leaseBalance(l.address).out;
      if (l.value.out > before) out.push({ holder: l.address, assetId: null, leaseOut: true, amount: l.value.out - before, key });
    }
    return out;
  }

  /** The pending spendings this view took off, described ("" when none was): "<amount> WEST of <address>", … */
  loweredDescription(): string {
    return this.lowered
      .map((s) =>
        s.leaseOut
          ? `${s.amount} WEST leased out by ${encodeBase58(s.holder)}`
          : `${s.amount} ${s.assetId === null ? 'WEST' : `of asset ${encodeBase58(s.assetId)}`} of ${encodeBase58(s.holder)}`,
      )
      .join(', ');
  }

  private reads(holder: Uint8Array): HolderReads {
    let reads = this.holders.get(holder);
    if (reads === undefined) {
      reads = { key: bytesKey(holder), west: undefined, lease: undefined };
      this.holders.set(holder, reads);
    }
    return reads;
  }

  private holderKey(holder: Uint8Array): string {
    return this.reads(holder).key;
  }

  override balance(address: Uint8Array, assetId: Uint8Array | null): bigint {
    const reads = this.reads(address);
    if (assetId === null && reads.west !== undefined) return reads.west;
    const key = balanceKey(reads.key, assetId);
    const pending = this.ledger.pending(key);
    const value = this.base.balance(address, assetId) - pending;
    if (pending !== 0n && !this.answered.has(key)) this.lowered.push({ holder: address, assetId, leaseOut: false, amount: pending, key });
    this.answered.set(key, value);
    if (assetId === null) reads.west = value;
    return value;
  }

  override leaseBalance(address: Uint8Array): LeaseBalance {
    const reads = this.reads(address);
    if (reads.lease !== undefined) return reads.lease;
    const key = leaseOutKey(reads.key);
    const pending = this.ledger.pending(key);
    const base = this.base.leaseBalance(address);
    if (pending !== 0n && !this.answered.has(key)) this.lowered.push({ holder: address, assetId: null, leaseOut: true, amount: pending, key });
    const value = pending === 0n ? base : { in: base.in, out: base.out + pending };
    this.answered.set(key, value.out);
    reads.lease = value;
    return value;
  }
}
