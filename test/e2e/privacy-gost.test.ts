/**
 * Confidential data on a GOST network (`devnet --crypto gost`) over plain P2P connections:
 * the session keys of the handshake are ephemeral GOST R 34.10-2012 keys (104-byte
 * SubjectPublicKeyInfos), so items travel encrypted with GOST algorithms (VKO + KExp15 +
 * Kuznyechik; crypto/transport-encryption.ts), as WE's GOST nodes do (reference §4.5, §5.3).
 *
 * Three node processes; the policy's recipients are the owners of nodes 0 and 1. Node 1
 * reaches node 0 only through a recording TCP proxy; node 2 (no recipient) dials both.
 * Items sent to node 0 with sendData and sendLargeData appear byte-identical on node 1, no
 * stretch of their bytes crossed the proxy while their hashes did, and node 2 stores none
 * of them and its reads refuse.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { b58sha, download, PrivacyClient } from '../../devkit/privacy-client.js';
import { Devnet, until } from '../../devkit/network.js';
import { RecordingProxy } from '../support/recording-proxy.js';
import { embeddedItemFiles, targetOf } from './privacy-replication-suite.js';

describe('confidential data on a GOST network travels encrypted with GOST session keys', { timeout: 300_000 }, () => {
  let net: Devnet;
  let proxy: RecordingProxy;
  const clients: PrivacyClient[] = [];

  before(async () => {
    net = await Devnet.create({ nodes: 3, crypto: 'gost', roundDurationMs: 2000, syncDurationMs: 1000, microBlockIntervalMs: 500, register: false });
    process.once('exit', () => net.killAll());
    const [n0, n1, n2] = net.nodes as [(typeof net.nodes)[0], (typeof net.nodes)[0], (typeof net.nodes)[0]];
    proxy = await RecordingProxy.start(n0.spec.p2pPort);
    await n0.editConfig((conf) => Object.assign(conf['network'] as Record<string, unknown>, { 'known-peers': [], 'enable-peers-exchange': false }));
    await n1.editConfig((conf) =>
      Object.assign(conf['network'] as Record<string, unknown>, { 'known-peers': [`127.0.0.1:${proxy.port}`], 'enable-peers-exchange': false }),
    );
    await n2.editConfig((conf) =>
      Object.assign(conf['network'] as Record<string, unknown>, {
        'known-peers': [`127.0.0.1:${n0.spec.p2pPort}`, `127.0.0.1:${n1.spec.p2pPort}`],
        'enable-peers-exchange': false,
      }),
    );
    await net.startAll();
    await net.meshed(30_000);
    for (let i = 0; i < 3; i++) clients.push(new PrivacyClient(targetOf(net, i)));
  });
  after(async () => {
    await net?.dispose();
    proxy?.close();
  });

  it('replicates a sendData and a sendLargeData item to the member node only, byte-identical, never in clear on the wire', async () => {
    const [c0, c1, c2] = clients as [PrivacyClient, PrivacyClient, PrivacyClient];
    const policyId = await c0.createPolicy([c0.target.owner.address, c1.target.owner.address]);
    for (const c of clients) await c.untilPolicy(policyId);

    const small = randomBytes(200_000);
    const large = randomBytes(3_000_000);
    const before = proxy.bytes;
    const sent = await c0.sendData(policyId, small);
    assert.equal(sent.status, 200, sent.text);
    const sentLarge = await c0.sendLargeData(policyId, b58sha(large), large);
    assert.equal(sentLarge.status, 200, sentLarge.text.slice(0, 400));

    await until(
      'node 1 to hold both items',
      async () => {
        const s = await c1.get(`/privacy/${policyId}/getData/${b58sha(small)}`);
        if (s.status !== 200 || !Buffer.from(s.text, 'base64').equals(small)) return undefined;
        const l = await download(c1.target, `/privacy/${policyId}/getLargeData/${b58sha(large)}`);
        return l.status === 200 && l.hash === b58sha(large) && l.bytes === large.length ? true : undefined;
      },
      120_000,
      500,
    ).catch((e: unknown) => Promise.reject(new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e })));

    assert.ok(proxy.bytes - before >= small.length + large.length, `the items went through the proxy (${proxy.bytes - before} bytes after the upload)`);
    for (const data of [small, large]) {
      assert.ok(proxy.sawExactly(createHash('sha256').update(data).digest()), 'the hashes travel in clear (transactions, inventories, requests)');
      assert.ok(!proxy.sawAnyOf(data), `no stretch of an item of ${data.length} bytes on the wire`);
    }

    // Node 2 has both PolicyDataHashes on its chain, yet stores nothing and refuses the reads.
    for (const data of [small, large]) await c2.untilAnchored(policyId, b58sha(data));
    assert.deepEqual(embeddedItemFiles(net.nodes[2]!), [], "node 2's store holds no item file");
    assert.equal((await c2.get(`/privacy/${policyId}/getData/${b58sha(small)}`)).json?.error, 646);
    assert.equal((await c2.get(`/privacy/${policyId}/getLargeData/${b58sha(large)}`)).json?.error, 646);
    for (const data of [small, large]) assert.equal((await c2.get(`/privacy/${policyId}/getInfo/${b58sha(data)}`)).json?.error, 617);
  });
});
