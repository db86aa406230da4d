import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { MassTransfer, Transfer, type TransferData } from '../../src/protocol/transactions/transfer.js';
import { expectWeError, onlyWeErrors } from '../support/errors.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const alice = p.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
const BOB = '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkC';
const SIG = encodeBase58(new Uint8Array(64).fill(1));

const transferJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 4,
  version: 3,
  senderPublicKey: encodeBase58(alice.publicKey),
  recipient: BOB,
  amount: 100_000_000,
  fee: 1_000_000,
  timestamp: 1_700_000_000_000,
  attachment: '',
  proofs: [SIG],
  ...over,
});

const massJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 11,
  version: 2,
  senderPublicKey: encodeBase58(alice.publicKey),
  transfers: [{ recipient: BOB, amount: 5 }],
  fee: 1_000_000,
  timestamp: 1_700_000_000_000,
  attachment: '',
  proofs: [SIG],
  ...over,
});

describe('Transfer: the reference vector', () => {
  it('gives the reference body and id (crypto-and-transactions §4.12)', () => {
    const tx = p.transactionFromJson(transferJson({ proofs: [] }));
    assert.equal(
      Buffer.from(tx.bodyBytes).toString('hex'),
      '0403d64f91e5d7c5d4d0a4ee81045689f4fe0d8dec1fb84005d3b48e4be68673e22a0000' +
        '0000018bcfe568000000000005f5e10000000000000f42400154a3023f22764b1aafed7ed3beb6b5a73467a84dacd5f10c21000000',
    );
    assert.equal(tx.idBase58, '6dkYEytXKd4J4fipxFpJMArT4wQoEakM9W8XXogDGa6Q');
    // Full bytes: 0x00 flag, body with the proofs block before the (absent) end.
    assert.equal(tx.bytes[0], 0);
    assert.equal(tx.bytes.length, 1 + tx.bodyBytes.length + 3);
  });

  it('writes the node JSON in WE key order with every digit', () => {
    const tx = p.transactionFromJson(transferJson({ amount: 9223372036854775807n, assetId: encodeBase58(new Uint8Array(32).fill(3)) }));
    assert.deepEqual(Object.keys(tx.toJson()), [
      'type',
      'id',
      'sender',
      'senderPublicKey',
      'fee',
      'timestamp',
      'proofs',
      'version',
      'assetId',
      'feeAssetId',
      'amount',
      'recipient',
      'attachment',
      'atomicBadge',
    ]);
    assert.match(stringifyJson(tx.toJson()), /"amount":9223372036854775807,/);
    assert.equal(tx.toJson()['sender'], '3N75XuUxaztmvSTXLie2ibFjXKZscqnMR3d');
  });

  it('accepts a signature only from the sender over these bytes', () => {
    const unsigned = p.transactionFromJson(transferJson({ proofs: [] }));
    const signed = p.sign(unsigned, alice.privateKey);
    assert.ok(signed.hasValidSenderSignature());
    const bob = p.crypto.keyPairFromSeedPhrase('second seed phrase for testing only please ignore');
    assert.ok(!p.sign(unsigned, bob.privateKey).hasValidSenderSignature());
    const other = p.transactionFromJson(transferJson({ amount: 100_000_001, proofs: signed.proofs.map(encodeBase58) }));
    assert.ok(!other.hasValidSenderSignature());
    assert.ok(!unsigned.hasValidSenderSignature());
  });
});

describe('Transfer: stateless rules with WE error codes', () => {
  it('amount must be positive (111)', () => {
    expectWeError(() => p.transactionFromJson(transferJson({ amount: 0 })), 111, 'negative amount: 0 of WEST', 'amount');
    const asset = encodeBase58(new Uint8Array(32).fill(9));
    expectWeError(() => p.transactionFromJson(transferJson({ amount: -5, assetId: asset })), 111, `negative amount: -5 of ${asset}`, 'amount');
  });

  it('fee must not be negative (InsufficientFee, 199)', () => {
    expectWeError(() => p.transactionFromJson(transferJson({ fee: -1 })), 199, 'InsufficientFee(insufficient fee)', 'fee');
  });

  it('attachment is at most 140 bytes (10), and must be Base58', () => {
    const data = p.transactionFromJson(transferJson()).data;
    expectWeError(() => p.transaction(Transfer, 3, { ...data, attachment: new Uint8Array(141) }), 10, 'Too big sequences requested', 'attachment');
    assert.equal(p.transaction(Transfer, 3, { ...data, attachment: new Uint8Array(140) }).data.attachment.length, 140);
    expectWeError(
      () => p.transactionFromJson(transferJson({ attachment: encodeBase58(new Uint8Array(150).fill(1)) })),
      199,
      'invalid.attachment',
      'attachment',
    );
    expectWeError(() => p.transactionFromJson(transferJson({ attachment: 'l0O' })), 199, 'invalid.attachment', 'attachment');
  });

  it('asset ids must be 32-byte Base58', () => {
    expectWeError(() => p.transactionFromJson(transferJson({ assetId: 'WAVES' })), 199, 'invalid.assetId', 'assetId');
    expectWeError(() => p.transactionFromJson(transferJson({ feeAssetId: encodeBase58(new Uint8Array(31)) })), 199, 'invalid.assetId', 'feeAssetId');
    expectWeError(() => p.transactionFromJson(transferJson({ assetId: '1'.repeat(45) })), 199, 'invalid.assetId');
    // Absent, null and "" mean WEST.
    for (const v of [undefined, null, '']) {
      const tx = p.transactionFromJson(transferJson({ assetId: v }));
      assert.ok(Transfer.is(tx));
      assert.equal(tx.data.assetId, null);
    }
  });

  it('recipient and sender are checked (102, 199, 108)', () => {
    expectWeError(() => p.transactionFromJson(transferJson({ recipient: '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkD' })), 102, /Bad address checksum/, 'recipient');
    expectWeError(() => p.transactionFromJson(transferJson({ recipient: 'alias:T:AB' })), 199, /Alias/, 'recipient');
    expectWeError(() => p.transactionFromJson(transferJson({ senderPublicKey: 'abc' })), 108, /invalid public key/, 'senderPublicKey');
  });

  it('proofs: at most 8, each at most 64 bytes, Base58', () => {
    expectWeError(() => p.transactionFromJson(transferJson({ proofs: Array(9).fill(SIG) })), 199, 'Too many proofs, max 8 proofs', 'proofs');
    // Within the 88-character Base58 cap, but 65 bytes: WE's Proofs rule; beyond the cap: the reader's.
    expectWeError(
      () => p.transactionFromJson(transferJson({ proofs: [encodeBase58(new Uint8Array(65).fill(1))] })),
      199,
      'Too large proof, must be max 64 bytes',
      'proofs',
    );
    expectWeError(() => p.transactionFromJson(transferJson({ proofs: [encodeBase58(new Uint8Array(70).fill(1))] })), 199, 'invalid proof', 'proofs');
    expectWeError(() => p.transactionFromJson(transferJson({ proofs: ['0OIl'] })), 199, 'invalid proof', 'proofs');
    expectWeError(() => p.transactionFromJson(transferJson({ proofs: 'x' })), 1, 'failed to parse json message', 'proofs');
  });

  it('the JSON of a transaction read from a request equals the JSON of the same transaction built from its bytes (key, proofs, null proof, leading zeros)', () => {
    const zeroLed = new Uint8Array(64);
    zeroLed.set([0, 0, 7], 0);
    for (const proofs of [[SIG], [SIG, null, encodeBase58(zeroLed), '']]) {
      const fromRequest = p.transactionFromJson(transferJson({ proofs }));
      const fromBytes = p.transactionFromBytes(fromRequest.bytes);
      assert.equal(stringifyJson(fromRequest.toJson()), stringifyJson(fromBytes.toJson()));
      assert.deepEqual(
        fromRequest.toJson()['proofs'],
        proofs.map((t) => t ?? ''),
      );
    }
    // The answer's arrays are its own: changing one does not change the next answer.
    const tx = p.transactionFromJson(transferJson());
    (tx.toJson()['proofs'] as string[]).push('x');
    assert.deepEqual(tx.toJson()['proofs'], [SIG]);
  });

  it('missing or mistyped JSON fields are WrongJson (1) naming the path', () => {
    const missing = expectWeError(() => p.transactionFromJson(transferJson({ amount: undefined })), 1, 'failed to parse json message', 'amount');
    assert.deepEqual(missing.jsonPathErrors, [{ path: 'obj.amount', messages: ['error.path.missing'] }]);
    expectWeError(() => p.transactionFromJson(transferJson({ amount: '100' })), 1, undefined, 'amount');
    expectWeError(() => p.transactionFromJson(transferJson({ amount: 1.5 })), 1, undefined, 'amount');
    expectWeError(() => p.transactionFromJson(transferJson({ fee: 2n ** 63n })), 1, undefined, 'fee');
    expectWeError(() => p.transactionFromJson(transferJson({ timestamp: null })), 1, undefined, 'timestamp');
    expectWeError(() => p.transactionFromJson(transferJson({ recipient: 5 })), 1, undefined, 'recipient');
    expectWeError(() => p.transactionFromJson(transferJson({ type: '4' })), 1, undefined, 'type');
    expectWeError(() => p.transactionFromJson([]), 1);
    expectWeError(() => p.transactionFromJson(null), 1);
  });

  it('type and version select the reader; version defaults to 1', () => {
    expectWeError(() => p.transactionFromJson(transferJson({ version: undefined })), 199, 'Bad transaction type (4) and version (1)');
    expectWeError(() => p.transactionFromJson(transferJson({ version: 9 })), 199, 'Bad transaction type (4) and version (9)');
    expectWeError(() => p.transactionFromJson(transferJson({ type: 99 })), 199, 'Bad transaction type (99) and version (3)');
    expectWeError(() => p.transactionFromJson(transferJson({ version: 'x' })), 1, undefined, 'version');
    assert.equal(p.transactionFromJson(transferJson({ version: '2' })).version, 2);
  });
});

describe('MassTransfer: stateless rules', () => {
  it('at most 100 transfers', () => {
    const many = Array.from({ length: 101 }, () => ({ recipient: BOB, amount: 1 }));
    expectWeError(() => p.transactionFromJson(massJson({ transfers: many })), 199, 'Number of transfers 101 is greater than 100', 'transfers');
    const ok = p.transactionFromJson(massJson({ transfers: many.slice(1) }));
    assert.ok(MassTransfer.is(ok));
    assert.equal(ok.data.transfers.length, 100);
  });

  it('fee plus amounts must not overflow (113), amounts must not be negative', () => {
    expectWeError(() => p.transactionFromJson(massJson({ transfers: [{ recipient: BOB, amount: 9223372036854775807n }] })), 113, 'overflow error', 'transfers');
    expectWeError(() => p.transactionFromJson(massJson({ transfers: [{ recipient: BOB, amount: -1 }] })), 199, 'One of the transfers has negative amount');
    expectWeError(() => p.transactionFromJson(massJson({ transfers: [{ recipient: BOB }] })), 1, undefined, 'transfers(0).amount');
  });

  it('V1 has the legacy header; JSON adds transferCount and totalAmount', () => {
    const tx = p.transactionFromJson(
      massJson({
        version: 1,
        transfers: [
          { recipient: BOB, amount: 5 },
          { recipient: 'alias:T:john', amount: 7 },
        ],
      }),
    );
    assert.equal(tx.bytes[0], 11);
    assert.equal(tx.bytes[1], 1);
    const back = p.transactionFromBytes(tx.bytes);
    assert.equal(back.idBase58, tx.idBase58);
    const json = tx.toJson();
    assert.equal(json['transferCount'], 2);
    assert.equal(json['totalAmount'], 12n);
    assert.deepEqual(json['transfers'], [
      { recipient: BOB, amount: 5n },
      { recipient: 'alias:T:john', amount: 7n },
    ]);
    // A V1 body behind the modern flag is not a known encoding.
    const modern = Uint8Array.from([0, ...tx.bytes]);
    expectWeError(() => p.transactionFromBytes(modern), 199, /Unknown transaction type \(11\) and version \(1\)/);
  });
});

describe('binary input never crashes', () => {
  const signed = p.sign(p.transactionFromJson(transferJson({ proofs: [] })), alice.privateKey);
  const mass = p.sign(p.transactionFromJson(massJson({ version: 3 })), alice.privateKey);

  it('every truncation of valid bytes is a WeError', () => {
    for (const bytes of [signed.bytes, mass.bytes]) {
      for (let n = 0; n < bytes.length; n++) expectWeError(() => p.transactionFromBytes(bytes.subarray(0, n)), 199);
      expectWeError(() => p.transactionFromBytes(Uint8Array.from([...bytes, 0])), 199, /trailing/);
    }
  });

  it('random and mutated bytes give WeErrors or valid transactions', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (b) => onlyWeErrors(() => p.transactionFromBytes(b))),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.nat(signed.bytes.length - 1), fc.integer({ min: 0, max: 255 }), (i, v) => {
        const m = Uint8Array.from(signed.bytes);
        m[i] = v;
        onlyWeErrors(() => p.transactionFromBytes(m));
      }),
      { numRuns: 2000 },
    );
  });

  it('typed data is what was read', () => {
    const back = p.transactionFromBytes(signed.bytes);
    const d = back.data as TransferData;
    assert.equal(d.amount, 100_000_000n);
    assert.equal(d.recipient.toString(), BOB);
    assert.ok(back.hasValidSenderSignature());
    assert.equal(MassTransfer.type, 11);
  });
});
