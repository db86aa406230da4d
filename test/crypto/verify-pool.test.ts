import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { SignatureVerifierPool } from '../../src/crypto/verify-pool.js';
import { createWavesSuite } from '../../src/crypto/waves.js';
import { createGostSuite } from '../../src/crypto/gost.js';
import { until } from '../../devkit/wait.js';

const waves = await createWavesSuite();
/** Every verdict of `checks`, once all are in. */
const verifyAll = (pool: SignatureVerifierPool, checks: Parameters<SignatureVerifierPool['verifyEach']>[0], urgent = false): Promise<boolean[]> =>
  Promise.all(pool.verifyEach(checks, urgent));
const pool = await SignatureVerifierPool.start('waves', 2);
after(() => pool.close());

describe('signature verification on worker threads', () => {
  it('gives the same verdicts as the suite, for valid, tampered and malformed input', async () => {
    const kp = waves.keyPairFromSeedPhrase('verify pool test seed phrase');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.uint8Array({ maxLength: 200 }), fc.nat(3)), { minLength: 1, maxLength: 300 }), async (items) => {
        const triples = items.map(([msg, how]) => {
          const sig = waves.sign(kp.privateKey, msg);
          if (how === 1) sig[7] = sig[7]! ^ 1;
          if (how === 2) return [kp.publicKey.subarray(0, 31), msg, sig] as const;
          if (how === 3) return [kp.publicKey, msg, sig.subarray(0, 10)] as const;
          return [kp.publicKey, msg, sig] as const;
        });
        const verdicts = await Promise.all(triples.map(([pk, m, s]) => pool.verify(pk, m, s)));
        assert.deepEqual(
          verdicts,
          triples.map(([pk, m, s]) => waves.verify(pk, m, s)),
        );
      }),
      { numRuns: 10 },
    );
  });

  it('lets the calling thread verify while the workers are full, with the same verdicts', async () => {
    const inline = await SignatureVerifierPool.start('waves', 1, waves);
    const kp = waves.keyPairFromSeedPhrase('verify pool inline seed phrase');
    const items = Array.from({ length: 2000 }, (_, i) => {
      const msg = Buffer.from(`message ${i}`);
      const sig = waves.sign(kp.privateKey, msg);
      if (i % 3 === 0) sig[5] = sig[5]! ^ 1;
      return { msg, sig, valid: i % 3 !== 0 };
    });
    const verdicts = await Promise.all(items.map((it) => inline.verify(kp.publicKey, it.msg, it.sig)));
    assert.deepEqual(
      verdicts,
      items.map((it) => it.valid),
    );
    await inline.close();
  });

  it('verifies a whole batch at once (verifyEach), malformed items included', async () => {
    const kp = waves.keyPairFromSeedPhrase('verify pool batch seed phrase');
    const checks = Array.from({ length: 700 }, (_, i) => {
      const message = Buffer.from(`batch message ${i}`);
      const signature = waves.sign(kp.privateKey, message);
      if (i % 5 === 1) signature[9] = signature[9]! ^ 4;
      return { publicKey: i % 7 === 3 ? kp.publicKey.subarray(1) : kp.publicKey, message, signature: i % 11 === 4 ? signature.subarray(0, 63) : signature };
    });
    assert.deepEqual(
      await verifyAll(pool, checks),
      checks.map((c) => waves.verify(c.publicKey, c.message, c.signature)),
    );
    assert.deepEqual(await verifyAll(pool, []), []);
  });

  it('the calling thread takes signatures a worker has not reached while it would idle, each verified once, with the same verdicts', async () => {
    let inlineCalls = 0;
    const counting = { ...waves, verify: (pk: Uint8Array, m: Uint8Array, s: Uint8Array): boolean => (inlineCalls++, waves.verify(pk, m, s)) };
    const one = await SignatureVerifierPool.start('waves', 1, counting);
    const kp = waves.keyPairFromSeedPhrase('verify pool stealing seed phrase');
    for (let round = 0; round < 20; round++) {
      // A few requests in flight, as a node answering 16 clients has: one batch to the worker.
      const checks = Array.from({ length: 16 }, (_, i) => {
        const message = Buffer.from(`round ${round} item ${i}`);
        const signature = waves.sign(kp.privateKey, message);
        if (i % 3 === round % 3) signature[11] = signature[11]! ^ 8;
        return { publicKey: kp.publicKey, message, signature };
      });
      assert.deepEqual(
        await Promise.all(checks.map((c) => one.verify(c.publicKey, c.message, c.signature))),
        checks.map((_, i) => i % 3 !== round % 3),
      );
    }
    // While this thread awaited the worker it verified some of the batch itself (from its end), and only what it took.
    assert.ok(one.stolen > 0, 'the calling thread took no signature from the batches it waited on');
    assert.ok(one.stolen < 20 * 16, 'the worker verified none');
    assert.equal(inlineCalls, one.stolen);
    // The worker skipped every item taken here (it checked the claim words), once its last answer is in.
    await until('the worker to skip what was taken here', () => (one.skippedByWorkers >= one.stolen ? true : undefined), 15_000, 10);
    assert.equal(one.skippedByWorkers, one.stolen);
    await one.close();
    // Without the calling thread's suite the workers verify everything.
    const workersOnly = await SignatureVerifierPool.start('waves', 1);
    const message = Buffer.from('workers only');
    assert.equal(await workersOnly.verify(kp.publicKey, message, waves.sign(kp.privateKey, message)), true);
    assert.equal(workersOnly.stolen, 0);
    await workersOnly.close();
  });

  it('the block lane goes ahead of a backlog: a micro-block’s signatures are checked before thousands queued earlier', async () => {
    const kp = waves.keyPairFromSeedPhrase('verify pool block lane seed phrase');
    const checks = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => {
        const message = Buffer.from(`${tag} ${i}`);
        const signature = waves.sign(kp.privateKey, message);
        if (i % 4 === 1) signature[3] = signature[3]! ^ 2;
        return { publicKey: kp.publicKey, message, signature };
      });
    const backlog = checks(6000, 'relayed');
    const block = checks(200, 'micro-block');
    const small = checks(20, 'small micro-block');
    for (const inline of [waves, undefined]) {
      const one = await SignatureVerifierPool.start('waves', 1, inline);
      let backlogDone = 0;
      const queued = backlog.map((c) => one.verify(c.publicKey, c.message, c.signature).then((v) => (backlogDone++, v)));
      const verdicts = await verifyAll(one, block, true);
      const doneBefore = backlogDone;
      assert.deepEqual(
        verdicts,
        block.map((_, i) => i % 4 !== 1),
      );
      assert.ok(doneBefore < backlog.length / 2, `the block waited for ${doneBefore} of ${backlog.length} queued before it (inline ${inline !== undefined})`);
      // A few signatures (checked at once by the calling thread when it verifies too).
      assert.deepEqual(
        await verifyAll(one, small, true),
        small.map((_, i) => i % 4 !== 1),
      );
      assert.deepEqual(
        await Promise.all(queued),
        backlog.map((_, i) => i % 4 !== 1),
        'the backlog still gets its verdicts',
      );
      await one.close();
    }
  });

  it('without worker threads the calling thread verifies everything, with the same verdicts; without its suite a pool of none cannot start', async () => {
    await assert.rejects(SignatureVerifierPool.start('waves', 0), /without threads/);
    await assert.rejects(SignatureVerifierPool.start('waves', -1, waves), /not a count/);
    const none = await SignatureVerifierPool.start('waves', 0, waves);
    assert.equal(none.size, 0);
    const kp = waves.keyPairFromSeedPhrase('verify pool no worker seed phrase');
    const items = Array.from({ length: 500 }, (_, i) => {
      const message = Buffer.from(`alone ${i}`);
      const signature = waves.sign(kp.privateKey, message);
      if (i % 5 === 2) signature[9] = signature[9]! ^ 4;
      return { publicKey: kp.publicKey, message, signature };
    });
    const one = await Promise.all(items.slice(0, 100).map((c) => none.verify(c.publicKey, c.message, c.signature)));
    const all = await verifyAll(none, items.slice(100));
    const urgent = await verifyAll(none, items.slice(0, 200), true);
    assert.deepEqual(
      [...one, ...all],
      items.map((_, i) => i % 5 !== 2),
    );
    assert.deepEqual(
      urgent,
      items.slice(0, 200).map((_, i) => i % 5 !== 2),
    );
    await none.close();
  });

  it('promote moves checks still queued into the block lane: a block waiting on transactions queued behind thousands is not held behind them', async () => {
    const kp = waves.keyPairFromSeedPhrase('verify pool promote seed phrase');
    const checks = Array.from({ length: 4000 }, (_, i) => {
      const message = Buffer.from(`queued ${i}`);
      return { publicKey: kp.publicKey, message, signature: waves.sign(kp.privateKey, message) };
    });
    checks[10]!.signature[4] = checks[10]!.signature[4]! ^ 1;
    for (const workers of [0, 1]) {
      const one = await SignatureVerifierPool.start('waves', workers, waves);
      let done = 0;
      const queued = checks.map((c) => one.verify(c.publicKey, c.message, c.signature).then((v) => (done++, v)));
      // The first ten queued, and one with a bad signature: the calling thread and the worker would reach them last or late.
      const wanted = checks.slice(0, 11);
      one.promote(new Set(wanted.map((c) => c.signature)));
      const verdicts = await Promise.all(queued.slice(0, 11));
      assert.ok(done < checks.length / 2, `the promoted checks waited for ${done} of ${checks.length} (workers ${workers})`);
      assert.deepEqual(
        verdicts,
        wanted.map((_, i) => i !== 10),
      );
      assert.deepEqual(
        await Promise.all(queued),
        checks.map((_, i) => i !== 10),
        'the rest still get their verdicts',
      );
      await one.close();
    }
  });

  it('closing rejects what a worker still holds and ends once the workers have exited', async () => {
    const one = await SignatureVerifierPool.start('waves', 1);
    const kp = waves.keyPairFromSeedPhrase('verify pool close seed phrase');
    const held = Array.from({ length: 64 }, (_, i) => {
      const message = Buffer.from(`held ${i}`);
      return one.verify(kp.publicKey, message, waves.sign(kp.privateKey, message));
    });
    // The end of this turn hands the batch to the worker; close while it verifies.
    await nextTurn();
    const settled = Promise.allSettled(held);
    await one.close();
    for (const r of await settled) {
      assert.equal(r.status, 'rejected');
      if (r.status === 'rejected') assert.match(String(r.reason), /closed/);
    }
  });

  it('works for GOST keys too', async () => {
    const gost = await createGostSuite();
    const gp = await SignatureVerifierPool.start('gost', 1);
    const kp = gost.keyPairFromSeedPhrase('verify pool gost seed phrase');
    const msg = Buffer.from('message');
    const sig = gost.sign(kp.privateKey, msg);
    assert.equal(await gp.verify(kp.publicKey, msg, sig), true);
    assert.equal(await gp.verify(kp.publicKey, Buffer.from('other'), sig), false);
    await gp.close();
    await assert.rejects(gp.verify(kp.publicKey, msg, sig), /closed/);
  });
});
