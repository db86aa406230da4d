/** The answer to a search: the page found (the address bar is replaced with it), or why nothing was. */
import type { JSX } from 'preact';
import { useEffect } from 'preact/hooks';
import { Card, Show } from '../components.js';
import { useResource } from '../hooks.js';
import { search } from '../search.js';

export function SearchPage({ query }: { query: string }): JSX.Element {
  const outcome = useResource((api) => search(api, query), [query]);
  const target = outcome.state === 'ok' && 'found' in outcome.value ? outcome.value.found : undefined;
  useEffect(() => {
    if (target !== undefined) location.replace(target);
  }, [target]);
  return (
    <div>
      <h1>Search “{query}”</h1>
      <Card>
        <Show resource={outcome} what="the search">
          {(o) => ('notFound' in o ? <p data-testid="not-found">{o.notFound}</p> : <p class="muted">Found; opening…</p>)}
        </Show>
      </Card>
    </div>
  );
}
