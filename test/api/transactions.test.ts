import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, describe, it } from 'node:test';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { BIG_AMOUNT, FOURTH, MINER, NOW, OUTSIDER, SECOND, THIRD, fixtureServer, protocol, transfer } from './fixture.js';
import { expectError } from './inject.js';
import { WeError } from '../../src/errors/catalogue.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const tf2: any = require('@wavesenterprise/transactions-factory');
const cryptoUtils: any = require('@wavesenterprise/crypto-utils');
/* eslint-enable @typescript-eslint/no-explicit-any */

const b58 = encodeBase58;
const asClient = (v: unknown): unknown => parseJson(stringifyJson(v));
const UNKNOWN_TX = b58(new Uint8Array(32).fill(9));

/** A Transfer V3 signed client-side by the official transactions-factory, as a dApp would send it. */
async function libraryTransfer(seed: string, fields: Record<string, unknown>): Promise<Record<string, unknown>> {
  const kp = await cryptoUtils.createKeys(seed);
  const publicKey: string = cryptoUtils.toBase58(kp.publicKey);
  const tx = tf2.TRANSACTIONS.Transfer.V3({ ...fields, senderPublicKey: publicKey });
  tx.setNetworkByte(protocol.chainId);
  const bytes: Uint8Array = await tx.getBytes();
  const signature: string = cryptoUtils.createTransactionSignature(bytes, cryptoUtils.toBase58(kp.privateKey));
  return { ...tx.getBody(), senderPublicKey: publicKey, proofs: [signature] };
}

describe('GET /transactions/address/{address}/limit/{limit}', () => {
  const f = fixtureServer();
  after(() => f.app.close());
  const { client, txs } = f;

  it('a nested array, newest first, extended JSON with heights', async () => {
    const r = await f.client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: SECOND.address.toString(), limit: 100 } });
    assert.equal(r.status, 200);
    const outer = r.body as Array<Array<Record<string, unknown>>>;
    assert.equal(outer.length, 1);
    const list = outer[0]!;
    assert.deepEqual(
      list.map((t) => t['id']),
      [txs.microTransfer, txs.massTransfer, txs.leaseCancel, txs.activeLease, txs.lease, txs.bigTransfer, f.blocks[0]!.transactions[1]!].map((t) => t.idBase58),
    );
    assert.deepEqual(
      list.map((t) => t['height']),
      [4, 3, 3, 2, 2, 2, 1],
    );
    assert.deepEqual(list[6], asClient({ ...f.blocks[0]!.transactions[1]!.toJson(), height: 1 }), 'genesis transactions have their own JSON');
    assert.equal(list.find((t) => t['id'] === txs.lease.idBase58)!['status'], 'canceled');
    assert.deepEqual(list.find((t) => t['id'] === txs.leaseCancel.idBase58)!['lease'], asClient(txs.lease.toJson()));
    assert.equal(list.find((t) => t['id'] === txs.bigTransfer.idBase58)!['amount'], BIG_AMOUNT - 1_000_000_000n);
  });

  it("a MassTransfer of someone else keeps only the address's transfers (aliases included)", async () => {
    const second = (
      (await client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: SECOND.address.toString(), limit: 10 } })).body as Array<
        Array<Record<string, unknown>>
      >
    )[0]!;
    const mt = second.find((t) => t['id'] === txs.massTransfer.idBase58)!;
    assert.deepEqual(mt['transfers'], [{ recipient: SECOND.address.toString(), amount: 3 }]);
    assert.equal(mt['transferCount'], 3);
    const fourth = (
      (await client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: FOURTH.address.toString(), limit: 10 } })).body as Array<
        Array<Record<string, unknown>>
      >
    )[0]!;
    assert.deepEqual(fourth.find((t) => t['id'] === txs.massTransfer.idBase58)!['transfers'], [{ recipient: 'alias:T:fourth', amount: 2 }]);
    const sender = (
      (await client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: MINER.address.toString(), limit: 10 } })).body as Array<
        Array<Record<string, unknown>>
      >
    )[0]!;
    assert.equal((sender.find((t) => t['id'] === txs.massTransfer.idBase58)!['transfers'] as unknown[]).length, 3);
  });

  it('pages with after', async () => {
    const a = SECOND.address.toString();
    const page1 = (
      (await client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: a, limit: 2 } })).body as Array<Array<{ id: string }>>
    )[0]!;
    assert.equal(page1.length, 2);
    const page2 = (
      (await client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: a, limit: 2 }, query: { after: page1[1]!.id } }))
        .body as Array<Array<{ id: string }>>
    )[0]!;
    assert.deepEqual(
      page2.map((t) => t.id),
      [txs.leaseCancel.idBase58, txs.activeLease.idBase58],
    );
    const empty = await client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: a, limit: 0 } });
    assert.deepEqual(empty.body, [[]]);
  });

  it('errors: unknown after 404, bad after 199, limit 10/199, address 102', async () => {
    const a = SECOND.address.toString();
    const unknown = await client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: a, limit: 2 }, query: { after: UNKNOWN_TX } });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { status: 'error', details: 'Transaction is not in blockchain' });
    expectError(
      await client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: a, limit: 2 }, query: { after: '0OIl' } }),
      400,
      199,
      'Unable to decode transaction id 0OIl',
    );
    expectError(
      await client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: a, limit: 10001 } }),
      400,
      10,
      'Too big sequences requested',
    );
    expectError(await client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: a, limit: 'ten' } }), 400, 199, 'invalid.limit');
    expectError(await client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: a, limit: '-1' } }), 400, 199, 'invalid.limit');
    expectError(await client.request({ method: 'GET', url: `/transactions/address/${a}/other` }), 400, 199, 'invalid.limit');
    expectError(await client.request({ method: 'GET', url: `/transactions/address/${a}` }), 400, 199, 'invalid.limit');
    const bad = expectError(await client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: 'xyz0', limit: 2 } }), 400, 102);
    assert.match(bad['message'] as string, /^invalid address: /);
    assert.equal(bad['field'], 'address');
    expectError(await client.request({ method: 'GET', url: '/transactions/address/xyz0/other' }), 400, 102);
  });

  it('the limit follows transactions-by-address-limit', async () => {
    const small = fixtureServer({ transactionsByAddressLimit: 5 });
    after(() => small.app.close());
    const a = SECOND.address.toString();
    assert.equal((await small.client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: a, limit: 5 } })).status, 200);
    expectError(await small.client.call('GET /transactions/address/{address}/limit/{limit}', { params: { address: a, limit: 6 } }), 400, 10);
  });
});

describe('GET /transactions/info/{id}', () => {
  const f = fixtureServer();
  after(() => f.app.close());
  const { client, txs } = f;

  it('extended JSON with height', async () => {
    const lease = await client.call('GET /transactions/info/{id}', { params: { id: txs.lease.idBase58 } });
    assert.deepEqual(lease.body, asClient({ ...txs.lease.toJson(), status: 'canceled', height: 2 }));
    const cancel = await client.call('GET /transactions/info/{id}', { params: { id: txs.leaseCancel.idBase58 } });
    assert.deepEqual(cancel.body, asClient({ ...txs.leaseCancel.toJson(), lease: txs.lease.toJson(), height: 3 }));
    const micro = await client.call('GET /transactions/info/{id}', { params: { id: txs.microTransfer.idBase58 } });
    assert.equal((micro.body as { height: number }).height, 4);
  });

  it('404 for an unknown id, 101 for a bad or missing one', async () => {
    const r = await client.call('GET /transactions/info/{id}', { params: { id: UNKNOWN_TX } });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { status: 'error', details: 'Transaction is not in blockchain' });
    expectError(await client.call('GET /transactions/info/{id}', { params: { id: 'I0' } }), 400, 101, 'invalid signature');
    expectError(await client.request({ method: 'GET', url: '/transactions/info' }), 400, 101);
    expectError(await client.request({ method: 'GET', url: '/transactions/info/' }), 400, 101);
  });
});

describe('POST /transactions/broadcast and the pool routes', () => {
  const f = fixtureServer();
  after(() => f.app.close());
  const { client, pool } = f;

  it('accepts a transfer signed by the official client and shows it in the pool', async () => {
    const json = await libraryTransfer('api fixture second', {
      recipient: THIRD.address.toString(),
      amount: 12345,
      fee: 1000000,
      timestamp: Number(NOW),
      attachment: '',
    });
    const r = await client.request({
      method: 'POST',
      url: '/transactions/broadcast',
      rawBody: JSON.stringify(json),
      contentType: 'application/json;charset=UTF-8',
    });
    assert.equal(r.status, 200, r.text);
    const tx = r.body as Record<string, unknown>;
    assert.equal(tx['type'], 4);
    assert.equal(tx['sender'], SECOND.address.toString());
    assert.equal(tx['amount'], 12345);
    assert.deepEqual(tx['proofs'], json['proofs']);
    const id = tx['id'] as string;
    assert.ok(pool.txs.has(id));
    assert.equal(r.headers['access-control-allow-origin'], '*');

    const list = await client.call('GET /transactions/unconfirmed');
    assert.deepEqual(
      (list.body as Array<{ id: string }>).map((t) => t.id),
      [id],
    );
    assert.deepEqual((await client.request({ method: 'GET', url: '/transactions/unconfirmed/' })).body, list.body);
    const size = await client.call('GET /transactions/unconfirmed/size');
    assert.deepEqual(size.body, { size: 1, sizeInBytes: pool.txs.get(id)!.bytes.length });
    const info = await client.call('GET /transactions/unconfirmed/info/{id}', { params: { id } });
    assert.deepEqual(info.body, tx);
    assert.equal((info.body as Record<string, unknown>)['height'], undefined);
    const listed = await client.call('GET /unconfirmed/info/{id}', { params: { id } });
    assert.deepEqual([listed.status, listed.body], [200, tx], "the specification's path answers the same");
  });

  it('a lease in the pool reads canceled (no lease in state yet), as in WE', async () => {
    const lease = f.services.protocol.sign(
      f.services.protocol.transactionFromJson(
        {
          type: 8,
          version: 2,
          senderPublicKey: b58(THIRD.keyPair.publicKey),
          recipient: FOURTH.address.toString(),
          amount: 5n,
          fee: 1_000_000n,
          timestamp: NOW,
          proofs: [],
        },
        { forBroadcast: false },
      ),
      THIRD.keyPair.privateKey,
    );
    const r = await client.call('POST /transactions/broadcast', { body: lease.toJson() });
    assert.equal(r.status, 200, r.text);
    const info = await client.call('GET /transactions/unconfirmed/info/{id}', { params: { id: lease.idBase58 } });
    assert.equal((info.body as Record<string, unknown>)['status'], 'canceled');
  });

  it('keeps int64 exact beyond 2^53 both ways, and gives strings on request', async () => {
    const big = transfer(MINER, FOURTH.address, BIG_AMOUNT, NOW + 5n);
    const json = big.toJson();
    const r = await client.call('POST /transactions/broadcast', { body: json });
    assert.equal(r.status, 200, r.text);
    assert.ok(r.text.includes(`"amount":${BIG_AMOUNT}`));
    assert.equal((r.body as Record<string, unknown>)['amount'], BIG_AMOUNT);
    const asStrings = await client.call('GET /transactions/unconfirmed/info/{id}', {
      params: { id: big.idBase58 },
      headers: { accept: 'application/json; large-significand-format=string' },
    });
    const body = asStrings.body as Record<string, unknown>;
    assert.equal(body['amount'], BIG_AMOUNT.toString());
    assert.equal(body['fee'], '1000000');
    assert.equal(body['type'], 4, 'int32 fields stay numbers');
  });

  it('rejections: forged signature 112 with tx, malformed JSON 1, missing fields 1 with paths', async () => {
    const json = transfer(SECOND, THIRD.address, 7n, NOW + 9n).toJson();
    const forged = { ...json, amount: 8n };
    const r = expectError(await client.call('POST /transactions/broadcast', { body: forged }), 400, 112);
    assert.match(r['message'] as string, /^State check failed\. Reason: /);
    assert.equal((r['tx'] as Record<string, unknown>)['amount'], 8);

    const notJson = expectError(
      await client.request({ method: 'POST', url: '/transactions/broadcast', rawBody: '{"type": 4,', contentType: 'application/json' }),
      400,
      1,
      'failed to parse json message',
    );
    assert.deepEqual(notJson['validationErrors'], {});
    assert.equal(notJson['cause'], null);

    const { fee: _fee, ...noFee } = json;
    const missing = expectError(await client.call('POST /transactions/broadcast', { body: noFee }), 400, 1);
    assert.deepEqual(missing['validationErrors'], { 'obj.fee': [{ msg: ['error.path.missing'], args: [] }] });
    assert.equal(missing['field'], 'fee');

    const array = expectError(await client.call('POST /transactions/broadcast', { body: [json] }), 400, 1);
    assert.deepEqual(array['validationErrors'], { obj: [{ msg: ['error.expected.jsobject'], args: [] }] });

    expectError(await client.call('POST /transactions/broadcast', { body: { ...json, type: 1 } }), 400, 199);
    expectError(await client.call('POST /transactions/broadcast', { body: { ...json, version: 9 } }), 400, 199, 'Bad transaction type (4) and version (9)');
    const badCert = expectError(await client.call('POST /transactions/broadcast', { body: { ...json, certificates: ['%%%'] } }), 400, 121);
    assert.match(badCert['message'] as string, /^Error while parsing a certificate: Encountered an invalid Base64/);
    expectError(
      await client.call('POST /transactions/broadcast', { body: { ...json, certificates: ['AAAA'] } }),
      400,
      121,
      'Error while parsing a certificate: Expected a valid X.509 certificate in DER encoding',
    );
  });

  it("renders the pool's errors as they are", async () => {
    pool.refuseNext = new WeError('Mistiming', 303, `Transaction ts ${NOW} is from far future. BlockTime: 1`, 'timestamp');
    const json = transfer(SECOND, THIRD.address, 11n, NOW + 11n).toJson();
    const body = expectError(
      await client.call('POST /transactions/broadcast', { body: json }),
      400,
      303,
      `Transaction ts ${NOW} is from far future. BlockTime: 1`,
    );
    assert.equal(body['field'], 'timestamp');
  });

  it('no JSON entity: WE rejects the route (404 text)', async () => {
    for (const r of [
      await client.request({ method: 'POST', url: '/transactions/broadcast', rawBody: 'type=4', contentType: 'text/plain' }),
      await client.request({ method: 'POST', url: '/transactions/broadcast', rawBody: '', contentType: 'application/json' }),
      await client.request({ method: 'POST', url: '/transactions/broadcast' }),
    ]) {
      assert.equal(r.status, 404);
      assert.equal(r.text, 'The requested resource could not be found.');
    }
  });

  it('unconfirmed info errors', async () => {
    const r = await client.call('GET /transactions/unconfirmed/info/{id}', { params: { id: UNKNOWN_TX } });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { status: 'error', details: 'Transaction is not in UTX' });
    expectError(await client.call('GET /transactions/unconfirmed/info/{id}', { params: { id: '0' } }), 400, 101);
    expectError(await client.request({ method: 'GET', url: '/transactions/unconfirmed/info' }), 400, 101);
    expectError(await client.request({ method: 'GET', url: '/transactions/unconfirmed/info/' }), 400, 101);
    const listed = await client.call('GET /unconfirmed/info/{id}', { params: { id: UNKNOWN_TX } });
    assert.deepEqual([listed.status, listed.body], [404, { status: 'error', details: 'Transaction is not in UTX' }]);
    expectError(await client.call('GET /unconfirmed/info/{id}', { params: { id: '0' } }), 400, 101);
  });
});

describe('POST /transactions/sign', () => {
  const f = fixtureServer();
  after(() => f.app.close());
  const { client } = f;
  const p = protocol;

  const verify = (json: Record<string, unknown>, signer = SECOND) => {
    const tx = p.transactionFromJson(json);
    assert.ok(tx.hasValidSenderSignature() || p.crypto.verify(signer.keyPair.publicKey, tx.proofSourceBytes, tx.proofs[0]!), 'signature verifies');
    assert.equal(tx.idBase58, json['id']);
    return tx;
  };

  it('signs with the keystore key; node time, strictly increasing; password not echoed', async () => {
    const request = {
      type: 4,
      version: 3,
      sender: SECOND.address.toString(),
      password: 'secret',
      recipient: THIRD.address.toString(),
      amount: 100,
      fee: 1_000_000,
      assetId: null,
      feeAssetId: null,
      attachment: '',
    };
    const r1 = await client.call('POST /transactions/sign', { body: request, contentType: 'application/json;charset=UTF-8' });
    assert.equal(r1.status, 200, r1.text);
    const a = r1.body as Record<string, unknown>;
    verify(a);
    assert.equal(a['sender'], SECOND.address.toString());
    assert.equal(a['senderPublicKey'], b58(SECOND.keyPair.publicKey));
    assert.equal(a['timestamp'], Number(NOW));
    assert.equal(a['password'], undefined);
    assert.equal(a['atomicBadge'], null);
    const r2 = await client.call('POST /transactions/sign', { body: request });
    assert.equal((r2.body as Record<string, unknown>)['timestamp'], Number(NOW) + 1);
    const r3 = await client.call('POST /transactions/sign', { body: { ...request, timestamp: 1_700_000_123_456n, amount: BIG_AMOUNT } });
    const c = r3.body as Record<string, unknown>;
    assert.equal(c['timestamp'], 1_700_000_123_456);
    assert.equal(c['amount'], BIG_AMOUNT);
    assert.ok(r3.text.includes(`"amount":${BIG_AMOUNT}`));
    assert.equal(f.pool.txs.size, 0, 'sign does not broadcast');
  });

  it('115 for a wrong password or a key not in the keystore', async () => {
    const request = { type: 4, version: 3, recipient: THIRD.address.toString(), amount: 100, fee: 1_000_000 };
    const msg = 'no private key for sender address in wallet or provided password is incorrect';
    expectError(await client.call('POST /transactions/sign', { body: { ...request, sender: SECOND.address.toString(), password: 'wrong' } }), 400, 115, msg);
    expectError(await client.call('POST /transactions/sign', { body: { ...request, sender: SECOND.address.toString() } }), 400, 115, msg);
    expectError(await client.call('POST /transactions/sign', { body: { ...request, sender: OUTSIDER.address.toString() } }), 400, 115, msg);
  });

  it('request errors: missing sender 1, bad type/version 199, genesis types unsupported', async () => {
    const missing = expectError(await client.call('POST /transactions/sign', { body: { type: 4, version: 3, amount: 1 } }), 400, 1);
    assert.deepEqual(missing['validationErrors'], { 'obj.sender': [{ msg: ['error.path.missing'], args: [] }] });
    const noType = expectError(await client.call('POST /transactions/sign', { body: { sender: MINER.address.toString() } }), 400, 1);
    assert.deepEqual(noType['validationErrors'], { 'obj.type': [{ msg: ['error.path.missing'], args: [] }] });
    expectError(
      await client.call('POST /transactions/sign', { body: { type: 4, sender: MINER.address.toString() } }),
      400,
      199,
      'Bad transaction type (4) and version (1)',
    );
    expectError(await client.call('POST /transactions/sign', { body: { type: 1, sender: MINER.address.toString() } }), 400, 199, 'UnsupportedTransactionType');
    expectError(
      await client.call('POST /transactions/sign', { body: { type: 7, version: 2, sender: MINER.address.toString() } }),
      400,
      199,
      'UnsupportedTransactionType',
    );
    const noRecipient = expectError(
      await client.call('POST /transactions/sign', { body: { type: 4, version: 3, sender: MINER.address.toString(), amount: 1, fee: 1 } }),
      400,
      1,
    );
    assert.deepEqual(noRecipient['validationErrors'], { 'obj.recipient': [{ msg: ['error.path.missing'], args: [] }] });
    const badTs = expectError(
      await client.call('POST /transactions/sign', { body: { type: 4, version: 3, sender: MINER.address.toString(), timestamp: '12' } }),
      400,
      1,
    );
    assert.deepEqual(badTs['validationErrors'], { 'obj.timestamp': [{ msg: ['error.expected.jsnumber'], args: [] }] });
  });

  it('LeaseCancel reads txId; Burn reads quantity; CreateAlias; MassTransfer', async () => {
    const leaseId = b58(new Uint8Array(32).fill(3));
    const cancel = (
      await client.call('POST /transactions/sign', { body: { type: 9, version: 2, sender: MINER.address.toString(), txId: leaseId, fee: 1_000_000 } })
    ).body as Record<string, unknown>;
    assert.equal(cancel['leaseId'], leaseId);
    assert.equal(cancel['chainId'], protocol.chainId);
    verify(cancel, MINER);
    const noTxId = expectError(
      await client.call('POST /transactions/sign', { body: { type: 9, version: 2, sender: MINER.address.toString(), leaseId, fee: 1 } }),
      400,
      1,
    );
    assert.deepEqual(noTxId['validationErrors'], { 'obj.txId': [{ msg: ['error.path.missing'], args: [] }] });

    const assetId = b58(new Uint8Array(32).fill(4));
    const burn = (
      await client.call('POST /transactions/sign', { body: { type: 6, version: 2, sender: MINER.address.toString(), assetId, quantity: 5, fee: 1_000_000 } })
    ).body as Record<string, unknown>;
    assert.equal(burn['amount'], 5);
    verify(burn, MINER);
    const amountOnly = expectError(
      await client.call('POST /transactions/sign', { body: { type: 6, version: 2, sender: MINER.address.toString(), assetId, amount: 5, fee: 1 } }),
      400,
      1,
    );
    assert.deepEqual(amountOnly['validationErrors'], { 'obj.quantity': [{ msg: ['error.path.missing'], args: [] }] });

    const alias = (
      await client.call('POST /transactions/sign', { body: { type: 10, version: 2, sender: THIRD.address.toString(), alias: 'third', fee: 100_000_000 } })
    ).body as Record<string, unknown>;
    assert.equal(alias['alias'], 'third');
    verify(alias, THIRD);

    const mt = (
      await client.call('POST /transactions/sign', {
        body: {
          type: 11,
          version: 2,
          sender: MINER.address.toString(),
          transfers: [{ recipient: SECOND.address.toString(), amount: 1 }],
          fee: 5_000_000,
          attachment: '',
        },
      })
    ).body as Record<string, unknown>;
    assert.equal(mt['transferCount'], 1);
    verify(mt, MINER);
  });

  it('Atomic takes signed inner transactions and no fee', async () => {
    const inner = [1n, 2n].map((amount) =>
      p.sign(
        p.transactionFromJson(
          {
            type: 4,
            version: 3,
            senderPublicKey: b58(MINER.keyPair.publicKey),
            recipient: SECOND.address.toString(),
            amount,
            fee: 1_000_000n,
            timestamp: NOW,
            attachment: '',
            atomicBadge: {},
            proofs: [],
          },
          { forBroadcast: false },
        ),
        MINER.keyPair.privateKey,
      ),
    );
    const r = await client.call('POST /transactions/sign', {
      body: { type: 120, version: 1, sender: MINER.address.toString(), transactions: inner.map((t) => t.toJson()) },
    });
    assert.equal(r.status, 200, r.text);
    const atomic = r.body as Record<string, unknown>;
    assert.equal(atomic['type'], 120);
    assert.equal(atomic['fee'], 0);
    assert.deepEqual(
      (atomic['transactions'] as Array<{ id: string }>).map((t) => t.id),
      inner.map((t) => t.idBase58),
    );
    verify(atomic, MINER);
  });

  it('Data is signed by its author; another sender needs senderPublicKey', async () => {
    const data = [{ key: 'k', type: 'integer', value: 42 }];
    const own = (
      await client.call('POST /transactions/sign', {
        body: { type: 12, version: 2, sender: THIRD.address.toString(), author: THIRD.address.toString(), data, fee: 5_000_000 },
      })
    ).body as Record<string, unknown>;
    assert.equal(own['authorPublicKey'], b58(THIRD.keyPair.publicKey));
    assert.equal(own['senderPublicKey'], b58(THIRD.keyPair.publicKey));
    assert.equal(own['author'], THIRD.address.toString());
    verify(own, THIRD);

    expectError(
      await client.call('POST /transactions/sign', {
        body: { type: 12, version: 2, sender: MINER.address.toString(), author: THIRD.address.toString(), data, fee: 5_000_000 },
      }),
      400,
      199,
      'Expected a non-empty senderPublicKey field, because author was not the same as sender',
    );
    const other = (
      await client.call('POST /transactions/sign', {
        body: {
          type: 12,
          version: 2,
          sender: MINER.address.toString(),
          senderPublicKey: b58(MINER.keyPair.publicKey),
          author: THIRD.address.toString(),
          data,
          fee: 5_000_000,
        },
      })
    ).body as Record<string, unknown>;
    assert.equal(other['sender'], MINER.address.toString());
    assert.equal(other['author'], THIRD.address.toString());
    const tx = p.transactionFromJson(other);
    assert.ok(p.crypto.verify(THIRD.keyPair.publicKey, tx.proofSourceBytes, tx.proofs[0]!), "the author's signature");
    // The author's key must be in the keystore (the sender's is not needed).
    expectError(
      await client.call('POST /transactions/sign', {
        body: { type: 12, version: 2, sender: THIRD.address.toString(), author: OUTSIDER.address.toString(), data, fee: 1 },
      }),
      400,
      115,
    );
  });
});

describe('POST /transactions/signAndBroadcast', () => {
  const f = fixtureServer();
  after(() => f.app.close());

  it('signs with a node key and puts the transaction into the pool', async () => {
    const r = await f.client.call('POST /transactions/signAndBroadcast', {
      body: { type: 4, version: 2, sender: THIRD.address.toString(), recipient: SECOND.address.toString(), amount: 3, fee: 1_000_000 },
    });
    assert.equal(r.status, 200, r.text);
    const id = (r.body as { id: string }).id;
    assert.ok(f.pool.txs.has(id));
    assert.deepEqual(r.body, asClient(f.pool.txs.get(id)!.toJson()));
  });

  it('the errors of sign come first', async () => {
    expectError(
      await f.client.call('POST /transactions/signAndBroadcast', {
        body: { type: 4, version: 2, sender: OUTSIDER.address.toString(), recipient: SECOND.address.toString(), amount: 3, fee: 1 },
      }),
      400,
      115,
    );
  });
});

describe('watcher nodes refuse submissions (638) before reading the body', () => {
  const f = fixtureServer({ watcher: true });
  after(() => f.app.close());

  it('broadcast and signAndBroadcast are 403 638, reads still work', async () => {
    const message = "Sending transactions or data is disabled for node in 'Watcher' mode";
    expectError(await f.client.call('POST /transactions/broadcast', { body: transfer(SECOND, THIRD.address, 1n, NOW).toJson() }), 403, 638, message);
    expectError(
      await f.client.request({ method: 'POST', url: '/transactions/broadcast', rawBody: 'not json', contentType: 'application/json' }),
      403,
      638,
      message,
    );
    expectError(await f.client.call('POST /transactions/signAndBroadcast', { body: { type: 4 } }), 403, 638, message);
    assert.equal(
      (
        await f.client.call('POST /transactions/sign', {
          body: { type: 4, version: 3, sender: SECOND.address.toString(), password: 'secret', recipient: THIRD.address.toString(), amount: 1, fee: 1 },
        })
      ).status,
      200,
    );
    assert.equal(f.pool.txs.size, 0);
  });
});

describe('POST /transactions/calculateFee', () => {
  const f = fixtureServer();
  after(() => f.app.close());

  it("gives the chain's minimal fee; sender, fee, timestamp are not needed", async () => {
    const r = await f.client.call('POST /transactions/calculateFee', { body: { type: 4, version: 3, recipient: SECOND.address.toString(), amount: 1 } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { feeAssetId: null, feeAmount: 1_000_000 });
    const mt = await f.client.call('POST /transactions/calculateFee', {
      body: {
        type: 11,
        version: 1,
        transfers: [1, 2, 3].map((amount) => ({ recipient: SECOND.address.toString(), amount })),
        sender: OUTSIDER.address.toString(),
        fee: 1,
      },
    });
    assert.deepEqual(mt.body, { feeAssetId: null, feeAmount: 5_000_000 + 2 * 1_000_000 });
    const data = await f.client.request({
      method: 'POST',
      url: '/transactions/calculateFee/',
      body: { type: 12, version: 1, author: OUTSIDER.address.toString(), data: [] },
    });
    assert.deepEqual(data.body, { feeAssetId: null, feeAmount: 5_000_000 });
  });

  it('request errors', async () => {
    const missing = expectError(await f.client.call('POST /transactions/calculateFee', { body: { type: 4, version: 3, amount: 1 } }), 400, 1);
    assert.deepEqual(missing['validationErrors'], { 'obj.recipient': [{ msg: ['error.path.missing'], args: [] }] });
    expectError(await f.client.call('POST /transactions/calculateFee', { body: { type: 4, version: 3, recipient: 'bad', amount: 1 } }), 400, 102);
    expectError(
      await f.client.call('POST /transactions/calculateFee', { body: { type: 4, version: 1, recipient: SECOND.address.toString(), amount: 1 } }),
      400,
      199,
      'Bad transaction type (4) and version (1)',
    );
    expectError(await f.client.call('POST /transactions/calculateFee', { body: { type: 101 } }), 400, 199, 'UnsupportedTransactionType');
    const asset = b58(new Uint8Array(32).fill(1));
    expectError(
      await f.client.call('POST /transactions/calculateFee', {
        body: { type: 4, version: 3, recipient: SECOND.address.toString(), amount: 1, feeAssetId: asset },
      }),
      400,
      199,
      `Asset '${asset}' does not exist, cannot be used to pay fees`,
    );
  });
});
