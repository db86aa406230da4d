/**
 * A client's transaction (`/transactions/broadcast`, signAndBroadcast) through the chain's
 * admission, with the request's `certificates`; the pool's contents for the `unconfirmed`
 * routes.
 */
import type { PoolService } from '../../api/services.js';
import type { Admission } from '../../chain/admission.js';

export function transactionsService(admission: Admission): PoolService {
  const pool = admission.pool;
  return {
    broadcast: (tx, certificates) => admission.admit(tx, { origin: 'api', certificates }),
    unconfirmed: () => pool.all(),
    unconfirmedById: (id) => pool.get(id),
    size: () => pool.size(),
  };
}
