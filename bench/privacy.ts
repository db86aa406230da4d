/**
 * Confidential data figures, on a dev node process with its default embedded
 * storage, over loopback HTTP, each against a bare node:http server in its own process
 * (bench/stream-server.ts) doing the same transfer with nothing in between:
 * - privacy.sendLargeData: a 1 GiB item (PRIVACY_BENCH_MB to change) streamed as the
 *   multipart body of POST /privacy/sendLargeData until the node answers with its
 *   PolicyDataHash, MB/s ÷ the same bytes POSTed to the bare server, which copies them to a
 *   file and fsyncs it (target ≥ 0.5);
 * - privacy.sendLargeData.rss: the node's peak RSS growth during that upload, MB (target
 *   < 100 MB), beside the bare server's;
 * - privacy.sendLargeData.cpu: the CPU time (all threads, user + system) the node process
 *   spent per GiB of that upload, s, against the bare server's for its copy — what the
 *   throughput ratio comes to on a machine whose cores are busy with other work, where the
 *   MB/s of both follow the load;
 * - privacy.getLargeData: the item streamed back, MB/s ÷ the bare server streaming its file;
 * - privacy.sendData: 10 KB items sent as JSON (Base64) through POST /privacy/sendData, 16
 *   requests in flight, items/s (each stored, fsynced and its PolicyDataHash pooled) ÷ the
 *   same bodies POSTed to the bare server, which writes each to its own file and fsyncs it.
 * Each transfer is checked: the node answers 200 and the bytes read back hash to the item's hash.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { DEV_API_KEY, devAccounts } from '../src/cli/dev.js';
import type { Protocol } from '../src/protocol/protocol.js';
import { generatedData } from '../devkit/multipart.js';
import { b58sha, download, hashOfSource, PrivacyClient, upload, type PrivacyTarget } from '../devkit/privacy-client.js';
import { startNodeProcess, stopNodeProcess } from './chain.js';
import { median, processCpuMs, progress, startProcess, stopProcess, type Figure } from './harness.js';

const MB = 1_000_000;
const MiB = 1024 * 1024;
const SIZE = Number(process.env.PRIVACY_BENCH_MB ?? 1024) * MiB;
const ROUNDS = 2;
const SMALL_ITEMS = 1000;
const SMALL_SIZE = 10_000;
const SMALL_IN_FLIGHT = 16;

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no ${field} for ${pid}`);
  return Number(m[1]);
}

/**
 * Watches a process's resident set while `run` goes: its peak minus its size at the start,
 * MB. The kernel's high-water mark is reset first (clear_refs 5) so spikes between samples
 * count too; sampled every 20 ms where that reset is not allowed.
 */
async function rssGrowth<T>(pid: number, run: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const start = statusKb(pid, 'VmRSS');
  let hwmReset = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    hwmReset = false;
  }
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, statusKb(pid, 'VmRSS'))), 20);
  try {
    const result = await run();
    if (hwmReset) peak = Math.max(peak, statusKb(pid, 'VmHWM'));
    return { result, growthMb: (peak - start) / 1024 };
  } finally {
    clearInterval(timer);
  }
}

function secondsSince(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/** Runs `work(i)` for i in [0, n) with `inFlight` at a time. */
async function inParallel(n: number, inFlight: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

export async function privacyFigures(p: Protocol): Promise<Figure[]> {
  const node = await startNodeProcess(true);
  const bareDir = mkdtempSync(join(tmpdir(), 'weft-bench-bare-'));
  const bare = await startProcess(fileURLToPath(new URL('./stream-server.js', import.meta.url)), [bareDir], 'bare stream server');
  try {
    const accounts = devAccounts(p);
    const target: PrivacyTarget = {
      url: node.url,
      apiKey: DEV_API_KEY,
      owner: { address: accounts[0]!.address, password: accounts[0]!.keystorePassword },
      other: { address: accounts[1]!.address, password: accounts[1]!.keystorePassword },
    };
    const bareTarget = { url: bare.url, apiKey: '' };
    const client = new PrivacyClient(target);
    const policyId = await client.createPolicy();
    const nodePid = node.child.pid!;
    const barePid = bare.child.pid!;

    const up: number[] = [];
    const upBare: number[] = [];
    const down: number[] = [];
    const downBare: number[] = [];
    const rss: number[] = [];
    const rssBare: number[] = [];
    const cpu: number[] = [];
    const cpuBare: number[] = [];
    const perGiB = (ms: number): number => ms / 1000 / (SIZE / (1024 * MiB));
    for (let round = 0; round < ROUNDS; round++) {
      const data = generatedData(SIZE, 100 + round);
      const hash = await hashOfSource(data);
      progress(`round ${round + 1}/${ROUNDS}: ${SIZE / MiB} MiB to the bare server`);
      let cpu0 = processCpuMs(barePid);
      const bareUp = await rssGrowth(barePid, async () => {
        const t0 = process.hrtime.bigint();
        const r = await upload(bareTarget, `/file/item-${round}`, {
          contentType: 'application/octet-stream',
          length: SIZE,
          stream: () => Readable.from(data.stream()),
        });
        if (r.status !== 200) throw new Error(`bare upload: ${r.status} ${r.text}`);
        return SIZE / MB / secondsSince(t0);
      });
      cpuBare.push(perGiB(processCpuMs(barePid) - cpu0));
      upBare.push(bareUp.result);
      rssBare.push(bareUp.growthMb);
      progress(`round ${round + 1}/${ROUNDS}: ${SIZE / MiB} MiB through sendLargeData`);
      cpu0 = processCpuMs(nodePid);
      const nodeUp = await rssGrowth(nodePid, async () => {
        const t0 = process.hrtime.bigint();
        const r = await client.sendLargeData(policyId, hash, data);
        if (r.status !== 200) throw new Error(`sendLargeData: ${r.status} ${r.text.slice(0, 400)}`);
        return SIZE / MB / secondsSince(t0);
      });
      cpu.push(perGiB(processCpuMs(nodePid) - cpu0));
      up.push(nodeUp.result);
      rss.push(nodeUp.growthMb);

      progress(`round ${round + 1}/${ROUNDS}: reading back`);
      let t0 = process.hrtime.bigint();
      const b = await download(bareTarget, `/file/item-${round}`);
      downBare.push(SIZE / MB / secondsSince(t0));
      t0 = process.hrtime.bigint();
      const n = await download(target, `/privacy/${policyId}/getLargeData/${hash}`);
      down.push(SIZE / MB / secondsSince(t0));
      if (b.hash !== hash || n.hash !== hash || n.contentLength !== SIZE)
        throw new Error(`read back: bare ${b.hash}, node ${n.hash} (${n.contentLength} B), expected ${hash}`);
      rmSync(join(bareDir, `item-${round}`));
    }

    progress(`${SMALL_ITEMS} items of ${SMALL_SIZE / 1000} KB through sendData`);
    const items = Array.from({ length: SMALL_ITEMS }, () => randomBytes(SMALL_SIZE));
    const bodies = items.map((d) => JSON.stringify({ ...client.request(policyId, b58sha(d)), data: d.toString('base64') }));
    const post = async (url: string, path: string, body: string, apiKey: string): Promise<void> => {
      const bytes = Buffer.from(body);
      const r = await upload({ url, apiKey }, path, { contentType: 'application/json', length: bytes.length, stream: () => Readable.from([bytes]) });
      if (r.status !== 200) throw new Error(`POST ${path}: ${r.status} ${r.text.slice(0, 400)}`);
    };
    let t0 = process.hrtime.bigint();
    await inParallel(SMALL_ITEMS, SMALL_IN_FLIGHT, (i) => post(bare.url, '/small', bodies[i]!, ''));
    const smallBare = SMALL_ITEMS / secondsSince(t0);
    t0 = process.hrtime.bigint();
    await inParallel(SMALL_ITEMS, SMALL_IN_FLIGHT, (i) => post(node.url, '/privacy/sendData', bodies[i]!, DEV_API_KEY));
    const small = SMALL_ITEMS / secondsSince(t0);

    const size = `${SIZE / MiB} MiB`;
    return [
      {
        name: 'privacy.sendLargeData',
        value: median(up),
        baseline: median(upBare),
        ratio: median(up) / median(upBare),
        unit: 'MB/s',
        target: 0.5,
        baselineLabel: `bare HTTP POST of ${size} copied to a file + fsync, MB/s`,
      },
      {
        name: 'privacy.sendLargeData.rss',
        value: Math.max(...rss),
        baseline: Math.max(...rssBare),
        ratio: Math.max(...rss) / Math.max(1, ...rssBare),
        unit: 'MB',
        baselineLabel: `the bare server's peak RSS growth (node's target < 100 MB${Math.max(...rss) < 100 ? ', met' : ', NOT met'})`,
      },
      {
        name: 'privacy.sendLargeData.cpu',
        value: median(cpu),
        baseline: median(cpuBare),
        ratio: median(cpu) / median(cpuBare),
        unit: 's/GiB',
        baselineLabel: `the bare server's CPU per GiB of its copy, s (all threads; lower is better)`,
      },
      {
        name: 'privacy.getLargeData',
        value: median(down),
        baseline: median(downBare),
        ratio: median(down) / median(downBare),
        unit: 'MB/s',
        baselineLabel: `bare HTTP GET of the ${size} file, MB/s`,
      },
      {
        name: 'privacy.sendData',
        value: small,
        baseline: smallBare,
        ratio: small / smallBare,
        unit: 'items/s',
        baselineLabel: `bare HTTP POST of each 10 KB item's JSON written to a file + fsync, ${SMALL_IN_FLIGHT} in flight, items/s (keystore scrypt N=1024)`,
      },
    ];
  } finally {
    await stopProcess(bare.child);
    rmSync(bareDir, { recursive: true, force: true });
    await stopNodeProcess(node);
  }
}
