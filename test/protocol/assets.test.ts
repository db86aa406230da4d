/**
 * Issue (3), Reissue (5), Burn (6), SponsorFee (14): every stateless rule with WE's
 * code and message, WE's JSON quirks, hand-checked layouts, and malformed input.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { Burn, Issue } from '../../src/protocol/transactions/assets.js';
import { WeError } from '../../src/errors/catalogue.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const kp = p.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
const PK = encodeBase58(kp.publicKey);
const ASSET_BYTES = new Uint8Array(32).map((_, i) => i + 1);
const ASSET = encodeBase58(ASSET_BYTES);
const TS = 1700000000000;
const TRUE_V1 = 'base64:AQa3b8tH';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const utf8hex = (s: string): string => Buffer.from(s, 'utf8').toString('hex');
const u16 = (n: number): string => n.toString(16).padStart(4, '0');
const i64 = (n: bigint | number): string => BigInt.asUintN(64, BigInt(n)).toString(16).padStart(16, '0');

function weError(f: () => unknown, code: number, message?: string, kind?: string, field?: string): WeError {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof WeError, `expected a WeError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (message !== undefined) assert.equal(caught.message, message);
  if (kind !== undefined) assert.equal(caught.kind, kind);
  if (field !== undefined) assert.equal(caught.field, field);
  return caught;
}

const fromJson = (json: Record<string, unknown>) => p.transactionFromJson(parseJson(stringifyJson(json)));

const base = { senderPublicKey: PK, fee: 100000000, timestamp: TS, proofs: [] as string[] };
const issueJson = (over: Record<string, unknown> = {}) => ({
  type: 3,
  version: 2,
  ...base,
  name: 'Gold',
  description: 'shiny',
  quantity: 1000,
  decimals: 2,
  reissuable: true,
  ...over,
});
const reissueJson = (over: Record<string, unknown> = {}) => ({ type: 5, version: 2, ...base, assetId: ASSET, quantity: 10, reissuable: false, ...over });
const burnJson = (over: Record<string, unknown> = {}) => ({ type: 6, version: 2, ...base, assetId: ASSET, amount: 5, ...over });
const sponsorJson = (over: Record<string, unknown> = {}) => ({ type: 14, version: 1, ...base, assetId: ASSET, isEnabled: true, ...over });

function patched(json: Record<string, unknown>, patch: (b: Uint8Array) => void): Uint8Array {
  const b = fromJson(json).bytes.slice();
  patch(b);
  return b;
}

const negative = (json: Record<string, unknown>, field: string, value: number, message: string) =>
  weError(() => fromJson({ ...json, [field]: value }), 111, message, 'NegativeAmount', field);

describe('Issue (3)', () => {
  it('body bytes follow the scheme, byte by byte (V3: badge before script)', () => {
    const tx = fromJson(issueJson({ version: 3, atomicBadge: {}, script: TRUE_V1 }));
    const expected = [
      '03',
      '03',
      '54',
      hex(kp.publicKey),
      u16(4),
      utf8hex('Gold'),
      u16(5),
      utf8hex('shiny'),
      i64(1000),
      '02',
      '01',
      i64(100000000),
      i64(TS),
      '0100', // atomicBadge: present, no trusted sender
      '01',
      u16(6),
      '0106b76fcb47', // script
    ].join('');
    assert.equal(hex(tx.bodyBytes), expected);
    assert.equal(tx.idBase58, encodeBase58(p.crypto.fastHash(tx.bodyBytes)));
  });

  it('JSON: assetId (= id) first, chainId as a number, text fields as text, script as base64', () => {
    const tx = fromJson(issueJson({ name: 'Zoloto €', description: 'Золото' }));
    const json = tx.toJson();
    assert.deepEqual(Object.keys(json), [
      'type',
      'id',
      'sender',
      'senderPublicKey',
      'fee',
      'timestamp',
      'proofs',
      'version',
      'assetId',
      'chainId',
      'name',
      'description',
      'quantity',
      'decimals',
      'reissuable',
      'script',
    ]);
    assert.equal(json['assetId'], json['id']);
    assert.equal(json['chainId'], 84);
    assert.equal(json['name'], 'Zoloto €');
    assert.equal(json['description'], 'Золото');
    assert.equal(json['script'], null);
    assert.deepEqual(Object.keys(fromJson(issueJson({ version: 3 })).toJson()).slice(-2), ['atomicBadge', 'script']);
  });

  it('chainId is not read from JSON (the node uses its own)', () => {
    const tx = fromJson(issueJson({ chainId: 1 }));
    assert.equal(tx.toJson()['chainId'], 84);
    assert.equal(hex(tx.bodyBytes).slice(4, 6), '54');
  });

  it('chainId is checked when read from binary', () => {
    const bad = patched(issueJson(), (b) => (b[3] = 1));
    weError(() => p.transactionFromBytes(bad), 199, 'Wrong chainId actual: 1, expected: 84', 'GenericError', 'chainId');
  });

  it('name: 4 to 16 bytes (InvalidName 116)', () => {
    for (const name of ['abcd', 'a'.repeat(16), 'ab€', 'жж', '😀']) fromJson(issueJson({ name }));
    for (const name of ['', 'abc', 'a'.repeat(17), 'жжжжжжжжж', '€€€€€€']) {
      weError(() => fromJson(issueJson({ name })), 116, 'invalid name', 'InvalidName', 'name');
    }
  });

  it("text is encoded as Java's getBytes(UTF_8): a lone surrogate becomes '?'", () => {
    const tx = fromJson(issueJson({ name: '\ud800abc', description: 'x\udc00' }));
    assert.equal(hex(tx.bodyBytes).slice(2 * 35, 2 * 35 + 20), `${u16(4)}3f616263${u16(2)}783f`);
  });

  it('description: at most 1000 bytes (TooBigArray 10)', () => {
    fromJson(issueJson({ description: '' }));
    fromJson(issueJson({ description: 'd'.repeat(1000) }));
    weError(() => fromJson(issueJson({ description: 'd'.repeat(1001) })), 10, 'Too big sequences requested', 'TooBigArray', 'description');
    weError(() => fromJson(issueJson({ description: 'ж'.repeat(501) })), 10);
    // Far beyond what a u16 length can hold: still WE's TooBigArray, never a crash.
    weError(() => fromJson(issueJson({ description: 'd'.repeat(70000) })), 10);
  });

  it('decimals: 0 to 8 (TooBigArray 10); a JSON byte', () => {
    for (const decimals of [0, 8]) fromJson(issueJson({ decimals }));
    for (const decimals of [9, -1, 127, -128]) weError(() => fromJson(issueJson({ decimals })), 10, 'Too big sequences requested', 'TooBigArray', 'decimals');
    for (const decimals of [128, -129, 1.5, '2']) weError(() => fromJson(issueJson({ decimals })), 1, 'failed to parse json message', 'WrongJson');
  });

  it('quantity > 0 (NegativeAmount 111)', () => {
    negative(issueJson(), 'quantity', 0, 'negative amount: 0 of assets');
    negative(issueJson(), 'quantity', -1, 'negative amount: -1 of assets');
    fromJson(issueJson({ quantity: 9223372036854775807n }));
    weError(() => fromJson(issueJson({ quantity: 9223372036854775808n })), 1, 'failed to parse json message', 'WrongJson');
  });

  it('script: null/absent is None, "" is an empty script, bad scripts are ScriptParseError', () => {
    assert.equal(fromJson(issueJson({ script: null })).toJson()['script'], null);
    assert.equal(fromJson(issueJson({ script: TRUE_V1 })).toJson()['script'], TRUE_V1);
    weError(() => fromJson(issueJson({ script: '' })), 199, 'ScriptParseError(Empty script)', 'ScriptParseError', 'script');
    weError(() => fromJson(issueJson({ script: 'base64:AQa3b8tI' })), 199, 'ScriptParseError(Invalid checksum)');
    weError(() => fromJson(issueJson({ script: 1 })), 1, 'failed to parse json message', 'WrongJson', 'script');
  });

  it('binary round trip with script and badge', () => {
    const tx = p.sign(
      fromJson(issueJson({ version: 3, script: TRUE_V1, atomicBadge: { trustedSender: p.addresses.fromPublicKey(kp.publicKey).toString() } })),
      kp.privateKey,
    );
    const back = p.transactionFromBytes(tx.bytes);
    assert.equal(stringifyJson(back.toJson()), stringifyJson(tx.toJson()));
    assert.ok(back.hasValidSenderSignature());
  });

  it('typed construction checks the same rules', () => {
    const data = fromJson(issueJson()).data;
    weError(() => p.transaction(Issue, 2, { ...data, decimals: 9 }), 10);
    weError(() => p.transaction(Issue, 2, { ...data, chainId: 77 }), 199, 'Wrong chainId actual: 77, expected: 84');
    weError(
      () => p.transaction(Issue, 2, { ...data, script: Uint8Array.of(1, 6, 0, 0, 0, 0) }),
      199,
      'ScriptParseError(Invalid checksum)',
      'ScriptParseError',
      'script',
    );
  });
});

describe('Reissue (5)', () => {
  it('body bytes follow the scheme', () => {
    const tx = fromJson(reissueJson({ version: 3 }));
    assert.equal(hex(tx.bodyBytes), ['05', '03', '54', hex(kp.publicKey), hex(ASSET_BYTES), i64(10), '00', i64(100000000), i64(TS), '00'].join(''));
    assert.deepEqual(Object.keys(tx.toJson()).slice(8), ['chainId', 'assetId', 'quantity', 'reissuable', 'atomicBadge']);
  });

  it('quantity > 0 (NegativeAmount 111)', () => {
    negative(reissueJson(), 'quantity', 0, 'negative amount: 0 of assets');
    negative(reissueJson({ version: 3 }), 'quantity', -5, 'negative amount: -5 of assets');
  });

  it('chainId: from the node in JSON, checked in binary', () => {
    assert.equal(fromJson(reissueJson({ chainId: 0 })).toJson()['chainId'], 84);
    weError(() => p.transactionFromBytes(patched(reissueJson(), (b) => (b[3] = 0x4c))), 199, 'Wrong chainId actual: 76, expected: 84');
  });

  it('assetId: Base58 of 32 bytes (invalid.assetId)', () => {
    for (const assetId of ['0OIl', encodeBase58(new Uint8Array(31)), encodeBase58(new Uint8Array(33)), 'z'.repeat(45), '']) {
      weError(() => fromJson(reissueJson({ assetId })), 199, 'invalid.assetId', 'GenericError', 'assetId');
    }
    weError(() => fromJson(reissueJson({ assetId: null })), 1);
  });
});

describe('Burn (6)', () => {
  it('body bytes follow the scheme; JSON calls the amount `amount`', () => {
    const tx = fromJson(burnJson({ version: 3, atomicBadge: null }));
    assert.equal(hex(tx.bodyBytes), ['06', '03', '54', hex(kp.publicKey), hex(ASSET_BYTES), i64(5), i64(100000000), i64(TS), '00'].join(''));
    assert.deepEqual(Object.keys(tx.toJson()).slice(8), ['chainId', 'assetId', 'amount', 'atomicBadge']);
    assert.equal(tx.toJson()['amount'], 5n);
  });

  it('the request amount is `quantity`, or failing that `amount`', () => {
    const amountOf = (json: Record<string, unknown>) => fromJson(json).toJson()['amount'];
    assert.equal(amountOf(burnJson({ amount: undefined, quantity: 7 })), 7n);
    assert.equal(amountOf(burnJson({ amount: 3, quantity: 7 })), 7n);
    assert.equal(amountOf(burnJson({ amount: 3, quantity: 'seven' })), 3n);
    assert.equal(amountOf(burnJson({ amount: 3, quantity: null })), 3n);
    const e = weError(() => fromJson(burnJson({ amount: undefined })), 1, 'failed to parse json message', 'WrongJson', 'amount');
    assert.deepEqual(e.jsonPathErrors, [{ path: 'obj.amount', messages: ['error.path.missing'] }]);
    weError(() => fromJson(burnJson({ amount: 'x', quantity: 'y' })), 1, undefined, 'WrongJson', 'amount');
  });

  it('amount ≥ 0 (NegativeAmount 111)', () => {
    fromJson(burnJson({ amount: 0 }));
    negative(burnJson(), 'amount', -1, 'negative amount: -1 of assets');
    weError(() => fromJson(burnJson({ amount: undefined, quantity: -2 })), 111, 'negative amount: -2 of assets', 'NegativeAmount');
  });

  it('chainId is serialized but never checked (also from binary)', () => {
    const bytes = patched(burnJson(), (b) => (b[3] = 0));
    const tx = p.transactionFromBytes(bytes);
    assert.equal(tx.toJson()['chainId'], 0);
    assert.equal(hex(tx.bytes), hex(bytes));
    p.transaction(Burn, 2, { ...tx.data, chainId: -1 });
  });
});

describe('SponsorFee (14)', () => {
  it('body bytes follow the scheme', () => {
    const tx = fromJson(sponsorJson({ version: 2, atomicBadge: {} }));
    assert.equal(hex(tx.bodyBytes), ['0e', '02', hex(kp.publicKey), hex(ASSET_BYTES), '01', i64(100000000), i64(TS), '0100'].join(''));
    assert.deepEqual(Object.keys(tx.toJson()).slice(8), ['assetId', 'isEnabled', 'atomicBadge']);
    assert.deepEqual(Object.keys(fromJson(sponsorJson()).toJson()).slice(8), ['assetId', 'isEnabled']);
  });

  it('isEnabled is a required boolean', () => {
    for (const isEnabled of [undefined, 1, 'true', null])
      weError(() => fromJson(sponsorJson({ isEnabled })), 1, 'failed to parse json message', 'WrongJson', 'isEnabled');
  });
});

describe('asset families: malformed input never crashes', () => {
  const bad: unknown[] = [null, true, false, 0, -1, 2 ** 53, 2 ** 64, 9223372036854775808n, -9223372036854775809n, 1.5, '', 'x', '0OIl', [], {}, [1], { a: 1 }];
  const families: Array<[string, Record<string, unknown>]> = [
    ['Issue V2', issueJson({ script: TRUE_V1 })],
    ['Issue V3', issueJson({ version: 3, atomicBadge: {} })],
    ['Reissue V3', reissueJson({ version: 3 })],
    ['Burn V3', burnJson({ version: 3 })],
    ['SponsorFee V2', sponsorJson({ version: 2 })],
  ];
  for (const [name, json] of families) {
    it(`${name}: every field with every wrong JSON value gives a WeError`, () => {
      for (const key of [...Object.keys(json), 'atomicBadge', 'quantity']) {
        if (key === 'type') continue;
        for (const v of bad) {
          try {
            fromJson({ ...json, [key]: v });
          } catch (e) {
            assert.ok(e instanceof WeError && e.status === 400, `${key}=${String(v)}: ${String(e)}`);
          }
        }
      }
      for (const v of bad) {
        try {
          fromJson({ ...json, atomicBadge: { trustedSender: v } });
        } catch (e) {
          assert.ok(e instanceof WeError, String(e));
        }
      }
    });

    it(`${name}: truncated and corrupted bytes give a WeError`, () => {
      const bytes = p.sign(fromJson(json), kp.privateKey).bytes;
      for (let n = 0; n < bytes.length; n++) weError(() => p.transactionFromBytes(bytes.subarray(0, n)), 199);
      weError(() => p.transactionFromBytes(Uint8Array.of(...bytes, 0)), 199);
      fc.assert(
        fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), (i, x) => {
          const copy = bytes.slice();
          copy[i] = copy[i]! ^ x;
          try {
            p.transactionFromBytes(copy);
          } catch (e) {
            assert.ok(e instanceof WeError, String(e));
          }
        }),
        { numRuns: 300 },
      );
    });
  }

  it('the sender public key is checked (InvalidPublicKey 108)', () => {
    weError(() => fromJson(issueJson({ senderPublicKey: encodeBase58(new Uint8Array(31)) })), 108, undefined, 'InvalidPublicKey');
    weError(() => fromJson(issueJson({ senderPublicKey: 'l' })), 108);
  });

  it('an asset id read from bytes is the 32 raw bytes', () => {
    const tx = fromJson(reissueJson());
    assert.deepEqual(decodeBase58(String(p.transactionFromBytes(tx.bytes).toJson()['assetId'])), ASSET_BYTES);
  });
});
