/**
 * `/contracts/*` over HTTP (Fastify inject) against a contract state built by real
 * executions — a WASM counter created and called, its 105s applied — and the engine's
 * status book: shapes, WE's codes and messages for bad input, and the typed client.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { apiClient } from '../../src/api/client.js';
import { ROUTE_GROUPS } from '../../src/api/routes/index.js';
import { createApiServer } from '../../src/api/server.js';
import type { ApiServices, ChainReader } from '../../src/api/services.js';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { contractsService } from '../../src/contracts/service.js';
import { statusMessageBytes } from '../../src/contracts/statuses.js';
import type { CallContractTransaction, ExecutableContractTransaction } from '../../src/protocol/transactions/contracts.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { fixtureChain } from '../api/fixture.js';
import { inject } from '../api/inject.js';
import { callV7, createV7, fund, node, protocol, startTestEngine, type TestEngine } from '../../devkit/contracts/engine.js';
import { wasmFixture } from '../../devkit/contracts/wasm-fixtures.js';

const counterWasm = await wasmFixture('counter');

describe('/contracts/*', () => {
  let te: TestEngine;
  let app: ReturnType<typeof createApiServer>;
  let contractId: string;
  let call: CallContractTransaction;
  let executedId: string;
  const mined = new Map<string, Transaction>();

  before(async () => {
    te = await startTestEngine();
    fund(te.state);
    const run = async (tx: ExecutableContractTransaction): Promise<void> => {
      const built = te.mine(tx, await te.execute(tx));
      assert.equal(built.kind, 'built');
      if (built.kind === 'built') mined.set(built.executed.idBase58, built.executed);
    };
    const create = createV7({ engine: 'wasm', bytecode: counterWasm, bytecodeHash: createHash('sha256').update(counterWasm).digest('hex') }, [
      { key: 'start', type: 'integer', value: 7n },
    ]);
    await run(create);
    contractId = create.idBase58;
    call = callV7(create.id, 'wasm', 'label', [{ key: 'text', type: 'string', value: 'hello' }]);
    await run(call);
    executedId = encodeBase58(te.state.executedTxFor(call.id)!);
    te.state.addBalance(create.id, null, 12_345n);
    te.state.addLeaseBalance(create.id, 0n, 2_345n);
    te.engine.statuses.record(call.id, { status: 'Success', code: null, message: 'Contract transaction successfully mined' });

    const fixture = fixtureChain();
    const chain = fixture.services.chain;
    const chainWithExecuted: ChainReader = {
      height: () => chain.height(),
      blockAt: (h) => chain.blockAt(h),
      blockHeaderAt: (h) => chain.blockHeaderAt(h),
      blockTransactionsAt: (h) => chain.blockTransactionsAt(h),
      blockById: (id) => chain.blockById(id),
      childOf: (id) => chain.childOf(id),
      transaction: (id) => {
        const tx = mined.get(encodeBase58(id));
        return tx === undefined ? chain.transaction(id) : { tx, height: 2 };
      },
      addressTransactions: (a, l, after) => chain.addressTransactions(a, l, after),
      state: () => chain.state(),
      minimalFee: (tx) => chain.minimalFee(tx),
    };
    const services: ApiServices = { ...fixture.services, chain: chainWithExecuted, contracts: contractsService(() => te.state, te.engine.statuses) };
    app = createApiServer(services, { logger: false });
  });
  after(async () => {
    await app?.close();
    await te?.close();
  });

  it('lists contracts and shows one', async () => {
    const list = await inject(app, 'GET', '/contracts');
    assert.equal(list.status, 200);
    assert.equal(list.json.length, 1);
    const info = await inject(app, 'GET', `/contracts/info/${contractId}`);
    assert.equal(info.status, 200);
    assert.deepEqual(info.json, list.json[0]);
    assert.equal(info.json.contractId, contractId);
    assert.equal(info.json.creator, encodeBase58(protocol.crypto.keyPairFromSeedPhrase('weft contract tests developer').publicKey));
    assert.deepEqual(info.json.storedContract, {
      bytecode: Buffer.from(counterWasm).toString('base64'),
      bytecodeHash: createHash('sha256').update(counterWasm).digest('hex'),
    });
    assert.equal(info.json.version, 1);
    assert.equal(info.json.active, true);
    assert.deepEqual(info.json.validationPolicy, { type: 'any' });
    const missing = await inject(app, 'GET', '/contracts/info/not-an-id');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.json, { error: 600, message: "Contract 'not-an-id' is not found", field: 'contractId' });
  });

  it('reads state: all keys, filtered and paged, by key list, one key', async () => {
    const all = await inject(app, 'GET', `/contracts/${contractId}`);
    assert.deepEqual(all.json, [
      { key: 'counter', type: 'integer', value: 7 },
      { key: 'label', type: 'string', value: 'hello' },
    ]);
    assert.deepEqual((await inject(app, 'GET', `/contracts/${contractId}?matches=l.*`)).json, [{ key: 'label', type: 'string', value: 'hello' }]);
    assert.deepEqual((await inject(app, 'GET', `/contracts/${contractId}?offset=1&limit=1`)).json, [{ key: 'label', type: 'string', value: 'hello' }]);
    // js-sdk 3.4.7's contracts.get(id) sends offset=0&limit=50: WE 1.14 refuses it, Weft serves it (docs/we-compatibility.md).
    assert.deepEqual((await inject(app, 'GET', `/contracts/${contractId}?offset=0&limit=50`)).json, all.json);
    const badPaging = await inject(app, 'GET', `/contracts/${contractId}?offset=-1&limit=x`);
    assert.equal(badPaging.status, 400);
    assert.equal(badPaging.json.error, 199);
    assert.match(badPaging.json.message, /Invalid parameters: \['-1' must be non-negative, Unable to parse Integer from 'x'\]/);
    const zeroLimit = await inject(app, 'GET', `/contracts/${contractId}?offset=0&limit=0`);
    assert.match(zeroLimit.json.message, /Invalid parameters: \['0' must be positive\]/);
    const badRegex = await inject(app, 'GET', `/contracts/${contractId}?matches=${encodeURIComponent('([')}`);
    assert.deepEqual([badRegex.status, badRegex.json.error], [400, 629]);
    const byKeys = await inject(app, 'POST', `/contracts/${contractId}`, { body: { keys: ['label', 'nothing', 'label'] } });
    assert.deepEqual(byKeys.json, [{ key: 'label', type: 'string', value: 'hello' }]);
    const tooMany = await inject(app, 'POST', `/contracts/${contractId}`, { body: { keys: Array.from({ length: 101 }, (_, i) => `k${i}`) } });
    assert.deepEqual([tooMany.status, tooMany.json.error], [400, 10]);
    const several = await inject(app, 'POST', '/contracts', { body: { contracts: [contractId, contractId] } });
    assert.deepEqual(Object.keys(several.json), [contractId]);
    assert.equal(several.json[contractId].length, 2);
    const one = await inject(app, 'GET', `/contracts/${contractId}/counter`);
    assert.deepEqual(one.json, { key: 'counter', type: 'integer', value: 7 });
    const absent = await inject(app, 'GET', `/contracts/${contractId}/absent`);
    assert.deepEqual([absent.status, absent.json.error, absent.json.message], [404, 304, 'no data for this key: absent']);
    const malformed = await inject(app, 'POST', '/contracts', { body: { contracts: 'x' } });
    assert.deepEqual([malformed.status, malformed.json.error], [400, 1]);
  });

  it('finds the 105 of an executable transaction, and its statuses', async () => {
    const executed = await inject(app, 'GET', `/contracts/executed-tx-for/${call.idBase58}`);
    assert.equal(executed.status, 200);
    assert.equal(executed.json.type, 105);
    assert.equal(executed.json.id, executedId);
    assert.equal(executed.json.tx.id, call.idBase58);
    assert.deepEqual(executed.json.resultsMap, { [contractId]: [{ key: 'label', type: 'string', value: 'hello' }] });
    const none = await inject(app, 'GET', `/contracts/executed-tx-for/${contractId.slice(0, 20)}`);
    assert.deepEqual([none.status, none.json.error], [404, 601]);
    const bad = await inject(app, 'GET', '/contracts/executed-tx-for/0OIl');
    assert.deepEqual([bad.status, bad.json.error, bad.json.message], [400, 199, "Failed to decode base58 transaction id value '0OIl'"]);

    const statuses = await inject(app, 'GET', `/contracts/status/${call.idBase58}`);
    assert.equal(statuses.status, 200);
    assert.equal(statuses.json.length, 1);
    const [s] = statuses.json;
    assert.deepEqual(
      { ...s, timestamp: undefined, signature: undefined },
      {
        sender: protocol.addresses.fromPublicKey(node.publicKey).toString(),
        senderPublicKey: encodeBase58(node.publicKey),
        txId: call.idBase58,
        status: 'Success',
        code: null,
        message: 'Contract transaction successfully mined',
        timestamp: undefined,
        signature: undefined,
      },
    );
    const signed = statusMessageBytes({
      senderPublicKey: node.publicKey,
      txId: call.id,
      status: 'Success',
      code: null,
      message: s.message,
      timestamp: BigInt(s.timestamp),
    });
    assert.ok(protocol.crypto.verify(node.publicKey, signed, decodeBase58(s.signature)), 'signed by the node');
    const unknown = await inject(app, 'GET', `/contracts/status/${contractId}`);
    assert.deepEqual([unknown.status, unknown.json.error], [404, 605]);
  });

  it('answers balances: WEST, an asset, several, details', async () => {
    assert.deepEqual((await inject(app, 'GET', `/contracts/balance/${contractId}`)).json, { assetId: '', balance: '12345', decimals: 8 });
    assert.deepEqual((await inject(app, 'GET', `/contracts/balance/details/${contractId}`)).json, {
      contractId,
      regular: 12345,
      leasedOut: 2345,
      available: 10000,
    });
    const unknownAsset = await inject(app, 'GET', `/contracts/asset-balance/${contractId}/${contractId}`);
    assert.deepEqual([unknownAsset.status, unknownAsset.json.error], [400, 118]);
    const notBase58 = await inject(app, 'POST', '/contracts/asset-balances', { body: { contractId, assetIds: ['0OIl'] } });
    assert.deepEqual([notBase58.status, notBase58.json.error], [400, 199]);
    const noContract = await inject(app, 'GET', '/contracts/balance/unknown');
    assert.deepEqual([noContract.status, noContract.json.error], [404, 600]);
  });

  it('is in the typed client', async () => {
    const client = apiClient(app, ROUTE_GROUPS);
    const answer = await client.call('GET /contracts/info/{contractId}', { params: { contractId } });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.contractId, contractId);
    const balance = await client.call('GET /contracts/balance/{contractId}', { params: { contractId } });
    assert.equal(balance.body.balance, '12345');
  });
});
