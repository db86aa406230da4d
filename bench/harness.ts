/**
 * Benchmark plumbing: every figure is measured against a bare baseline in the same run,
 * alternating subject and baseline over several rounds so machine noise hits both, and
 * reported as the median of each with their ratio.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly baseline: number;
  readonly ratio: number;
  readonly unit: string;
  /** What the baseline is, for the human-readable report. */
  readonly baselineLabel: string;
  /** The target ratio, when the issue names one. */
  readonly target?: number;
}

/** Operations per second of `op`, run in batches for about `ms` milliseconds. */
export function opsPerSecond(op: () => void, ms: number): number {
  let batch = 1;
  let done = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(ms) * 1_000_000n;
  for (;;) {
    for (let i = 0; i < batch; i++) op();
    done += batch;
    const elapsed = process.hrtime.bigint() - start;
    if (elapsed >= budget) return (done * 1e9) / Number(elapsed);
    if (batch < 1 << 16) batch *= 2;
  }
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export interface CompareOptions {
  readonly rounds?: number;
  readonly msPerRound?: number;
  readonly target?: number;
  readonly unit?: string;
}

/** Throughput of `subject` vs `baseline` (both ops/s), interleaved over rounds. */
export function compareRates(name: string, baselineLabel: string, subject: () => void, baseline: () => void, options: CompareOptions = {}): Figure {
  const rounds = options.rounds ?? 5;
  const ms = options.msPerRound ?? 400;
  // Warm both up before measuring.
  opsPerSecond(subject, 100);
  opsPerSecond(baseline, 100);
  const s: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    s.push(opsPerSecond(subject, ms));
    b.push(opsPerSecond(baseline, ms));
  }
  const value = median(s);
  const base = median(b);
  return { name, value, baseline: base, ratio: value / base, unit: options.unit ?? 'ops/s', baselineLabel, target: options.target };
}

export function formatFigure(f: Figure): string {
  const num = (x: number): string => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toPrecision(4));
  const target = f.target === undefined ? '' : `  (target ≥ ${f.target}${f.ratio >= f.target ? ', met' : ', NOT met'})`;
  return `${f.name.padEnd(34)} ${num(f.value).padStart(12)} ${f.unit}  vs ${f.baselineLabel}: ${num(f.baseline)}  ratio ${f.ratio.toFixed(3)}${target}`;
}

export function figureJson(f: Figure): string {
  return JSON.stringify({ name: f.name, value: f.value, baseline: f.baseline, ratio: f.ratio, unit: f.unit });
}

/** BENCH_NODE_ARGS: extra Node options for the node processes a bench starts (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), devnet nodes included. */
export function benchNodeArgs(): string[] {
  return (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
}

/** Spawns `node <script> …args` and waits for the "ready <url>" line it prints. */
export function startProcess(script: string, args: readonly string[], what: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...benchNodeArgs(), script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start in 30 s`)), 30_000);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ready (\S+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    });
    child.on('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the process is gone. */
export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/** Clock ticks per second (`getconf CLK_TCK`), read once. */
let clockTicks: number | undefined;

/**
 * CPU time (ms, user + system, all threads) a running process has used so far, from Linux's
 * /proc/<pid>/stat (fields utime and stime, in clock ticks).
 */
export function processCpuMs(pid: number): number {
  return cpuMsOfStat(`/proc/${pid}/stat`);
}

/**
 * CPU time (ms, user + system, all threads) used so far by the running descendants of this
 * process (children, their children, …) — e.g. the contract processes a node in this process
 * started. A descendant that exits between two readings drops out of the sum: measure a phase
 * over which they keep running.
 */
export function descendantsCpuMs(): number {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited while listed
    }
  }
  const isDescendant = (pid: number): boolean => {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) if (p === process.pid) return true;
    return false;
  };
  let total = 0;
  for (const pid of parentOf.keys()) {
    if (!isDescendant(pid)) continue;
    try {
      total += processCpuMs(pid);
    } catch {
      // exited since
    }
  }
  return total;
}

/** CPU time (ms, user + system) of a process's main thread alone (/proc/<pid>/task/<pid>/stat): its event loop, without worker threads. */
export function mainThreadCpuMs(pid: number): number {
  return cpuMsOfStat(`/proc/${pid}/task/${pid}/stat`);
}

function cpuMsOfStat(path: string): number {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
  const stat = readFileSync(path, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

/** A progress line on stderr (the figures go to stdout). */
export const progress = (msg: string): void => void process.stderr.write(`  … ${msg}\n`);

/** BENCH_ONLY=<part>[,<part>…] selects parts of a group; unset or empty, every part runs. */
export function benchPartWanted(part: string): boolean {
  const only = process.env['BENCH_ONLY'];
  return only === undefined || only === '' || only.split(',').includes(part);
}

/** One thread's scheduler times so far (/proc/<pid>/task/<tid>/schedstat), in ms. */
export interface ThreadTimes {
  readonly name: string;
  /** On a CPU. */
  readonly runMs: number;
  /** Runnable but waiting for a CPU (the machine busy with other work). */
  readonly waitMs: number;
}

/** Every thread of a process with its scheduler times, by thread id (the main thread's id is the pid). */
export function threadTimes(pid: number): Map<number, ThreadTimes> {
  const out = new Map<number, ThreadTimes>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      out.set(Number(tid), { name, runMs: (run ?? 0) / 1e6, waitMs: (wait ?? 0) / 1e6 });
    } catch {
      // the thread ended since the listing
    }
  }
  return out;
}

/**
 * How a process's threads spent `wallMs` between two threadTimes readings, one line: the main
 * thread and the busiest other threads each as on-CPU / waiting-for-a-CPU / idle shares of
 * the wall time, and the machine's cores lent to the process. Tells a run the node spent
 * waiting for work (idle) from one the machine starved (waiting for a CPU).
 */
export function threadTimesLine(pid: number, before: Map<number, ThreadTimes>, after: Map<number, ThreadTimes>, wallMs: number, top = 3): string {
  const rows = [...after].map(([tid, t]) => {
    const b = before.get(tid);
    return { tid, name: t.name, run: t.runMs - (b?.runMs ?? 0), wait: t.waitMs - (b?.waitMs ?? 0) };
  });
  const pct = (ms: number): string => `${Math.round((100 * ms) / wallMs)}%`;
  const row = (r: { tid: number; name: string; run: number; wait: number }, label: string): string =>
    `${label} cpu ${pct(r.run)} wait ${pct(r.wait)} idle ${pct(Math.max(0, wallMs - r.run - r.wait))}`;
  const main = rows.find((r) => r.tid === pid);
  const others = rows.filter((r) => r.tid !== pid).sort((a, b) => b.run - a.run);
  const rest = others.slice(top).reduce((s, r) => s + r.run, 0);
  const total = rows.reduce((s, r) => s + r.run, 0);
  return [
    ...(main === undefined ? [] : [row(main, 'main')]),
    ...others.slice(0, top).map((r) => row(r, `${r.name}:${r.tid}`)),
    `other threads cpu ${pct(rest)}`,
    `process cpu ${pct(total)} of one core`,
  ].join('; ');
}
