/**
 * Admission rules of confidential contracts (WE's ConfidentialContractValidations and the
 * group checks of UpdateContractTransactionDiff), feature 1130:
 *
 * - a CreateContract V6+ with `isConfidential`: at least one group owner, at least 3 group
 *   participants that hold `contract_validator` at the last block, each list at most 1024
 *   addresses, no payments;
 * - a CreateContract V6+ without it: both lists empty;
 * - an UpdateContract V5+: group changes only on a confidential contract and only by one of
 *   its group owners; the new lists then obey the same rules as a create.
 */
import type { Address } from '../../crypto/address.js';
import { equalBytes } from '../../protocol/bytes.js';
import type { CreateContractTransaction, UpdateContractTransaction } from '../../protocol/transactions/contracts.js';
import { genericError } from '../../errors/catalogue.js';
import { isGroupParticipant, type ContractInfo } from '../contract-info.js';

/** ConfidentialContractValidations.MinimumGroupValidatorsSize. */
export const MIN_GROUP_VALIDATORS = 3;
/** The most addresses a group list may hold. */
export const MAX_GROUP_SIZE = 1024;

/** The group lists a 103 V6+ or 107 V5+ carries (undefined on versions without them). */
function groupsOf(tx: CreateContractTransaction | UpdateContractTransaction): { participants: readonly Address[]; owners: readonly Address[] } | undefined {
  const participants = tx.data.groupParticipants;
  const owners = tx.data.groupOwners;
  if (participants === undefined && owners === undefined) return undefined;
  return { participants: participants ?? [], owners: owners ?? [] };
}

const contains = (list: readonly Address[], address: Uint8Array): boolean => list.some((a) => equalBytes(a.bytes, address));

/** The same addresses, order and duplicates aside (WE keeps the groups as sets). */
function sameGroup(a: readonly Address[], b: readonly Address[]): boolean {
  return a.every((x) => contains(b, x.bytes)) && b.every((x) => contains(a, x.bytes));
}

/** checkCommonForConfidentialTx. */
function checkConfidentialGroups(participants: readonly Address[], owners: readonly Address[], validators: readonly Uint8Array[]): void {
  if (owners.length === 0) throw genericError("'groupOwners' field can't be empty list, it must contain at least 1 element");
  const groupValidators = participants.filter((p) => validators.some((v) => equalBytes(v, p.bytes))).length;
  if (groupValidators < MIN_GROUP_VALIDATORS) {
    throw genericError(
      `Not enough group participants with role 'contract-validator' to create confidential data contract, minimum is '${MIN_GROUP_VALIDATORS}', actual: '${groupValidators}'. Common validators size: '${validators.length}'`,
    );
  }
  if (participants.length > MAX_GROUP_SIZE || owners.length > MAX_GROUP_SIZE) {
    throw genericError(
      `Maximum 'groupParticipants' and 'groupOwners' size is ${MAX_GROUP_SIZE}, actual: len(groupParticipants) = ${participants.length}, len(groupOwners) = ${owners.length}`,
    );
  }
}

/** checkCommonForNonConfidentialTx. */
function checkNoGroups(participants: readonly Address[], owners: readonly Address[]): void {
  if (participants.length > 0 || owners.length > 0) {
    throw genericError("'groupParticipants' and 'groupOwners' fields can't be non-empty lists when 'isConfidential' = false");
  }
}

/** checkConfidentialCreateParamsSanity; `validators` = addresses holding `contract_validator` at the last block. */
export function checkConfidentialCreate(tx: CreateContractTransaction, validators: readonly Uint8Array[]): void {
  const groups = groupsOf(tx);
  if (groups === undefined) return;
  const d = tx.data;
  if (d.isConfidential !== true) {
    checkNoGroups(groups.participants, groups.owners);
    return;
  }
  checkConfidentialGroups(groups.participants, groups.owners, validators);
  const payments = d.payments ?? [];
  if (payments.length > 0) {
    throw genericError("Native token operations are not supported for confidential contracts, so payment field must be empty when 'isConfidential' = true");
  }
}

/**
 * checkConfidentialContractInfoChangesPermission then checkConfidentialUpdateParamsSanity:
 * `sender` is the update's sender address.
 */
export function checkConfidentialUpdate(tx: UpdateContractTransaction, info: ContractInfo, sender: Address, validators: readonly Uint8Array[]): void {
  const groups = groupsOf(tx);
  if (groups === undefined) return;
  const changed = !sameGroup(groups.participants, info.groupParticipants) || !sameGroup(groups.owners, info.groupOwners);
  if (changed && !info.isConfidential) {
    throw genericError("Confidential contract's params updating is not allowed, because confidential data is turned off('isConfidential' = false)");
  }
  if (changed && !contains(info.groupOwners, sender.bytes)) {
    throw genericError(
      `Tx's sender '${sender.toString()}' doesn't belong to confidential contract group owners, so it can't change related fields 'groupOwners' and 'groupParticipants`,
    );
  }
  if (info.isConfidential) checkConfidentialGroups(groups.participants, groups.owners, validators);
  else checkNoGroups(groups.participants, groups.owners);
}

/** Whether an address is in a confidential contract's group (a participant or an owner). */
export function isGroupMember(info: ContractInfo, address: Uint8Array): boolean {
  return isGroupParticipant(info, address) || contains(info.groupOwners, address);
}
