/**
 * Signature verification on worker threads, so a node uses every core for the one costly
 * step of admitting transactions and applying blocks. Requests are batched: callers
 * queue (public key, message, signature) triples and get a promise; a batch goes to the
 * least busy worker as soon as the previous one there is answered.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CryptoSuite, CryptoType } from './suite.js';

interface Pending {
  readonly publicKey: Uint8Array;
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
  readonly resolve: (valid: boolean) => void;
  readonly reject: (e: Error) => void;
}

interface WorkerSlot {
  readonly worker: Worker;
  /** Batches sent and not answered yet, oldest first (a worker answers in order). */
  readonly inFlight: Pending[][];
}

/** Batches larger than this are split: latency stays low while throughput stays high. */
const MAX_BATCH = 64;
/** Each worker holds this many batches, so it never waits for the main thread between two. */
const BATCHES_PER_WORKER = 2;

export class SignatureVerifierPool {
  private readonly slots: WorkerSlot[];
  private queue: Pending[] = [];
  private closed = false;
  private inlineScheduled = false;

  private constructor(
    slots: WorkerSlot[],
    private readonly inline: CryptoSuite | undefined,
  ) {
    this.slots = slots;
  }

  /**
   * Starts `workers` threads (default: one per core but one, at least one). With `inline`
   * (the calling thread's suite), the calling thread verifies too whenever every worker is
   * full and a whole batch waits — it would otherwise sit idle waiting for them.
   */
  static async start(type: CryptoType, workers = Math.max(1, availableParallelism() - 1), inline?: CryptoSuite): Promise<SignatureVerifierPool> {
    const url = new URL('./verify-worker.js', import.meta.url);
    const slots = await Promise.all(
      Array.from({ length: workers }, async () => {
        const worker = new Worker(url, { workerData: { type } });
        await new Promise<void>((resolve, reject) => {
          worker.once('message', (m: unknown) => (m === 'ready' ? resolve() : reject(new Error(`verifier worker sent ${String(m)}`))));
          worker.once('error', reject);
        });
        worker.unref();
        const slot: WorkerSlot = { worker, inFlight: [] };
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

  /** Whether `signature` by `publicKey` over `message` verifies (false for malformed input). */
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
    if (this.closed) return Promise.reject(new Error('The signature verifier pool is closed'));
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ publicKey, message, signature, resolve, reject });
      this.dispatch();
      this.scheduleInline();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      // The least busy worker that can take another batch.
      let slot: WorkerSlot | undefined;
      for (const s of this.slots) if (s.inFlight.length < BATCHES_PER_WORKER && (slot === undefined || s.inFlight.length < slot.inFlight.length)) slot = s;
      if (slot === undefined) return;
      const batch = this.queue.length <= MAX_BATCH ? this.queue : this.queue.slice(0, MAX_BATCH);
      this.queue = this.queue.length <= MAX_BATCH ? [] : this.queue.slice(MAX_BATCH);
      if (slot.inFlight.length === 0) slot.worker.ref();
      slot.inFlight.push(batch);
      slot.worker.postMessage(batch.map((p) => [p.publicKey, p.message, p.signature]));
    }
  }

  /**
   * While every worker is full, the calling thread takes one waiting item per turn of its
   * event loop: it verifies when it has nothing else to do, and never more than one item
   * between two rounds of its own work.
   */
  private scheduleInline(): void {
    if (this.inline === undefined || this.inlineScheduled) return;
    this.inlineScheduled = true;
    setImmediate(() => {
      this.inlineScheduled = false;
      if (this.closed || this.queue.length === 0) return;
      const p = this.queue.pop()!;
      p.resolve(this.inline!.verify(p.publicKey, p.message, p.signature));
      if (this.queue.length > 0) this.scheduleInline();
    });
  }

  private answered(slot: WorkerSlot, results: Uint8Array): void {
    const batch = slot.inFlight.shift() ?? [];
    if (slot.inFlight.length === 0) slot.worker.unref();
    batch.forEach((p, i) => p.resolve(results[i] === 1));
    this.dispatch();
  }

  private failed(slot: WorkerSlot, e: Error): void {
    for (const batch of slot.inFlight.splice(0)) for (const p of batch) p.reject(e);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue) p.reject(new Error('The signature verifier pool is closed'));
    this.queue = [];
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
