/**
 * WE serializes Set fields (SHORT_SET group members, block feature votes) in Scala's Set
 * iteration order. test/fixtures/scala-set-order.json was produced by running
 * test/fixtures/SetOrder.scala on Scala 2.11.12 (Debian's `scala` package), whose
 * immutable Set1–4 / HashSet are the same as Scala 2.12's, which WE 1.14 uses.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { featureVotesForProducing, featureVotesJsonOrder } from '../../src/protocol/blocks/features.js';
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
      const order = scalaSetOrder(
        bytes,
        (b) => b,
        (b) => b.toString('hex'),
      ).map((b) => b.toString('hex'));
      assert.deepEqual(order, c.order);
    }
  });

  it('lists block feature votes in JSON in the order of a Set of Play JsNumbers', () => {
    // Output of test/fixtures/JsOrder.scala (Scala 2.11.12, JsNumber as Play's case class over BigDecimal):
    // the wire (Set[Short]) order, then the JSON (Set[JsNumber]) order.
    const scala: Array<[number[], number[], number[]]> = [
      [
        [5, 1, 2, 3, 4],
        [5, 1, 2, 3, 4],
        [4, 1, 3, 5, 2],
      ],
      [
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        [5, 10, 1, 6, 9, 2, 7, 3, 8, 4],
        [10, 4, 6, 7, 1, 3, 5, 8, 9, 2],
      ],
      [
        [2, 3, 4, 5, 6, 7, 9, 10, 100, 101, 119, 120, 130, 140, 160, 162, 173, 180],
        [101, 5, 120, 10, 6, 160, 9, 173, 2, 180, 7, 140, 130, 3, 162, 119, 4, 100],
        [120, 10, 4, 162, 119, 6, 7, 101, 100, 3, 5, 180, 160, 140, 9, 130, 2, 173],
      ],
      [
        [1120, 1122, 1130, 1140, 140, 162],
        [1122, 140, 162, 1130, 1140, 1120],
        [1120, 162, 1122, 140, 1140, 1130],
      ],
    ];
    for (const [input, wire, json] of scala) {
      assert.deepEqual(featureVotesForProducing(input), wire);
      assert.deepEqual(featureVotesJsonOrder(wire), json);
    }
  });

  it("computes Java's Arrays.hashCode over signed bytes", () => {
    assert.equal(javaArrayHash(new Uint8Array(0)), 1);
    assert.equal(javaArrayHash(Uint8Array.from([1, 2, 3])), 30817);
    assert.equal(javaArrayHash(Uint8Array.from([0xff])), 30);
  });
});
