/**
 * Malformed requests for every route of an OpenAPI document, as a
 * fast-check arbitrary — shared by the CI property (test/api/fuzz.test.ts) and the long run
 * of `npm run bench -- fuzz` (bench/fuzz.ts).
 *
 * A request picks a documented operation and spoils some of: its method (another verb, an
 * unknown one), its path parameters (random text, unicode, huge and negative numbers,
 * Java-int edge values, overlong segments, broken percent-encoding, extra segments), its
 * query, its content type, and its body (no body, random JSON, text that is not JSON,
 * objects with the documented property names and values of the wrong type or numbers far
 * beyond int64, a valid signed transaction with one field spoilt, deep nesting, a payload
 * over the 3 MiB limit). Credentials are right, wrong or absent — never right for an
 * operation that changes the chain or stops the node, so a server that handles its input
 * correctly leaves the state exactly as it was.
 */
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { MAX_BODY_BYTES } from '../../src/api/json-io.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { DEV_API_KEY, documentedOperations, routeKey, SEED_ALIAS, type DocumentedOperation, type Json, type SeededNode } from './seeded-node.js';

export interface FuzzRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly payload?: string;
  /** The documented operation it was made from. */
  readonly operation: string;
}

export interface FuzzContext {
  readonly operations: readonly DocumentedOperation[];
  /** The document, to resolve request-body schemas. */
  readonly document: Json;
  /** Valid values by parameter name (addresses, ids, heights of the seeded chain). */
  readonly validParams: Readonly<Record<string, readonly string[]>>;
  /** Valid request bodies to spoil (e.g. signed transaction JSON). */
  readonly validBodies: readonly Json[];
  readonly apiKey: string;
  /** Operations (`routeKey` form) never sent with the right key: they change the chain or stop the node. */
  readonly neverAuthorized: ReadonlySet<string>;
}

/** Operations that change state or stop the node when authorized. */
export const DESTRUCTIVE = new Set([
  'POST /debug/rollback',
  'DELETE /debug/rollback-to/{}',
  'POST /node/stop',
  'POST /debug/freeze',
  'POST /debug/cleanState',
  'POST /snapshot/swapState',
]);

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const;

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'application/json; charset=latin1',
  'text/plain',
  'text/plain; charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=weft',
  'application/octet-stream',
  'application/xml',
  '*/*',
  'application/',
  ';;;',
] as const;

/** One body over WE's 3 MiB limit, shared by every request that sends it. */
const OVERSIZE = `{"message":"${'w'.repeat(MAX_BODY_BYTES)}"}`;

const INT_EDGES = [
  '0',
  '-0',
  '-1',
  '1',
  '2147483647',
  '2147483648',
  '-2147483648',
  '-2147483649',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '1e3',
  '1.5',
  '0x10',
  ' 5',
  '+5',
  '05',
  'NaN',
  'Infinity',
  '١٢',
];

const RAW_SEGMENTS = ['%', '%zz', '%00', '%c3%28', '%ff', '..', '.', '%2F', ';', '~', '%2e%2e', '%20', 'null', 'undefined', 'true', '[]', '{}'];

const hugeDigits = fc.tuple(fc.boolean(), fc.integer({ min: 20, max: 400 }), fc.nat()).map(([neg, n, seed]) => {
  let s = String(1 + (seed % 9));
  while (s.length < n) s += String((seed * 7 + s.length * 13) % 10);
  return (neg ? '-' : '') + s;
});

const unicode = fc.string({ unit: 'binary', maxLength: 40 });
const grapheme = fc.string({ unit: 'grapheme', maxLength: 40 });

/** Text for a path segment: what a client might wrongly put there. */
function segmentArb(valid: readonly string[]): fc.Arbitrary<string> {
  const encoded = fc.oneof(
    { arbitrary: fc.string({ maxLength: 30 }), weight: 3 },
    { arbitrary: unicode, weight: 2 },
    { arbitrary: grapheme, weight: 1 },
    { arbitrary: fc.constantFrom(...INT_EDGES), weight: 3 },
    { arbitrary: hugeDigits, weight: 2 },
    { arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String), weight: 2 },
    { arbitrary: fc.integer({ min: 1, max: 6000 }).map((n) => 'A'.repeat(n)), weight: 1 },
    { arbitrary: fc.integer({ min: 1, max: 3000 }).map((n) => '1'.repeat(n)), weight: 1 },
    { arbitrary: fc.constant(''), weight: 1 },
  );
  const arbs: Array<fc.WeightedArbitrary<string>> = [
    { arbitrary: encoded.map((t) => encodeURIComponent(t)), weight: 8 },
    { arbitrary: fc.constantFrom(...RAW_SEGMENTS), weight: 2 },
  ];
  if (valid.length > 0) {
    arbs.push({ arbitrary: fc.constantFrom(...valid).map((t) => encodeURIComponent(t)), weight: 4 });
    // A valid value, slightly spoilt.
    arbs.push({
      arbitrary: fc.tuple(fc.constantFrom(...valid), fc.nat(), fc.constantFrom('0', 'l', 'I', 'O', '', 'zz')).map(([v, i, c]) => {
        const at = v.length === 0 ? 0 : i % v.length;
        return encodeURIComponent(v.slice(0, at) + c + v.slice(at + 1));
      }),
      weight: 2,
    });
  }
  return fc.oneof(...arbs);
}

/** A JSON value as text, often of a type no route expects. */
const valueText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null'), weight: 4 },
  { arbitrary: hugeDigits, weight: 3 },
  { arbitrary: fc.constantFrom(...INT_EDGES.filter((e) => /^-?[0-9]+$/.test(e))), weight: 3 },
  {
    arbitrary: fc.constantFrom(
      '1e400',
      '-1e400',
      '1.0',
      '0.1',
      '-0',
      '1E2',
      '123456789012345678901234567890.5',
      'true',
      'false',
      'null',
      '""',
      '[]',
      '{}',
      '[null]',
    ),
    weight: 3,
  },
  { arbitrary: unicode.map((t) => JSON.stringify(t)), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 200_000 }).map((n) => JSON.stringify('x'.repeat(n))), weight: 1 },
);

function deepText(n: number, kind: number): string {
  if (kind === 0) return '['.repeat(n) + ']'.repeat(n);
  if (kind === 1) return '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  return '['.repeat(n);
}

/** Property names of a documented JSON request body (resolving `$ref`s into components). */
function bodyProperties(op: Json, doc: Json): string[] {
  const content = (op['requestBody'] as { content?: Record<string, { schema?: Json }> } | undefined)?.content;
  const schema = content?.['application/json']?.schema;
  const components = ((doc['components'] as Json | undefined)?.['schemas'] ?? {}) as Record<string, Json>;
  const names = new Set<string>();
  const visit = (sch: Json | undefined, depth: number): void => {
    if (sch === undefined || depth > 4) return;
    const ref = sch['$ref'];
    if (typeof ref === 'string') {
      visit(components[ref.replace('#/components/schemas/', '')], depth + 1);
      return;
    }
    for (const k of Object.keys(sch['properties'] ?? {})) names.add(k);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) for (const s of (sch[key] ?? []) as Json[]) visit(s, depth + 1);
  };
  visit(schema, 0);
  return [...names];
}

function bodyArb(op: DocumentedOperation, ctx: FuzzContext): fc.Arbitrary<string | undefined> {
  const props = bodyProperties(op.operation, ctx.document);
  const knownKeys = [
    'type',
    'version',
    'sender',
    'senderPublicKey',
    'fee',
    'timestamp',
    'amount',
    'recipient',
    'proofs',
    'addresses',
    'message',
    'password',
    ...props,
  ];
  const shaped = fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...knownKeys), fc.string({ maxLength: 10 })), valueText), { maxLength: 12 })
    .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
  const arbs: Array<fc.WeightedArbitrary<string | undefined>> = [
    { arbitrary: fc.constant(undefined), weight: op.method === 'GET' ? 12 : 2 },
    { arbitrary: fc.json({ maxDepth: 4 }), weight: 3 },
    { arbitrary: shaped, weight: 6 },
    { arbitrary: valueText, weight: 2 },
    { arbitrary: fc.string({ maxLength: 60 }), weight: 2 },
    { arbitrary: unicode, weight: 1 },
    { arbitrary: fc.tuple(fc.constantFrom(100, 1000, 10_000, 200_000), fc.integer({ min: 0, max: 2 })).map(([n, k]) => deepText(n, k)), weight: 1 },
    { arbitrary: fc.constant(OVERSIZE), weight: 1 },
  ];
  if (ctx.validBodies.length > 0) {
    const spoilt = fc.tuple(fc.constantFrom(...ctx.validBodies), fc.nat(), fc.oneof(valueText, fc.constant(undefined))).map(([body, i, v]) => {
      const keys = Object.keys(body);
      const key = keys[i % keys.length]!;
      const parts = keys.filter((k) => k !== key || v !== undefined).map((k) => `${JSON.stringify(k)}:${k === key ? v! : stringifyValue(body[k])}`);
      return `{${parts.join(',')}}`;
    });
    arbs.push({ arbitrary: spoilt, weight: 6 });
  }
  return fc.oneof(...arbs);
}

/** JSON text of a parsed value, bigints as bare numbers. */
function stringifyValue(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `__big__${x}` : x)).replace(/"__big__(-?[0-9]+)"/g, '$1');
}

/** `arb` with probability `p`, else null. */
function sometimes<T>(arb: fc.Arbitrary<T>, p: number): fc.Arbitrary<T | null> {
  const w = Math.round(p * 100);
  return fc.oneof({ arbitrary: fc.constant(null), weight: 100 - w }, { arbitrary: arb, weight: w });
}

function operationArb(op: DocumentedOperation, ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const key = routeKey(op.method, op.path);
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const segments: fc.Arbitrary<string[]> = fc.tuple<string[]>(...names.map((n) => segmentArb(ctx.validParams[n] ?? [])));
  const queryNames = ((op.operation['parameters'] ?? []) as Array<{ name: string; in: string }>).filter((p) => p.in === 'query').map((p) => p.name);
  const query = sometimes(
    fc.array(
      fc.tuple(
        queryNames.length > 0 ? fc.oneof(fc.constantFrom(...queryNames), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 }),
        segmentArb(ctx.validParams[queryNames[0] ?? ''] ?? []),
      ),
      { maxLength: 4 },
    ),
    queryNames.length > 0 ? 0.5 : 0.2,
  );
  const extra = sometimes(fc.array(segmentArb([]), { minLength: 1, maxLength: 3 }), 0.1);
  const method = fc.oneof(
    { arbitrary: fc.constant(op.method), weight: 16 },
    { arbitrary: fc.constantFrom(...METHODS), weight: 2 },
    { arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'SEARCH'), weight: 1 },
  );
  const contentType = sometimes(
    fc.oneof(
      { arbitrary: fc.constant('application/json'), weight: 12 },
      { arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 8 },
      { arbitrary: fc.string({ maxLength: 20 }).filter((t) => /^[\x21-\x7e ]*$/.test(t)), weight: 1 },
    ),
    0.85,
  );
  const apiKey = ctx.neverAuthorized.has(key)
    ? sometimes(fc.constantFrom('wrong key', '', `${ctx.apiKey} `, ctx.apiKey.toUpperCase()), 0.5)
    : sometimes(fc.constantFrom(ctx.apiKey, ctx.apiKey, ctx.apiKey, 'wrong key', ''), 0.7);
  const accept = sometimes(fc.constantFrom('application/json; large-significand-format=string', 'text/html', '*/*', 'application/json;q=0'), 0.15);
  const authorization = sometimes(fc.constantFrom('Bearer x.y.z', 'Bearer', 'Basic dXNlcjpwYXNz', 'Bearer eyJhbGciOiJub25lIn0.e30.'), 0.1);
  return fc.record({ method, segments, query, extra, contentType, body: bodyArb(op, ctx), apiKey, accept, authorization }).map((r) => {
    let i = 0;
    let url = op.path.replace(/\{[^}]+\}/g, () => r.segments[i++] ?? '');
    if (r.extra !== null) url += `/${r.extra.join('/')}`;
    if (r.query !== null && r.query.length > 0) url += `?${r.query.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&')}`;
    const headers: Record<string, string> = {};
    if (r.contentType !== null) headers['content-type'] = r.contentType;
    if (r.apiKey !== null) headers['x-api-key'] = r.apiKey;
    if (r.accept !== null) headers['accept'] = r.accept;
    if (r.authorization !== null) headers['authorization'] = r.authorization;
    return { method: r.method, url, headers, ...(r.body !== undefined ? { payload: r.body } : {}), operation: key };
  });
}

/** Requests for every operation of the document, and now and then a path no route has. */
export function fuzzRequests(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const perOperation = ctx.operations.map((op) => operationArb(op, ctx));
  const stray = fc
    .record({ path: fc.webPath(), method: fc.constantFrom(...METHODS), body: sometimes(fc.json({ maxDepth: 2 }), 0.5) })
    .map((r): FuzzRequest => ({
      method: r.method,
      url: r.path === '' ? '/' : r.path.startsWith('/') ? r.path : `/${r.path}`,
      headers: { 'content-type': 'application/json' },
      ...(r.body !== null ? { payload: r.body } : {}),
      operation: 'stray path',
    }));
  return fc.oneof({ arbitrary: fc.oneof(...perOperation), weight: 20 }, { arbitrary: stray, weight: 1 });
}

export interface Sent {
  readonly status: number;
  readonly body: string;
}

/** Sends one request in process. */
export async function send(app: FastifyInstance, r: FuzzRequest): Promise<Sent> {
  const res = await app.inject({ method: r.method as 'GET', url: r.url, headers: r.headers, ...(r.payload !== undefined ? { payload: r.payload } : {}) });
  return { status: res.statusCode, body: res.body };
}

/** A request, short enough for a failure message. */
export function describeRequest(r: FuzzRequest): string {
  const body = r.payload === undefined ? '' : ` body(${r.payload.length}): ${r.payload.slice(0, 200)}${r.payload.length > 200 ? '…' : ''}`;
  const url = r.url.length > 300 ? `${r.url.slice(0, 300)}…(${r.url.length})` : r.url;
  return `${r.method} ${url} [${r.operation}] headers ${JSON.stringify(r.headers)}${body}`;
}

/** Valid values of the seeded chain by parameter name, and valid bodies to spoil. */
export function fuzzContext(s: SeededNode, doc: Record<string, unknown>): FuzzContext {
  const chain = s.node.chain;
  const heights = Array.from({ length: chain.height() }, (_, i) => String(i + 1));
  const blockIds = Array.from({ length: chain.height() }, (_, i) => encodeBase58(chain.blockAt(i + 1)!.id));
  const addresses = s.accounts.map((a) => a.address);
  const txIds = s.seed.confirmed.map((t) => t.idBase58).slice(0, 6);
  const [, a1, a2] = s.accounts;
  return {
    operations: documentedOperations(doc),
    document: doc,
    validParams: {
      address: addresses,
      addressOrAlias: [...addresses, `alias:T:${SEED_ALIAS}`],
      alias: [SEED_ALIAS],
      assetId: [s.seed.assetId],
      signature: blockIds,
      id: txIds,
      height: heights,
      from: heights,
      to: heights,
      limit: ['1', '10', '999', '1000', '10000'],
      howMany: ['1', '5'],
      key: Object.values(s.seed.dataKeys),
      publicKey: s.accounts.map((a) => encodeBase58(a.keyPair.publicKey)),
      timestamp: [String(s.now())],
      confirmations: ['0', '1', '3'],
      service: ['docker', 'privacy-storage', 'anchoring-auth'],
    },
    validBodies: [
      s.seed.massTransfer.toJson(),
      s.sign(a1!, { type: 4, version: 3, recipient: a2!.address, amount: 5n, fee: 1_000_000n, attachment: '' }).toJson(),
      { type: 4, version: 3, sender: a1!.address, password: 'weft-dev-1', recipient: a2!.address, amount: 6n, fee: 1_000_000n, attachment: '' },
      { addresses, timestamp: s.now() },
      { message: 'fuzz', password: 'weft-dev-1' },
    ],
    apiKey: DEV_API_KEY,
    neverAuthorized: DESTRUCTIVE,
  };
}

/** What a fuzz run must leave as it found it: the store's state hash, the height, and the last (liquid) block's id. */
export interface ChainMark {
  readonly stateHash: string;
  readonly height: number;
  readonly lastBlock: string;
}

export function chainMark(s: SeededNode): ChainMark {
  return { stateHash: s.node.store.stateHash(), height: s.node.chain.height(), lastBlock: encodeBase58(s.node.chain.lastBlock().id) };
}
