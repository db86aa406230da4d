/**
 * `/addresses/*` (WE's AddressApiRoute and AddressApiService): the keystore's addresses,
 * balances (regular, available, effective, generating — also over a window of blocks),
 * account scripts and data, address and alias checks, and signing with keystore keys.
 *
 * WE's order of checks is kept: ValidInt parameters first (199), then the address (102),
 * then the rest — so most `{address}` parameters are read as text and parsed in the
 * handler. Beyond WE: `GET /addresses/balance/{address}/{confirmations}` (the official
 * js-sdk calls it; WE 1.14 has no such route) and `matches` on `/addresses/data`.
 */
import { Type } from '@sinclair/typebox';
import type { Address } from '../../crypto/address.js';
import { decodeBase58, encodeBase58 } from '../../crypto/encoding.js';
import type { JsonObject } from '../../protocol/json.js';
import type { DataEntry } from '../../protocol/transactions/fields.js';
import { readScript } from '../../ride/script.js';
import { scriptText } from '../../ride/script-text.js';
import { javaUtf8 } from '../../ride/serde.js';
import * as A from '../account-schemas.js';
import { SCRIPT_EXTRA_FEE } from '../account-schemas.js';
import {
  addressOrAliasProblem,
  balanceDetails,
  confirmationWindow,
  dataEntryJson,
  ENTRY_PAGE_QUERY,
  generatingBalance,
  keysFilter,
  MAX_ADDRESSES_PER_REQUEST,
  pageEntries,
  readIntQueries,
  sortedDataEntries,
} from '../account-reads.js';
import { nonNegativeInt, optionalQuery, positiveInt, text } from '../params.js';
import { defineRoutes, route, type ApiContext } from '../routing.js';
import type { ApiServices } from '../services.js';
import { heavyJsonAnswer, writeJsonArray } from '../heavy-answers.js';
import { keysMatching } from '../../state/key-pattern.js';
import * as S from '../schemas.js';
import {
  customValidationError,
  dataKeyNotExists,
  invalidMessage,
  invalidPublicKey,
  invalidSignature,
  type JsonPathError,
  requestedHeightDoesntExist,
  tooBigArray,
  WeError,
  withField,
  withFieldAsync,
  wrongJson,
} from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

/** AddressApiRoute.MaxAddressesPerRequest for `/addresses/seq`. */
const MAX_SEQ_SPAN = 1000;

const parseAddress = (ctx: ApiContext, raw: string, field = 'address'): Address => ctx.services.protocol.addresses.parseAddress(raw, field);

const addressParam = (doc = 'Address, Base58 (an `address:` prefix is accepted)') => text(doc);

async function signMessage(ctx: ApiContext, rawAddress: string, body: { message: string; password?: string | null }, encode: boolean): Promise<JsonObject> {
  const address = parseAddress(ctx, rawAddress);
  const keyPair = await withFieldAsync('address', () => ctx.services.wallet.unlock(address.toString(), body.password ?? undefined));
  const bytes = javaUtf8(body.message);
  const signature = ctx.services.protocol.crypto.sign(keyPair.privateKey, bytes);
  return { message: encode ? encodeBase58(bytes) : body.message, publicKey: encodeBase58(keyPair.publicKey), signature: encodeBase58(signature) };
}

/** WE's SignedMessage reads: `message`, `signature`, then `publickey` or else `publicKey`; every problem reported. */
function readSignedMessage(body: JsonObject): { message: string; signature: string; publicKey: string } {
  const errors: JsonPathError[] = [];
  const str = (key: string): string | undefined => {
    const v = body[key];
    if (typeof v === 'string') return v;
    errors.push({ path: `obj.${key}`, messages: [v === undefined ? 'error.path.missing' : 'error.expected.jsstring'] });
    return undefined;
  };
  const message = str('message');
  const signature = str('signature');
  const lower = body['publickey'];
  const publicKey = typeof lower === 'string' ? lower : str('publicKey');
  if (message === undefined || signature === undefined || publicKey === undefined) throw wrongJson(errors);
  return { message, signature, publicKey };
}

/** WE's verifySignedMessage: address (102), message (110, `/verify` only), signature (101), public key (108). */
function verifyMessage(ctx: ApiContext, rawAddress: string, body: JsonObject, encoded: boolean): JsonObject {
  const m = readSignedMessage(body);
  const address = parseAddress(ctx, rawAddress);
  let message: Uint8Array;
  if (encoded) {
    try {
      message = decodeBase58(m.message);
    } catch {
      throw invalidMessage('message');
    }
  } else {
    message = javaUtf8(m.message);
  }
  const decodeNonEmpty = (value: string, error: () => WeError): Uint8Array => {
    if (value === '') throw error();
    try {
      return decodeBase58(value);
    } catch {
      throw error();
    }
  };
  const signature = decodeNonEmpty(m.signature, () => invalidSignature('signature'));
  const scheme = ctx.services.protocol.addresses;
  const publicKey = scheme.publicKeyFromBytes(
    decodeNonEmpty(m.publicKey, () => invalidPublicKey(m.publicKey, 'publicKey')),
    'publicKey',
  );
  const valid = scheme.fromPublicKey(publicKey).equals(address) && ctx.services.protocol.crypto.verify(publicKey, message, signature);
  return { valid };
}

/** One data entry of an account (`/addresses/data/{address}/{key}`, gRPC GetAddressDataByKey): 102 for a bad address, 304 without one. */
export function accountDataEntry(services: ApiServices, rawAddress: string, key: string): DataEntry {
  const address = services.protocol.addresses.parseAddress(rawAddress, 'address');
  const entry = services.chain.state().dataEntry(address.bytes, key);
  if (entry === undefined) throw dataKeyNotExists(key);
  return entry;
}

function accountDataItem(ctx: ApiContext, rawAddress: string, key: string): JsonObject {
  return dataEntryJson(accountDataEntry(ctx.services, rawAddress, key), ctx.services.protocol);
}

const balanceAnswer = (address: Address, confirmations: number, balance: bigint) => ({ address: address.toString(), confirmations, balance });

export const addressesRoutes = defineRoutes(
  { name: 'addresses', description: 'Accounts: balances, scripts, data, address checks, signing with keystore keys' },
  [
    route({
      method: 'GET',
      path: '/addresses',
      auth: 'user',
      summary: 'Addresses of the node keystore',
      responses: { 200: A.AddressList },
      handler: (_req, ctx) => [...ctx.services.wallet.addresses()],
    }),
    route({
      method: 'GET',
      path: '/addresses/seq/{from}/{to}',
      auth: 'user',
      summary: 'A slice of the keystore addresses, indices `from` to `to` inclusive (at most 1001)',
      params: { from: nonNegativeInt('First index (≥ 0)'), to: positiveInt('Last index (> 0)') },
      responses: { 200: A.AddressList, 400: err('199 bad index (`Invalid parameters: [...]`) or `Invalid interval`; 10 `to` − `from` > 1000') },
      handler: ({ params }, ctx) => {
        if (params.to - params.from > MAX_SEQ_SPAN) throw tooBigArray('to');
        if (params.to < params.from) throw customValidationError('Invalid interval', 'to');
        return ctx.services.wallet.addresses().slice(params.from, params.to + 1);
      },
    }),
    route({
      method: 'GET',
      path: '/addresses/info/{address}',
      auth: 'user',
      summary: 'Public key of a keystore address',
      params: { address: addressParam() },
      responses: { 200: A.AddressPublicKeyInfo, 400: err('102 invalid address; 115 the address is not in the keystore') },
      handler: ({ params }, ctx) => {
        const address = parseAddress(ctx, params.address);
        return { address: address.toString(), publicKey: encodeBase58(withField('address', () => ctx.services.wallet.publicKey(address.toString()))) };
      },
    }),
    route({
      method: 'GET',
      path: '/addresses/publicKey/{publicKey}',
      auth: 'user',
      summary: 'The address of a public key',
      params: { publicKey: text('Public key, Base58') },
      responses: { 200: A.AddressAnswer, 400: err('108 invalid public key') },
      handler: ({ params }, ctx) => {
        const scheme = ctx.services.protocol.addresses;
        return { address: scheme.fromPublicKey(scheme.parsePublicKey(params.publicKey, 'publicKey')).toString() };
      },
    }),
    route({
      method: 'GET',
      path: '/addresses/balance/{address}',
      auth: 'user',
      summary: 'Regular WEST balance',
      params: { address: addressParam() },
      responses: { 200: A.Balance, 400: err('102 invalid address') },
      handler: ({ params }, ctx) => {
        const address = parseAddress(ctx, params.address);
        return balanceAnswer(address, 0, ctx.services.chain.state().balance(address.bytes, null));
      },
    }),
    route({
      method: 'GET',
      path: '/addresses/balance/{address}/{confirmations}',
      auth: 'user',
      summary: 'Regular WEST balance held over the last `confirmations` blocks (beyond WE 1.14, which lacks this route; the official js-sdk calls it)',
      description:
        'The smallest regular balance in force at any height of [max(1, height − confirmations + 1), height] — the window of `/addresses/effectiveBalance/{address}/{confirmations}`, applied to the regular balance.',
      params: { address: addressParam(), confirmations: positiveInt('Number of blocks (> 0)') },
      responses: { 200: A.Balance, 400: err("199 `Invalid parameter: '<v>' must be positive`; 102 invalid address") },
      handler: ({ params }, ctx) => {
        const address = parseAddress(ctx, params.address);
        const { from, to } = confirmationWindow(ctx.services.chain.height(), params.confirmations);
        return balanceAnswer(address, params.confirmations, ctx.services.history.minBalance(address.bytes, from, to));
      },
    }),
    route({
      method: 'GET',
      path: '/addresses/balance/details/{address}',
      auth: 'user',
      summary: 'Regular, available, effective and generating WEST balances',
      params: { address: addressParam() },
      responses: { 200: A.BalanceDetails, 400: err('102 invalid address') },
      handler: ({ params }, ctx) => balanceDetails(ctx.services, parseAddress(ctx, params.address)),
    }),
    route({
      method: 'POST',
      path: '/addresses/balance/details',
      auth: 'user',
      summary: 'Balance details of many addresses (at most 1000)',
      description: 'Details of the valid addresses come first, in request order, then `{address, error: 102, message}` for each invalid one.',
      body: { schema: A.AddressesRequest, read: 'schema' },
      responses: {
        200: Type.Array(Type.Union([A.BalanceDetails, A.BalanceDetailsError])),
        400: err('1 malformed body; 10 more than 1000 addresses'),
      },
      handler: ({ body }, ctx) => {
        if (body.addresses.length > MAX_ADDRESSES_PER_REQUEST) throw tooBigArray('addresses');
        const valid: JsonObject[] = [];
        const invalid: JsonObject[] = [];
        for (const raw of body.addresses) {
          let address: Address;
          try {
            address = ctx.services.protocol.addresses.parseAddress(raw);
          } catch (e) {
            if (!(e instanceof WeError)) throw e;
            invalid.push({ address: raw, error: e.code, message: e.message });
            continue;
          }
          valid.push(balanceDetails(ctx.services, address));
        }
        return [...valid, ...invalid];
      },
    }),
    route({
      method: 'GET',
      path: '/addresses/effectiveBalance/{address}',
      auth: 'user',
      summary: 'Effective WEST balance: regular + leased in − leased out',
      params: { address: addressParam() },
      responses: { 200: A.Balance, 400: err('102 invalid address') },
      handler: ({ params }, ctx) => {
        const address = parseAddress(ctx, params.address);
        const state = ctx.services.chain.state();
        const lease = state.leaseBalance(address.bytes);
        return balanceAnswer(address, 0, state.balance(address.bytes, null) + lease.in - lease.out);
      },
    }),
    route({
      method: 'GET',
      path: '/addresses/effectiveBalance/{address}/{confirmations}',
      auth: 'user',
      summary: 'Smallest effective balance over the last `confirmations` blocks',
      description: 'The smallest effective balance in force at any height of [max(1, height − confirmations + 1), height].',
      params: { address: addressParam(), confirmations: positiveInt('Number of blocks (> 0)') },
      responses: { 200: A.Balance, 400: err("199 `Invalid parameter: '<v>' must be positive`; 102 invalid address") },
      handler: ({ params }, ctx) => {
        const address = parseAddress(ctx, params.address);
        const { from, to } = confirmationWindow(ctx.services.chain.height(), params.confirmations);
        return balanceAnswer(address, params.confirmations, ctx.services.history.minEffectiveBalance(address.bytes, from, to));
      },
    }),
    route({
      method: 'GET',
      path: '/addresses/generatingBalance/{address}/at/{height}',
      auth: 'user',
      summary: 'Generating balance at a height: the smallest effective balance over the 1000 blocks up to it',
      description: '`address` is echoed as given.',
      params: { address: addressParam(), height: positiveInt('Height (> 0, at most the current height)') },
      responses: {
        200: A.GeneratingBalance,
        400: err("199 `Invalid parameter: '<v>' must be positive`; 310 height above the current one; 102 invalid address"),
      },
      handler: ({ params }, ctx) => {
        const current = ctx.services.chain.height();
        if (params.height > current) throw requestedHeightDoesntExist(params.height, current);
        const address = parseAddress(ctx, params.address);
        return { address: params.address, balance: generatingBalance(ctx.services, address.bytes, params.height) };
      },
    }),
    route({
      method: 'GET',
      path: '/addresses/scriptInfo/{address}',
      auth: 'user',
      summary: "The account's script, its text and complexity",
      params: { address: addressParam() },
      responses: { 200: A.ScriptInfo, 400: err('102 invalid address') },
      handler: ({ params }, ctx) => {
        const address = parseAddress(ctx, params.address);
        const bytes = ctx.services.chain.state().accountScript(address.bytes);
        if (bytes === null) return { address: address.toString(), complexity: 0, extraFee: SCRIPT_EXTRA_FEE };
        const script = readScript(bytes, ctx.services.protocol);
        return {
          address: address.toString(),
          script: `base64:${Buffer.from(script.bytes).toString('base64')}`,
          scriptText: scriptText(script.expr),
          complexity: BigInt(script.complexity),
          extraFee: SCRIPT_EXTRA_FEE,
        };
      },
    }),
    route({
      method: 'GET',
      path: '/addresses/data/{address}',
      auth: 'user',
      summary: "The account's data entries, sorted by key",
      description:
        "Paging: skip `offset` entries, take `limit`. `matches` (beyond WE's address route, as its contract routes have it) keeps the keys the whole of which match the regular expression; it applies before paging.",
      params: { address: addressParam() },
      query: {
        offset: optionalQuery(text('Entries to skip (≥ 0)')),
        limit: optionalQuery(text('Entries to return (> 0)')),
        matches: ENTRY_PAGE_QUERY.matches,
      },
      responses: {
        200: A.DataEntries,
        400: err('199 bad `offset`/`limit` (`Invalid parameters: [...]`); 102 invalid address; 629 bad `matches` pattern; 113 `offset` + `limit` overflow'),
      },
      handler: ({ params, query, headers }, ctx) => {
        const ints = readIntQueries([
          { name: 'offset', raw: query.offset, rule: 'non-negative' },
          { name: 'limit', raw: query.limit, rule: 'positive' },
        ]);
        const address = parseAddress(ctx, params.address);
        const filter = keysFilter(query.matches);
        return heavyJsonAnswer(ctx, headers.accept, async (out, int64AsString) => {
          const entries = sortedDataEntries(ctx.services, address.bytes);
          const kept = filter === undefined ? entries : await keysMatching(entries, (e) => e.key, filter, out);
          await writeJsonArray(out, pageEntries(kept, ints['offset'], ints['limit']), (e) => dataEntryJson(e, ctx.services.protocol), int64AsString);
        });
      },
    }),
    route({
      method: 'GET',
      path: '/addresses/data/{address}/{key}',
      auth: 'user',
      summary: 'One data entry of the account',
      params: { address: addressParam(), key: text('Data key (URL-encoded)') },
      responses: { 200: A.DataEntry, 400: err('102 invalid address'), 404: err('304 no data for this key') },
      handler: ({ params }, ctx) => accountDataItem(ctx, params.address, params.key),
    }),
    route({
      method: 'GET',
      path: '/addresses/data/{address}/',
      auth: 'user',
      summary: 'The entry under the empty key (WE reads a trailing slash as an empty key)',
      hidden: true,
      params: { address: addressParam() },
      responses: { 200: A.DataEntry, 400: err('102 invalid address'), 404: err('304 no data for this key') },
      handler: ({ params }, ctx) => accountDataItem(ctx, params.address, ''),
    }),
    route({
      method: 'GET',
      path: '/addresses/validate/{addressOrAlias}',
      auth: 'user',
      summary: 'Checks an address, an `alias:<chain>:<name>` or a bare alias name (an alias must exist)',
      params: { addressOrAlias: text('Address, full alias or alias name') },
      responses: { 200: A.Validity, 400: err("199 `Invalid address or alias: <WE's internal error>`") },
      handler: ({ params }, ctx) => {
        const problem = addressOrAliasProblem(ctx.services.protocol, ctx.services.chain.state(), params.addressOrAlias);
        if (problem !== undefined) throw customValidationError(`Invalid address or alias: ${problem}`, 'addressOrAlias');
        return { addressOrAlias: params.addressOrAlias, valid: true };
      },
    }),
    route({
      method: 'POST',
      path: '/addresses/validateMany',
      auth: 'user',
      summary: 'Checks many addresses or aliases',
      body: { schema: A.ValidateManyRequest, read: 'schema' },
      responses: { 200: A.ValidityMany, 400: err('1 malformed body') },
      handler: ({ body }, ctx) => {
        const state = ctx.services.chain.state();
        return {
          validations: body.addressesOrAliases.map((addressOrAlias) => {
            const reason = addressOrAliasProblem(ctx.services.protocol, state, addressOrAlias);
            return reason === undefined ? { addressOrAlias, valid: true } : { addressOrAlias, valid: false, reason };
          }),
        };
      },
    }),
    route({
      method: 'POST',
      path: '/addresses/sign/{address}',
      auth: 'user',
      summary: 'Signs the UTF-8 bytes of a message with a keystore key; the answer gives the message in Base58',
      unavailableInPkiMode: true,
      params: { address: addressParam() },
      body: { schema: A.MessageRequest, read: 'schema' },
      responses: { 200: A.Signed, 400: err('1 malformed body; 102 invalid address; 115 not in the keystore or wrong password') },
      handler: ({ params, body }, ctx) => signMessage(ctx, params.address, body, true),
    }),
    route({
      method: 'POST',
      path: '/addresses/signText/{address}',
      auth: 'user',
      summary: 'Signs the UTF-8 bytes of a message with a keystore key; the answer gives the message as sent',
      unavailableInPkiMode: true,
      params: { address: addressParam() },
      body: { schema: A.MessageRequest, read: 'schema' },
      responses: { 200: A.Signed, 400: err('1 malformed body; 102 invalid address; 115 not in the keystore or wrong password') },
      handler: ({ params, body }, ctx) => signMessage(ctx, params.address, body, false),
    }),
    route({
      method: 'POST',
      path: '/addresses/verify/{address}',
      auth: 'user',
      summary: 'Checks a signature of Base58-encoded message bytes by the key of the address',
      description: '`valid` is false when the public key does not belong to the address.',
      params: { address: addressParam() },
      body: { schema: A.SignedMessageRequest, read: 'object' },
      responses: {
        200: A.VerificationResult,
        400: err('1 malformed body; 102 invalid address; 110 message not Base58; 101 empty or bad signature; 108 empty or bad public key'),
      },
      handler: ({ params, body }, ctx) => verifyMessage(ctx, params.address, body, true),
    }),
    route({
      method: 'POST',
      path: '/addresses/verifyText/{address}',
      auth: 'user',
      summary: 'Checks a signature of the UTF-8 bytes of a text by the key of the address',
      params: { address: addressParam() },
      body: { schema: A.SignedMessageRequest, read: 'object' },
      responses: { 200: A.VerificationResult, 400: err('1 malformed body; 102 invalid address; 101 empty or bad signature; 108 empty or bad public key') },
      handler: ({ params, body }, ctx) => verifyMessage(ctx, params.address, body, false),
    }),
  ],
);
