/**
 * Verifying the sender proofs of many transactions on the verifier threads before they
 * are validated (pool admission, blocks from peers, imports): each transaction keeps the
 * verdict, so the validation pipeline does not verify again on the main thread.
 */
import type { SignatureVerifierPool } from '../crypto/verify-pool.js';
import { isAtomic } from '../protocol/transactions/atomic.js';
import type { Transaction } from '../protocol/transactions/schema.js';

function withInner(txs: Iterable<Transaction>, out: Transaction[] = []): Transaction[] {
  for (const tx of txs) {
    out.push(tx);
    if (isAtomic(tx)) withInner(tx.data.transactions, out);
  }
  return out;
}

/** Verifies the sender proof of each transaction (and of atomics' inner ones) on the pool's threads. */
export async function preverifySignatures(pool: SignatureVerifierPool, txs: Iterable<Transaction>): Promise<void> {
  await Promise.all(
    withInner(txs).map(async (tx) => {
      const check = tx.senderProofCheck();
      if (check !== undefined) tx.adoptSignatureVerdict(await pool.verify(check.publicKey, check.message, check.signature));
    }),
  );
}
