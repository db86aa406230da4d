/**
 * RegisterNode (111): we-node RegisterNodeTransactionDiff. Adding a registered key or
 * removing an absent one fails; a removal must leave at least 3 participants.
 */
import type { RegisterNodeTransaction } from '../../protocol/transactions/nodes.js';
import { addressOf, payFee, senderOf, type Applier } from './context.js';
import { FEATURE } from '../../protocol/features.js';
import { featuresByVersion, paidFee, TX_PACKAGE, west, type TransactionRules } from './rules.js';
import { genericError } from '../../errors/catalogue.js';

/** RegisterNodeTransactionDiff.minNetworkParticipantsCount. */
export const MIN_NETWORK_PARTICIPANTS = 3;

export const applyRegisterNode: Applier<RegisterNodeTransaction> = (state, tx) => {
  const d = tx.data;
  const target = addressOf(state, d.target);
  const present = state.participant(target.bytes) !== undefined;
  if (d.opType === 'add' && present) throw genericError(`Account '${target.toString()}' already presented in blockchain`);
  if (d.opType === 'remove' && !present) {
    throw genericError(`Account '${target.toString()}' is not present in blockchain, therefore not allowed to remove it`);
  }
  if (d.opType === 'remove' && state.participants().length < MIN_NETWORK_PARTICIPANTS + 1) {
    throw genericError(`Account '${target.toString()}' cannot be removed because number of participants will be less then '${MIN_NETWORK_PARTICIPANTS}'`);
  }
  payFee(state, senderOf(tx).bytes, tx);
  state.putParticipant(target.bytes, d.opType === 'add' ? { publicKey: d.target, nodeName: d.nodeName } : null);
  return undefined;
};

export const REGISTER_NODE: TransactionRules<RegisterNodeTransaction> = {
  apply: applyRegisterNode,
  scalaClass: { pkg: TX_PACKAGE, name: 'RegisterNodeTransaction', versioned: true },
  features: featuresByVersion({ 1: [], 2: [FEATURE.OTHER_TX_TYPES_ATOMIC] }),
  roles: () => ['connection_manager'],
  fee: paidFee('register-node', west(0.01)),
};
