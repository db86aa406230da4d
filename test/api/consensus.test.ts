/**
 * `/consensus/*` on real nodes (consensus-chains.ts): a PoA chain where a second miner
 * never forges (so it is warned and banned) and a PoS chain. Every route on both, with
 * the values computed independently (chain score summed over the headers, generating
 * balance from the balances at each height, bans from the stored ban history), and every
 * error as WE answers it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { scalaDuration } from '../../src/api/routes/consensus.js';
import { ROLES } from '../../src/protocol/transactions/permissions.js';
import type { Block } from '../../src/protocol/blocks.js';
import { consensusChain, DEV_API_KEY, POA, POS, WEST, type ConsensusChain } from './consensus-chains.js';
import { expectError } from './inject.js';
import { apiClient, type ApiClient } from '../../src/api/client.js';
import { ROUTE_GROUPS } from '../../src/api/routes/index.js';
import { createApiServer } from '../../src/api/server.js';
import type { ConsensusSettings } from '../../src/chain/settings.js';

const b58 = encodeBase58;
const UNKNOWN_ID = b58(new Uint8Array(64).fill(7));

const posOf = (block: Block): { baseTarget: bigint; generationSignature: Uint8Array } => {
  if (block.consensus.type !== 'pos') throw new Error('PoS data expected');
  return block.consensus;
};

describe('Scala FiniteDuration text', () => {
  it('whole seconds in seconds, else milliseconds; singular for 1', () => {
    assert.equal(scalaDuration(17_000), '17 seconds');
    assert.equal(scalaDuration(1000), '1 second');
    assert.equal(scalaDuration(60_000), '60 seconds');
    assert.equal(scalaDuration(1500), '1500 milliseconds');
    assert.equal(scalaDuration(1), '1 millisecond');
    assert.equal(scalaDuration(0), '0 seconds');
  });
});

describe('/consensus on a PoA node', () => {
  let c: ConsensusChain;
  let idle: string;
  let owner: string;
  before(async () => {
    c = await consensusChain(POA);
    owner = c.accounts[0]!.address;
    idle = c.accounts[1]!.address;
    for (let i = 0; i < 8; i++) c.forge();
  });
  after(() => c.close());

  it('algo and settings (admin)', async () => {
    assert.deepEqual((await c.client.call('GET /consensus/algo')).body, { consensusAlgo: 'Proof-of-Authority (PoA)' });
    expectError(await c.client.call('GET /consensus/settings'), 403, 2, 'Provided API key is not correct');
    expectError(await c.client.call('GET /consensus/settings', { headers: { 'X-API-Key': 'wrong' } }), 403, 2);
    const r = await c.client.call('GET /consensus/settings', { headers: { 'X-API-Key': DEV_API_KEY } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      consensusAlgo: 'Proof-of-Authority (PoA)',
      roundDuration: '4 seconds',
      syncDuration: '1 second',
      banDurationBlocks: 4,
      warningsForBan: 2,
      maxBansPercentage: 50,
    });
    assert.ok(r.text.indexOf('"consensusAlgo"') < r.text.indexOf('"roundDuration"'), "WE's field order");
  });

  it('minersAtHeight: the queue at the timestamp of the block at a height; 199 / 310 errors', async () => {
    // Genesis permits are stamped before the genesis: account 1's miner grant is the older one, so it comes first.
    const state = c.node.chain.state();
    const grant = (a: string): bigint => state.permissionOps(c.protocol.addresses.parseAddress(a).bytes).find((op) => op.role === ROLES.miner)!.timestamp;
    const queue = [owner, idle].sort((x, y) => (grant(x) < grant(y) ? -1 : 1));
    for (const h of [1, 3, c.node.chain.height()]) {
      assert.deepEqual((await c.client.call('GET /consensus/minersAtHeight/{height}', { params: { height: h } })).body, { miners: queue, height: h });
    }
    const top = c.node.chain.height();
    expectError(
      await c.client.call('GET /consensus/minersAtHeight/{height}', { params: { height: top + 1 } }),
      400,
      310,
      `Requested height '${top + 1}' is greater than current state height '${top}'`,
    );
    expectError(await c.client.call('GET /consensus/minersAtHeight/{height}', { params: { height: 0 } }), 400, 199, "Invalid parameter: '0' must be positive");
    expectError(
      await c.client.call('GET /consensus/minersAtHeight/{height}', { params: { height: 'x' } }),
      400,
      199,
      "Invalid parameter: Unable to parse Integer from 'x'",
    );
    expectError(
      await c.client.call('GET /consensus/minersAtHeight/{height}', { params: { height: '4294967296' } }),
      400,
      199,
      "Invalid parameter: Unable to parse Integer from '4294967296'",
    );
  });

  it('miners/{timestamp}: the queue at any timestamp; PositiveLong errors', async () => {
    const genesisTs = c.node.chain.timestampAt(1);
    const r = await c.client.call('GET /consensus/miners/{timestamp}', { params: { timestamp: String(genesisTs) } });
    assert.equal(r.status, 200);
    const body = r.body;
    assert.deepEqual(new Set(body.miners), new Set([owner, idle]));
    assert.equal(BigInt(body.timestamp), genesisTs);
    assert.deepEqual((await c.client.call('GET /consensus/miners/{timestamp}', { params: { timestamp: 1 } })).body, { miners: [], timestamp: 1 });
    const big = '9223372036854775807';
    const rb = await c.client.call('GET /consensus/miners/{timestamp}', { params: { timestamp: big } });
    assert.ok(rb.text.includes(`"timestamp":${big}`), 'int64 written exactly');
    expectError(await c.client.call('GET /consensus/miners/{timestamp}', { params: { timestamp: 0 } }), 400, 199, "Invalid parameter: '0' must be positive");
    expectError(await c.client.call('GET /consensus/miners/{timestamp}', { params: { timestamp: -5 } }), 400, 199, "Invalid parameter: '-5' must be positive");
    expectError(
      await c.client.call('GET /consensus/miners/{timestamp}', { params: { timestamp: 'soon' } }),
      400,
      199,
      "Invalid parameter: Unable to parse Long from 'soon'",
    );
    expectError(
      await c.client.call('GET /consensus/miners/{timestamp}', { params: { timestamp: '9223372036854775808' } }),
      400,
      199,
      "Invalid parameter: Unable to parse Long from '9223372036854775808'",
    );
  });

  it('bannedMiners and minersWarningsAndBans follow the stored ban history', async () => {
    const history = c.node.chain.state().minerBanHistory(c.protocol.addresses.parseAddress(idle).bytes);
    const bans = history.flatMap((e) => (e.kind === 'ban' ? [e] : []));
    assert.ok(bans.length >= 1, 'the idle miner was banned');
    const top = c.node.chain.height();
    for (let h = 1; h <= top; h++) {
      const banned = bans.some((b) => b.beginHeight <= h && h < b.beginHeight + POA.banDurationBlocks);
      assert.deepEqual(
        (await c.client.call('GET /consensus/bannedMiners/{height}', { params: { height: h } })).body,
        { bannedMiners: banned ? [idle] : [], height: h },
        `height ${h}`,
      );
    }
    expectError(
      await c.client.call('GET /consensus/bannedMiners/{height}', { params: { height: top + 1 } }),
      400,
      310,
      `Requested height '${top + 1}' is greater than current state height '${top}'`,
    );
    expectError(await c.client.call('GET /consensus/bannedMiners/{height}', { params: { height: -1 } }), 400, 199, "Invalid parameter: '-1' must be positive");

    const r = await c.client.call('GET /consensus/minersWarningsAndBans');
    assert.equal(r.status, 200);
    const all = (r.body as { warningsAndBans: Array<{ address: string; bans: unknown[]; warnings: unknown[] }> }).warningsAndBans;
    const newestFirst = [...history].reverse();
    const entry = all.find((x) => x.address === idle);
    assert.deepEqual(entry, {
      address: idle,
      bans: newestFirst.flatMap((e) => (e.kind === 'ban' ? [{ timestamp: Number(e.timestamp), beginHeight: e.beginHeight }] : [])),
      warnings: newestFirst.flatMap((e) => (e.kind === 'warning' ? [{ timestamp: Number(e.timestamp) }] : [])),
    });
    assert.deepEqual(
      all.find((x) => x.address === owner),
      { address: owner, bans: [], warnings: [] },
    );
  });

  it('the PoS routes answer WE’s 199 on a PoA chain', async () => {
    const last = b58(c.node.chain.lastBlock().id);
    const pos = 'Expected PoS consensus block data, but got PoA instead';
    expectError(await c.client.call('GET /consensus/basetarget'), 400, 199, pos);
    expectError(await c.client.call('GET /consensus/basetarget/{signature}', { params: { signature: last } }), 400, 199, pos);
    expectError(await c.client.call('GET /consensus/generationsignature'), 400, 199, pos);
    expectError(await c.client.call('GET /consensus/generationsignature/{signature}', { params: { signature: last } }), 400, 199, pos);
    const balance = 'Expected PoS consensus block data, but got PoA or CFT instead';
    expectError(await c.client.call('GET /consensus/generatingbalance/{address}', { params: { address: owner } }), 400, 199, balance);
    expectError(await c.client.call('GET /consensus/generatingbalance/{address}', { params: { address: 'not-an-address' } }), 400, 199, balance);
    // The block lookup comes first.
    expectError(
      await c.client.call('GET /consensus/basetarget/{signature}', { params: { signature: UNKNOWN_ID } }),
      404,
      301,
      `block with signature '${UNKNOWN_ID}' does not exist`,
    );
    expectError(await c.client.call('GET /consensus/generationsignature/{signature}', { params: { signature: '0OIl' } }), 400, 101, 'invalid signature');
    expectError(await c.client.call('GET /consensus/basetarget/{signature}', { params: { signature: '2'.repeat(89) } }), 400, 101, 'invalid signature');
  });
});

describe('/consensus as a CFT node answers', () => {
  // The routes read only the consensus settings and the chain, so a PoA chain's services with
  // CFT settings answer as a CFT node does.
  let c: ConsensusChain;
  let client: ApiClient<typeof ROUTE_GROUPS>;
  let app: ReturnType<typeof createApiServer>;
  before(async () => {
    c = await consensusChain(POA);
    for (let i = 0; i < 3; i++) c.forge();
    const services = c.node.services();
    const cft: ConsensusSettings = { ...POA, type: 'cft', maxValidators: 3, finalizationTimeoutMs: 1_000, fullVoteSetTimeoutMs: undefined };
    app = createApiServer({ ...services, consensus: { ...services.consensus, settings: cft } }, { logger: false });
    client = apiClient(app, ROUTE_GROUPS);
  });
  after(async () => {
    await app.close();
    await c.close();
  });

  it('algo names CFT; settings gives FairPoS’s name alone, as WE 1.14 does; the PoA routes answer', async () => {
    assert.deepEqual((await client.call('GET /consensus/algo')).body, { consensusAlgo: 'Crash Fault Tolerance (CFT)' });
    assert.deepEqual((await client.call('GET /consensus/settings', { headers: { 'X-API-Key': DEV_API_KEY } })).body, {
      consensusAlgo: 'Fair Proof-of-Stake (FairPoS)',
    });
    const miners = await client.call('GET /consensus/minersAtHeight/{height}', { params: { height: 2 } });
    assert.equal(miners.status, 200);
    assert.equal(miners.body.height, 2);
    expectError(
      await client.call('GET /consensus/generatingbalance/{address}', { params: { address: c.accounts[0]!.address } }),
      400,
      199,
      'Expected PoS consensus block data, but got PoA or CFT instead',
    );
  });
});

describe('/consensus on a PoS node', () => {
  let c: ConsensusChain;
  let owner: string;
  let other: string;
  before(async () => {
    c = await consensusChain(POS);
    owner = c.accounts[0]!.address;
    other = c.accounts[2]!.address;
    c.forge();
    c.microBlock([c.transfer(c.accounts[0]!, c.accounts[2]!, 1_000n * WEST)]);
    c.forge();
    c.forge();
    c.microBlock([c.transfer(c.accounts[2]!, c.accounts[0]!, 500n * WEST)]);
  });
  after(() => c.close());

  it('algo and settings', async () => {
    assert.deepEqual((await c.client.call('GET /consensus/algo')).body, { consensusAlgo: 'Fair Proof-of-Stake (FairPoS)' });
    expectError(await c.client.call('GET /consensus/settings'), 403, 2);
    assert.deepEqual((await c.client.call('GET /consensus/settings', { headers: { 'X-API-Key': DEV_API_KEY } })).body, {
      consensusAlgo: 'Fair Proof-of-Stake (FairPoS)',
    });
  });

  it('basetarget: the last block’s, with the chain score as a string; by id: the block score', async () => {
    const chain = c.node.chain;
    let score = 0n;
    for (let h = 1; h <= chain.height(); h++) score += (1n << 64n) / posOf(chain.headerAt(h)).baseTarget;
    const r = await c.client.call('GET /consensus/basetarget');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { baseTarget: Number(posOf(chain.lastBlock()).baseTarget), score: score.toString() });
    assert.ok(r.text.includes(`"score":"${score}"`), 'score is a string');
    for (const h of [1, 2, chain.height()]) {
      const block = chain.blockAt(h)!;
      const bt = posOf(block).baseTarget;
      assert.deepEqual((await c.client.call('GET /consensus/basetarget/{signature}', { params: { signature: b58(block.id) } })).body, {
        baseTarget: Number(bt),
        score: ((1n << 64n) / bt).toString(),
      });
    }
    expectError(
      await c.client.call('GET /consensus/basetarget/{signature}', { params: { signature: UNKNOWN_ID } }),
      404,
      301,
      `block with signature '${UNKNOWN_ID}' does not exist`,
    );
    expectError(await c.client.call('GET /consensus/basetarget/{signature}', { params: { signature: '0OIl' } }), 400, 101, 'invalid signature');
  });

  it('generationsignature of the last block and by id (the liquid block’s ids too)', async () => {
    const chain = c.node.chain;
    const last = chain.lastBlock();
    assert.deepEqual((await c.client.call('GET /consensus/generationsignature')).body, { generationSignature: b58(posOf(last).generationSignature) });
    const keyBlockId = chain.headerAt(chain.height()).id;
    for (const id of [last.id, keyBlockId, chain.blockAt(1)!.id]) {
      const block = chain.blockById(id)!.block;
      assert.deepEqual((await c.client.call('GET /consensus/generationsignature/{signature}', { params: { signature: b58(id) } })).body, {
        generationSignature: b58(posOf(block).generationSignature),
      });
    }
    assert.equal(b58(posOf(chain.blockAt(1)!).generationSignature), b58(new Uint8Array(32)), 'genesis: 32 zero bytes');
    expectError(await c.client.call('GET /consensus/generationsignature/{signature}', { params: { signature: UNKNOWN_ID } }), 404, 301);
  });

  it('generatingbalance: the least effective balance over the last 1000 blocks', async () => {
    const store = c.node.store;
    const top = c.node.chain.height();
    const minOver = (a: string): bigint => {
      const bytes = c.protocol.addresses.parseAddress(a).bytes;
      let min: bigint | undefined;
      for (let h = 1; h <= top; h++) {
        const lb = store.leaseBalanceAt(bytes, h);
        const v = store.balanceAt(bytes, null, h) + lb.in - lb.out;
        if (min === undefined || v < min) min = v;
      }
      return min!;
    };
    const ownerNow = c.node.chain.state().balance(c.protocol.addresses.parseAddress(owner).bytes, null);
    const otherNow = c.node.chain.state().balance(c.protocol.addresses.parseAddress(other).bytes, null);
    const ro = await c.client.call('GET /consensus/generatingbalance/{address}', { params: { address: owner } });
    assert.deepEqual(ro.body, { address: owner, balance: Number(minOver(owner)) });
    assert.ok(minOver(owner) < ownerNow, 'the owner got WEST back: its generating balance is the older, lower one');
    const rt = await c.client.call('GET /consensus/generatingbalance/{address}', { params: { address: other } });
    assert.deepEqual(rt.body, { address: other, balance: Number(minOver(other)) });
    assert.equal(minOver(other), 100_000n * WEST, 'its genesis balance, before it received and sent');
    assert.ok(otherNow > minOver(other));
    expectError(await c.client.call('GET /consensus/generatingbalance/{address}', { params: { address: 'not-an-address' } }), 400, 102);
    expectError(
      await c.client.call('GET /consensus/generatingbalance/{address}', { params: { address: '3N' + '1'.repeat(40) } }),
      400,
      102,
      'invalid address: Wrong address string length: max=36, actual: 42',
    );
  });

  it('the PoA routes answer WE’s 199 on a PoS chain; miners and minersWarningsAndBans answer', async () => {
    const poa = 'Expected PoA consensus block data, but got PoS instead';
    expectError(await c.client.call('GET /consensus/minersAtHeight/{height}', { params: { height: 1 } }), 400, 199, poa);
    expectError(await c.client.call('GET /consensus/bannedMiners/{height}', { params: { height: 1 } }), 400, 199, poa);
    // Parameter checks come first, as in WE.
    expectError(await c.client.call('GET /consensus/minersAtHeight/{height}', { params: { height: 0 } }), 400, 199, "Invalid parameter: '0' must be positive");
    const ts = c.node.chain.timestampAt(c.node.chain.height());
    assert.deepEqual((await c.client.call('GET /consensus/miners/{timestamp}', { params: { timestamp: String(ts) } })).body, {
      miners: [owner],
      timestamp: Number(ts),
    });
    assert.deepEqual((await c.client.call('GET /consensus/minersWarningsAndBans')).body, { warningsAndBans: [{ address: owner, bans: [], warnings: [] }] });
  });
});

describe('a PoS node at genesis; the /consensus routes in the OpenAPI document', () => {
  let c: ConsensusChain;
  before(async () => {
    c = await consensusChain(POS);
  });
  after(() => c.close());

  it('on a chain holding only its genesis block, the score is the genesis block score', async () => {
    assert.equal(c.node.chain.height(), 1);
    const bt = POS.type === 'pos' ? POS.initialBaseTarget : 0n;
    assert.deepEqual((await c.client.call('GET /consensus/basetarget')).body, { baseTarget: Number(bt), score: ((1n << 64n) / bt).toString() });
  });

  it('are documented with parameters and response schemas', async () => {
    const doc = JSON.parse((await c.client.request({ method: 'GET', url: '/api-docs/openapi.json' })).text) as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }>; parameters?: unknown[]; security?: unknown[] }>
      >;
    };
    const paths = [
      '/consensus/algo',
      '/consensus/settings',
      '/consensus/basetarget',
      '/consensus/basetarget/{signature}',
      '/consensus/generationsignature',
      '/consensus/generationsignature/{signature}',
      '/consensus/generatingbalance/{address}',
      '/consensus/minersAtHeight/{height}',
      '/consensus/miners/{timestamp}',
      '/consensus/bannedMiners/{height}',
      '/consensus/minersWarningsAndBans',
      '/activation/status',
    ];
    for (const path of paths) {
      const op = doc.paths[path]?.['get'];
      assert.ok(op !== undefined, `${path} documented`);
      assert.ok(op.responses['200']?.content?.['application/json']?.schema !== undefined, `${path}: 200 schema`);
      if (path.includes('{')) assert.equal(op.parameters?.length, 1, `${path}: its parameter`);
    }
    assert.ok((doc.paths['/consensus/settings']!['get']!.security ?? []).length > 0, 'settings needs the API key');
  });
});
