/**
 * Scripts in the admission pipeline (applyTransaction, the pool, the chain): scripted
 * accounts verified by their script instead of the signature, smart assets running their
 * script, what scripts read (ScriptState over the state the transaction is validated on:
 * the block being built, the liquid block, the store), atomic containers with scripted
 * inner transactions, and the same decisions when a node re-validates blocks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { preverifySignatures } from '../../src/chain/signatures.js';
import { Admission } from '../../src/chain/admission.js';
import { UtxPool } from '../../src/chain/utx.js';
import { scriptState } from '../../src/chain/validation.js';
import { encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import { SignatureVerifierPool } from '../../src/crypto/verify-pool.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { Atomic, type AtomicData } from '../../src/protocol/transactions/atomic.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { E } from '../../src/ride/expr.js';
import { scriptBytes } from '../../src/ride/script.js';
import { compileScript } from '../../src/ride/script-compiler.js';
import { MutableState } from '../../src/state/view.js';
import { ScriptRejection, WeError } from '../../src/errors/catalogue.js';
import { multisigSource } from '../../devkit/ride-scripts.js';
import * as fork from './fork-fixture.js';
import {
  alice,
  assertRejected,
  bob,
  carol,
  dave,
  eve,
  p,
  root,
  scf,
  TestChain,
  WEST,
  type Account,
  type TxJson,
} from '../../devkit/chain/validation-fixture.js';

/** Compiled script bytes as a SetScript / Issue takes them. */
function compiled(source: string, assetScript = false): string {
  const r = compileScript(source, { assetScript, crypto: p });
  assert.ok(r.ok, r.ok ? '' : r.error);
  return r.ok ? `base64:${encodeBase64(r.script.bytes)}` : '';
}

const setScript = (c: TestChain, a: Account, script: string | null): Transaction =>
  c.tx(a, { type: 13, version: 1, script, name: 'script', description: '', fee: 50_000_000n });

/** A transfer from `from` with the given proofs (signed by nobody else). */
function transferWith(c: TestChain, from: Account, proofsBy: readonly Account[], over: TxJson = {}): Transaction {
  const unsigned = c.tx(from, { type: 4, version: 2, recipient: bob.b58, amount: WEST, fee: 1_000_000n, attachment: '', ...over });
  return unsigned.withProofs(proofsBy.map((s) => p.crypto.sign(s.keyPair.privateKey, unsigned.proofSourceBytes)));
}

const multisig = (keys: readonly Account[]): string => compiled(multisigSource(keys.map((k) => encodeBase58(k.publicKey))));

function scriptRejection(e: WeError): ScriptRejection {
  assert.ok(e instanceof ScriptRejection, `a script rejection, got ${e.code} ${e.message}`);
  return e;
}

describe('scripted accounts in the pipeline', () => {
  it('a 2-of-3 multisig account spends with two valid proofs only (307 with the forced lets otherwise)', () => {
    const c = TestChain.open();
    c.apply(setScript(c, alice, multisig([carol, dave, eve])));
    const two = transferWith(c, alice, [carol, dave]);
    c.apply(two);
    assert.equal(c.west(bob), 11n * WEST);

    const oneProof = transferWith(c, alice, [carol]);
    const one = c.reject(oneProof);
    const r = scriptRejection(one);
    assertRejected(one, 307, 'Transaction is not allowed by account-script', false);
    assert.equal((r.transaction as { id: string }).id, oneProof.idBase58);
    assert.match(r.script, /^BLOCK\(LET\(alicePubKey,CONST_BYTEVECTOR\(ByteVector\(32 bytes, 0x/);
    const vars = new Map(r.vars.map((v) => [v.name, 'value' in v ? v.value : v.error]));
    assert.equal(vars.get('aliceSigned'), 'CONST_LONG(1)');
    assert.equal(vars.get('bobSigned'), 'CONST_LONG(0)');
    assert.equal(vars.get('cooperSigned'), 'CONST_LONG(0)');

    // Two proofs, one of them by a key the script does not name: refused the same way.
    const forged = scriptRejection(c.reject(transferWith(c, alice, [carol, bob])));
    assert.equal(forged.code, 307);
    // The account's own signature is no longer what counts.
    assert.equal(scriptRejection(c.reject(transferWith(c, alice, [alice]))).code, 307);
    // Proofs by b and c at indexes 1 and 2 (index 0 empty) pass.
    const later = c.tx(alice, { type: 4, version: 2, recipient: bob.b58, amount: WEST, fee: 1_000_000n, attachment: '' });
    const bc = later.withProofs([
      new Uint8Array(0),
      p.crypto.sign(dave.keyPair.privateKey, later.proofSourceBytes),
      p.crypto.sign(eve.keyPair.privateKey, later.proofSourceBytes),
    ]);
    c.apply(bc);
    assert.equal(c.west(bob), 12n * WEST);
  });

  it('a time-locked account refuses before its height and accepts from it on (the height of the block the transaction goes into)', () => {
    const c = TestChain.open();
    const unlock = c.nextHeight + 3;
    c.apply(setScript(c, alice, compiled(`height >= ${unlock}`)));
    assert.equal(c.nextHeight, unlock - 2);
    const tx = transferWith(c, alice, []);
    const early = scriptRejection(c.reject(tx));
    assert.equal(early.code, 307);
    assert.deepEqual(early.vars, []);
    // The same transaction validated for later blocks: the decision reads the block's height, not a clock.
    c.block([]);
    assert.equal(scriptRejection(c.reject(tx)).code, 307);
    c.block([]);
    assert.equal(c.nextHeight, unlock);
    c.apply(tx);
    assert.equal(c.west(bob), 11n * WEST);
  });

  it('a script that throws answers 306 with its message and vars; a non-boolean result is 112', () => {
    const c = TestChain.open();
    c.apply(setScript(c, alice, compiled('let limit = 1\nif (height > limit) then throw("height above the limit") else true')));
    const e = scriptRejection(c.reject(transferWith(c, alice, [])));
    assertRejected(e, 306, 'Error while executing account-script: height above the limit', false);
    assert.deepEqual(e.vars, [{ name: 'limit', value: 'CONST_LONG(1)' }]);
    assert.equal(e.extra?.['transaction'], e.transaction);

    const d = TestChain.open();
    d.apply(setScript(d, alice, `base64:${encodeBase64(scriptBytes(1, E.long(1), p))}`));
    assertRejected(d.reject(transferWith(d, alice, [])), 112, scf('Script returned not a boolean result, but CONST_LONG(1)'));
  });

  it('Data V1 of a scripted sender by another author needs the author proof first (WE messages)', () => {
    const c = TestChain.open();
    c.apply(setScript(c, alice, compiled('true')));
    const data = (proofsBy: readonly Account[]): Transaction => {
      const unsigned = c.tx(alice, {
        type: 12,
        version: 1,
        authorPublicKey: encodeBase58(bob.publicKey),
        data: [{ key: 'k', type: 'integer', value: 1 }],
        fee: 5_000_000n,
      });
      return unsigned.withProofs(proofsBy.map((s) => p.crypto.sign(s.keyPair.privateKey, unsigned.proofSourceBytes)));
    };
    const byCarol = data([carol]);
    assertRejected(c.reject(byCarol), 112, scf(`Proof is not valid for author for ${stringifyJson(byCarol.toJson())}`));
    assert.match(c.reject(data([])).message, /^State check failed\. Reason: Proofs is empty for \{"type":12,/);
    c.apply(data([bob]));
    assert.deepEqual(c.store.dataEntry(alice.bytes, 'k'), { key: 'k', type: 'integer', value: 1n });
  });
});

describe('smart assets in the pipeline', () => {
  const blacklisted = eve;
  const tokenScript = () =>
    compiled(
      `match tx {
  case t: TransferTransaction => t.recipient != Address(base58'${blacklisted.b58}')
  case m: MassTransferTransaction => true
  case r: ReissueTransaction => r.quantity <= 500
  case b: BurnTransaction => b.quantity <= 10
  case _ => true
}`,
      true,
    );

  it('runs the asset script on transfers, reissues and burns (307 token-script), whoever sends them', () => {
    const c = TestChain.open();
    const issue = c.tx(root, {
      type: 3,
      version: 2,
      name: 'Smart',
      description: 'blacklist',
      quantity: 1_000n,
      decimals: 0,
      reissuable: true,
      fee: WEST,
      script: tokenScript(),
    });
    c.apply(issue);
    const asset = encodeBase58(issue.id);
    const send = (to: Account) => c.tx(root, { type: 4, version: 2, recipient: to.b58, amount: 10n, fee: 1_000_000n, attachment: '', assetId: asset });
    c.apply(send(bob));
    assert.equal(c.assetBalance(bob, issue.id), 10n);
    const refused = scriptRejection(c.reject(send(blacklisted)));
    assertRejected(refused, 307, 'Transaction is not allowed by token-script', false);
    assert.match(refused.script, /^BLOCK\(LET\(\$match0,REF\(tx\)\)/);
    // Bob's own transfer to the blacklisted address runs the same script.
    assert.equal(
      scriptRejection(c.reject(c.tx(bob, { type: 4, version: 2, recipient: blacklisted.b58, amount: 1n, fee: 1_000_000n, attachment: '', assetId: asset })))
        .code,
      307,
    );

    const reissue = (quantity: bigint) => c.tx(root, { type: 5, version: 2, chainId: p.chainId, assetId: asset, quantity, reissuable: true, fee: WEST });
    assert.equal(scriptRejection(c.reject(reissue(501n))).code, 307);
    c.apply(reissue(500n));
    const burn = (quantity: bigint) => c.tx(root, { type: 6, version: 2, chainId: p.chainId, assetId: asset, quantity, fee: 5_000_000n });
    assert.equal(scriptRejection(c.reject(burn(11n))).code, 307);
    c.apply(burn(10n));
    assert.equal(c.store.asset(issue.id)?.volume, 1_490n);
  });
});

describe('what scripts read (ScriptState)', () => {
  /** Passes a transfer whose attachment is the id of a Data transaction by bob holding approved = true. */
  const approvalScript = () =>
    compiled(`match tx {
  case t: TransferTransaction =>
    match transactionById(t.attachment) {
      case d: DataTransaction => d.sender == Address(base58'${bob.b58}') && extract(getBoolean(d.data, "approved")) && isDefined(transactionHeightById(t.attachment))
      case _ => false
    }
  case _ => true
}`);

  it('reads transactions from the block being built and from the store; height is the block height', () => {
    const c = TestChain.open();
    const approval = c.tx(bob, { type: 12, version: 2, data: [{ key: 'approved', type: 'boolean', value: true }], fee: 5_000_000n });
    const state = new MutableState(c.store);
    state.addTransaction(approval);
    const reads = scriptState(state, 7);
    assert.equal(reads.height(), 7);
    assert.equal(reads.transactionById(approval.id), approval);
    assert.equal(reads.transactionHeight(approval.id), c.store.height());
    assert.equal(scriptState(c.store, 7).transactionById(approval.id), undefined);

    c.apply(approval);
    const stored = scriptState(c.store, 9).transactionById(approval.id);
    assert.ok(stored !== undefined && stored !== approval);
    assert.deepEqual(stored.bytes, approval.bytes);
    assert.equal(scriptState(c.store, 9).transactionHeight(approval.id), c.store.height());
  });

  it('lets a script find a transaction of the same block and of an earlier one', () => {
    const c = TestChain.open();
    c.apply(setScript(c, alice, approvalScript()));
    const pay = (ref: Uint8Array) => transferWith(c, alice, [], { attachment: encodeBase58(ref) });
    const approval = c.tx(bob, { type: 12, version: 2, data: [{ key: 'approved', type: 'boolean', value: true }], fee: 5_000_000n });
    // Not yet anywhere: refused.
    assert.equal(scriptRejection(c.reject(pay(approval.id))).code, 307);
    // The same block: the approval before the transfer.
    c.block([approval, pay(approval.id)]);
    // An earlier block, from the store.
    c.apply(pay(approval.id));
    assert.equal(c.west(bob), 12n * WEST - 5_000_000n);
    // A Data transaction of someone else does not count.
    const fake = c.tx(carol, { type: 12, version: 2, data: [{ key: 'approved', type: 'boolean', value: true }], fee: 5_000_000n });
    c.apply(fake);
    assert.equal(scriptRejection(c.reject(pay(fake.id))).code, 307);
  });

  it('reads the liquid block: earlier micro-blocks from the store, the micro-block being applied, and the pool against both', () => {
    const clock = new fork.Clock();
    const node = fork.ChainNode.create('scripts-liquid', clock, [fork.minerA]);
    const t = forkTx(clock);
    node.forge();
    node.micro([t(fork.alice, { type: 13, version: 1, script: approvalFor(fork.bob.b58), name: 'approval', description: '', fee: 50_000_000n })]);
    const approval = t(fork.bob, {
      type: 12,
      version: 2,
      authorPublicKey: encodeBase58(fork.bob.keyPair.publicKey),
      data: [{ key: 'approved', type: 'boolean', value: true }],
      fee: 5_000_000n,
    });
    const pay = (): Transaction =>
      t(fork.alice, { type: 4, version: 2, recipient: fork.bob.b58, amount: WEST, fee: 1_000_000n, attachment: encodeBase58(approval.id) });
    // The pool refuses while the approval is nowhere.
    assert.throws(
      () => node.pool.put(pay()),
      (e: unknown) => e instanceof ScriptRejection && e.code === 307,
    );
    // Approval and payment in one micro-block.
    node.micro([approval, pay()]);
    // Later micro-blocks of the same liquid block, and the pool, find it in the store.
    const second = pay();
    node.pool.put(second);
    node.micro([second]);
    assert.equal(node.chain.height(), 2);
    assert.equal(node.store.transactionHeight(second.id), 2);
  });
});

/** A transaction builder on a fork-fixture clock, signed by its sender. */
function forkTx(clock: fork.Clock): (signer: fork.Account, json: Record<string, unknown>) => Transaction {
  let n = 0n;
  return (signer, json) => {
    n++;
    const body = { senderPublicKey: encodeBase58(signer.keyPair.publicKey), timestamp: clock.now - 1000n + n, proofs: [], ...json };
    return p.sign(p.transactionFromJson(body, { forBroadcast: false }), signer.keyPair.privateKey);
  };
}

function approvalFor(approver: string): string {
  return compiled(`match tx {
  case t: TransferTransaction =>
    match transactionById(t.attachment) {
      case d: DataTransaction => d.sender == Address(base58'${approver}') && extract(getBoolean(d.data, "approved"))
      case _ => false
    }
  case _ => true
}`);
}

describe('atomic containers with scripted inner transactions', () => {
  const badge = (c: TestChain, from: Account, proofsBy: readonly Account[], over: TxJson = {}): Transaction =>
    transferWith(c, from, proofsBy, { version: 3, atomicBadge: {}, ...over });
  function atomic(c: TestChain, sender: Account, transactions: Transaction[]): Transaction<AtomicData> {
    return p.sign(
      p.transaction<AtomicData>(Atomic, 1, { senderPublicKey: sender.publicKey, miner: null, transactions, timestamp: c.ts() }),
      sender.keyPair.privateKey,
    );
  }

  it('verifies each inner transaction by its sender script; a refusal is reported with the container', () => {
    const c = TestChain.open();
    c.apply(setScript(c, alice, multisig([carol, dave, eve])));
    const ok = atomic(c, alice, [
      badge(c, alice, [carol, dave]),
      c.tx(bob, { type: 4, version: 3, recipient: carol.b58, amount: WEST, fee: 1_000_000n, attachment: '', atomicBadge: { trustedSender: alice.b58 } }),
    ]);
    c.apply(ok);
    assert.equal(c.west(carol), 101n * WEST);

    const inner = badge(c, alice, [carol]);
    const container = atomic(c, alice, [
      inner,
      c.tx(bob, { type: 4, version: 3, recipient: carol.b58, amount: WEST, fee: 1_000_000n, attachment: '', atomicBadge: { trustedSender: alice.b58 } }),
    ]);
    const e = scriptRejection(c.reject(container));
    assertRejected(e, 307, 'Transaction is not allowed by account-script', false);
    assert.equal((e.transaction as { id: string }).id, container.idBase58);
    assert.ok(e.vars.some((v) => v.name === 'aliceSigned'));
  });

  it("runs an inner smart asset's script; a script refusing only on the state the container built so far gives 112", () => {
    const c = TestChain.open();
    // bob's script: only while bob holds at most 20 WEST.
    c.apply(setScript(c, bob, compiled(`wavesBalance(Address(base58'${bob.b58}')) <= ${20n * WEST}`)));
    const fromBob = c.tx(bob, {
      type: 4,
      version: 3,
      recipient: carol.b58,
      amount: WEST,
      fee: 1_000_000n,
      attachment: '',
      atomicBadge: { trustedSender: alice.b58 },
    });
    // On the state before the container bob holds < 20 WEST; after alice's inner transfer he holds more.
    const container = atomic(c, alice, [badge(c, alice, [alice], { amount: 50n * WEST }), fromBob]);
    const e = c.reject(container);
    assertRejected(e, 112, scf('Transaction is not allowed by account-script'));
    assert.equal((e.extra?.['tx'] as { id: string }).id, container.idBase58);
    // In the other order both pass.
    c.apply(atomic(c, alice, [fromBob, badge(c, alice, [alice], { amount: 50n * WEST })]));

    const issue = c.tx(root, {
      type: 3,
      version: 2,
      name: 'NoEve',
      description: '',
      quantity: 100n,
      decimals: 0,
      reissuable: false,
      fee: WEST,
      script: compiled(`match tx {\n case t: TransferTransaction => t.recipient != Address(base58'${eve.b58}')\n case _ => true\n}`, true),
    });
    c.apply(issue);
    c.apply(c.tx(root, { type: 4, version: 2, recipient: carol.b58, amount: 10n, fee: 1_000_000n, attachment: '', assetId: encodeBase58(issue.id) }));
    const toEve = c.tx(carol, {
      type: 4,
      version: 3,
      recipient: eve.b58,
      amount: 1n,
      fee: 1_000_000n,
      attachment: '',
      assetId: encodeBase58(issue.id),
      atomicBadge: {},
    });
    const smart = atomic(c, carol, [
      c.tx(carol, { type: 4, version: 3, recipient: bob.b58, amount: 1n, fee: 1_000_000n, attachment: '', atomicBadge: {} }),
      toEve,
    ]);
    const refused = scriptRejection(c.reject(smart));
    assertRejected(refused, 307, 'Transaction is not allowed by token-script', false);
    assert.equal((refused.transaction as { id: string }).id, smart.idBase58);
  });
});

describe('the pool and the verifier threads', () => {
  let threads: SignatureVerifierPool;
  before(async () => {
    threads = await SignatureVerifierPool.start('waves', 1);
  });
  after(async () => {
    await threads.close();
  });

  it("takes a multisig account's transaction whose first proof is not the sender's signature after the threads' verdict", async () => {
    const clock = new fork.Clock();
    const node = fork.ChainNode.create('scripts-pool', clock, [fork.minerA]);
    const t = forkTx(clock);
    node.forge();
    const [k1, k2, k3] = [fork.minerA, fork.minerB, fork.minerC];
    const script = compiled(multisigSource([k1, k2, k3].map((k) => encodeBase58(k.keyPair.publicKey))));
    node.micro([t(fork.alice, { type: 13, version: 1, script, name: 'multisig', description: '', fee: 50_000_000n })]);
    const unsigned = t(fork.alice, { type: 4, version: 2, recipient: fork.bob.b58, amount: WEST, fee: 1_000_000n, attachment: '' });
    const tx = unsigned.withProofs([k1, k2].map((k) => p.crypto.sign(k.keyPair.privateKey, unsigned.proofSourceBytes)));
    const pool = new UtxPool({
      chain: node.chain,
      settings: { memoryLimitBytes: 1 << 20, txExpireTimeoutMs: 3_600_000, cleanupIntervalMs: 60_000, allowTransactionsFromSmartAccounts: true },
      now: clock.read,
      verifier: threads,
    });
    const admission = new Admission({ chain: node.chain, pool, now: clock.read, verifier: threads });
    await preverifySignatures(threads, [tx]);
    assert.equal(tx.hasValidSenderSignature(), false, 'proofs[0] is not alice’s signature');
    assert.equal(await admission.admit(tx, { origin: 'api' }), tx);
    // A peer's copy gets its verdict from the pooled one, and is applied by the script too.
    const copy = p.transactionFromBytes(tx.bytes);
    await pool.preverify([copy]);
    node.micro([copy]);
    assert.equal(node.store.transactionHeight(tx.id), node.chain.height());
  });

  it("a client's broadcast takes the threads' verdict on its signature: a signed transfer is pooled, one with another key's signature is refused", async () => {
    const clock = new fork.Clock();
    const node = fork.ChainNode.create('threads-broadcast', clock, [fork.minerA]);
    const t = forkTx(clock);
    node.forge();
    const pool = new UtxPool({
      chain: node.chain,
      settings: { memoryLimitBytes: 1 << 20, txExpireTimeoutMs: 3_600_000, cleanupIntervalMs: 60_000, allowTransactionsFromSmartAccounts: true },
      now: clock.read,
      verifier: threads,
    });
    const admission = new Admission({ chain: node.chain, pool, now: clock.read, verifier: threads });
    // The threads are asked once per broadcast (their answer is the verdict the pool keeps).
    const verify = threads.verify.bind(threads);
    let asked = 0;
    threads.verify = (...args: Parameters<typeof verify>) => (asked++, verify(...args));
    try {
      const good = t(fork.alice, { type: 4, version: 2, recipient: fork.bob.b58, amount: WEST, fee: 1_000_000n, attachment: '' });
      assert.equal(await admission.admit(good, { origin: 'api' }), good);
      assert.equal(asked, 1);
      assert.equal(good.hasValidSenderSignature(), true);
      const unsigned = t(fork.alice, { type: 4, version: 2, recipient: fork.bob.b58, amount: 2n * WEST, fee: 1_000_000n, attachment: '' });
      const forged = unsigned.withProofs([p.crypto.sign(fork.bob.keyPair.privateKey, unsigned.proofSourceBytes)]);
      await assert.rejects(
        admission.admit(forged, { origin: 'api' }),
        (e: unknown) => e instanceof WeError && /proof doesn't validate as signature/.test(e.message),
      );
      assert.equal(asked, 2);
      assert.equal(pool.size().size, 1);
    } finally {
      threads.verify = verify;
    }
  });

  it('with allow-transactions-from-smart-accounts = false refuses scripted senders (199) while blocks still carry them', () => {
    const clock = new fork.Clock();
    const node = fork.ChainNode.create('scripts-deny', clock, [fork.minerA]);
    const t = forkTx(clock);
    node.forge();
    node.micro([t(fork.alice, { type: 13, version: 1, script: compiled('true'), name: 'open', description: '', fee: 50_000_000n })]);
    const pool = new UtxPool({
      chain: node.chain,
      settings: { memoryLimitBytes: 1 << 20, txExpireTimeoutMs: 3_600_000, cleanupIntervalMs: 60_000, allowTransactionsFromSmartAccounts: false },
      now: clock.read,
    });
    const tx = t(fork.alice, { type: 4, version: 2, recipient: fork.bob.b58, amount: WEST, fee: 1_000_000n, attachment: '' });
    assert.throws(
      () => pool.put(tx),
      (e: unknown) => (e as WeError).code === 199 && (e as WeError).message === 'transactions from scripted accounts are denied from UTX pool',
    );
    pool.put(t(fork.bob, { type: 4, version: 2, recipient: fork.alice.b58, amount: WEST, fee: 1_000_000n, attachment: '' }));
    node.micro([tx]);
    assert.equal(node.store.transactionHeight(tx.id), node.chain.height());
  });
});

describe('the same decisions on re-validation', () => {
  it('a follower applying the blocks whole, and a chain rolled back and fed them again, decide as the miner did', () => {
    const clock = new fork.Clock();
    const a = fork.ChainNode.create('scripts-a', clock, [fork.minerA]);
    const b = fork.ChainNode.create('scripts-b', clock, [fork.minerA]);
    const t = forkTx(clock);
    a.forge();
    const unlock = a.chain.height() + 2;
    a.micro([t(fork.alice, { type: 13, version: 1, script: compiled(`height >= ${unlock}`), name: 'lock', description: '', fee: 50_000_000n })]);
    const locked = t(fork.alice, { type: 4, version: 2, recipient: fork.bob.b58, amount: WEST, fee: 1_000_000n, attachment: '' });
    assert.throws(
      () => a.pool.put(locked),
      (e: unknown) => e instanceof ScriptRejection && e.code === 307,
    );
    clock.nextRound();
    a.forge();
    assert.throws(() => a.micro([locked]), /micro-block rejected: Transaction is not allowed by account-script/);
    clock.nextRound();
    a.forge();
    assert.equal(a.chain.height(), unlock);
    a.pool.put(locked);
    a.micro([locked]);
    clock.nextRound();
    a.forge();

    b.follow(a);
    assert.equal(b.stateHash(), a.stateHash());
    assert.deepEqual(b.ids(), a.ids());

    const blocks = [unlock - 1, unlock, unlock + 1].map((h) => a.chain.blockAt(h)!);
    b.chain.rollbackTo(unlock - 2, { origin: 'local', returnToPool: false });
    assert.equal(b.store.transactionHeight(locked.id), undefined);
    for (const block of blocks) b.chain.appendBlock(block);
    assert.equal(b.store.transactionHeight(locked.id), unlock);
    assert.equal(b.stateHash(), a.stateHash());
  });
});
