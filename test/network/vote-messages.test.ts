/**
 * CFT votes over the peers (src/network/vote-messages.ts) into the VoteBook
 * (src/consensus/cft/vote-book.ts): a validator's vote is held and relayed to every peer but
 * its sender, once; votes of non-validators, double votes and forged signatures are
 * dropped and not relayed; a vote for a block not followed yet is kept and taken when the
 * book follows it; a burst from one peer is capped and its signatures are checked in one
 * batch off the loop; a malformed vote closes nothing here but throws MalformedMessage.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VoteBook, type VoteTarget } from '../../src/consensus/cft.js';
import type { SignatureCheck } from '../../src/crypto/verify-batch.js';
import { Vote } from '../../src/protocol/blocks.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { MalformedMessage } from '../../src/network/messages.js';
import { VoteMessages } from '../../src/network/vote-messages.js';
import { MessageCode, type Peer } from '../../src/network/types.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const keys = ['v1', 'v2', 'v3', 'outsider'].map((n) => p.crypto.keyPairFromSeedPhrase(`weft vote test ${n}`));
const [v1, v2, v3, outsider] = keys as [(typeof keys)[0], (typeof keys)[0], (typeof keys)[0], (typeof keys)[0]];
const addressOf = (k: (typeof keys)[0]): Uint8Array => p.addresses.fromPublicKey(k.publicKey).bytes;
const HASH = new Uint8Array(32).fill(1);
const OTHER_HASH = new Uint8Array(32).fill(2);
const target = (votingHash: Uint8Array): VoteTarget => ({ votingHash, validators: [v1, v2, v3].map(addressOf) });

class FakePeer {
  readonly sent: Array<{ code: number; payload: Uint8Array }> = [];
  readonly closed = false;
  readonly info: { ownerAddress: Uint8Array };
  constructor(readonly id: number) {
    this.info = { ownerAddress: new Uint8Array(26).fill(id) };
  }
  send(code: number, payload: Uint8Array): boolean {
    this.sent.push({ code, payload });
    return true;
  }
  close(): void {}
}
const asPeer = (f: FakePeer): Peer => f as unknown as Peer;

function setup(options: { perSecond?: number; verifyEach?: boolean } = {}) {
  const book = new VoteBook(p);
  const peers = [new FakePeer(1), new FakePeer(2), new FakePeer(3)];
  const batches: number[] = [];
  const logs: string[] = [];
  const verifyEach =
    options.verifyEach === false
      ? undefined
      : (checks: readonly SignatureCheck[]) => {
          batches.push(checks.length);
          return checks.map((c) => Promise.resolve(p.crypto.verify(c.publicKey, c.message, c.signature)));
        };
  const messages = new VoteMessages({
    protocol: p,
    book,
    peers: () => peers.map(asPeer),
    ...(verifyEach === undefined ? {} : { verifyEach }),
    log: { debug: (m) => logs.push(m) },
    ...(options.perSecond === undefined ? {} : { votesPerPeerPerSecond: options.perSecond }),
    clock: () => 1_000,
  });
  return { book, peers, messages, batches, logs };
}

/** Lets the batch go through the (fake) verifier and its verdicts settle. */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
const relayed = (peer: FakePeer): number => peer.sent.filter((m) => m.code === MessageCode.Vote).length;

describe('CFT votes over the peers', () => {
  it('holds a validator’s vote and relays it to every peer but its sender, once', async () => {
    const { book, peers, messages } = setup();
    book.follow(target(HASH));
    const told: Vote[] = [];
    book.onVote((hash, vote) => {
      assert.deepEqual(hash, HASH);
      told.push(vote);
    });
    const vote = Vote.sign(p, v1.privateKey, HASH);
    assert.equal(messages.handle(asPeer(peers[0]!), MessageCode.Vote, vote.bytes), true);
    // The same vote relayed back by another peer.
    messages.handle(asPeer(peers[1]!), MessageCode.Vote, vote.bytes);
    await settled();
    assert.deepEqual(
      book.votesFor(HASH).map((v) => v.bytes),
      [vote.bytes],
    );
    assert.equal(told.length, 1);
    assert.deepEqual(peers.map(relayed), [0, 1, 1]);
    assert.deepEqual(peers[1]!.sent[0]!.payload, vote.bytes);
    assert.equal(messages.handle(asPeer(peers[0]!), MessageCode.Transaction, new Uint8Array(0)), false);
  });

  it('drops votes of non-validators, double votes and forged signatures, and relays none of them', async () => {
    const { book, peers, messages, logs } = setup();
    book.follow(target(HASH));
    const first = Vote.sign(p, v1.privateKey, HASH);
    messages.handle(asPeer(peers[0]!), MessageCode.Vote, first.bytes);
    await settled();
    const sentBefore = peers.map(relayed);
    // Waves signatures are randomised: a second signature of v1 on the same hash is another vote.
    const second = Vote.sign(p, v1.privateKey, HASH);
    assert.notDeepEqual(second.bytes, first.bytes);
    const stranger = Vote.sign(p, outsider.privateKey, HASH);
    const real = Vote.sign(p, v2.privateKey, HASH);
    const forged = new Vote(real.sender, real.blockVotingHash, Vote.sign(p, v3.privateKey, HASH).signature);
    for (const v of [second, stranger, forged]) messages.handle(asPeer(peers[0]!), MessageCode.Vote, v.bytes);
    await settled();
    assert.deepEqual(peers.map(relayed), sentBefore);
    assert.equal(book.votesFor(HASH).length, 1);
    assert.ok(logs.some((l) => l.endsWith('double-vote')));
    assert.ok(logs.some((l) => l.endsWith('not-validator')));
    assert.ok(logs.some((l) => l.endsWith('invalid-signature')));
  });

  it('keeps a vote for a block not followed yet and takes it when the book follows that block', async () => {
    const { book, peers, messages } = setup();
    book.follow(target(HASH));
    const early = Vote.sign(p, v2.privateKey, OTHER_HASH);
    messages.handle(asPeer(peers[2]!), MessageCode.Vote, early.bytes);
    await settled();
    assert.equal(book.votesFor(OTHER_HASH).length, 0);
    assert.deepEqual(peers.map(relayed), [0, 0, 0]);
    book.follow(target(OTHER_HASH));
    await settled();
    assert.equal(book.votesFor(OTHER_HASH).length, 1);
    assert.deepEqual(peers.map(relayed), [1, 1, 0]);
  });

  it('caps a burst from one peer and checks its signatures in one batch', async () => {
    const { book, peers, messages, batches } = setup({ perSecond: 5 });
    book.follow(target(HASH));
    // Ten votes (the validators' and a stranger's, each signed anew) in one turn from one peer.
    for (let i = 0; i < 10; i++) messages.handle(asPeer(peers[0]!), MessageCode.Vote, Vote.sign(p, [v1, v2, v3][i % 3]!.privateKey, HASH).bytes);
    await settled();
    assert.deepEqual(batches, [5]);
    assert.equal(book.votesFor(HASH).length, 3);
  });

  it('verifies on the loop without verifier threads, and refuses a truncated vote', async () => {
    const { book, peers, messages } = setup({ verifyEach: false });
    book.follow(target(HASH));
    messages.handle(asPeer(peers[0]!), MessageCode.Vote, Vote.sign(p, v3.privateKey, HASH).bytes);
    await settled();
    assert.equal(book.votesFor(HASH).length, 1);
    assert.throws(() => messages.handle(asPeer(peers[0]!), MessageCode.Vote, new Uint8Array(40)), MalformedMessage);
  });
});

describe('VoteBook', () => {
  it('keeps the last few liquid versions’ tallies and forgets the oldest', () => {
    const book = new VoteBook(p, 2);
    const hashes = [1, 2, 3].map((n) => new Uint8Array(32).fill(n));
    book.follow(target(hashes[0]!));
    assert.equal(book.offer(Vote.sign(p, v1.privateKey, hashes[0]!)), 'accepted');
    book.follow(target(hashes[1]!));
    book.follow(target(hashes[0]!)); // followed again: kept, now the newest
    book.follow(target(hashes[2]!));
    assert.equal(book.votesFor(hashes[0]!).length, 1);
    assert.equal(book.tallyOf(hashes[1]!), undefined);
    assert.equal(book.offer(Vote.sign(p, v1.privateKey, hashes[1]!)), 'other-block');
    // One of three validators: (1 + 1) / (3 + 1) is not more than half; two are.
    assert.equal(book.tallyOf(hashes[0]!)?.finalising, false);
    assert.equal(book.offer(Vote.sign(p, v2.privateKey, hashes[0]!)), 'accepted');
    assert.equal(book.tallyOf(hashes[0]!)?.finalising, true);
    book.clear();
    assert.deepEqual(book.votesFor(hashes[0]!), []);
  });
});
