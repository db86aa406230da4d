/**
 * The route-table DSL. Each route group declares its routes once — method, path, auth
 * level, parameters, body and response schemas, handler — and from that one table come
 * the Fastify routes (here), the OpenAPI document (openapi.ts) and the typed test client
 * (client.ts), so server, spec and tests cannot drift apart. A new group is added
 * by writing one module under routes/ and listing it in routes/index.ts.
 *
 * What a route's handler sees is already WE-validated: path and query parameters by
 * their ParamSpecs (WE's ValidInt wording, 101 for ids, 102 for addresses), the body by
 * its BodySpec (Play's WrongJson paths). A handler returns the answer's JSON value (or a
 * `Reply` for another status) and throws WeErrors or the catalogue's other-shape replies;
 * it never builds an error body.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { JsonObject } from '../protocol/json.js';
import type { Authenticator, AuthLevel } from './auth.js';
import { readBody } from './body.js';
import { BAD_REQUEST_TEXT, NOT_FOUND_TEXT, PlainTextReply } from './errors.js';
import { JSON_CONTENT_TYPE, JsonEntity, jsonText, RawEntity, wantsInt64AsString } from './json-io.js';
import { validIntError, ValidIntProblem, type ParamSpec, type QuerySpec } from './params.js';
import { setCorsHeaders } from './cors.js';
import type { ApiServices, ApiSettings } from './services.js';
import type { TransactionTimestamps } from './timestamps.js';
import type { HeavyReads } from './heavy-reads.js';
import type { ScriptCompilerPool } from '../ride/script-compiler-pool.js';
import { bodyIsNotObject, customValidationError, unavailableInPkiMode } from '../errors/catalogue.js';

export type { AuthLevel } from './auth.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What handlers get besides the request. */
export interface ApiContext {
  readonly services: ApiServices;
  readonly timestamps: TransactionTimestamps;
  /** Serialized block answers per Block instance (see tx-json.ts serializedBlockJson). */
  readonly blockJsonCache: WeakMap<object, Map<string, SerializedJson>>;
  /** Block ranges and full blocks: built a few at a time, in slices, within a byte budget. */
  readonly heavyReads: HeavyReads;
  /** Scripts sent to `/utils/script/*`: compiled and estimated on threads, within limits. */
  readonly scriptCompiler: ScriptCompilerPool;
}

export interface ResponseDoc {
  readonly description: string;
  readonly schema?: TSchema;
  /** Default `application/json`. */
  readonly contentType?: 'application/json' | 'text/plain' | 'application/octet-stream';
}

/** A documented answer: a schema (described by its own description) or a full description. */
export type ResponseSpec = TSchema | ResponseDoc;

export type BodyReading = 'schema' | 'object' | 'text' | 'multipart';

export interface BodySpec<S extends TSchema = TSchema, R extends BodyReading = BodyReading> {
  readonly schema: S;
  /**
   * `schema`: read against the schema as Play would (all problems → error 1);
   * `object`: any JSON object (else error 1 at `obj`), read by the handler;
   * `text`: the raw body as UTF-8 text, whatever its content type (Akka's `entity(as[String])`;
   * no body reads as ''), documented as `text/plain`;
   * `multipart`: a `multipart/form-data` body the handler streams part by part (nothing is
   * buffered by the router; `schema` documents the parts). Another content type is 415 with
   * error 199 naming the form the route takes (WE's Akka rejects it as 404, an unknown URL).
   */
  readonly read: R;
  readonly description?: string;
  /**
   * WE's answer when no JSON entity arrives (absent or empty body, another content type):
   * the route rejects and Akka's catch-all answers 404 — or, for routes that end in
   * `complete(BadRequest)`, a bare 400.
   */
  readonly whenAbsent?: 'not-found' | 'bad-request';
}

export type ParamSpecs = Readonly<Record<string, ParamSpec>>;
export type Responses = Readonly<Record<number, ResponseSpec>>;
export type QuerySpecs = Readonly<Record<string, QuerySpec>>;

type ParamValues<P> = { readonly [K in keyof P]: P[K] extends ParamSpec<infer T> ? T : never };
type QueryValues<Q> = {
  readonly [K in keyof Q]: Q[K] extends QuerySpec<infer T> ? (Q[K] extends { readonly required: true } ? T : T | undefined) : never;
};
/** One part of a multipart body, as the handler streams it. */
export interface MultipartPart {
  /** The part's name (`Content-Disposition: form-data; name=…`). */
  readonly name: string;
  /** The part's bytes; read it to the end (or destroy it) before asking for the next part. */
  readonly stream: Readable;
}

/** A multipart body: its parts in order. Iterating fails with a WeError when the body is malformed. */
export type MultipartParts = AsyncIterable<MultipartPart>;

type BodyValue<B> =
  B extends BodySpec<infer S, infer R>
    ? R extends 'schema'
      ? Static<S>
      : R extends 'text'
        ? string
        : R extends 'multipart'
          ? MultipartParts
          : JsonObject
    : undefined;

export interface RouteInput<P, Q, B> {
  readonly params: ParamValues<P>;
  readonly query: QueryValues<Q>;
  readonly body: BodyValue<B>;
  readonly headers: IncomingHttpHeaders;
  readonly log: FastifyBaseLogger;
}

/** A success answer other than 200 JSON. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly contentType: 'json' | 'text' = 'json',
    /** The Content-Type of a text answer (default `text/plain; charset=UTF-8`). */
    readonly textMediaType?: string,
  ) {}
}

/** A 200 answer of known length: streamed from its source (e.g. a stored file), or a buffer when the bytes are at hand whole. */
export class StreamReply {
  constructor(
    readonly contentType: string,
    readonly length: number,
    readonly body: Readable | Buffer,
  ) {}
}

/**
 * A 200 JSON answer already serialized, in both int64 renderings (bare numbers, and
 * strings for `large-significand-format=string`): for answers served many times over.
 */
export class SerializedJson {
  constructor(
    readonly text: string,
    readonly textInt64AsString: () => string,
  ) {}
}

export interface RouteSpec<
  M extends HttpMethod = HttpMethod,
  Path extends string = string,
  P extends ParamSpecs = ParamSpecs,
  Q extends QuerySpecs = QuerySpecs,
  B extends BodySpec | undefined = BodySpec | undefined,
  Rs extends Responses = Responses,
> {
  readonly method: M;
  /** OpenAPI-style template: `/blocks/at/{height}`. */
  readonly path: Path;
  readonly auth: AuthLevel;
  readonly summary: string;
  readonly description?: string;
  /** Parameters in path order; parsed in declaration order. */
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  /** Answers by status; the 200 schema types the client's body. */
  readonly responses: Rs;
  /** Also served with a trailing slash (Akka's pathEndOrSingleSlash). */
  readonly trailingSlash?: boolean;
  /** Served but left out of the OpenAPI document (WE's lenient alternative paths). */
  readonly hidden?: boolean;
  /** Checked before authentication and before the body is read (WE's nonWatcherFilter sits there). */
  readonly guard?: (ctx: ApiContext) => void;
  /** Checked after authentication, before the body is read (WE's directives that follow the auth one). */
  readonly afterAuth?: (ctx: ApiContext) => void;
  /** This route's request size limit in bytes, when it is not the server's (WE's `withSizeLimit`). */
  readonly bodyLimit?: number;
  /**
   * Rule PKI-1: one of the methods WE makes unavailable while `node.crypto.pki.mode = ON`
   * (its `addedGuard`, after authentication): the route then answers `unavailableInPkiMode`.
   */
  readonly unavailableInPkiMode?: boolean;
  handler(input: RouteInput<P, Q, B>, ctx: ApiContext): unknown;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteSpec<HttpMethod, string, any, any, any, Responses>;

/** Declares one route (keeps its literal method and path for the typed client). */
export function route<
  const M extends HttpMethod,
  const Path extends string,
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  P extends ParamSpecs = {},
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  Q extends QuerySpecs = {},
  const B extends BodySpec | undefined = undefined,
  const Rs extends Responses = Responses,
>(spec: RouteSpec<M, Path, P, Q, B, Rs>): RouteSpec<M, Path, P, Q, B, Rs> {
  const names = pathParamNames(spec.path);
  const declared = Object.keys(spec.params ?? {});
  if (names.join('/') !== declared.join('/')) {
    throw new Error(`Route ${spec.method} ${spec.path}: path parameters [${names.join(', ')}] differ from declared [${declared.join(', ')}]`);
  }
  return spec;
}

export interface RouteGroup<R extends readonly AnyRoute[] = readonly AnyRoute[]> {
  /** Tag in the OpenAPI document. */
  readonly name: string;
  readonly description: string;
  /**
   * A path prefix WE wraps in an auth directive before matching its routes: a request
   * under it that no route takes is refused for credentials first (e.g. any unknown
   * `/debug/...` without the admin key is a 403, not a 404).
   */
  readonly prefixAuth?: { readonly prefix: string; readonly level: AuthLevel };
  readonly routes: R;
}

export function defineRoutes<const R extends readonly AnyRoute[]>(group: Omit<RouteGroup<R>, 'routes'>, routes: R): RouteGroup<R> {
  const seen = new Set<string>();
  for (const r of routes) {
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) throw new Error(`Route ${key} is declared twice in group ${group.name}`);
    seen.add(key);
  }
  return { ...group, routes };
}

/** `{height}` names of a path template, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

/** Fastify URLs of a route (`{x}` → `:x`, plus the trailing-slash form if any). */
export function fastifyUrls(r: AnyRoute): string[] {
  const url = r.path.replace(/\{([^}]+)\}/g, ':$1');
  return r.trailingSlash === true ? [url, `${url}/`] : [url];
}

declare module 'fastify' {
  /** Per-route Fastify config: marks API routes (CORS) and carries the spec. */
  interface FastifyContextConfig {
    readonly weftRoute?: AnyRoute;
  }
}

export function routeOf(request: FastifyRequest): AnyRoute | undefined {
  return request.routeOptions.config.weftRoute;
}

/** The reply for a route whose JSON body did not arrive. */
export function bodyAbsentReply(r: AnyRoute | undefined): PlainTextReply {
  return (r === undefined ? undefined : bodyOf(r))?.whenAbsent === 'bad-request'
    ? new PlainTextReply(400, BAD_REQUEST_TEXT)
    : new PlainTextReply(404, NOT_FOUND_TEXT);
}

/** A route's parameter or query specs by name, listed once when the route is registered. */
type SpecList<S> = ReadonlyArray<readonly [string, S]>;

function readParams(specs: SpecList<ParamSpec>, raw: Record<string, string | undefined>, ctx: ApiContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  let validIntCount = 0;
  let firstProblemField: string | undefined;
  for (const [name, spec] of specs) {
    if (spec.validInt === true) validIntCount++;
    const text = raw[name] ?? '';
    // Akka's Segment matcher never takes an empty segment: the route does not match.
    if (text === '') throw new PlainTextReply(404, NOT_FOUND_TEXT);
    try {
      out[name] = spec.parse(text, name, ctx.services);
    } catch (e) {
      if (!(e instanceof ValidIntProblem)) throw e;
      problems.push(e.problem);
      firstProblemField ??= name;
    }
  }
  if (problems.length > 0) throw validIntError(problems, validIntCount, firstProblemField);
  return out;
}

function readQuery(specs: SpecList<QuerySpec>, raw: unknown, ctx: ApiContext): Record<string, unknown> {
  const values = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, string | string[] | undefined>;
  const out: Record<string, unknown> = {};
  for (const [name, spec] of specs) {
    const v = values[name];
    const text = Array.isArray(v) ? v[0] : v;
    if (text === undefined) {
      if (spec.required === true) throw new PlainTextReply(404, NOT_FOUND_TEXT);
      out[name] = undefined;
    } else {
      out[name] = spec.parse(text, name, ctx.services);
    }
  }
  return out;
}

/** The body spec of a route. */
export function bodyOf(r: AnyRoute): BodySpec | undefined {
  return r.body as BodySpec | undefined;
}

/**
 * The server's multipart parser: `install` sets it up on the scope that holds the multipart
 * routes (only there: its hooks then cost no other route anything), and `read` gives the
 * parts of such a request, or undefined when the request is not `multipart/form-data`.
 */
export interface MultipartParser {
  install(scope: FastifyInstance): void;
  read(request: FastifyRequest, route: AnyRoute): MultipartParts | undefined;
}

function readRequestBody(r: AnyRoute, request: FastifyRequest, multipart: MultipartParser | undefined): unknown {
  const spec = bodyOf(r);
  if (spec === undefined) return undefined;
  const body: unknown = request.body;
  if (spec.read === 'multipart') {
    const parts = multipart?.read(request, r);
    if (parts === undefined) {
      // WE's Akka answers 404 here, which reads as a wrong URL; the route exists and wants another body.
      const type = request.headers['content-type'];
      throw customValidationError(
        `${r.path} takes a multipart/form-data body${spec.description !== undefined ? ` (${spec.description})` : ''}; this request's Content-Type is ${type === undefined ? 'absent' : `'${type}'`}`,
        'body',
        415,
      );
    }
    return parts;
  }
  if (spec.read === 'text') return body instanceof JsonEntity ? body.text : body instanceof RawEntity ? body.text() : '';
  if (!(body instanceof JsonEntity)) throw bodyAbsentReply(r);
  const value = body.parse();
  if (spec.read === 'schema') return readBody(spec.schema, value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bodyIsNotObject();
  return value;
}

function send(request: FastifyRequest, reply: FastifyReply, result: unknown, settings: ApiSettings): FastifyReply {
  if (!(result instanceof Reply && result.contentType === 'text' && result.body === NOT_FOUND_TEXT)) setCorsHeaders(settings, request.headers, reply);
  if (result instanceof StreamReply) {
    return reply.code(200).type(result.contentType).header('content-length', String(result.length)).send(result.body);
  }
  if (result instanceof SerializedJson) {
    return reply
      .code(200)
      .type(JSON_CONTENT_TYPE)
      .send(wantsInt64AsString(request.headers.accept) ? result.textInt64AsString() : result.text);
  }
  if (result instanceof Reply) {
    if (result.contentType === 'text')
      return reply
        .code(result.status)
        .type(result.textMediaType ?? 'text/plain; charset=UTF-8')
        .send(String(result.body));
    return reply.code(result.status).type(JSON_CONTENT_TYPE).send(jsonText(result.body, request.headers.accept));
  }
  return reply.code(200).type(JSON_CONTENT_TYPE).send(jsonText(result, request.headers.accept));
}

/**
 * Registers every route of the groups on the Fastify instance. Routes that read a multipart
 * body are registered in a scope of their own with the multipart parser (`multipart`); the
 * others never see it — a `multipart/form-data` body sent to them is read as any other
 * content type is.
 */
export function registerRoutes(app: FastifyInstance, groups: readonly RouteGroup[], ctx: ApiContext, auth: Authenticator, multipart?: MultipartParser): void {
  const routes = groups.flatMap((g) => g.routes);
  const isMultipart = (r: AnyRoute): boolean => bodyOf(r)?.read === 'multipart';
  addRoutes(
    app,
    routes.filter((r) => !isMultipart(r)),
    ctx,
    auth,
    multipart,
  );
  const multipartRoutes = routes.filter(isMultipart);
  if (multipartRoutes.length === 0) return;
  // An encapsulated scope: the parser's hooks and content-type parser stay inside it.
  void app.register((scope, _options, done) => {
    multipart?.install(scope);
    addRoutes(scope, multipartRoutes, ctx, auth, multipart);
    done();
  });
}

function addRoutes(app: FastifyInstance, routes: readonly AnyRoute[], ctx: ApiContext, auth: Authenticator, multipart: MultipartParser | undefined): void {
  const settings = ctx.services.settings;
  for (const r of routes) {
    const config = { weftRoute: r };
    const paramSpecs = Object.entries((r.params ?? {}) as ParamSpecs);
    const querySpecs = Object.entries((r.query ?? {}) as QuerySpecs);
    // Open routes with nothing to check before the handler get no hook at all (hot paths).
    const checks = r.guard !== undefined || r.afterAuth !== undefined || !auth.isOpen(r.auth) || r.unavailableInPkiMode === true;
    const onRequest = checks
      ? (request: FastifyRequest, _reply: FastifyReply, done: (e?: Error) => void): void => {
          try {
            r.guard?.(ctx);
            auth.authorize(r.auth, request.headers);
            if (r.unavailableInPkiMode === true && ctx.services.settings.pkiMode === 'ON') throw unavailableInPkiMode();
            r.afterAuth?.(ctx);
          } catch (e) {
            done(e as Error);
            return;
          }
          done();
        }
      : undefined;
    for (const url of fastifyUrls(r)) {
      const options: RouteOptions = {
        method: r.method,
        url,
        config,
        handler: (request, reply) => {
          const params = readParams(paramSpecs, request.params as Record<string, string | undefined>, ctx);
          const query = readQuery(querySpecs, request.query, ctx);
          const body = readRequestBody(r, request, multipart);
          const result: unknown = r.handler({ params, query, body, headers: request.headers, log: request.log }, ctx);
          // Synchronous handlers answer without a promise round trip.
          if (result instanceof Promise) return result.then((value: unknown) => send(request, reply, value, settings));
          return send(request, reply, result, settings);
        },
      };
      if (onRequest !== undefined) options.onRequest = onRequest;
      if (r.bodyLimit !== undefined) options.bodyLimit = r.bodyLimit;
      app.route(options);
    }
  }
}
