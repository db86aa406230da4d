/** A block by height or signature: its header and its transactions. */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { seg } from '../api.js';
import { AddressLink, Amount, Badge, Card, Facts, Id, Show, TxTable } from '../components.js';
import { formatBytes, formatTime, jsonText } from '../format.js';
import { useResource } from '../hooks.js';
import { finalityOf, type Block } from '../model.js';
import { href } from '../routes.js';

const PAGE = 100;

export function BlockPage({ reference }: { reference: string }): JSX.Element {
  const [page, setPage] = useState(0);
  const block = useResource(
    async (api) => {
      const b = /^\d+$/.test(reference) ? await api.getJson<Block>(`/blocks/at/${reference}`) : await api.getJson<Block>(`/blocks/signature/${seg(reference)}`);
      const { height } = await api.getJson<{ height: number }>('/blocks/height');
      return { block: b, chainHeight: height };
    },
    [reference],
  );
  return (
    <Show resource={block} what="the block">
      {({ block: b, chainHeight }) => {
        const liquid = b.height === chainHeight;
        const poa = b['poa-consensus'] ?? b['cft-consensus'];
        const pos = b['pos-consensus'];
        const final = finalityOf(b);
        const txs = b.transactions.slice(page * PAGE, (page + 1) * PAGE);
        return (
          <div>
            <h1>
              Block {b.height} {liquid && <Badge kind="info">liquid: still growing</Badge>} {final === true && <Badge kind="ok">final</Badge>}
              {final === false && <Badge kind="warn">not final yet</Badge>}
            </h1>
            <Card title="Header">
              <Facts
                testId="block-header"
                facts={[
                  {
                    field: 'height',
                    value: (
                      <span>
                        {b.height > 1 && <a href={href.block(b.height - 1)}>← {b.height - 1}</a>} <strong>{b.height}</strong>{' '}
                        {b.height < chainHeight && <a href={href.block(b.height + 1)}>{b.height + 1} →</a>}
                      </span>
                    ),
                  },
                  {
                    field: 'signature',
                    value: (
                      <span>
                        <Id value={b.signature} />
                        {liquid && (
                          <div class="small muted">The total signature of the latest micro-block; it is the block id once the next key block refers to it.</div>
                        )}
                      </span>
                    ),
                  },
                  { field: 'reference', value: b.height > 1 ? <Id value={b.reference} link={href.block(b.height - 1)} /> : <Id value={b.reference} /> },
                  { field: 'generator', value: <AddressLink address={b.generator} /> },
                  {
                    field: 'timestamp',
                    value: (
                      <span>
                        {formatTime(b.timestamp)} <span class="muted">({jsonText(b.timestamp)})</span>
                      </span>
                    ),
                  },
                  { field: 'version', value: b.version },
                  poa !== undefined && { field: 'overall-skipped-rounds', label: 'overall skipped rounds', value: jsonText(poa['overall-skipped-rounds']) },
                  pos !== undefined && {
                    field: 'base-target',
                    label: 'base target / generation signature',
                    value: (
                      <span>
                        {jsonText(pos['base-target'])} / <Id value={pos['generation-signature']} />
                      </span>
                    ),
                  },
                  { field: 'transactionCount', label: 'transactions', value: b.transactionCount },
                  {
                    field: 'blocksize',
                    label: 'size',
                    value: (
                      <span>
                        {formatBytes(b.blocksize)} <span class="muted">({b.blocksize} bytes)</span>
                      </span>
                    ),
                  },
                  { field: 'fee', value: <Amount value={b.fee} /> },
                  b.features !== undefined && b.features.length > 0 && { field: 'features', label: 'features voted', value: b.features.join(', ') },
                ]}
              />
            </Card>
            <Card title={`Transactions (${b.transactions.length})`}>
              <TxTable txs={txs} testId="block-txs" />
              {b.transactions.length > PAGE && (
                <div class="pager">
                  {page > 0 && (
                    <button class="link" onClick={() => setPage(page - 1)}>
                      ← previous {PAGE}
                    </button>
                  )}
                  <span class="muted">
                    {page * PAGE + 1}–{Math.min(b.transactions.length, (page + 1) * PAGE)} of {b.transactions.length}
                  </span>
                  {(page + 1) * PAGE < b.transactions.length && (
                    <button class="link" onClick={() => setPage(page + 1)}>
                      next {PAGE} →
                    </button>
                  )}
                </div>
              )}
            </Card>
          </div>
        );
      }}
    </Show>
  );
}
