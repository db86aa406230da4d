/**
 * `/debug/*` (WE's DebugApiRoute), admin only except `validate`. WE wraps the whole
 * `/debug` prefix in the admin check, so an unknown `/debug/...` path without the key is a
 * 403 too.
 *
 * Served: rollback, rollback-to, blocks, info, validate, minerInfo, historyInfo,
 * configInfo, portfolios, print, state, stateWE, createGrpcAuth (the contract engine's
 * read-only token; WE's 199 on a node without one); `utx-rebroadcast` lives with the
 * peers routes (routes/peers.ts). Not served: WE's `threadDump` (JVM threads), `freeze` /
 * `cleanState` (stopping the node and wiping RocksDB for a snapshot swap; Weft has no
 * snapshots).
 *
 * Order of checks as WE's: a boolean query value that is not one Akka reads (true/false,
 * yes/no, on/off, 1/0) makes the route not match (404) before the address is read (102).
 */
import { Type } from '@sinclair/typebox';
import { decodeBase58, encodeBase58 } from '../../crypto/encoding.js';
import { blockAtHeightNotFoundText, routeNotFound } from '../errors.js';
import { base58Id, booleanQuery, digitsInt, positiveInt, text } from '../params.js';
import { defineRoutes, Reply, route } from '../routing.js';
import * as S from '../schemas.js';
import { customValidationError, WeError, wrongJson } from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });
const denied = err('2 API key missing or wrong');

const BlockHashes = Type.Array(Type.Record(Type.String({ pattern: '^[0-9]+$' }), Type.String()), {
  $id: 'DebugBlockHashes',
  description: 'Newest first: `{"<block size in bytes>": "<Base58 fast hash of the block bytes>"}` per block',
});

const WestDistribution = Type.Record(Type.String(), S.Int64(), { $id: 'WestDistribution', description: 'Address → WEST balance (positive balances only)' });

const PortfolioSchema = Type.Object(
  {
    balance: S.Int64({ description: 'WEST' }),
    lease: Type.Object({ in: S.Int64(), out: S.Int64() }),
    assets: Type.Record(Type.String(), S.Int64(), { description: 'Asset id → balance' }),
  },
  { $id: 'Portfolio' },
);

const DebugInfoSchema = Type.Object(
  {
    stateHeight: S.Int32(),
    extensionLoaderState: Type.String(),
    historyReplierCacheSizes: Type.Object({ blocks: S.Int64(), microBlocks: S.Int64() }),
    microBlockSynchronizerCacheSizes: Type.Optional(
      Type.Object(
        { microBlockOwners: S.Int64(), inventories: S.Int64(), successfullyReceived: S.Int64() },
        { description: "The micro-block loader's caches; absent when the node runs no P2P network" },
      ),
    ),
    scoreObserverStats: Type.Optional(
      Type.Object(
        {
          localScore: S.Int64({ description: 'This chain’s score (an integer that may pass 64 bits)' }),
          currentBestChannel: Type.String({ description: '`Some(/host:port)` of the sync channel or of the best peer scoring above us, else `None`' }),
          scoresCacheSize: S.Int32(),
        },
        { description: 'Peer scores; absent when the node runs no P2P network' },
      ),
    ),
    minerState: Type.String({ description: '`mining blocks`, `mining microblocks`, `disabled` or `error: …`' }),
  },
  { $id: 'DebugInfo' },
);

const MinerInfo = Type.Array(
  Type.Object({
    address: Type.String(),
    miningBalance: S.Int64({ description: 'Smallest effective balance over the last 1000 blocks' }),
    timestamp: S.Int64({ description: 'When the miner next looks for a slot of this account' }),
  }),
  { $id: 'AccountMiningInfo' },
);

const HistoryInfo = Type.Object(
  {
    lastBlockIds: Type.Array(Type.String(), { description: 'The last 10 blocks below the liquid one, newest first' }),
    microBlockIds: Type.Array(Type.String(), { description: "The liquid block's micro-blocks, newest first" }),
  },
  { $id: 'HistoryInfo' },
);

const ConfigInfo = Type.Object(
  { node: Type.Object({}, { additionalProperties: true }) },
  { $id: 'ConfigInfo', additionalProperties: true, description: "The node's settings in WE's HOCON layout" },
);

const DebugMessage = Type.Object({ message: Type.String({ description: 'Logged at DEBUG (first 250 characters)' }) }, { $id: 'DebugMessage' });

const Validation = Type.Object(
  {
    valid: Type.Boolean(),
    validationTime: Type.Number({ description: 'ms' }),
    error: Type.Optional(Type.String({ description: "WE's error message when not valid" })),
  },
  { $id: 'ValidationResult' },
);

const ContractAuthRequest = Type.Object({ contractId: Type.String({ description: 'Contract id, Base58' }) }, { $id: 'ContractAuthRequest' });
const ContractAuthAnswer = Type.Object({ token: Type.String() }, { $id: 'ContractAuthAnswer' });

const distributionJson = (entries: Iterable<{ address: Uint8Array; balance: bigint }>): Record<string, bigint> => {
  const out: Record<string, bigint> = {};
  for (const { address, balance } of entries) out[encodeBase58(address)] = balance;
  return out;
};

export const debugRoutes = defineRoutes(
  { name: 'debug', description: 'Node maintenance and diagnostics (admin, except validate)', prefixAuth: { prefix: '/debug', level: 'admin' } },
  [
    route({
      method: 'POST',
      path: '/debug/rollback',
      auth: 'admin',
      summary: 'Removes every block above a height',
      description: 'The block at `rollbackTo` becomes the last one; with `returnTransactionsToUtx` the removed transactions go back into the pool.',
      body: { schema: S.RollbackParams, read: 'schema', whenAbsent: 'bad-request' },
      responses: {
        200: S.BlockIdAnswer,
        400: {
          description: '`Block at height not found` (text); error 1 for a malformed body; rollback refusals (e.g. deeper than allowed)',
          contentType: 'text/plain',
        },
        403: denied,
      },
      handler: ({ body }, ctx) => {
        if (ctx.services.chain.blockAt(body.rollbackTo) === undefined) throw blockAtHeightNotFoundText();
        return { BlockId: encodeBase58(ctx.services.admin.rollback(body.rollbackTo, body.returnTransactionsToUtx)) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/debug/rollback-to/{signature}',
      auth: 'admin',
      summary: 'Rolls back to the block with this id (transactions are not returned to the pool)',
      params: { signature: base58Id('Block id, Base58') },
      responses: { 200: S.BlockIdAnswer, 400: err('101 invalid signature; rollback refusals'), 403: denied },
      handler: ({ params }, ctx) => ({ BlockId: encodeBase58(ctx.services.admin.rollbackTo(params.signature)) }),
    }),
    route({
      method: 'GET',
      path: '/debug/blocks/{howMany}',
      auth: 'admin',
      summary: 'Sizes and fast hashes of the last blocks, newest first',
      params: { howMany: positiveInt('How many of the last blocks') },
      responses: { 200: BlockHashes, 400: err("199 `Invalid parameter: '<v>' must be positive`"), 403: denied },
      handler: ({ params }, ctx) => {
        const { chain, protocol } = ctx.services;
        const top = chain.height();
        const out: Array<Record<string, string>> = [];
        for (let h = top; h >= Math.max(1, top - params.howMany + 1); h--) {
          const block = chain.blockAt(h);
          if (block !== undefined) out.push({ [String(block.bytes.length)]: encodeBase58(protocol.crypto.fastHash(block.bytes)) });
        }
        return out;
      },
    }),
    route({
      method: 'GET',
      path: '/debug/state',
      auth: 'admin',
      summary: 'Every address with a positive WEST balance, now',
      responses: { 200: WestDistribution, 403: denied },
      handler: (_req, ctx) => distributionJson(ctx.services.debug.westDistribution(ctx.services.chain.height())),
    }),
    route({
      method: 'GET',
      path: '/debug/stateWE/{height}',
      auth: 'admin',
      summary: 'Every address with a positive WEST balance after the block at a height',
      description: 'A height above the current one reads the current state.',
      params: { height: digitsInt('Height (digits only; anything else matches no route)', () => routeNotFound()) },
      responses: { 200: WestDistribution, 403: denied, 404: { description: 'The height is not a number', contentType: 'text/plain' } },
      handler: ({ params }, ctx) => distributionJson(ctx.services.debug.westDistribution(params.height)),
    }),
    route({
      method: 'GET',
      path: '/debug/portfolios/{address}',
      auth: 'admin',
      summary: "An address's balances, by default lowered by what its pool transactions would spend",
      params: { address: text('Address, Base58') },
      query: { considerUnspent: booleanQuery('Count what pool transactions would take (default true)') },
      responses: {
        200: PortfolioSchema,
        400: err('102 invalid address'),
        403: denied,
        404: { description: 'considerUnspent is not a boolean', contentType: 'text/plain' },
      },
      handler: ({ params, query }, ctx) => {
        const address = ctx.services.protocol.addresses.parseAddress(params.address, 'address');
        const p = ctx.services.debug.portfolio(address.bytes, query.considerUnspent ?? true);
        const assets: Record<string, bigint> = {};
        for (const a of p.assets) assets[encodeBase58(a.assetId)] = a.balance;
        return { balance: p.balance, lease: { in: p.lease.in, out: p.lease.out }, assets };
      },
    }),
    route({
      method: 'GET',
      path: '/debug/info',
      auth: 'admin',
      summary: 'State height, block loading state and the miner state',
      responses: { 200: DebugInfoSchema, 403: denied },
      handler: (_req, ctx) => ctx.services.debug.info(),
    }),
    route({
      method: 'GET',
      path: '/debug/minerInfo',
      auth: 'admin',
      summary: 'Mining balance and next mining attempt of every keystore account without a script',
      responses: { 200: MinerInfo, 403: denied },
      handler: (_req, ctx) => ctx.services.debug.minerInfo(),
    }),
    route({
      method: 'GET',
      path: '/debug/historyInfo',
      auth: 'admin',
      summary: 'Ids of the last blocks and of the liquid block’s micro-blocks',
      responses: { 200: HistoryInfo, 403: denied },
      handler: (_req, ctx) => {
        const h = ctx.services.debug.historyInfo();
        return { lastBlockIds: h.lastBlockIds.map(encodeBase58), microBlockIds: h.microBlockIds.map(encodeBase58) };
      },
    }),
    route({
      method: 'GET',
      path: '/debug/configInfo',
      auth: 'admin',
      summary: 'The node\'s settings (`{"node": …}`), as WE\'s HOCON keys',
      query: { full: booleanQuery('Everything, not only the `node` section (Weft has nothing else)') },
      responses: { 200: ConfigInfo, 403: denied, 404: { description: 'full is not a boolean', contentType: 'text/plain' } },
      handler: ({ query }, ctx) => ctx.services.debug.configInfo(query.full ?? false),
    }),
    route({
      method: 'POST',
      path: '/debug/print',
      auth: 'admin',
      summary: 'Writes a message to the log at DEBUG level (first 250 characters)',
      body: { schema: DebugMessage, read: 'schema' },
      responses: { 200: { description: 'Empty text', contentType: 'text/plain' }, 400: err('1 malformed body'), 403: denied },
      handler: ({ body, log }) => {
        log.debug(body.message.slice(0, 250));
        return new Reply(200, '', 'text');
      },
    }),
    route({
      method: 'POST',
      path: '/debug/createGrpcAuth',
      auth: 'admin',
      summary: "A 365-day token for a contract's read-only gRPC calls",
      description: 'A 365-day token from the contract engine (`node.contracts.enable` or `docker-engine.enable`); a node without it answers 199.',
      body: { schema: ContractAuthRequest, read: 'schema' },
      responses: { 200: ContractAuthAnswer, 400: err("1 malformed body or contract id; 199 `Can't create token – docker-engine is disabled`"), 403: denied },
      handler: async ({ body }, ctx) => {
        let contractId: Uint8Array;
        try {
          contractId = decodeBase58(body.contractId);
        } catch {
          throw wrongJson([{ path: 'obj.contractId', messages: ['Expected base58-encoded string'] }]);
        }
        const token = await ctx.services.debug.contractAuthToken(contractId);
        if (token === undefined) throw customValidationError("Can't create token – docker-engine is disabled", 'node.docker-engine.enable');
        return { token };
      },
    }),
    route({
      method: 'POST',
      path: '/debug/validate',
      auth: 'user',
      summary: 'Validates a signed transaction against the current state, without the pool',
      description:
        'Fee, signature and the rules of its family, as broadcast checks them; nothing is kept. A malformed request is error 1; any other problem answers `valid: false` with the message.',
      body: { schema: S.SignedTransactionRequest, read: 'object', description: 'Signed transaction JSON' },
      responses: { 200: Validation, 400: err('1 malformed JSON (not an object, fields missing or of the wrong type)') },
      handler: ({ body }, ctx) => {
        const started = process.hrtime.bigint();
        let error: string | undefined;
        try {
          ctx.services.debug.validate(ctx.services.protocol.transactionFromJson(body));
        } catch (e) {
          if (!(e instanceof WeError) || e.code === 1) throw e;
          error = e.message;
        }
        const validationTime = Number((process.hrtime.bigint() - started) / 1000n) / 1000;
        return error === undefined ? { valid: true, validationTime } : { valid: false, validationTime, error };
      },
    }),
  ],
);
