/**
 * The node's health checks (WE's HealthChecker): what `/node/status` and
 * `/node/healthcheck?service=` answer.
 *
 * Node status: the store must answer a read and the file system holding the data directory
 * must keep at least 500 MiB free (a warning is logged when the space left holds less than
 * three days of full blocks). A failed check is WE's 640 (503) with the reason; a check that
 * takes longer than the timeout (WE's `health-check.timeout`, 10 s) fails with WE's
 * timeout message. WE's third check, the crypto environment (a GOST CSP), has nothing to
 * look at here: both crypto suites are libraries inside the process.
 *
 * External services are the three WE knows: `docker`, `privacy-storage`, `anchoring-auth`.
 * A service the node was not given a check for is disabled (637, 404, with WE's display
 * name); a given check fails with its reason (640, 503). Who gives them: `anchoring-auth`
 * comes from the anchoring wiring (node/anchoring-wiring.ts) when `node.anchoring.enable`;
 * `docker` — the container runtime of contracts, also what `/node/healthcheck` checks
 * without `service` — from the contracts wiring (node/contracts-wiring.ts) when contracts
 * run with `docker-engine.enable` (the daemon must answer a ping); `privacy-storage` from
 * the privacy wiring, for its store.
 *
 * Unlike WE's periodic checker, which answers from its last run (up to 30 s old), each call
 * checks now, so the heights in the answer are current.
 */
import { statfs } from 'node:fs/promises';
import type { ExternalServiceName, NodeStatus } from '../api/services.js';
import { healthCheckError, serviceIsDisabled, WeError } from '../errors/catalogue.js';

/** WE's storageFreeSpaceFatalThreshold: 500 MB (FileUtils.ONE_MB = 2^20 bytes). */
export const FREE_SPACE_FATAL_BYTES = 500n * 1024n * 1024n;
const THREE_DAYS_MS = 3 * 24 * 60 * 60 * 1000;
const DEFAULT_TIMEOUT_MS = 10_000;

/** WE's names of the external services in their 637 message. */
export const EXTERNAL_SERVICE_DISPLAY_NAMES: Readonly<Record<ExternalServiceName, string>> = {
  docker: 'Docker',
  'privacy-storage': 'Privacy Storage',
  'anchoring-auth': 'Anchoring',
};

/** A check of an external service: resolves when healthy, rejects with the reason otherwise. */
export type ExternalCheck = () => Promise<void>;

export interface HealthLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface HealthSources {
  /** The current height (the liquid block counts) and the timestamp of the block there. */
  tip(): { height: number; timestamp: bigint };
  /** Reads something from the store; throws when the store cannot be read. */
  readStore(): void;
  /** The node's data directory. */
  readonly dataDirectory: string;
  /** Free bytes on the file system holding `path`; `statfs` by default. */
  readonly freeSpace?: (path: string) => Promise<bigint>;
  /** Block interval (PoA round + sync, or PoS average delay) and block size limit: what three days of blocks need. */
  readonly blockIntervalMs: number;
  readonly maxBlockSizeInBytes: number;
  /** The machine's clock, ms. */
  readonly clock: () => bigint;
  /** External services this node has, by WE's name. */
  readonly external?: Partial<Record<ExternalServiceName, ExternalCheck>>;
  /** WE's `health-check.timeout`. */
  readonly timeoutMs?: number;
  readonly log: HealthLog;
}

async function statfsFreeSpace(path: string): Promise<bigint> {
  const s = await statfs(path, { bigint: true });
  return s.bavail * s.bsize;
}

/** Java's Instant.toString for epoch milliseconds: `2024-01-02T03:04:05Z`, or with `.120` when there are milliseconds. */
export function instantString(ms: bigint): string {
  const iso = new Date(Number(ms)).toISOString();
  return ms % 1000n === 0n ? iso.replace(/\.000Z$/, 'Z') : iso;
}

export class NodeHealth {
  private readonly warnThreshold: bigint;
  /** Whether the last free-space check found less than three days of blocks: warned once per change, not on every /node/status. */
  private lowSpace = false;

  constructor(private readonly s: HealthSources) {
    this.warnThreshold = BigInt(Math.floor(0.75 * s.maxBlockSizeInBytes * (THREE_DAYS_MS / Math.max(1, s.blockIntervalMs))));
  }

  /** `/node/status`: runs the checks; WE's 640 with the reason when one fails. */
  async nodeStatus(): Promise<NodeStatus> {
    return this.withTimeout('Health check timeout exceeded', async () => {
      const { height, timestamp } = this.readTip();
      await this.checkFreeSpace();
      return {
        blockchainHeight: height,
        // A block and its state are committed in one LMDB transaction: they never differ.
        stateHeight: height,
        updatedTimestamp: timestamp,
        updatedDate: instantString(timestamp),
        lastCheckTimestamp: this.s.clock(),
      };
    });
  }

  /** `/node/healthcheck?service=`: 637 when the node has no such service, 640 when its check fails. */
  async externalStatus(service: ExternalServiceName): Promise<void> {
    const check = this.s.external?.[service];
    if (check === undefined) throw serviceIsDisabled(EXTERNAL_SERVICE_DISPLAY_NAMES[service]);
    await this.withTimeout('External health check timeout exceeded', async () => {
      try {
        await check();
      } catch (e) {
        if (e instanceof WeError) throw e;
        const reason = e instanceof Error ? e.message : String(e);
        this.s.log.error({ service, reason }, 'external health check failed');
        throw healthCheckError(reason);
      }
    });
  }

  /** The tip, read from the store after a read of the store itself: both fail alike when it cannot be read. */
  private readTip(): { height: number; timestamp: bigint } {
    try {
      this.s.readStore();
      return this.s.tip();
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      this.s.log.error({ reason }, 'unable to read the state store');
      throw healthCheckError(`Unable to read the state store because of error: '${reason}'`);
    }
  }

  private async checkFreeSpace(): Promise<void> {
    let free: bigint;
    try {
      free = await (this.s.freeSpace ?? statfsFreeSpace)(this.s.dataDirectory);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      throw healthCheckError(`Unable to read the free space of the data directory because of error: '${reason}'`);
    }
    if (free < FREE_SPACE_FATAL_BYTES) {
      this.s.log.error({ free: free.toString() }, 'health check failed: storage free space is below 500MB');
      throw healthCheckError('Storage free space is below 500MB');
    }
    const low = free < this.warnThreshold;
    if (low && !this.lowSpace) this.s.log.warn({ free: free.toString() }, 'The remaining storage free space is sufficient for less than 3 days');
    if (!low && this.lowSpace) this.s.log.info({ free: free.toString() }, 'The remaining storage free space is sufficient for 3 days or more again');
    this.lowSpace = low;
  }

  private async withTimeout<T>(message: string, run: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(healthCheckError(message)), this.s.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    });
    try {
      return await Promise.race([run(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
