/**
 * `/consensus/*` (WE's ConsensusApiRoute). `settings` needs the admin key; the others are
 * user routes. The PoS routes answer WE's 199 on a PoA chain and the PoA routes on a PoS
 * chain, as WE does:
 *   - `basetarget`, `generationsignature` read the (last or given) block's consensus data:
 *     `Expected PoS consensus block data, but got PoA instead`;
 *   - `generatingbalance` checks the configured consensus first (so a bad address on a PoA
 *     node is that 199, not a 102): `Expected PoS consensus block data, but got PoA or CFT instead`;
 *   - `minersAtHeight`, `bannedMiners` (after their height check): `Expected PoA consensus
 *     block data, but got PoS instead`.
 * `miners/{timestamp}`, `minersWarningsAndBans` and `algo` answer under any consensus; a CFT
 * chain answers the PoA routes as PoA does, and `settings` with FairPoS's name alone (WE
 * 1.14 matches only PoASettings there and names every other consensus FairPoS; clients
 * read that answer, so Weft gives it too).
 *
 * Durations in `settings` are written as Scala's FiniteDuration prints them. WE keeps the
 * unit the config file used (`17s` → "17 seconds", `1m` → "1 minute"); Weft's config keeps
 * milliseconds, so a whole number of seconds is written in seconds ("17 seconds",
 * "60 seconds", "1 second") and anything else in milliseconds ("1500 milliseconds") — the
 * same text as WE for configs written in `s` or `ms`.
 */
import { Type } from '@sinclair/typebox';
import type { Block } from '../../protocol/blocks.js';
import { encodeBase58 } from '../../crypto/encoding.js';
import { bannedMiners, minersAtHeight, minersAtTimestamp, minersWarningsAndBans, requirePoa } from '../../consensus/poa.js';
import { posData } from '../../consensus/pos.js';
import { blockScore } from '../../consensus/rules.js';
import { blockId, positiveInt, text, ValidIntProblem, type ParamSpec } from '../params.js';
import { defineRoutes, route, type ApiContext } from '../routing.js';
import * as S from '../schemas.js';
import { blockDoesNotExist, genericError } from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

const POA_ALGO = 'Proof-of-Authority (PoA)';
const POS_ALGO = 'Fair Proof-of-Stake (FairPoS)';
const CFT_ALGO = 'Crash Fault Tolerance (CFT)';
const ALGO = { poa: POA_ALGO, pos: POS_ALGO, cft: CFT_ALGO } as const;

/** Scala's FiniteDuration.toString of a duration given in ms (see the module notes for the unit). */
export function scalaDuration(ms: number): string {
  const [length, unit] = ms % 1000 === 0 ? [ms / 1000, 'second'] : [ms, 'millisecond'];
  return `${length} ${unit}${length === 1 ? '' : 's'}`;
}

const LONG_MIN = -(1n << 63n);
const LONG_MAX = (1n << 63n) - 1n;

/** WE's PositiveLong (> 0): Java's Long.parseLong, then the sign check. */
const positiveLong = (doc: string): ParamSpec<bigint> => ({
  schema: S.Int64({ description: doc }),
  description: doc,
  validInt: true,
  parse(raw) {
    const n = /^[+-]?[0-9]+$/.test(raw) ? BigInt(raw) : undefined;
    if (n === undefined || n < LONG_MIN || n > LONG_MAX) throw new ValidIntProblem(`Unable to parse Long from '${raw}'`);
    if (!(n > 0n)) throw new ValidIntProblem(`'${n}' must be positive`);
    return n;
  },
});

/** The block with this id (101 / 301 as WE's withBlock). */
function blockByIdOr301(ctx: ApiContext, id: Uint8Array): Block {
  const found = ctx.services.chain.blockById(id);
  if (found === undefined) throw blockDoesNotExist(encodeBase58(id), 'signature');
  return found.block;
}

function lastBlock(ctx: ApiContext): Block {
  const chain = ctx.services.chain;
  const block = chain.blockAt(chain.height());
  if (block === undefined) throw genericError('No blocks in blockchain');
  return block;
}

// ---------------------------------------------------------------------------
// Schemas

const Addresses = Type.Array(Type.String({ description: 'Address, Base58' }));

const ConsensusAlgo = Type.Object(
  { consensusAlgo: Type.Union([Type.Literal(POA_ALGO), Type.Literal(POS_ALGO), Type.Literal(CFT_ALGO)]) },
  { $id: 'ConsensusAlgo' },
);

const PoaConsensusSettings = Type.Object(
  {
    consensusAlgo: Type.Literal(POA_ALGO),
    roundDuration: Type.String({ description: 'Scala duration, e.g. "17 seconds"' }),
    syncDuration: Type.String({ description: 'Scala duration, e.g. "3 seconds"' }),
    banDurationBlocks: S.Int32(),
    warningsForBan: S.Int32(),
    maxBansPercentage: S.Int32({ description: '0–100' }),
  },
  { $id: 'PoaConsensusSettings' },
);

const OtherConsensusSettings = Type.Object(
  { consensusAlgo: Type.Literal(POS_ALGO) },
  { $id: 'PosConsensusSettings', description: 'Any consensus but PoA (WE writes only this)' },
);

const BaseTarget = Type.Object(
  {
    baseTarget: S.Int64({ description: 'PoS base target of the block' }),
    score: Type.String({ description: 'Score as a decimal string: the chain score (last block) or the block score (given block)' }),
  },
  { $id: 'BaseTarget' },
);

const GenerationSignature = Type.Object(
  { generationSignature: Type.String({ description: 'PoS generation signature, Base58' }) },
  { $id: 'GenerationSignature' },
);

const GeneratingBalance = Type.Object(
  { address: Type.String(), balance: S.Int64({ description: 'Least effective balance over the last 1000 blocks' }) },
  { $id: 'ConsensusGeneratingBalance' },
);

const MinersAtHeight = Type.Object({ miners: Addresses, height: S.Int32() }, { $id: 'MinersAtHeight' });
const MinersAtTimestamp = Type.Object({ miners: Addresses, timestamp: S.Int64() }, { $id: 'MinersAtTimestamp' });
const BannedMiners = Type.Object({ bannedMiners: Addresses, height: S.Int32() }, { $id: 'BannedMiners' });

const MinersWarningsAndBans = Type.Object(
  {
    warningsAndBans: Type.Array(
      Type.Object({
        address: Type.String(),
        bans: Type.Array(Type.Object({ timestamp: S.Int64(), beginHeight: S.Int32() }), { description: 'Newest first' }),
        warnings: Type.Array(Type.Object({ timestamp: S.Int64() }), { description: 'Newest first' }),
      }),
    ),
  },
  { $id: 'MinersWarningsAndBans' },
);

const signature = blockId('Block id (or a liquid block total signature), Base58');

export const consensusRoutes = defineRoutes(
  { name: 'consensus', description: 'Consensus: algorithm, settings, PoA miners and bans, PoS base target and generation signature' },
  [
    route({
      method: 'GET',
      path: '/consensus/algo',
      auth: 'user',
      summary: 'The consensus algorithm the chain runs',
      responses: { 200: ConsensusAlgo },
      handler: (_req, ctx) => ({ consensusAlgo: ALGO[ctx.services.consensus.settings.type] }),
    }),
    route({
      method: 'GET',
      path: '/consensus/settings',
      auth: 'admin',
      summary: "The node's consensus settings",
      description:
        "PoA: its round, sync and ban settings (durations as Scala prints them); any other consensus: only FairPoS's name — WE 1.14 answers so for CFT too, and so does Weft.",
      responses: { 200: Type.Union([PoaConsensusSettings, OtherConsensusSettings]), 403: err('2 API key missing or wrong') },
      handler: (_req, ctx) => {
        const s = ctx.services.consensus.settings;
        if (s.type !== 'poa') return { consensusAlgo: POS_ALGO };
        return {
          consensusAlgo: POA_ALGO,
          roundDuration: scalaDuration(s.roundDurationMs),
          syncDuration: scalaDuration(s.syncDurationMs),
          banDurationBlocks: s.banDurationBlocks,
          warningsForBan: s.warningsForBan,
          maxBansPercentage: s.maxBansPercentage,
        };
      },
    }),
    route({
      method: 'GET',
      path: '/consensus/basetarget',
      auth: 'user',
      summary: 'Base target of the last block, with the chain score (PoS)',
      responses: { 200: BaseTarget, 400: err('199 `Expected PoS consensus block data, but got PoA instead`') },
      handler: (_req, ctx) => {
        const data = posData(lastBlock(ctx).consensus);
        return { baseTarget: data.baseTarget, score: ctx.services.consensus.chainScore().toString() };
      },
    }),
    route({
      method: 'GET',
      path: '/consensus/basetarget/{signature}',
      auth: 'user',
      summary: 'Base target of a block, with its block score (PoS)',
      params: { signature },
      responses: {
        200: BaseTarget,
        400: err('101 invalid signature; 199 `Expected PoS consensus block data, but got PoA instead`'),
        404: err('301 block does not exist'),
      },
      handler: ({ params }, ctx) => {
        const block = blockByIdOr301(ctx, params.signature);
        const data = posData(block.consensus);
        return { baseTarget: data.baseTarget, score: blockScore(block).toString() };
      },
    }),
    route({
      method: 'GET',
      path: '/consensus/generationsignature',
      auth: 'user',
      summary: 'Generation signature of the last block (PoS)',
      responses: { 200: GenerationSignature, 400: err('199 `Expected PoS consensus block data, but got PoA instead`') },
      handler: (_req, ctx) => ({ generationSignature: encodeBase58(posData(lastBlock(ctx).consensus).generationSignature) }),
    }),
    route({
      method: 'GET',
      path: '/consensus/generationsignature/{signature}',
      auth: 'user',
      summary: 'Generation signature of a block (PoS)',
      params: { signature },
      responses: {
        200: GenerationSignature,
        400: err('101 invalid signature; 199 `Expected PoS consensus block data, but got PoA instead`'),
        404: err('301 block does not exist'),
      },
      handler: ({ params }, ctx) => ({ generationSignature: encodeBase58(posData(blockByIdOr301(ctx, params.signature).consensus).generationSignature) }),
    }),
    route({
      method: 'GET',
      path: '/consensus/generatingbalance/{address}',
      auth: 'user',
      summary: "An account's generating balance: its least effective balance over the last 1000 blocks (PoS)",
      params: { address: text('Address, Base58') },
      responses: {
        200: GeneratingBalance,
        400: err('199 `Expected PoS consensus block data, but got PoA or CFT instead` on a PoA chain; 102 invalid address'),
      },
      handler: ({ params }, ctx) => {
        const { consensus, protocol, chain } = ctx.services;
        if (consensus.settings.type !== 'pos') throw genericError('Expected PoS consensus block data, but got PoA or CFT instead', 'consensus');
        const address = protocol.addresses.parseAddress(params.address, 'address');
        return { address: address.toString(), balance: consensus.generatingBalance(address.bytes, chain.height()) };
      },
    }),
    route({
      method: 'GET',
      path: '/consensus/minersAtHeight/{height}',
      auth: 'user',
      summary: 'Active miners (queue order, bans not filtered) at the timestamp of the block at a height (PoA, CFT)',
      params: { height: positiveInt('Height') },
      responses: {
        200: MinersAtHeight,
        400: err("199 `Invalid parameter: '<v>' must be positive`, or `Expected PoA consensus block data, but got PoS instead`; 310 height above the chain"),
      },
      handler: ({ params }, ctx) => {
        const { consensus, chain } = ctx.services;
        requirePoa(consensus.settings);
        return minersAtHeight(chain.state(), consensus.headers, params.height);
      },
    }),
    route({
      method: 'GET',
      path: '/consensus/miners/{timestamp}',
      auth: 'user',
      summary: 'Active miners (queue order) at a timestamp',
      params: { timestamp: positiveLong('Unix time, ms') },
      responses: { 200: MinersAtTimestamp, 400: err("199 `Invalid parameter: Unable to parse Long from '<v>'` or `'<v>' must be positive`") },
      handler: ({ params }, ctx) => minersAtTimestamp(ctx.services.chain.state(), params.timestamp),
    }),
    route({
      method: 'GET',
      path: '/consensus/bannedMiners/{height}',
      auth: 'user',
      summary: 'Miners banned at a height (PoA, CFT)',
      params: { height: positiveInt('Height') },
      responses: {
        200: BannedMiners,
        400: err("199 `Invalid parameter: '<v>' must be positive`, or `Expected PoA consensus block data, but got PoS instead`; 310 height above the chain"),
      },
      handler: ({ params }, ctx) => {
        const { consensus, chain } = ctx.services;
        requirePoa(consensus.settings);
        if (consensus.poa === undefined) throw genericError('Expected PoA consensus block data, but got PoS instead');
        return bannedMiners(consensus.poa, chain.state(), consensus.headers, params.height);
      },
    }),
    route({
      method: 'GET',
      path: '/consensus/minersWarningsAndBans',
      auth: 'user',
      summary: "Every address that ever held `miner`, with its PoA warnings and bans (WE's internal route)",
      responses: { 200: MinersWarningsAndBans },
      handler: (_req, ctx) => minersWarningsAndBans(ctx.services.chain.state()),
    }),
  ],
);
