/**
 * `/debug/*` on a real node (seeded-node.ts): every route's body and errors, the admin
 * check on all but `validate`, expected values computed independently of the code under
 * test (hashes with @noble/hashes, balances per height from the store's history, the WEST
 * supply from the genesis).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { blake2b } from '@noble/hashes/blake2.js';
import pino from 'pino';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { NodeHealth } from '../../src/node/health.js';
import { NodeLoggers } from '../../src/node/logging.js';
import { consensusRulesFor } from '../../src/consensus/rules.js';
import { GENERATING_BALANCE_DEPTH } from '../../src/consensus/pos.js';
import { debugService } from '../../src/node/services/debug.js';
import { LiquidBlockTracker } from '../../src/node/services/liquid-block.js';
import { nodeControlService } from '../../src/node/services/node-control.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { ADMIN_KEY, fixtureServer } from './fixture.js';
import { inject, type Answer, type InjectOptions } from './inject.js';
import { DEV_API_KEY, seededNode, WEST, type SeededNode } from '../../devkit/api/seeded-node.js';

const KEY = { 'x-api-key': DEV_API_KEY };
const SYNCING = { peer: '/127.0.0.1:6864', targetScore: '123456789012345678901234', localScore: '1000', blocksApplied: 7 };

const call = (s: SeededNode, method: 'GET' | 'POST' | 'DELETE', url: string, options: InjectOptions = {}): Promise<Answer> =>
  inject(s.app, method, url, options);

const get = (s: SeededNode, url: string) => call(s, 'GET', url, { headers: KEY });

describe('/debug on a seeded node', () => {
  let s: SeededNode;
  before(async () => {
    s = await seededNode();
  });
  after(async () => {
    await s?.close();
  });

  it('every route but validate refuses without the key and with a wrong one; unknown paths too', async () => {
    const a = s.accounts[1]!.address;
    const routes: Array<['GET' | 'POST' | 'DELETE', string, string?]> = [
      ['GET', '/debug/blocks/2'],
      ['GET', '/debug/state'],
      ['GET', '/debug/stateWE/1'],
      ['GET', `/debug/portfolios/${a}`],
      ['GET', '/debug/info'],
      ['GET', '/debug/minerInfo'],
      ['GET', '/debug/historyInfo'],
      ['GET', '/debug/configInfo'],
      ['POST', '/debug/print', '{"message":"x"}'],
      ['POST', '/debug/createGrpcAuth', '{"contractId":"1"}'],
      ['POST', '/debug/rollback', '{"rollbackTo":1,"returnTransactionsToUtx":false}'],
      ['DELETE', `/debug/rollback-to/${encodeBase58(s.node.chain.blockAt(1)!.id)}`],
      ['GET', '/debug/threadDump'],
      ['GET', '/debug/anything'],
    ];
    for (const [method, url, body] of routes) {
      for (const headers of [{}, { 'x-api-key': 'wrong' }] as Array<Record<string, string>>) {
        const r = await call(s, method, url, { headers, ...(body !== undefined ? { body } : {}) });
        assert.equal(r.status, 403, `${method} ${url}`);
        assert.deepEqual(r.json, { error: 2, message: 'Provided API key is not correct', field: 'X-API-Key' });
      }
    }
    assert.equal((await get(s, '/debug/anything')).status, 404);
    assert.equal((await get(s, '/debug/threadDump')).status, 404);
  });

  it('GET /debug/blocks/{howMany}: size and Blake2b-256 of the last blocks, newest first', async () => {
    const height = s.node.chain.height();
    const r = await get(s, '/debug/blocks/3');
    assert.equal(r.status, 200);
    const expected = [height, height - 1, height - 2].map((h) => {
      const bytes = s.node.chain.blockAt(h)!.bytes;
      return { [String(bytes.length)]: encodeBase58(blake2b(bytes, { dkLen: 32 })) };
    });
    assert.deepEqual(r.json, expected);
    assert.equal((await get(s, '/debug/blocks/2147483647')).json.length, height);
    const zero = await get(s, '/debug/blocks/0');
    assert.equal(zero.status, 400);
    assert.deepEqual(zero.json, { error: 199, message: "Invalid parameter: '0' must be positive", field: 'howMany' });
    assert.equal((await get(s, '/debug/blocks/x')).json.message, "Invalid parameter: Unable to parse Integer from 'x'");
  });

  it('GET /debug/state and /debug/stateWE/{height}: positive WEST balances, now and after a height', async () => {
    const state = s.node.chain.state();
    const genesis = s.config.chain.genesis;
    const now = (await get(s, '/debug/state')).json as Record<string, number>;
    const expected: Record<string, number> = {};
    for (const a of s.accounts) expected[a.address] = Number(state.balance(s.node.protocol.addresses.parseAddress(a.address).bytes, null));
    assert.deepEqual(now, expected);
    // WEST is only moved around: the balances plus the fee share still owed to the next miner are the genesis supply.
    const sum = Object.values(now).reduce((t, v) => t + BigInt(v), 0n);
    assert.equal(sum + state.carryFee(), genesis.initialBalance);
    // After the genesis block: exactly the genesis transfers.
    const atGenesis = (await get(s, '/debug/stateWE/1')).json;
    assert.deepEqual(atGenesis, Object.fromEntries(genesis.transactions.map((t) => [t.recipient.toString(), Number(t.amount)])));
    // After height 2 the owner has paid for what block 2 carried; later heights move more.
    const h = s.node.chain.height();
    for (let height = 2; height <= h; height++) {
      const at = (await get(s, `/debug/stateWE/${height}`)).json as Record<string, number>;
      for (const a of s.accounts) {
        const bytes = s.node.protocol.addresses.parseAddress(a.address).bytes;
        assert.equal(BigInt(at[a.address] ?? 0), s.node.store.balanceAt(bytes, null, height), `${a.address} at ${height}`);
      }
    }
    assert.deepEqual((await get(s, `/debug/stateWE/${h + 1000}`)).json, now);
    assert.deepEqual((await get(s, '/debug/stateWE/0')).json, {});
    for (const bad of ['x', '-1', '1.5', '99999999999']) assert.equal((await get(s, `/debug/stateWE/${bad}`)).status, 404, bad);
  });

  it('GET /debug/portfolios/{address}: balances, lowered by what pool transactions would spend', async () => {
    const [, a1, , , a4] = s.accounts;
    const p = s.node.protocol;
    const state = s.node.chain.state();
    const bytes4 = p.addresses.parseAddress(a4!.address).bytes;
    const tx = s.seed.unconfirmed; // a4 → a1, 777 units, fee 0.01 WEST
    assert.equal(s.services.pool.unconfirmed().length, 1);
    const pessimistic = (await get(s, `/debug/portfolios/${a4!.address}`)).json;
    const balance4 = state.balance(bytes4, null);
    assert.equal(BigInt(pessimistic.balance), balance4 - 777n - tx.fee);
    assert.deepEqual(pessimistic.lease, { in: 0, out: 0 });
    const plain = (await get(s, `/debug/portfolios/${a4!.address}?considerUnspent=false`)).json;
    assert.equal(BigInt(plain.balance), balance4);
    assert.deepEqual((await get(s, `/debug/portfolios/${a4!.address}?considerUnspent=TRUE`)).json, pessimistic);
    assert.deepEqual((await get(s, `/debug/portfolios/${a4!.address}?considerUnspent=0`)).json, plain);
    // The recipient's incoming amount is not counted (pessimistic); its lease and asset holdings are.
    const bytes1 = p.addresses.parseAddress(a1!.address).bytes;
    const r1 = (await get(s, `/debug/portfolios/${a1!.address}`)).json;
    const lease1 = state.leaseBalance(bytes1);
    assert.equal(BigInt(r1.balance), state.balance(bytes1, null));
    assert.deepEqual(r1.lease, { in: Number(lease1.in), out: Number(lease1.out) });
    assert.equal(lease1.out, 100n * WEST, 'the active lease of 100 WEST');
    const asset = s.seed.assetId;
    assert.ok(state.balance(bytes1, decodeBase58(asset)) > 0n);
    assert.equal(BigInt(r1.assets[asset]), state.balance(bytes1, decodeBase58(asset)));
    // Errors: a bad boolean matches no route (before the address is read), a bad address is 102.
    assert.equal((await get(s, '/debug/portfolios/nope?considerUnspent=maybe')).status, 404);
    const bad = await get(s, '/debug/portfolios/nope');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 102);
    assert.equal(bad.json.field, 'address');
  });

  it('GET /debug/info: state height and miner state (this node runs no miner, no P2P network: no loader figures)', async () => {
    const r = await get(s, '/debug/info');
    assert.deepEqual(r.json, {
      stateHeight: s.node.chain.height(),
      extensionLoaderState: 'State(Idle)',
      historyReplierCacheSizes: { blocks: 0, microBlocks: s.node.chain.liquidMicroBlocks().length },
      minerState: 'disabled',
    });
    assert.deepEqual((await get(s, '/debug/minerInfo')).json, [], 'no miner, no mining info (WE: Left("Disabled") for every account)');
  });

  it('minerInfo and minerState of a mining node: balances over 1000 blocks, the next slot; a running sync in info and status', async () => {
    const { node } = s;
    const loggers = new NodeLoggers(pino({ level: 'silent' }), 'OFF');
    const health = new NodeHealth({
      tip: () => ({ height: 1, timestamp: 0n }),
      readStore: () => undefined,
      dataDirectory: '.',
      blockIntervalMs: 5000,
      maxBlockSizeInBytes: 1,
      clock: () => 0n,
      log: loggers.get('health'),
    });
    const debug = debugService({
      config: node.config,
      protocol: node.protocol,
      store: node.store,
      chain: node.chain,
      pool: node.pool,
      admission: node.admission,
      rules: consensusRulesFor(node.config.chain, node.chain.features, node.store),
      keystore: node.keystore,
      ownerPublicKey: node.owner.publicKey,
      mining: () => true,
      liquid: new LiquidBlockTracker(node.chain),
      now: () => s.now(),
      syncProgress: () => SYNCING,
      loaderStats: () => undefined,
    });
    const control = nodeControlService({
      config: node.config,
      loggers,
      health,
      systemClock: () => s.now(),
      requestStop: () => undefined,
      syncProgress: () => SYNCING,
    });
    assert.equal(debug.info().extensionLoaderState, 'State(ExpectingBlocks(/127.0.0.1:6864))', 'a sync exchange with a peer shows in the loader state');
    assert.deepEqual((await control.status()).synchronization, SYNCING, '/node/status shows the catch-up (beyond WE)');
    const info = debug.minerInfo();
    assert.deepEqual(
      info.map((i) => i.address),
      node.keystore.addresses(),
    );
    const height = node.chain.height();
    for (const i of info) {
      const bytes = node.protocol.addresses.parseAddress(i.address).bytes;
      let min: bigint | undefined;
      for (let h = Math.max(1, height - GENERATING_BALANCE_DEPTH + 1); h <= height; h++) {
        const lease = node.store.leaseBalanceAt(bytes, h);
        const eff = node.store.balanceAt(bytes, null, h) + lease.in - lease.out;
        if (min === undefined || eff < min) min = eff;
      }
      assert.equal(i.miningBalance, min, i.address);
    }
    // The owner (the only miner) next forges in a round of its own: inside [round start, sync start).
    const owner = info.find((i) => i.address === s.accounts[0]!.address)!;
    const poa = s.config.chain.consensus;
    assert.equal(poa.type, 'poa');
    if (poa.type === 'poa') {
      const offset = (owner.timestamp - s.config.chain.genesis.blockTimestamp) % BigInt(poa.roundDurationMs + poa.syncDurationMs);
      assert.ok(offset < BigInt(poa.roundDurationMs), `slot offset ${offset}`);
      assert.ok(owner.timestamp > node.chain.blockAt(height)!.timestamp);
    }
    const state = debug.info().minerState;
    assert.ok(state === 'mining blocks' || state === 'mining microblocks', state);
  });

  it('GET /debug/historyInfo: the last 10 blocks below the liquid one, and its micro-blocks', async () => {
    const r = (await get(s, '/debug/historyInfo')).json;
    const chain = s.node.chain;
    const height = chain.height();
    const expected: string[] = [];
    for (let h = height - 1; h >= 1 && expected.length < 10; h--) expected.push(encodeBase58(chain.blockAt(h)!.id));
    assert.deepEqual(r.lastBlockIds, expected);
    // The top block got one micro-block: its id is the liquid block's id now, not the key block's.
    assert.deepEqual(r.microBlockIds, [encodeBase58(chain.blockAt(height)!.id)]);
    assert.notEqual(r.microBlockIds[0], encodeBase58(chain.headerAt(height).id));
  });

  it("GET /debug/configInfo: the node's settings in WE's HOCON keys", async () => {
    const r = await get(s, '/debug/configInfo');
    assert.deepEqual(Object.keys(r.json), ['node']);
    const node = r.json.node;
    assert.equal(node['owner-address'], s.accounts[0]!.address);
    assert.equal(node.blockchain.custom['address-scheme-character'], 'T');
    assert.deepEqual(node.blockchain.consensus, {
      type: 'poa',
      'round-duration': '4s',
      'sync-duration': '1s',
      'ban-duration-blocks': 100,
      'warnings-for-ban': 3,
      'max-bans-percentage': 40,
    });
    assert.equal(node.blockchain.fees.base.transfer, 1000000);
    assert.equal(node.miner.enable, false);
    assert.equal(node.api.auth['api-key-hash'], encodeBase58(s.config.api.auth.type === 'api-key' ? s.config.api.auth.apiKeyHash : new Uint8Array()));
    assert.deepEqual((await get(s, '/debug/configInfo?full=yes')).json, r.json);
    assert.equal((await get(s, '/debug/configInfo?full=perhaps')).status, 404);
  });

  it('POST /debug/print: empty text answer; malformed body is error 1', async () => {
    const r = await call(s, 'POST', '/debug/print', { headers: KEY, body: '{"message":"hello from the test"}' });
    assert.equal(r.status, 200);
    assert.equal(r.text, '');
    assert.match(r.contentType, /^text\/plain/);
    const bad = await call(s, 'POST', '/debug/print', { headers: KEY, body: '{"msg":1}' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 1);
  });

  it("POST /debug/createGrpcAuth: a read-only contract token from the engine the node runs; WE's answer on a node without one", async () => {
    const contractId = encodeBase58(new Uint8Array(32).fill(5));
    const r = await call(s, 'POST', '/debug/createGrpcAuth', { headers: KEY, body: JSON.stringify({ contractId }) });
    assert.equal(r.status, 200, r.text);
    const claims = JSON.parse(Buffer.from(String(r.json.token).split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    assert.equal(claims['contractId'], contractId);
    const bad = await call(s, 'POST', '/debug/createGrpcAuth', { headers: KEY, body: '{"contractId":"0OIl"}' });
    assert.equal(bad.json.error, 1);
    assert.deepEqual(bad.json.validationErrors, { 'obj.contractId': [{ msg: ['Expected base58-encoded string'], args: [] }] });
    assert.equal((await call(s, 'POST', '/debug/createGrpcAuth', { body: JSON.stringify({ contractId }) })).status, 403);
    // A node whose contract engine is off (the API fixture's services).
    const { app } = fixtureServer();
    const off = await inject(app, 'POST', '/debug/createGrpcAuth', { headers: { 'x-api-key': ADMIN_KEY }, body: JSON.stringify({ contractId }) });
    assert.equal(off.status, 400);
    assert.deepEqual(off.json, { error: 199, message: "Can't create token – docker-engine is disabled", field: 'node.docker-engine.enable' });
    await app.close();
  });

  it('POST /debug/validate: open; validates against state, keeps nothing', async () => {
    const [, , , a3, a4] = s.accounts;
    const poolBefore = s.services.pool.size();
    const heightBefore = s.node.chain.height();
    const good = s.sign(a3!, { type: 4, version: 3, recipient: a4!.address, amount: 5n * WEST, fee: 1_000_000n, attachment: '' });
    const ok = await call(s, 'POST', '/debug/validate', { body: stringifyJson(good.toJson()) });
    assert.equal(ok.status, 200);
    assert.deepEqual(Object.keys(ok.json), ['valid', 'validationTime']);
    assert.equal(ok.json.valid, true);
    assert.equal(typeof ok.json.validationTime, 'number');
    assert.deepEqual(s.services.pool.size(), poolBefore);
    assert.equal(s.node.chain.height(), heightBefore);

    const invalid = async (json: unknown, message: RegExp) => {
      const r = await call(s, 'POST', '/debug/validate', { body: stringifyJson(json) });
      assert.equal(r.status, 200);
      assert.equal(r.json.valid, false);
      assert.match(r.json.error, message);
    };
    // Signed by someone else: the proof does not verify.
    await invalid({ ...good.toJson(), amount: 6n * WEST }, /proof doesn't validate as signature/);
    // More than the sender has.
    await invalid(
      s.sign(a3!, { type: 4, version: 3, recipient: a4!.address, amount: 10n ** 15n, fee: 1_000_000n, attachment: '' }).toJson(),
      /negative|balance|Attempt to transfer unavailable funds/i,
    );
    // Below the minimal fee.
    await invalid(s.sign(a3!, { type: 4, version: 3, recipient: a4!.address, amount: 1n, fee: 1n, attachment: '' }).toJson(), /fee/i);
    // Already in a block.
    await invalid(s.seed.massTransfer.toJson(), /already in the state/);

    for (const body of ['[1]', 'not json', stringifyJson({ ...good.toJson(), fee: undefined })]) {
      const r = await call(s, 'POST', '/debug/validate', { body });
      assert.equal(r.status, 400, body);
      assert.equal(r.json.error, 1, body);
    }
    assert.equal((await call(s, 'POST', '/debug/validate')).status, 404);
  });
});
