/**
 * Contract transactions (103–107): every stateless rule with WE's code and message,
 * malformed JSON and binary, hand-checked layouts, ExecutedContract fixed vectors and
 * WE's results hash.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blake2b } from '@noble/hashes/blake2.js';
import fc from 'fast-check';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import {
  CallContract,
  calledContractVersion,
  contractResultsHash,
  contractResultsMapHash,
  CreateContract,
  createdContractId,
  ExecutedContract,
  executedAssetOperations,
  executedResults,
  type CallContractTransaction,
  type ContractAssetOperation,
  type CreateContractTransaction,
  type ExecutedContractData,
  type ExecutedContractTransaction,
} from '../../src/protocol/transactions/contracts.js';
import type { DataEntry } from '../../src/protocol/transactions/fields.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { expectWeError, onlyWeErrors } from '../support/errors.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const gost = await Protocol.create({ crypto: 'gost', chainId: 'T' });
const alice = p.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
const ALICE_PK = encodeBase58(alice.publicKey);
const ALICE = '3N75XuUxaztmvSTXLie2ibFjXKZscqnMR3d';
const BOB = '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkC';
const ALICE_HEX = '0154bc43b1cc86492da961878ffdd2099b0859d9c7bf8bfc24a8';
const BOB_HEX = '0154a3023f22764b1aafed7ed3beb6b5a73467a84dacd5f10c21';
const PK_HEX = 'd64f91e5d7c5d4d0a4ee81045689f4fe0d8dec1fb84005d3b48e4be68673e22a';
const ID32 = encodeBase58(new Uint8Array(32).fill(7));
const HASH = 'ab'.repeat(32);
const SIG = encodeBase58(new Uint8Array(64).fill(1));
const TS = 1_700_000_000_000;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const utf8hex = (s: string): string => Buffer.from(s, 'utf8').toString('hex');
const fromHex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
const u16 = (n: number): string => n.toString(16).padStart(4, '0');
const u32 = (n: number): string => n.toString(16).padStart(8, '0');
const i64 = (n: bigint | number): string => BigInt.asUintN(64, BigInt(n)).toString(16).padStart(16, '0');

/** Reads a request as it arrives over HTTP (through text, exact int64). */
const read = (json: Record<string, unknown>, forBroadcast = true): Transaction => p.transactionFromJson(parseJson(stringifyJson(json)), { forBroadcast });

// ---------------------------------------------------------------------------
// Valid requests of every broadcastable type and version

const common = { senderPublicKey: ALICE_PK, fee: 100_000_000, timestamp: TS, proofs: [SIG] };
const params = [
  { key: 'action', type: 'string', value: 'go' },
  { key: 'qty', type: 'integer', value: 150 },
];

function create(version: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 103,
    version,
    ...common,
    ...(version <= 6 ? { image: 'registry.example/kv:1.0', imageHash: HASH } : {}),
    contractName: 'kv',
    params,
    ...(version >= 4 ? { validationPolicy: { type: 'any' } } : {}),
    ...(version >= 4 && version <= 6 ? { apiVersion: '1.0' } : {}),
    ...(version >= 5 ? { payments: [{ amount: 5 }] } : {}),
    ...(version >= 6 ? { isConfidential: false, groupParticipants: [ALICE], groupOwners: [BOB] } : {}),
    ...(version >= 7 ? { storedContract: { bytecode: 'AQID', bytecodeHash: HASH } } : {}),
    ...over,
  };
}

function call(version: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 104,
    version,
    ...common,
    contractId: ID32,
    params,
    ...(version >= 2 ? { contractVersion: 1 } : {}),
    ...(version >= 5 ? { payments: [] } : {}),
    ...(version >= 6 ? { inputCommitment: ID32 } : {}),
    ...(version >= 7 ? { contractEngine: 'docker' } : {}),
    ...over,
  };
}

function disable(version: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 106, version, ...common, contractId: ID32, ...over };
}

function update(version: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 107,
    version,
    ...common,
    contractId: ID32,
    ...(version <= 5 ? { image: 'registry.example/kv:1.1', imageHash: HASH } : {}),
    ...(version >= 4 ? { validationPolicy: { type: 'majority' } } : {}),
    ...(version >= 4 && version <= 5 ? { apiVersion: '1.0' } : {}),
    ...(version >= 5 ? { groupParticipants: [], groupOwners: [] } : {}),
    ...(version >= 6 ? { storedContract: { image: 'img', imageHash: HASH, apiVersion: '1.2' } } : {}),
    ...over,
  };
}

const ALL: Array<{ label: string; make: (over?: Record<string, unknown>) => Record<string, unknown> }> = [
  ...[1, 2, 3, 4, 5, 6, 7].map((v) => ({ label: `CreateContract V${v}`, make: (o?: Record<string, unknown>) => create(v, o) })),
  ...[1, 2, 3, 4, 5, 7].map((v) => ({ label: `CallContract V${v}`, make: (o?: Record<string, unknown>) => call(v, o) })),
  ...[1, 2, 3].map((v) => ({ label: `DisableContract V${v}`, make: (o?: Record<string, unknown>) => disable(v, o) })),
  ...[1, 2, 3, 4, 5, 6].map((v) => ({ label: `UpdateContract V${v}`, make: (o?: Record<string, unknown>) => update(v, o) })),
];

describe('contract transactions: valid requests', () => {
  it('every broadcastable version reads, round-trips through binary and JSON', () => {
    for (const { label, make } of ALL) {
      const tx = read(make());
      const back = p.transactionFromBytes(tx.bytes);
      assert.equal(stringifyJson(back.toJson()), stringifyJson(tx.toJson()), label);
      assert.equal(hex(back.bytes), hex(tx.bytes), label);
      // The node's own JSON reads back to the same transaction (V7 call: see below).
      if (!label.startsWith('CallContract V7')) assert.equal(hex(read(tx.toJson() as Record<string, unknown>).bytes), hex(tx.bytes), label);
    }
  });
});

// ---------------------------------------------------------------------------
// Hand-checked layouts

describe('contract transactions: hand-checked layouts (reference §4.5)', () => {
  it('CallContract V5 (the reference example request)', () => {
    const tx = read(
      call(5, {
        params: [
          { key: 'action', type: 'string', value: 'transfer' },
          { key: 'qty', type: 'integer', value: 150 },
          { key: 'flag', type: 'boolean', value: true },
          { key: 'blob', type: 'binary', value: 'base64:AQID' },
        ],
        payments: [{ amount: 5 }, { assetId: ID32, amount: 7 }],
        fee: 10_000_000,
        feeAssetId: null,
        atomicBadge: { trustedSender: ALICE },
      }),
    );
    const expected = [
      '6805',
      PK_HEX,
      '0020' + '07'.repeat(32), // contractId
      '0004', // params
      '0006' + utf8hex('action') + '03' + u32(8) + utf8hex('transfer'),
      '0003' + utf8hex('qty') + '00' + i64(150),
      '0004' + utf8hex('flag') + '01' + '01',
      '0004' + utf8hex('blob') + '02' + u32(3) + '010203',
      i64(10_000_000), // fee
      i64(TS), // timestamp
      '00000001', // contractVersion
      '00', // feeAssetId
      '0101' + ALICE_HEX, // atomic badge
      '0002' + '00' + i64(5) + '01' + '07'.repeat(32) + i64(7), // payments
    ].join('');
    assert.equal(hex(tx.bodyBytes), expected);
    assert.equal(hex(tx.id), hex(blake2b(tx.bodyBytes, { dkLen: 32 })));
    assert.equal(hex(tx.bytes), '00' + expected + '01' + '0001' + '0040' + '01'.repeat(64));
  });

  it('CreateContract V7 and CallContract V7: proofs sit before the fields added later', () => {
    const c = read(
      create(7, {
        params: [],
        payments: [],
        validationPolicy: { type: 'majority_with_one_of', addresses: [BOB, ALICE] },
        isConfidential: true,
        groupParticipants: [BOB, ALICE],
        groupOwners: [],
        storedContract: { bytecode: 'base64:AQID', bytecodeHash: HASH },
      }),
    );
    const proofs = '01' + '0001' + '0040' + '01'.repeat(64);
    const head = ['6707', PK_HEX, u16(2) + utf8hex('kv'), '0000', i64(100_000_000), i64(TS), '00', '00', '02' + '0002' + BOB_HEX + ALICE_HEX, '0000'].join('');
    const tail = ['01', '0002' + BOB_HEX + ALICE_HEX, '0000', '01' + u32(3) + '010203' + u16(64) + utf8hex(HASH)].join('');
    assert.equal(hex(c.bodyBytes), head + tail);
    assert.equal(hex(c.bytes), '00' + head + proofs + tail);
    assert.deepEqual(createdContractId(c as CreateContractTransaction), c.id);

    const k = read(call(7, { params: [], payments: [], inputCommitment: ID32, contractEngine: 'wasm', callFunc: 'run' }));
    const khead = ['6807', PK_HEX, '0020' + '07'.repeat(32), '0000', i64(100_000_000), i64(TS), '00000001', '00', '00', '0000'].join('');
    const ktail = ['01' + '07'.repeat(32), u16(4) + utf8hex('wasm'), '01' + u16(3) + utf8hex('run')].join('');
    assert.equal(hex(k.bodyBytes), khead + ktail);
    assert.equal(hex(k.bytes), '00' + khead + proofs + ktail);
  });

  it('CreateContract V4 docker fields, apiVersion and validation policies', () => {
    const tx = read(create(4, { params: [], apiVersion: '1.12', validationPolicy: { type: 'majority' } }));
    const expected = [
      '6704',
      PK_HEX,
      u16(23) + utf8hex('registry.example/kv:1.0'),
      u16(64) + utf8hex(HASH),
      u16(2) + utf8hex('kv'),
      '0000',
      i64(100_000_000),
      i64(TS),
      '00', // feeAssetId
      '00', // atomicBadge
      '01', // majority
      '0001' + '000c', // api version 1.12
    ].join('');
    assert.equal(hex(tx.bodyBytes), expected);
  });

  it('UpdateContract V6 and DisableContract V1', () => {
    const u = read(update(6, { groupParticipants: [ALICE], storedContract: { image: 'i', imageHash: HASH, apiVersion: '2.3' } }));
    const head = ['6b06', PK_HEX, '0020' + '07'.repeat(32), i64(100_000_000), i64(TS), '00', '00', '01'].join('');
    const tail = ['0001' + ALICE_HEX, '0000', '00' + u16(1) + utf8hex('i') + u16(64) + utf8hex(HASH) + '0002' + '0003'].join('');
    assert.equal(hex(u.bodyBytes), head + tail);
    const d = read(disable(1));
    assert.equal(hex(d.bodyBytes), ['6a01', PK_HEX, '0020' + '07'.repeat(32), i64(100_000_000), i64(TS)].join(''));
  });
});

// ---------------------------------------------------------------------------
// The node's transaction JSON

describe('contract transactions: the JSON the node writes', () => {
  it('CreateContract V7: keys in scheme order, storedContract without base64: prefix', () => {
    const out = read(create(7, { payments: [{ amount: 5 }, { assetId: ID32, amount: 6 }] })).toJson();
    assert.deepEqual(Object.keys(out), [
      'type',
      'id',
      'sender',
      'senderPublicKey',
      'fee',
      'timestamp',
      'proofs',
      'version',
      'contractName',
      'params',
      'feeAssetId',
      'atomicBadge',
      'validationPolicy',
      'payments',
      'isConfidential',
      'groupParticipants',
      'groupOwners',
      'storedContract',
    ]);
    assert.deepEqual(out['storedContract'], { bytecode: 'AQID', bytecodeHash: HASH });
    assert.deepEqual(out['validationPolicy'], { type: 'any' });
    assert.deepEqual(out['payments'], [{ amount: 5n }, { assetId: ID32, amount: 6n }]);
    assert.equal(out['feeAssetId'], null);
    assert.equal(out['atomicBadge'], null);
  });

  it('CreateContract V6: apiVersion as "major.minor", docker fields', () => {
    const out = read(create(6, { apiVersion: '3.0-rc1' })).toJson();
    assert.equal(out['apiVersion'], '3.0');
    assert.equal(out['image'], 'registry.example/kv:1.0');
    assert.equal(out['imageHash'], HASH);
    assert.equal(out['isConfidential'], false);
  });

  it('CallContract V1 has no contractVersion (always 1); V7 writes inputCommitmentOpt', () => {
    const { version: _omitted, ...v1 } = call(1);
    const tx1 = read(v1) as CallContractTransaction;
    assert.equal(tx1.version, 1);
    assert.equal('contractVersion' in tx1.toJson(), false);
    assert.equal(calledContractVersion(tx1), 1);
    assert.equal(calledContractVersion(read(call(2, { contractVersion: 9 })) as CallContractTransaction), 9);
    const out = read(call(7, { callFunc: 'f' })).toJson();
    assert.equal(out['inputCommitmentOpt'], ID32);
    assert.equal('inputCommitment' in out, false);
    assert.equal(out['contractEngine'], 'docker');
    assert.equal(out['callFunc'], 'f');
    const none = read(call(7, { inputCommitment: undefined })).toJson();
    assert.equal(none['inputCommitmentOpt'], null);
    assert.equal(none['callFunc'], null);
  });

  it('UpdateContract V6 storedContract docker JSON', () => {
    const out = read(update(6)).toJson();
    assert.deepEqual(out['storedContract'], { image: 'img', imageHash: HASH, apiVersion: '1.2' });
    assert.deepEqual(out['validationPolicy'], { type: 'majority' });
  });
});

// ---------------------------------------------------------------------------
// Stateless rules

describe('contract transactions: image, imageHash, contractName', () => {
  it('image must have 1–200 characters (UTF-16 units)', () => {
    for (const [make, field] of [
      [(o: Record<string, unknown>) => create(1, o), 'image'],
      [(o: Record<string, unknown>) => update(5, o), 'image'],
    ] as const) {
      expectWeError(() => read(make({ image: '' })), 199, 'Incorrect image length: 0. Length must be between 1 and 200', field);
      expectWeError(() => read(make({ image: 'i'.repeat(201) })), 199, 'Incorrect image length: 201. Length must be between 1 and 200', field);
      expectWeError(() => read(make({ image: '😀'.repeat(101) })), 199, 'Incorrect image length: 202. Length must be between 1 and 200');
      read(make({ image: 'i'.repeat(200) }));
      read(make({ image: '😀'.repeat(100) }));
    }
  });

  it('imageHash must be exactly 64 hex digits', () => {
    for (const bad of ['a'.repeat(63), 'a'.repeat(65), 'g'.repeat(64), '', ' '.repeat(64), 'а'.repeat(64)]) {
      expectWeError(() => read(create(2, { imageHash: bad })), 199, `Image hash string ${bad} is not valid SHA-256 hex string`, 'imageHash');
      expectWeError(() => read(update(1, { imageHash: bad })), 199, `Image hash string ${bad} is not valid SHA-256 hex string`, 'imageHash');
    }
    read(create(2, { imageHash: 'aBcDeF0123456789'.repeat(4) }));
  });

  it('contractName must have 1–200 characters', () => {
    const msg = (n: number): string => `Incorrect contractName length: ${n}. It must be non-empty and its length must be less than 200`;
    expectWeError(() => read(create(3, { contractName: '' })), 199, msg(0), 'contractName');
    expectWeError(() => read(create(7, { contractName: 'я'.repeat(201) })), 199, msg(201), 'contractName');
    read(create(7, { contractName: 'я'.repeat(200) }));
  });

  it('storedContract hashes: bytecodeHash and docker imageHash', () => {
    expectWeError(
      () => read(create(7, { storedContract: { bytecode: 'AQID', bytecodeHash: 'xyz' } })),
      199,
      'Bytecode hash string xyz is not valid SHA-256 hex string',
      'storedContract',
    );
    expectWeError(
      () => read(update(6, { storedContract: { image: 'i', imageHash: 'a'.repeat(63), apiVersion: '1.0' } })),
      199,
      `Image hash string ${'a'.repeat(63)} is not valid SHA-256 hex string`,
      'storedContract',
    );
    // A stored docker image has no length rule (only its hash is validated).
    read(update(6, { storedContract: { image: '', imageHash: HASH, apiVersion: '1.0' } }));
  });
});

describe('contract transactions: params', () => {
  const withKeys = (keys: string[]): Record<string, unknown> => call(3, { params: keys.map((key) => ({ key, type: 'boolean', value: true })) });

  it('keys allow printable ASCII, Russian letters and whitespace runs', () => {
    read(withKeys(['!~', 'ключ Ключ', 'tab\tkey', ' ', 'a\u2003b', 'x'.repeat(100)]));
  });

  it('forbidden characters: InvalidContractKeys with the Scala Map and Set order (checked against Scala 2.11)', () => {
    expectWeError(
      () => read(withKeys(['ok key', 'ёлка', 'tab\there', 'a\u00a0b', 'é ü', 'пр ивет'])),
      199,
      'Keys and invalid symbols in it: [é ü -> é ü; a\u00a0b -> \u00a0; ёлка -> ё]\nAllowed characters are ascii non-control and lower and uppercase russian letters',
      'params',
    );
    // Five or more keys: a HashMap; five or more characters: a HashSet.
    expectWeError(
      () => read(withKeys(['k1ё', 'k2é', 'k3ß', 'k4€', 'k5ü', 'k6ö'])),
      199,
      'Keys and invalid symbols in it: [k3ß -> ß; k2é -> é; k6ö -> ö; k4€ -> €; k1ё -> ё; k5ü -> ü]\nAllowed characters are ascii non-control and lower and uppercase russian letters',
    );
    const e = expectWeError(() => read(withKeys(['ёéüöäß€ ', ' \u2003x', '😀', 'a\u0085b'])), 199);
    assert.equal(
      e.message,
      'Keys and invalid symbols in it: [a\u0085b -> \u0085; 😀 -> 😀; ёéüöäß€  -> ёäéü ß€ö]\nAllowed characters are ascii non-control and lower and uppercase russian letters',
    );
    assert.equal(e.kind, 'InvalidContractKeys');
  });

  it('empty keys, duplicate keys, keys over 100 characters (in that order)', () => {
    expectWeError(() => read(withKeys(['a', ''])), 199, 'Param with empty key was found', 'params');
    expectWeError(() => read(withKeys(['', 'a', 'a'])), 199, 'Param with empty key was found');
    expectWeError(() => read(withKeys(['a', 'b', 'a'])), 199, 'Params with duplicate keys were found', 'params');
    expectWeError(() => read(withKeys(['k'.repeat(101)])), 199, 'Key length exceeds max length 100', 'params');
    expectWeError(() => read(withKeys(['ё', '', 'ё'])), 199, /^Keys and invalid symbols in it: \[ё -> ё\]/);
  });

  it('malformed params JSON is WrongJson', () => {
    expectWeError(() => read(call(1, { params: undefined })), 1, 'failed to parse json message', 'params');
    expectWeError(() => read(call(1, { params: {} })), 1);
    expectWeError(() => read(call(1, { params: [{ key: 'a', type: 'integer', value: '1' }] })), 1);
    expectWeError(() => read(call(1, { params: [{ key: 'a', type: 'integer', value: 2n ** 63n }] })), 1);
    expectWeError(() => read(call(1, { params: [{ key: 'a', type: 'binary', value: 'base64:%%%' }] })), 1);
    expectWeError(() => read(call(1, { params: [{ key: 'a', type: 'object', value: 1 }] })), 1);
  });
});

describe('contract transactions: validation policy and API version', () => {
  it('majority_with_one_of needs at least one address', () => {
    for (const make of [(o: Record<string, unknown>) => create(4, o), (o: Record<string, unknown>) => update(6, o)]) {
      expectWeError(
        () => read(make({ validationPolicy: { type: 'majority_with_one_of', addresses: [] } })),
        199,
        "Empty policy addresses. Use 'majority' instead of 'majority_with_one_of'.",
        'validationPolicy',
      );
    }
  });

  it('malformed policies are WrongJson', () => {
    const e = expectWeError(() => read(create(5, { validationPolicy: 'any' })), 1, 'failed to parse json message', 'validationPolicy');
    assert.deepEqual(e.jsonPathErrors, [{ path: 'obj.validationPolicy', messages: ['Expected validation policy json object'] }]);
    expectWeError(() => read(create(5, { validationPolicy: { type: 'all' } })), 1);
    expectWeError(() => read(create(5, { validationPolicy: null })), 1);
    expectWeError(() => read(create(5, { validationPolicy: undefined })), 1, undefined, 'validationPolicy');
    const noList = expectWeError(() => read(create(5, { validationPolicy: { type: 'majority_with_one_of' } })), 1);
    assert.deepEqual(noList.jsonPathErrors, [{ path: 'obj.validationPolicy', messages: ["Field 'addresses' not found"] }]);
    expectWeError(() => read(create(5, { validationPolicy: { type: 'majority_with_one_of', addresses: [1] } })), 1);
    expectWeError(() => read(create(5, { validationPolicy: { type: 'majority_with_one_of', addresses: ['3N0'] } })), 1);
    // A policy with unknown extra keys is read; addresses may repeat.
    read(create(5, { validationPolicy: { type: 'majority', addresses: 5 } }));
    read(create(5, { validationPolicy: { type: 'majority_with_one_of', addresses: [ALICE, ALICE] } }));
  });

  it('apiVersion: pattern (WrongJson) and range (645)', () => {
    const pattern = "Invalid contract api version. Expected string pattern '^(\\d+)\\.(\\d+).*'";
    for (const bad of ['1', 'a.b', '.1', '1.', '', ' 1.0', '1.0\n', '١.٠']) {
      const e = expectWeError(() => read(create(4, { apiVersion: bad })), 1, 'failed to parse json message', 'apiVersion');
      assert.deepEqual(e.jsonPathErrors, [{ path: 'obj.apiVersion', messages: [pattern] }]);
    }
    expectWeError(() => read(create(4, { apiVersion: 1.0 })), 1);
    expectWeError(() => read(update(4, { apiVersion: '32768.0' })), 645, 'Contract API version values must be within the [0-32767] range', 'apiVersion');
    expectWeError(() => read(update(5, { apiVersion: '1.99999999999999999999' })), 645);
    const e = expectWeError(() => read(create(6, { apiVersion: '0.40000' })), 645);
    assert.equal(e.kind, 'InvalidContractApiVersion');
    assert.equal(read(create(4, { apiVersion: '007.0x' })).toJson()['apiVersion'], '7.0');
    expectWeError(
      () => read(create(7, { storedContract: { image: 'i', imageHash: HASH, apiVersion: '99999.1' } })),
      645,
      undefined,
      'storedContract.apiVersion',
    );
  });
});

describe('contract transactions: payments, fee asset, commitment, engine, contract id', () => {
  it('payments: WrongJson for bad shapes, asset ids or amounts', () => {
    for (const bad of [
      [5],
      [{}],
      [{ amount: '5' }],
      [{ amount: 2n ** 63n }],
      [{ amount: 1.5 }],
      [{ assetId: 'O0', amount: 1 }],
      [{ assetId: 5, amount: 1 }],
      [{ assetId: encodeBase58(new Uint8Array(31)), amount: 1 }],
      [{ assetId: '', amount: 1 }],
    ]) {
      expectWeError(() => read(call(5, { payments: bad })), 1, 'failed to parse json message');
    }
    expectWeError(() => read(create(5, { payments: undefined })), 1, undefined, 'payments');
    // null asset id = WEST; negative amounts are a state matter.
    const tx = read(call(5, { payments: [{ assetId: null, amount: -1 }] }));
    assert.deepEqual(tx.toJson()['payments'], [{ amount: -1n }]);
  });

  it('feeAssetId: invalid feeAssetId (199); CreateContract V7 / UpdateContract V6 read a ByteStr (WrongJson)', () => {
    expectWeError(() => read(create(2, { feeAssetId: '0OIl' })), 199, 'invalid feeAssetId', 'feeAssetId');
    expectWeError(() => read(call(3, { feeAssetId: encodeBase58(new Uint8Array(40)) })), 199, 'invalid feeAssetId');
    expectWeError(() => read(disable(2, { feeAssetId: 'abc' })), 199, 'invalid feeAssetId');
    expectWeError(() => read(create(7, { feeAssetId: '0OIl' })), 1, undefined, 'feeAssetId');
    expectWeError(() => read(update(6, { feeAssetId: 7 })), 1, undefined, 'feeAssetId');
    assert.equal(read(create(7, { feeAssetId: '' })).toJson()['feeAssetId'], null);
    assert.equal(read(update(2, { feeAssetId: '' })).toJson()['feeAssetId'], null);
    assert.equal(read(update(6, { feeAssetId: ID32 })).toJson()['feeAssetId'], ID32);
  });

  it('contractId: bad Base58 is InvalidContractId (199); any length is read', () => {
    for (const make of [
      (o: Record<string, unknown>) => call(1, o),
      (o: Record<string, unknown>) => disable(3, o),
      (o: Record<string, unknown>) => update(6, o),
    ]) {
      const e = expectWeError(() => read(make({ contractId: 'abc0' })), 199, "Contract id 'abc0' is invalid", 'contractId');
      assert.equal(e.kind, 'InvalidContractId');
      expectWeError(() => read(make({ contractId: 5 })), 1, undefined, 'contractId');
      expectWeError(() => read(make({ contractId: '1'.repeat(5000) })), 199, /^Contract id '1+' is invalid$/);
      assert.equal(read(make({ contractId: '' })).toJson()['contractId'], '');
      assert.equal(read(make({ contractId: 'abc' })).toJson()['contractId'], 'abc');
    }
  });

  it('commitments are 32 bytes; bad Base58 is InvalidHash (199)', () => {
    const msg = (n: number): string => `Invalid commitment hash length: '${n}', it should be current crypto digest size: '32'`;
    expectWeError(() => read(call(7, { inputCommitment: encodeBase58(new Uint8Array(31).fill(1)) })), 199, msg(31), 'inputCommitment');
    expectWeError(() => read(call(7, { inputCommitment: '' })), 199, msg(0));
    const e = expectWeError(
      () => read(call(7, { inputCommitment: 'x0' })),
      199,
      "InvalidHash(Unable to decode base58: assertion failed: Wrong char '0' in Base58 string 'x0')",
      'inputCommitment',
    );
    assert.equal(e.kind, 'InvalidHash');
    // V6 has no REST reader; typed values are checked by Protocol.transaction.
    const v6 = read(call(6), false) as CallContractTransaction;
    expectWeError(() => p.transaction(CallContract, 6, { ...v6.data, inputCommitment: new Uint8Array(33) }), 199, msg(33), 'inputCommitment');
    expectWeError(() => read(call(6, { inputCommitment: undefined }), false), 1, undefined, 'inputCommitment');
  });

  it('CallContract V6 is refused for broadcast but parsed from binary', () => {
    expectWeError(() => read(call(6)), 199, 'CallContract V6 transaction can only be created by /confidential-contracts/call');
    const tx = read(call(6), false);
    assert.equal(hex(p.transactionFromBytes(tx.bytes).bytes), hex(tx.bytes));
    assert.equal(tx.toJson()['inputCommitment'], ID32);
  });

  it('contractEngine must be docker or wasm (UnknownContractEngineError)', () => {
    for (const bad of ['', 'Docker', 'evm']) {
      const e = expectWeError(() => read(call(7, { contractEngine: bad })), 199, 'UnknownContractEngineError', 'contractEngine');
      assert.equal(e.kind, 'UnknownContractEngineError');
    }
    expectWeError(() => read(call(7, { contractEngine: undefined })), 1, undefined, 'contractEngine');
    expectWeError(() => read(call(7, { callFunc: 5 })), 1, undefined, 'callFunc');
  });
});

describe('contract transactions: stored contract JSON', () => {
  it('needs exactly the docker or the wasm keys', () => {
    for (const bad of [
      {},
      'docker',
      [],
      { bytecode: 'AQID' },
      { bytecode: 'AQID', bytecodeHash: HASH, extra: 1 },
      { image: 'i', imageHash: HASH },
      { image: 'i', imageHash: HASH, apiVersion: '1.0', more: 1 },
      { image: 'i', bytecode: 'AQID' },
      { image: 'i', imageHash: HASH, other: '1.0' },
    ]) {
      const e = expectWeError(() => read(create(7, { storedContract: bad })), 1, 'failed to parse json message', 'storedContract');
      assert.match(e.jsonPathErrors?.[0]?.messages[0] ?? '', /^unexpected storedContract json .*\.\n {2}Expecting one of:\n/);
    }
  });

  it('bad values inside are WrongJson', () => {
    expectWeError(() => read(update(6, { storedContract: { bytecode: '%%', bytecodeHash: HASH } })), 1);
    expectWeError(() => read(update(6, { storedContract: { bytecode: 5, bytecodeHash: HASH } })), 1);
    expectWeError(() => read(update(6, { storedContract: { bytecode: 'AQID', bytecodeHash: null } })), 1);
    expectWeError(() => read(update(6, { storedContract: { image: 1, imageHash: HASH, apiVersion: '1.0' } })), 1);
    expectWeError(() => read(update(6, { storedContract: { image: 'i', imageHash: HASH, apiVersion: 'x' } })), 1);
    // With apiVersion and both wasm keys, WE reads a wasm contract.
    const tx = read(create(7, { storedContract: { bytecode: 'AQID', bytecodeHash: HASH, apiVersion: 'whatever' } }));
    assert.deepEqual(tx.toJson()['storedContract'], { bytecode: 'AQID', bytecodeHash: HASH });
  });
});

describe('contract transactions: group sets', () => {
  it('CreateContract V6 / UpdateContract V5 refuse duplicates', () => {
    expectWeError(
      () => read(create(6, { groupParticipants: [ALICE, BOB, ALICE] })),
      199,
      'Group participants must be a set of unique addresses',
      'groupParticipants',
    );
    expectWeError(() => read(update(5, { groupOwners: [BOB, BOB] })), 199, 'Group owners must be a set of unique addresses', 'groupOwners');
    expectWeError(() => read(create(6, { groupParticipants: ['3N0x'] })), 102, /^invalid address: /);
    expectWeError(() => read(update(5, { groupOwners: [5] })), 1);
    expectWeError(() => read(update(5, { groupOwners: undefined })), 1, undefined, 'groupOwners');
  });

  it('CreateContract V7 / UpdateContract V6 merge duplicates silently and read addresses as Play does', () => {
    const tx = read(create(7, { groupParticipants: [ALICE, BOB, ALICE] }));
    assert.deepEqual(tx.toJson()['groupParticipants'], [ALICE, BOB]);
    assert.ok(hex(tx.bodyBytes).includes('0002' + ALICE_HEX + BOB_HEX));
    expectWeError(() => read(update(6, { groupParticipants: ['3N0x'] })), 1, 'failed to parse json message', 'groupParticipants(0)');
    expectWeError(() => read(update(6, { groupParticipants: [null] })), 1);
  });

  it('typed group members given in any order are written in the Set order', () => {
    const addrs = Array.from({ length: 6 }, (_, i) => p.addresses.fromPublicKey(new Uint8Array(32).fill(i + 1)));
    const base = read(create(7)) as CreateContractTransaction;
    const a = p.transaction(CreateContract, 7, { ...base.data, groupParticipants: addrs });
    const b = p.transaction(CreateContract, 7, { ...base.data, groupParticipants: [...addrs].reverse() });
    assert.equal(hex(a.bytes), hex(b.bytes));
    assert.deepEqual(a.toJson()['groupParticipants'], b.toJson()['groupParticipants']);
    assert.deepEqual(p.transactionFromBytes(a.bytes).toJson()['groupParticipants'], a.toJson()['groupParticipants']);
  });
});

describe('contract transactions: size limits', () => {
  /** A CallContract V2 whose full bytes are `size` long (a binary param fills it). */
  const callOfSize = (size: number): Record<string, unknown> => {
    const probe = read(call(2, { params: [{ key: 'b', type: 'binary', value: 'base64:' }] }));
    const fill = size - probe.bytes.length;
    return call(2, { params: [{ key: 'b', type: 'binary', value: `base64:${Buffer.alloc(fill).toString('base64')}` }] });
  };

  it('CreateContract and CallContract: full bytes ≤ 128 000 (ContractTransactionTooBig 604)', () => {
    assert.equal(read(callOfSize(128_000)).bytes.length, 128_000);
    const e = expectWeError(() => read(callOfSize(128_001)), 604, 'Contract transaction too big, actual size 128001 bytes, expected size 128000 bytes');
    assert.equal(e.kind, 'ContractTransactionTooBig');
    const big = create(1, { params: [{ key: 'b', type: 'string', value: 'x'.repeat(130_000) }] });
    expectWeError(() => read(big), 604, /^Contract transaction too big, actual size \d+ bytes, expected size 128000 bytes$/);
  });

  it('UpdateContract has no size limit', () => {
    const many = Array.from({ length: 5000 }, (_, i) => {
      const pk = new Uint8Array(32);
      new DataView(pk.buffer).setUint32(0, i + 1);
      return p.addresses.fromPublicKey(pk).toString();
    });
    const tx = read(update(6, { groupParticipants: many }));
    assert.ok(tx.bytes.length > 128_000);
  });
});

// ---------------------------------------------------------------------------
// ExecutedContract

/** The executed call of the fixed vectors: a CallContract V5 with a fixed (fake) proof. */
const innerJson = call(5, { params: [{ key: 'x', type: 'integer', value: 7 }], fee: 10, proofs: [encodeBase58(new Uint8Array(64).fill(0x22))] });
const INNER_HEX = [
  '006805',
  PK_HEX,
  '0020' + '07'.repeat(32),
  '0001' + '0001' + '78' + '00' + i64(7),
  i64(10),
  i64(TS),
  '00000001',
  '00',
  '00',
  '0000',
  '01' + '0001' + '0040' + '22'.repeat(64),
].join('');
const CID = new Uint8Array(32).fill(0x33);
const CID_HEX = '33'.repeat(32);
const MINER_PROOF = new Uint8Array(64).fill(0x44);
const RESULTS: DataEntry[] = [{ key: 'r', type: 'string', value: 'ok' }];
const RESULTS_HEX = '0001' + '0001' + '72' + '03' + u32(2) + utf8hex('ok');
const TRANSFER_OP: ContractAssetOperation = { operationType: 'transfer', assetId: null, recipient: p.addresses.parseAddress(BOB), amount: 5n };
const TRANSFER_OP_HEX = '0001' + '00' + BOB_HEX + i64(5);
const VALIDATION_PROOF = { validatorPublicKey: alice.publicKey, signature: new Uint8Array(64).fill(0x55) };
const PROOF_HEX = '0001' + PK_HEX + '55'.repeat(64);
const EXEC_TS = TS + 1;

function executed(version: number, over: Partial<Record<keyof ExecutedContractData, unknown>> = {}): ExecutedContractTransaction {
  const inner = read(innerJson);
  const data: Record<string, unknown> = {
    senderPublicKey: alice.publicKey,
    tx: inner,
    timestamp: BigInt(EXEC_TS),
    ...(version <= 4 ? { results: RESULTS } : { resultsMap: [{ contractId: CID, results: RESULTS }] }),
    ...(version >= 2 ? { resultsHash: new Uint8Array(32).fill(0x66), validationProofs: [VALIDATION_PROOF] } : {}),
    ...(version === 3 || version === 4 ? { assetOperations: [TRANSFER_OP] } : {}),
    ...(version >= 4
      ? { readings: [{ type: 'specific-keys', contractId: CID, keys: ['x'] }], readingsHash: version === 4 ? new Uint8Array(32).fill(0x77) : null }
      : {}),
    ...(version === 4 ? { outputCommitment: new Uint8Array(32).fill(0x88) } : {}),
    ...(version === 5
      ? { outputCommitmentOpt: null, assetOperationsMap: [{ contractId: CID, operations: [TRANSFER_OP] }], statusCode: 0, errorMessage: 'oops' }
      : {}),
    ...over,
  };
  return p.transaction(ExecutedContract, version, data as unknown as ExecutedContractData, [MINER_PROOF]);
}

describe('ExecutedContract: fixed vectors checked field by field against the layout', () => {
  const head = (v: number): string => '69' + v.toString(16).padStart(2, '0') + PK_HEX + u32(INNER_HEX.length / 2) + INNER_HEX;
  const minerProofs = '01' + '0001' + '0040' + '44'.repeat(64);
  const resultsHash = '0020' + '66'.repeat(32);
  const readings = '0001' + '00' + '0020' + CID_HEX + '0001' + '0001' + utf8hex('x');
  const vectors: Record<number, { body: string[]; afterProofs: string[] }> = {
    1: { body: [RESULTS_HEX, i64(EXEC_TS)], afterProofs: [] },
    2: { body: [RESULTS_HEX, resultsHash, PROOF_HEX, i64(EXEC_TS)], afterProofs: [] },
    3: { body: [RESULTS_HEX, resultsHash, PROOF_HEX, i64(EXEC_TS), '0001' + TRANSFER_OP_HEX], afterProofs: [] },
    4: {
      body: [RESULTS_HEX, resultsHash, PROOF_HEX, i64(EXEC_TS), '0001' + TRANSFER_OP_HEX],
      afterProofs: [readings, '01' + '77'.repeat(32), '88'.repeat(32)],
    },
    5: {
      body: [u32(1) + '0020' + CID_HEX + u32(1) + RESULTS_HEX.slice(4), resultsHash, PROOF_HEX, i64(EXEC_TS)],
      afterProofs: [readings, '00', '00', u32(1) + '0020' + CID_HEX + u32(1) + TRANSFER_OP_HEX, '00000000', '01' + u16(4) + utf8hex('oops')],
    },
  };

  it('the executed call has the layout of CallContract V5', () => {
    assert.equal(hex(read(innerJson).bytes), INNER_HEX);
  });

  for (const version of [1, 2, 3, 4, 5]) {
    it(`V${version}: body, full bytes, id, JSON, binary and JSON round trips`, () => {
      const tx = executed(version);
      const v = vectors[version]!;
      const body = head(version) + v.body.join('') + v.afterProofs.join('');
      assert.equal(hex(tx.bodyBytes), body);
      assert.equal(hex(tx.bytes), '00' + head(version) + v.body.join('') + minerProofs + v.afterProofs.join(''));
      assert.equal(hex(tx.id), hex(blake2b(fromHex(body), { dkLen: 32 })));
      assert.equal(tx.fee, 0n);
      const back = p.transactionFromBytes(tx.bytes);
      assert.equal(hex(back.bytes), hex(tx.bytes));
      const json = tx.toJson();
      assert.equal(stringifyJson(back.toJson()), stringifyJson(json));
      // The node's own JSON reads back (never for broadcast).
      const again = read(json, false);
      assert.equal(hex(again.bytes), hex(tx.bytes));
      expectWeError(() => read(json), 199, /^ExecutedContract (V\d )?transaction is not allowed to be broadcasted$/);
    });
  }

  it('JSON keys and values (V3 and V5)', () => {
    const v3 = executed(3).toJson();
    assert.deepEqual(Object.keys(v3), [
      'type',
      'id',
      'sender',
      'senderPublicKey',
      'fee',
      'timestamp',
      'proofs',
      'version',
      'tx',
      'results',
      'resultsHash',
      'validationProofs',
      'assetOperations',
    ]);
    assert.equal(v3['fee'], 0n);
    assert.equal(v3['sender'], ALICE);
    assert.deepEqual(v3['tx'], read(innerJson).toJson());
    assert.deepEqual(v3['results'], [{ key: 'r', type: 'string', value: 'ok' }]);
    assert.equal(v3['resultsHash'], encodeBase58(new Uint8Array(32).fill(0x66)));
    assert.deepEqual(v3['validationProofs'], [{ validatorPublicKey: ALICE_PK, signature: encodeBase58(new Uint8Array(64).fill(0x55)) }]);
    assert.deepEqual(v3['assetOperations'], [{ operationType: 'transfer', version: 1, recipient: BOB, amount: 5n }]);
    const v5 = executed(5).toJson();
    assert.deepEqual(Object.keys(v5), [
      'type',
      'id',
      'sender',
      'senderPublicKey',
      'fee',
      'timestamp',
      'proofs',
      'version',
      'tx',
      'resultsMap',
      'resultsHash',
      'validationProofs',
      'readings',
      'readingsHash',
      'outputCommitmentOpt',
      'assetOperationsMap',
      'statusCode',
      'errorMessage',
    ]);
    const cid = encodeBase58(CID);
    assert.deepEqual(v5['resultsMap'], { [cid]: [{ key: 'r', type: 'string', value: 'ok' }] });
    assert.deepEqual(v5['readings'], [{ contractId: cid, keys: ['x'] }]);
    assert.equal(v5['readingsHash'], null);
    assert.equal(v5['outputCommitmentOpt'], null);
    assert.deepEqual(v5['assetOperationsMap'], { [cid]: [{ operationType: 'transfer', version: 1, recipient: BOB, amount: 5n }] });
    assert.equal(v5['statusCode'], 0);
    assert.equal(v5['errorMessage'], 'oops');
  });

  it('every asset operation and read descriptor round-trips', () => {
    const alias = p.addresses.alias('some-alias');
    const ops: ContractAssetOperation[] = [
      TRANSFER_OP,
      { operationType: 'transfer', assetId: CID, recipient: alias, amount: -1n },
      { operationType: 'issue', assetId: CID, name: 'Тест', description: '', quantity: 10n, decimals: 8, isReissuable: true, nonce: -3 },
      { operationType: 'reissue', assetId: CID, quantity: 1n, isReissuable: false },
      { operationType: 'burn', assetId: null, amount: 2n },
      { operationType: 'lease', leaseId: CID, nonce: 1, recipient: alias, amount: 9n },
      { operationType: 'cancel-lease', leaseId: CID },
      { operationType: 'contract-payment', assetId: CID, recipient: new Uint8Array([1, 2, 3]), amount: 4n },
    ];
    const readings = [
      { type: 'specific-keys', contractId: CID, keys: [] },
      { type: 'filtered-keys', contractId: CID, matches: '^a', offset: null, limit: 10 },
      { type: 'filtered-keys', contractId: new Uint8Array(0), matches: null, offset: 0, limit: null },
      { type: 'specific-balances', contractId: CID, assetIds: ['WEST', ID32] },
    ];
    for (const version of [4, 5]) {
      const tx = executed(
        version,
        version === 4 ? { assetOperations: ops, readings } : { assetOperationsMap: [{ contractId: CID, operations: ops }], readings },
      );
      const back = p.transactionFromBytes(tx.bytes);
      assert.equal(hex(back.bytes), hex(tx.bytes));
      assert.equal(hex(read(tx.toJson() as Record<string, unknown>, false).bytes), hex(tx.bytes));
      assert.deepEqual(executedAssetOperations(back as ExecutedContractTransaction), ops);
    }
    // Issue: assetId ‖ name ‖ description ‖ quantity ‖ decimals ‖ reissuable ‖ nonce, after type 01 and version 01.
    const w = hex(executed(3, { assetOperations: [ops[2]] }).bodyBytes);
    assert.ok(w.includes('0101' + CID_HEX + u16(8) + utf8hex('Тест') + '0000' + i64(10) + '08' + '01' + 'fd'));
  });

  it('results of five or more contracts are written in the Scala Map order', () => {
    const ids = Array.from({ length: 6 }, (_, i) => new Uint8Array(32).fill(i + 1));
    const entries = ids.map((contractId) => ({ contractId, results: RESULTS }));
    const a = executed(5, { resultsMap: entries });
    const b = executed(5, { resultsMap: [...entries].reverse() });
    assert.equal(hex(a.bytes), hex(b.bytes));
    const back = p.transactionFromBytes(a.bytes) as ExecutedContractTransaction;
    assert.deepEqual(Object.keys(back.toJson()['resultsMap'] as object), Object.keys(a.toJson()['resultsMap'] as object));
    assert.equal(executedResults(back).length, 6);
  });

  it('results follow the params rules with "Result" messages', () => {
    const withKeys = (keys: string[]): DataEntry[] => keys.map((key) => ({ key, type: 'boolean', value: false }));
    expectWeError(() => executed(1, { results: withKeys(['a', '']) }), 199, 'Result with empty key was found', 'results');
    expectWeError(() => executed(2, { results: withKeys(['a', 'a']) }), 199, 'Results with duplicate keys were found');
    expectWeError(() => executed(3, { results: withKeys(['é']) }), 199, /^Keys and invalid symbols in it: \[é -> é\]/);
    expectWeError(() => executed(4, { results: withKeys(['k'.repeat(101)]) }), 199, 'Key length exceeds max length 100');
    expectWeError(() => executed(5, { resultsMap: [{ contractId: CID, results: withKeys(['']) }] }), 199, 'Result with empty key was found', 'resultsMap');
  });

  it('readings hash and output commitments must be 32 bytes', () => {
    expectWeError(
      () => executed(4, { readingsHash: new Uint8Array(31) }),
      199,
      "Invalid readings hash length: '31', it should be current crypto digest size: 32",
      'readingsHash',
    );
    expectWeError(
      () => executed(4, { outputCommitment: new Uint8Array(0) }),
      199,
      "Invalid commitment hash length: '0', it should be current crypto digest size: '32'",
      'outputCommitment',
    );
    expectWeError(() => executed(5, { outputCommitmentOpt: new Uint8Array(33) }), 199, /^Invalid commitment hash length: '33'/, 'outputCommitmentOpt');
    const json = executed(5, { readingsHash: new Uint8Array(32) }).toJson() as Record<string, unknown>;
    expectWeError(() => read({ ...json, readingsHash: encodeBase58(new Uint8Array(5)) }, false), 199, /^Invalid readings hash length: '5'/);
    expectWeError(() => read({ ...json, readingsHash: '0' }, false), 1, undefined, 'readingsHash');
  });

  it('full bytes ≤ 307 200 (ContractTransactionTooBig 604)', () => {
    const big = (n: number): DataEntry[] => [{ key: 'b', type: 'binary', value: new Uint8Array(n) }];
    const base = executed(1, { results: big(0) }).bytes.length;
    assert.equal(executed(1, { results: big(307_200 - base) }).bytes.length, 307_200);
    expectWeError(
      () => executed(1, { results: big(307_201 - base) }),
      604,
      'Contract transaction too big, actual size 307201 bytes, expected size 307200 bytes',
    );
  });

  it('only CreateContract, CallContract and UpdateContract can be executed', () => {
    const disabled = read(disable(1));
    const good = executed(1);
    const bytes = hex(good.bytes);
    const innerStart = 2 + 4 + 32 * 2 + 8; // hex offset after 00 ‖ 69 01 ‖ pk ‖ length
    const swapped = bytes.slice(0, innerStart - 8) + u32(disabled.bytes.length) + hex(disabled.bytes) + bytes.slice(innerStart + INNER_HEX.length);
    expectWeError(() => p.transactionFromBytes(fromHex(swapped)), 199, /^Incorrect transaction/);
    // An ExecutedContract inside an ExecutedContract is refused before it is parsed.
    const nested = bytes.slice(0, innerStart - 8) + u32(good.bytes.length) + bytes + bytes.slice(innerStart + INNER_HEX.length);
    expectWeError(() => p.transactionFromBytes(fromHex(nested)), 199, /^Incorrect transaction/);
    const json = good.toJson() as Record<string, unknown>;
    expectWeError(() => read({ ...json, tx: disabled.toJson() }, false), 1, undefined, 'tx');
  });

  it('inner CallContract V7 JSON as the node writes it (inputCommitmentOpt) reads back', () => {
    const inner = read(call(7));
    const tx = executed(5, { tx: inner });
    assert.equal(hex(read(tx.toJson() as Record<string, unknown>, false).bytes), hex(tx.bytes));
  });
});

// ---------------------------------------------------------------------------
// Results hash

describe("ExecutedContract: WE's results hash", () => {
  const entries: DataEntry[] = [
    { key: 'b', type: 'integer', value: 1n },
    { key: 'a', type: 'string', value: 'x' },
    { key: 'B', type: 'boolean', value: true },
  ];
  // Sorted by key (UTF-16 order: 'B' < 'a' < 'b'), CONTRACT_DATA_ENTRY bytes.
  const sortedHex = '0001' + '42' + '01' + '01' + ('0001' + '61' + '03' + '00000001' + '78') + ('0001' + '62' + '00' + '0000000000000001');

  it('resultsHash: sorted results, then asset operations without their type/version prefix', () => {
    assert.equal(hex(contractResultsHash(p, entries)), hex(blake2b(fromHex(sortedHex), { dkLen: 32 })));
    assert.equal(hex(contractResultsHash(p, [])), hex(blake2b(new Uint8Array(0), { dkLen: 32 })));
    const opBody = '00' + BOB_HEX + '0000000000000005';
    assert.equal(hex(contractResultsHash(p, entries, [TRANSFER_OP])), hex(blake2b(fromHex(sortedHex + opBody), { dkLen: 32 })));
    // Fixed value, so a change of hash or layout shows.
    assert.equal(encodeBase58(contractResultsHash(p, entries)), encodeBase58(blake2b(fromHex(sortedHex), { dkLen: 32 })));
  });

  // Vectors: the bytes above are laid out as we-core's ContractTransactionValidation.resultsHash /
  // resultsMapHash write them (ContractTransactionEntryOps.writeBytes per entry: u16 key length, key,
  // type byte, value with u32 lengths; ContractTransferOutV1.writeContractAssetOperationBytes: asset id
  // option, recipient bytes, amount — no type/version prefix), and the digests computed apart from
  // Weft with Python's hashlib.blake2b(bytes.fromhex(…), digest_size=32).
  it('resultsHash / resultsMapHash vectors computed outside Weft', () => {
    assert.equal(hex(contractResultsHash(p, [])), '0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8');
    assert.equal(hex(contractResultsHash(p, entries)), '3261f72cc20fd479f44ea474094b0bce966175b9e5d7e21de2d589bcf44f2391');
    assert.equal(hex(contractResultsHash(p, entries, [TRANSFER_OP])), '288e080fae58091e55c50f358fa62bd73d373435306d783aa1d902bd68d54880');
    const idA = new Uint8Array(32).fill(0xff);
    const idB = new Uint8Array(32).fill(0x00);
    const map = contractResultsMapHash(
      p,
      [
        { contractId: idA, results: [{ key: 'k', type: 'boolean', value: false }] },
        { contractId: idB, results: entries },
      ],
      [
        { contractId: idA, operations: [TRANSFER_OP] },
        { contractId: idB, operations: [TRANSFER_OP, TRANSFER_OP] },
      ],
    );
    assert.equal(hex(map), 'e359f53d8ecccf631dd102cd1a8cdd9b451cc48b8a670eda3accfa57ecfd07b6');
  });

  it('resultsMapHash: contracts sorted by their Base58 id text, then asset operations in that order', () => {
    const idA = new Uint8Array(32).fill(0xff); // Base58 starts with a digit > 1
    const idB = new Uint8Array(32).fill(0x00); // '1111…'
    assert.ok(encodeBase58(idB) < encodeBase58(idA));
    const one: DataEntry[] = [{ key: 'k', type: 'boolean', value: false }];
    const oneHex = '0001' + '6b' + '01' + '00';
    const opBody = '00' + BOB_HEX + '0000000000000005';
    const expected = blake2b(fromHex(sortedHex + oneHex + opBody + opBody + opBody), { dkLen: 32 });
    const got = contractResultsMapHash(
      p,
      [
        { contractId: idA, results: one },
        { contractId: idB, results: entries },
      ],
      [
        { contractId: idA, operations: [TRANSFER_OP] },
        { contractId: idB, operations: [TRANSFER_OP, TRANSFER_OP] },
      ],
    );
    assert.equal(hex(got), hex(expected));
  });

  it('uses the network crypto (GOST: Streebog)', () => {
    assert.equal(hex(contractResultsHash(gost, entries)), hex(gost.crypto.fastHash(fromHex(sortedHex))));
  });
});

// ---------------------------------------------------------------------------
// Malformed input never crashes

const junk = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(2n ** 64n, -(2n ** 63n) - 1n, 1e300, -0, '', 'base64:', '0', {}, [], null),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('type', 'key', 'value', 'amount', 'assetId', 'addresses', 'image', 'bytecode', 'bytecodeHash', 'apiVersion'), fc.jsonValue()),
);

describe('contract transactions: malformed input ends in a WeError', () => {
  it('any field replaced by junk JSON', () => {
    const samples = ALL.map(({ make }) => make());
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.nat(), junk, (sample, k, value) => {
        const keys = Object.keys(sample).filter((x) => x !== 'type' && x !== 'version');
        const key = keys[k % keys.length]!;
        onlyWeErrors(() => read({ ...sample, [key]: value }));
      }),
      { numRuns: 600 },
    );
  });

  it('nested values replaced by junk JSON', () => {
    const nested = [
      (j: unknown) => create(5, { payments: [j] }),
      (j: unknown) => create(4, { validationPolicy: { type: 'majority_with_one_of', addresses: [j] } }),
      (j: unknown) => create(7, { storedContract: { bytecode: j, bytecodeHash: HASH } }),
      (j: unknown) => update(6, { storedContract: { image: 'i', imageHash: HASH, apiVersion: j } }),
      (j: unknown) => call(2, { params: [{ key: 'k', type: 'integer', value: j }] }),
      (j: unknown) => update(6, { groupOwners: [j] }),
      (j: unknown) => ({ ...(executed(5).toJson() as Record<string, unknown>), resultsMap: j }),
      (j: unknown) => ({ ...(executed(5).toJson() as Record<string, unknown>), assetOperationsMap: { [ID32]: [j] } }),
      (j: unknown) => ({ ...(executed(4).toJson() as Record<string, unknown>), readings: [j] }),
      (j: unknown) => ({ ...(executed(2).toJson() as Record<string, unknown>), validationProofs: [j] }),
      (j: unknown) => ({ ...(executed(1).toJson() as Record<string, unknown>), tx: j }),
    ];
    fc.assert(
      fc.property(fc.constantFrom(...nested), junk, (make, value) => onlyWeErrors(() => read(make(value), false))),
      { numRuns: 600 },
    );
  });

  it('truncated and corrupted binary', () => {
    const samples = [...ALL.map(({ make }) => read(make()).bytes), read(call(6), false).bytes, ...[1, 2, 3, 4, 5].map((v) => executed(v).bytes)];
    for (const bytes of samples) {
      for (let n = 0; n < bytes.length; n++) onlyWeErrors(() => p.transactionFromBytes(bytes.subarray(0, n)));
      expectWeError(() => p.transactionFromBytes(bytes.subarray(0, bytes.length - 1)), 199);
    }
    fc.assert(
      fc.property(
        fc.constantFrom(...samples),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        (bytes, edits) => {
          const copy = Uint8Array.from(bytes);
          for (const [i, b] of edits) copy[3 + (i % (copy.length - 3))] = b;
          onlyWeErrors(() => p.transactionFromBytes(copy));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('unknown tags in binary', () => {
    const tx = read(create(7, { params: [], validationPolicy: { type: 'majority' } }));
    const h = hex(tx.bytes);
    // The validation policy byte '01' follows fee, timestamp, fee asset and badge; make it 03.
    const at = h.indexOf(i64(100_000_000) + i64(TS) + '00' + '00' + '01');
    assert.ok(at > 0);
    const policyAt = at + 16 + 16 + 4;
    const bad = h.slice(0, policyAt) + '03' + h.slice(policyAt + 2);
    expectWeError(() => p.transactionFromBytes(fromHex(bad)), 199, 'Unknown validation policy type 3');
    // Stored contract type 02.
    const sc = h.lastIndexOf('01' + u32(3) + '010203');
    expectWeError(() => p.transactionFromBytes(fromHex(h.slice(0, sc) + '02' + h.slice(sc + 2))), 199, 'Unknown stored contract type 2');
    // Negative API version.
    const v4 = hex(read(create(4)).bytes);
    const api = v4.lastIndexOf('00010000');
    expectWeError(() => p.transactionFromBytes(fromHex(v4.slice(0, api) + 'ffff0000' + v4.slice(api + 8))), 199, /ContractApiVersion values must be positive/);
  });
});

describe('contract transactions: GOST network', () => {
  it('reads and round-trips with 64-byte keys', () => {
    const kp = gost.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
    const signed = (json: Record<string, unknown>): Transaction => {
      const tx = gost.transactionFromJson(parseJson(stringifyJson({ ...json, senderPublicKey: encodeBase58(kp.publicKey), proofs: [] })));
      return gost.sign(tx, kp.privateKey);
    };
    const addr = gost.addresses.fromPublicKey(kp.publicKey).toString();
    for (const tx of [signed(create(6, { groupParticipants: [addr], groupOwners: [] })), signed(call(7)), signed(update(6))]) {
      assert.ok(tx.hasValidSenderSignature());
      assert.equal(hex(gost.transactionFromBytes(tx.bytes).bytes), hex(tx.bytes));
    }
    assert.deepEqual(decodeBase58(ALICE_PK), alice.publicKey);
  });
});
