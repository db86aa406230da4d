/**
 * Heavy REST reads: answers that can run to megabytes of JSON —
 * block ranges, full blocks, long transaction lists — must not hold the event loop (mining,
 * P2P and every other request share it) nor let a handful of looping clients take the node.
 *
 * - bounded concurrency: at most `concurrent` heavy reads are being built at a time, at most
 *   `waiting` more wait their turn; beyond that the answer is 503 (WE's format, error 642 as
 *   WE answers a stream limit) so a client backs off instead of queueing without end;
 * - serialization in slices: JSON is produced piece by piece and the builder gives the loop a
 *   turn whenever it has worked for `sliceMs`; the builders take turns (TurnGate), so a turn
 *   of the loop holds one slice of heavy reads whatever their number;
 * - a byte budget per response: a range whose JSON passes `responseBytes` is refused with
 *   WE's range error (10, `Too big sequences requested`), saying to ask for fewer.
 */
import { setImmediate as immediateTurn } from 'node:timers/promises';
import { Readable } from 'node:stream';
import { heavyReadsBusy, responseTooBig } from '../errors/catalogue.js';
import { writeJson, type JsonSink } from '../protocol/json.js';

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

/** A JSON answer built in full: its bytes, as one buffer when they fit one chunk (most answers: no stream to set up), else a stream of the chunks. */
export interface BuiltJson {
  readonly length: number;
  readonly body: Buffer | Readable;
}

/**
 * The turns of the event loop that heavy reads share: one waiting builder goes on per turn,
 * in the order they paused. Each builder gives the loop a turn after a slice (`sliceMs`);
 * without this, every builder waiting resumed in the same turn, one slice after another, and
 * a turn held the loop for as many slices as builders were running.
 */
export class TurnGate {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** Resolves in a later turn of the event loop, once every builder that paused earlier has had its turn. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.release);
  }

  private readonly release = (): void => {
    this.scheduled = false;
    const go = this.waiting.shift();
    // Scheduled now, in this turn's check phase: it runs in the next turn, after its I/O.
    if (this.waiting.length > 0) this.schedule();
    go?.();
  };
}

/** The heavy reads of one REST server: a small semaphore and the budget each answer gets. */
export class HeavyReads {
  private running = 0;
  private readonly queue: Array<() => void> = [];
  /** The builders running share the loop's turns: one slice per turn in all. */
  private readonly turns = new TurnGate();

  /** `now`: the builders' clock in ms (performance.now; tests pass their own). */
  constructor(
    readonly limits: HeavyReadLimits = DEFAULT_HEAVY_READ_LIMITS,
    private readonly now: () => number = () => performance.now(),
  ) {}

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
      const out = new JsonPieces(options.budget === false ? Infinity : this.limits.responseBytes, this.limits.sliceMs, this.now, () => this.turns.next());
      await build(out);
      const chunks = out.chunks;
      return { length: out.bytes, body: chunks.length === 1 ? chunks[0]! : Readable.from(chunks, { objectMode: false }) };
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

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The first chunk of an answer (small answers stay small); later chunks double up to CHUNK_BYTES. */
const FIRST_CHUNK_BYTES = 16 * 1024;
/** The largest chunk an answer's bytes are written into (a piece longer than this gets a chunk of its own size). */
const CHUNK_BYTES = 1024 * 1024;

/**
 * JSON text written piece by piece straight into UTF-8 chunks, within a byte budget, yielding
 * the loop as it goes. Each piece is encoded into the current chunk as it comes, so the text
 * dies young (no list of pieces outliving collections, no joined string, no Buffer per flush):
 * the answer's bytes are the only thing that grows.
 */
export class JsonPieces implements JsonSink {
  /** Chunks filled so far (the one being written is not among them). */
  private readonly sealed: Buffer[] = [];
  /** Bytes in `sealed`. */
  private sealedBytes = 0;
  private chunk: Buffer | undefined;
  /** Bytes written into `chunk`. */
  private used = 0;
  private sliceStart: number;

  /** `now`: a clock in ms (performance.now; tests pass their own); `nextTurn`: resolves in a later turn of the event loop (HeavyReads: a TurnGate shared by its builders). */
  constructor(
    private readonly budget: number,
    private readonly sliceMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly nextTurn: () => Promise<void> = immediateTurn,
  ) {
    this.sliceStart = now();
  }

  /** Appends text; throws WE's range error past the budget. */
  write(text: string): void {
    let chunk = this.chunk;
    // UTF-8 takes at most 3 bytes per UTF-16 unit: only a piece that may not fit is measured.
    if (chunk === undefined || chunk.length - this.used < text.length * 3) {
      const need = Buffer.byteLength(text, 'utf8');
      if (this.sealedBytes + this.used + need > this.budget) throw responseTooBig(this.budget);
      if (chunk === undefined || chunk.length - this.used < need) chunk = this.nextChunk(need);
    }
    this.used += chunk.write(text, this.used, 'utf8');
    if (this.sealedBytes + this.used > this.budget) throw responseTooBig(this.budget);
  }

  /**
   * Appends the JSON text of `value`, byte for byte what `stringifyJson(value, { int64AsString })`
   * makes (one traversal: protocol/json.ts writeJson), written straight into the chunk: no
   * string per member, no joined text.
   */
  json(value: unknown, int64AsString: boolean): void {
    writeJson(value, int64AsString, this);
  }

  /** True once this slice has run for its time: the caller should `pause()`. */
  get sliceOver(): boolean {
    return this.now() - this.sliceStart >= this.sliceMs;
  }

  /** Gives the event loop a turn if this slice has run for its time. */
  async pause(): Promise<void> {
    if (!this.sliceOver) return;
    await this.nextTurn();
    this.sliceStart = this.now();
  }

  /** Gives the event loop a turn now (between large items, e.g. blocks). */
  async turn(): Promise<void> {
    await this.nextTurn();
    this.sliceStart = this.now();
  }

  /** Bytes written. */
  get bytes(): number {
    return this.sealedBytes + this.used;
  }

  /** The bytes written, in order (the writer is done with). */
  get chunks(): readonly Buffer[] {
    this.seal();
    return this.sealed;
  }

  /** A JSON string (JsonSink): copied a character a byte when all printable ASCII without `"` or `\\`, else JSON.stringify's text. */
  string(text: string): void {
    const n = text.length;
    // The bare text's size is a floor of the escaped one's (every UTF-16 unit is at least a byte): past the budget bare, past it escaped.
    const chunk = this.room(n + 2);
    let at = this.used;
    chunk[at++] = QUOTE;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) return this.write(JSON.stringify(text));
      chunk[at++] = c;
    }
    chunk[at++] = QUOTE;
    this.used = at;
  }

  /** JSON text as it is (JsonSink): punctuation, numbers, literals — ASCII. */
  raw(text: string): void {
    const n = text.length;
    const chunk = this.room(n);
    let at = this.used;
    for (let i = 0; i < n; i++) chunk[at++] = text.charCodeAt(i);
    this.used = at;
  }

  /** The current chunk with room for `need` more bytes; throws WE's range error when they would pass the budget. */
  private room(need: number): Buffer {
    if (this.sealedBytes + this.used + need > this.budget) throw responseTooBig(this.budget);
    const chunk = this.chunk;
    return chunk !== undefined && chunk.length - this.used >= need ? chunk : this.nextChunk(need);
  }

  /** Seals the current chunk and starts one with room for at least `need` bytes. */
  private nextChunk(need: number): Buffer {
    const previous = this.chunk?.length ?? FIRST_CHUNK_BYTES / 2;
    this.seal();
    const chunk = Buffer.allocUnsafeSlow(Math.max(need, Math.min(CHUNK_BYTES, previous * 2)));
    this.chunk = chunk;
    return chunk;
  }

  private seal(): void {
    if (this.chunk === undefined || this.used === 0) return;
    this.sealed.push(this.chunk.subarray(0, this.used));
    this.sealedBytes += this.used;
    this.chunk = undefined;
    this.used = 0;
  }
}
