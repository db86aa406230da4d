/**
 * Certificates that came with a peer's block or micro-block (P2P 45, 47), at the door the
 * network reaches the chain through (peer-chain.ts): offered under the block's id, they are
 * stored with that block when it is accepted — and only then. A refused micro-block, a
 * refused key block or an extension refused part-way leaves no certificate behind: none in
 * the store, none carried by the transactions (which a later block mining them would store),
 * and a transaction's own chain, carried before, stays as it was.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { peerChainOf } from '../../src/chain/peer-chain.js';
import { parseCertificate, type Certificate } from '../../src/crypto/pki/x509.js';
import { Block } from '../../src/protocol/blocks.js';
import { GostTestCa } from '../../devkit/pki/openssl-gost.js';
import { alice, bob, ChainNode, Clock, minerA, minerB, minerC, p, transfer } from './fork-fixture.js';

let ca: GostTestCa;
let travelling: Certificate;
let own: Certificate;

before(() => {
  ca = GostTestCa.root('/C=RU/O=Weft Test/CN=Weft Carried Test Root', 'http://127.0.0.1:9/root.crl');
  travelling = parseCertificate(ca.issue({ subject: '/C=RU/O=Weft Test/CN=Block Carried User' }).der);
  own = parseCertificate(ca.issue({ subject: '/C=RU/O=Weft Test/CN=Own Chain User' }).der);
});

after(() => ca?.dispose());

const subjects = (certs: readonly Certificate[]): string[] => certs.map((c) => c.subject.rfc2253).sort();
const storedOn = (n: ChainNode, c: Certificate): boolean => n.store.certificateDnHashByPublicKey(c.publicKey.bytes) !== undefined;

/** A forging node `a` with a key block on top, and a follower `b` at the same block. */
function pair(): { clock: Clock; a: ChainNode; b: ChainNode } {
  const clock = new Clock();
  const a = ChainNode.create('cert-a', clock, [minerA, minerB, minerC]);
  const b = ChainNode.create('cert-b', clock, []);
  a.forge();
  b.follow(a);
  return { clock, a, b };
}

/** `block` signed again by a key that is no miner: the same transactions, refused by PoA. */
function signedByNonMiner(block: Block): Block {
  return Block.sign(
    p,
    {
      version: 3,
      timestamp: block.timestamp,
      reference: block.reference,
      consensus: block.consensus,
      transactions: block.transactions,
      featureVotes: [],
      genesisData: null,
    },
    alice.keyPair.privateKey,
  );
}

describe("certificates carried with a peer's block or micro-block", () => {
  it('are stored with a micro-block that is accepted, and served with it; a refused one drops its offer', () => {
    const { clock, a, b } = pair();
    const peer = peerChainOf(b.chain);
    const tx1 = transfer(clock, alice, bob, 5n);
    const tx2 = transfer(clock, bob, alice, 6n);
    const m1 = a.micro([tx1]).microBlock!;
    const m2 = a.micro([tx2]).microBlock!;
    // tx2's own chain came with its transaction earlier (a 46).
    b.chain.certificates.carry([tx2.id], [own]);

    // m2 before m1 does not extend b's liquid block: refused, and its certificate with it.
    peer.offerCertificates(m2.totalLiquidBlockSig, [travelling]);
    assert.throws(() => peer.appendMicroBlock(m2));
    assert.deepEqual(subjects(peer.carriedCertificates([tx2.id])), ['CN=Own Chain User,O=Weft Test,C=RU'], "the transaction's own chain is as it was");
    assert.equal(storedOn(b, travelling), false);

    peer.offerCertificates(m1.totalLiquidBlockSig, [travelling]);
    peer.appendMicroBlock(m1);
    assert.ok(storedOn(b, travelling), 'stored with the accepted micro-block');
    assert.equal(b.store.certificatesStoredAt(b.chain.height()).length, 1);
    assert.deepEqual(
      subjects(peer.carriedCertificates([tx1.id])),
      ['CN=Block Carried User,O=Weft Test,C=RU'],
      'carried on, for peers asking for the micro-block',
    );

    // m2 again: its offer went with its refusal, so it brings only tx2's own chain.
    peer.appendMicroBlock(m2);
    assert.ok(storedOn(b, own));
    assert.deepEqual(subjects(peer.carriedCertificates([tx2.id])), ['CN=Own Chain User,O=Weft Test,C=RU']);
    assert.deepEqual(b.ids(), a.ids());
  });

  it('are stored with a key block that is accepted and never with one that is refused', () => {
    const { clock, a, b } = pair();
    const peer = peerChainOf(b.chain);
    const tx = transfer(clock, alice, bob, 7n);
    a.micro([tx]);
    // The liquid block whole, as a peer sends it in a HistoryBlock, and a forged copy.
    const whole = a.chain.lastBlock();
    const height = a.chain.height();
    const b2 = ChainNode.create('cert-b2', clock, []);
    for (let h = 2; h < height; h++) b2.chain.appendBlock(a.chain.blockAt(h)!);
    const peer2 = peerChainOf(b2.chain);
    const forged = signedByNonMiner(whole);
    peer2.offerCertificates(forged.id, [travelling]);
    const refused = peer2.applyKeyBlock(forged, 10);
    assert.equal(refused.kind, 'rejected');
    assert.deepEqual(peer2.carriedCertificates([tx.id]), [], 'nothing left with the transaction');
    // The real block, without certificates: the forged one's certificate is not stored with it.
    assert.equal(peer2.applyKeyBlock(whole, 10).kind, 'appended');
    assert.equal(storedOn(b2, travelling), false);

    // b (at the key block below) takes the real block with its certificate: a switch to it.
    peer.offerCertificates(whole.id, [travelling]);
    assert.equal(peer.applyKeyBlock(whole, 10).kind, 'switched');
    assert.ok(storedOn(b, travelling));
    assert.deepEqual(b.ids(), a.ids());
  });

  it('are taken back, with the blocks, when an extension fails part-way: the chain is as before, with no certificate', () => {
    const { clock, a, b } = pair();
    const peer = peerChainOf(b.chain);
    const before = b.stateHash();
    const tx = transfer(clock, alice, bob, 8n);
    a.micro([tx]);
    clock.nextRound();
    const next = a.forge();
    const good = a.chain.blockAt(a.chain.height() - 1)!;
    assert.equal(good.transactions.length, 1);
    const bad = signedByNonMiner(next);
    peer.offerCertificates(good.id, [travelling]);
    const failed = peer.applyExtension([good, bad], 10);
    assert.equal(failed.kind, 'failed');
    assert.equal(b.stateHash(), before);
    assert.equal(storedOn(b, travelling), false);
    assert.deepEqual(peer.carriedCertificates([tx.id]), []);
    // The offer went with the refused branch: the good blocks alone store nothing carried.
    const applied = peer.applyExtension([good, next], 10);
    assert.equal(applied.kind, 'applied');
    assert.equal(storedOn(b, travelling), false);

    // An extension that applies stores each block's offered certificates with it.
    const c = ChainNode.create('cert-c', clock, []);
    for (let h = 2; h < a.chain.height() - 1; h++) c.chain.appendBlock(a.chain.blockAt(h)!);
    const peerC = peerChainOf(c.chain);
    peerC.offerCertificates(good.id, [travelling]);
    assert.equal(peerC.applyExtension([good, next], 10).kind, 'applied');
    assert.ok(storedOn(c, travelling));
    assert.equal(c.store.certificatesStoredAt(a.chain.height() - 1).length, 1);
    assert.deepEqual(c.ids(), a.ids());
  });

  it('are taken back before a failed switch puts our blocks back, even when ours hold the same transaction', () => {
    const clock = new Clock();
    const a = ChainNode.create('cert-own', clock, [minerA, minerB, minerC]);
    const other = ChainNode.create('cert-other', clock, [minerA, minerB, minerC]);
    const b = ChainNode.create('cert-follower', clock, []);
    a.forge();
    other.follow(a);
    b.follow(a);
    const tx = transfer(clock, alice, bob, 11n);
    // Ours: a key block and a micro-block with tx; theirs: another key block a round later, the same tx, and a block no miner signed.
    const keyHeight = a.chain.height() + 1;
    clock.nextRound();
    a.forge();
    a.micro([tx]);
    b.follow(a);
    clock.nextRound();
    other.forge();
    other.micro([tx]);
    clock.nextRound();
    const next = other.forge();
    const theirs = other.chain.blockAt(keyHeight)!;
    assert.notDeepEqual(theirs.id, a.chain.blockAt(keyHeight)!.id);
    const peer = peerChainOf(b.chain);
    peer.offerCertificates(theirs.id, [travelling]);
    const failed = peer.applyExtension([theirs, signedByNonMiner(next)], 10);
    assert.equal(failed.kind, 'failed');
    assert.deepEqual(b.ids(), a.ids(), 'our blocks are back');
    assert.equal(storedOn(b, travelling), false, 'our block with the same transaction did not take the refused branch’s certificate');
    assert.deepEqual(peer.carriedCertificates([tx.id]), []);
  });
});
