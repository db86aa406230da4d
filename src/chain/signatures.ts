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
 * The verifications on the way, by transaction: a transaction asked for again while its
 * proof is being checked (a peer's micro-block carrying one that is still waiting for its
 * admission) waits for that check — `done` settles once its verdict is adopted — instead of
 * being verified twice.
 */
const verifying = new WeakMap<Transaction, { readonly done: Promise<void>; readonly signature: Uint8Array }>();

/** Adopts `verdict` for `tx` once it comes; meanwhile `tx` is in `verifying`. */
function track(tx: Transaction, signature: Uint8Array, verdict: Promise<boolean>): Promise<void> {
  const done = verdict.then(
    (valid) => {
      verifying.delete(tx);
      tx.adoptSignatureVerdict(valid);
    },
    (e: unknown) => {
      verifying.delete(tx);
      throw e;
    },
  );
  verifying.set(tx, { done, signature });
  return done;
}

/**
 * Verifies the sender proof of one transaction (a client's broadcast) on the pool's threads:
 * preverifySignatures for one, without its lists (an atomic container goes through it).
 */
export async function preverifySignature(pool: SignatureVerifierPool, tx: Transaction): Promise<void> {
  if (isAtomic(tx)) return preverifySignatures(pool, [tx]);
  if (tx.signatureChecked) return;
  const pending = verifying.get(tx);
  if (pending !== undefined) return pending.done;
  const check = tx.senderProofCheck();
  if (check === undefined) return;
  return track(tx, check.signature, pool.verify(check.publicKey, check.message, check.signature));
}

/**
 * Verifies the sender proof of each transaction (and of atomics' inner ones) on the pool's
 * threads, all sent at once; `urgent`: in the pool's block lane (a block waits on them) —
 * those already waiting in the normal lane move to the block lane, and are not sent twice.
 */
export async function preverifySignatures(pool: SignatureVerifierPool, txs: Iterable<Transaction>, urgent = false): Promise<void> {
  const checked: Transaction[] = [];
  const checks: SignatureCheck[] = [];
  const waits: Array<Promise<void>> = [];
  const promoted = new Set<Uint8Array>();
  for (const tx of withInner(txs)) {
    if (tx.signatureChecked) continue;
    const pending = verifying.get(tx);
    if (pending !== undefined) {
      waits.push(pending.done);
      if (urgent) promoted.add(pending.signature);
      continue;
    }
    const check = tx.senderProofCheck();
    if (check === undefined) continue;
    checked.push(tx);
    checks.push(check);
  }
  if (promoted.size > 0) pool.promote(promoted);
  if (checks.length > 0) pool.verifyEach(checks, urgent).forEach((verdict, i) => waits.push(track(checked[i]!, checks[i]!.signature, verdict)));
  await Promise.all(waits);
}
