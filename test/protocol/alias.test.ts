import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { CreateAlias } from '../../src/protocol/transactions/alias.js';
import { expectWeError, onlyWeErrors } from '../support/errors.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const alice = p.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
const bob = p.crypto.keyPairFromSeedPhrase('second seed phrase for testing only please ignore');
const BOB = '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkC';
const SIG = encodeBase58(new Uint8Array(64).fill(1));
const ALPHABET = '-.0123456789@_abcdefghijklmnopqrstuvwxyz';

const aliasJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 10,
  version: 4,
  senderPublicKey: encodeBase58(alice.publicKey),
  alias: 'john',
  fee: 100_000_000,
  timestamp: 1_700_000_000_000,
  proofs: [SIG],
  ...over,
});

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('CreateAlias: the reference vector (crypto-and-transactions §4.12)', () => {
  it('body and WE id; the id is not the body hash', () => {
    const tx = p.transactionFromJson(aliasJson({ version: 2, proofs: [] }));
    assert.equal(
      hex(tx.bodyBytes),
      '0a02d64f91e5d7c5d4d0a4ee81045689f4fe0d8dec1fb84005d3b48e4be68673e22a' + '0008025400046a6f686e' + '0000000005f5e100' + '0000018bcfe56800',
    );
    assert.equal(tx.idBase58, 'FCznPUHWiKRP4LUxpoLcKaSC1r81AsXN6S9R2aiCgHx1');
    assert.equal(encodeBase58(p.crypto.fastHash(tx.bodyBytes)), '8MQeU7ucbdxgxsB2uEdHuTCPPTeQsMvKxMbD67cyRAbL');
  });

  it('the id depends on the alias only', () => {
    const a = p.transactionFromJson(aliasJson({ version: 2 }));
    const b = p.transactionFromJson(
      aliasJson({ version: 3, senderPublicKey: encodeBase58(bob.publicKey), fee: 1, timestamp: 1, feeAssetId: encodeBase58(new Uint8Array(32).fill(1)) }),
    );
    assert.equal(a.idBase58, b.idBase58);
    assert.notEqual(p.transactionFromJson(aliasJson({ alias: 'johnny' })).idBase58, a.idBase58);
    // The id survives a binary round trip and signing.
    const signed = p.sign(b, bob.privateKey);
    assert.equal(p.transactionFromBytes(signed.bytes).idBase58, a.idBase58);
    assert.ok(p.transactionFromBytes(signed.bytes).hasValidSenderSignature());
  });

  it('JSON: the bare alias name, then feeAssetId (V3+) and atomicBadge (V4)', () => {
    const v4 = p.transactionFromJson(aliasJson({ atomicBadge: { trustedSender: BOB } }));
    assert.deepEqual(Object.keys(v4.toJson()).slice(8), ['alias', 'feeAssetId', 'atomicBadge']);
    assert.equal(v4.toJson()['alias'], 'john');
    assert.equal(v4.toJson()['feeAssetId'], null);
    assert.deepEqual(Object.keys(p.transactionFromJson(aliasJson({ version: 3 })).toJson()).slice(8), ['alias', 'feeAssetId']);
    assert.deepEqual(Object.keys(p.transactionFromJson(aliasJson({ version: 2 })).toJson()).slice(8), ['alias']);
  });
});

describe('CreateAlias: alias rules', () => {
  it('4 to 30 characters', () => {
    expectWeError(() => p.transactionFromJson(aliasJson({ alias: 'abc' })), 199, "Alias 'abc' length should be between 4 and 30", 'alias');
    expectWeError(
      () => p.transactionFromJson(aliasJson({ alias: 'a'.repeat(31) })),
      199,
      `Alias '${'a'.repeat(31)}' length should be between 4 and 30`,
      'alias',
    );
    expectWeError(() => p.transactionFromJson(aliasJson({ alias: '' })), 199, "Alias '' length should be between 4 and 30", 'alias');
    assert.ok(p.transactionFromJson(aliasJson({ alias: 'abcd' })));
    assert.ok(p.transactionFromJson(aliasJson({ alias: 'a'.repeat(30) })));
  });

  it('only -.0-9@_a-z: upper case and non-ASCII are refused', () => {
    const message = `Alias should contain only following characters: ${ALPHABET}`;
    for (const alias of ['John', 'jo hn', 'жжжж', 'john!', 'alias:T:john']) {
      expectWeError(() => p.transactionFromJson(aliasJson({ alias })), 199, message, 'alias');
    }
    assert.equal(p.transactionFromJson(aliasJson({ alias: '-.@_09az' })).toJson()['alias'], '-.@_09az');
  });

  it('alias bytes in binary must be of this chain and valid', () => {
    const tx = p.sign(p.transactionFromJson(aliasJson({ proofs: [] })), alice.privateKey);
    // 00 0a 04 ‖ sender(32) ‖ u16 len ‖ 02 ‖ chain ‖ u16 ‖ name
    assert.equal(hex(tx.bytes.subarray(35, 41)), '000802540004');
    const otherChain = Uint8Array.from(tx.bytes);
    otherChain[38] = 0x57;
    expectWeError(() => p.transactionFromBytes(otherChain), 199, "Alias network byte doesn't match current scheme", 'alias');
    const upper = Uint8Array.from(tx.bytes);
    upper[41] = 0x4a; // 'J'
    expectWeError(() => p.transactionFromBytes(upper), 199, /Alias should contain only/, 'alias');
    const notAlias = Uint8Array.from(tx.bytes);
    notAlias[37] = 0x01;
    expectWeError(() => p.transactionFromBytes(notAlias), 199, 'Bad alias bytes', 'alias');
  });
});

describe('CreateAlias: malformed JSON', () => {
  it('mistyped values are WrongJson (1); bad feeAssetId is invalid.feeAssetId', () => {
    expectWeError(() => p.transactionFromJson(aliasJson({ alias: undefined })), 1, 'failed to parse json message', 'alias');
    expectWeError(() => p.transactionFromJson(aliasJson({ alias: 1234 })), 1, undefined, 'alias');
    expectWeError(() => p.transactionFromJson(aliasJson({ fee: '1' })), 1, undefined, 'fee');
    expectWeError(() => p.transactionFromJson(aliasJson({ timestamp: 2n ** 63n })), 1, undefined, 'timestamp');
    expectWeError(() => p.transactionFromJson(aliasJson({ feeAssetId: 'O0Il' })), 199, 'invalid.feeAssetId', 'feeAssetId');
    expectWeError(() => p.transactionFromJson(aliasJson({ feeAssetId: '1'.repeat(45) })), 199, 'invalid.feeAssetId', 'feeAssetId');
    expectWeError(() => p.transactionFromJson(aliasJson({ feeAssetId: encodeBase58(new Uint8Array(31).fill(1)) })), 199, 'invalid.feeAssetId', 'feeAssetId');
    expectWeError(() => p.transactionFromJson(aliasJson({ feeAssetId: 7 })), 1, undefined, 'feeAssetId');
    // Absent, null and "" are WEST; V2 has no feeAssetId to read.
    for (const feeAssetId of [undefined, null, '']) {
      const tx = p.transactionFromJson(aliasJson({ feeAssetId }));
      assert.ok(CreateAlias.is(tx));
      assert.equal(tx.data.feeAssetId, null);
    }
    assert.ok(p.transactionFromJson(aliasJson({ version: 2, feeAssetId: 'O0Il' })));
    expectWeError(() => p.transactionFromJson(aliasJson({ version: 5 })), 199, 'Bad transaction type (10) and version (5)');
  });

  it('arbitrary JSON values in every field and mutated bytes give WeErrors', () => {
    const base = aliasJson();
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(base)), fc.oneof(fc.jsonValue(), fc.bigInt(), fc.constant(undefined)), (key, value) => {
        onlyWeErrors(() => p.transactionFromJson({ ...base, [key]: value }));
      }),
      { numRuns: 500 },
    );
    const signed = p.sign(
      p.transactionFromJson(aliasJson({ proofs: [], feeAssetId: encodeBase58(new Uint8Array(32).fill(2)), atomicBadge: {} })),
      alice.privateKey,
    );
    assert.equal(stringifyJson(p.transactionFromBytes(signed.bytes).toJson()), stringifyJson(signed.toJson()));
    for (let n = 0; n < signed.bytes.length; n++) expectWeError(() => p.transactionFromBytes(signed.bytes.subarray(0, n)), 199);
    fc.assert(
      fc.property(fc.nat(signed.bytes.length - 1), fc.integer({ min: 0, max: 255 }), (i, v) => {
        const m = Uint8Array.from(signed.bytes);
        m[i] = v;
        onlyWeErrors(() => p.transactionFromBytes(m));
      }),
      { numRuns: 1000 },
    );
  });
});
