/**
 * `/confidential-contracts/*` (WE's ConfidentialContractsApiRoute) over the node's
 * confidential contracts service (src/contracts/confidential/service.ts). Every route needs
 * the confidential-contracts API key (`X-API-Key` against
 * `confidential-contracts-api-key-hash`, else 649) or the OAuth role
 * `confidential_contracts`. A node built without the service does not serve them.
 *
 * - `POST /confidential-contracts/call?broadcast=true&commitmentVerification=false`: a
 *   confidential call (CallContract V6 signed by the node owner) with its input kept
 *   off-chain; answers `{callContractTransactionV6, confidentialInput}`.
 * - `GET /confidential-contracts/{contractId}?offset&limit&matches`: the contract's
 *   confidential state.
 * - `GET /confidential-contracts/tx/{executableTxId}`: the 105 V4 of a confidential call with
 *   its input and output.
 */
import { Type } from '@sinclair/typebox';
import type { JsonObject } from '../../protocol/json.js';
import { ATOMIC_BADGE, CONTRACT_DATA_ENTRY } from '../../protocol/transactions/fields.js';
import { validateContractEntries } from '../../protocol/transactions/contracts.js';
import { unitJson } from '../../contracts/confidential/data.js';
import type { ConfidentialCallRequest, ConfidentialContractsApi } from '../../contracts/confidential/service.js';
import * as A from '../account-schemas.js';
import { dataEntryJson, ENTRY_PAGE_QUERY, readEntryPage } from '../account-reads.js';
import { readBody } from '../body.js';
import { booleanQuery, text } from '../params.js';
import { defineRoutes, route, type ApiContext } from '../routing.js';
import { heavyJsonAnswer, writeJsonArray } from '../heavy-answers.js';
import * as S from '../schemas.js';
import { customValidationError } from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });
const nullableString = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], { description }));

const CallRequest = Type.Object(
  {
    sender: Type.String({ description: 'Not used: the node owner signs the CallContract' }),
    password: nullableString('Not used'),
    contractId: Type.String({ description: 'Base58 id of a confidential contract whose groups hold the node owner' }),
    contractVersion: S.Int32({ description: 'The contract version called' }),
    params: Type.Array(A.DataEntry, { description: 'The confidential input: kept off-chain, its commitment goes on chain' }),
    timestamp: S.Int64(),
    atomicBadge: Type.Optional(Type.Union([Type.Object({ trustedSender: nullableString('Address') }), Type.Null()])),
    fee: S.Int64(),
    feeAssetId: nullableString('Sponsored asset paying the fee'),
    commitment: nullableString('With commitmentVerification=true: Base58 secureHash(params bytes ‖ commitmentKey)'),
    commitmentKey: nullableString('With commitmentVerification=true: Base58 of the 32-byte key'),
    certificatesBytes: Type.Optional(Type.Array(Type.Array(Type.Integer()), { description: 'Not used by this node' })),
    contractEngine: nullableString('Not used by this node'),
  },
  { $id: 'ConfidentialContractCallRequest' },
);

const ConfidentialData = Type.Object(
  {
    commitment: Type.String({ description: 'Base58' }),
    txId: Type.String({ description: 'The CallContract V6, Base58' }),
    contractId: Type.Object({ byteStr: Type.String({ description: 'Base58' }) }),
    commitmentKey: Type.Object({ bytes: Type.String({ description: 'Base58, 32 bytes' }) }),
    entries: Type.Array(A.DataEntry),
  },
  { $id: 'ConfidentialData', description: 'A confidential input (the params) or output (the results)' },
);

const CallResponse = Type.Object(
  { callContractTransactionV6: S.Transaction, confidentialInput: ConfidentialData },
  { $id: 'ConfidentialContractCallResponse' },
);
const TxResponse = Type.Object(
  { executedContractTransactionV4: S.Transaction, confidentialInput: ConfidentialData, confidentialOutput: ConfidentialData },
  { $id: 'ConfidentialTxByExecutableTxIdResponse' },
);

function serviceOf(ctx: ApiContext): ConfidentialContractsApi {
  const service = ctx.services.confidentialContracts;
  if (service === undefined) throw customValidationError('Confidential contracts are not served by this node', undefined, 503);
  return service;
}

type CallBody = {
  contractId: string;
  contractVersion: number;
  params: unknown[];
  timestamp: bigint;
  fee: bigint;
  feeAssetId?: string | null;
  commitment?: string | null;
  commitmentKey?: string | null;
  atomicBadge?: unknown;
};

function callRequest(body: JsonObject, ctx: ApiContext): ConfidentialCallRequest {
  const read = readBody(CallRequest, body) as CallBody;
  const p = ctx.services.protocol;
  const params = read.params.map((e, i) => CONTRACT_DATA_ENTRY.fromJson(e, p, `params(${i})`));
  validateContractEntries(params, 'Param');
  return {
    contractId: read.contractId,
    contractVersion: read.contractVersion,
    params,
    timestamp: BigInt(read.timestamp),
    fee: BigInt(read.fee),
    feeAssetId: read.feeAssetId ?? null,
    atomicBadge: read.atomicBadge === undefined || read.atomicBadge === null ? null : ATOMIC_BADGE.fromJson(read.atomicBadge, p, 'atomicBadge'),
    commitment: read.commitment ?? undefined,
    commitmentKey: read.commitmentKey ?? undefined,
  };
}

export const confidentialContractsRoutes = defineRoutes(
  {
    name: 'confidential-contracts',
    description: 'Confidential smart contracts: calls whose params and results stay off-chain, their state',
    prefixAuth: { prefix: '/confidential-contracts', level: 'confidential' },
  },
  [
    route({
      method: 'POST',
      path: '/confidential-contracts/call',
      auth: 'confidential',
      summary: 'Calls a confidential contract: its params stay off-chain, the CallContract V6 signed by the node owner carries their commitment',
      query: {
        broadcast: booleanQuery('Send the transaction to the pool and the peers (default true)'),
        commitmentVerification: booleanQuery('Check the request’s commitment and commitmentKey instead of making them (default false)'),
      },
      body: { schema: CallRequest, read: 'object' },
      responses: {
        200: CallResponse,
        400: err(
          '1 malformed body; 199 bad contract id, params or commitment text; 624 no commitment; 625 no commitmentKey; 626 commitment does not match; 650 contract not confidential; 651 node owner not in its groups; 652 fewer than 3 participants',
        ),
        403: err('649 wrong confidential-contracts API key'),
        404: err('600 contract not found'),
      },
      handler: async ({ body, query }, ctx) => {
        const answer = await serviceOf(ctx).call(callRequest(body, ctx), query.broadcast ?? true, query.commitmentVerification ?? false);
        return { callContractTransactionV6: answer.tx.toJson(), confidentialInput: unitJson(answer.input, ctx.services.protocol) };
      },
    }),
    route({
      method: 'GET',
      path: '/confidential-contracts/tx/{executableTxId}',
      auth: 'confidential',
      summary: 'The ExecutedContract V4 of a confidential call, with its confidential input and output (on a node of the contract’s groups)',
      params: { executableTxId: text('Id of the CallContract V6, Base58') },
      responses: {
        200: TxResponse,
        400: err('199 not Base58; contract not confidential; node owner not in its groups; input or output not (yet) on this node'),
        403: err('649 wrong confidential-contracts API key'),
        404: err('601 no ExecutedContract V4 for it'),
      },
      handler: ({ params }, ctx) => {
        const answer = serviceOf(ctx).executed(params.executableTxId);
        const p = ctx.services.protocol;
        return {
          executedContractTransactionV4: answer.executed.toJson(),
          confidentialInput: unitJson(answer.input, p),
          confidentialOutput: unitJson(answer.output, p),
        };
      },
    }),
    route({
      method: 'GET',
      path: '/confidential-contracts/{contractId}',
      auth: 'confidential',
      summary: 'The confidential state of a contract: the results of its confidential calls mined so far',
      description:
        'Keys in the order they were first written; `matches` keeps the keys the whole of which match the regular expression, then `offset` and `limit` page them.',
      params: { contractId: text('Contract id, Base58') },
      query: ENTRY_PAGE_QUERY,
      responses: {
        200: Type.Array(A.DataEntry),
        400: err('199 bad contract id or `offset`/`limit`; 629 bad `matches`; 651 node owner not in the contract’s groups'),
        403: err('649 wrong confidential-contracts API key'),
        404: err('600 contract not found'),
      },
      handler: ({ params, query, headers }, ctx) => {
        const page = readEntryPage(query);
        const all = serviceOf(ctx).entries(params.contractId);
        return heavyJsonAnswer(ctx, headers.accept, async (out, int64AsString) =>
          writeJsonArray(out, await page(all, (e) => e.key, out), (e) => dataEntryJson(e, ctx.services.protocol), int64AsString),
        );
      },
    }),
  ],
);
