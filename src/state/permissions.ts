/**
 * Roles at a point in time, as WE resolves them (acl/Permissions.scala): an address's
 * ops form a set ordered by (timestamp, role byte) descending — two ops with the same
 * timestamp and role are one, the first applied wins; for a role, the most recent op
 * with timestamp ≤ T decides, and the role is active iff that op is an add whose due
 * timestamp (if any) is after T.
 */
import type { PermissionOp } from './model.js';
import type { PermissionReader } from './view.js';

/** The ops as WE's Permissions set holds them: deduplicated by (timestamp, role), newest first. */
export function orderedOps(ops: readonly PermissionOp[]): PermissionOp[] {
  const seen = new Set<string>();
  const unique: PermissionOp[] = [];
  for (const op of ops) {
    const id = `${op.timestamp}|${op.role}`;
    if (seen.has(id)) continue;
    seen.add(id);
    unique.push(op);
  }
  return unique.sort((a, b) => (a.timestamp !== b.timestamp ? (b.timestamp > a.timestamp ? 1 : -1) : b.role - a.role));
}

export function isOpActive(op: PermissionOp, at: bigint): boolean {
  return op.opType === 'add' && (op.dueTimestamp === null || op.dueTimestamp > at);
}

/**
 * The op that decides `role` at time `at`, if any: the first of orderedOps(ops) for the role
 * with timestamp ≤ `at` — the newest such op, the first applied of those sharing its
 * timestamp — found in one pass (every transaction's sender is checked this way).
 */
export function decidingOp(ops: readonly PermissionOp[], role: number, at: bigint): PermissionOp | undefined {
  let deciding: PermissionOp | undefined;
  for (const op of ops) {
    if (op.role === role && op.timestamp <= at && (deciding === undefined || op.timestamp > deciding.timestamp)) deciding = op;
  }
  return deciding;
}

/** Whether `role` is active at `at` for an address with these ops. */
export function hasRole(ops: readonly PermissionOp[], role: number, at: bigint): boolean {
  const op = decidingOp(ops, role, at);
  return op !== undefined && isOpActive(op, at);
}

/** Role bytes active at `at`, ascending. */
export function activeRoles(ops: readonly PermissionOp[], at: bigint): number[] {
  const deciding = new Map<number, PermissionOp>();
  for (const op of orderedOps(ops)) {
    if (op.timestamp <= at && !deciding.has(op.role)) deciding.set(op.role, op);
  }
  return [...deciding.values()]
    .filter((op) => isOpActive(op, at))
    .map((op) => op.role)
    .sort((a, b) => a - b);
}

/** Whether the address holds `role` at `at` in this state. */
export function addressHasRole(state: PermissionReader, address: Uint8Array, role: number, at: bigint): boolean {
  return hasRole(state.permissionOps(address), role, at);
}

/**
 * Addresses holding `role` at `at`, ordered by the timestamp of the op that granted it
 * (ascending) — the PoA miner queue for role `miner`. Two grants at the same millisecond
 * collapse into one entry, as in WE.
 */
export function roleHoldersAt(state: PermissionReader, role: number, at: bigint): Uint8Array[] {
  const byTimestamp = new Map<bigint, Uint8Array>();
  for (const address of state.roleHolders(role)) {
    const op = decidingOp(state.permissionOps(address), role, at);
    if (op !== undefined && isOpActive(op, at) && !byTimestamp.has(op.timestamp)) byTimestamp.set(op.timestamp, address);
  }
  return [...byTimestamp.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, address]) => address);
}
