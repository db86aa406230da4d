/**
 * The OpenAPI 3.1 document, generated from the route tables: one operation per
 * non-hidden route, its parameters from the ParamSpecs, its body and answers from the
 * TypeBox schemas. Schemas carrying an `$id` become `components.schemas` entries and are
 * referenced, as are `Type.Ref('<id>')` references.
 */
import { Kind, type TSchema } from '@sinclair/typebox';
import type { Authenticator } from './auth.js';
import { SECURITY_SCHEMES } from './auth.js';
import { bodyOf, type AnyRoute, type BodyReading, type ResponseDoc, type ResponseSpec, type RouteGroup } from './routing.js';
import { NAMED_SCHEMAS } from './schemas.js';
import type { ParamSpec, QuerySpec } from './params.js';

type Json = Record<string, unknown>;

export interface OpenApiInfo {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
}

const METHODS = ['get', 'post', 'put', 'delete'] as const;

const REQUEST_CONTENT_TYPES: Readonly<Record<BodyReading, string>> = {
  schema: 'application/json',
  object: 'application/json',
  text: 'text/plain',
  multipart: 'multipart/form-data',
};

/** Plain JSON of a TypeBox schema (symbols dropped), with named sub-schemas moved to components. */
class SchemaRegistry {
  readonly components: Record<string, Json> = {};

  constructor(named: readonly TSchema[]) {
    for (const s of named) this.convert(s);
  }

  convert(schema: TSchema): Json {
    return this.walk(JSON.parse(JSON.stringify(schema)) as Json) as Json;
  }

  private walk(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.walk(n));
    if (typeof node !== 'object' || node === null) return node;
    const o = node as Json;
    const ref = o['$ref'];
    if (typeof ref === 'string' && !ref.startsWith('#')) {
      const { $ref: _ref, ...rest } = o;
      return { $ref: `#/components/schemas/${ref}`, ...rest };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(o)) {
      if (k === '$id') continue;
      out[k] = k === 'properties' || k === 'patternProperties' ? this.walkProperties(v) : this.walk(v);
    }
    const id = o['$id'];
    if (typeof id === 'string') {
      this.components[id] ??= out;
      return { $ref: `#/components/schemas/${id}` };
    }
    return out;
  }

  private walkProperties(props: unknown): Json {
    const out: Json = {};
    for (const [k, v] of Object.entries(props as Json)) out[k] = this.walk(v);
    return out;
  }
}

/** TypeBox schemas carry their Kind symbol; response docs do not. */
function isResponseDoc(spec: ResponseSpec): spec is ResponseDoc {
  return !(Kind in spec);
}

function responseObject(status: number, spec: ResponseSpec, registry: SchemaRegistry): Json {
  const doc: ResponseDoc = isResponseDoc(spec)
    ? spec
    : { description: (spec as { description?: string }).description ?? defaultDescription(status), schema: spec };
  const out: Json = { description: doc.description };
  const contentType = doc.contentType ?? 'application/json';
  if (doc.schema !== undefined) out['content'] = { [contentType]: { schema: registry.convert(doc.schema) } };
  else if (contentType === 'text/plain') out['content'] = { 'text/plain': { schema: { type: 'string' } } };
  else if (contentType === 'application/octet-stream') out['content'] = { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } };
  return out;
}

function defaultDescription(status: number): string {
  if (status === 200) return 'Success';
  if (status === 404) return 'Not found';
  if (status === 403) return 'Forbidden';
  return 'Error';
}

function parameter(name: string, where: 'path' | 'query', spec: ParamSpec | QuerySpec, registry: SchemaRegistry): Json {
  const required = where === 'path' || (spec as QuerySpec).required === true;
  return { name, in: where, required, ...(spec.description !== undefined ? { description: spec.description } : {}), schema: registry.convert(spec.schema) };
}

function operation(r: AnyRoute, group: RouteGroup, auth: Authenticator, registry: SchemaRegistry): Json {
  const op: Json = {
    operationId: operationId(r),
    tags: [group.name],
    summary: r.summary,
  };
  if (r.description !== undefined) op['description'] = r.description;
  const security = auth.security(r.auth);
  op['security'] = security;
  const params: Json[] = [];
  for (const [name, spec] of Object.entries((r.params ?? {}) as Record<string, ParamSpec>)) params.push(parameter(name, 'path', spec, registry));
  for (const [name, spec] of Object.entries((r.query ?? {}) as Record<string, QuerySpec>)) params.push(parameter(name, 'query', spec, registry));
  if (params.length > 0) op['parameters'] = params;
  const body = bodyOf(r);
  if (body !== undefined) {
    op['requestBody'] = {
      required: true,
      ...(body.description !== undefined ? { description: body.description } : {}),
      content: { [REQUEST_CONTENT_TYPES[body.read]]: { schema: registry.convert(body.schema) } },
    };
  }
  const responses: Json = {};
  for (const [status, spec] of Object.entries(r.responses)) responses[status] = responseObject(Number(status), spec, registry);
  // How the configured auth mode refuses this level (api-key: 403; OAuth2: 401, 400, 403).
  const refusals = auth.refusals?.(r.auth) ?? (security.length > 0 ? { 403: 'Credential missing or wrong' } : {});
  for (const [status, description] of Object.entries(refusals)) {
    responses[status] ??= { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } } };
  }
  // A multipart route refuses any other body (routing.ts, readRequestBody).
  if (body?.read === 'multipart') {
    responses['415'] ??= {
      description: '199 the body is not multipart/form-data',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } },
    };
  }
  op['responses'] = responses;
  return op;
}

/** `GET /blocks/at/{height}` → `getBlocksAtHeight`. */
export function operationId(r: AnyRoute): string {
  const words = r.path
    .split('/')
    .filter((s) => s !== '' && s !== '*')
    .map((s) => s.replace(/[{}]/g, ''))
    .flatMap((s) => s.split(/[-_]/));
  return r.method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

/** The OpenAPI document of the groups. */
export function openApiDocument(groups: readonly RouteGroup[], auth: Authenticator, info: OpenApiInfo): Json {
  const registry = new SchemaRegistry(NAMED_SCHEMAS);
  const paths: Record<string, Json> = {};
  for (const group of groups) {
    for (const r of group.routes) {
      if (r.hidden === true) continue;
      const item = (paths[r.path] ??= {});
      item[r.method.toLowerCase()] = operation(r, group, auth, registry);
    }
  }
  // Stable method order inside each path item.
  for (const [path, item] of Object.entries(paths)) {
    const sorted: Json = {};
    for (const m of METHODS) if (item[m] !== undefined) sorted[m] = item[m];
    paths[path] = sorted;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description:
        info.description ??
        'REST API of a Weft node, compatible with the Waves Enterprise 1.14 node. int64 values are bare JSON numbers; send `Accept: application/json; large-significand-format=string` to get them as strings.',
    },
    tags: groups.map((g) => ({ name: g.name, description: g.description })),
    paths,
    components: { schemas: registry.components, securitySchemes: SECURITY_SCHEMES },
  };
}
