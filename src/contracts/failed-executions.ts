/**
 * Executions that leave an executable transaction in the pool, counted per transaction:
 * WE's recoverable outcomes of a legacy 103/104 (the contract's error 1, the execution
 * timeout, a connection lost mid-call, a contract that could not start) and its unknown
 * error codes. WE executes such a transaction again on every key block of its miner for as
 * long as the pool keeps it (two hours), and for nothing — no 105, no fee: a call that hangs
 * costs its contract a slot for an execution timeout each time (reference contracts.md §1.7).
 *
 * Here, as in WE (its confirmatory marks a transaction in process for the rest of the key
 * block), one that failed is not executed again on the key block it failed on; and after
 * `limit` such executions the miner gives up on it: the transaction leaves the pool with an
 * `Error` status (code 2, the code WE records for the errors that drop a transaction), which
 * travels to the peers like any status. A node that executes no contracts drops it from its
 * pool on that status, and `contract-error-quorum` Error statuses from distinct miners take
 * it out of every pool (utx-cleanup.ts), so it runs at most `limit` times on each miner.
 */
import { NODE_FAILURE_CODE } from '../errors/catalogue.js';
import type { StatusDraft } from './result.js';

/** Failed executions of one transaction: how many, and the key block of the last. */
interface Failures {
  count: number;
  keyBlock: string;
}

export class FailedExecutions {
  /** By the transaction id's bytesKey (the pool's key). */
  private readonly byTx = new Map<string, Failures>();

  /** `limit`: failed executions after which a transaction leaves the pool (at least 1). */
  constructor(readonly limit: number) {}

  /** Whether any pooled transaction failed (a round looks no further when none did). */
  get any(): boolean {
    return this.byTx.size > 0;
  }

  /** Whether the transaction failed on this key block already: it waits for the next. */
  failedOn(txId: string, keyBlock: string): boolean {
    return this.byTx.get(txId)?.keyBlock === keyBlock;
  }

  /**
   * Counts a failed execution of the transaction on `keyBlock`. Returns the status it leaves
   * the pool with once it has failed `limit` times (the caller removes it), else undefined.
   */
  failed(txId: string, keyBlock: string, reason: string): StatusDraft | undefined {
    const seen = this.byTx.get(txId);
    const count = (seen?.count ?? 0) + 1;
    if (count < this.limit) {
      this.byTx.set(txId, { count, keyBlock });
      return undefined;
    }
    this.byTx.delete(txId);
    return {
      status: 'Error',
      code: NODE_FAILURE_CODE,
      message: `Contract transaction dropped from the UTX pool after ${count} failed executions, the last: ${reason}`,
    };
  }

  /** Keeps the counts of the transactions `inPool` says are still pooled (the others were mined, expired or dropped). */
  retain(inPool: (txId: string) => boolean): void {
    for (const txId of this.byTx.keys()) if (!inPool(txId)) this.byTx.delete(txId);
  }
}
