/**
 * `/permissions/*` (WE's PermissionApiRoute and PermissionApiService): the roles an address
 * holds now or at a time, for several addresses at once, and the contract validators at
 * the last block or at a height. Roles are resolved as WE resolves them
 * (state/permissions.ts): per role, the newest op not after the time decides, and an `add`
 * is active until its due timestamp.
 *
 * Order of checks as WE's: `/{address}/at/{timestamp}` needs a digits-only timestamp for the
 * path to match at all (else 404) before the address is read (else 102).
 */
import { Type } from '@sinclair/typebox';
import type { Address } from '../../crypto/address.js';
import { encodeBase58 } from '../../crypto/encoding.js';
import { ROLE_NAMES, ROLES, type RoleName } from '../../protocol/transactions/permissions.js';
import { decidingOp, hasRole } from '../../state/permissions.js';
import type { PermissionReader } from '../../state/view.js';
import { routeNotFound } from '../errors.js';
import { positiveInt, text, type ParamSpec } from '../params.js';
import { defineRoutes, route, type ApiContext } from '../routing.js';
import * as S from '../schemas.js';
import { INT64 } from '../../protocol/bytes.js';
import { customValidationError, requestedHeightDoesntExist } from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

/** Akka's LongNumber segment: ASCII digits within int64; anything else does not match the path (404). */
const digitsLong = (doc: string): ParamSpec<bigint> => ({
  schema: Type.Integer({ format: 'int64', minimum: 0 }),
  description: doc,
  parse(raw) {
    if (!/^[0-9]+$/.test(raw)) throw routeNotFound();
    const n = BigInt(raw);
    if (n > INT64.MAX) throw routeNotFound();
    return n;
  },
});

const RoleInfo = Type.Object(
  {
    role: Type.Union(ROLE_NAMES.map((r) => Type.Literal(r))),
    dueTimestamp: Type.Optional(S.Int64({ description: 'When the role expires (absent: never)' })),
  },
  { $id: 'RoleInfo' },
);

const Roles = Type.Object({ roles: Type.Array(RoleInfo), timestamp: S.Int64({ description: 'The time the roles are read at' }) }, { $id: 'RolesResponse' });

const RolesRequest = Type.Object(
  {
    addresses: Type.Array(Type.String({ description: 'Address, Base58' })),
    timestamp: S.Int64({ description: 'The time to read the roles at, ms' }),
  },
  { $id: 'PermissionsForAddressesRequest' },
);

const RolesOfAddresses = Type.Object(
  {
    addressToRoles: Type.Array(Type.Object({ address: Type.String(), roles: Type.Array(RoleInfo) })),
    timestamp: S.Int64(),
  },
  { $id: 'RolesForAddressesResponse' },
);

const Validators = Type.Object({ addresses: Type.Array(Type.String({ description: 'Address, Base58' })) }, { $id: 'ContractValidators' });

/** The roles active for an address at `at`, by role byte, with their due timestamps (WE's RoleInfo). */
export function rolesAt(state: PermissionReader, address: Address, at: bigint): Array<{ role: RoleName; dueTimestamp?: bigint }> {
  const ops = state.permissionOps(address.bytes);
  const out: Array<{ role: RoleName; dueTimestamp?: bigint }> = [];
  for (const name of ROLE_NAMES) {
    const byte = ROLES[name];
    if (!hasRole(ops, byte, at)) continue;
    const op = decidingOp(ops, byte, at)!;
    out.push(op.dueTimestamp === null ? { role: name } : { role: name, dueTimestamp: op.dueTimestamp });
  }
  return out.sort((a, b) => ROLES[a.role] - ROLES[b.role]);
}

/** Holders of `contract_validator` at a time (WE's ContractValidatorPool.currentValidatorSet). */
function validatorsAt(state: PermissionReader, at: bigint): string[] {
  const role = ROLES.contract_validator;
  return state
    .roleHolders(role)
    .filter((a) => hasRole(state.permissionOps(a), role, at))
    .map((a) => encodeBase58(a));
}

const parseAddress = (ctx: ApiContext, raw: string, field: string): Address => ctx.services.protocol.addresses.parseAddress(raw, field);

export const permissionsRoutes = defineRoutes({ name: 'permissions', description: 'Roles of addresses (ACL) and contract validators' }, [
  route({
    method: 'GET',
    path: '/permissions/contractValidators',
    auth: 'user',
    summary: 'Contract validators at the time of the last block',
    responses: { 200: Validators },
    handler: (_req, ctx) => {
      const chain = ctx.services.chain;
      const last = chain.blockAt(chain.height());
      if (last === undefined) throw customValidationError('Last block is incorrect');
      return { addresses: validatorsAt(chain.state(), last.timestamp) };
    },
  }),
  route({
    method: 'GET',
    path: '/permissions/contractValidators/{height}',
    auth: 'user',
    summary: 'Contract validators at the time of the block at a height',
    params: { height: positiveInt('Height') },
    responses: { 200: Validators, 400: err("199 `Invalid parameter: '<v>' must be positive`; 310 no block at that height") },
    handler: ({ params }, ctx) => {
      const chain = ctx.services.chain;
      const block = chain.blockAt(params.height);
      if (block === undefined) throw requestedHeightDoesntExist(params.height, chain.height());
      return { addresses: validatorsAt(chain.state(), block.timestamp) };
    },
  }),
  route({
    method: 'GET',
    path: '/permissions/{address}',
    auth: 'user',
    summary: 'Roles an address holds now',
    params: { address: text('Address, Base58') },
    responses: { 200: Roles, 400: err('102 invalid address') },
    handler: ({ params }, ctx) => {
      const address = parseAddress(ctx, params.address, 'address');
      const now = ctx.services.now();
      return { roles: rolesAt(ctx.services.chain.state(), address, now), timestamp: now };
    },
  }),
  route({
    method: 'GET',
    path: '/permissions/{address}/at/{timestamp}',
    auth: 'user',
    summary: 'Roles an address held at a time',
    params: { address: text('Address, Base58'), timestamp: digitsLong('Unix time, ms (digits only)') },
    responses: {
      200: Roles,
      400: err('102 invalid address'),
      404: { description: 'The timestamp is not a number (no route matches)', contentType: 'text/plain' },
    },
    handler: ({ params }, ctx) => {
      const address = parseAddress(ctx, params.address, 'address');
      return { roles: rolesAt(ctx.services.chain.state(), address, params.timestamp), timestamp: params.timestamp };
    },
  }),
  route({
    method: 'POST',
    path: '/permissions/addresses',
    auth: 'user',
    summary: 'Roles of several addresses at a time',
    body: { schema: RolesRequest, read: 'schema' },
    responses: { 200: RolesOfAddresses, 400: err('1 malformed body; 102 the first invalid address') },
    handler: ({ body }, ctx) => {
      const state = ctx.services.chain.state();
      const addresses = body.addresses.map((raw, i) => parseAddress(ctx, raw, `addresses[${i}]`));
      const at = BigInt(body.timestamp);
      return {
        addressToRoles: addresses.map((a) => ({ address: a.toString(), roles: rolesAt(state, a, at) })),
        timestamp: at,
      };
    },
  }),
]);
