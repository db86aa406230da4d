/**
 * Scripts on real transactions in WE's context: `tx` as WE binds each transaction class
 * (and the classes it leaves unbound), the state functions against an in-memory chain,
 * `vars` as WE renders them, and the verifier's decisions — account scripts instead of
 * signatures, asset scripts of checked assets, exchanges — with WE's 306/307 bodies.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Address } from '../../src/crypto/address.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { DataEntry } from '../../src/protocol/transactions/fields.js';
import { Issue, SponsorFee } from '../../src/protocol/transactions/assets.js';
import { CallContract } from '../../src/protocol/transactions/contracts.js';
import { Data } from '../../src/protocol/transactions/data.js';
import { exchangeTransaction, signOrder, type Order } from '../../src/protocol/transactions/exchange.js';
import { Genesis } from '../../src/protocol/transactions/genesis.js';
import { Protocol } from '../../src/protocol/protocol.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { SetScript } from '../../src/protocol/transactions/scripts.js';
import { MassTransfer, Transfer } from '../../src/protocol/transactions/transfer.js';
import { compileTree } from '../../src/ride/compiler.js';
import type { ScriptVersion } from '../../src/ride/context.js';
import { parse } from '../../src/ride/parser.js';
import { scriptBytes, type Script } from '../../src/ride/script.js';
import { compileContext, compileScript } from '../../src/ride/script-compiler.js';
import { ScriptVerifier, type ScriptOutcome, type ScriptState, type SignatureChecks } from '../../src/chain/scripts/verifier.js';
import { CaseObj, valueText, type Value } from '../../src/ride/values.js';
import { ScriptRejection, WeError } from '../../src/errors/catalogue.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const verifier = await ScriptVerifier.create(p);

const key = (seed: string) => p.crypto.keyPairFromSeedPhrase(`ride chain scripts ${seed}`);
const alice = key('alice');
const bob = key('bob');
const carol = key('carol');
const addr = (kp: { publicKey: Uint8Array }): Address => p.addresses.fromPublicKey(kp.publicKey);
const ASSET = new Uint8Array(32).fill(7);
const OTHER_ASSET = new Uint8Array(32).fill(9);
const TS = 1_700_000_000_000n;

/** An in-memory chain: balances, aliases, data, transactions, scripts. */
class MemoryChain implements ScriptState {
  h = 42;
  readonly balances = new Map<string, bigint>();
  readonly aliases = new Map<string, Uint8Array>();
  readonly data = new Map<string, DataEntry>();
  readonly txs = new Map<string, { tx: Transaction; height: number }>();
  readonly accountScripts = new Map<string, Uint8Array>();
  readonly assetScripts = new Map<string, Uint8Array>();
  readonly reads: string[] = [];

  private static k = (b: Uint8Array): string => Buffer.from(b).toString('hex');

  height(): number {
    return this.h;
  }
  balance(address: Uint8Array, assetId: Uint8Array | null): bigint {
    return this.balances.get(`${MemoryChain.k(address)}|${assetId === null ? '' : MemoryChain.k(assetId)}`) ?? 0n;
  }
  setBalance(address: Address, assetId: Uint8Array | null, v: bigint): void {
    this.balances.set(`${MemoryChain.k(address.bytes)}|${assetId === null ? '' : MemoryChain.k(assetId)}`, v);
  }
  aliasOwner(name: string): Uint8Array | undefined {
    return this.aliases.get(name);
  }
  dataEntry(address: Uint8Array, k: string): DataEntry | undefined {
    return this.data.get(`${MemoryChain.k(address)}|${k}`);
  }
  putData(address: Address, e: DataEntry): void {
    this.data.set(`${MemoryChain.k(address.bytes)}|${e.key}`, e);
  }
  transactionHeight(id: Uint8Array): number | undefined {
    return this.txs.get(MemoryChain.k(id))?.height;
  }
  transactionById(id: Uint8Array): Transaction | undefined {
    return this.txs.get(MemoryChain.k(id))?.tx;
  }
  store(tx: Transaction, height: number): void {
    this.txs.set(MemoryChain.k(tx.id), { tx, height });
  }
  accountScript(address: Uint8Array): Uint8Array | null {
    this.reads.push(`account ${MemoryChain.k(address).slice(0, 8)}`);
    return this.accountScripts.get(MemoryChain.k(address)) ?? null;
  }
  assetScript(assetId: Uint8Array): Uint8Array | null {
    this.reads.push(`asset ${MemoryChain.k(assetId).slice(0, 4)}`);
    return this.assetScripts.get(MemoryChain.k(assetId)) ?? null;
  }
  setAccountScript(a: Address, script: Uint8Array): void {
    this.accountScripts.set(MemoryChain.k(a.bytes), script);
  }
  setAssetScript(assetId: Uint8Array, script: Uint8Array): void {
    this.assetScripts.set(MemoryChain.k(assetId), script);
  }
}

function script(source: string, assetScript = false): Uint8Array {
  const r = compileScript(source, { assetScript, crypto: p });
  assert.ok(r.ok, r.ok ? '' : r.error);
  return r.ok ? r.script.bytes : new Uint8Array(0);
}

/** Evaluates an expression of any type in WE's context on a transaction. */
function evalOn(tx: Transaction, source: string, chain = new MemoryChain(), o: { version?: ScriptVersion; token?: boolean } = {}): ScriptOutcome {
  const version = o.version ?? 2;
  const token = o.token ?? false;
  const parsed = parse(source);
  assert.ok(parsed.ok, source);
  const expr = compileTree(compileContext(version, token), parsed.ok ? parsed.expr : (undefined as never)).expr;
  const s: Script = { version, expr, bytes: new Uint8Array(0), complexity: 0 };
  return verifier.run(s, { tx }, chain, token);
}

function valueOf(tx: Transaction, source: string, chain?: MemoryChain, o?: { version?: ScriptVersion; token?: boolean }): Value {
  const r = evalOn(tx, source, chain, o);
  if (r.kind !== 'value') assert.fail(`${source}: ${r.error}`);
  return r.value;
}

const transfer = (over: Partial<Parameters<typeof p.transaction>[2] & Record<string, unknown>> = {}, version = 3): Transaction =>
  p.sign(
    p.transaction(Transfer, version, {
      senderPublicKey: alice.publicKey,
      assetId: ASSET,
      feeAssetId: null,
      timestamp: TS,
      amount: 5n,
      fee: 1_000_000n,
      recipient: addr(bob),
      attachment: Uint8Array.of(1, 2),
      atomicBadge: null,
      ...over,
    }),
    alice.privateKey,
  );

const massTransfer = (version: number): Transaction =>
  p.sign(
    p.transaction(MassTransfer, version, {
      senderPublicKey: alice.publicKey,
      assetId: null,
      transfers: [
        { recipient: addr(bob), amount: 3n },
        { recipient: p.addresses.alias('bobby'), amount: 4n },
      ],
      timestamp: TS,
      fee: 2_000_000n,
      attachment: new Uint8Array(0),
      feeAssetId: null,
      atomicBadge: null,
    }),
    alice.privateKey,
  );

describe('tx as WE binds it', () => {
  it('Transfer: every field, the sender, proofs padded to 8', () => {
    const tx = transfer();
    const check = [
      `match tx { case t: TransferTransaction =>`,
      ` t.amount == 5 && t.fee == 1000000 && t.timestamp == ${TS} && t.version == 3`,
      ` && t.assetId == base58'${encodeBase58(ASSET)}' && !isDefined(t.feeAssetId)`,
      ` && t.attachment == base58'${encodeBase58(Uint8Array.of(1, 2))}'`,
      ` && t.recipient == Address(base58'${addr(bob).toString()}')`,
      ` && t.sender == addressFromPublicKey(t.senderPublicKey)`,
      ` && t.id == base58'${tx.idBase58}' && t.bodyBytes == base58'${encodeBase58(tx.bodyBytes)}'`,
      ` && size(t.proofs) == 8 && t.proofs[0] == base58'${encodeBase58(tx.proofs[0]!)}' && t.proofs[7] == base58''`,
      ` && sigVerify(t.bodyBytes, t.proofs[0], t.senderPublicKey)`,
      ` case _ => false }`,
    ].join('\n');
    assert.equal(valueOf(tx, check), true);
    // An asset script sees the same transaction without proofs.
    assert.equal(
      valueOf(
        tx,
        "match tx { case t: TransferTransaction => t.amount == 5 && t.recipient == Address(base58'" + addr(bob).toString() + "')\n case _ => false }",
        undefined,
        { token: true },
      ),
      true,
    );
  });

  it('the case object renders as WE prints it, fields in Scala HashMap order', () => {
    const tx = transfer();
    const sender = valueOf(tx, 'tx.sender') as CaseObj;
    assert.equal(
      valueText(sender),
      `\nAddress {\n  bytes -> CONST_BYTEVECTOR(ByteVector(26 bytes, 0x${Buffer.from(addr(alice).bytes).toString('hex')}))\n}\n     `,
    );
    const obj = valueOf(tx, 'tx', undefined, { token: true }) as CaseObj;
    assert.deepEqual(
      obj.fields.map(([k]) => k),
      ['recipient', 'assetId', 'timestamp', 'feeAssetId', 'amount', 'attachment', 'bodyBytes', 'version', 'id', 'senderPublicKey', 'sender', 'fee']
        .filter((k) => obj.field(k) !== undefined)
        .sort((a, b) => obj.fields.findIndex(([x]) => x === a) - obj.fields.findIndex(([x]) => x === b)),
    );
    assert.equal(obj.fields.length, 12);
    assert.ok(valueText(valueOf(tx, 'tx.proofs')).startsWith('ARR(Vector(CONST_BYTEVECTOR(ByteVector(64 bytes, 0x'));
  });

  it('MassTransfer V1: transfers, counts; feeAssetId is declared but never filled (uncaught)', () => {
    const tx = massTransfer(1);
    assert.equal(
      valueOf(
        tx,
        'match tx { case m: MassTransferTransaction => m.transferCount == 2 && m.totalAmount == 7 && m.transfers[1].recipient == Alias("bobby") && m.transfers[0].amount == 3 && !isDefined(m.assetId)\n case _ => false }',
      ),
      true,
    );
    const r = evalOn(tx, 'match tx { case m: MassTransferTransaction => isDefined(m.feeAssetId)\n case _ => false }');
    assert.deepEqual(r, { kind: 'uncaught', error: 'java.util.NoSuchElementException: key not found: feeAssetId' });
  });

  it('classes WE leaves unbound fail uncaught when tx is read, and only then', () => {
    for (const tx of [
      massTransfer(2),
      p.sign(
        p.transaction(SponsorFee, 2, { senderPublicKey: alice.publicKey, assetId: ASSET, isEnabled: true, fee: 1n, timestamp: TS, atomicBadge: null }),
        alice.privateKey,
      ),
    ]) {
      const r = evalOn(tx, "tx.id == base58''");
      assert.equal(r.kind, 'uncaught');
      assert.match(r.kind === 'uncaught' ? r.error : '', /^scala\.MatchError: /);
      assert.equal(valueOf(tx, 'height > 0'), true);
    }
  });

  it('Data, Issue, SetScript, SponsorFee V1, CallContract V1 and V2', () => {
    const data = p.sign(
      p.transaction(Data, 2, {
        senderPublicKey: alice.publicKey,
        author: alice.publicKey,
        data: [
          { key: 'i', type: 'integer', value: 10n },
          { key: 'b', type: 'boolean', value: true },
          { key: 's', type: 'string', value: 'x' },
          { key: 'bin', type: 'binary', value: Uint8Array.of(1) },
        ],
        timestamp: TS,
        fee: 1n,
        feeAssetId: null,
        atomicBadge: null,
      }),
      alice.privateKey,
    );
    assert.equal(
      valueOf(
        data,
        'match tx { case d: DataTransaction => extract(getInteger(d.data, "i")) == 10 && extract(getBoolean(d.data, 1)) && getString(d.data, "s") == "x" && !isDefined(getString(d.data, "i")) && !isDefined(getInteger(d.data, 3)) && size(d.data) == 4\n case _ => false }',
      ),
      true,
    );
    const setScript = script('true');
    const issue = p.sign(
      p.transaction(Issue, 2, {
        chainId: p.chainId,
        senderPublicKey: alice.publicKey,
        name: Buffer.from('coin'),
        description: new Uint8Array(0),
        quantity: 100n,
        decimals: 2,
        reissuable: false,
        fee: 1n,
        timestamp: TS,
        atomicBadge: null,
        script: setScript,
      }),
      alice.privateKey,
    );
    assert.equal(
      valueOf(
        issue,
        `match tx { case i: IssueTransaction => i.decimals == 2 && i.name == base58'${encodeBase58(Buffer.from('coin'))}' && extract(i.script) == base64'${Buffer.from(setScript).toString('base64')}' && !i.reissuable\n case _ => false }`,
      ),
      true,
    );
    const ss = p.sign(
      p.transaction(SetScript, 1, {
        chainId: p.chainId,
        senderPublicKey: alice.publicKey,
        script: null,
        name: Buffer.from('n'),
        description: new Uint8Array(0),
        fee: 1n,
        timestamp: TS,
      }),
      alice.privateKey,
    );
    assert.equal(valueOf(ss, 'match tx { case s: SetScriptTransaction => !isDefined(s.script)\n case _ => false }'), true);
    const sponsor = p.sign(
      p.transaction(SponsorFee, 1, { senderPublicKey: alice.publicKey, assetId: ASSET, isEnabled: true, fee: 1n, timestamp: TS, atomicBadge: null }),
      alice.privateKey,
    );
    assert.equal(valueOf(sponsor, 'match tx { case s: SponsorFeeTransaction => s.isEnabled\n case _ => false }'), true);
    const contractId = new Uint8Array(32).fill(3);
    for (const [version, expected] of [
      [1, 1n],
      [2, 4n],
    ] as const) {
      const call = p.sign(
        p.transaction(CallContract, version, { senderPublicKey: alice.publicKey, contractId, params: [], fee: 1n, timestamp: TS, contractVersion: 4 } as never),
        alice.privateKey,
      );
      assert.equal(valueOf(call, 'match tx { case c: CallContractTransaction => c.contractVersion\n case _ => 0 }'), expected);
    }
  });

  it("CommonFunctionsTest: shadowing in match, data constructors' equality", () => {
    const tx = transfer();
    assert.equal(
      valueOf(
        tx,
        `match tx {\n case tx : TransferTransaction  => tx.id == base58'${tx.idBase58}'\n case tx : IssueTransaction => tx.fee == 1\n case other => throw()\n }`,
      ),
      true,
    );
    assert.equal(
      valueOf(
        tx,
        `match tx {\n case tx: TransferTransaction | IssueTransaction => {\n  match tx {\n    case tx: TransferTransaction  => tx.id == base58'${tx.idBase58}'\n    case tx: IssueTransaction => tx.fee == 1\n  }\n  }\n case other => throw()\n}`,
      ),
      true,
    );
    const denied = (source: string): string => {
      const r = compileScript(source, { assetScript: false, crypto: p });
      return r.ok ? 'compiled' : r.error;
    };
    assert.match(
      denied('let t = 100\nmatch tx {\n case t: TransferTransaction  => true\n case other => throw()\n }'),
      /^Compilation failed: Value 't' already defined in the scope/,
    );
    assert.match(
      denied('match {\n  let aaa = 1\n  tx\n} {\n     case tx: TransferTransaction  => true\n     case other => throw()\n }'),
      /^Compilation failed: Value 'tx' already defined in the scope/,
    );
    assert.match(
      denied('match p {\n case tx: TransferTransaction  => true\n case other => throw()\n }'),
      /^Compilation failed: A definition of 'p' is not found/,
    );
    const b = addr(bob).toString();
    assert.equal(
      valueOf(
        tx,
        `match tx {\n  case tx: TransferTransaction =>\n    let goodEq = tx.recipient == Address(base58'${b}')\n    let badAddressEq = tx.recipient == Address(base58'Mbembangwana')\n    let badAliasNe = tx.recipient != Alias("Nuripitia")\n    goodEq && !badAddressEq && badAliasNe\n  case _ => throw()\n}`,
      ),
      true,
    );
    const data = p.sign(
      p.transaction(Data, 1, {
        senderPublicKey: alice.publicKey,
        author: alice.publicKey,
        data: [{ key: 'k', type: 'integer', value: 5n }],
        timestamp: TS,
        fee: 100000n,
        feeAssetId: null,
        atomicBadge: null,
      }),
      alice.privateKey,
    );
    assert.equal(
      valueOf(
        data,
        'match tx {\n  case tx: DataTransaction =>\n    tx.data[0] == DataEntry("k", 5) && tx.data[0] != DataEntry("k", true) && tx.data[0] != DataEntry("k", "5")\n  case _ => throw()\n}',
      ),
      true,
    );
  });

  it('Exchange and its orders; an Order as tx of an order script', () => {
    const order = (owner: typeof alice, type: 'buy' | 'sell'): Order =>
      signOrder(
        {
          version: 2,
          senderPublicKey: owner.publicKey,
          matcherPublicKey: carol.publicKey,
          amountAsset: ASSET,
          priceAsset: null,
          orderType: type,
          price: 250_000_000n,
          amount: 3_000n,
          timestamp: TS - 1000n,
          expiration: TS + 86_400_000n,
          matcherFee: 300_000n,
          proofs: [],
        },
        owner.privateKey,
        p,
      );
    const buy = order(alice, 'buy');
    const sell = order(bob, 'sell');
    const ex = p.sign(
      exchangeTransaction(p, {
        buyOrder: buy,
        sellOrder: sell,
        amount: 2000n,
        price: 250_000_000n,
        buyMatcherFee: 200_000n,
        sellMatcherFee: 200_000n,
        fee: 300_000n,
        timestamp: TS,
      }),
      carol.privateKey,
    );
    assert.equal(
      valueOf(
        ex,
        'match tx { case e: ExchangeTransaction => e.buyOrder.orderType == Buy && e.sellOrder.orderType == Sell && e.amount == 2000 && e.buyOrder.assetPair.priceAsset == unit && e.sellOrder.sender == addressFromPublicKey(e.sellOrder.senderPublicKey) && size(e.buyOrder.proofs) == 8\n case _ => false }',
      ),
      true,
    );
    const chain = new MemoryChain();
    const parsed = parse('match tx { case o: Order => o.price == 250000000 && o.orderType == Sell\n case _ => false }');
    assert.ok(parsed.ok);
    const expr = compileTree(compileContext(2, false), parsed.ok ? parsed.expr : (undefined as never)).expr;
    const r = verifier.run({ version: 2, expr, bytes: new Uint8Array(0), complexity: 0 }, { order: sell, exchange: ex }, chain, false);
    assert.equal(r.kind === 'value' ? r.value : r, true);
  });
});

describe('state functions against the chain', () => {
  const chain = new MemoryChain();
  chain.aliases.set('bobby', addr(bob).bytes);
  chain.setBalance(addr(bob), null, 1234n);
  chain.setBalance(addr(bob), ASSET, 55n);
  chain.putData(addr(bob), { key: 'n', type: 'integer', value: 7n });
  chain.putData(addr(bob), { key: 's', type: 'string', value: 'str' });
  const stored = transfer({ amount: 9n });
  chain.store(stored, 30);
  const genesis = p.transaction(Genesis, 1, { recipient: addr(alice), amount: 100n, timestamp: TS });
  chain.store(genesis, 1);
  const tx = transfer();

  it('getX by address and alias; unit for missing keys, other types, unknown or malformed aliases', () => {
    const b = `Address(base58'${addr(bob).toString()}')`;
    assert.equal(
      valueOf(
        tx,
        `extract(getInteger(${b}, "n")) == 7 && getString(Alias("bobby"), "s") == "str" && !isDefined(getString(${b}, "n")) && !isDefined(getInteger(${b}, "x")) && !isDefined(getInteger(Alias("nobody"), "n")) && !isDefined(getInteger(Alias("x"), "n")) && !isDefined(getInteger(Address(base58'11'), "n"))`,
        chain,
      ),
      true,
    );
  });

  it('balances: WEST, assets, by alias; an unknown alias is an error', () => {
    const b = `Address(base58'${addr(bob).toString()}')`;
    assert.equal(
      valueOf(
        tx,
        `wavesBalance(${b}) == 1234 && assetBalance(Alias("bobby"), base58'${encodeBase58(ASSET)}') == 55 && assetBalance(${b}, base58'${encodeBase58(OTHER_ASSET)}') == 0`,
        chain,
      ),
      true,
    );
    assert.deepEqual(evalOn(tx, 'wavesBalance(Alias("nobody")) == 0', chain), {
      kind: 'error',
      error: 'AliasDoesNotExist(alias:T:nobody)',
      log: [{ name: '(arg)@addressOrAlias', value: valueOf(tx, 'Alias("nobody")') }],
    });
    assert.equal(evalOn(tx, "assetBalance(Address(base58'11'), unit) == 0", chain).kind, 'error');
    assert.equal(valueOf(tx, 'addressFromRecipient(Alias("bobby")) == Address(base58\'' + addr(bob).toString() + "')", chain), true);
    assert.deepEqual(evalOn(tx, 'addressFromRecipient(Alias("nobody")) == tx.sender', chain), {
      kind: 'error',
      error: 'AliasDoesNotExist(alias:T:nobody)',
      log: [],
    });
  });

  it('transactionById binds as tx does; transactionHeightById; genesis bound too', () => {
    assert.equal(
      valueOf(
        tx,
        `match transactionById(base58'${stored.idBase58}') { case t: TransferTransaction => t.amount == 9 && size(t.proofs) == 8\n case _ => false }`,
        chain,
      ),
      true,
    );
    assert.equal(
      valueOf(
        tx,
        `transactionHeightById(base58'${stored.idBase58}') == 30 && !isDefined(transactionHeightById(base58'11')) && !isDefined(transactionById(base58'11'))`,
        chain,
      ),
      true,
    );
    assert.equal(
      valueOf(
        tx,
        `match transactionById(base58'${genesis.idBase58}') { case g: GenesisTransaction => g.amount == 100 && g.recipient == Address(base58'${addr(alice).toString()}')\n case _ => false }`,
        chain,
      ),
      true,
    );
    assert.equal(valueOf(tx, 'height == 42', chain), true);
  });

  it('addressFromString: valid with and without prefix; other network, bad checksum or length → unit', () => {
    const a = addr(alice).toString();
    assert.equal(valueOf(tx, `addressFromString("${a}") == Address(base58'${a}') && addressFromString("address:${a}") == Address(base58'${a}')`), true);
    const otherNet = p.addresses.fromPublicKey(alice.publicKey).bytes.slice();
    otherNet[1] = 'W'.charCodeAt(0);
    const badChecksum = addr(alice).bytes.slice();
    badChecksum[25] = badChecksum[25]! ^ 1;
    for (const bad of [encodeBase58(otherNet), encodeBase58(badChecksum), encodeBase58(addr(alice).bytes.slice(0, 25))]) {
      assert.equal(valueOf(tx, `!isDefined(addressFromString("${bad}"))`), true, bad);
    }
    assert.deepEqual(evalOn(tx, `isDefined(addressFromString("${'1'.repeat(101)}"))`).kind, 'error');
  });
});

// ---------------------------------------------------------------------------
// The verifier

const noSignatures: SignatureChecks = {
  senderSignature: () => assert.fail('the sender signature was checked'),
  orderSignature: () => assert.fail('an order signature was checked'),
  dataAuthorSignature: () => assert.fail('the author signature was checked'),
};

function rejection(f: () => void): ScriptRejection | WeError {
  try {
    f();
  } catch (e) {
    if (e instanceof WeError) return e;
    throw e;
  }
  return assert.fail('accepted');
}

describe('verifier: WE 306/307', () => {
  it('a scripted account: the script decides instead of the signature; 307 with the forced lets', () => {
    const chain = new MemoryChain();
    chain.setAccountScript(addr(alice), script('let big = match tx { case t: TransferTransaction => t.fee > 10\n case _ => true }\nlet small = !big\nsmall'));
    const cheap = transfer({ fee: 5n });
    verifier.verify(cheap, chain, noSignatures);
    const dear = transfer({ fee: 11n });
    const e = rejection(() => verifier.verify(dear, chain, noSignatures));
    assert.ok(e instanceof ScriptRejection);
    assert.equal(e.code, 307);
    assert.equal(e.message, 'Transaction is not allowed by account-script');
    assert.deepEqual(e.transaction, dear.toJson());
    assert.equal(
      e.script,
      'BLOCK(LET(big,BLOCK(LET($match0,REF(tx)),IF(FUNCTION_CALL(Native(1),List(REF($match0), CONST_STRING(TransferTransaction))),BLOCK(LET(t,REF($match0)),FUNCTION_CALL(Native(102),List(GETTER(REF(t),fee), CONST_LONG(10)))),TRUE))),BLOCK(LET(small,FUNCTION_CALL(User(!),List(REF(big)))),REF(small)))',
    );
    assert.deepEqual(
      e.vars.map((v) => v.name),
      ['$match0', 't', 'big', '(arg)@p', 'small'],
    );
    assert.deepEqual(e.vars.slice(2), [
      { name: 'big', value: 'TRUE' },
      { name: '(arg)@p', value: 'TRUE' },
      { name: 'small', value: 'FALSE' },
    ]);
    assert.deepEqual(Object.keys(e.extra ?? {}), ['transaction', 'script', 'vars']);
  });

  it('a failing script: 306 with the error and the lets forced until then; uncaught errors have no vars', () => {
    const chain = new MemoryChain();
    chain.setAccountScript(addr(alice), script('let a = 1\nlet b = if (height > 0) then throw("no way") else 2\na + b > 0'));
    const e = rejection(() => verifier.verify(transfer(), chain, noSignatures));
    assert.ok(e instanceof ScriptRejection);
    assert.deepEqual(
      [e.code, e.message, e.vars],
      [
        306,
        'Error while executing account-script: no way',
        [
          { name: 'a', value: 'CONST_LONG(1)' },
          { name: 'b', error: 'no way' },
        ],
      ],
    );
    chain.setAccountScript(addr(alice), script("tx.id != base58''"));
    const unbound = rejection(() => verifier.verify(massTransfer(2), chain, noSignatures));
    assert.ok(unbound instanceof ScriptRejection);
    assert.equal(unbound.code, 306);
    assert.match(unbound.message, /^Error while executing account-script: Uncaught execution error: scala\.MatchError: /);
    assert.deepEqual(unbound.vars, []);
  });

  it('an account without script: the signature check runs; a non-boolean result is a GenericError', () => {
    const chain = new MemoryChain();
    let checked = 0;
    verifier.verify(transfer(), chain, { ...noSignatures, senderSignature: () => void checked++ });
    assert.equal(checked, 1);
    const e = rejection(() => verifier.verifyTx(transfer(), scriptReturning('1'), chain, false));
    assert.deepEqual([e.code, e.message], [199, 'Script returned not a boolean result, but CONST_LONG(1)']);
  });

  it('asset scripts: token-script wording, no proofs, the last checked asset first', () => {
    const chain = new MemoryChain();
    chain.setAssetScript(
      ASSET,
      script(`match tx { case t: TransferTransaction => t.recipient != Address(base58'${addr(bob).toString()}')\n case _ => true }`, true),
    );
    const e = rejection(() => verifier.verify(transfer(), chain, { ...noSignatures, senderSignature: () => undefined }));
    assert.ok(e instanceof ScriptRejection);
    assert.deepEqual([e.code, e.message], [307, 'Transaction is not allowed by token-script']);
    verifier.verify(transfer({ recipient: addr(carol) }), chain, { ...noSignatures, senderSignature: () => undefined });
    // A transfer of WEST checks no asset.
    chain.reads.length = 0;
    verifier.verify(transfer({ assetId: null }), chain, { ...noSignatures, senderSignature: () => undefined });
    assert.deepEqual(chain.reads, [`account ${Buffer.from(addr(alice).bytes).toString('hex').slice(0, 8)}`]);
  });

  it('exchange: matcher, sell order, buy order scripts, then amount and price asset scripts', () => {
    const mk = (owner: typeof alice, type: 'buy' | 'sell', version = 2): Order =>
      signOrder(
        {
          version,
          senderPublicKey: owner.publicKey,
          matcherPublicKey: carol.publicKey,
          amountAsset: ASSET,
          priceAsset: OTHER_ASSET,
          orderType: type,
          price: 100_000_000n,
          amount: 1000n,
          timestamp: TS,
          expiration: TS + 1000n,
          matcherFee: 1n,
          proofs: [],
        },
        owner.privateKey,
        p,
      );
    const ex = (buy: Order, sell: Order) =>
      p.sign(
        exchangeTransaction(p, {
          buyOrder: buy,
          sellOrder: sell,
          amount: 1000n,
          price: 100_000_000n,
          buyMatcherFee: 1n,
          sellMatcherFee: 1n,
          fee: 300_000n,
          timestamp: TS,
        }),
        carol.privateKey,
      );
    const chain = new MemoryChain();
    const order: string[] = [];
    const checks: SignatureChecks = {
      senderSignature: () => void order.push('matcher signature'),
      orderSignature: (_tx, o) => void order.push(`${o.orderType} order signature`),
      dataAuthorSignature: () => assert.fail(),
    };
    chain.setAccountScript(addr(bob), script('{-# LANGUAGE_VERSION 2 #-}\nmatch tx { case o: Order => o.orderType == Sell\n case _ => false }'));
    chain.setAssetScript(ASSET, script('true', true));
    chain.setAssetScript(OTHER_ASSET, script('match tx { case e: ExchangeTransaction => e.price > 0\n case _ => false }', true));
    verifier.verify(ex(mk(alice, 'buy'), mk(bob, 'sell')), chain, checks);
    assert.deepEqual(order, ['matcher signature', 'buy order signature']);
    chain.setAssetScript(OTHER_ASSET, scriptReturning('1'));
    const e = rejection(() => verifier.verify(ex(mk(alice, 'buy'), mk(bob, 'sell')), chain, checks));
    assert.deepEqual([e.code, e.message], [306, 'Error while executing token-script: Script returned not a boolean result, but CONST_LONG(1)']);
    const v1 = rejection(() => verifier.verify(ex(mk(alice, 'buy'), mk(bob, 'sell', 1)), chain, checks));
    assert.deepEqual([v1.code, v1.message], [199, "Can't process order with signature from scripted account"]);
  });

  it('a rejection re-homed on an enclosing transaction keeps its script and vars', () => {
    const chain = new MemoryChain();
    chain.setAccountScript(addr(alice), script('false'));
    const e = rejection(() => verifier.verify(transfer(), chain, noSignatures));
    assert.ok(e instanceof ScriptRejection);
    const outer = transfer({ amount: 77n });
    const moved = e.forTransaction(outer.toJson());
    assert.deepEqual([moved.code, moved.message, moved.script, moved.vars, moved.transaction], [307, e.message, 'FALSE', [], outer.toJson()]);
  });
});

/** A version-1 script whose expression is a bare value (WE reads it; it is not a compiler output). */
function scriptReturning(literal: string): Uint8Array {
  const parsed = parse(literal);
  assert.ok(parsed.ok);
  return scriptBytes(1, compileTree(compileContext(1, false), parsed.ok ? parsed.expr : (undefined as never)).expr, p);
}
