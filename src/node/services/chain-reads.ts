/**
 * What the API reads from the chain: blocks, confirmed transactions (also by address),
 * current state, minimal fees — and the state history beyond the current state (balances
 * at past heights and over windows, data entries, asset holders).
 */
import type { ChainReader, StateHistoryReader } from '../../api/services.js';
import type { Blockchain } from '../../chain/blockchain.js';
import { minimalFee } from '../../chain/fees.js';
import { bytesKey } from '../../crypto/encoding.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import type { Store } from '../../state/store.js';

export interface ChainReadsDeps {
  readonly chain: Blockchain;
  readonly store: Store;
}

export function chainReader({ chain, store }: ChainReadsDeps): ChainReader {
  // An executable transaction (103, 104, 107) enters a block only inside the ExecutedContract
  // (105) that executed it; the store records it too, at the 105's height, as WE's state does,
  // so /transactions/info finds a CreateContract or CallContract once it is executed.
  const confirmed = (id: Uint8Array) => store.confirmedTransaction(id);
  return {
    height: () => chain.height(),
    blockAt: (h) => chain.blockAt(h),
    blockHeaderAt: (h) => chain.blockHeaderAt(h),
    blockTransactionsAt: (h) => chain.blockTransactionsAt(h),
    blockById: (id) => chain.blockById(id),
    childOf: (id) => chain.childOf(id),
    transaction: confirmed,
    addressTransactions: (address, limit, afterId) => {
      // Newest first; paging starts after `afterId` when it is one of the address's transactions.
      const txs: Array<{ tx: Transaction; height: number }> = [];
      let afterFound = afterId === undefined;
      const after = afterId === undefined ? undefined : bytesKey(afterId);
      for (const id of store.addressTransactionIds(address)) {
        if (!afterFound) {
          if (bytesKey(id) === after) afterFound = true;
          continue;
        }
        if (txs.length >= limit) break;
        const found = confirmed(id);
        if (found !== undefined) txs.push(found);
      }
      return { txs, afterFound };
    },
    state: () => chain.state(),
    minimalFee: (tx) => minimalFee(tx, chain.state(), { settings: chain.settings, features: chain.features, height: chain.height() }),
  };
}

export function stateHistory({ chain, store }: ChainReadsDeps): StateHistoryReader {
  return {
    balanceAt: (address, assetId, height) => store.balanceAt(address, assetId, height),
    minBalance: (address, from, to) => store.minBalance(address, from, to),
    minEffectiveBalance: (address, from, to) => store.minEffectiveBalance(address, from, to),
    dataEntries: (address) => store.dataEntries(address),
    assetBalances: (holder) => store.assetBalances(holder),
    assetHolders: (assetId, after) => store.assetHolders(assetId, after),
    minRollbackHeight: () => chain.minRollbackHeight(),
  };
}
