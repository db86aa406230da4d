/**
 * What the explorer computes from REST answers before it shows them: amounts and their
 * digits, the page links, the id lengths search goes by, the transactions-per-second steps,
 * the holders' shares, and the PoA rounds — the "next miner" checked against the node's
 * own consensus code.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base58 } from '@scure/base';
import fc from 'fast-check';
import { MinerQueue, selectMiner } from '../../src/consensus/poa.js';
import { roundAt, txRateSeries, WINDOW_MS } from '../../src/explorer/chain-rates.js';
import { formatAge, formatUnits, jsonText } from '../../src/explorer/format.js';
import { rankHolders } from '../../src/explorer/holders.js';
import { finalityOf, type BlockHeader } from '../../src/explorer/model.js';
import { roundTimeline, upcomingMiners, type WarningsAndBans } from '../../src/explorer/poa-timeline.js';
import { href, parseRoute } from '../../src/explorer/routes.js';
import { base58ByteLength, pageOfTransaction } from '../../src/explorer/search.js';

const header = (height: number, timestamp: number, generator: string, skipped: number, transactionCount = 0): BlockHeader => ({
  version: 3,
  timestamp: String(timestamp),
  reference: `ref${height - 1}`,
  generator,
  signature: `sig${height}`,
  'poa-consensus': { 'overall-skipped-rounds': String(skipped) },
  blocksize: 200,
  transactionCount,
  height,
});

describe('amounts and values', () => {
  it('keep every digit of int64 amounts in their decimals', () => {
    assert.equal(formatUnits('9223372036854775807', 8), '92,233,720,368.54775807');
    assert.equal(formatUnits('-9223372036854775808', 8), '-92,233,720,368.54775808');
    assert.equal(formatUnits('100000000', 8), '1');
    assert.equal(formatUnits('123456789', 8), '1.23456789');
    assert.equal(formatUnits('1000', 0), '1,000');
    assert.equal(formatUnits(2500000, 4), '250');
    assert.equal(formatUnits('5', 4), '0.0005');
    assert.equal(formatUnits(null, 8), '—');
    assert.equal(formatUnits('not a number', 8), '—');
  });

  it('print any bigint in any decimals so that it reads back to the same units', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.integer({ min: 0, max: 18 }), (v, decimals) => {
        const [whole, fraction = ''] = formatUnits(v.toString(), decimals).replace(/,/g, '').split('.');
        const back = BigInt(whole!) * 10n ** BigInt(decimals) + (whole!.startsWith('-') ? -1n : 1n) * BigInt(fraction.padEnd(decimals, '0') || '0');
        assert.equal(back, v);
      }),
    );
  });

  it('ages read both ways and other values as JSON', () => {
    assert.equal(formatAge(1000, 13_000), '12 s ago');
    assert.equal(formatAge(200_000, 20_000), 'in 3 min');
    assert.equal(jsonText('x'), 'x');
    assert.equal(jsonText(7), '7');
    assert.equal(jsonText(null), 'null');
    assert.equal(jsonText({ a: [1] }), '{"a":[1]}');
  });
});

describe('page links and search', () => {
  it('every page link reads back as the same route, whatever the value', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (value, cursor) => {
        assert.deepEqual(parseRoute(href.tx(value)), { page: 'tx', id: value });
        assert.deepEqual(parseRoute(href.block(value)), { page: 'block', ref: value });
        assert.deepEqual(parseRoute(href.asset(value)), { page: 'asset', id: value });
        assert.deepEqual(parseRoute(href.policy(value)), { page: 'policy', id: value });
        assert.deepEqual(parseRoute(href.contract(value)), { page: 'contract', id: value });
        assert.deepEqual(parseRoute(href.search(value)), { page: 'search', query: value });
        assert.deepEqual(parseRoute(href.address(value, cursor)), { page: 'address', address: value, after: cursor });
      }),
    );
    assert.deepEqual(parseRoute(''), { page: 'live' });
    assert.deepEqual(parseRoute('#/'), { page: 'live' });
    assert.deepEqual(parseRoute('#/network'), { page: 'network' });
    assert.deepEqual(parseRoute('#/nothing/here'), { page: 'unknown', path: 'nothing/here' });
    assert.deepEqual(parseRoute('#/tx/%E0%A4%A'), { page: 'unknown', path: 'tx/%E0%A4%A' });
  });

  it('tells ids apart by the length their Base58 decodes to, as the codec does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 80 }), fc.nat({ max: 3 }), (bytes, zeros) => {
        const withZeros = Uint8Array.from([...new Array<number>(zeros).fill(0), ...bytes]);
        assert.equal(base58ByteLength(base58.encode(withZeros)), withZeros.length);
      }),
    );
    assert.equal(base58ByteLength('0OIl'), undefined, 'not Base58');
    assert.equal(base58ByteLength('alias:T:x'), undefined);
  });

  it('an id of an Issue, CreatePolicy or CreateContract opens what it created', () => {
    assert.equal(pageOfTransaction({ type: 3, id: 'A' }), '#/asset/A');
    assert.equal(pageOfTransaction({ type: 112, id: 'P' }), '#/policy/P');
    assert.equal(pageOfTransaction({ type: 103, id: 'C' }), '#/contract/C');
    assert.equal(pageOfTransaction({ type: 4, id: 'T' }), '#/tx/T');
  });
});

describe('live chain figures', () => {
  it('transactions per second: each final block over the time to the next key block', () => {
    const now = 1_000_000_000_000;
    const headers = [
      header(10, now - WINDOW_MS - 10_000, 'a', 0, 50),
      header(11, now - 10_000, 'a', 0, 20),
      header(12, now - 5_000, 'a', 0, 10),
      header(13, now - 500, 'a', 0, 3),
    ];
    const series = txRateSeries(headers, now);
    // Block 10 ends inside the window; the liquid block 13 only ends the last step.
    assert.deepEqual(series.times, [(now - WINDOW_MS - 10_000) / 1000, (now - 10_000) / 1000, (now - 5_000) / 1000, (now - 500) / 1000]);
    assert.deepEqual(series.values, [50 / (WINDOW_MS / 1000), 20 / 5, 10 / 4.5, 10 / 4.5]);
    assert.equal(
      txRateSeries([header(1, now - 2 * WINDOW_MS, 'a', 0, 9), header(2, now - WINDOW_MS - 1, 'a', 0, 1), header(3, now, 'a', 0, 1)], now).times.length,
      2,
      'a block that ended before the window is left out',
    );
    assert.deepEqual(txRateSeries([header(1, now, 'a', 0, 5)], now), { times: [], values: [] }, 'nothing final yet');
    assert.deepEqual(txRateSeries([], now), { times: [], values: [] });
  });

  it('the PoA round of a time, from the genesis time and the round and sync durations', () => {
    assert.deepEqual(roundAt(1000, 4000, 1000, 1000), { number: 0, start: 1000, miningMs: 4000, totalMs: 5000 });
    assert.deepEqual(roundAt(1000, 4000, 1000, 10_999), { number: 1, start: 6000, miningMs: 4000, totalMs: 5000 });
    assert.equal(roundAt(1000, 4000, 1000, 11_000).number, 2);
  });

  it('holders largest first, shares rounded down', () => {
    const ranked = rankHolders({ b: '250', a: '9999750', c: '0', d: '250' }, '10000000');
    assert.deepEqual(
      ranked.map((h) => [h.address, h.balance, h.sharePercent]),
      [
        ['a', 9_999_750n, 99.99],
        ['b', 250n, 0],
        ['d', 250n, 0],
      ],
    );
  });
});

describe('PoA rounds', () => {
  const record: WarningsAndBans = {
    warningsAndBans: [
      { address: 'B', bans: [], warnings: [{ timestamp: '25000' }] },
      { address: 'C', bans: [{ timestamp: '60000', beginHeight: 5 }], warnings: [] },
      { address: 'A', bans: [], warnings: [] },
    ],
  };

  it('mined and skipped rounds from the skipped-rounds counter, named by the warnings and bans that followed', () => {
    const headers = [
      header(1, 0, 'G', 0),
      header(2, 10_000, 'A', 0),
      header(3, 25_000, 'C', 2),
      header(4, 30_000, 'A', 2),
      header(5, 60_000, 'B', 7),
      header(6, 200_000, 'A', 40),
    ];
    const timeline = roundTimeline(headers, record);
    assert.deepEqual(
      timeline.slots.map((s) => `${s.kind === 'mined' ? `${s.generator}` : `-${s.rounds}${s.outcome ?? ''}`}@${s.height}`),
      ['G@1', 'A@2', '-1warned@3', '-1warned@3', 'C@3', 'A@4', '-1banned@5', '-1banned@5', '-1banned@5', '-1banned@5', '-1banned@5', 'B@5', '-33@6', 'A@6'],
    );
    assert.deepEqual(timeline.gaps, [
      { height: 6, timestamp: '200000', skipped: 33, warned: [], banned: [] },
      { height: 5, timestamp: '60000', skipped: 5, warned: [], banned: ['C'] },
      { height: 3, timestamp: '25000', skipped: 2, warned: ['B'], banned: [] },
    ]);
  });

  it("the next miner is the one the node's consensus picks for the next round", () => {
    const addresses = fc.uniqueArray(fc.uint8Array({ minLength: 26, maxLength: 26 }), { minLength: 1, maxLength: 8, selector: (a) => base58.encode(a) });
    fc.assert(
      fc.property(addresses, fc.nat(), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), (miners, at, bans) => {
        const queue = new MinerQueue(miners);
        const p = at % miners.length;
        const banned = new Set(miners.filter((_, i) => bans[i] === true).map((m) => base58.encode(m)));
        const expected = (() => {
          try {
            return base58.encode(selectMiner(queue, { kind: 'miner', index: p, height: 10 }, 0, (m) => banned.has(base58.encode(m))));
          } catch {
            return undefined; // every miner banned
          }
        })();
        const upcoming = upcomingMiners(
          miners.map((m) => base58.encode(m)),
          base58.encode(miners[p]!),
          banned,
        );
        assert.equal(upcoming[0], expected);
        assert.equal(upcoming.length, miners.length - banned.size);
      }),
    );
  });
});

describe('CFT finality', () => {
  it('a CFT block is final once it carries votes (genesis always); other consensus has none to show', () => {
    const cft = (height: number, votes: number): BlockHeader => {
      const { 'poa-consensus': _poa, ...rest } = header(height, 1_700_000_000_000, 'gen', 0);
      return { ...rest, 'cft-consensus': { 'overall-skipped-rounds': '0', votes: Array.from({ length: votes }, () => ({})) } };
    };
    assert.equal(finalityOf(cft(1, 0)), true);
    assert.equal(finalityOf(cft(5, 0)), false);
    assert.equal(finalityOf(cft(5, 2)), true);
    assert.equal(finalityOf(header(5, 1_700_000_000_000, 'gen', 0)), undefined);
  });
});
