/** An asset: its details and who holds it. */
import type { JSX } from 'preact';
import { seg } from '../api.js';
import { AddressLink, Badge, Card, Facts, Id, Show, Table, TxLink } from '../components.js';
import { formatTime, formatUnits, jsonText, type Int64 } from '../format.js';
import { rankHolders } from '../holders.js';
import { useResource } from '../hooks.js';
import type { AssetDetails } from '../model.js';
import { href } from '../routes.js';

const HOLDERS_SHOWN = 100;

function Issuer({ issuer }: { issuer: AssetDetails['issuer'] }): JSX.Element {
  if (typeof issuer === 'string') return <AddressLink address={issuer} />;
  if (issuer.type === 'Contract')
    return (
      <span>
        contract <Id value={issuer.contractId} link={href.contract(issuer.contractId)} />
      </span>
    );
  return <AddressLink address={issuer.address} />;
}

export function AssetPage({ id }: { id: string }): JSX.Element {
  const details = useResource((api) => api.getJson<AssetDetails>(`/assets/details/${seg(id)}?full=true`), [id]);
  const distribution = useResource((api) => api.getJson<Record<string, Int64>>(`/assets/${seg(id)}/distribution`), [id]);
  return (
    <Show resource={details} what="the asset">
      {(a) => (
        <div>
          <h1>
            Asset {a.name} {a.reissuable ? <Badge>reissuable</Badge> : <Badge>fixed supply</Badge>}{' '}
            {a.sponsorshipIsEnabled === true && <Badge kind="info">sponsored</Badge>} {a.scripted && <Badge kind="warn">scripted</Badge>}
          </h1>
          <Card title="Details">
            <Facts
              testId="asset-details"
              facts={[
                { field: 'assetId', label: 'id', value: <Id value={a.assetId} /> },
                { field: 'name', value: a.name },
                { field: 'description', value: a.description === '' ? <span class="muted">—</span> : a.description },
                {
                  field: 'quantity',
                  value: (
                    <span>
                      {formatUnits(a.quantity, a.decimals)} <span class="muted">({jsonText(a.quantity)} units)</span>
                    </span>
                  ),
                },
                { field: 'decimals', value: a.decimals },
                { field: 'issuer', value: <Issuer issuer={a.issuer} /> },
                {
                  field: 'issueHeight',
                  label: 'issued',
                  value: (
                    <span>
                      at height <a href={href.block(a.issueHeight)}>{a.issueHeight}</a>, {formatTime(a.issueTimestamp)}
                      {typeof a.issuer === 'object' && a.issuer.type === 'Account' && (
                        <span>
                          {' '}
                          by <TxLink id={a.assetId} short />
                        </span>
                      )}
                    </span>
                  ),
                },
                a.scriptDetails !== undefined && {
                  field: 'script',
                  value: (
                    <div>
                      <div class="small">complexity {jsonText(a.scriptDetails.scriptComplexity)}</div>
                      <pre class="json">{a.scriptDetails.scriptText}</pre>
                    </div>
                  ),
                },
              ]}
            />
          </Card>
          <Card title="Distribution">
            <Show resource={distribution} what="the distribution">
              {(d) => {
                const holders = rankHolders(d, a.quantity);
                return (
                  <div>
                    <Table
                      items={holders.slice(0, HOLDERS_SHOWN)}
                      testId="distribution"
                      empty="Nobody holds any."
                      rowKey={(h) => h.address}
                      rowData={(h) => ({ holder: h.address })}
                      columns={[
                        { label: 'Holder', cell: (h) => <AddressLink address={h.address} /> },
                        { label: 'Balance', num: true, cell: (h) => formatUnits(h.balance.toString(), a.decimals) },
                        { label: 'Share', num: true, cell: (h) => `${h.sharePercent === 0 ? '< 0.01' : h.sharePercent.toFixed(2)} %` },
                      ]}
                    />
                    {holders.length > HOLDERS_SHOWN && (
                      <p class="small muted">
                        The {HOLDERS_SHOWN} largest of {holders.length} holders.
                      </p>
                    )}
                  </div>
                );
              }}
            </Show>
          </Card>
        </div>
      )}
    </Show>
  );
}
