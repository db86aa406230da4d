/**
 * Anchoring rounds (WE's AnchoringScheduler): when this chain reaches a height H above
 * `threshold` that is a multiple of `height-condition.range`, the block at H − threshold is
 * anchored in the target network, then the fact is written back here.
 *
 * A round, step by step, with WE's pacing and retries (attempts = 1 + retries):
 *   1. build the target Data transaction (`signature`, `height`), signed by the target key —
 *      failure: code 1;
 *   2. broadcast it to the target: a pause of `retry-delay` before every attempt; a call
 *      without answer is retried 10 times (then code 2); 200 with the transaction's JSON is
 *      success (unparsable: 4; another id: 5); any other status is code 3 at once — beyond
 *      WE, 5xx and 429 are retried like a lost call, and a refused re-send of a transaction
 *      the target already holds (a lost 200) counts as sent;
 *   3. wait until the target has mined it: `tx-mining-check-delay` before each of
 *      1 + `tx-mining-check-count` lookups of its `height` T (then code 6);
 *   4. wait until the target is `height-condition.above` blocks past T: poll its height
 *      (`retry-delay` before, `height-poll-interval` after each poll; one poll is retried
 *      100 times, then code 7);
 *   5. look the transaction up once more (`retry-delay` before each of 21 lookups; code 8);
 *   6. check that the anchored block is still the block at its height here (code 10);
 *   7. put the confirmation transaction (`signature`, `height`, `targetnet-tx-id`,
 *      `targetnet-tx-timestamp`), signed by the node owner, into the pool (code 9).
 * Any failure puts an error transaction (`error-code`, `error-message`, `signature`,
 * `height`) into the pool instead — any other exception is code 0.
 *
 * Where Weft does better than WE:
 * - progress is kept (progress.ts): a restart resumes the round in flight, re-sending the
 *   same transaction; a height at or below the last finished round is never anchored again,
 *   also after a rollback of this chain;
 * - a trigger that comes while a round runs is kept (the latest one) and runs next, instead
 *   of being lost;
 * - write-backs are watched until they are `threshold` blocks deep: one that leaves both the
 *   pool and the chain (a rollback that drops it, a restart) is put back, signed again when
 *   it became too old for the pool;
 * - a refused error transaction is logged (WE drops that silently).
 *
 * Nothing here blocks the chain: chain events only note a height; rounds run apart.
 */
import type { ChainEvent } from '../chain/blockchain.js';
import { decodeBase58, encodeBase58, equalBytes } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import { stringifyJson } from '../protocol/json.js';
import type { Protocol } from '../protocol/protocol.js';
import type { DataData } from '../protocol/transactions/data.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { AnchoringFailure, anchoringFailure } from './errors.js';
import { NO_PROGRESS, type AnchoringProgress, type PendingWriteBack, type ProgressStore, type RoundInFlight } from './progress.js';
import { ANCHORING_DEFAULTS, type AnchoringSettings } from './settings.js';
import { answerHeight, answerObject, answerReason, type TargetAnswer } from './target-node.js';
import { isAbort, type AnchoringClock } from './timing.js';
import { confirmationTransaction, errorTransaction, resigned, targetnetTransaction, type AnchoredBlock } from './transactions.js';

/** This chain, as anchoring reads it (Blockchain has these). */
export interface AnchoringChain {
  /** Current height, the liquid block counted. */
  height(): number;
  /** Final id of the block at a height (the liquid block's current id at the top); undefined when there is none. */
  blockIdAt(height: number): Uint8Array | undefined;
  on(listener: (event: ChainEvent) => void): () => void;
}

/** This node's pool and store, as the write-back needs them. */
export interface AnchoringPool {
  /** Admits a transaction to the pool and sends it to the peers; throws WE's error when refused. */
  broadcast(tx: Transaction): Promise<unknown>;
  /** Height of the block holding a transaction; undefined when it is in none. */
  confirmedHeight(id: Uint8Array): number | undefined;
  /** Whether the pool holds a transaction. */
  pooled(id: Uint8Array): boolean;
}

/** The target node's REST calls (TargetNode). */
export interface TargetApi {
  readonly url: string;
  broadcast(json: string, signal: AbortSignal): Promise<TargetAnswer>;
  transactionInfo(id: string, signal: AbortSignal): Promise<TargetAnswer>;
  unconfirmedInfo(id: string, signal: AbortSignal): Promise<TargetAnswer>;
  height(signal: AbortSignal): Promise<TargetAnswer>;
}

export interface AnchoringLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface AnchoringSchedulerOptions {
  readonly settings: AnchoringSettings;
  readonly chain: AnchoringChain;
  readonly pool: AnchoringPool;
  /** This chain's protocol, and the target's (Waves crypto, the target chain id). */
  readonly protocol: Protocol;
  readonly targetProtocol: Protocol;
  /** Signs this chain's write-backs. */
  readonly owner: KeyPair;
  /** Signs the target transactions. */
  readonly targetKey: KeyPair;
  readonly target: TargetApi;
  readonly clock: AnchoringClock;
  readonly progress: ProgressStore;
  readonly log: AnchoringLog;
}

/** Members WE requires in the broadcast answer. */
const BROADCAST_ANSWER_MEMBERS = ['type', 'id', 'senderPublicKey', 'authorPublicKey', 'fee', 'timestamp', 'version', 'proofs'] as const;

/** Statuses worth another attempt: the target is there but cannot take the transaction now. */
const retryableStatus = (status: number): boolean => status >= 500 || status === 429 || status === 408;

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export class AnchoringScheduler {
  private progress: AnchoringProgress = NO_PROGRESS;
  /** The anchored height of the latest trigger not yet run. */
  private next: number | undefined;
  private running: Promise<void> | undefined;
  private watching: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private unsubscribe: (() => void) | undefined;
  private readonly address: string;

  constructor(private readonly o: AnchoringSchedulerOptions) {
    this.address = o.targetProtocol.addresses.fromPublicKey(o.targetKey.publicKey).toString();
  }

  private get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Loads the progress, follows the chain, resumes a round in flight and watches pending write-backs. */
  start(): void {
    const { settings, log } = this.o;
    log.info({ target: this.o.target.url, range: settings.heightRange, above: settings.heightAbove, threshold: settings.threshold }, 'Starting anchoring...');
    this.progress = this.o.progress.load();
    this.unsubscribe = this.o.chain.on((event) => this.onChainEvent(event));
    if (this.progress.round !== undefined)
      log.info(
        { height: this.progress.round.height, stage: this.progress.round.stage, targetnetTxId: this.progress.round.targetTxId },
        'resuming the anchoring round in flight',
      );
    this.consider(this.o.chain.height());
    this.kick();
    this.watch();
    log.info({ lastHeight: this.progress.lastHeight, pendingWriteBacks: this.progress.writeBacks.length }, 'Anchoring started');
  }

  /** Stops: pauses and calls end at once; a round in flight is resumed at the next start. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.abort.abort(new Error('anchoring stopped'));
    await Promise.all([this.running, this.watching]);
  }

  /** Resolves when no round runs and none is waiting (tests). */
  async idle(): Promise<void> {
    while (this.running !== undefined || this.watching !== undefined) await Promise.all([this.running, this.watching]);
  }

  /** Runs inside the chain's append: notes the height and returns; never throws into the chain. */
  private onChainEvent(event: ChainEvent): void {
    if (event.kind === 'micro-block') return;
    try {
      // A key block moves the height; so does a rollback (WE reacts to any change of it).
      this.consider(this.o.chain.height());
      this.kick();
      if (event.kind === 'block') this.watch();
    } catch (e) {
      this.o.log.error({ reason: reasonOf(e) }, 'anchoring failed to follow the chain');
    }
  }

  /** WE's trigger: H > threshold and H a multiple of the range anchors H − threshold. */
  private consider(height: number): void {
    const { heightRange, threshold } = this.o.settings;
    if (height <= threshold || height % heightRange !== 0) return;
    const anchored = height - threshold;
    if (anchored <= this.progress.lastHeight || anchored === this.progress.round?.height) {
      this.o.log.debug({ height: anchored, lastHeight: this.progress.lastHeight }, 'height already anchored or attempted: not anchored again');
      return;
    }
    this.next = Math.max(this.next ?? 0, anchored);
  }

  private kick(): void {
    if (this.running !== undefined || this.signal.aborted) return;
    if (this.progress.round === undefined && this.next === undefined) return;
    this.running = this.drain()
      .catch((e: unknown) => this.o.log.error({ reason: reasonOf(e) }, 'anchoring stopped on an unexpected error; it goes on at the next trigger'))
      .finally(() => {
        this.running = undefined;
        if (!this.signal.aborted && this.next !== undefined) this.kick();
      });
  }

  /** Runs the round in flight, then the latest trigger, until none is left (a stop leaves the round in flight for the next start). */
  private async drain(): Promise<void> {
    while (!this.signal.aborted) {
      const inFlight = this.progress.round;
      if (inFlight !== undefined) {
        await this.run(inFlight);
        continue;
      }
      const height = this.next;
      if (height === undefined) return;
      this.next = undefined;
      if (height > this.progress.lastHeight) await this.begin(height);
    }
  }

  private save(change: Partial<AnchoringProgress>): void {
    this.progress = { ...this.progress, ...change };
    this.o.progress.save(this.progress);
  }

  /** Step 1: the target transaction for the block at `height`, recorded before it is sent. */
  private async begin(height: number): Promise<void> {
    const { settings, log } = this.o;
    const signature = this.o.chain.blockIdAt(height);
    if (signature === undefined) {
      log.debug({ height }, 'no block at the height to anchor: skipped');
      return;
    }
    const block: AnchoredBlock = { height, signature };
    let tx: Transaction<DataData>;
    try {
      tx = targetnetTransaction(this.o.targetProtocol, this.o.targetKey, block, settings.targetnet.fee, this.o.clock.now());
    } catch (e) {
      log.warn({ height, reason: reasonOf(e) }, 'failed to create the targetnet transaction');
      await this.fail(block, anchoringFailure.targetnetTransactionCreation(reasonOf(e)));
      return;
    }
    const round: RoundInFlight = {
      height,
      signature,
      targetTx: stringifyJson(tx.toJson()),
      targetTxId: tx.idBase58,
      targetTxTimestamp: tx.data.timestamp,
      stage: 'sending',
    };
    this.save({ round });
    await this.run(round);
  }

  /** Steps 2–7 from where the round stands. */
  private async run(round: RoundInFlight): Promise<void> {
    const block: AnchoredBlock = { height: round.height, signature: round.signature };
    let r = round;
    try {
      if (r.stage === 'sending') {
        await this.send(r);
        r = this.advance(r, { stage: 'sent' });
      }
      if (r.stage === 'sent') r = this.advance(r, { stage: 'mined', targetHeight: await this.waitMined(r.targetTxId) });
      await this.waitDepth(r.targetHeight!);
      await this.recheck(r.targetTxId);
      const now = this.o.chain.blockIdAt(r.height);
      if (now === undefined || !equalBytes(now, r.signature)) {
        this.o.log.error(
          { height: r.height, anchored: encodeBase58(r.signature), now: now === undefined ? null : encodeBase58(now) },
          'the anchored block is gone or changed: Possibly a rollback has happened.',
        );
        throw anchoringFailure.anchoredBlockChanged(`block ${encodeBase58(r.signature)} is no longer at height ${r.height}`);
      }
      const target = { id: decodeBase58(r.targetTxId), timestamp: r.targetTxTimestamp };
      const id = await this.writeBack(block.height, () =>
        confirmationTransaction(this.o.protocol, this.o.owner, block, target, this.o.settings.sidechainFee, this.o.clock.now()),
      );
      this.o.log.info({ height: r.height, targetnetTxId: r.targetTxId, sidechainTxId: id }, 'Successfully created anchoring transactions!');
      this.save({ round: undefined, lastHeight: Math.max(this.progress.lastHeight, r.height) });
    } catch (e) {
      if (isAbort(e, this.signal)) return;
      const failure = e instanceof AnchoringFailure ? e : anchoringFailure.unknown(reasonOf(e));
      if (!(e instanceof AnchoringFailure)) this.o.log.error({ height: r.height, reason: reasonOf(e) }, 'Unknown exception while anchoring');
      await this.fail(block, failure);
    }
  }

  private advance(round: RoundInFlight, change: Partial<RoundInFlight>): RoundInFlight {
    const next = { ...round, ...change };
    this.save({ round: next });
    return next;
  }

  /** A failed round: the error transaction, and the height done. */
  private async fail(block: AnchoredBlock, failure: AnchoringFailure): Promise<void> {
    const { log } = this.o;
    log.error(
      { height: block.height, code: failure.code, message: failure.message, ...(failure.detail === undefined ? {} : { detail: failure.detail }) },
      'anchoring round failed',
    );
    try {
      const id = await this.writeBack(block.height, () =>
        errorTransaction(this.o.protocol, this.o.owner, block, failure, this.o.settings.sidechainFee, this.o.clock.now()),
      );
      log.info({ height: block.height, code: failure.code, sidechainTxId: id }, 'anchoring error transaction created');
    } catch (e) {
      if (isAbort(e, this.signal)) return;
      log.error(
        { height: block.height, code: failure.code, reason: e instanceof AnchoringFailure ? e.detail : reasonOf(e) },
        'the anchoring error transaction was not accepted',
      );
    }
    this.save({ round: undefined, lastHeight: Math.max(this.progress.lastHeight, block.height) });
  }

  /** Puts the write-back of the anchored `height` into the pool and watches it until settled; its id. Code 9 when refused. */
  private async writeBack(height: number, build: () => Transaction<DataData>): Promise<string> {
    let tx: Transaction<DataData>;
    try {
      tx = build();
      await this.o.pool.broadcast(tx);
    } catch (e) {
      throw anchoringFailure.sidechainTransactionCreation(reasonOf(e));
    }
    this.save({ writeBacks: [...this.progress.writeBacks, { height, bytes: tx.bytes }] });
    return tx.idBase58;
  }

  // --- the target ------------------------------------------------------------------

  private pause(ms: number): Promise<void> {
    return this.o.clock.sleep(ms, this.signal);
  }

  /** Step 2. */
  private async send(round: RoundInFlight): Promise<void> {
    const { target, log, settings } = this.o;
    const attempts = 1 + ANCHORING_DEFAULTS.broadcastRetries;
    let reason = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await this.pause(settings.retryDelayMs);
      log.info(
        { address: this.address, id: round.targetTxId, height: round.height, signature: encodeBase58(round.signature), attempt },
        'Sending the anchoring transaction to targetnet',
      );
      let answer: TargetAnswer;
      try {
        answer = await target.broadcast(round.targetTx, this.signal);
      } catch (e) {
        if (isAbort(e, this.signal)) throw e;
        reason = reasonOf(e);
        log.error(
          { id: round.targetTxId, attempt, of: attempts, reason },
          attempt < attempts ? 'failed to send the transaction to targetnet, retrying' : 'failed to send the transaction to targetnet',
        );
        continue;
      }
      if (answer.status === 200) {
        const body = answerObject(answer);
        const missing = body === undefined ? ['a JSON object'] : BROADCAST_ANSWER_MEMBERS.filter((m) => !(m in body));
        if (missing.length > 0) {
          log.error({ id: round.targetTxId, missing, text: answer.text.slice(0, 200) }, 'failed to parse the targetnet broadcast answer');
          throw anchoringFailure.unparsableBroadcastResponse(`missing ${missing.join(', ')}`);
        }
        if (body!['id'] !== round.targetTxId) {
          log.error({ sent: round.targetTxId, returned: body!['id'] }, 'targetnet returned another transaction id');
          throw anchoringFailure.differentTransactionId(String(body!['id']), round.targetTxId);
        }
        log.info({ id: round.targetTxId }, 'Anchoring transaction in targetnet created!');
        return;
      }
      reason = answerReason(answer);
      if (retryableStatus(answer.status)) {
        log.error(
          { id: round.targetTxId, attempt, of: attempts, reason },
          attempt < attempts ? 'targetnet cannot take the transaction now, retrying' : 'targetnet cannot take the transaction',
        );
        continue;
      }
      if (await this.targetHas(round.targetTxId)) {
        log.info({ id: round.targetTxId, reason }, 'targetnet refused the re-sent transaction but already has it');
        return;
      }
      log.error({ id: round.targetTxId, status: answer.status, reason }, 'invalid status of the targetnet broadcast answer');
      throw anchoringFailure.invalidBroadcastStatus(answer.status, reason);
    }
    throw anchoringFailure.sendingToTargetnet(reason);
  }

  /** Whether the target holds the transaction, mined or in its pool. */
  private async targetHas(id: string): Promise<boolean> {
    try {
      if (answerHeight(await this.o.target.transactionInfo(id, this.signal)) !== undefined) return true;
      const pooled = await this.o.target.unconfirmedInfo(id, this.signal);
      return pooled.status === 200 && answerObject(pooled)?.['id'] === id;
    } catch (e) {
      if (isAbort(e, this.signal)) throw e;
      return false;
    }
  }

  /** Looks the transaction up in the target chain: `attempts` lookups, each after `delayMs`; its height, or why not. */
  private async lookUp(id: string, attempts: number, delayMs: number): Promise<{ readonly height: number } | { readonly reason: string }> {
    let reason = 'no answer';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await this.pause(delayMs);
      this.o.log.debug({ id, attempt, of: attempts }, 'asking targetnet for the anchoring transaction');
      try {
        const answer = await this.o.target.transactionInfo(id, this.signal);
        const height = answerHeight(answer);
        if (height !== undefined) return { height };
        reason = answerReason(answer);
      } catch (e) {
        if (isAbort(e, this.signal)) throw e;
        reason = reasonOf(e);
      }
    }
    return { reason };
  }

  /** Step 3: the target height the transaction was mined at. */
  private async waitMined(id: string): Promise<number> {
    const { settings, log } = this.o;
    const found = await this.lookUp(id, 1 + settings.txMiningCheckCount, settings.txMiningCheckDelayMs);
    if ('height' in found) {
      log.info({ id, height: found.height }, 'anchoring transaction found in targetnet');
      return found.height;
    }
    log.error({ id, reason: found.reason }, "targetnet didn't respond to the transaction info request");
    throw anchoringFailure.transactionInfo(found.reason);
  }

  /** Step 4: until the target is `height-condition.above` blocks past `minedAt`. */
  private async waitDepth(minedAt: number): Promise<void> {
    const { settings, log, target } = this.o;
    const goal = minedAt + settings.heightAbove;
    for (;;) {
      let height: number | undefined;
      let reason = '';
      for (let failures = 0; height === undefined;) {
        await this.pause(settings.retryDelayMs);
        log.debug({ goal }, 'asking targetnet for its height');
        try {
          const answer = await target.height(this.signal);
          height = answerHeight(answer);
          if (height === undefined) reason = answerReason(answer);
        } catch (e) {
          if (isAbort(e, this.signal)) throw e;
          reason = reasonOf(e);
        }
        if (height === undefined && ++failures > ANCHORING_DEFAULTS.heightPollRetries) {
          log.error({ reason }, 'failed to get the current height of targetnet');
          throw anchoringFailure.targetnetHeight(reason);
        }
      }
      if (height >= goal) {
        log.debug({ height, goal }, 'targetnet reached the required height');
        return;
      }
      log.debug({ height, goal }, 'waiting for targetnet to reach the required height');
      await this.pause(settings.heightPollIntervalMs);
    }
  }

  /** Step 5: the transaction is still in the target chain. */
  private async recheck(id: string): Promise<void> {
    const found = await this.lookUp(id, 1 + ANCHORING_DEFAULTS.recheckRetries, this.o.settings.retryDelayMs);
    if ('height' in found) return;
    this.o.log.error({ id, reason: found.reason }, 'the anchoring transaction disappeared from targetnet');
    throw anchoringFailure.transactionDisappeared(found.reason);
  }

  // --- write-backs until settled ---------------------------------------------------

  private watch(): void {
    if (this.watching !== undefined || this.progress.writeBacks.length === 0 || this.signal.aborted) return;
    this.watching = this.settle()
      .catch((e: unknown) => this.o.log.error({ reason: reasonOf(e) }, 'anchoring failed to check its write-backs; checked again at the next block'))
      .finally(() => {
        this.watching = undefined;
      });
  }

  /** Keeps each pending write-back in the pool or a block until it is `threshold` (at least 1) blocks deep. */
  private async settle(): Promise<void> {
    const { chain, pool, protocol, log } = this.o;
    const depth = Math.max(1, this.o.settings.threshold);
    const top = chain.height();
    const kept: PendingWriteBack[] = [];
    for (const w of this.progress.writeBacks) {
      const tx = protocol.transactionFromBytes(w.bytes) as Transaction<DataData>;
      const at = pool.confirmedHeight(tx.id);
      if (at !== undefined) {
        if (top - at < depth) kept.push(w);
        else log.debug({ height: w.height, id: tx.idBase58, at }, 'anchoring write-back settled');
        continue;
      }
      if (pool.pooled(tx.id)) {
        kept.push(w);
        continue;
      }
      kept.push(await this.putBack(w, tx));
      if (this.signal.aborted) return;
    }
    this.save({ writeBacks: kept });
  }

  /** A write-back in neither the chain nor the pool, sent again (signed again when refused, e.g. too old). */
  private async putBack(w: PendingWriteBack, tx: Transaction<DataData>): Promise<PendingWriteBack> {
    const { pool, log } = this.o;
    try {
      await pool.broadcast(tx);
      log.warn({ height: w.height, id: tx.idBase58 }, 'anchoring write-back was dropped from the pool: sent again');
      return w;
    } catch (first) {
      try {
        const fresh = resigned(this.o.protocol, this.o.owner, tx, this.o.clock.now());
        await pool.broadcast(fresh);
        log.warn(
          { height: w.height, id: fresh.idBase58, was: tx.idBase58, reason: reasonOf(first) },
          'anchoring write-back was dropped from the pool: signed again and sent',
        );
        return { height: w.height, bytes: fresh.bytes };
      } catch (e) {
        log.error(
          { height: w.height, id: tx.idBase58, reason: reasonOf(e) },
          'anchoring write-back cannot be put back in the pool; tried again at the next block',
        );
        return w;
      }
    }
  }
}
