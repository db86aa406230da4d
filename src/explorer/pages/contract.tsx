/**
 * A contract: what it runs, its state (keys and values), its calls and their statuses.
 *
 * Reads `/contracts/info/{id}`, `/contracts/{id}` (state, paged), `/contracts/balance/{id}`
 * and `/contracts/status/{txId}` (WE 1.14's user routes); a node that does not serve them
 * shows the contract as not available. WE has no route listing a contract's calls, so the
 * page reads the blocks from the newest back to the contract's creation (100 per request,
 * a bounded number per click) and keeps the executed-contract transactions of this
 * contract, plus the calls still in the pool.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { NodeError, seg, type NodeApi } from '../api.js';
import { AddressLink, Badge, BlockLink, Card, Failure, FieldTable, Id, Show, Table, TxLink } from '../components.js';
import { formatTime, formatUnits, jsonText, type Int64 } from '../format.js';
import { useApi, useResource } from '../hooks.js';
import { BLOCKS_PER_REQUEST, type Block, type ContractInfo, type ContractStatus, type DataEntry, type Tx } from '../model.js';
import { contractIdOf, txTypeName } from '../tx-types.js';
import { DataEntries, StatusBadge } from './transaction.js';

const STATE_PAGE = 50;
/** Blocks read per click when looking for calls. */
const SCAN_BLOCKS = 500;
/** Calls listed per click. */
const CALLS_WANTED = 20;

/** A call of the contract: the executable transaction and, once mined, its 105. */
interface Call {
  readonly call: Tx;
  readonly executed?: Tx;
  readonly height?: number;
}

interface Scan {
  readonly calls: readonly Call[];
  /** The lowest height read so far (the next scan goes below it). */
  readonly lowest: number;
  readonly done: boolean;
}

/** Reads blocks below `scan.lowest` (down to `creationHeight`) for this contract's executions. */
export async function scanCalls(api: NodeApi, contractId: string, creationHeight: number, scan: Scan): Promise<Scan> {
  const calls = [...scan.calls];
  let lowest = scan.lowest;
  let read = 0;
  const before = calls.length;
  while (lowest > creationHeight && read < SCAN_BLOCKS && calls.length - before < CALLS_WANTED) {
    const to = lowest - 1;
    const from = Math.max(creationHeight, to - BLOCKS_PER_REQUEST + 1);
    const blocks = await api.getJson<Block[]>(`/blocks/seqext/${from}/${to}`);
    for (const block of [...blocks].reverse()) {
      for (const tx of [...block.transactions].reverse()) {
        if (tx.type === 105 && contractIdOf(tx) === contractId) calls.push({ call: tx['tx'] as Tx, executed: tx, height: block.height });
      }
    }
    read += to - from + 1;
    lowest = from;
  }
  return { calls, lowest, done: lowest <= creationHeight };
}

function CallStatuses({ txId }: { txId: string }): JSX.Element {
  const statuses = useResource((api) => api.findJson<ContractStatus[]>(`/contracts/status/${seg(txId)}`), [txId]);
  if (statuses.state === 'loading') return <span class="muted">…</span>;
  if (statuses.state === 'error') return <Failure error={statuses.error} what="Statuses" />;
  if (statuses.value === undefined || statuses.value.length === 0) return <span class="muted small">none cached</span>;
  return (
    <span>
      {statuses.value.map((s) => (
        <span key={s.signature} title={`${s.message} (${formatTime(s.timestamp)}, ${s.sender})`}>
          <StatusBadge status={s.status} />{' '}
        </span>
      ))}
    </span>
  );
}

function CallResult({ executed }: { executed: Tx | undefined }): JSX.Element {
  if (executed === undefined) return <Badge kind="warn">in the pool</Badge>;
  const code = executed['statusCode'];
  return (
    <span>
      {code === undefined || code === null || code === 0 ? <Badge kind="ok">executed</Badge> : <Badge kind="bad">status {jsonText(code)}</Badge>}{' '}
      <TxLink id={executed.id} short />
    </span>
  );
}

function Calls({ contractId, creation }: { contractId: string; creation: Tx }): JSX.Element {
  const api = useApi();
  const [scan, setScan] = useState<Scan | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const pending = useResource(
    async (a) => (await a.getJson<Tx[]>('/transactions/unconfirmed')).filter((t) => t.type !== 105 && contractIdOf(t) === contractId),
    [contractId],
  );

  const more = async (from: Scan): Promise<void> => {
    setBusy(true);
    try {
      setScan(await scanCalls(api, contractId, creation.height ?? 1, from));
      setError(undefined);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    let live = true;
    void api.getJson<{ height: number }>('/blocks/height').then(
      ({ height }) => live && void more({ calls: [], lowest: height + 1, done: false }),
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
    // Scans once per contract; "more" continues it.
  }, [contractId]);

  // Calls still in the pool first, then the executed ones, newest first.
  const rows: readonly Call[] = [...(pending.state === 'ok' ? pending.value.map((t) => ({ call: t })) : []), ...(scan?.calls ?? [])];
  return (
    <div>
      {error !== undefined && <Failure error={error} what="The calls" />}
      <Table
        items={rows}
        testId="contract-calls"
        rowKey={(r) => r.call.id}
        rowData={(r) => ({ call: r.call.id })}
        columns={[
          { label: 'Call', cell: (r) => <TxLink id={r.call.id} short /> },
          { label: 'Type', cell: (r) => txTypeName(r.call.type) },
          { label: 'Caller', cell: (r) => r.call.sender !== undefined && <AddressLink address={r.call.sender} short /> },
          { label: 'Result', cell: (r) => <CallResult executed={r.executed} /> },
          { label: 'Statuses', cell: (r) => <CallStatuses txId={r.call.id} /> },
          { label: 'Height', num: true, cell: (r) => (r.height === undefined ? '—' : <BlockLink height={r.height} />) },
          { label: 'Time', class: 'small', cell: (r) => formatTime(r.call.timestamp) },
        ]}
      />
      <p class="small muted">
        {scan === undefined
          ? 'Reading blocks…'
          : scan.done
            ? `Every block since the contract's creation (height ${creation.height ?? 1}) read.`
            : `Blocks ${scan.lowest} and above read.`}{' '}
        {scan !== undefined && !scan.done && (
          <button class="link" disabled={busy} onClick={() => void more(scan)}>
            {busy ? 'reading…' : 'read older blocks'}
          </button>
        )}
      </p>
    </div>
  );
}

function State({ contractId }: { contractId: string }): JSX.Element {
  const [pages, setPages] = useState(1);
  const state = useResource(
    async (api) => {
      const entries: DataEntry[] = [];
      for (let p = 0; p < pages; p++) {
        // WE takes a positive offset only: the first page has none.
        const query = p === 0 ? `?limit=${STATE_PAGE}` : `?offset=${p * STATE_PAGE}&limit=${STATE_PAGE}`;
        entries.push(...(await api.getJson<DataEntry[]>(`/contracts/${seg(contractId)}${query}`)));
      }
      return entries;
    },
    [contractId, pages],
  );
  return (
    <Show resource={state} what="the contract state">
      {(entries) => (
        <div>
          <DataEntries entries={entries} testId="contract-state" />
          {entries.length === pages * STATE_PAGE && (
            <button class="link" onClick={() => setPages(pages + 1)}>
              more keys…
            </button>
          )}
        </div>
      )}
    </Show>
  );
}

/**
 * The creating transaction with its height: by its own id, or — where the node keeps an
 * executable transaction only inside the ExecutedContract that mined it — through that 105.
 */
async function creationOf(api: NodeApi, id: string): Promise<Tx | undefined> {
  const own = await api.findJson<Tx>(`/transactions/info/${seg(id)}`);
  if (own !== undefined) return own;
  const executed = await api.findJson<Tx>(`/contracts/executed-tx-for/${seg(id)}`);
  if (executed === undefined) return undefined;
  const mined = await api.findJson<Tx>(`/transactions/info/${seg(executed.id)}`);
  const inner = executed['tx'] as Tx | undefined;
  return inner === undefined ? undefined : { ...inner, ...(mined?.height === undefined ? {} : { height: mined.height }) };
}

async function contractOf(
  api: NodeApi,
  id: string,
): Promise<{ info: ContractInfo; creation: Tx | undefined; balance: { balance: Int64; decimals: number } | undefined }> {
  const info = await api.getJson<ContractInfo>(`/contracts/info/${seg(id)}`);
  const [creation, balance] = await Promise.all([
    creationOf(api, id),
    api.getJson<{ balance: Int64; decimals: number }>(`/contracts/balance/${seg(id)}`).catch((e: unknown) => {
      if (e instanceof NodeError) return undefined;
      throw e;
    }),
  ]);
  return { info, creation, balance };
}

export function ContractPage({ id }: { id: string }): JSX.Element {
  const contract = useResource((api) => contractOf(api, id), [id]);
  return (
    <div>
      <h1>
        Contract{contract.state === 'ok' && contract.value.creation !== undefined ? ` “${String(contract.value.creation['contractName'])}”` : ''}{' '}
        <Id value={id} />
      </h1>
      <Show resource={contract} what="the contract">
        {({ info, creation, balance }) => (
          <div>
            <Card title="Contract">
              <p>
                {info.active ? <Badge kind="ok">active</Badge> : <Badge kind="bad">disabled</Badge>} version {info.version}
                {info.isConfidential === true && <Badge kind="info">confidential</Badge>}
                {balance !== undefined && <span> · balance {formatUnits(balance.balance, balance.decimals)} WEST</span>}
                {creation?.height !== undefined && (
                  <span>
                    {' '}
                    · created in <TxLink id={creation.id} short /> at height <BlockLink height={creation.height} />
                  </span>
                )}
              </p>
              <FieldTable value={{ ...info }} testId="contract-info" />
            </Card>
            <Card title="State">
              <State contractId={id} />
            </Card>
            <Card title="Calls">
              {creation === undefined ? <p class="muted">The creating transaction is not in the chain.</p> : <Calls contractId={id} creation={creation} />}
            </Card>
          </div>
        )}
      </Show>
    </div>
  );
}
