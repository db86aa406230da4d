import fc from 'fast-check';
import { amountArb, CHAIN_ID, feeArb, timestampArb, type OracleCase } from '../harness.js';
import { atomicBadgeArb } from './transfer.js';

const lease = (version: number): OracleCase => ({
  name: 'Lease',
  type: 8,
  version,
  // transactions-factory 1.4.3 has only Lease V2.
  libraries: version === 2 ? ['tf2', 'tf1'] : ['tf2'],
  fields: (env) =>
    fc.record(
      {
        // `assetId` is left unset: both libraries then write the None byte the node requires.
        recipient: env.recipient,
        amount: amountArb,
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      { requiredKeys: ['recipient', 'amount', 'fee', 'timestamp'] },
    ),
});

const leaseCancel = (version: number): OracleCase => ({
  name: 'LeaseCancel',
  type: 9,
  version,
  libraries: version === 2 ? ['tf2', 'tf1'] : ['tf2'],
  fields: (env) =>
    fc.record(
      {
        // The node requires a numeric `chainId` in the JSON: set it explicitly so that it is
        // part of the signed request (1.4.3 needs it for the bytes too).
        chainId: fc.constant(CHAIN_ID),
        leaseId: env.id32,
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      { requiredKeys: ['chainId', 'leaseId', 'fee', 'timestamp'] },
    ),
});

export const cases: OracleCase[] = [lease(2), lease(3), leaseCancel(2), leaseCancel(3)];
