/**
 * Transactions the node parses but does not apply: Exchange (7), which WE 1.14 rejects
 * as UnsupportedTransactionType, and the contract family (103–107), whose execution is a
 * later piece of work — refused with a clear error rather than applied half-way. Their
 * chain rules (roles, features, fees) are WE's all the same.
 */
import { FEATURE as F } from '../../protocol/features.js';
import type { ExchangeData } from '../../protocol/transactions/exchange.js';
import { type Applier } from './context.js';
import { featuresByVersion, ONE_WEST, paidFee, TX_PACKAGE, west, ZERO_FEE, type TransactionRules } from './rules.js';
import { genericError, unsupportedTransactionType } from '../../errors/catalogue.js';

export const applyExchange: Applier = () => {
  throw unsupportedTransactionType();
};

export const applyContractTransaction: Applier = (_state, tx) => {
  throw genericError(
    `Contract transactions are not supported yet: ${tx.codec.name} (type ${tx.type}) cannot be executed by this node, contract execution is not implemented`,
  );
};

export const EXCHANGE: TransactionRules = {
  apply: applyExchange,
  scalaClass: { pkg: `${TX_PACKAGE}.assets.exchange`, name: 'ExchangeTransaction', versioned: true },
  features: featuresByVersion({ 2: [] }),
  roles: () => ['dex'],
  // The pair's assets: price asset, then amount asset (WE's checkedAssets of an exchange).
  smartAssets: (tx) => {
    const order = (tx.data as ExchangeData).buyOrder;
    return [order.priceAsset, order.amountAsset].filter((a): a is Uint8Array => a !== null);
  },
  fee: paidFee('exchange', west(0.005)),
};

const DOCKER = `${TX_PACKAGE}.docker`;

export const CREATE_CONTRACT: TransactionRules = {
  apply: applyContractTransaction,
  scalaClass: { pkg: DOCKER, name: 'CreateContractTransaction', versioned: true },
  features: featuresByVersion({
    1: [],
    2: [F.CONTRACTS_GRPC],
    3: [F.CONTRACTS_GRPC, F.ATOMIC_TRANSACTIONS, F.SPONSORED_FEES],
    4: [F.CONTRACTS_GRPC, F.ATOMIC_TRANSACTIONS, F.SPONSORED_FEES, F.CONTRACT_VALIDATIONS],
    5: [F.CONTRACTS_GRPC, F.ATOMIC_TRANSACTIONS, F.SPONSORED_FEES, F.CONTRACT_VALIDATIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI],
    6: [F.CONTRACTS_GRPC, F.ATOMIC_TRANSACTIONS, F.SPONSORED_FEES, F.CONTRACT_VALIDATIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI, F.CONFIDENTIAL_DATA_IN_CONTRACTS],
    7: [F.CONTRACTS_GRPC, F.ATOMIC_TRANSACTIONS, F.SPONSORED_FEES, F.CONTRACT_VALIDATIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI, F.CONFIDENTIAL_DATA_IN_CONTRACTS, F.WASM_CONTRACTS],
  }),
  // A V2 paying its fee in an asset needs sponsored fees (CreateContractTransactionV2.requiredFeatures).
  fieldFeatures: (tx) => (tx.version === 2 && tx.feeAssetId !== null ? [F.SPONSORED_FEES] : []),
  roles: () => ['contract_developer'],
  fee: paidFee('create-contract', ONE_WEST),
};

export const CALL_CONTRACT: TransactionRules = {
  apply: applyContractTransaction,
  scalaClass: { pkg: DOCKER, name: 'CallContractTransaction', versioned: true },
  features: featuresByVersion({
    1: [],
    2: [],
    3: [F.SPONSORED_FEES],
    4: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS],
    5: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI],
    6: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI, F.CONFIDENTIAL_DATA_IN_CONTRACTS],
    7: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI, F.CONFIDENTIAL_DATA_IN_CONTRACTS, F.WASM_CONTRACTS],
  }),
  fee: paidFee('call-contract', west(0.1)),
};

export const EXECUTED_CONTRACT: TransactionRules = {
  apply: applyContractTransaction,
  scalaClass: { pkg: DOCKER, name: 'ExecutedContractTransaction', versioned: true },
  features: featuresByVersion({
    1: [],
    2: [F.CONTRACT_VALIDATIONS],
    3: [F.CONTRACT_VALIDATIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI],
    4: [F.CONTRACT_VALIDATIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI, F.CONFIDENTIAL_DATA_IN_CONTRACTS],
    5: [F.CONTRACT_VALIDATIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI, F.CONFIDENTIAL_DATA_IN_CONTRACTS, F.WASM_CONTRACTS],
  }),
  fee: ZERO_FEE,
};

export const DISABLE_CONTRACT: TransactionRules = {
  apply: applyContractTransaction,
  scalaClass: { pkg: DOCKER, name: 'DisableContractTransaction', versioned: true },
  features: featuresByVersion({ 1: [], 2: [F.SPONSORED_FEES], 3: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS] }),
  fee: paidFee('disable-contract', west(0.01)),
};

export const UPDATE_CONTRACT: TransactionRules = {
  apply: applyContractTransaction,
  scalaClass: { pkg: DOCKER, name: 'UpdateContractTransaction', versioned: true },
  features: featuresByVersion({
    1: [],
    2: [F.SPONSORED_FEES],
    3: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS],
    4: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS, F.CONTRACT_VALIDATIONS],
    5: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS, F.CONTRACT_VALIDATIONS, F.CONFIDENTIAL_DATA_IN_CONTRACTS],
    6: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS, F.CONTRACT_VALIDATIONS, F.CONFIDENTIAL_DATA_IN_CONTRACTS, F.WASM_CONTRACTS],
  }),
  roles: () => ['contract_developer'],
  fee: paidFee('update-contract', ONE_WEST),
};
