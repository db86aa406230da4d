/**
 * Exchange (7, V2) with V1/V2 orders. No client library builds it, so the vectors are made
 * here: orders and the exchange are built and signed with Weft and their bytes are checked
 * against the layout of reference §4.6, assembled independently in the test.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import {
  exchangeTransaction,
  MAX_AMOUNT,
  MAX_ORDER_LIVE_TIME,
  orderBodyBytes,
  signOrder,
  type ExchangeData,
  type Order,
} from '../../src/protocol/transactions/exchange.js';
import { WeError } from '../../src/errors/catalogue.js';

const waves = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const gost = await Protocol.create({ crypto: 'gost', chainId: 'T' });

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const i64 = (n: bigint | number): string => BigInt.asUintN(64, BigInt(n)).toString(16).padStart(16, '0');
const i32 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

function weError(f: () => unknown, code: number, message?: string, kind?: string, field?: string): WeError {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof WeError, `expected a WeError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (message !== undefined) assert.equal(caught.message, message);
  if (kind !== undefined) assert.equal(caught.kind, kind);
  if (field !== undefined) assert.equal(caught.field, field);
  return caught;
}

const TS = 1700000000000n;
const AMOUNT_ASSET = new Uint8Array(32).map((_, i) => 0xa0 + (i % 16));

interface World {
  p: Protocol;
  buyer: KeyPair;
  seller: KeyPair;
  matcher: KeyPair;
}

function world(p: Protocol): World {
  const kp = (phrase: string) => p.crypto.keyPairFromSeedPhrase(`${phrase} seed phrase for testing only please ignore`);
  return { p, buyer: kp('examples'), seller: kp('second'), matcher: kp('third') };
}

function order(w: World, type: 'buy' | 'sell', version: number, over: Partial<Order> = {}): Order {
  const owner = type === 'buy' ? w.buyer : w.seller;
  const unsigned: Order = {
    version,
    senderPublicKey: owner.publicKey,
    matcherPublicKey: w.matcher.publicKey,
    amountAsset: AMOUNT_ASSET,
    priceAsset: null,
    orderType: type,
    price: 250_000_000n,
    amount: 3_000n,
    timestamp: TS - 1000n,
    expiration: TS + 86_400_000n,
    matcherFee: 300_000n,
    proofs: [],
    ...over,
  };
  return signOrder(unsigned, owner.privateKey, w.p);
}

function exchangeData(w: World, over: Partial<Omit<ExchangeData, 'senderPublicKey'>> = {}): Omit<ExchangeData, 'senderPublicKey'> {
  return {
    buyOrder: order(w, 'buy', 2),
    sellOrder: order(w, 'sell', 1),
    amount: 2_000n,
    price: 250_000_000n,
    buyMatcherFee: 200_000n,
    sellMatcherFee: 200_000n,
    fee: 300_000n,
    timestamp: TS,
    ...over,
  };
}

function signedExchange(w: World, over: Partial<Omit<ExchangeData, 'senderPublicKey'>> = {}) {
  return w.p.sign(exchangeTransaction(w.p, exchangeData(w, over)), w.matcher.privateKey);
}

/** An order's bytes assembled by hand from reference §4.6. */
function orderLayout(o: Order): string {
  const asset = (a: Uint8Array | null): string => (a === null ? '00' : `01${hex(a)}`);
  const body = [
    o.version === 2 ? '02' : '',
    hex(o.senderPublicKey),
    hex(o.matcherPublicKey),
    asset(o.amountAsset),
    asset(o.priceAsset),
    o.orderType === 'buy' ? '00' : '01',
    i64(o.price),
    i64(o.amount),
    i64(o.timestamp),
    i64(o.expiration),
    i64(o.matcherFee),
  ].join('');
  const tail = o.version === 1 ? hex(o.proofs[0]!) : ['01', i32(o.proofs.length).slice(4), ...o.proofs.map((x) => i32(x.length).slice(4) + hex(x))].join('');
  return body + tail;
}

for (const [mode, p] of [
  ['waves', waves],
  ['gost', gost],
] as const) {
  const w = world(p);

  describe(`Exchange fixed vectors (${mode})`, () => {
    it('body bytes: 00 07 02 ‖ sized orders (01 marker before a V1 order) ‖ six longs', () => {
      const tx = signedExchange(w);
      const d = tx.data;
      const buy = orderLayout(d.buyOrder);
      const sell = orderLayout(d.sellOrder);
      const expected = [
        '000702',
        i32(buy.length / 2),
        buy,
        i32(sell.length / 2),
        '01',
        sell,
        i64(250_000_000n),
        i64(2_000n),
        i64(200_000n),
        i64(200_000n),
        i64(300_000n),
        i64(TS),
      ].join('');
      assert.equal(hex(tx.bodyBytes), expected);
      // Lengths from the layout: a V2 order is 1 + 2K + 33 + 1 + 1 + 40 + proofs; a V1 order has no version byte and a bare signature.
      const K = p.crypto.publicKeyLength;
      assert.equal(buy.length / 2, 1 + 2 * K + 33 + 1 + 1 + 40 + 3 + 2 + p.crypto.signatureLength);
      assert.equal(sell.length / 2, 2 * K + 33 + 1 + 1 + 40 + p.crypto.signatureLength);
      // Full bytes: the body (which already starts with 00) ‖ the matcher's proofs.
      assert.equal(hex(tx.bytes), `${expected}01000100${p.crypto.signatureLength.toString(16)}${hex(tx.proofs[0]!)}`);
      assert.equal(tx.idBase58, encodeBase58(p.crypto.fastHash(tx.bodyBytes)));
    });

    it('signatures: the matcher signs the body (with its leading 00); senders sign their order bodies', () => {
      const tx = signedExchange(w);
      assert.ok(tx.hasValidSenderSignature());
      assert.equal(hex(tx.senderPublicKey!), hex(w.matcher.publicKey));
      assert.ok(p.crypto.verify(w.matcher.publicKey, tx.bodyBytes, tx.proofs[0]!));
      assert.ok(!p.crypto.verify(w.matcher.publicKey, tx.bodyBytes.subarray(1), tx.proofs[0]!));
      for (const [o, kp] of [
        [tx.data.buyOrder, w.buyer],
        [tx.data.sellOrder, w.seller],
      ] as const) {
        assert.ok(p.crypto.verify(kp.publicKey, orderBodyBytes(o), o.proofs[0]!));
      }
    });

    it('JSON as WE writes it: sender = matcher, order1 = buy, order2 = sell', () => {
      const tx = signedExchange(w);
      const json = tx.toJson();
      assert.deepEqual(Object.keys(json), [
        'type',
        'id',
        'sender',
        'senderPublicKey',
        'fee',
        'timestamp',
        'proofs',
        'version',
        'order1',
        'order2',
        'amount',
        'price',
        'buyMatcherFee',
        'sellMatcherFee',
      ]);
      assert.equal(json['type'], 7);
      assert.equal(json['version'], 2);
      assert.equal(json['sender'], p.addresses.fromPublicKey(w.matcher.publicKey).toString());
      const o1 = json['order1'] as Record<string, unknown>;
      assert.deepEqual(Object.keys(o1), [
        'version',
        'id',
        'sender',
        'senderPublicKey',
        'matcherPublicKey',
        'assetPair',
        'orderType',
        'amount',
        'price',
        'timestamp',
        'expiration',
        'matcherFee',
        'signature',
        'proofs',
      ]);
      assert.equal(o1['version'], 2);
      assert.equal(o1['id'], encodeBase58(p.crypto.fastHash(orderBodyBytes(tx.data.buyOrder))));
      assert.equal(o1['sender'], p.addresses.fromPublicKey(w.buyer.publicKey).toString());
      assert.deepEqual(o1['assetPair'], { amountAsset: encodeBase58(AMOUNT_ASSET), priceAsset: null });
      assert.equal(o1['orderType'], 'buy');
      assert.equal(o1['signature'], encodeBase58(tx.data.buyOrder.proofs[0]!));
      assert.deepEqual(o1['proofs'], [o1['signature']]);
      assert.equal((json['order2'] as Record<string, unknown>)['version'], 1);
      assert.equal((json['order2'] as Record<string, unknown>)['orderType'], 'sell');
    });

    it('binary round trip, with every order-version combination', () => {
      for (const [bv, sv] of [
        [1, 1],
        [1, 2],
        [2, 1],
        [2, 2],
      ] as const) {
        const tx = signedExchange(w, { buyOrder: order(w, 'buy', bv), sellOrder: order(w, 'sell', sv) });
        const back = p.transactionFromBytes(tx.bytes);
        assert.equal(back.type, 7);
        assert.equal(hex(back.bytes), hex(tx.bytes));
        assert.equal(stringifyJson(back.toJson()), stringifyJson(tx.toJson()));
        assert.ok(back.hasValidSenderSignature());
      }
    });

    it('V2 orders may carry several proofs (or none)', () => {
      const buy = { ...order(w, 'buy', 2), proofs: [new Uint8Array(64).fill(1), new Uint8Array(10)] };
      const tx = signedExchange(w, { buyOrder: buy });
      assert.equal(hex(p.transactionFromBytes(tx.bytes).bytes), hex(tx.bytes));
      const none = signedExchange(w, { buyOrder: { ...buy, proofs: [] } });
      assert.equal((none.toJson()['order1'] as Record<string, unknown>)['signature'], '');
      assert.equal(hex(p.transactionFromBytes(none.bytes).bytes), hex(none.bytes));
    });

    it('truncated and corrupted bytes give a WeError', () => {
      const bytes = signedExchange(w).bytes;
      for (let n = 0; n < bytes.length; n++) weError(() => p.transactionFromBytes(bytes.subarray(0, n)), 199);
      weError(() => p.transactionFromBytes(Uint8Array.of(...bytes, 0)), 199);
      fc.assert(
        fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), (i, x) => {
          const copy = bytes.slice();
          copy[i] = copy[i]! ^ x;
          try {
            p.transactionFromBytes(copy);
          } catch (e) {
            assert.ok(e instanceof WeError, String(e));
          }
        }),
        { numRuns: 400 },
      );
    });

    it('malformed orders in binary', () => {
      const bytes = signedExchange(w).bytes;
      // 00 07 02 ‖ i32 size ‖ [02 = V2 order version] …
      const v = bytes.slice();
      v[7] = 3;
      weError(() => p.transactionFromBytes(v), 199, 'Incorrect order version: expect 2 but found 3', undefined, 'order1');
      const t = bytes.slice();
      t[7 + 1 + 2 * p.crypto.publicKeyLength + 33 + 1] = 2;
      weError(() => p.transactionFromBytes(t), 199, 'Unexpected OrderType: 2');
      const s = bytes.slice();
      s[6] = s[6]! + 1; // size one too large
      weError(() => p.transactionFromBytes(s), 199);
      const f = bytes.slice();
      f[7 + 1 + 2 * p.crypto.publicKeyLength] = 2; // asset option flag
      weError(() => p.transactionFromBytes(f), 199, 'Invalid option flag 2 for order1');
    });
  });
}

describe('Exchange stateless rules (validateExchangeParams), in WE order', () => {
  const w = world(waves);
  const fails = (over: Partial<Omit<ExchangeData, 'senderPublicKey'>>, code: number, message: string, kind?: string, field?: string) =>
    weError(() => exchangeTransaction(waves, exchangeData(w, over)), code, message, kind, field);

  it('accepts the base case', () => {
    exchangeTransaction(waves, exchangeData(w));
  });

  it('exchange amount, price and fees', () => {
    fails({ amount: 0n }, 111, 'negative amount: 0 of assets', 'NegativeAmount', 'amount');
    fails({ amount: -5n }, 111, 'negative amount: -5 of assets');
    fails({ amount: MAX_AMOUNT + 1n }, 199, 'amount too large');
    fails({ price: 0n }, 199, 'price should be > 0');
    fails({ price: MAX_AMOUNT + 1n }, 199, 'price too large');
    fails({ sellMatcherFee: MAX_AMOUNT + 1n, buyMatcherFee: MAX_AMOUNT + 1n }, 199, 'sellMatcherFee too large');
    fails({ buyMatcherFee: MAX_AMOUNT + 1n }, 199, 'buyMatcherFee too large');
    fails({ fee: MAX_AMOUNT + 1n }, 199, 'fee too large');
    // Negative fees are not a stateless error in WE.
    exchangeTransaction(waves, exchangeData(w, { fee: -1n, buyMatcherFee: -1n, sellMatcherFee: -1n }));
    // The limits are inclusive, and the exchange amount is not compared with the orders'.
    exchangeTransaction(waves, exchangeData(w, { amount: MAX_AMOUNT, fee: MAX_AMOUNT, buyMatcherFee: MAX_AMOUNT, sellMatcherFee: MAX_AMOUNT }));
  });

  it('order types, matcher and asset pair', () => {
    fails({ buyOrder: order(w, 'sell', 2) }, 199, 'buyOrder should has OrderType.BUY', 'GenericError');
    fails({ sellOrder: order(w, 'buy', 2) }, 199, 'sellOrder should has OrderType.SELL');
    fails({ sellOrder: order(w, 'sell', 2, { matcherPublicKey: w.buyer.publicKey }) }, 199, 'buyOrder.matcher should be the same as sellOrder.matcher');
    fails({ sellOrder: order(w, 'sell', 2, { priceAsset: new Uint8Array(32) }) }, 199, 'Both orders should have same AssetPair');
    fails({ sellOrder: order(w, 'sell', 2, { amountAsset: null }) }, 199, 'Both orders should have same AssetPair');
  });

  it('order validity (OrderValidationError 199), buy order first', () => {
    const bad = (o: Partial<Order>, message: string, side: 'buy' | 'sell' = 'buy') =>
      fails(
        side === 'buy' ? { buyOrder: order(w, 'buy', 2, o) } : { sellOrder: order(w, 'sell', 1, o) },
        199,
        message,
        'OrderValidationError',
        side === 'buy' ? 'order1' : 'order2',
      );
    bad({ amount: 0n }, 'amount should be > 0');
    bad({ price: -1n }, 'price should be > 0');
    bad({ amount: MAX_AMOUNT }, 'amount too large');
    // Buying with WEST: amount × price / 10^8 plus the matcher fee must fit a Long.
    bad({ amount: MAX_AMOUNT - 1n, price: 10n ** 9n }, 'SpendAmount too large');
    bad({ amount: 1n, price: 99_999_999n }, 'SpendAmount should be > 0');
    bad({ amount: MAX_AMOUNT - 1n, price: 10n ** 9n }, 'ReceiveAmount too large', 'sell');
    bad({ amount: 1n, price: 1n }, 'ReceiveAmount should be > 0', 'sell');
    bad({ matcherFee: -1n }, 'matcherFee should be positive');
    bad({ matcherFee: MAX_AMOUNT }, 'matcherFee too large');
    bad({ timestamp: 0n }, 'timestamp should be > 0');
    bad({ expiration: TS + MAX_ORDER_LIVE_TIME + 1n }, 'expiration should be earlier than 30 days');
    bad({ expiration: TS - 1n }, 'expiration should be > currentTime');
    // expiration − timestamp is a Long subtraction: here it wraps to a large positive number.
    bad({ expiration: -(2n ** 63n) }, 'expiration should be earlier than 30 days');
    // Both orders WEST/WEST.
    fails(
      { buyOrder: order(w, 'buy', 2, { amountAsset: null }), sellOrder: order(w, 'sell', 1, { amountAsset: null }) },
      199,
      'Invalid AssetPair',
      'OrderValidationError',
    );
    // The buy order is checked before the sell order.
    fails({ buyOrder: order(w, 'buy', 2, { amount: 0n }), sellOrder: order(w, 'sell', 1, { amount: 0n }) }, 199, 'amount should be > 0', undefined, 'order1');
    // Expiration exactly 30 days ahead and exactly now are fine.
    exchangeTransaction(
      waves,
      exchangeData(w, { buyOrder: order(w, 'buy', 2, { expiration: TS + MAX_ORDER_LIVE_TIME }), sellOrder: order(w, 'sell', 1, { expiration: TS }) }),
    );
  });

  it('the exchange price lies between the orders (priceIsValid)', () => {
    fails({ price: 250_000_001n }, 199, 'priceIsValid', 'GenericError', 'price');
    fails({ sellOrder: order(w, 'sell', 1, { price: 260_000_000n }) }, 199, 'priceIsValid');
  });
});

describe('Exchange JSON (SignedExchangeRequestV2 and OrderJson)', () => {
  const wg = world(gost);
  const ww = world(waves);
  const fromJson = (p: Protocol, json: Record<string, unknown>) => p.transactionFromJson(parseJson(stringifyJson(json)));
  const jsonOf = (tx: ReturnType<typeof signedExchange>): Record<string, unknown> => parseJson(stringifyJson(tx.toJson())) as Record<string, unknown>;

  it('gost: the node JSON reads back to the same transaction', () => {
    for (const [bv, sv] of [
      [1, 2],
      [2, 1],
    ] as const) {
      const tx = signedExchange(wg, { buyOrder: order(wg, 'buy', bv), sellOrder: order(wg, 'sell', sv) });
      const back = fromJson(gost, jsonOf(tx));
      assert.equal(hex(back.bodyBytes), hex(tx.bodyBytes));
      assert.equal(back.idBase58, tx.idBase58);
      assert.ok(back.hasValidSenderSignature());
    }
  });

  it("waves: WE's order reader wants 64-byte keys, so every order is refused (WrongJson)", () => {
    const e = weError(() => fromJson(waves, jsonOf(signedExchange(ww))), 1, 'failed to parse json message', 'WrongJson', 'order1.senderPublicKey');
    assert.deepEqual(e.jsonPathErrors, [{ path: 'obj.order1.senderPublicKey', messages: ['error.incorrect.publicKeyAccount'] }]);
  });

  it('order version: given, or V1 for one 64-byte proof, else V2; proofs win over signature', () => {
    const tx = signedExchange(wg, { buyOrder: order(wg, 'buy', 1), sellOrder: order(wg, 'sell', 2) });
    const json = jsonOf(tx);
    const o1 = json['order1'] as Record<string, unknown>;
    const o2 = json['order2'] as Record<string, unknown>;
    const bodyWith = (a: Record<string, unknown>, b: Record<string, unknown>) => hex(fromJson(gost, { ...json, order1: a, order2: b }).bodyBytes);
    const same = hex(tx.bodyBytes);
    // Without versions: the single 64-byte proof makes both V1 (the sell order changes).
    const { version: _v1, ...o1NoVersion } = o1;
    const { version: _v2, ...o2NoVersion } = o2;
    assert.equal(bodyWith(o1NoVersion, o2), same);
    assert.notEqual(bodyWith(o1, o2NoVersion), same);
    // `signature` alone is enough; any version but 1 means V2.
    const { proofs: _p, ...o1SigOnly } = o1;
    assert.equal(bodyWith(o1SigOnly, o2), same);
    assert.equal(bodyWith(o1, { ...o2, version: 7 }), same);
    // An empty asset string is WEST; absent too.
    assert.equal(bodyWith(o1, { ...o2, assetPair: { amountAsset: encodeBase58(AMOUNT_ASSET), priceAsset: '' } }), same);
    assert.equal(bodyWith(o1, { ...o2, assetPair: { amountAsset: encodeBase58(AMOUNT_ASSET) } }), same);
  });

  it('the request senderPublicKey is checked and ignored', () => {
    const json = jsonOf(signedExchange(wg));
    const other = encodeBase58(wg.buyer.publicKey);
    const tx = fromJson(gost, { ...json, senderPublicKey: other });
    assert.equal(hex(tx.senderPublicKey!), hex(wg.matcher.publicKey));
    // Its JSON (the answer to the broadcast) shows the matcher's key, not the request's.
    assert.equal(tx.toJson()['senderPublicKey'], encodeBase58(wg.matcher.publicKey));
    weError(() => fromJson(gost, { ...json, senderPublicKey: 'l' }), 108, undefined, 'InvalidPublicKey');
    weError(() => fromJson(gost, { ...json, senderPublicKey: undefined }), 1, undefined, 'WrongJson');
  });

  it('malformed orders are WeErrors naming the field', () => {
    const json = jsonOf(signedExchange(wg));
    const o1 = json['order1'] as Record<string, unknown>;
    const with1 = (o: Record<string, unknown>) => () => fromJson(gost, { ...json, order1: o });
    const wrong = (o: Record<string, unknown>, field: string, message: string) => {
      const e = weError(with1(o), 1, 'failed to parse json message', 'WrongJson', field);
      assert.deepEqual(e.jsonPathErrors, [{ path: `obj.${field}`, messages: [message] }]);
    };
    wrong({ ...o1, matcherPublicKey: encodeBase58(new Uint8Array(32)) }, 'order1.matcherPublicKey', 'error.incorrect.publicKeyAccount');
    wrong({ ...o1, matcherPublicKey: '0' }, 'order1.matcherPublicKey', 'error.incorrect.publicKeyAccount');
    wrong({ ...o1, matcherPublicKey: 5 }, 'order1.matcherPublicKey', 'error.expected.jsstring');
    wrong({ ...o1, senderPublicKey: undefined }, 'order1.senderPublicKey', 'error.path.missing');
    wrong({ ...o1, assetPair: { amountAsset: 'O0' } }, 'order1.assetPair.amountAsset', 'error.incorrect.base58');
    wrong({ ...o1, assetPair: { amountAsset: 7 } }, 'order1.assetPair.amountAsset', 'error.expected.jsstring');
    wrong({ ...o1, orderType: 'BUY' }, 'order1.orderType', 'Unexpected OrderType');
    wrong({ ...o1, amount: '1' }, 'order1.amount', 'error.expected.jsnumber');
    wrong({ ...o1, expiration: 9223372036854775808n }, 'order1.expiration', 'error.expected.long');
    wrong({ ...o1, proofs: 'x' }, 'order1.proofs', 'error.expected.jsarray');
    wrong({ ...o1, proofs: ['0'] }, 'order1.proofs(0)', 'error.incorrect.base58');
    wrong({ ...o1, signature: 'I' }, 'order1.signature', 'error.incorrect.base58');
    wrong({ ...o1, version: 300 }, 'order1.version', 'error.expected.byte');
    wrong({ ...o1, assetPair: 'x' }, 'order1.assetPair', 'error.expected.jsobject');
    weError(() => fromJson(gost, { ...json, order1: 'x' }), 1, undefined, 'WrongJson', 'order1');
    weError(() => fromJson(gost, { ...json, order2: undefined }), 1, undefined, 'WrongJson', 'order2');
    weError(with1({ ...o1, proofs: Array(9).fill('1') }), 199, 'Too many proofs, max 8 proofs');
    weError(with1({ ...o1, version: 1, proofs: ['1'] }), 199, 'Order V1 needs a 64-byte signature');
    for (const key of ['price', 'amount', 'fee', 'buyMatcherFee', 'sellMatcherFee', 'timestamp']) {
      weError(() => fromJson(gost, { ...json, [key]: 'x' }), 1, undefined, 'WrongJson', key);
    }
  });

  it('JSON-read exchanges get the same stateless checks', () => {
    const json = jsonOf(signedExchange(wg));
    weError(() => fromJson(gost, { ...json, amount: 0 }), 111, 'negative amount: 0 of assets');
    weError(() => fromJson(gost, { ...json, order1: json['order2'], order2: json['order1'] }), 199, 'buyOrder should has OrderType.BUY');
  });

  it('any JSON value in any field gives a WeError', () => {
    const json = jsonOf(signedExchange(wg));
    const bad: unknown[] = [null, true, 0, -1, 2 ** 64, 1.5, '', 'x', [], {}, [1]];
    for (const key of Object.keys(json)) {
      for (const v of bad) {
        try {
          fromJson(gost, { ...json, [key]: v });
        } catch (e) {
          assert.ok(e instanceof WeError && e.status === 400, `${key}=${String(v)}: ${String(e)}`);
        }
      }
    }
    const o1 = json['order1'] as Record<string, unknown>;
    for (const key of Object.keys(o1)) {
      for (const v of bad) {
        try {
          fromJson(gost, { ...json, order1: { ...o1, [key]: v } });
        } catch (e) {
          assert.ok(e instanceof WeError && e.status === 400, `order1.${key}=${String(v)}: ${String(e)}`);
        }
      }
    }
  });
});
