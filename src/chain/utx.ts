/**
 * The pool of unconfirmed transactions (WE's UtxPool). Transactions come in through the
 * chain's admission (admission.ts), which owns the checks before the pool; `put` is the
 * pool's own step of it.
 *
 * `put` validates a transaction fully against the current state (signature, timing,
 * fee, permissions, balances, the family's rules) without applying it; beyond WE, balances
 * are counted net of what the transactions already in the pool spend (pending-spendings.ts),
 * so a double spend is refused at broadcast instead of vanishing later. The pool is
 * bounded by bytes (`utx.memory-limit`), ordered by timestamp for mining and listing,
 * drops what blocks include, re-validates everything after each key block (each transaction
 * net of the rest of the pool's spendings) and drops
 * expired transactions. Rolled-back transactions can be put back.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { bytesKey, equalBytes } from '../crypto/encoding.js';
import type { SignatureVerifierPool } from '../crypto/verify-pool.js';
import { isAtomic } from '../protocol/transactions/atomic.js';
import { ExecutedContract } from '../protocol/transactions/contracts.js';
import type { Transaction } from '../protocol/transactions/schema.js';

import { MutableState } from '../state/view.js';
import type { Blockchain, ChainEvent } from './blockchain.js';
import type { UtxSettings } from './settings.js';
import { preverifySignatures } from './signatures.js';
import { applyTransaction } from './validation.js';
import { PendingSpendings, type PendingSpendingsView } from './pending-spendings.js';
import { genericError, pendingSpendingsExceeded, WeError } from '../errors/catalogue.js';

export interface UtxOptions {
  readonly chain: Blockchain;
  readonly settings: UtxSettings;
  readonly now: () => bigint;
  /** Called with each transaction the pool drops after admission (expired or invalidated). */
  readonly onDrop?: (tx: Transaction, reason: WeError) => void;
  /** Called after a rollback handed transactions back: how many were offered and how many the pool took. */
  readonly onReturned?: (returned: number, offered: number) => void;
  /** Called with each transaction a client or a peer offered that the pool refused, with WE's error. */
  readonly onRefused?: (tx: Transaction, reason: WeError) => void;
  /** Verifier threads for peers' transactions and blocks (preverify); without them the main thread verifies. */
  readonly verifier?: SignatureVerifierPool;
}

export class UtxPool {
  private readonly chain: Blockchain;
  private readonly settings: UtxSettings;
  private readonly now: () => bigint;
  private readonly onDrop: ((tx: Transaction, reason: WeError) => void) | undefined;
  private readonly onReturned: ((returned: number, offered: number) => void) | undefined;
  private readonly onRefused: ((tx: Transaction, reason: WeError) => void) | undefined;
  private readonly verifier: SignatureVerifierPool | undefined;
  private readonly admissionListeners = new Set<(tx: Transaction) => void>();
  private readonly txs = new Map<string, Transaction>();
  /** What the pooled transactions will take from balances once mined. */
  private readonly pending = new PendingSpendings();
  private bytes = 0;
  /**
   * The pooled transactions by timestamp (then by arrival) as all() last listed them, with the
   * changes since (`added`, `removed`) merged in at the next look instead of the whole pool
   * sorted again: the miner looks at every micro-block while peers' relays keep the pool
   * changing. Undefined: sorted again at the next look — nothing looked yet, more changes than
   * the list holds (a node that is not mining keeps changing a list nobody looks at), or a
   * transaction removed and admitted again before that look.
   */
  private ordered: Transaction[] | undefined = [];
  /** Admitted since `ordered` was made, in arrival order. */
  private added: Transaction[] = [];
  /** Removed since `ordered` was made (from it or from `added`). */
  private readonly removed = new Set<Transaction>();
  private revalidation: Promise<void> | undefined;

  constructor(o: UtxOptions) {
    this.chain = o.chain;
    this.settings = o.settings;
    this.now = o.now;
    this.onDrop = o.onDrop;
    this.onReturned = o.onReturned;
    this.onRefused = o.onRefused;
    this.verifier = o.verifier;
    o.chain.on((event) => this.onChainEvent(event));
  }

  size(): { size: number; sizeInBytes: number } {
    return { size: this.txs.size, sizeInBytes: this.bytes };
  }

  get(id: Uint8Array): Transaction | undefined {
    return this.txs.get(bytesKey(id));
  }

  /** The pooled transaction whose id has this key (encoding's bytesKey of the id). */
  getByKey(idKey: string): Transaction | undefined {
    return this.txs.get(idKey);
  }

  /** Pool transactions ordered by timestamp (then by arrival). */
  all(): readonly Transaction[] {
    const byTimestamp = (a: Transaction, b: Transaction): number => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0);
    if (this.ordered === undefined) {
      this.ordered = [...this.txs.values()].sort(byTimestamp);
    } else if (this.added.length > 0 || this.removed.size > 0) {
      const removed = this.removed;
      const kept = removed.size === 0 ? this.ordered : this.ordered.filter((tx) => !removed.has(tx));
      const added = (removed.size === 0 ? this.added : this.added.filter((tx) => !removed.has(tx))).sort(byTimestamp);
      // A merge; on equal timestamps the one listed before comes first (it arrived earlier).
      const merged: Transaction[] = [];
      let i = 0;
      for (const tx of added) {
        while (i < kept.length && kept[i]!.timestamp <= tx.timestamp) merged.push(kept[i++]!);
        merged.push(tx);
      }
      while (i < kept.length) merged.push(kept[i++]!);
      this.ordered = merged;
    }
    this.added = [];
    this.removed.clear();
    return this.ordered;
  }

  /** A change of the pool for the next look (`ordered` is never changed in place: a list handed out stays as it was). */
  private changedOrder(tx: Transaction, admitted: boolean): void {
    if (this.ordered === undefined) return;
    if (admitted) {
      // Still in `ordered` or `added` from before its removal: sorted again at the next look.
      if (this.removed.has(tx)) return this.forgetOrder();
      this.added.push(tx);
    } else this.removed.add(tx);
    if (this.added.length + this.removed.size > Math.max(64, this.ordered.length)) this.forgetOrder();
  }

  private forgetOrder(): void {
    this.ordered = undefined;
    this.added = [];
    this.removed.clear();
  }

  /**
   * Verifies the sender proofs of transactions that came from peers (in a micro-block, a
   * block or one by one) before they are applied: a transaction the pool holds with the
   * same bytes was verified at admission and takes that verdict; the rest are verified on
   * the verifier threads. The verdicts stay on the transactions, so applying them does not
   * verify again on this thread. `urgent`: a peer's micro-block waits on them (the
   * verifiers' block lane, ahead of transactions queued).
   */
  async preverify(txs: readonly Transaction[], urgent = false): Promise<void> {
    const rest: Transaction[] = [];
    for (const tx of txs) {
      const pooled = this.txs.get(bytesKey(tx.id));
      if (pooled !== undefined && pooled !== tx && !isAtomic(tx) && equalBytes(pooled.bytes, tx.bytes) && pooled.hasValidSenderSignature())
        tx.adoptSignatureVerdict(true);
      else if (pooled !== tx) rest.push(tx);
    }
    if (this.verifier !== undefined && rest.length > 0) await preverifySignatures(this.verifier, rest, urgent);
  }

  /**
   * Validates and admits a transaction; returns the pooled one (idempotent). Throws WE's error
   * otherwise. `key`: the transaction's `bytesKey(tx.id)`, when the caller has made it already.
   */
  put(tx: Transaction, key = bytesKey(tx.id)): Transaction {
    const existing = this.txs.get(key);
    if (existing !== undefined) return existing;
    try {
      this.admit(tx, key);
    } catch (e) {
      if (e instanceof WeError) this.onRefused?.(tx, e);
      throw e;
    }
    for (const listener of this.admissionListeners) listener(tx);
    return tx;
  }

  /** Tells `listener` of each transaction newly admitted from a client or a peer (not one a rollback returned); returns the function that stops it. */
  onAdmission(listener: (tx: Transaction) => void): () => void {
    this.admissionListeners.add(listener);
    return () => this.admissionListeners.delete(listener);
  }

  /**
   * Refuses, with the error admission gives when the pool is full (counted as a refusal), a
   * transaction that would not fit beside the pool's transactions and `waitingBytes` of
   * others already accepted for admission (peers' transactions queued before the pool). One
   * the pool holds fits (admitting it again is a no-op).
   */
  checkRoom(tx: Transaction, waitingBytes: number): void {
    if (this.txs.has(bytesKey(tx.id))) return;
    try {
      this.refuseWhenFull(tx, waitingBytes);
    } catch (e) {
      if (e instanceof WeError) this.onRefused?.(tx, e);
      throw e;
    }
  }

  private refuseWhenFull(tx: Transaction, waitingBytes: number): void {
    if (this.bytes + waitingBytes + tx.bytes.length > this.settings.memoryLimitBytes) throw genericError('Transaction pool bytes size limit is reached');
  }

  /** Validates and adds a transaction the pool does not hold. */
  private admit(tx: Transaction, key: string): void {
    this.refuseWhenFull(tx, 0);
    this.refuseScriptedSender(tx);
    this.validate(tx, key, true);
    this.txs.set(key, tx);
    this.bytes += tx.bytes.length;
    this.changedOrder(tx, true);
  }

  /** WE's `utx.allow-transactions-from-smart-accounts = false`: the pool takes nothing from scripted accounts (blocks still may carry them). */
  private refuseScriptedSender(tx: Transaction): void {
    if (this.settings.allowTransactionsFromSmartAccounts) return;
    const sender = tx.sender;
    if (sender !== undefined && this.chain.state().accountScript(sender.bytes) !== null)
      throw genericError('transactions from scripted accounts are denied from UTX pool');
  }

  /**
   * Full validation against the current state net of the pool's pending spendings, nothing
   * applied; on success what the transaction spends is recorded under `key`.
   */
  private validate(tx: Transaction, key: string, verifySignature: boolean): void {
    const view = this.pending.over(this.chain.state());
    const state = new MutableState(view);
    const ctx = this.chain.poolTxContext();
    try {
      applyTransaction(state, tx, ctx, { verifySignature });
    } catch (e) {
      if (e instanceof WeError && e.code === 112) this.refuseForPendingSpendings(tx, e, view, verifySignature);
      throw e;
    }
    this.pending.record(key, view.spendingsOf(state));
  }

  /**
   * A balance refusal that only pending spendings caused (the confirmed state alone would take
   * the transaction) is thrown again saying so; otherwise this returns and the refusal stands.
   */
  private refuseForPendingSpendings(tx: Transaction, refusal: WeError, view: PendingSpendingsView, verifySignature: boolean): void {
    const lowered = view.loweredDescription();
    if (lowered === '') return;
    try {
      applyTransaction(new MutableState(this.chain.state()), tx, this.chain.poolTxContext(), { verifySignature });
    } catch {
      return;
    }
    throw pendingSpendingsExceeded(refusal.message.replace(/^State check failed\. Reason: /, ''), lowered, tx.toJson());
  }

  remove(id: Uint8Array): boolean {
    const key = bytesKey(id);
    const tx = this.txs.get(key);
    if (tx === undefined) return false;
    this.txs.delete(key);
    this.pending.release(key);
    this.bytes -= tx.bytes.length;
    this.changedOrder(tx, false);
    return true;
  }

  private drop(tx: Transaction, reason: WeError): void {
    if (this.remove(tx.id)) this.onDrop?.(tx, reason);
  }

  /** A confirmed transaction and, for an ExecutedContract, the executable transaction it carries. */
  private removeConfirmed(tx: Transaction): void {
    this.remove(tx.id);
    if (ExecutedContract.is(tx)) this.remove(tx.data.tx.id);
  }

  private onChainEvent(event: ChainEvent): void {
    if (event.kind === 'micro-block') {
      for (const tx of event.transactions) this.removeConfirmed(tx);
    } else if (event.kind === 'block') {
      for (const tx of event.block.transactions) this.removeConfirmed(tx);
      void this.revalidate();
    } else if (event.returnToPool) {
      let returned = 0;
      for (const tx of event.removed) {
        try {
          // A rolled-back ExecutedContract gives back the transaction it executed, to be executed again.
          const back = ExecutedContract.is(tx) ? tx.data.tx : tx;
          const key = bytesKey(back.id);
          if (!this.txs.has(key)) this.admit(back, key);
          returned++;
        } catch (e) {
          // A transaction that no longer fits the rolled-back state is not returned.
          if (!(e instanceof WeError)) throw e;
        }
      }
      this.onReturned?.(returned, event.removed.length);
    } else {
      // Rolled back without returning: a copy the pool still holds (e.g. admitted again from a peer) goes too.
      for (const tx of event.removed) this.removeConfirmed(tx);
    }
  }

  /**
   * Re-validates every pooled transaction against the current state (signatures were
   * checked on admission) and drops expired and invalid ones; runs in slices so the
   * node keeps serving. Concurrent calls share one pass.
   */
  revalidate(): Promise<void> {
    if (this.revalidation !== undefined) return this.revalidation;
    const progress = { finished: false };
    const pass = this.revalidatePass(progress);
    // A pass over a small pool never yields and has finished by now: only one still running is shared.
    if (!progress.finished) {
      this.revalidation = pass;
      const clear = (): void => {
        if (this.revalidation === pass) this.revalidation = undefined;
      };
      pass.then(clear, clear);
    }
    return pass;
  }

  private async revalidatePass(progress: { finished: boolean }): Promise<void> {
    try {
      const snapshot = [...this.txs.values()];
      const expiry = this.now() - BigInt(this.settings.txExpireTimeoutMs);
      for (let i = 0; i < snapshot.length; i++) {
        const tx = snapshot[i]!;
        const key = bytesKey(tx.id);
        if (!this.txs.has(key)) continue;
        if (tx.timestamp < expiry) {
          this.drop(tx, genericError(`Transaction ${tx.idBase58} expired in the pool`));
          continue;
        }
        // Validated again net of the rest of the pool: its own spendings are not counted against it.
        this.pending.release(key);
        try {
          this.validate(tx, key, false);
        } catch (e) {
          if (!(e instanceof WeError)) throw e;
          this.drop(tx, e);
        }
        if (i % 256 === 255) await nextTurn();
      }
    } finally {
      progress.finished = true;
    }
  }
}
