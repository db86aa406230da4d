import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blake2b } from '@noble/hashes/blake2.js';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { RegisterNode } from '../../src/protocol/transactions/nodes.js';
import { expectWeError, onlyWeErrors } from '../support/errors.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const alice = p.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
const BOB_PK = '6Sd4bygAw9RtYLexRcKtpjSnaRK94SagAQoKKQPEqzrh';
const BOB = '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkC';
const SIG = encodeBase58(new Uint8Array(64).fill(1));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

const json = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 111,
  version: 2,
  senderPublicKey: encodeBase58(alice.publicKey),
  targetPubKey: BOB_PK,
  nodeName: 'node-1',
  opType: 'add',
  fee: 1_000_000,
  timestamp: 1_700_000_000_000,
  proofs: [SIG],
  ...over,
});

describe('RegisterNode: layout and JSON', () => {
  it('body bytes follow the TxScheme field order (hand-checked)', () => {
    const v1 = p.transactionFromJson(json({ version: 1, proofs: [] }));
    const expected =
      '6f01' +
      'd64f91e5d7c5d4d0a4ee81045689f4fe0d8dec1fb84005d3b48e4be68673e22a' + // sender
      '50dabafd6e7bd8789408e82596ba411850e1d625ea8ffe6e01e15132a738e416' + // target public key
      '0006' +
      Buffer.from('node-1').toString('hex') + // nodeName
      '61' + // 'a'
      '0000018bcfe56800' + // timestamp
      '00000000000f4240'; // fee
    assert.equal(hex(v1.bodyBytes), expected);
    assert.equal(hex(v1.id), hex(blake2b(v1.bodyBytes, { dkLen: 32 })));
    const v2 = p.transactionFromJson(json({ proofs: [], opType: 'remove', nodeName: null, atomicBadge: { trustedSender: BOB } }));
    assert.equal(
      hex(v2.bodyBytes),
      '6f02d64f91e5d7c5d4d0a4ee81045689f4fe0d8dec1fb84005d3b48e4be68673e22a50dabafd6e7bd8789408e82596ba411850e1d625ea8ffe6e01e15132a738e416' +
        '0000' + // no name: the empty string
        '72' + // 'r'
        '0000018bcfe5680000000000000f4240' +
        '0101' +
        '0154a3023f22764b1aafed7ed3beb6b5a73467a84dacd5f10c21', // badge with a trusted sender
    );
    // Full bytes: 0x00 ‖ body ‖ proofs block.
    assert.equal(hex(v2.bytes), '00' + hex(v2.bodyBytes) + '010000');
  });

  it('writes targetPubKey, target as an address, nodeName (null when absent), opType', () => {
    const tx = p.transactionFromJson(json({ atomicBadge: {} }));
    const out = tx.toJson();
    assert.deepEqual(Object.keys(out), [
      'type',
      'id',
      'sender',
      'senderPublicKey',
      'fee',
      'timestamp',
      'proofs',
      'version',
      'targetPubKey',
      'target',
      'nodeName',
      'opType',
      'atomicBadge',
    ]);
    assert.equal(out['targetPubKey'], BOB_PK);
    assert.equal(out['target'], BOB);
    assert.equal(out['nodeName'], 'node-1');
    assert.equal(out['opType'], 'add');
    assert.deepEqual(out['atomicBadge'], {});
    const v1 = p.transactionFromJson(json({ version: 1, opType: 'remove', nodeName: undefined, atomicBadge: {} })).toJson();
    assert.equal(v1['nodeName'], null);
    assert.ok(!('atomicBadge' in v1), 'V1 has no badge');
  });

  it('an empty name reads back as null from binary (NODE_NAME writes None as "")', () => {
    const tx = p.transactionFromJson(json({ opType: 'remove', nodeName: '' }));
    assert.equal(tx.toJson()['nodeName'], '');
    const back = p.transactionFromBytes(tx.bytes);
    assert.equal(back.toJson()['nodeName'], null);
    assert.equal(back.idBase58, tx.idBase58);
  });

  it('signs and verifies', () => {
    const signed = p.sign(p.transactionFromJson(json({ proofs: [] })), alice.privateKey);
    assert.ok(signed.hasValidSenderSignature());
    assert.ok(p.transactionFromBytes(signed.bytes).hasValidSenderSignature());
  });

  it('GOST: the target is a 64-byte key', async () => {
    const g = await Protocol.create({ crypto: 'gost', chainId: 'T' });
    const gAlice = g.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
    const gBob = g.crypto.keyPairFromSeedPhrase('second seed phrase for testing only please ignore');
    const tx = g.transactionFromJson(json({ senderPublicKey: encodeBase58(gAlice.publicKey), targetPubKey: encodeBase58(gBob.publicKey) }));
    assert.equal(tx.bodyBytes.length, 2 + 64 + 64 + 2 + 6 + 1 + 8 + 8 + 1);
    assert.equal(tx.toJson()['target'], g.addresses.fromPublicKey(gBob.publicKey).toString());
    assert.equal(g.transactionFromBytes(tx.bytes).idBase58, tx.idBase58);
    expectWeError(() => g.transactionFromJson(json({ senderPublicKey: encodeBase58(gAlice.publicKey) })), 108, /invalid public key/, 'targetPubKey');
  });
});

describe('RegisterNode: stateless rules (RegisterNodeValidation)', () => {
  it('nodeName must be shorter than 100 characters (UTF-16 units)', () => {
    expectWeError(() => p.transactionFromJson(json({ nodeName: 'n'.repeat(100) })), 199, 'NodeName length should be less than 100', 'nodeName');
    assert.equal(p.transactionFromJson(json({ nodeName: 'n'.repeat(99) })).bodyBytes.length, 2 + 32 + 32 + 2 + 99 + 1 + 8 + 8 + 1);
    // 50 astral characters are 100 UTF-16 units.
    expectWeError(() => p.transactionFromJson(json({ nodeName: '😀'.repeat(50) })), 199, 'NodeName length should be less than 100', 'nodeName');
    assert.ok(p.transactionFromJson(json({ nodeName: 'я'.repeat(99) })));
    // Also for a removal.
    expectWeError(() => p.transactionFromJson(json({ opType: 'remove', nodeName: 'n'.repeat(120) })), 199, 'NodeName length should be less than 100');
  });

  it('adding needs a non-empty nodeName', () => {
    for (const nodeName of [undefined, null, '']) {
      expectWeError(() => p.transactionFromJson(json({ nodeName })), 199, 'NodeName should not be empty', 'opType');
    }
    for (const nodeName of [undefined, null, '', 'x']) assert.ok(p.transactionFromJson(json({ opType: 'remove', nodeName })));
  });

  it('the rules hold for binary input too', () => {
    const remove = p.transactionFromJson(json({ opType: 'remove', nodeName: null }));
    const asAdd = Uint8Array.from(remove.bytes);
    asAdd[1 + 2 + 32 + 32 + 2] = 0x61;
    expectWeError(() => p.transactionFromBytes(asAdd), 199, 'NodeName should not be empty');
    const long = p.transactionFromJson(json({ opType: 'remove', nodeName: 'n'.repeat(99) }));
    const longer = Uint8Array.from([...long.bytes.subarray(0, 67), 0, 100, ...Buffer.from('n'.repeat(100)), ...long.bytes.subarray(67 + 2 + 99)]);
    expectWeError(() => p.transactionFromBytes(longer), 199, 'NodeName length should be less than 100');
    // Typed construction too.
    expectWeError(() => p.transaction(RegisterNode, 2, { ...remove.data, opType: 'add' }), 199, 'NodeName should not be empty', 'opType');
  });

  it('opType is "add" or "remove", any case (OpType.fromStr)', () => {
    assert.equal(p.transactionFromJson(json({ opType: 'ADD' })).toJson()['opType'], 'add');
    assert.equal(p.transactionFromJson(json({ opType: 'Remove' })).toJson()['opType'], 'remove');
    expectWeError(() => p.transactionFromJson(json({ opType: 'Delete' })), 199, 'OpType.fromStr failure: unknown operation string delete', 'opType');
    expectWeError(() => p.transactionFromJson(json({ opType: 1 })), 1, 'failed to parse json message', 'opType');
    expectWeError(() => p.transactionFromJson(json({ opType: undefined })), 1, 'failed to parse json message', 'opType');
    const bad = Uint8Array.from(p.transactionFromJson(json()).bytes);
    bad[1 + 2 + 32 + 32 + 2 + 6] = 0x78;
    expectWeError(() => p.transactionFromBytes(bad), 199, 'OpType.fromByte failure: unknown operation byte 120', 'opType');
  });
});

describe('RegisterNode: malformed input', () => {
  it('targetPubKey: Base58 of a 32-byte key, required (108 / 1)', () => {
    expectWeError(() => p.transactionFromJson(json({ targetPubKey: '0OIl' })), 108, /invalid public key: .*Unable to decode base58/, 'targetPubKey');
    expectWeError(() => p.transactionFromJson(json({ targetPubKey: encodeBase58(new Uint8Array(31).fill(1)) })), 108, /invalid public key/, 'targetPubKey');
    expectWeError(() => p.transactionFromJson(json({ targetPubKey: 'x'.repeat(100) })), 108, /Bad public key string length/, 'targetPubKey');
    expectWeError(() => p.transactionFromJson(json({ targetPubKey: undefined })), 1, undefined, 'targetPubKey');
    // `target` is output only.
    expectWeError(() => p.transactionFromJson(json({ targetPubKey: undefined, target: BOB_PK })), 1, undefined, 'targetPubKey');
    expectWeError(() => p.transactionFromJson(json({ targetPubKey: 7 })), 1, undefined, 'targetPubKey');
  });

  it('wrong JSON types and int64 overflow are WrongJson', () => {
    expectWeError(() => p.transactionFromJson(json({ nodeName: 5 })), 1, undefined, 'nodeName');
    expectWeError(() => p.transactionFromJson(json({ fee: 2n ** 63n })), 1, undefined, 'fee');
    expectWeError(() => p.transactionFromJson(json({ timestamp: '1' })), 1, undefined, 'timestamp');
    expectWeError(() => p.transactionFromJson(json({ atomicBadge: 'yes' })), 1, undefined, 'atomicBadge');
    expectWeError(() => p.transactionFromJson(json({ atomicBadge: { trustedSender: 'nope' } })), 102);
    expectWeError(() => p.transactionFromJson(json({ version: 3 })), 199, 'Bad transaction type (111) and version (3)');
  });

  it('truncated, extended and mutated bytes give WeErrors only', () => {
    const signed = p.sign(p.transactionFromJson(json({ proofs: [], atomicBadge: { trustedSender: BOB } })), alice.privateKey);
    for (let n = 0; n < signed.bytes.length; n++) expectWeError(() => p.transactionFromBytes(signed.bytes.subarray(0, n)), 199);
    expectWeError(() => p.transactionFromBytes(Uint8Array.from([...signed.bytes, 0])), 199);
    fc.assert(
      fc.property(fc.nat(signed.bytes.length - 1), fc.integer({ min: 0, max: 255 }), (i, v) => {
        const m = Uint8Array.from(signed.bytes);
        m[i] = v;
        onlyWeErrors(() => p.transactionFromBytes(m));
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips JSON → bytes → JSON for generated values', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 49 }),
        fc.constantFrom('add', 'remove'),
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        (nodeName, opType, fee) => {
          const tx = p.transactionFromJson(json({ nodeName, opType, fee }));
          assert.equal(stringifyJson(p.transactionFromBytes(tx.bytes).toJson()), stringifyJson(tx.toJson()));
        },
      ),
      { numRuns: 200 },
    );
  });
});
