import { createRequire } from 'node:module';
import fc from 'fast-check';
import { feeArb, timestampArb, CHAIN_ID, type OracleCase, type OracleEnv } from '../harness.js';
import { atomicBadgeArb } from './transfer.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const cryptoUtils: any = require('@wavesenterprise/crypto-utils');
const sdkDir = require.resolve('@wavesenterprise/js-sdk/package.json').replace(/\/package\.json$/, '');
const sg1: any = require(`${sdkDir}/node_modules/@wavesenterprise/signature-generator`);
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * WE's CreateAlias id, computed with the libraries' own hash functions:
 * fastHash(0x0A ‖ 0x02 ‖ chainId ‖ u16 length ‖ UTF-8 name). Both libraries' `getId` hash
 * the body instead, which the node never uses.
 */
function aliasId(crypto: 'waves' | 'gost', name: string): string {
  const nameBytes = Buffer.from(name, 'utf8');
  const bytes = Uint8Array.from([0x0a, 0x02, CHAIN_ID, nameBytes.length >> 8, nameBytes.length & 0xff, ...nameBytes]);
  return crypto === 'gost' ? (sg1.utils.cryptoGost.buildTransactionId(bytes) as string) : (cryptoUtils.getTransactionId(bytes) as string);
}

/** Alias names the node accepts: 4–30 characters of `-.0-9@_a-z` (clients must send lower case). */
export const aliasNameArb = fc.oneof(
  fc.stringMatching(/^[-.0-9@_a-z]{4,30}$/),
  fc.constantFrom('john', '____', '@@@@', '0123456789abcdefghijklmnopqrst', '-.-.'),
);

const assetIdArb = (env: OracleEnv): fc.Arbitrary<string | undefined> => fc.option(env.id32, { nil: undefined });

const createAlias = (version: number): OracleCase => ({
  name: 'CreateAlias',
  type: 10,
  version,
  // transactions-factory 1.4.3 offers V2 and V3.
  libraries: version <= 3 ? ['tf2', 'tf1'] : ['tf2'],
  fields: (env) =>
    fc.record(
      {
        alias: aliasNameArb,
        fee: feeArb,
        timestamp: timestampArb,
        ...(version >= 3 ? { feeAssetId: assetIdArb(env) } : {}),
        ...(version >= 4 ? { atomicBadge: atomicBadgeArb(env) } : {}),
      },
      { requiredKeys: ['alias', 'fee', 'timestamp'] },
    ),
  expectedId: (tx, body) => aliasId(tx.protocol.crypto.type, String(body['alias'])),
});

export const cases: OracleCase[] = [createAlias(2), createAlias(3), createAlias(4)];
