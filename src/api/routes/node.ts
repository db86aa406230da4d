/**
 * `/node/*` (WE's NodeApiRoute and HealthChecker): version, status and health checks (open
 * in every auth mode), owner, settings and logger levels (user), and — admin — changing a
 * logger's level and stopping the node.
 *
 * WE wraps the tail of the `/node` tree in the admin check, so any other `/node/...`
 * request without the key is a 403 (with it, a 404).
 *
 * `/node/metrics` (WE's switches of the measurement segments it writes to InfluxDB) is not
 * served: Weft has no InfluxDB writer and no segments to switch (the contract ones would
 * switch executions the miner does not run yet); its Prometheus metrics are served at
 * `node.metrics.path` (routes/metrics.ts).
 */
import { Type } from '@sinclair/typebox';
import { encodeBase58 } from '../../crypto/encoding.js';
import { optionalQuery, text } from '../params.js';
import { defineRoutes, Reply, route } from '../routing.js';
import * as S from '../schemas.js';
import type { ApiServices, ExternalServiceName, LogLevelName, NodeConfigInfo } from '../services.js';
import { customValidationError } from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

const LEVELS: readonly LogLevelName[] = ['ALL', 'TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
const SERVICES: readonly ExternalServiceName[] = ['docker', 'privacy-storage', 'anchoring-auth'];
/** What `/node/healthcheck` checks without `service`: the container runtime (the specification's default). */
const DEFAULT_SERVICE: ExternalServiceName = 'docker';

const Version = Type.Object(
  { version: Type.String({ description: "Agent name and version, WE's form (`WE v1.14.0`; here `Weft v…`)" }) },
  { $id: 'NodeVersion' },
);

const NodeStatus = Type.Object(
  {
    blockchainHeight: S.Int32({ description: 'Height (the liquid block counts)' }),
    stateHeight: S.Int32({ description: 'Height of the state (equal to blockchainHeight)' }),
    updatedTimestamp: S.Int64({ description: 'Timestamp of the last block' }),
    updatedDate: Type.String({ description: 'The same instant, ISO-8601' }),
    lastCheckTimestamp: S.Int64({ description: 'When the health check ran' }),
    lastBlockFinalized: Type.Optional(Type.Boolean({ description: 'Beyond WE, on a CFT network only: whether the last (liquid) block is final' })),
    lastFinalizedHeight: Type.Optional(
      S.Int32({ description: 'Beyond WE, on a CFT network only: height of the last final block (the last block, or the one below it)' }),
    ),
    synchronization: Type.Optional(
      Type.Object(
        {
          peer: Type.String({ description: 'The peer the node catches up from, `/host:port`' }),
          targetScore: Type.String({ pattern: '^[0-9]+$', description: 'Chain score the peer announced (decimal)' }),
          localScore: Type.String({ pattern: '^[0-9]+$', description: "This node's chain score (decimal)" }),
          blocksApplied: S.Int32({ description: 'Blocks taken from peers since the node started' }),
        },
        { description: 'Beyond WE: present only while the node catches up from a peer' },
      ),
    ),
  },
  { $id: 'NodeStatus' },
);

const Empty = Type.Object({}, { $id: 'EmptyObject', additionalProperties: false });

const NodeOwner = Type.Object({ address: Type.String(), publicKey: Type.String() }, { $id: 'NodeOwner' });

const FeeTable = Type.Record(Type.String({ pattern: '^[0-9]+$' }), S.Int64(), { description: 'Transaction type id → fee in units' });

const NodeConfig = Type.Object(
  {
    version: Type.String(),
    cryptoType: Type.String({ description: '`WAVES` or `GOST`' }),
    chainId: Type.String(),
    consensus: Type.String({ description: '`POA`, `POS` or `CFT`' }),
    minimumFee: FeeTable,
    additionalFee: FeeTable,
    maxTransactionsInMicroBlock: S.Int32(),
    minMicroBlockAge: S.Int64({ description: 'ms' }),
    microBlockInterval: S.Int64({ description: 'ms' }),
    pkiMode: Type.String({ description: '`OFF`, `ON` or `TEST`' }),
    requiredOids: Type.Array(Type.String()),
    crlChecksEnabled: Type.Boolean(),
    blockTiming: Type.Union([
      Type.Object({ roundDuration: S.Int64({ description: 'ms' }), syncDuration: S.Int64({ description: 'ms' }) }),
      Type.Object({ averageBlockDelay: S.Int64({ description: 'ms' }) }),
    ]),
  },
  { $id: 'NodeConfig' },
);

const LoggerLevelRequest = Type.Object(
  {
    logger: Type.String({ description: 'A logger name from GET /node/logging (`ROOT` for all without a level of their own)' }),
    level: Type.String({ description: '`ALL`, `TRACE`, `DEBUG`, `INFO`, `WARN` or `ERROR`' }),
  },
  { $id: 'ChangeLoggerLevelRequest' },
);

const LoggerLevelAnswer = Type.Object(
  { response: Type.Literal('OK') },
  { $id: 'ChangeLoggerLevelAnswer', additionalProperties: Type.String(), description: '`{"response": "OK", "<logger>": "<level>"}`' },
);

const Stopped = Type.Object({ stopped: Type.Literal(true) }, { $id: 'NodeStopped' });

function feeTable(fees: ReadonlyMap<number, bigint>): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  for (const [type, fee] of fees) out[String(type)] = fee;
  return out;
}

/** The node owner's address and public key, Base58 (`/node/owner`, gRPC NodeOwner). */
export function nodeOwnerAnswer(services: ApiServices): { address: string; publicKey: string } {
  const publicKey = services.nodeOwnerPublicKey;
  return { address: services.protocol.addresses.fromPublicKey(publicKey).toString(), publicKey: encodeBase58(publicKey) };
}

/** WE's NodeConfigResponse JSON. */
export function nodeConfigJson(c: NodeConfigInfo): Record<string, unknown> {
  return {
    version: c.version,
    cryptoType: c.cryptoType,
    chainId: c.chainId,
    consensus: c.consensus,
    minimumFee: feeTable(c.minimumFee),
    additionalFee: feeTable(c.additionalFee),
    maxTransactionsInMicroBlock: c.maxTransactionsInMicroBlock,
    minMicroBlockAge: c.minMicroBlockAgeMs,
    microBlockInterval: c.microBlockIntervalMs,
    pkiMode: c.pkiMode,
    requiredOids: [...c.requiredOids],
    crlChecksEnabled: c.crlChecksEnabled,
    blockTiming:
      'roundDurationMs' in c.blockTiming
        ? { roundDuration: c.blockTiming.roundDurationMs, syncDuration: c.blockTiming.syncDurationMs }
        : { averageBlockDelay: c.blockTiming.averageBlockDelayMs },
  };
}

export const nodeRoutes = defineRoutes(
  { name: 'node', description: 'The node: version, health, settings, logging, stop', prefixAuth: { prefix: '/node', level: 'admin' } },
  [
    route({
      method: 'GET',
      path: '/node/version',
      auth: 'none',
      summary: "The node's agent name and version",
      responses: { 200: Version },
      handler: (_req, ctx) => ({ version: ctx.services.node.agentName }),
    }),
    route({
      method: 'GET',
      path: '/node/status',
      auth: 'none',
      summary: 'Heights and the last block time, after the health checks',
      description: 'Fails with 640 (503) and the reason when the store cannot be read or the data directory has less than 500 MiB free.',
      responses: { 200: NodeStatus, 503: err('640 a health check failed (the reason is the message)') },
      handler: (_req, ctx) => ctx.services.node.status(),
    }),
    route({
      method: 'GET',
      path: '/node/healthcheck',
      auth: 'none',
      summary: 'Health of an external service of the node',
      description:
        'Services WE knows: `docker` (the container runtime of contracts), `privacy-storage`, `anchoring-auth` (any case); without `service`, the container runtime is checked, as the specification documents (WE 1.14 answers 199 `Service param is required`). `{}` when healthy.',
      query: { service: optionalQuery(text('`docker` (the default), `privacy-storage` or `anchoring-auth`')) },
      responses: {
        200: Empty,
        400: err("199 `Unknown service '<s>'`"),
        404: err("637 `Service '<name>' is disabled`: the node has no such service"),
        503: err('640 the service check failed'),
      },
      handler: async ({ query }, ctx) => {
        const requested = query.service ?? DEFAULT_SERVICE;
        const service = SERVICES.find((s) => s === requested.toLowerCase());
        if (service === undefined) throw customValidationError(`Unknown service '${requested}'`, 'service');
        await ctx.services.node.externalStatus(service);
        return {};
      },
    }),
    route({
      method: 'GET',
      path: '/node/owner',
      auth: 'user',
      summary: "The node owner's address and public key",
      responses: { 200: NodeOwner },
      handler: (_req, ctx) => nodeOwnerAnswer(ctx.services),
    }),
    route({
      method: 'GET',
      path: '/node/config',
      auth: 'user',
      summary: "The node's main settings: crypto, chain id, consensus, fees, micro-block limits, PKI mode",
      responses: { 200: NodeConfig },
      handler: (_req, ctx) => nodeConfigJson(ctx.services.node.config()),
    }),
    route({
      method: 'GET',
      path: '/node/logging',
      auth: 'user',
      summary: 'Every logger with its level, one `name-LEVEL` per line (text)',
      responses: { 200: { description: '`ROOT-INFO`, then `api-INFO`, … (text/plain)', contentType: 'text/plain' } },
      handler: (_req, ctx) =>
        new Reply(
          200,
          ctx.services.node
            .loggers()
            .map((l) => `${l.name}-${l.level}`)
            .join('\n'),
          'text',
        ),
    }),
    route({
      method: 'POST',
      path: '/node/logging',
      auth: 'admin',
      summary: "Changes a logger's level at runtime",
      body: { schema: LoggerLevelRequest, read: 'schema' },
      responses: { 200: LoggerLevelAnswer, 400: err('1 malformed body; 199 `This name level <x> is not correct`'), 403: err('2 API key missing or wrong') },
      handler: ({ body }, ctx) => {
        const level = LEVELS.find((l) => l === body.level);
        if (level === undefined) throw customValidationError(`This name level ${body.level} is not correct`, 'level');
        ctx.services.node.setLoggerLevel(body.logger, level);
        return { response: 'OK', [body.logger]: level };
      },
    }),
    route({
      method: 'POST',
      path: '/node/stop',
      auth: 'admin',
      summary: 'Stops the node (the process exits once it has stopped cleanly)',
      responses: { 200: Stopped, 403: err('2 API key missing or wrong') },
      handler: (_req, ctx) => {
        ctx.services.node.stop();
        return { stopped: true };
      },
    }),
  ],
);
