/**
 * `/contracts/*` (WE's ContractsApiRoute and ContractsApiService): contracts, their state
 * and balances, the ExecutedContract of an executable transaction and its execution
 * statuses. All routes are `user` level (WE's withAuth without protection). Contract ids
 * WE cannot find — undecodable ones included — answer 600 naming the id as written.
 */
import { Type } from '@sinclair/typebox';
import { decodeBase58, encodeBase58 } from '../../crypto/encoding.js';
import type { JsonObject } from '../../protocol/json.js';
import type { Protocol } from '../../protocol/protocol.js';
import { forbiddenKeyChars, STORED_CONTRACT, VALIDATION_POLICY } from '../../protocol/transactions/contracts.js';
import type { DataEntry } from '../../protocol/transactions/fields.js';
import type { ContractInfo } from '../../state/contract-info.js';
import { executedContractFor } from '../../state/executed-contract.js';
import type { ContractReadState, ContractsService } from '../../contracts/service.js';
import type { ContractExecutionMessage } from '../../contracts/statuses.js';
import * as A from '../account-schemas.js';
import { dataEntryJson, ENTRY_PAGE_QUERY, readEntryPage } from '../account-reads.js';
import { text } from '../params.js';
import { defineRoutes, route, type ApiContext } from '../routing.js';
import type { ApiServices } from '../services.js';
import { heavyJsonAnswer, writeJsonArray } from '../heavy-answers.js';
import * as S from '../schemas.js';
import {
  contractExecutionNotFound,
  contractNotFound,
  dataKeyNotExists,
  executedTransactionNotFound,
  genericError,
  invalidAssetId,
  invalidContractKeys,
  tooBigArray,
} from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

/** WE's MaxContractsPerRequest / MaxKeysPerRequest. */
const MAX_PER_REQUEST = 100;
const WEST_DECIMALS = 8;

// ---------------------------------------------------------------------------
// Schemas

const Base58 = (description: string) => Type.String({ description });

const ContractInfoSchema = Type.Object(
  {
    creator: Base58('Public key of the creator'),
    contractId: Base58('Contract id: the id of its CreateContract'),
    storedContract: Type.Union([
      Type.Object({ image: Type.String(), imageHash: Type.String(), apiVersion: Type.String() }),
      Type.Object({ bytecode: Type.String({ description: 'Base64' }), bytecodeHash: Type.String() }),
    ]),
    version: S.Int32({ description: '1, plus one per UpdateContract' }),
    active: Type.Boolean({ description: 'false once disabled' }),
    validationPolicy: Type.Object({ type: Type.String(), addresses: Type.Optional(Type.Array(Type.String())) }),
    isConfidential: Type.Boolean(),
    groupParticipants: Type.Array(Type.String()),
    groupOwners: Type.Array(Type.String()),
  },
  { $id: 'ContractInfo' },
);

const ExecutionStatus = Type.Object(
  {
    sender: Type.String({ description: 'Address of the node that recorded it' }),
    senderPublicKey: Base58('Its public key'),
    txId: Base58('The executable transaction'),
    status: Type.Union([Type.Literal('Success'), Type.Literal('Error'), Type.Literal('Failure')]),
    code: Type.Union([S.Int32(), Type.Null()]),
    message: Type.String(),
    timestamp: S.Int64(),
    signature: Base58('Signature of the node'),
  },
  { $id: 'ContractExecutionStatus' },
);

const BalanceAnswer = Type.Object(
  { assetId: Type.String({ description: '"" for WEST' }), balance: Type.String({ description: 'The amount, as a string' }), decimals: S.Int32() },
  { $id: 'ContractBalance' },
);

const BalanceDetails = Type.Object(
  { contractId: Type.String(), regular: S.Int64(), leasedOut: S.Int64(), available: S.Int64() },
  { $id: 'ContractBalanceDetails' },
);

const ContractsRequest = Type.Object({ contracts: Type.Array(Type.String(), { description: `Contract ids (at most ${MAX_PER_REQUEST})` }) });
const KeysRequest = Type.Object({ keys: Type.Array(Type.String(), { description: `Keys (at most ${MAX_PER_REQUEST})` }) });
const BalancesRequest = Type.Object({ contractId: Type.String(), assetIds: Type.Array(Type.String()) });

// ---------------------------------------------------------------------------
// Reading

const service = (ctx: ApiContext): ContractsService => ctx.services.contracts;

/** WE's findContract: an undecodable or unknown id is "not found" under the text given. */
function findContract(state: ContractReadState, contractId: string): ContractInfo {
  let id: Uint8Array | undefined;
  try {
    id = decodeBase58(contractId);
  } catch {
    id = undefined;
  }
  const info = id === undefined ? undefined : state.contract(id);
  if (info === undefined) throw contractNotFound(contractId);
  return info;
}

/** WE's `Failed to decode base58 … value '…'` (199). */
function decodeOr199(raw: string, what: string, field: string): Uint8Array {
  try {
    return decodeBase58(raw);
  } catch {
    throw genericError(`Failed to decode base58 ${what} value '${raw}'`, field);
  }
}

export function contractInfoJson(info: ContractInfo, p: Protocol): JsonObject {
  return {
    creator: encodeBase58(info.creator),
    contractId: encodeBase58(info.contractId),
    storedContract: STORED_CONTRACT.toJson(info.storedContract, p),
    version: info.version,
    active: info.active,
    validationPolicy: VALIDATION_POLICY.toJson(info.validationPolicy, p),
    isConfidential: info.isConfidential,
    groupParticipants: info.groupParticipants.map((a) => a.toString()),
    groupOwners: info.groupOwners.map((a) => a.toString()),
  };
}

export function statusJson(m: ContractExecutionMessage, p: Protocol): JsonObject {
  return {
    sender: p.addresses.fromPublicKey(m.senderPublicKey).toString(),
    senderPublicKey: encodeBase58(m.senderPublicKey),
    txId: encodeBase58(m.txId),
    status: m.status,
    code: m.code,
    message: m.message,
    timestamp: m.timestamp,
    signature: encodeBase58(m.signature()),
  };
}

const entries = (state: ContractReadState, info: ContractInfo, keys: Iterable<string>): DataEntry[] =>
  [...keys].flatMap((k) => state.contractData(info.contractId, k) ?? []);

/** A contract's balance of WEST (no asset id) or of an asset. */
export interface ContractAssetBalance {
  readonly assetId: string | undefined;
  readonly balance: bigint;
  readonly decimals: number;
}

/** WE's contractAssetBalance: balance and decimals of WEST (no id) or a known asset (199 undecodable, 118 unknown). */
function contractAssetBalance(state: ContractReadState, info: ContractInfo, rawAssetId: string | undefined): ContractAssetBalance {
  if (rawAssetId === undefined) return { assetId: undefined, balance: state.balance(info.contractId, null), decimals: WEST_DECIMALS };
  const assetId = decodeOr199(rawAssetId, 'asset id', 'assetId');
  const asset = state.asset(assetId);
  if (asset === undefined) throw invalidAssetId(`Unable to find a description for AssetId 'Some(${rawAssetId})'`, 'assetId');
  return { assetId: rawAssetId, balance: state.balance(info.contractId, assetId), decimals: asset.decimals };
}

/** Balances of a contract, one per asset id (undefined: WEST), in order (`/contracts/asset-balances`, gRPC GetContractBalances); 600 for an unknown contract. */
export function contractBalances(services: ApiServices, contractId: string, assetIds: ReadonlyArray<string | undefined>): ContractAssetBalance[] {
  const state = services.contracts.state();
  const info = findContract(state, contractId);
  return assetIds.map((assetId) => contractAssetBalance(state, info, assetId));
}

function assetBalance(state: ContractReadState, info: ContractInfo, rawAssetId: string | undefined): JsonObject {
  return balanceJson(contractAssetBalance(state, info, rawAssetId));
}

const balanceJson = (b: ContractAssetBalance): JsonObject => ({ assetId: b.assetId ?? '', balance: b.balance.toString(), decimals: b.decimals });

const contractIdParam = () => text('Contract id, Base58');

export const contractsRoutes = defineRoutes({ name: 'contracts', description: 'Smart contracts: their state, balances, executions and statuses' }, [
  route({
    method: 'GET',
    path: '/contracts',
    auth: 'user',
    summary: 'Every contract, in creation order',
    responses: { 200: Type.Array(ContractInfoSchema) },
    handler: (_req, ctx) => {
      const state = service(ctx).state();
      return state.contractIds().map((id) => contractInfoJson(state.contract(id)!, ctx.services.protocol));
    },
  }),
  route({
    method: 'POST',
    path: '/contracts',
    auth: 'user',
    summary: 'The whole state of several contracts',
    description: `An object from each contract id to its data entries (at most ${MAX_PER_REQUEST} distinct ids).`,
    body: { schema: ContractsRequest, read: 'schema' },
    responses: {
      200: Type.Record(Type.String(), Type.Array(A.DataEntry)),
      400: err('1 malformed body; 10 more than 100 contracts'),
      404: err('600 a contract is not found'),
    },
    handler: ({ body }, ctx) => {
      const ids = [...new Set(body.contracts)];
      if (ids.length > MAX_PER_REQUEST) throw tooBigArray('contracts');
      const state = service(ctx).state();
      const infos = ids.map((id) => findContract(state, id));
      return Object.fromEntries(
        infos.map((info) => [
          encodeBase58(info.contractId),
          entries(state, info, state.contractKeys(info.contractId)).map((e) => dataEntryJson(e, ctx.services.protocol)),
        ]),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/contracts/info/{contractId}',
    auth: 'user',
    summary: 'A contract: creator, image or bytecode, version, whether it is active, validation policy',
    params: { contractId: contractIdParam() },
    responses: { 200: ContractInfoSchema, 404: err('600 contract not found') },
    handler: ({ params }, ctx) => contractInfoJson(findContract(service(ctx).state(), params.contractId), ctx.services.protocol),
  }),
  route({
    method: 'GET',
    path: '/contracts/{contractId}',
    auth: 'user',
    summary: "A contract's data entries",
    description: 'Keys in byte order; `matches` keeps the keys the whole of which match the regular expression, then `offset` and `limit` page them.',
    params: { contractId: contractIdParam() },
    query: ENTRY_PAGE_QUERY,
    responses: {
      200: Type.Array(A.DataEntry),
      400: err('199 bad `offset`/`limit` (`Invalid parameters: [...]`); 629 bad `matches` pattern'),
      404: err('600 contract not found'),
    },
    handler: ({ params, query, headers }, ctx) => {
      const page = readEntryPage(query);
      const state = service(ctx).state();
      const info = findContract(state, params.contractId);
      return heavyJsonAnswer(ctx, headers.accept, async (out, int64AsString) => {
        const keys = await page(state.contractKeys(info.contractId), (k) => k, out);
        await writeJsonArray(out, entries(state, info, keys), (e) => dataEntryJson(e, ctx.services.protocol), int64AsString);
      });
    },
  }),
  route({
    method: 'POST',
    path: '/contracts/{contractId}',
    auth: 'user',
    summary: 'Some data entries of a contract, by key (keys without a value are left out)',
    params: { contractId: contractIdParam() },
    body: { schema: KeysRequest, read: 'schema' },
    responses: { 200: Type.Array(A.DataEntry), 400: err('1 malformed body; 10 more than 100 keys'), 404: err('600 contract not found') },
    handler: ({ params, body }, ctx) => {
      const keys = [...new Set(body.keys)];
      if (keys.length > MAX_PER_REQUEST) throw tooBigArray('keys');
      const state = service(ctx).state();
      const info = findContract(state, params.contractId);
      return entries(state, info, keys).map((e) => dataEntryJson(e, ctx.services.protocol));
    },
  }),
  route({
    method: 'GET',
    path: '/contracts/{contractId}/{key}',
    auth: 'user',
    summary: 'One data entry of a contract',
    params: { contractId: contractIdParam(), key: text('Key (URL-encoded)') },
    responses: {
      200: A.DataEntry,
      400: err('199 the key has characters contract keys cannot have'),
      404: err('600 contract not found; 304 no data for this key'),
    },
    handler: ({ params }, ctx) => {
      const bad = forbiddenKeyChars(params.key);
      if (bad !== null) throw invalidContractKeys([[params.key, bad]], 'key');
      const state = service(ctx).state();
      const info = findContract(state, params.contractId);
      const entry = state.contractData(info.contractId, params.key);
      if (entry === undefined) throw dataKeyNotExists(params.key);
      return dataEntryJson(entry, ctx.services.protocol);
    },
  }),
  route({
    method: 'GET',
    path: '/contracts/executed-tx-for/{txId}',
    auth: 'user',
    summary: 'The ExecutedContract (105) that executed a CreateContract, CallContract or UpdateContract',
    params: { txId: text('Id of the executable transaction, Base58') },
    responses: { 200: S.Transaction, 400: err('199 the id is not Base58'), 404: err('601 no executed transaction for it') },
    handler: ({ params }, ctx) => {
      const txId = decodeOr199(params.txId, 'transaction id', 'txId');
      const executed = executedContractFor(service(ctx).state(), txId);
      if (executed === undefined) {
        throw executedTransactionNotFound(params.txId);
      }
      return executed.toJson();
    },
  }),
  route({
    method: 'GET',
    path: '/contracts/status/{txId}',
    auth: 'user',
    summary: 'Execution statuses of an executable transaction (Success, Error, Failure), oldest first',
    params: { txId: text('Id of the executable transaction, Base58') },
    responses: { 200: Type.Array(ExecutionStatus), 400: err('199 the id is not Base58'), 404: err('605 no status for it') },
    handler: ({ params }, ctx) => {
      const txId = decodeOr199(params.txId, 'transaction id', 'txId');
      const statuses = service(ctx).statuses(txId);
      if (statuses === undefined) {
        throw contractExecutionNotFound(params.txId);
      }
      return statuses.map((m) => statusJson(m, ctx.services.protocol));
    },
  }),
  route({
    method: 'GET',
    path: '/contracts/balance/{contractId}',
    auth: 'user',
    summary: 'WEST balance of a contract',
    params: { contractId: contractIdParam() },
    responses: { 200: BalanceAnswer, 404: err('600 contract not found') },
    handler: ({ params }, ctx) => {
      const state = service(ctx).state();
      return assetBalance(state, findContract(state, params.contractId), undefined);
    },
  }),
  route({
    method: 'GET',
    path: '/contracts/asset-balance/{contractId}/{assetId}',
    auth: 'user',
    summary: 'Balance of an asset held by a contract',
    params: { contractId: contractIdParam(), assetId: text('Asset id, Base58') },
    responses: { 200: BalanceAnswer, 400: err('199 the asset id is not Base58; 118 unknown asset'), 404: err('600 contract not found') },
    handler: ({ params }, ctx) => {
      const state = service(ctx).state();
      return assetBalance(state, findContract(state, params.contractId), params.assetId);
    },
  }),
  route({
    method: 'POST',
    path: '/contracts/asset-balances',
    auth: 'user',
    summary: 'Balances of several assets held by a contract',
    body: { schema: BalancesRequest, read: 'schema' },
    responses: {
      200: Type.Array(BalanceAnswer),
      400: err('1 malformed body; 199 an asset id is not Base58; 118 unknown asset'),
      404: err('600 contract not found'),
    },
    handler: ({ body }, ctx) => contractBalances(ctx.services, body.contractId, body.assetIds).map(balanceJson),
  }),
  route({
    method: 'GET',
    path: '/contracts/balance/details/{contractId}',
    auth: 'user',
    summary: 'WEST of a contract: regular, leased out, available (regular − leased out)',
    params: { contractId: contractIdParam() },
    responses: { 200: BalanceDetails, 404: err('600 contract not found') },
    handler: ({ params }, ctx) => {
      const state = service(ctx).state();
      const info = findContract(state, params.contractId);
      const regular = state.balance(info.contractId, null);
      const leasedOut = state.leaseBalance(info.contractId).out;
      return { contractId: params.contractId, regular, leasedOut, available: regular - leasedOut };
    },
  }),
]);
