/**
 * `/node/*`, `/utils/*` and `/anchoring/*` on a real node (seeded-node.ts: the dev chain,
 * Node.start, a seeded chain, inject): bodies, errors, auth levels; health checks failing
 * for real (a closed store, too little free space, a failing external service).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { blake2b } from '@noble/hashes/blake2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import pino from 'pino';
import { createApiServer } from '../../src/api/server.js';
import type { ApiServices } from '../../src/api/services.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { E } from '../../src/ride/expr.js';
import { estimateComplexity, scriptBytes } from '../../src/ride/script.js';
import { NodeHealth } from '../../src/node/health.js';
import { NodeLoggers } from '../../src/node/logging.js';
import { nodeControlService } from '../../src/node/services/node-control.js';
import { tipFinality } from '../../src/consensus/cft.js';
import { Vote, type ConsensusData } from '../../src/protocol/blocks/consensus.js';
import { devNodeConfig } from '../../src/cli/dev.js';
import { Keystore } from '../../src/keystore/keystore.js';
import { Node } from '../../src/node/node.js';
import { AGENT_NAME, WEFT_VERSION } from '../../src/node/version.js';
import { Store } from '../../src/state/store.js';
import { tempDir } from '../../devkit/tmp.js';
import { until } from '../../devkit/wait.js';
import { inject, type Answer, type InjectOptions } from './inject.js';
import { DEV_API_KEY, seededNode, type SeededNode } from '../../devkit/api/seeded-node.js';

const KEY = { 'x-api-key': DEV_API_KEY };
const WRONG_KEY = { 'x-api-key': 'not-the-key' };

const call = (app: SeededNode['app'], method: 'GET' | 'POST' | 'DELETE', url: string, options: InjectOptions = {}): Promise<Answer> =>
  inject(app, method, url, options);

const postJson = (app: SeededNode['app'], url: string, body: unknown, headers: Record<string, string> = {}) =>
  call(app, 'POST', url, { headers, body: JSON.stringify(body), contentType: 'application/json' });

/** A server over the node's services with some of its `node` service replaced. */
function serverWith(services: ApiServices, node: Partial<ApiServices['node']>) {
  return createApiServer({ ...services, node: { ...services.node, ...node } }, { logger: false });
}

const silentLog = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

describe('/node, /utils, /anchoring on a seeded node', () => {
  let s: SeededNode;
  before(async () => {
    s = await seededNode();
  });
  after(async () => {
    await s?.close();
  });

  it('GET /node/version: the agent name in WE form, open', async () => {
    const r = await call(s.app, 'GET', '/node/version');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { version: AGENT_NAME });
    assert.match(r.json.version, /^Weft v\d+\.\d+\.\d+$/);
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { version: string };
    assert.equal(WEFT_VERSION, pkg.version);
  });

  it('GET /node/status: heights and the last block time', async () => {
    const r = await call(s.app, 'GET', '/node/status');
    assert.equal(r.status, 200);
    const height = s.node.chain.height();
    const ts = s.node.chain.blockAt(height)!.timestamp;
    assert.deepEqual(Object.keys(r.json), ['blockchainHeight', 'stateHeight', 'updatedTimestamp', 'updatedDate', 'lastCheckTimestamp']);
    assert.equal(r.json.blockchainHeight, height);
    assert.equal(r.json.stateHeight, height);
    assert.equal(BigInt(r.json.updatedTimestamp), ts);
    // Java's Instant.toString: no fraction when the milliseconds are 0.
    const iso = new Date(Number(ts)).toISOString();
    assert.equal(r.json.updatedDate, ts % 1000n === 0n ? iso.replace('.000Z', 'Z') : iso);
    assert.ok(Math.abs(Number(r.json.lastCheckTimestamp) - Date.now()) < 60_000);
  });

  it('GET /node/status on a CFT network: whether the last block is final and the last final height (beyond WE)', async () => {
    const health = new NodeHealth({
      tip: () => ({ height: 5, timestamp: 1_700_000_000_000n }),
      readStore: () => undefined,
      dataDirectory: tempDir(),
      freeSpace: () => Promise.resolve(1n << 40n),
      blockIntervalMs: 5000,
      maxBlockSizeInBytes: 1 << 20,
      clock: () => 0n,
      log: silentLog,
    });
    const vote = Vote.sign(s.node.protocol, s.accounts[0]!.keyPair.privateKey, new Uint8Array(32));
    const statusOf = async (height: number, tip: ConsensusData): Promise<Answer> => {
      const control = nodeControlService({
        config: s.config,
        loggers: new NodeLoggers(pino({ level: 'silent' }), 'OFF'),
        health,
        systemClock: () => 0n,
        requestStop: () => undefined,
        syncProgress: () => undefined,
        finality: () => tipFinality(height, tip),
      });
      const app = serverWith(s.services, { status: () => control.status() });
      try {
        return await call(app, 'GET', '/node/status');
      } finally {
        await app.close();
      }
    };
    const final = await statusOf(5, { type: 'cft', votes: [vote], overallSkippedRounds: 0n });
    assert.equal(final.status, 200);
    assert.deepEqual(Object.keys(final.json), [
      'blockchainHeight',
      'stateHeight',
      'updatedTimestamp',
      'updatedDate',
      'lastCheckTimestamp',
      'lastBlockFinalized',
      'lastFinalizedHeight',
    ]);
    assert.deepEqual([final.json.lastBlockFinalized, final.json.lastFinalizedHeight], [true, 5]);
    // No votes yet: its parent is the last final block (a key block comes only on a final one).
    const unfinal = await statusOf(5, { type: 'cft', votes: [], overallSkippedRounds: 0n });
    assert.deepEqual([unfinal.json.lastBlockFinalized, unfinal.json.lastFinalizedHeight], [false, 4]);
    // Genesis needs no votes.
    const genesis = await statusOf(1, { type: 'cft', votes: [], overallSkippedRounds: 0n });
    assert.deepEqual([genesis.json.lastBlockFinalized, genesis.json.lastFinalizedHeight], [true, 1]);
  });

  it('GET /node/status: 503 with error 640 and the reason when a check fails', async () => {
    // A store that cannot be read.
    const closed = Store.open(tempDir('weft-closed-'), s.node.protocol);
    await closed.close();
    const brokenStore = new NodeHealth({
      tip: () => ({ height: 1, timestamp: 0n }),
      readStore: () => void closed.height(),
      dataDirectory: tempDir(),
      blockIntervalMs: 5000,
      maxBlockSizeInBytes: 1 << 20,
      clock: () => 0n,
      log: silentLog,
    });
    const app1 = serverWith(s.services, { status: () => brokenStore.nodeStatus() });
    const r1 = await call(app1, 'GET', '/node/status');
    assert.equal(r1.status, 503);
    assert.equal(r1.json.error, 640);
    assert.match(r1.json.message, /^Unable to read the state store because of error: '.+'$/);
    // A data directory whose file system has 100 MiB left.
    const full = new NodeHealth({
      tip: () => ({ height: 1, timestamp: 0n }),
      readStore: () => undefined,
      dataDirectory: tempDir(),
      freeSpace: () => Promise.resolve(100n * 1024n * 1024n),
      blockIntervalMs: 5000,
      maxBlockSizeInBytes: 1 << 20,
      clock: () => 0n,
      log: silentLog,
    });
    const app2 = serverWith(s.services, { status: () => full.nodeStatus() });
    const r2 = await call(app2, 'GET', '/node/status');
    assert.equal(r2.status, 503);
    assert.deepEqual(r2.json, { error: 640, message: 'Storage free space is below 500MB' });
    await Promise.all([app1.close(), app2.close()]);
  });

  it('GET /node/healthcheck: WE services, the container runtime without one, 199 for an unknown one, 637 when not configured, the privacy store checked', async () => {
    const runtime = await call(s.app, 'GET', '/node/healthcheck');
    assert.equal(runtime.status, 404, 'no contracts: no container runtime');
    assert.deepEqual(runtime.json, { error: 637, message: "Service 'Docker' is disabled", field: 'service' });
    const unknown = await call(s.app, 'GET', '/node/healthcheck?service=node');
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.json, { error: 199, message: "Unknown service 'node'", field: 'service' });
    for (const [service, name] of [
      ['Docker', 'Docker'],
      ['ANCHORING-AUTH', 'Anchoring'],
    ] as const) {
      const r = await call(s.app, 'GET', `/node/healthcheck?service=${service}`);
      assert.equal(r.status, 404, service);
      assert.deepEqual(r.json, { error: 637, message: `Service '${name}' is disabled`, field: 'service' });
    }
    // The seeded node keeps confidential data in its embedded store: the check reads it.
    const privacy = await call(s.app, 'GET', '/node/healthcheck?service=privacy-storage');
    assert.deepEqual([privacy.status, privacy.json], [200, {}]);
  });

  it('GET /node/healthcheck: {} when the service is healthy, 503 640 with its reason when not; the container runtime without service', async () => {
    const up = { 'privacy-storage': true, docker: true };
    const check = (service: keyof typeof up, reason: string) => () => (up[service] ? Promise.resolve() : Promise.reject(new Error(reason)));
    const health = new NodeHealth({
      tip: () => ({ height: 1, timestamp: 0n }),
      readStore: () => undefined,
      dataDirectory: tempDir(),
      blockIntervalMs: 5000,
      maxBlockSizeInBytes: 1 << 20,
      clock: () => 0n,
      external: { 'privacy-storage': check('privacy-storage', 'Privacy storage is not available'), docker: check('docker', 'Docker daemon is not available') },
      log: silentLog,
    });
    const app = serverWith(s.services, { externalStatus: (service) => health.externalStatus(service) });
    const ok = await call(app, 'GET', '/node/healthcheck?service=privacy-storage');
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.json, {});
    up['privacy-storage'] = false;
    const failing = await call(app, 'GET', '/node/healthcheck?service=privacy-storage');
    assert.equal(failing.status, 503);
    assert.deepEqual(failing.json, { error: 640, message: 'Privacy storage is not available' });
    assert.equal((await call(app, 'GET', '/node/healthcheck?service=anchoring-auth')).status, 404);
    assert.deepEqual((await call(app, 'GET', '/node/healthcheck')).json, {}, 'without service: the container runtime');
    up.docker = false;
    const down = await call(app, 'GET', '/node/healthcheck');
    assert.equal(down.status, 503);
    assert.deepEqual(down.json, { error: 640, message: 'Docker daemon is not available' });
    await app.close();
  });

  it('GET /node/owner and /node/config', async () => {
    const owner = s.accounts[0]!;
    assert.deepEqual((await call(s.app, 'GET', '/node/owner')).json, { address: owner.address, publicKey: encodeBase58(owner.keyPair.publicKey) });
    const r = await call(s.app, 'GET', '/node/config');
    assert.equal(r.status, 200);
    const c = s.config;
    assert.deepEqual(r.json, {
      version: WEFT_VERSION,
      cryptoType: 'WAVES',
      chainId: 'T',
      consensus: 'POA',
      minimumFee: {
        '3': 100000000,
        '4': 1000000,
        '5': 100000000,
        '6': 5000000,
        '7': 500000,
        '8': 1000000,
        '9': 1000000,
        '10': 100000000,
        '11': 5000000,
        '12': 5000000,
        '13': 50000000,
        '14': 100000000,
        '15': 100000000,
        '102': 1000000,
        '103': 100000000,
        '104': 10000000,
        '106': 1000000,
        '107': 100000000,
        '111': 1000000,
        '112': 100000000,
        '113': 50000000,
        '114': 5000000,
        '120': 0,
      },
      additionalFee: { '11': 1000000, '12': 1000000 },
      maxTransactionsInMicroBlock: c.miner.maxTransactionsInMicroBlock,
      minMicroBlockAge: c.miner.minMicroBlockAgeMs,
      microBlockInterval: c.miner.microBlockIntervalMs,
      pkiMode: 'OFF',
      requiredOids: [],
      crlChecksEnabled: false,
      blockTiming: { roundDuration: 4000, syncDuration: 1000 },
    });
  });

  it('GET /node/logging: text/plain, ROOT first, one name-LEVEL per line', async () => {
    const r = await call(s.app, 'GET', '/node/logging');
    assert.equal(r.status, 200);
    assert.match(r.contentType, /^text\/plain/);
    const lines = r.text.split('\n');
    assert.equal(lines[0], 'ROOT-OFF'); // the seeded node logs to a silent pino
    const names = lines.slice(1).map((l) => l.replace(/-[A-Z]+$/, ''));
    assert.deepEqual(names, [...names].sort());
    for (const expected of ['api', 'chain', 'health', 'miner', 'node', 'pool']) assert.ok(names.includes(expected), `${expected} in ${r.text}`);
    for (const l of lines) assert.match(l, /^[A-Za-z.]+-(ALL|TRACE|DEBUG|INFO|WARN|ERROR|OFF)$/);
  });

  it('POST /node/logging: admin; changes one logger, ROOT the rest; WE errors', async () => {
    const body = { logger: 'chain', level: 'DEBUG' };
    for (const headers of [{}, WRONG_KEY]) {
      const r = await postJson(s.app, '/node/logging', body, headers);
      assert.equal(r.status, 403);
      assert.deepEqual(r.json, { error: 2, message: 'Provided API key is not correct', field: 'X-API-Key' });
    }
    const ok = await postJson(s.app, '/node/logging', body, KEY);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.json, { response: 'OK', chain: 'DEBUG' });
    const levels = async () =>
      new Map((await call(s.app, 'GET', '/node/logging')).text.split('\n').map((l) => [l.replace(/-[A-Z]+$/, ''), l.replace(/^.*-/, '')]));
    let now = await levels();
    assert.equal(now.get('chain'), 'DEBUG');
    assert.equal(now.get('node'), 'OFF');
    assert.equal((await postJson(s.app, '/node/logging', { logger: 'ROOT', level: 'WARN' }, KEY)).status, 200);
    now = await levels();
    assert.equal(now.get('ROOT'), 'WARN');
    assert.equal(now.get('node'), 'WARN', 'a logger without its own level follows ROOT');
    assert.equal(now.get('chain'), 'DEBUG', 'a logger with its own level keeps it');
    assert.equal(s.node.log.level, 'warn', "the node's own logger really changed level");

    const badLevel = await postJson(s.app, '/node/logging', { logger: 'chain', level: 'debug' }, KEY);
    assert.equal(badLevel.status, 400);
    assert.deepEqual(badLevel.json, { error: 199, message: 'This name level debug is not correct', field: 'level' });
    const off = await postJson(s.app, '/node/logging', { logger: 'chain', level: 'OFF' }, KEY);
    assert.equal(off.json.message, 'This name level OFF is not correct');
    const malformed = await postJson(s.app, '/node/logging', { logger: 'chain' }, KEY);
    assert.equal(malformed.status, 400);
    assert.equal(malformed.json.error, 1);
    assert.deepEqual(malformed.json.validationErrors, { 'obj.level': [{ msg: ['error.path.missing'], args: [] }] });
    const noBody = await call(s.app, 'POST', '/node/logging', { headers: KEY });
    assert.equal(noBody.status, 404);
    // A new name is created, as logback does, and listed.
    assert.deepEqual((await postJson(s.app, '/node/logging', { logger: 'chain.sync', level: 'ALL' }, KEY)).json, { response: 'OK', 'chain.sync': 'ALL' });
    assert.equal((await levels()).get('chain.sync'), 'ALL');
  });

  it('the /node tail is admin-wrapped: unknown paths 403 without the key, 404 with it', async () => {
    for (const [method, url] of [
      ['GET', '/node/nothing'],
      ['GET', '/node/stop'],
      ['POST', '/node/status'],
      ['GET', '/node/metrics'],
    ] as const) {
      const without = await call(s.app, method, url);
      assert.equal(without.status, 403, `${method} ${url}`);
      assert.equal(without.json.error, 2);
      assert.equal((await call(s.app, method, url, { headers: KEY })).status, 404, `${method} ${url}`);
    }
  });

  it('POST /utils/hash/secure and /utils/hash/fast: any content type, the network hashes of the UTF-8 text', async () => {
    const secure = (t: string) => encodeBase58(keccak_256(blake2b(new TextEncoder().encode(t), { dkLen: 32 })));
    const fast = (t: string) => encodeBase58(blake2b(new TextEncoder().encode(t), { dkLen: 32 }));
    // WE's default API-key hash is secureHash("ridethewaves!").
    assert.equal(secure('ridethewaves!'), 'H6nsiifwYKYEx6YzYD7woP1XCn72RVvx6tC1zjjLXqsu');
    for (const [text, contentType] of [
      ['ridethewaves!', 'text/plain'],
      ['{"not": "parsed"', 'application/json'],
      ['ключ — 鍵 🔑', 'application/octet-stream'],
      ['line\nbreak', undefined],
      // Only the privacy upload routes parse multipart bodies; here it is text like any other.
      ['--b\r\nContent-Disposition: form-data; name="request"\r\n\r\n{}\r\n--b--\r\n', 'multipart/form-data; boundary=b'],
    ] as const) {
      for (const [path, hash] of [
        ['/utils/hash/secure', secure],
        ['/utils/hash/fast', fast],
      ] as const) {
        const r = await call(s.app, 'POST', path, { body: text, ...(contentType !== undefined ? { contentType } : {}) });
        assert.equal(r.status, 200, `${path} ${contentType}`);
        assert.deepEqual(r.json, { message: text, hash: hash(text) });
      }
    }
    const empty = await call(s.app, 'POST', '/utils/hash/fast');
    assert.deepEqual(empty.json, { message: '', hash: fast('') });
    assert.equal((await call(s.app, 'GET', '/utils/hash/fast')).status, 404);
  });

  it('POST /utils/script/estimate: complexity and WE text of a compiled script; 305 otherwise', async () => {
    const TRUE_V1 = 'base64:AQa3b8tH'; // WE's compiled `true`, version 1
    const t = await call(s.app, 'POST', '/utils/script/estimate', { body: TRUE_V1, contentType: 'text/plain' });
    assert.equal(t.status, 200);
    assert.deepEqual(t.json, { script: TRUE_V1, complexity: 1, scriptText: 'TRUE', extraFee: 0 });
    const expr = E.native(0, E.getter(E.ref('tx'), 'fee'), E.long(100));
    const v2 = Buffer.from(scriptBytes(2, expr, s.node.protocol)).toString('base64');
    const r = await call(s.app, 'POST', '/utils/script/estimate', { body: v2 });
    assert.deepEqual(r.json, {
      script: v2,
      complexity: estimateComplexity(expr, 2),
      scriptText: 'FUNCTION_CALL(Native(0),List(GETTER(REF(tx),fee), CONST_LONG(100)))',
      extraFee: 0,
    });
    for (const [body, message] of [
      ['', 'Cannot estimate empty script: expected compiled script in Base64, got nothing'],
      ['base64:AQa3b8tI', 'Invalid checksum'],
      ['!!', 'Unable to decode base64: Illegal base64 character 21'],
      [Buffer.from(scriptBytes(3, E.TRUE, s.node.protocol)).toString('base64'), 'Invalid version: 3'],
    ] as const) {
      const bad = await call(s.app, 'POST', '/utils/script/estimate', { body, contentType: 'text/plain' });
      assert.equal(bad.status, 400, body);
      assert.deepEqual(bad.json, { error: 305, message, field: 'script' });
    }
  });

  it("POST /utils/script/compile: WE's bytes and complexity (account or asset context); 305 with the compiler's message", async () => {
    const compile = (body: string, query = '') => call(s.app, 'POST', `/utils/script/compile${query}`, { body, contentType: 'text/plain' });
    // WE's UtilsRouteSpec: `1 == 2` → complexity 3; reference ride.md §12 vectors 4 and 8.
    const eq = await compile('1 == 2');
    assert.equal(eq.status, 200);
    assert.deepEqual(eq.json, { script: 'base64:AQkAAAAAAAACAAAAAAAAAAABAAAAAAAAAAACpxnnnA==', complexity: 3, extraFee: 0 });
    assert.deepEqual((await compile('let x = 10\n20 == x + x')).json, {
      script: 'base64:AQQAAAABeAAAAAAAAAAACgkAAAAAAAACAAAAAAAAAAAUCQAAZAAAAAIFAAAAAXgFAAAAAXjlxJUL',
      complexity: 13,
      extraFee: 0,
    });
    // The compiled script reads back through /utils/script/estimate.
    const back = await call(s.app, 'POST', '/utils/script/estimate', { body: 'base64:AQkAAAAAAAACAAAAAAAAAAABAAAAAAAAAAACpxnnnA==' });
    assert.deepEqual(back.json, {
      script: 'base64:AQkAAAAAAAACAAAAAAAAAAABAAAAAAAAAAACpxnnnA==',
      complexity: 3,
      scriptText: 'FUNCTION_CALL(Native(0),List(CONST_LONG(1), CONST_LONG(2)))',
      extraFee: 0,
    });
    // Proofs exist in the account context only.
    const proofs = "match tx {\n case t: TransferTransaction => t.proofs[1] == base58''\n case _ => true\n}";
    assert.equal((await compile(proofs)).status, 200);
    for (const query of ['?assetScript=true', '?assetScript=yes']) {
      const asset = await compile(proofs, query);
      assert.deepEqual(asset.json, {
        error: 305,
        message: 'Compilation failed: Undefined field `proofs` of variable of type `Union(List(TransferTransaction))` in 43-51',
        field: 'script',
      });
    }
    for (const [body, message] of [
      ['1', 'Script should return boolean'],
      ['x', "Compilation failed: A definition of 'x' is not found in 0-1"],
      ['{-# LANGUAGE_VERSION 3 #-}\ntrue', 'Unsupported language version'],
      ['Buy == Sell', "Compilation failed: A definition of 'Buy' is not found in 0-3"],
      ['true )', 'Parsed.Failure(Position 1:6, found ")")'],
      ['', 'Parsed.Failure(Position 1:1, found "")'],
      [
        'match tx {\n case t: Foo => true\n}',
        "Compilation failed: Value 'ArrayBuffer(VALID(RealPos(20,23),Foo))' declared as non-existing type, while all possible types are List() in 12-31",
      ],
    ] as const) {
      const bad = await compile(body);
      assert.equal(bad.status, 400, body);
      assert.deepEqual(bad.json, { error: 305, message, field: 'script' }, body);
    }
    assert.equal((await compile('{-# LANGUAGE_VERSION 2 #-}\nBuy != Sell')).status, 200);
    assert.equal((await compile('true', '?assetScript=maybe')).status, 404, 'Akka refuses a non-boolean parameter');
  });

  it('GET /utils/time: the machine clock and the node time', async () => {
    const before = BigInt(Date.now());
    const r = await call(s.app, 'GET', '/utils/time');
    const afterwards = BigInt(Date.now());
    assert.deepEqual(Object.keys(r.json), ['system', 'NTP']);
    assert.ok(BigInt(r.json.system) >= before && BigInt(r.json.system) <= afterwards);
    assert.equal(BigInt(r.json.NTP), s.now());
  });

  it('POST /utils/reload-wallet: admin; re-reads the keystore file', async () => {
    for (const headers of [{}, WRONG_KEY]) {
      const r = await call(s.app, 'POST', '/utils/reload-wallet', { headers });
      assert.equal(r.status, 403);
      assert.equal(r.json.error, 2);
    }
    const p = s.node.protocol;
    const added = p.crypto.keyPairFromSeedPhrase('weft node test added account');
    const address = p.addresses.fromPublicKey(added.publicKey).toString();
    assert.ok(!s.services.wallet.addresses().includes(address));
    Keystore.open(s.config.node.wallet.file, p.addresses, { scrypt: { N: 1024, r: 8, p: 1 } }).addKeyPair(added, 'pw');
    const r = await call(s.app, 'POST', '/utils/reload-wallet', { headers: KEY });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { message: 'Wallet reloaded successfully' });
    assert.ok(s.services.wallet.addresses().includes(address));
  });

  it('GET /anchoring/config (and any GET under /anchoring): anchoring is off', async () => {
    for (const url of ['/anchoring/config', '/anchoring', '/anchoring/anything/else']) {
      const r = await call(s.app, 'GET', url);
      assert.equal(r.status, 200, url);
      assert.deepEqual(r.json, { enabled: false });
    }
    assert.equal((await call(s.app, 'POST', '/anchoring/config')).status, 404);
  });
});

describe('/node auth in OAuth2 mode', () => {
  it('version, status and healthcheck need no token; owner, config, logging do', async () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const s = await seededNode({ auth: { type: 'oauth2', publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString() } });
    try {
      assert.equal((await call(s.app, 'GET', '/node/version')).status, 200);
      assert.equal((await call(s.app, 'GET', '/node/status')).status, 200);
      assert.equal((await call(s.app, 'GET', '/node/healthcheck?service=docker')).status, 404);
      for (const url of ['/node/owner', '/node/config', '/node/logging', '/utils/time', '/anchoring/config', `/permissions/${s.accounts[0]!.address}`]) {
        const r = await call(s.app, 'GET', url);
        assert.equal(r.status, 401, url);
        assert.equal(r.json.error, 618);
      }
    } finally {
      await s.close();
    }
  });
});

describe('POST /node/stop', () => {
  it('admin; answers {"stopped": true}, then the node stops (its store no longer reads)', async () => {
    const s = await seededNode();
    try {
      for (const headers of [{}, WRONG_KEY]) assert.equal((await call(s.app, 'POST', '/node/stop', { headers })).status, 403);
      assert.equal((await call(s.app, 'GET', '/node/status')).status, 200);
      const r = await call(s.app, 'POST', '/node/stop', { headers: KEY });
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, { stopped: true });
      await s.node.stop(); // the stop the route started
      const status = await call(s.app, 'GET', '/node/status');
      assert.equal(status.status, 503);
      assert.equal(status.json.error, 640);
    } finally {
      await s.close();
    }
  });

  it('the CLI hook runs once the requested stop has finished', async () => {
    // Node.start's onStopRequested is what `start` turns into process.exit(0) (see the e2e test).
    const dir = tempDir('weft-stop-');
    const base = await devNodeConfig({ dataDir: dir, restPort: 0, p2pPort: 0, keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
    let stopped = 0;
    const node = await Node.start(
      { ...base, miner: { ...base.miner, enabled: false }, api: { ...base.api, enabled: false } },
      { logger: pino({ level: 'silent' }), onStopRequested: () => void stopped++ },
    );
    node.services().node.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await node.stop();
    await until('the stop hook', () => (stopped > 0 ? true : undefined), 15_000, 10);
    assert.equal(stopped, 1);
  });
});
