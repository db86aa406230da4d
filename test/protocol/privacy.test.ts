import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blake2b } from '@noble/hashes/blake2.js';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import {
  CreatePolicy,
  PolicyDataHash,
  policyNameTooLong,
  UpdatePolicy,
  type CreatePolicyData,
  type PolicyDataHashData,
  type UpdatePolicyData,
} from '../../src/protocol/transactions/privacy.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { expectWeError, onlyWeErrors } from '../support/errors.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const alice = p.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
const ALICE = '3N75XuUxaztmvSTXLie2ibFjXKZscqnMR3d';
const ALICE_HEX = '0154bc43b1cc86492da961878ffdd2099b0859d9c7bf8bfc24a8';
const BOB = '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkC';
const BOB_HEX = '0154a3023f22764b1aafed7ed3beb6b5a73467a84dacd5f10c21';
const PK_HEX = 'd64f91e5d7c5d4d0a4ee81045689f4fe0d8dec1fb84005d3b48e4be68673e22a';
const SIG = encodeBase58(new Uint8Array(64).fill(1));
const ID = encodeBase58(new Uint8Array(32).fill(7));
const HASH = encodeBase58(new Uint8Array(32).fill(9));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const createData = (tx: Transaction): CreatePolicyData => tx.data as CreatePolicyData;
const updateData = (tx: Transaction): UpdatePolicyData => tx.data as UpdatePolicyData;
const hashData = (tx: Transaction): PolicyDataHashData => tx.data as PolicyDataHashData;

const common = { senderPublicKey: encodeBase58(alice.publicKey), fee: 100_000_000, timestamp: 1_700_000_000_000, proofs: [SIG] };

const createJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 112,
  version: 3,
  ...common,
  policyName: 'pol',
  description: '',
  recipients: [BOB],
  owners: [ALICE, BOB],
  ...over,
});

const updateJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 113,
  version: 3,
  ...common,
  policyId: ID,
  recipients: [BOB],
  owners: [],
  opType: 'add',
  ...over,
});

const hashJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 114,
  version: 3,
  ...common,
  dataHash: HASH,
  policyId: ID,
  ...over,
});

describe('privacy: layouts and JSON', () => {
  it('CreatePolicy body (hand-checked): BIG_LIST counts are 4 bytes, list order kept', () => {
    const tx = p.transactionFromJson(createJson({ version: 1, proofs: [] }));
    assert.equal(
      hex(tx.bodyBytes),
      '7001' + PK_HEX + '0003' + '706f6c' + '0000' + '00000001' + BOB_HEX + '00000002' + ALICE_HEX + BOB_HEX + '0000018bcfe56800' + '0000000005f5e100',
    );
    assert.equal(hex(tx.id), hex(blake2b(tx.bodyBytes, { dkLen: 32 })));
    const v3 = p.transactionFromJson(createJson({ proofs: [], feeAssetId: ID, atomicBadge: {} }));
    assert.equal(hex(v3.bodyBytes), '7003' + hex(tx.bodyBytes).slice(4) + '01' + '07'.repeat(32) + '0100');
    // Duplicates and order are kept (a list, not a set).
    const dup = p.transactionFromJson(createJson({ owners: [BOB, ALICE, BOB] }));
    assert.deepEqual(dup.toJson()['owners'], [BOB, ALICE, BOB]);
    assert.equal(p.transactionFromBytes(dup.bytes).idBase58, dup.idBase58);
  });

  it('UpdatePolicy and PolicyDataHash bodies (hand-checked)', () => {
    const u = p.transactionFromJson(updateJson({ version: 2, proofs: [], opType: 'remove' }));
    assert.equal(
      hex(u.bodyBytes),
      '7102' + PK_HEX + '0020' + '07'.repeat(32) + '00000001' + BOB_HEX + '00000000' + '72' + '0000018bcfe56800' + '0000000005f5e100' + '00',
    );
    const h = p.transactionFromJson(hashJson({ proofs: [] }));
    assert.equal(
      hex(h.bodyBytes),
      '7203' + PK_HEX + '0020' + '09'.repeat(32) + '0020' + '07'.repeat(32) + '0000018bcfe56800' + '0000000005f5e100' + '00' + '00',
    );
    assert.equal(hex(h.id), hex(blake2b(h.bodyBytes, { dkLen: 32 })));
  });

  it('writes the node JSON in WE key order', () => {
    const base = ['type', 'id', 'sender', 'senderPublicKey', 'fee', 'timestamp', 'proofs', 'version'];
    assert.deepEqual(Object.keys(p.transactionFromJson(createJson()).toJson()), [
      ...base,
      'policyName',
      'description',
      'recipients',
      'owners',
      'feeAssetId',
      'atomicBadge',
    ]);
    assert.deepEqual(Object.keys(p.transactionFromJson(createJson({ version: 1 })).toJson()), [...base, 'policyName', 'description', 'recipients', 'owners']);
    assert.deepEqual(Object.keys(p.transactionFromJson(updateJson()).toJson()), [
      ...base,
      'policyId',
      'recipients',
      'owners',
      'opType',
      'feeAssetId',
      'atomicBadge',
    ]);
    assert.deepEqual(Object.keys(p.transactionFromJson(hashJson()).toJson()), [...base, 'dataHash', 'policyId', 'feeAssetId', 'atomicBadge']);
    const out = p.transactionFromJson(hashJson({ feeAssetId: '' })).toJson();
    assert.equal(out['dataHash'], HASH);
    assert.equal(out['policyId'], ID);
    assert.equal(out['feeAssetId'], null);
    assert.equal(out['atomicBadge'], null);
  });
});

describe('CreatePolicy: request rules', () => {
  it('policyName at most 100 characters (199 "policy name is too long")', () => {
    expectWeError(() => p.transactionFromJson(createJson({ policyName: 'n'.repeat(101) })), 199, 'policy name is too long', 'policyName');
    assert.ok(p.transactionFromJson(createJson({ policyName: 'n'.repeat(100) })));
    // Characters are UTF-16 units: 51 astral characters are 102.
    expectWeError(() => p.transactionFromJson(createJson({ policyName: '😀'.repeat(51) })), 199, 'policy name is too long', 'policyName');
    assert.ok(p.transactionFromJson(createJson({ policyName: 'я'.repeat(100) })));
    assert.ok(policyNameTooLong('n'.repeat(101)) && !policyNameTooLong('n'.repeat(100)));
  });

  it('the name rule is WE state validation for binary input: the parser accepts it', () => {
    const tx = p.transactionFromJson(createJson({ policyName: 'n'.repeat(100) }));
    const longer = p.transaction(CreatePolicy, 3, { ...tx.data, policyName: 'n'.repeat(150) }, tx.proofs);
    assert.equal(p.transactionFromBytes(longer.bytes).toJson()['policyName'], 'n'.repeat(150));
    assert.ok(policyNameTooLong(longer.data.policyName));
  });

  it('description shorter than 32767 characters', () => {
    expectWeError(() => p.transactionFromJson(createJson({ description: 'd'.repeat(32767) })), 199, 'policy description is too long', 'description');
    assert.equal(createData(p.transactionFromJson(createJson({ description: 'd'.repeat(32766) }))).description.length, 32766);
    // Within the character limit but beyond what a u16 byte length can hold.
    expectWeError(() => p.transactionFromJson(createJson({ description: '€'.repeat(30000) })), 199, /too long: 90000 bytes/, 'description');
  });

  it('addresses must be valid for this network (102), arrays (1)', () => {
    expectWeError(
      () => p.transactionFromJson(createJson({ recipients: [BOB, '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkD'] })),
      102,
      /Bad address checksum/,
      'recipients(1)',
    );
    expectWeError(() => p.transactionFromJson(createJson({ owners: ['alias:T:john'] })), 102, undefined, 'owners(0)');
    expectWeError(() => p.transactionFromJson(createJson({ owners: BOB })), 1, undefined, 'owners');
    expectWeError(() => p.transactionFromJson(createJson({ recipients: [5] })), 1, undefined, 'recipients(0)');
    expectWeError(() => p.transactionFromJson(createJson({ recipients: undefined })), 1, undefined, 'recipients');
    const otherNet = encodeBase58(Uint8Array.from([1, 0x4c, ...new Uint8Array(24)]));
    expectWeError(() => p.transactionFromJson(createJson({ recipients: [otherNet] })), 102, undefined, 'recipients(0)');
    assert.deepEqual(p.transactionFromJson(createJson({ recipients: [], owners: [] })).toJson()['owners'], []);
  });

  it('feeAssetId: "" and null are WEST; a bad one is "invalid.feeAssetId"', () => {
    for (const feeAssetId of ['', null, undefined]) assert.equal(p.transactionFromJson(createJson({ feeAssetId })).toJson()['feeAssetId'], null);
    expectWeError(() => p.transactionFromJson(createJson({ version: 2, feeAssetId: 'WAVES' })), 199, 'invalid.feeAssetId', 'feeAssetId');
    expectWeError(() => p.transactionFromJson(createJson({ feeAssetId: '1'.repeat(45) })), 199, 'invalid.feeAssetId', 'feeAssetId');
    // V1 has no feeAssetId: the key is ignored.
    assert.ok(!('feeAssetId' in p.transactionFromJson(createJson({ version: 1, feeAssetId: 'WAVES' })).toJson()));
  });

  it('wrong JSON types are WrongJson (1)', () => {
    expectWeError(() => p.transactionFromJson(createJson({ policyName: 5 })), 1, undefined, 'policyName');
    expectWeError(() => p.transactionFromJson(createJson({ description: undefined })), 1, undefined, 'description');
    expectWeError(() => p.transactionFromJson(createJson({ fee: 1e30 })), 1, undefined, 'fee');
    expectWeError(() => p.transactionFromJson(createJson({ timestamp: -(2n ** 64n) })), 1, undefined, 'timestamp');
  });
});

describe('UpdatePolicy: request rules', () => {
  it('policyId: any Base58; V1 words a failure differently', () => {
    expectWeError(() => p.transactionFromJson(updateJson({ policyId: 'I0' })), 199, "Failed to decode policyId: 'I0'", 'policyId');
    expectWeError(() => p.transactionFromJson(updateJson({ version: 2, policyId: 'I0' })), 199, "Failed to decode policyId: 'I0'", 'policyId');
    expectWeError(() => p.transactionFromJson(updateJson({ version: 1, policyId: 'I0' })), 199, 'Failed to decode policyId (I0) to Base58', 'policyId');
    expectWeError(() => p.transactionFromJson(updateJson({ policyId: 7 })), 1, undefined, 'policyId');
    // Any length is carried (the state layer looks it up).
    assert.equal(updateData(p.transactionFromJson(updateJson({ policyId: '' }))).policyId.length, 0);
    assert.equal(updateData(p.transactionFromJson(updateJson({ policyId: encodeBase58(new Uint8Array(50).fill(3)) }))).policyId.length, 50);
  });

  it('opType as OpType.fromStr reads it', () => {
    expectWeError(() => p.transactionFromJson(updateJson({ opType: 'x' })), 199, 'OpType.fromStr failure: unknown operation string x', 'opType');
    assert.equal(p.transactionFromJson(updateJson({ opType: 'REMOVE' })).toJson()['opType'], 'remove');
  });

  it('feeAssetId from V2', () => {
    expectWeError(() => p.transactionFromJson(updateJson({ feeAssetId: 'l' })), 199, 'invalid.feeAssetId', 'feeAssetId');
    assert.ok(!('feeAssetId' in p.transactionFromJson(updateJson({ version: 1 })).toJson()));
  });
});

describe('PolicyDataHash: request rules', () => {
  it('dataHash must be Base58 of 32 bytes (PolicyDataHash.fromBase58String)', () => {
    expectWeError(() => p.transactionFromJson(hashJson({ dataHash: 'l0' })), 199, "Failed to decode policy data hash: 'l0'", 'dataHash');
    expectWeError(
      () => p.transactionFromJson(hashJson({ dataHash: encodeBase58(new Uint8Array(31).fill(1)) })),
      199,
      'Invalid policy data hash length',
      'dataHash',
    );
    expectWeError(
      () => p.transactionFromJson(hashJson({ dataHash: encodeBase58(new Uint8Array(33).fill(1)) })),
      199,
      'Invalid policy data hash length',
      'dataHash',
    );
    expectWeError(() => p.transactionFromJson(hashJson({ dataHash: '' })), 199, 'Invalid policy data hash length', 'dataHash');
    expectWeError(() => p.transactionFromJson(hashJson({ dataHash: '2'.repeat(5000) })), 199, 'Invalid policy data hash length', 'dataHash');
    expectWeError(() => p.transactionFromJson(hashJson({ dataHash: '2'.repeat(5000) + '_' })), 199, /^Failed to decode policy data hash/, 'dataHash');
    // 32 zero bytes: 32 × '1'.
    assert.equal(hashData(p.transactionFromJson(hashJson({ dataHash: '1'.repeat(32) }))).dataHash.length, 32);
    expectWeError(() => p.transactionFromJson(hashJson({ dataHash: null })), 1, undefined, 'dataHash');
  });

  it('its reader says "Invalid proof" and "Invalid feeAssetId"', () => {
    expectWeError(() => p.transactionFromJson(hashJson({ proofs: ['0OIl'] })), 199, 'Invalid proof', 'proofs');
    expectWeError(() => p.transactionFromJson(hashJson({ proofs: [encodeBase58(new Uint8Array(70).fill(1))] })), 199, 'Invalid proof', 'proofs');
    expectWeError(() => p.transactionFromJson(hashJson({ proofs: Array(9).fill(SIG) })), 199, 'Too many proofs, max 8 proofs', 'proofs');
    expectWeError(() => p.transactionFromJson(hashJson({ feeAssetId: 'WAVES' })), 199, 'Invalid feeAssetId', 'feeAssetId');
    // The sender comes first, then the proofs, then the fields.
    expectWeError(() => p.transactionFromJson(hashJson({ senderPublicKey: 'x', proofs: ['0'] })), 108, undefined, 'senderPublicKey');
    expectWeError(() => p.transactionFromJson(hashJson({ dataHash: 'l', proofs: ['0'] })), 199, 'Invalid proof', 'proofs');
    // Other policy requests keep the lower-case message.
    expectWeError(() => p.transactionFromJson(createJson({ proofs: ['0OIl'] })), 199, 'invalid proof', 'proofs');
  });

  it('only V3 may be broadcast; V1 and V2 are read from binary', () => {
    for (const version of [1, 2]) {
      expectWeError(() => p.transactionFromJson(hashJson({ version })), 199, `PolicyDataHash V${version} transaction is not allowed to be broadcasted`);
      const tx = p.transactionFromJson(hashJson({ version, feeAssetId: ID }), { forBroadcast: false });
      const back = p.transactionFromBytes(tx.bytes);
      assert.equal(back.version, version);
      assert.equal(stringifyJson(back.toJson()), stringifyJson(tx.toJson()));
      assert.equal(back.toJson()['feeAssetId'], version === 2 ? ID : undefined);
    }
  });

  it('binary input takes a data hash of any length, as WE does', () => {
    const tx = p.transactionFromJson(hashJson());
    const short = p.transaction(PolicyDataHash, 3, { ...tx.data, dataHash: new Uint8Array(5) }, tx.proofs);
    assert.equal(hashData(p.transactionFromBytes(short.bytes)).dataHash.length, 5);
  });
});

describe('privacy: malformed binary', () => {
  const signed = [
    p.sign(p.transactionFromJson(createJson({ proofs: [], feeAssetId: ID, atomicBadge: { trustedSender: BOB } })), alice.privateKey),
    p.sign(p.transactionFromJson(updateJson({ proofs: [], version: 1 })), alice.privateKey),
    p.sign(p.transactionFromJson(hashJson({ proofs: [] })), alice.privateKey),
  ];

  it('signatures verify after a binary round trip', () => {
    for (const tx of signed) assert.ok(p.transactionFromBytes(tx.bytes).hasValidSenderSignature());
  });

  it('every truncation and mutation is a WeError', () => {
    for (const tx of signed) {
      for (let n = 0; n < tx.bytes.length; n++) expectWeError(() => p.transactionFromBytes(tx.bytes.subarray(0, n)), 199);
      fc.assert(
        fc.property(fc.nat(tx.bytes.length - 1), fc.integer({ min: 0, max: 255 }), (i, v) => {
          const m = Uint8Array.from(tx.bytes);
          m[i] = v;
          onlyWeErrors(() => p.transactionFromBytes(m));
        }),
        { numRuns: 500 },
      );
    }
  });

  it('list counts beyond the bytes are refused without allocating', () => {
    const tx = signed[0]!;
    const at = 1 + 2 + 32 + 2 + 3 + 2; // the recipients count
    for (const count of [0x7fffffff, -1, 1000]) {
      const m = Uint8Array.from(tx.bytes);
      new DataView(m.buffer).setInt32(at, count);
      expectWeError(() => p.transactionFromBytes(m), 199, /list size|underflow/);
    }
    // A count that stays inside the bytes misreads what follows: still only a WeError.
    const m = Uint8Array.from(tx.bytes);
    new DataView(m.buffer).setInt32(at, 2);
    assert.throws(() => p.transactionFromBytes(m));
    onlyWeErrors(() => p.transactionFromBytes(m));
  });

  it('addresses of another network or version are refused (102)', () => {
    const tx = signed[0]!;
    const at = 1 + 2 + 32 + 2 + 3 + 2 + 4; // the first recipient
    const m = Uint8Array.from(tx.bytes);
    m[at + 1] = 0x4c;
    expectWeError(() => p.transactionFromBytes(m), 102, /Data from other network/);
    assert.ok(UpdatePolicy.is(p.transactionFromBytes(signed[1]!.bytes)));
  });
});
