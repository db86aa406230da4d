/**
 * Bad input against a running dev chain, over HTTP: each answered with WE's error code and
 * status, and nothing applied (the transaction is neither pooled nor confirmed, balances
 * unchanged, the chain not rolled back). Also rollback through the API, with the removed
 * transactions going back to the pool and being mined again exactly once.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createRequire } from 'node:module';
import {
  assertError,
  assertNowhere,
  Clock,
  confirmed,
  describeAnswer,
  randomId,
  signBytes,
  signer,
  tf1Build,
  tf2Build,
  WEST,
  type Built,
  type Signer,
} from './clients.js';
import { NodeFleet, sleep, until, type DevNode } from './support.js';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const cryptoUtils: any = require('@wavesenterprise/crypto-utils');

const fleet = new NodeFleet();
const clock = new Clock();
const DEV_SEEDS = [0, 1, 2, 3, 4].map((i) => `weft dev chain account ${i} - never use this seed on a real network`);
const TRANSFER_FEE = 1_000_000;
/** WE's known-tx-cache-time: an identical broadcast within it is AlreadyInProcessing. */
const KNOWN_TX_CACHE_MS = 20_000;

describe('dev chain end to end: bad input and rollback over HTTP', { timeout: 120_000 }, () => {
  let node: DevNode;
  let A: Signer[] = [];
  /** Account 1's WEST as this file expects it (genesis 100 000 WEST, minus what it sends). */
  let a1West = 100_000n * WEST;
  let replayed: { id: string; json: Record<string, unknown>; at: number } | undefined;

  const height = async (): Promise<number> => (await node.get('/blocks/height')).json.height as number;

  /** The balance the node holds for an account, read from WE's overspend message (a transfer of balance − fee + 1). */
  async function westBalanceOf(account: Signer, expected: bigint): Promise<void> {
    const over = await tf2Build(
      'Transfer',
      3,
      { recipient: A[0]!.address, amount: Number(expected - BigInt(TRANSFER_FEE) + 1n), fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' },
      account,
    );
    assertError(
      await node.post('/transactions/broadcast', over.json),
      400,
      112,
      new RegExp(`current balance equals ${expected}, spends equals ${-(expected + 1n)}, result is -1$`),
    );
    await assertNowhere(node, over.id);
  }

  before(async () => {
    node = await fleet.start();
    A = await Promise.all(DEV_SEEDS.map((s) => signer(s)));
  });

  it('refuses an identical broadcast within 20 s as AlreadyInProcessing', async () => {
    const tx = await tf2Build('Transfer', 3, { recipient: A[2]!.address, amount: 1e8, fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' }, A[1]!);
    const first = await node.post('/transactions/broadcast', tx.json);
    const at = Date.now();
    assert.equal(first.status, 200, describeAnswer(first));
    a1West -= WEST + BigInt(TRANSFER_FEE);
    assertError(await node.post('/transactions/broadcast', tx.json), 400, 199, `AlreadyInProcessing(${tx.id})`);
    await confirmed(node, tx.id);
    replayed = { id: tx.id, json: tx.json, at };
  });

  it('refuses a forged signature (112) and applies nothing', async () => {
    const genuine = await tf2Build('Transfer', 3, { recipient: A[2]!.address, amount: 5e8, fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' }, A[1]!);
    // Signed by another key over the right bytes; and the right key over other bytes.
    const otherKey = { ...genuine.json, proofs: [signBytes(Uint8Array.from([0, 1, 2]), A[1]!.privateKey)] };
    const wrongSigner = await tf2Build(
      'Transfer',
      3,
      { recipient: A[2]!.address, amount: 5e8, fee: TRANSFER_FEE, timestamp: genuine.json['timestamp'], attachment: '' },
      A[3]!,
    );
    const stolen = { ...genuine.json, proofs: wrongSigner.json['proofs'] };
    for (const forged of [otherKey, stolen]) {
      const r = await node.post('/transactions/broadcast', forged);
      assertError(r, 400, 112, /^State check failed\. Reason: Script doesn't exist and proof doesn't validate as signature for '\{.*\}'$/);
      assert.equal(r.json.tx.id, genuine.id, 'WE adds the refused transaction as `tx`');
    }
    await assertNowhere(node, genuine.id);
  });

  it('refuses an overspend (112) and applies nothing', async () => {
    const a3 = A[3]!;
    const tx = await tf1Build(
      'Transfer',
      2,
      { recipient: A[4]!.address, amount: 100_000 * 1e8, fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' },
      a3,
    );
    assertError(
      await node.post('/transactions/broadcast', tx.json),
      400,
      112,
      `State check failed. Reason: Attempt to transfer unavailable funds: Transaction application leads to negative WEST balance to (at least) temporary negative state, current balance equals ${100_000n * WEST}, spends equals ${-(100_000n * WEST + BigInt(TRANSFER_FEE))}, result is ${-BigInt(TRANSFER_FEE)}`,
    );
    await assertNowhere(node, tx.id);
    // More of an asset than exists.
    const asset = await tf2Build(
      'Transfer',
      3,
      { recipient: A[4]!.address, assetId: randomId(), amount: 1, fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' },
      a3,
    );
    assertError(await node.post('/transactions/broadcast', asset.json), 400, 112, /negative asset '.*' balance/);
    await assertNowhere(node, asset.id);
    await westBalanceOf(a3, 100_000n * WEST);
  });

  it('refuses a double spend at broadcast: a second transfer that only fits without the first, still pooled, is 112 naming pending pool transactions', async () => {
    // Account 2 holds 100 000 WEST and a little it received: each transfer fits alone, not both.
    const a2 = A[2]!;
    const first = await tf2Build(
      'Transfer',
      3,
      { recipient: A[0]!.address, amount: 60_000 * 1e8, fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' },
      a2,
    );
    const second = await tf2Build(
      'Transfer',
      3,
      { recipient: A[3]!.address, amount: 60_000 * 1e8, fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' },
      a2,
    );
    const accepted = await node.post('/transactions/broadcast', first.json);
    assert.equal(accepted.status, 200, describeAnswer(accepted));
    const refused = await node.post('/transactions/broadcast', second.json);
    // Refused whether the first is still pooled (pending spendings counted) or already mined (the balance itself).
    assertError(refused, 400, 112, /^State check failed\. Reason: Attempt to transfer unavailable funds: .*negative WEST balance/);
    if (/pending pool transactions are counted/.test(String(refused.json.message)))
      assert.match(String(refused.json.message), new RegExp(`${60_000n * WEST + BigInt(TRANSFER_FEE)} WEST of ${a2.address}`));
    assert.equal(refused.json.tx.id, second.id);
    await confirmed(node, first.id);
    await assertNowhere(node, second.id);
  });

  /** A transfer of account 1 whose fee is below the minimum, and one whose fee asset does not exist. */
  async function badFees(): Promise<{ low: Built; noAsset: Built; asset: string }> {
    const low = await tf2Build('Transfer', 3, { recipient: A[2]!.address, amount: 1e8, fee: TRANSFER_FEE - 1, timestamp: clock.next(), attachment: '' }, A[1]!);
    const asset = randomId();
    const noAsset = await tf2Build(
      'Transfer',
      3,
      { recipient: A[2]!.address, amount: 1e8, fee: TRANSFER_FEE, feeAssetId: asset, timestamp: clock.next(), attachment: '' },
      A[1]!,
    );
    return { low, noAsset, asset };
  }
  const lowFeeMessage = `Fee '${TRANSFER_FEE - 1}' in 'WEST' for 'com.wavesenterprise.transaction.transfer.TransferTransactionV3' does not exceed minimal value of '${TRANSFER_FEE}'`;

  it('refuses a fee below the minimum and a fee in an asset that does not exist, applying nothing', async () => {
    const { low, noAsset } = await badFees();
    const r1 = await node.post('/transactions/broadcast', low.json);
    assert.equal(r1.status, 400, describeAnswer(r1));
    assert.ok(String(r1.json.message).endsWith(lowFeeMessage), describeAnswer(r1));
    await assertNowhere(node, low.id);
    const r2 = await node.post('/transactions/broadcast', noAsset.json);
    assert.equal(r2.status, 400, describeAnswer(r2));
    assert.ok([112, 199].includes(r2.json.error), describeAnswer(r2));
    await assertNowhere(node, noAsset.id);
  });

  // WE checks the fee in the broadcast route, before the pool (TransactionsApi.validateAndBroadcastTransaction:
  // feeCalculator.validateTxFee → ApiError.fromValidationError), so its GenericError is a plain 199.
  it("answers a fee below the minimum with WE's 199 (checked before the pool)", async () => {
    const { low, noAsset, asset } = await badFees();
    assertError(await node.post('/transactions/broadcast', low.json), 400, 199, lowFeeMessage);
    assertError(await node.post('/transactions/broadcast', noAsset.json), 400, 199, `Asset '${asset}' does not exist, cannot be used to pay fees`);
  });

  it('refuses another network: a recipient address of chain V (102), a LeaseCancel for chain V (199)', async () => {
    const a1 = A[1]!;
    const foreign: string = cryptoUtils.toBase58(cryptoUtils.createAddress(cryptoUtils.fromBase58(A[2]!.publicKey), 'V'.charCodeAt(0)));
    const tx = await tf2Build('Transfer', 3, { recipient: foreign, amount: 1e8, fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' }, a1);
    assertError(await node.post('/transactions/broadcast', tx.json), 400, 102, /^invalid address: .*/);
    await assertNowhere(node, tx.id);

    const cancel = await tf1Build('LeaseCancel', 2, { chainId: 'V'.charCodeAt(0), leaseId: randomId(), fee: TRANSFER_FEE, timestamp: clock.next() }, a1);
    assertError(
      await node.post('/transactions/broadcast', cancel.json),
      400,
      199,
      `Wrong chainId actual: ${'V'.charCodeAt(0)}, expected: ${'T'.charCodeAt(0)}`,
    );
    await assertNowhere(node, cancel.id);
  });

  it('refuses far-future and too-old timestamps (303)', async () => {
    const a1 = A[1]!;
    const future = Date.now() + 91 * 60_000;
    const far = await tf2Build('Transfer', 3, { recipient: A[2]!.address, amount: 1e8, fee: TRANSFER_FEE, timestamp: future, attachment: '' }, a1);
    assertError(await node.post('/transactions/broadcast', far.json), 400, 303, new RegExp(`^Transaction ts ${future} is from far future\\. BlockTime: \\d+$`));
    await assertNowhere(node, far.id);
    const past = Date.now() - 2 * 3_600_000 - 5 * 60_000;
    const old = await tf2Build('Transfer', 3, { recipient: A[2]!.address, amount: 1e8, fee: TRANSFER_FEE, timestamp: past, attachment: '' }, a1);
    assertError(
      await node.post('/transactions/broadcast', old.json),
      400,
      303,
      new RegExp(`^Transaction ts ${past} is too old\\. Previous block time: Some\\(\\d+\\)$`),
    );
    await assertNowhere(node, old.id);
  });

  it('answers malformed JSON with error 1', async () => {
    const notJson = await node.post('/transactions/broadcast', '{"type": 4, "version": 3,');
    assertError(notJson, 400, 1, 'failed to parse json message');
    assert.deepEqual(notJson.json.validationErrors, {});
    const notObject = await node.post('/transactions/broadcast', [1]);
    assertError(notObject, 400, 1, 'failed to parse json message');
    assert.deepEqual(notObject.json.validationErrors, { obj: [{ msg: ['error.expected.jsobject'], args: [] }] });
    const missingFee = await tf2Build(
      'Transfer',
      3,
      { recipient: A[2]!.address, amount: 1e8, fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' },
      A[1]!,
    );
    const { fee: _fee, ...withoutFee } = missingFee.json;
    const r = await node.post('/transactions/broadcast', withoutFee);
    assertError(r, 400, 1, 'failed to parse json message');
    assert.deepEqual(r.json.validationErrors, { 'obj.fee': [{ msg: ['error.path.missing'], args: [] }] });
    await assertNowhere(node, missingFee.id);
    const rollback = await node.post('/debug/rollback', '{"rollbackTo": ', { apiKey: 'weft-dev-api-key' });
    assertError(rollback, 400, 1);
  });

  it('answers unknown ids and out-of-range heights as WE does', async () => {
    const unknown = randomId();
    const info = await node.get(`/transactions/info/${unknown}`);
    assert.equal(info.status, 404);
    assert.deepEqual(info.json, { status: 'error', details: 'Transaction is not in blockchain' });
    const pooled = await node.get(`/transactions/unconfirmed/info/${unknown}`);
    assert.equal(pooled.status, 404);
    assert.deepEqual(pooled.json, { status: 'error', details: 'Transaction is not in UTX' });
    assertError(await node.get('/transactions/info/0OIl'), 400, 101, 'invalid signature');
    const after = await node.get(`/transactions/address/${A[1]!.address}/limit/10?after=${unknown}`);
    assert.equal(after.status, 404);
    assert.deepEqual(after.json, { status: 'error', details: 'Transaction is not in blockchain' });
    assertError(await node.get(`/blocks/signature/${cryptoUtils.toBase58(new Uint8Array(64).fill(7))}`), 404, 301);

    assertError(await node.get('/blocks/at/0'), 400, 199, "Invalid parameter: '0' must be positive");
    assertError(await node.get('/blocks/at/-1'), 400, 199);
    assertError(await node.get('/blocks/at/abc'), 400, 199, "Invalid parameter: Unable to parse Integer from 'abc'");
    // WE answers a height without a block with 200 and a status body, not an error code.
    for (const path of ['/blocks/at/999999', '/blocks/headers/at/999999']) {
      const r = await node.get(path);
      assert.equal(r.status, 200, `${path}: ${describeAnswer(r)}`);
      assert.deepEqual(r.json, { status: 'error', details: 'No block for this height' });
    }
    assertError(await node.get('/blocks/seq/5/2'), 400, 199, "Invalid interval: end '2' less than start '5'");
    assertError(await node.get('/blocks/seq/1/101'), 400, 10);
    // Ranges validate both ends and list the failing ones (WE's plural form).
    assertError(await node.get('/blocks/seq/0/5'), 400, 199, "Invalid parameters: ['0' must be positive]");
    // A range above the top is empty.
    const above = await node.get('/blocks/seq/999990/999999');
    assert.equal(above.status, 200);
    assert.deepEqual(above.json, []);
  });

  it('refuses /debug/rollback without the API key or with a wrong one (403, error 2), rolling nothing back', async () => {
    const before = await height();
    assert.ok(before >= 2);
    for (const apiKey of [null, 'not-the-key']) {
      const r = await node.post('/debug/rollback', { rollbackTo: 1, returnTransactionsToUtx: true }, { apiKey });
      assertError(r, 403, 2, 'Provided API key is not correct');
    }
    // A height without a block: WE's plain-text 400.
    const above = await node.post('/debug/rollback', { rollbackTo: 999_999, returnTransactionsToUtx: false });
    assert.equal(above.status, 400, describeAnswer(above));
    assert.equal(above.text, 'Block at height not found');
    assert.ok((await height()) >= before, 'no rollback happened');
    const genesisTx = await node.get(`/transactions/address/${A[1]!.address}/limit/100`);
    assert.ok(genesisTx.json[0].length >= 1);
  });

  it('rolls back through the API: removed transactions return to the pool and are mined again, once', async () => {
    const a1 = A[1]!;
    const t1 = await tf2Build('Transfer', 3, { recipient: A[4]!.address, amount: 11e8, fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' }, a1);
    const t2 = await tf1Build('Transfer', 2, { recipient: A[4]!.address, amount: 12e8, fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' }, a1);
    for (const t of [t1, t2]) assert.equal((await node.post('/transactions/broadcast', t.json)).status, 200);
    a1West -= 23n * WEST + 2n * BigInt(TRANSFER_FEE);
    const h1 = (await confirmed(node, t1.id)).height as number;
    const h2 = (await confirmed(node, t2.id)).height as number;
    const target = Math.min(h1, h2) - 1;
    assert.ok(target >= 1);
    const targetBlock = await node.get(`/blocks/at/${target}`);
    assert.equal(targetBlock.status, 200);
    const removedBlock = await node.get(`/blocks/headers/at/${target + 1}`);
    assert.equal(removedBlock.status, 200);

    const r = await node.post('/debug/rollback', { rollbackTo: target, returnTransactionsToUtx: true });
    assert.equal(r.status, 200, describeAnswer(r));
    assert.deepEqual(r.json, { BlockId: targetBlock.json.signature });
    assertError(await node.get(`/blocks/signature/${removedBlock.json.signature}`), 404, 301);
    // Right after the rollback they are in the pool. The miner may forge a key block and a
    // micro-block with them within milliseconds of the rollback, so a transaction missing
    // from the listing must already be confirmed again, above the rollback height (only the
    // pool feeds the miner).
    const pool = await node.get('/transactions/unconfirmed');
    assert.equal(pool.status, 200);
    const pooled = new Set(pool.json.map((t: { id: string }) => t.id));
    for (const t of [t1, t2]) {
      if (pooled.has(t.id)) continue;
      const info = await node.get(`/transactions/info/${t.id}`);
      assert.ok(
        info.status === 200 && info.json.height > target,
        `${t.id} is neither back in /transactions/unconfirmed nor mined again: ${describeAnswer(info)}`,
      );
    }
    // Mined again, above the rollback height.
    for (const t of [t1, t2]) {
      const again = await confirmed(node, t.id);
      assert.ok(again.height > target);
    }
    // Applied once: account 1's balance is what this file expects.
    await until('the pool to be empty', async () => ((await node.get('/transactions/unconfirmed/size')).json.size === 0 ? true : undefined), 10_000);
    await westBalanceOf(a1, a1West);
  });

  it('refuses a confirmed transaction broadcast again after 20 s: already in the state (112)', async () => {
    assert.ok(replayed !== undefined, 'the first test broadcast a transaction');
    const wait = replayed.at + KNOWN_TX_CACHE_MS + 500 - Date.now();
    if (wait > 0) await sleep(wait);
    const info = await confirmed(node, replayed.id);
    const r = await node.post('/transactions/broadcast', replayed.json);
    assertError(r, 400, 112, `State check failed. Reason: Transaction ${replayed.id} is already in the state on a height of ${info.height}`);
    // Still once in the chain, and not in the pool.
    const pooled = await node.get(`/transactions/unconfirmed/info/${replayed.id}`);
    assert.equal(pooled.status, 404);
    await westBalanceOf(A[1]!, a1West);
  });
});
