/**
 * Search: what a typed text names — a height, a block signature, a transaction id, an
 * address or alias, an asset, a policy or a contract — found by asking the node.
 *
 * Ids are told apart by their Base58 length: 26 bytes is an address, 64 a block signature
 * (or a genesis transaction id), 32 any other id. Assets, policies and contracts are named
 * by the id of the transaction that made them (Issue, CreatePolicy, CreateContract), so
 * one transaction lookup finds them; only an asset a contract issued needs the asset route.
 */
import { isNotFound, NodeError, RouteAbsent, seg, type NodeApi } from './api.js';
import type { Tx } from './model.js';
import { href } from './routes.js';

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
/** WE's alias name rule (4–30 of these characters). */
const ALIAS_NAME = /^[-.0-9@_a-z]{4,30}$/;

/** How many bytes a Base58 text decodes to; undefined when it is not Base58. */
export function base58ByteLength(text: string): number | undefined {
  if (!BASE58.test(text)) return undefined;
  let value = 0n;
  for (const c of text) value = value * 58n + BigInt(BASE58_ALPHABET.indexOf(c));
  let bytes = 0;
  while (value > 0n) {
    value >>= 8n;
    bytes++;
  }
  const leadingZeros = /^1*/.exec(text)![0].length;
  return bytes + leadingZeros;
}

export type SearchOutcome = { readonly found: string } | { readonly notFound: string };

const found = (link: string): SearchOutcome => ({ found: link });
const notFound = (why: string): SearchOutcome => ({ notFound: why });

/** The page of a transaction's id: the thing it created, when it created one. */
export function pageOfTransaction(tx: Pick<Tx, 'type' | 'id'>): string {
  switch (tx.type) {
    case 3:
      return href.asset(tx.id);
    case 103:
      return href.contract(tx.id);
    case 112:
      return href.policy(tx.id);
    default:
      return href.tx(tx.id);
  }
}

/** A lookup that may also be absent from this node (privacy and contract routes): absent is "not found". */
async function exists(api: NodeApi, path: string): Promise<boolean> {
  try {
    return (await api.findJson(path)) !== undefined;
  } catch (e) {
    if (e instanceof RouteAbsent) return false;
    // 199/612: "no such asset / policy" for an id that decodes but names nothing.
    if (e instanceof NodeError && e.status === 400) return false;
    throw e;
  }
}

async function searchId(api: NodeApi, id: string): Promise<SearchOutcome> {
  const tx = await api.findJson<Tx>(`/transactions/info/${seg(id)}`);
  if (tx !== undefined) return found(pageOfTransaction(tx));
  const pooled = await api.findJson<Tx>(`/transactions/unconfirmed/info/${seg(id)}`);
  if (pooled !== undefined) return found(href.tx(pooled.id));
  // Assets issued by a contract have no Issue transaction.
  if (await exists(api, `/assets/details/${seg(id)}`)) return found(href.asset(id));
  if (await exists(api, `/contracts/info/${seg(id)}`)) return found(href.contract(id));
  if (await exists(api, `/privacy/${seg(id)}/owners`)) return found(href.policy(id));
  return notFound(`No transaction, asset, contract or policy has the id ${id}.`);
}

async function searchAlias(api: NodeApi, name: string): Promise<SearchOutcome> {
  try {
    const answer = await api.getJson<{ address: string }>(`/alias/by-alias/${seg(name)}`);
    return found(href.address(answer.address));
  } catch (e) {
    if (e instanceof NodeError && (isNotFound(e) || e.status === 400)) return notFound(e.message);
    throw e;
  }
}

/** Finds what `query` names; the answer is a page link or why nothing matched. */
export async function search(api: NodeApi, query: string): Promise<SearchOutcome> {
  const q = query.trim();
  if (q === '') return notFound('Type a height, block signature, transaction id, address, alias, asset, policy or contract id.');
  if (/^\d{1,10}$/.test(q)) {
    const height = Number(q);
    const header = height >= 1 ? await api.findJson(`/blocks/headers/at/${height}`) : undefined;
    if (header !== undefined) return found(href.block(height));
    const { height: top } = await api.getJson<{ height: number }>('/blocks/height');
    return notFound(`There is no block at height ${q}: the chain is at height ${top}.`);
  }
  const alias = /^alias:[^:]:(.*)$/.exec(q);
  if (alias !== null) return searchAlias(api, alias[1]!);
  switch (base58ByteLength(q)) {
    case 26: {
      try {
        await api.getJson(`/addresses/validate/${seg(q)}`);
        return found(href.address(q));
      } catch (e) {
        if (e instanceof NodeError && e.status === 400) return notFound(`${q} is not an address of this network (${e.message}).`);
        throw e;
      }
    }
    case 64: {
      const block = await api.findJson<{ height: number }>(`/blocks/height/${seg(q)}`);
      if (block !== undefined) return found(href.block(q));
      return searchId(api, q);
    }
    case 32:
      return searchId(api, q);
  }
  if (ALIAS_NAME.test(q)) return searchAlias(api, q);
  return notFound(`"${q}" is not a height, block signature, transaction id, address, alias, asset, policy or contract id.`);
}
