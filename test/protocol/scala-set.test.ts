/**
 * WE serializes Set fields (SHORT_SET group members, block feature votes) in Scala's Set
 * iteration order. test/fixtures/scala-set-order.json was produced by running
 * test/fixtures/SetOrder.scala on Scala 2.11.12 (Debian's `scala` package), whose
 * immutable Set1–4 / HashSet are the same as Scala 2.12's, which WE 1.14 uses.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { javaArrayHash, scalaSetOrder, scalaShortSetOrder } from '../../src/protocol/transactions/scala-set.js';

interface Fixture {
  scala: string;
  shorts: Array<{ input: number[]; order: number[] }>;
  addresses: Array<{ input: string[]; order: string[] }>;
}

const fixture = JSON.parse(readFileSync(new URL('../../../test/fixtures/scala-set-order.json', import.meta.url), 'utf8')) as Fixture;

describe('Scala Set iteration order', () => {
  it('matches Scala for Short sets (feature votes), with duplicates and 1..27 elements', () => {
    assert.ok(fixture.shorts.length >= 40);
    for (const c of fixture.shorts) assert.deepEqual(scalaShortSetOrder(c.input), c.order, JSON.stringify(c.input));
  });

  it('matches Scala for address sets (Arrays.hashCode elements), with duplicates', () => {
    assert.ok(fixture.addresses.some((c) => c.order.length >= 5));
    for (const c of fixture.addresses) {
      const bytes = c.input.map((h) => Buffer.from(h, 'hex'));
      const order = scalaSetOrder(bytes, (b) => b, (b) => b.toString('hex')).map((b) => b.toString('hex'));
      assert.deepEqual(order, c.order);
    }
  });

  it("computes Java's Arrays.hashCode over signed bytes", () => {
    assert.equal(javaArrayHash(new Uint8Array(0)), 1);
    assert.equal(javaArrayHash(Uint8Array.from([1, 2, 3])), 30817);
    assert.equal(javaArrayHash(Uint8Array.from([0xff])), 30);
  });
});
