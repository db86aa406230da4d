import fc from 'fast-check';
import { amountArb, CHAIN_ID, feeArb, timestampArb, type OracleCase, type OracleEnv } from '../harness.js';
import { optionalScriptArb, scriptArb } from './scripts.js';
import { atomicBadgeArb } from './transfer.js';

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Asset names of 4–16 UTF-8 bytes, ASCII or not. */
const assetNameArb = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', minLength: 4, maxLength: 16 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 16 }).filter((s) => byteLength(s) >= 4 && byteLength(s) <= 16),
);

/** Descriptions up to 1000 UTF-8 bytes, including the empty one and the limit. */
const descriptionArb = fc.oneof(
  fc.constant(''),
  fc.string({ unit: 'binary', maxLength: 200 }).filter((s) => byteLength(s) <= 1000),
  fc.constant('d'.repeat(1000)),
);

const issue = (version: number): OracleCase => ({
  name: 'Issue',
  type: 3,
  version,
  libraries: version === 3 ? ['tf2'] : ['tf2', 'tf1'],
  fields: (env: OracleEnv) =>
    fc.record(
      {
        chainId: fc.constant(CHAIN_ID),
        name: assetNameArb,
        description: descriptionArb,
        quantity: amountArb,
        decimals: fc.integer({ min: 0, max: 8 }),
        reissuable: fc.boolean(),
        fee: feeArb,
        timestamp: timestampArb,
        script: fc.option(scriptArb(env.protocol), { nil: undefined, freq: 2 }),
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      // `script` always goes through fc.option (absent half of the time).
      { requiredKeys: ['chainId', 'name', 'description', 'quantity', 'decimals', 'reissuable', 'fee', 'timestamp', 'script'] },
    ),
});

const reissue = (version: number): OracleCase => ({
  name: 'Reissue',
  type: 5,
  version,
  libraries: version === 3 ? ['tf2'] : ['tf2', 'tf1'],
  fields: (env: OracleEnv) =>
    fc.record(
      {
        chainId: fc.constant(CHAIN_ID),
        assetId: env.id32,
        quantity: amountArb,
        reissuable: fc.boolean(),
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      { requiredKeys: ['chainId', 'assetId', 'quantity', 'reissuable', 'fee', 'timestamp'] },
    ),
});

const burn = (version: number): OracleCase => ({
  name: 'Burn',
  type: 6,
  version,
  libraries: version === 3 ? ['tf2'] : ['tf2', 'tf1'],
  fields: (env: OracleEnv) =>
    fc.record(
      {
        chainId: fc.constant(CHAIN_ID),
        assetId: env.id32,
        // Burning nothing is allowed.
        amount: fc.oneof(fc.constant(0), amountArb),
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      { requiredKeys: ['chainId', 'assetId', 'amount', 'fee', 'timestamp'] },
    ),
});

const sponsorFee = (version: number): OracleCase => ({
  name: 'SponsorFee',
  type: 14,
  version,
  libraries: version === 2 ? ['tf2'] : ['tf2', 'tf1'],
  fields: (env: OracleEnv) =>
    fc.record(
      {
        assetId: env.id32,
        isEnabled: fc.boolean(),
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 2 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      { requiredKeys: ['assetId', 'isEnabled', 'fee', 'timestamp'] },
    ),
});

const setAssetScript: OracleCase = {
  name: 'SetAssetScript',
  type: 15,
  version: 1,
  fields: (env: OracleEnv) =>
    fc.record(
      {
        chainId: fc.constant(CHAIN_ID),
        assetId: env.id32,
        // None passes here; it is refused later, against state.
        script: optionalScriptArb(env),
        fee: feeArb,
        timestamp: timestampArb,
      },
      { requiredKeys: ['chainId', 'assetId', 'fee', 'timestamp'] },
    ),
};

export const cases: OracleCase[] = [issue(2), issue(3), reissue(2), reissue(3), burn(2), burn(3), sponsorFee(1), sponsorFee(2), setAssetScript];
