/**
 * Confidential data replicated between real node processes, the suite
 * every storage runs: a devnet of three nodes started as `npm run devnet` starts them
 * (src/cli/devnet.ts: one genesis, `weft start --config`, plain P2P connections, so every
 * item travels encrypted with the connections' session keys), each node with its own store
 * of the storage under test.
 *
 * A policy whose recipients are the owners of nodes 0 and 1; items sent to node 0 through
 * sendData, sendDataV2 and sendLargeData appear byte-identical on node 1 (getData,
 * getLargeData, getInfo) — the largest small item sendDataV2 takes too, while one too
 * large for the P2P message that carries it is refused before anything is anchored — and
 * never on node 2, whose node owner is no recipient: it stores
 * nothing and its reads refuse. Node 1, stopped while another item goes around, fetches
 * it once started again. Then node 2's owner is added to the policy (113): node 2 fetches
 * every earlier item. forceSync answers as WE does on a member and refuses on a
 * non-member; the privacy-storage health check answers 200, then 640 once the store is
 * gone. Over plain connections, or TLS when the suite is given PEM files.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { NetworkTlsFiles } from '../../src/node/config.js';
import { generatedData } from '../../devkit/multipart.js';
import { b58sha, download, hashOfSource, PrivacyClient, randomDataWithHashLength, type PrivacyTarget } from '../../devkit/privacy-client.js';
import { Devnet, until, type NetNode } from '../../devkit/network.js';

/** How a storage is set up for the suite: what it needs started, and node i's `node.privacy.storage` section (undefined: the embedded default). */
export interface ReplicationStorage {
  readonly name: string;
  start(): Promise<void>;
  section(node: number): Promise<Record<string, unknown> | undefined>;
  stop(): Promise<void>;
  /** Whether node i's store holds an item file of this hash, when the storage has files to look at. */
  readonly holdsFile?: (node: NetNode, hash: string) => boolean;
  /** Makes node 0's store unusable (the suite's last step: its health check must then fail). */
  breakStore(node0: NetNode): Promise<void>;
}

/** Node i as a privacy client whose sender is node i's owner (its key is in node i's keystore). */
export function targetOf(net: Devnet, i: number): PrivacyTarget {
  const spec = net.layout.nodes[i]!;
  const other = net.layout.nodes[(i + 1) % net.layout.nodes.length]!;
  return {
    url: spec.restUrl,
    apiKey: net.layout.apiKey,
    owner: { address: spec.ownerAddress, password: spec.keystorePassword },
    other: { address: other.ownerAddress, password: other.keystorePassword },
  };
}

/** The items node `client` does not serve byte-identical (yet), each with what it answered. */
async function missingItems(
  client: PrivacyClient,
  policyId: string,
  items: ReadonlyArray<{ hash: string; kind: 'small' | 'large'; data?: Buffer; name: string }>,
  largeSize: number,
): Promise<string[]> {
  const missing: string[] = [];
  for (const item of items) {
    if (item.kind === 'small') {
      const r = await client.get(`/privacy/${policyId}/getData/${item.hash}`);
      if (r.status !== 200 || !Buffer.from(r.text, 'base64').equals(item.data!)) missing.push(`${item.name}: ${r.status} ${r.text.slice(0, 200)}`);
    } else {
      const r = await download(client.target, `/privacy/${policyId}/getLargeData/${item.hash}`);
      if (r.status !== 200 || r.hash !== item.hash || r.bytes !== largeSize || r.contentLength !== largeSize)
        missing.push(`${item.name}: ${r.status} ${r.bytes} bytes`);
    }
  }
  return missing;
}

/** Files of items in a node's embedded store (large items are files; small ones live in its LMDB). */
export function embeddedItemFiles(node: NetNode): string[] {
  const dir = join(node.spec.dir, 'data', 'privacy', 'large');
  return existsSync(dir) ? readdirSync(dir) : [];
}

/**
 * The suite on a storage: `largeSize` is the size of the sendLargeData item; with `tls`
 * (PEM files made when the suite starts) the P2P connections run TLS and the items travel
 * in clear inside it.
 */
export function replicationSuite(storage: ReplicationStorage, largeSize: number, tls?: () => NetworkTlsFiles): void {
  let net: Devnet;
  const targets: PrivacyTarget[] = [];
  const clients: PrivacyClient[] = [];
  let policyId = '';
  const items: Array<{ hash: string; kind: 'small' | 'large'; data?: Buffer; name: string }> = [];

  /** Every item of the policy as node i has it, or a reason it has not (yet). */
  async function missingOn(i: number): Promise<string[]> {
    return missingItems(clients[i]!, policyId, items, largeSize);
  }

  async function untilAll(node: number, what: string): Promise<void> {
    let last: string[] = [];
    try {
      await until(
        what,
        async () => {
          last = await missingOn(node);
          return last.length === 0 ? true : undefined;
        },
        90_000,
        500,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\nstill missing: ${last.join('; ')}\n${net.outputs()}`, { cause: e });
    }
  }

  describe(
    `confidential data replicated between the nodes of policy members (3-node devnet, ${storage.name} storage${tls === undefined ? '' : ', TLS'})`,
    { timeout: 600_000 },
    () => {
      before(async () => {
        await storage.start();
        net = await Devnet.create({
          nodes: 3,
          roundDurationMs: 2000,
          syncDurationMs: 1000,
          microBlockIntervalMs: 500,
          register: false,
          ...(tls === undefined ? {} : { tls: tls() }),
        });
        for (const node of net.nodes) {
          const section = await storage.section(node.index);
          if (section !== undefined) await node.editConfig((conf) => (conf['privacy'] = { storage: section }));
        }
        await net.startAll();
        await net.meshed(30_000);
        for (let i = 0; i < 3; i++) {
          targets.push(targetOf(net, i));
          clients.push(new PrivacyClient(targets[i]!));
        }
      });
      after(async () => {
        await net?.dispose();
        await storage.stop();
      });

      it('creates a policy whose recipients are the owners of nodes 0 and 1', async () => {
        const [a, b] = targets;
        policyId = await clients[0]!.createPolicy([a!.owner.address, b!.owner.address]);
        for (const c of clients) await c.untilPolicy(policyId);
      });

      it('sends three items to node 0 (sendData, sendDataV2, sendLargeData) and node 1 gets each byte-identical', async () => {
        const c0 = clients[0]!;
        const small = randomBytes(10_000);
        const sent = await c0.sendData(policyId, small);
        assert.equal(sent.status, 200, sent.text);
        items.push({ hash: b58sha(small), kind: 'small', data: small, name: 'sendData item' });
        const v2 = randomBytes(1_000_000);
        const sentV2 = await c0.sendDataV2(policyId, v2);
        assert.equal(sentV2.status, 200, sentV2.text);
        items.push({ hash: b58sha(v2), kind: 'small', data: v2, name: 'sendDataV2 item' });
        const large = generatedData(largeSize, 21);
        const largeHash = await hashOfSource(large);
        const sentLarge = await c0.sendLargeData(policyId, largeHash, large);
        assert.equal(sentLarge.status, 200, sentLarge.text.slice(0, 400));
        items.push({ hash: largeHash, kind: 'large', name: 'sendLargeData item' });

        await untilAll(1, 'node 1 to hold every item');
        const info = await clients[1]!.get(`/privacy/${policyId}/getInfo/${largeHash}`);
        assert.deepEqual(info.json, {
          sender: targets[0]!.owner.address,
          policy: policyId,
          info: { filename: 'e2e.bin', size: 1, timestamp: 1_711_357_000_000, author: 'e2e', comment: 'отчёт' },
          hash: largeHash,
        });
        if (storage.holdsFile !== undefined) assert.ok(storage.holdsFile(net.nodes[1]!, largeHash), "node 1's store holds the large item's file");
      });

      it('refuses a sendDataV2 too large for the one P2P message that carries it (607) before any PolicyDataHash; the largest it takes reaches node 1', async () => {
        const c0 = clients[0]!;
        const tooLarge = randomBytes(22 * 1024 * 1024);
        const refused = await c0.sendDataV2(policyId, tooLarge);
        assert.deepEqual([refused.status, refused.json?.error], [400, 607], refused.text);
        await c0.assertNothingFrom(policyId, b58sha(tooLarge));
        const max = Number(/max size '(\d+)' bytes/.exec(String(refused.json.message))?.[1]);
        const largest = randomDataWithHashLength(max, b58sha(tooLarge).length);
        const sent = await c0.sendDataV2(policyId, largest);
        assert.equal(sent.status, 200, sent.text);
        items.push({ hash: b58sha(largest), kind: 'small', data: largest, name: 'the largest sendDataV2 item' });
        await untilAll(1, 'node 1 to hold the largest small item');
        const anchored = (await c0.get(`/privacy/${policyId}/hashes`)).json as string[];
        assert.ok(anchored.includes(b58sha(largest)) && !anchored.includes(b58sha(tooLarge)), 'the refused data was never anchored');
      });

      it('a member node that was down when an item went around fetches it once it is back', async () => {
        await net.nodes[1]!.stop();
        const late = randomBytes(20_000);
        const sent = await clients[0]!.sendData(policyId, late);
        assert.equal(sent.status, 200, sent.text);
        items.push({ hash: b58sha(late), kind: 'small', data: late, name: 'item sent while node 1 was down' });
        await clients[2]!.untilAnchored(policyId, b58sha(late));
        await net.nodes[1]!.start();
        await untilAll(1, 'node 1 to fetch the item sent while it was down');
      });

      it('never gives the items to node 2, whose owner is no recipient: nothing stored, its reads refuse', async () => {
        const c2 = clients[2]!;
        // Everything is anchored on node 2's chain too (it would have fetched by now had it been a member).
        for (const item of items) await c2.untilAnchored(policyId, item.hash);
        for (const item of items)
          if (storage.holdsFile !== undefined) assert.ok(!storage.holdsFile(net.nodes[2]!, item.hash), `node 2's store holds no file of the ${item.name}`);
        for (const item of items) {
          const data = await c2.get(`/privacy/${policyId}/${item.kind === 'small' ? 'getData' : 'getLargeData'}/${item.hash}`);
          assert.equal(data.json?.error, 646, `${item.name} on node 2: ${data.text}`);
          const info = await c2.get(`/privacy/${policyId}/getInfo/${item.hash}`);
          assert.equal(info.json?.error, 617, `${item.name} info on node 2: ${info.text}`);
        }
        const infos = await c2.post('/privacy/getInfos', { policiesDataHashes: [{ policyId, datahashes: items.map((i) => i.hash) }] });
        assert.deepEqual(infos.json, { policiesDataInfo: [] }, 'node 2 has no metadata of any item');
        const force = await c2.get(`/privacy/forceSync/${policyId}`);
        assert.deepEqual(
          [force.status, force.json?.error, force.json?.message],
          [400, 199, `Sender '${targets[2]!.owner.address}' is not in policy recipients`],
        );
      });

      it('answers forceSync on a member and checks the privacy storage', async () => {
        const c1 = clients[1]!;
        const all = await c1.post('/privacy/forceSync', {});
        assert.equal(all.status, 200, all.text);
        assert.equal(typeof all.json.forceRestarted, 'number');
        const policy = await c1.get(`/privacy/forceSync/${policyId}`);
        assert.equal(policy.status, 200, policy.text);
        assert.equal(policy.json.forceRestarted, items.length, 'every anchored item of the policy re-checked');
        await untilAll(1, 'node 1 to still serve every item after forceSync');
        for (const c of clients) {
          const health = await c.get('/node/healthcheck?service=privacy-storage');
          assert.equal(health.status, 200, health.text);
        }
      });

      it("fetches every earlier item once node 2's owner is added to the policy (113)", async () => {
        const [a, , c] = targets;
        const r = await clients[0]!.post('/transactions/signAndBroadcast', {
          type: 113,
          version: 3,
          sender: a!.owner.address,
          password: a!.owner.password,
          policyId,
          recipients: [c!.owner.address],
          owners: [],
          opType: 'add',
          fee: 50_000_000,
        });
        assert.equal(r.status, 200, r.text);
        await untilAll(2, 'node 2 to hold every item once its owner is a recipient');
      });

      it('fails the privacy-storage health check with 640 once the store is gone', async () => {
        await storage.breakStore(net.nodes[0]!);
        const health = await clients[0]!.get('/node/healthcheck?service=privacy-storage');
        assert.equal(health.status, 503, health.text);
        assert.equal(health.json?.error, 640, health.text);
      });
    },
  );
}
