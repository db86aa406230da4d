/**
 * Crash safety: the dev node is SIGKILLed while it applies blocks, over and over,
 * on one data directory.
 *
 * Each cycle starts the node (`cli.js start`) on the same directory while a client keeps
 * broadcasting transfers and mass transfers signed client-side with the official
 * transactions-factory 2.1.4 + crypto-utils, from dev accounts 1–4, at a steady rate, so
 * the node keeps committing micro-blocks (and a key block every round). At a random moment
 * — 50–1500 ms after the node started serving or after the first confirmation the client
 * saw — the test usually watches the node's main thread through /proc and sends SIGKILL the
 * moment it is inside an LMDB commit of the store (writing or syncing `data.mdb`); otherwise
 * it kills right away. Then, while the node is down:
 *   - every transaction the client saw confirmed (`/transactions/info/{id}` gave a height),
 *     in any cycle so far, is in the store at that height;
 *   - the store's height is at least the last height the client saw;
 *   - every stored block verifies (signature, reference to the block below, key block,
 *     indexes) and the store equals a fresh replay of its own blocks (same `stateHash()`).
 * After the restart: the node serves, with the same genesis block, a height ≥ the stored
 * one, the stored tip still resolving at its height, and every transaction confirmed in the
 * previous cycle at the same height over REST.
 *
 * WEFT_CRASH_CYCLES sets the number of kills (default 50); WEFT_CRASH_SEED replays a run's
 * random choices (the seed is printed).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ScriptVerifier } from '../../src/chain/scripts/verifier.js';
import type { NodeConfig } from '../../src/node/config.js';
import { DEV_SEEDS, devNodeConfig, devProtocol } from '../../src/cli/dev.js';
import { Store } from '../../src/state/store.js';
import { LmdbCommitProbe, NodeProcess, sleep, type HttpAnswer } from '../support/node-process.js';
import { compareWithReplay } from '../support/replay.js';
import { tempDir } from '../../devkit/tmp.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const tf2: any = require('@wavesenterprise/transactions-factory');
const cryptoUtils: any = require('@wavesenterprise/crypto-utils');
/* eslint-enable @typescript-eslint/no-explicit-any */

const CYCLES = positiveInt('WEFT_CRASH_CYCLES', 50);
const SEED = positiveInt('WEFT_CRASH_SEED', Math.floor(Math.random() * 2 ** 31));
const CHAIN_ID = 'T'.charCodeAt(0);
/** One broadcast every this many ms (≈ 40 transactions/s). */
const BROADCAST_INTERVAL_MS = 25;
/** Share of cycles whose kill waits for an LMDB commit (the others kill at the random moment itself). */
const AIM_AT_COMMIT = 0.8;
const TRANSFER_FEE = 1_000_000;
/** WE's default fee table: 0.05 WEST + 0.01 per two transfers. */
const massTransferFee = (n: number): number => 5_000_000 + Math.floor((n + 1) / 2) * 1_000_000;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  assert.ok(Number.isSafeInteger(n) && n > 0, `${name} must be a positive integer, got '${raw}'`);
  return n;
}

/** A small seeded generator (mulberry32), so a failing run can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ClientAccount {
  readonly publicKey: string;
  readonly privateKey: string;
  readonly address: string;
}

interface SignedTx {
  readonly id: string;
  readonly json: Record<string, unknown>;
}

/** Client side: builds and signs with transactions-factory 2.1.4 + crypto-utils, as an application would. */
class Client {
  private counter = 0;
  private readonly queue: SignedTx[] = [];

  private constructor(
    private readonly senders: readonly ClientAccount[],
    private readonly recipients: readonly string[],
    private readonly random: () => number,
  ) {}

  static async create(random: () => number): Promise<Client> {
    const accounts: ClientAccount[] = [];
    for (const seed of DEV_SEEDS) {
      const kp = await cryptoUtils.createKeys(seed);
      accounts.push({
        publicKey: cryptoUtils.toBase58(kp.publicKey),
        privateKey: cryptoUtils.toBase58(kp.privateKey),
        address: cryptoUtils.toBase58(cryptoUtils.createAddress(kp.publicKey, CHAIN_ID)),
      });
    }
    // Fresh addresses as well, so blocks keep creating state entries.
    const fresh = Array.from({ length: 200 }, () => cryptoUtils.toBase58(cryptoUtils.createAddress(randomBytes(32), CHAIN_ID)) as string);
    return new Client(accounts.slice(1), [...accounts.map((a) => a.address), ...fresh], random);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  private async sign(name: string, version: number, fields: Record<string, unknown>, sender: ClientAccount): Promise<SignedTx> {
    const tx = tf2.TRANSACTIONS[name][`V${version}`]({ ...fields, senderPublicKey: sender.publicKey });
    tx.setNetworkByte(CHAIN_ID);
    const body: Uint8Array = await tx.getBytes();
    const signature: string = cryptoUtils.createTransactionSignature(body, sender.privateKey);
    return { id: cryptoUtils.getTransactionId(body), json: { ...tx.getBody(), senderPublicKey: sender.publicKey, proofs: [signature] } };
  }

  /** The next transaction: mostly transfers, every tenth a mass transfer to 10–30 addresses. */
  private async build(): Promise<SignedTx> {
    const n = ++this.counter;
    const sender = this.senders[n % this.senders.length]!;
    const timestamp = Date.now();
    if (n % 10 === 0) {
      const count = 10 + Math.floor(this.random() * 21);
      const transfers = Array.from({ length: count }, (_, i) => ({ recipient: this.pick(this.recipients), amount: 1 + i }));
      return this.sign('MassTransfer', 2, { transfers, fee: massTransferFee(count), timestamp, attachment: '' }, sender);
    }
    let recipient = this.pick(this.recipients);
    if (recipient === sender.address) recipient = this.recipients[0]!;
    return this.sign('Transfer', 3, { recipient, amount: n, fee: TRANSFER_FEE, timestamp, attachment: '' }, sender);
  }

  /** Signs ahead until `n` transactions are ready. */
  async prepare(n: number): Promise<void> {
    while (this.queue.length < n) this.queue.push(await this.build());
  }

  async next(): Promise<SignedTx> {
    return this.queue.shift() ?? this.build();
  }
}

/** What one live phase of a cycle saw. */
interface LiveResult {
  /** Transactions seen confirmed, id → height. */
  readonly confirmed: Map<string, number>;
  readonly maxHeightSeen: number;
  readonly broadcasts: number;
  readonly refused: string[];
}

/**
 * Broadcasts at a steady rate and polls `/transactions/info/{id}` for what was admitted,
 * until `stop()`; the result resolves once both loops have ended.
 */
function liveLoad(node: NodeProcess, client: Client): { stop(): void; firstConfirmation: Promise<void>; result: Promise<LiveResult> } {
  let live = true;
  const confirmed = new Map<string, number>();
  const outstanding = new Map<string, { sentAt: number; checkedAt: number }>();
  const refused: string[] = [];
  let broadcasts = 0;
  let maxHeightSeen = 0;
  let confirmedOnce: () => void = () => undefined;
  const firstConfirmation = new Promise<void>((resolve) => {
    confirmedOnce = resolve;
  });
  const quietly = async <T>(f: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await f();
    } catch {
      return undefined; // the node is being killed: connections drop
    }
  };
  const noteRefusal = (what: string, a: HttpAnswer): void => {
    if (live && node.running) refused.push(`${what}: ${a.status} ${a.text.slice(0, 300)}`);
  };

  const broadcaster = (async () => {
    let due = performance.now();
    while (live && node.running) {
      const tx = await client.next();
      if (!live) break;
      const a = await quietly(() => node.post('/transactions/broadcast', tx.json));
      if (a !== undefined) {
        broadcasts++;
        if (a.status === 200) outstanding.set(tx.id, { sentAt: performance.now(), checkedAt: 0 });
        else noteRefusal(`broadcast ${tx.id}`, a);
      }
      due += BROADCAST_INTERVAL_MS;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      else due = performance.now();
    }
  })();

  const confirmer = (async () => {
    let heightPolledAt = 0;
    while (live && node.running) {
      const now = performance.now();
      if (now - heightPolledAt > 250) {
        heightPolledAt = now;
        const h = await quietly(() => node.get('/blocks/height'));
        if (h?.status === 200) maxHeightSeen = Math.max(maxHeightSeen, h.json.height as number);
      }
      const due = [...outstanding].filter(([, o]) => now - o.sentAt > 150 && now - o.checkedAt > 200).slice(0, 12);
      await Promise.all(
        due.map(async ([id, o]) => {
          o.checkedAt = performance.now();
          const a = await quietly(() => node.get(`/transactions/info/${id}`));
          if (a?.status === 200 && live) {
            const height = a.json.height as number;
            confirmed.set(id, height);
            outstanding.delete(id);
            maxHeightSeen = Math.max(maxHeightSeen, height);
            confirmedOnce();
          } else if (a !== undefined && a.status !== 404) noteRefusal(`info ${id}`, a);
        }),
      );
      await sleep(due.length === 0 ? 50 : 10);
    }
  })();

  return {
    stop: () => {
      live = false;
    },
    firstConfirmation,
    result: Promise.all([broadcaster, confirmer]).then(() => ({ confirmed, maxHeightSeen, broadcasts, refused })),
  };
}

describe('crash safety of the dev node', () => {
  it(
    `keeps every confirmed transaction and a replayable store across ${CYCLES} SIGKILLs during block application`,
    { timeout: CYCLES * 30_000 + 60_000 },
    async (t: TestContext) => {
      const random = rng(SEED);
      t.diagnostic(`seed ${SEED} (WEFT_CRASH_SEED), ${CYCLES} cycles (WEFT_CRASH_CYCLES)`);
      const dataDir = tempDir('weft-crash-');
      const protocol = await devProtocol();
      const scripts = await ScriptVerifier.create(protocol);
      const client = await Client.create(random);
      await client.prepare(80);

      /** Every transaction ever seen confirmed: id → height. */
      const confirmedEver = new Map<string, number>();
      let lastCycleConfirmed = new Map<string, number>();
      let genesisId: string | undefined;
      let config: NodeConfig | undefined;
      let stateDir: string | undefined;
      let storedTip: { id: string; height: number } | undefined;
      let lastHeightSeen = 0;
      let killsInCommit = 0;
      let probeAvailable = true;
      let broadcasts = 0;
      let refusals: string[] = [];
      let storeChecks = 0;
      let restChecks = 0;
      let replayedBlocks = 0;

      /** Checks (a) and (b) on a freshly (re)started node. */
      const checkRestarted = async (node: NodeProcess): Promise<void> => {
        const first = await node.get('/blocks/first');
        assert.equal(first.status, 200, first.text);
        genesisId ??= first.json.signature as string;
        assert.equal(first.json.signature, genesisId, 'the restarted node has the same genesis block');
        const height = await node.get('/blocks/height');
        assert.ok((height.json.height as number) >= lastHeightSeen, `height ${height.json.height} after the restart, ${lastHeightSeen} seen before the kill`);
        if (storedTip !== undefined) {
          assert.ok((height.json.height as number) >= storedTip.height, `height ${height.json.height} after the restart, ${storedTip.height} stored`);
          const tip = await node.get(`/blocks/signature/${storedTip.id}`);
          assert.equal(tip.status, 200, `the stored tip ${storedTip.id} resolves after the restart: ${tip.text.slice(0, 300)}`);
          assert.equal(tip.json.height, storedTip.height);
        }
        for (const [id, h] of lastCycleConfirmed) {
          const info = await node.get(`/transactions/info/${id}`);
          assert.equal(info.status, 200, `transaction ${id}, confirmed at ${h} before the kill, after the restart: ${info.text.slice(0, 300)}`);
          assert.equal(info.json.height, h, `height of transaction ${id} after the restart`);
          restChecks++;
        }
      };

      for (let cycle = 1; cycle <= CYCLES; cycle++) {
        const t0 = performance.now();
        const [node] = await Promise.all([NodeProcess.start(dataDir), client.prepare(80)]);
        const t1 = performance.now();
        config ??= await devNodeConfig({ dataDir });
        stateDir ??= join(config.node.dataDirectory, 'state');
        try {
          await checkRestarted(node);
        } catch (e) {
          await node.killHard();
          throw new Error(`cycle ${cycle}, after the restart: ${(e as Error).message}\n--- node output ---\n${node.output()}`, { cause: e });
        }

        // Load, then SIGKILL at a random moment — preferably inside a commit.
        const load = liveLoad(node, client);
        const anchor = random() < 0.5 ? 'serving' : 'confirmation';
        if (anchor === 'confirmation') await Promise.race([load.firstConfirmation, sleep(8000)]);
        const delay = 50 + random() * 1450;
        await sleep(anchor === 'serving' ? Math.max(0, node.servingAt + delay - performance.now()) : delay);
        const probe = probeAvailable ? LmdbCommitProbe.open(node.pid, stateDir) : undefined;
        if (probe === undefined) probeAvailable = false;
        let inCommit = false;
        if (probe !== undefined) inCommit = random() < AIM_AT_COMMIT ? probe.waitForCommit(1500) : probe.inCommit();
        const t2 = performance.now();
        const exit = await node.killHard();
        load.stop();
        const live = await load.result;
        assert.equal(exit.signal, 'SIGKILL', `cycle ${cycle}: the node was running until the kill\n${node.output()}`);
        if (inCommit) killsInCommit++;
        broadcasts += live.broadcasts;
        refusals = [...refusals, ...live.refused];
        lastHeightSeen = Math.max(lastHeightSeen, live.maxHeightSeen);
        for (const [id, h] of live.confirmed) confirmedEver.set(id, h);
        lastCycleConfirmed = live.confirmed;

        // (b) and (c) on the store, while the node is down.
        const store = Store.open(stateDir, protocol);
        try {
          assert.ok(store.height() >= lastHeightSeen, `cycle ${cycle}: store height ${store.height()}, ${lastHeightSeen} seen before the kill`);
          for (const [id, h] of confirmedEver) {
            assert.equal(store.transactionHeight(cryptoUtils.fromBase58(id)), h, `cycle ${cycle}: transaction ${id} was confirmed at height ${h}`);
            storeChecks++;
          }
          const replay = await compareWithReplay(store, { protocol, scripts, settings: config.chain, txExpireTimeoutMs: config.utx.txExpireTimeoutMs });
          assert.equal(
            replay.storedHash,
            replay.replayedHash,
            `cycle ${cycle}: the store differs from a replay of its blocks:\n${replay.differences.join('\n')}`,
          );
          replayedBlocks += replay.height;
          storedTip = { id: replay.blocks[replay.height - 1]!.idBase58, height: replay.height };
        } catch (e) {
          throw new Error(
            `cycle ${cycle}, killed ${inCommit ? 'inside a commit' : 'at a random moment'}: ${(e as Error).message}\n--- node output ---\n${node.output()}`,
            { cause: e },
          );
        } finally {
          await store.close();
        }
        if (process.env['WEFT_CRASH_VERBOSE'] !== undefined) {
          t.diagnostic(
            `cycle ${cycle}: start ${Math.round(t1 - t0)} ms, live ${Math.round(t2 - t1)} ms (${anchor}, ${Math.round(delay)}), store checks ${Math.round(performance.now() - t2)} ms; in commit ${inCommit}; ${live.broadcasts} broadcasts, ${live.confirmed.size} confirmed`,
          );
        }
        if (cycle % 10 === 0 || cycle === CYCLES) {
          t.diagnostic(
            `cycle ${cycle}: height ${storedTip.height}, ${confirmedEver.size} transactions confirmed, ${killsInCommit} kills inside a commit so far`,
          );
        }
      }

      // The last kill's restart.
      const node = await NodeProcess.start(dataDir);
      try {
        await checkRestarted(node);
      } finally {
        await node.killHard();
      }

      t.diagnostic(
        `cycles ${CYCLES}; kills inside an LMDB commit ${probeAvailable ? killsInCommit : 'n/a (no /proc probe here)'}; ` +
          `transactions broadcast ${broadcasts}, confirmed and re-verified ${confirmedEver.size} ` +
          `(${storeChecks} checks in the store, ${restChecks} over REST after restarts); final height ${storedTip?.height}; ${replayedBlocks} blocks replayed`,
      );
      assert.deepEqual(refusals.slice(0, 5), [], 'the node refused none of the client transactions');
      assert.ok(confirmedEver.size > 0, 'transactions were confirmed');
    },
  );
});
