/**
 * The one expiring cache (replication/expiring-cache.ts) that the replication engine's seen
 * inventories, holders, failed peers and served data, the gossip's seen caches and the
 * contract execution statuses keep their entries in: bounded in size, each entry live for
 * its ttl after it was last written, the oldest out first.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExpiringCache } from '../../src/replication/expiring-cache.js';

function cache(options: { maxSize?: number; ttlMs?: number; recency?: boolean } = {}) {
  const clock = { now: 1000 };
  const c = new ExpiringCache<string, number>({
    maxSize: options.maxSize ?? 10,
    ttlMs: options.ttlMs ?? 100,
    now: () => clock.now,
    ...(options.recency === undefined ? {} : { recency: options.recency }),
  });
  return { c, clock };
}

describe('the expiring cache', () => {
  it('keeps an entry its ttl after it was written, and renews it when written again', () => {
    const { c, clock } = cache();
    c.set('a', 1);
    clock.now += 99;
    assert.equal(c.get('a'), 1);
    c.set('a', 2);
    clock.now += 99;
    assert.equal(c.get('a'), 2, 'written again at 1099: live until 1199');
    clock.now += 1;
    assert.equal(c.get('a'), undefined, 'gone at exactly its ttl, as Guava expires');
    assert.equal(c.has('a'), false);
  });

  it('holds at most max-size entries, the oldest written out first', () => {
    const { c } = cache({ maxSize: 2 });
    c.set('a', 1);
    c.set('b', 2);
    c.set('a', 3);
    c.set('c', 4);
    assert.deepEqual([c.get('a'), c.get('b'), c.get('c')], [3, undefined, 4], "b was written longest ago (a's second write made it the newest)");
    assert.equal(c.size, 2);
  });

  it('as an LRU, a read makes an entry the newest without renewing it', () => {
    const { c, clock } = cache({ maxSize: 2, recency: true });
    c.set('a', 1);
    c.set('b', 2);
    assert.equal(c.get('a'), 1);
    c.set('c', 3);
    assert.deepEqual([c.get('a'), c.get('b'), c.get('c')], [1, undefined, 3], 'b was used longest ago');
    clock.now += 100;
    assert.equal(c.get('a'), undefined, 'reading it did not renew it');
  });

  it('adds a key only when it is not live, and drops expired entries as writes pass them', () => {
    const { c, clock } = cache();
    assert.equal(c.add('a', 1), true);
    assert.equal(c.add('a', 2), false);
    assert.equal(c.get('a'), 1);
    clock.now += 50;
    c.set('b', 2);
    clock.now += 50;
    assert.equal(c.add('a', 3), true, 'a expired: added afresh');
    const fresh: string[] = [];
    c.forEachFresh((k) => fresh.push(k));
    assert.deepEqual(fresh, ['b', 'a']);
    assert.equal(c.freshSize(), 2);
    clock.now += 50;
    c.set('c', 3);
    assert.equal(c.size, 2, 'b, expired, went when c was written');
  });
});
