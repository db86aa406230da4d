import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Protocol } from '../../src/protocol/protocol.js';
import { Transfer } from '../../src/protocol/transactions/transfer.js';
import { Store } from '../../src/state/store.js';
import { MutableState } from '../../src/state/view.js';
import { ByAddress } from '../../src/state/by-address.js';
import { tempDir } from '../../devkit/tmp.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const addr = (i: number): Uint8Array => p.addresses.fromPublicKey(p.crypto.keyPairFromSeedPhrase(`view test ${i}`).publicKey).bytes;

describe('MutableState: balances by holder bytes', () => {
  it('finds a WEST balance through any copy of the holder bytes, in every layer, after a commit too', (t) => {
    const store = Store.open(tempDir(), p);
    t.after(() => store.close());
    const holder = addr(0);
    const block = new MutableState(store);
    block.addBalance(holder, null, 500n);
    // Equal bytes in another object (as each transaction carries its own sender and recipient bytes).
    assert.equal(block.balance(Uint8Array.from(holder), null), 500n);
    const tx = block.fork();
    tx.addBalance(Uint8Array.from(holder), null, -200n);
    assert.equal(tx.balance(holder, null), 300n);
    assert.equal(block.balance(holder, null), 500n);
    tx.mergeInto(block);
    assert.equal(block.balance(Uint8Array.from(holder), null), 300n);
    // Another holder's bytes object keyed first must not answer for this one.
    const other = addr(1);
    assert.equal(block.balance(other, null), 0n);
    block.addBalance(other, null, 7n);
    assert.equal(block.balance(holder, null), 300n);
    assert.equal(block.changes().balances.size, 2);
    store.commit({
      height: 1,
      blockBytes: Uint8Array.from([1]),
      blockIds: [{ id: new Uint8Array(64).fill(1), transactionCount: 0 }],
      changes: block.changes(),
    });
    const next = new MutableState(store);
    assert.equal(next.balance(Uint8Array.from(holder), null), 300n);
    assert.equal(next.balance(other, null), 7n);
  });

  it('records each transaction with the addresses it touched, once each, in first-touch order', (t) => {
    const store = Store.open(tempDir(), p);
    t.after(() => store.close());
    const many = Array.from({ length: 40 }, (_, i) => addr(i));
    const block = new MutableState(store);
    const tx = block.fork();
    tx.addBalance(many[2]!, null, 0n);
    tx.touch(Uint8Array.from(many[1]!));
    tx.touch(many[2]!);
    // Past the scanned entries the index takes over: repeats still count once.
    for (const a of many) tx.touch(Uint8Array.from(a));
    tx.touch(many[39]!);
    assert.deepEqual(tx.touchedAddresses(), [many[2]!, many[1]!, ...many.filter((_, i) => i !== 1 && i !== 2)]);
    const keys = p.crypto.keyPairFromSeedPhrase('view test sender');
    const transfer = p.sign(
      p.transaction(Transfer, 2, {
        senderPublicKey: keys.publicKey,
        assetId: null,
        feeAssetId: null,
        timestamp: 1n,
        amount: 1n,
        fee: 1n,
        recipient: p.addresses.addressFromBytes(many[0]!),
        attachment: new Uint8Array(0),
      }),
      keys.privateKey,
    );
    tx.addTransaction(transfer);
    tx.touch(many[5]!);
    assert.deepEqual(tx.touchedAddresses(), [many[5]!], 'a new transaction starts its own list');
    assert.equal(tx.changes().transactions[0]!.addresses.length, 40);
  });
});

describe('ByAddress', () => {
  it('keeps one value per address bytes, first set wins, whether scanned or indexed', () => {
    for (const count of [3, 16, 17, 50]) {
      const list = new ByAddress<number>();
      const addresses = Array.from({ length: count }, (_, i) => addr(i));
      addresses.forEach((a, i) => list.setIfAbsent(a, i));
      addresses.forEach((a, i) => list.setIfAbsent(Uint8Array.from(a), i + 1000));
      assert.equal(list.size, count);
      assert.deepEqual(
        list.values(),
        addresses.map((_, i) => i),
      );
      addresses.forEach((a, i) => assert.equal(list.get(Uint8Array.from(a)), i));
      assert.equal(list.get(addr(count)), undefined);
      assert.equal(
        list.getOrAdd(addr(count), () => -1),
        -1,
      );
      assert.equal(list.get(Uint8Array.from(addr(count))), -1);
    }
  });
});
