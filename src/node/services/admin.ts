/**
 * The administrator's chain operations (`/debug/rollback`, `/debug/rollback-to`): rolling
 * back, the removed transactions going back to the pool only when asked.
 */
import type { AdminService } from '../../api/services.js';
import type { Blockchain } from '../../chain/blockchain.js';
import { bytesKey, encodeBase58 } from '../../crypto/encoding.js';
import { blockDoesNotExist } from '../../errors/catalogue.js';

export function adminService(chain: Blockchain): AdminService {
  return {
    rollback: (height, returnToUtx) => {
      chain.rollbackTo(height, { origin: 'api', returnToPool: returnToUtx });
      return chain.lastBlock().id;
    },
    rollbackTo: (id) => {
      const found = chain.blockById(id);
      if (found === undefined || bytesKey(found.block.id) !== bytesKey(id)) throw blockDoesNotExist(encodeBase58(id), 'signature');
      chain.rollbackTo(found.height, { origin: 'api', returnToPool: false });
      return chain.lastBlock().id;
    },
  };
}
