/**
 * The explorer's shell: header with navigation, search and the connection state, and the
 * page of the current location hash. Each page is mounted afresh per location.
 */
import { render, type JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { NodeApi } from './api.js';
import { Card } from './components.js';
import { ApiContext, useApi, useConnection } from './hooks.js';
import { AddressPage } from './pages/address.js';
import { AssetPage } from './pages/asset.js';
import { BlockPage } from './pages/block.js';
import { ContractPage } from './pages/contract.js';
import { LivePage } from './pages/live.js';
import { NetworkPage } from './pages/network.js';
import { PolicyPage } from './pages/policy.js';
import { SearchPage } from './pages/search.js';
import { TransactionPage } from './pages/transaction.js';
import { href, parseRoute, type Route } from './routes.js';

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = (): void => {
      setHash(location.hash);
      window.scrollTo(0, 0);
    };
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return hash;
}

function Page({ route }: { route: Route }): JSX.Element {
  switch (route.page) {
    case 'live':
      return <LivePage />;
    case 'network':
      return <NetworkPage />;
    case 'block':
      return <BlockPage reference={route.ref} />;
    case 'tx':
      return <TransactionPage id={route.id} />;
    case 'address':
      return <AddressPage address={route.address} after={route.after} />;
    case 'asset':
      return <AssetPage id={route.id} />;
    case 'policy':
      return <PolicyPage id={route.id} />;
    case 'contract':
      return <ContractPage id={route.id} />;
    case 'search':
      return <SearchPage query={route.query} />;
    case 'unknown':
      return (
        <Card>
          <p>
            No page “{route.path}” here. <a href={href.live()}>Back to the live chain</a>.
          </p>
        </Card>
      );
  }
}

function ConnectionState(): JSX.Element {
  const api = useApi();
  const { online } = useConnection();
  return (
    <span
      class={`conn ${online ? 'online' : 'offline'}`}
      data-testid="connection"
      data-online={String(online)}
      title={online ? 'The node answers' : 'The node does not answer'}
    >
      <span class="dot" />
      {online ? 'connected' : 'reconnecting…'}
      {api.connection.epoch > 0 && online ? ` (reconnected ${api.connection.epoch}×)` : ''}
    </span>
  );
}

function SearchBox(): JSX.Element {
  const [text, setText] = useState('');
  return (
    <form
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim() !== '') location.hash = href.search(text.trim());
      }}
    >
      <input
        type="search"
        name="q"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        placeholder="Height, block, transaction, address, alias, asset, policy, contract"
        aria-label="Search"
        autocomplete="off"
        spellcheck={false}
      />
      <button type="submit">Search</button>
    </form>
  );
}

function App(): JSX.Element {
  const hash = useHash();
  const route = parseRoute(hash);
  const { online } = useConnection();
  return (
    <div>
      <header class="top">
        <a class="brand" href={href.live()}>
          Weft explorer
        </a>
        <nav>
          <a href={href.live()} class={route.page === 'live' ? 'active' : ''}>
            Live
          </a>
          <a href={href.network()} class={route.page === 'network' ? 'active' : ''}>
            Network
          </a>
        </nav>
        <SearchBox />
        <ConnectionState />
      </header>
      {!online && <div class="banner">The node does not answer (restarting?). The page reconnects by itself and reloads what it shows.</div>}
      <main>
        <Page key={hash} route={route} />
      </main>
    </div>
  );
}

const root = document.getElementById('app');
if (root !== null) {
  render(
    <ApiContext.Provider value={new NodeApi(new URL('../', document.baseURI))}>
      <App />
    </ApiContext.Provider>,
    root,
  );
}
