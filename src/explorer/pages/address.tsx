/**
 * An address: WEST balances, assets held, active leases, roles, aliases, script, data, and
 * its transactions newest first, paged with WE's cursor (`after` = the last id of a page).
 */
import type { JSX } from 'preact';
import { seg } from '../api.js';
import { AddressLink, Amount, Badge, Card, Facts, Id, Show, Stat, Table, TxLink, TxTable } from '../components.js';
import { formatTime, formatUnits, jsonText, type Int64 } from '../format.js';
import { useResource } from '../hooks.js';
import type { DataEntry, Tx } from '../model.js';
import { href } from '../routes.js';
import { DataEntries } from './transaction.js';

const TX_PAGE = 25;
const DATA_LIMIT = 100;

interface BalanceDetails {
  readonly regular: Int64;
  readonly generating: Int64;
  readonly available: Int64;
  readonly effective: Int64;
}

interface AssetBalance {
  readonly assetId: string;
  readonly name: string;
  readonly balance: Int64;
  readonly decimals: number;
  readonly reissuable: boolean;
  readonly quantity: Int64;
}

function Balances({ address }: { address: string }): JSX.Element {
  const balance = useResource((api) => api.getJson<BalanceDetails>(`/addresses/balance/details/${seg(address)}`), [address]);
  return (
    <Show resource={balance} what="balances">
      {(b) => (
        <div class="stats" data-testid="balances">
          <Stat label="regular" value={<Amount value={b.regular} />} testId="balance-regular" />
          <Stat label="available" value={<Amount value={b.available} />} />
          <Stat label="effective" value={<Amount value={b.effective} />} />
          <Stat label="generating" value={<Amount value={b.generating} />} />
        </div>
      )}
    </Show>
  );
}

function Assets({ address }: { address: string }): JSX.Element {
  const assets = useResource((api) => api.getJson<{ balances: AssetBalance[] }>(`/assets/balance-v2/${seg(address)}`), [address]);
  return (
    <Show resource={assets} what="assets">
      {({ balances }) => (
        <Table
          items={balances}
          testId="assets"
          empty="No assets."
          rowKey={(a) => a.assetId}
          rowData={(a) => ({ asset: a.assetId })}
          columns={[
            { label: 'Asset', cell: (a) => <a href={href.asset(a.assetId)}>{a.name}</a> },
            { label: 'Balance', num: true, cell: (a) => formatUnits(a.balance, a.decimals) },
            { label: 'Id', cell: (a) => <Id value={a.assetId} link={href.asset(a.assetId)} short /> },
          ]}
        />
      )}
    </Show>
  );
}

function Leases({ address }: { address: string }): JSX.Element {
  const leases = useResource((api) => api.getJson<Tx[]>(`/leasing/active/${seg(address)}`), [address]);
  return (
    <Show resource={leases} what="leases">
      {(ls) => (
        <Table
          items={ls}
          testId="leases"
          empty="No active leases."
          rowKey={(l) => l.id}
          columns={[
            { label: 'Lease', cell: (l) => <TxLink id={l.id} short /> },
            {
              label: 'Direction',
              cell: (l) =>
                l.sender === address ? (
                  <span>
                    to <AddressLink address={jsonText(l['recipient'])} short />
                  </span>
                ) : (
                  <span>from {l.sender !== undefined && <AddressLink address={l.sender} short />}</span>
                ),
            },
            { label: 'Amount', num: true, cell: (l) => <Amount value={l['amount'] as Int64} /> },
            { label: 'Since', class: 'small', cell: (l) => formatTime(l.timestamp) },
          ]}
        />
      )}
    </Show>
  );
}

function Identity({ address }: { address: string }): JSX.Element {
  const roles = useResource((api) => api.getJson<{ roles: Array<{ role: string; dueTimestamp?: Int64 }> }>(`/permissions/${seg(address)}`), [address]);
  const aliases = useResource((api) => api.getJson<string[]>(`/alias/by-address/${seg(address)}`), [address]);
  const script = useResource(
    (api) => api.getJson<{ script?: string; scriptText?: string; complexity: Int64 }>(`/addresses/scriptInfo/${seg(address)}`),
    [address],
  );
  return (
    <Facts
      facts={[
        {
          field: 'roles',
          value: (
            <span data-testid="roles">
              <Show resource={roles} what="roles">
                {(r) =>
                  r.roles.length === 0 ? (
                    <span class="muted">none</span>
                  ) : (
                    r.roles.map((x) => (
                      <span key={x.role}>
                        <Badge kind="info">{x.role}</Badge>
                        {x.dueTimestamp !== undefined && <span class="small muted"> until {formatTime(x.dueTimestamp)}</span>}{' '}
                      </span>
                    ))
                  )
                }
              </Show>
            </span>
          ),
        },
        {
          field: 'aliases',
          value: (
            <Show resource={aliases} what="aliases">
              {(a) => (a.length === 0 ? <span class="muted">none</span> : <span>{a.join(', ')}</span>)}
            </Show>
          ),
        },
        {
          field: 'script',
          value: (
            <Show resource={script} what="the script">
              {(sc) =>
                sc.script === undefined ? (
                  <span class="muted">none (signature only)</span>
                ) : (
                  <div>
                    <div class="small">complexity {jsonText(sc.complexity)}</div>
                    <pre class="json">{sc.scriptText ?? sc.script}</pre>
                  </div>
                )
              }
            </Show>
          ),
        },
      ]}
    />
  );
}

function Transactions({ address, after }: { address: string; after?: string }): JSX.Element {
  const page = useResource(
    async (api) => {
      const query = after === undefined ? '' : `?after=${seg(after)}`;
      const nested = await api.getJson<Tx[][]>(`/transactions/address/${seg(address)}/limit/${TX_PAGE}${query}`);
      return nested[0] ?? [];
    },
    [address, after],
  );
  return (
    <Show resource={page} what="transactions">
      {(txs) => (
        <div>
          <TxTable txs={txs} showHeight testId="address-txs" />
          <div class="pager">
            {after !== undefined && <a href={href.address(address)}>← newest</a>}
            {txs.length === TX_PAGE && (
              <a href={href.address(address, txs[txs.length - 1]!.id)} data-testid="older">
                older →
              </a>
            )}
          </div>
        </div>
      )}
    </Show>
  );
}

function Data({ address }: { address: string }): JSX.Element {
  const data = useResource((api) => api.getJson<DataEntry[]>(`/addresses/data/${seg(address)}?limit=${DATA_LIMIT}`), [address]);
  return (
    <Show resource={data} what="data entries">
      {(entries) => (
        <div>
          <DataEntries entries={entries} />
          {entries.length === DATA_LIMIT && <p class="small muted">The first {DATA_LIMIT} keys.</p>}
        </div>
      )}
    </Show>
  );
}

export function AddressPage({ address, after }: { address: string; after?: string }): JSX.Element {
  return (
    <div>
      <h1>
        Address <Id value={address} />
      </h1>
      <Card title="WEST">
        <Balances address={address} />
      </Card>
      <div class="grid two">
        <Card title="Identity">
          <Identity address={address} />
        </Card>
        <Card title="Assets">
          <Assets address={address} />
        </Card>
      </div>
      <Card title="Active leases">
        <Leases address={address} />
      </Card>
      <Card title={after === undefined ? 'Transactions, newest first' : 'Older transactions'}>
        <Transactions address={address} after={after} />
      </Card>
      <Card title="Data">
        <Data address={address} />
      </Card>
    </div>
  );
}
