/**
 * Transactions the node parses but does not apply: Exchange (7), which WE 1.14 rejects
 * as UnsupportedTransactionType, and the contract family (103–107), whose execution is a
 * later piece of work — refused with a clear error rather than applied half-way.
 */
import { unsupportedTransactionType } from '../../protocol/errors.js';
import { stateError, type Applier } from './context.js';

export const applyExchange: Applier = () => {
  throw unsupportedTransactionType();
};

export const applyContractTransaction: Applier = (_state, tx) => {
  throw stateError(
    `Contract transactions are not supported yet: ${tx.codec.name} (type ${tx.type}) cannot be executed by this node, contract execution is not implemented`,
  );
};
