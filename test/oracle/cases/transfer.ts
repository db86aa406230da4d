import fc from 'fast-check';
import { amountArb, base58BytesArb, feeArb, timestampArb, type OracleCase, type OracleEnv } from '../harness.js';

/** An atomic badge as the libraries take it: none, `{}`, or a trusted sender. */
export const atomicBadgeArb = (env: OracleEnv): fc.Arbitrary<unknown> =>
  fc.option(
    fc.oneof(
      fc.constant({}),
      env.address.map((trustedSender) => ({ trustedSender })),
    ),
    { nil: undefined },
  );

const assetIdArb = (env: OracleEnv): fc.Arbitrary<string | undefined> => fc.option(env.id32, { nil: undefined });

const transfer = (version: number): OracleCase => ({
  name: 'Transfer',
  type: 4,
  version,
  fields: (env) =>
    fc.record(
      {
        recipient: env.recipient,
        amount: amountArb,
        fee: feeArb,
        timestamp: timestampArb,
        attachment: base58BytesArb(140),
        assetId: assetIdArb(env),
        feeAssetId: assetIdArb(env),
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      { requiredKeys: ['recipient', 'amount', 'fee', 'timestamp', 'attachment'] },
    ),
});

const massTransfer = (version: number): OracleCase => ({
  name: 'MassTransfer',
  type: 11,
  version,
  fields: (env) =>
    fc.record(
      {
        // signature-generator 2.x cannot encode alias recipients or an empty batch.
        transfers: fc.array(fc.record({ recipient: env.mode.library === 'tf2' ? env.recipient : env.address, amount: fc.integer({ min: 0, max: 2 ** 40 }) }), {
          minLength: env.mode.library === 'tf2' ? 0 : 1,
          maxLength: 100,
        }),
        fee: feeArb,
        timestamp: timestampArb,
        attachment: base58BytesArb(140),
        assetId: assetIdArb(env),
        ...(version >= 2 ? { feeAssetId: assetIdArb(env) } : {}),
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      { requiredKeys: ['transfers', 'fee', 'timestamp', 'attachment'] },
    ),
});

export const cases: OracleCase[] = [transfer(2), transfer(3), massTransfer(1), massTransfer(2), { ...massTransfer(3), libraries: ['tf2'] }];
