import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_FEES } from '../../src/chain/settings.js';
import { encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import { E } from '../../src/ride/expr.js';
import { scriptBytes } from '../../src/ride/script.js';
import { alice, assertRejected, bob, carol, p, root, scf, TestChain, WEST, type Account } from '../../devkit/chain/validation-fixture.js';

const TRUE_SCRIPT = `base64:${encodeBase64(scriptBytes(1, E.TRUE, p))}`;

const transfer = (c: TestChain, from: Account, to: string, amount: bigint, over: Record<string, unknown> = {}) =>
  c.tx(from, { type: 4, version: 3, recipient: to, amount, fee: 1_000_000n, attachment: '', ...over });

function issue(c: TestChain, name = 'Token', quantity = 1_000_000n): Uint8Array {
  const tx = c.tx(root, { type: 3, version: 2, name, description: 'd', quantity, decimals: 2, reissuable: true, fee: WEST });
  c.apply(tx);
  return tx.id;
}

describe('Transfer applier', () => {
  it('moves WEST and takes the fee from the sender', () => {
    const c = TestChain.open();
    const result = c.apply(transfer(c, alice, bob.b58, 10n * WEST));
    assert.equal(c.west(alice), 1_000n * WEST - 10n * WEST - 1_000_000n);
    assert.equal(c.west(bob), 20n * WEST);
    assert.deepEqual(result, { fee: 1_000_000n });
  });

  it('pays an alias recipient', () => {
    const c = TestChain.open();
    c.apply(c.tx(bob, { type: 10, version: 2, alias: 'bobby', fee: WEST }));
    c.apply(transfer(c, alice, 'alias:T:bobby', 3n * WEST));
    assert.equal(c.west(bob), 10n * WEST - WEST + 3n * WEST);
  });

  it('refuses an unknown alias', () => {
    const c = TestChain.open();
    assertRejected(c.reject(transfer(c, alice, 'alias:T:nobody', 1n)), 112, scf("alias 'alias:T:nobody' doesn't exist"));
  });

  it('moves an asset, fee in WEST', () => {
    const c = TestChain.open();
    const asset = issue(c);
    c.apply(transfer(c, root, alice.b58, 500n, { assetId: encodeBase58(asset) }));
    assert.equal(c.assetBalance(root, asset), 1_000_000n - 500n);
    assert.equal(c.assetBalance(alice, asset), 500n);
    assert.equal(c.west(root), 1_000_000n * WEST - WEST - 1_000_000n);
  });

  it('checks the sender can cover amount and fee before anything else (WE wording)', () => {
    const c = TestChain.open();
    assertRejected(
      c.reject(transfer(c, bob, alice.b58, 10n * WEST)),
      112,
      scf(
        'Attempt to transfer unavailable funds: Transaction application leads to negative WEST balance to (at least) temporary negative state, ' +
          `current balance equals ${10n * WEST}, spends equals -${10n * WEST + 1_000_000n}, result is -1000000`,
      ),
    );
    const asset = issue(c);
    const id = encodeBase58(asset);
    assertRejected(
      c.reject(transfer(c, alice, bob.b58, 5n, { assetId: id })),
      112,
      scf(
        `Attempt to transfer unavailable funds: Transaction application leads to negative asset '${id}' balance to (at least) temporary negative state, ` +
          'current balance is 0, spends equals -5, result is -5',
      ),
    );
  });

  it('cannot spend WEST leased out (BalanceDiffValidation)', () => {
    const c = TestChain.open();
    c.apply(c.tx(alice, { type: 8, version: 2, recipient: bob.b58, amount: 900n * WEST, fee: 1_000_000n }));
    const before = c.west(alice);
    assertRejected(
      c.reject(transfer(c, alice, bob.b58, 150n * WEST)),
      112,
      scf(
        `Account errors: ${alice.b58} -> address '${alice.b58}' balance validation errors: [[cannot spend leased balance]: ` +
          `old(west balance, lease balance): (${before},LeaseBalance(in = 0, out = ${900n * WEST})), ` +
          `new: (${before - 150n * WEST - 1_000_000n},LeaseBalance(in = 0, out = ${900n * WEST}))]`,
      ),
    );
    c.apply(transfer(c, alice, bob.b58, 90n * WEST));
    assert.equal(c.west(alice), before - 90n * WEST - 1_000_000n);
  });

  it('pays a fee in a sponsored asset: the issuer gets the asset and pays the WEST', () => {
    const c = TestChain.open();
    const asset = issue(c, 'Token', 100_000_000n);
    const id = encodeBase58(asset);
    c.apply(c.tx(root, { type: 14, version: 1, assetId: id, isEnabled: true, fee: WEST }));
    c.apply(transfer(c, root, alice.b58, 10_000_000n, { assetId: id }));
    const rootWest = c.west(root);
    const result = c.apply(transfer(c, alice, bob.b58, WEST, { feeAssetId: id }));
    assert.deepEqual(result, { fee: 1_000_000n });
    assert.equal(c.assetBalance(alice, asset), 10_000_000n - 1_000_000n);
    assert.equal(c.west(alice), 1_000n * WEST - WEST);
    assert.equal(c.assetBalance(root, asset), 100_000_000n - 10_000_000n + 1_000_000n);
    assert.equal(c.west(root), rootWest - 1_000_000n);
  });

  it('refuses a smart asset as fee and an unissued fee asset (fees off, so the balance and fee checks pass)', () => {
    const off = TestChain.open({ fees: { ...DEFAULT_FEES, enabled: false } });
    const missing = encodeBase58(new Uint8Array(32).fill(9));
    assertRejected(off.reject(transfer(off, alice, bob.b58, 1n, { feeAssetId: missing, fee: 0n })), 112, scf('Unissued fee asset id are not allowed'));
    const smart = off.tx(root, {
      type: 3,
      version: 2,
      name: 'Smart',
      description: '',
      quantity: 100n,
      decimals: 0,
      reissuable: false,
      fee: 0n,
      script: TRUE_SCRIPT,
    });
    off.apply(smart);
    assertRejected(
      off.reject(transfer(off, root, bob.b58, 1n, { feeAssetId: smart.idBase58, fee: 0n })),
      112,
      scf("Smart assets can't participate in TransferTransactions as a fee"),
    );
  });
});

describe('MassTransfer applier', () => {
  const mass = (c: TestChain, from: Account, transfers: Array<[string, bigint]>, over: Record<string, unknown> = {}) =>
    c.tx(from, {
      type: 11,
      version: 2,
      transfers: transfers.map(([recipient, amount]) => ({ recipient, amount })),
      fee: 5_000_000n + BigInt(Math.floor((transfers.length + 1) / 2)) * 1_000_000n,
      attachment: '',
      ...over,
    });

  it('pays every recipient and charges base + additional per two transfers', () => {
    const c = TestChain.open();
    c.apply(
      mass(c, alice, [
        [bob.b58, 1n * WEST],
        [carol.b58, 2n * WEST],
        [bob.b58, 3n],
      ]),
    );
    assert.equal(c.west(alice), 1_000n * WEST - 3n * WEST - 3n - 7_000_000n);
    assert.equal(c.west(bob), 11n * WEST + 3n);
    assert.equal(c.west(carol), 102n * WEST);
  });

  it('refuses an unknown alias, then a nonexistent asset', () => {
    const c = TestChain.open();
    assertRejected(
      c.reject(
        mass(c, alice, [
          [bob.b58, 1n],
          ['alias:T:ghost', 1n],
        ]),
      ),
      112,
      scf("alias 'alias:T:ghost' doesn't exist"),
    );
    const off = TestChain.open({ fees: { ...DEFAULT_FEES, enabled: false } });
    const missing = encodeBase58(new Uint8Array(32).fill(4));
    assertRejected(off.reject(mass(off, alice, [], { assetId: missing, fee: 0n })), 112, scf('Attempt to transfer a nonexistent asset'));
  });

  it('refuses spending more than the balance', () => {
    const c = TestChain.open();
    assertRejected(
      c.reject(
        mass(c, bob, [
          [alice.b58, 5n * WEST],
          [carol.b58, 5n * WEST],
        ]),
      ),
      112,
      /^State check failed\. Reason: Attempt to transfer unavailable funds: .*negative WEST balance/,
    );
  });
});

describe('Transfers keep WEST constant', () => {
  it('random transfer sequences never create, destroy or overdraw WEST', () => {
    const people = [alice, bob, carol];
    fc.assert(
      fc.property(
        fc.array(fc.record({ from: fc.nat(2), to: fc.nat(2), amount: fc.bigInt({ min: 1n, max: 400n * WEST }) }), { minLength: 1, maxLength: 12 }),
        (steps) => {
          const c = TestChain.open();
          const total = () => [root, ...people].reduce((s, a) => s + c.west(a), 0n);
          const start = total();
          let accepted = 0;
          for (const s of steps) {
            const tx = transfer(c, people[s.from]!, people[s.to]!.b58, s.amount);
            const before = c.west(people[s.from]!);
            try {
              c.apply(tx);
              accepted++;
            } catch (e) {
              assert.ok(before < s.amount + 1_000_000n || s.from === s.to, `refused a covered transfer: ${String(e)}`);
            }
            for (const a of people) assert.ok(c.west(a) >= 0n);
          }
          // Fees leave the accounts (the chain engine credits them to miners).
          assert.equal(total(), start - BigInt(accepted) * 1_000_000n);
          void c.close();
        },
      ),
      { numRuns: 15 },
    );
  });
});
