/**
 * Atomic (120): we-node AtomicTransactionDiff. The container (no fee of its own) applies
 * its inner transactions in order, each through the whole admission pipeline and each
 * seeing the ones before it; the caller applies the container into a fork, so one failing
 * inner transaction leaves nothing behind. What the miner gets is the inner fees.
 */
import { equalBytes } from '../../crypto/encoding.js';
import type { AtomicTransaction } from '../../protocol/transactions/atomic.js';
import { addressOf, payFee, senderOf, type Applier } from './context.js';
import { sameFeatures, TX_PACKAGE, ZERO_FEE, type TransactionRules } from './rules.js';
import { genericError } from '../../errors/catalogue.js';

export const applyAtomic: Applier<AtomicTransaction> = (state, tx, ctx) => {
  const generator = ctx.blockGenerator;
  if (generator !== undefined) {
    const miner = tx.data.miner;
    if (miner === null) throw genericError('Atomic transaction validation failed: miner is empty');
    if (!equalBytes(miner, generator)) {
      throw genericError(
        `Atomic transaction must be mined only by block creator: miner is '${addressOf(state, miner).toString()}', but block creator is '${addressOf(state, generator).toString()}'`,
      );
    }
  }
  payFee(state, senderOf(tx).bytes, tx);
  let fee = 0n;
  for (const inner of tx.data.transactions) {
    const result = ctx.applyInner(state, inner);
    fee += result.fee;
  }
  return { fee };
};

export const ATOMIC: TransactionRules<AtomicTransaction> = {
  apply: applyAtomic,
  scalaClass: { pkg: TX_PACKAGE, name: 'AtomicTransaction', versioned: true },
  features: sameFeatures([1]),
  fee: ZERO_FEE,
};
