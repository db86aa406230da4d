/**
 * Oracle cases of the contract transactions: CreateContract (103), CallContract (104),
 * DisableContract (106), UpdateContract (107). CallContract V6 (no REST reader in WE) and
 * groups of five or more members have dedicated tests in ../contracts.test.ts;
 * ExecutedContract (105) has no library and is covered by fixed vectors in
 * test/protocol/contracts.test.ts.
 */
import fc from 'fast-check';
import { encodeBase58 } from '../../../src/crypto/encoding.js';
import { amountArb, base58BytesArb, feeArb, timestampArb, type OracleCase, type OracleEnv } from '../harness.js';
import { atomicBadgeArb } from './transfer.js';

// ---------------------------------------------------------------------------
// Field arbitraries

const ASCII_PRINTABLE = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i));
const RUSSIAN = Array.from({ length: 0x44f - 0x410 + 1 }, (_, i) => String.fromCharCode(0x410 + i));
/** Characters WE allows in param keys (whitespace only inside blank runs). */
export const KEY_CHARS = [...ASCII_PRINTABLE, ...RUSSIAN, ' '];

/** A valid param key: 1–100 allowed characters. */
export const paramKeyArb = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.constantFrom(...KEY_CHARS), { minLength: 1, maxLength: 12 }).map((a) => a.join('')) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...KEY_CHARS), { minLength: 90, maxLength: 100 }).map((a) => a.join('')) },
);

/** Text with non-ASCII characters (graphemes, so every string is valid UTF-16). */
const textArb = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: 'grapheme', minLength, maxLength }).filter((s) => s.length >= minLength && s.length <= 200);

const base64Arb = (maxLength: number): fc.Arbitrary<string> => fc.uint8Array({ maxLength }).map((b) => Buffer.from(b).toString('base64'));

/** A contract param as the libraries take it (binary values `base64:`-prefixed, as both need). */
export const paramArb = (key: fc.Arbitrary<string> = paramKeyArb): fc.Arbitrary<Record<string, unknown>> =>
  fc.oneof(
    fc.record({ key, type: fc.constant('integer'), value: fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }) }),
    fc.record({ key, type: fc.constant('boolean'), value: fc.boolean() }),
    fc.record({ key, type: fc.constant('binary'), value: base64Arb(40).map((b) => `base64:${b}`) }),
    fc.record({ key, type: fc.constant('string'), value: fc.oneof(fc.string({ maxLength: 30 }), textArb(0, 30)) }),
  );

export const paramsArb = fc.uniqueArray(paramArb(), { maxLength: 6, selector: (p) => p['key'] });

/** image / contractName: 1–200 UTF-16 units, often non-ASCII, sometimes the 200-unit limit. */
const nameArb = fc.oneof({ weight: 4, arbitrary: textArb(1, 40) }, { weight: 1, arbitrary: fc.constantFrom('a'.repeat(200), 'я'.repeat(200), 'x') });

const HEX = '0123456789abcdefABCDEF'.split('');
export const sha256HexArb = fc.array(fc.constantFrom(...HEX), { minLength: 64, maxLength: 64 }).map((a) => a.join(''));

export const apiVersionArb = fc.oneof(
  fc.constantFrom('1.0', '1.1', '1.12', '0.0', '32767.32767'),
  fc.tuple(fc.integer({ min: 0, max: 32767 }), fc.integer({ min: 0, max: 32767 })).map(([a, b]) => `${a}.${b}`),
);

const validationPolicyArb = (env: OracleEnv): fc.Arbitrary<Record<string, unknown>> =>
  fc.oneof(
    fc.constant({ type: 'any' }),
    fc.constant({ type: 'majority' }),
    fc.array(env.address, { minLength: 1, maxLength: 4 }).map((addresses) => ({ type: 'majority_with_one_of', addresses })),
  );

const assetIdOpt = (env: OracleEnv): fc.Arbitrary<string | undefined> => fc.option(env.id32, { nil: undefined });

/** Payments; WEST payments leave `assetId` out. */
const paymentsArb = (env: OracleEnv): fc.Arbitrary<Record<string, unknown>[]> =>
  fc.array(fc.record({ assetId: env.id32, amount: amountArb }, { requiredKeys: ['amount'] }), { maxLength: 4 });

/** Group members: 0–4 distinct addresses (the clients keep array order, which is WE's Set order up to four). */
const groupArb = (env: OracleEnv): fc.Arbitrary<string[]> => fc.uniqueArray(env.address, { maxLength: 4 });

const storedContractArb = fc.oneof(
  fc.record({ image: nameArb, imageHash: sha256HexArb, apiVersion: apiVersionArb }),
  fc.record({ bytecode: base64Arb(200), bytecodeHash: sha256HexArb }),
);

/** Contract ids: usually 32 bytes; the node takes any length. */
const contractIdArb = (env: OracleEnv): fc.Arbitrary<string> => fc.oneof({ weight: 4, arbitrary: env.id32 }, { weight: 1, arbitrary: base58BytesArb(40) });

/** Keys whose value is only sometimes given (fc.record's optional keys). */
function record(required: Record<string, fc.Arbitrary<unknown>>, optional: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<Record<string, unknown>> {
  return fc.record({ ...required, ...optional }, { requiredKeys: Object.keys(required) });
}

// ---------------------------------------------------------------------------
// Cases

const createContract = (version: number): OracleCase => ({
  name: 'CreateContract',
  type: 103,
  version,
  libraries: version <= 4 ? ['tf2', 'tf1'] : ['tf2'],
  fields: (env) =>
    record(
      {
        ...(version <= 6 ? { image: nameArb, imageHash: sha256HexArb } : {}),
        contractName: nameArb,
        params: paramsArb,
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 4 ? { validationPolicy: validationPolicyArb(env) } : {}),
        ...(version >= 4 && version <= 6 ? { apiVersion: apiVersionArb } : {}),
        ...(version >= 5 ? { payments: paymentsArb(env) } : {}),
        ...(version >= 6 ? { isConfidential: fc.boolean(), groupParticipants: groupArb(env), groupOwners: groupArb(env) } : {}),
        ...(version >= 7 ? { storedContract: storedContractArb } : {}),
      },
      {
        ...(version >= 2 ? { feeAssetId: assetIdOpt(env) } : {}),
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
    ),
});

const callContract = (version: number): OracleCase => ({
  name: 'CallContract',
  type: 104,
  version,
  libraries: version <= 4 ? ['tf2', 'tf1'] : ['tf2'],
  fields: (env) =>
    record(
      {
        contractId: contractIdArb(env),
        params: paramsArb,
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 2 ? { contractVersion: fc.integer({ min: 1, max: 2 ** 31 - 1 }) } : {}),
        ...(version >= 5 ? { payments: paymentsArb(env) } : {}),
        ...(version >= 7 ? { contractEngine: fc.constantFrom('docker', 'wasm') } : {}),
      },
      {
        ...(version >= 3 ? { feeAssetId: assetIdOpt(env) } : {}),
        ...(version >= 4 ? { atomicBadge: atomicBadgeArb(env) } : {}),
        ...(version >= 7 ? { inputCommitmentOpt: env.id32, callFunc: textArb(0, 20) } : {}),
      },
    ),
  // transactions-factory 2.1.4 names V7's commitment `inputCommitmentOpt`; the node reads `inputCommitment`.
  adjustJson:
    version === 7
      ? (json) => {
          const { inputCommitmentOpt, ...rest } = json;
          return inputCommitmentOpt === undefined ? rest : { ...rest, inputCommitment: inputCommitmentOpt };
        }
      : undefined,
});

const disableContract = (version: number): OracleCase => ({
  name: 'DisableContract',
  type: 106,
  version,
  fields: (env) =>
    record(
      { contractId: contractIdArb(env), fee: feeArb, timestamp: timestampArb },
      {
        ...(version >= 2 ? { feeAssetId: assetIdOpt(env) } : {}),
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
    ),
});

const updateContract = (version: number): OracleCase => ({
  name: 'UpdateContract',
  type: 107,
  version,
  libraries: version <= 4 ? ['tf2', 'tf1'] : ['tf2'],
  fields: (env) =>
    record(
      {
        contractId: contractIdArb(env),
        ...(version <= 5 ? { image: nameArb, imageHash: sha256HexArb } : {}),
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 4 ? { validationPolicy: validationPolicyArb(env) } : {}),
        ...(version >= 4 && version <= 5 ? { apiVersion: apiVersionArb } : {}),
        ...(version >= 5 ? { groupParticipants: groupArb(env), groupOwners: groupArb(env) } : {}),
        ...(version >= 6 ? { storedContract: storedContractArb } : {}),
      },
      {
        ...(version >= 2 ? { feeAssetId: assetIdOpt(env) } : {}),
        ...(version >= 3 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
    ),
});

export const cases: OracleCase[] = [
  ...[1, 2, 3, 4, 5, 6, 7].map(createContract),
  ...[1, 2, 3, 4, 5, 7].map(callContract),
  ...[1, 2, 3].map(disableContract),
  ...[1, 2, 3, 4, 5, 6].map(updateContract),
];

/** CallContract V6 as transactions-factory 2.1.4 takes it (tested outside the broadcast path). */
export const callContractV6Fields = (env: OracleEnv): fc.Arbitrary<Record<string, unknown>> =>
  record(
    {
      contractId: contractIdArb(env),
      params: paramsArb,
      fee: feeArb,
      timestamp: timestampArb,
      contractVersion: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      payments: paymentsArb(env),
      inputCommitment: fc.uint8Array({ minLength: 32, maxLength: 32 }).map(encodeBase58),
    },
    { feeAssetId: assetIdOpt(env), atomicBadge: atomicBadgeArb(env) },
  );
