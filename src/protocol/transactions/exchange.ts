/**
 * Exchange (7, V2) with its orders (V1, V2). Outside WE's transaction DSL, so the codec is
 * written by hand (we-core ExchangeTransactionV2, Order, OrderV1, OrderV2; we-node
 * SignedExchangeRequestV2 and OrderJson).
 *
 * Body bytes: 00 07 02 ‖ i32 L1 ‖ [01 if the buy order is V1] ‖ buy order bytes ‖ i32 L2 ‖
 * [01] ‖ sell order bytes ‖ price ‖ amount ‖ buyMatcherFee ‖ sellMatcherFee ‖ fee ‖
 * timestamp (i64 each). The leading 00 is part of what the matcher signs and of what the
 * id hashes. Full bytes: body ‖ proofs. Order bytes: V2 = body ‖ proofs; V1 = body ‖
 * 64-byte signature; L counts the order bytes, not the 01 marker. The transaction's
 * sender is the buy order's matcher.
 *
 * WE parses and statelessly validates an Exchange (here), then refuses every one against
 * state with UnsupportedTransactionType (not here).
 *
 * WE quirks reproduced:
 * - The request's `senderPublicKey` must be a valid public key but is otherwise ignored;
 *   `order1` is taken as the buy order, `order2` as the sell order.
 * - The order JSON reader accepts only public keys that decode to exactly 64 bytes (it was
 *   written for GOST keys), so with `waves` crypto no Exchange can be read from JSON:
 *   WrongJson `error.incorrect.publicKeyAccount` (ORDER_JSON_PUBLIC_KEY_LENGTH).
 * - An order's version in JSON is optional: without it, one proof of exactly 64 bytes
 *   makes a V1 order, anything else V2; any version other than 1 is V2. `proofs` wins over
 *   `signature`. An empty `assetPair.amountAsset`/`priceAsset` string is WEST.
 * - Order checks run against the transaction timestamp; messages as WE's Validation labels.
 *
 * Deliberate differences (WE answers these with a 500 or with bytes it cannot read back):
 * an unknown `orderType` is WrongJson; order asset ids must be 32 bytes; order proofs
 * follow the transaction limits (≤ 8, ≤ 64 bytes); a V1 order needs a 64-byte
 * signature; in binary, option flags must be 0 or 1 and each order must fill exactly
 * its length.
 */
import { base58Length, decodeBase58, encodeBase58 } from '../../crypto/encoding.js';
import { ByteReader, ByteWriter } from '../bytes.js';
import type { JsonObject } from '../json.js';
import type { ProtocolParams } from './fields.js';
import { jsonArray, jsonInt, jsonLong, jsonObject, jsonString } from './fields.js';
import { addressObject, option, proofsList, provenObject, type RideBinding } from './ride-binding.js';
import { checkProofs, readProofs, Transaction, writeProofs, type TransactionProtocol, type TxCodec, type TypedTxCodec } from './schema.js';
import { CaseObj } from '../../ride/values.js';
import { ASSET_PAIR, BUY, SELL, type WavesTypes } from '../../ride/we-types.js';
import { DecodeError, expected, genericError, negativeAmount, orderValidationError, WeError, wrongJson } from '../../errors/catalogue.js';

export type OrderType = 'buy' | 'sell';

export interface Order {
  /** 1 or 2. */
  readonly version: number;
  readonly senderPublicKey: Uint8Array;
  readonly matcherPublicKey: Uint8Array;
  /** null = WEST. */
  readonly amountAsset: Uint8Array | null;
  readonly priceAsset: Uint8Array | null;
  readonly orderType: OrderType;
  readonly price: bigint;
  readonly amount: bigint;
  readonly timestamp: bigint;
  readonly expiration: bigint;
  readonly matcherFee: bigint;
  /** V1: [signature]. */
  readonly proofs: readonly Uint8Array[];
}

export interface ExchangeData {
  /** The buy order's matcher (WE's sender of an Exchange). */
  readonly senderPublicKey: Uint8Array;
  readonly buyOrder: Order;
  readonly sellOrder: Order;
  readonly amount: bigint;
  readonly price: bigint;
  readonly buyMatcherFee: bigint;
  readonly sellMatcherFee: bigint;
  readonly fee: bigint;
  readonly timestamp: bigint;
}

export type ExchangeTransaction = Transaction<ExchangeData>;

export const EXCHANGE_TYPE = 7;
export const EXCHANGE_VERSION = 2;
/** Order.PriceConstant. */
export const PRICE_CONSTANT = 100_000_000n;
/** Order.MaxAmount = 100 × PriceConstant². */
export const MAX_AMOUNT = 100n * PRICE_CONSTANT * PRICE_CONSTANT;
/** Order.MaxLiveTime: 30 days. */
export const MAX_ORDER_LIVE_TIME = 30n * 24n * 60n * 60n * 1000n;
/** The only public-key length WE's order JSON reader accepts. */
export const ORDER_JSON_PUBLIC_KEY_LENGTH = 64;
const ASSET_ID_LENGTH = 32;
const ORDER_TYPE_BYTE: Record<OrderType, number> = { buy: 0, sell: 1 };

// ---------------------------------------------------------------------------
// Orders: bytes

function writeAsset(w: ByteWriter, id: Uint8Array | null): void {
  if (id === null) w.u8(0);
  else w.u8(1).bytes(id);
}

/** What the order's sender signs; the order id is its fastHash. */
export function orderBodyBytes(o: Order): Uint8Array {
  const w = new ByteWriter(192);
  if (o.version !== 1) w.u8(2);
  w.bytes(o.senderPublicKey).bytes(o.matcherPublicKey);
  writeAsset(w, o.amountAsset);
  writeAsset(w, o.priceAsset);
  w.u8(ORDER_TYPE_BYTE[o.orderType]).i64(o.price).i64(o.amount).i64(o.timestamp).i64(o.expiration).i64(o.matcherFee);
  return w.result();
}

/** V1: body ‖ signature; V2: body ‖ proofs block. */
export function orderBytes(o: Order): Uint8Array {
  const body = orderBodyBytes(o);
  const w = new ByteWriter(body.length + 72);
  w.bytes(body);
  if (o.version === 1) w.bytes(o.proofs[0] ?? new Uint8Array(0));
  else writeProofs(w, o.proofs);
  return w.result();
}

export function orderId(o: Order, p: ProtocolParams): Uint8Array {
  return p.crypto.fastHash(orderBodyBytes(o));
}

/** The order signed by its sender's private key (proofs = [signature]). */
export function signOrder(o: Order, privateKey: Uint8Array, p: ProtocolParams): Order {
  return { ...o, proofs: [p.crypto.sign(privateKey, orderBodyBytes(o))] };
}

function readAsset(r: ByteReader, f: string): Uint8Array | null {
  const flag = r.u8(f);
  if (flag === 0) return null;
  if (flag !== 1) throw new DecodeError(`Invalid option flag ${flag} for ${f}`, f);
  return r.bytes(ASSET_ID_LENGTH, f);
}

function readOrder(r: ByteReader, p: ProtocolParams, v1: boolean, f: string): Order {
  let version = 1;
  if (!v1) {
    version = r.i8(f);
    if (version !== 2) throw new DecodeError(`Incorrect order version: expect 2 but found ${version}`, f);
  }
  const senderPublicKey = r.bytes(p.crypto.publicKeyLength, f);
  const matcherPublicKey = r.bytes(p.crypto.publicKeyLength, f);
  const amountAsset = readAsset(r, f);
  const priceAsset = readAsset(r, f);
  const typeByte = r.i8(f);
  if (typeByte !== 0 && typeByte !== 1) throw new DecodeError(`Unexpected OrderType: ${typeByte}`, f);
  const price = r.i64(f);
  const amount = r.i64(f);
  const timestamp = r.i64(f);
  const expiration = r.i64(f);
  const matcherFee = r.i64(f);
  const proofs = v1 ? [r.bytes(p.crypto.signatureLength, f)] : readProofs(r);
  return {
    version,
    senderPublicKey,
    matcherPublicKey,
    amountAsset,
    priceAsset,
    orderType: typeByte === 0 ? 'buy' : 'sell',
    price,
    amount,
    timestamp,
    expiration,
    matcherFee,
    proofs,
  };
}

/** i32 length ‖ [01 marker for V1] ‖ order bytes, as ExchangeTransactionV2.parseTail reads it. */
function readSizedOrder(r: ByteReader, p: ProtocolParams, f: string): Order {
  const size = r.i32(f);
  const v1 = r.u8(f) === 1;
  if (!v1) r.pos -= 1;
  if (size < 0 || size > r.remaining) throw new DecodeError(`Invalid order size ${size} for ${f}`, f);
  const end = r.pos + size;
  const sub = r.within(r.pos, end);
  const order = readOrder(sub, p, v1, f);
  sub.expectEnd(f);
  r.pos = end;
  return order;
}

function writeSizedOrder(w: ByteWriter, o: Order): void {
  const bytes = orderBytes(o);
  w.i32(bytes.length);
  if (o.version === 1) w.u8(1);
  w.bytes(bytes);
}

// ---------------------------------------------------------------------------
// Orders: JSON (we-node OrderJson)

/** The Base58 text of a value of at most `maxBytes` bytes, or WrongJson(`message`). */
function base58Json(json: unknown, path: string, maxBytes: number, message: string): Uint8Array {
  const text = jsonString(json, path);
  if (text.length > base58Length(maxBytes)) throw wrongJson(path, message);
  try {
    return decodeBase58(text);
  } catch {
    throw wrongJson(path, message);
  }
}

function orderPublicKeyFromJson(json: unknown, p: ProtocolParams, path: string): Uint8Array {
  const bytes = base58Json(json, path, ORDER_JSON_PUBLIC_KEY_LENGTH, 'error.incorrect.publicKeyAccount');
  if (bytes.length !== ORDER_JSON_PUBLIC_KEY_LENGTH || bytes.length !== p.crypto.publicKeyLength) {
    throw wrongJson(path, 'error.incorrect.publicKeyAccount');
  }
  return bytes;
}

/** readNullable[Option[Array[Byte]]]: absent, null or "" is WEST. */
function orderAssetFromJson(json: unknown, path: string): Uint8Array | null {
  if (json === undefined || json === null || json === '') return null;
  const bytes = base58Json(json, path, ASSET_ID_LENGTH, 'error.incorrect.base58');
  if (bytes.length !== ASSET_ID_LENGTH) throw wrongJson(path, 'error.incorrect.assetId');
  return bytes;
}

function orderProofFromJson(json: unknown, path: string): Uint8Array {
  const text = jsonString(json, path);
  if (text.length > base58Length(64)) throw genericError('Too large proof, must be max 64 bytes', path);
  try {
    return decodeBase58(text);
  } catch {
    throw wrongJson(path, 'error.incorrect.base58');
  }
}

export function orderFromJson(json: unknown, p: ProtocolParams, path: string): Order {
  const o = jsonObject(json, path);
  const senderPublicKey = orderPublicKeyFromJson(o['senderPublicKey'], p, `${path}.senderPublicKey`);
  const matcherPublicKey = orderPublicKeyFromJson(o['matcherPublicKey'], p, `${path}.matcherPublicKey`);
  const pair = jsonObject(o['assetPair'], `${path}.assetPair`);
  const amountAsset = orderAssetFromJson(pair['amountAsset'], `${path}.assetPair.amountAsset`);
  const priceAsset = orderAssetFromJson(pair['priceAsset'], `${path}.assetPair.priceAsset`);
  const typeText = jsonString(o['orderType'], `${path}.orderType`);
  if (typeText !== 'buy' && typeText !== 'sell') throw wrongJson(`${path}.orderType`, 'Unexpected OrderType');
  const amount = jsonLong(o['amount'], `${path}.amount`);
  const price = jsonLong(o['price'], `${path}.price`);
  const timestamp = jsonLong(o['timestamp'], `${path}.timestamp`);
  const expiration = jsonLong(o['expiration'], `${path}.expiration`);
  const matcherFee = jsonLong(o['matcherFee'], `${path}.matcherFee`);
  const signature = o['signature'] === undefined || o['signature'] === null ? undefined : orderProofFromJson(o['signature'], `${path}.signature`);
  const proofList = o['proofs'] === undefined || o['proofs'] === null ? undefined : jsonArray(o['proofs'], `${path}.proofs`);
  const proofs = proofList !== undefined ? proofList.map((x, i) => orderProofFromJson(x, `${path}.proofs(${i})`)) : signature !== undefined ? [signature] : [];
  const versionJson = o['version'];
  const givenVersion = versionJson === undefined || versionJson === null ? undefined : jsonInt(versionJson, `${path}.version`, -128, 127, expected.byte);
  const version = (givenVersion ?? (proofs.length === 1 && proofs[0]!.length === p.crypto.signatureLength ? 1 : 2)) === 1 ? 1 : 2;
  try {
    checkProofs(proofs);
  } catch (e) {
    if (e instanceof WeError) throw e.at(`${path}.proofs`);
    throw e;
  }
  if (version === 1 && proofs[0]?.length !== p.crypto.signatureLength) {
    throw genericError(`Order V1 needs a ${p.crypto.signatureLength}-byte signature`, `${path}.signature`);
  }
  return { version, senderPublicKey, matcherPublicKey, amountAsset, priceAsset, orderType: typeText, price, amount, timestamp, expiration, matcherFee, proofs };
}

export function orderToJson(o: Order, p: ProtocolParams): JsonObject {
  const first = o.proofs[0];
  return {
    version: o.version,
    id: encodeBase58(orderId(o, p)),
    sender: p.addresses.fromPublicKey(o.senderPublicKey).toString(),
    senderPublicKey: encodeBase58(o.senderPublicKey),
    matcherPublicKey: encodeBase58(o.matcherPublicKey),
    assetPair: {
      amountAsset: o.amountAsset === null ? null : encodeBase58(o.amountAsset),
      priceAsset: o.priceAsset === null ? null : encodeBase58(o.priceAsset),
    },
    orderType: o.orderType,
    amount: o.amount,
    price: o.price,
    timestamp: o.timestamp,
    expiration: o.expiration,
    matcherFee: o.matcherFee,
    // WE fails on an order without proofs here; Weft writes "".
    signature: first === undefined ? '' : encodeBase58(first),
    proofs: o.proofs.map(encodeBase58),
  };
}

// ---------------------------------------------------------------------------
// Orders: validation (Order.isValid, Order.isValidAmount)

const isLong = (v: bigint): boolean => v === BigInt.asIntN(64, v);

/** Order.getSpendAmount (undefined = WE's Left). */
function spendAmount(o: Order, amount: bigint, price: bigint): bigint | undefined {
  if (o.orderType === 'sell') return amount;
  const spend = (amount * price) / PRICE_CONSTANT;
  // Spending WEST: the spend plus the matcher fee must fit a Long too.
  if (o.priceAsset === null && !isLong(spend + o.matcherFee)) return undefined;
  return isLong(spend) ? spend : undefined;
}

/** Order.getReceiveAmount (undefined = WE's Left). */
function receiveAmount(o: Order, amount: bigint, price: bigint): bigint | undefined {
  if (o.orderType === 'buy') return amount;
  const receive = (amount * price) / PRICE_CONSTANT;
  return isLong(receive) ? receive : undefined;
}

const sameAsset = (a: Uint8Array | null, b: Uint8Array | null): boolean =>
  a === null || b === null ? a === b : a.length === b.length && a.every((x, i) => x === b[i]);

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** The first failing label of Order.isValid(atTime), or undefined. */
export function orderProblem(o: Order, atTime: bigint): string | undefined {
  const a = o.amount;
  const pr = o.price;
  if (!(a > 0n)) return 'amount should be > 0';
  if (!(pr > 0n)) return 'price should be > 0';
  if (!(a < MAX_AMOUNT)) return 'amount too large';
  const spend = spendAmount(o, a, pr);
  if (spend === undefined) return 'SpendAmount too large';
  if (!(spend > 0n)) return 'SpendAmount should be > 0';
  const receive = receiveAmount(o, a, pr);
  if (receive === undefined) return 'ReceiveAmount too large';
  if (!(receive > 0n)) return 'ReceiveAmount should be > 0';
  if (sameAsset(o.amountAsset, o.priceAsset)) return 'Invalid AssetPair';
  if (!(o.matcherFee >= 0n)) return 'matcherFee should be positive';
  if (!(o.matcherFee < MAX_AMOUNT)) return 'matcherFee too large';
  if (!(o.timestamp > 0n)) return 'timestamp should be > 0';
  // A Long subtraction: it wraps.
  if (!(BigInt.asIntN(64, o.expiration - atTime) <= MAX_ORDER_LIVE_TIME)) return 'expiration should be earlier than 30 days';
  if (!(o.expiration >= atTime)) return 'expiration should be > currentTime';
  return undefined;
}

/** WE's OrderValidationError: code 199 with the label. */

/** ExchangeTransaction.validateExchangeParams, in WE's order. */
export function validateExchange(d: ExchangeData): void {
  const { buyOrder: buy, sellOrder: sell } = d;
  if (d.amount <= 0n) throw negativeAmount(d.amount, 'assets', 'amount');
  if (d.amount > MAX_AMOUNT) throw genericError('amount too large', 'amount');
  if (d.price <= 0n) throw genericError('price should be > 0', 'price');
  if (d.price > MAX_AMOUNT) throw genericError('price too large', 'price');
  if (d.sellMatcherFee > MAX_AMOUNT) throw genericError('sellMatcherFee too large', 'sellMatcherFee');
  if (d.buyMatcherFee > MAX_AMOUNT) throw genericError('buyMatcherFee too large', 'buyMatcherFee');
  if (d.fee > MAX_AMOUNT) throw genericError('fee too large', 'fee');
  if (buy.orderType !== 'buy') throw genericError('buyOrder should has OrderType.BUY', 'order1');
  if (sell.orderType !== 'sell') throw genericError('sellOrder should has OrderType.SELL', 'order2');
  if (!sameBytes(buy.matcherPublicKey, sell.matcherPublicKey)) throw genericError('buyOrder.matcher should be the same as sellOrder.matcher', 'order2');
  if (!sameAsset(buy.amountAsset, sell.amountAsset) || !sameAsset(buy.priceAsset, sell.priceAsset)) {
    throw genericError('Both orders should have same AssetPair', 'order2');
  }
  const buyError = orderProblem(buy, d.timestamp);
  if (buyError !== undefined) throw orderValidationError(buyError, 'order1');
  const sellError = orderProblem(sell, d.timestamp);
  if (sellError !== undefined) throw orderValidationError(sellError, 'order2');
  if (!(d.price <= buy.price && d.price >= sell.price)) throw genericError('priceIsValid', 'price');
}

// ---------------------------------------------------------------------------
// The codec

const dataOf = (tx: Transaction): ExchangeData => tx.data as ExchangeData;

function writeBody(w: ByteWriter, d: ExchangeData): void {
  w.u8(0).u8(EXCHANGE_TYPE).u8(EXCHANGE_VERSION);
  writeSizedOrder(w, d.buyOrder);
  writeSizedOrder(w, d.sellOrder);
  w.i64(d.price).i64(d.amount).i64(d.buyMatcherFee).i64(d.sellMatcherFee).i64(d.fee).i64(d.timestamp);
}

export const Exchange: TypedTxCodec<ExchangeTransaction> = {
  type: EXCHANGE_TYPE,
  name: 'Exchange',
  versions: [EXCHANGE_VERSION],
  hasProofs: true,
  modernHeader: () => true,
  is: (tx): tx is ExchangeTransaction => tx.type === EXCHANGE_TYPE,

  bodyBytes(tx) {
    const w = new ByteWriter(512);
    writeBody(w, dataOf(tx));
    return w.result();
  },

  proofSourceBytes(tx) {
    return tx.bodyBytes;
  },

  fullBytes(tx) {
    const w = new ByteWriter(600);
    w.bytes(tx.bodyBytes);
    writeProofs(w, tx.proofs);
    return w.result();
  },

  id(tx) {
    return tx.protocol.crypto.fastHash(tx.bodyBytes);
  },

  toJson(tx) {
    const d = dataOf(tx);
    const p = tx.protocol;
    return {
      type: EXCHANGE_TYPE,
      id: tx.idBase58,
      sender: tx.sender?.toString(),
      senderPublicKey: encodeBase58(d.senderPublicKey),
      fee: d.fee,
      timestamp: d.timestamp,
      proofs: tx.proofs.map(encodeBase58),
      version: tx.version,
      order1: orderToJson(d.buyOrder, p),
      order2: orderToJson(d.sellOrder, p),
      amount: d.amount,
      price: d.price,
      buyMatcherFee: d.buyMatcherFee,
      sellMatcherFee: d.sellMatcherFee,
    };
  },

  // After the modern 0x00 flag: type ‖ version ‖ the rest of the body ‖ proofs.
  read(r, p, version) {
    const type = r.u8('type');
    if (type !== EXCHANGE_TYPE) throw new DecodeError(`Expected transaction type ${EXCHANGE_TYPE}, got ${type}`, 'type');
    const v = r.u8('version');
    if (v !== version || v !== EXCHANGE_VERSION) throw new DecodeError(`Expected version ${EXCHANGE_VERSION}, got ${v}`, 'version');
    const buyOrder = readSizedOrder(r, p, 'order1');
    const sellOrder = readSizedOrder(r, p, 'order2');
    const price = r.i64('price');
    const amount = r.i64('amount');
    const buyMatcherFee = r.i64('buyMatcherFee');
    const sellMatcherFee = r.i64('sellMatcherFee');
    const fee = r.i64('fee');
    const timestamp = r.i64('timestamp');
    const proofs = readProofs(r);
    const data: ExchangeData = {
      senderPublicKey: buyOrder.matcherPublicKey,
      buyOrder,
      sellOrder,
      amount,
      price,
      buyMatcherFee,
      sellMatcherFee,
      fee,
      timestamp,
    };
    return { data: data as unknown as Record<string, unknown>, proofs };
  },

  fromJson(body, p) {
    // Read and checked, then ignored: the sender is the buy order's matcher.
    p.addresses.parsePublicKey(jsonString(body['senderPublicKey'], 'senderPublicKey'), 'senderPublicKey');
    const buyOrder = orderFromJson(body['order1'], p, 'order1');
    const sellOrder = orderFromJson(body['order2'], p, 'order2');
    const data: ExchangeData = {
      senderPublicKey: buyOrder.matcherPublicKey,
      buyOrder,
      sellOrder,
      price: jsonLong(body['price'], 'price'),
      amount: jsonLong(body['amount'], 'amount'),
      fee: jsonLong(body['fee'], 'fee'),
      buyMatcherFee: jsonLong(body['buyMatcherFee'], 'buyMatcherFee'),
      sellMatcherFee: jsonLong(body['sellMatcherFee'], 'sellMatcherFee'),
      timestamp: jsonLong(body['timestamp'], 'timestamp'),
    };
    return data as unknown as Record<string, unknown>;
  },

  validate(tx) {
    checkProofs(tx.proofs);
    validateExchange(dataOf(tx));
  },
};

/** An Exchange from typed data, stateless rules checked (the sender is the buy order's matcher). */
export function exchangeTransaction(
  p: TransactionProtocol,
  data: Omit<ExchangeData, 'senderPublicKey'>,
  proofs: readonly Uint8Array[] = [],
): ExchangeTransaction {
  return p.transaction(Exchange, EXCHANGE_VERSION, { ...data, senderPublicKey: data.buyOrder.matcherPublicKey }, proofs);
}

export const codecs: readonly TxCodec[] = [Exchange];

/** An order as a script sees it (Bindings.orderObject): an order script's `tx`, and an Exchange's two orders. */
export function orderObject(o: Order, tx: Pick<Transaction, 'protocol'>, types: WavesTypes): CaseObj {
  return CaseObj.of(types.order, [
    ['id', orderId(o, tx.protocol)],
    ['sender', addressObject(tx.protocol.addresses.fromPublicKey(o.senderPublicKey).bytes)],
    ['senderPublicKey', o.senderPublicKey],
    ['matcherPublicKey', o.matcherPublicKey],
    [
      'assetPair',
      CaseObj.of(ASSET_PAIR, [
        ['amountAsset', option(o.amountAsset)],
        ['priceAsset', option(o.priceAsset)],
      ]),
    ],
    ['orderType', CaseObj.of(o.orderType === 'buy' ? BUY : SELL, [])],
    ['amount', o.amount],
    ['price', o.price],
    ['timestamp', o.timestamp],
    ['expiration', o.expiration],
    ['matcherFee', o.matcherFee],
    ['bodyBytes', orderBodyBytes(o)],
    // WE's order object always carries proofs; its type (asset scripts) may not declare them.
    ['proofs', proofsList(o.proofs)],
  ]);
}

export const exchangeBinding: RideBinding<ExchangeTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'ExchangeTransaction', [
    ['buyOrder', orderObject(tx.data.buyOrder, tx, ctx.types)],
    ['sellOrder', orderObject(tx.data.sellOrder, tx, ctx.types)],
    ['amount', tx.data.amount],
    ['price', tx.data.price],
    ['buyMatcherFee', tx.data.buyMatcherFee],
    ['sellMatcherFee', tx.data.sellMatcherFee],
  ]);
