import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { PreActivatedFeatures } from '../../src/chain/features.js';
import { baseFeeInWest, isFeeSwitchEnforced, minimalFee, scalaClassName, scalaSimpleName, validateFee, type FeeContext } from '../../src/chain/fees.js';
import { DEFAULT_FEES, FEE_NAMES } from '../../src/chain/settings.js';
import { genesisTransaction } from '../../src/protocol/transactions/genesis.js';
import { Atomic } from '../../src/protocol/transactions/atomic.js';
import { expectWeError } from '../support/errors.js';
import {
  alice,
  allFeaturesAt,
  assertRejected,
  bob,
  chainSettings,
  GENESIS_TS,
  p,
  root,
  scf,
  TestChain,
  WEST,
  type ChainOptions,
} from '../../devkit/chain/validation-fixture.js';

const ctxOf = (o: ChainOptions, height: number): FeeContext => {
  const settings = chainSettings(o);
  return { settings, features: PreActivatedFeatures.fromSettings(settings.functionality), height };
};

describe('minimal fees', () => {
  const c = TestChain.open();
  const ctx = c.ctx();

  it('has a base for every fee-paying type (application.conf defaults)', () => {
    for (const type of FEE_NAMES.keys()) assert.ok(DEFAULT_FEES.base.has(type), `base fee of ${type}`);
    const transfer = c.tx(alice, { type: 4, version: 2, recipient: bob.b58, amount: 1n, fee: 0n, attachment: '' });
    assert.deepEqual(minimalFee(transfer, c.store, ctx), { feeAssetId: null, amount: 1_000_000n });
    const issue = c.tx(root, { type: 3, version: 2, name: 'Name', description: '', quantity: 1n, decimals: 0, reissuable: false, fee: 0n });
    assert.deepEqual(minimalFee(issue, c.store, ctx), { feeAssetId: null, amount: WEST });
    const permit = c.tx(root, { type: 102, version: 1, target: bob.b58, opType: 'add', role: 'issuer', fee: 0n });
    assert.equal(minimalFee(permit, c.store, ctx).amount, 1_000_000n);
  });

  it('adds ⌊(transfers + 1) / 2⌋ × additional for MassTransfer', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 100]) {
      const transfers = Array.from({ length: n }, () => ({ recipient: bob.b58, amount: 1 }));
      const tx = c.tx(alice, { type: 11, version: 2, transfers, fee: 0n, attachment: '' });
      assert.equal(baseFeeInWest(tx, ctx), 5_000_000n + BigInt(Math.floor((n + 1) / 2)) * 1_000_000n, `${n} transfers`);
    }
  });

  it('adds ⌊(size − 1) / 1024⌋ × additional for Data: body bytes with Smart Accounts, full bytes before', () => {
    const data = (len: number) =>
      c.tx(alice, { type: 12, version: 1, data: [{ key: 'k', type: 'binary', value: `base64:${Buffer.alloc(len).toString('base64')}` }], fee: 0n });
    // Full bytes of 1025: one additional KiB counted on full bytes, none on the (shorter) body.
    let tx = data(700);
    for (let len = 700; len < 1100 && tx.bytes.length !== 1025; len++) tx = data(len);
    assert.equal(tx.bytes.length, 1025);
    assert.ok(tx.bodyBytes.length <= 1024);
    assert.equal(baseFeeInWest(tx, ctx), 5_000_000n);
    const features = allFeaturesAt(0);
    features.delete(4);
    assert.equal(baseFeeInWest(tx, ctxOf({ features }, 5)), 5_000_000n + 1_000_000n);
    const big = data(3000);
    assert.ok(big.bodyBytes.length > 3073 && big.bodyBytes.length <= 4096);
    assert.equal(baseFeeInWest(big, ctx), 8_000_000n);
  });

  it('is 0 for zero-fee types and with fees disabled', () => {
    assert.equal(minimalFee(genesisTransaction(p, alice.address, 1n, GENESIS_TS), c.store, ctx).amount, 0n);
    const inner = [1n, 2n].map((a) => c.tx(alice, { type: 4, version: 3, recipient: bob.b58, amount: a, fee: 1_000_000n, attachment: '', atomicBadge: {} }));
    const atomic = p.transaction(Atomic, 1, { senderPublicKey: alice.publicKey, miner: null, transactions: inner, timestamp: c.ts() });
    assert.deepEqual(minimalFee(atomic, c.store, ctx), { feeAssetId: null, amount: 0n });
    const off = ctxOf({ fees: { ...DEFAULT_FEES, enabled: false } }, 5);
    const transfer = c.tx(alice, { type: 4, version: 2, recipient: bob.b58, amount: 1n, fee: 0n, attachment: '' });
    assert.deepEqual(minimalFee(transfer, c.store, off), { feeAssetId: null, amount: 0n });
    validateFee(transfer, c.store, off);
  });
});

describe('sponsored fees', () => {
  it('asks for the WEST minimum in a sponsored asset, and refuses unknown or unsponsored assets', () => {
    const c = TestChain.open();
    const issue = c.tx(root, { type: 3, version: 2, name: 'Fee token', description: '', quantity: 1_000_000_000n, decimals: 0, reissuable: false, fee: WEST });
    c.apply(issue);
    const id = issue.idBase58;
    const withFee = (feeAssetId: string, fee = 1_000_000n) =>
      c.tx(root, { type: 4, version: 2, recipient: bob.b58, amount: 1n, fee, attachment: '', feeAssetId });
    const missing = encodeBase58(new Uint8Array(32).fill(8));
    expectWeError(() => minimalFee(withFee(missing), c.store, c.ctx()), 199, `Asset '${missing}' does not exist, cannot be used to pay fees`);
    expectWeError(() => minimalFee(withFee(id), c.store, c.ctx()), 199, `Asset '${id}' is not sponsored, cannot be used to pay fees`);
    assertRejected(c.reject(withFee(id)), 112, scf(`Asset '${id}' is not sponsored, cannot be used to pay fees`));
    c.apply(c.tx(root, { type: 14, version: 1, assetId: id, isEnabled: true, fee: WEST }));
    assert.deepEqual(minimalFee(withFee(id), c.store, c.ctx()), { feeAssetId: issue.id, amount: 1_000_000n });
    assertRejected(
      c.reject(withFee(id, 999_999n)),
      112,
      scf(`Fee '999999' in '${id}' for 'com.wavesenterprise.transaction.transfer.TransferTransactionV2' does not exceed minimal value of '1000000'`),
    );
    const rootWest = c.west(root);
    const result = c.apply(withFee(id));
    assert.deepEqual(result, { fee: 1_000_000n });
    // root is sender and issuer: pays the asset fee, receives it back, and pays the WEST.
    assert.equal(c.west(root), rootWest - 1_000_000n - 1n);
    assert.equal(c.assetBalance(root, issue.id), 1_000_000_000n);
  });

  it('answers in WEST before sponsored fees are active', () => {
    const features = allFeaturesAt(0);
    features.delete(120);
    const c = TestChain.open({ features });
    const tx = c.tx(alice, { type: 4, version: 2, recipient: bob.b58, amount: 1n, fee: 0n, attachment: '' });
    assert.deepEqual(minimalFee(tx, c.store, c.ctx()), { feeAssetId: null, amount: 1_000_000n });
  });
});

describe('fee check and Fee Switch', () => {
  it('quotes WE class names', () => {
    assert.equal(scalaClassName(4, 3), 'com.wavesenterprise.transaction.transfer.TransferTransactionV3');
    assert.equal(scalaClassName(3, 2), 'com.wavesenterprise.transaction.assets.IssueTransactionV2');
    assert.equal(scalaClassName(8, 2), 'com.wavesenterprise.transaction.lease.LeaseTransactionV2');
    assert.equal(scalaClassName(102, 1), 'com.wavesenterprise.transaction.acl.PermitTransactionV1');
    assert.equal(scalaClassName(13, 1), 'com.wavesenterprise.transaction.smart.SetScriptTransactionV1');
    assert.equal(scalaClassName(104, 5), 'com.wavesenterprise.transaction.docker.CallContractTransactionV5');
    assert.equal(scalaClassName(112, 3), 'com.wavesenterprise.transaction.CreatePolicyTransactionV3');
    assert.equal(scalaClassName(7, 2), 'com.wavesenterprise.transaction.assets.exchange.ExchangeTransactionV2');
    assert.equal(scalaSimpleName(1, 1), 'GenesisTransaction');
  });

  it('refuses a fee under the minimum once Fee Switch has been active for a check period', () => {
    const c = TestChain.open();
    const tx = c.tx(alice, { type: 4, version: 3, recipient: bob.b58, amount: 1n, fee: 999_999n, attachment: '' });
    assertRejected(
      c.reject(tx),
      112,
      scf("Fee '999999' in 'WEST' for 'com.wavesenterprise.transaction.transfer.TransferTransactionV3' does not exceed minimal value of '1000000'"),
    );
    const mass = c.tx(alice, { type: 11, version: 1, transfers: [{ recipient: bob.b58, amount: 1 }], fee: 5_999_999n, attachment: '' });
    assertRejected(
      c.reject(mass),
      112,
      scf("Fee '5999999' in 'WEST' for 'com.wavesenterprise.transaction.transfer.MassTransferTransactionV1' does not exceed minimal value of '6000000'"),
    );
  });

  it('only wants a positive fee before that (feature 7 at 5, period 3: enforced from 8)', () => {
    const features = allFeaturesAt(0);
    features.set(7, 5);
    const o: ChainOptions = { features, featureCheckBlocksPeriod: 3 };
    assert.equal(isFeeSwitchEnforced(ctxOf(o, 7)), false);
    assert.equal(isFeeSwitchEnforced(ctxOf(o, 8)), true);
    const withoutSwitch = new Map(features);
    withoutSwitch.delete(7);
    assert.equal(isFeeSwitchEnforced(ctxOf({ features: withoutSwitch }, 1000)), false);
    const c = TestChain.open(o);
    const tx = (fee: bigint) => c.tx(alice, { type: 4, version: 2, recipient: bob.b58, amount: 1n, fee, attachment: '' });
    assert.equal(c.nextHeight, 2);
    assertRejected(c.reject(tx(0n)), 112, scf('Fee must be positive for tx type 4.'));
    c.apply(tx(1n));
    for (let h = c.nextHeight; h < 8; h++) c.block([]);
    assert.equal(c.nextHeight, 8);
    assertRejected(c.reject(tx(1n)), 112, /does not exceed minimal value of '1000000'/);
  });

  it('accepts a zero fee before Fee Switch when the configured base is 0', () => {
    const features = allFeaturesAt(0);
    features.delete(7);
    const base = new Map(DEFAULT_FEES.base);
    base.set(102, 0n);
    const c = TestChain.open({ features, fees: { ...DEFAULT_FEES, base } });
    const permit = (fee: bigint) => c.tx(root, { type: 102, version: 1, target: bob.b58, opType: 'add', role: 'issuer', fee });
    c.apply(permit(0n));
    expectWeError(() => validateFee(permit(-1n), c.store, c.ctx()), 199, 'Fee must be non negative for tx type 102.');
  });
});
