/**
 * The pool (src/chain/utx.ts) following the chain: re-validation after every key block,
 * and what a rollback hands back, on real forged PoA chains.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Admission } from '../../src/chain/admission.js';
import { UtxPool } from '../../src/chain/utx.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { WeError } from '../../src/errors/catalogue.js';
import { alice, bob, ChainNode, Clock, minerA, p, transfer, UTX, WEST, type Account } from './fork-fixture.js';

const poolIds = (n: ChainNode): string[] => n.pool.all().map((tx) => tx.idBase58);

describe('pool re-validation', () => {
  it('runs after every key block, not only the first (a pass over a small pool finishes at once)', async () => {
    const clock = new Clock();
    const node = ChainNode.create('revalidate', clock, [minerA]);
    node.forge(); // block 2: the pass over an empty pool finishes synchronously
    await node.pool.revalidate();

    // Alice's whole balance spent twice: one transfer waits in the pool, the other is mined directly.
    const pooled = transfer(clock, alice, bob, 9_000n * WEST);
    node.pool.put(pooled);
    node.micro([transfer(clock, alice, bob, 9_000n * WEST)]);
    assert.deepEqual(poolIds(node), [pooled.idBase58], 'the pooled transfer is still there until the next key block');

    node.forge(); // block 3 must re-validate the pool again
    await node.pool.revalidate();
    assert.deepEqual(poolIds(node), [], 'the transfer that no longer fits the balance is dropped');
  });

  it('a rollback asked without returning transactions leaves them out of the pool', () => {
    const clock = new Clock();
    const node = ChainNode.create('rollback', clock, [minerA]);
    node.forge();
    const tx = transfer(clock, alice, bob, 5n * WEST);
    node.micro([tx]);
    node.chain.rollbackTo(1, { origin: 'api', returnToPool: false });
    assert.deepEqual(poolIds(node), []);
    node.forge();
    node.micro([transfer(clock, alice, bob, 6n * WEST)]);
    const removed = node.chain.rollbackTo(1, { origin: 'api', returnToPool: true });
    assert.deepEqual(
      poolIds(node),
      removed.map((t) => t.idBase58),
      'returned when asked',
    );
  });
});

describe('what the pool reports (the node counts admissions and refusals from it)', () => {
  it('each admission once, each refusal once with its WE kind; a transaction offered again or returned by a rollback is no admission', async () => {
    const clock = new Clock();
    const node = ChainNode.create('reports', clock, [minerA]);
    node.forge();
    const admitted: string[] = [];
    const refused: Array<[string, string]> = [];
    const onRefused = (tx: Transaction, e: WeError): number => refused.push([tx.idBase58, e.kind]);
    const pool = new UtxPool({ chain: node.chain, settings: UTX, now: clock.read, onRefused });
    // A client's broadcast goes through the chain's admission, which reports its own refusals to the same place.
    const admission = new Admission({ chain: node.chain, pool, now: clock.read, onRefused });
    pool.onAdmission((tx) => admitted.push(tx.idBase58));

    const first = transfer(clock, alice, bob, 5n * WEST);
    await admission.admit(first, { origin: 'api' });
    pool.put(first);
    assert.deepEqual(admitted, [first.idBase58], 'admitted once');
    // Broadcast again within the known-tx window: refused by broadcast, once.
    await assert.rejects(admission.admit(first, { origin: 'api' }), /AlreadyInProcessing/);
    // More than Alice holds: refused at admission (broadcast → put), once.
    const overspend = transfer(clock, alice, bob, 1_000_000n * WEST);
    await assert.rejects(admission.admit(overspend, { origin: 'api' }));
    // From a peer (put) into the far future: Mistiming.
    const early: Transaction = transfer(clock, alice, bob, 1n * WEST);
    clock.now -= 3n * 3600_000n;
    assert.throws(() => pool.put(early));
    clock.now += 3n * 3600_000n;
    assert.deepEqual(
      refused.map(([id]) => id),
      [first.idBase58, overspend.idBase58, early.idBase58],
    );
    assert.deepEqual(
      refused.map(([, kind]) => kind),
      ['GenericError', refused[1]![1], 'Mistiming'],
    );
    assert.notEqual(refused[1]![1], 'GenericError', `the overspend has its own kind: ${refused[1]![1]}`);

    // Mined, rolled back and returned to the pool: back in the pool, but no new admission.
    node.forge();
    node.micro([first]);
    assert.equal(pool.size().size, 0);
    node.chain.rollbackTo(2, { origin: 'api', returnToPool: true });
    assert.deepEqual(
      pool.all().map((t) => t.idBase58),
      [first.idBase58],
    );
    assert.deepEqual(admitted, [first.idBase58]);
  });
});

describe('room for transactions waiting to be admitted', () => {
  it('a transaction that would not fit beside the pool and the bytes waiting is refused as a full pool refuses it, and counted; one the pool holds fits', () => {
    const { node, clock } = freshNode('room');
    const txs = [0, 1, 2].map((i) => transfer(clock, alice, bob, BigInt(i + 1)));
    const size = txs[0]!.bytes.length;
    const refused: string[] = [];
    const pool = new UtxPool({
      chain: node.chain,
      settings: { ...UTX, memoryLimitBytes: 2 * size },
      now: clock.read,
      onRefused: (_tx, e) => refused.push(e.message),
    });
    pool.checkRoom(txs[0]!, size);
    assert.throws(() => pool.checkRoom(txs[0]!, 2 * size), /Transaction pool bytes size limit is reached/);
    pool.put(txs[0]!);
    pool.checkRoom(txs[0]!, 2 * size); // held: admitting it again is a no-op
    pool.checkRoom(txs[1]!, 0);
    assert.throws(() => pool.checkRoom(txs[1]!, size), /Transaction pool bytes size limit is reached/);
    pool.put(txs[1]!);
    assert.throws(() => pool.put(txs[2]!), /Transaction pool bytes size limit is reached/);
    assert.deepEqual(
      refused,
      Array.from({ length: 3 }, () => 'Transaction pool bytes size limit is reached'),
    );
  });
});

/** Signs any transaction body from `from`, stamped just before the clock. */
let stamp = 0n;
function signed(clock: Clock, from: Account, body: Record<string, unknown>): Transaction {
  stamp++;
  const json = { senderPublicKey: encodeBase58(from.keyPair.publicKey), timestamp: clock.now - 2000n + stamp, proofs: [], ...body };
  return p.sign(p.transactionFromJson(json, { forBroadcast: false }), from.keyPair.privateKey);
}

const FEE = 1_000_000n;
/** Alice's genesis balance (fork-fixture). */
const ALICE = 10_000n * WEST;

function freshNode(name: string): { node: ChainNode; clock: Clock } {
  const clock = new Clock();
  const node = ChainNode.create(name, clock, [minerA]);
  node.forge();
  return { node, clock };
}

/** The refusal a pending double spend gets: WE's 112 StateCheckFailed, saying pending pool transactions are counted. */
function assertPendingRefusal(e: unknown): true {
  assert.ok(e instanceof WeError, String(e));
  assert.equal(e.code, 112, e.message);
  assert.match(e.message, /^State check failed\. Reason: .*pending pool transactions are counted/);
  return true;
}

describe('pending spendings: a double spend is refused at admission (beyond WE)', () => {
  it('a second transfer of the whole balance is refused with 112 naming pending pool transactions; the first is mined', () => {
    const { node, clock } = freshNode('double-spend');
    const first = transfer(clock, alice, bob, ALICE - FEE);
    node.pool.put(first);
    const second = transfer(clock, alice, minerA, ALICE - FEE);
    assert.throws(
      () => node.pool.put(second),
      (e) => {
        assertPendingRefusal(e);
        assert.match((e as Error).message, /WEST/);
        return true;
      },
    );
    assert.deepEqual(poolIds(node), [first.idBase58]);
    // What fits next to the pending transfer is still taken: nothing (Alice has exactly fee + amount).
    assert.throws(() => node.pool.put(transfer(clock, alice, bob, 1n)), assertPendingRefusal);
  });

  it('spendings are released when the transaction is mined, removed or expires; then the balance is free again', async () => {
    const { node, clock } = freshNode('release');
    const half = ALICE / 2n - FEE;
    const a = transfer(clock, alice, bob, half);
    const b = transfer(clock, alice, bob, half);
    node.pool.put(a);
    node.pool.put(b);
    assert.throws(() => node.pool.put(transfer(clock, alice, bob, 1n)), assertPendingRefusal);

    // Mined: the confirmed balance now carries `a`; `b` stays pending and is still counted.
    node.micro([a]);
    assert.deepEqual(poolIds(node), [b.idBase58]);
    assert.throws(() => node.pool.put(transfer(clock, alice, bob, 1n)), assertPendingRefusal);

    // Removed (as an API removal or a drop would): its spending goes with it.
    assert.equal(node.pool.remove(b.id), true);
    const c = transfer(clock, alice, bob, half);
    node.pool.put(c);

    // Expired in the pool: dropped by the re-validation after a key block, and released.
    clock.now += BigInt(UTX.txExpireTimeoutMs) + 60_000n;
    node.forge();
    await node.pool.revalidate();
    assert.deepEqual(poolIds(node), []);
    node.pool.put(transfer(clock, alice, bob, half));
  });

  it('a rollback that returns transactions to the pool counts them again', () => {
    const { node, clock } = freshNode('rollback-pending');
    node.forge();
    const all = transfer(clock, alice, bob, ALICE - FEE);
    node.micro([all]);
    node.chain.rollbackTo(2, { origin: 'api', returnToPool: true });
    assert.deepEqual(poolIds(node), [all.idBase58]);
    assert.throws(() => node.pool.put(transfer(clock, alice, minerA, 5n * WEST)), assertPendingRefusal);
  });

  it('re-validation keeps what fits and drops what no longer fits next to the rest of the pool', async () => {
    const { node, clock } = freshNode('revalidate-pending');
    const pooled = [transfer(clock, alice, bob, 3_000n * WEST), transfer(clock, alice, bob, 3_000n * WEST)];
    for (const tx of pooled) node.pool.put(tx);
    // A micro-block from elsewhere spends 5,000 of Alice's 10,000: only one of the two pooled transfers still fits.
    node.micro([transfer(clock, alice, minerA, 5_000n * WEST)]);
    node.forge();
    await node.pool.revalidate();
    assert.equal(node.pool.size().size, 1, 'one of the pooled transfers is kept, the other dropped');
    assert.throws(() => node.pool.put(transfer(clock, alice, bob, 2_000n * WEST)), assertPendingRefusal);
  });

  it('counts mass transfers, leases (WEST leased out can no longer be spent) and asset burns', () => {
    const { node, clock } = freshNode('families');
    const mass = signed(clock, alice, {
      type: 11,
      version: 2,
      assetId: null,
      transfers: [
        { recipient: bob.b58, amount: 2_000n * WEST },
        { recipient: minerA.b58, amount: 2_000n * WEST },
      ],
      fee: 6_000_000n,
      attachment: '',
    });
    node.pool.put(mass);
    const lease = signed(clock, alice, { type: 8, version: 2, assetId: null, recipient: minerA.b58, amount: 5_000n * WEST, fee: FEE });
    node.pool.put(lease);
    // 10,000 − 4,000 − 0.06 − 5,000 leased − 0.01: 999.93 left to spend.
    assert.throws(
      () => node.pool.put(transfer(clock, alice, bob, 1_000n * WEST)),
      (e) => {
        assertPendingRefusal(e);
        assert.match((e as Error).message, /leased out/);
        return true;
      },
    );
    node.pool.put(transfer(clock, alice, bob, 999n * WEST));

    // An asset of Bob's: burning more than is left after a pending burn is refused.
    node.micro([signed(clock, minerA, { type: 102, version: 1, target: bob.b58, opType: 'add', role: 'issuer', fee: FEE })]);
    clock.now += 1000n;
    const issue = signed(clock, bob, {
      type: 3,
      version: 2,
      chainId: 84,
      name: 'TOKEN',
      description: '',
      quantity: 1_000n,
      decimals: 0,
      reissuable: true,
      fee: WEST,
      script: null,
    });
    node.micro([issue]);
    const burn = (amount: bigint): Transaction => signed(clock, bob, { type: 6, version: 2, chainId: 84, assetId: issue.idBase58, amount, fee: 5_000_000n });
    node.pool.put(burn(600n));
    assert.throws(
      () => node.pool.put(burn(600n)),
      (e) => {
        assertPendingRefusal(e);
        assert.match((e as Error).message, new RegExp(`600 of asset ${issue.idBase58}`));
        return true;
      },
    );
    node.pool.put(burn(400n));
  });

  it('as in WE, a spend that needs a transfer still in the pool is refused until that transfer is mined', () => {
    const { node, clock } = freshNode('incoming');
    // Bob holds 1,000; Alice sends him 5,000 (pending). Bob spending 3,000 is refused until it is mined.
    const incoming = transfer(clock, alice, bob, 5_000n * WEST);
    node.pool.put(incoming);
    const spend = transfer(clock, bob, minerA, 3_000n * WEST);
    assert.throws(
      () => node.pool.put(spend),
      (e) => e instanceof WeError && e.code === 112 && !/pending pool transactions/.test(e.message),
    );
    node.micro([incoming]);
    node.pool.put(spend);
  });
});

describe('the pool in timestamp order (kept as it changes, not sorted again on each look)', () => {
  it('lists by timestamp then arrival through admissions, removals and re-admissions, and never changes a list it handed out', () => {
    const { node, clock } = freshNode('order');
    const pool = new UtxPool({ chain: node.chain, settings: UTX, now: clock.read });
    const base = clock.now;
    /** A transfer stamped `offset` ms after the base (the fixture's counter taken out). */
    const at = (offset: bigint, amount: bigint): Transaction => {
      clock.now = base + offset;
      const probe = transfer(clock, alice, bob, amount);
      clock.now = base + offset - (probe.timestamp - base - offset) - 1n;
      const tx = transfer(clock, alice, bob, amount);
      assert.equal(tx.timestamp, base + offset);
      return tx;
    };
    const [a, b, c, d, e, f] = [at(50n, 1n), at(10n, 2n), at(10n, 3n), at(30n, 4n), at(70n, 5n), at(10n, 6n)] as [
      Transaction,
      Transaction,
      Transaction,
      Transaction,
      Transaction,
      Transaction,
    ];
    clock.now = base + 100n;
    // What the pool must list: by timestamp, equal ones in the order they were (last) admitted.
    const arrived: Transaction[] = [];
    const expected = (): string[] => [...arrived].sort((x, y) => (x.timestamp < y.timestamp ? -1 : x.timestamp > y.timestamp ? 1 : 0)).map((t) => t.idBase58);
    const put = (...txs: Transaction[]): void => {
      for (const tx of txs) {
        pool.put(tx);
        arrived.push(tx);
      }
    };
    const remove = (tx: Transaction): void => {
      assert.ok(pool.remove(tx.id));
      arrived.splice(arrived.indexOf(tx), 1);
    };
    const ids = (): string[] => pool.all().map((t) => t.idBase58);

    put(a, b);
    const first = pool.all();
    const firstIds = first.map((t) => t.idBase58);
    assert.deepEqual(ids(), expected());
    put(c, d, e);
    remove(b);
    assert.deepEqual(ids(), expected(), 'admissions in between and out of order, one removed');
    assert.deepEqual(
      first.map((t) => t.idBase58),
      firstIds,
      'the list handed out before is as it was',
    );
    // Removed and admitted again before the next look: after the others of its timestamp.
    remove(c);
    put(c, f);
    assert.deepEqual(ids(), expected());
    // Removed, looked at, then admitted again.
    remove(d);
    assert.deepEqual(ids(), expected());
    put(d, b);
    assert.deepEqual(ids(), expected());
    assert.deepEqual(
      ids(),
      [c, f, b, d, a, e].map((t) => t.idBase58),
    );
    // Mined: gone from the list.
    node.micro([c, a]);
    arrived.splice(arrived.indexOf(c), 1);
    arrived.splice(arrived.indexOf(a), 1);
    assert.deepEqual(ids(), expected());
    // More changes between two looks than the list holds (a node that is not mining): still in order.
    const many = Array.from({ length: 80 }, (_, i) => at(BigInt((i * 37) % 90), BigInt(100 + i)));
    clock.now = base + 100n;
    put(...many);
    for (const tx of many.slice(0, 20)) remove(tx);
    assert.deepEqual(ids(), expected());
  });
});
