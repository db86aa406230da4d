/**
 * SetScript (13), SetAssetScript (15): every rule with WE's error, malformed input, fixed
 * vectors (the script reader itself: test/ride/script-reader.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { SetAssetScript, SetScript } from '../../src/protocol/transactions/scripts.js';
import { WeError } from '../../src/errors/catalogue.js';
import { E, type Expr } from '../../src/ride/expr.js';
import { scriptBytes } from '../../src/ride/script.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const kp = p.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
const PK = encodeBase58(kp.publicKey);
const ASSET = encodeBase58(new Uint8Array(32).fill(7));

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

function weError(f: () => unknown, code: number, message?: string | RegExp, kind?: string): WeError {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof WeError, `expected a WeError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (typeof message === 'string') assert.equal(caught.message, message);
  else if (message) assert.match(caught.message, message);
  if (kind !== undefined) assert.equal(caught.kind, kind);
  return caught;
}

// ---------------------------------------------------------------------------
// SetScript and SetAssetScript

const TRUE_V1 = 'base64:AQa3b8tH';

const setScriptJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 13,
  version: 1,
  senderPublicKey: PK,
  script: TRUE_V1,
  name: 'my script',
  description: 'what it does',
  fee: 50000000,
  timestamp: 1700000000000,
  proofs: [],
  ...over,
});

const setAssetScriptJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 15,
  version: 1,
  senderPublicKey: PK,
  assetId: ASSET,
  script: TRUE_V1,
  fee: 100000000,
  timestamp: 1700000000000,
  proofs: [],
  ...over,
});

const fromJson = (json: Record<string, unknown>) => p.transactionFromJson(parseJson(stringifyJson(json)));

function binaryOf(json: Record<string, unknown>, patch?: (bytes: Uint8Array) => void): Uint8Array {
  const bytes = fromJson(json).bytes.slice();
  patch?.(bytes);
  return bytes;
}

describe('SetScript (13)', () => {
  it('writes the body in scheme order and the JSON WE writes', () => {
    const tx = p.sign(fromJson(setScriptJson()), kp.privateKey);
    const expected = [
      '0d',
      '01',
      '54',
      hex(kp.publicKey),
      '01',
      '0006',
      '0106b76fcb47',
      '0009',
      hex(Buffer.from('my script')),
      '000c',
      hex(Buffer.from('what it does')),
      '0000000002faf080',
      '0000018bcfe56800',
    ].join('');
    assert.equal(hex(tx.bodyBytes), expected);
    assert.equal(hex(tx.bytes), `00${expected}0100010040${hex(tx.proofs[0]!)}`);
    assert.deepEqual(Object.keys(tx.toJson()), [
      'type',
      'id',
      'sender',
      'senderPublicKey',
      'fee',
      'timestamp',
      'proofs',
      'version',
      'chainId',
      'script',
      'name',
      'description',
    ]);
    assert.equal(tx.toJson()['chainId'], 84);
    assert.equal(tx.toJson()['script'], TRUE_V1);
    assert.equal(stringifyJson(p.transactionFromBytes(tx.bytes).toJson()), stringifyJson(tx.toJson()));
  });

  it('script: absent, null and "" are None; "base64:" is an empty script', () => {
    for (const script of [undefined, null, '']) {
      const tx = fromJson(setScriptJson({ script }));
      assert.equal(tx.toJson()['script'], null);
      assert.equal(hex(tx.bodyBytes).slice(2 * 35, 2 * 36), '00');
    }
    weError(() => fromJson(setScriptJson({ script: 'base64:' })), 199, 'ScriptParseError(Empty script)');
    // The prefix is optional on input.
    assert.equal(fromJson(setScriptJson({ script: 'AQa3b8tH' })).toJson()['script'], TRUE_V1);
  });

  it('script errors are ScriptParseError (199)', () => {
    const e = weError(() => fromJson(setScriptJson({ script: 'base64:AQa3b8tI' })), 199, 'ScriptParseError(Invalid checksum)', 'ScriptParseError');
    assert.equal(e.field, 'script');
    weError(() => fromJson(setScriptJson({ script: 'base64:AQ*' })), 199, 'ScriptParseError(Unable to decode base64: Illegal base64 character 2a)');
    weError(() => fromJson(setScriptJson({ script: 'base64:A' })), 199, /^ScriptParseError\(Unable to decode base64: /);
    weError(() => fromJson(setScriptJson({ script: 5 })), 1, 'failed to parse json message', 'WrongJson');
  });

  it('name: 1 to 128 characters (UTF-16 units after decoding)', () => {
    const msg = 'name field length must be between 1 and 128';
    const e = weError(() => fromJson(setScriptJson({ name: '' })), 199, msg, 'GenericError');
    assert.equal(e.field, 'name');
    fromJson(setScriptJson({ name: 'n'.repeat(128) }));
    weError(() => fromJson(setScriptJson({ name: 'n'.repeat(129) })), 199, msg);
    // 128 three-byte characters (384 bytes) are fine; 64 astral characters are 128 units.
    fromJson(setScriptJson({ name: 'ж'.repeat(128) }));
    fromJson(setScriptJson({ name: '😀'.repeat(64) }));
    weError(() => fromJson(setScriptJson({ name: '😀'.repeat(64) + 'x' })), 199, msg);
    weError(() => fromJson(setScriptJson({ name: undefined })), 1, 'failed to parse json message');
  });

  it('description: at most 32767 bytes; absent or null is ""', () => {
    const msg = 'description field length in bytes must be less 32767';
    fromJson(setScriptJson({ description: 'd'.repeat(32767) }));
    const e = weError(() => fromJson(setScriptJson({ description: 'd'.repeat(32768) })), 199, msg);
    assert.equal(e.field, 'description');
    weError(() => fromJson(setScriptJson({ description: 'ж'.repeat(16384) })), 199, msg);
    for (const description of [undefined, null]) assert.equal(fromJson(setScriptJson({ description })).toJson()['description'], '');
    weError(() => fromJson(setScriptJson({ description: 1 })), 1, 'failed to parse json message');
  });

  it("chainId: the node's own from JSON, checked from binary", () => {
    assert.equal(fromJson(setScriptJson({ chainId: 1 })).toJson()['chainId'], 84);
    const bad = binaryOf(setScriptJson(), (b) => (b[3] = 1));
    weError(() => p.transactionFromBytes(bad), 199, 'Wrong chainId actual: 1, expected: 84');
  });

  it('a bad script in binary is refused', () => {
    const bytes = binaryOf(setScriptJson(), (b) => (b[44] = b[44]! ^ 1));
    weError(() => p.transactionFromBytes(bytes), 199, 'ScriptParseError(Invalid checksum)');
  });
});

describe('SetAssetScript (15)', () => {
  it('writes chainId, assetId, script in scheme order', () => {
    const tx = fromJson(setAssetScriptJson());
    assert.equal(
      hex(tx.bodyBytes),
      ['0f', '01', '54', hex(kp.publicKey), hex(decodeBase58(ASSET)), '01', '0006', '0106b76fcb47', '0000000005f5e100', '0000018bcfe56800'].join(''),
    );
    assert.deepEqual(Object.keys(tx.toJson()).slice(8), ['chainId', 'assetId', 'script']);
  });

  it('a None script passes stateless validation', () => {
    assert.equal(fromJson(setAssetScriptJson({ script: undefined })).toJson()['script'], null);
    assert.equal(fromJson(setAssetScriptJson({ script: '' })).toJson()['script'], null);
    p.transaction(SetAssetScript, 1, { ...fromJson(setAssetScriptJson()).data, script: null });
    weError(
      () => p.transaction(SetAssetScript, 1, { ...fromJson(setAssetScriptJson()).data, script: new Uint8Array(0) }),
      199,
      'ScriptParseError(Empty script)',
    );
  });

  it('assetId and chainId rules', () => {
    weError(() => fromJson(setAssetScriptJson({ assetId: 'l0' })), 199, 'invalid.assetId');
    weError(() => fromJson(setAssetScriptJson({ assetId: encodeBase58(new Uint8Array(31)) })), 199, 'invalid.assetId');
    weError(() => fromJson(setAssetScriptJson({ assetId: undefined })), 1, 'failed to parse json message');
    weError(() => p.transactionFromBytes(binaryOf(setAssetScriptJson(), (b) => (b[3] = 0x80))), 199, 'Wrong chainId actual: -128, expected: 84');
    weError(() => fromJson(setAssetScriptJson({ script: 'base64:AQa3b8tI' })), 199, 'ScriptParseError(Invalid checksum)');
  });
});

describe('SetScript / SetAssetScript: malformed input never crashes', () => {
  const bad: unknown[] = [null, true, 1, -1, 2 ** 53, 12345678901234567890n, 1.5, '', 'x', 'l0O', [], {}, [1], { a: 1 }];
  for (const [name, base] of [
    ['SetScript', setScriptJson()],
    ['SetAssetScript', setAssetScriptJson()],
  ] as const) {
    it(`${name}: every field with every wrong JSON value gives a WeError`, () => {
      for (const key of Object.keys(base)) {
        if (key === 'type') continue;
        for (const v of bad) {
          try {
            fromJson({ ...base, [key]: v });
          } catch (e) {
            assert.ok(e instanceof WeError && e.status === 400, `${key}=${String(v)}: ${String(e)}`);
          }
        }
      }
    });

    it(`${name}: every truncation and random corruption of the bytes gives a WeError or a transaction`, () => {
      const bytes = p.sign(fromJson(base), kp.privateKey).bytes;
      for (let n = 0; n < bytes.length; n++) weError(() => p.transactionFromBytes(bytes.subarray(0, n)), 199);
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
        { numRuns: 500 },
      );
    });
  }

  it('a script nested as deep as 8 KiB allows, or one the estimator would spend forever on: refused with 199 from JSON and from bytes, never a stack overflow', () => {
    let ifs: Expr = E.TRUE;
    for (let i = 0; i < 2700; i++) ifs = E.if(ifs, E.TRUE, E.TRUE);
    let getters: Expr = E.ref('tx');
    for (let i = 0; i < 1600; i++) getters = E.getter(getters, '');
    let calls: Expr = E.long(1);
    for (let i = 0; i < 1000; i++) calls = E.native(203, calls);
    // Each let's value names the previous let twice, in both branches of an IF: WE's estimator doubles its work per let.
    let doubling: Expr = E.ref('a280');
    for (let i = 280; i >= 1; i--) doubling = E.block(`a${i}`, E.if(E.TRUE, E.ref(`a${i - 1}`), E.ref(`a${i - 1}`)), doubling);
    doubling = E.block('a0', E.TRUE, doubling);
    const issueJson = (script: string): Record<string, unknown> => ({
      type: 3,
      version: 2,
      senderPublicKey: PK,
      name: 'Gold',
      description: '',
      quantity: 1,
      decimals: 0,
      reissuable: false,
      script,
      fee: 100000000,
      timestamp: 1700000000000,
      proofs: [],
    });
    const trueScript = new Uint8Array(Buffer.from(TRUE_V1.slice('base64:'.length), 'base64'));
    for (const [expr, message] of [
      [ifs, 'ScriptParseError(Script is too complex: 5401 > 2000)'],
      [getters, 'ScriptParseError(Script is too complex: 3202 > 2000)'],
      [calls, 'ScriptParseError(Script is too complex: 10001 > 2000)'],
      [doubling, 'ScriptParseError(Script is too complex: estimation exceeds 2000000 steps)'],
    ] as const) {
      const script = scriptBytes(1, expr, p);
      assert.ok(script.length <= 8192 + 5, `${script.length} bytes`);
      const b64 = `base64:${Buffer.from(script).toString('base64')}`;
      for (const json of [setScriptJson({ script: b64 }), setAssetScriptJson({ script: b64 }), issueJson(b64)]) weError(() => fromJson(json), 199, message);
      // The same script in a transaction's bytes, as a peer sends it: the TRUE script's place (flag, u16 length, bytes) refilled.
      for (const base of [setScriptJson(), setAssetScriptJson()]) {
        const bytes = p.sign(fromJson(base), kp.privateKey).bytes;
        const at = Buffer.from(bytes).indexOf(Buffer.from([1, 0, trueScript.length, ...trueScript]));
        assert.ok(at > 0);
        const carried = Uint8Array.of(
          ...bytes.subarray(0, at),
          1,
          script.length >> 8,
          script.length & 0xff,
          ...script,
          ...bytes.subarray(at + 3 + trueScript.length),
        );
        weError(() => p.transactionFromBytes(carried), 199, message);
      }
    }
  });

  it('SetScript typed data round-trips through Protocol.transaction', () => {
    const tx = fromJson(setScriptJson());
    const again = p.transaction(SetScript, 1, tx.data);
    assert.equal(hex(again.bodyBytes), hex(tx.bodyBytes));
  });
});
