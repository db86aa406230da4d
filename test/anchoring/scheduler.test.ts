/**
 * Anchoring rounds with an injected clock (doubles.ts): which heights are anchored and when,
 * what goes to the target and back to this chain, WE's retry counts and pauses for each step
 * and its error code when they run out, and what Weft does beyond WE — the progress kept
 * across a restart, no height anchored twice after a rollback, the latest trigger kept while
 * a round runs, write-backs put back when dropped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnchoringScheduler } from '../../src/anchoring/scheduler.js';
import { ANCHORING_DEFAULTS, type AnchoringSettings } from '../../src/anchoring/settings.js';
import { TargetUnreachable } from '../../src/anchoring/target-node.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { WeError } from '../../src/errors/catalogue.js';
import { parseJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import type { DataData } from '../../src/protocol/transactions/data.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { FakeChain, FakePool, FakeTarget, ManualClock, MemoryProgress, RecordingLog } from './doubles.js';

const protocol = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const targetProtocol = await Protocol.create({ crypto: 'waves', chainId: 'K' });
const owner = protocol.crypto.keyPairFromSeedPhrase('anchoring test owner');
const targetKey = targetProtocol.crypto.keyPairFromSeedPhrase('anchoring test target key');

const SETTINGS: AnchoringSettings = {
  heightRange: 5,
  heightAbove: 2,
  threshold: 2,
  targetnet: {
    auth: { type: 'api-key' },
    schemeByte: 'K',
    nodeAddress: 'http://target.test',
    nodeRecipientAddress: targetProtocol.addresses.fromPublicKey(targetKey.publicKey).toString(),
    privateKeyPassword: undefined,
    wallet: { file: '/nonexistent', password: '' },
    fee: 500_000n,
  },
  sidechainFee: 600_000n,
  txMiningCheckDelayMs: 200,
  txMiningCheckCount: 3,
  retryDelayMs: 100,
  heightPollIntervalMs: 1000,
};

interface Rig {
  readonly chain: FakeChain;
  readonly target: FakeTarget;
  readonly pool: FakePool;
  readonly clock: ManualClock;
  readonly progress: MemoryProgress;
  readonly log: RecordingLog;
  readonly scheduler: AnchoringScheduler;
}

function rig(
  o: { settings?: Partial<AnchoringSettings>; chain?: FakeChain; target?: FakeTarget; pool?: FakePool; clock?: ManualClock; progress?: MemoryProgress } = {},
): Rig {
  const parts = {
    chain: o.chain ?? new FakeChain(1),
    target: o.target ?? new FakeTarget(),
    pool: o.pool ?? new FakePool(),
    clock: o.clock ?? new ManualClock(),
    progress: o.progress ?? new MemoryProgress(),
    log: new RecordingLog(),
  };
  const scheduler = new AnchoringScheduler({ settings: { ...SETTINGS, ...o.settings }, protocol, targetProtocol, owner, targetKey, ...parts });
  return { ...parts, scheduler };
}

type Entries = Record<string, unknown>;
const entriesOf = (tx: Transaction): Entries => Object.fromEntries((tx as Transaction<DataData>).data.data.map((d) => [d.key, d.value]));
const targetEntries = (json: Record<string, unknown>): Entries =>
  Object.fromEntries((json['data'] as Array<{ key: string; value: unknown }>).map((d) => [d.key, d.value]));
const b64 = (bytes: Uint8Array): string => `base64:${Buffer.from(bytes).toString('base64')}`;

describe('anchoring trigger', () => {
  it('anchors H − threshold at each H > threshold that is a multiple of the range: the block id and height, on the target and back here', async () => {
    const r = rig();
    r.scheduler.start();
    r.chain.grow(11); // heights 2…12: triggers at 5 (anchors 3) and 10 (anchors 8)
    await r.clock.runOut();
    await r.scheduler.idle();
    const sent = [...r.target.txs.values()].map((t) => t.json);
    assert.deepEqual(
      sent.map((j) => targetEntries(j)),
      [3, 8].map((h) => ({ signature: b64(r.chain.blockIdAt(h)!), height: h })),
    );
    for (const j of sent) {
      assert.deepEqual([j['type'], j['version'], j['fee']], [12, 1, 500_000]);
      assert.equal(j['sender'], SETTINGS.targetnet.nodeRecipientAddress, 'sender address in the target scheme');
      assert.equal(j['authorPublicKey'], encodeBase58(targetKey.publicKey));
      const tx = targetProtocol.transactionFromJson(j);
      assert.ok(targetProtocol.crypto.verify(targetKey.publicKey, tx.proofSourceBytes, tx.proofs[0]!), 'signed by the target key');
    }
    const confirmations = r.pool.admitted.map(entriesOf);
    assert.equal(confirmations.length, 2);
    for (const [i, h] of [3, 8].entries()) {
      const target = sent[i]!;
      assert.deepEqual(confirmations[i], {
        signature: r.chain.blockIdAt(h),
        height: BigInt(h),
        'targetnet-tx-id': target['id'],
        'targetnet-tx-timestamp': BigInt(target['timestamp'] as number),
      });
      const tx = r.pool.admitted[i]!;
      assert.deepEqual([tx.type, tx.version, tx.fee], [12, 1, 600_000n]);
      assert.ok(protocol.crypto.verify(owner.publicKey, tx.proofSourceBytes, tx.proofs[0]!), 'signed by the node owner');
    }
    assert.equal(r.log.said(/Successfully created anchoring transactions!/), 2);
    assert.equal(r.progress.value.lastHeight, 8);
    await r.scheduler.stop();
  });

  it('nothing at or below the threshold, nothing between multiples', async () => {
    const r = rig({ settings: { heightRange: 3, threshold: 4 } });
    r.scheduler.start();
    r.chain.grow(4); // heights 2…5: 3 ≤ threshold; 4, 5 not multiples of 3 above it
    await r.clock.runOut();
    assert.equal(r.target.count('broadcast'), 0);
    r.chain.grow(1); // 6 > 4 and a multiple of 3: anchors 2
    await r.clock.runOut();
    await r.scheduler.idle();
    assert.deepEqual(
      [...r.target.txs.values()].map((t) => targetEntries(t.json)['height']),
      [2],
    );
    await r.scheduler.stop();
  });

  it('a trigger during a round is kept (the latest) and runs next; an older one is dropped', async () => {
    const r = rig({ settings: { heightRange: 1, threshold: 1, heightAbove: 0 } });
    r.scheduler.start();
    r.chain.grow(1); // height 2: anchors 1
    await r.clock.advance(50); // the round waits before its broadcast
    r.chain.grow(3); // heights 3, 4, 5 arrive meanwhile: 4 is the latest to anchor
    await r.clock.runOut();
    await r.scheduler.idle();
    assert.deepEqual(
      [...r.target.txs.values()].map((t) => targetEntries(t.json)['height']),
      [1, 4],
    );
    await r.scheduler.stop();
  });

  it('after a rollback, a height at or below the last anchored one is not anchored again', async () => {
    const r = rig();
    r.scheduler.start();
    r.chain.grow(9); // heights 5 and 10: anchors 3 and 8
    await r.clock.runOut();
    await r.scheduler.idle();
    const anchored = (): unknown[] => [...r.target.txs.values()].map((t) => targetEntries(t.json)['height']);
    assert.deepEqual(anchored(), [3, 8]);
    r.chain.rollbackTo(4);
    r.chain.grow(6); // heights 5 and 10 again, other blocks at 3 and 8
    await r.clock.runOut();
    await r.scheduler.idle();
    assert.deepEqual(anchored(), [3, 8], 'heights 3 and 8 are not anchored twice');
    assert.equal(r.log.said(/not anchored again/), 2);
    r.chain.grow(5); // height 15: anchors 13
    await r.clock.runOut();
    await r.scheduler.idle();
    assert.deepEqual(anchored(), [3, 8, 13]);
    await r.scheduler.stop();
  });
});

/** A rig whose chain just reached a trigger (height 5: anchors 3), the round started. */
function triggered(o: Parameters<typeof rig>[0] = {}): Rig {
  const r = rig(o);
  r.scheduler.start();
  r.chain.grow(4);
  return r;
}

/** The single error transaction the round wrote back (for the block at 3, `signature`): its code and message. */
function errorOf(r: Rig, signature = r.chain.blockIdAt(3)): { code: bigint; message: string; height: bigint } {
  const errors = r.pool.admitted.map(entriesOf).filter((e) => 'error-code' in e);
  assert.equal(errors.length, 1, `one error transaction, got ${errors.length}`);
  const e = errors[0]!;
  assert.deepEqual(e['signature'], signature);
  return { code: e['error-code'] as bigint, message: e['error-message'] as string, height: e['height'] as bigint };
}

describe('anchoring retries and failures (WE codes)', () => {
  it('target unreachable: 11 broadcast attempts, each after the retry delay, logged; then code 2; the next trigger anchors once it is back', async () => {
    const r = triggered();
    r.target.down = true;
    await r.clock.runOut();
    await r.scheduler.idle();
    assert.equal(r.target.count('broadcast'), 1 + ANCHORING_DEFAULTS.broadcastRetries);
    const broadcastPauses = r.clock.pauses.filter(([, ms]) => ms === SETTINGS.retryDelayMs);
    assert.equal(broadcastPauses.length, 11, 'a pause before every attempt');
    assert.equal(r.clock.time, 11 * SETTINGS.retryDelayMs);
    assert.equal(r.log.said(/failed to send the transaction to targetnet, retrying/, 'error'), 10);
    assert.deepEqual(errorOf(r), { code: 2n, message: 'failed to send the transaction to targetnet', height: 3n });
    assert.equal(r.progress.value.lastHeight, 3, 'the height is done');
    assert.equal(r.progress.value.round, undefined);
    r.target.down = false;
    r.chain.grow(5); // height 10: anchors 8
    await r.clock.runOut();
    await r.scheduler.idle();
    assert.deepEqual(
      [...r.target.txs.values()].map((t) => targetEntries(t.json)['height']),
      [8],
    );
    assert.equal(r.log.said(/Successfully created anchoring transactions!/), 1);
    await r.scheduler.stop();
  });

  it('a target back within the retries: the same transaction goes through', async () => {
    const r = triggered();
    r.target.script.broadcast.push('unreachable', 'unreachable', { status: 503, text: '' });
    await r.clock.runOut();
    await r.scheduler.idle();
    assert.equal(r.target.count('broadcast'), 4);
    assert.equal(r.target.txs.size, 1);
    assert.equal(r.log.said(/Successfully created anchoring transactions!/), 1);
    await r.scheduler.stop();
  });

  it('a refusal (4xx) is code 3 at once, with the status; unless the target already holds the transaction (a lost answer)', async () => {
    const r = triggered();
    r.target.script.broadcast.push({ status: 400, text: '{"error":112,"message":"State check failed. Reason: insufficient funds"}' });
    await r.clock.runOut();
    await r.scheduler.idle();
    assert.equal(r.target.count('broadcast'), 1);
    assert.deepEqual(errorOf(r), { code: 3n, message: 'invalid http status of response from targetnet transaction broadcast: 400', height: 3n });

    // The first answer was lost; the re-sent transaction is refused as already mined: it was sent.
    const again = triggered();
    const original = again.target.broadcast.bind(again.target);
    let first = true;
    again.target.broadcast = async (text: string) => {
      const answer = await original(text);
      if (!first) return answer;
      first = false;
      again.target.mine(); // the target took it and mined it, but its answer never came
      throw new TargetUnreachable('socket hang up');
    };
    await again.clock.runOut();
    await again.scheduler.idle();
    assert.equal(again.log.said(/already has it/), 1);
    assert.equal(again.log.said(/Successfully created anchoring transactions!/), 1);
    await again.scheduler.stop();
    await r.scheduler.stop();
  });

  it('an unparsable answer is code 4, another id code 5', async () => {
    const bad = triggered();
    bad.target.script.broadcast.push({ status: 200, text: 'OK' });
    await bad.clock.runOut();
    await bad.scheduler.idle();
    assert.equal(errorOf(bad).code, 4n);
    const other = triggered();
    const json = { type: 12, id: 'Other1d', senderPublicKey: 'x', authorPublicKey: 'x', fee: 1, timestamp: 1, version: 1, proofs: [] };
    other.target.script.broadcast.push({ status: 200, text: JSON.stringify(json) });
    await other.clock.runOut();
    await other.scheduler.idle();
    const e = errorOf(other);
    assert.equal(e.code, 5n);
    assert.match(e.message, /^targetnet returned transaction with id='Other1d', but it differs from the transaction that was sent\(id='\w+'\)$/);
    await Promise.all([bad.scheduler.stop(), other.scheduler.stop()]);
  });

  it('never mined: 1 + tx-mining-check-count lookups, each after tx-mining-check-delay, then code 6', async () => {
    const r = triggered();
    r.target.mines = false;
    await r.clock.runOut();
    await r.scheduler.idle();
    assert.equal(r.target.count('info'), 1 + SETTINGS.txMiningCheckCount);
    assert.equal(r.clock.pauses.filter(([, ms]) => ms === SETTINGS.txMiningCheckDelayMs).length, 1 + SETTINGS.txMiningCheckCount);
    assert.equal(errorOf(r).code, 6n);
  });

  it('target height unreadable: one poll retried 100 times, then code 7; the depth wait polls until height-condition.above is reached', async () => {
    const r = triggered();
    r.target.mines = false;
    await r.clock.advance(SETTINGS.retryDelayMs); // sent
    r.target.mine(); // mined at 11
    for (let i = 0; i < 101; i++) r.target.script.height.push({ status: 502, text: 'Bad Gateway' });
    await r.clock.runOut();
    await r.scheduler.idle();
    assert.equal(r.target.count('height'), 101);
    assert.deepEqual([errorOf(r).code, errorOf(r).message], [7n, 'failed to get current height in targetnet']);

    const ok = triggered({ settings: { heightAbove: 3 } });
    await ok.clock.runOut();
    await ok.scheduler.idle();
    // Mined at 11 by the first poll of… the mining check found it; then polls until 11 + 3.
    const minedAt = [...ok.target.txs.values()][0]!.minedAt!;
    assert.ok(ok.target.height_ >= minedAt + 3);
    assert.ok(
      ok.clock.pauses.some(([, ms]) => ms === SETTINGS.heightPollIntervalMs),
      'paused between polls',
    );
    assert.equal(ok.log.said(/Successfully created anchoring transactions!/), 1);
    await ok.scheduler.stop();
  });

  it('gone from the target after the height rose: code 8 after 21 lookups', async () => {
    const r = triggered({ settings: { heightAbove: 0 } });
    await r.clock.advance(SETTINGS.retryDelayMs); // sent
    r.target.mine();
    await r.clock.advance(SETTINGS.txMiningCheckDelayMs); // found
    // From the first depth poll on, the target answers "not in blockchain" (its chain rolled back).
    const gone = { status: 404, text: '{"status":"error","details":"Transaction is not in blockchain"}' };
    for (let i = 0; i < 21; i++) r.target.script.info.push(gone);
    await r.clock.runOut();
    await r.scheduler.idle();
    const e = errorOf(r);
    assert.deepEqual([e.code, e.message], [8n, 'anchoring transaction in targetnet disappeared after the height rose enough']);
  });

  it('the anchored block replaced meanwhile (a rollback here): code 10, no confirmation', async () => {
    const r = triggered();
    await r.clock.advance(SETTINGS.retryDelayMs + SETTINGS.txMiningCheckDelayMs); // sent, mined
    const anchored = r.chain.blockIdAt(3);
    r.chain.rollbackTo(2);
    r.chain.grow(2); // another block at 3 (and 4)
    await r.clock.runOut();
    await r.scheduler.idle();
    const e = errorOf(r, anchored);
    assert.equal(e.code, 10n);
    assert.equal(r.pool.admitted.filter((t) => 'targetnet-tx-id' in entriesOf(t)).length, 0);
    assert.ok(r.log.said(/Possibly a rollback has happened/) > 0);
  });

  it('the write-back refused by this chain: code 9; a refused error transaction is logged', async () => {
    const r = triggered();
    r.pool.refuse = new WeError('BalanceErrors', 112, 'State check failed. Reason: insufficient funds');
    await r.clock.runOut();
    await r.scheduler.idle();
    assert.equal(r.pool.admitted.length, 0);
    assert.equal(r.log.said(/anchoring round failed/), 1);
    assert.equal((r.log.lines.find((l) => l.msg === 'anchoring round failed')!.obj as { code: number }).code, 9);
    assert.equal(r.log.said(/the anchoring error transaction was not accepted/, 'error'), 1);
    assert.equal(r.progress.value.lastHeight, 3);
  });
});

describe('anchoring progress across restarts', () => {
  it('a stopped round resumes with the same target transaction; the height is not anchored twice', async () => {
    const progress = new MemoryProgress();
    const chain = new FakeChain(1);
    const target = new FakeTarget();
    const pool = new FakePool();
    const first = rig({ progress, chain, target, pool });
    first.scheduler.start();
    chain.grow(4); // anchors 3
    target.down = true;
    await first.clock.advance(3 * SETTINGS.retryDelayMs); // three failed attempts
    await first.scheduler.stop();
    const inFlight = progress.value.round;
    assert.ok(inFlight !== undefined);
    assert.equal(inFlight.stage, 'sending');
    assert.equal(pool.admitted.length, 0, 'no error written for a stop');

    target.down = false;
    const second = rig({ progress, chain, target, pool });
    second.scheduler.start();
    await second.clock.runOut();
    await second.scheduler.idle();
    assert.deepEqual([...target.txs.keys()], [inFlight.targetTxId], 'the very transaction of the first run');
    assert.equal(pool.admitted.length, 1);
    assert.equal(entriesOf(pool.admitted[0]!)['targetnet-tx-id'], inFlight.targetTxId);
    assert.equal(progress.value.lastHeight, 3);
    chain.grow(0);
    await second.scheduler.stop();

    // A third start at the same height anchors nothing.
    const third = rig({ progress, chain, target, pool });
    third.scheduler.start();
    await third.clock.runOut();
    assert.equal(target.count('broadcast'), 4);
    await third.scheduler.stop();
  });

  it('a round stopped after the target mined it resumes at the depth wait, without sending again', async () => {
    const progress = new MemoryProgress();
    const chain = new FakeChain(1);
    const target = new FakeTarget();
    const first = rig({ progress, chain, target });
    first.scheduler.start();
    chain.grow(4);
    await first.clock.advance(SETTINGS.retryDelayMs);
    target.mine();
    await first.clock.advance(SETTINGS.txMiningCheckDelayMs);
    await first.scheduler.stop();
    assert.equal(progress.value.round?.stage, 'mined');
    const second = rig({ progress, chain, target });
    second.scheduler.start();
    await second.clock.runOut();
    await second.scheduler.idle();
    assert.equal(target.count('broadcast'), 1);
    assert.equal(second.log.said(/Successfully created anchoring transactions!/), 1);
    await second.scheduler.stop();
  });

  it('write-backs are watched until threshold blocks deep: one dropped is sent again, signed again when too old', async () => {
    const r = triggered();
    await r.clock.runOut();
    await r.scheduler.idle();
    const confirmation = r.pool.admitted[0]!;
    assert.equal(r.progress.value.writeBacks.length, 1);
    // Dropped (a rollback that did not return it): the next block puts it back.
    r.pool.drop(confirmation);
    r.chain.grow(1);
    await r.clock.runOut();
    await r.scheduler.idle();
    assert.equal(r.pool.admitted.length, 2);
    assert.equal(r.pool.admitted[1]!.idBase58, confirmation.idBase58, 'the same transaction');
    assert.ok(r.log.said(/sent again/) > 0);
    // Dropped again, and now too old for the pool: signed again with the same entries.
    r.pool.drop(confirmation);
    r.pool.oldestTimestamp = confirmation.timestamp + 1n;
    r.clock.time += 10_000;
    r.chain.grow(1);
    await r.clock.runOut();
    await r.scheduler.idle();
    const fresh = r.pool.admitted[2]!;
    assert.notEqual(fresh.idBase58, confirmation.idBase58);
    assert.deepEqual(entriesOf(fresh), entriesOf(confirmation));
    // In a block, then threshold (2) blocks deep: settled, no longer watched.
    r.pool.confirmAll(r.chain.height());
    r.chain.grow(1);
    await r.scheduler.idle();
    assert.equal(r.progress.value.writeBacks.length, 1, 'one block deep: still watched');
    r.chain.grow(1);
    await r.scheduler.idle();
    assert.equal(r.progress.value.writeBacks.length, 0);
    await r.scheduler.stop();
  });

  it('the progress record survives its JSON form', async () => {
    const { progressFromJson, progressToJson } = await import('../../src/anchoring/progress.js');
    const r = triggered();
    await r.clock.advance(SETTINGS.retryDelayMs);
    const p = r.progress.value;
    assert.ok(p.round !== undefined);
    const back = progressFromJson(progressToJson(p));
    assert.deepEqual(back, p);
    assert.equal((parseJson(p.round.targetTx) as { id: string }).id, p.round.targetTxId);
    assert.throws(() => progressFromJson('{"format":"other"}'), /not a progress record/);
    const mined = JSON.parse(progressToJson({ ...p, round: { ...p.round, stage: 'mined' } })) as Record<string, unknown>;
    assert.throws(() => progressFromJson(JSON.stringify(mined)), /round\.targetHeight is missing for a mined round/);
    await r.scheduler.stop();
  });
});
