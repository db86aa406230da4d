/**
 * Timestamps the node puts on transactions it signs for a client (`/transactions/sign`
 * without `timestamp`): the node's time, but strictly increasing — max(now, last + 1) —
 * as WE's NTP time source hands them out, so two requests in one millisecond still get
 * distinct transactions.
 */
export class TransactionTimestamps {
  private last = 0n;

  constructor(private readonly now: () => bigint) {}

  next(): bigint {
    const t = this.now();
    this.last = t > this.last ? t : this.last + 1n;
    return this.last;
  }
}
