import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blake2b } from '@noble/hashes/blake2.js';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { ByteWriter } from '../../src/protocol/bytes.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import {
  Atomic,
  atomicBadgeOf,
  canBeInAtomic,
  hasValidMinerProof,
  isAtomic,
  mineAtomic,
  minerProofSource,
  supportsAtomicBadge,
  unmineAtomic,
  type AtomicTransaction,
} from '../../src/protocol/transactions/atomic.js';
import { ExecutedContract } from '../../src/protocol/transactions/contracts-executed.js';
import { allTypeVersions, codecFor } from '../../src/protocol/transactions/registry.js';
import type { Transaction, TxSchema } from '../../src/protocol/transactions/schema.js';
import { expectWeError, onlyWeErrors } from '../support/errors.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const alice = p.crypto.keyPairFromSeedPhrase('examples seed phrase for testing only please ignore');
const bob = p.crypto.keyPairFromSeedPhrase('second seed phrase for testing only please ignore');
const carol = p.crypto.keyPairFromSeedPhrase('third seed phrase for testing only please ignore');
const ALICE = p.addresses.fromPublicKey(alice.publicKey).toString();
const BOB = p.addresses.fromPublicKey(bob.publicKey).toString();
const CAROL = p.addresses.fromPublicKey(carol.publicKey).toString();
type KeyPair = typeof alice;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const TS = 1_700_000_000_000;

/** A signed transaction from request JSON (proofs filled in by signing). */
function signed(body: Record<string, unknown>, by: KeyPair = alice): Transaction {
  return p.sign(p.transactionFromJson({ proofs: [], ...body, senderPublicKey: encodeBase58(by.publicKey) }), by.privateKey);
}

const transfer = (over: Record<string, unknown> = {}, by: KeyPair = alice): Transaction =>
  signed({ type: 4, version: 3, recipient: CAROL, amount: 5, fee: 1_000_000, timestamp: TS, attachment: '', atomicBadge: {}, ...over }, by);

const policy = (over: Record<string, unknown> = {}, by: KeyPair = alice): Transaction =>
  signed({ type: 112, version: 3, policyName: 'p', description: 'd', recipients: [BOB], owners: [ALICE], fee: 1, timestamp: TS, atomicBadge: {}, ...over }, by);

const call = (over: Record<string, unknown> = {}, by: KeyPair = alice): Transaction =>
  signed(
    {
      type: 104,
      version: 4,
      contractId: encodeBase58(new Uint8Array(32).fill(4)),
      contractVersion: 1,
      params: [],
      fee: 1,
      timestamp: TS,
      atomicBadge: {},
      ...over,
    },
    by,
  );

/** The request JSON a client sends for a signed transaction: the node's JSON (with `id`) is accepted as such. */
const requestOf = (tx: Transaction): Record<string, unknown> => tx.toJson();

const atomicJson = (inner: readonly unknown[], over: Record<string, unknown> = {}, by: KeyPair = alice): Record<string, unknown> => ({
  type: 120,
  version: 1,
  senderPublicKey: encodeBase58(by.publicKey),
  timestamp: TS + 1,
  transactions: inner.map((t) => (typeof t === 'object' && t !== null && 'codec' in t ? requestOf(t as Transaction) : t)),
  proofs: [],
  ...over,
});

const atomic = (inner: readonly Transaction[], over: Record<string, unknown> = {}, by: KeyPair = alice): AtomicTransaction => {
  const tx = p.transactionFromJson(atomicJson(inner, over, by));
  assert.ok(isAtomic(tx));
  return p.sign(tx, by.privateKey);
};

const u16 = (n: number): string => n.toString(16).padStart(4, '0');
const i32 = (n: number): string => n.toString(16).padStart(8, '0');

describe('Atomic: byte views, id and JSON', () => {
  const t1 = transfer();
  const t2 = policy();
  const tx = atomic([t1, t2]);

  it('proof source: sender ‖ count ‖ inner ids ‖ timestamp, no miner (hand-checked)', () => {
    assert.equal(hex(tx.proofSourceBytes), '7801' + hex(alice.publicKey) + u16(2) + hex(t1.id) + hex(t2.id) + '0000018bcfe56801');
    assert.equal(hex(tx.id), hex(blake2b(tx.proofSourceBytes, { dkLen: 32 })));
    assert.ok(tx.hasValidSenderSignature());
  });

  it('body and full bytes: miner option, then each inner transaction as i32 length ‖ full bytes', () => {
    assert.equal(
      hex(tx.bodyBytes),
      '7801' + hex(alice.publicKey) + '00' + u16(2) + i32(t1.bytes.length) + hex(t1.bytes) + i32(t2.bytes.length) + hex(t2.bytes) + '0000018bcfe56801',
    );
    assert.equal(hex(tx.bytes), '00' + hex(tx.bodyBytes) + '01' + u16(1) + u16(64) + hex(tx.proofs[0]!));
    const back = p.transactionFromBytes(tx.bytes);
    assert.equal(back.idBase58, tx.idBase58);
    assert.ok(back.hasValidSenderSignature());
    assert.equal(stringifyJson(back.toJson()), stringifyJson(tx.toJson()));
  });

  it('JSON: fee 0, miner null, the inner transactions as the node writes them', () => {
    const out = tx.toJson();
    assert.deepEqual(Object.keys(out), ['type', 'id', 'sender', 'senderPublicKey', 'fee', 'timestamp', 'proofs', 'version', 'miner', 'transactions']);
    assert.equal(out['fee'], 0n);
    assert.equal(out['miner'], null);
    assert.equal(out['sender'], ALICE);
    assert.deepEqual(out['transactions'], [t1.toJson(), t2.toJson()]);
    assert.equal(tx.fee, 0n);
  });

  it("ignores the clients' inner `id`, and `miner` and `fee` in the request", () => {
    const lying = atomicJson([t1, t2]);
    (lying['transactions'] as Record<string, unknown>[])[0]!['id'] = encodeBase58(new Uint8Array(32));
    const json = { ...lying, miner: encodeBase58(bob.publicKey), fee: 100, proofs: tx.proofs.map(encodeBase58) };
    const read = p.transactionFromJson(parseJson(stringifyJson(json)));
    assert.equal(read.idBase58, tx.idBase58);
    assert.equal(hex(read.bytes), hex(tx.bytes));
    assert.ok(read.hasValidSenderSignature());
  });

  it('inner transactions keep their own signatures and data', () => {
    const read = p.transactionFromBytes(tx.bytes) as AtomicTransaction;
    for (const inner of read.data.transactions) assert.ok(inner.hasValidSenderSignature());
    assert.deepEqual(atomicBadgeOf(read.data.transactions[0]!), { trustedSender: null });
  });
});

describe('Atomic: AtomicValidation rules, in WE order', () => {
  it('more than one inner transaction', () => {
    expectWeError(() => atomic([transfer()]), 199, 'Atomic transaction must contain more than 1 transaction', 'transactions');
    expectWeError(() => atomic([]), 199, 'Atomic transaction must contain more than 1 transaction', 'transactions');
    // Counted first: a lone unbadged transaction is still "more than 1".
    expectWeError(() => atomic([transfer({ atomicBadge: null })]), 199, 'Atomic transaction must contain more than 1 transaction');
  });

  it('no duplicates (same id)', () => {
    const t = transfer();
    expectWeError(() => atomic([t, policy(), t]), 199, 'Atomic transaction cannot contain duplicated transactions', 'transactions');
    // Same id, other proofs: still a duplicate (WE compares transactions by id).
    const resigned = p.sign(t, alice.privateKey);
    expectWeError(() => atomic([t, resigned]), 199, 'Atomic transaction cannot contain duplicated transactions');
  });

  it('every inner transaction has an atomic badge', () => {
    const bare = transfer({ atomicBadge: null });
    expectWeError(
      () => atomic([policy(), bare]),
      199,
      `To use transaction '${bare.idBase58}' inside atomic container, the transaction must have atomic badge`,
      'transactions',
    );
  });

  it('only badge-carrying versions may be inside (reader: "Transaction does not support atomic containers")', () => {
    const v2 = transfer({ version: 2, atomicBadge: undefined });
    expectWeError(() => atomic([policy(), v2]), 199, 'Transaction does not support atomic containers', 'transactions(1)');
    const policyV2 = policy({ version: 2, atomicBadge: undefined });
    expectWeError(() => atomic([policyV2, transfer()]), 199, 'Transaction does not support atomic containers', 'transactions(0)');
  });

  it("the badge's trusted sender, or else the inner sender, is the atomic sender", () => {
    const fromBob = transfer({}, bob);
    expectWeError(
      () => atomic([policy(), fromBob]),
      199,
      `The sender address '${BOB}' of the transaction '${fromBob.idBase58}' does not match the atomic sender '${ALICE}'`,
      'transactions',
    );
    const trustsCarol = transfer({ atomicBadge: { trustedSender: CAROL } });
    expectWeError(
      () => atomic([trustsCarol, policy()]),
      199,
      `The trusted address '${CAROL}' of the transaction '${trustsCarol.idBase58}' does not match the atomic sender '${ALICE}'`,
    );
    // Bob's transaction trusting Alice may be in Alice's atomic; Alice's own may trust herself.
    const ok = atomic([transfer({ atomicBadge: { trustedSender: ALICE } }, bob), transfer({ atomicBadge: { trustedSender: ALICE } }), policy()]);
    assert.equal(ok.data.transactions.length, 3);
    // The first failing inner transaction is reported.
    expectWeError(() => atomic([fromBob, trustsCarol]), 199, /^The sender address/);
  });

  it('no nested atomic: refused by the reader before it is read; by the rules when built directly', () => {
    const inner = atomic([transfer(), policy()]);
    expectWeError(() => atomic([transfer(), inner]), 199, 'Transaction does not support atomic containers', 'transactions(1)');
    const x = atomic([transfer({ amount: 6 }), policy({ fee: 2 })]);
    expectWeError(
      () => p.transaction(Atomic, 1, { ...x.data, transactions: [...x.data.transactions, inner] }),
      199,
      'Atomic transaction cannot contain another atomic transaction',
    );
    // A deeply nested request is refused at the first level, without recursion.
    let deep: Record<string, unknown> = atomicJson([transfer(), policy()]);
    for (let i = 0; i < 5000; i++) deep = { type: 120, version: 1, transactions: [deep, deep] };
    expectWeError(() => p.transactionFromJson(atomicJson([transfer(), deep])), 199, 'Transaction does not support atomic containers', 'transactions(1)');
  });

  it('executed and executable transactions, mined or not', () => {
    const c = call();
    const executed = p.sign(
      p.transaction(ExecutedContract, 1, { senderPublicKey: bob.publicKey, tx: c, results: [], timestamp: BigInt(TS + 5) }),
      bob.privateKey,
    );
    const unmined = atomic([c, transfer()]);
    expectWeError(
      () => p.transaction(Atomic, 1, { ...unmined.data, transactions: [executed, transfer()] }),
      199,
      'Atomic transaction cannot contain executed transactions',
    );
    expectWeError(
      () => p.transaction(Atomic, 1, { ...unmined.data, miner: bob.publicKey }),
      199,
      'Mined atomic transaction cannot contain executable transactions',
    );
    // Executed transactions are not broadcast, so never read from request JSON.
    expectWeError(
      () => p.transactionFromJson(atomicJson([executed.toJson(), transfer()])),
      199,
      'ExecutedContract transaction is not allowed to be broadcasted',
      'transactions(0)',
    );
  });
});

describe('Atomic: mining', () => {
  const c = call();
  const t = transfer();
  const container = atomic([t, c]);
  const executed = p.sign(
    p.transaction(ExecutedContract, 1, { senderPublicKey: bob.publicKey, tx: c, results: [], timestamp: BigInt(TS + 5) }),
    bob.privateKey,
  );
  const mined = mineAtomic(container, [executed], bob);

  it('replaces executable transactions by their executions, sets the miner, appends its proof', () => {
    assert.deepEqual(mined.data.miner, bob.publicKey);
    assert.equal(mined.data.transactions[1]!.type, 105);
    assert.equal(mined.proofs.length, 2);
    assert.ok(hasValidMinerProof(mined));
    assert.ok(!hasValidMinerProof(container));
    // The sender's proof and the id survive: the executed contributes its executable's id.
    assert.equal(hex(mined.proofSourceBytes), hex(container.proofSourceBytes));
    assert.equal(mined.idBase58, container.idBase58);
    assert.ok(mined.hasValidSenderSignature());
    assert.equal(hex(minerProofSource(mined)), hex(mined.proofSourceBytes) + hex(executed.id));
    // The body carries the miner.
    assert.equal(hex(mined.bodyBytes.subarray(34, 35 + 32)), '01' + hex(bob.publicKey));
    assert.equal(mined.toJson()['miner'], encodeBase58(bob.publicKey));
  });

  it('reads back from binary, and rolls back to the broadcast form', () => {
    const back = p.transactionFromBytes(mined.bytes) as AtomicTransaction;
    assert.equal(stringifyJson(back.toJson()), stringifyJson(mined.toJson()));
    assert.ok(hasValidMinerProof(back));
    assert.equal(hex(unmineAtomic(back).bytes), hex(container.bytes));
  });

  it('a wrong miner proof, or a missing execution, is caught', () => {
    const forged = p.transaction(Atomic, 1, mined.data, [mined.proofs[0]!, container.proofs[0]!]);
    assert.ok(!hasValidMinerProof(forged));
    expectWeError(() => mineAtomic(container, [], bob), 199, `No executed transaction found for id '${c.idBase58}' to generate signed atomic`);
  });
});

describe('Atomic: malformed inner JSON', () => {
  const t = transfer();
  const q = policy();

  it('wrong JSON shapes are WrongJson naming the path', () => {
    expectWeError(() => p.transactionFromJson(atomicJson([t, q], { transactions: {} })), 1, undefined, 'transactions');
    expectWeError(() => p.transactionFromJson(atomicJson([t, q], { transactions: undefined })), 1, undefined, 'transactions');
    expectWeError(() => p.transactionFromJson(atomicJson([t, 5])), 1, undefined, 'transactions(1)');
    expectWeError(() => p.transactionFromJson(atomicJson([t, null])), 1, undefined, 'transactions(1)');
    const noType = { ...requestOf(q) };
    delete noType['type'];
    expectWeError(() => p.transactionFromJson(atomicJson([t, noType])), 1, undefined, 'transactions(1).type');
    expectWeError(() => p.transactionFromJson(atomicJson([t, { ...requestOf(q), fee: '1' }])), 1, undefined, 'transactions(1).fee');
  });

  it('inner errors keep their WE code, attributed inside the atomic', () => {
    expectWeError(() => p.transactionFromJson(atomicJson([{ ...requestOf(t), amount: -1 }, q])), 111, 'negative amount: -1 of WEST', 'transactions(0).amount');
    expectWeError(() => p.transactionFromJson(atomicJson([t, { ...requestOf(q), proofs: ['0'] }])), 199, 'invalid proof', 'transactions(1).proofs');
    expectWeError(
      () => p.transactionFromJson(atomicJson([t, { ...requestOf(q), version: 9 }])),
      199,
      'Bad transaction type (112) and version (9)',
      'transactions(1).type',
    );
    expectWeError(() => p.transactionFromJson(atomicJson([t, { ...requestOf(q), owners: ['x'] }])), 102, undefined, 'transactions(1).owners(0)');
    expectWeError(
      () => p.transactionFromJson(atomicJson([t, { ...requestOf(q), type: 114, version: 1 }])),
      199,
      'PolicyDataHash V1 transaction is not allowed to be broadcasted',
    );
  });

  it('random JSON values inside never crash', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(1), (v, i) => {
        const inner = [requestOf(t), requestOf(q)];
        inner[i] = v as Record<string, unknown>;
        onlyWeErrors(() => p.transactionFromJson(atomicJson(inner)));
      }),
      { numRuns: 300 },
    );
  });
});

describe('Atomic: malformed binary', () => {
  const t = transfer();
  const q = policy();
  const tx = atomic([t, q]);
  const firstLength = 1 + 2 + 32 + 1 + 2; // offset of the first inner length in full bytes

  const withInner = (inner: readonly Uint8Array[], count = inner.length): Uint8Array => {
    const w = new ByteWriter();
    w.u8(0).u8(120).u8(1).bytes(alice.publicKey).u8(0).u16(count);
    for (const b of inner) w.longBytes(b);
    w.i64(BigInt(TS + 1));
    w.u8(1).u16(1).shortBytes(new Uint8Array(64));
    return w.result();
  };

  it('inner lengths must stay inside the bytes', () => {
    for (const length of [0x7fffffff, t.bytes.length + 1000, -1, -0x80000000]) {
      const m = Uint8Array.from(tx.bytes);
      new DataView(m.buffer).setInt32(firstLength, length);
      expectWeError(() => p.transactionFromBytes(m), 199, undefined, 'transactions(0)');
    }
    for (const length of [0, 1, 2, t.bytes.length - 1, t.bytes.length + 1]) {
      const m = Uint8Array.from(tx.bytes);
      new DataView(m.buffer).setInt32(firstLength, length);
      onlyWeErrors(() => p.transactionFromBytes(m));
      assert.throws(() => p.transactionFromBytes(m));
    }
    // A count larger than the transactions present.
    expectWeError(() => p.transactionFromBytes(withInner([t.bytes, q.bytes], 3)), 199);
  });

  it('only atomic-capable transactions are parsed inside (no recursion into nested atomics)', () => {
    const v2 = transfer({ version: 2, atomicBadge: undefined });
    expectWeError(() => p.transactionFromBytes(withInner([t.bytes, v2.bytes])), 199, /cannot be inside an atomic transaction/, 'transactions(1)');
    const mass1 = signed({ type: 11, version: 1, transfers: [{ recipient: BOB, amount: 1 }], fee: 1, timestamp: TS, attachment: '' });
    expectWeError(() => p.transactionFromBytes(withInner([t.bytes, mass1.bytes])), 199, /old encoding/, 'transactions(1)');
    expectWeError(() => p.transactionFromBytes(withInner([t.bytes, tx.bytes])), 199, /type 120 version 1 cannot be inside/, 'transactions(1)');
    let deep = tx.bytes;
    for (let i = 0; i < 300; i++) deep = withInner([t.bytes, deep]);
    expectWeError(() => p.transactionFromBytes(withInner([q.bytes, deep])), 199, /type 120 version 1 cannot be inside/, 'transactions(1)');
    // Rules apply to binary input too.
    expectWeError(() => p.transactionFromBytes(withInner([t.bytes])), 199, 'Atomic transaction must contain more than 1 transaction');
    expectWeError(() => p.transactionFromBytes(withInner([t.bytes, t.bytes])), 199, 'Atomic transaction cannot contain duplicated transactions');
    assert.equal(p.transactionFromBytes(withInner([t.bytes, q.bytes])).idBase58, tx.idBase58);
  });

  it('truncations and mutations give WeErrors only', () => {
    for (let n = 0; n < tx.bytes.length; n++) expectWeError(() => p.transactionFromBytes(tx.bytes.subarray(0, n)), 199);
    expectWeError(() => p.transactionFromBytes(Uint8Array.from([...tx.bytes, 0])), 199);
    fc.assert(
      fc.property(fc.nat(tx.bytes.length - 1), fc.integer({ min: 0, max: 255 }), (i, v) => {
        const m = Uint8Array.from(tx.bytes);
        m[i] = v;
        onlyWeErrors(() => p.transactionFromBytes(m));
      }),
      { numRuns: 1500 },
    );
  });
});

describe('Atomic: clients and CreateAlias ids', () => {
  it("an atomic signed over the library's CreateAlias id (hash of the body) fails the node's signature check", () => {
    const aliasTx = signed({ type: 10, version: 4, alias: 'weft-atomic', fee: 1, timestamp: TS, atomicBadge: {} });
    const libraryId = blake2b(aliasTx.bodyBytes, { dkLen: 32 });
    assert.notEqual(hex(libraryId), hex(aliasTx.id));
    const t = transfer();
    const w = new ByteWriter();
    w.u8(120)
      .u8(1)
      .bytes(alice.publicKey)
      .u16(2)
      .bytes(libraryId)
      .bytes(t.id)
      .i64(BigInt(TS + 1));
    const clientSignature = p.crypto.sign(alice.privateKey, w.result());
    const json = atomicJson([{ ...requestOf(aliasTx), id: encodeBase58(libraryId) }, t], { proofs: [encodeBase58(clientSignature)] });
    const tx = p.transactionFromJson(json);
    assert.ok(!tx.hasValidSenderSignature());
    // Signed over WE's id, it verifies.
    assert.ok(p.sign(tx, alice.privateKey).hasValidSenderSignature());
  });
});

describe('Atomic: which transactions carry a badge', () => {
  it('agrees with every registered schema', () => {
    for (const { type, version } of allTypeVersions()) {
      const codec = codecFor(type, version) as Partial<TxSchema> | undefined;
      if (codec?.entriesOf === undefined) {
        assert.ok(!supportsAtomicBadge(type, version), `${type} v${version}`);
        continue;
      }
      const hasBadge = codec.entriesOf(version).some((e) => 'name' in e && e.name === 'atomicBadge');
      assert.equal(supportsAtomicBadge(type, version), hasBadge, `${type} v${version}`);
      assert.equal(canBeInAtomic(type, version), hasBadge || type === 105, `${type} v${version}`);
    }
    assert.ok(!supportsAtomicBadge(4, 4) && !supportsAtomicBadge(999, 3));
  });
});
