/**
 * The explorer in a real browser (Debian's chromium through playwright-core) against a dev
 * chain run as a node process: transactions signed client-side by the official library are
 * sent; the page follows new key blocks and micro-blocks, finds what is searched, and every
 * page shows what the node's REST API answers (compared value by value). The console stays
 * clean throughout (browser.ts says what "clean" means), every page fits a phone's width,
 * and the page survives a node restart. Screenshots of the main pages are written to
 * dist/test-output/explorer/.
 *
 * The contract page is checked on a WASM contract created and called on the dev chain (the
 * dev chain runs contracts out of the box).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it, type TestContext } from 'node:test';
import { base58 } from '@scure/base';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import wabtInit from 'wabt';
import { stringifyJson } from '../../src/protocol/json.js';
import { callV7, createV7, protocol as contractProtocol, timestampsFrom } from '../../devkit/contracts/engine.js';
import { REPO_ROOT } from '../../devkit/contracts/sdk-package.js';
import { aliasTxId, broadcast, Clock, confirmed, signer, tf2Build, type Signer } from '../e2e/clients.js';
import { NodeFleet, until, type Answer, type DevNode } from '../e2e/support.js';
import { ExplorerBrowser } from './browser.js';

const DEV_SEEDS = [0, 1, 2, 3, 4].map((i) => `weft dev chain account ${i} - never use this seed on a real network`);
const FEE = {
  transfer: 1_000_000,
  issue: 100_000_000,
  lease: 1_000_000,
  alias: 100_000_000,
  data: 5_000_000,
  createPolicy: 100_000_000,
  massTransfer: 7_000_000,
} as const;
/** Enough transactions of account 0 for a second page of its history (25 per page). */
const HISTORY_TRANSFERS = 26;

/** GET with int64 values as strings and no API key, as the explorer reads. */
const rest = (node: DevNode, path: string): Promise<Answer> => node.get(path, { accept: 'application/json;large-significand-format=string', apiKey: null });

/** The units of an amount the page shows (`9,599,998.76543211 WEST` with 8 decimals → 959999876543211n). */
function unitsOf(text: string, decimals: number): bigint {
  const m = /-?[\d,]+(\.\d+)?/.exec(text);
  assert.ok(m, `an amount in "${text}"`);
  const [whole, fraction = ''] = m[0].replace(/,/g, '').split('.');
  assert.ok(fraction.length <= decimals, `"${text}" has at most ${decimals} decimals`);
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0') * (whole!.startsWith('-') ? -1n : 1n);
}

/** Every primitive inside a JSON value, as the page would print it. */
function leaves(value: unknown): string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [typeof value === 'string' ? value : JSON.stringify(value)];
}

describe('the explorer in chromium, on a dev chain', { timeout: 300_000 }, () => {
  const fleet = new NodeFleet();
  const clock = new Clock();
  let node: DevNode;
  let dataDir: string;
  let browser: ExplorerBrowser;
  let A: Signer[] = [];
  const ids: Record<string, string> = {};

  before(async () => {
    dataDir = fleet.tempDir('weft-explorer-');
    [node, A] = await Promise.all([fleet.start(dataDir), Promise.all(DEV_SEEDS.map(signer))]);
    browser = await ExplorerBrowser.open(node.url);
  });
  after(() => browser?.close());

  async function send(name: string, type: string, version: number, fields: Record<string, unknown>, sender: Signer): Promise<string> {
    const built = await tf2Build(type, version, { ...fields, timestamp: clock.next() }, sender);
    const id = String((await broadcast(node, built)).id);
    ids[name] = id;
    return id;
  }

  it('live: a new key block arrives, then the micro-block with a sent transaction; the pool and the tx/s chart show', async () => {
    await browser.goto();
    const h0 = Number(await browser.text('tip-height'));
    assert.ok(h0 >= 1);
    // A key block after the page opened.
    const keyItem = browser.page.locator('[data-testid="feed"] li[data-kind="key"]').first();
    await keyItem.waitFor({ timeout: 20_000 });
    const h1 = Number(await keyItem.getAttribute('data-height'));
    assert.ok(h1 > h0, `key block ${h1} after ${h0}`);
    const header = await rest(node, `/blocks/headers/at/${h1}`);
    assert.equal(await keyItem.locator('a.id').getAttribute('title'), header.json.generator, 'the feed names the generator of that block');

    const id = await send('transfer', 'Transfer', 3, { recipient: A[1]!.address, amount: 123_456_789, fee: FEE.transfer, attachment: '' }, A[0]!);
    await browser.page.locator(`[data-testid="liquid-txs"] tr[data-tx="${id}"]`).waitFor({ timeout: 20_000 });
    const info = await confirmed(node, id);
    const micro = browser.page.locator(`[data-testid="feed"] li[data-kind="micro"][data-height="${info.height}"]`).first();
    await micro.waitFor({ timeout: 10_000 });
    assert.match(await micro.innerText(), /\+1 tx/, 'the micro-block that carried it adds one transaction');

    assert.match(await browser.text('pool-size'), /^\d[\d,]* tx$/);
    assert.equal((await browser.page.locator('[data-testid="tx-rate-chart"] canvas').count()) > 0, true, 'uPlot drew the chart');
    const latest = await browser.page.locator('[data-testid="latest-blocks"] tr[data-height]').first().getAttribute('data-height');
    const tip = await rest(node, '/blocks/height');
    assert.ok(Number(latest) >= tip.json.height - 2, `latest final block ${latest} near the tip ${tip.json.height}`);
    await browser.screenshot('live');
    browser.expectConsole();
  });

  it('the page goes to the transactions sent: issue, lease, alias, data, policy, mass transfer, history', async () => {
    const a0 = A[0]!;
    await send(
      'issue',
      'Issue',
      2,
      { chainId: 84, name: 'Gold', description: 'explorer test gold', quantity: 100_000_000_000, decimals: 4, reissuable: true, fee: FEE.issue },
      a0,
    );
    await send('lease', 'Lease', 2, { recipient: A[2]!.address, amount: 500_000_000, fee: FEE.lease }, a0);
    await send(
      'data',
      'Data',
      3,
      {
        authorPublicKey: a0.publicKey,
        data: [
          { key: 'hello', type: 'string', value: 'world' },
          { key: 'n', type: 'integer', value: 42 },
        ],
        fee: FEE.data,
      },
      a0,
    );
    await send(
      'policy',
      'CreatePolicy',
      3,
      {
        policyName: 'explorer policy',
        description: 'seen by the explorer',
        recipients: [A[1]!.address, A[2]!.address],
        owners: [a0.address],
        fee: FEE.createPolicy,
      },
      a0,
    );
    await send(
      'mass',
      'MassTransfer',
      1,
      {
        transfers: [
          { recipient: A[1]!.address, amount: 1e8 },
          { recipient: A[2]!.address, amount: 2e8 },
          { recipient: A[3]!.address, amount: 3e8 },
        ],
        fee: FEE.massTransfer,
        attachment: '',
      },
      a0,
    );
    const alias = await tf2Build('CreateAlias', 4, { alias: 'explorer-treasury', fee: FEE.alias, timestamp: clock.next() }, A[1]!);
    ids['alias'] = String((await broadcast(node, alias, aliasTxId('explorer-treasury'))).id);
    for (let i = 0; i < HISTORY_TRANSFERS; i++)
      await send(`history${i}`, 'Transfer', 3, { recipient: A[3]!.address, amount: 1000 + i, fee: FEE.transfer, attachment: '' }, a0);
    for (const id of Object.values(ids)) await confirmed(node, id, 30_000);
    const assetTransfer = await send(
      'assetTransfer',
      'Transfer',
      3,
      { recipient: A[1]!.address, amount: 2_500_000, assetId: ids['issue'], fee: FEE.transfer, attachment: '' },
      a0,
    );
    await confirmed(node, assetTransfer, 30_000);
  });

  it('search: a transaction id, an address, an alias, a height, an asset, a policy; and what it cannot find', async (t: TestContext) => {
    const search = async (query: string): Promise<string> => {
      await browser.search(query);
      await browser.waitForHash(/^#\/(?!search\/)/);
      return browser.hash();
    };
    await browser.goto();
    assert.equal(await search(ids['transfer']!), `#/tx/${ids['transfer']}`);
    await browser.page.locator('[data-testid="tx-fields"]').waitFor();
    assert.equal(await search(A[2]!.address), `#/address/${A[2]!.address}`);
    assert.equal(await search('alias:T:explorer-treasury'), `#/address/${A[1]!.address}`);
    assert.equal(await search('explorer-treasury'), `#/address/${A[1]!.address}`);
    assert.equal(await search('2'), '#/block/2');
    assert.equal(await search(ids['issue']!), `#/asset/${ids['issue']}`);
    assert.equal(await search(ids['policy']!), `#/policy/${ids['policy']}`);
    const first = await rest(node, '/blocks/headers/at/1');
    assert.equal(await search(first.json.signature), `#/block/${first.json.signature}`);
    browser.expectConsole({ answers: [/^\/privacy\//] });

    // Not found: a height above the chain, an unknown id, text that names nothing.
    await browser.search('999999');
    assert.match(await browser.textMatching('not-found', /999999/), /^There is no block at height 999999: the chain is at height \d+\.$/);
    await browser.search('not an id!');
    assert.match(await browser.textMatching('not-found', /not an id!/), /is not a height, block signature, transaction id, address, alias/);
    const unknown = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
    await browser.search(unknown);
    assert.equal(await browser.textMatching('not-found', new RegExp(unknown)), `No transaction, asset, contract or policy has the id ${unknown}.`);
    const probed = browser.expectConsole({
      answers: [/^\/transactions\/(unconfirmed\/)?info\//, /^\/assets\/details\//, /^\/contracts\/info\//, /^\/privacy\//],
    });
    assert.ok(
      probed.some((p) => p.startsWith('/transactions/info/')),
      'the unknown id was looked up',
    );
    await browser.screenshot('search-not-found');
    t.diagnostic(`lookups that missed (4xx by design): ${probed.join(', ')}`);
  });

  it('block page: the header and the transactions of /blocks/at', async () => {
    const info = await rest(node, `/transactions/info/${ids['issue']}`);
    const height: number = info.json.height;
    const block = await rest(node, `/blocks/at/${height}`);
    await browser.goto(`#/block/${height}`);
    const header = browser.page.getByTestId('block-header');
    await header.waitFor();
    const field = async (name: string): Promise<string> => (await header.locator(`tr[data-field="${name}"] td`).innerText()).trim();
    assert.ok((await field('generator')).includes(block.json.generator));
    assert.ok((await field('signature')).startsWith(block.json.signature) || (await field('signature')).includes(block.json.signature));
    assert.equal(await field('transactionCount'), String(block.json.transactionCount));
    assert.ok((await field('blocksize')).includes(`(${block.json.blocksize} bytes)`));
    assert.equal(unitsOf(await field('fee'), 8), BigInt(block.json.fee));
    const rows = await browser.page.locator('[data-testid="block-txs"] tr[data-tx]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-tx')));
    assert.deepEqual(
      rows,
      block.json.transactions.slice(0, 100).map((tx: { id: string }) => tx.id),
    );
    await browser.screenshot('block');
    browser.expectConsole();
  });

  it('transaction page: every field /transactions/info answers, and the block it is in', async () => {
    for (const name of ['transfer', 'issue', 'lease', 'data', 'policy', 'mass', 'alias', 'assetTransfer']) {
      const id = ids[name]!;
      const info = await rest(node, `/transactions/info/${id}`);
      assert.equal(info.status, 200, info.text);
      await browser.goto(`#/tx/${id}`);
      const status = await browser.text('tx-status');
      assert.match(status, new RegExp(`confirmed in block ${info.json.height}, \\d+ confirmation`), `${name}: ${status}`);
      const table = browser.page.getByTestId('tx-fields');
      for (const [key, value] of Object.entries(info.json as Record<string, unknown>)) {
        const cell = table.locator(`:scope > tbody > tr[data-field="${key}"] > td`);
        assert.equal(await cell.count(), 1, `${name}: field ${key} shown`);
        const text = await cell.innerText();
        for (const leaf of leaves(value)) if (leaf !== '') assert.ok(text.includes(leaf), `${name}.${key}: "${leaf}" in "${text}"`);
      }
      if (name === 'transfer') await browser.screenshot('transaction');
    }
    browser.expectConsole();

    // A transaction just sent: in the pool or already in a block when the page opens, the
    // page ends up showing it confirmed in the block REST names.
    const fresh = await send('fresh', 'Transfer', 3, { recipient: A[2]!.address, amount: 4242, fee: FEE.transfer, attachment: '' }, A[0]!);
    await browser.goto(`#/tx/${fresh}`);
    const status = await browser.textMatching('tx-status', /confirmed/);
    const info = await rest(node, `/transactions/info/${fresh}`);
    assert.match(status, new RegExp(`confirmed in block ${info.json.height},`));
    browser.expectConsole({ answers: [/^\/transactions\/(unconfirmed\/)?info\//] });
  });

  it('address page: balances, assets, leases, roles, aliases, data and the history paged by cursor', async () => {
    const a0 = A[0]!.address;
    await browser.goto(`#/address/${a0}`);
    const [details, assets, leases, roles, aliases, page1] = await Promise.all([
      rest(node, `/addresses/balance/details/${a0}`),
      rest(node, `/assets/balance-v2/${a0}`),
      rest(node, `/leasing/active/${a0}`),
      rest(node, `/permissions/${a0}`),
      rest(node, `/alias/by-address/${A[1]!.address}`),
      rest(node, `/transactions/address/${a0}/limit/25`),
    ]);
    assert.equal(unitsOf(await browser.text('balance-regular'), 8), BigInt(details.json.regular));
    const roleText = await browser.text('roles');
    for (const r of roles.json.roles as Array<{ role: string }>) assert.ok(roleText.includes(r.role), `role ${r.role} shown`);
    const assetRows = browser.page.locator('[data-testid="assets"] tr[data-asset]');
    await assetRows.first().waitFor();
    assert.deepEqual(
      await assetRows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-asset'))),
      assets.json.balances.map((b: { assetId: string }) => b.assetId),
    );
    const gold = assets.json.balances.find((b: { assetId: string }) => b.assetId === ids['issue']);
    assert.equal(unitsOf(await assetRows.first().locator('td.num').innerText(), gold.decimals), BigInt(gold.balance));
    assert.equal(await browser.page.locator('[data-testid="leases"] tbody tr').count(), leases.json.length);
    const txRows = browser.page.locator('[data-testid="address-txs"] tr[data-tx]');
    await txRows.first().waitFor();
    const shown1 = await txRows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-tx')));
    assert.deepEqual(
      shown1,
      page1.json[0].map((tx: { id: string }) => tx.id),
      'newest first, as /transactions/address answers',
    );
    await browser.screenshot('address');

    await browser.page.getByTestId('older').click();
    const last = shown1[shown1.length - 1]!;
    await browser.waitForHash(new RegExp(`\\?after=${last}$`));
    const page2 = await rest(node, `/transactions/address/${a0}/limit/25?after=${last}`);
    await browser.page.locator(`[data-testid="address-txs"] tr[data-tx="${page2.json[0][0].id}"]`).waitFor();
    assert.deepEqual(
      await browser.page.locator('[data-testid="address-txs"] tr[data-tx]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-tx'))),
      page2.json[0].map((tx: { id: string }) => tx.id),
    );

    await browser.goto(`#/address/${A[1]!.address}`);
    const aliasCell = browser.page.locator('tr[data-field="aliases"] td');
    await aliasCell.getByText('alias:', { exact: false }).waitFor();
    for (const a of aliases.json as string[]) assert.ok((await aliasCell.innerText()).includes(a));
    browser.expectConsole();
  });

  it('asset page: details and distribution as /assets answers', async () => {
    const id = ids['issue']!;
    const [details, distribution] = await Promise.all([rest(node, `/assets/details/${id}?full=true`), rest(node, `/assets/${id}/distribution`)]);
    await browser.goto(`#/asset/${id}`);
    const table = browser.page.getByTestId('asset-details');
    await table.waitFor();
    assert.equal(unitsOf(await table.locator('tr[data-field="quantity"] td').innerText(), details.json.decimals), BigInt(details.json.quantity));
    assert.equal((await table.locator('tr[data-field="name"] td').innerText()).trim(), details.json.name);
    assert.ok((await table.locator('tr[data-field="issuer"] td').innerText()).includes(details.json.issuer.address ?? details.json.issuer));
    const holders = browser.page.locator('[data-testid="distribution"] tr[data-holder]');
    await holders.first().waitFor();
    const shown = await holders.evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-holder'), tr.querySelector('td.num')?.textContent ?? '']));
    const expected = Object.entries(distribution.json as Record<string, string>).filter(([, b]) => BigInt(b) > 0n);
    assert.equal(shown.length, expected.length);
    for (const [address, balance] of shown)
      assert.equal(unitsOf(balance, details.json.decimals), BigInt((distribution.json as Record<string, string>)[address!]!), `${address}`);
    await browser.screenshot('asset');
    browser.expectConsole();
  });

  it('policy page: recipients, owners and data items', async () => {
    const id = ids['policy']!;
    const probe = await rest(node, `/privacy/${id}/recipients`);
    await browser.goto(`#/policy/${id}`);
    assert.match(await browser.text('policy-created'), /seen by the explorer\. Created by/);
    assert.equal(probe.status, 200, probe.text);
    const [owners, hashes] = await Promise.all([rest(node, `/privacy/${id}/owners`), rest(node, `/privacy/${id}/hashes`)]);
    const listed = async (testId: string): Promise<string[]> => {
      await browser.page.getByTestId(testId).waitFor();
      return browser.page
        .getByTestId(testId)
        .locator('a.id')
        .evaluateAll((as) => as.map((a) => a.getAttribute('title') ?? ''));
    };
    assert.deepEqual((await listed('policy-recipients')).sort(), [...(probe.json as string[])].sort());
    assert.deepEqual((await listed('policy-owners')).sort(), [...(owners.json as string[])].sort());
    const items = await browser.page.locator('[data-testid="policy-items"] tr[data-hash]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-hash')));
    assert.deepEqual(items.sort(), [...(hashes.json as string[])].sort());

    // A data item sent by a recipient (with the privacy key, as a client would): its hash
    // shows, its content and file metadata never do.
    const data = Buffer.from('explorer: confidential content that must never show');
    const hash = base58.encode(createHash('sha256').update(data).digest());
    const recipient = node.accounts().accounts[1]!;
    const sent = await node.post('/privacy/sendData', {
      version: 3,
      sender: recipient.address,
      password: recipient.keystorePassword,
      policyId: id,
      data: data.toString('base64'),
      hash,
      info: { filename: 'secret-file-name.txt', size: data.length, timestamp: Date.now(), author: 'explorer test', comment: 'secret comment' },
      fee: 5_000_000,
    });
    assert.equal(sent.status, 200, sent.text);
    await confirmed(node, String(sent.json.id), 30_000);
    await browser.goto(`#/policy/${id}`);
    const row = browser.page.locator(`[data-testid="policy-items"] tr[data-hash="${hash}"]`);
    await row.waitFor();
    assert.ok((await row.innerText()).includes(hash), 'the data hash in full');
    const text = await browser.page.locator('main').innerText();
    for (const secret of ['confidential content', data.toString('base64'), 'secret-file-name', 'secret comment'])
      assert.ok(!text.includes(secret), `the page shows "${secret}"`);
    await browser.screenshot('policy');
    browser.expectConsole();
  });

  it('contract page: state, calls and their statuses as REST answers (a WASM contract created and called on the dev chain)', async () => {
    // A WASM counter (no package needed): created by the dev chain's first account, then called once.
    const wat = (await wabtInit()).parseWat('counter.wat', readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'wasm', 'counter.wat'), 'utf8'), {
      multi_value: true,
    });
    const bytecode = Uint8Array.from(wat.toBinary({}).buffer);
    wat.destroy();
    const developer = contractProtocol.crypto.keyPairFromSeedPhrase(DEV_SEEDS[0]!);
    timestampsFrom(BigInt(clock.next()));
    const create = createV7(
      { engine: 'wasm', bytecode, bytecodeHash: createHash('sha256').update(bytecode).digest('hex') },
      [{ key: 'start', type: 'integer', value: 40n }],
      developer,
    );
    const posted = await node.post('/transactions/broadcast', stringifyJson(create.toJson()));
    assert.equal(posted.status, 200, posted.text);
    const executedFor = async (txId: string): Promise<void> => {
      await until(`the 105 of ${txId}`, async () => ((await rest(node, `/contracts/executed-tx-for/${txId}`)).status === 200 ? true : undefined), 60_000);
    };
    await executedFor(create.idBase58);
    const call = callV7(create.id, 'wasm', 'increment', [{ key: 'by', type: 'integer', value: 2n }], [], developer);
    const called = await node.post('/transactions/broadcast', stringifyJson(call.toJson()));
    assert.equal(called.status, 200, called.text);
    await executedFor(call.idBase58);

    const list = await rest(node, '/contracts');
    assert.equal(list.status, 200, list.text);
    assert.ok(
      (list.json as Array<{ contractId: string }>).some((c) => c.contractId === create.idBase58),
      'GET /contracts lists it',
    );
    const id = create.idBase58;
    const state = await rest(node, `/contracts/${id}?limit=50`);
    assert.ok((state.json as unknown[]).length > 0, 'the contract has state');
    await browser.goto(`#/contract/${id}`);
    const keys = browser.page.locator('[data-testid="contract-state"] tr[data-key]');
    await keys.first().waitFor();
    assert.deepEqual(
      await keys.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key'))),
      (state.json as Array<{ key: string }>).map((e) => e.key),
    );
    const stateText = await browser.page.getByTestId('contract-state').innerText();
    for (const e of state.json as Array<{ key: string; value: unknown }>) assert.ok(stateText.includes(String(e.value)), `the value of ${e.key}`);
    // The call, found in the blocks, with the status the node reports for it.
    const row = browser.page.locator(`[data-testid="contract-calls"] tr[data-call="${call.idBase58}"]`);
    await row.waitFor({ timeout: 20_000 });
    const statuses = await rest(node, `/contracts/status/${call.idBase58}`);
    assert.equal(statuses.status, 200, statuses.text);
    const status = (statuses.json as Array<{ status: string }>)[0]!.status;
    await row.getByText(status).first().waitFor();
    await browser.screenshot('contract');
    browser.expectConsole({ answers: [/^\/contracts\/status\//, /^\/contracts\/executed-tx-for\//, /^\/transactions\/info\//] });
  });

  it('network page: the node, the miner queue, the rounds and feature activation as REST answers', async () => {
    await browser.goto('#/network');
    const [height, activation] = await Promise.all([rest(node, '/blocks/height'), rest(node, '/activation/status')]);
    const shownHeight = Number(await browser.text('node-height'));
    assert.ok(Math.abs(shownHeight - height.json.height) <= 1, `height ${shownHeight} against ${height.json.height}`);
    assert.match(await browser.text('sync'), /in sync/);
    await browser.page.getByTestId('no-peers').waitFor();
    const features = browser.page.locator('[data-testid="features"] tr[data-feature]');
    await features.first().waitFor();
    const shownFeatures = await features.evaluateAll((trs) =>
      trs.map((tr) => [tr.getAttribute('data-feature'), tr.querySelectorAll('td')[2]?.textContent ?? '']),
    );
    assert.deepEqual(
      shownFeatures,
      (activation.json.features as Array<{ id: number; blockchainStatus: string }>).map((f) => [String(f.id), f.blockchainStatus]),
    );
    const queue = browser.page.locator('[data-testid="miner-queue"] tr[data-miner]');
    await queue.first().waitFor();
    const miners = await rest(node, `/consensus/minersAtHeight/${height.json.height}`);
    assert.deepEqual(await queue.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-miner'))), miners.json.miners);
    const slots = browser.page.locator('[data-testid="round-timeline"] a[data-kind="mined"]');
    await slots.first().waitFor();
    const mined = await slots.evaluateAll((as) => as.map((a) => [Number(a.getAttribute('data-height')), a.getAttribute('title') ?? ''] as const));
    assert.equal(mined.length, Math.min(60, mined[mined.length - 1]![0]), 'one mined round per block of the window');
    const headers = await rest(node, `/blocks/headers/seq/${mined[0]![0]}/${mined[mined.length - 1]![0]}`);
    mined.forEach(([h, title], i) => assert.equal(title, `Block ${h} by ${headers.json[i].generator}`));
    assert.equal(await browser.page.locator('[data-testid="round-timeline"] a[data-kind="skipped"]').count(), 0, 'a lone miner skips no round');
    await browser.screenshot('network');
    browser.expectConsole();
  });

  it('every page fits a phone (390 px wide)', async () => {
    await browser.page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const hash of [
        '',
        '#/network',
        `#/block/${(await rest(node, `/transactions/info/${ids['mass']}`)).json.height}`,
        `#/tx/${ids['mass']}`,
        `#/address/${A[0]!.address}`,
        `#/asset/${ids['issue']}`,
        `#/policy/${ids['policy']}`,
      ]) {
        await browser.goto(hash);
        await browser.page.locator('main h1, main .card').first().waitFor();
        await browser.page.waitForTimeout(500);
        assert.equal(await browser.overflowsHorizontally(), false, `${hash || 'live'} scrolls sideways at 390 px`);
        if (hash === '') await browser.screenshot('phone-live');
        if (hash.startsWith('#/address/')) await browser.screenshot('phone-address');
      }
      browser.expectConsole({ answers: [/^\/privacy\//] });
    } finally {
      await browser.page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('survives a node restart: shows the outage, reconnects by itself and follows the chain again', async () => {
    await browser.goto();
    const connection = browser.page.getByTestId('connection');
    await browser.waitForConnection(true);
    const before = Number(await browser.text('tip-height'));
    const ports = { rest: node.restPort, p2p: node.p2pPort };
    node.kill();
    await node.waitForExit();
    await browser.waitForConnection(false, 15_000);
    assert.match(await browser.page.locator('.banner').innerText(), /does not answer/);
    await browser.screenshot('restart-offline');
    node = await fleet.start(dataDir, 60_000, ports);
    await browser.waitForConnection(true, 20_000);
    assert.match(await connection.innerText(), /reconnected 1×/);
    // The page follows new blocks again, without a reload.
    await until('a key block after the restart on the page', async () => (Number(await browser.text('tip-height')) > before ? true : undefined), 30_000, 300);
    const id = await send('afterRestart', 'Transfer', 3, { recipient: A[4]!.address, amount: 777, fee: FEE.transfer, attachment: '' }, A[0]!);
    await browser.page.locator(`[data-testid="liquid-txs"] tr[data-tx="${id}"]`).waitFor({ timeout: 20_000 });
    browser.expectConsole({ refused: true });
  });
});
