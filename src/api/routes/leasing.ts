/**
 * `/leasing/*` (WE's LeaseApiRoute): the active leases an address takes part in. WE
 * matches `/leasing/active/{address}` as a prefix, so trailing path segments are ignored.
 */
import { Type } from '@sinclair/typebox';
import type { Address } from '../../crypto/address.js';

import type { JsonObject } from '../../protocol/json.js';
import { ExecutedContract, executedAssetOperations } from '../../protocol/transactions/contracts-executed.js';
import { Lease } from '../../protocol/transactions/leasing.js';
import { text } from '../params.js';
import { defineRoutes, route, type ApiContext } from '../routing.js';
import * as S from '../schemas.js';
import { bytesKey } from '../../crypto/encoding.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

/** Every confirmed transaction of an address, newest first. */
const ALL = Number.MAX_SAFE_INTEGER;

/**
 * WE's order: the address's Lease transactions whose lease is still active (newest
 * first), then the ExecutedContract V3 transactions that opened a still-active contract
 * lease for it (a lease cancelled by a later V3 execution is dropped).
 */
function activeLeases(ctx: ApiContext, address: Address): JsonObject[] {
  const state = ctx.services.chain.state();
  const { txs } = ctx.services.chain.addressTransactions(address.bytes, ALL);
  const leases: JsonObject[] = [];
  const contractLeases = new Map<string, JsonObject>();
  const cancelled = new Set<string>();
  for (const { tx, height } of txs) {
    if (Lease.is(tx)) {
      if (state.lease(tx.id)?.active === true) leases.push({ ...tx.toJson(), height });
    } else if (ExecutedContract.is(tx) && tx.version === 3) {
      for (const op of executedAssetOperations(tx)) {
        if (op.operationType === 'lease') contractLeases.set(bytesKey(op.leaseId), { ...tx.toJson(), height });
        else if (op.operationType === 'cancel-lease') cancelled.add(bytesKey(op.leaseId));
      }
    }
  }
  for (const id of cancelled) contractLeases.delete(id);
  return [...leases, ...contractLeases.values()];
}

const activeRoute = <const P extends '/leasing/active/{address}' | '/leasing/active/{address}/*'>(path: P, hidden: boolean) =>
  route({
    method: 'GET',
    path,
    auth: 'user',
    summary: 'Active leases the address takes part in (as lessor or lessee), with their heights',
    description: 'Lease transactions (type 8) whose lease is active, newest first, then ExecutedContract V3 transactions holding an active contract lease.',
    hidden,
    params: { address: text('Address, Base58') },
    responses: { 200: Type.Array(Type.Ref('TransactionWithHeight')), 400: err('102 invalid address') },
    handler: ({ params }, ctx) => activeLeases(ctx, ctx.services.protocol.addresses.parseAddress(params.address, 'address')),
  });

export const leasingRoutes = defineRoutes({ name: 'leasing', description: 'Leases' }, [
  activeRoute('/leasing/active/{address}', false),
  activeRoute('/leasing/active/{address}/*', true),
]);
