import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import { genesisPermitTransaction, genesisTransaction } from '../../src/protocol/transactions/genesis.js';
import { E } from '../../src/ride/expr.js';
import { scriptBytes } from '../../src/ride/script.js';
import { ROLES } from '../../src/protocol/transactions/permissions.js';
import { activeRoles, roleHoldersAt } from '../../src/state/permissions.js';
import {
  alice,
  allFeaturesAt,
  assertRejected,
  blockTime,
  bob,
  carol,
  dave,
  eve,
  GENESIS_TS,
  p,
  root,
  scf,
  TestChain,
  WEST,
  type Account,
} from '../../devkit/chain/validation-fixture.js';

const permitJson = (target: Account, opType: string, role: string, over: Record<string, unknown> = {}) => ({
  type: 102,
  version: 1,
  target: target.b58,
  opType,
  role,
  fee: 1_000_000n,
  ...over,
});

const rolesNow = (c: TestChain, a: Account): number[] => activeRoles(c.store.permissionOps(a.bytes), blockTime(c.nextHeight));

describe('Permit applier', () => {
  it('grants and revokes roles with the transaction timestamp; the permissioner pays', () => {
    const c = TestChain.open();
    const grant = c.tx(root, permitJson(alice, 'add', 'issuer'));
    c.apply(grant);
    assert.deepEqual(c.store.permissionOps(alice.bytes), [{ opType: 'add', role: ROLES.issuer, timestamp: grant.timestamp, dueTimestamp: null }]);
    assert.deepEqual(rolesNow(c, alice), [ROLES.issuer]);
    assert.equal(c.west(root), 1_000_000n * WEST - 1_000_000n);
    c.apply(c.tx(alice, { type: 3, version: 2, name: 'Mine', description: '', quantity: 5n, decimals: 0, reissuable: false, fee: WEST }));
    c.apply(c.tx(root, permitJson(alice, 'remove', 'issuer')));
    assert.deepEqual(rolesNow(c, alice), []);
  });

  it('refuses duplicates, expired grants, due dates on removal and removing an inactive role', () => {
    const c = TestChain.open();
    c.apply(c.tx(root, permitJson(alice, 'add', 'issuer')));
    assertRejected(c.reject(c.tx(root, permitJson(alice, 'add', 'issuer'))), 112, scf('Cannot assign role that is already active'));
    // A grant with a due date is allowed over an active one.
    c.apply(c.tx(root, permitJson(alice, 'add', 'issuer', { dueTimestamp: blockTime(c.nextHeight) + 60_000n })));
    assertRejected(
      c.reject(c.tx(root, permitJson(bob, 'add', 'issuer', { dueTimestamp: blockTime(c.nextHeight) }))),
      112,
      scf('Cannot add permission transaction that is already expired'),
    );
    assertRejected(
      c.reject(c.tx(root, permitJson(alice, 'remove', 'issuer', { dueTimestamp: blockTime(c.nextHeight) + 60_000n }))),
      112,
      scf('Due date should not be defined for PermitTransaction with OpType Remove'),
    );
    assertRejected(c.reject(c.tx(root, permitJson(bob, 'remove', 'dex'))), 112, scf('Cannot remove role that is already inactive'));
  });

  it('lets a due date expire the role', () => {
    const c = TestChain.open();
    const due = blockTime(c.nextHeight + 2);
    c.apply(c.tx(root, permitJson(alice, 'add', 'dex', { dueTimestamp: due })));
    assert.deepEqual(activeRoles(c.store.permissionOps(alice.bytes), due - 1n), [ROLES.dex]);
    assert.deepEqual(activeRoles(c.store.permissionOps(alice.bytes), due), []);
  });

  it('needs permissioner, or blacklister for banned; a banned sender can send nothing', () => {
    const c = TestChain.open();
    assertRejected(
      c.reject(c.tx(alice, permitJson(bob, 'add', 'issuer'))),
      112,
      scf(`PermissionError(Sender ${alice.b58} permission validation failed: Has no active 'permissioner' role)`),
    );
    assertRejected(
      c.reject(c.tx(alice, permitJson(bob, 'add', 'banned'))),
      112,
      scf(`PermissionError(Sender ${alice.b58} permission validation failed: Doesn't have any of required roles: permissioner, blacklister)`),
    );
    c.apply(c.tx(root, permitJson(bob, 'add', 'blacklister')));
    c.apply(c.tx(bob, permitJson(alice, 'add', 'banned')));
    assertRejected(
      c.reject(c.tx(alice, { type: 4, version: 2, recipient: bob.b58, amount: 1n, fee: 1_000_000n, attachment: '' })),
      112,
      scf(`PermissionError(Sender ${alice.b58} permission validation failed: Sender is 'banned')`),
    );
  });

  it('keeps a holder of every non-empty role (117 with the transaction)', () => {
    const c = TestChain.open();
    c.apply(c.tx(root, permitJson(root, 'remove', 'connection_manager')));
    const last = c.tx(root, permitJson(carol, 'remove', 'connection_manager'));
    const e = c.reject(last);
    assertRejected(e, 117, `Trying to revoke role 'connection_manager' from it's last owner: '${carol.b58}'`);
    assert.equal((e.extra?.['tx'] as { id: string }).id, last.idBase58);
    // Banning the last connection manager is revoking it too.
    assertRejected(
      c.reject(c.tx(root, permitJson(carol, 'add', 'banned'))),
      117,
      `Trying to revoke role 'connection_manager' from it's last owner: '${carol.b58}'`,
    );
  });

  it('does not count banned holders, nor holders whose role has a due date', () => {
    const c = TestChain.open();
    // Banning carol is fine while root holds her non-empty roles; then root is the last miner.
    c.apply(c.tx(root, permitJson(carol, 'add', 'banned')));
    assertRejected(c.reject(c.tx(root, permitJson(root, 'add', 'banned'))), 117, `Trying to revoke role 'miner' from it's last owner: '${root.b58}'`);
    // A holder whose role has a due date does not count.
    c.apply(c.tx(root, permitJson(alice, 'add', 'miner', { dueTimestamp: blockTime(c.nextHeight) + 1_000_000n })));
    assertRejected(c.reject(c.tx(root, permitJson(root, 'remove', 'miner'))), 117, `Trying to revoke role 'miner' from it's last owner: '${root.b58}'`);
    assert.deepEqual(
      roleHoldersAt(c.store, ROLES.miner, blockTime(c.nextHeight)).map((a) => encodeBase58(a)),
      [carol.b58, root.b58, alice.b58],
    );
  });

  it('refuses the sender role unless genesis enables it, contract_validator before its feature, and non-developer roles for scripted accounts', () => {
    const c = TestChain.open();
    assertRejected(c.reject(c.tx(root, permitJson(alice, 'add', 'sender'))), 112, scf("The role 'Sender' is not allowed by network parameters"));
    const features = allFeaturesAt(0);
    features.delete(162);
    const old = TestChain.open({ features });
    assertRejected(
      old.reject(old.tx(root, permitJson(alice, 'add', 'contract_validator'))),
      112,
      scf("Role 'contract_validator' will be available after contract validations feature activation"),
    );
    c.apply(c.tx(alice, { type: 13, version: 1, script: `base64:${encodeBase64(scriptBytes(1, E.TRUE, p))}`, name: 'a', description: '', fee: 50_000_000n }));
    assertRejected(
      c.reject(c.tx(root, permitJson(alice, 'add', 'issuer'))),
      112,
      scf(`Account ${alice.b58} is scripted, so only the contract_developer role is allowed`),
    );
    c.apply(c.tx(root, permitJson(alice, 'add', 'contract_developer')));
  });

  it('requires the sender role of every sender when genesis enables it', () => {
    const c = TestChain.open({ senderRoleEnabled: true });
    assertRejected(
      c.reject(c.tx(alice, { type: 4, version: 2, recipient: bob.b58, amount: 1n, fee: 1_000_000n, attachment: '' })),
      112,
      scf(`PermissionError(Sender ${alice.b58} permission validation failed: Has no active 'sender' role)`),
    );
    c.apply(c.tx(root, permitJson(alice, 'add', 'sender')));
    c.apply(c.tx(alice, { type: 4, version: 2, recipient: bob.b58, amount: 1n, fee: 1_000_000n, attachment: '' }));
  });
});

describe('Genesis appliers', () => {
  it('seed balances, roles and participants at height 1 only', () => {
    const c = TestChain.open();
    assert.equal(c.west(root), 1_000_000n * WEST);
    assert.deepEqual(rolesNow(c, carol), [ROLES.miner, ROLES.permissioner, ROLES.connection_manager]);
    assert.deepEqual(
      c.store.participants().map((a) => encodeBase58(a)),
      [root.b58, carol.b58, dave.b58],
    );
    assertRejected(c.reject(genesisTransaction(p, eve.address, 1n, GENESIS_TS)), 112, scf('GenesisTransaction cannot appear in non-initial block'));
  });

  it('refuses a genesis sender role the network does not enable', () => {
    const c = TestChain.open();
    const genesisBlock = { height: 1, blockTimestamp: GENESIS_TS, lastBlockTimestamp: undefined };
    const e = c.reject(genesisPermitTransaction(p, eve.address, 'sender', GENESIS_TS - 1n), genesisBlock);
    assert.equal(e.message, scf("The role 'Sender' is not allowed by network parameters"));
  });
});

describe('RegisterNode applier', () => {
  const register = (c: TestChain, by: Account, target: Account, opType: string, nodeName: string | null = 'node') =>
    c.tx(by, { type: 111, version: 1, targetPubKey: encodeBase58(target.publicKey), nodeName, opType, fee: 1_000_000n });

  it('registers and removes participants, keeping at least three', () => {
    const c = TestChain.open();
    assertRejected(
      c.reject(register(c, root, dave, 'remove', null)),
      112,
      scf(`Account '${dave.b58}' cannot be removed because number of participants will be less then '3'`),
    );
    c.apply(register(c, root, eve, 'add', 'eve-node'));
    const participant = c.store.participant(eve.bytes);
    assert.deepEqual(Uint8Array.from(participant?.publicKey ?? []), Uint8Array.from(eve.publicKey));
    assert.equal(participant?.nodeName, 'eve-node');
    assertRejected(c.reject(register(c, root, eve, 'add')), 112, scf(`Account '${eve.b58}' already presented in blockchain`));
    assertRejected(
      c.reject(register(c, root, bob, 'remove', null)),
      112,
      scf(`Account '${bob.b58}' is not present in blockchain, therefore not allowed to remove it`),
    );
    c.apply(register(c, carol, dave, 'remove', null));
    assert.equal(c.store.participant(dave.bytes), undefined);
    assert.deepEqual(
      c.store.participants().map((a) => encodeBase58(a)),
      [root.b58, carol.b58, eve.b58],
    );
  });

  it('needs connection_manager', () => {
    const c = TestChain.open();
    assertRejected(
      c.reject(register(c, alice, eve, 'add')),
      112,
      scf(`PermissionError(Sender ${alice.b58} permission validation failed: Has no active 'connection_manager' role)`),
    );
  });
});
