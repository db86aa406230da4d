/**
 * One Weft node and a WE 1.14 peer (devkit/we-peer, its own wire written from we-node's
 * network code) as the devnet's second miner: for each message code a WE 1.14 node sends, a
 * frame built from WE's layout goes to Weft, the channel stays open, and Weft answers as a WE
 * node would (GetBlocks → HistoryBlock 45, MicroBlockRequest → MicroBlockResponseV2 47, a 43
 * → a 27 and the micro-block applied…). Everything Weft sends the peer is checked against
 * WE's layouts and the forms WE gives a 1.14 peer; the last test fails on any violation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { Devnet, sleep, until } from '../../devkit/network.js';
import { devnetWePeer } from '../../devkit/we-peer/devnet.js';
import type { WeConnection, WePeer } from '../../devkit/we-peer/peer.js';
import { encodeSignatures, encodeWithCertChain, encodeMicroBlockResponseV2, WeWriter, type WeCode } from '../../devkit/we-peer/wire.js';
import { devAccounts, type DevAccount } from '../../src/cli/dev.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { stringifyJson } from '../../src/protocol/json.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { signedTransferTx } from '../support/transfers.js';

const STAY_OPEN_MS = 2000;

describe('a WE 1.14 peer sends Weft every message code', { timeout: 240_000 }, () => {
  let net: Devnet;
  let peer: WePeer;
  let p: Protocol;
  let accounts: DevAccount[];
  let amount = 1n;
  const pending: Transaction[] = [];

  const transfer = (from = 1, to = 2): Transaction => signedTransferTx(p, accounts[from]!, accounts[to]!, amount++, BigInt(Date.now()));

  before(async () => {
    net = await Devnet.create({ nodes: 2, roundDurationMs: 3000, syncDurationMs: 1000, bans: { maxBansPercentage: 0 }, register: false });
    await net.nodes[0]!.start();
    ({ peer, protocol: p } = await devnetWePeer(net.layout, 1, { mine: true, transactions: () => pending.splice(0), microBlockIntervalMs: 500 }));
    accounts = devAccounts(p);
    peer.start();
  });

  after(async () => {
    await peer?.stop();
    await net?.dispose();
  });

  /** An open connection to the Weft node (a new one when a previous test's was closed; Weft may hold a suspension for a while). */
  async function connection(): Promise<WeConnection> {
    const open = peer.openConnections()[0];
    if (open !== undefined) return open;
    let lastError = '';
    return until(
      'a handshake with the Weft node',
      async () => {
        try {
          return await peer.connect(net.nodes[0]!.spec.p2pPort);
        } catch (e) {
          lastError = (e as Error).message;
          return undefined;
        }
      },
      30_000,
      500,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; last: ${lastError}\n${net.outputs(1500)}`);
    });
  }

  /** Sends one frame and checks Weft keeps the channel for a while; returns the connection. */
  async function sendAndStayOpen(code: WeCode, payload: Uint8Array): Promise<{ c: WeConnection; since: number }> {
    const c = await connection();
    const since = Date.now();
    c.send(code, payload);
    await sleep(STAY_OPEN_MS);
    assert.equal(c.closed, false, `Weft closed the channel after a well-formed ${code}: ${c.closeReason ?? ''}\n${net.outputs(2000)}`);
    return { c, since };
  }

  const awaitCode = (c: WeConnection, code: number, since: number, timeoutMs = 10_000): Promise<true> =>
    until(`Weft to send ${code}`, () => (peer.receivedCodes(since, c).includes(code) ? true : undefined), timeoutMs, 100);

  const inWeft = async (id: string): Promise<boolean> => {
    const node = net.nodes[0]!;
    return (await node.get(`/transactions/info/${id}`)).status === 200 || (await node.get(`/transactions/unconfirmed/info/${id}`)).status === 200;
  };

  it('the handshake: Weft answers a V3 handshake and sends GetPeers, RawAttributes 42 and its score', async () => {
    const c = await connection();
    await until(
      'GetPeers, RawAttributes and Score from Weft',
      () => ([3, 42, 24].every((code) => peer.receivedCodes(0, c).includes(code)) ? true : undefined),
      10_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; Weft sent ${peer.receivedCodes(0, c).join(', ')}`);
    });
    // In WE's order (PeerSynchronizer, NodeAttributesSender): GetPeers, RawAttributes, then Score.
    const codes = peer.receivedCodes(0, c);
    const first = (code: number): number => codes.indexOf(code);
    assert.ok(first(3) < first(42) && first(42) < first(24), `Weft sent ${codes.join(', ')}`);
    assert.ok(c.remote !== undefined && c.remote.version[0] === 1 && c.remote.version[1] >= 14, `Weft declares ${c.remote?.version.join('.')}`);
  });

  it('3 GetPeers is answered by 4 Peers', async () => {
    const { c, since } = await sendAndStayOpen(3, new Uint8Array(0));
    await awaitCode(c, 4, since);
  });

  it('4 Peers is read', async () => {
    await sendAndStayOpen(4, new WeWriter().short(1).shortString('127.0.0.1').int(6864).bytes());
  });

  it('20 GetSignatures is answered by 21 Signatures from the common block', async () => {
    const genesis = peer.chain.blocks[0]!.id;
    const { c, since } = await sendAndStayOpen(20, encodeSignatures([genesis]));
    await awaitCode(c, 21, since);
    const reply = peer.received.find((r) => r.at >= since && r.connection === c.id && r.code === 21)!;
    assert.deepEqual(reply.payload.subarray(4, 68), Buffer.from(genesis));
  });

  it('21 Signatures is read', async () => {
    await sendAndStayOpen(21, encodeSignatures([peer.chain.blocks[0]!.id]));
  });

  it("23 Block: the WE miner's key blocks are applied by Weft", async () => {
    await connection();
    const block = await until(
      'the WE peer to forge a key block Weft applies',
      async () => {
        for (const b of peer.forged) if ((await net.nodes[0]!.get(`/blocks/signature/${encodeBase58(b.id)}`)).status === 200) return b;
        return undefined;
      },
      60_000,
      500,
    );
    assert.ok(block !== undefined);
  });

  it('24 Score is read', async () => {
    await sendAndStayOpen(24, Buffer.from([1]));
  });

  it('25 Transaction: the transaction reaches the pool', async () => {
    const tx = transfer();
    await sendAndStayOpen(25, tx.bytes);
    await until('the transaction in Weft', () => inWeft(tx.idBase58).then((ok) => ok || undefined), 10_000);
  });

  it('46 BroadcastedTransaction (with an empty certificate list): the transaction reaches the pool', async () => {
    const tx = transfer();
    await sendAndStayOpen(46, encodeWithCertChain(tx.bytes));
    await until('the transaction in Weft', () => inWeft(tx.idBase58).then((ok) => ok || undefined), 10_000);
  });

  it("27 MicroBlockRequest for Weft's own micro-block is answered by MicroBlockResponseV2 47", async () => {
    const c = await connection();
    const since = Date.now();
    // Weft mines micro-blocks of transactions in its pool during its own rounds.
    const inventory = await until(
      "an inventory of Weft's micro-block",
      async () => {
        await net.nodes[0]!.post('/transactions/broadcast', stringifyJson(transfer(2, 3).toJson()));
        return peer.received.find((r) => r.at >= since && r.connection === c.id && (r.code === 43 || r.code === 26));
      },
      60_000,
      700,
    );
    const total = inventory.payload.subarray(32, 96);
    const asked = Date.now();
    c.send(27, total);
    await until('a micro-block response', () => (peer.receivedCodes(asked, c).some((code) => code === 47 || code === 28) ? true : undefined), 10_000);
    assert.ok(peer.receivedCodes(asked, c).includes(47), 'the response to a 1.14 peer is MicroBlockResponseV2 47');
  });

  /** Waits for a micro-block the peer announces with `code`, then for Weft to ask for it by 27 and apply it. */
  async function ownMicroBlockApplied(code: 26 | 43): Promise<void> {
    const c = await connection();
    peer.inventoryCode = code;
    try {
      const since = Date.now();
      const tx = transfer();
      pending.push(tx);
      await until(
        `a micro-block announced by ${code}, requested by 27 and applied`,
        async () => {
          if (c.closed) throw new Error(`Weft closed the channel: ${c.closeReason ?? ''}`);
          if (pending.length === 0 && !peer.received.some((r) => r.at >= since && r.code === 27)) pending.push(transfer());
          return (await net.nodes[0]!.get(`/transactions/info/${tx.idBase58}`)).status === 200 ? true : undefined;
        },
        60_000,
        500,
      );
      assert.ok(peer.receivedCodes(since, c).includes(27), 'Weft asked for the micro-block by MicroBlockRequest 27');
      assert.equal(c.closed, false, `Weft closed the channel: ${c.closeReason ?? ''}`);
    } finally {
      peer.inventoryCode = 43;
    }
  }

  it('26 MicroBlockInventoryV1 is still accepted: Weft asks for the micro-block and applies it', async () => {
    await ownMicroBlockApplied(26);
  });

  it('43 MicroBlockInventoryV2: Weft asks for the micro-block (27), gets it as 47 and applies it', async () => {
    await ownMicroBlockApplied(43);
  });

  it('28 and 47 micro-block responses nobody asked for are read', async () => {
    const micro = [...peer.chain.micros].pop();
    const bytes = micro?.bytes ?? new Uint8Array(0);
    if (micro === undefined) return;
    await sendAndStayOpen(47, encodeMicroBlockResponseV2(bytes));
    await sendAndStayOpen(28, bytes);
  });

  it('29 ContractExecutionMessage (a signed contract status) is read', async () => {
    await sendAndStayOpen(
      29,
      peer.contractStatus({ txId: randomBytes(32), status: 'Success', code: undefined, message: 'executed', timestamp: BigInt(Date.now()) }),
    );
  });

  it('33 Vote is read', async () => {
    const hash = randomBytes(32);
    const body = Buffer.concat([peer.owner.publicKey, hash]);
    await sendAndStayOpen(33, Buffer.concat([body, p.crypto.sign(peer.owner.privateKey, body)]));
  });

  it('34 GetBlocks is answered by HistoryBlock 45 (WE 1.11.1+ form)', async () => {
    const first = await until('a block after genesis', () => peer.chain.blocks[1] ?? undefined, 60_000, 500);
    const { c, since } = await sendAndStayOpen(34, Buffer.from(first.id));
    await until('a block reply', () => (peer.receivedCodes(since, c).some((code) => code === 45 || code === 23) ? true : undefined), 10_000);
    assert.ok(peer.receivedCodes(since, c).includes(45), 'a GetBlocks reply to a 1.14 peer is HistoryBlock 45');
  });

  it('35 SnapshotNotification is read', async () => {
    await sendAndStayOpen(35, new WeWriter().raw(peer.owner.publicKey).long(1024n).bytes());
  });

  it('37 GenesisSnapshotRequest is answered by 38: this node has no snapshot', async () => {
    const c = await connection();
    const since = Date.now();
    const body = new WeWriter().raw(peer.owner.publicKey).raw(peer.chain.blocks[0]!.id).long(0n).bytes();
    c.send(37, Buffer.concat([body, p.crypto.sign(peer.owner.privateKey, body)]));
    // WE (GenesisSnapshotSource) answers with GenesisSnapshotError and closes after it; Weft may keep the channel.
    await awaitCode(c, 38, since);
    const answer = peer.received.find((r) => r.at >= since && r.connection === c.id && r.code === 38)!;
    const length = Buffer.from(answer.payload).readInt32BE(0);
    assert.match(
      Buffer.from(answer.payload)
        .subarray(4, 4 + length)
        .toString('utf8'),
      /^Snapshot is not found for address '\w+'$/,
    );
  });

  it('38 GenesisSnapshotError is read', async () => {
    await sendAndStayOpen(38, new WeWriter().bigBytes(Buffer.from('snapshot is not available', 'utf8')).bytes());
  });

  it('41 MissingBlock is read', async () => {
    await sendAndStayOpen(41, randomBytes(64));
  });

  it('42 RawAttributes is read', async () => {
    const body = Buffer.from([0, 0]);
    await sendAndStayOpen(42, new WeWriter().raw(peer.owner.publicKey).shortBytes(body).raw(p.crypto.sign(peer.owner.privateKey, body)).bytes());
  });

  it('45 HistoryBlock nobody asked for is read', async () => {
    await sendAndStayOpen(45, encodeWithCertChain(peer.chain.blocks[0]!.bytes));
  });

  it('48 MissingCrlsRequest is read', async () => {
    await sendAndStayOpen(
      48,
      new WeWriter()
        .raw(peer.owner.publicKey)
        .shortString('http://127.0.0.1/crl')
        .short(1)
        .shortBytes(Buffer.from([1, 2]))
        .bytes(),
    );
  });

  it('49 CrlDataByHashesRequest is read', async () => {
    await sendAndStayOpen(49, new WeWriter().short(1).shortBytes(randomBytes(20)).bytes());
  });

  it('50 CrlDataByTimestampRangeRequest is read', async () => {
    const now = BigInt(Date.now());
    await sendAndStayOpen(
      50,
      new WeWriter()
        .long(now - 60_000n)
        .long(now)
        .bytes(),
    );
  });

  it('51 CrlDataResponse is read', async () => {
    await sendAndStayOpen(51, new WeWriter().byte(0).short(0).bytes());
  });

  it('36 SnapshotRequest on a channel no snapshot was offered on is closed, as WE closes an unidentified channel', async () => {
    const c = await connection();
    c.send(36, new WeWriter().raw(peer.owner.publicKey).long(0n).bytes());
    await until('Weft to close the channel', () => (c.closed ? true : undefined), 10_000, 50);
  });

  it('Weft sent the WE peer nothing a WE 1.14 node would not send a 1.14 peer', () => {
    assert.deepEqual(peer.violations, []);
  });
});
