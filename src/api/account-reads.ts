/**
 * Reads behind the account-side routes (addresses, alias, leasing, assets), with WE's
 * rules: balance windows (AddressApiRoute, GeneratingBalanceProvider), data paging and key
 * filters (AddressApiService, KeysPagination, ContractKeysOps; patterns run by state/key-pattern.ts), address-or-alias checks
 * and their Scala `toString` reasons, query integers (ValidInt).
 */
import type { Address } from '../crypto/address.js';
import { decodeBase58 } from '../crypto/encoding.js';
import type { JsonObject } from '../protocol/json.js';
import { DATA_ENTRY, type DataEntry } from '../protocol/transactions/fields.js';
import type { Protocol } from '../protocol/protocol.js';
import type { AccountReader } from '../state/view.js';
import { KeyPattern, keysMatching, type LoopPacer } from '../state/key-pattern.js';
import { NOT_FOUND_TEXT, PlainTextReply } from './errors.js';
import { optionalQuery, parseJavaInt, text, validIntError } from './params.js';
import type { ApiServices } from './services.js';
import { overflowError, WeError } from '../errors/catalogue.js';

/** GeneratingBalanceProvider.BalanceDepth: the generating balance is the smallest effective balance over this many blocks. */
export const GENERATING_BALANCE_DEPTH = 1000;

/** AddressApiRoute / AssetsApiRoute `MaxAddressesPerRequest`. */
export const MAX_ADDRESSES_PER_REQUEST = 1000;

/**
 * WE's window of a balance "with confirmations" at `height`: the heights
 * [max(1, height − confirmations + 1), height] (just `height` for 0 confirmations).
 */
export function confirmationWindow(height: number, confirmations: number): { from: number; to: number } {
  return { from: Math.min(Math.max(height - confirmations + 1, 1), height), to: height };
}

/** The generating balance at a height: the smallest effective balance over the 1000 blocks up to it. */
export function generatingBalance(services: ApiServices, address: Uint8Array, height: number): bigint {
  const { from, to } = confirmationWindow(height, GENERATING_BALANCE_DEPTH);
  return services.history.minEffectiveBalance(address, from, to);
}

/** `/addresses/balance/details` of one address. */
export function balanceDetails(services: ApiServices, address: Address): JsonObject {
  const state = services.chain.state();
  const regular = state.balance(address.bytes, null);
  const lease = state.leaseBalance(address.bytes);
  return {
    address: address.toString(),
    regular,
    generating: generatingBalance(services, address.bytes, state.height()),
    available: regular - lease.out,
    effective: regular + lease.in - lease.out,
  };
}

// ---------------------------------------------------------------------------
// Query integers (ValidInt over a list: always the plural wording)

export interface IntQuery {
  readonly name: string;
  /** The query's text, or the number a protobuf field carries (gRPC). */
  readonly raw: string | number | undefined;
  readonly rule: 'positive' | 'non-negative';
}

/**
 * Reads optional integer query values as WE's `List(...).processRoute` does: every failing
 * one is listed in one 199 `Invalid parameters: [...]`.
 */
export function readIntQueries(queries: readonly IntQuery[]): Record<string, number | undefined> {
  const out: Record<string, number | undefined> = {};
  const problems: string[] = [];
  let field: string | undefined;
  for (const q of queries) {
    if (q.raw === undefined) continue;
    const n = typeof q.raw === 'number' ? q.raw : parseJavaInt(q.raw);
    let problem: string | undefined;
    if (n === undefined) problem = `Unable to parse Integer from '${q.raw}'`;
    else if (q.rule === 'positive' ? n <= 0 : n < 0) problem = `'${n}' must be ${q.rule}`;
    if (problem === undefined) out[q.name] = n;
    else {
      problems.push(problem);
      field ??= q.name;
    }
  }
  if (problems.length > 0) throw validIntError(problems, 2, field);
  return out;
}

/** A boolean query value as Akka reads it (`true/yes/on/1`, `false/no/off/0`); anything else rejects the route (404). */
export function readBooleanQuery(raw: string | undefined): boolean | undefined {
  if (raw === undefined) return undefined;
  switch (raw.toLowerCase()) {
    case 'true':
    case 'yes':
    case 'on':
    case '1':
      return true;
    case 'false':
    case 'no':
    case 'off':
    case '0':
      return false;
    default:
      throw new PlainTextReply(404, NOT_FOUND_TEXT);
  }
}

// ---------------------------------------------------------------------------
// Data entries

const INT_MAX = 2 ** 31 - 1;

/** The key pattern of `matches` (WE's 629 when it cannot run: state/key-pattern.ts), or undefined without one. */
export function keysFilter(matches: string | undefined): KeyPattern | undefined {
  return matches === undefined ? undefined : KeyPattern.compile(matches);
}

/**
 * WE's paging of keys: filter, then drop `offset` and take `limit` (offset + limit past
 * Int.MaxValue is WE's 113).
 */
export function pageEntries<T>(items: readonly T[], offset: number | undefined, limit: number | undefined): T[] {
  const from = Math.max(offset ?? 0, 0);
  if (limit === undefined) return items.slice(from);
  if (offset !== undefined && from + limit > INT_MAX) throw overflowError('limit');
  return items.slice(from, from + limit);
}

/** The query of the routes that page a contract's entries: `offset`, `limit` (each > 0) and `matches`. */
export const ENTRY_PAGE_QUERY = {
  offset: optionalQuery(text('Entries to skip (≥ 0)')),
  limit: optionalQuery(text('Entries to return (> 0)')),
  matches: optionalQuery(
    text('Regular expression a key must match as a whole (Java syntax, run in linear time: no lookaround, back-references or possessive quantifiers)'),
  ),
};

/** How an entry page is taken from a list: the items whose key matches (the loop given a turn as the pacer says), then `offset` and `limit`. */
export type EntryPager = <T>(items: readonly T[], keyOf: (item: T) => string, pacer: LoopPacer) => Promise<T[]>;

/**
 * Reads an entry-page query (199 for a bad `offset`/`limit`, 629 for a bad `matches`) and
 * returns how it pages a list: the items whose key matches, then `offset` and `limit`.
 */
export function readEntryPage(query: {
  readonly offset?: string | undefined;
  readonly limit?: string | undefined;
  readonly matches?: string | undefined;
}): EntryPager {
  const ints = readIntQueries([
    // WE 1.14 wants offset > 0 here; the official js-sdk's contracts.get(id) sends offset=0, so 0 is taken (docs/we-compatibility.md).
    { name: 'offset', raw: query.offset, rule: 'non-negative' },
    { name: 'limit', raw: query.limit, rule: 'positive' },
  ]);
  const filter = keysFilter(query.matches);
  return async (items, keyOf, pacer) =>
    pageEntries(filter === undefined ? items : await keysMatching(items, keyOf, filter, pacer), ints['offset'], ints['limit']);
}

/** Data entries of an address sorted by key (Java String order: UTF-16 code units, as JavaScript compares). */
export function sortedDataEntries(services: ApiServices, address: Uint8Array): DataEntry[] {
  return [...services.history.dataEntries(address)].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** `{"key", "type", "value"}`. */
export function dataEntryJson(entry: DataEntry, protocol: Protocol): JsonObject {
  return DATA_ENTRY.toJson(entry, protocol) as JsonObject;
}

// ---------------------------------------------------------------------------
// Addresses and aliases

const CRYPTO_PREFIX: Readonly<Record<string, string>> = { InvalidAddress: 'invalid address: ', InvalidPublicKey: 'invalid public key: ' };

/** The Scala `toString` of the internal error behind a WeError: `InvalidAddress(<reason>)`, `GenericError(<message>)`. */
export function internalErrorText(e: WeError): string {
  const prefix = CRYPTO_PREFIX[e.kind];
  const reason = prefix !== undefined && e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
  return `${e.kind}(${reason})`;
}

/**
 * WE's `checkAddressOrAliasValid`: Base58 of 26 bytes is an address (checked); otherwise
 * an alias — `alias:<c>:<name>` when the text starts with "alias", else a bare name of
 * this network — which must exist. Returns the internal error's text, or undefined when valid.
 */
export function addressOrAliasProblem(protocol: Protocol, state: AccountReader, text: string): string | undefined {
  const scheme = protocol.addresses;
  try {
    let bytes: Uint8Array | undefined;
    try {
      bytes = decodeBase58(text);
    } catch {
      bytes = undefined;
    }
    if (bytes !== undefined && bytes.length === 26) {
      scheme.addressFromBytes(bytes);
      return undefined;
    }
    const alias = text.startsWith('alias') ? scheme.parseAlias(text) : scheme.alias(text);
    if (state.aliasOwner(alias.name) === undefined) return `AliasDoesNotExist(${alias.toString()})`;
    return undefined;
  } catch (e) {
    if (e instanceof WeError) return internalErrorText(e);
    throw e;
  }
}

/** An asset holder as WE writes it: `{"type":"Account","address":…}`. */
export function accountHolderJson(protocol: Protocol, issuerPublicKey: Uint8Array): JsonObject {
  return { type: 'Account', address: protocol.addresses.fromPublicKey(issuerPublicKey).toString() };
}
