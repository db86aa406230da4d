/**
 * A confidential-data policy: who may receive its data (recipients), who manages it
 * (owners), and the data items anchored on the chain — their hashes and the PolicyDataHash
 * transactions that carry them. Never the data: reading it (and the file metadata stored
 * with it) needs the privacy API key, which the explorer never has.
 *
 * Reads `/privacy/{id}/recipients|owners|hashes|transactions` (user routes in WE 1.14); a
 * node that does not serve them shows the policy as not available.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { seg, type NodeApi } from '../api.js';
import { AddressLink, BlockLink, Card, Id, Show, Table, TxLink } from '../components.js';
import { formatTime, jsonText } from '../format.js';
import { useResource } from '../hooks.js';
import type { Tx } from '../model.js';

const ITEMS_PAGE = 50;

interface PolicyMembers {
  readonly recipients: readonly string[];
  readonly owners: readonly string[];
  readonly hashes: readonly string[];
  readonly transactions: readonly string[];
}

async function members(api: NodeApi, id: string): Promise<PolicyMembers> {
  const base = `/privacy/${seg(id)}`;
  // One route first: a node without the privacy routes (or without this policy) answers once.
  const recipients = await api.getJson<string[]>(`${base}/recipients`);
  const [owners, hashes, transactions] = await Promise.all([
    api.getJson<string[]>(`${base}/owners`),
    api.getJson<string[]>(`${base}/hashes`),
    api.getJson<string[]>(`${base}/transactions`),
  ]);
  return { recipients, owners, hashes, transactions };
}

function AddressList({ addresses, testId }: { addresses: readonly string[]; testId: string }): JSX.Element {
  if (addresses.length === 0) return <p class="muted">None.</p>;
  return (
    <ul class="feed" data-testid={testId}>
      {addresses.map((a) => (
        <li key={a}>
          <AddressLink address={a} />
        </li>
      ))}
    </ul>
  );
}

/** The PolicyDataHash transactions of the policy, newest first, a page at a time. */
function DataItems({ txIds }: { txIds: readonly string[] }): JSX.Element {
  const [shown, setShown] = useState(ITEMS_PAGE);
  const items = useResource(
    async (api) => {
      const txs = await Promise.all(txIds.slice(0, shown).map((id) => api.findJson<Tx>(`/transactions/info/${seg(id)}`)));
      return txs.filter((t): t is Tx => t !== undefined).sort((a, b) => Number(BigInt(b.timestamp) - BigInt(a.timestamp)));
    },
    [txIds, shown],
  );
  if (txIds.length === 0) return <p class="muted">No data items yet.</p>;
  return (
    <Show resource={items} what="the data items">
      {(txs) => (
        <div>
          <Table
            items={txs}
            testId="policy-items"
            rowKey={(t) => t.id}
            rowData={(t) => ({ hash: jsonText(t['dataHash']) })}
            columns={[
              { label: 'Data hash', cell: (t) => <Id value={jsonText(t['dataHash'])} /> },
              { label: 'Sent by', cell: (t) => t.sender !== undefined && <AddressLink address={t.sender} short /> },
              { label: 'Transaction', cell: (t) => <TxLink id={t.id} short /> },
              { label: 'Height', num: true, cell: (t) => t.height !== undefined && <BlockLink height={t.height} /> },
              { label: 'Time', class: 'small', cell: (t) => formatTime(t.timestamp) },
            ]}
          />
          {txIds.length > shown && (
            <button class="link" onClick={() => setShown(shown + ITEMS_PAGE)}>
              {txIds.length - shown} more…
            </button>
          )}
        </div>
      )}
    </Show>
  );
}

export function PolicyPage({ id }: { id: string }): JSX.Element {
  const creation = useResource((api) => api.findJson<Tx>(`/transactions/info/${seg(id)}`), [id]);
  const policy = useResource((api) => members(api, id), [id]);
  return (
    <div>
      <h1>
        Policy{creation.state === 'ok' && creation.value !== undefined && creation.value.type === 112 ? ` “${String(creation.value['policyName'])}”` : ''}{' '}
        <Id value={id} />
      </h1>
      <Card>
        <Show resource={creation} what="the policy's creation">
          {(tx) =>
            tx === undefined || tx.type !== 112 ? (
              <p class="muted">No CreatePolicy transaction has this id.</p>
            ) : (
              <p data-testid="policy-created">
                {String(tx['description']) === '' ? '' : `${String(tx['description'])}. `}Created by <AddressLink address={tx.sender!} short /> in{' '}
                <TxLink id={tx.id} short /> at height {tx.height !== undefined && <BlockLink height={tx.height} />}, {formatTime(tx.timestamp)}.
              </p>
            )
          }
        </Show>
      </Card>
      <Show resource={policy} what="the policy">
        {(p) => (
          <div>
            <div class="grid two">
              <Card title={`Recipients (${p.recipients.length})`}>
                <AddressList addresses={p.recipients} testId="policy-recipients" />
              </Card>
              <Card title={`Owners (${p.owners.length})`}>
                <AddressList addresses={p.owners} testId="policy-owners" />
              </Card>
            </div>
            <Card title={`Data items (${p.hashes.length})`}>
              <DataItems txIds={p.transactions} />
              <p class="small muted">
                Shown from the chain: each item&apos;s hash and the transaction that anchored it. The data itself, and its file name, size and author, are read
                only with the privacy API key, which this page never uses.
              </p>
            </Card>
          </div>
        )}
      </Show>
    </div>
  );
}
