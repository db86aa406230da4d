/**
 * `/assets/*` (WE's AssetsApiRoute): asset balances of addresses, asset details, and the
 * distribution of an asset over its holders — now, or at a past height page by page.
 *
 * Holders come from the store's asset-holder index (every address whose balance of the
 * asset ever changed), in address byte order; a page lists holders with a positive
 * balance at the height and continues after `after`. `hasNext` says whether another holder
 * with a positive balance follows (WE's counts every remaining holder id, zero balances
 * included, and orders holders by first appearance). WE computes distributions on one
 * worker thread with a queue of 5 and answers "currently unavailable" when it is full;
 * Weft computes them in the request and has no such queue.
 */
import type { Address } from '../../crypto/address.js';
import { decodeBase58, encodeBase58, EncodingError } from '../../crypto/encoding.js';
import { stringifyJson, type JsonObject } from '../../protocol/json.js';
import { readScript } from '../../ride/script.js';
import { scriptText } from '../../ride/script-text.js';
import { javaString } from '../../ride/serde.js';
import type { AssetInfo } from '../../state/model.js';
import type { AssetReader, BalanceReader } from '../../state/view.js';
import * as A from '../account-schemas.js';
import { accountHolderJson, MAX_ADDRESSES_PER_REQUEST, readBooleanQuery } from '../account-reads.js';
import { NOT_FOUND_TEXT, PlainTextReply } from '../errors.js';
import { digitsInt, optionalQuery, text } from '../params.js';
import { defineRoutes, route, type ApiContext } from '../routing.js';
import * as S from '../schemas.js';
import { customValidationError, genericError, invalidAssetId, tooBigArray } from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

/** Base58 length of a 32-byte asset id (WE's AssetIdStringLength). */
const ASSET_ID_STRING_LENGTH = 44;

/** What WE writes for an asset without an Issue transaction (issued by a contract). */
const CONTRACT_ISSUED_TEXT =
  "Use '/assets/balance-v2/{address}' to get asset info for those which were issued by contract. This endpoint is deprecated and will be removed in future releases";

const notFound = (): PlainTextReply => new PlainTextReply(404, NOT_FOUND_TEXT);

/** WE's AssetsApiRoute.validateAssetId (199). */
function distributionAssetId(raw: string): Uint8Array {
  if (raw.length > ASSET_ID_STRING_LENGTH) throw genericError('Unexpected assetId length', 'assetId');
  try {
    return decodeBase58(raw);
  } catch {
    throw genericError('Must be base58-encoded assetId', 'assetId');
  }
}

/** Transfer (4): the transaction whose minimal fee is the smallest a sponsored asset pays. */
const TRANSFER = 4;

/**
 * `minSponsoredAssetFee` of the specification: the least fee a transaction may pay in the
 * asset, null without sponsorship. WE converts a fee in a sponsored asset 1:1 with WEST
 * (Sponsorship.fromWest, base unit ratio 1), so it is a transfer's minimal WEST fee, in
 * units of the asset.
 */
function minSponsoredAssetFee(ctx: ApiContext, asset: AssetInfo): bigint | null {
  if (!asset.sponsorship) return null;
  return ctx.services.node.config().minimumFee.get(TRANSFER) ?? 0n;
}

/** The spendable WEST of an asset's issuer (its sponsor): balance − leased out. */
function sponsorBalance(ctx: ApiContext, state: BalanceReader, asset: AssetInfo): bigint | null {
  if (!asset.sponsorship) return null;
  const issuer = ctx.services.protocol.addresses.fromPublicKey(asset.issuer).bytes;
  return state.balance(issuer, null) - state.leaseBalance(issuer).out;
}

/** Positive asset balances of a holder with their assets, as `/assets/balance` lists them. */
function heldAssets(ctx: ApiContext, state: AssetReader, holder: Uint8Array): Array<{ assetId: Uint8Array; balance: bigint; asset: AssetInfo }> {
  const out: Array<{ assetId: Uint8Array; balance: bigint; asset: AssetInfo }> = [];
  for (const { assetId, balance } of ctx.services.history.assetBalances(holder)) {
    if (balance <= 0n) continue;
    const asset = state.asset(assetId);
    if (asset !== undefined) out.push({ assetId, balance, asset });
  }
  return out;
}

function balancesOf(ctx: ApiContext, address: Address): JsonObject {
  const state = ctx.services.chain.state();
  return {
    address: address.toString(),
    balances: heldAssets(ctx, state, address.bytes).map(({ assetId, balance, asset }) => {
      const issue = ctx.services.chain.transaction(assetId);
      return {
        assetId: encodeBase58(assetId),
        balance,
        reissuable: asset.reissuable,
        sponsorshipIsEnabled: asset.sponsorship,
        sponsorBalance: sponsorBalance(ctx, state, asset),
        minSponsoredAssetFee: minSponsoredAssetFee(ctx, asset),
        quantity: asset.volume,
        issueTransaction: issue === undefined ? CONTRACT_ISSUED_TEXT : stringifyJson(issue.tx.toJson()),
      };
    }),
  };
}

function balancesV2Of(ctx: ApiContext, address: Address): JsonObject {
  const state = ctx.services.chain.state();
  const protocol = ctx.services.protocol;
  return {
    address: address.toString(),
    balances: heldAssets(ctx, state, address.bytes).map(({ assetId, balance, asset }) => ({
      name: javaString(asset.name),
      assetId: encodeBase58(assetId),
      balance,
      reissuable: asset.reissuable,
      sponsorshipIsEnabled: asset.sponsorship,
      sponsorBalance: sponsorBalance(ctx, state, asset),
      quantity: asset.volume,
      decimals: asset.decimals,
      description: javaString(asset.description),
      timestamp: asset.timestamp,
      issueHeight: asset.height,
      issuer: accountHolderJson(protocol, asset.issuer),
    })),
  };
}

function assetDetails(ctx: ApiContext, raw: string, full: boolean): JsonObject {
  let id: Uint8Array;
  try {
    id = decodeBase58(raw);
  } catch {
    throw customValidationError('Incorrect asset ID', 'assetId');
  }
  const asset = ctx.services.chain.state().asset(id);
  if (asset === undefined) throw customValidationError(`Failed to get description of the asset '${raw}'`, 'assetId');
  const script = asset.script === null ? null : readScript(asset.script, ctx.services.protocol);
  const source = script === null ? null : `base64:${Buffer.from(script.bytes).toString('base64')}`;
  const text = script === null ? null : scriptText(script.expr);
  const details: JsonObject = {
    assetId: encodeBase58(id),
    issueHeight: asset.height,
    issueTimestamp: asset.timestamp,
    issuer: accountHolderJson(ctx.services.protocol, asset.issuer),
    name: javaString(asset.name),
    description: javaString(asset.description),
    decimals: asset.decimals,
    reissuable: asset.reissuable,
    quantity: asset.volume,
    scripted: script !== null,
    sponsorshipIsEnabled: asset.sponsorship,
    // The specification's fields beside WE 1.14's (which has them only in `scriptDetails`).
    script: source,
    scriptText: text,
    complexity: script === null ? null : BigInt(script.complexity),
    minSponsoredAssetFee: minSponsoredAssetFee(ctx, asset),
  };
  if (full && script !== null) details['scriptDetails'] = { scriptComplexity: BigInt(script.complexity), script: source, scriptText: text };
  return details;
}

/** The current distribution: every holder with a positive balance. */
function currentDistribution(ctx: ApiContext, assetId: Uint8Array): JsonObject {
  const state = ctx.services.chain.state();
  const scheme = ctx.services.protocol.addresses;
  const out: JsonObject = {};
  for (const holder of ctx.services.history.assetHolders(assetId)) {
    const balance = state.balance(holder, assetId);
    if (balance > 0n) out[scheme.addressFromBytes(holder).toString()] = balance;
  }
  return out;
}

/**
 * One page of the distribution at a height, in WE's order of checks: limit, height (> 0,
 * below the current height), asset id, `after`, then the safe-rollback height.
 */
function distributionPage(ctx: ApiContext, rawAssetId: string, height: number, limit: number, rawAfter: string | undefined): JsonObject {
  const maxLimit = ctx.services.settings.distributionAddressLimit;
  if (limit <= 0) throw genericError('Limit should be greater than 0', 'limit');
  if (limit >= maxLimit) throw genericError(`Limit should be less than ${maxLimit}`, 'limit');
  if (height <= 0) throw genericError('Height should be greater than zero', 'height');
  if (height >= ctx.services.chain.height())
    throw genericError("Using 'addressAssetDistributionAtHeight' on current height can lead to inconsistent result", 'height');
  const assetId = distributionAssetId(rawAssetId);
  const scheme = ctx.services.protocol.addresses;
  const after = rawAfter === undefined ? undefined : scheme.parseAddress(rawAfter, 'after');
  const lowest = ctx.services.history.minRollbackHeight();
  if (height < lowest) throw genericError(`Cannot get asset distribution at height less than ${lowest}`, 'height');
  const items: JsonObject = {};
  let count = 0;
  let lastItem: string | null = null;
  let hasNext = false;
  for (const holder of ctx.services.history.assetHolders(assetId, after?.bytes)) {
    const balance = ctx.services.history.balanceAt(holder, assetId, height);
    if (balance <= 0n) continue;
    if (count === limit) {
      hasNext = true;
      break;
    }
    lastItem = scheme.addressFromBytes(holder).toString();
    items[lastItem] = balance;
    count++;
  }
  return { hasNext, lastItem, items };
}

function assetBalance(ctx: ApiContext, rawAddress: string, rawAssetId: string): JsonObject {
  let assetId: Uint8Array;
  try {
    assetId = decodeBase58(rawAssetId);
  } catch (e) {
    if (!(e instanceof EncodingError)) throw e;
    throw invalidAssetId(`Asset id '${rawAssetId}' is invalid: ${e.message}`, 'assetId');
  }
  const address = ctx.services.protocol.addresses.parseAddress(rawAddress, 'address');
  return { address: address.toString(), assetId: rawAssetId, balance: ctx.services.chain.state().balance(address.bytes, assetId) };
}

export const assetsRoutes = defineRoutes({ name: 'assets', description: 'Assets: balances, details, distribution over holders' }, [
  route({
    method: 'GET',
    path: '/assets/balance/{address}/{assetId}',
    auth: 'user',
    summary: 'Balance of one asset',
    description: '`assetId` is echoed as given; an id that decodes but names no asset has balance 0.',
    params: { address: text('Address, Base58'), assetId: text('Asset id, Base58') },
    responses: { 200: A.AssetBalance, 400: err("118 `Asset id '<id>' is invalid: ...`; 102 invalid address") },
    handler: ({ params }, ctx) => assetBalance(ctx, params.address, params.assetId),
  }),
  route({
    method: 'GET',
    path: '/assets/balance/{address}',
    auth: 'user',
    summary: 'Every asset the address holds, with its Issue transaction as a JSON string',
    params: { address: text('Address, Base58') },
    responses: { 200: A.AccountAssetBalances, 400: err('102 invalid address') },
    handler: ({ params }, ctx) => balancesOf(ctx, ctx.services.protocol.addresses.parseAddress(params.address, 'address')),
  }),
  route({
    method: 'GET',
    path: '/assets/balance-v2/{address}',
    auth: 'user',
    summary: 'Every asset the address holds, with the asset description',
    params: { address: text('Address, Base58') },
    responses: { 200: A.AccountAssetBalancesV2, 400: err('102 invalid address') },
    handler: ({ params }, ctx) => balancesV2Of(ctx, ctx.services.protocol.addresses.parseAddress(params.address, 'address')),
  }),
  route({
    method: 'POST',
    path: '/assets/balance',
    auth: 'user',
    summary: 'Positive asset balances of many addresses (at most 1000)',
    body: { schema: A.AddressesRequest, read: 'schema' },
    responses: { 200: A.ManyAccountsAssetBalances, 400: err('1 malformed body; 10 more than 1000 addresses; 102 the first invalid address') },
    handler: ({ body }, ctx) => {
      if (body.addresses.length > MAX_ADDRESSES_PER_REQUEST) throw tooBigArray('addresses');
      const scheme = ctx.services.protocol.addresses;
      const addresses = body.addresses.map((raw, i) => scheme.parseAddress(raw, `addresses[${i}]`));
      const out: JsonObject = {};
      for (const address of addresses) {
        const balances: JsonObject[] = [];
        for (const { assetId, balance } of ctx.services.history.assetBalances(address.bytes)) {
          if (balance > 0n) balances.push({ assetId: encodeBase58(assetId), balance });
        }
        out[address.toString()] = balances;
      }
      return out;
    },
  }),
  route({
    method: 'GET',
    path: '/assets/details/{assetId}',
    auth: 'user',
    summary: 'Description of an asset; with `full=true` also its script',
    params: { assetId: text('Asset id, Base58') },
    query: { full: optionalQuery(text('`true` adds `scriptDetails` for a scripted asset (Akka booleans: true/false, yes/no, on/off, 1/0)')) },
    responses: { 200: A.AssetDetails, 400: err('199 `Incorrect asset ID` or `Failed to get description of the asset ...`') },
    handler: ({ params, query }, ctx) => assetDetails(ctx, params.assetId, readBooleanQuery(query.full) ?? false),
  }),
  route({
    method: 'GET',
    path: '/assets/{assetId}/distribution',
    auth: 'user',
    summary: 'Current positive balances of an asset by holder',
    params: { assetId: text('Asset id, Base58') },
    responses: { 200: A.AssetDistribution, 400: err('199 `Unexpected assetId length` or `Must be base58-encoded assetId`') },
    handler: ({ params }, ctx) => currentDistribution(ctx, distributionAssetId(params.assetId)),
  }),
  route({
    method: 'GET',
    path: '/assets/{assetId}/distribution/{height}/limit/{limit}',
    auth: 'user',
    summary: 'Positive balances of an asset at a past height, one page at a time',
    description:
      'Holders in address byte order; `after` continues after that address (the `lastItem` of the previous page). `0 < limit < distribution-address-limit`, `0 < height < current height`, and the height must not be below the lowest height a rollback can reach.',
    params: {
      assetId: text('Asset id, Base58'),
      height: digitsInt('Height (digits)', notFound),
      limit: digitsInt('Page size (digits)', notFound),
    },
    query: { after: optionalQuery(text('Address the page starts after')) },
    responses: {
      200: A.AssetDistributionPage,
      400: err("199 bad limit, height or asset id (WE's messages); 102 invalid `after`"),
      404: { description: 'A non-numeric height or limit: no route', contentType: 'text/plain' },
    },
    handler: ({ params, query }, ctx) => distributionPage(ctx, params.assetId, params.height, params.limit, query.after),
  }),
]);
