import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { applyTransaction } from '../../src/chain/validation.js';
import { MutableState } from '../../src/state/view.js';
import { alice, allFeaturesAt, assertRejected, bob, carol, dave, root, scf, TestChain, WEST, type Account } from '../../devkit/chain/validation-fixture.js';

const createPolicy = (c: TestChain, by: Account, owners: Account[], recipients: Account[], over: Record<string, unknown> = {}) =>
  c.tx(by, {
    type: 112,
    version: 2,
    policyName: 'policy',
    description: 'd',
    owners: owners.map((a) => a.b58),
    recipients: recipients.map((a) => a.b58),
    fee: WEST,
    ...over,
  });

const updatePolicy = (c: TestChain, by: Account, policyId: Uint8Array, opType: string, owners: Account[], recipients: Account[]) =>
  c.tx(by, {
    type: 113,
    version: 1,
    policyId: encodeBase58(policyId),
    opType,
    owners: owners.map((a) => a.b58),
    recipients: recipients.map((a) => a.b58),
    fee: 50_000_000n,
  });

const dataHash = (c: TestChain, by: Account, policyId: Uint8Array, hash: Uint8Array) =>
  c.tx(by, { type: 114, version: 3, policyId: encodeBase58(policyId), dataHash: encodeBase58(hash), fee: 5_000_000n });

const b58s = (list: readonly Uint8Array[]): string[] => list.map((a) => encodeBase58(a));

describe('CreatePolicy applier', () => {
  it('stores owners and recipients under the transaction id', () => {
    const c = TestChain.open();
    const tx = createPolicy(c, alice, [alice], [root, carol]);
    c.apply(tx);
    const policy = c.store.policy(tx.id);
    assert.deepEqual(b58s(policy?.owners ?? []), [alice.b58]);
    assert.deepEqual(b58s(policy?.recipients ?? []), [root.b58, carol.b58]);
    assert.equal(c.west(alice), 999n * WEST);
  });

  it('refuses no owners, a sender outside the owners and unregistered recipients', () => {
    const c = TestChain.open();
    assertRejected(c.reject(createPolicy(c, alice, [], [root])), 112, scf('Policy without owners is invalid'));
    assertRejected(c.reject(createPolicy(c, alice, [bob], [root])), 112, scf(`Sender '${alice.b58}' is not owner for policy`));
    assertRejected(
      c.reject(createPolicy(c, alice, [alice], [root, bob, alice])),
      112,
      scf(`Recipients [${bob.b58}; ${alice.b58}] is not registered in network`),
    );
  });
});

describe('UpdatePolicy applier', () => {
  it('adds and removes members', () => {
    const c = TestChain.open();
    const tx = createPolicy(c, alice, [alice], [root]);
    c.apply(tx);
    c.apply(updatePolicy(c, alice, tx.id, 'add', [bob], [carol, dave]));
    assert.deepEqual(b58s(c.store.policy(tx.id)?.owners ?? []), [alice.b58, bob.b58]);
    assert.deepEqual(b58s(c.store.policy(tx.id)?.recipients ?? []), [root.b58, carol.b58, dave.b58]);
    c.apply(updatePolicy(c, bob, tx.id, 'remove', [alice], [root]));
    assert.deepEqual(b58s(c.store.policy(tx.id)?.owners ?? []), [bob.b58]);
    assert.deepEqual(b58s(c.store.policy(tx.id)?.recipients ?? []), [carol.b58, dave.b58]);
  });

  it('refuses with WE messages, in WE order', () => {
    const c = TestChain.open();
    const tx = createPolicy(c, alice, [alice], [root]);
    c.apply(tx);
    const id = tx.id;
    assertRejected(c.reject(updatePolicy(c, alice, id, 'add', [], [])), 112, scf('Invalid UpdatePolicyTransaction: empty owners and recipients'));
    const unknown = new Uint8Array(32).fill(5);
    assertRejected(c.reject(updatePolicy(c, alice, unknown, 'add', [bob], [])), 612, `The requested policy ${encodeBase58(unknown)} does not exist`, false);
    assertRejected(c.reject(updatePolicy(c, alice, id, 'add', [], [bob])), 112, scf(`Unaccepted recipients in policy update: [${bob.b58}]`));
    assertRejected(
      c.reject(updatePolicy(c, root, id, 'add', [], [carol])),
      112,
      scf(`Sender '${root.b58}' is not owner for policy with id '${encodeBase58(id)}'`),
    );
    assertRejected(c.reject(updatePolicy(c, alice, id, 'remove', [alice], [])), 112, scf('Forbidden to remove all policy owners'));
    assertRejected(c.reject(updatePolicy(c, alice, id, 'add', [alice], [])), 112, scf('Cannot add owners or recipients that are already in the policy'));
    assertRejected(c.reject(updatePolicy(c, alice, id, 'remove', [], [carol])), 112, scf('Cannot remove owners or recipients that are absent from the policy'));
  });
});

describe('PolicyDataHash applier', () => {
  it('records a hash once, from a recipient', () => {
    const c = TestChain.open();
    const tx = createPolicy(c, alice, [alice], [root]);
    c.apply(tx);
    const hash = new Uint8Array(32).fill(7);
    c.apply(dataHash(c, root, tx.id, hash));
    assert.equal(c.store.hasPolicyDataHash(tx.id, hash), true);
    assertRejected(c.reject(dataHash(c, root, tx.id, hash)), 615, `The specified dataset with hash ${encodeBase58(hash)} was added earlier`, false);
    assertRejected(c.reject(dataHash(c, alice, tx.id, new Uint8Array(32).fill(8))), 199, `Sender '${alice.b58}' is not in policy recipients`, false);
    const unknown = new Uint8Array(32).fill(6);
    assertRejected(c.reject(dataHash(c, root, unknown, hash)), 612, `The requested policy ${encodeBase58(unknown)} does not exist`, false);
  });

  it('lists the hashes of a policy with the transactions that anchored them, pending layers and rollbacks included', () => {
    const c = TestChain.open();
    const policy = createPolicy(c, alice, [alice], [root]);
    const other = createPolicy(c, alice, [alice], [root]);
    c.apply(policy);
    c.apply(other);
    const first = dataHash(c, root, policy.id, new Uint8Array(32).fill(1));
    c.apply(first);
    c.apply(dataHash(c, root, other.id, new Uint8Array(32).fill(9)));
    const height = c.store.height();
    const second = dataHash(c, root, policy.id, new Uint8Array(32).fill(2));
    c.apply(second);
    const listed = (view: { policyDataHashes(id: Uint8Array): readonly { hash: Uint8Array; txId: Uint8Array }[] }, id: Uint8Array): string[] =>
      view
        .policyDataHashes(id)
        .map((e) => `${encodeBase58(e.hash)}:${encodeBase58(e.txId)}`)
        .sort();
    const entry = (fill: number, tx: typeof first): string => `${encodeBase58(new Uint8Array(32).fill(fill))}:${tx.idBase58}`;
    assert.deepEqual(listed(c.store, policy.id), [entry(1, first), entry(2, second)].sort());
    // A layer over the store (as the liquid block is) adds its own.
    const layer = new MutableState(c.store);
    const third = dataHash(c, root, policy.id, new Uint8Array(32).fill(3));
    applyTransaction(layer, third, c.ctx());
    assert.deepEqual(listed(layer, policy.id), [entry(1, first), entry(2, second), entry(3, third)].sort());
    assert.equal(listed(layer, other.id).length, 1);
    assert.deepEqual(listed(c.store, new Uint8Array(32)), []);
    c.store.rollbackTo(height);
    assert.deepEqual(listed(c.store, policy.id), [entry(1, first)]);
  });

  it('lets any sender record a hash before atomic transactions exist', () => {
    const features = allFeaturesAt(0);
    features.delete(140);
    const c = TestChain.open({ features });
    const tx = createPolicy(c, alice, [alice], [root], { version: 1 });
    c.apply(tx);
    const hash = new Uint8Array(32).fill(1);
    c.apply(c.tx(bob, { type: 114, version: 2, policyId: tx.idBase58, dataHash: encodeBase58(hash), fee: 5_000_000n }));
    assert.equal(c.store.hasPolicyDataHash(tx.id, hash), true);
    const h = c.tx(bob, { type: 114, version: 3, policyId: tx.idBase58, dataHash: encodeBase58(new Uint8Array(32).fill(2)), fee: 5_000_000n });
    // V3 needs feature 140: ActivationError comes first.
    assertRejected(
      c.reject(h),
      112,
      scf(
        "ActivationError(Blockchain feature 'Support of atomic transaction' (id: '140') has not been activated yet, but is required for PolicyDataHashTransactionV3)",
      ),
    );
  });
});
