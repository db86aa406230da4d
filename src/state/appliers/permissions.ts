/**
 * Permit (102): we-node PermitTransactionDiff. Roles are resolved at the block's timestamp
 * (see ../permissions.ts for WE's resolution rule); the op itself carries the
 * transaction's timestamp.
 */
import { bytesKey, equalBytes } from '../../crypto/encoding.js';
import { ROLES, type PermitTransaction, type RoleName } from '../../protocol/transactions/permissions.js';
import { decidingOp, isOpActive } from '../permissions.js';
import type { PermissionOp } from '../model.js';
import { type StateView } from '../view.js';
import { payFee, resolveRecipient, senderOf, type Applier } from './context.js';
import { FEATURE } from '../../protocol/features.js';
import { featuresByVersion, paidFee, TX_PACKAGE, west, type TransactionRules } from './rules.js';
import { addressIsLastOfRole, genericError } from '../../errors/catalogue.js';

/** WE's NonEmptyRole: a role that must keep at least one holder, in role-byte order. */
const NON_EMPTY_ROLES: readonly RoleName[] = ['miner', 'permissioner', 'connection_manager'];

/** Permissions.lastActive: the op deciding `role` at `at`, when it makes the role active. */
function lastActive(ops: readonly PermissionOp[], role: number, at: bigint): PermissionOp | undefined {
  const op = decidingOp(ops, role, at);
  return op !== undefined && isOpActive(op, at) ? op : undefined;
}

/** Permissions.containsWithoutDueDate: the deciding op is an add without due timestamp. */
function holdsWithoutDueDate(ops: readonly PermissionOp[], role: number, at: bigint): boolean {
  const op = decidingOp(ops, role, at);
  return op !== undefined && op.opType === 'add' && op.dueTimestamp === null;
}

/** Every address that ever received an op for a non-empty role (WE's non-empty-role address registry). */
function nonEmptyRoleAddresses(state: StateView): Uint8Array[] {
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  for (const role of NON_EMPTY_ROLES) {
    for (const address of state.roleHolders(ROLES[role])) {
      const key = bytesKey(address);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(address);
      }
    }
  }
  return out;
}

/**
 * The first of `roles` that no address other than `target` holds without due date (and
 * unbanned) at `at` — WE's isNotLast.
 */
function lastHeldRole(state: StateView, target: Uint8Array, roles: readonly RoleName[], at: bigint): RoleName | undefined {
  let unresolved = [...roles];
  for (const address of nonEmptyRoleAddresses(state)) {
    if (unresolved.length === 0) return undefined;
    if (equalBytes(address, target)) continue;
    const ops = state.permissionOps(address);
    const banned = lastActive(ops, ROLES.banned, at) !== undefined;
    unresolved = unresolved.filter((role) => !(holdsWithoutDueDate(ops, ROLES[role], at) && !banned));
  }
  return unresolved[0];
}

export const applyPermit: Applier<PermitTransaction> = (state, tx, ctx) => {
  const op = tx.data.permissionOp;
  const at = ctx.blockTimestamp;
  if (op.opType === 'remove' && op.dueTimestamp !== null) {
    throw genericError('Due date should not be defined for PermitTransaction with OpType Remove');
  }
  if (op.dueTimestamp !== null && op.dueTimestamp <= at) throw genericError('Cannot add permission transaction that is already expired');
  if (op.role === 'sender' && !ctx.senderRoleEnabled) throw genericError("The role 'Sender' is not allowed by network parameters");
  const target = resolveRecipient(state, tx.data.target);
  if (op.role !== 'contract_developer' && state.accountScript(target.bytes) !== null) {
    throw genericError(`Account ${target.toString()} is scripted, so only the contract_developer role is allowed`);
  }
  const targetOps = state.permissionOps(target.bytes);
  const active = lastActive(targetOps, ROLES[op.role], at);
  if (op.opType === 'add' && active !== undefined && active.dueTimestamp === null && op.dueTimestamp === null) {
    throw genericError('Cannot assign role that is already active');
  }
  if (op.opType === 'remove' && active === undefined) throw genericError('Cannot remove role that is already inactive');
  let mustKeep: RoleName[] = [];
  if (op.opType === 'add' && op.role === 'banned') {
    mustKeep = NON_EMPTY_ROLES.filter((role) => lastActive(targetOps, ROLES[role], at) !== undefined);
  } else if (op.opType === 'remove' && NON_EMPTY_ROLES.includes(op.role)) {
    mustKeep = [op.role];
  }
  if (mustKeep.length > 0) {
    const last = lastHeldRole(state, target.bytes, mustKeep, at);
    if (last !== undefined) throw addressIsLastOfRole(target.toString(), last);
  }
  if (op.role === 'contract_validator' && !ctx.isFeatureActive(FEATURE.CONTRACT_VALIDATIONS)) {
    throw genericError("Role 'contract_validator' will be available after contract validations feature activation");
  }
  const sender = senderOf(tx).bytes;
  payFee(state, sender, tx);
  state.addPermissionOp(target.bytes, { opType: op.opType, role: ROLES[op.role], timestamp: op.timestamp, dueTimestamp: op.dueTimestamp });
  return undefined;
};

export const PERMIT: TransactionRules<PermitTransaction> = {
  apply: applyPermit,
  scalaClass: { pkg: `${TX_PACKAGE}.acl`, name: 'PermitTransaction', versioned: true },
  features: featuresByVersion({ 1: [], 2: [FEATURE.ATOMIC_TRANSACTIONS] }),
  // Banning takes a permissioner or a blacklister; every other permission, a permissioner.
  roles: (tx) => (tx.data.permissionOp.role === 'banned' ? ['permissioner', 'blacklister'] : ['permissioner']),
  fee: paidFee('permit', west(0.01)),
};
