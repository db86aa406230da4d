/**
 * Reading a Prometheus text exposition (format 0.0.4) in tests: every sample line as name,
 * labels and value; `# HELP` / `# TYPE` lines kept per metric family.
 */

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
