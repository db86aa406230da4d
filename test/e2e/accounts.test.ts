/**
 * Account-side routes end to end: a dev-chain node as a real process, transactions signed
 * client-side by transactions-factory, and the reads made through the official js-sdk's
 * own Node API (`addresses.balance` with and without confirmations, `addresses.data`,
 * `assets.distribution`) plus plain HTTP for `matches` and a distribution page at a past
 * height. Expected values come from the dev genesis and the transactions sent here.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { DEV_SEEDS } from '../../src/cli/dev.js';
import { broadcast, Clock, confirmed, describeAnswer, signer, tf2Build, WEST, type Signer } from './clients.js';
import { NodeFleet, until, type DevNode } from './support.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const sdkModule: any = require('@wavesenterprise/js-sdk');
/* eslint-enable @typescript-eslint/no-explicit-any */

const fleet = new NodeFleet();
const clock = new Clock();

/** Dev genesis WEST of accounts 1 and 2. */
const GENESIS = 100_000n * WEST;
const FEE = { issue: WEST, transfer: 1_000_000n, data: 5_000_000n };
const QUANTITY = 1_000_000_000_000n;

/** js-sdk parses numbers into BigNumber where they are large; any number-like → bigint. */
const big = (v: unknown): bigint => BigInt(String(v));

describe('account routes end to end through js-sdk', { timeout: 60_000 }, () => {
  let node: DevNode;
  let a0: Signer, a1: Signer, a2: Signer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let sdk: any;

  before(async () => {
    node = await fleet.start();
    [a0, a1, a2] = (await Promise.all(DEV_SEEDS.slice(0, 3).map((s) => signer(s)))) as [Signer, Signer, Signer];
    sdk = sdkModule.create({
      initialConfiguration: { ...sdkModule.TESTNET_CONFIG, nodeAddress: node.url, crypto: 'waves', networkByte: 'T'.charCodeAt(0) },
      fetchInstance: fetch,
    });
  });

  after(() => {
    if (node?.running) node.kill();
  });

  it('serves balances, data and asset distribution as the official clients read them', async () => {
    const issue = await tf2Build(
      'Issue',
      2,
      {
        chainId: 84,
        name: 'E2E Accounts',
        description: 'accounts e2e',
        quantity: Number(QUANTITY),
        decimals: 2,
        reissuable: false,
        fee: Number(FEE.issue),
        timestamp: clock.next(),
      },
      a0,
    );
    const data = await tf2Build(
      'Data',
      3,
      {
        authorPublicKey: a1.publicKey,
        data: [
          { key: 'e2e-2', type: 'integer', value: 2 },
          { key: 'e2e-1', type: 'string', value: 'one' },
          { key: 'other', type: 'boolean', value: false },
        ],
        fee: Number(FEE.data),
        timestamp: clock.next(),
      },
      a1,
    );
    const west = await tf2Build(
      'Transfer',
      3,
      { recipient: a2.address, amount: Number(10n * WEST), fee: Number(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a0,
    );
    for (const b of [issue, data, west]) await broadcast(node, b);
    await Promise.all([issue, data, west].map((b) => confirmed(node, b.id)));
    const assetId = issue.id;
    const toA1 = await tf2Build(
      'Transfer',
      3,
      { recipient: a1.address, assetId, amount: 100, fee: Number(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a0,
    );
    const toA2 = await tf2Build(
      'Transfer',
      3,
      { recipient: a2.address, assetId, amount: 200, fee: Number(FEE.transfer), timestamp: clock.next(), attachment: '' },
      a0,
    );
    for (const b of [toA1, toA2]) await broadcast(node, b);
    const heights = (await Promise.all([toA1, toA2].map((b) => confirmed(node, b.id)))).map((info) => info.height as number);

    // Balances through js-sdk: a1 paid the data fee; a2 received 10 WEST.
    const b1 = await sdk.API.Node.addresses.balance(a1.address);
    assert.deepEqual(
      { address: b1.address, confirmations: Number(b1.confirmations), balance: big(b1.balance) },
      { address: a1.address, confirmations: 0, balance: GENESIS - FEE.data },
    );
    const b2now = await sdk.API.Node.addresses.balance(a2.address, 1);
    assert.equal(big(b2now.balance), GENESIS + 10n * WEST, 'over the last block: the current balance');
    assert.equal(Number(b2now.confirmations), 1);
    const b2all = await sdk.API.Node.addresses.balance(a2.address, 1000);
    assert.equal(big(b2all.balance), GENESIS, 'over 1000 blocks: the balance before the transfer');

    // Data through js-sdk (its default page: offset 0, limit 50), then filtered with matches.
    const entries = await sdk.API.Node.addresses.data(a1.address);
    assert.deepEqual(
      entries.map((e: { key: string }) => e.key),
      ['e2e-1', 'e2e-2', 'other'],
    );
    const matched = await node.get(`/addresses/data/${a1.address}?matches=${encodeURIComponent('e2e-.*')}&limit=1&offset=1`);
    assert.equal(matched.status, 200, describeAnswer(matched));
    assert.deepEqual(matched.json, [{ key: 'e2e-2', type: 'integer', value: 2 }]);
    const badPattern = await node.get(`/addresses/data/${a1.address}?matches=${encodeURIComponent('(')}`);
    assert.equal(badPattern.status, 400);
    assert.equal(badPattern.json.error, 629);

    // The distribution now through js-sdk, and a page at the height of the transfers once it is past.
    const distribution = await sdk.API.Node.assets.distribution(assetId);
    assert.deepEqual(Object.fromEntries(Object.entries(distribution).map(([k, v]) => [k, big(v)])), {
      ...{ [a0.address]: QUANTITY - 300n },
      [a1.address]: 100n,
      [a2.address]: 200n,
    });
    const at = Math.max(...heights);
    await until('a block above the transfers', async () => ((await node.get('/blocks/height')).json.height > at ? true : undefined), 15_000, 250);
    const first = await node.get(`/assets/${assetId}/distribution/${at}/limit/2`);
    assert.equal(first.status, 200, describeAnswer(first));
    assert.equal(first.json.hasNext, true);
    assert.equal(Object.keys(first.json.items).length, 2);
    const rest = await node.get(`/assets/${assetId}/distribution/${at}/limit/2?after=${first.json.lastItem}`);
    assert.equal(rest.json.hasNext, false);
    const all = { ...first.json.items, ...rest.json.items };
    assert.deepEqual(Object.fromEntries(Object.entries(all).map(([k, v]) => [k, big(v)])), {
      [a0.address]: QUANTITY - 300n,
      [a1.address]: 100n,
      [a2.address]: 200n,
    });
  });
});
