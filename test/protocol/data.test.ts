import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { Data, MAX_DATA_TX_BYTES, type DataData } from '../../src/protocol/transactions/data.js';
import type { DataEntry } from '../../src/protocol/transactions/fields.js';
import { expectWeError, onlyWeErrors } from '../support/errors.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const alice = p.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
const bob = p.crypto.keyPairFromSeedPhrase('second seed phrase for testing only please ignore');
const ALICE_PK = encodeBase58(alice.publicKey);
const BOB_PK = encodeBase58(bob.publicKey);
const SIG = encodeBase58(new Uint8Array(64).fill(1));
const TOO_BIG = 'Too big sequences requested';

const dataJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 12,
  version: 2,
  senderPublicKey: ALICE_PK,
  authorPublicKey: BOB_PK,
  data: [
    { key: 'k', type: 'string', value: 'v' },
    { key: 'n', type: 'integer', value: -1 },
  ],
  fee: 5_000_000,
  timestamp: 1_700_000_000_000,
  proofs: [SIG],
  ...over,
});

const entries = (n: number, make: (i: number) => Record<string, unknown> = (i) => ({ key: `k${i}`, type: 'boolean', value: i % 2 === 0 })) =>
  Array.from({ length: n }, (_, i) => make(i));

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('Data: reference vectors', () => {
  it('Data V2 of crypto-and-transactions §4.12 (string and negative integer entries)', () => {
    const tx = p.transactionFromJson(dataJson({ authorPublicKey: ALICE_PK, proofs: [] }));
    const pk = hex(alice.publicKey);
    assert.equal(hex(tx.bodyBytes), `0c02${pk}${pk}0002` + '00016b0300017600016e00ffffffffffffffff' + '0000018bcfe56800' + '00000000004c4b40' + '00');
    assert.equal(tx.idBase58, '4X8HuQc3SET4awGpyd6hSagaEmbiqg2tesJ2WyXRkAtn');
  });

  it('the transaction-factory tests/base-tx.ts vector', () => {
    const sender = '4znB9RB4uPWdVxzfTDPhd78KdpAQc4co8A3WVhdoZEhL';
    const tx = p.transactionFromJson(
      dataJson({ senderPublicKey: sender, authorPublicKey: sender, data: [{ key: 'test', type: 'string', value: 'test' }], fee: 0, timestamp: 1663935233358 }),
    );
    assert.equal(
      Buffer.from(tx.bodyBytes).toString('base64'),
      'DAI7YD8P6GskLgMC/aH/8ahjgnOKjbD1VWD7Jbu6TzhJVztgPw/oayQuAwL9of/xqGOCc4qNsPVVYPslu7pPOElXAAEABHRlc3QDAAR0ZXN0AAABg2pEvU4AAAAAAAAAAAA=',
    );
  });

  it('integer extremes, booleans, binary and non-ASCII text (hand-checked bytes)', () => {
    const tx = p.transactionFromJson(
      dataJson({
        version: 1,
        data: [
          { key: 'max', type: 'integer', value: 9223372036854775807n },
          { key: 'min', type: 'integer', value: -9223372036854775808n },
          { key: 'b', type: 'boolean', value: true },
          { key: 'bin', type: 'binary', value: 'base64:AQID' },
          { key: 'ключ', type: 'string', value: 'значение 😀' },
        ],
      }),
    );
    const body = hex(tx.bodyBytes);
    const entriesHex =
      '0005' +
      '00036d6178' +
      '00' +
      '7fffffffffffffff' +
      '00036d696e' +
      '00' +
      '8000000000000000' +
      '000162' +
      '01' +
      '01' +
      '000362696e' +
      '02' +
      '0003010203' +
      '0008d0bad0bbd18ed187' +
      '03' +
      '0015' +
      hex(Buffer.from('значение 😀', 'utf8'));
    assert.equal(body.slice(4 + 128, 4 + 128 + entriesHex.length), entriesHex);
    const json = tx.toJson();
    assert.deepEqual(json['data'], [
      { key: 'max', type: 'integer', value: 9223372036854775807n },
      { key: 'min', type: 'integer', value: -9223372036854775808n },
      { key: 'b', type: 'boolean', value: true },
      { key: 'bin', type: 'binary', value: 'base64:AQID' },
      { key: 'ключ', type: 'string', value: 'значение 😀' },
    ]);
    assert.match(stringifyJson(json), /"value":9223372036854775807\}/);
    const back = p.transactionFromBytes(tx.bytes);
    assert.equal(stringifyJson(back.toJson()), stringifyJson(json));
  });

  it('JSON: authorPublicKey (additional field) then author as an address; V1 has no feeAssetId', () => {
    const v3 = p.transactionFromJson(dataJson({ version: 3, atomicBadge: {} }));
    const json = v3.toJson();
    assert.deepEqual(Object.keys(json), [
      'type',
      'id',
      'sender',
      'senderPublicKey',
      'fee',
      'timestamp',
      'proofs',
      'version',
      'authorPublicKey',
      'author',
      'data',
      'feeAssetId',
      'atomicBadge',
    ]);
    assert.equal(json['authorPublicKey'], BOB_PK);
    assert.equal(json['author'], '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkC');
    assert.equal(json['sender'], '3N75XuUxaztmvSTXLie2ibFjXKZscqnMR3d');
    assert.deepEqual(json['atomicBadge'], {});
    assert.deepEqual(Object.keys(p.transactionFromJson(dataJson({ version: 1 })).toJson()).slice(8), ['authorPublicKey', 'author', 'data']);
  });

  it('an empty entry list is a valid Data transaction', () => {
    const tx = p.transactionFromJson(dataJson({ data: [] }));
    assert.ok(Data.is(tx));
    assert.equal(tx.data.data.length, 0);
    assert.equal(hex(tx.bodyBytes.subarray(66, 68)), '0000');
  });
});

describe('Data: DataValidation rules, in WE order', () => {
  it('at most 100 entries (TooBigArray 10)', () => {
    assert.equal((p.transactionFromJson(dataJson({ data: entries(100) })).data as DataData).data.length, 100);
    expectWeError(() => p.transactionFromJson(dataJson({ data: entries(101) })), 10, TOO_BIG, 'data');
    // Even far beyond what a u16 count could hold.
    expectWeError(() => p.transactionFromJson(dataJson({ data: entries(70_000) })), 10, TOO_BIG, 'data');
  });

  it('keys: at most 100 UTF-16 code units (TooBigArray 10)', () => {
    assert.ok(p.transactionFromJson(dataJson({ data: [{ key: 'k'.repeat(100), type: 'boolean', value: true }] })));
    // 50 astral characters: 100 UTF-16 units (200 UTF-8 bytes) is allowed; 51 is not.
    assert.ok(p.transactionFromJson(dataJson({ data: [{ key: '😀'.repeat(50), type: 'boolean', value: true }] })));
    expectWeError(() => p.transactionFromJson(dataJson({ data: [{ key: '😀'.repeat(51), type: 'boolean', value: true }] })), 10, TOO_BIG, 'data');
    expectWeError(() => p.transactionFromJson(dataJson({ data: [{ key: 'k'.repeat(101), type: 'boolean', value: true }] })), 10, TOO_BIG, 'data');
    // A key too long to serialize is still just TooBigArray.
    expectWeError(() => p.transactionFromJson(dataJson({ data: [{ key: 'ж'.repeat(40_000), type: 'integer', value: 1 }] })), 10, TOO_BIG, 'data');
  });

  it('binary and string values: at most 32 767 bytes (TooBigArray 10)', () => {
    const b64 = (n: number): string => `base64:${Buffer.alloc(n, 7).toString('base64')}`;
    assert.ok(p.transactionFromJson(dataJson({ data: [{ key: 'b', type: 'binary', value: b64(32_767) }] })));
    expectWeError(() => p.transactionFromJson(dataJson({ data: [{ key: 'b', type: 'binary', value: b64(32_768) }] })), 10, TOO_BIG, 'data');
    assert.ok(p.transactionFromJson(dataJson({ data: [{ key: 's', type: 'string', value: 'я'.repeat(16_383) + 'a' }] })));
    expectWeError(() => p.transactionFromJson(dataJson({ data: [{ key: 's', type: 'string', value: 'я'.repeat(16_384) }] })), 10, TOO_BIG, 'data');
    expectWeError(() => p.transactionFromJson(dataJson({ data: [{ key: 's', type: 'string', value: 'x'.repeat(70_000) }] })), 10, TOO_BIG, 'data');
  });

  it('keys must not be empty, then must be unique (GenericError 199)', () => {
    expectWeError(() => p.transactionFromJson(dataJson({ data: [{ key: '', type: 'boolean', value: true }] })), 199, 'Empty key found', 'data');
    expectWeError(
      () =>
        p.transactionFromJson(
          dataJson({
            data: [
              { key: 'a', type: 'boolean', value: true },
              { key: 'a', type: 'integer', value: 1 },
            ],
          }),
        ),
      199,
      'Duplicate keys found',
      'data',
    );
    // Order: count/size first, then empty keys, then duplicates.
    expectWeError(() => p.transactionFromJson(dataJson({ data: [...entries(100), { key: '', type: 'boolean', value: true }] })), 10, TOO_BIG);
    expectWeError(
      () =>
        p.transactionFromJson(
          dataJson({
            data: [
              { key: 'a', type: 'boolean', value: true },
              { key: 'a', type: 'boolean', value: true },
              { key: '', type: 'boolean', value: true },
            ],
          }),
        ),
      199,
      'Empty key found',
    );
    // Keys are compared as strings: "é" precomposed and decomposed are different keys.
    assert.ok(
      p.transactionFromJson(
        dataJson({
          data: [
            { key: '\u00e9', type: 'boolean', value: true },
            { key: 'e\u0301', type: 'boolean', value: true },
          ],
        }),
      ),
    );
  });

  it('full bytes at most 153 600, proofs included (TooBigArray 10)', () => {
    const value = (n: number): DataEntry => ({ key: `k${n}`, type: 'binary', value: new Uint8Array(n) });
    const base: DataData = p.transactionFromJson(dataJson({ proofs: [] })).data as DataData;
    const big = [value(32_767), { ...value(32_767), key: 'a' }, { ...value(32_767), key: 'b' }, { ...value(32_767), key: 'c' }];
    const proof = new Uint8Array(64).fill(3);
    const sized = (n: number) => p.transaction(Data, 2, { ...base, data: [...big, { key: 'last', type: 'binary', value: new Uint8Array(n) }] }, [proof]);
    const overhead = sized(0).bytes.length;
    const fits = MAX_DATA_TX_BYTES - overhead;
    assert.equal(sized(fits).bytes.length, MAX_DATA_TX_BYTES);
    expectWeError(() => sized(fits + 1), 10, TOO_BIG, 'data');
    // Without the proof the same entries fit: the size counts the proofs.
    assert.ok(p.transaction(Data, 2, { ...base, data: [...big, { key: 'last', type: 'binary', value: new Uint8Array(fits + 1) }] }, []));
  });
});

describe('Data: malformed JSON', () => {
  it('authorPublicKey is required and must be a public key', () => {
    expectWeError(() => p.transactionFromJson(dataJson({ authorPublicKey: undefined })), 1, 'failed to parse json message', 'authorPublicKey');
    expectWeError(() => p.transactionFromJson(dataJson({ authorPublicKey: 'abc' })), 108, /invalid public key/, 'authorPublicKey');
    expectWeError(() => p.transactionFromJson(dataJson({ authorPublicKey: 5 })), 1, undefined, 'authorPublicKey');
    // `author` (the output key) is not what the node reads.
    expectWeError(() => p.transactionFromJson(dataJson({ authorPublicKey: undefined, author: BOB_PK })), 1, undefined, 'authorPublicKey');
  });

  it("data entries follow WE's DataEntry reader (WrongJson 1 naming the entry)", () => {
    const bad: Array<[unknown, string]> = [
      [{ type: 'integer', value: 1 }, 'key is missing'],
      [{ key: 'k', value: 1 }, 'type is missing'],
      [{ key: 'k', type: 'long', value: 1 }, 'unknown type long'],
      [{ key: 'k', type: 'integer', value: '1' }, 'value is missing or is not an integer'],
      [{ key: 'k', type: 'integer' }, 'value is missing or is not an integer'],
      [{ key: 'k', type: 'boolean', value: 'true' }, 'value is missing or is not a boolean value'],
      [{ key: 'k', type: 'string', value: 5 }, 'value is missing or is not a string'],
      [{ key: 'k', type: 'binary', value: null }, 'value is missing or is not a string'],
    ];
    for (const [entry, message] of bad) {
      const e = expectWeError(() => p.transactionFromJson(dataJson({ data: [entry] })), 1, 'failed to parse json message', 'data(0)');
      assert.deepEqual(e.jsonPathErrors, [{ path: 'obj.data(0)', messages: [message] }]);
    }
    expectWeError(() => p.transactionFromJson(dataJson({ data: [{ key: 'k', type: 'integer', value: 2n ** 63n }] })), 1, undefined, 'data(0)');
    expectWeError(() => p.transactionFromJson(dataJson({ data: [{ key: 'k', type: 'integer', value: 1.5 }] })), 1, undefined, 'data(0)');
    expectWeError(() => p.transactionFromJson(dataJson({ data: [{ key: 'k', type: 'binary', value: 'base64:@@@' }] })), 1, undefined, 'data(0)');
    expectWeError(() => p.transactionFromJson(dataJson({ data: [1] })), 1, undefined, 'data(0)');
    expectWeError(() => p.transactionFromJson(dataJson({ data: [{ key: 'x'.repeat(200), value: 1 }] })), 1, undefined, 'data(0)');
    expectWeError(() => p.transactionFromJson(dataJson({ data: { key: 'k' } })), 1, undefined, 'data');
    expectWeError(() => p.transactionFromJson(dataJson({ data: undefined })), 1, undefined, 'data');
  });

  it('feeAssetId: invalid feeAssetId (199); WrongJson for other types', () => {
    expectWeError(() => p.transactionFromJson(dataJson({ feeAssetId: 'O0Il' })), 199, 'invalid feeAssetId', 'feeAssetId');
    expectWeError(() => p.transactionFromJson(dataJson({ feeAssetId: encodeBase58(new Uint8Array(33).fill(1)) })), 199, 'invalid feeAssetId', 'feeAssetId');
    expectWeError(() => p.transactionFromJson(dataJson({ feeAssetId: [] })), 1, undefined, 'feeAssetId');
    const asset = encodeBase58(new Uint8Array(32).fill(4));
    assert.equal(p.transactionFromJson(dataJson({ feeAssetId: asset })).toJson()['feeAssetId'], asset);
  });

  it('arbitrary JSON values in every field give WeErrors', () => {
    const base = dataJson({ version: 3 });
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(base)), fc.oneof(fc.jsonValue(), fc.bigInt(), fc.constant(undefined)), (key, value) => {
        onlyWeErrors(() => p.transactionFromJson({ ...base, [key]: value }));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.jsonValue(), fc.record({ key: fc.string(), type: fc.constantFrom('integer', 'boolean', 'binary', 'string'), value: fc.jsonValue() })),
        ),
        (data) => {
          onlyWeErrors(() => p.transactionFromJson({ ...base, data }));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('Data: binary input', () => {
  const signed = p.sign(
    p.transactionFromJson(
      dataJson({
        version: 3,
        proofs: [],
        atomicBadge: { trustedSender: '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkC' },
        data: [
          { key: 'i', type: 'integer', value: 42 },
          { key: 'b', type: 'boolean', value: false },
          { key: 'x', type: 'binary', value: 'base64:AAEC' },
          { key: 's', type: 'string', value: 'ü' },
        ],
      }),
    ),
    alice.privateKey,
  );

  it('round-trips; the author is not the signer', () => {
    const back = p.transactionFromBytes(signed.bytes);
    assert.equal(stringifyJson(back.toJson()), stringifyJson(signed.toJson()));
    assert.ok(back.hasValidSenderSignature());
    assert.equal(back.toJson()['author'], '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkC');
  });

  it('a boolean entry byte other than 0 reads as true (DataEntryOps.parseValue)', () => {
    // 00 0c 03 ‖ sender ‖ author ‖ u16 count ‖ [00 01 'i' 00 i64] ‖ [00 01 'b' 01 <bool>] …
    const boolAt = 3 + 64 + 2 + 12 + 4;
    assert.equal(signed.bytes[boolAt - 1], 1);
    assert.equal(signed.bytes[boolAt], 0);
    const m = Uint8Array.from(signed.bytes);
    m[boolAt] = 2;
    const tx = p.transactionFromBytes(m);
    assert.deepEqual((tx.data as DataData).data[1], { key: 'b', type: 'boolean', value: true });
  });

  it('entry rules apply to binary input too', () => {
    // Duplicate key: rename 'b' to 'i'.
    const dup = Uint8Array.from(signed.bytes);
    dup[3 + 64 + 2 + 12 + 2] = 'i'.charCodeAt(0);
    expectWeError(() => p.transactionFromBytes(dup), 199, 'Duplicate keys found', 'data');
    // Unknown entry type byte.
    const unknown = Uint8Array.from(signed.bytes);
    unknown[3 + 64 + 2 + 3] = 9;
    expectWeError(() => p.transactionFromBytes(unknown), 199);
  });

  it('truncated and mutated bytes give WeErrors', () => {
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
