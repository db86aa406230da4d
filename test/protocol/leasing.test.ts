import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { Lease, LeaseCancel } from '../../src/protocol/transactions/leasing.js';
import { expectWeError, onlyWeErrors } from '../support/errors.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const alice = p.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
const BOB = '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkC';
const SIG = encodeBase58(new Uint8Array(64).fill(1));
const LEASE_ID = 'FCznPUHWiKRP4LUxpoLcKaSC1r81AsXN6S9R2aiCgHx1';
const PK_HEX = 'd64f91e5d7c5d4d0a4ee81045689f4fe0d8dec1fb84005d3b48e4be68673e22a';

const leaseJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 8,
  version: 3,
  senderPublicKey: encodeBase58(alice.publicKey),
  recipient: BOB,
  amount: 100_000_000,
  fee: 1_000_000,
  timestamp: 1_700_000_000_000,
  proofs: [SIG],
  ...over,
});

const cancelJson = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 9,
  version: 3,
  chainId: 84,
  senderPublicKey: encodeBase58(alice.publicKey),
  leaseId: LEASE_ID,
  fee: 1_000_000,
  timestamp: 1_700_000_000_000,
  proofs: [SIG],
  ...over,
});

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('Lease: layout and JSON', () => {
  it('writes the assetId None byte before the sender (hand-checked bytes)', () => {
    const tx = p.transactionFromJson(leaseJson({ recipient: 'alias:T:abcd', amount: 5, fee: 1, proofs: [] }));
    assert.equal(hex(tx.bodyBytes), '0803' + '00' + PK_HEX + '0254000461626364' + '0000000000000005' + '0000000000000001' + '0000018bcfe56800' + '00');
  });

  it('never reads assetId from JSON and never shows it', () => {
    const asset = encodeBase58(new Uint8Array(32).fill(7));
    const plain = p.transactionFromJson(leaseJson());
    const withAsset = p.transactionFromJson(leaseJson({ assetId: asset }));
    assert.equal(hex(withAsset.bodyBytes), hex(plain.bodyBytes));
    assert.ok(Lease.is(withAsset));
    assert.equal(withAsset.data.assetId, null);
    assert.deepEqual(Object.keys(plain.toJson()), [
      'type',
      'id',
      'sender',
      'senderPublicKey',
      'fee',
      'timestamp',
      'proofs',
      'version',
      'recipient',
      'amount',
      'atomicBadge',
    ]);
    const v2 = p.transactionFromJson(leaseJson({ version: 2, atomicBadge: { trustedSender: BOB } }));
    assert.deepEqual(Object.keys(v2.toJson()).slice(8), ['recipient', 'amount']);
    const badge = p.transactionFromJson(leaseJson({ atomicBadge: { trustedSender: BOB } }));
    assert.deepEqual(badge.toJson()['atomicBadge'], { trustedSender: BOB });
  });

  it('fails to read a leased asset from binary, as the node does', () => {
    const tx = p.sign(p.transactionFromJson(leaseJson({ proofs: [] })), alice.privateKey);
    assert.equal(tx.bytes[3], 0);
    const someAsset = Uint8Array.from([...tx.bytes.subarray(0, 3), 1, ...new Uint8Array(32).fill(9), ...tx.bytes.subarray(4)]);
    expectWeError(() => p.transactionFromBytes(someAsset), 199, 'requirement failed: Leasing assets is not supported yet', 'assetId');
    const badFlag = Uint8Array.from(tx.bytes);
    badFlag[3] = 2;
    expectWeError(() => p.transactionFromBytes(badFlag), 199);
    expectWeError(() => p.transaction(Lease, 3, { ...tx.data, assetId: new Uint8Array(32) as unknown as null }), 199, /Leasing assets is not supported/);
  });
});

describe('Lease: stateless rules with WE error codes', () => {
  it('amount must be positive (NegativeAmount 111, of WEST)', () => {
    expectWeError(() => p.transactionFromJson(leaseJson({ amount: 0 })), 111, 'negative amount: 0 of WEST', 'amount');
    expectWeError(() => p.transactionFromJson(leaseJson({ amount: -7 })), 111, 'negative amount: -7 of WEST', 'amount');
    assert.equal(p.transactionFromJson(leaseJson({ amount: 1 })).type, 8);
  });

  it('amount + fee must not overflow a long (OverflowError 113)', () => {
    expectWeError(() => p.transactionFromJson(leaseJson({ amount: 9223372036854775807n, fee: 1 })), 113, 'overflow error', 'amount');
    expectWeError(() => p.transactionFromJson(leaseJson({ amount: 2n ** 62n, fee: 2n ** 62n })), 113, 'overflow error', 'amount');
    assert.ok(p.transactionFromJson(leaseJson({ amount: 9223372036854775806n, fee: 1 })));
    // A negative fee is not a stateless error for a lease.
    assert.ok(p.transactionFromJson(leaseJson({ amount: 9223372036854775807n, fee: -1 })));
  });

  it('recipient must be a valid address or alias of this chain', () => {
    expectWeError(() => p.transactionFromJson(leaseJson({ recipient: '3N4mzcHawFRR54P5AkWVAwqPwWrABRaVjkD' })), 102, /checksum/, 'recipient');
    expectWeError(() => p.transactionFromJson(leaseJson({ recipient: 'alias:T:AB' })), 199, /Alias/, 'recipient');
    expectWeError(() => p.transactionFromJson(leaseJson({ recipient: 'alias:W:abcd' })), 199, "Alias network char doesn't match current scheme", 'recipient');
    expectWeError(() => p.transactionFromJson(leaseJson({ recipient: 'O0Il' })), 102, /Unable to decode base58/, 'recipient');
  });

  it('mistyped or missing JSON values are WrongJson (1)', () => {
    expectWeError(() => p.transactionFromJson(leaseJson({ amount: undefined })), 1, 'failed to parse json message', 'amount');
    expectWeError(() => p.transactionFromJson(leaseJson({ amount: '5' })), 1, undefined, 'amount');
    expectWeError(() => p.transactionFromJson(leaseJson({ amount: 2n ** 64n })), 1, undefined, 'amount');
    expectWeError(() => p.transactionFromJson(leaseJson({ fee: 0.5 })), 1, undefined, 'fee');
    expectWeError(() => p.transactionFromJson(leaseJson({ recipient: null })), 1, undefined, 'recipient');
    expectWeError(() => p.transactionFromJson(leaseJson({ atomicBadge: 'yes' })), 1, undefined, 'atomicBadge');
    expectWeError(() => p.transactionFromJson(leaseJson({ senderPublicKey: 'xyz' })), 108, /invalid public key/, 'senderPublicKey');
    expectWeError(() => p.transactionFromJson(leaseJson({ version: undefined })), 199, 'Bad transaction type (8) and version (1)');
  });
});

describe('LeaseCancel', () => {
  it('layout: chainId byte first; JSON shows chainId and leaseId', () => {
    const tx = p.transactionFromJson(cancelJson({ version: 2, fee: 1, proofs: [] }));
    assert.equal(
      hex(tx.bodyBytes),
      '0902' + '54' + PK_HEX + '0000000000000001' + '0000018bcfe56800' + 'd316573e78df43d50d037dfd1b25e498c5617f93b3eb7c2c972d028a2aff5dde',
    );
    assert.deepEqual(Object.keys(tx.toJson()).slice(8), ['chainId', 'leaseId']);
    const v3 = p.transactionFromJson(cancelJson());
    assert.deepEqual(Object.keys(v3.toJson()).slice(8), ['chainId', 'leaseId', 'atomicBadge']);
    assert.match(stringifyJson(v3.toJson()), /"chainId":84,"leaseId":"FCznPUHWiKRP4LUxpoLcKaSC1r81AsXN6S9R2aiCgHx1"/);
  });

  it('chainId is a required JSON number equal to the node chain id', () => {
    expectWeError(() => p.transactionFromJson(cancelJson({ chainId: undefined })), 1, 'failed to parse json message', 'chainId');
    expectWeError(() => p.transactionFromJson(cancelJson({ chainId: 'T' })), 1, undefined, 'chainId');
    expectWeError(() => p.transactionFromJson(cancelJson({ chainId: 300 })), 1, undefined, 'chainId');
    expectWeError(() => p.transactionFromJson(cancelJson({ chainId: 76 })), 199, 'Wrong chainId actual: 76, expected: 84', 'chainId');
    expectWeError(() => p.transactionFromJson(cancelJson({ chainId: -1 })), 199, 'Wrong chainId actual: -1, expected: 84', 'chainId');
  });

  it('leaseId: Base58 (invalid.leaseTx), exactly 32 bytes (Lease transaction id is invalid)', () => {
    expectWeError(() => p.transactionFromJson(cancelJson({ leaseId: '0OIl' })), 199, 'invalid.leaseTx', 'leaseId');
    expectWeError(() => p.transactionFromJson(cancelJson({ leaseId: '2'.repeat(89) })), 199, 'invalid.leaseTx', 'leaseId');
    for (const n of [0, 31, 33, 64]) {
      expectWeError(
        () => p.transactionFromJson(cancelJson({ leaseId: encodeBase58(new Uint8Array(n).fill(5)) })),
        199,
        'Lease transaction id is invalid',
        'leaseId',
      );
    }
    expectWeError(() => p.transactionFromJson(cancelJson({ leaseId: 5 })), 1, undefined, 'leaseId');
    expectWeError(() => p.transactionFromJson(cancelJson({ leaseId: undefined })), 1, undefined, 'leaseId');
  });

  it('a wrong chain id in binary is rejected too', () => {
    const tx = p.sign(p.transactionFromJson(cancelJson({ proofs: [] })), alice.privateKey);
    const other = Uint8Array.from(tx.bytes);
    other[3] = 0x57;
    expectWeError(() => p.transactionFromBytes(other), 199, 'Wrong chainId actual: 87, expected: 84', 'chainId');
    const back = p.transactionFromBytes(tx.bytes);
    assert.ok(LeaseCancel.is(back));
    assert.equal(encodeBase58(back.data.leaseId), LEASE_ID);
    assert.ok(back.hasValidSenderSignature());
  });
});

describe('leasing: binary input never crashes', () => {
  const txs = [
    p.sign(p.transactionFromJson(leaseJson({ proofs: [], recipient: 'alias:T:john', atomicBadge: {} })), alice.privateKey),
    p.sign(p.transactionFromJson(leaseJson({ proofs: [], version: 2 })), alice.privateKey),
    p.sign(p.transactionFromJson(cancelJson({ proofs: [], atomicBadge: { trustedSender: BOB } })), alice.privateKey),
  ];

  it('round-trips and rejects every truncation', () => {
    for (const tx of txs) {
      const back = p.transactionFromBytes(tx.bytes);
      assert.equal(stringifyJson(back.toJson()), stringifyJson(tx.toJson()));
      assert.ok(back.hasValidSenderSignature());
      for (let n = 0; n < tx.bytes.length; n++) expectWeError(() => p.transactionFromBytes(tx.bytes.subarray(0, n)), 199);
    }
  });

  it('mutated bytes give WeErrors or transactions', () => {
    for (const tx of txs) {
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

  it('arbitrary JSON values in every field give WeErrors', () => {
    const anyJson = fc.oneof(fc.jsonValue(), fc.bigInt(), fc.constant(undefined));
    for (const base of [leaseJson(), cancelJson()]) {
      fc.assert(
        fc.property(fc.constantFrom(...Object.keys(base)), anyJson, (key, value) => {
          onlyWeErrors(() => p.transactionFromJson({ ...base, [key]: value }));
        }),
        { numRuns: 500 },
      );
    }
  });
});
