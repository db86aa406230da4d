/**
 * Signature verification on worker threads, so a node uses every core for the one costly
 * step of admitting transactions and applying blocks.
 *
 * Scheduling is by item count, not by message count: a worker holds up to
 * ITEMS_PER_WORKER items in flight (BACKLOG_ITEMS_PER_WORKER while more than every
 * worker's share waits), in messages of at most MAX_BATCH items, each message
 * one packed, transferred buffer. Less than a full batch is held until the end of the
 * current event-loop turn, so the verifications a turn asks for (one per HTTP request
 * handled in it) travel together. The calling thread (given its suite) verifies what is
 * still waiting under a real backlog — every worker holding its full share and items still
 * waiting — in slices of at most INLINE_SLICE_MS between rounds of its own work; without one,
 * one signature per event-loop turn that a worker holds but has not reached (work stealing
 * through a shared claim word per item), so it verifies beside the worker instead of idling
 * while a few requests wait on it (see verifyOwnShare).
 *
 * A block lane goes ahead of all that: the signatures a micro-block from a peer waits on
 * before it can be applied (verifyEach with `urgent`; sync's block batches keep the normal
 * lane, their whole batches would land on the calling thread) are handed out before anything
 * queued, only to workers holding less than their normal share (behind a backlog share they
 * would wait for thousands of transactions' signatures), and what no worker takes at once
 * the calling thread verifies in the next turns (slices of URGENT_SLICE_MS) — the block is
 * the next thing it has to do anyway. A request of at most URGENT_INLINE_ITEMS the calling
 * thread checks at once. A block that carries transactions whose checks are still queued in
 * the normal lane moves those into the block lane (promote).
 *
 * With no worker threads (a node that shares the machine's cores with other busy nodes, where
 * a thread of its own gains no core), the calling thread verifies everything, a slice per
 * turn, as under a backlog.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CryptoSuite, CryptoType } from './suite.js';
import { CLAIMED_HERE, packVerifyBatch, VERDICT_CLAIMED_ELSEWHERE, type SignatureCheck } from './verify-batch.js';

export type { SignatureCheck };

interface Pending extends SignatureCheck {
  readonly resolve: (valid: boolean) => void;
  readonly reject: (e: Error) => void;
}

/** A batch sent to a worker: its items and one claim word per item, shared with the worker (see verifyOwnShare). */
interface SentBatch {
  readonly items: Pending[];
  /** 0: unclaimed; CLAIMED_BY_WORKER or CLAIMED_HERE once taken (Atomics.compareExchange on both threads). */
  readonly claims: Int32Array;
  /** Items before this index may still be unclaimed; the calling thread claims from the end down. */
  unclaimedEnd: number;
}

interface WorkerSlot {
  readonly worker: Worker;
  /** Batches sent and not answered yet, oldest first (a worker answers in order). */
  readonly inFlight: SentBatch[];
  /** Items in those batches. */
  items: number;
}

/** Items per message to a worker: latency stays low while messaging costs little per item. */
const MAX_BATCH = 64;
/**
 * Items a worker may hold: two batches, so it goes on to the next while the answer to the
 * previous one travels. More waiting than that is a backlog the calling thread shares.
 */
const ITEMS_PER_WORKER = 2 * MAX_BATCH;
/**
 * Items a worker may hold under a backlog (a block's or micro-block's transactions waiting):
 * enough for the worker to keep verifying while the calling thread is busy for a while —
 * applying the block before — instead of idling until that thread hands it more. At 1,024
 * a worker idled for part of each 2,000-transfer block an import applied (busy 0.78–0.85 of
 * the import); at 2,048 it is busy 0.89–0.92.
 */
const BACKLOG_ITEMS_PER_WORKER = 32 * MAX_BATCH;
/** Longest slice the calling thread spends verifying in one event-loop turn, in ms. */
const INLINE_SLICE_MS = 2;
/** Longest slice the calling thread spends on the block lane in one event-loop turn, in ms. */
const URGENT_SLICE_MS = 8;
/** A block lane request of at most this many signatures the calling thread checks at once (a few ms). */
const URGENT_INLINE_ITEMS = 64;

/** Work for a later event-loop turn (setImmediate), scheduled at most once at a time. */
class NextTurn {
  private scheduled = false;

  constructor(private readonly run: () => void) {}

  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.run();
    });
  }
}

export class SignatureVerifierPool {
  private readonly slots: WorkerSlot[];
  private queue: Pending[] = [];
  /** The block lane: handed out before `queue`. */
  private urgent: Pending[] = [];
  private closed = false;
  /** Hands out what this turn queued, at its end. */
  private readonly dispatchTurn = new NextTurn(() => this.closed || this.dispatch());
  /** The calling thread's share of the verifying, a slice per turn (verifyOwnShare). */
  private readonly ownShareTurn = new NextTurn(() => this.verifyOwnShare());
  /** Whether the last hand-out left items no worker had room for (a backlog the calling thread shares). */
  private backlog = false;
  /** Signatures the calling thread took from batches already sent to a worker (see verifyOwnShare). */
  private stolenCount = 0;
  /** Items a worker answered as claimed by the calling thread (it skipped them). */
  private skippedCount = 0;

  private constructor(
    slots: WorkerSlot[],
    private readonly inline: CryptoSuite | undefined,
  ) {
    this.slots = slots;
  }

  /**
   * Starts `workers` threads (default: one per core but one, at least one). With `inline`
   * (the calling thread's suite), the calling thread verifies too: under a backlog (every
   * worker holding its full share and items still waiting), and one signature per event-loop
   * turn taken from what a worker holds but has not reached (see verifyOwnShare). With no
   * worker, the calling thread verifies everything, a slice per turn as under a backlog.
   */
  static async start(type: CryptoType, workers = Math.max(1, availableParallelism() - 1), inline?: CryptoSuite): Promise<SignatureVerifierPool> {
    if (!Number.isSafeInteger(workers) || workers < 0) throw new Error(`verifier threads: ${workers} is not a count`);
    if (workers === 0 && inline === undefined) throw new Error('A signature verifier pool without threads needs the calling thread’s suite to verify with');
    const url = new URL('./verify-worker.js', import.meta.url);
    const slots = await Promise.all(
      Array.from({ length: workers }, async () => {
        const worker = new Worker(url, { workerData: { type } });
        await new Promise<void>((resolve, reject) => {
          worker.once('message', (m: unknown) => (m === 'ready' ? resolve() : reject(new Error(`verifier worker sent ${String(m)}`))));
          worker.once('error', reject);
        });
        worker.unref();
        const slot: WorkerSlot = { worker, inFlight: [], items: 0 };
        return slot;
      }),
    );
    const pool = new SignatureVerifierPool(slots, inline);
    for (const slot of slots) {
      slot.worker.on('message', (results: Uint8Array) => pool.answered(slot, results));
      slot.worker.on('error', (e: Error) => pool.failed(slot, e));
    }
    return pool;
  }

  get size(): number {
    return this.slots.length;
  }

  /** How many signatures the calling thread has taken from batches sent to the workers (see verifyOwnShare). */
  get stolen(): number {
    return this.stolenCount;
  }

  /** How many items the workers skipped because the calling thread had claimed them (equals `stolen` once all are answered). */
  get skippedByWorkers(): number {
    return this.skippedCount;
  }

  /** Whether `signature` by `publicKey` over `message` verifies (false for malformed input). */
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
    if (this.closed) return Promise.reject(new Error('The signature verifier pool is closed'));
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ publicKey, message, signature, resolve, reject });
      this.queued();
    });
  }

  /**
   * The verdicts of many checks (a block's transactions), sent to the workers at once, one
   * promise each, settled as soon as its own check is done; `urgent`: in the block lane (what
   * a block or micro-block waits on), ahead of everything queued.
   */
  verifyEach(checks: readonly SignatureCheck[], urgent = false): Array<Promise<boolean>> {
    if (this.closed) return checks.map(() => Promise.reject(new Error('The signature verifier pool is closed')));
    // A few signatures a block waits on: checked here and now — a worker's round trip costs two
    // thread wake-ups, which on a loaded machine take longer than the checks.
    const suite = this.inline;
    if (urgent && suite !== undefined && checks.length <= URGENT_INLINE_ITEMS)
      return checks.map((c) => Promise.resolve(suite.verify(c.publicKey, c.message, c.signature)));
    const lane = urgent ? this.urgent : this.queue;
    const verdicts = checks.map(
      (c) =>
        new Promise<boolean>((resolve, reject) => {
          lane.push({ publicKey: c.publicKey, message: c.message, signature: c.signature, resolve, reject });
        }),
    );
    if (checks.length === 0) return verdicts;
    if (urgent) this.dispatch();
    else this.queued();
    return verdicts;
  }

  /**
   * Moves the items still waiting in the normal lane whose signature is one of `signatures`
   * (by identity: the checks' own arrays) to the block lane: a block came that waits on
   * transactions queued before it. Items a worker already holds stay there.
   */
  promote(signatures: ReadonlySet<Uint8Array>): void {
    if (this.closed || this.queue.length === 0) return;
    const rest: Pending[] = [];
    let moved = 0;
    for (const p of this.queue) {
      if (signatures.has(p.signature)) {
        this.urgent.push(p);
        moved++;
      } else rest.push(p);
    }
    if (moved === 0) return;
    this.queue = rest;
    this.dispatch();
  }

  /**
   * A full batch goes now; fewer items wait for the end of this event-loop turn, to travel
   * with whatever else the turn asks for in one message (each message wakes a worker,
   * which costs the sending thread more than the copy).
   */
  private queued(): void {
    if (this.queue.length >= MAX_BATCH) this.dispatch();
    else this.dispatchTurn.schedule();
  }

  /**
   * Hands waiting items to the least loaded workers with room, the block lane first; a
   * backlog left over (and the block lane's rest) goes inline.
   */
  private dispatch(): void {
    // Without the calling thread to verify it, the block lane may only wait for the workers, however deep their backlog.
    if (this.urgent.length > 0) this.urgent = this.handOut(this.urgent, this.inline === undefined ? BACKLOG_ITEMS_PER_WORKER : ITEMS_PER_WORKER);
    // More waiting than every worker's share: a backlog, of which each worker takes a deeper share.
    if (this.queue.length > 0)
      this.queue = this.handOut(this.queue, this.queue.length > this.slots.length * ITEMS_PER_WORKER ? BACKLOG_ITEMS_PER_WORKER : ITEMS_PER_WORKER);
    this.backlog = this.urgent.length > 0 || this.queue.length > 0;
    if (this.backlog) this.scheduleOwnShare();
  }

  /** Sends the front of `waiting` to workers holding fewer than `share` items, least loaded first; returns what is left. */
  private handOut(waiting: Pending[], share: number): Pending[] {
    let taken = 0;
    while (taken < waiting.length) {
      let slot: WorkerSlot | undefined;
      for (const s of this.slots) if (s.items < share && (slot === undefined || s.items < slot.items)) slot = s;
      if (slot === undefined) break;
      const n = Math.min(MAX_BATCH, share - slot.items, waiting.length - taken);
      const batch = waiting.slice(taken, taken + n);
      taken += n;
      if (slot.items === 0) slot.worker.ref();
      const claims = new Int32Array(new SharedArrayBuffer(4 * n));
      slot.inFlight.push({ items: batch, claims, unclaimedEnd: n });
      slot.items += n;
      const packed = packVerifyBatch(batch);
      slot.worker.postMessage({ packed, claims }, [packed]);
    }
    if (taken > 0) this.scheduleOwnShare();
    return taken === 0 ? waiting : taken === waiting.length ? [] : waiting.slice(taken);
  }

  private scheduleOwnShare(): void {
    if (this.inline !== undefined) this.ownShareTurn.schedule();
  }

  /**
   * The calling thread's share, one slice per event-loop turn (a turn with I/O to handle
   * handles it first, so the thread verifies what it would otherwise idle beside):
   * - under a backlog (a hand-out left items no worker had room for), what still waits — the
   *   block lane's rest first — from the far end of its lane (the items the workers would
   *   reach last), for up to a slice's time;
   * - else one signature a worker holds but has not reached (work stealing): from the end of
   *   the newest batch, claimed through its shared word. A few requests in flight then travel
   *   through both threads at once instead of in convoys (the worker verifying while the
   *   calling thread waits, then the calling thread answering while the worker waits). Each
   *   signature is verified once, by whichever thread claims its word first (the worker skips
   *   the items claimed here, VERDICT_CLAIMED_ELSEWHERE in its answer).
   */
  private verifyOwnShare(): void {
    const suite = this.inline;
    if (suite === undefined || this.closed) return;
    if (this.backlog) {
      const urgent = this.urgent.length > 0;
      const lane = urgent ? this.urgent : this.queue;
      const until = performance.now() + (urgent ? URGENT_SLICE_MS : INLINE_SLICE_MS);
      while (lane.length > 0 && performance.now() < until) {
        const p = lane.pop()!;
        p.resolve(suite.verify(p.publicKey, p.message, p.signature));
      }
      this.backlog = this.urgent.length > 0 || this.queue.length > 0;
      // What is left waiting, or held by the workers, is looked at next turn.
      this.scheduleOwnShare();
    } else if (this.stealOne(suite)) this.scheduleOwnShare();
  }

  /** Verifies one item a worker holds unclaimed, from the end of the newest batch; whether there was one. */
  private stealOne(suite: CryptoSuite): boolean {
    for (const slot of this.slots) {
      for (let b = slot.inFlight.length - 1; b >= 0; b--) {
        const sent = slot.inFlight[b]!;
        while (sent.unclaimedEnd > 0) {
          const i = --sent.unclaimedEnd;
          if (Atomics.compareExchange(sent.claims, i, 0, CLAIMED_HERE) !== 0) {
            // The worker got here first: it holds every item before this one too.
            sent.unclaimedEnd = 0;
            break;
          }
          const p = sent.items[i]!;
          this.stolenCount++;
          p.resolve(suite.verify(p.publicKey, p.message, p.signature));
          return true;
        }
      }
    }
    return false;
  }

  private answered(slot: WorkerSlot, results: Uint8Array): void {
    // Closing: the worker stays held (see close) until it has exited.
    if (this.closed) return;
    const sent = slot.inFlight.shift();
    const batch = sent?.items ?? [];
    slot.items -= batch.length;
    if (slot.items === 0) slot.worker.unref();
    batch.forEach((p, i) => {
      if (results[i] === VERDICT_CLAIMED_ELSEWHERE) this.skippedCount++;
      else p.resolve(results[i] === 1);
    });
    if (this.urgent.length > 0 || this.queue.length > 0) this.dispatch();
  }

  private failed(slot: WorkerSlot, e: Error): void {
    for (const sent of slot.inFlight.splice(0)) sent.items.forEach((p, i) => Atomics.load(sent.claims, i) !== CLAIMED_HERE && p.reject(e));
    slot.items = 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of [...this.urgent, ...this.queue]) p.reject(new Error('The signature verifier pool is closed'));
    for (const slot of this.slots) this.failed(slot, new Error('The signature verifier pool is closed'));
    this.urgent = [];
    this.queue = [];
    // Held (ref) until they have exited: terminate() resolves on the worker's exit, which an unref'd worker may not live to deliver.
    await Promise.all(
      this.slots.map((s) => {
        s.worker.ref();
        return s.worker.terminate();
      }),
    );
  }
}
