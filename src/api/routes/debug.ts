/**
 * The `/debug` rollback routes (WE's DebugApiRoute), admin only. WE wraps the whole
 * `/debug` prefix (except `validate`) in the admin check, so an unknown `/debug/...` path
 * without the key is a 403 too.
 */
import { encodeBase58 } from '../../crypto/encoding.js';
import { blockAtHeightNotFoundText } from '../errors.js';
import { base58Id } from '../params.js';
import { defineRoutes, route } from '../routing.js';
import * as S from '../schemas.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

export const debugRoutes = defineRoutes(
  { name: 'debug', description: 'Node maintenance (admin)', prefixAuth: { prefix: '/debug', level: 'admin' } },
  [
    route({
      method: 'POST',
      path: '/debug/rollback',
      auth: 'admin',
      summary: 'Removes every block above a height',
      description: 'The block at `rollbackTo` becomes the last one; with `returnTransactionsToUtx` the removed transactions go back into the pool.',
      body: { schema: S.RollbackParams, read: 'schema', whenAbsent: 'bad-request' },
      responses: {
        200: S.BlockIdAnswer,
        400: { description: '`Block at height not found` (text); error 1 for a malformed body; rollback refusals (e.g. deeper than allowed)', contentType: 'text/plain' },
        403: err('2 API key missing or wrong'),
      },
      handler: ({ body }, ctx) => {
        if (ctx.services.chain.blockAt(body.rollbackTo) === undefined) throw blockAtHeightNotFoundText();
        return { BlockId: encodeBase58(ctx.services.admin.rollback(body.rollbackTo, body.returnTransactionsToUtx)) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/debug/rollback-to/{signature}',
      auth: 'admin',
      summary: 'Rolls back to the block with this id (transactions are not returned to the pool)',
      params: { signature: base58Id('Block id, Base58') },
      responses: { 200: S.BlockIdAnswer, 400: err('101 invalid signature; rollback refusals'), 403: err('2 API key missing or wrong') },
      handler: ({ params }, ctx) => ({ BlockId: encodeBase58(ctx.services.admin.rollbackTo(params.signature)) }),
    }),
  ],
);
