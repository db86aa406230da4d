/**
 * Certificate chains over P2P (PKI; WE's messages 45, 46, 47) on the in-process transport
 * double, on real forged PoA chains, with a certificate made by OpenSSL's GOST engine:
 *
 * - a transaction carrying a chain goes out as BroadcastedTransaction (46), and the peer
 *   keeps the chain with it;
 * - a node that never saw the transaction gets the micro-block that mines it as
 *   MicroBlockResponse V2 (47) with the chain, and stores the certificate with the block;
 * - a node that joins later syncs the block as HistoryBlock (45) with the certificates that
 *   block stored, and stores them too;
 * - with a certificate policy (PKI TEST/ON), a peer's transaction the policy refuses is not
 *   admitted, relayed or carried; one it accepts goes on with its chain;
 * - the certificates of a peer's block (45) are kept only with that block, once it is
 *   accepted: a refused block leaves none for the same transactions mined in another block;
 *   with a policy, a certificate on no sender's chain is not stored with an accepted block;
 * - 45/46/47 payloads that do not parse close the peer (MalformedMessage); a well-formed
 *   certificate of another algorithm (an ECDSA chain, as on a WAVES network) is left out
 *   instead, and the transaction still goes in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeBase58, equalBytes } from '../../src/crypto/encoding.js';
import { parseCertificate, type Certificate } from '../../src/crypto/pki/x509.js';
import {
  decodeBroadcastedTransaction,
  decodeHistoryBlock,
  decodeMicroBlockResponseV2,
  encodeBlock,
  encodeBroadcastedTransaction,
  encodeHistoryBlock,
  MalformedMessage,
} from '../../src/network/messages.js';
import { Block } from '../../src/protocol/blocks.js';
import { MessageCode } from '../../src/network/types.js';
import { alice, bob, ChainNode, Clock, minerA, minerB, minerC, p, transfer } from '../chain/fork-fixture.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeCertChainStore, encodeCertChainStore } from '../../src/network/cert-chain-codec.js';
import { GostTestCa, openssl } from '../../devkit/pki/openssl-gost.js';
import { netNode, type NetNode } from './net-fixture.js';
import { quiet, until, Wire } from './peer-double.js';

let ca: GostTestCa;
let certificate: Certificate;

before(() => {
  ca = GostTestCa.root('/C=RU/O=Weft Test/CN=Weft P2P Test Root', 'http://127.0.0.1:9/root.crl');
  certificate = parseCertificate(ca.issue({ subject: '/C=RU/O=Weft Test/CN=Travelling User' }).der);
});

after(() => ca?.dispose());

const stored = (n: NetNode): boolean => n.node.store.certificateDnHashByPublicKey(certificate.publicKey.bytes) !== undefined;

describe('certificates over P2P', () => {
  it('travel with a transaction (46), the micro-block that mines it (47) and a history block (45), and are stored with the block on every node', async () => {
    const wire = new Wire();
    const clock = new Clock();
    const a = netNode(wire, 'a', clock, [minerA, minerB, minerC]);
    const b = netNode(wire, 'b', clock, []);
    wire.connect(a.ep, b.ep);
    await quiet(wire);
    // Micro-blocks are announced by the owner key (minerA): mine in a key block of A.
    for (let i = 0; i < 10 && !equalBytes(a.node.chain.lastBlock().generator, minerA.keyPair.publicKey); i++) {
      clock.nextRound();
      a.node.forge();
    }
    assert.ok(equalBytes(a.node.chain.lastBlock().generator, minerA.keyPair.publicKey));
    await until(() => b.node.chain.height() === a.node.chain.height(), 'b at a’s height');

    const tx = transfer(clock, alice, bob, 7n);
    a.node.chain.certificates.carry([tx.id], [certificate]);
    a.node.pool.put(tx);
    a.net.broadcastTransaction(tx);
    await until(() => b.node.pool.get(tx.id) !== undefined, 'b admitted the transaction');
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'a', 'b'), 1);
    assert.equal(wire.count(MessageCode.Transaction, 'a', 'b'), 0);
    assert.deepEqual(
      b.node.chain.certificates.of([tx.id]).map((c) => c.subject.rfc2253),
      ['CN=Travelling User,O=Weft Test,C=RU'],
    );
    // A transaction without a chain goes as 46 too, with an empty certificate list (a 1.14 peer's form).
    const plain = transfer(clock, bob, alice, 1n);
    a.node.pool.put(plain);
    a.net.broadcastTransaction(plain);
    await quiet(wire);
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'a', 'b'), 2);
    assert.equal(wire.count(MessageCode.Transaction, 'a', 'b'), 0);

    // c never saw the transaction: the micro-block brings the chain.
    const c = netNode(wire, 'c', clock, []);
    wire.connect(a.ep, c.ep);
    await until(() => c.node.chain.height() === a.node.chain.height() && !c.net.status().syncing, 'c synced');
    a.node.micro([tx]);
    const tip = (): string => encodeBase58(a.node.chain.lastBlock().id);
    await until(() => encodeBase58(b.node.chain.lastBlock().id) === tip() && encodeBase58(c.node.chain.lastBlock().id) === tip(), 'the micro-block on b and c');
    assert.ok(wire.count(MessageCode.MicroBlockResponseV2, 'a', 'c') >= 1, 'c got the micro-block as 47');
    assert.equal(wire.count(MessageCode.MicroBlockResponse, 'a', 'c'), 0);
    for (const n of [a, b, c]) assert.ok(stored(n), `${n.ep.name} stored the certificate`);
    const height = a.node.chain.height();
    assert.equal(a.node.store.certificatesStoredAt(height).length, 1);

    // d joins later and syncs the block from a: 45 with the certificates that block stored.
    const d = netNode(wire, 'd', clock, []);
    wire.connect(a.ep, d.ep);
    await until(() => encodeBase58(d.node.chain.lastBlock().id) === tip() && !d.net.status().syncing, 'd synced');
    assert.ok(wire.count(MessageCode.HistoryBlock, 'a', 'd') >= 1, 'd got the block as 45');
    assert.ok(stored(d), 'd stored the certificate');
    assert.equal(d.node.stateHash(), a.node.stateHash());
    for (const n of [a, b, c, d]) n.net.close();
  });

  it("a peer's transaction refused by the certificate policy is neither admitted, relayed nor carried", async () => {
    const wire = new Wire();
    const clock = new Clock();
    const seen: Array<{ id: string; certificates: number }> = [];
    const policy = (tx: { idBase58: string }, certificates: readonly Certificate[]): Promise<string | undefined> => {
      seen.push({ id: tx.idBase58, certificates: certificates.length });
      return Promise.resolve(certificates.length === 0 ? 'the network holds no certificate for this key yet' : undefined);
    };
    const a = netNode(wire, 'a', clock, []);
    const b = netNode(wire, 'b', clock, [], {}, { certificatePolicy: policy });
    const c = netNode(wire, 'c', clock, []);
    wire.connect(a.ep, b.ep);
    wire.connect(b.ep, c.ep);
    await quiet(wire);
    const bare = transfer(clock, alice, bob, 3n);
    const certified = transfer(clock, bob, alice, 4n);
    a.node.chain.certificates.carry([certified.id], [certificate]);
    for (const tx of [bare, certified]) {
      a.node.pool.put(tx);
      a.net.broadcastTransaction(tx);
    }
    await until(() => c.node.pool.get(certified.id) !== undefined, 'the certified transaction reached c');
    await quiet(wire);
    assert.deepEqual(seen, [
      { id: bare.idBase58, certificates: 0 },
      { id: certified.idBase58, certificates: 1 },
    ]);
    assert.equal(b.node.pool.get(bare.id), undefined, 'refused');
    assert.equal(c.node.pool.get(bare.id), undefined, 'not relayed');
    assert.equal(wire.count(MessageCode.Transaction, 'b', 'c'), 0);
    assert.equal(wire.count(MessageCode.BroadcastedTransaction, 'b', 'c'), 1, 'the certified one goes on with its chain');
    assert.equal(c.node.chain.certificates.of([certified.id]).length, 1);
    for (const n of [a, b, c]) n.net.close();
  });

  it("a peer's block leaves its certificates only with itself, once accepted, and with a policy only those of its senders' checked chains", async () => {
    const wire = new Wire();
    const clock = new Clock();
    const a = ChainNode.create('a', clock, [minerA, minerB, minerC]);
    a.forge();
    const tx = transfer(clock, alice, bob, 9n);
    a.micro([tx]);
    const whole = a.chain.lastBlock();
    const forged = Block.sign(
      p,
      {
        version: 3,
        timestamp: whole.timestamp,
        reference: whole.reference,
        consensus: whole.consensus,
        transactions: whole.transactions,
        featureVotes: [],
        genesisData: null,
      },
      alice.keyPair.privateKey,
    );
    const policyCalls: number[] = [];
    const policy = (_tx: unknown, certificates: readonly Certificate[]): Promise<string | undefined> => {
      policyCalls.push(certificates.length);
      return Promise.resolve(undefined);
    };
    const b = netNode(wire, 'b', clock, []);
    const c = netNode(wire, 'c', clock, [], {}, { certificatePolicy: policy });
    for (const n of [b, c]) {
      for (let h = 2; h < a.chain.height(); h++) n.node.chain.appendBlock(a.chain.blockAt(h)!);
    }
    const silent = { onPeer: () => undefined, onClose: () => undefined, onMessage: () => undefined };
    const toB = wire.connect(wire.endpoint('x', silent), b.ep).atX;
    const toC = wire.connect(wire.endpoint('y', silent), c.ep).atX;

    // A block b refuses (signed by no miner) with a certificate for the transaction it holds,
    // then the real block without certificates: the certificate is not stored with it.
    toB.send(MessageCode.HistoryBlock, encodeHistoryBlock(forged, [certificate]));
    await quiet(wire);
    assert.ok(
      b.logs.some((l) => l.includes(`Block ${forged.idBase58}`) && l.includes('not applied')),
      b.logs.join('\n'),
    );
    toB.send(MessageCode.Block, encodeBlock(whole));
    await until(() => encodeBase58(b.node.chain.lastBlock().id) === whole.idBase58, 'b took the real block');
    assert.equal(stored(b), false, 'the refused block left no certificate');
    assert.deepEqual(b.node.chain.certificates.of([tx.id]), []);

    // With a policy: the certificate holds no sender's key, so it is refused, not stored.
    toC.send(MessageCode.HistoryBlock, encodeHistoryBlock(whole, [certificate]));
    await until(() => encodeBase58(c.node.chain.lastBlock().id) === whole.idBase58, 'c took the block');
    assert.equal(stored(c), false, 'a certificate on no sender chain is not stored');
    assert.deepEqual(policyCalls, []);
    assert.ok(
      c.logs.some((l) => l.includes("Certificate 'CN=Travelling User,O=Weft Test,C=RU'") && l.includes('no sender')),
      c.logs.join('\n'),
    );
    for (const n of [b, c]) n.net.close();
  });

  it('45, 46 and 47 payloads that do not parse are malformed messages', () => {
    const tx = transfer(new Clock(), alice, bob, 1n);
    const good = encodeBroadcastedTransaction(tx, [certificate]);
    assert.deepEqual(
      decodeBroadcastedTransaction(good).certificates.map((c) => c.subject.rfc2253),
      ['CN=Travelling User,O=Weft Test,C=RU'],
    );
    assert.throws(() => decodeBroadcastedTransaction(good.subarray(0, good.length - 1)), MalformedMessage);
    assert.throws(() => decodeBroadcastedTransaction(Uint8Array.from([...good, 0])), MalformedMessage);
    assert.throws(() => decodeHistoryBlock(p, good), MalformedMessage);
    // 47 ends with the CRL hash list (count 0 here): without it, or with bytes after it, it is malformed.
    assert.throws(() => decodeMicroBlockResponseV2(p, good), MalformedMessage);
    assert.throws(() => decodeMicroBlockResponseV2(p, Uint8Array.from([...good, 0, 0, 9])), MalformedMessage);
    assert.throws(() => decodeBroadcastedTransaction(encodeBroadcastedTransaction(tx, [{ der: Uint8Array.of(0x30, 0x03, 1, 2, 3) }])), MalformedMessage);
  });

  it('leave out a well-formed certificate of another algorithm (ECDSA) instead of refusing the message', () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-ec-cert-'));
    try {
      openssl(
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-subj',
          '/CN=ECDSA user',
          '-days',
          '1',
          '-keyout',
          'k.pem',
          '-outform',
          'DER',
          '-out',
          'c.der',
        ],
        dir,
      );
      const ecdsa = { der: new Uint8Array(readFileSync(join(dir, 'c.der'))) };
      const store = decodeCertChainStore(encodeCertChainStore([ecdsa, certificate]));
      assert.equal(store.skipped, 1);
      assert.deepEqual(
        store.certificates.map((c) => c.subject.rfc2253),
        ['CN=Travelling User,O=Weft Test,C=RU'],
      );
      const tx = transfer(new Clock(), alice, bob, 2n);
      assert.deepEqual(decodeBroadcastedTransaction(encodeBroadcastedTransaction(tx, [ecdsa])).certificates, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
