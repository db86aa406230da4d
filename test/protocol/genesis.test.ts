/**
 * Genesis transactions 1, 101 and 110: bytes, pseudo-signature ids, JSON, and every way
 * a bad value or malformed byte string is refused.
 *
 * The fixed ids below were computed independently of Weft (Python hashlib.blake2b with
 * digest_size=32 over the byte strings WE's generateSignature builds), for transactions of
 * the Mainnet genesis block.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import {
  Genesis,
  GenesisPermit,
  genesisPermitTransaction,
  genesisRegisterNodeTransaction,
  genesisTransaction,
  isGenesisType,
} from '../../src/protocol/transactions/genesis.js';
import { ROLES, roleFromByte, roleFromName, type RoleName } from '../../src/protocol/transactions/permissions.js';
import { WeError } from '../../src/errors/catalogue.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'V' });
const pT = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const gost = await Protocol.create({ crypto: 'gost', chainId: 'V' });

const TS = 1559320391040n;
const RECIPIENT = '3Nnq14SGqeYETSd1SJ6z8LsgBRYB2ya1yRC';
const NODE_KEY = 'GasRtAUXMhifrUUmgU66rRZPii68tE4QxdQmtCcrV3xL';
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

function expectWeError(f: () => unknown, expected: { code?: number; kind?: string; message?: string | RegExp; field?: string }): WeError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof WeError, `expected a WeError, got ${String(e)}`);
    if (expected.code !== undefined) assert.equal(e.code, expected.code, e.message);
    if (expected.kind !== undefined) assert.equal(e.kind, expected.kind, e.message);
    if (expected.message instanceof RegExp) assert.match(e.message, expected.message);
    else if (expected.message !== undefined) assert.equal(e.message, expected.message);
    if (expected.field !== undefined) assert.equal(e.field, expected.field);
    return e;
  }
  assert.fail('expected an error');
}

describe('GenesisTransaction (type 1)', () => {
  const recipient = p.addresses.parseAddress(RECIPIENT);
  const tx = genesisTransaction(p, recipient, 99990000000000000n, TS);

  it('bytes are 01 ‖ timestamp ‖ recipient ‖ amount (43 bytes)', () => {
    assert.equal(hex(tx.bytes), '010000016b0ebced8001567049275e36e8e4f338c688e9431272856c1006a9332f6dab01633c600f176000');
    assert.equal(tx.bytes.length, 43);
    assert.deepEqual(tx.bodyBytes, tx.bytes);
  });

  it('id = h ‖ h with the type written as a 4-byte int in the hash input', () => {
    assert.equal(tx.idBase58, '3TdurkCd4J1zof8ufzNmWCzpUipWtZPGP8p6V1Di873NWLwuLNJfDZheSDxrSXQz31X5Cxr3cqfXQNN4sVCT4MxJ');
    assert.equal(tx.id.length, 64);
    assert.deepEqual(tx.id.subarray(0, 32), tx.id.subarray(32));
    // Not the hash of the bytes (one-byte type): the 4-byte int matters.
    assert.notDeepEqual(tx.id.subarray(0, 32), p.crypto.fastHash(tx.bytes));
  });

  it('JSON as WE writes it: type, id, fee 0, timestamp, signature, recipient, amount', () => {
    assert.equal(
      stringifyJson(tx.toJson()),
      `{"type":1,"id":"${tx.idBase58}","fee":0,"timestamp":1559320391040,"signature":"${tx.idBase58}","recipient":"${RECIPIENT}","amount":99990000000000000}`,
    );
    assert.equal(tx.fee, 0n);
    assert.equal(tx.sender, undefined);
  });

  it('reads back from bytes and from its JSON (non-broadcast path)', () => {
    const back = p.transactionFromBytes(tx.bytes);
    assert.equal(back.type, 1);
    assert.equal(back.version, 1);
    assert.equal(back.idBase58, tx.idBase58);
    const fromJson = p.transactionFromJson(parseJson(stringifyJson(tx.toJson())), { forBroadcast: false });
    assert.equal(fromJson.idBase58, tx.idBase58);
  });

  it('amount 0 is allowed, a negative amount is NegativeAmount (111)', () => {
    assert.doesNotThrow(() => genesisTransaction(p, recipient, 0n, TS));
    expectWeError(() => genesisTransaction(p, recipient, -1n, TS), {
      code: 111,
      kind: 'NegativeAmount',
      message: 'negative amount: -1 of WEST',
      field: 'amount',
    });
    const bytes = Uint8Array.from(tx.bytes);
    bytes.fill(0xff, 35, 43);
    expectWeError(() => p.transactionFromBytes(bytes), { code: 111, message: 'negative amount: -1 of WEST' });
  });

  it('a recipient of another network is InvalidAddress (102)', () => {
    const bytes = Uint8Array.from(tx.bytes);
    bytes[10] = 'T'.charCodeAt(0);
    expectWeError(() => p.transactionFromBytes(bytes), { code: 102, kind: 'InvalidAddress', field: 'recipient' });
  });
});

describe('GenesisPermitTransaction (type 101)', () => {
  const target = p.addresses.parseAddress(RECIPIENT);
  const tx = genesisPermitTransaction(p, target, 'permissioner', TS - 1n);

  it('bytes are 65 ‖ target ‖ role ‖ timestamp', () => {
    assert.equal(hex(tx.bytes), '6501567049275e36e8e4f338c688e9431272856c1006a9332f6dab040000016b0ebced7f');
  });

  it('id hashes target ‖ timestamp ‖ role, not the bytes order', () => {
    assert.equal(tx.idBase58, '5PxFCteBDWSyCtmcRXCiw2q9PiaLbgrfuAjjF1wHKFmcz1fgEhxseJAEVmVw9v7Y3sUYXSqxzGccxRmTbxkehqnp');
    assert.notDeepEqual(tx.id.subarray(0, 32), p.crypto.fastHash(tx.bytes));
    const miner = genesisPermitTransaction(p, p.addresses.parseAddress('3NmHrYoC8S2SUosy6UJp47bBwq2Cr2X6Yq1'), 'miner', TS - 7n);
    assert.equal(miner.idBase58, '46hUSWm3uxhruZDqMndT38B42iuFk4A25piD5ENpbyAiTjwE37s5gqTRVwXx8FQSS7oKSNLEiENXgkxCT49fmgmF');
  });

  it('JSON: type, id, fee, timestamp, signature, target, role', () => {
    assert.deepEqual(Object.keys(tx.toJson()), ['type', 'id', 'fee', 'timestamp', 'signature', 'target', 'role']);
    assert.equal(tx.toJson()['role'], 'permissioner');
    assert.equal(tx.toJson()['target'], RECIPIENT);
  });

  it('every role round-trips through its byte', () => {
    for (const [name, b] of Object.entries(ROLES)) {
      const t = genesisPermitTransaction(p, target, name as RoleName, TS);
      assert.equal(t.bytes[27], b);
      const back = p.transactionFromBytes(t.bytes);
      assert.equal((back.data as { role: string }).role, name);
      assert.equal(back.idBase58, t.idBase58);
    }
  });

  it('unknown role bytes and names are refused with WE messages', () => {
    for (const b of [0, 11, 0x80, 0xff]) {
      const bytes = Uint8Array.from(tx.bytes);
      bytes[27] = b;
      expectWeError(() => p.transactionFromBytes(bytes), {
        code: 199,
        message: `Permission.fromByte failure: unknown role byte '${(b << 24) >> 24}'`,
        field: 'role',
      });
    }
    expectWeError(() => roleFromName('admin'), { code: 199, message: "Permission.fromStr failure: unknown role name 'admin" });
    expectWeError(() => roleFromName('Miner'), { code: 199 });
    expectWeError(() => genesisPermitTransaction(p, target, 'root' as RoleName, TS), { code: 199, field: 'role' });
    assert.equal(roleFromByte(9), 'sender');
  });

  it('JSON reader refuses a bad role and a bad target', () => {
    const json = { type: 101, target: RECIPIENT, role: 'king', timestamp: 1 };
    expectWeError(() => p.transactionFromJson(json, { forBroadcast: false }), { code: 199, field: 'role' });
    expectWeError(() => p.transactionFromJson({ ...json, role: 'miner', target: 'xyz0' }, { forBroadcast: false }), { code: 102, field: 'target' });
    expectWeError(() => p.transactionFromJson({ ...json, role: 5 }, { forBroadcast: false }), { code: 1, field: 'role' });
  });
});

describe('GenesisRegisterNodeTransaction (type 110)', () => {
  const key = decodeBase58(NODE_KEY);
  const tx = genesisRegisterNodeTransaction(p, key, TS);

  it('bytes 6E ‖ key ‖ timestamp, id = h(bytes) twice', () => {
    assert.equal(hex(tx.bytes), '6ee78c7da84d058046ff6ad62a315d2c0a27c735960e2c2a71f48180537b06ee610000016b0ebced80');
    assert.equal(tx.idBase58, '4ZNdn1tdTRi5wvGFsaRzkmin42YXLV5SBfhpwGCbGSQ7VATGA2iqaminmkmCAiabSJsHnMZtvUriU9zSAAtvy2az');
    const h = p.crypto.fastHash(tx.bytes);
    assert.equal(encodeBase58(tx.id), encodeBase58(Uint8Array.from([...h, ...h])));
  });

  it('JSON: targetPublicKey then target (address)', () => {
    assert.equal(
      stringifyJson(tx.toJson()),
      `{"type":110,"id":"${tx.idBase58}","fee":0,"timestamp":1559320391040,"signature":"${tx.idBase58}","targetPublicKey":"${NODE_KEY}","target":"${RECIPIENT}"}`,
    );
  });

  it('a key of the wrong length is InvalidPublicKey (108)', () => {
    expectWeError(() => genesisRegisterNodeTransaction(p, key.subarray(0, 31), TS), { code: 108, field: 'targetPublicKey' });
  });

  it('GOST networks use 64-byte keys', () => {
    const kp = gost.crypto.keyPairFromSeedPhrase('genesis gost node');
    const t = genesisRegisterNodeTransaction(gost, kp.publicKey, TS);
    assert.equal(t.bytes.length, 1 + 64 + 8);
    assert.equal(gost.transactionFromBytes(t.bytes).idBase58, t.idBase58);
    expectWeError(() => genesisRegisterNodeTransaction(gost, key, TS), { code: 108 });
  });
});

describe('genesis transactions: refusals', () => {
  const recipient = p.addresses.parseAddress(RECIPIENT);
  const all = [
    genesisTransaction(p, recipient, 5n, TS),
    genesisPermitTransaction(p, recipient, 'miner', TS),
    genesisRegisterNodeTransaction(p, decodeBase58(NODE_KEY), TS),
  ];

  it('cannot be broadcast', () => {
    for (const tx of all) {
      expectWeError(() => p.transactionFromJson(parseJson(stringifyJson(tx.toJson()))), {
        code: 199,
        message: `Genesis transactions (type ${tx.type}) cannot be broadcasted`,
      });
    }
    assert.ok(isGenesisType(1) && isGenesisType(101) && isGenesisType(110) && !isGenesisType(4));
  });

  it('carry no proofs', () => {
    expectWeError(() => p.transaction(Genesis, 1, { recipient, amount: 1n, timestamp: TS }, [new Uint8Array(64)]), { code: 199, field: 'proofs' });
  });

  it('only version 1 exists', () => {
    expectWeError(() => p.transaction(GenesisPermit, 2, { target: recipient, role: 'miner', timestamp: TS }), { code: 199 });
  });

  it('every truncation and every trailing byte is a WeError', () => {
    for (const tx of all) {
      for (let n = 0; n < tx.bytes.length; n++) {
        expectWeError(() => p.transactionFromBytes(tx.bytes.subarray(0, n)), {});
      }
      expectWeError(() => p.transactionFromBytes(Uint8Array.from([...tx.bytes, 0])), { code: 199 });
      expectWeError(() => p.transactionFromBytes(tx.bytes.subarray(0, 5)), { message: /Data does not match base length|Buffer underflow/ });
    }
  });

  it('random bytes after a genesis type byte never crash', () => {
    fc.assert(
      fc.property(fc.constantFrom(1, 101, 110), fc.uint8Array({ maxLength: 60 }), (type, tail) => {
        try {
          const tx = p.transactionFromBytes(Uint8Array.from([type, ...tail]));
          assert.deepEqual(tx.bytes, Uint8Array.from([type, ...tail]));
        } catch (e) {
          assert.ok(e instanceof WeError, String(e));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('malformed JSON values are WrongJson or the field error, never a crash', () => {
    const bad: unknown[] = [null, 'x', 1.5, [], {}, true, 2n ** 70n];
    for (const v of bad) {
      for (const [type, key] of [
        [1, 'recipient'],
        [1, 'amount'],
        [1, 'timestamp'],
        [101, 'target'],
        [101, 'role'],
        [110, 'targetPublicKey'],
      ] as const) {
        const base =
          type === 1
            ? { type, recipient: RECIPIENT, amount: 1, timestamp: 1 }
            : type === 101
              ? { type, target: RECIPIENT, role: 'miner', timestamp: 1 }
              : { type, targetPublicKey: NODE_KEY, timestamp: 1 };
        expectWeError(() => p.transactionFromJson({ ...base, [key]: v }, { forBroadcast: false }), { field: key });
      }
    }
  });

  it('an address of another chain is refused when reading', () => {
    const t = genesisTransaction(pT, pT.addresses.fromPublicKey(decodeBase58(NODE_KEY)), 1n, TS);
    expectWeError(() => p.transactionFromBytes(t.bytes), { code: 102 });
  });
});
