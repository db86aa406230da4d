/**
 * Signature verification on worker threads, so a node uses every core for the one costly
 * step of admitting transactions and applying blocks. Requests are batched: callers
 * queue (public key, message, signature) triples and get a promise; a batch goes to the
 * least busy worker as soon as the previous one there is answered.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CryptoType } from './suite.js';

interface Pending {
  readonly publicKey: Uint8Array;
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
  readonly resolve: (valid: boolean) => void;
  readonly reject: (e: Error) => void;
}

interface WorkerSlot {
  readonly worker: Worker;
  inFlight: Pending[] | undefined;
}

/** Batches larger than this are split: latency stays low while throughput stays high. */
const MAX_BATCH = 256;

export class SignatureVerifierPool {
  private readonly slots: WorkerSlot[];
  private queue: Pending[] = [];
  private closed = false;

  private constructor(slots: WorkerSlot[]) {
    this.slots = slots;
  }

  /** Starts `workers` threads (default: one per core but one, at least one). */
  static async start(type: CryptoType, workers = Math.max(1, availableParallelism() - 1)): Promise<SignatureVerifierPool> {
    const url = new URL('./verify-worker.js', import.meta.url);
    const slots = await Promise.all(
      Array.from({ length: workers }, async () => {
        const worker = new Worker(url, { workerData: { type } });
        await new Promise<void>((resolve, reject) => {
          worker.once('message', (m: unknown) => (m === 'ready' ? resolve() : reject(new Error(`verifier worker sent ${String(m)}`))));
          worker.once('error', reject);
        });
        worker.unref();
        return { worker, inFlight: undefined };
      }),
    );
    const pool = new SignatureVerifierPool(slots);
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
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.inFlight !== undefined) continue;
      const batch = this.queue.length <= MAX_BATCH ? this.queue : this.queue.slice(0, MAX_BATCH);
      this.queue = this.queue.length <= MAX_BATCH ? [] : this.queue.slice(MAX_BATCH);
      slot.inFlight = batch;
      slot.worker.ref();
      slot.worker.postMessage(batch.map((p) => [p.publicKey, p.message, p.signature]));
    }
  }

  private answered(slot: WorkerSlot, results: Uint8Array): void {
    const batch = slot.inFlight ?? [];
    slot.inFlight = undefined;
    slot.worker.unref();
    batch.forEach((p, i) => p.resolve(results[i] === 1));
    this.dispatch();
  }

  private failed(slot: WorkerSlot, e: Error): void {
    const batch = slot.inFlight ?? [];
    slot.inFlight = undefined;
    for (const p of batch) p.reject(e);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue) p.reject(new Error('The signature verifier pool is closed'));
    this.queue = [];
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
