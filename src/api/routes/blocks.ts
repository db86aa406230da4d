/**
 * `/blocks/*` (WE's BlocksApiRoute). Heights count the liquid block while one exists;
 * the top height's block is the liquid block as assembled so far. Ranges hold at most 100
 * blocks; heights without a block are skipped.
 */
import type { Block } from '../../protocol/blocks.js';
import { encodeBase58 } from '../../crypto/encoding.js';
import { noBlockForHeight, noChildBlocks } from '../errors.js';
import { blockId, positiveInt, text } from '../params.js';
import { heavyJsonAnswer } from '../heavy-answers.js';
import { defineRoutes, route, type ApiContext, type StreamReply } from '../routing.js';
import type { JsonObject } from '../../protocol/json.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import * as S from '../schemas.js';
import { blockJson, extendedTransactionJson, headerJson, serializedBlockJson, writeBlockJson } from '../tx-json.js';
import { Type } from '@sinclair/typebox';
import { blockAtHeightDoesNotExist, blockDoesNotExist, customValidationError, tooBigArray } from '../../errors/catalogue.js';

/** BlocksApiRoute.MaxBlocksPerRequest. */
export const MAX_BLOCKS_PER_REQUEST = 100;

const err = (description: string) => ({ description, schema: S.ErrorBody });

/** WE's range rule: to − from in [0, 100); `to < from` is 199 (or 10 where `lessIsTooBig`), anything else 10. */
function checkRange(from: number, to: number, lessIsTooBig = false): void {
  const span = to - from;
  if (span >= 0 && span < MAX_BLOCKS_PER_REQUEST) return;
  if (to < from && !lessIsTooBig) throw customValidationError(`Invalid interval: end '${to}' less than start '${from}'`, 'to');
  throw tooBigArray('to');
}

function heights(from: number, to: number): number[] {
  const out: number[] = [];
  for (let h = from; h <= to; h++) out.push(h);
  return out;
}

/** A block of more bytes than this starts a slice of its own in a range answer (reading it is a copy of its bytes). */
const FRESH_SLICE_BLOCK_BYTES = 64 * 1024;

/**
 * Blocks as one JSON array, built a few transactions at a time with turns of the event loop
 * between (100 blocks of ~1,500 transactions are ~23 MB of JSON; built in one go it held the
 * loop for seconds, so mining, P2P and every other request waited), by at most a few requests
 * at once, within the byte budget of one answer (heavy-reads.ts). The text is made for the
 * request's Accept (int64 as strings or not).
 */
function blocksAnswer(
  ctx: ApiContext,
  from: number,
  to: number,
  accept: string | undefined,
  transactionJson: () => (tx: Transaction) => JsonObject,
  keep?: (header: Block) => boolean,
): Promise<StreamReply> {
  return heavyJsonAnswer(ctx, accept, async (out, int64AsString) => {
    out.write('[');
    let first = true;
    for (let h = from; h <= to; h++) {
      // Header and summary first: blocks left out are told by them, and the transactions of
      // those answered are decoded one by one as they are written.
      const view = ctx.services.chain.blockHeaderAt(h);
      if (view === undefined || (keep !== undefined && !keep(view.header))) continue;
      // A large block's bytes are read, and its first transactions written, in a slice of
      // their own; small blocks go on in the slice until its time is used.
      if (out.sliceOver || view.summary.size > FRESH_SLICE_BLOCK_BYTES) await out.turn();
      const transactions = ctx.services.chain.blockTransactionsAt(h);
      if (transactions === undefined) continue;
      if (!first) out.write(',');
      first = false;
      await writeBlockJson(out, view, transactions, h, transactionJson(), int64AsString);
    }
    out.write(']');
  });
}

/** One full block, built in slices like a range (no byte budget: WE answers any single block). */
function blockAnswer(
  ctx: ApiContext,
  block: Block,
  height: number | undefined,
  accept: string | undefined,
  transactionJson: (tx: Transaction) => JsonObject,
): Promise<StreamReply> {
  return heavyJsonAnswer(
    ctx,
    accept,
    (out, int64AsString) => writeBlockJson(out, { header: block, summary: block.summary }, block.transactions, height, transactionJson, int64AsString),
    { budget: false },
  );
}

const plainTransactionJson = (tx: Transaction): JsonObject => tx.toJson();

function blockByIdOr301(ctx: ApiContext, id: Uint8Array, field: string): { block: Block; height: number } {
  const found = ctx.services.chain.blockById(id);
  if (found === undefined) throw blockDoesNotExist(encodeBase58(id), field);
  return found;
}

const range = {
  from: positiveInt('First height (inclusive)'),
  to: positiveInt('Last height (inclusive); at most 100 blocks per request'),
};
const rangeErrors = { 400: err('199 bad height (`Invalid parameters: [...]`) or `to` < `from`; 10 more than 100 blocks') };

export const blocksRoutes = defineRoutes({ name: 'blocks', description: 'Blocks of the chain (the liquid block included at the top)' }, [
  route({
    method: 'GET',
    path: '/blocks/height',
    auth: 'user',
    summary: 'Current height (the liquid block counts)',
    responses: { 200: S.Height },
    handler: (_req, ctx) => ({ height: ctx.services.chain.height() }),
  }),
  route({
    method: 'GET',
    path: '/blocks/height/{signature}',
    auth: 'user',
    summary: 'Height of a block by its id (or a liquid block total signature)',
    params: { signature: blockId() },
    responses: { 200: S.Height, 400: err('101 invalid signature'), 404: err('301 block does not exist') },
    handler: ({ params }, ctx) => ({ height: blockByIdOr301(ctx, params.signature, 'signature').height }),
  }),
  route({
    method: 'GET',
    path: '/blocks/first',
    auth: 'user',
    summary: 'The genesis block',
    responses: { 200: S.Block },
    handler: (_req, ctx) => {
      const genesis = ctx.services.chain.blockAt(1);
      if (genesis === undefined) throw blockAtHeightDoesNotExist(1);
      return blockJson(genesis, 1);
    },
  }),
  route({
    method: 'GET',
    path: '/blocks/last',
    auth: 'user',
    summary: 'The last block (the liquid block while one is being formed)',
    responses: { 200: S.Block },
    handler: (_req, ctx) => {
      const height = ctx.services.chain.height();
      const block = ctx.services.chain.blockAt(height);
      if (block === undefined) throw blockAtHeightDoesNotExist(height);
      return serializedBlockJson(ctx.blockJsonCache, block, height);
    },
  }),
  route({
    method: 'GET',
    path: '/blocks/headers/last',
    auth: 'user',
    summary: 'Header of the last block',
    responses: { 200: S.BlockHeader },
    handler: (_req, ctx) => {
      const height = ctx.services.chain.height();
      const header = ctx.services.chain.blockHeaderAt(height);
      if (header === undefined) throw blockAtHeightDoesNotExist(height);
      return headerJson(header, height);
    },
  }),
  route({
    method: 'GET',
    path: '/blocks/at/{height}',
    auth: 'user',
    summary: 'Block at a height, with extended transaction JSON',
    params: { height: positiveInt('Height') },
    responses: {
      200: {
        description: 'The block, or `{"status":"error","details":"No block for this height"}`',
        schema: Type.Union([Type.Ref('BlockWithExtendedTransactions'), Type.Ref('StatusDetails')]),
      },
      400: err("199 `Invalid parameter: '<v>' must be positive`"),
    },
    handler: ({ params, headers }, ctx) => {
      const block = ctx.services.chain.blockAt(params.height);
      if (block === undefined) throw noBlockForHeight();
      return blockAnswer(ctx, block, params.height, headers.accept, extendedTransactionJson(ctx.services.chain));
    },
  }),
  route({
    method: 'GET',
    path: '/blocks/headers/at/{height}',
    auth: 'user',
    summary: 'Header of the block at a height',
    params: { height: positiveInt('Height') },
    responses: {
      200: {
        description: 'The header, or `{"status":"error","details":"No block for this height"}`',
        schema: Type.Union([Type.Ref('BlockHeader'), Type.Ref('StatusDetails')]),
      },
      400: err("199 `Invalid parameter: '<v>' must be positive`"),
    },
    handler: ({ params }, ctx) => {
      const header = ctx.services.chain.blockHeaderAt(params.height);
      if (header === undefined) throw noBlockForHeight();
      return headerJson(header, params.height);
    },
  }),
  route({
    method: 'GET',
    path: '/blocks/seq/{from}/{to}',
    auth: 'user',
    summary: 'Blocks in a height range (at most 100)',
    params: range,
    responses: { 200: Type.Array(Type.Ref('Block')), ...rangeErrors },
    handler: ({ params, headers }, ctx) => {
      checkRange(params.from, params.to);
      return blocksAnswer(ctx, params.from, params.to, headers.accept, () => plainTransactionJson);
    },
  }),
  route({
    method: 'GET',
    path: '/blocks/seqext/{from}/{to}',
    auth: 'user',
    summary: 'Blocks in a height range with extended transaction JSON (at most 100)',
    params: range,
    responses: { 200: Type.Array(Type.Ref('BlockWithExtendedTransactions')), ...rangeErrors },
    handler: ({ params, headers }, ctx) => {
      checkRange(params.from, params.to);
      return blocksAnswer(ctx, params.from, params.to, headers.accept, () => extendedTransactionJson(ctx.services.chain));
    },
  }),
  route({
    method: 'GET',
    path: '/blocks/headers/seq/{from}/{to}',
    auth: 'user',
    summary: 'Block headers in a height range (at most 100)',
    params: range,
    responses: { 200: Type.Array(Type.Ref('BlockHeader')), ...rangeErrors },
    handler: ({ params }, ctx) => {
      checkRange(params.from, params.to);
      const chain = ctx.services.chain;
      return heights(params.from, params.to).flatMap((h) => {
        const header = chain.blockHeaderAt(h);
        return header === undefined ? [] : [headerJson(header, h)];
      });
    },
  }),
  route({
    method: 'GET',
    path: '/blocks/signature/{signature}',
    auth: 'user',
    summary: 'Block by its id (or a liquid block total signature: the liquid block as assembled up to it)',
    params: { signature: blockId() },
    responses: { 200: S.BlockWithNullableHeight, 400: err('101 invalid signature'), 404: err('301 block does not exist') },
    handler: ({ params, headers }, ctx) => {
      const { block, height } = blockByIdOr301(ctx, params.signature, 'signature');
      return blockAnswer(ctx, block, height, headers.accept, plainTransactionJson);
    },
  }),
  route({
    method: 'GET',
    path: '/blocks/child/{signature}',
    auth: 'user',
    summary: 'The block after a block, with its height',
    description: "WE 1.14 leaves `height` out here; the specification documents it, and it is the parent's height + 1.",
    params: { signature: blockId() },
    responses: {
      200: {
        description: 'The child block, or `{"status":"error","details":"No child blocks"}`',
        schema: Type.Union([Type.Ref('Block'), Type.Ref('StatusDetails')]),
      },
      400: err('101 invalid signature'),
      404: err('301 block does not exist'),
    },
    handler: ({ params, headers }, ctx) => {
      const { block, height } = blockByIdOr301(ctx, params.signature, 'signature');
      const child = ctx.services.chain.childOf(block.id);
      if (child === undefined) throw noChildBlocks();
      return blockAnswer(ctx, child, height + 1, headers.accept, plainTransactionJson);
    },
  }),
  route({
    method: 'GET',
    path: '/blocks/address/{address}/{from}/{to}',
    auth: 'user',
    summary: 'Blocks a miner produced in a height range (at most 100 heights)',
    description: 'The address is compared as text with each generator address; it is not validated.',
    params: { address: text('Generator address'), ...range },
    responses: { 200: Type.Array(Type.Ref('Block')), 400: err('199 bad height; 10 for an invalid range or more than 100 heights') },
    handler: ({ params, headers }, ctx) => {
      checkRange(params.from, params.to, true);
      return blocksAnswer(
        ctx,
        params.from,
        params.to,
        headers.accept,
        () => plainTransactionJson,
        (header) => header.generatorAddress === params.address,
      );
    },
  }),
]);
