/**
 * What execution statuses do to the pool (WE's ContractExecutionMessagesCache; reference
 * contracts.md §1.7): every `utx-cleanup-interval` an executable transaction for which at
 * least `contract-error-quorum` distinct nodes recorded an `Error` leaves the pool, so a
 * transaction every executing node refuses does not wait there for ever. (WE counts the
 * Error messages it holds, not their senders; counting senders keeps one node that records
 * the same error repeatedly from removing it alone.)
 */
import type { UtxPool } from '../chain/utx.js';
import type { Protocol } from '../protocol/protocol.js';
import { isExecutableContract } from '../protocol/transactions/contracts.js';
import type { ExecutionStatusBook } from './statuses.js';

export interface ErroredRemoval {
  readonly txId: string;
  readonly reason: string;
}

/** Removes the executable transactions with `quorum` Error statuses from distinct nodes; says which and why. */
export function removeErroredExecutables(
  pool: Pick<UtxPool, 'all' | 'remove'>,
  book: ExecutionStatusBook,
  quorum: number,
  protocol: Protocol,
): ErroredRemoval[] {
  const removed: ErroredRemoval[] = [];
  for (const tx of pool.all()) {
    if (!isExecutableContract(tx)) continue;
    const senders = book.errorSenders(tx.id).slice(0, quorum);
    if (senders.length < quorum) continue;
    if (!pool.remove(tx.id)) continue;
    const from = senders.map((k) => protocol.addresses.fromPublicKey(k).toString()).join(', ');
    removed.push({ txId: tx.idBase58, reason: `Received >= '${quorum}' statuses with contract execution business error from: '${from}'` });
  }
  return removed;
}
