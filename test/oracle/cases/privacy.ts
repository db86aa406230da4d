import fc from 'fast-check';
import { encodeBase58 } from '../../../src/crypto/encoding.js';
import { feeArb, timestampArb, type OracleCase, type OracleEnv } from '../harness.js';
import { atomicBadgeArb } from './transfer.js';

/** Policy names the node accepts: at most 100 UTF-16 code units, any Unicode. */
export const policyNameArb = fc.string({ unit: 'binary', maxLength: 100 }).filter((s) => s.length <= 100);
const descriptionArb = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
  // Long descriptions (well inside the u16 byte length).
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1000, maxLength: 5000 }) },
);
/** Address lists: empty, one, many (order kept, repeats allowed: BIG_LIST is a list). */
const addressesArb = (env: OracleEnv): fc.Arbitrary<string[]> => fc.array(env.address, { maxLength: 8 });
const feeAssetIdArb = (env: OracleEnv): fc.Arbitrary<string | undefined> => fc.option(env.id32, { nil: undefined });

const createPolicy = (version: number): OracleCase => ({
  name: 'CreatePolicy',
  type: 112,
  version,
  fields: (env) =>
    fc.record(
      {
        policyName: policyNameArb,
        description: descriptionArb,
        recipients: addressesArb(env),
        owners: addressesArb(env),
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 2 ? { feeAssetId: feeAssetIdArb(env) } : {}),
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      { requiredKeys: ['policyName', 'description', 'recipients', 'owners', 'fee', 'timestamp'] },
    ),
});

/** Policy ids are transaction ids (32 bytes), but any byte string is carried. */
const policyIdArb = (env: OracleEnv): fc.Arbitrary<string> =>
  fc.oneof({ weight: 4, arbitrary: env.id32 }, { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => encodeBase58(b)) });

const updatePolicy = (version: number): OracleCase => ({
  name: 'UpdatePolicy',
  type: 113,
  version,
  fields: (env) =>
    fc.record(
      {
        policyId: policyIdArb(env),
        recipients: addressesArb(env),
        owners: addressesArb(env),
        opType: fc.constantFrom('add', 'remove'),
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 2 ? { feeAssetId: feeAssetIdArb(env) } : {}),
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      { requiredKeys: ['policyId', 'recipients', 'owners', 'opType', 'fee', 'timestamp'] },
    ),
});

const policyDataHash: OracleCase = {
  name: 'PolicyDataHash',
  type: 114,
  version: 3,
  fields: (env) =>
    fc.record(
      {
        dataHash: env.id32,
        policyId: policyIdArb(env),
        fee: feeArb,
        timestamp: timestampArb,
        feeAssetId: feeAssetIdArb(env),
        atomicBadge: atomicBadgeArb(env),
      },
      { requiredKeys: ['dataHash', 'policyId', 'fee', 'timestamp'] },
    ),
};

export const cases: OracleCase[] = [createPolicy(1), createPolicy(2), createPolicy(3), updatePolicy(1), updatePolicy(2), updatePolicy(3), policyDataHash];
