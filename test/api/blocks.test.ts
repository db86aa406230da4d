import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { produceMicroBlock } from '../../src/protocol/blocks.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { BIG_AMOUNT, MINER, SECOND, fixtureServer, protocol } from './fixture.js';
import { expectError } from './inject.js';

const f = fixtureServer();
after(() => f.app.close());
const { client, blocks, liquidIds, liquidKeyBlock, txs } = f;

/** The node's JSON of a value, as a client parses it. */
const asClient = (v: unknown): unknown => parseJson(stringifyJson(v));

const b58 = encodeBase58;
const UNKNOWN_ID = b58(new Uint8Array(64).fill(7));

describe('GET /blocks/height and /blocks/height/{signature}', () => {
  it('counts the liquid block', async () => {
    const r = await client.call('GET /blocks/height');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { height: 4 });
  });

  it('finds key blocks and every id of the liquid block', async () => {
    assert.deepEqual((await client.call('GET /blocks/height/{signature}', { params: { signature: blocks[1]!.idBase58 } })).body, { height: 2 });
    for (const id of liquidIds) {
      assert.deepEqual((await client.call('GET /blocks/height/{signature}', { params: { signature: b58(id) } })).body, { height: 4 });
    }
  });

  it('101 for a malformed or over-long id, 301 for an unknown one', async () => {
    expectError(await client.call('GET /blocks/height/{signature}', { params: { signature: '0OIl' } }), 400, 101, 'invalid signature');
    expectError(await client.call('GET /blocks/height/{signature}', { params: { signature: '2'.repeat(89) } }), 400, 101, 'invalid signature');
    expectError(
      await client.call('GET /blocks/height/{signature}', { params: { signature: UNKNOWN_ID } }),
      404,
      301,
      `block with signature '${UNKNOWN_ID}' does not exist`,
    );
  });
});

describe('GET /blocks/first, /blocks/last, /blocks/headers/last', () => {
  it('first is the genesis block with height 1, amounts exact past 2^53', async () => {
    const r = await client.call('GET /blocks/first');
    assert.equal(r.status, 200);
    const genesis = blocks[0]!;
    assert.deepEqual(r.body, asClient({ ...genesis.toJson(), height: 1 }));
    const body = r.body as Record<string, unknown>;
    assert.equal(body['version'], 4);
    assert.equal(body['senderRoleEnabled'], false);
    assert.equal(body['reference'], b58(new Uint8Array(64).fill(0xff)));
    assert.deepEqual(body['poa-consensus'], { 'overall-skipped-rounds': 0 });
    assert.equal(body['blocksize'], genesis.bytes.length);
    assert.equal(body['transactionCount'], 7);
    assert.equal(body['generator'], MINER.address.toString());
    assert.ok(r.text.includes(`"amount":${BIG_AMOUNT}`), 'int64 amount written as a bare exact number');
    assert.equal((body['transactions'] as Array<{ amount: bigint }>)[0]!.amount, BIG_AMOUNT);
  });

  it('last is the liquid block as assembled so far, plain transaction JSON', async () => {
    const r = await client.call('GET /blocks/last');
    const body = r.body as Record<string, unknown>;
    assert.equal(body['signature'], b58(liquidIds[1]!));
    assert.equal(body['height'], 4);
    assert.equal(body['transactionCount'], 2);
    assert.deepEqual(
      (body['transactions'] as Array<{ id: string }>).map((t) => t.id),
      [txs.liquidTransfer.idBase58, txs.microTransfer.idBase58],
    );
    assert.deepEqual(r.body, asClient({ ...blocks[3]!.toJson(), height: 4 }));
    assert.deepEqual(Object.keys(body).slice(0, 6), ['version', 'timestamp', 'reference', 'generator', 'signature', 'poa-consensus']);
  });

  it('last after a further micro-block is the grown liquid block, in both int64 renderings', async () => {
    const served = blocks[3]!;
    assert.equal((await client.call('GET /blocks/last')).status, 200);
    const { liquidBlock: grown } = produceMicroBlock(
      protocol,
      served,
      { transactions: [txs.lease] },
      { timestamp: served.timestamp + 100n, privateKey: MINER.keyPair.privateKey, modifiedTotalSign: false },
    );
    blocks[3] = grown;
    try {
      const r = await client.call('GET /blocks/last');
      assert.equal(r.text, stringifyJson({ ...grown.toJson(), height: 4 }));
      assert.equal((r.body as { transactionCount: number }).transactionCount, 3);
      const asStrings = await client.request({ method: 'GET', url: '/blocks/last', headers: { accept: 'application/json;large-significand-format=string' } });
      assert.equal(asStrings.text, stringifyJson({ ...grown.toJson(), height: 4 }, { int64AsString: true }));
    } finally {
      blocks[3] = served;
    }
  });

  it('headers/last has no transactions, but the block fee', async () => {
    const r = await client.call('GET /blocks/headers/last');
    const body = r.body as Record<string, unknown>;
    assert.deepEqual(r.body, asClient({ ...blocks[3]!.headerJson(), fee: blocks[3]!.fee, height: 4 }));
    assert.equal(body['transactions'], undefined);
    assert.ok(blocks[3]!.fee > 0n, 'the liquid block of the fixture pays fees');
    assert.equal(body['fee'], Number(blocks[3]!.fee));
    assert.equal(body['transactionCount'], 2);
    assert.deepEqual(body['features'], []);
  });
});

describe('GET /blocks/at/{height} and /blocks/headers/at/{height}', () => {
  it('gives extended transaction JSON: lease status, cancelled lease', async () => {
    const at2 = (await client.call('GET /blocks/at/{height}', { params: { height: 2 } })).body as {
      transactions: Array<Record<string, unknown>>;
      height: number;
    };
    assert.equal(at2.height, 2);
    const lease = at2.transactions.find((t) => t['id'] === txs.lease.idBase58)!;
    const active = at2.transactions.find((t) => t['id'] === txs.activeLease.idBase58)!;
    assert.equal(lease['status'], 'canceled');
    assert.equal(active['status'], 'active');
    const at3 = (await client.call('GET /blocks/at/{height}', { params: { height: 3 } })).body as { transactions: Array<Record<string, unknown>> };
    const cancel = at3.transactions.find((t) => t['id'] === txs.leaseCancel.idBase58)!;
    assert.deepEqual(cancel['lease'], asClient(txs.lease.toJson()));
    assert.equal(cancel['leaseId'], txs.lease.idBase58);
  });

  it('a height without a block: 200 status/details', async () => {
    for (const route of ['GET /blocks/at/{height}', 'GET /blocks/headers/at/{height}'] as const) {
      const r = await client.call(route, { params: { height: 5 } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { status: 'error', details: 'No block for this height' });
    }
  });

  it('heights are read as Java reads an int', async () => {
    expectError(await client.call('GET /blocks/at/{height}', { params: { height: 0 } }), 400, 199, "Invalid parameter: '0' must be positive");
    expectError(await client.call('GET /blocks/at/{height}', { params: { height: -3 } }), 400, 199, "Invalid parameter: '-3' must be positive");
    expectError(await client.call('GET /blocks/at/{height}', { params: { height: 'abc' } }), 400, 199, "Invalid parameter: Unable to parse Integer from 'abc'");
    expectError(await client.call('GET /blocks/at/{height}', { params: { height: '1e3' } }), 400, 199, "Invalid parameter: Unable to parse Integer from '1e3'");
    expectError(
      await client.call('GET /blocks/at/{height}', { params: { height: '2147483648' } }),
      400,
      199,
      "Invalid parameter: Unable to parse Integer from '2147483648'",
    );
    expectError(await client.call('GET /blocks/headers/at/{height}', { params: { height: 0 } }), 400, 199, "Invalid parameter: '0' must be positive");
    const plus = await client.call('GET /blocks/at/{height}', { params: { height: '+2' } });
    assert.equal((plus.body as { height: number }).height, 2);
  });

  it('headers/at gives the header and height', async () => {
    const r = await client.call('GET /blocks/headers/at/{height}', { params: { height: 3 } });
    assert.deepEqual(r.body, asClient({ ...blocks[2]!.headerJson(), fee: blocks[2]!.fee, height: 3 }));
    assert.deepEqual((r.body as Record<string, unknown>)['poa-consensus'], { 'overall-skipped-rounds': 1 });
  });
});

describe('GET /blocks/seq, /blocks/seqext, /blocks/headers/seq', () => {
  it('gives the blocks in range with heights, skipping missing heights', async () => {
    const r = await client.call('GET /blocks/seq/{from}/{to}', { params: { from: 1, to: 4 } });
    assert.deepEqual(r.body, asClient(blocks.map((b, i) => ({ ...b.toJson(), height: i + 1 }))));
    const tail = (await client.call('GET /blocks/seq/{from}/{to}', { params: { from: 3, to: 50 } })).body as Array<{ height: number }>;
    assert.deepEqual(
      tail.map((b) => b.height),
      [3, 4],
    );
  });

  it('seq gives plain transaction JSON, seqext the extended one', async () => {
    const plain = (await client.call('GET /blocks/seq/{from}/{to}', { params: { from: 2, to: 2 } })).body as Array<{
      transactions: Array<Record<string, unknown>>;
    }>;
    assert.equal(plain[0]!.transactions.find((t) => t['id'] === txs.lease.idBase58)!['status'], undefined);
    const ext = (await client.call('GET /blocks/seqext/{from}/{to}', { params: { from: 2, to: 3 } })).body as Array<{
      transactions: Array<Record<string, unknown>>;
    }>;
    assert.equal(ext[0]!.transactions.find((t) => t['id'] === txs.lease.idBase58)!['status'], 'canceled');
    assert.ok(ext[1]!.transactions.find((t) => t['id'] === txs.leaseCancel.idBase58)!['lease'] !== undefined);
  });

  it('headers/seq gives headers', async () => {
    const r = await client.call('GET /blocks/headers/seq/{from}/{to}', { params: { from: 1, to: 2 } });
    assert.deepEqual(
      r.body,
      asClient([
        { ...blocks[0]!.headerJson(), fee: 0n, height: 1 },
        { ...blocks[1]!.headerJson(), fee: blocks[1]!.fee, height: 2 },
      ]),
    );
    assert.ok(blocks[1]!.fee > 0n);
  });

  it('range errors: 199 for a reversed range, 10 beyond 100 blocks, plural ValidInt wording', async () => {
    for (const route of ['GET /blocks/seq/{from}/{to}', 'GET /blocks/seqext/{from}/{to}', 'GET /blocks/headers/seq/{from}/{to}'] as const) {
      expectError(await client.call(route, { params: { from: 3, to: 2 } }), 400, 199, "Invalid interval: end '2' less than start '3'");
      expectError(await client.call(route, { params: { from: 1, to: 101 } }), 400, 10, 'Too big sequences requested');
      assert.equal((await client.call(route, { params: { from: 1, to: 100 } })).status, 200);
      expectError(await client.call(route, { params: { from: 0, to: -1 } }), 400, 199, "Invalid parameters: ['0' must be positive, '-1' must be positive]");
      expectError(await client.call(route, { params: { from: 'x', to: 2 } }), 400, 199, "Invalid parameters: [Unable to parse Integer from 'x']");
      expectError(await client.call(route, { params: { from: 1, to: 0 } }), 400, 199, "Invalid parameters: ['0' must be positive]");
    }
  });
});

describe('GET /blocks/signature/{signature} and /blocks/child/{signature}', () => {
  it('a block by id, with its height', async () => {
    const r = await client.call('GET /blocks/signature/{signature}', { params: { signature: blocks[2]!.idBase58 } });
    assert.deepEqual(r.body, asClient({ ...blocks[2]!.toJson(), height: 3 }));
  });

  it('an intermediate liquid id gives the liquid block as assembled up to it, at the current height', async () => {
    const r = await client.call('GET /blocks/signature/{signature}', { params: { signature: b58(liquidIds[0]!) } });
    assert.deepEqual(r.body, asClient({ ...liquidKeyBlock.toJson(), height: 4 }));
    assert.equal((r.body as { transactionCount: number }).transactionCount, 1);
  });

  it('signature errors', async () => {
    expectError(await client.call('GET /blocks/signature/{signature}', { params: { signature: UNKNOWN_ID } }), 404, 301);
    expectError(await client.call('GET /blocks/signature/{signature}', { params: { signature: 'l' } }), 400, 101);
    expectError(await client.call('GET /blocks/signature/{signature}', { params: { signature: '2'.repeat(89) } }), 400, 101);
  });

  it('child: the next block with its height; none after the top', async () => {
    const r = await client.call('GET /blocks/child/{signature}', { params: { signature: blocks[0]!.idBase58 } });
    assert.deepEqual(r.body, asClient({ ...blocks[1]!.toJson(), height: 2 }));
    const second = await client.call('GET /blocks/child/{signature}', { params: { signature: blocks[1]!.idBase58 } });
    assert.deepEqual(second.body, asClient({ ...blocks[2]!.toJson(), height: 3 }));
    const top = await client.call('GET /blocks/child/{signature}', { params: { signature: b58(liquidIds[1]!) } });
    assert.equal(top.status, 200);
    assert.deepEqual(top.body, { status: 'error', details: 'No child blocks' });
    expectError(await client.call('GET /blocks/child/{signature}', { params: { signature: UNKNOWN_ID } }), 404, 301);
    expectError(await client.call('GET /blocks/child/{signature}', { params: { signature: '0' } }), 400, 101);
  });
});

describe('GET /blocks/address/{address}/{from}/{to}', () => {
  it('gives the blocks the address produced, compared as text', async () => {
    const mine = (await client.call('GET /blocks/address/{address}/{from}/{to}', { params: { address: MINER.address.toString(), from: 1, to: 10 } }))
      .body as Array<{ height: number }>;
    assert.deepEqual(
      mine.map((b) => b.height),
      [1, 2, 3, 4],
    );
    assert.deepEqual(
      (await client.call('GET /blocks/address/{address}/{from}/{to}', { params: { address: SECOND.address.toString(), from: 1, to: 4 } })).body,
      [],
    );
    assert.deepEqual((await client.call('GET /blocks/address/{address}/{from}/{to}', { params: { address: 'not-an-address', from: 1, to: 4 } })).body, []);
  });

  it('any invalid range is 10; bad heights are 199', async () => {
    const a = MINER.address.toString();
    expectError(await client.call('GET /blocks/address/{address}/{from}/{to}', { params: { address: a, from: 3, to: 2 } }), 400, 10);
    expectError(await client.call('GET /blocks/address/{address}/{from}/{to}', { params: { address: a, from: 1, to: 101 } }), 400, 10);
    expectError(
      await client.call('GET /blocks/address/{address}/{from}/{to}', { params: { address: a, from: 0, to: 2 } }),
      400,
      199,
      "Invalid parameters: ['0' must be positive]",
    );
  });
});
