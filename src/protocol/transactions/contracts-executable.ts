/**
 * WE's ExecutableTransaction: CreateContract (103, V1–V7), CallContract (104, V1–V7) and
 * UpdateContract (107, V1–V6) — what a contract runs for, each reaching a block only inside
 * the ExecutedContract (105) that executed it. Field types and rules are in
 * contracts-fields.ts.
 *
 * Body-computed values WE does not serialize: CreateContract's contractId (= its id, see
 * `createdContractId`) and CallContract V1's contractVersion (always 1, see
 * `calledContractVersion`).
 */
import { atomicBadgeSince, fee, sender, timestamp } from './common.js';
import {
  COMMITMENT,
  CONTRACT_API_VERSION,
  CONTRACT_ENTRIES,
  CONTRACT_ID,
  FEE_ASSET_ID,
  FEE_ASSET_ID_BYTESTR,
  MAX_EXECUTABLE_TX_BYTES,
  MERGED_ADDRESS_SET,
  OPT_COMMITMENT,
  OPT_SHORT_STRING,
  PAYMENTS,
  STORED_CONTRACT,
  uniqueAddressSet,
  validateCommitment,
  validateContractEngine,
  validateContractEntries,
  validateContractName,
  validateImage,
  validateImageHash,
  validateStoredContractHash,
  validateValidationPolicy,
  VALIDATION_POLICY,
} from './contracts-fields.js';
import { BOOLEAN, INT, SHORT_STRING } from './fields.js';
import { provenObject, type RideBinding } from './ride-binding.js';
import { defineTx, field, PROOFS, versioned, type DataOf, type Transaction } from './schema.js';
import { contractTransactionTooBig } from '../../errors/catalogue.js';

const params = field('params', CONTRACT_ENTRIES, { check: (v) => validateContractEntries(v, 'Param') });
/** The `contractId` field of the transactions that name their contract (104, 106, 107). */
export const contractIdField = field('contractId', CONTRACT_ID);

/** ContractTransactionValidation.validateSize for executable transactions (125 KiB of full bytes). */
function validateExecutableSize(tx: Transaction): void {
  const size = tx.bytes.length;
  if (size > MAX_EXECUTABLE_TX_BYTES) throw contractTransactionTooBig(size, MAX_EXECUTABLE_TX_BYTES);
}

// ---------------------------------------------------------------------------
// CreateContract (103)

const createFields = [
  sender,
  versioned('image', SHORT_STRING, { until: 6, check: (v) => validateImage(v) }),
  versioned('imageHash', SHORT_STRING, { until: 6, check: (v) => validateImageHash(v) }),
  field('contractName', SHORT_STRING, { check: (v) => validateContractName(v) }),
  params,
  fee,
  timestamp,
  versioned('feeAssetId', FEE_ASSET_ID, { since: 2, until: 6 }),
  versioned('feeAssetId', FEE_ASSET_ID_BYTESTR, { since: 7 }),
  atomicBadgeSince(3),
  versioned('validationPolicy', VALIDATION_POLICY, { since: 4, check: (v) => validateValidationPolicy(v) }),
  versioned('apiVersion', CONTRACT_API_VERSION, { since: 4, until: 6 }),
  versioned('payments', PAYMENTS, { since: 5 }),
  PROOFS,
  versioned('isConfidential', BOOLEAN, { since: 6 }),
  versioned('groupParticipants', uniqueAddressSet('Group participants'), { since: 6, until: 6 }),
  versioned('groupParticipants', MERGED_ADDRESS_SET, { since: 7 }),
  versioned('groupOwners', uniqueAddressSet('Group owners'), { since: 6, until: 6 }),
  versioned('groupOwners', MERGED_ADDRESS_SET, { since: 7 }),
  versioned('storedContract', STORED_CONTRACT, { since: 7, check: (v) => validateStoredContractHash(v) }),
] as const;

export const CreateContract = defineTx({
  type: 103,
  name: 'CreateContract',
  versions: [1, 2, 3, 4, 5, 6, 7],
  fields: createFields,
  validate: validateExecutableSize,
});
export type CreateContractData = DataOf<typeof createFields>;
export type CreateContractTransaction = Transaction<CreateContractData>;

/** The id of the contract a CreateContract creates: the transaction's own id. */
export function createdContractId(tx: CreateContractTransaction): Uint8Array {
  return tx.id;
}

export const createContractBinding: RideBinding<CreateContractTransaction> = (tx, ctx) => provenObject(tx, ctx, 'CreateContractTransaction', []);

// ---------------------------------------------------------------------------
// CallContract (104)

const callFields = [
  sender,
  contractIdField,
  params,
  fee,
  timestamp,
  versioned('contractVersion', INT, { since: 2 }),
  versioned('feeAssetId', FEE_ASSET_ID, { since: 3 }),
  atomicBadgeSince(4),
  versioned('payments', PAYMENTS, { since: 5 }),
  PROOFS,
  versioned('inputCommitment', COMMITMENT, { since: 6, until: 6, check: (v) => validateCommitment(v) }),
  // The node's request key is `inputCommitment`; its transaction JSON says `inputCommitmentOpt`.
  versioned('inputCommitmentOpt', OPT_COMMITMENT, {
    since: 7,
    jsonKey: 'inputCommitment',
    check: (v) => {
      if (v !== null) validateCommitment(v);
    },
  }),
  versioned('contractEngine', SHORT_STRING, { since: 7, check: (v) => validateContractEngine(v) }),
  versioned('callFunc', OPT_SHORT_STRING, { since: 7 }),
] as const;

export const CallContract = defineTx({
  type: 104,
  name: 'CallContract',
  versions: [1, 2, 3, 4, 5, 6, 7],
  fields: callFields,
  validate: validateExecutableSize,
});
export type CallContractData = DataOf<typeof callFields>;
export type CallContractTransaction = Transaction<CallContractData>;

/** The contract version a call targets; V1 has no field and always calls version 1 (whatever its data object holds). */
export function calledContractVersion(tx: CallContractTransaction): number {
  return tx.version === 1 ? 1 : (tx.data.contractVersion ?? 1);
}

export const callContractBinding: RideBinding<CallContractTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'CallContractTransaction', [
    ['contractId', tx.data.contractId],
    ['contractVersion', BigInt(calledContractVersion(tx))],
  ]);

// ---------------------------------------------------------------------------
// UpdateContract (107)

const updateFields = [
  sender,
  contractIdField,
  versioned('image', SHORT_STRING, { until: 5, check: (v) => validateImage(v) }),
  versioned('imageHash', SHORT_STRING, { until: 5, check: (v) => validateImageHash(v) }),
  fee,
  timestamp,
  versioned('feeAssetId', FEE_ASSET_ID, { since: 2, until: 5 }),
  versioned('feeAssetId', FEE_ASSET_ID_BYTESTR, { since: 6 }),
  atomicBadgeSince(3),
  versioned('validationPolicy', VALIDATION_POLICY, { since: 4, check: (v) => validateValidationPolicy(v) }),
  versioned('apiVersion', CONTRACT_API_VERSION, { since: 4, until: 5 }),
  PROOFS,
  versioned('groupParticipants', uniqueAddressSet('Group participants'), { since: 5, until: 5 }),
  versioned('groupParticipants', MERGED_ADDRESS_SET, { since: 6 }),
  versioned('groupOwners', uniqueAddressSet('Group owners'), { since: 5, until: 5 }),
  versioned('groupOwners', MERGED_ADDRESS_SET, { since: 6 }),
  versioned('storedContract', STORED_CONTRACT, { since: 6, check: (v) => validateStoredContractHash(v) }),
] as const;

/** No size limit: WE's UpdateContract scheme has no `validateSize`. */
export const UpdateContract = defineTx({ type: 107, name: 'UpdateContract', versions: [1, 2, 3, 4, 5, 6], fields: updateFields });
export type UpdateContractData = DataOf<typeof updateFields>;
export type UpdateContractTransaction = Transaction<UpdateContractData>;

export const updateContractBinding: RideBinding<UpdateContractTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'UpdateContractTransaction', [['contractId', tx.data.contractId]]);

// ---------------------------------------------------------------------------
// The executable transactions together

/** WE's ExecutableTransaction: what a contract runs for, and an ExecutedContract (105) wraps. */
export type ExecutableContractTransaction = CreateContractTransaction | CallContractTransaction | UpdateContractTransaction;

/** The executable types (103, 104, 107), e.g. to tell one by its type byte before it is read. */
export const EXECUTABLE_CONTRACT_TYPES: ReadonlySet<number> = new Set([CreateContract.type, CallContract.type, UpdateContract.type]);

/** Whether a transaction is executable: executed by the contract engine, it reaches a block only inside the 105 that executed it. */
export function isExecutableContract(tx: Transaction): tx is ExecutableContractTransaction {
  return EXECUTABLE_CONTRACT_TYPES.has(tx.type);
}

/** The contract an executable transaction runs: a create's own id, else its `contractId`. */
export function executedContractIdOf(tx: ExecutableContractTransaction): Uint8Array {
  return CreateContract.is(tx) ? createdContractId(tx) : tx.data.contractId;
}
