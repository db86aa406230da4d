/**
 * `/anchoring/config` (WE's AnchoringApiRoute): the anchoring settings of the node — where
 * it anchors (target node, chain id, recipient address), the fees and the height
 * conditions — or `{"enabled": false}` when `node.anchoring.enable = no`. WE answers any GET
 * under `/anchoring` with them. Auth settings, wallet and mining-check pacing are not shown.
 */
import { Type } from '@sinclair/typebox';
import { defineRoutes, route, type ApiContext } from '../routing.js';
import * as S from '../schemas.js';

const AnchoringConfig = Type.Object(
  {
    enabled: Type.Boolean(),
    currentChainOwnerAddress: Type.Optional(Type.String()),
    targetnetNodeAddress: Type.Optional(Type.String()),
    targetnetSchemeByte: Type.Optional(Type.String()),
    targetnetRecipientAddress: Type.Optional(Type.String()),
    targetnetFee: Type.Optional(S.Int64()),
    currentChainFee: Type.Optional(S.Int64()),
    heightRange: Type.Optional(S.Int32()),
    heightAbove: Type.Optional(S.Int32()),
    threshold: Type.Optional(S.Int32()),
  },
  { $id: 'AnchoringConfig', description: 'Only `enabled` when anchoring is off' },
);

const config = (_req: unknown, ctx: ApiContext) => ctx.services.node.anchoring();

const anyPath = <const P extends '/anchoring' | '/anchoring/*'>(path: P) =>
  route({ method: 'GET', path, auth: 'user', summary: 'Same as /anchoring/config', hidden: true, responses: { 200: AnchoringConfig }, handler: config });

export const anchoringRoutes = defineRoutes({ name: 'anchoring', description: 'Anchoring of this chain into a target network' }, [
  route({
    method: 'GET',
    path: '/anchoring/config',
    auth: 'user',
    summary: 'The anchoring settings of the node',
    responses: { 200: AnchoringConfig },
    handler: config,
  }),
  anyPath('/anchoring'),
  anyPath('/anchoring/*'),
]);
