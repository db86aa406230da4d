/**
 * Permit (102, V1–V2) and the permission roles.
 *
 * The permission operation (PERMISSION_OP, 19 bytes) is op type ('a'/'r') ‖ role byte ‖
 * op timestamp (i64, must equal the tx timestamp) ‖ due timestamp (`00` + 8 zero bytes, or
 * `01 ‖ i64`). In request JSON it is spread over `opType`, `role` and `dueTimestamp`, its
 * timestamp being the tx timestamp; the node's JSON shows the same three keys before
 * `target` and no `permissionOp`.
 */
import { ByteWriter } from '../bytes.js';
import type { JsonObject } from '../json.js';
import { atomicBadgeSince, fee, sender, timestamp } from './common.js';
import { jsonLong, jsonObject, jsonString, RECIPIENT, type FieldType, type OpType } from './fields.js';
import { defineTx, field, PROOFS, type DataOf, type Transaction } from './schema.js';
import { DecodeError, genericError } from '../../errors/catalogue.js';

// ---------------------------------------------------------------------------
// Roles (WE's acl.Role)

/** Role names as WE writes them (`Role.prefixS`), with their bytes. */
export const ROLES = {
  miner: 1,
  issuer: 2,
  dex: 3,
  permissioner: 4,
  blacklister: 5,
  banned: 6,
  contract_developer: 7,
  connection_manager: 8,
  sender: 9,
  contract_validator: 10,
} as const;

export type RoleName = keyof typeof ROLES;

export const ROLE_NAMES = Object.keys(ROLES) as RoleName[];

const ROLE_BY_BYTE = new Map<number, RoleName>(ROLE_NAMES.map((name) => [ROLES[name], name]));

/** Roles that must always keep at least one holder (WE's NonEmptyRole). */
export const NON_EMPTY_ROLES: ReadonlySet<RoleName> = new Set<RoleName>(['miner', 'permissioner', 'connection_manager']);

export function isRoleName(name: string): name is RoleName {
  return Object.prototype.hasOwnProperty.call(ROLES, name);
}

/** WE's Role.fromStr (case-sensitive; the message lacks its closing quote, as WE's does). */
export function roleFromName(name: string, field?: string): RoleName {
  if (isRoleName(name)) return name;
  throw genericError(`Permission.fromStr failure: unknown role name '${name}`, field);
}

/** WE's Role.fromByte; the byte is shown signed. */
export function roleFromByte(byte: number, field?: string): RoleName {
  const role = ROLE_BY_BYTE.get(byte & 0xff);
  if (role === undefined) throw genericError(`Permission.fromByte failure: unknown role byte '${(byte << 24) >> 24}'`, field);
  return role;
}

/** WE's OpType.fromStr: case-insensitive. */
export function opTypeFromName(name: string, field?: string): OpType {
  const lower = name.toLowerCase();
  if (lower === 'add' || lower === 'remove') return lower;
  throw genericError(`OpType.fromStr failure: unknown operation string ${lower}`, field);
}

const OP_ADD = 0x61;
const OP_REMOVE = 0x72;

/** WE's OpType.fromByte; the byte is shown signed. */
export function opTypeFromByte(byte: number, field?: string): OpType {
  if (byte === OP_ADD) return 'add';
  if (byte === OP_REMOVE) return 'remove';
  throw genericError(`OpType.fromByte failure: unknown operation byte ${(byte << 24) >> 24}`, field);
}

// ---------------------------------------------------------------------------
// PERMISSION_OP

export interface PermissionOp {
  readonly opType: OpType;
  readonly role: RoleName;
  /** Must equal the transaction's timestamp. */
  readonly timestamp: bigint;
  readonly dueTimestamp: bigint | null;
}

export const PERMISSION_OP_SIZE = 19;

export function writePermissionOp(w: ByteWriter, op: PermissionOp): void {
  w.u8(op.opType === 'add' ? OP_ADD : OP_REMOVE)
    .u8(ROLES[op.role])
    .i64(op.timestamp);
  if (op.dueTimestamp === null) w.u8(0).i64(0n);
  else w.u8(1).i64(op.dueTimestamp);
}

/**
 * PermissionOp.fromBytes: 19 bytes. As in WE, a due-timestamp flag other than 1 means "no
 * due timestamp" and the 8 bytes after it are ignored.
 */
export const PERMISSION_OP: FieldType<PermissionOp> = {
  kind: 'PERMISSION_OP',
  write: (w, v) => writePermissionOp(w, v),
  read: (r, _p, f) => {
    if (r.remaining < PERMISSION_OP_SIZE) throw new DecodeError(`Buffer underflow while reading ${f}: need ${PERMISSION_OP_SIZE} bytes`, f);
    const opType = opTypeFromByte(r.u8(f), f);
    const role = roleFromByte(r.u8(f), f);
    const ts = r.i64(f);
    const flag = r.u8(f);
    const due = r.i64(f);
    return { opType, role, timestamp: ts, dueTimestamp: flag === 1 ? due : null };
  },
  // A standalone op object ({opType, role, timestamp, dueTimestamp?}); Permit requests spread it instead.
  fromJson: (j, _p, path) => permissionOpFromJson(jsonObject(j, path), path),
  toJson: (v) => ({ opType: v.opType, role: v.role, dueTimestamp: v.dueTimestamp }),
};

/**
 * `role`, `opType`, `timestamp` and optional `dueTimestamp` of an object: for a Permit request
 * the request itself, the op timestamp being the tx timestamp.
 */
function permissionOpFromJson(body: JsonObject, prefix?: string): PermissionOp {
  const at = (key: string): string => (prefix === undefined ? key : `${prefix}.${key}`);
  const roleName = jsonString(body['role'], at('role'));
  const opName = jsonString(body['opType'], at('opType'));
  const ts = jsonLong(body['timestamp'], at('timestamp'));
  const dueJson = body['dueTimestamp'];
  const dueTimestamp = dueJson === undefined || dueJson === null ? null : jsonLong(dueJson, at('dueTimestamp'));
  // SignedPermitRequest.mkPermissionOp: the role first, then the op type.
  const role = roleFromName(roleName, at('role'));
  const opType = opTypeFromName(opName, at('opType'));
  return { opType, role, timestamp: ts, dueTimestamp };
}

// ---------------------------------------------------------------------------
// Permit

const permitFields = [
  sender,
  field('target', RECIPIENT),
  timestamp,
  fee,
  field('permissionOp', PERMISSION_OP, {
    hiddenInJson: true,
    fromJson: (body) => permissionOpFromJson(body),
    check: (op, _p, data) => {
      if (op.timestamp !== data['timestamp']) {
        throw genericError('Invalid PermitTransaction: timestamp for tx must match timestamp from PermissionOp');
      }
    },
  }),
  atomicBadgeSince(2),
  PROOFS,
] as const;

export const Permit = defineTx({
  type: 102,
  name: 'Permit',
  versions: [1, 2],
  fields: permitFields,
  extraJson: (tx) => PERMISSION_OP.toJson(tx.data.permissionOp, tx.protocol) as JsonObject,
});
export type PermitData = DataOf<typeof permitFields>;
export type PermitTransaction = Transaction<PermitData>;

export const codecs = [Permit];
