import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { Permit, ROLE_NAMES, ROLES, roleFromByte, roleFromName, type PermitData } from '../../src/protocol/transactions/permissions.js';
import { expectWeError, onlyWeErrors } from '../support/errors.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const alice = p.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
const BOB = '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkC';
const SIG = encodeBase58(new Uint8Array(64).fill(1));
const PK_HEX = 'd64f91e5d7c5d4d0a4ee81045689f4fe0d8dec1fb84005d3b48e4be68673e22a';

const permitJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 102,
  version: 1,
  senderPublicKey: encodeBase58(alice.publicKey),
  target: BOB,
  opType: 'add',
  role: 'miner',
  fee: 1,
  timestamp: 1_700_000_000_000,
  proofs: [SIG],
  ...over,
});

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('roles', () => {
  it("WE's role names and bytes", () => {
    assert.deepEqual(ROLES, {
      miner: 1,
      issuer: 2,
      dex: 3,
      permissioner: 4,
      blacklister: 5,
      banned: 6,
      contract_developer: 7,
      connection_manager: 8,
      sender: 9,
      contract_validator: 10,
    });
    for (const name of ROLE_NAMES) {
      assert.equal(roleFromByte(ROLES[name]), name);
      assert.equal(roleFromName(name), name);
    }
    expectWeError(() => roleFromByte(0), 199, "Permission.fromByte failure: unknown role byte '0'");
    expectWeError(() => roleFromByte(0xff), 199, "Permission.fromByte failure: unknown role byte '-1'");
    expectWeError(() => roleFromName('toString'), 199, "Permission.fromStr failure: unknown role name 'toString");
  });
});

describe('Permit: layout and JSON (bytes checked against transactions-factory 2.1.4)', () => {
  it('V1: add miner, no due timestamp', () => {
    const tx = p.transactionFromJson(permitJson({ proofs: [] }));
    assert.equal(
      hex(tx.bodyBytes),
      '6601' +
        PK_HEX +
        '0154a3023f22764b1aafed7ed3beb6b5a73467a84dacd5f10c21' +
        '0000018bcfe56800' +
        '0000000000000001' +
        '61' +
        '01' +
        '0000018bcfe56800' +
        '00' +
        '0000000000000000',
    );
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
      'opType',
      'role',
      'dueTimestamp',
      'target',
    ]);
    assert.equal(json['opType'], 'add');
    assert.equal(json['role'], 'miner');
    assert.equal(json['dueTimestamp'], null);
    assert.equal(json['target'], BOB);
  });

  it('V2: remove contract_validator for an alias, with a due timestamp and a badge', () => {
    const tx = p.transactionFromJson(
      permitJson({
        version: 2,
        target: 'alias:T:abcd',
        opType: 'remove',
        role: 'contract_validator',
        dueTimestamp: 1_700_000_000_001,
        atomicBadge: {},
        proofs: [],
      }),
    );
    assert.equal(
      hex(tx.bodyBytes),
      '6602' + PK_HEX + '0254000461626364' + '0000018bcfe56800' + '0000000000000001' + '72' + '0a' + '0000018bcfe56800' + '01' + '0000018bcfe56801' + '0100',
    );
    const json = tx.toJson();
    assert.deepEqual(Object.keys(json).slice(8), ['opType', 'role', 'dueTimestamp', 'target', 'atomicBadge']);
    assert.equal(json['dueTimestamp'], 1_700_000_000_001n);
    assert.equal(json['target'], 'alias:T:abcd');
    assert.match(stringifyJson(json), /"opType":"remove","role":"contract_validator","dueTimestamp":1700000000001,"target":"alias:T:abcd"/);
    assert.ok(!('permissionOp' in json));
  });

  it('the op timestamp is the tx timestamp; helper keys of the clients are ignored', () => {
    const tx = p.transactionFromJson(permitJson({ duplicate_timestamp: 5, permissionOp: { timestamp: 5 } }));
    assert.ok(Permit.is(tx));
    assert.equal(tx.data.permissionOp.timestamp, 1_700_000_000_000n);
  });
});

describe('Permit: request rules with WE error codes', () => {
  it("role names are case-sensitive; unknown → 199 (with WE's unclosed quote)", () => {
    expectWeError(() => p.transactionFromJson(permitJson({ role: 'admin' })), 199, "Permission.fromStr failure: unknown role name 'admin", 'role');
    expectWeError(() => p.transactionFromJson(permitJson({ role: 'Miner' })), 199, "Permission.fromStr failure: unknown role name 'Miner", 'role');
    expectWeError(() => p.transactionFromJson(permitJson({ role: '' })), 199, "Permission.fromStr failure: unknown role name '", 'role');
    for (const role of ROLE_NAMES) {
      const tx = p.transactionFromJson(permitJson({ role }));
      assert.equal(tx.toJson()['role'], role);
      assert.equal(tx.bodyBytes[2 + 32 + 26 + 16 + 1], ROLES[role]);
    }
  });

  it('opType is read case-insensitively; unknown → 199; role is checked first', () => {
    assert.equal(p.transactionFromJson(permitJson({ opType: 'ADD' })).toJson()['opType'], 'add');
    assert.equal(p.transactionFromJson(permitJson({ opType: 'Remove' })).toJson()['opType'], 'remove');
    expectWeError(() => p.transactionFromJson(permitJson({ opType: 'Grant' })), 199, 'OpType.fromStr failure: unknown operation string grant', 'opType');
    expectWeError(() => p.transactionFromJson(permitJson({ opType: 'grant', role: 'x' })), 199, /unknown role name 'x$/, 'role');
  });

  it('mistyped or missing values are WrongJson (1)', () => {
    expectWeError(() => p.transactionFromJson(permitJson({ role: undefined })), 1, 'failed to parse json message', 'role');
    expectWeError(() => p.transactionFromJson(permitJson({ role: 1 })), 1, undefined, 'role');
    expectWeError(() => p.transactionFromJson(permitJson({ opType: undefined })), 1, undefined, 'opType');
    expectWeError(() => p.transactionFromJson(permitJson({ opType: true })), 1, undefined, 'opType');
    expectWeError(() => p.transactionFromJson(permitJson({ dueTimestamp: '1700000000000' })), 1, undefined, 'dueTimestamp');
    expectWeError(() => p.transactionFromJson(permitJson({ dueTimestamp: 2n ** 63n })), 1, undefined, 'dueTimestamp');
    expectWeError(() => p.transactionFromJson(permitJson({ target: undefined })), 1, undefined, 'target');
    expectWeError(() => p.transactionFromJson(permitJson({ target: 'alias:T:A' })), 199, /Alias/, 'target');
    expectWeError(() => p.transactionFromJson(permitJson({ target: '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkD' })), 102, /checksum/, 'target');
    expectWeError(() => p.transactionFromJson(permitJson({ timestamp: undefined })), 1, undefined, 'timestamp');
    // A null due timestamp is "none".
    assert.equal(p.transactionFromJson(permitJson({ dueTimestamp: null })).toJson()['dueTimestamp'], null);
    assert.ok(p.transactionFromJson(permitJson({ dueTimestamp: -5 })));
  });

  it('the version selects the reader (default 1)', () => {
    assert.equal(p.transactionFromJson(permitJson({ version: undefined })).version, 1);
    expectWeError(() => p.transactionFromJson(permitJson({ version: 3 })), 199, 'Bad transaction type (102) and version (3)');
    // V1 has no atomic badge to read.
    assert.ok(!('atomicBadge' in p.transactionFromJson(permitJson({ atomicBadge: {} })).toJson()));
  });

  it('arbitrary JSON values in every field give WeErrors', () => {
    const base = permitJson({ version: 2, dueTimestamp: 1 });
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(base)), fc.oneof(fc.jsonValue(), fc.bigInt(), fc.constant(undefined)), (key, value) => {
        onlyWeErrors(() => p.transactionFromJson({ ...base, [key]: value }));
      }),
      { numRuns: 500 },
    );
  });
});

describe('Permit: binary input', () => {
  const signed = p.sign(
    p.transactionFromJson(permitJson({ version: 2, dueTimestamp: 1_800_000_000_000, atomicBadge: { trustedSender: BOB }, proofs: [] })),
    alice.privateKey,
  );
  // 00 66 02 ‖ sender(32) ‖ target(26) ‖ timestamp ‖ fee ‖ op(19) ‖ badge ‖ proofs
  const OP = 3 + 32 + 26 + 8 + 8;
  const mutate = (at: number, ...bytes: number[]): Uint8Array => {
    const m = Uint8Array.from(signed.bytes);
    m.set(bytes, at);
    return m;
  };

  it('round-trips', () => {
    const back = p.transactionFromBytes(signed.bytes);
    assert.equal(stringifyJson(back.toJson()), stringifyJson(signed.toJson()));
    assert.ok(back.hasValidSenderSignature());
  });

  it('the op timestamp must equal the tx timestamp (GenericError 199)', () => {
    const m = mutate(OP + 2 + 7, 0x01);
    expectWeError(() => p.transactionFromBytes(m), 199, 'Invalid PermitTransaction: timestamp for tx must match timestamp from PermissionOp', 'permissionOp');
    const data = p.transactionFromBytes(signed.bytes).data as PermitData;
    expectWeError(
      () => p.transaction(Permit, 2, { ...data, permissionOp: { ...data.permissionOp, timestamp: data.timestamp + 1n } }),
      199,
      /timestamp for tx must match/,
    );
  });

  it("unknown op type and role bytes fail with WE's messages", () => {
    expectWeError(() => p.transactionFromBytes(mutate(OP, 0x78)), 199, 'OpType.fromByte failure: unknown operation byte 120', 'permissionOp');
    expectWeError(() => p.transactionFromBytes(mutate(OP + 1, 11)), 199, "Permission.fromByte failure: unknown role byte '11'", 'permissionOp');
    expectWeError(() => p.transactionFromBytes(mutate(OP + 1, 0x80)), 199, "Permission.fromByte failure: unknown role byte '-128'", 'permissionOp');
  });

  it('a due-timestamp flag other than 1 means none and the 8 bytes after it are ignored (as WE reads them)', () => {
    assert.equal(signed.bytes[OP + 10], 1);
    for (const flag of [0, 2, 0xff]) {
      const tx = p.transactionFromBytes(mutate(OP + 10, flag));
      assert.equal((tx.data as PermitData).permissionOp.dueTimestamp, null);
      // Re-serialized canonically: 00 + eight zero bytes.
      assert.equal(hex(tx.bytes.subarray(OP + 10, OP + 19)), '00'.repeat(9));
      assert.ok(!tx.hasValidSenderSignature());
    }
  });

  it('truncated and mutated bytes give WeErrors', () => {
    for (let n = 0; n < signed.bytes.length; n++) expectWeError(() => p.transactionFromBytes(signed.bytes.subarray(0, n)), 199);
    fc.assert(
      fc.property(fc.nat(signed.bytes.length - 1), fc.integer({ min: 0, max: 255 }), (i, v) => {
        onlyWeErrors(() => p.transactionFromBytes(mutate(i, v)));
      }),
      { numRuns: 1000 },
    );
  });
});
