/**
 * WE's public ConfidentialContractService over gRPC, driven by a raw grpc-js client (no
 * generated client): a confidential call and its input, the 105 V4 of a call with its input,
 * output and readings in WE 1.14's protobuf forms, the contract's confidential state with
 * `matches`/keys filter/paging, WE's error trailers, and the node's authorisation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { ContractKeysRequest, ContractKeysResponse } from '@wavesenterprise/js-contract-grpc-client/contract/contract_contract_service.js';
import { DataEntry as DataEntryMessage } from '@wavesenterprise/js-contract-grpc-client/data_entry.js';
import { CallContractTransaction as CallContractMessage } from '@wavesenterprise/js-contract-grpc-client/managed/call_contract_transaction.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { ConfidentialExecution } from '../../src/contracts/confidential/execution.js';
import type { ExecutionResult } from '../../src/contracts/result.js';
import { ReadingsJournal } from '../../src/contracts/confidential/readings.js';
import { ConfidentialState } from '../../src/contracts/confidential/state.js';
import { ConfidentialStorage } from '../../src/contracts/confidential/storage.js';
import { confidentialContractService, decodeConfidentialResponse, encodeConfidentialRequest } from '../../src/contracts/grpc/confidential-service.js';
import { dataEntryFromMessage } from '../../src/contracts/grpc/mapping.js';
import { missingAuthorizationMetadata } from '../../src/errors/catalogue.js';
import { CallContract, ExecutedContract, READ_DESCRIPTOR, type CreateContractTransaction } from '../../src/protocol/transactions/contracts.js';
import { ROLES } from '../../src/protocol/transactions/permissions.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { ByteReader } from '../../src/protocol/bytes.js';
import { applyCreateContract, applyExecutedContract } from '../../src/state/appliers/contracts.js';
import { tempDir } from '../../devkit/tmp.js';
import { confidentialCreate, testConfidentialService } from './support/confidential.js';
import { APPLY_CONTEXT, BLOCK, developer, fund, node, protocol } from '../../devkit/contracts/engine.js';
import { ContractTestState } from '../../devkit/contracts/state.js';

const SERVICE = '/wavesenterprise.ConfidentialContractService';
const POOL = { ...APPLY_CONTEXT, blockGenerator: undefined };
const TOKEN = 'Bearer good-token';

describe('the ConfidentialContractService over gRPC', () => {
  const validators = [0, 1].map((i) => protocol.crypto.keyPairFromSeedPhrase(`weft confidential grpc validator ${i}`));
  const addressOf = (pk: Uint8Array) => protocol.addresses.fromPublicKey(pk);
  let state: ContractTestState;
  let storage: ConfidentialStorage;
  let confidentialState: ConfidentialState;
  let server: grpc.Server;
  let client: grpc.Client;
  let secret: CreateContractTransaction;
  let plain: CreateContractTransaction;
  let stamp = BLOCK.timestamp;
  const broadcasted: Transaction[] = [];

  before(async () => {
    state = ContractTestState.create(protocol);
    fund(state);
    fund(state, node);
    storage = ConfidentialStorage.open(tempDir('weft-confidential-grpc-'), protocol);
    confidentialState = new ConfidentialState(storage, () => undefined);
    const members = [node, ...validators];
    for (const v of members)
      state.addPermissionOp(addressOf(v.publicKey).bytes, { opType: 'add', role: ROLES.contract_validator, timestamp: 0n, dueTimestamp: null });
    const create = (isConfidential: boolean): CreateContractTransaction =>
      confidentialCreate(protocol, {
        sender: developer,
        timestamp: ++stamp,
        isConfidential,
        participants: isConfidential ? members.map((k) => addressOf(k.publicKey)) : [],
        owners: isConfidential ? [addressOf(developer.publicKey)] : [],
      });
    secret = create(true);
    plain = create(false);
    for (const tx of [secret, plain]) applyCreateContract(state, tx, POOL);
    const api = testConfidentialService({ protocol, state, storage, confidentialState, owner: node, broadcasted, poolContext: POOL });
    const service = confidentialContractService({
      api,
      protocol,
      authorize: (authorization) => {
        if (authorization !== TOKEN) throw missingAuthorizationMetadata();
      },
    });
    server = new grpc.Server();
    server.addService(service.definition, service.implementation);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e === null ? resolve(p) : reject(e))),
    );
    client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });

  after(async () => {
    client?.close();
    server?.forceShutdown();
    await storage?.close();
  });

  const call = (method: string, request: Uint8Array, token: string | null = TOKEN): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const metadata = new grpc.Metadata();
      if (token !== null) metadata.set('authorization', token);
      client.makeUnaryRequest(
        `${SERVICE}/${method}`,
        (b: Uint8Array) => Buffer.from(b),
        (b: Buffer) => b,
        request,
        metadata,
        (e, v) => (e === null ? resolve(v!) : reject(e)),
      );
    });

  const fails = async (p: Promise<unknown>, code: grpc.status, errorCode: string, message?: RegExp): Promise<void> => {
    const e = await p.then(
      () => assert.fail('expected the call to fail'),
      (err: grpc.ServiceError) => err,
    );
    assert.equal(e.code, code, e.details);
    assert.equal(String(e.metadata.get('error-code')[0]), errorCode);
    if (message !== undefined) assert.match(e.details, message);
  };

  const entry = (key: string, value: bigint) =>
    DataEntryMessage.encode({ key, intValue: value.toString() as never, boolValue: undefined, binaryValue: undefined, stringValue: undefined }).finish();
  const callRequest = (contractId: string, extra: Record<string, unknown> = {}): Uint8Array =>
    encodeConfidentialRequest('call', {
      sender: 'not-used',
      contractId,
      contractVersion: 1,
      params: [entry('amount', 5n)],
      timestamp: String(++stamp),
      fee: '10000000',
      broadcastTx: true,
      ...extra,
    });
  const keysRequest = (r: Partial<ContractKeysRequest>): Uint8Array =>
    ContractKeysRequest.encode({ contractId: secret.idBase58, limit: undefined, offset: undefined, matches: undefined, keysFilter: undefined, ...r }).finish();
  const keysOf = async (r: Partial<ContractKeysRequest>): Promise<string[]> =>
    ContractKeysResponse.decode(await call('GetContractKeys', keysRequest(r))).entries.map((e) => e.key);

  let callTx: Transaction;

  it("makes a confidential call: the CallContract V6 in WE 1.14's protobuf form (input_commitment field 13) and its input", async () => {
    const answer = decodeConfidentialResponse('call', await call('ConfidentialCall', callRequest(secret.idBase58)));
    const bytes = Uint8Array.from(answer['transaction'] as number[]);
    const decoded = CallContractMessage.decode(bytes);
    const sent = broadcasted.find((t) => encodeBase58(t.id) === encodeBase58(decoded.id));
    assert.ok(sent !== undefined && CallContract.is(sent) && sent.version === 6, 'the call went to the pool');
    callTx = sent;
    assert.deepEqual(decoded.senderPublicKey, node.publicKey);
    assert.deepEqual(decoded.contractId, secret.id);
    assert.equal(decoded.params.length, 0);
    assert.equal(decoded.timestamp.toString(), sent.timestamp.toString());
    assert.deepEqual(decoded.proofs, [...sent.proofs]);
    // Field 13, length 32: the input commitment.
    assert.deepEqual([...bytes.subarray(bytes.length - 34)], [(13 << 3) | 2, 32, ...sent.data.inputCommitment!]);
    const input = answer['confidentialInput'] as Record<string, unknown>;
    assert.equal(input['txId'], sent.idBase58);
    assert.equal(input['contractId'], secret.idBase58);
    assert.deepEqual(input['commitmentHash'], [...sent.data.inputCommitment!]);
    assert.deepEqual(input['commitmentKey'], new Array(32).fill(42));
    assert.deepEqual(
      (input['entries'] as number[][]).map((e) => dataEntryFromMessage(DataEntryMessage.decode(Uint8Array.from(e)))),
      [{ key: 'amount', type: 'integer', value: 5n }],
    );
  });

  it("answers WE's codes for a bad call: unknown contract (600), not confidential (650), missing commitment (624)", async () => {
    await fails(call('ConfidentialCall', callRequest(encodeBase58(new Uint8Array(32).fill(1)))), grpc.status.NOT_FOUND, '600');
    await fails(call('ConfidentialCall', callRequest(plain.idBase58)), grpc.status.INVALID_ARGUMENT, '650');
    await fails(call('ConfidentialCall', callRequest(secret.idBase58, { commitmentVerification: true })), grpc.status.INVALID_ARGUMENT, '624');
    await fails(call('ConfidentialCall', callRequest(secret.idBase58), null), grpc.status.UNAUTHENTICATED, '618');
  });

  it("serves the 105 V4 of a call with its readings, input and output in WE 1.14's protobuf form", async () => {
    await fails(
      call('ConfidentialExecutedTxByExecutableTxId', encodeConfidentialRequest('executed', { transactionId: callTx.idBase58 })),
      grpc.status.NOT_FOUND,
      '601',
    );
    const execution = new ConfidentialExecution({
      protocol,
      storage,
      confidentialState,
      ownerAddress: addressOf(node.publicKey).bytes,
      announce: () => undefined,
      missingOutputs: () => false,
    });
    const prepared = execution.prepare(callTx, state);
    assert.ok(prepared.kind === 'confidential');
    const journal = new ReadingsJournal(protocol);
    journal.keys(secret.id, { matches: 't.*' }, []);
    const results = [
      { key: 'total', type: 'integer' as const, value: 5n },
      { key: 'tag', type: 'integer' as const, value: 1n },
    ];
    const run: ExecutionResult = { kind: 'success', results: [{ contractId: secret.id, results }], assetOperations: [] };
    const built = execution.build(
      callTx,
      run,
      prepared.input,
      { protocol, isFeatureActive: () => true, miner: node, timestamp: ++stamp },
      execution.resultsOf(run, prepared.input, journal.result()),
    );
    assert.ok(built.kind === 'built' && ExecutedContract.is(built.executed));
    const v4 = built.executed;
    applyExecutedContract(state, v4, APPLY_CONTEXT);
    state.addTransaction(v4);

    const answer = decodeConfidentialResponse(
      'executed',
      await call('ConfidentialExecutedTxByExecutableTxId', encodeConfidentialRequest('executed', { transactionId: callTx.idBase58 })),
    );
    const tx = answer['transaction'] as Record<string, unknown>;
    assert.deepEqual(tx['id'], [...v4.id]);
    assert.deepEqual(tx['senderPublicKey'], [...node.publicKey]);
    const inner = tx['tx'] as Record<string, unknown>;
    assert.equal(inner['version'], 6);
    assert.deepEqual(CallContractMessage.decode(Uint8Array.from(inner['callContractTransaction'] as number[])).id, callTx.id);
    assert.deepEqual(tx['resultsHash'], [...v4.data.resultsHash!]);
    assert.deepEqual(tx['outputCommitment'], [...v4.data.outputCommitment!]);
    assert.deepEqual((tx['readingsHash'] as { value: number[] }).value, [...v4.data.readingsHash!]);
    const readings = (tx['readings'] as number[][]).map((b) => READ_DESCRIPTOR.read(new ByteReader(Uint8Array.from(b)), protocol, 'readings'));
    assert.deepEqual(readings, [{ type: 'filtered-keys', contractId: secret.id, matches: 't.*', offset: null, limit: null }]);
    assert.equal(tx['results'], undefined, 'the results stay off-chain');
    assert.equal(tx['timestamp'], v4.timestamp.toString());
    assert.equal((answer['confidentialInput'] as Record<string, unknown>)['txId'], callTx.idBase58);
    const output = answer['confidentialOutput'] as Record<string, unknown>;
    assert.deepEqual(output['commitmentHash'], [...v4.data.outputCommitment!]);
    assert.deepEqual((output['entries'] as number[][]).map((e) => dataEntryFromMessage(DataEntryMessage.decode(Uint8Array.from(e))).key).sort(), [
      'tag',
      'total',
    ]);
  });

  it('reads the confidential state: all keys, `matches`, a keys filter, paging; 629 for a bad expression, 651 outside the group', async () => {
    assert.deepEqual((await keysOf({})).sort(), ['tag', 'total']);
    assert.deepEqual(await keysOf({ matches: 'to.*' }), ['total']);
    assert.deepEqual(await keysOf({ keysFilter: { keys: ['tag', 'nope'] } }), ['tag']);
    assert.equal((await keysOf({ offset: 1, limit: 5 })).length, 1);
    assert.equal((await keysOf({ limit: 0 })).length, 0);
    await fails(call('GetContractKeys', keysRequest({ matches: '([' })), grpc.status.INVALID_ARGUMENT, '629');
    await fails(call('GetContractKeys', keysRequest({ matches: '(t)\\1.*' })), grpc.status.INVALID_ARGUMENT, '629', /back-reference/);
    await fails(call('GetContractKeys', keysRequest({ contractId: plain.idBase58 })), grpc.status.INVALID_ARGUMENT, '651');
  });
});
