/**
 * `/transactions/*` (WE's TransactionsApiRoute). Read routes give extended transaction
 * JSON; `sign`, `signAndBroadcast` and `calculateFee` read the unsigned request forms (see
 * ../transaction-requests.ts); `broadcast` and `signAndBroadcast` are refused on watcher
 * nodes before anything else (638).
 *
 * WE's lenient paths are served too (hidden from the document): a trailing slash where
 * Akka's pathEndOrSingleSlash allows it, `/transactions/info` and
 * `/transactions/unconfirmed/info` without an id (101), and any other path under
 * `/transactions/address/{address}` (`invalid.limit`, after the address is checked).
 * WE's own path for one unconfirmed transaction is `/transactions/unconfirmed/info/{id}`
 * (TransactionsApiRoute nests `info` under `unconfirmed`); the specification also lists
 * `/unconfirmed/info/{id}`, served alike.
 */
import { Type } from '@sinclair/typebox';
import { decodeBase58 } from '../../crypto/encoding.js';
import { transactionNotInBlockchain, transactionNotInUtx } from '../errors.js';
import { address, base58Id, digitsInt, optionalQuery, text } from '../params.js';
import { defineRoutes, route, type ApiContext } from '../routing.js';
import { heavyJsonAnswer, writeJsonArray } from '../heavy-answers.js';
import * as S from '../schemas.js';
import { feeAnswer, feeEstimateTransaction, signTransactionRequest } from '../transaction-requests.js';
import { TxJsonReader } from '../tx-json.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import type { JsonObject } from '../../protocol/json.js';
import { customValidationError, illegalWatcherAction, invalidSignature, tooBigArray } from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

const invalidLimit = (field: string) => customValidationError('invalid.limit', field);

const notWatcher = (ctx: ApiContext): void => {
  if (ctx.services.settings.watcher) throw illegalWatcherAction();
};

/** Signs an unsigned request with the keystore key (unlocked once, off the event loop). */
function signRequest(body: JsonObject, ctx: ApiContext): Promise<Transaction> {
  return signTransactionRequest(body, {
    protocol: ctx.services.protocol,
    signer: ctx.services.wallet,
    nextTimestamp: () => ctx.timestamps.next(),
  });
}

/**
 * The transaction with the request's `certificates` through the chain's admission (its
 * certificates, fee, signature, state, the pool, WE's post-pool refusals); the answer is the
 * pooled transaction's JSON.
 */
async function broadcast(tx: Transaction, body: JsonObject, ctx: ApiContext): Promise<JsonObject> {
  return (await ctx.services.pool.broadcast(tx, body['certificates'])).toJson();
}

const txBody = (schema: typeof S.SignedTransactionRequest | typeof S.UnsignedTransactionRequest | typeof S.FeeRequest, description: string) =>
  ({ schema, read: 'object', description }) as const;

const noId = <const P extends string>(path: P, summary: string) =>
  route({
    method: 'GET',
    path,
    auth: 'user',
    summary,
    hidden: true,
    trailingSlash: true,
    responses: { 400: err('101 invalid signature') },
    handler: () => {
      throw invalidSignature('id');
    },
  });

/** One pool transaction by id: extended JSON without height, or WE's "not in UTX" body. */
const unconfirmedInfo = <const P extends '/transactions/unconfirmed/info/{id}' | '/unconfirmed/info/{id}'>(path: P, summary: string) =>
  route({
    method: 'GET',
    path,
    auth: 'user',
    summary,
    params: { id: base58Id('Transaction id, Base58') },
    responses: {
      200: S.ExtendedTransaction,
      400: err('101 invalid signature'),
      404: { description: '`{"status":"error","details":"Transaction is not in UTX"}`', schema: S.StatusDetails },
    },
    handler: ({ params }, ctx) => {
      const tx = ctx.services.pool.unconfirmedById(params.id);
      if (tx === undefined) throw transactionNotInUtx();
      return new TxJsonReader(ctx.services.chain).extended(tx);
    },
  });

const otherAddressPath = <const P extends '/transactions/address/{address}' | '/transactions/address/{address}/*'>(path: P) =>
  route({
    method: 'GET',
    path,
    auth: 'user',
    summary: 'Any other path under an address: invalid limit',
    hidden: true,
    params: { address: address() },
    responses: { 400: err('102 invalid address; 199 invalid.limit') },
    handler: () => {
      throw invalidLimit('limit');
    },
  });

export const transactionsRoutes = defineRoutes({ name: 'transactions', description: 'Transactions: reading, signing with node keys, broadcasting, fees' }, [
  route({
    method: 'GET',
    path: '/transactions/address/{address}/limit/{limit}',
    auth: 'user',
    summary: 'Transactions involving an address, newest first (liquid block first)',
    description:
      "The answer is a nested array `[[tx, ...]]` (WE's shape; the official js-sdk reads `[0]`). A MassTransfer sent by someone else keeps only the transfers to this address or its aliases. Page with `after` = the last id of the previous page.",
    params: { address: address(), limit: digitsInt('Page size, at most `transactions-by-address-limit` (10000 by default)', invalidLimit) },
    query: { after: optionalQuery(text('Id of the last transaction of the previous page')) },
    responses: {
      200: Type.Array(Type.Array(Type.Ref('TransactionWithHeight'))),
      400: err('102 invalid address; 199 `invalid.limit` or `Unable to decode transaction id <s>`; 10 limit too big'),
      404: { description: '`after` is not a known transaction: `{"status":"error","details":"Transaction is not in blockchain"}`', schema: S.StatusDetails },
    },
    handler: ({ params, query, headers }, ctx) => {
      if (params.limit > ctx.services.settings.transactionsByAddressLimit) throw tooBigArray('limit');
      let after: Uint8Array | undefined;
      if (query.after !== undefined) {
        try {
          after = decodeBase58(query.after);
        } catch {
          throw customValidationError(`Unable to decode transaction id ${query.after}`, 'after');
        }
      }
      const found = ctx.services.chain.addressTransactions(params.address.bytes, params.limit, after);
      if (after !== undefined && !found.afterFound) throw transactionNotInBlockchain();
      const reader = new TxJsonReader(ctx.services.chain);
      return heavyJsonAnswer(ctx, headers.accept, async (out, int64AsString) => {
        out.write('[');
        await writeJsonArray(out, found.txs, ({ tx, height }) => ({ ...reader.compactFor(params.address, tx), height }), int64AsString);
        out.write(']');
      });
    },
  }),
  otherAddressPath('/transactions/address/{address}'),
  otherAddressPath('/transactions/address/{address}/*'),
  route({
    method: 'GET',
    path: '/transactions/info/{id}',
    auth: 'user',
    summary: 'A confirmed transaction with its height',
    params: { id: base58Id('Transaction id, Base58') },
    responses: {
      200: S.TransactionWithHeight,
      400: err('101 invalid signature (undecodable or empty id)'),
      404: { description: '`{"status":"error","details":"Transaction is not in blockchain"}`', schema: S.StatusDetails },
    },
    handler: ({ params }, ctx) => {
      const found = ctx.services.chain.transaction(params.id);
      if (found === undefined) throw transactionNotInBlockchain();
      return { ...new TxJsonReader(ctx.services.chain).extended(found.tx), height: found.height };
    },
  }),
  noId('/transactions/info', 'Transaction info without an id'),
  route({
    method: 'GET',
    path: '/transactions/unconfirmed',
    auth: 'user',
    summary: 'Every transaction in the pool, by timestamp',
    trailingSlash: true,
    responses: { 200: Type.Array(Type.Ref('ExtendedTransaction')) },
    handler: (_req, ctx) => {
      const reader = new TxJsonReader(ctx.services.chain);
      return ctx.services.pool.unconfirmed().map((tx) => reader.extended(tx));
    },
  }),
  route({
    method: 'GET',
    path: '/transactions/unconfirmed/size',
    auth: 'user',
    summary: 'Number and total size of the transactions in the pool',
    responses: { 200: S.UtxSize },
    handler: (_req, ctx) => {
      const { size, sizeInBytes } = ctx.services.pool.size();
      return { size, sizeInBytes: BigInt(sizeInBytes) };
    },
  }),
  unconfirmedInfo('/transactions/unconfirmed/info/{id}', 'A transaction in the pool (no height)'),
  unconfirmedInfo(
    '/unconfirmed/info/{id}',
    'A transaction in the pool (no height): the path the specification lists, the same as /transactions/unconfirmed/info/{id}',
  ),
  noId('/transactions/unconfirmed/info', 'Unconfirmed transaction info without an id'),
  route({
    method: 'POST',
    path: '/transactions/calculateFee',
    auth: 'user',
    summary: 'Minimal fee of a transaction at the next height',
    description:
      "Reads the unsigned request form; `sender`, `fee`, `password` and `timestamp` are replaced (the estimate is built as the node owner's, timestamp 0). With `feeAssetId` of a sponsored asset, the amount is in that asset's units.",
    trailingSlash: true,
    body: txBody(S.FeeRequest, 'Unsigned transaction request'),
    responses: { 200: S.FeeAnswer, 400: err('1 malformed request; 199 unknown type/version or unusable fee asset; 102, 108 …') },
    handler: ({ body }, ctx) => {
      const tx = feeEstimateTransaction(body, ctx.services.protocol, ctx.services.nodeOwnerPublicKey);
      return feeAnswer(ctx.services.chain.minimalFee(tx));
    },
  }),
  route({
    method: 'POST',
    path: '/transactions/sign',
    auth: 'user',
    summary: 'Signs an unsigned request with a key of the node keystore',
    description: 'Nothing is checked against state; the signed transaction JSON is returned, not broadcast.',
    trailingSlash: true,
    body: txBody(S.UnsignedTransactionRequest, 'Unsigned transaction request'),
    responses: { 200: S.Transaction, 400: err('1 malformed request; 115 no such key or wrong password; 199 …') },
    handler: async ({ body }, ctx) => (await signRequest(body, ctx)).toJson(),
  }),
  route({
    method: 'POST',
    path: '/transactions/broadcast',
    auth: 'user',
    summary: 'Validates a signed transaction and puts it into the pool',
    body: txBody(S.SignedTransactionRequest, 'Signed transaction as the official clients send it'),
    guard: notWatcher,
    responses: {
      200: S.Transaction,
      400: err('1 malformed request; 101 bad signature; 112 state check failed; 121 bad certificate; 199 …; 303 timestamp out of window'),
      403: err('638 watcher node'),
    },
    handler: ({ body }, ctx) => broadcast(ctx.services.protocol.transactionFromJson(body), body, ctx),
  }),
  route({
    method: 'POST',
    path: '/transactions/signAndBroadcast',
    auth: 'user',
    summary: 'Signs an unsigned request with a node key, then broadcasts it',
    trailingSlash: true,
    body: txBody(S.UnsignedTransactionRequest, 'Unsigned transaction request'),
    guard: notWatcher,
    responses: { 200: S.Transaction, 400: err('Errors of sign and of broadcast'), 403: err('638 watcher node') },
    handler: async ({ body }, ctx) => {
      const signed = await signRequest(body, ctx);
      // WE re-reads the signed JSON through the broadcast path, so it must round-trip.
      const tx = ctx.services.protocol.transactionFromJson(signed.toJson());
      return broadcast(tx, body, ctx);
    },
  }),
]);
