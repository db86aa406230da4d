/**
 * Every transaction type and version the protocol knows has its chain rules declared
 * beside its applier (state/appliers/rules.ts): adding a type without them fails here.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allTypeVersions } from '../../src/protocol/transactions/registry.js';
import { rulesFor, TRANSACTION_RULES } from '../../src/state/appliers/index.js';
import { DEFAULT_FEES, FEE_NAMES } from '../../src/chain/settings.js';
import { ZERO_FEE_TYPES } from '../../src/chain/fees.js';

describe('transaction rules registry', () => {
  it('declares rules for every (type, version) the protocol registers, and nothing else', () => {
    const types = new Set<number>();
    for (const { type, version, name } of allTypeVersions()) {
      types.add(type);
      const rules = rulesFor(type);
      assert.ok(rules !== undefined, `${name} (type ${type}) has no rules`);
      assert.ok(rules.features.has(version), `${name} V${version} (type ${type}) lists no required features`);
    }
    assert.deepEqual(
      [...TRANSACTION_RULES.keys()].sort((a, b) => a - b),
      [...types].sort((a, b) => a - b),
    );
    for (const [type, rules] of TRANSACTION_RULES) {
      const versions = allTypeVersions()
        .filter((t) => t.type === type)
        .map((t) => t.version);
      assert.deepEqual(
        [...rules.features.keys()].sort((a, b) => a - b),
        versions,
        `type ${type}: features listed for exactly its versions`,
      );
    }
  });

  it('feeds the fee names, defaults and zero-fee types from the same declarations', () => {
    assert.deepEqual(
      [...ZERO_FEE_TYPES].sort((a, b) => a - b),
      [1, 101, 105, 110, 120],
    );
    assert.equal(new Set(FEE_NAMES.values()).size, FEE_NAMES.size, 'fee config names are unique');
    for (const [type] of FEE_NAMES) assert.ok(DEFAULT_FEES.base.has(type), `type ${type} has a default fee`);
    assert.deepEqual([...DEFAULT_FEES.additional.keys()], [11, 12]);
  });
});
