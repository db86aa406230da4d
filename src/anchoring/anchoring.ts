/**
 * Anchoring of one node (WE's Anchoring): the target node client, the authorization to it,
 * and the rounds, started and stopped together; and the `anchoring-auth` health check.
 *
 * The node builds it (node/anchoring-wiring.ts) with its chain, pool, owner key, the target
 * key from the target wallet, a progress store and a logger.
 */
import { AnchoringScheduler, type AnchoringSchedulerOptions } from './scheduler.js';
import { targetAuthProvider, type TargetAuthProvider } from './target-auth.js';
import { answerHeight, answerReason, TARGET_CALL_TIMEOUT_MS, TargetNode } from './target-node.js';

/** What the scheduler runs on, but the target client: built here from the settings. */
export interface AnchoringParts extends Omit<AnchoringSchedulerOptions, 'target'> {
  /** Deadline of each call to the target and to the authorization service. */
  readonly callTimeoutMs?: number;
  /** The HTTP client (Node's fetch by default). */
  readonly fetch?: typeof fetch;
}

/** WE's message of a failing `anchoring-auth` check in OAuth2 mode. */
export const AUTH_SERVICE_UNAVAILABLE = 'Targetnet auth service is not available';

export class Anchoring {
  readonly target: TargetNode;
  readonly auth: TargetAuthProvider;
  readonly scheduler: AnchoringScheduler;

  constructor(parts: AnchoringParts) {
    const timeoutMs = parts.callTimeoutMs ?? TARGET_CALL_TIMEOUT_MS;
    const http = parts.fetch === undefined ? {} : { fetch: parts.fetch };
    this.auth = targetAuthProvider(parts.settings.targetnet.auth, { clock: parts.clock, log: parts.log, timeoutMs, ...http });
    this.target = new TargetNode(parts.settings.targetnet.nodeAddress, this.auth, { timeoutMs, ...http });
    this.scheduler = new AnchoringScheduler({ ...parts, target: this.target });
  }

  start(): void {
    this.auth.start();
    this.scheduler.start();
  }

  async stop(): Promise<void> {
    await this.scheduler.stop();
    await this.auth.stop();
  }

  /**
   * `/node/healthcheck?service=anchoring-auth`: in OAuth2 mode the latest token fetch must
   * have succeeded (WE's check); beyond WE, in either mode the target node must then answer
   * an authorized `GET /blocks/height` with its height — a target that is down or refuses
   * the credentials fails the check. Rejects with the reason.
   */
  async checkAuth(): Promise<void> {
    if (!this.auth.isAlive()) throw new Error(AUTH_SERVICE_UNAVAILABLE);
    let answer;
    try {
      answer = await this.target.height(new AbortController().signal);
    } catch (e) {
      throw new Error(`Targetnet node is not reachable: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (answer.status !== 200 || answerHeight(answer) === undefined)
      throw new Error(`Targetnet node ${this.target.url} refused the request: ${answerReason(answer)}`);
  }
}
