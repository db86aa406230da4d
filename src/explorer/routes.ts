/**
 * The explorer's pages as URL fragments (`#/block/12`): links work offline, need nothing of
 * the server, and survive a reload or a node restart.
 */

export type Route =
  | { readonly page: 'live' }
  | { readonly page: 'network' }
  | { readonly page: 'block'; readonly ref: string }
  | { readonly page: 'tx'; readonly id: string }
  | { readonly page: 'address'; readonly address: string; readonly after?: string }
  | { readonly page: 'asset'; readonly id: string }
  | { readonly page: 'policy'; readonly id: string }
  | { readonly page: 'contract'; readonly id: string }
  | { readonly page: 'search'; readonly query: string }
  | { readonly page: 'unknown'; readonly path: string };

const enc = encodeURIComponent;

export const href = {
  live: (): string => '#/',
  network: (): string => '#/network',
  block: (ref: string | number): string => `#/block/${enc(String(ref))}`,
  tx: (id: string): string => `#/tx/${enc(id)}`,
  address: (address: string, after?: string): string => `#/address/${enc(address)}${after === undefined ? '' : `?after=${enc(after)}`}`,
  asset: (id: string): string => `#/asset/${enc(id)}`,
  policy: (id: string): string => `#/policy/${enc(id)}`,
  contract: (id: string): string => `#/contract/${enc(id)}`,
  search: (query: string): string => `#/search/${enc(query)}`,
};

function decode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** The route of a location hash (`#/tx/abc`). */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '');
  const [pathPart = '', queryPart = ''] = path.split('?', 2);
  const [page = '', rawArg, ...rest] = pathPart.split('/');
  const arg = rawArg === undefined ? undefined : decode(rawArg);
  const query = new URLSearchParams(queryPart);
  if (page === '' && arg === undefined) return { page: 'live' };
  if (page === 'network' && arg === undefined) return { page: 'network' };
  if (arg !== undefined && arg !== '' && rest.length === 0) {
    switch (page) {
      case 'block':
        return { page: 'block', ref: arg };
      case 'tx':
        return { page: 'tx', id: arg };
      case 'address': {
        const after = query.get('after');
        return after === null || after === '' ? { page: 'address', address: arg } : { page: 'address', address: arg, after };
      }
      case 'asset':
        return { page: 'asset', id: arg };
      case 'policy':
        return { page: 'policy', id: arg };
      case 'contract':
        return { page: 'contract', id: arg };
      case 'search':
        return { page: 'search', query: arg };
    }
  }
  return { page: 'unknown', path };
}
