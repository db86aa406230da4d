/**
 * `/privacy/*` (WE's PrivacyApiRoute) over the node's confidential-data service
 * (src/privacy/service.ts): a policy's members, hashes and 114 ids; the items themselves;
 * and sending data in three ways.
 *
 * Checks before the body is read, in WE's order per route: authentication (privacy API
 * key or OAuth role `privacy` where WE asks for it; WE's contract-token alternative comes
 * with contracts) → for the send routes the watcher refusal (638) and "storage switched
 * off" (613) → for the large-item routes the feature-180 gate (648). Size limits: 28 MiB
 * for sendData and sendDataV2, 5 GiB for sendLargeData (611); the data of sendData and
 * sendDataV2 is held to what one P2P message carries to other nodes (607, the service's).
 *
 * - `sendData`: JSON with `data` in Base64.
 * - `sendDataV2`: multipart, parts `request` (the JSON without `data`) and `data` (raw
 *   bytes), any order, names compared case-insensitively; `certificates` is ignored as
 *   WE ignores it. WE answers a missing or unknown part with a bare 500; Weft with a 199
 *   that names the problem.
 * - `sendLargeData`: multipart, `request` first (read within
 *   `privacy.service.meta-data-accumulation-timeout`), then `data`, streamed into the
 *   storage; later parts are ignored. WE's texts for parts out of order (199).
 *
 * The `request` JSON is read as WE reads it: its `version` first (a bad one is 1, an
 * unknown one or V1/V2 with `broadcast=false` 199), then the other fields (error 1 for a
 * missing one or a wrong JSON type; beyond WE, sendLargeData reports these as error 1 too
 * instead of "Unexpected error: …").
 */
import type { Readable } from 'node:stream';
import { Type, type TSchema } from '@sinclair/typebox';
import { encodeBase64 } from '../../crypto/encoding.js';
import type { JsonObject } from '../../protocol/json.js';
import type { PrivacyApi } from '../../privacy/service.js';
import { sendDataVersion, type SendDataRequest } from '../../privacy/requests.js';
import { readBody } from '../body.js';
import { JsonEntity } from '../json-io.js';
import { booleanQuery, text } from '../params.js';
import { defineRoutes, Reply, route, StreamReply, type ApiContext, type MultipartParts } from '../routing.js';
import * as S from '../schemas.js';
import type { ApiServices } from '../services.js';
import {
  bodyIsNotObject,
  customValidationError,
  illegalWatcherAction,
  privacyIsSwitchedOff,
  privacyLargeObjectFeatureIsNotActivated,
} from '../../errors/catalogue.js';

/** WE's PrivacyApiRoute.sendDataEntityMaxSize: 28 MiB. */
export const SEND_DATA_BODY_LIMIT = 28 * 1024 * 1024;
/** WE's PrivacyApiRoute.sendLargeDataEntityMaxSize: 5 GiB. */
export const SEND_LARGE_DATA_BODY_LIMIT = 5 * 1024 * 1024 * 1024;
/** How long sendDataV2 waits for its `request` part (WE: 2 s, hard-coded). */
const V2_REQUEST_PART_TIMEOUT_MS = 2000;
/** The largest `request` part read (three 32 768-character info fields and certificates fit). */
const MAX_REQUEST_PART_BYTES = 4 * 1024 * 1024;

const err = (description: string) => ({ description, schema: S.ErrorBody });

const Info = Type.Object(
  {
    filename: Type.String({ description: 'At most 32 768 characters' }),
    size: S.Int32({ description: 'As the sender gives it (not compared with the data)' }),
    timestamp: S.Int64({ description: 'As the sender gives it' }),
    author: Type.String({ description: 'At most 32 768 characters' }),
    comment: Type.String({ description: 'At most 32 768 characters' }),
  },
  { $id: 'PrivacyDataInfo' },
);

const nullableString = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], { description }));

const REQUEST_FIELDS = {
  version: Type.Optional(Type.Unsafe<number | string>({ description: 'PolicyDataHash version to build: 1 (default), 2 or 3; a number or a numeric string' })),
  sender: Type.String({ description: 'Address whose key is in the node keystore; signs the PolicyDataHash' }),
  password: nullableString("Keystore password of the sender's key"),
  policyId: Type.String({ description: 'Base58 id of the policy (its CreatePolicy transaction)' }),
  hash: Type.String({ description: 'Base58 SHA-256 of the data' }),
  info: Info,
  fee: S.Int64({ description: 'Fee of the PolicyDataHash' }),
  feeAssetId: nullableString('Sponsored asset paying the fee (not with version 1)'),
  atomicBadge: Type.Optional(
    Type.Union([Type.Object({ trustedSender: nullableString('Address') }), Type.Null()], { description: 'Version 3: the atomic badge of the PolicyDataHash' }),
  ),
  certificates: Type.Optional(Type.Array(Type.String(), { description: 'Base64 DER X.509 certificates forming one chain (PKI)' })),
};

const SendDataRequestSchema = Type.Object(
  { ...REQUEST_FIELDS, data: Type.Optional(Type.String({ description: 'Base64 of the data (absent: empty)' })) },
  { $id: 'SendDataRequest' },
);
const SendDataMetaSchema = Type.Object(REQUEST_FIELDS, { $id: 'SendDataMetadata', description: 'The `request` part: a SendDataRequest without `data`' });

const MultipartSendData = Type.Object(
  {
    request: Type.String({ description: 'JSON of the request (SendDataMetadata)', contentMediaType: 'application/json' }),
    data: Type.String({ description: 'The raw bytes of the data', format: 'binary' }),
  },
  { description: 'Parts `request` and `data`' },
);

const PolicyItemInfo = Type.Object(
  {
    sender: Type.String(),
    policy: Type.String({ description: 'Policy id, Base58' }),
    info: Info,
    hash: Type.String({ description: 'Data hash, Base58' }),
  },
  { $id: 'PolicyItemInfo' },
);

const PoliciesMetaInfoRequest = Type.Object(
  { policiesDataHashes: Type.Array(Type.Object({ policyId: Type.String(), datahashes: Type.Array(Type.String()) })) },
  { $id: 'PoliciesMetaInfoRequest' },
);

const PoliciesMetaInfoResponse = Type.Object(
  { policiesDataInfo: Type.Array(Type.Object({ policyId: Type.String(), datasInfo: Type.Array(PolicyItemInfo) })) },
  { $id: 'PoliciesMetaInfoResponse' },
);

const ForceSyncResponse = Type.Object(
  { forceRestarted: Type.Integer({ description: 'How many items the synchronizer restarted with' }) },
  { $id: 'PrivacyForceSyncResponse' },
);

const Addresses = Type.Array(Type.String(), { description: 'Addresses, Base58' });

// --- guards ---------------------------------------------------------------------------
// Shared with the gRPC PrivacyPublicService (api/grpc/privacy-service.ts).

/** The confidential-data service with its storage (613 without). */
export function privacyWithStorage(services: ApiServices): PrivacyApi {
  const privacy = services.privacy;
  if (privacy === undefined || !privacy.storageEnabled) throw privacyIsSwitchedOff();
  return privacy;
}

/** The service for the policy reads, which need no storage (613 on a node without the privacy service). */
export function privacyPolicies(services: ApiServices): PrivacyApi {
  const privacy = services.privacy;
  if (privacy === undefined) throw privacyIsSwitchedOff();
  return privacy;
}

/** 638 on a watcher node: it sends no data. */
export function refuseOnWatcher(services: ApiServices): void {
  if (services.settings.watcher) throw illegalWatcherAction();
}

/** 648 until feature 180 (large privacy objects) is active (613 without storage). */
export function requireLargeObjects(services: ApiServices): void {
  if (!privacyWithStorage(services).largeObjectsActive()) throw privacyLargeObjectFeatureIsNotActivated();
}

const privacyOf = (ctx: ApiContext): PrivacyApi => privacyWithStorage(ctx.services);
const policiesOf = (ctx: ApiContext): PrivacyApi => privacyPolicies(ctx.services);
const privacyEnabled = (ctx: ApiContext): void => void privacyOf(ctx);
const notWatcher = (ctx: ApiContext): void => refuseOnWatcher(ctx.services);
const largeObjectsActive = (ctx: ApiContext): void => requireLargeObjects(ctx.services);

// --- reading requests ----------------------------------------------------------------

/** The typed request of a sendData JSON object: its version first, then its fields. */
function readSendDataRequest(
  body: JsonObject,
  broadcast: boolean,
  schema: typeof SendDataRequestSchema | typeof SendDataMetaSchema,
): SendDataRequest & { data?: string } {
  const version = sendDataVersion(body, broadcast);
  const read = readBody(schema, body) as Omit<SendDataRequest, 'version'> & {
    data?: string;
    info: SendDataRequest['info'] & { timestamp: bigint };
    fee: bigint;
  };
  return { ...read, version };
}

/** A part's bytes as text, within `timeoutMs` and `limit` bytes. */
async function partText(stream: Readable, what: string, timeoutMs: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(customValidationError(`Unexpected error: the '${what}' part did not arrive within ${timeoutMs} ms`, what)), timeoutMs);
  });
  const read = (async () => {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > MAX_REQUEST_PART_BYTES) throw customValidationError(`The '${what}' part is larger than ${MAX_REQUEST_PART_BYTES} bytes`, what);
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  })();
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A part's bytes (the multipart body limit bounds them). */
async function partBytes(stream: Readable): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** The `request` part as a JSON object (error 1 when it is not one). */
function requestObject(text: string): JsonObject {
  const value = new JsonEntity(text).parse();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bodyIsNotObject();
  return value as JsonObject;
}

/** Reads the remaining parts to their end, unused (WE skips parts after `data`). */
async function skipRest(parts: AsyncIterator<{ stream: Readable }>): Promise<void> {
  for (;;) {
    const next = await parts.next();
    if (next.done === true) return;
    next.value.stream.resume();
  }
}

async function sendDataV2(privacy: PrivacyApi, parts: MultipartParts, broadcast: boolean) {
  let requestText: string | undefined;
  let data: Uint8Array | undefined;
  for await (const part of parts) {
    const name = part.name.toLowerCase();
    if (name === 'request') requestText = await partText(part.stream, 'request', V2_REQUEST_PART_TIMEOUT_MS);
    else if (name === 'data') data = await partBytes(part.stream);
    else {
      part.stream.resume();
      throw customValidationError(`Unexpected part '${part.name}': sendDataV2 takes the parts 'request' and 'data'`, 'body');
    }
  }
  if (requestText === undefined || data === undefined) {
    throw customValidationError(
      `The multipart body has no '${requestText === undefined ? 'request' : 'data'}' part: sendDataV2 needs both 'request' and 'data'`,
      'body',
    );
  }
  const request = readSendDataRequest(requestObject(requestText), broadcast, SendDataMetaSchema);
  return privacy.sendData({ ...request, certificates: [] }, { bytes: data }, broadcast);
}

async function sendLargeData(privacy: PrivacyApi, parts: MultipartParts, broadcast: boolean) {
  const iterator = parts[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done === true) throw customValidationError('Unexpected state', 'body');
  const firstName = first.value.name.toLowerCase();
  if (firstName !== 'request') {
    first.value.stream.resume();
    throw customValidationError(`'request' part must be in the head of the Multipart, got '${firstName}'`, 'body');
  }
  const body = requestObject(await partText(first.value.stream, 'request', privacy.requestPartTimeoutMs));
  const upload = await privacy.checkLargeUpload(readSendDataRequest(body, broadcast, SendDataMetaSchema));
  const second = await iterator.next();
  if (second.done === true) throw customValidationError('Unexpected state', 'body');
  if (second.value.name.toLowerCase() !== 'data') {
    second.value.stream.resume();
    throw customValidationError("'data' part must be followed by the 'request' part", 'body');
  }
  const tx = await privacy.sendLargeData(upload, second.value.stream, broadcast);
  await skipRest(iterator);
  return tx;
}

// --- routes ---------------------------------------------------------------------------

const policyIdParam = text('Policy id, Base58');
const hashParam = text('Data hash, Base58 of its SHA-256');
const broadcastQuery = { broadcast: booleanQuery('Put the PolicyDataHash into the pool and send it to peers (default true); false needs version 3') };

const policyErrors = { 400: err("199 `Failed to decode policyId: '<id>'`; 612 the policy does not exist; 613 no privacy service") };

/** A read of a policy's state (no storage needed). */
const policyRead = <const Path extends string>(path: Path, summary: string, answer: TSchema, read: (privacy: PrivacyApi, policyId: string) => string[]) =>
  route({
    method: 'GET',
    path,
    auth: 'user',
    summary,
    params: { policyId: policyIdParam },
    unavailableInPkiMode: true,
    responses: { 200: answer, ...policyErrors },
    handler: ({ params }, ctx) => read(policiesOf(ctx), params.policyId),
  });
const itemErrors = {
  400: err(
    '199 bad policy id or hash; 612 no such policy; 613 storage switched off; 617 the data is missing (queued for download); 647 the other get route serves this item',
  ),
  404: err('646 the item is unknown to this node'),
};
/** What the three send routes share. */
const SENDING = { method: 'POST', auth: 'privacy', query: broadcastQuery, unavailableInPkiMode: true } as const;

/** sendData and sendDataV2: WE's nonWatcherFilter, then withPrivacyEnabled. */
const smallSendChecks = (ctx: ApiContext): void => {
  notWatcher(ctx);
  privacyEnabled(ctx);
};

const sendErrors = {
  400: err(
    '1 malformed request; 199 field rules, hash mismatch, version rules, sender outside the recipients; 607 data too big (sendData, sendDataV2: more than one P2P message carries, just under 20 MiB with the metadata — use sendLargeData); 611 body too big; 612 unknown policy; 613 storage switched off; 615 hash anchored already; 120/121 certificates; fee and state errors of the PolicyDataHash',
  ),
  403: err('638 watcher node'),
};

export const privacyRoutes = defineRoutes({ name: 'privacy', description: 'Confidential data of policies: members, items, sending data' }, [
  policyRead('/privacy/{policyId}/recipients', "A policy's recipients", Addresses, (privacy, id) => privacy.recipients(id)),
  policyRead('/privacy/{policyId}/owners', "A policy's owners", Addresses, (privacy, id) => privacy.owners(id)),
  policyRead(
    '/privacy/{policyId}/hashes',
    'The data hashes anchored in a policy',
    Type.Array(Type.String(), { description: 'Data hashes, Base58' }),
    (privacy, id) => privacy.hashes(id),
  ),
  policyRead(
    '/privacy/{policyId}/transactions',
    'Ids of the PolicyDataHash transactions of a policy',
    Type.Array(Type.String(), { description: 'Transaction ids, Base58' }),
    (privacy, id) => privacy.dataHashTransactions(id),
  ),
  route({
    method: 'GET',
    path: '/privacy/{policyId}/getData/{hash}',
    auth: 'privacy',
    summary: "A small item's data, Base64 (text/plain)",
    params: { policyId: policyIdParam, hash: hashParam },
    unavailableInPkiMode: true,
    afterAuth: privacyEnabled,
    responses: { 200: { description: 'Base64 of the data, as plain text', contentType: 'text/plain' }, ...itemErrors },
    handler: async ({ params }, ctx) => new Reply(200, encodeBase64(await privacyOf(ctx).getData(params.policyId, params.hash)), 'text'),
  }),
  route({
    method: 'GET',
    path: '/privacy/{policyId}/getLargeData/{hash}',
    auth: 'privacy',
    summary: "A large item's data, streamed",
    params: { policyId: policyIdParam, hash: hashParam },
    unavailableInPkiMode: true,
    afterAuth: largeObjectsActive,
    responses: {
      200: { description: 'The raw bytes, with their Content-Length', contentType: 'application/octet-stream' },
      ...itemErrors,
      400: err(`${itemErrors[400].description}; 648 feature 180 not active`),
    },
    handler: async ({ params }, ctx) => {
      const data = await privacyOf(ctx).getLargeData(params.policyId, params.hash);
      return new StreamReply('application/octet-stream', data.length, data.stream);
    },
  }),
  route({
    method: 'GET',
    path: '/privacy/{policyId}/getInfo/{hash}',
    auth: 'privacy',
    summary: "An item's metadata",
    params: { policyId: policyIdParam, hash: hashParam },
    unavailableInPkiMode: true,
    afterAuth: privacyEnabled,
    responses: { 200: PolicyItemInfo, ...itemErrors },
    handler: ({ params }, ctx) => privacyOf(ctx).getInfo(params.policyId, params.hash),
  }),
  route({
    method: 'POST',
    path: '/privacy/getInfos',
    auth: 'privacy',
    summary: 'Metadata of several items',
    description: 'Undecodable policy ids are dropped; answers only the stored items (nothing when the storage is switched off).',
    body: { schema: PoliciesMetaInfoRequest, read: 'schema', description: 'Per policy, the hashes asked for (`datahashes`, lower case as in WE)' },
    unavailableInPkiMode: true,
    responses: { 200: PoliciesMetaInfoResponse, 400: err('1 malformed request; 199 `Failed to decode all policy ids.`') },
    handler: async ({ body }, ctx) => ({ policiesDataInfo: await policiesOf(ctx).getInfos(body.policiesDataHashes) }),
  }),
  route({
    method: 'POST',
    path: '/privacy/forceSync',
    auth: 'privacy',
    summary: 'Restarts the download of every pending item',
    description:
      'Running downloads are cancelled and started again with the whole pending set; items already stored are skipped quickly. The answer counts the items re-checked, not downloaded.',
    unavailableInPkiMode: true,
    afterAuth: privacyEnabled,
    responses: {
      200: ForceSyncResponse,
      400: err('613 storage switched off'),
      500: err('610 `Force sync error`: this node runs no synchronizer (watcher mode)'),
    },
    handler: (_request, ctx) => ({ forceRestarted: privacyOf(ctx).forceSync() }),
  }),
  route({
    method: 'GET',
    path: '/privacy/forceSync/{policyId}',
    auth: 'privacy',
    summary: "Queues a policy's items for download and restarts the download",
    description:
      'Every item anchored in the policy joins the pending set; the synchronizer restarts with it. The node owner must be a recipient of the policy.',
    params: { policyId: policyIdParam },
    unavailableInPkiMode: true,
    afterAuth: privacyEnabled,
    responses: {
      200: ForceSyncResponse,
      400: err("199 bad policy id, or `Sender '<node owner>' is not in policy recipients`; 612 no such policy; 613 storage switched off"),
      500: err('610 `Force sync error`: this node runs no synchronizer (watcher mode)'),
    },
    handler: async ({ params }, ctx) => ({ forceRestarted: await privacyOf(ctx).forceSyncPolicy(params.policyId) }),
  }),
  route({
    ...SENDING,
    path: '/privacy/sendData',
    summary: 'Stores data (Base64 in JSON) and signs the PolicyDataHash anchoring it',
    body: { schema: SendDataRequestSchema, read: 'object', description: 'The request with `data` in Base64' },
    bodyLimit: SEND_DATA_BODY_LIMIT,
    afterAuth: smallSendChecks,
    responses: { 200: S.Transaction, ...sendErrors },
    handler: async ({ body, query }, ctx) => {
      const broadcast = query.broadcast ?? true;
      const request = readSendDataRequest(body, broadcast, SendDataRequestSchema);
      return (await privacyOf(ctx).sendData(request, { base64: request.data ?? '' }, broadcast)).toJson();
    },
  }),
  route({
    ...SENDING,
    path: '/privacy/sendDataV2',
    summary: 'Stores data (multipart: request JSON and raw data) and signs the PolicyDataHash anchoring it',
    body: { schema: MultipartSendData, read: 'multipart', description: 'Parts `request` and `data`, in any order' },
    bodyLimit: SEND_DATA_BODY_LIMIT,
    afterAuth: smallSendChecks,
    responses: { 200: S.Transaction, ...sendErrors },
    handler: async ({ body, query }, ctx) => (await sendDataV2(privacyOf(ctx), body, query.broadcast ?? true)).toJson(),
  }),
  route({
    ...SENDING,
    path: '/privacy/sendLargeData',
    summary: 'Streams data of any size up to 5 GiB into the storage and signs the PolicyDataHash anchoring it',
    description: 'Multipart with the `request` part first, then `data`; the data is stored as a large item (read it with getLargeData).',
    body: { schema: MultipartSendData, read: 'multipart', description: 'Part `request` first, then `data`' },
    bodyLimit: SEND_LARGE_DATA_BODY_LIMIT,
    afterAuth: (ctx) => {
      privacyEnabled(ctx);
      notWatcher(ctx);
      largeObjectsActive(ctx);
    },
    responses: { 200: S.Transaction, ...sendErrors, 400: err(`${sendErrors[400].description}; 648 feature 180 not active; 199 parts out of order`) },
    handler: async ({ body, query }, ctx) => (await sendLargeData(privacyOf(ctx), body, query.broadcast ?? true)).toJson(),
  }),
]);
