/**
 * A transaction: every field, where it is (a block, or still the pool), and for contract
 * transactions what the execution gave: the 105 with its results, and the statuses.
 */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { NodeError, seg, type NodeApi } from '../api.js';
import { Badge, BlockLink, Card, FieldTable, Id, Show, Table, TxLink, TxTable } from '../components.js';
import { formatTime, jsonText } from '../format.js';
import { useResource } from '../hooks.js';
import type { ContractStatus, DataEntry, Tx } from '../model.js';
import { href } from '../routes.js';
import { contractIdOf, EXECUTABLE_TYPES, txTypeName } from '../tx-types.js';

type Located = { readonly tx: Tx; readonly where: 'chain'; readonly chainHeight: number } | { readonly tx: Tx; readonly where: 'pool' };

/** Where a transaction is: the chain, else the pool. `poolFirst` while it was last seen pooled (no 404 per look). */
async function locate(api: NodeApi, id: string, poolFirst: boolean): Promise<Located> {
  const inChain = async (): Promise<Located | undefined> => {
    const confirmed = await api.findJson<Tx>(`/transactions/info/${seg(id)}`);
    if (confirmed === undefined) return undefined;
    const { height } = await api.getJson<{ height: number }>('/blocks/height');
    return { tx: confirmed, where: 'chain', chainHeight: height };
  };
  const inPool = async (): Promise<Located | undefined> => {
    const pooled = await api.findJson<Tx>(`/transactions/unconfirmed/info/${seg(id)}`);
    return pooled === undefined ? undefined : { tx: pooled, where: 'pool' };
  };
  const found = poolFirst ? ((await inPool()) ?? (await inChain())) : ((await inChain()) ?? (await inPool()));
  if (found === undefined) throw new NodeError(404, undefined, `Transaction ${id} is neither in the chain nor in the pool of this node.`);
  return found;
}

export function DataEntries({ entries, testId }: { entries: readonly DataEntry[]; testId?: string }): JSX.Element {
  return (
    <Table
      items={entries}
      testId={testId}
      empty="No entries."
      rowKey={(e) => e.key}
      rowData={(e) => ({ key: e.key })}
      columns={[
        { label: 'Key', class: 'id', cell: (e) => e.key },
        { label: 'Type', cell: (e) => e.type },
        { label: 'Value', class: 'id', cell: (e) => jsonText(e.value) },
      ]}
    />
  );
}

export function StatusBadge({ status }: { status: string }): JSX.Element {
  return <Badge kind={status === 'Success' ? 'ok' : status === 'Failure' ? 'warn' : 'bad'}>{status}</Badge>;
}

export function StatusTable({ statuses, testId }: { statuses: readonly ContractStatus[]; testId?: string }): JSX.Element {
  return (
    <Table
      items={statuses}
      testId={testId}
      rowKey={(s) => s.signature}
      columns={[
        { label: 'Status', cell: (s) => <StatusBadge status={s.status} /> },
        { label: 'Code', cell: (s) => s.code ?? '—' },
        { label: 'Message', cell: (s) => s.message },
        { label: 'Reported by', cell: (s) => <Id value={s.sender} link={href.address(s.sender)} short /> },
        { label: 'Time', class: 'small', cell: (s) => formatTime(s.timestamp) },
      ]}
    />
  );
}

/** The results of a 105: status, state changes per contract, asset operations. */
export function ExecutionResults({ executed }: { executed: Tx }): JSX.Element {
  const f = executed as Readonly<Record<string, unknown>>;
  const code = f['statusCode'];
  const byContract: Array<[string, readonly DataEntry[]]> = [];
  if (Array.isArray(f['results'])) byContract.push([contractIdOf(executed) ?? '', f['results'] as DataEntry[]]);
  if (typeof f['resultsMap'] === 'object' && f['resultsMap'] !== null) byContract.push(...(Object.entries(f['resultsMap']) as Array<[string, DataEntry[]]>));
  const operations = f['assetOperations'] ?? f['assetOperationsMap'];
  const inner = f['tx'] as Tx | undefined;
  return (
    <div data-testid="execution-results">
      <p>
        {code === undefined || code === null || code === 0 ? <Badge kind="ok">executed</Badge> : <Badge kind="bad">status code {jsonText(code)}</Badge>}{' '}
        {typeof f['errorMessage'] === 'string' && <span>{f['errorMessage']}</span>}{' '}
        {inner !== undefined && (
          <span>
            for {txTypeName(inner.type).toLowerCase()} <TxLink id={inner.id} />
          </span>
        )}
      </p>
      {byContract.map(([contractId, entries]) => (
        <div key={contractId}>
          <h2 class="small">
            State written to contract <Id value={contractId} link={href.contract(contractId)} short />
          </h2>
          <DataEntries entries={entries} testId="results" />
        </div>
      ))}
      {operations !== undefined && operations !== null && (Array.isArray(operations) ? operations.length > 0 : Object.keys(operations).length > 0) && (
        <div>
          <h2 class="small">Asset operations</h2>
          <FieldTable value={{ operations }} />
        </div>
      )}
    </div>
  );
}

/** For 103/104/107: the 105 that executed it and the statuses nodes reported. */
function ContractExecution({ id }: { id: string }): JSX.Element {
  const executed = useResource((api) => api.findJson<Tx>(`/contracts/executed-tx-for/${seg(id)}`), [id]);
  const statuses = useResource((api) => api.findJson<ContractStatus[]>(`/contracts/status/${seg(id)}`), [id]);
  return (
    <Card title="Execution">
      <Show resource={executed} what="contract execution results">
        {(e) =>
          e === undefined ? (
            <p class="muted">No executed-contract transaction for it yet.</p>
          ) : (
            <div>
              <p>
                Executed by <TxLink id={e.id} />{' '}
                {e.height !== undefined && (
                  <span>
                    at height <BlockLink height={e.height} />
                  </span>
                )}
              </p>
              <ExecutionResults executed={e} />
            </div>
          )
        }
      </Show>
      <h2 class="small">Statuses</h2>
      <Show resource={statuses} what="contract execution statuses">
        {(s) =>
          s === undefined || s.length === 0 ? (
            <p class="muted">The node holds no execution status for it (statuses are kept for a limited time).</p>
          ) : (
            <StatusTable statuses={s} testId="statuses" />
          )
        }
      </Show>
    </Card>
  );
}

export function TransactionPage({ id }: { id: string }): JSX.Element {
  const [tick, setTick] = useState(0);
  const pooledBefore = useRef(false);
  const located = useResource((api) => locate(api, id, pooledBefore.current), [id, tick]);
  const pending = located.state === 'ok' && located.value.where === 'pool';
  pooledBefore.current = pending;
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => setTick((t) => t + 1), 2000);
    return () => clearTimeout(timer);
  }, [pending, tick]);

  if (located.state !== 'ok')
    return (
      <Show resource={located} what="the transaction">
        {() => null}
      </Show>
    );
  const { tx } = located.value;
  const contractId = contractIdOf(tx);
  return (
    <div>
      <h1>
        {txTypeName(tx.type)} <Id value={tx.id} />
      </h1>
      <Card>
        <p data-testid="tx-status">
          {located.value.where === 'chain' ? (
            <span>
              <Badge kind="ok">confirmed</Badge> in block <BlockLink height={tx.height!} />, {located.value.chainHeight - tx.height! + 1} confirmation
              {located.value.chainHeight - tx.height! + 1 === 1 ? '' : 's'}
              {tx.height === located.value.chainHeight ? ' (in the liquid block)' : ''}
            </span>
          ) : (
            <span>
              <Badge kind="warn">in the pool</Badge> not in a block yet (this page follows it)
            </span>
          )}
        </p>
        <p>
          {tx.type === 3 && <a href={href.asset(tx.id)}>Asset page →</a>}
          {tx.type === 112 && <a href={href.policy(tx.id)}>Policy page →</a>}
          {(tx.type === 113 || tx.type === 114) && typeof tx['policyId'] === 'string' && <a href={href.policy(tx['policyId'])}>Policy page →</a>}
          {contractId !== undefined && <a href={href.contract(contractId)}>Contract page →</a>}
        </p>
      </Card>
      <Card title="Fields">
        <FieldTable value={tx} testId="tx-fields" />
      </Card>
      {tx.type === 105 && (
        <Card title="Contract results">
          <ExecutionResults executed={tx} />
        </Card>
      )}
      {tx.type === 120 && Array.isArray(tx['transactions']) && (
        <Card title="Inner transactions">
          <TxTable txs={tx['transactions'] as Tx[]} />
        </Card>
      )}
      {EXECUTABLE_TYPES.has(tx.type) && <ContractExecution id={tx.id} />}
    </div>
  );
}
