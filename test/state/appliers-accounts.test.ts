import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import { E, type Expr } from '../../src/ride/expr.js';
import { scriptBytes } from '../../src/ride/script.js';
import { availableBalance, effectiveBalance } from '../../src/state/appliers/index.js';
import { MutableState } from '../../src/state/view.js';
import { alice, allFeaturesAt, assertRejected, bob, carol, p, root, scf, TestChain, WEST, type Account } from '../../devkit/chain/validation-fixture.js';

const script = (expr: Expr): string => `base64:${encodeBase64(scriptBytes(1, expr, p))}`;

describe('Lease and LeaseCancel appliers', () => {
  const lease = (c: TestChain, from: Account, to: string, amount: bigint) => c.tx(from, { type: 8, version: 2, recipient: to, amount, fee: 1_000_000n });
  const cancel = (c: TestChain, from: Account, leaseId: Uint8Array) =>
    c.tx(from, { type: 9, version: 2, chainId: p.chainId, leaseId: encodeBase58(leaseId), fee: 1_000_000n });

  it('moves lease-in/out, not WEST; available and effective follow; cancel restores them', () => {
    const c = TestChain.open();
    const tx = lease(c, alice, bob.b58, 100n * WEST);
    const height = c.nextHeight;
    c.apply(tx);
    assert.deepEqual(c.store.leaseBalance(alice.bytes), { in: 0n, out: 100n * WEST });
    assert.deepEqual(c.store.leaseBalance(bob.bytes), { in: 100n * WEST, out: 0n });
    assert.equal(c.west(alice), 1_000n * WEST - 1_000_000n);
    assert.equal(availableBalance(c.store, alice.bytes), 900n * WEST - 1_000_000n);
    assert.equal(effectiveBalance(c.store, alice.bytes), 900n * WEST - 1_000_000n);
    assert.equal(effectiveBalance(c.store, bob.bytes), 110n * WEST);
    const details = c.store.lease(tx.id);
    assert.equal(details?.active, true);
    assert.equal(details?.amount, 100n * WEST);
    assert.equal(details?.height, height);
    assert.deepEqual(Uint8Array.from(details.recipient), bob.bytes);

    assertRejected(c.reject(cancel(c, bob, tx.id)), 112, scf('LeaseTransaction was leased by other sender'));
    c.apply(cancel(c, alice, tx.id));
    assert.deepEqual(c.store.leaseBalance(alice.bytes), { in: 0n, out: 0n });
    assert.deepEqual(c.store.leaseBalance(bob.bytes), { in: 0n, out: 0n });
    assert.equal(c.store.lease(tx.id)?.active, false);
    assert.equal(c.west(alice), 1_000n * WEST - 2_000_000n);
    assertRejected(c.reject(cancel(c, alice, tx.id)), 112, scf('Cannot cancel already cancelled lease'));
    assertRejected(c.reject(cancel(c, alice, new Uint8Array(32).fill(3))), 112, scf('Related LeaseTransaction not found'));
  });

  it('resolves an alias lessee; refuses self-leases and leasing more than own', () => {
    const c = TestChain.open();
    c.apply(c.tx(bob, { type: 10, version: 2, alias: 'lessee', fee: WEST }));
    c.apply(lease(c, alice, 'alias:T:lessee', 600n * WEST));
    assert.equal(c.store.leaseBalance(bob.bytes).in, 600n * WEST);
    assertRejected(c.reject(lease(c, alice, alice.b58, 1n)), 112, scf(`Cannot lease to self. Sender address ${alice.b58} equals to recipient address`));
    const balance = c.west(alice);
    assertRejected(
      c.reject(lease(c, alice, carol.b58, 400n * WEST)),
      112,
      scf(`Cannot lease more than own: Balance:${balance}, already leased: ${600n * WEST}`),
    );
    assertRejected(c.reject(lease(c, alice, 'alias:T:nobody', 1n)), 112, scf("alias 'alias:T:nobody' doesn't exist"));
  });
});

describe('CreateAlias applier', () => {
  const alias = (c: TestChain, from: Account, name: string, version = 2) => c.tx(from, { type: 10, version, alias: name, fee: WEST });

  it('claims an alias for the sender', () => {
    const c = TestChain.open();
    c.apply(alias(c, alice, 'alice'));
    assert.deepEqual(Uint8Array.from(c.store.aliasOwner('alice') ?? []), alice.bytes);
    assert.deepEqual(c.store.aliasesOf(alice.bytes), ['alice']);
    assert.equal(c.west(alice), 999n * WEST);
  });

  it('allows one alias per address; a claimed alias is an id already in the state', () => {
    const c = TestChain.open();
    const first = alias(c, alice, 'alice');
    const height = c.nextHeight;
    c.apply(first);
    assertRejected(c.reject(alias(c, alice, 'other')), 112, scf('Only one alias per address is allowed'));
    const again = alias(c, bob, 'alice', 3);
    assert.equal(again.idBase58, first.idBase58);
    assertRejected(c.reject(again), 112, scf(`Transaction ${first.idBase58} is already in the state on a height of ${height}`));
  });

  it('refuses an alias claimed by other means', () => {
    const c = TestChain.open();
    const s = new MutableState(c.store);
    s.putAlias('taken', carol.bytes);
    c.commit(c.nextHeight, s);
    assertRejected(c.reject(alias(c, alice, 'taken')), 112, scf('Alias already claimed'));
  });
});

describe('Data applier', () => {
  it('writes the entries to the sender and charges the author by size', () => {
    const c = TestChain.open();
    const big = 'x'.repeat(2500);
    const tx = c.tx(alice, {
      type: 12,
      version: 1,
      authorPublicKey: encodeBase58(bob.publicKey),
      data: [
        { key: 'n', type: 'integer', value: -5 },
        { key: 's', type: 'string', value: big },
      ],
      fee: 5_000_000n + 2n * 1_000_000n,
    });
    assert.ok(tx.bodyBytes.length > 2049 && tx.bodyBytes.length < 3073);
    c.apply(tx);
    assert.deepEqual(c.store.dataEntry(alice.bytes, 'n'), { key: 'n', type: 'integer', value: -5n });
    assert.equal((c.store.dataEntry(alice.bytes, 's') as { value: string }).value, big);
    assert.equal(c.store.dataEntry(bob.bytes, 'n'), undefined);
    assert.equal(c.west(bob), 10n * WEST - 7_000_000n);
    assert.equal(c.west(alice), 1_000n * WEST);
  });

  it('overwrites a key', () => {
    const c = TestChain.open();
    const data = (value: boolean) =>
      c.tx(alice, { type: 12, version: 2, authorPublicKey: encodeBase58(alice.publicKey), data: [{ key: 'k', type: 'boolean', value }], fee: 5_000_000n });
    c.apply(data(true));
    c.apply(data(false));
    assert.deepEqual(c.store.dataEntry(alice.bytes, 'k'), { key: 'k', type: 'boolean', value: false });
  });
});

describe('SetScript applier', () => {
  const setScript = (c: TestChain, from: Account, s: string | null) =>
    c.tx(from, { type: 13, version: 1, script: s, name: 'account', description: '', fee: 50_000_000n });

  it("stores the script; the account's transactions are then verified by it instead of the signature", () => {
    const c = TestChain.open();
    const s = script(E.TRUE);
    c.apply(setScript(c, alice, s));
    assert.equal(encodeBase64(c.store.accountScript(alice.bytes) ?? new Uint8Array()), s.slice('base64:'.length));
    assert.equal(c.west(alice), 1_000n * WEST - 50_000_000n);
    // A TRUE script lets through what bob signed on alice's behalf.
    const signedByBob = p.sign(c.tx(alice, { type: 4, version: 2, recipient: bob.b58, amount: 1n, fee: 1_000_000n, attachment: '' }), bob.keyPair.privateKey);
    c.apply(signedByBob);
    assert.equal(c.west(alice), 1_000n * WEST - 50_000_000n - 1_000_001n);
    // A FALSE script refuses even what alice signed herself (307 with the script's text).
    c.apply(setScript(c, alice, script(E.FALSE)));
    const refused = c.reject(c.tx(alice, { type: 4, version: 2, recipient: bob.b58, amount: 1n, fee: 1_000_000n, attachment: '' }));
    assertRejected(refused, 307, 'Transaction is not allowed by account-script', false);
    assert.equal(refused.extra?.['script'], 'FALSE');
  });

  it('refuses accounts holding a role other than contract_developer', () => {
    const c = TestChain.open();
    assertRejected(
      c.reject(setScript(c, root, script(E.TRUE))),
      112,
      scf('Script cannot be assigned to an account with a role other than contract_developer!'),
    );
  });

  it('denies duplicate let names in V1 scripts before Smart Account Trading', () => {
    const features = allFeaturesAt(0);
    features.delete(10);
    const c = TestChain.open({ features });
    const dup = script(E.block('x', E.TRUE, E.block('x', E.TRUE, E.ref('x'))));
    assertRejected(c.reject(setScript(c, alice, dup)), 112, scf("VarNames: duplicate variable names are temporarily denied: 'x'"));
    const shadowsPredefined = script(E.block('height', E.TRUE, E.ref('height')));
    assertRejected(c.reject(setScript(c, alice, shadowsPredefined)), 112, scf("VarNames: duplicate variable names are temporarily denied: 'height'"));
    c.apply(setScript(c, alice, script(E.block('$x', E.TRUE, E.block('y', E.TRUE, E.ref('y'))))));
    const later = TestChain.open();
    later.apply(setScript(later, alice, dup));
  });
});
