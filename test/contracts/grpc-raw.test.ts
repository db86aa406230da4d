/**
 * The contract gRPC API driven by a raw client (grpc-js and the generated stubs, no SDK):
 * Connect streams and their tokens, commits, reads and their error trailers, CalculateAssetId,
 * asset operations (lease ones included, which the 1.10 stubs cannot encode), and what the
 * 105 built from them does to state.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import {
  ConnectionRequest,
  ContractServiceClient,
  ContractTransactionResponse,
  ExecutionSuccessRequest,
  type ContractTransactionResponse as PushedMessage,
} from '@wavesenterprise/js-contract-grpc-client/contract/contract_contract_service.js';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { ContractTokens } from '../../src/contracts/tokens.js';
import { ReadingsJournal } from '../../src/contracts/confidential/readings.js';
import {
  decodeCurrentBlockInfoField,
  encodeCommittedOperations,
  type AssetOperationMessage,
  type BlockInfoMessage,
} from '../../src/contracts/grpc/proto-1.14.js';
import type { CommitOutcome, ExecuteRequest } from '../../src/contracts/broker.js';
import { contractInfoOfCreate } from '../../src/state/contract-info.js';
import { ExecutedContract, type CreateContractTransaction } from '../../src/protocol/transactions/contracts.js';
import {
  APPLY_CONTEXT,
  BLOCK,
  callTx,
  createTx,
  developer,
  fund,
  mineInto,
  protocol,
  startTestEngine,
  type TestEngine,
} from '../../devkit/contracts/engine.js';
import { applyExecutedContract } from '../../src/state/appliers/contracts.js';
import { buildExecutedContract } from '../../src/contracts/result.js';
import { node } from '../../devkit/contracts/engine.js';

interface Pushed {
  readonly message: PushedMessage;
  readonly blockInfo: BlockInfoMessage | undefined;
}

const meta = (token: string | undefined): grpc.Metadata => {
  const m = new grpc.Metadata();
  if (token !== undefined) m.set('authorization', token);
  return m;
};

/** A contract speaking the protocol by hand. */
class RawContract {
  readonly client: ContractServiceClient;
  readonly streams: Array<{ stream: grpc.ClientReadableStream<Pushed>; received: Pushed[]; error?: grpc.ServiceError }> = [];

  constructor(port: number) {
    this.client = new ContractServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  }

  connect(connectionId: string, token: string | undefined): (typeof this.streams)[number] {
    const stream = this.client.makeServerStreamRequest<ConnectionRequest, Pushed>(
      '/wavesenterprise.ContractService/Connect',
      (v) => Buffer.from(ConnectionRequest.encode(v).finish()),
      (bytes) => ({ message: ContractTransactionResponse.decode(bytes), blockInfo: decodeCurrentBlockInfoField(bytes) }),
      { connectionId },
      meta(token),
    );
    const entry: (typeof this.streams)[number] = { stream, received: [] };
    stream.on('data', (p: Pushed) => entry.received.push(p));
    stream.on('error', (e: grpc.ServiceError) => (entry.error = e));
    this.streams.push(entry);
    return entry;
  }

  /** A unary call as a promise; errors come back as the ServiceError. */
  unary<Req, Res>(
    method: 'commitExecutionSuccess' | 'commitExecutionError' | 'getContractKeys' | 'getContractKey' | 'getContractBalances' | 'calculateAssetId',
    request: Req,
    token: string | undefined,
  ): Promise<Res> {
    return new Promise((resolve, reject) => {
      const fn = (this.client[method] as unknown as (r: Req, m: grpc.Metadata, cb: (e: grpc.ServiceError | null, v: Res) => void) => void).bind(this.client);
      fn(request, meta(token), (e, v) => (e === null ? resolve(v) : reject(e)));
    });
  }

  /** CommitExecutionSuccess with 1.14's asset operations (lease ones included) on the wire. */
  commitWithOperations(txId: string, ops: readonly AssetOperationMessage[], token: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        '/wavesenterprise.ContractService/CommitExecutionSuccess',
        () => Buffer.concat([ExecutionSuccessRequest.encode({ txId, results: [], assetOperations: [] }).finish(), encodeCommittedOperations(ops)]),
        (b: Buffer) => b,
        {},
        meta(token),
        (e, v) => (e === null ? resolve(v) : reject(e)),
      );
    });
  }

  close(): void {
    for (const s of this.streams) s.stream.cancel();
    this.client.close();
  }
}

const trailer = (e: unknown, key: string): string | undefined => {
  const v = (e as grpc.ServiceError).metadata?.get(key)[0];
  return v === undefined ? undefined : String(v);
};

async function rejects(p: Promise<unknown>, code: grpc.status, errorCode?: string, message?: RegExp): Promise<grpc.ServiceError> {
  try {
    await p;
  } catch (e) {
    const err = e as grpc.ServiceError;
    assert.equal(err.code, code, `status ${err.code}: ${err.details}`);
    if (errorCode !== undefined) assert.equal(trailer(err, 'error-code'), errorCode);
    if (message !== undefined) assert.match(err.details, message);
    return err;
  }
  assert.fail('expected the call to fail');
}

const until = async (what: string, probe: () => boolean): Promise<void> => {
  for (let i = 0; i < 200; i++) {
    if (probe()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
};

describe('the contract gRPC API with a raw client', () => {
  let clock = 1_800_000_000_000n;
  let te: TestEngine;
  let contract: RawContract;
  const connectionId = 'raw-contract-1';
  let create: CreateContractTransaction;

  before(async () => {
    te = await startTestEngine({ now: () => clock });
    fund(te.state);
    contract = new RawContract(te.engine.grpcPort);
    create = createTx('raw:1', 'cd'.repeat(32), { start: 1 });
    te.state.putContract(contractInfoOfCreate(create));
    te.state.putContractData(create.id, { key: 'a', type: 'integer', value: 1n });
    te.state.putContractData(create.id, { key: 'b', type: 'boolean', value: true });
    te.state.putContractData(create.id, { key: 'name', type: 'string', value: 'raw' });
    te.state.addBalance(create.id, null, 5000n);
  });
  after(async () => {
    contract?.close();
    await te?.close();
  });

  /** Pushes `tx` through the broker and returns what the contract got plus the pending outcome. */
  async function push(tx: ExecuteRequest['tx'], timeoutMs = 5000, readings?: ReadingsJournal): Promise<{ pushed: Pushed; outcome: Promise<CommitOutcome> }> {
    const first = contract.streams[0]!;
    const before = first.received.length;
    const outcome = te.engine.broker.execute(connectionId, {
      tx,
      contractId: create.id,
      view: te.state,
      blockInfo: BLOCK,
      timeoutMs,
      containerName: 'raw',
      ...(readings === undefined ? {} : { readings }),
    });
    outcome.catch(() => undefined);
    await until('the push', () => first.received.length > before);
    return { pushed: first.received[before]!, outcome };
  }

  it('refuses a Connect without a token (618), with an execution token (622) and for an unknown connection id', async () => {
    const none = contract.connect(connectionId, undefined);
    await until('an error', () => none.error !== undefined);
    assert.equal(none.error!.code, grpc.status.UNAUTHENTICATED);
    assert.equal(trailer(none.error, 'error-code'), '618');
    const wrongShape = contract.connect(connectionId, await te.engine.tokens.executionToken({ txId: 'x', contractId: 'y', executionId: '1' }));
    await until('an error', () => wrongShape.error !== undefined);
    assert.equal(trailer(wrongShape.error, 'error-code'), '622');
    const unknown = contract.connect('nobody', await te.engine.tokens.connectionToken('nobody'));
    await until('an error', () => unknown.error !== undefined);
    assert.equal(unknown.error!.code, grpc.status.INVALID_ARGUMENT);
    assert.match(unknown.error!.details, /Unknown connection id 'nobody'/);
    contract.streams.length = 0;
  });

  it('gives the work to the first of three Connect streams and holds the other two', async () => {
    const connected = te.engine.broker.expect(connectionId, () => undefined);
    const token = await te.engine.tokens.connectionToken(connectionId);
    contract.connect(connectionId, token);
    await connected;
    contract.connect(connectionId, token);
    contract.connect(connectionId, token);
    // Both others are held before the work comes (a fixed 200 ms wait left that to the machine).
    await until('the other two streams held', () => te.engine.broker.heldStreams(connectionId) === 2);
    const call = callTx(create.id, { action: 'x' });
    const { pushed, outcome } = await push(call);
    assert.equal(pushed.message.transaction?.id, call.idBase58);
    assert.equal(pushed.message.transaction?.contractId, encodeBase58(create.id));
    assert.equal(pushed.message.transaction?.sender, protocol.addresses.fromPublicKey(developer.publicKey).toString());
    assert.deepEqual(pushed.blockInfo, {
      height: BigInt(BLOCK.height),
      timestamp: BLOCK.timestamp,
      minerAddress: BLOCK.minerAddress,
      reference: BLOCK.reference,
    });
    await contract.unary('commitExecutionSuccess', { txId: call.idBase58, results: [], assetOperations: [] }, pushed.message.authToken);
    assert.deepEqual(await outcome, { kind: 'success', results: [], assetOperations: [] });
    assert.equal(contract.streams[1]!.received.length, 0);
    assert.equal(contract.streams[2]!.received.length, 0);
    assert.equal(contract.streams[1]!.error, undefined, 'held streams stay open');
  });

  it("moves the work to the next stream when nothing answers on the first (the SDK's thread race), never off a stream that answered", async () => {
    const id = 'raw-contract-rotation';
    const other = new RawContract(te.engine.grpcPort);
    try {
      const connected = te.engine.broker.expect(id, () => undefined);
      const token = await te.engine.tokens.connectionToken(id);
      const deaf = other.connect(id, token);
      await connected;
      const serving = other.connect(id, token);
      // The second stream waits, held, before the first push (after a fixed 100 ms a loaded
      // machine could still be opening it: the work would have nowhere to move).
      await until('the second stream held', () => te.engine.broker.heldStreams(id) === 1);
      const run = (tx: ExecuteRequest['tx'], timeoutMs: number) =>
        te.engine.broker.execute(id, { tx, contractId: create.id, view: te.state, blockInfo: BLOCK, timeoutMs, containerName: 'rotating' });
      const first = callTx(create.id, { action: 'lost' });
      await assert.rejects(run(first, 300), /execution timeout, container 'rotating'/);
      assert.equal(deaf.received.length, 1);
      const second = callTx(create.id, { action: 'served' });
      const outcome = run(second, 5000);
      await until('the push on the second stream', () => serving.received.length === 1);
      assert.equal(serving.received[0]!.message.transaction?.id, second.idBase58);
      await other.unary('commitExecutionSuccess', { txId: second.idBase58, results: [], assetOperations: [] }, serving.received[0]!.message.authToken);
      assert.equal((await outcome).kind, 'success');
      // The second stream answered: a later timeout leaves the work on it.
      await assert.rejects(run(callTx(create.id, { action: 'slow' }), 300), /execution timeout/);
      const third = run(callTx(create.id, { action: 'again' }), 300);
      await until('the push', () => serving.received.length === 3);
      assert.equal(deaf.received.length, 1);
      await assert.rejects(third, /execution timeout/);
    } finally {
      other.close();
      te.engine.broker.forget(id);
    }
  });

  it('refuses a commit with another transaction id, then takes the right one', async () => {
    const call = callTx(create.id, { action: 'y' });
    const { pushed, outcome } = await push(call);
    const other = callTx(create.id, { action: 'z' }).idBase58;
    await rejects(
      contract.unary('commitExecutionSuccess', { txId: other, results: [], assetOperations: [] }, pushed.message.authToken),
      grpc.status.INVALID_ARGUMENT,
      undefined,
      new RegExp(`Execution result is not for txId '${call.idBase58}'`),
    );
    await contract.unary('commitExecutionError', { txId: call.idBase58, message: 'nope', code: 7 }, pushed.message.authToken);
    assert.deepEqual(await outcome, { kind: 'error', code: 7, message: "nope. Unknown contract execution error code '7'" });
    await rejects(
      contract.unary('commitExecutionSuccess', { txId: call.idBase58, results: [], assetOperations: [] }, pushed.message.authToken),
      grpc.status.INVALID_ARGUMENT,
      undefined,
      /Transaction execution is not found for executionId/,
    );
  });

  it("answers reads with the execution's view and WE's trailers (304 missing key, 600 unknown contract, 629 bad regex)", async () => {
    const call = callTx(create.id, { action: 'read' });
    const { pushed, outcome } = await push(call);
    const token = pushed.message.authToken;
    const cid = encodeBase58(create.id);
    const key = await contract.unary<object, { entry: { key: string; boolValue?: boolean } }>('getContractKey', { contractId: cid, key: 'b' }, token);
    assert.equal(key.entry.boolValue, true);
    const missing = await rejects(contract.unary('getContractKey', { contractId: cid, key: 'absent' }, token), grpc.status.NOT_FOUND, '304');
    assert.equal(trailer(missing, 'error-message'), 'no data for this key: absent');
    await rejects(
      contract.unary('getContractKey', { contractId: 'unknownContract', key: 'a' }, token),
      grpc.status.NOT_FOUND,
      '600',
      /Contract 'unknownContract' is not found/,
    );
    const all = await contract.unary<object, { entries: Array<{ key: string }> }>('getContractKeys', { contractId: cid }, token);
    assert.deepEqual(
      all.entries.map((e) => e.key),
      ['a', 'b', 'name'],
    );
    const page = await contract.unary<object, { entries: Array<{ key: string }> }>('getContractKeys', { contractId: cid, offset: 1, limit: 1 }, token);
    assert.deepEqual(
      page.entries.map((e) => e.key),
      ['b'],
    );
    const matching = await contract.unary<object, { entries: Array<{ key: string }> }>('getContractKeys', { contractId: cid, matches: '[ab]' }, token);
    assert.deepEqual(
      matching.entries.map((e) => e.key),
      ['a', 'b'],
    );
    const filtered = await contract.unary<object, { entries: Array<{ key: string }> }>(
      'getContractKeys',
      { contractId: cid, keysFilter: { keys: ['name', 'zz', 'a'] } },
      token,
    );
    assert.deepEqual(
      filtered.entries.map((e) => e.key),
      ['name', 'a'],
    );
    await rejects(contract.unary('getContractKeys', { contractId: cid, matches: '([' }, token), grpc.status.INVALID_ARGUMENT, '629');
    // Run in linear time (state/key-pattern.ts): what needs backtracking is refused, naming the feature.
    const lookahead = await rejects(contract.unary('getContractKeys', { contractId: cid, matches: '(?=a).' }, token), grpc.status.INVALID_ARGUMENT, '629');
    assert.match(trailer(lookahead, 'error-message') ?? '', /lookahead \(\?= is not supported/);
    const nested = await contract.unary<object, { entries: Array<{ key: string }> }>(
      'getContractKeys',
      { contractId: cid, matches: `(${Array(14).fill('.').join('|')})*` },
      token,
    );
    assert.deepEqual(
      nested.entries.map((e) => e.key),
      ['a', 'b', 'name'],
    );
    const balances = await contract.unary<object, { assetsBalances: Array<{ amount: { toString(): string }; decimals: number; assetId?: string }> }>(
      'getContractBalances',
      { assetsIds: [''] },
      token,
    );
    assert.equal(balances.assetsBalances[0]!.amount.toString(), '5000');
    assert.equal(balances.assetsBalances[0]!.decimals, 8);
    assert.equal(balances.assetsBalances[0]!.assetId, undefined);
    const nonce3 = await contract.unary<object, { value: string }>('calculateAssetId', { nonce: 3 }, token);
    assert.equal(nonce3.value, encodeBase58(protocol.crypto.fastHash(Uint8Array.from([...call.id, 3]))));
    await contract.unary('commitExecutionSuccess', { txId: call.idBase58, results: [], assetOperations: [] }, token);
    await outcome;
  });

  it("journals the reads of a confidential execution as WE's read log: what was asked and a hash of what was answered, not the missing key", async () => {
    const journal = new ReadingsJournal(protocol);
    const call = callTx(create.id, { action: 'confidential reads' });
    const { pushed, outcome } = await push(call, 5000, journal);
    const token = pushed.message.authToken;
    const cid = encodeBase58(create.id);
    await contract.unary('getContractKey', { contractId: cid, key: 'name' }, token);
    await rejects(contract.unary('getContractKey', { contractId: cid, key: 'absent' }, token), grpc.status.NOT_FOUND, '304');
    await contract.unary('getContractKeys', { contractId: cid, keysFilter: { keys: ['b', 'zz'] } }, token);
    await contract.unary('getContractKeys', { contractId: cid, matches: '[ab]', limit: 5 }, token);
    await contract.unary('getContractBalances', { assetsIds: [''] }, token);
    await contract.unary('commitExecutionSuccess', { txId: call.idBase58, results: [], assetOperations: [] }, token);
    await outcome;
    const { readings, readingsHash } = journal.result();
    assert.deepEqual(readings, [
      { type: 'specific-keys', contractId: create.id, keys: ['name'] },
      { type: 'specific-keys', contractId: create.id, keys: ['b', 'zz'] },
      { type: 'filtered-keys', contractId: create.id, matches: '[ab]', offset: null, limit: 5 },
      { type: 'specific-balances', contractId: create.id, assetIds: [''] },
    ]);
    // The same reads answered from the same state give the same hash.
    const expected = new ReadingsJournal(protocol);
    expected.key(create.id, 'name', { key: 'name', type: 'string', value: 'raw' });
    expected.keys(create.id, { keys: ['b', 'zz'] }, [{ key: 'b', type: 'boolean', value: true }]);
    expected.keys(create.id, { matches: '[ab]', limit: 5 }, [
      { key: 'a', type: 'integer', value: 1n },
      { key: 'b', type: 'boolean', value: true },
    ]);
    expected.balances(create.id, [''], [{ assetId: undefined, amount: 5000n, decimals: 8 }]);
    assert.deepEqual(readingsHash, expected.result().readingsHash);
    // A plain execution journals nothing.
    const plain = callTx(create.id, { action: 'plain reads' });
    const second = await push(plain);
    await contract.unary('getContractKey', { contractId: cid, key: 'name' }, second.pushed.message.authToken);
    await contract.unary('commitExecutionSuccess', { txId: plain.idBase58, results: [], assetOperations: [] }, second.pushed.message.authToken);
    await second.outcome;
    assert.equal(journal.result().readings.length, 4);
  });

  it('refuses expired and foreign tokens with 622 and a missing one with 618', async () => {
    const call = callTx(create.id, { action: 'late' });
    const { pushed, outcome } = await push(call);
    const cid = encodeBase58(create.id);
    const foreign = await ContractTokens.create({ now: () => clock, lifetimeMs: 60_000 });
    const forged = await foreign.executionToken({ txId: call.idBase58, contractId: cid, executionId: '99' });
    await rejects(contract.unary('getContractKey', { contractId: cid, key: 'a' }, forged), grpc.status.UNAUTHENTICATED, '622');
    await rejects(contract.unary('getContractKey', { contractId: cid, key: 'a' }, undefined), grpc.status.UNAUTHENTICATED, '618');
    clock += 61_000n;
    await rejects(contract.unary('getContractKey', { contractId: cid, key: 'a' }, pushed.message.authToken), grpc.status.UNAUTHENTICATED, '622');
    await rejects(
      contract.unary('commitExecutionSuccess', { txId: call.idBase58, results: [], assetOperations: [] }, pushed.message.authToken),
      grpc.status.UNAUTHENTICATED,
      '622',
    );
    te.engine.broker.commit(
      // The execution is still there: only the token expired.
      String(JSON.parse(Buffer.from(pushed.message.authToken.split('.')[1]!, 'base64url').toString()).executionId),
      call.idBase58,
      { kind: 'error', code: 2, message: 'cleanup' },
    );
    await outcome;
  });

  it('takes asset operations, lease ones included, and their 105 changes the state', async () => {
    const call = callTx(create.id, { action: 'assets' });
    const { pushed, outcome } = await push(call);
    const token = pushed.message.authToken;
    const assetId = (await contract.unary<object, { value: string }>('calculateAssetId', { nonce: 1 }, token)).value;
    const leaseId = (await contract.unary<object, { value: string }>('calculateAssetId', { nonce: 2 }, token)).value;
    const bob = protocol.addresses.fromPublicKey(protocol.crypto.keyPairFromSeedPhrase('raw bob').publicKey).toString();
    await contract.commitWithOperations(
      call.idBase58,
      [
        { kind: 'contractIssue', assetId, name: 'RAW', description: 'issued by a raw contract', quantity: 1000n, decimals: 2, isReissuable: true, nonce: 1 },
        { kind: 'contractTransferOut', assetId, recipient: bob, amount: 250n },
        { kind: 'contractLease', leaseId, nonce: 2, recipient: bob, amount: 1000n },
      ],
      token,
    );
    const r = await outcome;
    assert.equal(r.kind, 'success');
    if (r.kind !== 'success') return;
    assert.deepEqual(
      r.assetOperations.map((o) => o.operationType),
      ['issue', 'transfer', 'lease'],
    );
    const built = mineInto(te.state, call, {
      kind: 'success',
      results: [{ contractId: create.id, results: r.results }],
      assetOperations: [{ contractId: create.id, operations: r.assetOperations }],
    });
    assert.equal(built.kind, 'built');
    const asset = decodeBase58(assetId);
    assert.equal(te.state.asset(asset)?.issuedByContract, true);
    assert.equal(te.state.balance(create.id, asset), 750n);
    assert.equal(te.state.balance(decodeBase58(bob), asset), 250n);
    assert.deepEqual(te.state.leaseBalance(create.id), { in: 0n, out: 1000n });
    assert.equal(te.state.lease(decodeBase58(leaseId))?.leasedByContract, true);
  });

  it('a 105 issuing with nonce 0 is refused when applied', () => {
    const call = callTx(create.id, { action: 'zero-nonce' });
    const assetId = protocol.crypto.fastHash(Uint8Array.from([...call.id, 0]));
    const built = buildExecutedContract(
      call,
      {
        kind: 'success',
        results: [],
        assetOperations: [
          {
            contractId: create.id,
            operations: [{ operationType: 'issue', assetId, name: 'Z', description: '', quantity: 1n, decimals: 0, isReissuable: false, nonce: 0 }],
          },
        ],
      },
      { protocol, isFeatureActive: () => true, miner: node, timestamp: BLOCK.timestamp },
    );
    assert.ok(built.kind === 'built' && ExecutedContract.is(built.executed));
    assert.throws(() => applyExecutedContract(te.state, built.executed, APPLY_CONTEXT), /Attempt to issue asset with nonce = 0/);
    assert.equal(te.state.asset(assetId), undefined);
  });

  it('serves the other services: node time, wallet addresses, block headers (301 for an unknown one)', async () => {
    const { UtilServiceClient } = await import('@wavesenterprise/js-contract-grpc-client/contract/contract_util_service.js');
    const { AddressServiceClient } = await import('@wavesenterprise/js-contract-grpc-client/contract/contract_address_service.js');
    const token = await te.engine.readOnlyToken(encodeBase58(create.id));
    const address = `127.0.0.1:${te.engine.grpcPort}`;
    const util = new UtilServiceClient(address, grpc.credentials.createInsecure());
    const addresses = new AddressServiceClient(address, grpc.credentials.createInsecure());
    try {
      const time = await new Promise<{ ntp: { toString(): string } }>((res, rej) =>
        util.getNodeTime({}, meta(token), (e, v) => (e === null ? res(v) : rej(e))),
      );
      assert.ok(BigInt(time.ntp.toString()) > 0n);
      const wallet = await new Promise<{ addresses: string[] }>((res, rej) =>
        addresses.getAddresses({}, meta(token), (e, v) => (e === null ? res(v) : rej(e))),
      );
      assert.deepEqual(wallet.addresses, [protocol.addresses.fromPublicKey(developer.publicKey).toString()]);
      const header = new Promise((res, rej) =>
        contract.client.makeUnaryRequest(
          '/wavesenterprise.BlockService/GetBlockHeader',
          () => Buffer.from([0xb0, 0x06, 0x07]),
          (b: Buffer) => b,
          {},
          meta(token),
          (e, v) => (e === null ? res(v) : rej(e)),
        ),
      );
      await rejects(header, grpc.status.NOT_FOUND, '301', /block at height '7' does not exist/);
    } finally {
      util.close();
      addresses.close();
    }
  });
});
