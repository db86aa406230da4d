/**
 * `/activation/status` (WE's ActivationApiRoute, user): the voting window, its threshold and
 * the status of every feature voted for in the current window, approved, or implemented.
 * `activationHeight` appears when known, `supportingBlocks` only while a feature is VOTING.
 */
import { Type } from '@sinclair/typebox';
import { defineRoutes, route } from '../routing.js';
import * as S from '../schemas.js';

const FeatureStatus = Type.Object(
  {
    id: S.Int32({ description: 'Feature id (a short)' }),
    description: Type.String({ description: '"Unknown feature" for ids the node does not know' }),
    blockchainStatus: Type.Union([Type.Literal('VOTING'), Type.Literal('APPROVED'), Type.Literal('ACTIVATED')]),
    nodeStatus: Type.Union([Type.Literal('NOT_IMPLEMENTED'), Type.Literal('IMPLEMENTED'), Type.Literal('VOTED')], {
      description: 'VOTED: this node supports it (votes for it until approved)',
    }),
    activationHeight: Type.Optional(S.Int32({ description: 'When known: pre-activated, or approval height + voting interval' })),
    supportingBlocks: Type.Optional(S.Int32({ description: 'Only while VOTING: blocks of the current window voting for it' })),
  },
  { $id: 'FeatureActivationStatus' },
);

const ActivationStatus = Type.Object(
  {
    height: S.Int32({ description: 'Current height (the liquid block counts)' }),
    votingInterval: S.Int32({ description: 'feature-check-blocks-period' }),
    votingThreshold: S.Int32({ description: 'blocks-for-feature-activation' }),
    nextCheck: S.Int32({ description: 'Last height of the current voting window' }),
    features: Type.Array(FeatureStatus, { description: 'By id' }),
  },
  { $id: 'ActivationStatus' },
);

export const activationRoutes = defineRoutes({ name: 'activation', description: 'Blockchain feature voting and activation' }, [
  route({
    method: 'GET',
    path: '/activation/status',
    auth: 'user',
    summary: 'Feature voting and activation status',
    responses: { 200: ActivationStatus },
    handler: (_req, ctx) => ctx.services.activation.status(),
  }),
]);
