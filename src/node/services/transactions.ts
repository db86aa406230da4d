/**
 * Admitting a client's transaction (`/transactions/broadcast`, signAndBroadcast, and every
 * route that sends one): the pool's validation, then the miner looks at the pool again and
 * the peers hear of it. The pool's contents for the `unconfirmed` routes.
 */
import type { PoolService } from '../../api/services.js';
import type { UtxPool } from '../../chain/utx.js';
import type { Transaction } from '../../protocol/transactions/schema.js';

export interface TransactionsDeps {
  readonly pool: UtxPool;
  /** Tells the miner the pool has something new (undefined: the node does not mine). */
  readonly wakeMiner?: () => void;
  /** Sends an admitted transaction to the peers (undefined: no P2P network). */
  readonly announce?: (tx: Transaction) => void;
}

export function transactionsService({ pool, wakeMiner, announce }: TransactionsDeps): PoolService {
  return {
    broadcast: async (tx) => {
      const admitted = await pool.broadcast(tx);
      wakeMiner?.();
      announce?.(admitted);
      return admitted;
    },
    unconfirmed: () => pool.all(),
    unconfirmedById: (id) => pool.get(id),
    size: () => pool.size(),
  };
}
