/**
 * Contracts in a running node: the dev chain started in-process (Node.start on its
 * config) with the key-value SDK contract (`@wavesenterprise/contract-core`, its code
 * unchanged) configured as a local package, and a WASM contract (no package needed). Transactions go in over REST as a client sends
 * them; the node's miner executes them, mines their ExecutedContract (105) and the chain
 * applies it; everything is read back over REST.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import wabtInit from 'wabt';
import { packageTreeDigest } from '../../src/contracts/package-digest.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { CreateContract, DisableContract, UpdateContract } from '../../src/protocol/transactions/contracts.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { Transfer } from '../../src/protocol/transactions/transfer.js';
import { devAccounts, devNodeConfig } from '../../src/cli/dev.js';
import type { NodeConfig } from '../../src/node/config.js';
import { Node } from '../../src/node/node.js';
import { httpRequest } from '../../devkit/http.js';
import { tempDir } from '../../devkit/tmp.js';
import { callV7, createTx, createV7, timestampsFrom } from '../../devkit/contracts/engine.js';
import { buildKvSdkPackage, REPO_ROOT } from '../../devkit/contracts/sdk-package.js';
import { kvParams, nodeContractsClient } from './support/node-client.js';
import * as grpc from '@grpc/grpc-js';
import {
  ContractExecutionResponse_Status,
  ContractStatusServiceClient,
  type ContractExecutionResponse,
} from '@wavesenterprise/js-contract-grpc-client/util/util_contract_status_service.js';
import { freeLoopbackPort } from '../../src/cli/devnet.js';

const IMAGE = 'registry.weft.test/kv-sdk:1.0';
const IMAGE_2 = 'registry.weft.test/kv-sdk:2.0';
/** Generous: the first execution starts the contract process and its SDK workers. */
const WAIT_MS = 90_000;

describe('contracts in a running node (dev chain, process runtime)', () => {
  let node: Node;
  let config: NodeConfig;
  let owner: KeyPair;
  /** The contract the lifecycle test created, disabled at its end. */
  let contract: Transaction | undefined;
  let imageHash: string;
  let grpcPort: number;
  // Made here, not in before(): a tempDir registers its removal with the context it is made in.
  const packages = tempDir('weft-node-contracts-pkg-');
  const dataDir = tempDir('weft-node-contracts-');

  const { rest, until, sign, broadcast, executed, statuses, call, createKv: kvContract } = nodeContractsClient(() => ({ node, owner }), WAIT_MS);
  const params = kvParams;

  /** A CreateContract V5 of the key-value contract, its counter starting at `start`. */
  const createKv = (start: number): Transaction => kvContract(IMAGE, imageHash, start);

  /** A CreateContract V7 of the WASM counter fixture, starting at `start`. */
  const createWasmCounter = async (start: bigint): Promise<Transaction> => {
    const m = (await wabtInit()).parseWat('counter.wat', readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'wasm', 'counter.wat'), 'utf8'), {
      multi_value: true,
    });
    const bytecode = Uint8Array.from(m.toBinary({}).buffer);
    m.destroy();
    timestampsFrom(BigInt(Date.now()));
    return createV7(
      { engine: 'wasm', bytecode, bytecodeHash: createHash('sha256').update(bytecode).digest('hex') },
      [{ key: 'start', type: 'integer', value: start }],
      owner,
    );
  };

  before(async () => {
    const dir = await buildKvSdkPackage(packages);
    imageHash = await packageTreeDigest(dir);
    grpcPort = await freeLoopbackPort();
    config = await devNodeConfig({
      dataDir,
      restPort: 0,
      p2pPort: 0,
      grpcPort,
      keystore: { scrypt: { N: 1024, r: 8, p: 1 } },
      contractPackages: [IMAGE, IMAGE_2].map((image) => ({ image, runtime: 'process' as const, source: dir, command: undefined, env: {}, instances: 2 })),
    });
    node = await Node.start(config, { logger: pino({ level: process.env['WEFT_TEST_LOG'] ?? 'silent' }) });
    owner = devAccounts(node.protocol)[0]!.keyPair;
  });

  after(() => node?.stop());

  it('answers /contracts with the chain’s contracts, none before the first', async () => {
    const r = await rest('GET', '/contracts');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, []);
  });

  it('creates, calls, fails, updates and disables an SDK contract, its state and statuses read over REST', async () => {
    // Create.
    const create = createKv(5);
    await broadcast(create);
    const createdBy = await executed(create);
    assert.equal(createdBy['type'], 105);
    assert.equal((createdBy['tx'] as Record<string, unknown>)['id'], create.idBase58);
    assert.deepEqual(createdBy['results'], [{ key: 'counter', type: 'integer', value: 5 }]);
    contract = create;
    const contractId = create.idBase58;
    const info = await rest('GET', `/contracts/info/${contractId}`);
    assert.equal(info.status, 200, info.text);
    assert.equal((info.json as Record<string, unknown>)['active'], true);
    assert.equal((info.json as Record<string, unknown>)['version'], 1);
    assert.deepEqual(
      ((await rest('GET', '/contracts')).json as Array<Record<string, unknown>>).map((c) => c['contractId']),
      [contractId],
    );
    const created = (await statuses(create, 'Success')).find((s) => s['status'] === 'Success')!;
    assert.equal(created['message'], 'Contract transaction successfully mined');
    assert.equal(created['senderPublicKey'], encodeBase58(owner.publicKey));

    // (The calls go into a later block than the create, so that rolling them back below keeps the contract.)
    const createdAt = ((await rest('GET', `/transactions/info/${String(createdBy['id'])}`)).json as Record<string, unknown>)['height'] as number;
    await until(
      'a block after the create',
      async () => (((await rest('GET', '/blocks/height')).json as Record<string, unknown>)['height'] as number) > createdAt || undefined,
    );

    // Several calls, each on the state the one before left; a mined call leaves the pool.
    let last = create;
    for (const by of [1, 2, 3]) {
      last = call(create.id, { action: 'increment', by });
      await broadcast(last);
      await executed(last);
      await statuses(last, 'Success');
      assert.equal((await rest('GET', `/transactions/unconfirmed/info/${last.idBase58}`)).status, 404);
    }
    const counter = await rest('GET', `/contracts/${contractId}/counter`);
    assert.deepEqual(counter.json, { key: 'counter', type: 'integer', value: 11 });

    // Rolled back with its block (and whatever else that block held), the last call goes back to the pool and is executed again: the same state.
    const lastExecuted = await executed(last);
    const minedAt = ((await rest('GET', `/transactions/info/${String(lastExecuted['id'])}`)).json as Record<string, unknown>)['height'] as number;
    const rolledBack = await rest('POST', '/debug/rollback', JSON.stringify({ rollbackTo: minedAt - 1, returnTransactionsToUtx: true }));
    assert.equal(rolledBack.status, 200, rolledBack.text);
    assert.equal((await rest('GET', `/contracts/executed-tx-for/${last.idBase58}`)).status, 404, 'the rollback undid the call');
    await until('the last call executed again', async () => {
      const again = await rest('GET', `/contracts/${contractId}/counter`);
      return (again.json as Record<string, unknown>)['value'] === 11 && (await rest('GET', `/contracts/executed-tx-for/${last.idBase58}`)).status === 200
        ? true
        : undefined;
    });
    const all = await rest('GET', `/contracts/${contractId}`);
    assert.deepEqual(all.json, [
      { key: 'counter', type: 'integer', value: 11 },
      { key: 'last', type: 'integer', value: 8 },
      { key: 'missing', type: 'string', value: 'undefined' },
    ]);
    // A token for the contract's read-only gRPC calls, from the running engine.
    const auth = await rest('POST', '/debug/createGrpcAuth', JSON.stringify({ contractId }));
    assert.equal(auth.status, 200, auth.text);
    assert.match(String((auth.json as Record<string, unknown>)['token']), /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const paged = await rest('GET', `/contracts/${contractId}?offset=1&limit=1`);
    assert.deepEqual(paged.json, [{ key: 'last', type: 'integer', value: 8 }]);

    // A throwing action: Error with its message, no 105, nothing written.
    const failing = call(create.id, { action: 'fail', reason: 'the answer is no' });
    await broadcast(failing);
    const failed = (await statuses(failing, 'Error')).find((s) => s['status'] === 'Error')!;
    assert.equal(failed['code'], 2, 'the SDK commits a thrown error as code 2');
    assert.match(String(failed['message']), /the answer is no/);
    assert.equal((await rest('GET', `/contracts/executed-tx-for/${failing.idBase58}`)).status, 404);
    assert.equal((await rest('GET', `/transactions/unconfirmed/info/${failing.idBase58}`)).status, 404, 'dropped from the pool');
    assert.deepEqual((await rest('GET', `/contracts/${contractId}/counter`)).json, { key: 'counter', type: 'integer', value: 11 });

    // A CreateContract whose imageHash is not the package's digest: WE's fatal digest error, out of the pool.
    const wrongHash = 'ab'.repeat(32);
    const wrong = sign(CreateContract, 5, {
      image: IMAGE,
      imageHash: wrongHash,
      contractName: 'kv',
      params: params({ start: 1 }),
      fee: 100_000_000n,
      atomicBadge: null,
      validationPolicy: { type: 'any' },
      apiVersion: { major: 1, minor: 0 },
      payments: [],
    });
    await broadcast(wrong);
    const refusedDigest = (await statuses(wrong, 'Failure')).find((m) => m['status'] === 'Failure')!;
    assert.equal(refusedDigest['message'], `Id '${imageHash}' of local image '${IMAGE}' isn't equal to its digest '${wrongHash}'`);
    assert.equal((await rest('GET', `/transactions/unconfirmed/info/${wrong.idBase58}`)).status, 404);

    // Update to another image: version 2; a call naming version 2 runs on it.
    const update = sign(UpdateContract, 4, {
      contractId: create.id,
      image: IMAGE_2,
      imageHash,
      fee: 100_000_000n,
      atomicBadge: null,
      validationPolicy: { type: 'any' },
      apiVersion: { major: 1, minor: 0 },
    });
    await broadcast(update);
    await executed(update);
    const updated = (await rest('GET', `/contracts/info/${contractId}`)).json as Record<string, unknown>;
    assert.equal(updated['version'], 2);
    assert.equal((updated['storedContract'] as Record<string, unknown>)['image'], IMAGE_2);
    const afterUpdate = call(create.id, { action: 'put', key: 'greeting', value: 'hello' }, 2);
    await broadcast(afterUpdate);
    await executed(afterUpdate);
    assert.deepEqual((await rest('GET', `/contracts/${contractId}/greeting`)).json, { key: 'greeting', type: 'string', value: 'hello' });

    // Disable: an ordinary transaction; calls are refused afterwards (602).
    const disable = sign(DisableContract, 2, { contractId: create.id, fee: 1_000_000n });
    await broadcast(disable);
    await until('the contract disabled', async () => {
      const r = await rest('GET', `/contracts/info/${contractId}`);
      return (r.json as Record<string, unknown>)['active'] === false ? true : undefined;
    });
    const refused = await rest('POST', '/transactions/broadcast', stringifyJson(call(create.id, { action: 'increment', by: 1 }, 2).toJson()));
    assert.equal(refused.status, 400, refused.text);
    assert.equal((refused.json as Record<string, unknown>)['error'], 602);
  });

  it('keeps contract state across a restart and runs contracts again after it', async () => {
    assert.ok(contract !== undefined, 'the lifecycle test ran');
    const before = await rest('GET', `/contracts/${contract.idBase58}`);
    await node.stop();
    node = await Node.start(config, { logger: pino({ level: process.env['WEFT_TEST_LOG'] ?? 'silent' }) });
    assert.equal((await rest('GET', `/contracts/${contract.idBase58}`)).text, before.text);
    assert.equal(((await rest('GET', `/contracts/info/${contract.idBase58}`)).json as Record<string, unknown>)['active'], false);
    // A new contract on the restarted node: its process is started afresh.
    const again = createKv(1);
    await broadcast(again);
    await executed(again);
    assert.deepEqual((await rest('GET', `/contracts/${again.idBase58}/counter`)).json, { key: 'counter', type: 'integer', value: 1 });
    assert.deepEqual(
      ((await rest('GET', '/contracts')).json as Array<Record<string, unknown>>).map((c) => c['contractId']),
      [contract.idBase58, again.idBase58],
    );

    // A recoverable error (code 1): Failure, and the call stays in the pool to be executed again.
    const retried = call(again.id, { action: 'retry', reason: 'oracle not ready' });
    await broadcast(retried);
    const failures = await until('two Failure statuses', async () => {
      const list = await statuses(retried, 'Failure');
      const f = list.filter((m) => m['status'] === 'Failure');
      return f.length >= 2 ? f : undefined;
    });
    assert.equal(failures[0]!['code'], 1);
    assert.match(String(failures[0]!['message']), /oracle not ready/);
    assert.equal((await rest('GET', `/transactions/unconfirmed/info/${retried.idBase58}`)).status, 200, 'still in the pool');
    assert.equal((await rest('GET', `/contracts/executed-tx-for/${retried.idBase58}`)).status, 404);
  });

  it('runs a WASM contract in-process: created and called with 103/104 V7, its 105s V5', async () => {
    const create = await createWasmCounter(40n);
    await broadcast(create);
    assert.equal((await executed(create))['version'], 5);
    const increment = callV7(create.id, 'wasm', 'increment', [{ key: 'by', type: 'integer', value: 2n }], [], owner);
    await broadcast(increment);
    const by = await executed(increment);
    assert.equal(by['statusCode'], 0);
    assert.deepEqual((await rest('GET', `/contracts/${create.idBase58}/counter`)).json, { key: 'counter', type: 'integer', value: 42 });
    await statuses(increment, 'Success');
  });

  it("serves execution statuses on the public gRPC API (ContractStatusService): one transaction's, and every new one as it is recorded", async () => {
    const client = new ContractStatusServiceClient(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
    try {
      // Events: a stream opened before the call sees its Success as it is recorded.
      const events: ContractExecutionResponse[] = [];
      const stream = client.contractsExecutionEvents({});
      stream.on('data', (m: ContractExecutionResponse) => events.push(m));
      stream.on('error', () => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const create = await createWasmCounter(1n);
      await broadcast(create);
      const rest = (await statuses(create, 'Success')).find((s) => s['status'] === 'Success')!;
      await until('the Success event', () => Promise.resolve(events.find((e) => e.txId === create.idBase58)));
      stream.cancel();
      const event = events.find((e) => e.txId === create.idBase58)!;
      const ownerAddress = node.protocol.addresses.fromPublicKey(owner.publicKey).toString();
      assert.equal(event.status, ContractExecutionResponse_Status.SUCCESS);
      assert.equal(event.message, 'Contract transaction successfully mined');
      assert.equal(event.code, undefined);
      assert.equal(event.senderAddress, ownerAddress);
      assert.equal(event.senderPublicKey, encodeBase58(owner.publicKey));
      assert.equal(event.signature, rest['signature']);
      assert.equal(event.timestamp.toString(), String(rest['timestamp']));

      // One transaction's statuses: the same messages REST lists, then the stream ends.
      const read = (txId: string): Promise<{ messages: ContractExecutionResponse[]; error?: grpc.ServiceError }> =>
        new Promise((resolve) => {
          const messages: ContractExecutionResponse[] = [];
          const s = client.contractExecutionStatuses({ txId });
          s.on('data', (x: ContractExecutionResponse) => messages.push(x));
          s.on('error', (error: grpc.ServiceError) => resolve({ messages, error }));
          s.on('end', () => resolve({ messages }));
        });
      const one = await read(create.idBase58);
      assert.equal(one.error, undefined);
      assert.deepEqual(
        one.messages.map((x) => [x.txId, x.status, x.signature]),
        [[create.idBase58, ContractExecutionResponse_Status.SUCCESS, rest['signature']]],
      );
      const unknown = await read(encodeBase58(new Uint8Array(32).fill(7)));
      assert.equal(unknown.error?.code, grpc.status.UNKNOWN);
      assert.match(unknown.error?.details ?? '', /Contract execution result is not found for transaction with txId/);
      assert.equal((await read('0OIl')).error?.code, grpc.status.UNKNOWN);

      // At most max-connections (5) event streams at once: the sixth is refused with 642; a connection-id in use with 643.
      const open = Array.from({ length: 5 }, (_, i) => {
        const md = new grpc.Metadata();
        md.set('connection-id', `reader-${i}`);
        const s = client.contractsExecutionEvents({}, md);
        s.on('error', () => undefined);
        return s;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const refused = (md: grpc.Metadata): Promise<grpc.ServiceError> => new Promise((resolve) => client.contractsExecutionEvents({}, md).on('error', resolve));
      const duplicate = new grpc.Metadata();
      duplicate.set('connection-id', 'reader-0');
      const dup = await refused(duplicate);
      assert.equal(dup.code, grpc.status.INVALID_ARGUMENT);
      assert.equal(dup.metadata.get('error-code')[0], '643');
      const sixth = await refused(new grpc.Metadata());
      assert.equal(sixth.code, grpc.status.UNAVAILABLE);
      assert.equal(sixth.metadata.get('error-code')[0], '642');
      assert.match(sixth.details, /Max connections count '5' has been exceeded/);
      for (const s of open) s.cancel();
    } finally {
      client.close();
    }
  });

  /**
   * The 105s of increments by `bys` (in that order) are serializable: ordered by what each
   * read, every call read the counter the one before it wrote, and wrote what it read plus its `by`.
   */
  const assertSerializable = (made: ReadonlyArray<Record<string, unknown>>, bys: readonly number[]): void => {
    const results = made.map((e) => Object.fromEntries((e['results'] as Array<{ key: string; value: unknown }>).map((r) => [r.key, r.value])));
    const chain = results.map((r, i) => ({ read: r['last'] as number, wrote: r['counter'] as number, by: bys[i]! })).sort((x, y) => x.read - y.read);
    let counter = 0;
    for (const link of chain) {
      assert.equal(link.read, counter, `a call read ${link.read}, but the counter was ${counter}: ${JSON.stringify(chain)}`);
      assert.equal(link.wrote, link.read + link.by);
      counter = link.wrote;
    }
  };

  it('runs calls of one contract at once on its two processes, yet each 105 is what it makes on the state the ones before it left (MVCC re-execution)', async () => {
    const kv = createKv(0);
    await broadcast(kv);
    await executed(kv);
    const bys = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    const calls = bys.map((by) => call(kv.id, { action: 'increment', by }));
    // All at once: calls of the contract are in flight together on both processes.
    await Promise.all(calls.map((c) => broadcast(c)));
    assertSerializable(await Promise.all(calls.map((c) => executed(c))), bys);
    assert.deepEqual((await rest('GET', `/contracts/${kv.idBase58}/counter`)).json, { key: 'counter', type: 'integer', value: 78 });
  });

  it('carries the calls still running when a micro-block is due into the next round, where what they read is checked again', async () => {
    const kv = createKv(0);
    await broadcast(kv);
    await executed(kv);
    // Slow calls between the increments (each its own, transactions made in one millisecond): a round reaches its
    // micro-block's due time (1 s) with calls in flight.
    const bys = [1, 2, 3, 4, 5, 6];
    const calls = bys.flatMap((by) => [call(kv.id, { action: 'sleep', ms: 350 + by }), call(kv.id, { action: 'increment', by })]);
    await Promise.all(calls.map((c) => broadcast(c)));
    const made = await Promise.all(calls.map((c) => executed(c)));
    assertSerializable(
      made.filter((_, i) => i % 2 === 1),
      bys,
    );
    assert.deepEqual((await rest('GET', `/contracts/${kv.idBase58}/counter`)).json, { key: 'counter', type: 'integer', value: 21 });
    for (const c of calls) await statuses(c, 'Success');
  });

  it("runs the calls of two contracts side by side, each contract's calls in pool order on the state the one before left", async () => {
    const a = createKv(0);
    const b = createKv(100);
    await broadcast(a);
    await broadcast(b);
    await Promise.all([executed(a), executed(b)]);
    const calls = [1, 2, 3, 4, 5].flatMap((by) => [call(a.id, { action: 'increment', by }), call(b.id, { action: 'increment', by: by * 10 })]);
    for (const c of calls) await broadcast(c);
    await Promise.all(calls.map((c) => executed(c)));
    assert.deepEqual((await rest('GET', `/contracts/${a.idBase58}`)).json, [
      { key: 'counter', type: 'integer', value: 15 },
      { key: 'last', type: 'integer', value: 10 },
      { key: 'missing', type: 'string', value: 'undefined' },
    ]);
    assert.deepEqual((await rest('GET', `/contracts/${b.idBase58}`)).json, [
      { key: 'counter', type: 'integer', value: 250 },
      { key: 'last', type: 'integer', value: 200 },
      { key: 'missing', type: 'string', value: 'undefined' },
    ]);
  });
});

describe('a node that runs no contract engine', () => {
  const dataDir = tempDir('weft-node-no-contracts-');
  let node: Node;

  before(async () => {
    const base = await devNodeConfig({ dataDir, restPort: 0, p2pPort: 0, keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
    node = await Node.start({ ...base, contracts: { ...base.contracts!, enable: false } }, { logger: pino({ level: 'silent' }) });
  });

  after(() => node?.stop());

  it('keeps executable transactions in its pool for a miner that runs contracts, and mines everything else', async () => {
    const owner = devAccounts(node.protocol)[0]!.keyPair;
    timestampsFrom(BigInt(Date.now()));
    const create = createTx('registry.weft.test/kv-sdk:1.0', 'ab'.repeat(32), { start: 1 }, owner);
    const transfer = signedTransferFrom(node, owner);
    for (const tx of [create, transfer])
      assert.equal((await httpRequest(node.url!, 'POST', '/transactions/broadcast', stringifyJson(tx.toJson()))).status, 200);
    // The transfer is mined; the CreateContract is not, and stays in the pool.
    const deadline = Date.now() + 30_000;
    while (node.chain.state().transactionHeight(transfer.id) === undefined) {
      assert.ok(Date.now() < deadline, 'the transfer was not mined');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.equal((await httpRequest(node.url!, 'GET', `/transactions/unconfirmed/info/${create.idBase58}`)).status, 200);
    assert.deepEqual((await httpRequest(node.url!, 'GET', '/contracts')).json, []);
    assert.equal((await httpRequest(node.url!, 'GET', `/contracts/status/${create.idBase58}`)).status, 404);
  });
});

function signedTransferFrom(node: Node, key: KeyPair): Transaction {
  const p = node.protocol;
  const to = devAccounts(p)[1]!.address;
  return p.sign(
    p.transaction(Transfer, 3, {
      senderPublicKey: key.publicKey,
      assetId: null,
      feeAssetId: null,
      timestamp: BigInt(Date.now()),
      amount: 1000n,
      fee: 1_000_000n,
      recipient: p.addresses.parseAddress(to),
      attachment: new Uint8Array(0),
      atomicBadge: null,
    }),
    key.privateKey,
  );
}
