import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { TransactionPublicServiceClient, type UtxSize } from '@wavesenterprise/js-contract-grpc-client/transaction/transaction_public_service.js';
import { Transaction as NpmTransaction } from '@wavesenterprise/js-contract-grpc-client/managed/transaction.js';
import type { TransactionInfoResponse } from '@wavesenterprise/js-contract-grpc-client/util/util_transaction_service.js';
import { transactionPublicService } from '../../src/api/grpc/transaction-public-service.js';
import { grpcErrorOf } from '../../src/contracts/grpc/server.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { transactionToProto } from '../../src/protocol/proto/transactions.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { missingAuthorizationMetadata } from '../../src/errors/catalogue.js';
import { DEV_API_KEY, seededNode, WEST, type SeededNode } from '../../devkit/api/seeded-node.js';

const KEY = { 'x-api-key': DEV_API_KEY };

interface Served {
  readonly client: TransactionPublicServiceClient;
  readonly address: string;
  close(): Promise<void>;
}

/** The service on a real grpc-js server on loopback, and the official generated client for it. */
async function serve(s: SeededNode, options: { isWatcher?: boolean; authorize?: (m: grpc.Metadata) => void } = {}): Promise<Served> {
  const server = new grpc.Server();
  const service = transactionPublicService({
    services: options.isWatcher === true ? { ...s.services, settings: { ...s.services.settings, watcher: true } } : s.services,
    authorize: options.authorize ?? (() => undefined),
    errorOf: grpcErrorOf,
  });
  server.addService(service.definition, service.implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const address = `127.0.0.1:${port}`;
  const client = new TransactionPublicServiceClient(address, grpc.credentials.createInsecure());
  return {
    client,
    address,
    close: async () => {
      client.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    },
  };
}

/** A unary call of the official client as a promise. */
const unary = <Res>(f: (cb: (e: grpc.ServiceError | null, r: Res) => void) => unknown): Promise<Res> =>
  new Promise((resolve, reject) => f((e, r) => (e ? reject(e) : resolve(r))));

async function refused(p: Promise<unknown>, code: grpc.status, errorCode: number, message?: RegExp): Promise<grpc.ServiceError> {
  const e = await p.then(
    () => assert.fail('expected an error'),
    (x: unknown) => x as grpc.ServiceError,
  );
  assert.equal(e.code, code, e.details);
  assert.equal(e.metadata.get('error-code')[0], String(errorCode), e.details);
  if (message !== undefined) assert.match(String(e.metadata.get('error-message')[0]), message);
  return e;
}

/** Our encoding as the official 1.10 client's message (a Transfer V3 is numbered alike in both). */
const asNpm = (tx: Transaction): NpmTransaction => NpmTransaction.decode(transactionToProto(tx));

describe('TransactionPublicService (gRPC)', () => {
  let s: SeededNode;
  let g: Served;
  let n = 0;
  const transfer = (): Transaction => {
    n += 1;
    return s.sign(s.accounts[2]!, { type: 4, version: 3, recipient: s.accounts[3]!.address, amount: WEST + BigInt(n), fee: 1_000_000n, attachment: '' });
  };

  before(async () => {
    s = await seededNode();
    g = await serve(s);
  });
  after(async () => {
    await g.close();
    await s.close();
  });

  it('Broadcast takes a transfer from the official client and answers it; REST shows the same transaction', async () => {
    const tx = transfer();
    const answer = await unary<NpmTransaction>((cb) => g.client.broadcast(asNpm(tx), cb));
    assert.equal(answer.version, 3);
    assert.equal(encodeBase58(answer.transferTransaction!.id), tx.idBase58);
    assert.deepEqual(
      answer.transferTransaction!.proofs.map((p) => encodeBase58(p)),
      tx.proofsBase58,
    );
    const rest = await s.app.inject({ method: 'GET', url: `/transactions/unconfirmed/info/${tx.idBase58}`, headers: KEY });
    assert.equal(rest.statusCode, 200, rest.body);
    const json = parseJson(rest.body) as Record<string, unknown>;
    assert.equal(json['id'], tx.idBase58);
    assert.equal(String(json['amount']), String(tx.toJson()['amount']));
  });

  it('a transaction broadcast over REST is read over gRPC, unconfirmed and then in a block', async () => {
    const tx = transfer();
    const rest = await s.app.inject({
      method: 'POST',
      url: '/transactions/broadcast',
      headers: { ...KEY, 'content-type': 'application/json' },
      payload: stringifyJson(tx.toJson()),
    });
    assert.equal(rest.statusCode, 200, rest.body);
    const pooled = await unary<NpmTransaction>((cb) => g.client.unconfirmedTransactionInfo({ txId: tx.idBase58 }, cb));
    assert.equal(encodeBase58(pooled.transferTransaction!.id), tx.idBase58);
    assert.equal(pooled.transferTransaction!.amount.toString(), (WEST + BigInt(n)).toString());

    s.block([tx]);
    const info = await unary<TransactionInfoResponse>((cb) => g.client.transactionInfo({ txId: tx.idBase58 }, cb));
    assert.equal(info.height, s.services.chain.transaction(tx.id)!.height);
    assert.equal(encodeBase58(info.transaction!.transferTransaction!.id), tx.idBase58);
  });

  it("refuses what WE refuses, with WE's status and trailers", async () => {
    const unknownId = encodeBase58(new Uint8Array(32).fill(7));
    await refused(
      unary<TransactionInfoResponse>((cb) => g.client.transactionInfo({ txId: unknownId }, cb)),
      grpc.status.INVALID_ARGUMENT,
      199,
      /is not found in blockchain/,
    );
    await refused(
      unary<TransactionInfoResponse>((cb) => g.client.transactionInfo({ txId: '0OIl' }, cb)),
      grpc.status.INVALID_ARGUMENT,
      199,
      /Cannot parse transaction id/,
    );
    await refused(
      unary<NpmTransaction>((cb) => g.client.unconfirmedTransactionInfo({ txId: '0OIl' }, cb)),
      grpc.status.INVALID_ARGUMENT,
      101,
    );
    await refused(
      unary<NpmTransaction>((cb) => g.client.unconfirmedTransactionInfo({ txId: unknownId }, cb)),
      grpc.status.INVALID_ARGUMENT,
      199,
    );
    // An empty union, from the official client.
    await refused(
      unary<NpmTransaction>((cb) => g.client.broadcast(NpmTransaction.fromPartial({ version: 3 }), cb)),
      grpc.status.INVALID_ARGUMENT,
      199,
      /Empty inner transaction/,
    );
    await refused(
      unary<NpmTransaction>((cb) => g.client.broadcastWithCerts({ transaction: undefined, certificates: [] }, cb)),
      grpc.status.INVALID_ARGUMENT,
      199,
      /Missing 'transaction' field/,
    );
    // Bytes that are no protobuf message: a transfer member (field 1013) cut short.
    const raw = new grpc.Client(g.address, grpc.credentials.createInsecure());
    try {
      const call = (bytes: Uint8Array): Promise<unknown> =>
        new Promise((resolve, reject) =>
          raw.makeUnaryRequest(
            '/wavesenterprise.grpc.TransactionPublicService/Broadcast',
            (b: Uint8Array) => Buffer.from(b),
            (b: Buffer) => b,
            bytes,
            (e, r) => (e ? reject(e) : resolve(r)),
          ),
        );
      await refused(call(Uint8Array.of(0xaa, 0x3f, 0x05)), grpc.status.INVALID_ARGUMENT, 199, /Invalid protobuf transaction/);
    } finally {
      raw.close();
    }
    // A transaction the pool refuses: the admission's own error.
    const bad = s.sign(s.accounts[2]!, { type: 4, version: 3, recipient: s.accounts[3]!.address, amount: 1n, fee: 1n, attachment: '' });
    await refused(
      unary<NpmTransaction>((cb) => g.client.broadcast(asNpm(bad), cb)),
      grpc.status.INVALID_ARGUMENT,
      199,
      /fee/i,
    );
  });

  it('BroadcastWithCerts takes the transaction and checks its certificates as REST does', async () => {
    const tx = transfer();
    const answer = await unary<NpmTransaction>((cb) => g.client.broadcastWithCerts({ transaction: asNpm(tx), certificates: [] }, cb));
    assert.equal(encodeBase58(answer.transferTransaction!.id), tx.idBase58);
    await refused(
      unary<NpmTransaction>((cb) => g.client.broadcastWithCerts({ transaction: asNpm(transfer()), certificates: [Uint8Array.of(1, 2, 3)] }, cb)),
      grpc.status.INVALID_ARGUMENT,
      121,
    );
  });

  it('UtxInfo sends the pool size at once, then an update when it changes, and stops when the client goes', async () => {
    const stream = g.client.utxInfo({});
    const sizes: UtxSize[] = [];
    const next = (): Promise<UtxSize> =>
      new Promise((resolve, reject) => {
        if (sizes.length > 0) return resolve(sizes.shift()!);
        stream.once('data', () => resolve(sizes.shift()!));
        stream.once('error', reject);
      });
    stream.on('data', (m: UtxSize) => sizes.push(m));
    const first = await next();
    assert.equal(first.size, s.services.pool.size().size);
    assert.equal(first.sizeInBytes.toString(), String(s.services.pool.size().sizeInBytes));
    await s.services.pool.broadcast(transfer());
    const update = await next();
    assert.equal(update.size, first.size + 1);
    const ended = new Promise<grpc.ServiceError>((resolve) => stream.on('error', resolve));
    stream.cancel();
    assert.equal((await ended).code, grpc.status.CANCELLED);
  });

  it('checks credentials on every method', async () => {
    const guarded = await serve(s, {
      authorize: (m) => {
        if (m.get('x-api-key').length === 0) throw missingAuthorizationMetadata();
      },
    });
    try {
      await refused(
        unary<TransactionInfoResponse>((cb) => guarded.client.transactionInfo({ txId: '1' }, cb)),
        grpc.status.UNAUTHENTICATED,
        618,
      );
      const stream = guarded.client.utxInfo({});
      const e = await new Promise<grpc.ServiceError>((resolve) => stream.on('error', resolve));
      assert.equal(e.code, grpc.status.UNAUTHENTICATED);
    } finally {
      await guarded.close();
    }
  });

  it("a watcher node refuses broadcasts with WE's 638", async () => {
    const watcher = await serve(s, { isWatcher: true });
    try {
      await refused(
        unary<NpmTransaction>((cb) => watcher.client.broadcast(asNpm(transfer()), cb)),
        grpc.status.PERMISSION_DENIED,
        638,
      );
      await refused(
        unary<NpmTransaction>((cb) => watcher.client.broadcastWithCerts({ transaction: asNpm(transfer()), certificates: [] }, cb)),
        grpc.status.PERMISSION_DENIED,
        638,
      );
    } finally {
      await watcher.close();
    }
  });
});
