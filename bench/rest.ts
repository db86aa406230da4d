/**
 * REST figures: requests per second of
 *   GET /addresses/balance/{address}   and   GET /blocks/last
 * on a node with the seeded chain of the API tests, each against a bare Fastify route
 * answering a fixed small JSON, measured with autocannon in the same run with the same
 * settings. Both servers run in their own process set up the same way (bench/rest-server.ts,
 * no request logging) and the load comes from this one; subject and baseline alternate
 * over rounds and the ratio is the median of the rounds' ratios. Target ratio ≥ 0.8. p99 latency is printed for
 * each, as its own figure (ratio = node / bare: lower is better).
 *
 * rest.survey.*: one run of REST_BENCH.durationSeconds on each of a few more read routes that
 * clients poll (a node's status, a transaction, an address's data, balances and history, a
 * block, a short range), against the bare route's median rate of the rounds above — where a
 * route's own work shows against the request path all routes share. No target.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chainHeight, request } from './chain.js';
import { median, type Figure } from './harness.js';

interface Histogram {
  readonly average: number;
  readonly p99: number;
  readonly total?: number;
}
interface AutocannonResult {
  readonly requests: Histogram;
  readonly latency: Histogram;
  readonly duration: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
}
/** autocannon's run: a thenable EventEmitter ('response' gives each latency in ms, sub-millisecond). */
interface AutocannonRun extends PromiseLike<AutocannonResult> {
  on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void): this;
}
type Autocannon = (options: { url: string; connections: number; pipelining: number; duration: number }) => AutocannonRun;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

export const REST_BENCH = { connections: 16, pipelining: 1, durationSeconds: 2, rounds: 5 } as const;

interface Server {
  readonly url: string;
  readonly address: string;
  stop(): Promise<void>;
}

async function startServer(mode: 'node' | 'bare'): Promise<Server> {
  const script = fileURLToPath(new URL('./rest-server.js', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, [script, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${mode} server did not start within 60 s`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /ready (\S+) (\S+)\n/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(`${m[1]} ${m[2]}`);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${mode} server exited (${code}) before it was ready`));
    });
  });
  const [url, address] = line.split(' ') as [string, string];
  return {
    url,
    address,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

interface Run {
  readonly rate: number;
  readonly p99: number;
}

async function load(url: string, durationSeconds: number): Promise<Run> {
  // autocannon's own latency histogram keeps whole milliseconds; the responses give finer times.
  const latencies: number[] = [];
  const run = autocannon({ url, connections: REST_BENCH.connections, pipelining: REST_BENCH.pipelining, duration: durationSeconds });
  run.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  const r = await run;
  if (r.errors > 0 || r.timeouts > 0 || r.non2xx > 0) throw new Error(`${url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx answers`);
  const rate = r.requests.total !== undefined && r.duration > 0 ? r.requests.total / r.duration : r.requests.average;
  latencies.sort((a, b) => a - b);
  const p99 = latencies.length > 0 ? latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))]! : r.latency.p99;
  return { rate, p99 };
}

export async function restFigures(): Promise<Figure[]> {
  const node = await startServer('node');
  const bare = await startServer('bare');
  try {
    const subjects: Array<[string, string]> = [
      ['rest.addresses.balance', `${node.url}/addresses/balance/${node.address}`],
      ['rest.blocks.last', `${node.url}/blocks/last`],
    ];
    const baselineUrl = `${bare.url}/bare`;
    // Warm both up (JIT, caches, connections).
    await load(subjects[0]![1], 1);
    await load(subjects[1]![1], 1);
    await load(baselineUrl, 1);
    const figures: Figure[] = [];
    const bareRates: number[] = [];
    const label = `bare Fastify route, fixed small JSON (autocannon ${REST_BENCH.connections} connections, ${REST_BENCH.durationSeconds} s × ${REST_BENCH.rounds})`;
    for (const [name, url] of subjects) {
      const s: Run[] = [];
      const b: Run[] = [];
      for (let i = 0; i < REST_BENCH.rounds; i++) {
        // Subject and baseline back to back, in alternating order, so drift hits both alike.
        if (i % 2 === 0) {
          s.push(await load(url, REST_BENCH.durationSeconds));
          b.push(await load(baselineUrl, REST_BENCH.durationSeconds));
        } else {
          b.push(await load(baselineUrl, REST_BENCH.durationSeconds));
          s.push(await load(url, REST_BENCH.durationSeconds));
        }
      }
      const rate = median(s.map((x) => x.rate));
      const baseRate = median(b.map((x) => x.rate));
      // The ratio is the median of the rounds' own ratios (each pair measured back to back).
      const ratio = median(s.map((x, i) => x.rate / b[i]!.rate));
      const p99 = median(s.map((x) => x.p99));
      const baseP99 = median(b.map((x) => x.p99));
      figures.push({ name, value: rate, baseline: baseRate, ratio, unit: 'req/s', baselineLabel: label, target: 0.8 });
      figures.push({
        name: `${name}.p99`,
        value: p99,
        baseline: baseP99,
        ratio: baseP99 > 0 ? p99 / baseP99 : 0,
        unit: 'ms p99',
        baselineLabel: 'bare route p99',
      });
      bareRates.push(...b.map((x) => x.rate));
    }
    figures.push(...(await surveyFigures(node, median(bareRates))));
    return figures;
  } finally {
    await Promise.all([node.stop(), bare.stop()]);
  }
}

/** The read routes of rest.survey, as templates over the seeded node's height, an address of it and a transaction of that address. */
const SURVEY_ROUTES = [
  '/node/status',
  '/transactions/info/{id}',
  '/transactions/address/{address}/limit/10',
  '/addresses/data/{address}',
  '/addresses/balance/details/{address}',
  '/blocks/at/{height}',
  '/blocks/headers/last',
  '/blocks/seq/{from}/{height}',
] as const;

async function surveyFigures(node: Server, bareRate: number): Promise<Figure[]> {
  const height = await chainHeight(node.url);
  const [tx] = JSON.parse((await request(`${node.url}/transactions/address/${node.address}/limit/1`, 'GET')).text) as Array<Array<{ id: string }>>;
  const values: Record<string, string> = { id: tx![0]!.id, address: node.address, height: String(height), from: String(Math.max(1, height - 9)) };
  const figures: Figure[] = [];
  for (const route of SURVEY_ROUTES) {
    const path = route.replace(/\{(\w+)\}/g, (_m, name: string) => values[name]!);
    const run = await load(`${node.url}${path}`, REST_BENCH.durationSeconds);
    figures.push({
      name: `rest.survey.${route}`,
      value: run.rate,
      baseline: bareRate,
      ratio: run.rate / bareRate,
      unit: 'req/s',
      baselineLabel: `the bare route's median req/s of the rounds above (${path})`,
    });
  }
  return figures;
}
