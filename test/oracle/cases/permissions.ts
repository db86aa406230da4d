import fc from 'fast-check';
import { ROLE_NAMES } from '../../../src/protocol/transactions/permissions.js';
import { feeArb, timestampArb, type OracleCase } from '../harness.js';
import { atomicBadgeArb } from './transfer.js';

const permit = (version: number): OracleCase => ({
  name: 'Permit',
  type: 102,
  version,
  fields: (env) =>
    fc
      .record(
        {
          target: env.recipient,
          opType: fc.constantFrom('add', 'remove'),
          role: fc.constantFrom(...ROLE_NAMES),
          fee: feeArb,
          timestamp: timestampArb,
          // 1.4.3 encodes a due timestamp of 0 as "none"; realistic values only.
          dueTimestamp: fc.option(timestampArb, { nil: undefined }),
          ...(version >= 2 ? { atomicBadge: atomicBadgeArb(env) } : {}),
        },
        { requiredKeys: ['target', 'opType', 'role', 'fee', 'timestamp'] },
      )
      .map((fields) =>
        // transactions-factory 2.1.4 does not copy the tx timestamp into the permission op:
        // the caller must pass it as `duplicate_timestamp` (1.4.3 copies it itself; the node
        // ignores the key).
        env.mode.library === 'tf2' ? { ...fields, duplicate_timestamp: fields['timestamp'] } : fields,
      ),
});

export const cases: OracleCase[] = [permit(1), permit(2)];
