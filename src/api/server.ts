/**
 * The HTTP server of a node: Fastify with WE's conventions (json-io.ts), the route groups
 * (routes/), the error catalogue rendered by one error handler, Akka's catch-all 404 text,
 * CORS as WE sends it, and the OpenAPI document with Swagger UI under `/api-docs`; the
 * node's Prometheus metrics at their configured path when the node has them, and every
 * answered request told to an optional observer (the node's REST metrics).
 */
import { DEFAULT_HEAVY_READ_LIMITS, HeavyReads, type HeavyReadLimits } from './heavy-reads.js';
import { DEFAULT_SCRIPT_COMPILER_LIMITS, ScriptCompilerPool, type ScriptCompilerLimits } from '../ride/script-compiler-pool.js';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { createAuthenticator, nodeOAuth2Context, type Authenticator } from './auth.js';
import { applyConnectionLimits, DEFAULT_REST_CONNECTION_LIMITS, fastifyTimeoutOptions, SocketCloser, watchRequestBodies } from './connection-limits.js';
import { PREFLIGHT_HEADERS, setCorsHeaders } from './cors.js';
import { DEFAULT_SLOW_REQUEST_MS, RequestLog } from './request-log.js';
import { errorBody, NOT_FOUND_TEXT, OtherShapeReply, PlainTextReply, StatusDetailsReply } from './errors.js';
import { registerExplorer } from './explorer.js';
import { installBodyParsers, JSON_CONTENT_TYPE, jsonText, MAX_BODY_BYTES, TEXT_CONTENT_TYPE } from './json-io.js';
import { multipartParser } from './multipart.js';
import { openApiDocument } from './openapi.js';
import { ROUTE_GROUPS } from './routes/index.js';
import { metricsRoutes } from './routes/metrics.js';
import { bodyAbsentReply, registerRoutes, routeOf, type ApiContext, type RouteGroup } from './routing.js';
import type { ApiServices, ApiSettings } from './services.js';
import { TransactionTimestamps } from './timestamps.js';
import { customValidationError, httpEntityTooBig, unknownError, WeError, wrongJson } from '../errors/catalogue.js';

export interface ApiServerOptions {
  /** Fastify's logger option (default: info level to stdout). Tests pass `false`. */
  readonly logger?: FastifyServerOptions['logger'];
  /** A ready pino logger instead (takes precedence over `logger`). */
  readonly loggerInstance?: FastifyBaseLogger;
  /** Route groups to serve (default: every group of routes/index.ts). */
  readonly groups?: readonly RouteGroup[];
  /** Request body limit in bytes (default WE's 3 MiB). */
  readonly bodyLimit?: number;
  /** Requests slower than this many milliseconds are logged at INFO (default DEFAULT_SLOW_REQUEST_MS); quicker ones that succeed at DEBUG. */
  readonly slowRequestMs?: number;
  /** Version shown in the OpenAPI document. */
  readonly version?: string;
  /** Told of every answered request (the node's metrics); absent: nothing is measured. */
  readonly requests?: ApiRequestObserver;
  /** Limits of heavy reads (block ranges, full blocks); default DEFAULT_HEAVY_READ_LIMITS. */
  readonly heavyReads?: HeavyReadLimits;
  /** Limits of the threads that compile and estimate `/utils/script/*` scripts; default DEFAULT_SCRIPT_COMPILER_LIMITS. */
  readonly scriptCompiler?: ScriptCompilerLimits;
}

/** What the server tells about each answered request. */
export interface ApiRequestObserver {
  /**
   * A request was answered: its method, the route that took it as a pattern
   * (`/blocks/at/{height}`; `unmatched` when no route did, so raw URLs never become labels),
   * the status, and the time from its arrival to the answer sent, in seconds.
   */
  answered(method: string, route: string, status: number, seconds: number): void;
}

/** The pattern of the route that took a request: the route table's, else Fastify's (explorer, documents), else `unmatched`. */
function routePattern(request: FastifyRequest): string {
  return routeOf(request)?.path ?? request.routeOptions.url ?? 'unmatched';
}

const DOCS_PATH = '/api-docs/';

/** How long the rest of a refused upload is read and dropped before its connection is closed. */
const REFUSED_BODY_LINGER_MS = 2000;

/**
 * A refusal before the whole body arrived (a streamed upload refused early): once the answer
 * is out, the rest of the body is read and dropped (Node's server does that) for at most
 * REFUSED_BODY_LINGER_MS, then the connection is closed. Closing it at once would reset it
 * under the client's unread answer — a client still writing sees EPIPE and loses the answer.
 */
function lingerOnRefusedBody(request: FastifyRequest, reply: FastifyReply): void {
  const req = request.raw;
  // (Injected requests, which have no socket, leave `complete` unset.)
  if (req.complete !== false) return;
  // Fastify asks for an immediate close after a body it refused; the close comes below instead.
  reply.removeHeader('connection');
  reply.raw.once('finish', () => {
    if (req.complete) return;
    const timer = setTimeout(() => req.socket.destroy(), REFUSED_BODY_LINGER_MS);
    req.once('end', () => clearTimeout(timer));
    req.socket.once('close', () => clearTimeout(timer));
  });
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: WeError | OtherShapeReply): FastifyReply {
  lingerOnRefusedBody(request, reply);
  if (error instanceof StatusDetailsReply) return reply.code(error.status).type(JSON_CONTENT_TYPE).send(jsonText(error.body, request.headers.accept));
  if (error instanceof PlainTextReply) return reply.code(error.status).type(TEXT_CONTENT_TYPE).send(error.text);
  if (error instanceof WeError)
    return reply
      .code(error.status)
      .type(JSON_CONTENT_TYPE)
      .send(jsonText(errorBody(error), request.headers.accept));
  return reply.code(error.status).type(TEXT_CONTENT_TYPE).send(error.message);
}

/** Fastify's own errors in WE's terms; undefined for anything that is a bug. */
function fromFastifyError(error: FastifyError, request: FastifyRequest, bodyLimit: number): WeError | OtherShapeReply | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const declared = Number(request.headers['content-length']);
      return httpEntityTooBig(Number.isSafeInteger(declared) ? declared : -1, routeOf(request)?.bodyLimit ?? bodyLimit);
    }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return bodyAbsentReply(routeOf(request));
  }
  if (error.validation !== undefined) {
    return wrongJson(error.validation.map((v) => ({ path: `obj${v.instancePath.replace(/\//g, '.')}`, messages: [v.message ?? 'error.invalid'] })));
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return customValidationError(error.message, undefined, status);
  return undefined;
}

function prefixAuthOf(groups: readonly RouteGroup[], url: string) {
  const path = url.split('?')[0] ?? url;
  return groups.find((g) => g.prefixAuth !== undefined && (path === g.prefixAuth.prefix || path.startsWith(`${g.prefixAuth.prefix}/`)))?.prefixAuth;
}

/** Builds (does not start) the API server of a node. */
export function createApiServer(services: ApiServices, options: ApiServerOptions = {}): FastifyInstance {
  const settings = services.settings;
  const groups = [...(options.groups ?? ROUTE_GROUPS), ...(services.metrics === undefined ? [] : [metricsRoutes(services.metrics)])];
  const bodyLimit = options.bodyLimit ?? MAX_BODY_BYTES;
  const limits = settings.connectionLimits ?? DEFAULT_REST_CONNECTION_LIMITS;
  // Connections cut by the timeouts are answered and closed a few per event-loop turn.
  const closer = new SocketCloser();
  const auth: Authenticator = createAuthenticator(
    settings.auth,
    services.protocol.crypto,
    nodeOAuth2Context(services.protocol, services.nodeOwnerPublicKey, () => services.now()),
  );
  const ctx: ApiContext = {
    services,
    timestamps: new TransactionTimestamps(() => services.now()),
    blockJsonCache: new WeakMap(),
    heavyReads: new HeavyReads(options.heavyReads ?? DEFAULT_HEAVY_READ_LIMITS),
    scriptCompiler: new ScriptCompilerPool(options.scriptCompiler ?? DEFAULT_SCRIPT_COMPILER_LIMITS),
  };

  const requests = options.requests;
  const app = Fastify({
    ...(options.loggerInstance !== undefined ? { loggerInstance: options.loggerInstance } : { logger: options.logger ?? { level: 'info' } }),
    // The metrics' observer is told of each answer by the request log (no onResponse hook: see request-log.ts).
    logController: new RequestLog(
      options.slowRequestMs ?? DEFAULT_SLOW_REQUEST_MS,
      requests === undefined ? undefined : (request, reply, ms) => requests.answered(request.method, routePattern(request), reply.statusCode, ms / 1000),
    ),
    bodyLimit,
    ...fastifyTimeoutOptions(limits, closer),
    routerOptions: { maxParamLength: 2048, ignoreTrailingSlash: false, ignoreDuplicateSlashes: false },
    return503OnClosing: true,
    // The router's own refusals (undecodable percent-encoding, a path parameter past
    // maxParamLength) in WE's error shape, naming the path as the offending input.
    frameworkErrors: (error, request, reply) => {
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? `A path parameter is longer than 2048 characters` : `The path is not valid percent-encoded UTF-8`;
      void sendError(request, reply, customValidationError(message, 'path'));
    },
  }) as unknown as FastifyInstance;

  // The script compiler's threads end with the server.
  app.addHook('onClose', () => ctx.scriptCompiler.close());
  applyConnectionLimits(app.server, limits);
  watchRequestBodies(app.server, limits.requestTimeoutMs, closer);
  installBodyParsers(app, bodyLimit);

  // Successful answers of API routes get the CORS header in routing.ts's send(); errors of API
  // routes get it here, except a route that ends up in Akka's catch-all 404.
  const sendRouteError = (request: FastifyRequest, reply: FastifyReply, error: WeError | OtherShapeReply): FastifyReply => {
    const catchAll404 = error instanceof PlainTextReply && error.text === NOT_FOUND_TEXT;
    if (routeOf(request) !== undefined && !catchAll404) setCorsHeaders(settings, request.headers, reply);
    return sendError(request, reply, error);
  };
  app.setErrorHandler((error: FastifyError | WeError | OtherShapeReply, request, reply) => {
    if (error instanceof WeError || error instanceof OtherShapeReply) return sendRouteError(request, reply, error);
    const mapped = fromFastifyError(error, request, bodyLimit);
    if (mapped !== undefined) return sendRouteError(request, reply, mapped);
    request.log.error({ err: error, url: request.url, method: request.method }, 'Unexpected error while serving a request');
    return sendRouteError(request, reply, unknownError());
  });

  app.setNotFoundHandler((request, reply) => {
    const prefix = prefixAuthOf(groups, request.url);
    if (prefix !== undefined) {
      try {
        auth.authorize(prefix.level, request.headers);
      } catch (e) {
        if (!(e instanceof WeError)) throw e;
        setCorsHeaders(settings, request.headers, reply);
        return sendError(request, reply, e);
      }
    }
    if (request.method === 'OPTIONS') {
      reply.headers(PREFLIGHT_HEADERS);
      setCorsHeaders(settings, request.headers, reply);
      return reply.code(200).type(TEXT_CONTENT_TYPE).send('');
    }
    return reply.code(404).type(TEXT_CONTENT_TYPE).send(NOT_FOUND_TEXT);
  });

  registerRoutes(app, groups, ctx, auth, multipartParser(bodyLimit));
  registerExplorer(app);

  // Documentation: the generated document, Swagger UI, WE's redirects.
  const document = openApiDocument(groups, auth, { title: 'Weft node REST API', version: options.version ?? '1.14-compatible' });
  void app.register(fastifySwagger, { mode: 'static', specification: { document: document as never } });
  void app.register(fastifySwaggerUi, { routePrefix: '/api-docs' });
  const sendDocument = (_request: FastifyRequest, reply: FastifyReply) => reply.type(JSON_CONTENT_TYPE).send(JSON.stringify(document));
  app.get('/api-docs/openapi.json', sendDocument);
  app.get('/api-docs/open-api.json', sendDocument);
  for (const url of ['/', '/swagger', '/api-docs/index.html']) app.get(url, (_request, reply) => reply.redirect(DOCS_PATH, 308));
  return app;
}

/** Starts serving on the configured address; resolves to the listening URL. */
export async function listen(app: FastifyInstance, settings: Pick<ApiSettings, 'bindAddress' | 'port'>): Promise<string> {
  return app.listen({ host: settings.bindAddress, port: settings.port });
}
