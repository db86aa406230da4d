/**
 * Reading a Prometheus text exposition (format 0.0.4) in tests: every sample line as name,
 * labels and value; `# HELP` / `# TYPE` lines kept per metric family. And a real Prometheus
 * scraping nodes, queried over its HTTP API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freeLoopbackPort } from '../../src/cli/devnet.js';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export class Exposition {
  private constructor(
    readonly samples: readonly Sample[],
    /** Metric family name → its TYPE (counter, gauge, histogram, …). */
    readonly types: ReadonlyMap<string, string>,
  ) {}

  static parse(text: string): Exposition {
    const samples: Sample[] = [];
    const types = new Map<string, string>();
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type !== null) types.set(type[1]!, type[2]!);
      if (line.startsWith('#')) continue;
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
      if (m === null) throw new Error(`not a Prometheus sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g))
        labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      // Go's ParseFloat, which Prometheus reads values with, takes NaN and Inf in any case (prom-client writes `Nan`).
      const text = m[3]!.toLowerCase();
      const value = text === '+inf' || text === 'inf' ? Infinity : text === '-inf' ? -Infinity : Number(m[3]);
      if (Number.isNaN(value) && text !== 'nan') throw new Error(`not a sample value: ${line}`);
      samples.push({ name: m[1]!, labels, value });
    }
    return new Exposition(samples, types);
  }

  /** The samples of a name whose labels include `labels`. */
  matching(name: string, labels: Readonly<Record<string, string>> = {}): Sample[] {
    return this.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  }

  /** The sum of the matching samples (0 when there are none). */
  sum(name: string, labels: Readonly<Record<string, string>> = {}): number {
    return this.matching(name, labels).reduce((t, s) => t + s.value, 0);
  }

  /** The one sample of a name with exactly these labels; throws when absent. */
  value(name: string, labels: Readonly<Record<string, string>> = {}): number {
    const found = this.samples.filter(
      (s) => s.name === name && Object.keys(s.labels).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
    if (found.length !== 1) throw new Error(`${found.length} samples of ${name}${JSON.stringify(labels)}`);
    return found[0]!.value;
  }

  has(name: string): boolean {
    return this.samples.some((s) => s.name === name);
  }
}

/** One series of an instant query's answer. */
export interface VectorSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: readonly [number, string];
}

/** What Prometheus's HTTP API answers (`/api/v1/…`). */
export interface ApiAnswer<T> {
  readonly status: 'success' | 'error';
  readonly errorType?: string;
  readonly error?: string;
  readonly data: T;
}

/**
 * A real Prometheus (Debian's package `prometheus`) scraping `targets` every second as job
 * `weft`, evaluating `ruleFiles` every second; its TSDB in `dir`. Stop it with `stop()`.
 */
export class PrometheusServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(o: { readonly dir: string; readonly targets: readonly string[]; readonly ruleFiles?: readonly string[] }): Promise<PrometheusServer> {
    const port = await freeLoopbackPort();
    const config = join(o.dir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        ...(o.ruleFiles === undefined ? [] : ['rule_files:', ...o.ruleFiles.map((f) => `  - ${JSON.stringify(f)}`)]),
        'scrape_configs:',
        '  - job_name: weft',
        '    metrics_path: /metrics',
        '    static_configs:',
        `      - targets: [${o.targets.map((t) => `'${t}'`).join(', ')}]`,
        '',
      ].join('\n'),
    );
    const child = spawn('prometheus', [`--config.file=${config}`, `--storage.tsdb.path=${join(o.dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], {
      stdio: 'ignore',
    });
    return new PrometheusServer(child, `http://127.0.0.1:${port}`);
  }

  /** GET of an API path; undefined while Prometheus does not listen yet. */
  async api<T>(path: string): Promise<ApiAnswer<T> | undefined> {
    const r = await fetch(`${this.url}${path}`).catch(() => undefined);
    if (r === undefined || r.status === 503) return undefined;
    return (await r.json()) as ApiAnswer<T>;
  }

  /** An instant query's whole answer (a bad expression answers status error); undefined while Prometheus does not listen yet. */
  query(expr: string): Promise<ApiAnswer<{ resultType: string; result: VectorSample[] }> | undefined> {
    return this.api(`/api/v1/query?query=${encodeURIComponent(expr)}`);
  }

  /** The series an instant query returns ([] while Prometheus does not listen yet); an error answer fails. */
  async vector(expr: string): Promise<VectorSample[]> {
    const answer = await this.query(expr);
    if (answer === undefined) return [];
    if (answer.status !== 'success') throw new Error(`Prometheus refused ${expr}: ${answer.errorType}: ${answer.error}`);
    return answer.data.result;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
