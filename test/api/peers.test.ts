/**
 * `/peers/*` and `/debug/utx-rebroadcast` over the HTTP layer: WE's JSON shapes, user vs
 * admin routes, the `/peers` tail wrapped in the admin check, body errors, and what a node
 * without a P2P network answers. The network side is a recording PeersService here (the
 * real one runs in test/e2e/network.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiServer } from '../../src/api/server.js';
import type { ConnectedPeerInfo, PeersService } from '../../src/api/services.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { inject } from './inject.js';
import { DEV_API_KEY, seededNode, type SeededNode } from '../../devkit/api/seeded-node.js';

const KEY = { 'x-api-key': DEV_API_KEY };

class RecordingPeers implements PeersService {
  readonly connects: Array<{ host: string; port: number }> = [];
  rebroadcasts = 0;
  readonly peer: ConnectedPeerInfo = {
    address: '/127.0.0.1:50123',
    declaredAddress: '/127.0.0.1:6864',
    nodeOwnerAddress: '3MuqofbK8eBKRzK54ReVzcDMX1F4bmJ4dyd',
    peerName: 'node-1',
    peerNonce: -5_000_000_000_000_000_000n,
    applicationVersion: '1.14.0',
    applicationConsensus: 'PoA',
  };
  constructor(private readonly connectedOwner: Uint8Array) {}
  connected(): readonly ConnectedPeerInfo[] {
    return [this.peer, { ...this.peer, declaredAddress: undefined, peerName: 'node-2' }];
  }
  all() {
    return [{ address: '/127.0.0.1:6864', lastSeen: 1_750_000_000_123n }];
  }
  suspended() {
    return [{ hostname: '/10.0.0.9', timestamp: 1_750_000_000_456n }];
  }
  connect(host: string, port: number): Promise<{ hostname: string }> {
    this.connects.push({ host, port });
    return Promise.resolve({ hostname: host });
  }
  hostname(owner: Uint8Array): Promise<{ hostname: string; ip: string } | undefined> {
    return Promise.resolve(Buffer.from(owner).equals(Buffer.from(this.connectedOwner)) ? { hostname: 'localhost', ip: '127.0.0.1' } : undefined);
  }
  rebroadcastPool(): number {
    this.rebroadcasts++;
    return 3;
  }
}

describe('/peers on a node', () => {
  let s: SeededNode;
  let peers: RecordingPeers;
  let app: ReturnType<typeof createApiServer>;
  let ownerAddress: string;
  before(async () => {
    s = await seededNode();
    const owner = s.accounts[0]!;
    ownerAddress = owner.address;
    peers = new RecordingPeers(s.node.protocol.addresses.parseAddress(owner.address).bytes);
    app = createApiServer({ ...s.services, peers }, { logger: false });
  });
  after(async () => {
    await app?.close();
    await s?.close();
  });

  it('GET /peers/connected: WE PeerInfo JSON, N/A without a declared address, the nonce as a 64-bit number (user route)', async () => {
    const r = await inject(app, 'GET', '/peers/connected');
    assert.equal(r.status, 200);
    assert.match(r.text, /"peerNonce":-5000000000000000000/);
    assert.equal(r.json.peers.length, 2);
    assert.deepEqual(Object.keys(r.json.peers[0]), [
      'address',
      'declaredAddress',
      'nodeOwnerAddress',
      'peerName',
      'peerNonce',
      'applicationVersion',
      'applicationConsensus',
    ]);
    assert.equal(r.json.peers[1].declaredAddress, 'N/A');
  });

  it('GET /peers/all and /peers/suspended: lists with times (user routes)', async () => {
    const all = await inject(app, 'GET', '/peers/all');
    assert.equal(all.status, 200);
    assert.equal(all.text, '{"peers":[{"address":"/127.0.0.1:6864","lastSeen":1750000000123}]}');
    const suspended = await inject(app, 'GET', '/peers/suspended');
    assert.equal(suspended.status, 200);
    assert.equal(suspended.text, '[{"hostname":"/10.0.0.9","timestamp":1750000000456}]');
  });

  it('POST /peers/connect: admin; WE answer; malformed body 1; port out of range 199', async () => {
    const denied = await inject(app, 'POST', '/peers/connect', { body: { host: '127.0.0.1', port: 6864 } });
    assert.equal(denied.status, 403);
    assert.equal(denied.json.error, 2);
    const ok = await inject(app, 'POST', '/peers/connect', { headers: KEY, body: { host: '127.0.0.1', port: 6864 } });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.json, { hostname: '127.0.0.1', status: 'Trying to connect' });
    assert.deepEqual(peers.connects.at(-1), { host: '127.0.0.1', port: 6864 });
    const bad = await inject(app, 'POST', '/peers/connect', { headers: KEY, body: { host: '127.0.0.1' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 1);
    const range = await inject(app, 'POST', '/peers/connect', { headers: KEY, body: { host: '127.0.0.1', port: 70000 } });
    assert.equal(range.status, 400);
    assert.equal(range.json.error, 199);
    assert.equal(range.json.message, 'port out of range:70000');
  });

  it('GET /peers/allowedNodes: the registered participants with their keys, node time (admin)', async () => {
    assert.equal((await inject(app, 'GET', '/peers/allowedNodes')).status, 403);
    const r = await inject(app, 'GET', '/peers/allowedNodes', { headers: KEY });
    assert.equal(r.status, 200);
    const expected = s.accounts.map((a) => ({ address: a.address, publicKey: encodeBase58(a.keyPair.publicKey) }));
    assert.deepEqual(r.json.allowedNodes, expected);
    assert.equal(r.json.timestamp, Number(s.now()));
  });

  it('GET /peers/hostname/{address}: connected or not, 102 for a bad address (admin)', async () => {
    assert.equal((await inject(app, 'GET', `/peers/hostname/${ownerAddress}`)).status, 403);
    const yes = await inject(app, 'GET', `/peers/hostname/${ownerAddress}`, { headers: KEY });
    assert.deepEqual(yes.json, { connected: true, hostname: 'localhost', ip: '127.0.0.1' });
    const no = await inject(app, 'GET', `/peers/hostname/${s.accounts[1]!.address}`, { headers: KEY });
    assert.equal(no.text, '{"connected":false}');
    const bad = await inject(app, 'GET', '/peers/hostname/xyz', { headers: KEY });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 102);
  });

  it('POST /peers/identity: a participant proving its address gets the node owner key; 606, 101, 102, 1 otherwise', async () => {
    const protocol = s.node.protocol;
    const [owner, a1, a2] = s.accounts as [(typeof s.accounts)[0], (typeof s.accounts)[0], (typeof s.accounts)[0]];
    const addressBytes = protocol.addresses.parseAddress(a1.address).bytes;
    const signed = encodeBase58(protocol.crypto.sign(a1.keyPair.privateKey, addressBytes));
    const ok = await inject(app, 'POST', '/peers/identity', { body: { address: a1.address, signature: signed } });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json, { publicKey: encodeBase58(owner.keyPair.publicKey) });
    // Signed by another participant's key, or over the address text instead of its bytes: not a proof.
    const byOther = encodeBase58(protocol.crypto.sign(a2.keyPair.privateKey, addressBytes));
    const overText = encodeBase58(protocol.crypto.sign(a1.keyPair.privateKey, new Uint8Array(Buffer.from(a1.address, 'utf8'))));
    for (const signature of [byOther, overText, '0OIl', '']) {
      const r = await inject(app, 'POST', '/peers/identity', { body: { address: a1.address, signature } });
      assert.equal(r.status, 400, signature);
      assert.deepEqual([r.json.error, r.json.message], [101, 'invalid signature']);
    }
    const stranger = protocol.crypto.keyPairFromSeedPhrase('weft peers identity test - not a participant');
    const strangerAddress = protocol.addresses.fromPublicKey(stranger.publicKey);
    const refused = await inject(app, 'POST', '/peers/identity', {
      body: { address: strangerAddress.toString(), signature: encodeBase58(protocol.crypto.sign(stranger.privateKey, strangerAddress.bytes)) },
    });
    assert.equal(refused.status, 401);
    assert.deepEqual([refused.json.error, refused.json.message], [606, `Address '${strangerAddress.toString()}' does not have access to the network`]);
    const badAddress = await inject(app, 'POST', '/peers/identity', { body: { address: 'nope', signature: signed } });
    assert.deepEqual([badAddress.status, badAddress.json.error], [400, 102]);
    const missing = await inject(app, 'POST', '/peers/identity', { body: { address: a1.address } });
    assert.deepEqual([missing.status, missing.json.error], [400, 1]);
  });

  it('an unknown /peers path is refused for the key first (403), then not found', async () => {
    const noKey = await inject(app, 'GET', '/peers/connect');
    assert.equal(noKey.status, 403);
    assert.equal(noKey.json.error, 2);
    assert.equal((await inject(app, 'GET', '/peers/whatever')).status, 403);
    assert.equal((await inject(app, 'GET', '/peers/whatever', { headers: KEY })).status, 404);
  });

  it('GET /debug/utx-rebroadcast: rebroadcasts and answers the count as a string (admin)', async () => {
    assert.equal((await inject(app, 'GET', '/debug/utx-rebroadcast')).status, 403);
    const r = await inject(app, 'GET', '/debug/utx-rebroadcast', { headers: KEY });
    assert.equal(r.status, 200);
    assert.equal(r.text, '{"txsToBroadcast":"3"}');
    assert.equal(peers.rebroadcasts, 1);
  });

  it('a node without a P2P network: empty lists, not connected, connect and utx-rebroadcast refused (199)', async () => {
    // s.app serves the seeded node's own services: it runs no network (network.port = 0).
    assert.deepEqual((await inject(s.app, 'GET', '/peers/connected')).json, { peers: [] });
    assert.deepEqual((await inject(s.app, 'GET', '/peers/all')).json, { peers: [] });
    assert.deepEqual((await inject(s.app, 'GET', '/peers/suspended')).json, []);
    assert.deepEqual((await inject(s.app, 'GET', `/peers/hostname/${ownerAddress}`, { headers: KEY })).json, { connected: false });
    const c = await inject(s.app, 'POST', '/peers/connect', { headers: KEY, body: { host: '127.0.0.1', port: 6864 } });
    assert.equal(c.status, 400);
    assert.equal(c.json.error, 199);
    const rb = await inject(s.app, 'GET', '/debug/utx-rebroadcast', { headers: KEY });
    assert.equal(rb.status, 400, 'nothing to rebroadcast to: refused, not a count of what was never sent');
    assert.equal(rb.json.error, 199);
    assert.match(String(rb.json.message), /no P2P network/);
  });
});
