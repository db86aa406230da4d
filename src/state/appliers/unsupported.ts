/**
 * Transactions the node parses but does not apply: Exchange (7), which WE 1.14 rejects
 * as UnsupportedTransactionType. Its chain rules (roles, features, fees) are WE's all the
 * same.
 */
import type { ExchangeTransaction } from '../../protocol/transactions/exchange.js';
import { type Applier } from './context.js';
import { featuresByVersion, paidFee, TX_PACKAGE, west, type TransactionRules } from './rules.js';
import { unsupportedTransactionType } from '../../errors/catalogue.js';

export const applyExchange: Applier<ExchangeTransaction> = () => {
  throw unsupportedTransactionType();
};

export const EXCHANGE: TransactionRules<ExchangeTransaction> = {
  apply: applyExchange,
  scalaClass: { pkg: `${TX_PACKAGE}.assets.exchange`, name: 'ExchangeTransaction', versioned: true },
  features: featuresByVersion({ 2: [] }),
  roles: () => ['dex'],
  // The pair's assets: price asset, then amount asset (WE's checkedAssets of an exchange).
  smartAssets: (tx) => {
    const order = tx.data.buyOrder;
    return [order.priceAsset, order.amountAsset].filter((a): a is Uint8Array => a !== null);
  },
  fee: paidFee('exchange', west(0.005)),
};
