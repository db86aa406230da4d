/**
 * The node's metrics in process: two nodes in one process each count their own activity
 * (one registry per node, none of prom-client's global one), a node without metrics serves
 * none, the hook for later subsystems keeps their metrics under their prefix, and a
 * stopped node's registry is empty. A dev node's contract executions are counted by the
 * status it records and timed; an anchored item it cannot fetch waits in its privacy queue.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { Counter, Gauge, register as globalRegistry } from 'prom-client';
import wabtInit from 'wabt';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { devAccounts, devNodeConfig } from '../../src/cli/dev.js';
import { freeLoopbackPort } from '../../src/cli/devnet.js';
import { NodeMetrics } from '../../src/node/metrics.js';
import { Node } from '../../src/node/node.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { Transfer } from '../../src/protocol/transactions/transfer.js';
import { applyExtension } from '../../src/chain/fork.js';
import { DEFAULTS } from '../../src/node/config.js';
import type { Block } from '../../src/protocol/blocks.js';
import { ChainNode, Clock, minerA, minerB, minerC } from '../chain/fork-fixture.js';
import { CFT, finalise, MINERS } from '../chain/cft-fixture.js';
import { callV7, createV7, timestampsFrom } from '../../devkit/contracts/engine.js';
import { REPO_ROOT } from '../../devkit/contracts/sdk-package.js';
import { DEV_API_KEY } from '../../devkit/http.js';
import { Exposition } from '../support/prometheus.js';
import { tempDir } from '../../devkit/tmp.js';

const KEYSTORE = { scrypt: { N: 1024, r: 8, p: 1 } };
const running: Node[] = [];
after(async () => {
  for (const n of running) await n.stop();
});

/** A dev node in this process on free ports (no P2P), mining unless told otherwise. */
async function startNode(options: { metrics?: boolean; mining?: boolean } = {}): Promise<Node> {
  const base = await devNodeConfig({ dataDir: tempDir('weft-metrics-'), restPort: 0, p2pPort: 0, keystore: KEYSTORE });
  const node = await Node.start(
    { ...base, miner: { ...base.miner, enabled: options.mining ?? true }, metrics: { ...base.metrics, enabled: options.metrics ?? true } },
    { logger: pino({ level: 'silent' }) },
  );
  running.push(node);
  return node;
}

async function scrape(node: Node): Promise<Exposition> {
  const r = await fetch(`${node.url!}/metrics`);
  assert.equal(r.status, 200);
  return Exposition.parse(await r.text());
}

describe('metrics of nodes in one process', () => {
  it('each node counts its own transfers and requests; a node without metrics serves none', async () => {
    const [one, two] = await Promise.all([startNode({ mining: false }), startNode({ mining: false })]);
    const quiet = await startNode({ metrics: false, mining: false });
    const p = one.protocol;
    const [from, to] = devAccounts(p) as [ReturnType<typeof devAccounts>[0], ReturnType<typeof devAccounts>[0]];
    for (let i = 0; i < 3; i++) {
      const tx = p.sign(
        p.transaction(Transfer, 3, {
          senderPublicKey: from.keyPair.publicKey,
          assetId: null,
          feeAssetId: null,
          timestamp: BigInt(Date.now() + i),
          amount: 10n + BigInt(i),
          fee: 1_000_000n,
          recipient: p.addresses.parseAddress(to.address),
          attachment: new Uint8Array(0),
          atomicBadge: null,
        }),
        from.keyPair.privateKey,
      );
      const r = await fetch(`${one.url!}/transactions/broadcast`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stringifyJson(tx.toJson()),
      });
      assert.equal(r.status, 200, await r.text());
    }
    for (let i = 0; i < 4; i++) assert.equal((await fetch(`${two.url!}/blocks/height`)).status, 200);

    const [m1, m2] = [await scrape(one), await scrape(two)];
    assert.equal(m1.value('weft_pool_admitted_total'), 3);
    assert.equal(m1.value('weft_pool_transactions'), 3);
    assert.equal(m2.value('weft_pool_admitted_total'), 0);
    assert.equal(m2.value('weft_pool_transactions'), 0);
    assert.equal(m1.value('weft_pool_memory_limit_bytes'), DEFAULTS.utx.memoryLimitBytes, 'node.utx.memory-limit');
    const heightRequests = (m: Exposition): number => m.sum('weft_rest_request_duration_seconds_count', { route: '/blocks/height' });
    assert.equal(heightRequests(m1), 0);
    assert.equal(heightRequests(m2), 4);
    assert.equal(m1.sum('weft_rest_request_duration_seconds_count', { route: '/transactions/broadcast', status: '200' }), 3);
    assert.equal(globalRegistry.getMetricsAsArray().length, 0, "nothing in prom-client's global registry");

    assert.equal(quiet.metrics, undefined);
    const none = await fetch(`${quiet.url!}/metrics`);
    assert.equal(none.status, 404);
    const doc = (await (await fetch(`${one.url!}/api-docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.ok('/metrics' in doc.paths, 'the exposition is in the OpenAPI document');

    await two.stop();
    assert.equal(two.metrics!.registry.getMetricsAsArray().length, 0, 'a stopped node leaves an empty registry');
    assert.ok((await scrape(one)).value('weft_chain_height') >= 1, 'the other node keeps counting');
  });
});

describe('rollbacks in metrics', () => {
  it('POST /debug/rollback counts one rollback from the api; the appended counters keep what was appended', async () => {
    const node = await startNode();
    const deadline = Date.now() + 30_000;
    while (node.chain.height() < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(node.chain.height() >= 3, 'the dev node mined two blocks');
    const before = await scrape(node);
    assert.equal(before.sum('weft_chain_rollbacks_total'), 0);
    const r = await fetch(`${node.url!}/debug/rollback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': DEV_API_KEY },
      body: JSON.stringify({ rollbackTo: 2, returnTransactionsToUtx: false }),
    });
    assert.equal(r.status, 200, await r.text());
    const after = await scrape(node);
    assert.equal(after.value('weft_chain_rollbacks_total', { origin: 'api' }), 1);
    assert.equal(after.sum('weft_chain_rollbacks_total'), 1);
    assert.ok(
      after.value('weft_chain_blocks_appended_total', { origin: 'local' }) >= before.value('weft_chain_blocks_appended_total', { origin: 'local' }),
      'a counter never goes back',
    );
    assert.ok(
      after.value('weft_chain_height') < before.value('weft_chain_height') ||
        after.value('weft_chain_blocks_appended_total', { origin: 'local' }) > before.value('weft_chain_blocks_appended_total', { origin: 'local' }),
      'the height fell, unless the miner appended again since',
    );
  });
});

describe('propagation delays and fork switches', () => {
  it("a peer's block that extends the chain is a propagation sample; the blocks a fork switch appends are not", async () => {
    const clock = new Clock();
    const a = ChainNode.create('metrics-a', clock, [minerA]);
    const bc = ChainNode.create('metrics-bc', clock, [minerB, minerC]);
    const metrics = new NodeMetrics({ settings: DEFAULTS.metrics, now: clock.read });
    metrics.watchChain(a.chain, 'poa');
    const exposition = async (): Promise<Exposition> => Exposition.parse((await metrics.service().scrape()).text);
    const fromPeer = (): void => {
      for (let h = a.chain.height() + 1; h <= bc.chain.height(); h++) a.chain.appendBlock(bc.chain.blockAt(h)!, 'network');
    };
    try {
      // One chain: B and C's blocks reach A as from a peer, A's reach B and C.
      let received = 0;
      while (a.chain.height() < 6) {
        clock.nextRound();
        if (bc.tryForge() !== undefined) {
          clock.now += 40n;
          fromPeer();
          received++;
        } else if (a.tryForge() !== undefined) bc.follow(a);
      }
      const shared = await exposition();
      assert.ok(received >= 1);
      assert.equal(shared.value('weft_network_propagation_seconds_count', { kind: 'block' }), received);
      assert.equal(shared.value('weft_chain_blocks_appended_total', { origin: 'network' }), received);
      assert.ok(shared.value('weft_network_propagation_seconds_bucket', { kind: 'block', le: '0.05' }) === received, 'each arrived 40 ms after its timestamp');

      // Partitioned: each side forges alone; B and C's branch is better and A switches to it.
      const common = a.chain.height();
      for (let i = 0; i < 6; i++) {
        clock.nextRound();
        a.tryForge();
        bc.tryForge();
      }
      const branch: Block[] = [];
      for (let h = common + 1; h <= bc.chain.height(); h++) branch.push(bc.chain.blockAt(h)!);
      assert.equal(applyExtension(a.chain, branch).kind, 'applied');
      const switched = await exposition();
      assert.equal(switched.value('weft_chain_rollbacks_total', { origin: 'network' }), 1);
      assert.equal(switched.value('weft_chain_blocks_appended_total', { origin: 'network' }), received + branch.length);
      assert.equal(switched.value('weft_network_propagation_seconds_count', { kind: 'block' }), received, 'the fork switch added no sample');

      // The next block from the peer counts again.
      bc.forge();
      clock.now += 40n;
      fromPeer();
      assert.equal((await exposition()).value('weft_network_propagation_seconds_count', { kind: 'block' }), received + 1);
    } finally {
      metrics.close();
      await Promise.all([a.store.close(), bc.store.close()]);
    }
  });
});

describe('consensus and disk figures of a chain in metrics', () => {
  it("PoA: the rounds skipped are the top block's overall-skipped-rounds, the block time its timestamp; no finality figure", async () => {
    const clock = new Clock();
    // Only A of the three miners forges: B's and C's rounds pass without a block.
    const a = ChainNode.create('metrics-skip', clock, [minerA]);
    const metrics = new NodeMetrics({ settings: DEFAULTS.metrics, now: clock.read });
    metrics.watchChain(a.chain, 'poa');
    try {
      const genesis = Exposition.parse((await metrics.service().scrape()).text);
      assert.equal(genesis.value('weft_chain_overall_skipped_rounds'), 0);
      assert.equal(genesis.types.get('weft_chain_overall_skipped_rounds'), 'gauge');
      for (let i = 0; i < 4; i++) a.forge();
      const top = a.chain.lastBlock();
      assert.equal(top.consensus.type, 'poa');
      const skipped = top.consensus.type === 'poa' ? Number(top.consensus.overallSkippedRounds) : -1;
      assert.ok(skipped > 0, 'rounds of B and C were skipped');
      const e = Exposition.parse((await metrics.service().scrape()).text);
      assert.equal(e.value('weft_chain_overall_skipped_rounds'), skipped);
      assert.equal(e.value('weft_chain_last_block_timestamp_seconds'), Number(top.timestamp) / 1000);
      assert.ok(!e.has('weft_chain_last_final_height'), 'PoA has no finality');
    } finally {
      metrics.close();
      await a.store.close();
    }
  });

  it('CFT: the last final height is the height below an unfinal tip, the height once its votes are in', async () => {
    const clock = new Clock();
    const n = ChainNode.create('metrics-cft', clock, MINERS, CFT);
    const metrics = new NodeMetrics({ settings: DEFAULTS.metrics, now: clock.read });
    metrics.watchChain(n.chain, 'cft');
    try {
      const read = async (): Promise<Exposition> => Exposition.parse((await metrics.service().scrape()).text);
      assert.equal((await read()).value('weft_chain_last_final_height'), 1, 'genesis needs no votes');
      n.forge();
      const unfinal = await read();
      assert.equal(unfinal.value('weft_chain_height'), 2);
      assert.equal(unfinal.value('weft_chain_last_final_height'), 1, 'the new key block has no votes yet');
      finalise(n);
      assert.equal((await read()).value('weft_chain_last_final_height'), 2);
      assert.ok((await read()).has('weft_chain_overall_skipped_rounds'));
    } finally {
      metrics.close();
      await n.store.close();
    }
  });

  it("the data directory's file system: free and total bytes as statfs reads them", async () => {
    const dir = tempDir('weft-metrics-disk-');
    const metrics = new NodeMetrics({ settings: DEFAULTS.metrics, now: () => BigInt(Date.now()) });
    metrics.watchDataDirectory(dir);
    try {
      const e = Exposition.parse((await metrics.service().scrape()).text);
      const fs = statfsSync(dir);
      assert.equal(e.value('weft_data_filesystem_size_bytes'), fs.blocks * fs.bsize);
      const avail = e.value('weft_data_filesystem_avail_bytes');
      assert.ok(avail > 0 && avail <= fs.blocks * fs.bsize);
      // Other files come and go on the same file system between the two reads: near, not equal.
      assert.ok(Math.abs(avail - fs.bavail * fs.bsize) < 256 * 1024 * 1024, `${avail} vs ${fs.bavail * fs.bsize}`);
    } finally {
      metrics.close();
    }
  });
});

describe('the P2P network of a node in metrics', () => {
  it('a known peer that does not answer is suspended (banned from dialing): the gauge says so, as /peers/suspended does', async () => {
    const [p2pPort, deadPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
    const base = await devNodeConfig({ dataDir: tempDir('weft-metrics-'), restPort: 0, p2pPort, keystore: KEYSTORE });
    const node = await Node.start(
      { ...base, miner: { ...base.miner, enabled: false }, network: { ...base.network, knownPeers: [{ host: '127.0.0.1', port: deadPort }] } },
      { logger: pino({ level: 'silent' }) },
    );
    running.push(node);
    const before = await scrape(node);
    assert.equal(before.value('weft_network_peers_connected'), 0);
    assert.equal(before.value('weft_network_sync_active'), 0);
    // WE's first attempt comes 1 s after start; it fails and suspends the host.
    const deadline = Date.now() + 15_000;
    let suspended = 0;
    while (suspended === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      suspended = (await scrape(node)).value('weft_network_peers_suspended');
    }
    assert.equal(suspended, 1);
    const listed = (await (await fetch(`${node.url!}/peers/suspended`)).json()) as Array<{ hostname: string }>;
    assert.deepEqual(
      listed.map((s) => s.hostname),
      ['/127.0.0.1'],
    );
    assert.equal((await scrape(node)).value('weft_network_peers_connected'), 0);
  });
});

describe('contract executions in metrics', () => {
  it("a dev node's WASM contract runs: executions counted by the status the node records, each timed", async () => {
    const node = await startNode();
    const owner = devAccounts(node.protocol)[0]!.keyPair;
    const m = (await wabtInit()).parseWat('counter.wat', readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'wasm', 'counter.wat'), 'utf8'), {
      multi_value: true,
    });
    const bytecode = Uint8Array.from(m.toBinary({}).buffer);
    m.destroy();
    const before = await scrape(node);
    for (const status of ['Success', 'Error', 'Failure']) assert.equal(before.value('weft_contracts_executions_total', { status }), 0);
    assert.equal(before.value('weft_contracts_execution_seconds_count'), 0);

    timestampsFrom(BigInt(Date.now()));
    const create = createV7(
      { engine: 'wasm', bytecode, bytecodeHash: createHash('sha256').update(bytecode).digest('hex') },
      [{ key: 'start', type: 'integer', value: 40n }],
      owner,
    );
    const broadcast = async (tx: Transaction): Promise<void> => {
      const r = await fetch(`${node.url!}/transactions/broadcast`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stringifyJson(tx.toJson()),
      });
      assert.equal(r.status, 200, await r.text());
    };
    const statuses = async (tx: Transaction, status: string): Promise<string[]> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const r = await fetch(`${node.url!}/contracts/status/${tx.idBase58}`);
        const list = r.status === 200 ? ((await r.json()) as Array<{ status: string }>).map((s) => s.status) : [];
        if (list.includes(status)) return list;
        assert.ok(Date.now() < deadline, `status ${status} of ${tx.idBase58}: ${list.join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    await broadcast(create);
    await statuses(create, 'Success');
    // A success, an error (code 17) and WE's recoverable code 1, a Failure — each mined as a 105 V5.
    const calls = [
      { tx: callV7(create.id, 'wasm', 'increment', [{ key: 'by', type: 'integer', value: 2n }], [], owner), status: 'Success' },
      { tx: callV7(create.id, 'wasm', 'fail', [{ key: 'code', type: 'integer', value: 17n }], [], owner), status: 'Error' },
      { tx: callV7(create.id, 'wasm', 'fail', [{ key: 'code', type: 'integer', value: 1n }], [], owner), status: 'Failure' },
    ];
    for (const c of calls) await broadcast(c.tx);
    const recorded = [...(await statuses(create, 'Success'))];
    for (const c of calls) recorded.push(...(await statuses(c.tx, c.status)));

    // The counters say what /contracts/status says, status by status.
    const after = await scrape(node);
    const count = (status: string): number => recorded.filter((s) => s === status).length;
    for (const status of ['Success', 'Error', 'Failure']) assert.equal(after.value('weft_contracts_executions_total', { status }), count(status), status);
    assert.deepEqual([count('Success'), count('Error') >= 1, count('Failure') >= 1], [2, true, true]);
    // Every recorded status came from one execution (a 105 a new key block made stale is executed again).
    const executions = after.value('weft_contracts_execution_seconds_count');
    assert.ok(executions >= recorded.length, `${executions} executions for ${recorded.length} statuses`);
    assert.ok(after.value('weft_contracts_execution_seconds_sum') > 0);
    assert.equal(after.value('weft_contracts_execution_seconds_bucket', { le: '+Inf' }), executions);
  });
});

describe('the confidential data download queue in metrics', () => {
  it("an item anchored for a policy of this node's owner, with no peer to fetch it from, waits in the queue", async () => {
    const node = await startNode();
    const p = node.protocol;
    const [owner, other] = devAccounts(p) as [ReturnType<typeof devAccounts>[0], ReturnType<typeof devAccounts>[0]];
    const queued = (e: Exposition): number => e.value('weft_privacy_pending_items') + e.value('weft_privacy_lost_items');
    const before = await scrape(node);
    assert.equal(queued(before), 0);
    assert.equal(before.value('weft_privacy_items_in_progress'), 0);
    const broadcast = async (json: Record<string, unknown>): Promise<Transaction> => {
      const tx = p.sign(
        p.transactionFromJson({ senderPublicKey: encodeBase58(owner.keyPair.publicKey), timestamp: Date.now(), proofs: [], ...json }),
        owner.keyPair.privateKey,
      );
      const r = await fetch(`${node.url!}/transactions/broadcast`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stringifyJson(tx.toJson()),
      });
      assert.equal(r.status, 200, await r.text());
      return tx;
    };
    const confirmed = async (tx: Transaction): Promise<void> => {
      const deadline = Date.now() + 30_000;
      while (node.chain.state().transactionHeight(tx.id) === undefined) {
        assert.ok(Date.now() < deadline, `${tx.idBase58} was not mined`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const policy = await broadcast({
      type: 112,
      version: 3,
      policyName: 'metrics',
      description: '',
      recipients: [owner.address, other.address],
      owners: [owner.address],
      fee: 100_000_000,
      feeAssetId: null,
      atomicBadge: null,
    });
    await confirmed(policy);
    // The hash of data this node does not hold (its sender would have sent it to a peer).
    const hash = await broadcast({
      type: 114,
      version: 3,
      policyId: policy.idBase58,
      dataHash: encodeBase58(createHash('sha256').update('held elsewhere').digest()),
      fee: 5_000_000,
      feeAssetId: null,
      atomicBadge: null,
    });
    await confirmed(hash);
    // The privacy state records it just after the append: wait for that, then it stays.
    const deadline = Date.now() + 10_000;
    let after = await scrape(node);
    while (queued(after) === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await scrape(node);
    }
    assert.equal(queued(after), 1, 'the item waits to be fetched (pending, or lost after its attempts)');
    assert.equal(after.value('weft_privacy_items_received_total'), 0);
  });
});

describe('registerSubsystem: the hook for privacy and contracts', () => {
  it('adds the collectors of a subsystem under weft_<name>_, once; refuses metrics outside the prefix', async () => {
    const metrics = new NodeMetrics({ settings: { enabled: true, path: '/metrics', protected: false }, now: () => BigInt(Date.now()) });
    try {
      let queue = 7;
      metrics.registerSubsystem('privacy', ({ registry, prefix }) => {
        new Gauge({
          name: `${prefix}sync_queue_size`,
          help: 'test',
          registers: [registry],
          collect(this: Gauge) {
            this.set(queue);
          },
        });
      });
      queue = 9;
      const text = await metrics.service().scrape();
      assert.equal(Exposition.parse(text.text).value('weft_privacy_sync_queue_size'), 9);

      assert.throws(() => metrics.registerSubsystem('privacy', () => {}), /registered already/);
      assert.throws(() => metrics.registerSubsystem('Contracts!', () => {}), /lower-case letters, digits and _/);
      assert.throws(
        () => metrics.registerSubsystem('contracts', ({ registry }) => void new Counter({ name: 'executions_total', help: 'test', registers: [registry] })),
        /must be named weft_contracts_…: executions_total/,
      );
      assert.ok(!(await metrics.service().scrape()).text.includes('executions_total'), 'the stray metric was removed');
      metrics.registerSubsystem(
        'contracts',
        ({ registry, prefix }) => void new Counter({ name: `${prefix}executions_total`, help: 'test', registers: [registry] }),
      );
      assert.ok((await metrics.service().scrape()).text.includes('weft_contracts_executions_total 0'));
    } finally {
      metrics.close();
    }
  });
});
