/**
 * The readings of confidential calls and the validators' results over them (WE 1.14's
 * ContractReadLogService, ReadDescriptor, ContractValidatorResultsV2 — P2P code 56): the
 * journal's descriptors and readingsHash, and the V2 message and what it signs, byte for
 * byte against vectors computed outside Weft (test/fixtures/confidential-readings-vectors.py:
 * Python's hashlib.blake2b and a pure-Python Keccak-256 over WE's layouts); then the
 * miner's gate on V2 results (the group's validators only, agreeing on readings and output
 * commitment too), the 105 V4 a miner outside the group builds from them, and what a node
 * applying such a 105 accepts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { ConfidentialExecution } from '../../src/contracts/confidential/execution.js';
import { ReadingsJournal } from '../../src/contracts/confidential/readings.js';
import { ConfidentialState } from '../../src/contracts/confidential/state.js';
import { ConfidentialStorage } from '../../src/contracts/confidential/storage.js';
import { ValidationGate } from '../../src/contracts/validation-gate.js';
import {
  agreementKey,
  decodeValidatorResultV2,
  encodeValidatorResultV2,
  refusalOf,
  ResultReadings,
  signValidatorResult,
  validatorResultSignatureHolds,
  validatorResultSignedBytes,
  ValidatorResultsStore,
  type ConfidentialResults,
  type ContractValidatorResult,
} from '../../src/contracts/validator-results.js';
import { DecodeError } from '../../src/errors/catalogue.js';
import {
  confidentialResultsSignedBytes,
  contractResultsHash,
  ExecutedContract,
  type CallContractTransaction,
  type ExecutedContractTransaction,
  type ReadDescriptor,
} from '../../src/protocol/transactions/contracts.js';
import { ROLES } from '../../src/protocol/transactions/permissions.js';
import { applyCallContract, applyCreateContract, applyExecutedContract } from '../../src/state/appliers/contracts.js';
import { tempDir } from '../../devkit/tmp.js';
import { confidentialCall, confidentialCreate } from './support/confidential.js';
import { APPLY_CONTEXT, BLOCK, developer, fund, keyBlockValidators, node, protocol } from '../../devkit/contracts/engine.js';
import { ContractTestState } from '../../devkit/contracts/state.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));

// Vectors of test/fixtures/confidential-readings-vectors.py.
const CONTRACT = new Uint8Array(32).fill(1);
const ASSET = '8LQW8f7P5d5PZM7GtZEBgaqRPGSzS3DfPuiXrURJ4AJS';
const DESCRIPTORS_HEX =
  '000020010101010101010101010101010101010101010101010101010101010101010100010007636f756e7465720100200101010101010101010101010101010101010101010101010101010101010101010003632e2a00010000000a020020010101010101010101010101010101010101010101010101010101010101010100020000002c384c515738663750356435505a4d3747745a4542676171525047537a53334466507569587255524a34414a53';
const READINGS_HASH_HEX = '9f6580944e977bddc39a1076312616f378ec459489f376a6b2372c6aaeaf1540';
const V2_MESSAGE_HEX =
  '0020000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f002002020202020202020202020202020202020202020202020202020202020202020040030303030303030303030303030303030303030303030303030303030303030303030303030303030303030303030303030303030303030303030303030303030003' +
  DESCRIPTORS_HEX +
  '010020' +
  READINGS_HASH_HEX +
  '0020' +
  '04'.repeat(32) +
  '0020' +
  '05'.repeat(32) +
  '0040' +
  '06'.repeat(64);

/** The three reads of the vectors, journaled as the gRPC service journals them. */
function vectorJournal(): ReadingsJournal {
  const journal = new ReadingsJournal(protocol);
  journal.key(CONTRACT, 'counter', { key: 'counter', type: 'integer', value: 7n });
  journal.keys(CONTRACT, { matches: 'c.*', limit: 10 }, [
    { key: 'counter', type: 'integer', value: 7n },
    { key: 'alpha', type: 'string', value: 'x' },
  ]);
  journal.balances(
    CONTRACT,
    ['', ASSET],
    [
      { assetId: ASSET, amount: 5n, decimals: 2 },
      { assetId: undefined, amount: 100n, decimals: 8 },
    ],
  );
  return journal;
}

const VECTOR_READINGS: ReadDescriptor[] = [
  { type: 'specific-keys', contractId: CONTRACT, keys: ['counter'] },
  { type: 'filtered-keys', contractId: CONTRACT, matches: 'c.*', offset: null, limit: 10 },
  { type: 'specific-balances', contractId: CONTRACT, assetIds: ['', ASSET] },
];

describe('readings of a confidential call', () => {
  it("are the read descriptors in read order and secureHash of the answers' hashes, as WE computes them", () => {
    const { readings, readingsHash } = vectorJournal().result();
    assert.deepEqual(readings, VECTOR_READINGS);
    assert.equal(hex(readingsHash!), READINGS_HASH_HEX);
    const bytes = confidentialResultsSignedBytes(protocol, readings, readingsHash, new Uint8Array(32).fill(4), new Uint8Array(32).fill(5));
    assert.equal(hex(bytes.subarray(0, DESCRIPTORS_HEX.length / 2)), DESCRIPTORS_HEX);
  });

  it('change with what the contract was answered, and are empty with no readingsHash when it read nothing', () => {
    const other = new ReadingsJournal(protocol);
    other.key(CONTRACT, 'counter', { key: 'counter', type: 'integer', value: 8n });
    const first = new ReadingsJournal(protocol);
    first.key(CONTRACT, 'counter', { key: 'counter', type: 'integer', value: 7n });
    assert.deepEqual(other.result().readings, first.result().readings);
    assert.notEqual(hex(other.result().readingsHash!), hex(first.result().readingsHash!));
    assert.deepEqual(new ReadingsJournal(protocol).result(), { readings: [], readingsHash: null });
  });

  it('ride in the 105 V4 and its JSON as WE writes them', () => {
    const { readings, readingsHash } = vectorJournal().result();
    const call = confidentialCall(protocol, developer, CONTRACT, new Uint8Array(32).fill(8), BLOCK.timestamp);
    const v4 = protocol.sign(
      protocol.transaction(ExecutedContract, 4, {
        senderPublicKey: node.publicKey,
        tx: call,
        results: [],
        resultsHash: contractResultsHash(protocol, []),
        validationProofs: [],
        timestamp: BLOCK.timestamp,
        assetOperations: [],
        readings,
        readingsHash,
        outputCommitment: new Uint8Array(32).fill(4),
      }),
      node.privateKey,
    );
    const back = protocol.transactionFromBytes(v4.bytes);
    assert.ok(ExecutedContract.is(back));
    assert.deepEqual(back.data.readings, VECTOR_READINGS);
    assert.equal(hex(back.data.readingsHash!), READINGS_HASH_HEX);
    const json = v4.toJson() as Record<string, unknown>;
    assert.deepEqual(json['readings'], [
      { contractId: encodeBase58(CONTRACT), keys: ['counter'] },
      { contractId: encodeBase58(CONTRACT), matches: 'c.*', limit: 10 },
      { contractId: encodeBase58(CONTRACT), assetIds: ['', ASSET] },
    ]);
    assert.equal(json['readingsHash'], encodeBase58(fromHex(READINGS_HASH_HEX)));
  });
});

describe('ContractValidatorResultsV2 (P2P code 56)', () => {
  const { readings, readingsHash } = vectorJournal().result();
  const confidential: ConfidentialResults = { readings: ResultReadings.of(protocol, readings), readingsHash, outputCommitment: new Uint8Array(32).fill(4) };
  /** Where message 56's readings start: after three SHORT fields (key 32, txId 32, keyBlockId 64) and the u16 count. */
  const READINGS_AT = 2 + 32 + 2 + 32 + 2 + 64 + 2;
  const fixed: ContractValidatorResult = {
    senderPublicKey: Uint8Array.from({ length: 32 }, (_, i) => i),
    txId: new Uint8Array(32).fill(2),
    keyBlockId: new Uint8Array(64).fill(3),
    resultsHash: new Uint8Array(32).fill(5),
    signature: new Uint8Array(64).fill(6),
    confidential,
  };

  it("is WE's ContractValidatorResultsV2Spec byte for byte, and reads back", () => {
    const bytes = encodeValidatorResultV2(protocol, fixed);
    assert.equal(hex(bytes), V2_MESSAGE_HEX);
    const decoded = decodeValidatorResultV2(protocol, bytes);
    assert.equal(hex(decoded.confidential!.readings.bytes), DESCRIPTORS_HEX, 'the readings keep the bytes they came in');
    assert.deepEqual(decoded, fixed);
    const noHash = {
      ...fixed,
      confidential: { readings: ResultReadings.of(protocol, []), readingsHash: null, outputCommitment: confidential.outputCommitment },
    };
    assert.deepEqual(decodeValidatorResultV2(protocol, encodeValidatorResultV2(protocol, noHash)), noHash);
  });

  it('checks a received result’s signature over its readings’ bytes as they came, not encoded again', () => {
    const v = protocol.crypto.keyPairFromSeedPhrase('weft readings validator');
    const received = decodeValidatorResultV2(
      protocol,
      encodeValidatorResultV2(protocol, signValidatorResult(protocol, v, fixed.txId, fixed.keyBlockId, fixed.resultsHash, confidential)),
    );
    assert.ok(validatorResultSignatureHolds(protocol, received));
    // The last byte of the readings (the last asset id's) changed on the way: it still parses, the signature no longer holds.
    const message = encodeValidatorResultV2(protocol, received);
    message[READINGS_AT + DESCRIPTORS_HEX.length / 2 - 1]! ^= 1;
    const altered = decodeValidatorResultV2(protocol, message);
    assert.notDeepEqual(altered.confidential!.readings.descriptors, readings);
    assert.ok(!validatorResultSignatureHolds(protocol, altered));
    assert.notEqual(agreementKey(protocol, fixed.resultsHash, altered.confidential), agreementKey(protocol, fixed.resultsHash, received.confidential));
  });

  it('gives a copy of a received result with other readings the bytes of those readings, not the ones that came', () => {
    const received = decodeValidatorResultV2(protocol, encodeValidatorResultV2(protocol, fixed));
    const fewer = ResultReadings.of(protocol, readings.slice(1));
    const copy = { ...received.confidential!, readings: fewer };
    assert.equal(hex(encodeValidatorResultV2(protocol, { ...received, confidential: copy })).includes(DESCRIPTORS_HEX), false);
    assert.equal(agreementKey(protocol, fixed.resultsHash, copy), agreementKey(protocol, fixed.resultsHash, { ...confidential, readings: fewer }));
    assert.notEqual(agreementKey(protocol, fixed.resultsHash, copy), agreementKey(protocol, fixed.resultsHash, received.confidential));
  });

  it('signs the readings, readingsHash, output commitment and results hash', () => {
    const v = protocol.crypto.keyPairFromSeedPhrase('weft readings validator');
    const r = signValidatorResult(protocol, v, fixed.txId, fixed.keyBlockId, fixed.resultsHash, confidential);
    assert.equal(
      hex(validatorResultSignedBytes(protocol, fixed.resultsHash, confidential)),
      DESCRIPTORS_HEX + READINGS_HASH_HEX + '04'.repeat(32) + '05'.repeat(32),
    );
    assert.ok(validatorResultSignatureHolds(protocol, decodeValidatorResultV2(protocol, encodeValidatorResultV2(protocol, r))));
    const tampered = [
      { ...r, confidential: { ...confidential, readings: ResultReadings.of(protocol, readings.slice(1)) } },
      { ...r, confidential: { ...confidential, readingsHash: new Uint8Array(32) } },
      { ...r, confidential: { ...confidential, outputCommitment: new Uint8Array(32) } },
      { ...r, resultsHash: new Uint8Array(32) },
    ];
    for (const t of tampered) {
      assert.ok(!validatorResultSignatureHolds(protocol, t));
      assert.equal(refusalOf(protocol, t, { isValidator: () => true, inPool: () => true }), 'wrong signature');
    }
  });

  it('refuses bytes that do not parse', () => {
    const bytes = encodeValidatorResultV2(protocol, fixed);
    assert.throws(() => decodeValidatorResultV2(protocol, bytes.subarray(0, bytes.length - 1)), DecodeError);
    assert.throws(() => decodeValidatorResultV2(protocol, new Uint8Array([...bytes, 0])), DecodeError);
    const badFlag = Uint8Array.from(bytes);
    badFlag[READINGS_AT + DESCRIPTORS_HEX.length / 2] = 2;
    assert.throws(() => decodeValidatorResultV2(protocol, badFlag), DecodeError);
  });
});

describe('a confidential call under a majority policy', () => {
  const addressOf = (pk: Uint8Array) => protocol.addresses.fromPublicKey(pk);
  const members = [0, 1, 2].map((i) => protocol.crypto.keyPairFromSeedPhrase(`weft readings member ${i}`));
  const outsiderValidator = protocol.crypto.keyPairFromSeedPhrase('weft readings validator outside the group');
  const KEY_BLOCK = new Uint8Array(64).fill(7);
  const keyBlock = { id: KEY_BLOCK, timestamp: BLOCK.timestamp, height: 2 };
  let state: ContractTestState;
  let storage: ConfidentialStorage;
  let store: ValidatorResultsStore;
  let gate: ValidationGate;
  let miner: ConfidentialExecution;
  let call: CallContractTransaction;
  const results = [{ key: 'total', type: 'integer' as const, value: 5n }];
  const resultsHash = contractResultsHash(protocol, results);
  const journal = vectorJournal().result();
  const agreed: ConfidentialResults = {
    readings: ResultReadings.of(protocol, journal.readings),
    readingsHash: journal.readingsHash,
    outputCommitment: new Uint8Array(32).fill(4),
  };
  const v2 = (k: (typeof members)[number], c: ConfidentialResults = agreed): ContractValidatorResult =>
    signValidatorResult(protocol, k, call.id, KEY_BLOCK, resultsHash, c);

  before(() => {
    state = ContractTestState.create(protocol);
    fund(state);
    fund(state, node);
    for (const v of [...members, outsiderValidator])
      state.addPermissionOp(addressOf(v.publicKey).bytes, { opType: 'add', role: ROLES.contract_validator, timestamp: 0n, dueTimestamp: null });
    const create = confidentialCreate(protocol, {
      sender: developer,
      timestamp: BLOCK.timestamp - 10n,
      isConfidential: true,
      participants: members.map((k) => addressOf(k.publicKey)),
      owners: [addressOf(developer.publicKey)],
      validationPolicy: { type: 'majority' },
    });
    applyCreateContract(state, create, { ...APPLY_CONTEXT, blockGenerator: undefined });
    call = confidentialCall(protocol, developer, create.id, new Uint8Array(32).fill(8), BLOCK.timestamp);
    applyCallContract(state, call, { ...APPLY_CONTEXT, blockGenerator: undefined });
    storage = ConfidentialStorage.open(tempDir('weft-readings-'), protocol);
    store = new ValidatorResultsStore({ protocol, now: () => 0n, maxResults: 100, expireAfterMs: 60_000 });
    gate = new ValidationGate({
      protocol,
      store,
      validators: keyBlockValidators(state, () => keyBlock),
      minerAddress: addressOf(node.publicKey).toString(),
      isFeatureActive: () => true,
    });
    // The miner (`node`) is not in the group.
    miner = new ConfidentialExecution({
      protocol,
      storage,
      confidentialState: new ConfidentialState(storage, () => undefined),
      ownerAddress: addressOf(node.publicKey).bytes,
      announce: () => undefined,
      missingOutputs: () => false,
    });
  });

  after(async () => {
    await storage.close();
  });

  it("counts only V2 results of the group's validators that agree on readings and output commitment as well", () => {
    assert.equal(miner.prepare(call, state).kind, 'unpermitted');
    store.add(v2(members[0]!));
    store.add(v2(outsiderValidator));
    // A V1 over the same results hash and a V2 with other readings: neither agrees.
    store.add(signValidatorResult(protocol, members[1]!, call.id, KEY_BLOCK, resultsHash));
    store.add(v2(members[2]!, { ...agreed, readings: ResultReadings.of(protocol, agreed.readings.descriptors.slice(0, 1)) }));
    assert.ok(!gate.ready(call, state, keyBlock));
    assert.equal(gate.fromValidators(call, state, keyBlock), undefined);
    assert.notEqual(agreementKey(protocol, resultsHash, agreed), agreementKey(protocol, resultsHash, { ...agreed, readingsHash: null }));
    store.add(v2(members[1]!));
    assert.ok(gate.ready(call, state, keyBlock));
  });

  it('a miner outside the group builds the 105 V4 from them; nodes accept it, and refuse it with fewer or other proofs', () => {
    const found = gate.fromValidators(call, state, keyBlock)!;
    assert.ok(found !== undefined);
    assert.deepEqual(
      found.proofs.map((p) => addressOf(p.validatorPublicKey).toString()),
      [members[0]!, members[1]!].map((k) => addressOf(k.publicKey).toString()),
    );
    const ctx = { protocol, isFeatureActive: () => true, miner: node, timestamp: BLOCK.timestamp + 1n };
    const built = miner.buildFromValidators(call, found, { ...ctx, validationProofs: found.proofs });
    assert.ok(built.kind === 'built' && ExecutedContract.is(built.executed) && built.executed.version === 4);
    const v4 = built.executed;
    assert.deepEqual(v4.data.readings, agreed.readings.descriptors);
    assert.deepEqual(v4.data.readingsHash, agreed.readingsHash);
    assert.deepEqual(v4.data.resultsHash, resultsHash);
    assert.deepEqual(v4.data.results, []);

    const apply = (tx: ExecutedContractTransaction): unknown => applyExecutedContract(state.fork(), tx, APPLY_CONTEXT);
    assert.doesNotThrow(() => apply(v4));
    const one = miner.buildFromValidators(call, found, { ...ctx, validationProofs: found.proofs.slice(0, 1) });
    assert.ok(one.kind === 'built');
    assert.throws(() => apply(one.executed), /Invalid validation proofs for results hash '\w+'. Actual '1', expected '2'/);
    // Proofs signed over the results hash alone (V1 signatures) do not hold for a V4.
    const v1Proofs = [members[0]!, members[1]!].map((k) => ({ validatorPublicKey: k.publicKey, signature: protocol.crypto.sign(k.privateKey, resultsHash) }));
    const v1 = miner.buildFromValidators(call, found, { ...ctx, validationProofs: v1Proofs });
    assert.ok(v1.kind === 'built');
    assert.throws(() => apply(v1.executed), /Invalid validator '\w+' signature/);
    // Readings other than the ones signed.
    const other = miner.buildFromValidators(
      call,
      { ...found, confidential: { ...found.confidential, readingsHash: decodeBase58(encodeBase58(new Uint8Array(32).fill(9))) } },
      { ...ctx, validationProofs: found.proofs },
    );
    assert.ok(other.kind === 'built');
    assert.throws(() => apply(other.executed), /Invalid validator '\w+' signature/);
  });
});
