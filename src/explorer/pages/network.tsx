/**
 * The network: this node's status and sync progress, its peers, the PoA miner queue and
 * the recent rounds (who mined, which rounds were skipped, the warnings and bans that
 * followed), and feature activation.
 *
 * Peers' own heights are not in WE's REST API (`/peers/connected` has none); the page
 * shows, per peer, the last block its node owner mined among the recent blocks.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { AddressLink, Badge, BlockLink, Card, Failure, Id, Show, Stat, Table } from '../components.js';
import { formatAge, formatTime, toBigInt, type Int64 } from '../format.js';
import { useNow, usePoll, useResource } from '../hooks.js';
import type { BlockHeader, NodeConfig, NodeStatus } from '../model.js';
import { roundTimeline, upcomingMiners, type RoundTimeline, type WarningsAndBans } from '../poa-timeline.js';
import { headersBetween } from './live.js';

/** Blocks the round timeline and "last mined" read. */
const RECENT_BLOCKS = 60;

interface ConnectedPeer {
  readonly address: string;
  readonly declaredAddress: string;
  readonly nodeOwnerAddress: string;
  readonly peerName: string;
  readonly applicationVersion: string;
  readonly applicationConsensus: string;
}

interface Feature {
  readonly id: number;
  readonly description: string;
  readonly blockchainStatus: string;
  readonly nodeStatus: string;
  readonly activationHeight?: number;
  readonly supportingBlocks?: number;
}

interface Activation {
  readonly height: number;
  readonly votingInterval: number;
  readonly votingThreshold: number;
  readonly nextCheck: number;
  readonly features: readonly Feature[];
}

interface Consensus {
  readonly headers: readonly BlockHeader[];
  readonly queue: readonly string[];
  readonly banned: ReadonlySet<string>;
  readonly record: WarningsAndBans;
  readonly timeline: RoundTimeline;
}

function NodeCard({
  status,
  config,
  owner,
  version,
  now,
}: {
  status: NodeStatus | undefined;
  config: NodeConfig | undefined;
  owner: string | undefined;
  version: string | undefined;
  now: number;
}): JSX.Element {
  const sync = status?.synchronization;
  const target = toBigInt(sync?.targetScore);
  const local = toBigInt(sync?.localScore);
  const share = target !== undefined && local !== undefined && target > 0n ? Number((local * 10_000n) / target) / 100 : undefined;
  return (
    <Card title="This node">
      <div class="stats">
        <Stat label="height" value={status?.blockchainHeight ?? '—'} testId="node-height" />
        <Stat label="last block" value={status === undefined ? '—' : formatAge(status.updatedTimestamp, now)} />
        <Stat label="consensus" value={config?.consensus ?? '—'} />
        <Stat label="crypto" value={config?.cryptoType ?? '—'} />
        <Stat label="chain id" value={config?.chainId ?? '—'} />
      </div>
      <p class="small">
        {version ?? ''}{' '}
        {owner !== undefined && (
          <span>
            · owner <AddressLink address={owner} short />
          </span>
        )}
        {config?.blockTiming.roundDuration !== undefined && (
          <span>
            {' '}
            · rounds of {config.blockTiming.roundDuration / 1000} s + {(config.blockTiming.syncDuration ?? 0) / 1000} s sync
          </span>
        )}
      </p>
      <div data-testid="sync">
        {sync === undefined ? (
          <p>
            <Badge kind="ok">in sync</Badge> <span class="small muted">not catching up from any peer</span>
          </p>
        ) : (
          <div>
            <p>
              <Badge kind="warn">catching up</Badge> from {sync.peer}: {sync.blocksApplied} blocks taken so far
            </p>
            {share !== undefined && (
              <div class="progress" aria-label="chain score against the peer's">
                <div class="fill" style={{ width: `${Math.min(100, share)}%` }} />
              </div>
            )}
            <p class="small muted">
              score {sync.localScore} of {sync.targetScore}
            </p>
          </div>
        )}
      </div>
    </Card>
  );
}

function Peers({ lastMined }: { lastMined: ReadonlyMap<string, number> }): JSX.Element {
  const [peers, setPeers] = useState<readonly ConnectedPeer[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  usePoll(
    async (api) => {
      try {
        setPeers((await api.getJson<{ peers: ConnectedPeer[] }>('/peers/connected')).peers);
        setError(undefined);
      } catch (e) {
        setError(e);
        throw e;
      }
    },
    3000,
    [],
  );
  const suspended = useResource((api) => api.getJson<Array<{ hostname: string; timestamp: Int64 }>>('/peers/suspended'), []);
  const known = useResource((api) => api.getJson<{ peers: Array<{ address: string; lastSeen: Int64 }> }>('/peers/all'), []);
  if (error !== undefined && peers === undefined) return <Failure error={error} what="Peers" />;
  return (
    <div>
      {peers === undefined ? (
        <p class="muted">Loading peers…</p>
      ) : peers.length === 0 ? (
        <p class="muted" data-testid="no-peers">
          No peer connected.
        </p>
      ) : (
        <Table
          items={peers}
          testId="peers"
          rowKey={(p) => `${p.address}-${p.nodeOwnerAddress}`}
          rowData={(p) => ({ owner: p.nodeOwnerAddress })}
          columns={[
            { label: 'Name', cell: (p) => p.peerName },
            { label: 'Node owner', cell: (p) => <AddressLink address={p.nodeOwnerAddress} short /> },
            {
              label: 'Address',
              class: 'small',
              cell: (p) => (
                <span>
                  {p.address}
                  {p.declaredAddress !== 'N/A' && p.declaredAddress !== p.address && <div class="muted">declares {p.declaredAddress}</div>}
                </span>
              ),
            },
            { label: 'Version', class: 'small', cell: (p) => `${p.applicationVersion} ${p.applicationConsensus}` },
            {
              label: 'Last block mined',
              num: true,
              cell: (p) => (
                <span data-testid="peer-last-mined">
                  {lastMined.has(p.nodeOwnerAddress) ? <BlockLink height={lastMined.get(p.nodeOwnerAddress)!} /> : <span class="muted">none recently</span>}
                </span>
              ),
            },
          ]}
        />
      )}
      <p class="small muted">
        {known.state === 'ok' && `${known.value.peers.length} known peer address${known.value.peers.length === 1 ? '' : 'es'}. `}
        {suspended.state === 'ok' &&
          suspended.value.length > 0 &&
          `Suspended: ${suspended.value.map((s) => `${s.hostname} (${formatTime(s.timestamp)})`).join(', ')}.`}
      </p>
    </div>
  );
}

function Timeline({ timeline, queueIndex }: { timeline: RoundTimeline; queueIndex: ReadonlyMap<string, number> }): JSX.Element {
  return (
    <div>
      <div class="timeline" data-testid="round-timeline">
        {timeline.slots.map((s, i) => {
          const n = s.generator === undefined ? undefined : queueIndex.get(s.generator);
          const title =
            s.kind === 'mined'
              ? `Block ${s.height} by ${s.generator ?? ''}`
              : `${s.rounds} round${s.rounds === 1 ? '' : 's'} skipped before block ${s.height}${s.outcome === undefined ? '' : `, then ${s.outcome}`}`;
          return (
            <a key={i} class={`slot ${s.kind} ${s.outcome ?? ''}`} href={`#/block/${s.height}`} title={title} data-kind={s.kind} data-height={s.height}>
              {s.kind === 'mined' ? (n === undefined ? '?' : n + 1) : s.rounds > 1 ? `+${s.rounds}` : '·'}
            </a>
          );
        })}
      </div>
      <div class="legend">
        <span style={{ '--c': 'var(--ok)' }}>mined (queue number)</span>
        <span style={{ '--c': '#c9ced6' }}>skipped</span>
        <span style={{ '--c': 'var(--warn)' }}>skipped, miner warned</span>
        <span style={{ '--c': 'var(--bad)' }}>skipped, miner banned</span>
      </div>
      {timeline.gaps.length > 0 && (
        <ul class="feed" data-testid="gaps">
          {timeline.gaps.map((g) => (
            <li key={g.height} data-height={g.height}>
              <span>
                {g.skipped} round{g.skipped === 1 ? '' : 's'} skipped before block <BlockLink height={g.height} />
              </span>
              {g.warned.map((a) => (
                <span key={`w${a}`}>
                  <Badge kind="warn">warned</Badge> <AddressLink address={a} short />
                </span>
              ))}
              {g.banned.map((a) => (
                <span key={`b${a}`}>
                  <Badge kind="bad">banned</Badge> <AddressLink address={a} short />
                </span>
              ))}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function MinerQueue({ consensus }: { consensus: Consensus }): JSX.Element {
  const tip = consensus.headers[consensus.headers.length - 1];
  const upcoming = tip === undefined ? [] : upcomingMiners(consensus.queue, tip.generator, consensus.banned);
  const record = new Map(consensus.record.warningsAndBans.map((m) => [m.address, m]));
  return (
    <Table
      items={consensus.queue}
      testId="miner-queue"
      rowKey={(m) => m}
      rowData={(m) => ({ miner: m })}
      columns={[
        { label: '#', num: true, cell: (m) => consensus.queue.indexOf(m) + 1 },
        { label: 'Miner', cell: (m) => <AddressLink address={m} short /> },
        {
          label: 'State',
          cell: (m) => {
            const warnings = record.get(m)?.warnings.length ?? 0;
            return (
              <span>
                {consensus.banned.has(m) && <Badge kind="bad">banned</Badge>} {m === tip?.generator && <Badge kind="info">mined the last block</Badge>}{' '}
                {warnings > 0 && (
                  <Badge kind="warn">
                    {warnings} warning{warnings === 1 ? '' : 's'}
                  </Badge>
                )}
              </span>
            );
          },
        },
        {
          label: 'Next round',
          num: true,
          cell: (m) => {
            const next = upcoming.indexOf(m);
            return next < 0 ? '—' : next === 0 ? <strong>next</strong> : `+${next}`;
          },
        },
      ]}
    />
  );
}

function Features({ activation }: { activation: Activation }): JSX.Element {
  return (
    <div>
      <p class="small muted">
        Voting: {activation.votingThreshold} of {activation.votingInterval} blocks; next check at height {activation.nextCheck}.
      </p>
      <Table
        items={activation.features}
        testId="features"
        rowKey={(f) => String(f.id)}
        rowData={(f) => ({ feature: f.id })}
        columns={[
          { label: 'Id', num: true, cell: (f) => f.id },
          { label: 'Feature', cell: (f) => f.description },
          {
            label: 'Chain',
            cell: (f) => (
              <Badge kind={f.blockchainStatus === 'ACTIVATED' ? 'ok' : f.blockchainStatus === 'APPROVED' ? 'info' : 'warn'}>{f.blockchainStatus}</Badge>
            ),
          },
          { label: 'This node', class: 'small', cell: (f) => f.nodeStatus },
          {
            label: 'Height / votes',
            num: true,
            cell: (f) =>
              f.activationHeight !== undefined ? `at ${f.activationHeight}` : f.supportingBlocks !== undefined ? `${f.supportingBlocks} votes` : '—',
          },
        ]}
      />
    </div>
  );
}

export function NetworkPage(): JSX.Element {
  const now = useNow(1000);
  const [status, setStatus] = useState<NodeStatus | undefined>(undefined);
  const [height, setHeight] = useState(0);
  usePoll(
    async (api) => {
      const s = await api.getJson<NodeStatus>('/node/status');
      setStatus(s);
      setHeight(s.blockchainHeight);
    },
    2000,
    [],
  );
  const config = useResource((api) => api.getJson<NodeConfig>('/node/config'), []);
  const owner = useResource((api) => api.getJson<{ address: string }>('/node/owner'), []);
  const version = useResource((api) => api.getJson<{ version: string }>('/node/version'), []);
  const activation = useResource((api) => api.getJson<Activation>('/activation/status'), [height]);
  const consensus = useResource(
    async (api): Promise<Consensus | undefined> => {
      if (height === 0) return undefined;
      const algo = await api.getJson<{ consensusAlgo: string }>('/consensus/algo');
      const headers = await headersBetween(api, Math.max(1, height - RECENT_BLOCKS + 1), height);
      if (/PoS/.test(algo.consensusAlgo)) return { headers, queue: [], banned: new Set(), record: { warningsAndBans: [] }, timeline: { slots: [], gaps: [] } };
      const [queue, banned, record] = await Promise.all([
        api.getJson<{ miners: string[] }>(`/consensus/minersAtHeight/${height}`),
        api.getJson<{ bannedMiners: string[] }>(`/consensus/bannedMiners/${height}`),
        api.getJson<WarningsAndBans>('/consensus/minersWarningsAndBans'),
      ]);
      return { headers, queue: queue.miners, banned: new Set(banned.bannedMiners), record, timeline: roundTimeline(headers, record) };
    },
    [height],
  );
  const lastMined = new Map<string, number>();
  if (consensus.state === 'ok' && consensus.value !== undefined) for (const h of consensus.value.headers) lastMined.set(h.generator, h.height);
  const pos = config.state === 'ok' && config.value.consensus === 'POS';

  return (
    <div>
      <h1>Network</h1>
      <div class="grid two">
        <NodeCard
          status={status}
          config={config.state === 'ok' ? config.value : undefined}
          owner={owner.state === 'ok' ? owner.value.address : undefined}
          version={version.state === 'ok' ? version.value.version : undefined}
          now={now}
        />
        <Card title="Peers">
          <Peers lastMined={lastMined} />
        </Card>
      </div>
      {!pos && (
        <div class="grid two">
          <Card title="Miner queue">
            <Show resource={consensus} what="the miner queue">
              {(c) => (c === undefined ? <p class="muted">Loading…</p> : <MinerQueue consensus={c} />)}
            </Show>
          </Card>
          <Card title={`Rounds of the last ${RECENT_BLOCKS} blocks`}>
            <Show resource={consensus} what="the rounds">
              {(c) =>
                c === undefined ? <p class="muted">Loading…</p> : <Timeline timeline={c.timeline} queueIndex={new Map(c.queue.map((m, i) => [m, i]))} />
              }
            </Show>
          </Card>
        </div>
      )}
      {pos && (
        <Card title="Consensus">
          <p>This node runs proof of stake: blocks go to the accounts with the best generating balance; there is no miner queue and there are no rounds.</p>
        </Card>
      )}
      <Card title="Feature activation">
        <Show resource={activation} what="feature activation">
          {(a) => <Features activation={a} />}
        </Show>
      </Card>
      {owner.state === 'ok' && (
        <p class="small muted">
          Node owner <Id value={owner.value.address} />
        </p>
      )}
    </div>
  );
}
