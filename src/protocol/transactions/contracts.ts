/**
 * Contract transactions: the executable ones — CreateContract (103, V1–V7), CallContract
 * (104, V1–V7), UpdateContract (107, V1–V6) — in contracts-executable.ts, ExecutedContract
 * (105, V1–V5) in contracts-executed.ts, and DisableContract (106, V1–V3) here. Field types
 * and rules are in contracts-fields.ts.
 */
import { atomicBadgeSince, fee, sender, timestamp } from './common.js';
import { CallContract, contractIdField, CreateContract, UpdateContract } from './contracts-executable.js';
import { ExecutedContract } from './contracts-executed.js';
import { FEE_ASSET_ID } from './contracts-fields.js';
import { provenObject, type RideBinding } from './ride-binding.js';
import { defineTx, PROOFS, versioned, type DataOf, type Transaction } from './schema.js';

export * from './contracts-fields.js';
export * from './contracts-executable.js';
export * from './contracts-executed.js';

// ---------------------------------------------------------------------------
// DisableContract (106)

const disableFields = [sender, contractIdField, fee, timestamp, versioned('feeAssetId', FEE_ASSET_ID, { since: 2 }), atomicBadgeSince(3), PROOFS] as const;

export const DisableContract = defineTx({ type: 106, name: 'DisableContract', versions: [1, 2, 3], fields: disableFields });
export type DisableContractData = DataOf<typeof disableFields>;
export type DisableContractTransaction = Transaction<DisableContractData>;

export const disableContractBinding: RideBinding<DisableContractTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'DisableContractTransaction', [['contractId', tx.data.contractId]]);

export const codecs = [CreateContract, CallContract, ExecutedContract, DisableContract, UpdateContract];
