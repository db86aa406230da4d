/**
 * Genesis (1), GenesisPermit (101) and GenesisRegisterNode (110): only in the block at
 * height 1 (we-node Genesis*TransactionDiff). No fee, no sender.
 */
import { ROLES } from '../../protocol/transactions/permissions.js';
import type { GenesisPermitTransaction, GenesisRegisterNodeTransaction, GenesisTransaction } from '../../protocol/transactions/genesis.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import { addressOf, type Applier } from './context.js';
import { sameFeatures, TX_PACKAGE, ZERO_FEE, type TransactionRules } from './rules.js';
import { genericError } from '../../errors/catalogue.js';

export const applyGenesis: Applier<GenesisTransaction> = (state, tx, ctx) => {
  if (ctx.height !== 1) throw genericError('GenesisTransaction cannot appear in non-initial block');
  const d = tx.data;
  state.addBalance(d.recipient.bytes, null, d.amount);
  return undefined;
};

export const applyGenesisPermit: Applier<GenesisPermitTransaction> = (state, tx, ctx) => {
  if (ctx.height !== 1) throw genericError('GenesisPermitTransaction cannot appear in non-initial block');
  const d = tx.data;
  if (d.role === 'sender' && !ctx.senderRoleEnabled) throw genericError("The role 'Sender' is not allowed by network parameters");
  state.addPermissionOp(d.target.bytes, { opType: 'add', role: ROLES[d.role], timestamp: d.timestamp, dueTimestamp: null });
  return undefined;
};

export const applyGenesisRegisterNode: Applier<GenesisRegisterNodeTransaction> = (state, tx, ctx) => {
  if (ctx.height !== 1) throw genericError('GenesisRegisterNodeTransaction cannot appear in non-initial block');
  const d = tx.data;
  state.putParticipant(addressOf(state, d.targetPublicKey).bytes, { publicKey: d.targetPublicKey, nodeName: null });
  return undefined;
};

const genesisRules = <T extends Transaction>(apply: Applier<T>, name: string): TransactionRules<T> => ({
  apply,
  scalaClass: { pkg: TX_PACKAGE, name, versioned: false },
  features: sameFeatures([1]),
  fee: ZERO_FEE,
});

export const GENESIS = genesisRules(applyGenesis, 'GenesisTransaction');
export const GENESIS_PERMIT = genesisRules(applyGenesisPermit, 'GenesisPermitTransaction');
export const GENESIS_REGISTER_NODE = genesisRules(applyGenesisRegisterNode, 'GenesisRegisterNodeTransaction');
