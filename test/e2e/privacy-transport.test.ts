/**
 * Replication over a plain (non-TLS) connection, seen from the wire: two devnet node
 * processes whose only connection runs through a recording TCP proxy on loopback.
 *
 * - Node 1 gets a small (sendData) and two large (sendLargeData, sent at once) items from
 *   node 0, byte-identical, through the proxy — and no stretch of either item's bytes appears in
 *   what the proxy saw, while the items' hashes (in the PolicyDataHash transactions, the
 *   inventories and the requests) do: the data went encrypted with the connection's
 *   session keys (reference §4.5).
 * - Items sent with `broadcast=false`, their PolicyDataHash V3s put on chain inside an
 *   atomic container, reach node 1 too.
 * - With the proxy slowed down, node 1 is killed (SIGKILL) in the middle of downloading a
 *   large item: after its restart the download resumes and completes, no half item is ever
 *   visible, and nothing is left in its store's incoming directory.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { b58sha, download, PrivacyClient } from '../../devkit/privacy-client.js';
import { Devnet, until } from '../../devkit/network.js';
import { targetOf } from './privacy-replication-suite.js';
import { RecordingProxy } from '../support/recording-proxy.js';

describe('confidential data on a plain P2P connection travels encrypted', { timeout: 300_000 }, () => {
  let net: Devnet;
  let proxy: RecordingProxy;

  before(async () => {
    net = await Devnet.create({ nodes: 2, roundDurationMs: 2000, syncDurationMs: 1000, microBlockIntervalMs: 500, register: false });
    const [n0, n1] = net.nodes as [(typeof net.nodes)[0], (typeof net.nodes)[0]];
    proxy = await RecordingProxy.start(n0.spec.p2pPort);
    // Node 0 dials nobody; node 1 knows node 0 only through the proxy; no addresses are exchanged.
    await n0.editConfig((conf) => Object.assign(conf['network'] as Record<string, unknown>, { 'known-peers': [], 'enable-peers-exchange': false }));
    await n1.editConfig((conf) =>
      Object.assign(conf['network'] as Record<string, unknown>, { 'known-peers': [`127.0.0.1:${proxy.port}`], 'enable-peers-exchange': false }),
    );
    await net.startAll();
    await net.meshed(30_000);
  });
  after(async () => {
    await net?.dispose();
    proxy?.close();
  });

  it('replicates a small and two large items through the proxy; none of their bytes are on the wire, their hashes are', async () => {
    const sender = new PrivacyClient(targetOf(net, 0));
    const receiver = new PrivacyClient(targetOf(net, 1));
    const policyId = await sender.createPolicy([sender.target.owner.address, receiver.target.owner.address]);
    await receiver.untilPolicy(policyId);

    const small = randomBytes(50_000);
    // Two large items at once: the same connection carries their streams one after the other.
    const larges = [randomBytes(3_000_000), randomBytes(2_000_000)];
    const before = proxy.bytes;
    assert.equal((await sender.sendData(policyId, small)).status, 200);
    const sent = await Promise.all(larges.map((large) => sender.sendLargeData(policyId, b58sha(large), large)));
    for (const r of sent) assert.equal(r.status, 200, r.text);

    await until(
      'node 1 to hold every item',
      async () => {
        const s = await receiver.get(`/privacy/${policyId}/getData/${b58sha(small)}`);
        if (s.status !== 200 || !Buffer.from(s.text, 'base64').equals(small)) return undefined;
        for (const large of larges) {
          const l = await download(receiver.target, `/privacy/${policyId}/getLargeData/${b58sha(large)}`);
          if (l.status !== 200 || l.hash !== b58sha(large)) return undefined;
        }
        return true;
      },
      90_000,
      500,
    );

    assert.ok(proxy.bytes - before >= 5_000_000, `the items went through the proxy (${proxy.bytes - before} bytes after the upload)`);
    for (const data of [small, ...larges]) {
      assert.ok(proxy.sawExactly(createHash('sha256').update(data).digest()), 'the hashes travel in clear (transactions, inventories, requests)');
      assert.ok(!proxy.sawAnyOf(data), `no stretch of an item of ${data.length} bytes on the wire`);
    }
  });

  it('resumes a download cut by SIGKILL of the receiver after its restart; no half item is ever visible', async () => {
    const sender = new PrivacyClient(targetOf(net, 0));
    const receiver = new PrivacyClient(targetOf(net, 1));
    const policyId = await sender.createPolicy([sender.target.owner.address, receiver.target.owner.address]);
    await receiver.untilPolicy(policyId);
    const incoming = join(net.nodes[1]!.spec.dir, 'data', 'privacy', 'incoming');
    const partial = (): number => (existsSync(incoming) ? readdirSync(incoming).reduce((n, f) => n + statSync(join(incoming, f)).size, 0) : 0);

    proxy.rate = 1_000_000;
    const large = randomBytes(4_000_000);
    const hash = b58sha(large);
    assert.equal((await sender.sendLargeData(policyId, hash, large)).status, 200);
    await until('node 1 to be part-way through the download', () => (partial() > 500_000 ? true : undefined), 60_000, 20);
    // The transfer stops there (at 1 MB/s alone, a loaded machine could finish it before the check and the kill).
    proxy.hold();
    assert.equal((await receiver.get(`/privacy/${policyId}/getInfo/${hash}`)).json?.error, 617, 'a half-downloaded item is not visible');
    await net.nodes[1]!.killHard();

    proxy.rate = 0;
    proxy.release();
    await net.nodes[1]!.start();
    await until(
      'node 1 to finish the download after its restart',
      async () => {
        const r = await download(receiver.target, `/privacy/${policyId}/getLargeData/${hash}`);
        if (r.status === 200)
          return r.hash === hash && r.bytes === large.length ? true : Promise.reject(new Error(`node 1 serves ${r.bytes} bytes hashing to ${r.hash}`));
        return undefined;
      },
      90_000,
      300,
    );
    assert.equal(partial(), 0, 'nothing left in the incoming directory');
  });

  it('replicates items sent with broadcast=false whose PolicyDataHashes go on chain inside an atomic container', async () => {
    const sender = new PrivacyClient(targetOf(net, 0));
    const receiver = new PrivacyClient(targetOf(net, 1));
    const policyId = await sender.createPolicy([sender.target.owner.address, receiver.target.owner.address]);
    await receiver.untilPolicy(policyId);
    // An atomic container holds two transactions at least: two items.
    const items = [randomBytes(30_000), randomBytes(40_000)];
    const signed = [];
    for (const data of items) {
      const r = await sender.post('/privacy/sendData?broadcast=false', {
        ...sender.request(policyId, b58sha(data), { atomicBadge: {} }),
        data: data.toString('base64'),
      });
      assert.equal(r.status, 200, r.text);
      signed.push(r.json);
    }
    const { owner } = sender.target;
    const atomic = await sender.post('/transactions/signAndBroadcast', {
      type: 120,
      version: 1,
      sender: owner.address,
      password: owner.password,
      transactions: signed,
    });
    assert.equal(atomic.status, 200, atomic.text);
    await until(
      'node 1 to hold both items',
      async () => {
        for (const data of items) {
          const r = await receiver.get(`/privacy/${policyId}/getData/${b58sha(data)}`);
          if (r.status !== 200 || !Buffer.from(r.text, 'base64').equals(data)) return undefined;
        }
        return true;
      },
      90_000,
      300,
    );
  });
});
