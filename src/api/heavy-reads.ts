/**
 * Heavy REST reads (issue 11, under abuse 1): answers that can run to megabytes of JSON —
 * block ranges, full blocks, long transaction lists — must not hold the event loop (mining,
 * P2P and every other request share it) nor let a handful of looping clients take the node.
 *
 * - bounded concurrency: at most `concurrent` heavy reads are being built at a time, at most
 *   `waiting` more wait their turn; beyond that the answer is 503 (WE's format, error 642 as
 *   WE answers a stream limit) so a client backs off instead of queueing without end;
 * - serialization in slices: JSON is produced piece by piece and the builder gives the loop a
 *   turn whenever it has worked for `sliceMs`;
 * - a byte budget per response: a range whose JSON passes `responseBytes` is refused with
 *   WE's range error (10, `Too big sequences requested`), saying to ask for fewer.
 */
import { Readable } from 'node:stream';
import { heavyReadsBusy, responseTooBig } from '../errors/catalogue.js';

export interface HeavyReadLimits {
  /** Heavy reads built at the same time. */
  readonly concurrent: number;
  /** Heavy reads waiting for their turn; more are answered 503. */
  readonly waiting: number;
  /** Bytes of JSON one range answer may hold. */
  readonly responseBytes: number;
  /** Longest stretch (ms) the builder works before giving the event loop a turn. */
  readonly sliceMs: number;
}

/** Two builders (the machine's other core serves everything else), 16 waiting, 32 MiB per answer, 5 ms slices. */
export const DEFAULT_HEAVY_READ_LIMITS: HeavyReadLimits = { concurrent: 2, waiting: 16, responseBytes: 32 * 2 ** 20, sliceMs: 5 };

/** A JSON answer built in full, ready to stream. */
export interface BuiltJson {
  readonly length: number;
  readonly stream: Readable;
}

/** Pieces are encoded to UTF-8 in chunks of about this many characters. */
const CHUNK_CHARS = 64 * 1024;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The heavy reads of one REST server: a small semaphore and the budget each answer gets. */
export class HeavyReads {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly limits: HeavyReadLimits = DEFAULT_HEAVY_READ_LIMITS) {}

  /** Heavy reads being built and waiting, for status and tests. */
  load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.queue.length };
  }

  /**
   * Builds a JSON answer with `build` once a slot is free (503 when too many wait), streaming
   * what it wrote; `budget` false for answers that must come whole whatever their size (one
   * block: WE always answers it).
   */
  async answer(build: (out: JsonPieces) => Promise<void>, options: { budget?: boolean } = {}): Promise<BuiltJson> {
    await this.acquire();
    try {
      const out = new JsonPieces(options.budget === false ? Infinity : this.limits.responseBytes, this.limits.sliceMs);
      await build(out);
      const length = out.bytes;
      return { length, stream: Readable.from(out.chunks, { objectMode: false }) };
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.limits.concurrent) {
      this.running++;
      return Promise.resolve();
    }
    if (this.queue.length >= this.limits.waiting) return Promise.reject(heavyReadsBusy(this.limits.concurrent + this.limits.waiting));
    return new Promise((resolve) => this.queue.push(resolve));
  }

  private release(): void {
    const next = this.queue.shift();
    // The slot passes straight to the next waiter.
    if (next !== undefined) next();
    else this.running--;
  }
}

/** JSON text written piece by piece into UTF-8 chunks, within a byte budget, yielding the loop as it goes. */
export class JsonPieces {
  readonly chunks: Buffer[] = [];
  /** Bytes in `chunks`. */
  private encoded = 0;
  private pending: string[] = [];
  private pendingChars = 0;
  private sliceStart = performance.now();

  constructor(
    private readonly budget: number,
    private readonly sliceMs: number,
  ) {}

  /** Appends text; throws WE's range error past the budget. */
  write(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
    // A character is at least a byte: the budget is checked on the cheap count, exactly at each flush.
    if (this.encoded + this.pendingChars > this.budget || this.pendingChars >= CHUNK_CHARS) this.flush();
  }

  /** Gives the event loop a turn if this slice has run for its time. */
  async pause(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await nextTurn();
    this.sliceStart = performance.now();
  }

  /** Gives the event loop a turn now (between large items, e.g. blocks). */
  async turn(): Promise<void> {
    await nextTurn();
    this.sliceStart = performance.now();
  }

  /** Bytes written, all pieces encoded. */
  get bytes(): number {
    this.flush();
    return this.encoded;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const chunk = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingChars = 0;
    this.encoded += chunk.length;
    if (this.encoded > this.budget) throw responseTooBig(this.budget);
    this.chunks.push(chunk);
  }
}
