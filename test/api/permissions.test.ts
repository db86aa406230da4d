/**
 * `/permissions/*` on a real node (seeded-node.ts), and the role reading behind it
 * (`rolesAt`) over a real state with grants, removals and due timestamps.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rolesAt } from '../../src/api/routes/permissions.js';
import { DEV_OWNER_ROLES } from '../../src/cli/dev.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { ROLES } from '../../src/protocol/transactions/permissions.js';
import { Store } from '../../src/state/store.js';
import { MutableState } from '../../src/state/view.js';
import { tempDir } from '../../devkit/tmp.js';
import { inject, type Answer } from './inject.js';
import { seededNode, type SeededNode } from '../../devkit/api/seeded-node.js';

const call = (s: SeededNode, method: 'GET' | 'POST', url: string, body?: unknown): Promise<Answer> => inject(s.app, method, url, { body });

const byByte = (roles: readonly string[]) => [...roles].sort((a, b) => ROLES[a as keyof typeof ROLES] - ROLES[b as keyof typeof ROLES]);

describe('/permissions on a seeded node', () => {
  let s: SeededNode;
  before(async () => {
    s = await seededNode();
  });
  after(async () => {
    await s?.close();
  });

  it('GET /permissions/{address}: the roles held now, with the node time', async () => {
    const owner = s.accounts[0]!;
    const r = await call(s, 'GET', `/permissions/${owner.address}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { roles: byByte(DEV_OWNER_ROLES).map((role) => ({ role })), timestamp: Number(s.now()) });
    // The `address:` prefix is accepted, as WE's Address.fromString does.
    assert.deepEqual((await call(s, 'GET', `/permissions/address:${owner.address}`)).json, r.json);
    // Account 2 was granted `issuer` by a Permit in the seeded chain; account 3 holds nothing.
    assert.deepEqual((await call(s, 'GET', `/permissions/${s.accounts[2]!.address}`)).json.roles, [{ role: 'issuer' }]);
    assert.deepEqual((await call(s, 'GET', `/permissions/${s.accounts[3]!.address}`)).json.roles, []);
  });

  it('GET /permissions/{address}/at/{timestamp}: roles at a time', async () => {
    const a2 = s.accounts[2]!.address;
    const granted = s.seed.permission.timestamp;
    const before = await call(s, 'GET', `/permissions/${a2}/at/${granted - 1n}`);
    assert.deepEqual(before.json, { roles: [], timestamp: Number(granted - 1n) });
    const at = await call(s, 'GET', `/permissions/${a2}/at/${granted}`);
    assert.deepEqual(at.json, { roles: [{ role: 'issuer' }], timestamp: Number(granted) });
    // Beyond 2^53: the timestamp comes back exactly.
    const far = await call(s, 'GET', `/permissions/${a2}/at/9223372036854775807`);
    assert.equal(far.status, 200);
    assert.match(far.text, /"timestamp":\s*9223372036854775807/);
  });

  it('address errors are 102; a timestamp that is not digits matches no route (404) before the address is read', async () => {
    const bad = await call(s, 'GET', '/permissions/3NotAnAddress');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 102);
    assert.match(bad.json.message, /^invalid address: /);
    assert.equal(bad.json.field, 'address');
    assert.equal((await call(s, 'GET', '/permissions/3NotAnAddress/at/5')).json.error, 102);
    for (const url of [
      `/permissions/${s.accounts[0]!.address}/at/-5`,
      `/permissions/${s.accounts[0]!.address}/at/1e3`,
      '/permissions/3NotAnAddress/at/x',
      `/permissions/${s.accounts[0]!.address}/at/9223372036854775808`,
    ]) {
      const r = await call(s, 'GET', url);
      assert.equal(r.status, 404, url);
      assert.equal(r.text, 'The requested resource could not be found.');
    }
    // GET of the POST-only path reads `addresses` as an address, as WE's route order does.
    assert.equal((await call(s, 'GET', '/permissions/addresses')).json.error, 102);
  });

  it('POST /permissions/addresses: roles of each address at a time', async () => {
    const [owner, , a2] = s.accounts;
    const granted = s.seed.permission.timestamp;
    const r = await call(s, 'POST', '/permissions/addresses', `{"addresses": ["${owner!.address}", "address:${a2!.address}"], "timestamp": ${granted}}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, {
      addressToRoles: [
        { address: owner!.address, roles: byByte(DEV_OWNER_ROLES).map((role) => ({ role })) },
        { address: a2!.address, roles: [{ role: 'issuer' }] },
      ],
      timestamp: Number(granted),
    });
    const empty = await call(s, 'POST', '/permissions/addresses', { addresses: [], timestamp: 5 });
    assert.deepEqual(empty.json, { addressToRoles: [], timestamp: 5 });
  });

  it('POST /permissions/addresses errors: 102 names the first bad address, 1 for a malformed body', async () => {
    const bad = await call(s, 'POST', '/permissions/addresses', { addresses: [s.accounts[0]!.address, 'nope', 'also-bad'], timestamp: 1 });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 102);
    assert.equal(bad.json.field, 'addresses[1]');
    const noTimestamp = await call(s, 'POST', '/permissions/addresses', { addresses: [] });
    assert.equal(noTimestamp.status, 400);
    assert.equal(noTimestamp.json.error, 1);
    assert.deepEqual(noTimestamp.json.validationErrors, { 'obj.timestamp': [{ msg: ['error.path.missing'], args: [] }] });
    const stringTimestamp = await call(s, 'POST', '/permissions/addresses', { addresses: [], timestamp: '5' });
    assert.equal(stringTimestamp.json.error, 1);
    assert.equal((await call(s, 'POST', '/permissions/addresses', '[1]')).json.error, 1);
    assert.equal((await call(s, 'POST', '/permissions/addresses', 'not json')).json.error, 1);
  });

  it('GET /permissions/contractValidators[/{height}]: holders of contract_validator at the block time', async () => {
    const owner = s.accounts[0]!.address;
    assert.deepEqual((await call(s, 'GET', '/permissions/contractValidators')).json, { addresses: [owner] });
    assert.deepEqual((await call(s, 'GET', '/permissions/contractValidators/1')).json, { addresses: [owner] });
    const zero = await call(s, 'GET', '/permissions/contractValidators/0');
    assert.equal(zero.status, 400);
    assert.equal(zero.json.error, 199);
    assert.equal(zero.json.message, "Invalid parameter: '0' must be positive");
    const nan = await call(s, 'GET', '/permissions/contractValidators/x');
    assert.equal(nan.json.message, "Invalid parameter: Unable to parse Integer from 'x'");
    const height = s.node.chain.height();
    const beyond = await call(s, 'GET', `/permissions/contractValidators/${height + 1}`);
    assert.equal(beyond.status, 400);
    assert.equal(beyond.json.error, 310);
    assert.equal(beyond.json.message, `Requested height '${height + 1}' is greater than current state height '${height}'`);
  });
});

describe('rolesAt', () => {
  it('reads grants, removals and due timestamps as WE does', async () => {
    const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
    const state = new MutableState(Store.open(tempDir('weft-roles-'), p));
    const a = p.addresses.fromPublicKey(p.crypto.keyPairFromSeedPhrase('roles at').publicKey);
    state.addPermissionOp(a.bytes, { opType: 'add', role: ROLES.issuer, timestamp: 100n, dueTimestamp: 500n });
    state.addPermissionOp(a.bytes, { opType: 'add', role: ROLES.miner, timestamp: 200n, dueTimestamp: null });
    state.addPermissionOp(a.bytes, { opType: 'remove', role: ROLES.miner, timestamp: 300n, dueTimestamp: null });
    state.addPermissionOp(a.bytes, { opType: 'add', role: ROLES.sender, timestamp: 50n, dueTimestamp: null });
    assert.deepEqual(rolesAt(state, a, 49n), []);
    assert.deepEqual(rolesAt(state, a, 100n), [{ role: 'issuer', dueTimestamp: 500n }, { role: 'sender' }]);
    assert.deepEqual(rolesAt(state, a, 250n), [{ role: 'miner' }, { role: 'issuer', dueTimestamp: 500n }, { role: 'sender' }]);
    assert.deepEqual(rolesAt(state, a, 300n), [{ role: 'issuer', dueTimestamp: 500n }, { role: 'sender' }]);
    assert.deepEqual(rolesAt(state, a, 500n), [{ role: 'sender' }], 'an add is active strictly before its due timestamp');
  });
});
