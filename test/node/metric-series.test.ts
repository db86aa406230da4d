/**
 * The metrics' own counters and histograms (metric-series.ts) against prom-client's, as the
 * oracle: the same observations give the same exposition text (Prometheus and OpenMetrics)
 * and the same JSON, a reset zeroes them as it zeroes prom-client's, and a label set gives
 * one series however it is asked for.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Histogram, Registry, type OpenMetricsContentType, type RegistryContentType } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from '../../src/node/metric-series.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** On a bound, between bounds, beyond the last, zero; a label value that needs escaping. */
const OBSERVATIONS: ReadonlyArray<readonly [string, string, string, number]> = [
  ['POST', '/transactions/broadcast', '200', 0.0012],
  ['POST', '/transactions/broadcast', '200', 0.001],
  ['POST', '/transactions/broadcast', '400', 0.0003],
  ['GET', '/node/status', '200', 0.05],
  ['GET', '/node/status', '200', 12],
  ['GET', '/node/status', '200', 0],
  ['GET', 'unmatched', '404', 0.0004],
  ['GET', '/say/"hi"\\\n', '200', 0.7],
  ['POST', '/transactions/broadcast', '200', 2.5],
];

function openMetrics(): Registry<OpenMetricsContentType> {
  const r = new Registry<OpenMetricsContentType>();
  r.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  return r;
}

/** What the registry holds as plain values: prom-client adds empty exemplars, which the text leaves out. */
async function valuesOf(r: Registry): Promise<unknown> {
  return (await r.getMetricsAsJSON()).map((m) => ({
    ...m,
    values: m.values.map((v) => ({ labels: v.labels, value: v.value, metricName: (v as { metricName?: string }).metricName })),
  }));
}

function fill(theirs: Registry<RegistryContentType>, ours: Registry<RegistryContentType>): void {
  const labelNames = ['method', 'route', 'status'] as const;
  const h = new Histogram({ name: 'rest_seconds', help: 'Durations.', labelNames, buckets: BUCKETS, registers: [theirs] });
  const c = new Counter({ name: 'bytes_total', help: 'Bytes, by code.', labelNames: ['code', 'message'], registers: [theirs] });
  const sh = new SeriesHistogram({ name: 'rest_seconds', help: 'Durations.', labelNames, buckets: BUCKETS, registry: ours });
  const sc = new SeriesCounter({ name: 'bytes_total', help: 'Bytes, by code.', labelNames: ['code', 'message'], registry: ours });
  for (const [method, route, status, seconds] of OBSERVATIONS) {
    h.labels({ method, route, status }).observe(seconds);
    sh.series({ method, route, status }).observe(seconds);
    c.inc({ code: status, message: method }, seconds * 1000);
    sc.series({ code: status, message: method }).inc(seconds * 1000);
  }
  c.inc({ code: '1', message: 'none' }, 0);
  sc.series({ code: '1', message: 'none' });
}

describe('metric series', () => {
  it('expose what prom-client exposes for the same observations', async () => {
    const [theirs, ours] = [new Registry(), new Registry()];
    fill(theirs, ours);
    assert.equal(await ours.metrics(), await theirs.metrics());
    assert.deepEqual(await valuesOf(ours), await valuesOf(theirs));
  });

  it('expose what prom-client exposes in the OpenMetrics format', async () => {
    const [theirs, ours] = [openMetrics(), openMetrics()];
    fill(theirs, ours);
    assert.match(await ours.metrics(), /^# TYPE bytes counter$/m);
    assert.equal(await ours.metrics(), await theirs.metrics());
  });

  it('are zeroed by a reset of the registry, and keep counting after it', async () => {
    const [theirs, ours] = [new Registry(), new Registry()];
    fill(theirs, ours);
    theirs.resetMetrics();
    ours.resetMetrics();
    const h = ours.getSingleMetric('rest_seconds') as unknown as SeriesHistogram<'method' | 'route' | 'status'>;
    (theirs.getSingleMetric('rest_seconds') as Histogram<'method' | 'route' | 'status'>).observe({ method: 'GET', route: '/x', status: '200' }, 0.3);
    h.series({ method: 'GET', route: '/x', status: '200' }).observe(0.3);
    // prom-client drops its series on reset; ours stay, at zero.
    const text = await ours.metrics();
    assert.match(text, /^rest_seconds_count\{method="POST",route="\/transactions\/broadcast",status="200"\} 0$/m);
    assert.match(text, /^bytes_total\{code="200",message="POST"\} 0$/m);
    const line = (t: string): string[] => t.split('\n').filter((l) => l.includes('route="/x"'));
    assert.deepEqual(line(text), line(await theirs.metrics()));
  });

  it('give one series per label set, whatever the order of its labels', () => {
    const registry = new Registry();
    const c = new SeriesCounter({ name: 'c_total', help: 'C.', labelNames: ['a', 'b'], registry });
    const s = c.series({ a: '1', b: '2' });
    s.inc();
    assert.equal(c.series({ b: '2', a: '1' }), s);
    assert.notEqual(c.series({ a: '12', b: '' }), c.series({ a: '1', b: '2' }));
    // Label values with any characters in them do not run into each other.
    assert.notEqual(c.series({ a: '1\u0000', b: '' }), c.series({ a: '1', b: '\u0000' }));
    assert.equal(c.get().values.length, 4);
  });

  it('refuse a metric name taken in the registry, and buckets that are not distinct finite numbers', () => {
    const registry = new Registry();
    new Counter({ name: 'taken_total', help: 'T.', registers: [registry] });
    assert.throws(() => new SeriesCounter({ name: 'taken_total', help: 'T.', labelNames: [], registry }), /already been registered/);
    assert.throws(() => new SeriesHistogram({ name: 'h1', help: 'H.', labelNames: [], buckets: [], registry }), /distinct finite/);
    assert.throws(() => new SeriesHistogram({ name: 'h2', help: 'H.', labelNames: [], buckets: [1, 1], registry }), /distinct finite/);
    assert.throws(() => new SeriesHistogram({ name: 'h3', help: 'H.', labelNames: [], buckets: [1, Infinity], registry }), /distinct finite/);
  });
});
