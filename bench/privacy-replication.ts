/**
 * Replication figures of confidential data (the goal: "replication of 100 MB to 3 members:
 * seconds, and MB/s ÷ the baseline"): a devnet of four node processes (src/cli/devnet.ts,
 * plain P2P connections: the item travels encrypted with each connection's session keys,
 * in 1 MiB cipher chunks), a policy whose recipients are all four node owners, and one
 * large item (PRIVACY_REPLICATION_MB megabytes, default 100) sent to node 0 through
 * sendLargeData; nodes 1, 2 and 3 fetch it.
 *
 * - privacy.replication.3members.seconds: from node 0's answer (the item stored there and
 *   its PolicyDataHash pooled) until all three members have the whole item stored and
 *   hash-checked (their getInfo answers) — the wait for the PolicyDataHash to reach them in
 *   a micro-block (≤ 0.5 s here), the inventory exchange, the encryption, the streams and
 *   each member's write with fsync — against the seconds of the baseline: the same bytes
 *   copied at once over bare loopback TCP into a file + fsync in each of three other
 *   processes (bench/tcp-sink.ts; lower is better).
 * - privacy.replication.3members: the item's MB ÷ those seconds, MB/s ÷ the baseline's.
 *
 * On a GOST network (the `gost` group; PRIVACY_REPLICATION_CRYPTO=gost for this group) the
 * figures are suffixed `.gost`: the streams are then encrypted with Kuznyechik
 * (crypto/transport-encryption.ts).
 *
 * Rounds alternate subject and baseline; medians are reported. The item on every member is
 * read back and its SHA-256 compared.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedData } from '../devkit/multipart.js';
import { download, hashOfSource, PrivacyClient, type PrivacyTarget } from '../devkit/privacy-client.js';
import { Devnet } from '../devkit/network.js';
import { until } from '../devkit/wait.js';
import { median, progress, startProcess, stopProcess, type Figure } from './harness.js';

const MB = 1_000_000;
const SIZE = Number(process.env.PRIVACY_REPLICATION_MB ?? 100) * MB;
const MEMBERS = 3;
const ROUNDS = 2;

const secondsSince = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e9;

/** Streams `source` to the sink over TCP and waits for its acknowledgement (the copy is on disk). */
async function bareCopy(hostPort: string, source: AsyncIterable<Uint8Array>): Promise<void> {
  const [host, port] = hostPort.split(':') as [string, string];
  const socket = connect({ host, port: Number(port), allowHalfOpen: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const acked = new Promise<void>((resolve, reject) => {
    socket.once('data', () => resolve());
    socket.once('error', reject);
    socket.once('end', () => reject(new Error('the sink closed without an acknowledgement')));
  });
  for await (const chunk of source) if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r));
  socket.end();
  await acked;
  socket.destroy();
}

function targetOf(net: Devnet, i: number): PrivacyTarget {
  const spec = net.layout.nodes[i]!;
  const other = net.layout.nodes[(i + 1) % net.layout.nodes.length]!;
  return {
    url: spec.restUrl,
    apiKey: net.layout.apiKey,
    owner: { address: spec.ownerAddress, password: spec.keystorePassword },
    other: { address: other.ownerAddress, password: other.keystorePassword },
  };
}

/** The replication figures on a devnet of `crypto` (by default PRIVACY_REPLICATION_CRYPTO's, else WAVES). */
export async function privacyReplicationFigures(
  crypto: 'waves' | 'gost' = process.env.PRIVACY_REPLICATION_CRYPTO === 'gost' ? 'gost' : 'waves',
): Promise<Figure[]> {
  const suffix = crypto === 'gost' ? '.gost' : '';
  const sinkDirs = Array.from({ length: MEMBERS }, () => mkdtempSync(join(tmpdir(), 'weft-bench-sink-')));
  const sinks = await Promise.all(
    sinkDirs.map((dir, i) => startProcess(fileURLToPath(new URL('./tcp-sink.js', import.meta.url)), [dir], `bare TCP sink ${i + 1}`)),
  );
  const net = await Devnet.create({
    nodes: 1 + MEMBERS,
    crypto,
    roundDurationMs: 2000,
    syncDurationMs: 1000,
    microBlockIntervalMs: 500,
    register: false,
    loggingLevel: 'WARN',
  });
  try {
    await net.startAll();
    await net.meshed(30_000);
    const clients = net.nodes.map((_, i) => new PrivacyClient(targetOf(net, i)));
    const [sender, ...members] = clients as [PrivacyClient, ...PrivacyClient[]];
    const policyId = await sender.createPolicy(clients.map((c) => c.target.owner.address));
    for (const m of members) await m.untilPolicy(policyId);

    const seconds: number[] = [];
    const bare: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const data = generatedData(SIZE, 300 + round);
      const hash = await hashOfSource(data);
      progress(`round ${round + 1}/${ROUNDS}: ${SIZE / MB} MB over bare loopback TCP copies to ${MEMBERS} processes at once`);
      let t0 = process.hrtime.bigint();
      await Promise.all(sinks.map((sink) => bareCopy(sink.url, data.stream())));
      bare.push(secondsSince(t0));
      for (const dir of sinkDirs) rmSync(join(dir, `copy-${round}`), { force: true });

      progress(`round ${round + 1}/${ROUNDS}: ${SIZE / MB} MB sent to node 0, replicated to ${MEMBERS} members`);
      const sent = await sender.sendLargeData(policyId, hash, data);
      if (sent.status !== 200) throw new Error(`sendLargeData: ${sent.status} ${sent.text.slice(0, 400)}`);
      t0 = process.hrtime.bigint();
      const each = await Promise.all(
        members.map(async (m, i) => {
          await until(
            `member node ${i + 1} to hold the item`,
            async () => ((await m.get(`/privacy/${policyId}/getInfo/${hash}`)).status === 200 ? true : undefined),
            600_000,
            50,
          );
          return secondsSince(t0);
        }),
      );
      seconds.push(secondsSince(t0));
      progress(`round ${round + 1}/${ROUNDS}: members done after ${each.map((t) => `${t.toFixed(2)} s`).join(', ')}`);
      for (const m of members) {
        const back = await download(m.target, `/privacy/${policyId}/getLargeData/${hash}`);
        if (back.hash !== hash || back.bytes !== SIZE)
          throw new Error(`${m.target.url} holds ${back.bytes} bytes hashing to ${back.hash}, expected ${SIZE} bytes hashing to ${hash}`);
      }
    }
    const value = median(seconds);
    const baseline = median(bare);
    const label = `the same ${SIZE / MB} MB copied at once over bare loopback TCP into a file + fsync in each of ${MEMBERS} other processes`;
    return [
      {
        name: `privacy.replication.${MEMBERS}members.seconds${suffix}`,
        value,
        baseline,
        ratio: value / baseline,
        unit: 's',
        baselineLabel: `${label}, s (lower is better)`,
      },
      {
        name: `privacy.replication.${MEMBERS}members${suffix}`,
        value: SIZE / MB / value,
        baseline: SIZE / MB / baseline,
        ratio: baseline / value,
        unit: 'MB/s',
        baselineLabel: `${label}, MB/s`,
        // The goal of GOST at native speed (issue 36); WAVES replication has none.
        ...(crypto === 'gost' ? { target: 0.3 } : {}),
      },
    ];
  } finally {
    await net.dispose();
    await Promise.all(sinks.map((sink) => stopProcess(sink.child)));
    for (const dir of sinkDirs) rmSync(dir, { recursive: true, force: true });
  }
}
