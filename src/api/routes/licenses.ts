/**
 * `/licenses/*` (WE's commercial build, docs "REST API: node licenses"), over Weft's open
 * licence format (src/licences/licence.ts): the uploaded licences, the status of WE's status
 * machine, upload (checked: form, listed issuer, signature, this node's owner) and delete.
 * Reading needs no key; upload and delete are admin routes (the API key).
 */
import { Type } from '@sinclair/typebox';
import type { LicenceApi } from '../../licences/licence-service.js';
import { LicenceError } from '../../licences/licence.js';
import { text } from '../params.js';
import { defineRoutes, route, type ApiContext } from '../routing.js';
import * as S from '../schemas.js';
import { customValidationError } from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

const LicenceTerms = Type.Object(
  {
    version: Type.Integer(),
    id: Type.String(),
    issued_at: Type.String({ description: 'ISO-8601 instant' }),
    node_owner_address: Type.String(),
    valid_after: Type.String({ description: 'YYYY-MM-DD: valid from 00:00 UTC of this day' }),
    valid_before: Type.Union([Type.String({ description: 'YYYY-MM-DD: valid until 00:00 UTC of this day' }), Type.Null()]),
    features: Type.Array(Type.String()),
  },
  { $id: 'LicenceTerms' },
);

const Licence = Type.Object(
  {
    license: LicenceTerms,
    signer_public_key: Type.String({ description: 'Issuer public key, Base58' }),
    signature: Type.String({ description: "The issuer's signature of the licence's canonical JSON, Base58" }),
    signer_id: Type.String(),
  },
  { $id: 'Licence' },
);

const LicenceStatusAnswer = Type.Object(
  {
    status: Type.Union(['TRIAL', 'TRIAL_EXPIRED', 'ACTIVE', 'PENDING', 'EXPIRED'].map((s) => Type.Literal(s))),
    description: Type.String(),
  },
  { $id: 'LicenceStatus' },
);

function licencesOf(ctx: ApiContext): LicenceApi {
  const licences = ctx.services.licences;
  if (licences === undefined) throw customValidationError('This node keeps no licences', 'licenses');
  return licences;
}

/** A licence refused: 199 naming the field. */
function refused<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof LicenceError) throw customValidationError(`Invalid license: ${e.message}`, e.field);
    throw e;
  }
}

export const licensesRoutes = defineRoutes({ name: 'licenses', description: "The node's licences: list, status, upload, delete" }, [
  route({
    method: 'GET',
    path: '/licenses',
    auth: 'user',
    summary: 'Every uploaded licence',
    responses: { 200: Type.Array(Licence) },
    handler: (_req, ctx) => [...licencesOf(ctx).list()],
  }),
  route({
    method: 'GET',
    path: '/licenses/status',
    auth: 'user',
    summary: "The node's licence status",
    description:
      'ACTIVE: a licence is valid now; TRIAL: none is and the chain is at most 30 000 blocks high; after the trial PENDING (one becomes valid later), EXPIRED (one has expired, none will become valid) or TRIAL_EXPIRED (none at all).',
    responses: { 200: LicenceStatusAnswer },
    handler: (_req, ctx) => licencesOf(ctx).status(),
  }),
  route({
    method: 'POST',
    path: '/licenses/upload',
    auth: 'admin',
    summary: 'Adds a licence',
    description: "The licence must be signed by an issuer key listed in `node.licenses.issuers` and be for this node's owner; its id must be new.",
    body: { schema: Licence, read: 'object', description: 'The licence document as the issuer made it' },
    responses: { 200: Licence, 400: err('1 not a JSON object; 199 invalid licence (the message names the field)'), 403: err('2 API key missing or wrong') },
    handler: ({ body }, ctx) => refused(() => licencesOf(ctx).upload(body)),
  }),
  route({
    method: 'DELETE',
    path: '/licenses/{id}',
    auth: 'admin',
    summary: 'Deletes a licence by its id; answers the deleted licence',
    params: { id: text('The licence id') },
    responses: { 200: Licence, 404: err('199 no licence with this id'), 403: err('2 API key missing or wrong') },
    handler: ({ params }, ctx) => {
      const deleted = licencesOf(ctx).delete(params.id);
      if (deleted === undefined) throw customValidationError(`License '${params.id}' is not uploaded`, 'id', 404);
      return deleted;
    },
  }),
]);
