/**
 * The live chain: key blocks and micro-blocks as they arrive, the liquid block growing
 * within its round, transactions per second over the last minutes, the pool.
 *
 * REST shows no micro-blocks of their own: while a liquid block exists, `/blocks/headers/last`
 * is that block as assembled so far, its signature the total signature of its latest
 * micro-block. A new signature at the same height is therefore a micro-block arriving; the
 * page polls often enough (300 ms) to see each one at WE's micro-block intervals.
 */
import type { JSX } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { NodeApi } from '../api.js';
import { roundAt, txRateSeries, WINDOW_MS } from '../chain-rates.js';
import { StepChart } from '../chart.js';
import { AddressLink, BlockLink, Card, Stat, Table, TxTable } from '../components.js';
import { formatAge, formatBytes, formatInteger, formatTime, toBigInt } from '../format.js';
import { useNow, usePoll, useResource } from '../hooks.js';
import { BLOCKS_PER_REQUEST, type Block, type BlockHeader, type NodeConfig, type PoolSize, type Tx } from '../model.js';
import { href } from '../routes.js';

/** At most this many headers are read back for the chart. */
const MAX_WINDOW_BLOCKS = 300;
/** The liquid block's transactions are listed while it holds at most this many. */
const LIST_LIQUID_UP_TO = 500;
const FEED_LENGTH = 24;
const TIP_POLL_MS = 300;

interface FeedItem {
  readonly key: string;
  readonly kind: 'key' | 'micro';
  readonly header: BlockHeader;
  readonly txDelta: number;
  /** Bytes added; unknown for micro-blocks seen together with their key block. */
  readonly sizeDelta: number | undefined;
  /** Several micro-blocks seen at once (right after their key block). */
  readonly merged?: boolean;
  /** When the page saw it (ms, page clock). */
  readonly seenAt: number;
}

/** Headers `from..to` (inclusive), in requests of at most 100. */
export async function headersBetween(api: NodeApi, from: number, to: number): Promise<BlockHeader[]> {
  const out: BlockHeader[] = [];
  for (let start = Math.max(1, from); start <= to; start += BLOCKS_PER_REQUEST) {
    const end = Math.min(to, start + BLOCKS_PER_REQUEST - 1);
    out.push(...(await api.getJson<BlockHeader[]>(`/blocks/headers/seq/${start}/${end}`)));
  }
  return out;
}

/** The headers of the last WINDOW_MS (at most MAX_WINDOW_BLOCKS), ascending, ending at `tip`. */
async function recentHeaders(api: NodeApi, tip: BlockHeader): Promise<BlockHeader[]> {
  const since = Number(toBigInt(tip.timestamp)) - WINDOW_MS;
  const chunks: BlockHeader[][] = [];
  let to = tip.height - 1;
  let count = 0;
  while (to >= 1 && count < MAX_WINDOW_BLOCKS) {
    const from = Math.max(1, to - BLOCKS_PER_REQUEST + 1);
    const chunk = await api.getJson<BlockHeader[]>(`/blocks/headers/seq/${from}/${to}`);
    chunks.unshift(chunk);
    count += chunk.length;
    if (chunk.length === 0 || Number(toBigInt(chunk[0]!.timestamp)) < since) break;
    to = from - 1;
  }
  return [...chunks.flat(), tip];
}

function RoundProgress({ config, genesis, nodeNow, tip }: { config: NodeConfig; genesis: BlockHeader; nodeNow: number; tip: BlockHeader }): JSX.Element {
  const { roundDuration, syncDuration, averageBlockDelay } = config.blockTiming;
  const tipTs = Number(toBigInt(tip.timestamp));
  if (roundDuration === undefined || syncDuration === undefined) {
    const delay = averageBlockDelay ?? 0;
    const share = delay > 0 ? Math.min(1, (nodeNow - tipTs) / delay) : 0;
    return (
      <div>
        <div class="progress" aria-label="time since the key block against the average block delay">
          <div class="fill" style={{ width: `${share * 100}%` }} />
        </div>
        <p class="small muted">
          PoS: {formatAge(tipTs, nodeNow)} since the key block; blocks come every {Math.round(delay / 1000)} s on average.
        </p>
      </div>
    );
  }
  const round = roundAt(Number(toBigInt(genesis.timestamp)), roundDuration, syncDuration, nodeNow);
  const elapsed = nodeNow - round.start;
  const mining = elapsed < round.miningMs;
  const tipRound = roundAt(Number(toBigInt(genesis.timestamp)), roundDuration, syncDuration, tipTs).number;
  return (
    <div>
      <div class="progress" aria-label="position in the current PoA round">
        <div class="fill" style={{ width: `${Math.min(100, (elapsed / round.totalMs) * 100)}%` }} />
        <div class="mark" style={{ left: `${(round.miningMs / round.totalMs) * 100}%` }} />
      </div>
      <p class="small muted">
        Round {round.number}:{' '}
        {mining
          ? `micro-blocks for ${((round.miningMs - elapsed) / 1000).toFixed(1)} s more`
          : `sync part, next round in ${((round.totalMs - elapsed) / 1000).toFixed(1)} s`}
        .{' '}
        {tipRound === round.number ? 'The liquid block belongs to this round.' : `The liquid block is from round ${tipRound}; this round has no key block yet.`}
      </p>
    </div>
  );
}

function Feed({ items, now }: { items: readonly FeedItem[]; now: number }): JSX.Element {
  if (items.length === 0) return <p class="muted">Waiting for the next block…</p>;
  return (
    <ul class="feed" data-testid="feed">
      {items.map((item) => (
        <li key={item.key} class={now - item.seenAt < 1500 ? 'fresh' : ''} data-kind={item.kind} data-height={item.header.height}>
          {item.kind === 'key' ? <strong>Key block</strong> : <span>{item.merged === true ? 'Micro-blocks' : 'Micro-block'}</span>}
          <BlockLink height={item.header.height} />
          {item.kind === 'key' ? (
            <span class="small">
              by <AddressLink address={item.header.generator} short />
              {item.sizeDelta !== undefined && `, no transactions, ${formatBytes(item.sizeDelta)}`}
            </span>
          ) : (
            <span class="small">
              +{item.txDelta} tx{item.sizeDelta !== undefined && `, +${formatBytes(item.sizeDelta)}`} → {item.header.transactionCount} tx
            </span>
          )}
          <span class="small muted">{formatAge(item.seenAt, Math.max(now, item.seenAt))}</span>
        </li>
      ))}
    </ul>
  );
}

export function LivePage(): JSX.Element {
  const now = useNow(500);
  const config = useResource((a) => a.getJson<NodeConfig>('/node/config'), []);
  const genesis = useResource((a) => a.getImmutable<BlockHeader>('/blocks/headers/at/1'), []);
  const clock = useResource(async (a) => {
    const asked = Date.now();
    const time = await a.getJson<{ system: string; NTP: string }>('/utils/time');
    return Number(toBigInt(time.NTP)) - (asked + Date.now()) / 2;
  }, []);
  const nodeNow = now + (clock.state === 'ok' ? clock.value : 0);

  const [headers, setHeaders] = useState<readonly BlockHeader[]>([]);
  const [feed, setFeed] = useState<readonly FeedItem[]>([]);
  const [pool, setPool] = useState<PoolSize | undefined>(undefined);
  const [liquidTxs, setLiquidTxs] = useState<readonly Tx[] | undefined>(undefined);
  const last = useRef<BlockHeader | undefined>(undefined);
  const microCount = useRef(0);

  usePoll(
    async (a) => {
      const tip = await a.getJson<BlockHeader>('/blocks/headers/last');
      const prev = last.current;
      if (prev !== undefined && prev.height === tip.height && prev.signature === tip.signature) return;
      last.current = tip;
      const seenAt = Date.now();
      if (prev === undefined || tip.height !== prev.height) {
        microCount.current = tip.transactionCount > 0 ? 1 : 0;
        // The previous liquid block is final now: read the headers since it again.
        const since = prev !== undefined && tip.height > prev.height && tip.height - prev.height < BLOCKS_PER_REQUEST ? prev.height : undefined;
        if (since !== undefined) {
          const fresh = await headersBetween(a, since, tip.height - 1);
          setHeaders((hs) => [...hs.filter((h) => h.height < since), ...fresh, tip].slice(-MAX_WINDOW_BLOCKS - 1));
        } else {
          setHeaders(await recentHeaders(a, tip));
        }
        if (prev !== undefined) {
          // Micro-blocks that came within one poll of their key block are seen together with it.
          const key: FeedItem = {
            key: `k${tip.signature}`,
            kind: 'key',
            header: tip,
            txDelta: 0,
            sizeDelta: tip.transactionCount === 0 ? tip.blocksize : undefined,
            seenAt,
          };
          const withMicro: FeedItem[] =
            tip.transactionCount === 0
              ? [key]
              : [{ key: `m${tip.signature}`, kind: 'micro', header: tip, txDelta: tip.transactionCount, sizeDelta: undefined, seenAt, merged: true }, key];
          setFeed((f) => [...withMicro, ...f].slice(0, FEED_LENGTH));
        }
      } else {
        microCount.current++;
        setHeaders((hs) => [...hs.slice(0, -1), tip]);
        setFeed((f) =>
          [
            {
              key: `m${tip.signature}`,
              kind: 'micro' as const,
              header: tip,
              txDelta: tip.transactionCount - prev.transactionCount,
              sizeDelta: tip.blocksize - prev.blocksize,
              seenAt,
            },
            ...f,
          ].slice(0, FEED_LENGTH),
        );
      }
      if (tip.transactionCount === 0) setLiquidTxs([]);
      else if (tip.transactionCount > LIST_LIQUID_UP_TO) setLiquidTxs(undefined);
      else setLiquidTxs((await a.getJson<Block>('/blocks/last')).transactions.slice(-10).reverse());
    },
    TIP_POLL_MS,
    [],
  );
  usePoll(async (a) => setPool(await a.getJson<PoolSize>('/transactions/unconfirmed/size')), 2000, []);

  const tip = last.current;
  const finals = headers.slice(0, -1).slice(-12).reverse();
  return (
    <div>
      <div class="grid two">
        <Card title="Liquid block">
          {tip === undefined ? (
            <p class="muted">Reading the chain…</p>
          ) : (
            <div>
              <div class="stats">
                <Stat label="height" value={<a href={href.block(tip.height)}>{tip.height}</a>} testId="tip-height" />
                <Stat label="transactions" value={formatInteger(tip.transactionCount)} testId="tip-tx-count" />
                <Stat label="size" value={formatBytes(tip.blocksize)} />
                <Stat label="micro-blocks seen" value={microCount.current} />
                <Stat label="pool" value={pool === undefined ? '—' : `${formatInteger(pool.size)} tx`} testId="pool-size" />
              </div>
              <p class="small">
                Key block by <AddressLink address={tip.generator} short /> at {formatTime(tip.timestamp)} ({formatAge(tip.timestamp, nodeNow)}); pool{' '}
                {pool === undefined ? '—' : formatBytes(pool.sizeInBytes)}.
              </p>
              {config.state === 'ok' && genesis.state === 'ok' && <RoundProgress config={config.value} genesis={genesis.value} nodeNow={nodeNow} tip={tip} />}
            </div>
          )}
        </Card>
        <Card title="Transactions per second, last 10 minutes">
          <StepChart series={txRateSeries(headers, nodeNow)} label="tx/s" testId="tx-rate-chart" />
          <p class="small muted">Each step is one final block: its transactions over the time until the next key block.</p>
        </Card>
      </div>
      <div class="grid two">
        <Card title="Arriving">
          <Feed items={feed} now={now} />
        </Card>
        <Card title="Latest key blocks">
          <Table
            items={finals}
            testId="latest-blocks"
            empty={tip === undefined ? 'Reading the chain…' : 'No final blocks yet.'}
            rowKey={(h) => h.signature}
            rowData={(h) => ({ height: h.height })}
            columns={[
              { label: 'Height', num: true, cell: (h) => <BlockLink height={h.height} /> },
              { label: 'Generator', cell: (h) => <AddressLink address={h.generator} short /> },
              { label: 'Tx', num: true, cell: (h) => h.transactionCount },
              { label: 'Size', num: true, cell: (h) => formatBytes(h.blocksize) },
              { label: 'Time', class: 'small', cell: (h) => formatTime(h.timestamp) },
            ]}
          />
        </Card>
      </div>
      <Card title="In the liquid block">
        {liquidTxs === undefined ? (
          <p class="muted">More than {LIST_LIQUID_UP_TO} transactions: open the block to see them.</p>
        ) : (
          <TxTable txs={liquidTxs} testId="liquid-txs" />
        )}
      </Card>
    </div>
  );
}
