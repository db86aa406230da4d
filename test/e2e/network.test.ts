/**
 * A network of four real node processes on loopback (devkit/network.ts over
 * src/cli/devnet.ts: shared genesis, every node a registered miner, PoA 3 s rounds + 1 s
 * sync, miner.quorum 1), driven over REST and, for the faults, over raw P2P sockets:
 *
 * - the peers API (connected, all, allowedNodes, hostname, the /peers auth quirk);
 * - transfers sent to any node are confirmed on all; every node reports the same block
 *   signatures at every height;
 * - the current miner is killed: its slot is skipped, the others carry on, and the warnings
 *   in /consensus/minersWarningsAndBans are the same on every node; restarted, it catches up
 *   onto the one chain;
 * - a node is cut off (restarted with no known peers on a port the others do not know), gets
 *   a transfer meanwhile, is reconnected with POST /peers/connect and rebroadcasts its pool
 *   with GET /debug/utx-rebroadcast: nothing confirmed is lost, its transfer is confirmed, one
 *   chain;
 * - a handshake signed by a key that is not a registered participant is refused;
 * - garbage, and an oversize frame after a valid handshake, close only that connection: the
 *   node keeps its peers, keeps serving, and lists the host as suspended.
 *
 * Every wait has a deadline.
 */
import assert from 'node:assert/strict';
import { connect as netConnect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { decodeBase58 } from '../../src/crypto/encoding.js';
import { encodeFrame } from '../../src/network/framing.js';
import { encodeHandshake } from '../../src/network/handshake.js';
import { createPeerTransport } from '../../src/network/transport.js';
import { MessageCode } from '../../src/network/types.js';
import { devAccounts, devProtocol, type DevAccount } from '../../src/cli/dev.js';
import { RegisterNode } from '../../src/protocol/transactions/nodes.js';
import { devnetNodeKeyPair } from '../../src/cli/devnet.js';
import { stringifyJson } from '../../src/protocol/json.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import { Devnet, oneChain, sleep, until, type NetNode } from '../../devkit/network.js';
import { signedTransfer } from '../support/transfers.js';

const NODES = 4;

let p: Protocol;
let accounts: DevAccount[];
let net: Devnet;
/** The genesis nodes; net.nodes[NODES] joins later through a RegisterNode transaction. */
let members: NetNode[];
let nonce = 0;

/** A signed transfer as REST JSON text. */
function transfer(from: DevAccount, to: DevAccount, amount: bigint): { id: string; body: string } {
  return signedTransfer(p, from, to, amount, BigInt(Date.now()) + BigInt(nonce++));
}

async function broadcast(node: NetNode, t: { id: string; body: string }): Promise<void> {
  const r = await node.post('/transactions/broadcast', t.body);
  assert.equal(r.status, 200, `broadcast to ${node.spec.name}: ${r.text}`);
}

async function confirmedOn(nodes: readonly NetNode[], ids: readonly string[], timeoutMs: number): Promise<void> {
  await until(
    `${ids.length} transaction(s) confirmed on ${nodes.map((n) => n.spec.name).join(', ')}`,
    async () => {
      for (const n of nodes) for (const id of ids) if ((await n.get(`/transactions/info/${id}`)).status !== 200) return undefined;
      return true;
    },
    timeoutMs,
    300,
  );
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = netConnect({ host: '127.0.0.1', port });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves when the node closes the socket (false if it stays open past the deadline). */
function closedWithin(s: Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    s.on('error', () => {});
    s.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe('a network of 4 node processes', { timeout: 170_000 }, () => {
  after(() => net?.dispose());
  before(async () => {
    p = await devProtocol();
    accounts = devAccounts(p);
    // Cleaned up by the suite's `after` (an `after` registered inside `before` would run when the hook ends).
    net = await Devnet.create({ nodes: NODES + 1, joining: 1, roundDurationMs: 3000, syncDurationMs: 1000, microBlockIntervalMs: 500, register: false });
    members = net.nodes.slice(0, NODES);
    process.once('exit', () => net.killAll());
    await Promise.all(members.map((n) => n.start(90_000)));
    try {
      await net.meshed(20_000);
      await until('height 3 on every node', async () => ((await Promise.all(members.map((n) => n.height()))).every((h) => h >= 3) ? true : undefined), 30_000);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
  });

  it('shows its peers as WE does (connected, all, allowedNodes, hostname; unknown /peers paths need the key)', async () => {
    const [n0, n1] = members as [NetNode, NetNode];
    const peers = await n0.connectedPeers();
    assert.deepEqual(peers.map((x) => x.peerName).sort(), ['devnet-node-1', 'devnet-node-2', 'devnet-node-3']);
    const p1 = peers.find((x) => x.peerName === 'devnet-node-1')!;
    assert.equal(p1.nodeOwnerAddress, n1.spec.ownerAddress);
    assert.equal(p1.declaredAddress, `/127.0.0.1:${n1.spec.p2pPort}`);
    assert.match(p1.address, /^\/127\.0\.0\.1:\d+$/);
    const full = (await n0.get('/peers/connected')).json as { peers: Array<Record<string, unknown>> };
    assert.deepEqual(
      Object.keys(full.peers[0]!).sort(),
      ['address', 'applicationConsensus', 'applicationVersion', 'declaredAddress', 'nodeOwnerAddress', 'peerName', 'peerNonce'].sort(),
    );
    assert.equal(full.peers[0]!['applicationVersion'], '1.14.0');
    assert.equal(full.peers[0]!['applicationConsensus'], 'PoA');

    const all = (await n0.get('/peers/all')).json as { peers: Array<{ address: string; lastSeen: number }> };
    for (const other of members.slice(1))
      assert.ok(
        all.peers.some((x) => x.address === `/127.0.0.1:${other.spec.p2pPort}` && x.lastSeen > 0),
        `/peers/all lists ${other.spec.name}`,
      );

    const allowed = await n0.get('/peers/allowedNodes');
    assert.equal(allowed.status, 200);
    const allowedAddresses = (allowed.json as { allowedNodes: Array<{ address: string; publicKey: string }> }).allowedNodes.map((a) => a.address);
    for (const n of members) assert.ok(allowedAddresses.includes(n.spec.ownerAddress));
    assert.equal((await n0.request('GET', '/peers/allowedNodes', undefined, { apiKey: null })).status, 403);

    const host = await n0.get(`/peers/hostname/${n1.spec.ownerAddress}`);
    assert.equal(host.status, 200);
    assert.equal(host.json.connected, true);
    assert.equal(host.json.ip, '127.0.0.1');
    assert.deepEqual((await n0.get(`/peers/hostname/${accounts[2]!.address}`)).json, { connected: false });
    assert.equal((await n0.get('/peers/hostname/notAnAddress')).json.error, 102);

    const unknown = await n0.request('GET', '/peers/nothing-here', undefined, { apiKey: null });
    assert.equal(unknown.status, 403);
    assert.equal(unknown.json.error, 2);
  });

  const confirmed: string[] = [];

  it('confirms transfers sent to any node on every node, with the same block signatures everywhere', async () => {
    const sent = members.map((n, i) => {
      const t = transfer(accounts[1 + (i % 4)]!, accounts[0]!, 1000n + BigInt(i));
      return { node: n, t };
    });
    for (const { node, t } of sent) await broadcast(node, t);
    const ids = sent.map((s) => s.t.id);
    try {
      await confirmedOn(members, ids, 30_000);
      const common = await oneChain(members);
      assert.ok(common >= 2);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
    confirmed.push(...ids);
  });

  it("reports its loaders in /debug/info: the micro-block caches and the peer scores (WE's field names)", async () => {
    for (const n of members) {
      const r = await n.get('/debug/info');
      assert.equal(r.status, 200);
      const info = r.json as {
        microBlockSynchronizerCacheSizes: { microBlockOwners: number; inventories: number; successfullyReceived: number };
        scoreObserverStats: { localScore: number; currentBestChannel: string; scoresCacheSize: number };
      };
      const caches = info.microBlockSynchronizerCacheSizes;
      assert.ok(caches.successfullyReceived >= 1, `${n.spec.name}: the micro-blocks carrying the transfers are counted (${JSON.stringify(caches)})`);
      assert.ok(caches.inventories >= caches.microBlockOwners);
      assert.match(info.scoreObserverStats.currentBestChannel, /^(None|Some\(\/127\.0\.0\.1:\d+\))$/);
      assert.ok(Number.isInteger(info.scoreObserverStats.scoresCacheSize) && info.scoreObserverStats.scoresCacheSize <= NODES - 1);
      assert.match(r.text, /"localScore":[1-9]\d*/, 'the chain score, as a bare integer');
    }
  });

  it('skips the slot of a killed miner (same warnings on every node), carries on, and the miner catches up when restarted', async () => {
    const n0 = members[0]!;
    const last = (await n0.get('/blocks/headers/last')).json as { generator: string; height: number };
    // The current miner, unless it is node 0 (kept as the observer): then the next one in line.
    let victim = members.find((n) => n.spec.ownerAddress === last.generator)!;
    if (victim.index === 0) victim = members[1]!;
    const others = members.filter((n) => n !== victim);
    await victim.killHard();
    const startHeight = await n0.height();
    try {
      // Its slot comes once every 4 rounds (16 s): wait until the others went past it.
      await until(
        'warnings for the stopped miner on every other node',
        async () => {
          const answers = await Promise.all(others.map((n) => n.get('/consensus/minersWarningsAndBans')));
          const texts = answers.map((a) => JSON.stringify(a.json));
          if (!texts.every((t) => t === texts[0])) return undefined;
          const entry = (answers[0]!.json as { warningsAndBans: Array<{ address: string; warnings: unknown[]; bans: unknown[] }> }).warningsAndBans.find(
            (w) => w.address === victim.spec.ownerAddress,
          );
          return entry !== undefined && entry.warnings.length + entry.bans.length > 0 ? true : undefined;
        },
        40_000,
        500,
      );
      const t = transfer(accounts[3]!, accounts[4]!, 777n);
      await broadcast(others[1]!, t);
      await confirmedOn(others, [t.id], 20_000);
      confirmed.push(t.id);
      assert.ok((await n0.height()) > startHeight, 'the others carry on');
      await oneChain(others);

      await victim.start();
      await until(`${victim.spec.name} to catch up`, async () => ((await victim.height()) >= (await n0.height()) - 1 ? true : undefined), 30_000, 300);
      await confirmedOn([victim], confirmed, 10_000);
      await oneChain(members, 30_000);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
  });

  it('a node cut off and reconnected loses nothing confirmed; its pool goes out with /debug/utx-rebroadcast; one chain', async () => {
    const cut = members[3]!;
    const n0 = members[0]!;
    await cut.stop();
    // Restarted on a P2P port nobody knows, knowing nobody: no connection either way.
    await cut.isolate();
    try {
      await cut.start();
      await sleep(2000);
      assert.deepEqual(await cut.connectedPeers(), [], 'cut off');
      const during = transfer(accounts[2]!, accounts[1]!, 4242n);
      await broadcast(cut, during);
      // Without a miner peer (quorum 1) the cut-off node forges nothing, so its transfer waits in its pool.
      const elsewhere = transfer(accounts[4]!, accounts[1]!, 4343n);
      await broadcast(n0, elsewhere);
      await confirmedOn([n0], [elsewhere.id], 20_000);
      assert.equal((await cut.get(`/transactions/info/${during.id}`)).status, 404);
      assert.equal((await n0.get(`/transactions/info/${during.id}`)).status, 404);

      const r = await cut.post('/peers/connect', { host: '127.0.0.1', port: n0.spec.p2pPort });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.status, 'Trying to connect');
      await until('the cut-off node reconnected', async () => ((await cut.connectedPeers()).length >= 1 ? true : undefined), 15_000);
      await until(`${cut.spec.name} to catch up`, async () => ((await cut.height()) >= (await n0.height()) - 1 ? true : undefined), 30_000, 300);
      const rebroadcast = await cut.get('/debug/utx-rebroadcast');
      assert.equal(rebroadcast.status, 200);
      assert.equal(typeof rebroadcast.json.txsToBroadcast, 'string');
      await confirmedOn(members, [...confirmed, elsewhere.id, during.id], 30_000);
      await oneChain(members, 30_000);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
  });

  it('refuses a handshake signed by a key that is not a registered participant', async () => {
    const n0 = members[0]!;
    const stranger = p.crypto.generateKeyPair();
    const known = new Map(
      members.map((n) => [Buffer.from(p.addresses.parseAddress(n.spec.ownerAddress).bytes).toString('hex'), decodeBase58(n.spec.ownerPublicKey)]),
    );
    const transport = createPeerTransport({
      info: {
        chainId: p.chainId,
        version: [1, 14, 0],
        consensusType: 'PoA',
        declaredAddress: undefined,
        nonce: 99n,
        nodeName: 'stranger',
        ownerAddress: p.addresses.fromPublicKey(stranger.publicKey).bytes,
      },
      sign: (m) => p.crypto.sign(stranger.privateKey, m),
      verify: (k, m, s) => p.crypto.verify(k, m, s),
      participantPublicKey: (a) => known.get(Buffer.from(a).toString('hex')),
      events: { onPeer() {}, onMessage() {}, onClose() {} },
      handshakeTimeoutMs: 5000,
      connectTimeoutMs: 5000,
    });
    try {
      await assert.rejects(transport.connect({ host: '127.0.0.1', port: n0.spec.p2pPort }));
    } finally {
      await transport.close();
    }
    assert.ok(!(await n0.connectedPeers()).some((x) => x.peerName === 'stranger'));
  });

  it('closes only the connection that sends garbage or an oversize frame; keeps its peers and serves; suspends the host', async () => {
    const n0 = members[0]!;
    const peersBefore = (await n0.connectedPeers()).length;
    assert.equal(peersBefore, NODES - 1);

    // The waits below are bounds for a loaded machine (a node process answers in well under a second when quiet).
    const garbage = await openSocket(n0.spec.p2pPort);
    const garbageClosed = closedWithin(garbage, 15_000);
    garbage.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    assert.equal(await garbageClosed, true, 'garbage closes the connection');

    // A registered participant (dev account 1) completes a real handshake, then sends an oversize frame.
    const member = accounts[1]!;
    const s = await openSocket(n0.spec.p2pPort);
    const closed = closedWithin(s, 30_000);
    const handshakeBack = new Promise<boolean>((resolve) => {
      s.once('data', () => resolve(true));
      setTimeout(() => resolve(false), 15_000);
    });
    s.write(
      encodeHandshake(
        {
          chainId: p.chainId,
          version: [1, 14, 0],
          consensusType: 'PoA',
          declaredAddress: undefined,
          nonce: 7n,
          nodeName: 'oversize-sender',
          ownerAddress: p.addresses.fromPublicKey(member.keyPair.publicKey).bytes,
          sessionPublicKey: new Uint8Array(32),
        },
        (m) => p.crypto.sign(member.keyPair.privateKey, m),
      ),
    );
    assert.equal(await handshakeBack, true, 'the node answers a registered participant’s handshake');
    await until(
      'the participant listed as connected',
      async () => ((await n0.connectedPeers()).some((x) => x.peerName === 'oversize-sender') ? true : undefined),
      15_000,
    );
    s.write(encodeFrame(MessageCode.Transaction, new Uint8Array(300 * 1024)));
    assert.equal(await closed, true, 'an oversize frame closes the connection');

    await until(
      'the oversize sender gone',
      async () => (!(await n0.connectedPeers()).some((x) => x.peerName === 'oversize-sender') ? true : undefined),
      15_000,
    );
    assert.equal((await n0.connectedPeers()).length, peersBefore, 'the node keeps its other peers');
    assert.equal((await n0.get('/blocks/height')).status, 200, 'and keeps serving');
    const suspended = (await n0.get('/peers/suspended')).json as Array<{ hostname: string; timestamp: number }>;
    assert.ok(
      suspended.some((x) => x.hostname === '/127.0.0.1' && x.timestamp > 0),
      JSON.stringify(suspended),
    );
    // The network keeps producing one chain.
    const t = transfer(accounts[1]!, accounts[2]!, 9n);
    await broadcast(n0, t);
    await confirmedOn(members, [t.id], 30_000);
    await oneChain(members);
  });

  it('a node registered later with RegisterNode (111): refused before, then accepted, catches up onto the one chain; refused again once removed', async () => {
    const joiner = net.nodes[NODES]!;
    const n0 = members[0]!;
    try {
      await joiner.start();
      // It dials every member (and they dial it): each handshake is refused, it is not a participant.
      await sleep(3000);
      assert.deepEqual(await joiner.connectedPeers(), [], 'no member accepts an unregistered node');
      for (const m of members) assert.ok(!(await m.connectedPeers()).some((x) => x.nodeOwnerAddress === joiner.spec.ownerAddress));
      await joiner.stop();

      // node-0's owner holds connection_manager: it registers the joiner's key.
      const admin = devnetNodeKeyPair(p, 0);
      const register = p.sign(
        p.transaction(RegisterNode, 1, {
          senderPublicKey: admin.publicKey,
          target: decodeBase58(joiner.spec.ownerPublicKey),
          nodeName: joiner.spec.name,
          opType: 'add',
          timestamp: BigInt(Date.now()),
          fee: 1_000_000n,
        }),
        admin.privateKey,
      );
      await broadcast(n0, { id: register.idBase58, body: stringifyJson(register.toJson()) });
      await confirmedOn(members, [register.idBase58], 30_000);
      const allowed = (await n0.request('GET', '/peers/allowedNodes')).json as { allowedNodes: Array<{ address: string }> };
      assert.ok(
        allowed.allowedNodes.some((x) => x.address === joiner.spec.ownerAddress),
        'listed in /peers/allowedNodes',
      );

      await joiner.start();
      await until('the joiner connected to every member', async () => ((await joiner.connectedPeers()).length === NODES ? true : undefined), 30_000, 500);
      await until(`${joiner.spec.name} to catch up`, async () => ((await joiner.height()) >= (await n0.height()) - 1 ? true : undefined), 30_000, 300);
      await confirmedOn([joiner], [register.idBase58], 20_000);
      await oneChain([...members, joiner], 30_000);

      // Removed again (111 with opType remove): from its next connection on, it is refused.
      const revoke = p.sign(
        p.transaction(RegisterNode, 1, {
          senderPublicKey: admin.publicKey,
          target: decodeBase58(joiner.spec.ownerPublicKey),
          nodeName: null,
          opType: 'remove',
          timestamp: BigInt(Date.now()),
          fee: 1_000_000n,
        }),
        admin.privateKey,
      );
      await broadcast(n0, { id: revoke.idBase58, body: stringifyJson(revoke.toJson()) });
      await confirmedOn(members, [revoke.idBase58], 30_000);
      await joiner.stop();
      await joiner.start();
      await sleep(3000);
      assert.deepEqual(await joiner.connectedPeers(), [], 'a removed node is refused again');
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
  });
});
