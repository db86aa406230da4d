/**
 * `/assets/*` on a real node with a forged chain (accounts-chain.ts): asset balances,
 * details and the distribution over holders — now and page by page at past heights —
 * against the test's own Ledger; WE's errors and height rules; int64 past 2^53 exact; and
 * the asset-holder index following a rollback.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeBase58 } from '../../src/crypto/encoding.js';
import { parseJson } from '../../src/protocol/json.js';
import { assertError, inject } from './inject.js';
import { accountsChain, ASSET_QUANTITY, MAX_ROLLBACK_DEPTH, SCRIPT_TRUE, type AccountsChain, type Party } from './accounts-chain.js';

let c: AccountsChain;

const get = (url: string) => inject(c.app, 'GET', url);
const post = (url: string, body: unknown) => inject(c.app, 'POST', url, { body: typeof body === 'string' ? JSON.stringify(body) : body });

const big = (v: unknown): bigint => BigInt(v as number | bigint);
/** WE's default minimal fee of a transfer (the dev chain's fee table): 0.01 WEST. */
const TRANSFER_FEE = 1_000_000n;
/** Addresses (or ids) in byte order, as the node lists holders. */
const byBytes = (a: string, b: string): number => Buffer.compare(decodeBase58(a), decodeBase58(b));
const bigValues = (o: Record<string, unknown>): Record<string, bigint> => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, big(v)]));

describe('assets routes on a forged chain', { timeout: 60_000 }, () => {
  let O: Party, A: Party, B: Party, C: Party, D: Party, E: Party, F: Party;
  let asset = '';
  let scripted = '';
  const parties = (): Party[] => [O, A, B, C, D, E, F];

  /** Positive holders of an asset at a height by the ledger, in byte order. */
  const expectedDistribution = (assetId: string, height: number): Array<[string, bigint]> =>
    c.ledger
      .holdersAt(assetId, height)
      .map((h): [string, bigint] => [h, c.ledger.assetAt(assetId, h, height)])
      .filter(([, v]) => v > 0n)
      .sort(([a], [b]) => byBytes(a, b));

  before(async () => {
    c = await accountsChain();
    ({ O, A, B, C, D, E, F } = c.parties);
    asset = c.ids.asset;
    scripted = c.ids.scriptedAsset;
  });
  after(async () => {
    await c?.close();
  });

  describe('balances', () => {
    it('gives the balance of one asset, past 2^53 exactly; 0 for an unknown asset', async () => {
      for (const p of parties()) {
        for (const id of [asset, scripted]) {
          const r = await get(`/assets/balance/${p.b58}/${id}`);
          assert.equal(r.status, 200, r.text);
          assert.deepEqual({ ...r.json, balance: big(r.json.balance) }, { address: p.b58, assetId: id, balance: c.ledger.assetAt(id, p.b58, c.top) }, p.name);
        }
      }
      const a = await get(`/assets/balance/${A.b58}/${asset}`);
      const expected = c.ledger.assetAt(asset, A.b58, c.top);
      assert.ok(expected > 2n ** 53n);
      assert.ok(a.text.includes(`"balance":${expected}`), a.text);
      const unknown = '4'.repeat(44);
      assert.deepEqual((await get(`/assets/balance/${A.b58}/${unknown}`)).json, { address: A.b58, assetId: unknown, balance: 0 });
    });

    it('answers 118 for a bad asset id (before the address), 102 for a bad address', async () => {
      assertError(await get(`/assets/balance/${A.b58}/0OIl`), 400, 118, "Asset id '0OIl' is invalid: assertion failed: Wrong char '0' in Base58 string '0OIl'");
      assertError(await get('/assets/balance/bad/0OIl'), 400, 118);
      assertError(await get(`/assets/balance/bad/${asset}`), 400, 102);
    });

    it('lists every asset an address holds, with the Issue transaction as a JSON string', async () => {
      const ownerWest = c.ledger.westAt(O.b58, c.top);
      for (const p of parties()) {
        const r = await get(`/assets/balance/${p.b58}`);
        assert.equal(r.status, 200, r.text);
        assert.equal(r.json.address, p.b58);
        const held = [asset, scripted].filter((id) => c.ledger.assetAt(id, p.b58, c.top) > 0n).sort(byBytes);
        assert.deepEqual(
          r.json.balances.map((b: { assetId: string }) => b.assetId),
          held,
          p.name,
        );
        for (const b of r.json.balances) {
          assert.equal(big(b.balance), c.ledger.assetAt(b.assetId, p.b58, c.top));
          if (b.assetId === asset) {
            assert.equal(b.reissuable, true);
            assert.equal(b.sponsorshipIsEnabled, true);
            assert.equal(big(b.sponsorBalance), ownerWest.regular - ownerWest.leaseOut, "the sponsor's spendable WEST");
            assert.equal(big(b.minSponsoredAssetFee), TRANSFER_FEE, "a transfer's minimal fee, 1:1 in the sponsored asset");
            assert.equal(big(b.quantity), ASSET_QUANTITY);
            assert.equal(typeof b.issueTransaction, 'string');
            const issue = parseJson(b.issueTransaction) as Record<string, unknown>;
            assert.equal(issue['id'], asset);
            assert.equal(issue['type'], 3);
            assert.ok((b.issueTransaction as string).includes(`"quantity":${ASSET_QUANTITY}`));
          } else {
            assert.equal(b.reissuable, false);
            assert.equal(b.sponsorshipIsEnabled, false);
            assert.equal(b.sponsorBalance, null);
            assert.equal(b.minSponsoredAssetFee, null);
            assert.equal(big(b.quantity), 10n);
          }
        }
      }
      assert.ok(c.ledger.assetAt(asset, E.b58, c.top) === 0n && c.ledger.holdersAt(asset, c.top).includes(E.b58), 'E held the asset and gave it all away');
      assert.deepEqual((await get(`/assets/balance/${E.b58}`)).json.balances, []);
      assertError(await get('/assets/balance/bad'), 400, 102);
    });

    it('lists every asset with its description in balance-v2', async () => {
      const r = await get(`/assets/balance-v2/${O.b58}`);
      assert.equal(r.status, 200, r.text);
      const main = r.json.balances.find((b: { assetId: string }) => b.assetId === asset);
      assert.deepEqual(
        { ...main, balance: big(main.balance), quantity: big(main.quantity), timestamp: big(main.timestamp), sponsorBalance: big(main.sponsorBalance) },
        {
          name: 'Accounts',
          assetId: asset,
          balance: c.ledger.assetAt(asset, O.b58, c.top),
          reissuable: true,
          sponsorshipIsEnabled: true,
          sponsorBalance: c.ledger.westAt(O.b58, c.top).regular - c.ledger.westAt(O.b58, c.top).leaseOut,
          quantity: ASSET_QUANTITY,
          decimals: 0,
          description: 'asset of the accounts tests',
          timestamp: c.ids.issue.timestamp,
          issueHeight: c.heightOf.get(asset),
          issuer: { type: 'Account', address: O.b58 },
        },
      );
      assertError(await get('/assets/balance-v2/bad'), 400, 102);
    });

    it('gives the positive balances of many addresses', async () => {
      const r = await post('/assets/balance', { addresses: [A.b58, E.b58, `address:${B.b58}`] });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.json), [A.b58, E.b58, B.b58]);
      assert.deepEqual(r.json[E.b58], []);
      assert.deepEqual(
        r.json[A.b58].map((x: { assetId: string; balance: unknown }) => [x.assetId, big(x.balance)]),
        [[asset, c.ledger.assetAt(asset, A.b58, c.top)]],
      );
      assertError(await post('/assets/balance', { addresses: [A.b58, 'bad', 'worse'] }), 400, 102, /^invalid address: /);
      assertError(await post('/assets/balance', { addresses: Array.from({ length: 1001 }, () => 'bad') }), 400, 10);
      assertError(await post('/assets/balance', {}), 400, 1);
    });
  });

  describe('details', () => {
    it('describes an asset; its script (with full=true also in scriptDetails); its least sponsored fee', async () => {
      const r = await get(`/assets/details/${asset}`);
      assert.deepEqual(
        { ...r.json, quantity: big(r.json.quantity), issueTimestamp: big(r.json.issueTimestamp), minSponsoredAssetFee: big(r.json.minSponsoredAssetFee) },
        {
          assetId: asset,
          issueHeight: c.heightOf.get(asset),
          issueTimestamp: c.ids.issue.timestamp,
          issuer: { type: 'Account', address: O.b58 },
          name: 'Accounts',
          description: 'asset of the accounts tests',
          decimals: 0,
          reissuable: true,
          quantity: ASSET_QUANTITY,
          scripted: false,
          sponsorshipIsEnabled: true,
          script: null,
          scriptText: null,
          complexity: null,
          minSponsoredAssetFee: TRANSFER_FEE,
        },
      );
      assert.ok(r.text.includes(`"quantity":${ASSET_QUANTITY}`));
      assert.equal((await get(`/assets/details/${asset}?full=true`)).json.scriptDetails, undefined, 'no script, no details');
      const s = await get(`/assets/details/${scripted}?full=true`);
      assert.equal(s.json.scripted, true);
      assert.deepEqual(s.json.scriptDetails, { scriptComplexity: 1, script: SCRIPT_TRUE, scriptText: 'TRUE' });
      assert.deepEqual([s.json.script, s.json.scriptText, s.json.complexity, s.json.minSponsoredAssetFee], [SCRIPT_TRUE, 'TRUE', 1, null], 'not sponsored');
      const plain = (await get(`/assets/details/${scripted}`)).json;
      assert.deepEqual([plain.script, plain.scriptText, plain.complexity], [SCRIPT_TRUE, 'TRUE', 1], 'without full=true too');
      assert.deepEqual((await get(`/assets/details/${scripted}?full=yes`)).json.scriptDetails, s.json.scriptDetails);
      assert.equal((await get(`/assets/details/${scripted}?full=false`)).json.scriptDetails, undefined);
      assert.equal((await get(`/assets/details/${scripted}`)).json.scriptDetails, undefined);
    });

    it('answers 199 for a bad or unknown id, 404 for a non-boolean full', async () => {
      assertError(await get('/assets/details/0bad'), 400, 199, 'Incorrect asset ID');
      assertError(await get(`/assets/details/${'4'.repeat(44)}`), 400, 199, `Failed to get description of the asset '${'4'.repeat(44)}'`);
      const r = await get(`/assets/details/${asset}?full=maybe`);
      assert.equal(r.status, 404);
      assert.equal(r.text, 'The requested resource could not be found.');
    });
  });

  describe('distribution', () => {
    it('gives the current positive balances by holder, in address byte order', async () => {
      const r = await get(`/assets/${asset}/distribution`);
      assert.equal(r.status, 200, r.text);
      const expected = expectedDistribution(asset, c.top);
      assert.deepEqual(
        Object.keys(r.json),
        expected.map(([a]) => a),
      );
      assert.deepEqual(bigValues(r.json), Object.fromEntries(expected));
      assert.ok(!(E.b58 in r.json), 'a holder that gave everything away is not listed');
      assert.ok(F.b58 in r.json, 'a holder of the liquid block is listed');
      const a = c.ledger.assetAt(asset, A.b58, c.top);
      assert.ok(r.text.includes(`"${A.b58}":${a}`), 'past 2^53 exactly');
      assert.deepEqual((await get(`/assets/${'4'.repeat(44)}/distribution`)).json, {});
    });

    it('answers 199 for a bad asset id', async () => {
      assertError(await get(`/assets/${'4'.repeat(45)}/distribution`), 400, 199, 'Unexpected assetId length');
      assertError(await get('/assets/0OIl/distribution'), 400, 199, 'Must be base58-encoded assetId');
    });

    it('pages the distribution at every readable past height', async () => {
      const lowest = c.top - MAX_ROLLBACK_DEPTH;
      for (let h = lowest; h < c.top; h++) {
        const expected = expectedDistribution(asset, h);
        for (const limit of [1, 2, 3, 999]) {
          const got: Array<[string, bigint]> = [];
          let after: string | undefined;
          for (let page = 0; page < 20; page++) {
            const r = await get(`/assets/${asset}/distribution/${h}/limit/${limit}${after === undefined ? '' : `?after=${after}`}`);
            assert.equal(r.status, 200, r.text);
            const items = Object.entries(r.json.items as Record<string, unknown>).map(([k, v]): [string, bigint] => [k, big(v)]);
            assert.ok(items.length <= limit);
            got.push(...items);
            assert.equal(r.json.lastItem, items.length === 0 ? null : items[items.length - 1]![0]);
            if (!r.json.hasNext) break;
            assert.equal(items.length, limit, 'a page that says more follow is full');
            after = r.json.lastItem;
          }
          assert.deepEqual(got, expected, `height ${h}, limit ${limit}`);
        }
      }
      // E held 7 at height 8 and nothing from 9 on; F holds from the top block only.
      assert.ok(expectedDistribution(asset, 8).some(([a]) => a === E.b58));
      assert.ok(!expectedDistribution(asset, 9).some(([a]) => a === E.b58));
      assert.ok(!expectedDistribution(asset, c.top - 1).some(([a]) => a === F.b58));
      const last = expectedDistribution(asset, 8).at(-1)![0];
      assert.deepEqual((await get(`/assets/${asset}/distribution/8/limit/5?after=${last}`)).json, { hasNext: false, lastItem: null, items: {} });
    });

    it('checks limit, height, asset id and `after` in WE order', async () => {
      const lowest = c.top - MAX_ROLLBACK_DEPTH;
      const at = (h: number | string, limit: number | string, rest = asset, query = '') => get(`/assets/${rest}/distribution/${h}/limit/${limit}${query}`);
      assertError(await at(0, 0), 400, 199, 'Limit should be greater than 0');
      assertError(await at(5, 1000), 400, 199, 'Limit should be less than 1000');
      assertError(await at(0, 10), 400, 199, 'Height should be greater than zero');
      assertError(await at(c.top, 10), 400, 199, "Using 'addressAssetDistributionAtHeight' on current height can lead to inconsistent result");
      assertError(await at(c.top + 100, 10), 400, 199, "Using 'addressAssetDistributionAtHeight' on current height can lead to inconsistent result");
      assertError(await at(lowest - 1, 10), 400, 199, `Cannot get asset distribution at height less than ${lowest}`);
      assertError(await at(lowest, 10, '4'.repeat(45)), 400, 199, 'Unexpected assetId length');
      assertError(await at(lowest, 10, '0OIl'), 400, 199, 'Must be base58-encoded assetId');
      assertError(await at(lowest, 10, asset, '?after=bad'), 400, 102);
      assertError(await at(lowest - 1, 10, asset, '?after=bad'), 400, 102, undefined);
      for (const [h, l] of [
        ['x', 1],
        [5, 'y'],
        [5, -1],
        ['2147483648', 1],
      ] as const) {
        const r = await at(h, l);
        assert.equal(r.status, 404, `${h}/${l}: ${r.text}`);
        assert.equal(r.text, 'The requested resource could not be found.');
      }
    });
  });

  it('follows a rollback: holders added above the new top are gone', async () => {
    assert.ok(F.b58 in (await get(`/assets/${asset}/distribution`)).json);
    c.services.admin.rollback(c.top - 1, false);
    const after = (await get(`/assets/${asset}/distribution`)).json;
    assert.deepEqual(
      Object.keys(after),
      expectedDistribution(asset, c.top - 1).map(([a]) => a),
    );
    assert.ok(!(F.b58 in after));
    assert.ok(
      ![...c.services.history.assetHolders(decodeBase58(asset))].some((h) => Buffer.compare(h, decodeBase58(F.b58)) === 0),
      'the index entry is undone',
    );
    assert.deepEqual((await get(`/assets/balance/${F.b58}`)).json.balances, []);
  });
});
