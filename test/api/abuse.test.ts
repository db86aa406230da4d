/**
 * REST under abuse, on loopback: clients that trickle bodies, hold idle sockets or
 * open more connections than the cap are cut off, while ordinary requests keep being answered.
 * Bounded in count and time; nothing here asserts a timing — a socket that is never closed
 * fails the test by its own deadline.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_REST_CONNECTION_LIMITS } from '../../src/api/connection-limits.js';
import { listen } from '../../src/api/server.js';
import { createApiServer } from '../../src/api/server.js';
import { Keystore } from '../../src/keystore/keystore.js';
import { walletService } from '../../src/node/services/wallet.js';
import { watchKeystore } from '../support/keystore-calls.js';
import { tempDir } from '../../devkit/tmp.js';
import { apiClient } from '../../src/api/client.js';
import { ROUTE_GROUPS } from '../../src/api/routes/index.js';
import { fixtureChain, fixtureServer, protocol } from './fixture.js';
import { DEFAULT_HEAVY_READ_LIMITS, type HeavyReadLimits } from '../../src/api/heavy-reads.js';
import { blockJson } from '../../src/api/tx-json.js';
import type { ChainReader } from '../../src/api/services.js';
import type { Block } from '../../src/protocol/blocks.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { devAccounts } from '../../src/cli/dev.js';
import { confirmed } from '../e2e/clients.js';
import { NodeFleet } from '../e2e/support.js';

const LIMITS = { maxConnections: 24, headerTimeoutMs: 400, requestTimeoutMs: 1200, idleTimeoutMs: 1000 };
/** Far beyond every limit above: a socket still open by then was never cut. */
const NEVER_MS = 15_000;

interface Opened {
  readonly socket: Socket;
  /** Everything the server sent, when the socket closed. */
  readonly closed: Promise<string>;
}

function open(port: number): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`the server kept the socket open past ${NEVER_MS} ms`)), NEVER_MS);
      socket.once('close', () => {
        clearTimeout(timer);
        done(received);
      });
    });
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/**
 * A chain whose heights 1..100 all hold `block` (a full-size range); `onRead` hears each height
 * whose transactions are read; `size`: the block size its header view reports (its own by default).
 */
function everyHeightHolds(chain: ChainReader, block: Block, onRead: (height: number) => void = () => undefined, size = block.summary.size): ChainReader {
  const at = (h: number): boolean => Number.isInteger(h) && h >= 1 && h <= 100;
  return {
    ...chain,
    height: () => 100,
    blockAt: (h) => (at(h) ? block : undefined),
    blockHeaderAt: (h) => (at(h) ? { header: block, summary: { ...block.summary, size } } : undefined),
    blockTransactionsAt: (h) => {
      if (!at(h)) return undefined;
      onRead(h);
      return block.transactions;
    },
  };
}

describe('REST under abuse: slow bodies, idle sockets, connection floods', () => {
  const f = fixtureServer({ connectionLimits: LIMITS });
  let port = 0;
  let base = '';
  before(async () => {
    base = await listen(f.app, { bindAddress: '127.0.0.1', port: 0 });
    port = Number(new URL(base).port);
  });
  after(() => f.app.close());

  const height = async (): Promise<number> => {
    const r = await fetch(`${base}/blocks/height`);
    assert.equal(r.status, 200);
    return ((await r.json()) as { height: number }).height;
  };

  it('slow bodies (a 1 MB body declared, a byte at a time) are answered 408 and closed; other clients are served meanwhile', async () => {
    const slow = await Promise.all(Array.from({ length: 8 }, () => open(port)));
    const trickles: NodeJS.Timeout[] = [];
    for (const { socket } of slow) {
      socket.write('POST /utils/hash/secure HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1048576\r\n\r\n');
      trickles.push(setInterval(() => socket.writable && socket.write('a'), 100));
    }
    try {
      // While they trickle, a normal client still gets its answers.
      for (let i = 0; i < 5; i++) assert.ok((await height()) > 0);
      const answers = await Promise.all(slow.map((s) => s.closed));
      for (const text of answers) assert.match(text, /^HTTP\/1\.1 408 /);
    } finally {
      for (const t of trickles) clearInterval(t);
    }
  });

  it('a large upload that keeps flowing for several request-timeout windows is not cut', async () => {
    const big = createApiServer(fixtureChain({ connectionLimits: LIMITS }).services, { logger: false, bodyLimit: 64 * 2 ** 20 });
    const bigBase = await listen(big, { bindAddress: '127.0.0.1', port: 0 });
    after(() => big.close());
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${bigBase}/utils/hash/fast`, { method: 'POST', headers: { 'content-type': 'text/plain' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(1 << 20, 'a');
      let left = 8;
      // 1 MiB every 300 ms: over 2 s in all, far above the 1 MiB per window the server asks.
      const step = (): void => {
        if (left-- === 0) {
          req.end();
          return;
        }
        req.write(chunk);
        setTimeout(step, 300);
      };
      step();
    });
    assert.equal(answer.status, 200, answer.text);
  });

  it('sockets that never send a request, or stop half-way through the headers, are closed', async () => {
    const silent = await Promise.all(Array.from({ length: 8 }, () => open(port)));
    const halfHeaders = await Promise.all(Array.from({ length: 4 }, () => open(port)));
    for (const { socket } of halfHeaders) socket.write('GET /blocks/height HTTP/1.1\r\nHost: x\r\n');
    assert.ok((await height()) > 0);
    // Answered 408 (Node's header deadline, answered and closed by the server's SocketCloser).
    for (const text of await Promise.all([...silent, ...halfHeaders].map((s) => s.closed))) assert.match(text, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    // A keep-alive connection left idle after its answer is closed too.
    const kept = await open(port);
    kept.socket.write('GET /blocks/height HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(await kept.closed, /^HTTP\/1\.1 200 /);
  });

  it(`connections beyond the cap are closed on arrival; the node answers again once the flood is cut`, async () => {
    // A server of its own with the node's default timeouts (10 s for headers): the flood stays
    // until the test cuts it. Under the 400 ms one, a loaded machine could see the first flood
    // connections timed out, and the cap free again, before the connection beyond it arrived.
    // That silent connections are closed at the header timeout is the test above.
    const g = fixtureServer({ connectionLimits: { ...DEFAULT_REST_CONNECTION_LIMITS, maxConnections: LIMITS.maxConnections } });
    const gBase = await listen(g.app, { bindAddress: '127.0.0.1', port: 0 });
    after(() => g.app.close());
    const gPort = Number(new URL(gBase).port);
    const flood = await Promise.all(Array.from({ length: LIMITS.maxConnections }, () => open(gPort)));
    // Node counts a connection once it is accepted: wait until the server holds the whole flood.
    const server = g.app.server;
    const deadline = Date.now() + 15_000;
    for (let held = 0; held < LIMITS.maxConnections;) {
      assert.ok(Date.now() < deadline, `the server held ${held} of the ${LIMITS.maxConnections} flood connections`);
      held = await new Promise<number>((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
      if (held < LIMITS.maxConnections) await nextTurn();
    }
    const beyond = await open(gPort);
    beyond.socket.write('GET /blocks/height HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(await beyond.closed, '', 'a connection beyond the cap gets no answer');
    for (const s of flood) s.socket.destroy();
    await Promise.all(flood.map((s) => s.closed));
    const r = await fetch(`${gBase}/blocks/height`);
    assert.equal(r.status, 200);
    assert.ok(((await r.json()) as { height: number }).height > 0);
  });

  /** POSTs a body streamed in 1 MiB chunks (chunked, no Content-Length) and resolves to the answer, or the socket error that cut it. */
  const upload = (path: string, contentType: string, total: number): Promise<{ status: number; text: string } | string> =>
    new Promise((resolve) => {
      const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': contentType } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', (e: NodeJS.ErrnoException) => resolve(`cut: ${e.code ?? e.message}`));
      const chunk = Buffer.alloc(1 << 20, 'a');
      let sent = 0;
      const step = (): void => {
        if (sent >= total || req.destroyed) {
          req.end();
          return;
        }
        sent += chunk.length;
        if (req.write(chunk)) setImmediate(step);
        else req.once('drain', step);
      };
      step();
    });

  const expect611 = (answer: { status: number; text: string } | string): void => {
    assert.ok(typeof answer !== 'string', `the upload was cut instead of answered (${typeof answer === 'string' ? answer : answer.status})`);
    assert.equal(answer.status, 400, answer.text);
    assert.equal((JSON.parse(answer.text) as { error: number }).error, 611, answer.text);
  };

  it('every oversize body is answered with WE’s 611, as /transactions/broadcast answers it, never cut mid-upload', async () => {
    const post = async (path: string, body: string, contentType = 'application/json') => {
      const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
      return { status: r.status, text: await r.text() };
    };
    const address = '3N4SMepHjvR6wQZBZhnbC2uLAdd6LZubK5t';
    // 10 MB of JSON to /utils/hash/secure; 200k addresses to validateMany; a mass transfer with 100k entries.
    expect611(await post('/utils/hash/secure', JSON.stringify({ message: 'a'.repeat(10_000_000) })));
    expect611(await post('/addresses/validateMany', JSON.stringify({ addresses: Array.from({ length: 200_000 }, () => address) })));
    const massTransfer = {
      type: 11,
      version: 2,
      sender: address,
      fee: 100_000_000,
      assetId: null,
      transfers: Array.from({ length: 100_000 }, () => ({ recipient: address, amount: 1 })),
    };
    expect611(await post('/transactions/broadcast', JSON.stringify(massTransfer)));
    expect611(await post('/transactions/sign', JSON.stringify(massTransfer)));
    // 100 MB of text to /utils/hash/fast, streamed without a declared length.
    expect611(await upload('/utils/hash/fast', 'text/plain', 100 * 2 ** 20));
    // The node still answers.
    assert.ok((await height()) > 0);
  });
});

describe('REST under abuse: wrong-password floods on the signing routes', () => {
  /** A fixture server whose wallet is a real keystore (real scrypt) with one account. */
  async function serverWithKeystore(maxFailures: number) {
    const keystore = Keystore.open(`${tempDir('weft-abuse-ks-')}/keystore.json`, protocol.addresses, {
      scrypt: { N: 2 ** 14, r: 8, p: 1 },
      unlockLimit: { maxFailures, windowMs: 60_000 },
    });
    const address = keystore.addKeyPair(protocol.crypto.generateKeyPair(), 'right');
    const app = createApiServer({ ...fixtureChain().services, wallet: walletService(keystore) }, { logger: false });
    const base = await listen(app, { bindAddress: '127.0.0.1', port: 0 });
    after(() => app.close());
    const signText = async (password: string) => {
      const r = await fetch(`${base}/addresses/signText/${address}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello', password }),
      });
      return { status: r.status, body: (await r.json()) as { error?: number; signature?: string } };
    };
    return { base, signText, keystore, address };
  }

  it('/transactions/sign derives the password once: the key it unlocks is the one that signs', async () => {
    const { base, keystore, address } = await serverWithKeystore(5);
    const { calls } = watchKeystore(keystore);
    const sign = async () => {
      const body = JSON.stringify({ type: 4, version: 2, sender: address, password: 'right', recipient: address, amount: 1, fee: 1_000_000 });
      const r = await fetch(`${base}/transactions/sign`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: r.status, body: (await r.json()) as { senderPublicKey?: string; proofs?: string[] } };
    };
    for (let round = 0; round < 2; round++) {
      // Each round starts locked (a reload forgets unlocked keys): one derivation per request at most.
      keystore.reload();
      calls.unlock = calls.keyPair = 0;
      const signed = await sign();
      assert.equal(signed.status, 200);
      assert.equal(signed.body.proofs?.length, 1);
      assert.deepEqual(calls, { unlock: 1, keyPair: 0 }, 'one unlock, off the event loop, and no second derivation');
    }
  });

  it('scrypt runs off the event loop: other requests are answered while 24 wrong passwords are derived, each answered 115', async () => {
    const { base, signText } = await serverWithKeystore(1000);
    let answered = 0;
    const flood = Array.from({ length: 24 }, (_, i) => signText(`wrong-${i}`).then((r) => (answered++, r)));
    const height = await fetch(`${base}/blocks/height`);
    assert.equal(height.status, 200);
    const floodAnsweredBefore = answered;
    for (const r of await Promise.all(flood)) assert.deepEqual([r.status, r.body.error], [400, 115]);
    assert.ok(floodAnsweredBefore < 24, 'the height was answered before the whole flood was derived');
    const right = await signText('right');
    assert.equal(right.status, 200);
    assert.ok(right.body.signature);
  });

  it('an address takes a bounded number of wrong passwords, then answers 115 with status 429 — even to the right one', async () => {
    const { signText } = await serverWithKeystore(5);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => signText(`guess-${i}`)));
    assert.equal(answers.filter((r) => r.status === 400 && r.body.error === 115).length, 5);
    assert.equal(answers.filter((r) => r.status === 429 && r.body.error === 115).length, 15);
    assert.deepEqual([(await signText('right')).status, (await signText('right')).body.error], [429, 115]);
  });
});

describe('REST under abuse: large block-range reads', () => {
  it('/blocks/seq and seqext let the event loop turn between blocks once a slice is used, and before each large block (mining and other requests go on), and answer the same JSON', async () => {
    const services = fixtureChain().services;
    const chain = services.chain;
    // Every height of 1..100 holds the fixture's last block: a full-size range.
    const block = chain.blockAt(chain.height())!;
    let turned = false;
    let turnedWithinRange: boolean | undefined;
    const onRead = (h: number): void => {
      if (h === 1) {
        turned = false;
        setImmediate(() => (turned = true));
      }
      if (h === 100) turnedWithinRange = turned;
    };
    const server = (size: number | undefined, sliceMs: number) => {
      const app = createApiServer(
        { ...services, chain: everyHeightHolds(chain, block, onRead, size) },
        { logger: false, heavyReads: { ...DEFAULT_HEAVY_READ_LIMITS, sliceMs } },
      );
      after(() => app.close());
      return apiClient(app, ROUTE_GROUPS);
    };
    // Small blocks, every slice used at once: a turn between blocks. Blocks reported large
    // (over 64 KiB), with the default slice: each starts a slice of its own. Small blocks and
    // the default slice: as many blocks in a slice as its time allows (no turn asserted).
    for (const [client, turns] of [
      [server(undefined, 0), true],
      [server(1 << 20, DEFAULT_HEAVY_READ_LIMITS.sliceMs), true],
      [server(undefined, DEFAULT_HEAVY_READ_LIMITS.sliceMs), undefined],
    ] as const) {
      for (const url of ['/blocks/seq/1/100', '/blocks/seqext/1/100']) {
        turnedWithinRange = undefined;
        const r = await client.request({ method: 'GET', url });
        assert.equal(r.status, 200);
        if (turns) assert.equal(turnedWithinRange, true, `${url}: the loop turned while the range was serialized`);
        const blocks = JSON.parse(r.text) as Array<{ height: number; signature: string }>;
        assert.deepEqual(
          blocks.map((b) => b.height),
          Array.from({ length: 100 }, (_, i) => i + 1),
        );
        assert.ok(blocks.every((b) => b.signature === blocks[0]!.signature));
        // int64 as strings when asked for, as every other answer.
        const asStrings = await client.request({
          method: 'GET',
          url: url.replace('/100', '/2'),
          headers: { accept: 'application/json;large-significand-format=string' },
        });
        assert.match(asStrings.text, /"timestamp":"\d+"/);
      }
    }
  });
});

describe('REST under abuse: heavy reads are bounded (byte budget, concurrency) and answer the same JSON', () => {
  /** A fixture server whose heights 1..100 all hold the fixture's last block, with these heavy-read limits. */
  function rangeServer(limits: Partial<HeavyReadLimits>) {
    const services = fixtureChain().services;
    const chain = services.chain;
    const block = chain.blockAt(chain.height())!;
    const app = createApiServer(
      { ...services, chain: everyHeightHolds(chain, block) },
      { logger: false, heavyReads: { ...DEFAULT_HEAVY_READ_LIMITS, ...limits } },
    );
    after(() => app.close());
    return { client: apiClient(app, ROUTE_GROUPS), block };
  }

  it('a range and a block are byte for byte what one-go serialization makes, in both int64 renderings', async () => {
    const { client, block } = rangeServer({});
    for (const accept of [undefined, 'application/json;large-significand-format=string']) {
      const int64AsString = accept !== undefined;
      const headers: Record<string, string> = accept === undefined ? {} : { accept };
      const seq = await client.request({ method: 'GET', url: '/blocks/seq/7/9', headers });
      assert.equal(seq.status, 200);
      assert.match(String(seq.headers['content-type']), /^application\/json/);
      assert.equal(seq.text, `[${[7, 8, 9].map((h) => stringifyJson(blockJson(block, h), { int64AsString })).join(',')}]`);
      const one = await client.request({ method: 'GET', url: `/blocks/signature/${block.idBase58}`, headers });
      assert.equal(one.status, 200);
      assert.equal(JSON.parse(one.text).signature, block.idBase58);
      assert.equal(Number(one.headers['content-length']), Buffer.byteLength(one.text));
    }
  });

  it('a range past the byte budget of one answer is refused with WE’s error 10, saying to ask for fewer; a single block is answered whatever its size', async () => {
    const { client, block } = rangeServer({ responseBytes: 4096 });
    const oneBlockBytes = Buffer.byteLength(stringifyJson(blockJson(block, 1)));
    assert.ok(oneBlockBytes * 100 > 4096, 'the fixture range is larger than the budget');
    const r = await client.request({ method: 'GET', url: '/blocks/seq/1/100' });
    assert.equal(r.status, 400, r.text);
    const body = JSON.parse(r.text) as { error: number; message: string };
    assert.equal(body.error, 10);
    assert.match(body.message, /^Too big sequences requested: the answer would exceed 4096 bytes; ask for fewer/);
    assert.equal((await client.request({ method: 'GET', url: '/blocks/seqext/1/100' })).status, 400);
    // One block is never refused for its size.
    assert.equal((await client.request({ method: 'GET', url: '/blocks/at/5' })).status, 200);
    // Within the budget, a shorter range is answered.
    const fits = Math.max(1, Math.floor(4096 / (oneBlockBytes + 16)));
    assert.equal((await client.request({ method: 'GET', url: `/blocks/seq/1/${fits}` })).status, 200);
  });

  it('more heavy reads than build and wait at once are answered 503 with error 642; the rest are served, and so are light requests meanwhile', async () => {
    const { client } = rangeServer({ concurrent: 1, waiting: 2 });
    const reads = Array.from({ length: 8 }, () => client.request({ method: 'GET', url: '/blocks/seq/1/100' }));
    const height = await client.request({ method: 'GET', url: '/blocks/height' });
    assert.equal(height.status, 200);
    const answers = await Promise.all(reads);
    const served = answers.filter((a) => a.status === 200);
    const busy = answers.filter((a) => a.status === 503);
    assert.equal(served.length + busy.length, 8, answers.map((a) => a.status).join(','));
    assert.equal(served.length, 3, 'one building and two waiting are served');
    for (const b of busy) assert.deepEqual(JSON.parse(b.text), { error: 642, message: "Max heavy reads count '3' has been exceeded. Please, try again later" });
    for (const s of served) assert.equal((JSON.parse(s.text) as unknown[]).length, 100);
    // Once they are done, a heavy read is served again.
    assert.equal((await client.request({ method: 'GET', url: '/blocks/seq/1/100' })).status, 200);
  });
});

describe('REST under abuse: concurrent heavy reads while a dev node mines', { timeout: 180_000 }, () => {
  const fleet = new NodeFleet();

  it('8 clients looping on /blocks/seq and seqext over full blocks: every answer whole (200) or 503/642, /node/status answers, and a transfer sent meanwhile is mined', async () => {
    const node = await fleet.start();
    const accounts = devAccounts(protocol);
    const transferFrom = (i: number, amount: number): { id: string; json: string } => {
      const from = accounts[i % accounts.length]!;
      const json = {
        type: 4,
        version: 3,
        senderPublicKey: encodeBase58(from.keyPair.publicKey),
        recipient: accounts[(i + 1) % accounts.length]!.address,
        amount,
        fee: 1_000_000,
        attachment: '',
        timestamp: Date.now() + i,
        proofs: [],
      };
      const tx = protocol.sign(protocol.transactionFromJson(json, { forBroadcast: false }), from.keyPair.privateKey);
      return { id: tx.idBase58, json: stringifyJson(tx.toJson()) };
    };
    // Blocks worth reading: 400 transfers, all mined.
    const fill = Array.from({ length: 400 }, (_, i) => transferFrom(i, 1000 + i));
    for (let i = 0; i < fill.length; i += 50) {
      const answers = await Promise.all(fill.slice(i, i + 50).map((t) => node.post('/transactions/broadcast', t.json)));
      for (const a of answers) assert.equal(a.status, 200, a.text);
    }
    await confirmed(node, fill[fill.length - 1]!.id, 60_000);
    const top = ((await node.get('/blocks/height')).json as { height: number }).height;

    let reading = true;
    const statuses = new Map<number, number>();
    const readers = Array.from({ length: 8 }, async (_, i) => {
      const path = i % 2 === 0 ? 'seq' : 'seqext';
      for (let n = 0; reading && n < 200; n++) {
        const r = await node.get(`/blocks/${path}/1/${top}`, { timeoutMs: 60_000 });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 200)
          assert.deepEqual(
            (r.json as Array<{ height: number }>).map((b) => b.height),
            Array.from({ length: top }, (_, k) => k + 1),
          );
        else assert.deepEqual([r.status, r.json.error], [503, 642], r.text);
      }
    });
    try {
      // While they read: the node answers its status, and a new transfer is mined.
      const status = await node.get('/node/status');
      assert.equal(status.status, 200, status.text);
      const sent = transferFrom(7, 4242);
      assert.equal((await node.post('/transactions/broadcast', sent.json)).status, 200);
      const info = await confirmed(node, sent.id, 60_000);
      assert.ok(info.height >= top);
    } finally {
      reading = false;
      await Promise.all(readers);
    }
    assert.ok((statuses.get(200) ?? 0) >= 8, `heavy reads were answered: ${[...statuses].join(' ')}`);
  });
});

describe('REST under abuse: key patterns that would backtrack for minutes', { timeout: 180_000 }, () => {
  const fleet = new NodeFleet();

  it('`matches` runs in linear time: a pattern a backtracking engine takes minutes over a 50-character key is answered at once, and /node/status meanwhile', async () => {
    const node = await fleet.start();
    const author = devAccounts(protocol)[1]!;
    const key = 'k'.repeat(50);
    const json = {
      type: 12,
      version: 2,
      senderPublicKey: encodeBase58(author.keyPair.publicKey),
      authorPublicKey: encodeBase58(author.keyPair.publicKey),
      data: [{ key, type: 'string', value: 'v' }],
      fee: 5_000_000,
      timestamp: Date.now(),
      proofs: [],
    };
    const tx = protocol.sign(protocol.transactionFromJson(json, { forBroadcast: false }), author.keyPair.privateKey);
    const sent = await node.post('/transactions/broadcast', stringifyJson(tx.toJson()));
    assert.equal(sent.status, 200, sent.text);
    await confirmed(node, tx.idBase58, 60_000);
    // 14 alternatives that each take any character: JavaScript's and Java's engines try 14^50 ways
    // to read the key before they give up on the final `!` (the node was frozen ~9 minutes).
    const pattern = encodeURIComponent(`(${Array(14).fill('.').join('|')})*!`);
    const [filtered, status] = await Promise.all([
      node.get(`/addresses/data/${author.address}?matches=${pattern}`, { timeoutMs: 30_000 }),
      node.get('/node/status', { timeoutMs: 30_000 }),
    ]);
    assert.equal(filtered.status, 200, filtered.text);
    assert.deepEqual(filtered.json, []);
    assert.equal(status.status, 200, status.text);
    const whole = await node.get(`/addresses/data/${author.address}?matches=${encodeURIComponent('(k|kk)*')}`);
    assert.deepEqual(
      (whole.json as Array<{ key: string }>).map((e) => e.key),
      [key],
    );
  });
});
