import fc from 'fast-check';
import { feeArb, timestampArb, type OracleCase, type OracleEnv } from '../harness.js';
import { atomicBadgeArb } from './transfer.js';

/**
 * A node name the node accepts: 1–99 UTF-16 code units, any Unicode (the libraries require
 * the field, so "no name" is covered by the negative tests).
 */
export const nodeNameArb = fc.string({ unit: 'binary', minLength: 1, maxLength: 99 }).filter((s) => s.length < 100);

const publicKeyArb = (env: OracleEnv): fc.Arbitrary<string> => fc.constantFrom(...env.accounts.map((a) => a.publicKey));

const registerNode = (version: number): OracleCase => ({
  name: 'RegisterNode',
  type: 111,
  version,
  libraries: version === 1 ? ['tf2', 'tf1'] : ['tf2'],
  fields: (env) =>
    fc.record(
      {
        targetPubKey: publicKeyArb(env),
        nodeName: nodeNameArb,
        opType: fc.constantFrom('add', 'remove'),
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 2 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      { requiredKeys: ['targetPubKey', 'nodeName', 'opType', 'fee', 'timestamp'] },
    ),
});

export const cases: OracleCase[] = [registerNode(1), registerNode(2)];
