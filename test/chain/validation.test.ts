import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { exchangeTransaction, signOrder, type Order } from '../../src/protocol/transactions/exchange.js';
import { applyTransaction, requiredFeatures } from '../../src/chain/validation.js';
import { MutableState } from '../../src/state/view.js';
import {
  alice,
  allFeaturesAt,
  assertRejected,
  blockTime,
  bob,
  carol,
  p,
  root,
  scf,
  TestChain,
  WEST,
  type Account,
} from '../../devkit/chain/validation-fixture.js';
import { TransactionRejected } from '../../src/errors/catalogue.js';

const transfer = (c: TestChain, from: Account, amount: bigint, over: Record<string, unknown> = {}) =>
  c.tx(from, { type: 4, version: 2, recipient: bob.b58, amount, fee: 1_000_000n, attachment: '', ...over });

describe('signature (step 1)', () => {
  it('needs exactly one proof, by the sender, over the body', () => {
    const c = TestChain.open();
    const tx = transfer(c, alice, 1n);
    const forged = tx.withProofs([p.crypto.sign(carol.keyPair.privateKey, tx.bodyBytes)]);
    assertRejected(c.reject(forged), 112, scf(`Script doesn't exist and proof doesn't validate as signature for '${stringifyJson(forged.toJson())}'`));
    assertRejected(c.reject(tx.withProofs([])), 112, scf('Transactions from non-scripted accounts must have exactly 1 proof'));
    assertRejected(c.reject(tx.withProofs([tx.proofs[0]!, tx.proofs[0]!])), 112, scf('Transactions from non-scripted accounts must have exactly 1 proof'));
    // The caller may have checked the signature already (the pool, for its own micro-blocks).
    const state = new MutableState(c.store);
    applyTransaction(state, forged, c.ctx(), { verifySignature: false });
    assert.equal(state.balance(bob.bytes, null), 10n * WEST + 1n);
  });
});

describe('timestamps (step 2)', () => {
  it('refuses a transaction 90 minutes ahead of the block time (303, no tx)', () => {
    const c = TestChain.open();
    const bt = blockTime(c.nextHeight);
    const limit = bt + 90n * 60_000n;
    c.apply(transfer(c, alice, 1n, { timestamp: limit }));
    const e = c.reject(transfer(c, alice, 1n, { timestamp: blockTime(c.nextHeight) + 90n * 60_000n + 1n }));
    assertRejected(e, 303, `Transaction ts ${blockTime(c.nextHeight) + 90n * 60_000n + 1n} is from far future. BlockTime: ${blockTime(c.nextHeight)}`, false);
    assert.ok(e instanceof TransactionRejected);
  });

  it('refuses a transaction older than the previous block time − tx-expire-timeout', () => {
    const c = TestChain.open();
    const prev = blockTime(c.nextHeight - 1);
    const old = prev - 2n * 3_600_000n - 1n;
    assertRejected(c.reject(transfer(c, alice, 1n, { timestamp: old })), 303, `Transaction ts ${old} is too old. Previous block time: Some(${prev})`, false);
    c.apply(transfer(c, alice, 1n, { timestamp: old + 1n }));
    // Without a previous block (genesis) there is no lower bound.
    const state = new MutableState(c.store);
    applyTransaction(state, transfer(c, alice, 1n, { timestamp: 1n }), c.ctx({ lastBlockTimestamp: undefined }));
  });
});

describe('features (step 3)', () => {
  it('lists WE required features per version, field-dependent ones included', () => {
    const c = TestChain.open();
    assert.deepEqual(requiredFeatures(transfer(c, alice, 1n, { version: 3 })), [4, 120, 140]);
    assert.deepEqual(requiredFeatures(transfer(c, alice, 1n)), [4]);
    assert.deepEqual(requiredFeatures(transfer(c, alice, 1n, { feeAssetId: encodeBase58(new Uint8Array(32)) })), [4, 120]);
    assert.deepEqual(requiredFeatures(c.tx(root, { type: 102, version: 1, target: bob.b58, opType: 'add', role: 'issuer', fee: 1n })), []);
    assert.deepEqual(requiredFeatures(c.tx(alice, { type: 11, version: 3, transfers: [], fee: 1n, attachment: '' })), [3, 120, 1122]);
    assert.deepEqual(requiredFeatures(c.tx(alice, { type: 13, version: 1, script: null, name: 'n', description: '', fee: 1n })), [4]);
  });

  it('reports the first inactive feature by id (ActivationError inside 112)', () => {
    const features = allFeaturesAt(0);
    features.delete(120);
    features.delete(140);
    const c = TestChain.open({ features });
    assertRejected(
      c.reject(transfer(c, alice, 1n, { version: 3 })),
      112,
      scf("ActivationError(Blockchain feature 'Sponsored fees support' (id: '120') has not been activated yet, but is required for TransferTransactionV3)"),
    );
    // A feature activated at a later height is active from that height on.
    const later = allFeaturesAt(0);
    later.set(140, 4);
    const d = TestChain.open({ features: later });
    assert.equal(d.nextHeight, 2);
    assertRejected(d.reject(transfer(d, alice, 1n, { version: 3, atomicBadge: null })), 112, /id: '140'/);
    d.block([]);
    d.block([]);
    d.apply(transfer(d, alice, 1n, { version: 3 }));
  });
});

describe('duplicates (step 4)', () => {
  it('refuses an id already in the state, naming its height', () => {
    const c = TestChain.open();
    const tx = transfer(c, alice, 1n);
    const height = c.nextHeight;
    c.apply(tx);
    c.block([]);
    assertRejected(c.reject(tx), 112, scf(`Transaction ${tx.idBase58} is already in the state on a height of ${height}`));
  });
});

describe('WE order of the checks', () => {
  it('reports the first failing check when a transaction fails several', () => {
    const features = allFeaturesAt(0);
    features.delete(140);
    const c = TestChain.open({ features });
    const future = blockTime(c.nextHeight) + 100n * 60_000n;
    // signature before timestamp
    const t1 = transfer(c, alice, 1n, { timestamp: future });
    assertRejected(c.reject(t1.withProofs([t1.proofs[0]!, t1.proofs[0]!])), 112, scf('Transactions from non-scripted accounts must have exactly 1 proof'));
    // timestamp before features
    assertRejected(c.reject(transfer(c, alice, 1n, { timestamp: future, version: 3 })), 303, /is from far future/, false);
    // features before duplicates is not observable (a duplicate was accepted with its features); duplicates before balance:
    const spent = transfer(c, alice, 999n * WEST);
    c.apply(spent);
    assertRejected(c.reject(spent), 112, /is already in the state/);
    // balance (Transfer's spendings) before permissions
    const d = TestChain.open();
    d.apply(d.tx(root, { type: 102, version: 1, target: bob.b58, opType: 'add', role: 'banned', fee: 1_000_000n }));
    assertRejected(d.reject(transfer(d, bob, 100n * WEST)), 112, /Attempt to transfer unavailable funds/);
    // permissions before fee
    assertRejected(d.reject(transfer(d, bob, 1n, { fee: 1n })), 112, /PermissionError\(.*Sender is 'banned'\)/);
    // fee before the atomic badge
    assertRejected(d.reject(transfer(d, alice, 1n, { version: 3, fee: 1n, atomicBadge: {} })), 112, /does not exceed minimal value/);
    // the badge before the applier's own rules
    assertRejected(d.reject(transfer(d, alice, 1n, { version: 3, atomicBadge: {}, recipient: 'alias:T:ghost' })), 112, /atomic badge cannot be mined outside/);
    // the applier's rules before the balance validation
    d.apply(d.tx(alice, { type: 8, version: 2, recipient: carol.b58, amount: 998n * WEST, fee: 1_000_000n }));
    assertRejected(d.reject(transfer(d, alice, 1n, { recipient: 'alias:T:ghost' })), 112, /alias 'alias:T:ghost' doesn't exist/);
    assertRejected(d.reject(transfer(d, alice, 2n * WEST)), 112, /cannot spend leased balance/);
  });

  it('sends the transaction JSON with a 112', () => {
    const c = TestChain.open();
    const tx = transfer(c, alice, 1n, { recipient: 'alias:T:ghost' });
    const e = c.reject(tx);
    assert.equal(stringifyJson(e.extra?.['tx']), stringifyJson(tx.toJson()));
  });
});

describe('unsupported transactions', () => {
  it('refuses Exchange as WE 1.14 does (after signature, permission and fee checks)', () => {
    const c = TestChain.open();
    const ts = blockTime(c.nextHeight);
    const asset = new Uint8Array(32).fill(0xa1);
    const order = (owner: Account, orderType: 'buy' | 'sell', version: number): Order =>
      signOrder(
        {
          version,
          senderPublicKey: owner.publicKey,
          matcherPublicKey: root.publicKey,
          amountAsset: asset,
          priceAsset: null,
          orderType,
          price: 250_000_000n,
          amount: 3_000n,
          timestamp: ts - 1_000n,
          expiration: ts + 86_400_000n,
          matcherFee: 300_000n,
          proofs: [],
        },
        owner.keyPair.privateKey,
        p,
      );
    const exchange = p.sign(
      exchangeTransaction(p, {
        buyOrder: order(alice, 'buy', 2),
        sellOrder: order(bob, 'sell', 1),
        amount: 2_000n,
        price: 250_000_000n,
        buyMatcherFee: 200_000n,
        sellMatcherFee: 200_000n,
        fee: 500_000n,
        timestamp: ts - 10n,
      }),
      root.keyPair.privateKey,
    );
    assertRejected(c.reject(exchange), 112, scf(`PermissionError(Sender ${root.b58} permission validation failed: Has no active 'dex' role)`));
    c.apply(c.tx(root, { type: 102, version: 1, target: root.b58, opType: 'add', role: 'dex', fee: 1_000_000n }));
    assertRejected(c.reject(exchange), 112, scf('UnsupportedTransactionType'));
  });

  it('refuses an executable contract transaction standing alone in a block: it goes in only inside the 105 that executed it', () => {
    const c = TestChain.open();
    const create = c.tx(root, {
      type: 103,
      version: 2,
      image: 'registry.example/kv:1.0',
      imageHash: 'ab'.repeat(32),
      contractName: 'kv',
      params: [],
      fee: WEST,
    });
    assertRejected(
      c.reject(create, { blockGenerator: root.publicKey }),
      112,
      new RegExp(`^State check failed\\. Reason: Executable transaction with id = ${create.idBase58}, type = 103 wasn't executed`),
    );
  });
});

describe('state is untouched by a failure', () => {
  it('keeps earlier changes of the same block and drops only the failed transaction', () => {
    const c = TestChain.open();
    const state = new MutableState(c.store);
    const ctx = c.ctx();
    applyTransaction(state, transfer(c, alice, 5n * WEST), ctx);
    assert.throws(() => applyTransaction(state, transfer(c, bob, 100n * WEST), ctx), TransactionRejected);
    assert.throws(() => applyTransaction(state, transfer(c, alice, 1n, { recipient: 'alias:T:ghost' }), ctx), TransactionRejected);
    assert.equal(state.changes().transactions.length, 1);
    assert.equal(state.balance(bob.bytes, null), 15n * WEST);
    assert.equal(state.balance(alice.bytes, null), 995n * WEST - 1_000_000n);
  });
});
