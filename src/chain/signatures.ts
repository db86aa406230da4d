/**
 * Verifying the sender proofs of many transactions on the verifier threads before they
 * are validated (pool admission, blocks from peers, imports): each transaction keeps the
 * verdict, so the validation pipeline does not verify again on the main thread.
 */
import type { SignatureCheck, SignatureVerifierPool } from '../crypto/verify-pool.js';
import { isAtomic } from '../protocol/transactions/atomic.js';
import type { Transaction } from '../protocol/transactions/schema.js';

function withInner(txs: Iterable<Transaction>, out: Transaction[] = []): Transaction[] {
  for (const tx of txs) {
    out.push(tx);
    if (isAtomic(tx)) withInner(tx.data.transactions, out);
  }
  return out;
}

/**
 * Verifies the sender proof of one transaction (a client's broadcast) on the pool's threads:
 * preverifySignatures for one, without its lists (an atomic container goes through it).
 */
export async function preverifySignature(pool: SignatureVerifierPool, tx: Transaction): Promise<void> {
  if (isAtomic(tx)) return preverifySignatures(pool, [tx]);
  const check = tx.senderProofCheck();
  if (check === undefined) return;
  tx.adoptSignatureVerdict(await pool.verify(check.publicKey, check.message, check.signature));
}

/**
 * Verifies the sender proof of each transaction (and of atomics' inner ones) on the pool's
 * threads, all sent at once; `urgent`: in the pool's block lane (a block waits on them).
 */
export async function preverifySignatures(pool: SignatureVerifierPool, txs: Iterable<Transaction>, urgent = false): Promise<void> {
  const checked: Transaction[] = [];
  const checks: SignatureCheck[] = [];
  for (const tx of withInner(txs)) {
    const check = tx.senderProofCheck();
    if (check === undefined) continue;
    checked.push(tx);
    checks.push(check);
  }
  if (checks.length === 0) return;
  const verdicts = await pool.verifyAll(checks, urgent);
  checked.forEach((tx, i) => tx.adoptSignatureVerdict(verdicts[i]!));
}
