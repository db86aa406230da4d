/**
 * Confidential contract calls: the commitment and the stored units byte for byte (vectors
 * built from WE's definitions with an independent hash implementation), the P2P messages
 * 52–55, the miner's 105 V4, and `/confidential-contracts/*` over HTTP with WE's codes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { blake2b } from '@noble/hashes/blake2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { createApiServer } from '../../src/api/server.js';
import type { ApiServices } from '../../src/api/services.js';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import {
  commitmentHolds,
  decodeUnit,
  encodeUnit,
  entriesBytes,
  entriesCommitment,
  unitJson,
  type ConfidentialDataUnit,
} from '../../src/contracts/confidential/data.js';
import { ConfidentialExecution } from '../../src/contracts/confidential/execution.js';
import type { ExecutionResult } from '../../src/contracts/result.js';
import {
  decodeDataId,
  decodeDataResponse,
  decodeInventory,
  encodeDataId,
  encodeDataResponse,
  encodeInventory,
  inventoryValid,
  signInventory,
} from '../../src/contracts/confidential/messages.js';
import { ConfidentialState } from '../../src/contracts/confidential/state.js';
import { ConfidentialStorage } from '../../src/contracts/confidential/storage.js';
import { DecodeError } from '../../src/errors/catalogue.js';
import { CallContract, ExecutedContract, type CreateContractTransaction } from '../../src/protocol/transactions/contracts.js';
import type { DataEntry } from '../../src/protocol/transactions/fields.js';
import { ROLES } from '../../src/protocol/transactions/permissions.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { applyCreateContract, applyExecutedContract } from '../../src/state/appliers/contracts.js';
import { CONFIDENTIAL_KEY, fixtureChain } from '../api/fixture.js';
import { inject } from '../api/inject.js';
import { tempDir } from '../../devkit/tmp.js';
import { APPLY_CONTEXT, BLOCK, developer, fund, node, protocol } from '../../devkit/contracts/engine.js';
import { confidentialCreate, testConfidentialService } from './support/confidential.js';
import { ContractTestState } from '../../devkit/contracts/state.js';

const POOL = { ...APPLY_CONTEXT, blockGenerator: undefined };
const SALT = Uint8Array.from({ length: 32 }, (_, i) => i);
const ENTRIES: DataEntry[] = [
  { key: 'b', type: 'string', value: 'x' },
  { key: 'a', type: 'integer', value: 1n },
];

describe('confidential data bytes', () => {
  it('entries bytes: a u16 count, then the entries sorted by key in contract form', () => {
    assert.deepEqual(entriesBytes(ENTRIES, protocol), Uint8Array.from([0, 2, 0, 1, 0x61, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0x62, 3, 0, 0, 0, 1, 0x78]));
  });

  it('commitment = keccak256(blake2b256(entries bytes ‖ commitment key))', () => {
    const expected = keccak_256(blake2b(Uint8Array.from([...entriesBytes(ENTRIES, protocol), ...SALT]), { dkLen: 32 }));
    const commitment = entriesCommitment(ENTRIES, SALT, protocol);
    assert.deepEqual(commitment, expected);
    assert.equal(Buffer.from(commitment).toString('hex'), '1e148cfddfa38b55b85f6f576571225c8dbe822256ffe4541043f07a4dff5c6b');
    assert.ok(commitmentHolds(commitment, [...ENTRIES].reverse(), SALT, protocol), 'order of the entries does not matter');
    assert.ok(!commitmentHolds(commitment, ENTRIES, new Uint8Array(32), protocol));
  });

  it('a unit as stored: four short byte strings and the entries; its JSON as WE writes it', () => {
    const unit: ConfidentialDataUnit = {
      commitment: new Uint8Array(32).fill(1),
      txId: new Uint8Array(32).fill(2),
      contractId: new Uint8Array(32).fill(3),
      commitmentKey: SALT,
      entries: ENTRIES,
    };
    const bytes = encodeUnit(unit, protocol);
    assert.equal(bytes.length, 4 * 34 + entriesBytes(ENTRIES, protocol).length);
    assert.deepEqual([...bytes.slice(0, 3)], [0, 32, 1]);
    const back = decodeUnit(bytes, protocol);
    assert.deepEqual(back.contractId, unit.contractId);
    assert.deepEqual(back.entries, [ENTRIES[1], ENTRIES[0]]);
    assert.deepEqual(unitJson(unit, protocol), {
      commitment: encodeBase58(unit.commitment),
      txId: encodeBase58(unit.txId),
      contractId: { byteStr: encodeBase58(unit.contractId) },
      commitmentKey: { bytes: encodeBase58(SALT) },
      entries: [
        { key: 'b', type: 'string', value: 'x' },
        { key: 'a', type: 'integer', value: 1n },
      ],
    });
  });
});

describe('messages 52–55', () => {
  const id = { contractId: new Uint8Array(32).fill(7), commitment: new Uint8Array(32).fill(8), type: 'output' as const };

  it('request and inventory request: contractId ‖ commitment ‖ type; anything else is refused', () => {
    const bytes = encodeDataId(id);
    assert.equal(bytes.length, 65);
    assert.equal(bytes[64], 1);
    assert.deepEqual(decodeDataId(52, bytes), id);
    assert.throws(() => decodeDataId(52, bytes.slice(1)), DecodeError);
    assert.throws(() => decodeDataId(54, Uint8Array.from([...bytes.slice(0, 64), 2])), /unknown data type 2/);
  });

  it('response: no-data and data forms', () => {
    const none = encodeDataResponse({ kind: 'no-data', ...id });
    assert.deepEqual([...none.slice(0, 1)], [0]);
    assert.deepEqual(decodeDataResponse(none), { kind: 'no-data', ...id });
    const data = Uint8Array.of(9, 9, 9);
    const full = encodeDataResponse({ kind: 'data', ...id, txId: new Uint8Array(32).fill(5), commitmentKey: SALT, data });
    assert.equal(full.length, 1 + 32 * 4 + 1 + 4 + 3);
    const back = decodeDataResponse(full);
    assert.equal(back.kind, 'data');
    if (back.kind === 'data') assert.deepEqual(back.data, data);
    assert.throws(() => decodeDataResponse(full.slice(0, full.length - 1)), /data length 3/);
  });

  it('inventory: signed over the sender address ‖ id; a changed byte fails the signature', () => {
    const inv = signInventory(protocol, node, id);
    const bytes = encodeInventory(inv);
    assert.equal(bytes.length, 32 + 65 + 64);
    const back = decodeInventory(bytes, 32);
    assert.ok(inventoryValid(protocol, back));
    const forged = { ...back, commitment: new Uint8Array(32).fill(9) };
    assert.ok(!inventoryValid(protocol, forged));
  });
});

describe('a confidential call', () => {
  const validators = [0, 1, 2].map((i) => protocol.crypto.keyPairFromSeedPhrase(`weft confidential rest validator ${i}`));
  const addressOf = (pk: Uint8Array) => protocol.addresses.fromPublicKey(pk);
  let state: ContractTestState;
  let storage: ConfidentialStorage;
  let confidentialState: ConfidentialState;
  let app: ReturnType<typeof createApiServer>;
  let secret: CreateContractTransaction;
  let plain: CreateContractTransaction;
  let foreign: CreateContractTransaction;
  const broadcasted: Transaction[] = [];
  const key = { 'X-API-Key': CONFIDENTIAL_KEY };

  const create = (isConfidential: boolean, owners: Uint8Array[], participants: Uint8Array[]): CreateContractTransaction =>
    confidentialCreate(protocol, {
      sender: developer,
      timestamp: BLOCK.timestamp + BigInt(broadcasted.length) + (isConfidential ? 1n : 0n) + BigInt(owners.length * 7),
      isConfidential,
      participants: participants.map((pk) => addressOf(pk)),
      owners: owners.map((pk) => addressOf(pk)),
    });

  before(() => {
    state = ContractTestState.create(protocol);
    fund(state);
    fund(state, node);
    storage = ConfidentialStorage.open(tempDir('weft-confidential-'), protocol);
    confidentialState = new ConfidentialState(storage, () => undefined);
    // The node is a validator and a participant of `secret`, not of `foreign`.
    const members = [node, validators[0]!, validators[1]!];
    for (const v of [...members, validators[2]!])
      state.addPermissionOp(addressOf(v.publicKey).bytes, { opType: 'add', role: ROLES.contract_validator, timestamp: 0n, dueTimestamp: null });
    secret = create(
      true,
      [developer.publicKey],
      members.map((k) => k.publicKey),
    );
    plain = create(false, [], []);
    foreign = create(
      true,
      [developer.publicKey],
      validators.map((k) => k.publicKey),
    );
    for (const tx of [secret, plain, foreign]) applyCreateContract(state, tx, POOL);
    const service = testConfidentialService({ protocol, state, storage, confidentialState, owner: node, broadcasted, poolContext: POOL });
    const services: ApiServices = { ...fixtureChain().services, confidentialContracts: service };
    app = createApiServer(services, { logger: false });
  });

  after(async () => {
    await app.close();
    await storage.close();
  });

  const body = (contractId: string, extra: object = {}) => ({
    sender: '3N-not-used',
    contractId,
    contractVersion: 1,
    params: [{ key: 'amount', type: 'integer', value: 5 }],
    timestamp: Number(BLOCK.timestamp) + 100,
    fee: 10_000_000,
    ...extra,
  });

  it('needs the confidential-contracts API key (649)', async () => {
    const r = await inject(app, 'POST', '/confidential-contracts/call', { body: body(secret.idBase58), headers: { 'X-API-Key': 'wrong' } });
    assert.equal(r.status, 403);
    assert.equal(r.json.error, 649);
    assert.equal((await inject(app, 'GET', `/confidential-contracts/${secret.idBase58}`)).json.error, 649);
  });

  it('is refused for an unknown (600) or malformed (199) contract id, a plain contract (650), a contract whose groups lack the node owner (651)', async () => {
    const unknown = encodeBase58(new Uint8Array(32).fill(1));
    let r = await inject(app, 'POST', '/confidential-contracts/call', { body: body(unknown), headers: key });
    assert.equal(r.status, 404);
    assert.equal(r.json.error, 600);
    r = await inject(app, 'POST', '/confidential-contracts/call', { body: body('0OIl'), headers: key });
    assert.deepEqual([r.status, r.json.error, r.json.message], [400, 199, "Contract id '0OIl' is invalid"]);
    r = await inject(app, 'POST', '/confidential-contracts/call', { body: body(plain.idBase58), headers: key });
    assert.deepEqual([r.status, r.json.error, r.json.message], [400, 650, `Contract '${plain.idBase58}' not allowed for confidential call`]);
    r = await inject(app, 'POST', '/confidential-contracts/call', { body: body(foreign.idBase58), headers: key });
    assert.deepEqual(
      [r.status, r.json.error, r.json.message],
      [400, 651, `Confidential groups from contract '${foreign.idBase58}' not contain NodeOwner '${addressOf(node.publicKey).toString()}'`],
    );
    r = await inject(app, 'GET', `/confidential-contracts/${foreign.idBase58}`, { headers: key });
    assert.equal(r.json.error, 651);
    assert.equal(broadcasted.length, 0);
  });

  it('a malformed body is 1, a bad param key or a bad commitment text 199', async () => {
    let r = await inject(app, 'POST', '/confidential-contracts/call', {
      body: { sender: 'x', contractVersion: 1, params: [], timestamp: 1, fee: 1 },
      headers: key,
    });
    assert.deepEqual([r.status, r.json.error], [400, 1]);
    r = await inject(app, 'POST', '/confidential-contracts/call', {
      body: body(secret.idBase58, { params: [{ key: '', type: 'integer', value: 1 }] }),
      headers: key,
    });
    assert.deepEqual([r.status, r.json.error], [400, 199]);
    r = await inject(app, 'POST', '/confidential-contracts/call?commitmentVerification=true', {
      body: body(secret.idBase58, { commitment: '0OIl' }),
      headers: key,
    });
    assert.deepEqual([r.status, r.json.error, r.json.message], [400, 199, 'error decoding commitment']);
    r = await inject(app, 'GET', '/confidential-contracts/tx/0OIl', { headers: key });
    assert.deepEqual([r.status, r.json.error, r.json.message], [400, 199, "Failed to decode base58 transaction id value '0OIl'"]);
    r = await inject(app, 'GET', `/confidential-contracts/${secret.idBase58}?limit=0`, { headers: key });
    assert.deepEqual([r.status, r.json.error], [400, 199]);
    assert.equal(broadcasted.length, 0);
  });

  it('with commitmentVerification: 624 and 625 for missing parts, 626 for a commitment that does not hold', async () => {
    const url = '/confidential-contracts/call?commitmentVerification=true';
    let r = await inject(app, 'POST', url, { body: body(secret.idBase58), headers: key });
    assert.deepEqual([r.status, r.json.error, r.json.message], [400, 624, "'commitment' is not present in request"]);
    const params: DataEntry[] = [{ key: 'amount', type: 'integer', value: 5n }];
    const good = encodeBase58(entriesCommitment(params, SALT, protocol));
    r = await inject(app, 'POST', url, { body: body(secret.idBase58, { commitment: good }), headers: key });
    assert.deepEqual([r.status, r.json.error], [400, 625]);
    r = await inject(app, 'POST', url, { body: body(secret.idBase58, { commitment: good, commitmentKey: encodeBase58(new Uint8Array(32)) }), headers: key });
    assert.deepEqual([r.status, r.json.error, r.json.message], [400, 626, 'Failed commitment validation']);
    r = await inject(app, 'POST', url, { body: body(secret.idBase58, { commitment: good, commitmentKey: encodeBase58(SALT) }), headers: key });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.confidentialInput.commitment, good);
    assert.equal(r.json.callContractTransactionV6.inputCommitment, good);
  });

  it('signs a CallContract V6 by the node owner, sends it and keeps the input; the 105 V4 keeps the output off-chain and both are served', async () => {
    const r = await inject(app, 'POST', '/confidential-contracts/call', {
      body: body(secret.idBase58, { timestamp: Number(BLOCK.timestamp) + 200 }),
      headers: key,
    });
    assert.equal(r.status, 200, r.text);
    const tx = broadcasted.at(-1)!;
    assert.ok(CallContract.is(tx) && tx.version === 6);
    assert.deepEqual(tx.senderPublicKey, node.publicKey);
    assert.deepEqual(tx.data.params, []);
    assert.equal(r.json.callContractTransactionV6.id, tx.idBase58);
    const input = r.json.confidentialInput;
    assert.equal(input.commitmentKey.bytes, encodeBase58(new Uint8Array(32).fill(42)));
    assert.deepEqual(input.entries, [{ key: 'amount', type: 'integer', value: 5 }]);
    assert.deepEqual(storage.get('input', decodeBase58(input.commitment))?.txId, tx.id);

    let r2 = await inject(app, 'GET', `/confidential-contracts/tx/${tx.idBase58}`, { headers: key });
    assert.deepEqual([r2.status, r2.json.error], [404, 601]);

    // The miner: a participant holding the input executes it and builds a 105 V4.
    const announced: string[] = [];
    const execution = new ConfidentialExecution({
      protocol,
      storage,
      confidentialState,
      ownerAddress: addressOf(node.publicKey).bytes,
      announce: (type) => announced.push(type),
      missingOutputs: () => false,
    });
    const prepared = execution.prepare(tx, state);
    assert.equal(prepared.kind, 'confidential');
    if (prepared.kind !== 'confidential') return;
    const results: DataEntry[] = [{ key: 'total', type: 'integer', value: 5n }];
    const run: ExecutionResult = { kind: 'success', results: [{ contractId: secret.id, results }], assetOperations: [] };
    const built = execution.build(
      tx,
      run,
      prepared.input,
      {
        protocol,
        isFeatureActive: () => true,
        miner: node,
        timestamp: BLOCK.timestamp + 300n,
      },
      execution.resultsOf(run, prepared.input, undefined),
    );
    assert.equal(built.kind, 'built');
    if (built.kind !== 'built') return;
    const executed = built.executed;
    assert.ok(ExecutedContract.is(executed) && executed.version === 4);
    assert.deepEqual(executed.data.results, []);
    assert.deepEqual(executed.data.outputCommitment, entriesCommitment(results, prepared.input.commitmentKey, protocol));
    assert.deepEqual(announced, ['output']);
    applyExecutedContract(state, executed, APPLY_CONTEXT);
    state.addTransaction(executed);
    assert.equal(state.contractKeys(secret.id).length, 0, 'no public results');

    r2 = await inject(app, 'GET', `/confidential-contracts/tx/${tx.idBase58}`, { headers: key });
    assert.equal(r2.status, 200, r2.text);
    assert.equal(r2.json.executedContractTransactionV4.id, executed.idBase58);
    assert.equal(r2.json.confidentialInput.commitment, input.commitment);
    assert.deepEqual(r2.json.confidentialOutput.entries, [{ key: 'total', type: 'integer', value: 5 }]);
    const state2 = await inject(app, 'GET', `/confidential-contracts/${secret.idBase58}`, { headers: key });
    assert.deepEqual(state2.json, [{ key: 'total', type: 'integer', value: 5 }]);

    // The next confidential call executes on the contract's confidential state.
    const next = await inject(app, 'POST', '/confidential-contracts/call', {
      body: body(secret.idBase58, { timestamp: Number(BLOCK.timestamp) + 400 }),
      headers: key,
    });
    assert.equal(next.status, 200, next.text);
    const again = execution.prepare(broadcasted.at(-1)!, state);
    assert.equal(again.kind, 'confidential');
    if (again.kind !== 'confidential') return;
    assert.deepEqual(again.view.contractData(secret.id, 'total'), { key: 'total', type: 'integer', value: 5n });
    assert.deepEqual(again.view.contractKeys(secret.id), ['total']);
    assert.equal(state.contractData(secret.id, 'total'), undefined, 'the public state is unchanged');
  });

  it('a node outside the participants leaves the call to its validators, one without the input waits', () => {
    const tx = broadcasted.at(-1)!;
    const outsider = new ConfidentialExecution({
      protocol,
      storage,
      confidentialState,
      ownerAddress: addressOf(validators[2]!.publicKey).bytes,
      announce: () => undefined,
      missingOutputs: () => false,
    });
    assert.equal(outsider.prepare(tx, state).kind, 'unpermitted');
    const empty = ConfidentialStorage.open(tempDir('weft-confidential-empty-'), protocol);
    const member = new ConfidentialExecution({
      protocol,
      storage: empty,
      confidentialState,
      ownerAddress: addressOf(node.publicKey).bytes,
      announce: () => undefined,
      missingOutputs: () => false,
    });
    assert.deepEqual(member.prepare(tx, state), { kind: 'skip', reason: 'the confidential input is not here yet' });
    void empty.close();
  });
});
