/** The pieces every page is made of: links to other pages, amounts, field tables, states. */
import type { ComponentChildren, JSX } from 'preact';
import { NodeError, RouteAbsent, Unreachable } from './api.js';
import { formatTime, formatUnits, formatWest, jsonText, shortId, type Int64 } from './format.js';
import { useResource, type Resource } from './hooks.js';
import type { AssetDetails, Tx } from './model.js';
import { href } from './routes.js';
import { txTypeName } from './tx-types.js';

export function Card({ title, children, id }: { title?: ComponentChildren; children: ComponentChildren; id?: string }): JSX.Element {
  return (
    <section class="card" id={id}>
      {title !== undefined && <h2>{title}</h2>}
      {children}
    </section>
  );
}

export function Stat({ label, value, testId }: { label: string; value: ComponentChildren; testId?: string }): JSX.Element {
  return (
    <div class="stat">
      <div class="value" data-testid={testId}>
        {value}
      </div>
      <div class="label">{label}</div>
    </div>
  );
}

/** An id in monospace, shortened when asked (the full id in its title). */
export function Id({ value, link, short }: { value: string; link?: string; short?: boolean }): JSX.Element {
  const text = short === true ? shortId(value) : value;
  return link === undefined ? (
    <span class="id" title={value}>
      {text}
    </span>
  ) : (
    <a class="id" href={link} title={value}>
      {text}
    </a>
  );
}

/** An address, or an alias (`alias:T:name`, resolved by search). */
export function AddressLink({ address, short }: { address: string; short?: boolean }): JSX.Element {
  if (address.startsWith('alias:')) return <a href={href.search(address)}>{address}</a>;
  return <Id value={address} link={href.address(address)} short={short} />;
}

export const TxLink = ({ id, short }: { id: string; short?: boolean }): JSX.Element => <Id value={id} link={href.tx(id)} short={short} />;

export const BlockLink = ({ height }: { height: number }): JSX.Element => <a href={href.block(height)}>{height}</a>;

export function Badge({ kind, children }: { kind?: 'ok' | 'warn' | 'bad' | 'info'; children: ComponentChildren }): JSX.Element {
  return <span class={`badge ${kind ?? ''}`}>{children}</span>;
}

/** The name of an asset, read once. */
export function AssetName({ assetId }: { assetId: string | null | undefined }): JSX.Element {
  const details = useAssetDetails(assetId);
  if (assetId === null || assetId === undefined || assetId === '') return <span>WEST</span>;
  const name = details.state === 'ok' && details.value !== undefined ? details.value.name : shortId(assetId);
  return (
    <a href={href.asset(assetId)} title={assetId}>
      {name}
    </a>
  );
}

function useAssetDetails(assetId: string | null | undefined): Resource<AssetDetails | undefined> {
  return useResource(
    async (api) => {
      if (assetId === null || assetId === undefined || assetId === '') return undefined;
      return api.getImmutable<AssetDetails>(`/assets/details/${encodeURIComponent(assetId)}`);
    },
    [assetId],
  );
}

/** An amount in its asset (WEST when `assetId` is null or empty), in the asset's decimals. */
export function Amount({ value, assetId }: { value: Int64 | null | undefined; assetId?: string | null }): JSX.Element {
  const details = useAssetDetails(assetId);
  if (assetId === null || assetId === undefined || assetId === '') return <span class="amount">{formatWest(value)}</span>;
  const decimals = details.state === 'ok' && details.value !== undefined ? details.value.decimals : undefined;
  return (
    <span class="amount">
      {decimals === undefined ? `${formatUnits(value, 0)} units` : formatUnits(value, decimals)} <AssetName assetId={assetId} />
    </span>
  );
}

export const Loading = ({ what }: { what?: string }): JSX.Element => <p class="muted">Loading{what === undefined ? '' : ` ${what}`}…</p>;

/** Why a read failed, in words: the node's own message, an absent route, or no answer. */
export function Failure({ error, what }: { error: unknown; what?: string }): JSX.Element {
  if (error instanceof RouteAbsent) {
    return (
      <div class="notice absent" data-testid="not-available">
        {what ?? 'This'} is not available on this node (it does not serve <code>{error.path.split('?')[0]}</code>).
      </div>
    );
  }
  if (error instanceof NodeError) {
    const authNeeded = error.status === 401 || error.status === 403;
    return (
      <div class="notice error">
        {authNeeded ? 'The node requires credentials for this (the explorer never uses an API key or token): ' : ''}
        {error.message}
        {error.code === undefined ? '' : ` (error ${error.code})`}
      </div>
    );
  }
  if (error instanceof Unreachable) return <div class="notice error">The node does not answer; retrying…</div>;
  return <div class="notice error">Unexpected failure: {error instanceof Error ? error.message : String(error)}</div>;
}

/** Renders a resource: loading, its failure, or `children(value)`. */
export function Show<T>({ resource, what, children }: { resource: Resource<T>; what?: string; children: (value: T) => ComponentChildren }): JSX.Element {
  if (resource.state === 'loading') return <Loading what={what} />;
  if (resource.state === 'error') return <Failure error={resource.error} what={what === undefined ? undefined : what[0]!.toUpperCase() + what.slice(1)} />;
  return <>{children(resource.value)}</>;
}

const ADDRESS_KEYS = new Set(['sender', 'recipient', 'target', 'author', 'address', 'generator', 'issuer', 'trustedSender']);
const TX_ID_KEYS = new Set(['id', 'txId', 'leaseId']);
const AMOUNT_KEYS = new Set(['amount', 'quantity', 'balance', 'totalAmount']);

/** One value of a transaction (or nested object) with links where its key says what it is. */
function FieldValue({ name, value, owner }: { name: string; value: unknown; owner: Readonly<Record<string, unknown>> }): JSX.Element {
  if (value === null) return <span class="muted">null</span>;
  if (typeof value === 'string' || typeof value === 'number') {
    const text = String(value);
    if (ADDRESS_KEYS.has(name) && typeof value === 'string' && value.length > 0) return <AddressLink address={value} />;
    if (TX_ID_KEYS.has(name) && typeof value === 'string') return <TxLink id={value} />;
    if ((name === 'assetId' || name === 'feeAssetId') && typeof value === 'string' && value !== '')
      return (
        <a href={href.asset(value)} class="id">
          {value}
        </a>
      );
    if (name === 'policyId' || name === 'policy')
      return (
        <a href={href.policy(text)} class="id">
          {text}
        </a>
      );
    if (name === 'contractId')
      return (
        <a href={href.contract(text)} class="id">
          {text}
        </a>
      );
    if (name === 'height' && typeof value === 'number') return <BlockLink height={value} />;
    if (name === 'type' && typeof value === 'number' && typeof owner['id'] === 'string')
      return (
        <span>
          {value} <span class="muted">({txTypeName(value)})</span>
        </span>
      );
    if (name === 'fee')
      return (
        <span>
          {text}{' '}
          <span class="muted">
            (<Amount value={text} assetId={(owner['feeAssetId'] as string | null | undefined) ?? null} />)
          </span>
        </span>
      );
    if (AMOUNT_KEYS.has(name))
      return (
        <span>
          {text}{' '}
          <span class="muted">
            (<Amount value={text} assetId={(owner['assetId'] as string | null | undefined) ?? null} />)
          </span>
        </span>
      );
    if (name === 'timestamp' || name === 'dueTimestamp')
      return (
        <span>
          {text} <span class="muted">({formatTime(text)})</span>
        </span>
      );
    return <span class={typeof value === 'string' && value.length > 40 ? 'id' : undefined}>{text}</span>;
  }
  if (typeof value === 'boolean') return <span>{String(value)}</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span class="muted">[]</span>;
    if (value.every((v) => typeof v !== 'object' || v === null)) {
      return (
        <ul class="plain">
          {(value as unknown[]).map((v, i) => (
            <li key={i}>
              <FieldValue
                name={name === 'recipients' || name === 'owners' || name === 'groupParticipants' || name === 'groupOwners' ? 'address' : name}
                value={v}
                owner={owner}
              />
            </li>
          ))}
        </ul>
      );
    }
    return (
      <div>
        {value.map((v, i) => (
          <FieldTable key={i} value={v as Readonly<Record<string, unknown>>} />
        ))}
      </div>
    );
  }
  if (typeof value === 'object') return <FieldTable value={value as Readonly<Record<string, unknown>>} />;
  return <span>{jsonText(value)}</span>;
}

/** One row of a Facts table: a field name (its `data-field`), how it reads, its value; `false` leaves it out. */
export interface Fact {
  readonly field: string;
  readonly label?: string;
  readonly value: ComponentChildren;
}

/** Labelled values, one per row. */
export function Facts({ facts, testId }: { facts: ReadonlyArray<Fact | false>; testId?: string }): JSX.Element {
  return (
    <div class="scroll">
      <table class="fields" data-testid={testId}>
        <tbody>
          {facts
            .filter((f): f is Fact => f !== false)
            .map((f) => (
              <tr key={f.field} data-field={f.field}>
                <th>{f.label ?? f.field}</th>
                <td>{f.value}</td>
              </tr>
            ))}
        </tbody>
      </table>
    </div>
  );
}

/** Every member of an object, each value linked where it names something. */
export function FieldTable({ value, testId }: { value: Readonly<Record<string, unknown>>; testId?: string }): JSX.Element {
  return <Facts testId={testId} facts={Object.entries(value).map(([k, v]) => ({ field: k, value: <FieldValue name={k} value={v} owner={value} /> }))} />;
}

/** What a transaction does, in one line. */
export function TxSummary({ tx }: { tx: Tx }): JSX.Element {
  const f = tx as Readonly<Record<string, unknown>>;
  const str = (k: string): string => jsonText(f[k] ?? '');
  switch (tx.type) {
    case 1:
      return (
        <span>
          <Amount value={str('amount')} /> → <AddressLink address={str('recipient')} short />
        </span>
      );
    case 3:
      return (
        <span>
          {str('name')}: <Amount value={str('quantity')} assetId={tx.id} />
        </span>
      );
    case 4:
      return (
        <span>
          <Amount value={str('amount')} assetId={(f['assetId'] as string | null) ?? null} /> → <AddressLink address={str('recipient')} short />
        </span>
      );
    case 5:
    case 6:
      return (
        <span>
          <Amount value={str(tx.type === 5 ? 'quantity' : 'amount')} assetId={str('assetId')} />
        </span>
      );
    case 8:
      return (
        <span>
          <Amount value={str('amount')} /> → <AddressLink address={str('recipient')} short />{' '}
          {typeof f['status'] === 'string' && <Badge>{str('status')}</Badge>}
        </span>
      );
    case 9:
      return (
        <span>
          lease <TxLink id={str('leaseId')} short />
        </span>
      );
    case 10:
      return <span>alias {str('alias')}</span>;
    case 11:
      return (
        <span>
          {str('transferCount')} transfers, <Amount value={str('totalAmount')} assetId={(f['assetId'] as string | null) ?? null} />
        </span>
      );
    case 12:
      return <span>{Array.isArray(f['data']) ? (f['data'] as unknown[]).length : 0} data entries</span>;
    case 101:
    case 102:
      return (
        <span>
          {tx.type === 102 ? `${str('opType')} ` : ''}
          {str('role')} → <AddressLink address={str('target')} short />
        </span>
      );
    case 103:
    case 104:
    case 106:
    case 107:
      return (
        <span>
          contract <Id value={tx.type === 103 ? tx.id : str('contractId')} link={href.contract(tx.type === 103 ? tx.id : str('contractId'))} short />
        </span>
      );
    case 105: {
      const inner = f['tx'] as Tx | undefined;
      const code = f['statusCode'];
      return (
        <span>
          executes {inner === undefined ? '' : txTypeName(inner.type).toLowerCase()} {inner !== undefined && <TxLink id={inner.id} short />}{' '}
          {code === undefined || code === 0 ? <Badge kind="ok">success</Badge> : <Badge kind="bad">status {jsonText(code)}</Badge>}
        </span>
      );
    }
    case 110:
    case 111:
      return (
        <span>
          {tx.type === 111 ? `${str('opType')} ` : ''}node <AddressLink address={str('target')} short />
        </span>
      );
    case 112:
      return <span>policy “{str('policyName')}”</span>;
    case 113:
    case 114:
      return (
        <span>
          policy <Id value={str('policyId')} link={href.policy(str('policyId'))} short />
        </span>
      );
    case 120:
      return <span>{Array.isArray(f['transactions']) ? (f['transactions'] as unknown[]).length : 0} inner transactions</span>;
    default:
      return <span />;
  }
}

/** A column of a Table: its heading and what its cell shows for an item. */
export interface Column<T> {
  readonly label: string;
  readonly cell: (item: T) => ComponentChildren;
  /** Right-aligned figures. */
  readonly num?: boolean;
  readonly class?: string;
}

/**
 * Items as a table that scrolls sideways on a narrow screen; `empty` is said instead of an
 * empty table. `rowData` gives each row its `data-*` attributes (what the tests find rows by).
 */
export function Table<T>({
  items,
  columns,
  rowKey,
  rowData,
  empty,
  testId,
}: {
  items: readonly T[];
  columns: ReadonlyArray<Column<T> | false>;
  rowKey: (item: T) => string;
  rowData?: (item: T) => Readonly<Record<string, string | number>>;
  empty?: string;
  testId?: string;
}): JSX.Element {
  if (items.length === 0 && empty !== undefined) return <p class="muted">{empty}</p>;
  const shown = columns.filter((c): c is Column<T> => c !== false);
  return (
    <div class="scroll">
      <table data-testid={testId}>
        <thead>
          <tr>
            {shown.map((c) => (
              <th key={c.label} class={c.num === true ? 'num' : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={rowKey(item)} {...Object.fromEntries(Object.entries(rowData?.(item) ?? {}).map(([k, v]) => [`data-${k}`, String(v)]))}>
              {shown.map((c) => (
                <td key={c.label} class={[c.num === true ? 'num' : '', c.class ?? ''].join(' ').trim() || undefined}>
                  {c.cell(item)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Transactions as a table: id, type, what it does, sender, fee, time (and height). */
export function TxTable({ txs, showHeight, testId }: { txs: readonly Tx[]; showHeight?: boolean; testId?: string }): JSX.Element {
  return (
    <Table
      items={txs}
      testId={testId}
      empty="No transactions."
      rowKey={(tx) => tx.id}
      rowData={(tx) => ({ tx: tx.id })}
      columns={[
        { label: 'Id', cell: (tx) => <TxLink id={tx.id} short /> },
        { label: 'Type', cell: (tx) => txTypeName(tx.type) },
        { label: 'Details', cell: (tx) => <TxSummary tx={tx} /> },
        { label: 'Sender', cell: (tx) => (tx.sender === undefined ? <span class="muted">—</span> : <AddressLink address={tx.sender} short />) },
        { label: 'Fee', num: true, cell: (tx) => <Amount value={tx.fee} assetId={(tx['feeAssetId'] as string | null | undefined) ?? null} /> },
        { label: 'Time', class: 'small', cell: (tx) => formatTime(tx.timestamp) },
        showHeight === true && { label: 'Height', num: true, cell: (tx) => (tx.height === undefined ? '—' : <BlockLink height={tx.height} />) },
      ]}
    />
  );
}
