import fc from 'fast-check';
import { feeArb, timestampArb, type OracleCase, type OracleEnv } from '../harness.js';
import { atomicBadgeArb } from './transfer.js';

/** A data entry as the libraries take it: `{key, type, value}`, binary values as "base64:…". */
type EntryInput = { key: string; type: string; value: unknown };

/**
 * Integer values the libraries encode exactly: every safe integer, and JS numbers beyond
 * 2^53 up to ±9.2e18 — the libraries encode the decimal of the number (what JSON.stringify
 * writes and the node reads), which still fits a long.
 */
const integerValueArb: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.maxSafeInteger(),
  fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 60, -(2 ** 60), 9.2e18, -9.2e18),
  fc.double({ min: -9.2e18, max: 9.2e18, noNaN: true }).map(Math.trunc),
);

/** Keys: non-ASCII text (no lone surrogates), up to the 100 UTF-16 units the node allows. */
const keyArb: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 50 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 100 }),
  fc.string({ unit: 'binary-ascii', minLength: 100, maxLength: 100 }),
  // 50 astral characters = 100 UTF-16 units (200 UTF-8 bytes).
  fc.string({ unit: fc.constantFrom('𝄞', '😀', '𓂀'), minLength: 50, maxLength: 50 }),
);

const valueArb = (maxBytes: number): fc.Arbitrary<{ type: string; value: unknown }> =>
  fc.oneof(
    integerValueArb.map((value) => ({ type: 'integer', value })),
    fc.boolean().map((value) => ({ type: 'boolean', value })),
    fc.uint8Array({ maxLength: maxBytes }).map((b) => ({ type: 'binary', value: `base64:${Buffer.from(b).toString('base64')}` })),
    fc.string({ unit: 'binary', maxLength: Math.floor(maxBytes / 4) }).map((value) => ({ type: 'string', value })),
  );

const entriesArb = (minLength: number, maxLength: number, maxValueBytes: number): fc.Arbitrary<EntryInput[]> =>
  fc
    .uniqueArray(fc.tuple(keyArb, valueArb(maxValueBytes)), { minLength, maxLength, selector: ([key]) => key })
    .map((list) => list.map(([key, v]) => ({ key, ...v })));

const authorArb = (env: OracleEnv): fc.Arbitrary<string> => fc.constantFrom(...env.accounts.map((a) => a.publicKey));

const data = (version: number, entries: fc.Arbitrary<EntryInput[]> = fc.oneof(entriesArb(0, 5, 64), entriesArb(0, 100, 16))): OracleCase => ({
  name: 'Data',
  type: 12,
  version,
  // transactions-factory 1.4.3 offers V1 and V2.
  libraries: version <= 2 ? ['tf2', 'tf1'] : ['tf2'],
  fields: (env) =>
    fc.record(
      {
        // The author may differ from the signer (sender).
        authorPublicKey: authorArb(env),
        data: entries,
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 2 ? { feeAssetId: fc.option(env.id32, { nil: undefined }) } : {}),
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      { requiredKeys: ['authorPublicKey', 'data', 'fee', 'timestamp'] },
    ),
});

export const cases: OracleCase[] = [data(1), data(2), data(3)];

/** Binary or string values of (nearly) the 32 767 bytes the node allows. */
const largeValueArb: fc.Arbitrary<{ type: string; value: unknown }> = fc.oneof(
  fc.uint8Array({ minLength: 32_000, maxLength: 32_767 }).map((b) => ({ type: 'binary', value: `base64:${Buffer.from(b).toString('base64')}` })),
  fc.constantFrom(
    { type: 'string', value: 'я'.repeat(16_383) + 'a' }, // exactly 32 767 UTF-8 bytes
    { type: 'binary', value: `base64:${Buffer.alloc(32_767, 0xa5).toString('base64')}` },
  ),
);

/** Four maximal values and a fifth of up to 18 000 bytes: full bytes near (below) the 150 KiB limit. */
const nearSizeLimitArb: fc.Arbitrary<EntryInput[]> = fc
  .tuple(
    fc.array(largeValueArb, { minLength: 4, maxLength: 4 }),
    fc.uint8Array({ minLength: 0, maxLength: 18_000 }),
    fc.uniqueArray(fc.string({ unit: 'binary', minLength: 1, maxLength: 5 }), { minLength: 5, maxLength: 5 }),
  )
  .map(([large, last, keys]) => [
    ...large.map((v, i) => ({ key: keys[i]!, ...v })),
    { key: keys[4]!, type: 'binary', value: `base64:${Buffer.from(last).toString('base64')}` },
  ]);

/**
 * Limits, kept out of the committed vectors for their size: exactly 100 entries; values of
 * up to 32 767 bytes adding up to nearly 150 KiB. transactions-factory 1.4.3 refuses entry
 * lists above ~140 KiB (its own limit, below the node's 150 KiB), so it gets the 100-entry
 * case only.
 */
export const limitCases: OracleCase[] = [
  { ...data(2, entriesArb(100, 100, 16)), libraries: ['tf2', 'tf1'] },
  { ...data(3, fc.oneof(entriesArb(100, 100, 16), nearSizeLimitArb)), libraries: ['tf2'] },
];
