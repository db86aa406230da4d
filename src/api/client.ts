/**
 * A typed client generated from the route tables, driving a server in-process with
 * Fastify's `inject` (tests) — routes are named `'<METHOD> <path template>'`, path
 * parameters are checked against the template, bodies are written with the int64-exact
 * JSON writer and answers read with the int64-exact parser.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { parseJson, stringifyJson } from '../protocol/json.js';
import type { AnyRoute, RouteGroup } from './routing.js';

type RoutesOf<G extends readonly RouteGroup[]> = G[number]['routes'][number];

export type RouteId<R> = R extends { readonly method: infer M extends string; readonly path: infer P extends string } ? `${M} ${P}` : never;

type RouteById<G extends readonly RouteGroup[], K> = Extract<
  RoutesOf<G>,
  { readonly method: K extends `${infer M} ${string}` ? M : never; readonly path: K extends `${string} ${infer P}` ? P : never }
>;

type PathParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}` ? N | PathParamNames<Rest> : never;

type OkBody<R> = R extends { readonly responses: infer Rs }
  ? Rs extends { readonly 200: infer S }
    ? S extends TSchema
      ? Static<S>
      : unknown
    : unknown
  : unknown;

export interface CallOptions<Path extends string> {
  readonly params?: Readonly<Record<PathParamNames<Path>, string | number>>;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  /** A JSON body (int64 as bigint), sent as `application/json`. */
  readonly body?: unknown;
  /** A raw body, sent as is (with `contentType` if given). */
  readonly rawBody?: string | Buffer;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ClientResponse<B = unknown> {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | number | undefined>>;
  readonly text: string;
  /** The body parsed with the int64-exact parser (throws if it is not JSON). */
  readonly body: B;
}

function toResponse<B>(res: { statusCode: number; headers: Record<string, string | string[] | number | undefined>; body: string }): ClientResponse<B> {
  let parsed: { value: unknown } | undefined;
  return {
    status: res.statusCode,
    headers: res.headers,
    text: res.body,
    get body(): B {
      parsed ??= { value: parseJson(res.body) };
      return parsed.value as B;
    },
  };
}

export class ApiClient<G extends readonly RouteGroup[]> {
  private readonly routes = new Map<string, AnyRoute>();

  constructor(
    private readonly app: FastifyInstance,
    groups: G,
  ) {
    for (const g of groups) for (const r of g.routes) this.routes.set(`${r.method} ${r.path}`, r);
  }

  /** Calls a declared route. */
  async call<K extends RouteId<RoutesOf<G>>>(id: K, options: CallOptions<RouteById<G, K>['path']> = {}): Promise<ClientResponse<OkBody<RouteById<G, K>>>> {
    const r = this.routes.get(id);
    if (r === undefined) throw new Error(`No route ${id}`);
    const params = (options.params ?? {}) as Record<string, string | number>;
    const url = r.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
      const v = params[name];
      if (v === undefined) throw new Error(`Route ${id}: parameter ${name} is missing`);
      return encodeURIComponent(String(v));
    });
    return this.request({
      method: r.method,
      url,
      query: options.query,
      body: options.body,
      rawBody: options.rawBody,
      contentType: options.contentType,
      headers: options.headers,
    });
  }

  /** Any request (unknown paths, other methods, raw bodies). */
  async request<B = unknown>(options: {
    method: InjectOptions['method'];
    url: string;
    query?: Readonly<Record<string, string | number | undefined>>;
    body?: unknown;
    rawBody?: string | Buffer;
    contentType?: string;
    headers?: Readonly<Record<string, string>>;
  }): Promise<ClientResponse<B>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    let payload: string | Buffer | undefined;
    if (options.body !== undefined) {
      payload = stringifyJson(options.body);
      headers['content-type'] ??= options.contentType ?? 'application/json';
    } else if (options.rawBody !== undefined) {
      payload = options.rawBody;
      if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    }
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query[k] = String(v);
    const res = await this.app.inject({ method: options.method, url: options.url, query, headers, ...(payload !== undefined ? { payload } : {}) });
    return toResponse<B>(res);
  }
}

/** The typed client of a server built from these groups. */
export function apiClient<const G extends readonly RouteGroup[]>(app: FastifyInstance, groups: G): ApiClient<G> {
  return new ApiClient(app, groups);
}
