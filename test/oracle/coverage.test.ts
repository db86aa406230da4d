/**
 * Every (type, version) WE 1.14 accepts must be known to Weft, and must have an oracle
 * test in every official library that builds it; what no library builds must name the
 * test that checks it with hand-made vectors.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { allTypeVersions } from '../../src/protocol/transactions/registry.js';
import { FAMILIES } from './cases/index.js';

/** crypto-and-transactions.md §4.7: the binary parser's (type, versions). */
const REFERENCE: Record<number, readonly number[]> = {
  1: [1],
  3: [2, 3],
  4: [2, 3],
  5: [2, 3],
  6: [2, 3],
  7: [2],
  8: [2, 3],
  9: [2, 3],
  10: [2, 3, 4],
  11: [1, 2, 3],
  12: [1, 2, 3],
  13: [1],
  14: [1, 2],
  15: [1],
  101: [1],
  102: [1, 2],
  103: [1, 2, 3, 4, 5, 6, 7],
  104: [1, 2, 3, 4, 5, 6, 7],
  105: [1, 2, 3, 4, 5],
  106: [1, 2, 3],
  107: [1, 2, 3, 4, 5, 6],
  110: [1],
  111: [1, 2],
  112: [1, 2, 3],
  113: [1, 2, 3],
  114: [1, 2, 3],
  120: [1],
};

/** Pairs a library offers whose oracle check is a dedicated test instead of a case. */
const DEDICATED: Record<string, string> = {
  '104/6': 'test/oracle/contracts.test.ts', // not broadcastable: checked through binary
  '105/5': 'test/protocol/contracts.test.ts', // tf2's ExecutedContract V5 schema is incomplete (unusable)
};

/** Pairs no library builds: the test holding their hand-made vectors. */
const HAND_VECTORS: Record<string, string> = {
  '1/1': 'test/protocol/genesis.test.ts',
  '101/1': 'test/protocol/genesis.test.ts',
  '110/1': 'test/protocol/genesis.test.ts',
  '7/2': 'test/protocol/exchange.test.ts',
  '105/1': 'test/protocol/contracts.test.ts',
  '105/2': 'test/protocol/contracts.test.ts',
  '105/3': 'test/protocol/contracts.test.ts',
  '105/4': 'test/protocol/contracts.test.ts',
  '114/1': 'test/protocol/privacy.test.ts',
  '114/2': 'test/protocol/privacy.test.ts',
};

const NAMES: Record<number, string> = {
  3: 'Issue',
  4: 'Transfer',
  5: 'Reissue',
  6: 'Burn',
  7: 'Exchange',
  8: 'Lease',
  9: 'LeaseCancel',
  10: 'CreateAlias',
  11: 'MassTransfer',
  12: 'Data',
  13: 'SetScript',
  14: 'SponsorFee',
  15: 'SetAssetScript',
  102: 'Permit',
  103: 'CreateContract',
  104: 'CallContract',
  105: 'ExecutedContract',
  106: 'DisableContract',
  107: 'UpdateContract',
  111: 'RegisterNode',
  112: 'CreatePolicy',
  113: 'UpdatePolicy',
  114: 'PolicyDataHash',
  120: 'Atomic',
};

const require = createRequire(import.meta.url);
const tf2 = require('@wavesenterprise/transactions-factory');
const sdkDir = require.resolve('@wavesenterprise/js-sdk/package.json').replace(/\/package\.json$/, '');
const tf1 = require(`${sdkDir}/node_modules/@wavesenterprise/transactions-factory`);

function offeredBy(type: number, version: number): string[] {
  const name = NAMES[type];
  if (name === undefined) return [];
  const out: string[] = [];
  if (tf2.TRANSACTIONS[name]?.[`V${version}`]) out.push('tf2');
  if (tf1.TRANSACTIONS[name]?.[`V${version}`]) out.push('tf1');
  return out;
}

const pairs = Object.entries(REFERENCE).flatMap(([t, vs]) => vs.map((v) => ({ type: Number(t), version: v, key: `${t}/${v}` })));
const ROOT = new URL('../../../', import.meta.url);

describe('coverage of every WE 1.14 transaction type and version', () => {
  it('the registry knows exactly the reference pairs', () => {
    const known = allTypeVersions()
      .map((x) => `${x.type}/${x.version}`)
      .sort();
    assert.deepEqual(known, pairs.map((x) => x.key).sort());
  });

  it('every pair a library builds has an oracle case in that library', () => {
    const covered = new Map<string, Set<string>>();
    for (const cases of Object.values(FAMILIES)) {
      for (const c of cases) {
        const key = `${c.type}/${c.version}`;
        const set = covered.get(key) ?? new Set<string>();
        for (const lib of c.libraries ?? ['tf2', 'tf1']) set.add(lib);
        covered.set(key, set);
      }
    }
    const missing: string[] = [];
    for (const { type, version, key } of pairs) {
      for (const lib of offeredBy(type, version)) {
        if (covered.get(key)?.has(lib)) continue;
        if (DEDICATED[key] !== undefined) continue;
        missing.push(`${key} (${lib})`);
      }
    }
    assert.deepEqual(missing, [], 'pairs a library builds without an oracle test');
  });

  it('every pair no library builds is checked by hand-made vectors in a named test', () => {
    for (const { type, version, key } of pairs) {
      if (offeredBy(type, version).length > 0) continue;
      const file = HAND_VECTORS[key];
      assert.ok(file, `${key}: no library builds it and no hand-vector test is named`);
      const url = new URL(file, ROOT);
      assert.ok(existsSync(url), file);
      const name = type === 1 || type === 101 || type === 110 ? 'Genesis' : NAMES[type]!;
      assert.ok(readFileSync(url, 'utf8').includes(name), `${file} tests ${name}`);
    }
    // And nothing is excused that a library does build.
    for (const key of Object.keys(HAND_VECTORS)) {
      const [t, v] = key.split('/').map(Number) as [number, number];
      assert.deepEqual(offeredBy(t, v), [], `${key} is built by a library: give it an oracle case`);
    }
    for (const [key, file] of Object.entries(DEDICATED)) assert.ok(existsSync(new URL(file, ROOT)), `${key}: ${file}`);
  });
});
