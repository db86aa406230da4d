import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Protocol } from '../../src/protocol/protocol.js';
import { Transfer } from '../../src/protocol/transactions/transfer.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { F, Store, STORE_FORMAT } from '../../src/state/store.js';
import { StoreFormatError } from '../../src/errors/catalogue.js';
import { open } from 'lmdb';
import { MutableState } from '../../src/state/view.js';
import type { ContractInfo } from '../../src/state/contract-info.js';
import { tempDir } from '../../devkit/tmp.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const addr = (i: number): Uint8Array => p.addresses.fromPublicKey(p.crypto.keyPairFromSeedPhrase(`store test ${i}`).publicKey).bytes;
const ADDRS = Array.from({ length: 5 }, (_, i) => addr(i));
const ASSET = new Uint8Array(32).fill(7);

function stateHash(store: Store): string {
  const h = createHash('sha256');
  for (const { key, value } of store.entries())
    h.update(key)
      .update(Buffer.from([0xff]))
      .update(value)
      .update(Buffer.from([0xfe]));
  return h.digest('hex');
}

type Op =
  | { kind: 'balance'; who: number; asset: boolean; delta: number }
  | { kind: 'lease'; who: number; din: number; dout: number }
  | { kind: 'data'; who: number; key: string; value: number }
  | { kind: 'alias'; who: number; name: string }
  | { kind: 'perm'; who: number; role: number; ts: number }
  | { kind: 'contract'; which: number; version: number; active: boolean }
  | { kind: 'contract-data'; which: number; key: string; value: number }
  | { kind: 'executed'; which: number; by: number };

/** A contract (id i) as a store keeps it. */
const contractInfo = (which: number, version: number, active: boolean): ContractInfo => ({
  creator: p.crypto.keyPairFromSeedPhrase(`store test ${which}`).publicKey,
  contractId: new Uint8Array(32).fill(which + 1),
  storedContract: { engine: 'docker', image: `kv:${version}`, imageHash: 'ab'.repeat(32), apiVersion: { major: 1, minor: 0 } },
  version,
  active,
  validationPolicy: { type: 'any' },
  isConfidential: false,
  groupParticipants: [],
  groupOwners: [],
});
const contractId = (which: number): Uint8Array => new Uint8Array(32).fill(which + 1);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('balance' as const), who: fc.nat(4), asset: fc.boolean(), delta: fc.integer({ min: -1000, max: 1000 }) }),
  fc.record({ kind: fc.constant('lease' as const), who: fc.nat(4), din: fc.integer({ min: 0, max: 50 }), dout: fc.integer({ min: 0, max: 50 }) }),
  fc.record({ kind: fc.constant('data' as const), who: fc.nat(4), key: fc.constantFrom('a', 'b', 'ключ'), value: fc.integer() }),
  fc.record({ kind: fc.constant('alias' as const), who: fc.nat(4), name: fc.stringMatching(/^[a-z]{4,8}$/) }),
  fc.record({ kind: fc.constant('perm' as const), who: fc.nat(4), role: fc.integer({ min: 1, max: 10 }), ts: fc.nat(1000) }),
  fc.record({ kind: fc.constant('contract' as const), which: fc.nat(3), version: fc.integer({ min: 1, max: 5 }), active: fc.boolean() }),
  fc.record({ kind: fc.constant('contract-data' as const), which: fc.nat(3), key: fc.constantFrom('a', 'b', 'ключ'), value: fc.integer() }),
  fc.record({ kind: fc.constant('executed' as const), which: fc.nat(5), by: fc.nat(5) }),
);

function apply(store: Store, height: number, ops: Op[]): void {
  const s = new MutableState(store);
  for (const op of ops) {
    const a = 'who' in op ? ADDRS[op.who]! : new Uint8Array(0);
    if (op.kind === 'balance') s.addBalance(a, op.asset ? ASSET : null, BigInt(op.delta));
    else if (op.kind === 'lease') s.addLeaseBalance(a, BigInt(op.din), BigInt(op.dout));
    else if (op.kind === 'data') s.putData(a, { key: op.key, type: 'integer', value: BigInt(op.value) });
    else if (op.kind === 'alias') {
      if (s.aliasOwner(op.name) === undefined) s.putAlias(op.name, a);
    } else if (op.kind === 'perm') s.addPermissionOp(a, { opType: 'add', role: op.role, timestamp: BigInt(op.ts), dueTimestamp: null });
    else if (op.kind === 'contract') s.putContract(contractInfo(op.which, op.version, op.active));
    else if (op.kind === 'contract-data') s.putContractData(contractId(op.which), { key: op.key, type: 'integer', value: BigInt(op.value) });
    else s.putExecutedTxFor(new Uint8Array(32).fill(0x40 + op.which), new Uint8Array(32).fill(0x80 + op.by));
  }
  s.setCarryFee(BigInt(height));
  store.commit({
    height,
    blockBytes: Uint8Array.from([height & 0xff]),
    blockIds: [{ id: new Uint8Array(64).fill(height & 0xff), transactionCount: ops.length }],
    changes: s.changes(),
  });
}

describe('store', () => {
  it('commits heights and rolls them back to the exact previous state', () => {
    fc.assert(
      fc.property(fc.array(fc.array(opArb, { maxLength: 12 }), { minLength: 1, maxLength: 8 }), fc.nat(), (blocks, cut) => {
        const store = Store.open(tempDir(), p);
        const hashes = [stateHash(store)];
        blocks.forEach((ops, i) => {
          apply(store, i + 1, ops);
          hashes.push(stateHash(store));
        });
        const target = cut % (blocks.length + 1);
        const removed = store.rollbackTo(target);
        assert.equal(removed.length, blocks.length - target);
        assert.equal(store.height(), target);
        assert.equal(stateHash(store), hashes[target]);
        // Re-applying the same blocks gives the same states again.
        for (let i = target; i < blocks.length; i++) {
          apply(store, i + 1, blocks[i]!);
          assert.equal(stateHash(store), hashes[i + 1]);
        }
        void store.close();
      }),
      { numRuns: 40 },
    );
  });

  it('commits the same height again for a growing liquid block, and undoes all of it', () => {
    const store = Store.open(tempDir(), p);
    apply(store, 1, [{ kind: 'balance', who: 0, asset: false, delta: 100 }]);
    const base = stateHash(store);
    apply(store, 2, [{ kind: 'balance', who: 0, asset: false, delta: -10 }]);
    apply(store, 2, [
      { kind: 'balance', who: 1, asset: false, delta: 10 },
      { kind: 'alias', who: 1, name: 'bobby' },
    ]);
    assert.equal(store.height(), 2);
    assert.equal(store.balance(ADDRS[0]!, null), 90n);
    assert.equal(store.balance(ADDRS[1]!, null), 10n);
    assert.deepEqual(store.aliasOwner('bobby'), ADDRS[1]);
    assert.deepEqual(store.aliasesOf(ADDRS[1]!), ['bobby']);
    assert.equal(store.balanceAt(ADDRS[0]!, null, 1), 100n);
    store.rollbackTo(1);
    assert.equal(stateHash(store), base);
    assert.equal(store.aliasOwner('bobby'), undefined);
    void store.close();
  });

  it('answers balances at a height and the minimum effective balance over a window', () => {
    const store = Store.open(tempDir(), p);
    const a = ADDRS[2]!;
    apply(store, 1, [{ kind: 'balance', who: 2, asset: false, delta: 1000 }]);
    apply(store, 2, []);
    apply(store, 3, [{ kind: 'lease', who: 2, din: 0, dout: 400 }]);
    apply(store, 4, [{ kind: 'balance', who: 2, asset: false, delta: 50 }]);
    apply(store, 5, [{ kind: 'lease', who: 2, din: 0, dout: -400 } as unknown as Op]);
    assert.equal(store.balanceAt(a, null, 3), 1000n);
    assert.equal(store.balanceAt(a, null, 4), 1050n);
    assert.equal(store.minEffectiveBalance(a, 1, 5), 600n);
    assert.equal(store.minEffectiveBalance(a, 4, 5), 650n);
    assert.equal(store.minEffectiveBalance(a, 5, 5), 1050n);
    assert.equal(store.minEffectiveBalance(a, 1, 2), 1000n);
    void store.close();
  });

  it('the smallest regular and effective balance over any window is the smallest of the balances at each of its heights', () => {
    const balanceOps = fc.oneof(
      fc.record({ kind: fc.constant('balance' as const), who: fc.nat(1), asset: fc.constant(false), delta: fc.integer({ min: -300, max: 300 }) }),
      fc.record({ kind: fc.constant('lease' as const), who: fc.nat(1), din: fc.integer({ min: 0, max: 50 }), dout: fc.integer({ min: 0, max: 50 }) }),
    );
    fc.assert(
      fc.property(fc.array(fc.array(balanceOps, { maxLength: 3 }), { minLength: 1, maxLength: 12 }), fc.nat(), fc.nat(), fc.nat(), (blocks, cut, a, b) => {
        const store = Store.open(tempDir(), p);
        blocks.forEach((ops, i) => apply(store, i + 1, ops));
        // A rollback and new blocks on top: history entries removed and written again.
        const top = Math.max(1, cut % (blocks.length + 1));
        store.rollbackTo(top);
        apply(store, top + 1, [{ kind: 'balance', who: 0, asset: false, delta: 7 }]);
        const height = top + 1;
        const from = 1 + (a % height);
        const to = from + (b % (height - from + 1));
        for (const who of [0, 1, 2]) {
          const address = ADDRS[who]!;
          let regular: bigint | undefined;
          let effective: bigint | undefined;
          for (let h = from; h <= to; h++) {
            const balance = store.balanceAt(address, null, h);
            const lease = store.leaseBalanceAt(address, h);
            if (regular === undefined || balance < regular) regular = balance;
            if (effective === undefined || balance + lease.in - lease.out < effective) effective = balance + lease.in - lease.out;
          }
          assert.equal(store.minBalance(address, from, to), regular, `regular, ${who} over ${from}..${to}`);
          assert.equal(store.minEffectiveBalance(address, from, to), effective, `effective, ${who} over ${from}..${to}`);
        }
        void store.close();
      }),
      { numRuns: 60 },
    );
  });

  it('drops undo entries a rollback can no longer reach', () => {
    const store = Store.open(tempDir(), p);
    for (let h = 1; h <= 6; h++) {
      const s = new MutableState(store);
      s.addBalance(ADDRS[0]!, null, 1n);
      store.commit({ height: h, blockBytes: Uint8Array.from([h]), blockIds: [], changes: s.changes(), pruneUndoAt: h - 3 });
    }
    assert.equal(store.oldestUndoHeight(), 4);
    store.rollbackTo(3);
    assert.equal(store.balance(ADDRS[0]!, null), 3n);
    void store.close();
  });

  it('indexes the holders of an asset in holder byte order, after a cursor, and undoes them with their height', () => {
    fc.assert(
      fc.property(fc.array(fc.array(opArb, { maxLength: 12 }), { minLength: 1, maxLength: 8 }), fc.nat(), (blocks, cut) => {
        const store = Store.open(tempDir(), p);
        blocks.forEach((ops, i) => apply(store, i + 1, ops));
        const target = cut % (blocks.length + 1);
        store.rollbackTo(target);
        // Holders: every address with an asset balance op (a zero delta writes no balance) in the kept blocks.
        const expected = [
          ...new Set(blocks.slice(0, target).flatMap((ops) => ops.flatMap((o) => (o.kind === 'balance' && o.asset && o.delta !== 0 ? [o.who] : [])))),
        ]
          .map((who) => ADDRS[who]!)
          .sort((a, b) => Buffer.compare(a, b));
        const holders = [...store.assetHolders(ASSET)];
        assert.deepEqual(holders, expected);
        for (let i = 0; i < expected.length; i++) assert.deepEqual([...store.assetHolders(ASSET, expected[i])], expected.slice(i + 1));
        assert.deepEqual([...store.assetHolders(new Uint8Array(32).fill(8))], []);
        void store.close();
      }),
      { numRuns: 30 },
    );
  });

  it('lists the asset balances of a holder, and the smallest regular balance over a window (0 before any balance)', () => {
    const store = Store.open(tempDir(), p);
    const other = new Uint8Array(32).fill(0xff);
    apply(store, 1, [{ kind: 'balance', who: 3, asset: false, delta: 5 }]);
    apply(store, 2, [{ kind: 'balance', who: 1, asset: false, delta: 100 }]);
    const s = new MutableState(store);
    s.addBalance(ADDRS[1]!, ASSET, 7n);
    s.addBalance(ADDRS[1]!, other, 9n);
    store.commit({ height: 3, blockBytes: Uint8Array.from([3]), blockIds: [], changes: s.changes() });
    apply(store, 4, [{ kind: 'balance', who: 1, asset: false, delta: -60 }]);
    apply(store, 5, [{ kind: 'balance', who: 1, asset: false, delta: 10 }]);
    assert.deepEqual(
      [...store.assetBalances(ADDRS[1]!)],
      [
        { assetId: ASSET, balance: 7n },
        { assetId: other, balance: 9n },
      ],
    );
    assert.deepEqual([...store.assetBalances(ADDRS[3]!)], []);
    assert.equal(store.minBalance(ADDRS[1]!, 1, 5), 0n, 'nothing at height 1');
    assert.equal(store.minBalance(ADDRS[1]!, 2, 5), 40n);
    assert.equal(store.minBalance(ADDRS[1]!, 2, 3), 100n);
    assert.equal(store.minBalance(ADDRS[1]!, 5, 5), 50n);
    assert.equal(store.minEffectiveBalance(ADDRS[1]!, 1, 3), 0n, 'nothing at height 1');
    assert.deepEqual([...store.assetHolders(other)], [ADDRS[1]]);
    void store.close();
  });

  it('indexes the asset holders of a store written before the index existed', async () => {
    const dir = tempDir();
    const store = Store.open(dir, p);
    apply(store, 1, [
      { kind: 'balance', who: 2, asset: true, delta: 3 },
      { kind: 'balance', who: 0, asset: true, delta: 4 },
    ]);
    const expected = [ADDRS[0]!, ADDRS[2]!].sort((a, b) => Buffer.compare(a, b));
    assert.deepEqual([...store.assetHolders(ASSET)], expected);
    await store.close();
    // The store as an older version left it: no index entries, no mark.
    const raw = open<Uint8Array, Uint8Array>({ path: dir, keyEncoding: 'binary', encoding: 'binary', compression: false });
    raw.transactionSync(() => {
      for (const key of raw.getKeys({ start: Uint8Array.from([F.ASSET_HOLDER]), end: Uint8Array.from([F.ASSET_HOLDER + 1]) })) void raw.remove(key);
      void raw.remove(Uint8Array.from([F.META, 4]));
    });
    await raw.close();
    const reopened = Store.open(dir, p);
    assert.deepEqual([...reopened.assetHolders(ASSET)], expected);
    await reopened.close();
  });

  it('lists the transactions of an address newest first, however they were grouped into commits, and forgets a rolled-back height', async () => {
    const keys = Array.from({ length: 4 }, (_, i) => p.crypto.keyPairFromSeedPhrase(`store test ${i}`));
    const recipientOf = new Map<Transaction, number>();
    const transfer = (from: number, to: number, n: number): Transaction => {
      const tx = p.sign(
        p.transaction(Transfer, 2, {
          senderPublicKey: keys[from]!.publicKey,
          assetId: null,
          feeAssetId: null,
          timestamp: 1_700_000_000_000n + BigInt(n),
          amount: 1n,
          fee: 1_000_000n,
          recipient: p.addresses.fromPublicKey(keys[to]!.publicKey),
          attachment: new Uint8Array(0),
          atomicBadge: undefined,
        }),
        keys[from]!.privateKey,
      );
      recipientOf.set(tx, to);
      return tx;
    };
    const [a, b, c, d] = [transfer(0, 1, 1), transfer(0, 2, 2), transfer(0, 1, 3), transfer(1, 1, 4)];
    /** Commits transactions at a height, each touching its sender and recipient. */
    const commit = (store: Store, height: number, txs: Transaction[]): void => {
      const s = new MutableState(store);
      for (const tx of txs) {
        s.addBalance(tx.sender!.bytes, null, -1n);
        s.addBalance(ADDRS[recipientOf.get(tx)!]!, null, 1n);
        s.addTransaction(tx);
      }
      store.commit({
        height,
        blockBytes: Uint8Array.from([height]),
        blockIds: [{ id: new Uint8Array(64).fill(height), transactionCount: txs.length }],
        changes: s.changes(),
      });
    };
    const ids = (store: Store, who: number): string[] => [...store.addressTransactionIds(ADDRS[who]!)].map((id) => Buffer.from(id).toString('hex'));
    const hex = (...txs: Transaction[]): string[] => txs.map((t) => Buffer.from(t.id).toString('hex'));
    // Micro-block by micro-block: two commits at height 2 (a liquid block growing).
    const dir = tempDir();
    const mined = Store.open(dir, p);
    commit(mined, 1, [a, b]);
    commit(mined, 2, [c]);
    commit(mined, 2, [d]);
    // Whole blocks: the same transactions, height 2 in one commit.
    const replayed = Store.open(tempDir(), p);
    commit(replayed, 1, [a, b]);
    commit(replayed, 2, [c, d]);
    for (const store of [mined, replayed]) {
      assert.deepEqual(ids(store, 0), hex(c, b, a));
      assert.deepEqual(ids(store, 1), hex(d, c, a), 'a transfer to oneself is listed once');
      assert.deepEqual(ids(store, 2), hex(b));
    }
    assert.equal(mined.stateHash(), replayed.stateHash());
    // Entries show the index one transaction per entry, the same for both.
    const index = (store: Store): string[] =>
      [...store.entries()]
        .filter(({ key }) => key[0] === F.ADDRESS_TX)
        .map(({ key, value }) => `${Buffer.from(key).toString('hex')}=${Buffer.from(value).toString('hex')}`);
    assert.equal(index(mined).length, 7);
    assert.deepEqual(index(mined), index(replayed));
    mined.rollbackTo(1);
    assert.deepEqual(ids(mined, 1), hex(a));
    assert.deepEqual(ids(mined, 0), hex(b, a));
    commit(mined, 2, [c, d]);
    assert.equal(mined.stateHash(), replayed.stateHash());
    await mined.close();
    await replayed.close();
    // A store written before commits were listed per address (one entry per transaction) is still read, its entries older than the lists.
    const raw = open<Uint8Array, Uint8Array>({ path: dir, keyEncoding: 'binary', encoding: 'binary', compression: false });
    const older = new Uint8Array(32).fill(9);
    const oldKey = Buffer.concat([Buffer.from([F.ADDRESS_TX, 0, ADDRS[0]!.length]), ADDRS[0]!, Buffer.from([0, 0, 0, 1, 0, 0, 0, 7])]);
    raw.transactionSync(() => void raw.put(oldKey, older));
    await raw.close();
    const reopened = Store.open(dir, p);
    assert.deepEqual(ids(reopened, 0), [...hex(c, b, a), Buffer.from(older).toString('hex')]);
    await reopened.close();
  });

  it('answers scripts, permissions, role holders and lease balances read before a commit anew after it, and after a rollback', () => {
    const store = Store.open(tempDir(), p);
    const a = ADDRS[0]!;
    const bytes = (b: Uint8Array | null): Uint8Array | null => (b === null ? null : Uint8Array.from(b));
    const read = (): unknown => ({
      script: bytes(store.accountScript(a)),
      ops: store.permissionOps(a),
      holders: store.roleHolders(3).map(bytes),
      lease: store.leaseBalance(a),
    });
    const before = read();
    // Read twice: the second answer comes from what the store keeps between writes.
    assert.deepEqual(read(), before);
    const s = new MutableState(store);
    s.putScript(a, Uint8Array.from([1, 2, 3]));
    s.addPermissionOp(a, { opType: 'add', role: 3, timestamp: 1n, dueTimestamp: null });
    s.addLeaseBalance(a, 5n, 2n);
    s.setCarryFee(1n);
    store.commit({ height: 1, blockBytes: Uint8Array.from([1]), blockIds: [{ id: new Uint8Array(64).fill(1), transactionCount: 0 }], changes: s.changes() });
    assert.deepEqual(read(), {
      script: Uint8Array.from([1, 2, 3]),
      ops: [{ opType: 'add', role: 3, timestamp: 1n, dueTimestamp: null }],
      holders: [a],
      lease: { in: 5n, out: 2n },
    });
    store.rollbackTo(0);
    assert.deepEqual(read(), before);
    void store.close();
  });

  it('refuses a store of another network', async () => {
    const dir = tempDir();
    await Store.open(dir, p).close();
    const other = await Protocol.create({ crypto: 'waves', chainId: 'V' });
    assert.throws(() => Store.open(dir, other), /another network/);
  });

  it('marks its layout version; a store without the mark (an older build’s) is marked, one marked by a newer build is refused naming both versions', async () => {
    const dir = tempDir();
    await Store.open(dir, p).close();
    const formatKey = Uint8Array.from([F.META, 6]);
    const mark = async (f: (raw: ReturnType<typeof open<Uint8Array, Uint8Array>>) => void): Promise<void> => {
      const raw = open<Uint8Array, Uint8Array>({ path: dir, keyEncoding: 'binary', encoding: 'binary', compression: false });
      raw.transactionSync(() => f(raw));
      await raw.close();
    };
    const u32 = (n: number): Uint8Array => Uint8Array.from([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
    let written: Uint8Array | undefined;
    await mark((raw) => void (written = Uint8Array.from(raw.get(formatKey) ?? [])));
    assert.deepEqual(written, u32(STORE_FORMAT), 'a new store carries the mark');
    // As an older build left it: no mark. Opened by this build, it is marked.
    await mark((raw) => void raw.remove(formatKey));
    await Store.open(dir, p).close();
    await mark((raw) => void (written = Uint8Array.from(raw.get(formatKey) ?? [])));
    assert.deepEqual(written, u32(STORE_FORMAT), 'an unmarked store is marked when opened');
    // Written by a newer build: refused, and left as it was.
    await mark((raw) => void raw.put(formatKey, u32(STORE_FORMAT + 1)));
    assert.throws(
      () => Store.open(dir, p),
      (e: unknown) => e instanceof StoreFormatError && e.message.includes(`format ${STORE_FORMAT + 1}`) && e.message.includes(`up to ${STORE_FORMAT}`),
    );
    await mark((raw) => void (written = Uint8Array.from(raw.get(formatKey) ?? [])));
    assert.deepEqual(written, u32(STORE_FORMAT + 1));
  });

  it('keeps contracts, their data and the 105 of each executed transaction, read through a pending layer and undone by a rollback', () => {
    const store = Store.open(tempDir(), p);
    const first = new MutableState(store, 1);
    first.putContract(contractInfo(1, 1, true));
    first.putContract(contractInfo(0, 1, true));
    first.putContractData(contractId(1), { key: 'ключ', type: 'string', value: 'v' });
    first.putContractData(contractId(1), { key: 'b', type: 'integer', value: 1n });
    first.putExecutedTxFor(new Uint8Array(32).fill(9), new Uint8Array(32).fill(10));
    // A pending layer reads its own writes before they reach the store.
    assert.deepEqual(first.contractIds(), [contractId(1), contractId(0)]);
    assert.deepEqual(first.contractKeys(contractId(1)), ['b', 'ключ']);
    store.commit({ height: 1, blockBytes: Uint8Array.from([1]), blockIds: [], changes: first.changes() });
    assert.deepEqual(store.contractIds(), [contractId(1), contractId(0)]);
    assert.deepEqual(store.contract(contractId(1)), contractInfo(1, 1, true));
    assert.deepEqual(store.contractKeys(contractId(1)), ['b', 'ключ']);
    assert.deepEqual(store.contractData(contractId(1), 'b'), { key: 'b', type: 'integer', value: 1n });
    assert.deepEqual(store.executedTxFor(new Uint8Array(32).fill(9)), new Uint8Array(32).fill(10));
    // Read before the next commit (the store keeps what it read until a write): not there yet.
    assert.equal(store.contract(contractId(2)), undefined);
    const second = new MutableState(store, 2);
    second.putContract(contractInfo(1, 2, false));
    second.putContract(contractInfo(2, 1, true));
    second.putContractData(contractId(1), { key: 'a', type: 'boolean', value: true });
    second.putContractData(contractId(1), { key: 'b', type: 'integer', value: 2n });
    assert.deepEqual(second.contractKeys(contractId(1)), ['a', 'b', 'ключ']);
    assert.deepEqual(second.contractIds(), [contractId(1), contractId(0), contractId(2)]);
    store.commit({ height: 2, blockBytes: Uint8Array.from([2]), blockIds: [], changes: second.changes() });
    assert.equal(store.contract(contractId(1))?.version, 2);
    assert.deepEqual(store.contract(contractId(2)), contractInfo(2, 1, true));
    assert.deepEqual(store.contractIds(), [contractId(1), contractId(0), contractId(2)]);
    assert.deepEqual(store.contractData(contractId(1), 'b'), { key: 'b', type: 'integer', value: 2n });
    store.rollbackTo(1);
    assert.deepEqual(store.contract(contractId(1)), contractInfo(1, 1, true));
    assert.equal(store.contract(contractId(2)), undefined);
    assert.deepEqual(store.contractIds(), [contractId(1), contractId(0)]);
    assert.deepEqual(store.contractKeys(contractId(1)), ['b', 'ключ']);
    assert.deepEqual(store.contractData(contractId(1), 'b'), { key: 'b', type: 'integer', value: 1n });
    store.rollbackTo(0);
    assert.deepEqual(store.contractIds(), []);
    assert.equal(store.executedTxFor(new Uint8Array(32).fill(9)), undefined);
    void store.close();
  });
});
