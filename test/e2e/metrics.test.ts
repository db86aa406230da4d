/**
 * Prometheus metrics of real node processes, scraped over HTTP as Prometheus does:
 *
 * - a dev node (`npm start`'s chain) serves them at `/metrics` without the API key; while
 *   transfers signed by the official client go in and blocks come, the counters move
 *   exactly as the activity implies — blocks appended with the height, pool admissions
 *   and refusals (by WE's error kind) with the transfers sent, transactions appended with
 *   those confirmed, the REST histogram with the requests made (by route pattern and
 *   status, never the raw URL) — and the process figures (event loop, heap, RSS, GC) are there;
 * - two devnet node processes replicate a small and a large (streamed) confidential item:
 *   the receiver counts the items and their data bytes received, the holder the same
 *   served, and the receiver's download queue is empty again;
 * - Debian's Prometheus scrapes a dev node: `promtool check metrics` finds nothing wrong with
 *   Weft's metrics, and docs/metrics.md's three queries (tx/s, propagation p99, event-loop lag)
 *   answer from what it scraped;
 * - a node configured with `node.metrics { protected = yes, path = … }` refuses a scrape
 *   without the admin key (403, error 2) and serves it with the key at its path only; with
 *   `enable = no` the path is Akka's catch-all 404 and the rest of the API is unchanged.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { apiKeyHash } from '../../src/node/config.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { DEV_API_KEY, httpRequest } from '../../devkit/http.js';
import { generatedData } from '../../devkit/multipart.js';
import { Devnet } from '../../devkit/network.js';
import { b58sha, hashOfSource, PrivacyClient } from '../../devkit/privacy-client.js';
import { Exposition, PrometheusServer, type VectorSample } from '../support/prometheus.js';
import { Clock, confirmed, signer, tf2Build, WEST } from './clients.js';
import { prepareConfiguredNode, startConfiguredNode, untilHeight, type ConfiguredNode } from './configured.js';
import { targetOf } from './privacy-replication-suite.js';
import { NodeFleet, until, type DevNode } from './support.js';

const fleet = new NodeFleet();
const clock = new Clock();
const TRANSFER_FEE = 1_000_000;
const NOT_FOUND_TEXT = 'The requested resource could not be found.';

async function scrape(node: { url: string }, apiKey: string | null = null): Promise<Exposition> {
  const r = await httpRequest(node.url, 'GET', '/metrics', undefined, { apiKey });
  assert.equal(r.status, 200, r.text.slice(0, 500));
  return Exposition.parse(r.text);
}

const restCount = (e: Exposition, method: string, route: string, status: number): number =>
  e.sum('weft_rest_request_duration_seconds_count', { method, route, status: String(status) });

describe('Prometheus metrics of a dev node process', () => {
  it('counters move as transfers, blocks and requests imply; the process figures are there', async () => {
    const node: DevNode = await fleet.start();
    const accounts = node.accounts().accounts;
    const [a1, a2] = await Promise.all([signer(accounts[1]!.seed), signer(accounts[2]!.seed)]);

    const answer = await httpRequest(node.url, 'GET', '/metrics', undefined, { apiKey: null });
    assert.equal(answer.status, 200);
    assert.equal((await fetch(`${node.url}/metrics`)).headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const before = Exposition.parse(answer.text);
    assert.equal(before.types.get('weft_chain_blocks_appended_total'), 'counter');
    assert.equal(before.types.get('weft_rest_request_duration_seconds'), 'histogram');
    // The node mined every block after its genesis itself: one per height but the genesis (written, not mined).
    assert.equal(before.value('weft_chain_blocks_appended_total', { origin: 'local' }), before.value('weft_chain_height') - 1);
    assert.equal(before.value('weft_chain_blocks_appended_total', { origin: 'network' }), 0);

    // Activity: transfers from account 1 (one every few ms), two refused, requests to one route, one unknown URL.
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const built = await tf2Build(
        'Transfer',
        3,
        { recipient: a2.address, amount: Number(WEST) + i, fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' },
        a1,
      );
      const r = await node.post('/transactions/broadcast', built.json, { apiKey: null });
      assert.equal(r.status, 200, r.text);
      ids.push(built.id);
    }
    const overspend = await tf2Build(
      'Transfer',
      3,
      { recipient: a1.address, amount: Number(1_000_000n * WEST), fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' },
      a2,
    );
    const overspent = await node.post('/transactions/broadcast', overspend.json, { apiKey: null });
    assert.equal(overspent.status, 400);
    assert.equal(overspent.json.error, 112, 'StateCheckFailed');
    const early = await tf2Build(
      'Transfer',
      3,
      { recipient: a1.address, amount: 1, fee: TRANSFER_FEE, timestamp: Date.now() + 3 * 3600_000, attachment: '' },
      a2,
    );
    const earlyAnswer = await node.post('/transactions/broadcast', early.json, { apiKey: null });
    assert.equal(earlyAnswer.status, 400);
    assert.equal(earlyAnswer.json.error, 303, 'Mistiming');
    for (let i = 0; i < 7; i++) assert.equal((await node.get(`/addresses/balance/${a2.address}`, { apiKey: null })).status, 200);
    assert.equal((await node.get(`/no/such/route/${'x'.repeat(40)}`, { apiKey: null })).text, NOT_FOUND_TEXT);
    for (const id of ids) await confirmed(node, id);
    // At least one more key block, so key blocks and micro-blocks both moved.
    const height = (await node.get('/blocks/height')).json.height as number;
    await until('a new key block', async () => ((await node.get('/blocks/height')).json.height > height ? true : undefined), 20_000);

    const after = await scrape(node);
    const delta = (name: string, labels: Record<string, string> = {}): number => after.sum(name, labels) - before.sum(name, labels);

    // Chain: one block per new height, all of them this node's; the transfers appended once each.
    assert.ok(after.value('weft_chain_height') > before.value('weft_chain_height'));
    assert.equal(after.value('weft_chain_blocks_appended_total', { origin: 'local' }), after.value('weft_chain_height') - 1);
    assert.equal(delta('weft_chain_blocks_appended_total', { origin: 'local' }), after.value('weft_chain_height') - before.value('weft_chain_height'));
    assert.equal(delta('weft_chain_transactions_appended_total', { origin: 'local' }), ids.length);
    assert.equal(delta('weft_chain_transactions_appended_total', { origin: 'network' }), 0);
    const micro = delta('weft_chain_micro_blocks_appended_total', { origin: 'local' });
    assert.ok(micro >= 1 && micro <= ids.length, `${micro} micro-blocks for ${ids.length} transfers`);
    // Every append timed once, apply and commit.
    assert.equal(delta('weft_chain_apply_seconds_count', { kind: 'micro-block' }), micro);
    assert.equal(delta('weft_chain_commit_seconds_count', { kind: 'micro-block' }), micro);
    assert.equal(delta('weft_chain_apply_seconds_count', { kind: 'block' }), delta('weft_chain_blocks_appended_total'));
    assert.equal(delta('weft_chain_rollbacks_total'), 0);
    // Pool: the 12 admitted, the two refused by WE's kind; empty again once all are confirmed.
    assert.equal(delta('weft_pool_admitted_total'), ids.length);
    assert.equal(delta('weft_pool_refused_total'), 2);
    assert.equal(delta('weft_pool_refused_total', { reason: 'Mistiming' }), 1);
    assert.equal(delta('weft_pool_refused_total', { reason: 'StateCheckFailed' }), 1, 'the overspend');
    assert.equal(after.value('weft_pool_transactions'), 0);
    assert.equal(after.value('weft_pool_bytes'), 0);
    // REST: by route pattern and status.
    assert.equal(restCount(after, 'GET', '/addresses/balance/{address}', 200) - restCount(before, 'GET', '/addresses/balance/{address}', 200), 7);
    assert.equal(restCount(after, 'POST', '/transactions/broadcast', 200) - restCount(before, 'POST', '/transactions/broadcast', 200), ids.length);
    assert.equal(restCount(after, 'POST', '/transactions/broadcast', 400) - restCount(before, 'POST', '/transactions/broadcast', 400), 2);
    assert.equal(restCount(after, 'GET', 'unmatched', 404) - restCount(before, 'GET', 'unmatched', 404), 1);
    assert.ok(!after.samples.some((s) => s.labels['route']?.includes('/no/such')), 'raw URLs never become labels');
    assert.ok(restCount(after, 'GET', '/metrics', 200) >= 1, 'the scrape itself is a request');
    // No P2P traffic on a node without peers.
    assert.equal(after.sum('weft_network_messages_received_total'), 0);

    // The process: prom-client's defaults and the event loop's busy time.
    assert.ok(after.value('process_resident_memory_bytes') > 0);
    assert.ok(after.value('nodejs_heap_size_used_bytes') > 0);
    assert.ok(after.has('nodejs_eventloop_lag_p99_seconds'));
    assert.ok(after.sum('nodejs_gc_duration_seconds_count') > 0, 'garbage collections seen');
    assert.ok(after.value('nodejs_eventloop_active_seconds_total') > before.value('nodejs_eventloop_active_seconds_total'));
    assert.ok(after.value('process_cpu_seconds_total') > 0);
  });
});

describe('confidential data replicated between two devnet node processes, in metrics', { timeout: 300_000 }, () => {
  let net: Devnet | undefined;
  after(() => net?.dispose());

  it("the receiving node counts the items and bytes it fetched, the holder those it served; the receiver's queue empties", async () => {
    net = await Devnet.create({ nodes: 2, roundDurationMs: 2000, syncDurationMs: 1000, microBlockIntervalMs: 500, register: false });
    await net.startAll();
    await net.meshed(30_000);
    const [t0, t1] = [targetOf(net, 0), targetOf(net, 1)];
    const [c0, c1] = [new PrivacyClient(t0), new PrivacyClient(t1)];
    const policyId = await c0.createPolicy([t0.owner.address, t1.owner.address]);
    await c1.untilPolicy(policyId);
    const [holder, receiver] = [{ url: t0.url }, { url: t1.url }];
    const [holderBefore, receiverBefore] = [await scrape(holder), await scrape(receiver)];
    for (const e of [holderBefore, receiverBefore]) {
      for (const name of [
        'weft_privacy_items_received_total',
        'weft_privacy_received_bytes_total',
        'weft_privacy_items_served_total',
        'weft_privacy_served_bytes_total',
        'weft_privacy_pending_items',
        'weft_privacy_lost_items',
        'weft_privacy_items_in_progress',
      ]) {
        assert.equal(e.value(name), 0, name);
      }
    }

    // A small item (sendData) and a large one (sendLargeData, streamed between the nodes).
    const small = randomBytes(10_000);
    const sent = await c0.sendData(policyId, small);
    assert.equal(sent.status, 200, sent.text);
    const largeSize = 2_000_000;
    const large = generatedData(largeSize, 5);
    const largeHash = await hashOfSource(large);
    const sentLarge = await c0.sendLargeData(policyId, largeHash, large);
    assert.equal(sentLarge.status, 200, sentLarge.text.slice(0, 400));
    await until(
      'node 1 to fetch both items',
      async () => ((await scrape(receiver)).value('weft_privacy_items_received_total') === 2 ? true : undefined),
      90_000,
      300,
    );
    const got = await c1.get(`/privacy/${policyId}/getData/${b58sha(small)}`);
    assert.equal(got.status, 200);
    assert.ok(Buffer.from(got.text, 'base64').equals(small), 'node 1 serves the small item byte-identical');

    // The data bytes of both items, once each way; the receiver's download queue is empty again.
    const bytes = small.length + largeSize;
    const receiverAfter = await until(
      'the receiver to empty its queue',
      async () => {
        const e = await scrape(receiver);
        return e.value('weft_privacy_pending_items') === 0 && e.value('weft_privacy_items_in_progress') === 0 ? e : undefined;
      },
      30_000,
      300,
    );
    assert.equal(receiverAfter.value('weft_privacy_items_received_total'), 2);
    assert.equal(receiverAfter.value('weft_privacy_received_bytes_total'), bytes);
    assert.equal(receiverAfter.value('weft_privacy_items_served_total'), 0);
    assert.equal(receiverAfter.value('weft_privacy_lost_items'), 0);
    const holderAfter = await scrape(holder);
    assert.equal(holderAfter.value('weft_privacy_items_served_total'), 2);
    assert.equal(holderAfter.value('weft_privacy_served_bytes_total'), bytes);
    assert.equal(holderAfter.value('weft_privacy_items_received_total'), 0, 'the holder had both from its uploads');
    assert.equal(holderAfter.value('weft_privacy_pending_items'), 0);
  });
});

describe("Debian's Prometheus scraping a dev node process", () => {
  it("promtool finds nothing wrong with Weft's metrics; the queries of docs/metrics.md answer from what Prometheus scraped", async () => {
    const node = await fleet.start();
    const exposition = (await httpRequest(node.url, 'GET', '/metrics', undefined, { apiKey: null })).text;
    const lint = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
    assert.equal(lint.error, undefined, 'promtool runs (Debian package prometheus)');
    assert.deepEqual(
      `${lint.stdout}${lint.stderr}`.split('\n').filter((l) => l.trim() !== ''),
      [],
      'promtool check metrics: no finding, prom-client’s process metrics included',
    );
    assert.equal(lint.status, 0);

    const prometheus = await PrometheusServer.start({ dir: fleet.tempDir('weft-prometheus-'), targets: [new URL(node.url).host] });
    try {
      const query = (expr: string): Promise<VectorSample[]> => prometheus.vector(expr);
      await until('Prometheus to scrape the node', async () => ((await query('up == 1')).length === 1 ? true : undefined), 30_000);

      const accounts = node.accounts().accounts;
      const [a1, a2] = await Promise.all([signer(accounts[1]!.seed), signer(accounts[2]!.seed)]);
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const built = await tf2Build(
          'Transfer',
          3,
          { recipient: a2.address, amount: 1000 + i, fee: TRANSFER_FEE, timestamp: clock.next(), attachment: '' },
          a1,
        );
        assert.equal((await node.post('/transactions/broadcast', built.json, { apiKey: null })).status, 200);
        ids.push(built.id);
      }
      for (const id of ids) await confirmed(node, id);

      // tx/s: the transfers, confirmed, raise the rate above zero.
      const txRate = 'sum by (instance) (rate(weft_chain_transactions_appended_total[1m]))';
      await until('a transaction rate', async () => ((await query(txRate)).some((r) => Number(r.value[1]) > 0) ? true : undefined), 30_000);
      // Propagation p99: a series per kind (no value on a node without peers: nothing propagated).
      const propagation = await query('histogram_quantile(0.99, sum by (le, kind) (rate(weft_network_propagation_seconds_bucket[5m])))');
      assert.deepEqual(propagation.map((r) => r.metric['kind']).sort(), ['block', 'micro-block']);
      // Event-loop lag and utilization.
      const lag = await query('max_over_time(nodejs_eventloop_lag_p99_seconds[5m])');
      assert.equal(lag.length, 1);
      assert.ok(Number(lag[0]!.value[1]) > 0);
      await until(
        'an event-loop utilization',
        async () => ((await query('rate(nodejs_eventloop_active_seconds_total[1m])')).some((r) => Number(r.value[1]) > 0) ? true : undefined),
        10_000,
      );
    } finally {
      await prometheus.stop();
    }
  });
});

describe('node.metrics settings on a configured node process', () => {
  const running: ConfiguredNode[] = [];
  after(() => {
    for (const n of running) n.child.kill('SIGKILL');
  });

  it('protected: 403 without the admin key, served with it at the configured path; off: not served, the API unchanged', async () => {
    const dir = fleet.tempDir('weft-metrics-conf-');
    const prepared = await prepareConfiguredNode(dir, {
      chainId: 'M',
      consensus: 'type = poa, round-duration = 3s, sync-duration = 1s, ban-duration-blocks = 100, warnings-for-ban = 3, max-bans-percentage = 40',
      preActivatedFeatures: [],
      averageBlockDelay: '60s',
      ownerRoles: ['miner', 'permissioner'],
    });
    const stop = async (n: ConfiguredNode): Promise<void> => {
      n.child.kill('SIGTERM');
      await new Promise((resolve) => n.child.once('exit', resolve));
    };

    // The dev API key as the admin key (the prepared config has another).
    const protocol = await Protocol.create({ crypto: 'waves', chainId: 'M' });
    appendFileSync(
      prepared.conf,
      `\nnode.api.auth.api-key-hash = "${apiKeyHash(protocol.crypto, DEV_API_KEY)}"\nnode.metrics { path = "/ops/prometheus", protected = yes }\n`,
    );
    const guarded = startConfiguredNode(prepared.conf, prepared.restPort, 'owner secret');
    running.push(guarded);
    await untilHeight(guarded, 1, 'the protected node to serve');
    for (const apiKey of [null, 'wrong key']) {
      const r = await httpRequest(guarded.url, 'GET', '/ops/prometheus', undefined, { apiKey });
      assert.equal(r.status, 403, r.text);
      assert.equal(r.json.error, 2);
    }
    const served = await httpRequest(guarded.url, 'GET', '/ops/prometheus', undefined, {});
    assert.equal(served.status, 200);
    assert.ok(Exposition.parse(served.text).value('weft_chain_height') >= 1);
    assert.equal((await httpRequest(guarded.url, 'GET', '/metrics', undefined, {})).text, NOT_FOUND_TEXT, 'only the configured path');
    const documented = (await guarded.get('/api-docs/openapi.json')).json as { paths: Record<string, { get?: { security?: unknown[] } }> };
    assert.ok((documented.paths['/ops/prometheus']?.get?.security ?? []).length > 0, 'documented, with the admin key');
    await stop(guarded);

    appendFileSync(prepared.conf, '\nnode.metrics.enable = no\n');
    const plain = startConfiguredNode(prepared.conf, prepared.restPort, 'owner secret');
    running.push(plain);
    await untilHeight(plain, 1, 'the node without metrics to serve');
    for (const path of ['/ops/prometheus', '/metrics']) {
      const r = await httpRequest(plain.url, 'GET', path, undefined, {});
      assert.equal(r.status, 404);
      assert.equal(r.text, NOT_FOUND_TEXT);
    }
    assert.equal((await plain.get('/node/version')).status, 200);
    const doc = (await plain.get('/api-docs/openapi.json')).json as { paths: Record<string, unknown> };
    assert.ok(!('/ops/prometheus' in doc.paths) && !('/metrics' in doc.paths), 'nor documented');
    await stop(plain);
  });
});
