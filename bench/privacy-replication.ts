/**
 * Replication figure of confidential data (issue 12, phase 2): a devnet of two node
 * processes (src/node/devnet.ts, plain P2P connections: the item travels encrypted with the
 * connections' session keys, in 1 MiB cipher chunks), a policy with both owners as
 * recipients, and one large item (PRIVACY_REPLICATION_MB, default 200 MiB) sent to node 0
 * through sendLargeData.
 *
 * - privacy.replication: MB/s from node 0's answer (the item stored there and its
 *   PolicyDataHash pooled) until node 1 has the whole item stored and hash-checked (its
 *   getInfo answers) — so it includes the wait for the PolicyDataHash to reach node 1 in a
 *   micro-block (≤ 0.5 s here), the inventory exchange, the encryption, the stream and
 *   node 1's write with fsync — ÷ a bare loopback TCP copy of the same bytes into a file
 *   in another process, fsynced before its acknowledgement (bench/tcp-sink.ts).
 *
 * Rounds alternate subject and baseline; medians are reported. The item on node 1 is read
 * back and its SHA-256 compared.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedData } from '../test/support/multipart.js';
import { download, hashOfSource, PrivacyClient, type PrivacyTarget } from '../test/support/privacy-client.js';
import { Devnet } from '../test/support/network.js';
import { until } from '../test/support/wait.js';
import { median, startProcess, stopProcess, type Figure } from './harness.js';

const MB = 1_000_000;
const MiB = 1024 * 1024;
const SIZE = Number(process.env.PRIVACY_REPLICATION_MB ?? 200) * MiB;
const ROUNDS = 2;

const progress = (msg: string): void => void process.stderr.write(`  … ${msg}\n`);

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
  const other = net.layout.nodes[1 - i]!;
  return { url: spec.restUrl, apiKey: net.layout.apiKey, owner: { address: spec.ownerAddress, password: spec.keystorePassword }, other: { address: other.ownerAddress, password: other.keystorePassword } };
}

export async function privacyReplicationFigures(): Promise<Figure[]> {
  const sinkDir = mkdtempSync(join(tmpdir(), 'weft-bench-sink-'));
  const sink = await startProcess(fileURLToPath(new URL('./tcp-sink.js', import.meta.url)), [sinkDir], 'bare TCP sink');
  const net = await Devnet.create({ nodes: 2, roundDurationMs: 2000, syncDurationMs: 1000, microBlockIntervalMs: 500, register: false, loggingLevel: 'WARN' });
  try {
    await net.startAll();
    await net.meshed(30_000);
    const sender = new PrivacyClient(targetOf(net, 0));
    const receiver = new PrivacyClient(targetOf(net, 1));
    const policyId = await sender.createPolicy([sender.target.owner.address, receiver.target.owner.address]);
    await receiver.untilPolicy(policyId);

    const replicated: number[] = [];
    const bare: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const data = generatedData(SIZE, 300 + round);
      const hash = await hashOfSource(data);
      progress(`round ${round + 1}/${ROUNDS}: ${SIZE / MiB} MiB over a bare loopback TCP copy`);
      let t0 = process.hrtime.bigint();
      await bareCopy(sink.url, data.stream());
      bare.push(SIZE / MB / secondsSince(t0));
      rmSync(join(sinkDir, `copy-${round}`), { force: true });

      progress(`round ${round + 1}/${ROUNDS}: ${SIZE / MiB} MiB sent to node 0, replicated to node 1`);
      const sent = await sender.sendLargeData(policyId, hash, data);
      if (sent.status !== 200) throw new Error(`sendLargeData: ${sent.status} ${sent.text.slice(0, 400)}`);
      t0 = process.hrtime.bigint();
      await until('node 1 to hold the item', async () => ((await receiver.get(`/privacy/${policyId}/getInfo/${hash}`)).status === 200 ? true : undefined), 600_000, 50);
      replicated.push(SIZE / MB / secondsSince(t0));
      const back = await download(receiver.target, `/privacy/${policyId}/getLargeData/${hash}`);
      if (back.hash !== hash || back.bytes !== SIZE) throw new Error(`node 1 holds ${back.bytes} bytes hashing to ${back.hash}, expected ${SIZE} bytes hashing to ${hash}`);
    }
    return [
      {
        name: 'privacy.replication',
        value: median(replicated),
        baseline: median(bare),
        ratio: median(replicated) / median(bare),
        unit: 'MB/s',
        baselineLabel: `bare loopback TCP copy of the ${SIZE / MiB} MiB into a file + fsync in another process, MB/s`,
      },
    ];
  } finally {
    await net.dispose();
    await stopProcess(sink.child);
    rmSync(sinkDir, { recursive: true, force: true });
  }
}
