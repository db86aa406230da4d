/**
 * What anchoring talks to, in memory, for its unit tests: a clock whose pauses end only
 * when the test moves time; a chain that grows and rolls back on command; a target node
 * with a small chain of its own (a transaction it accepts is mined into its next block,
 * and each height poll finds one more block), whose answers a test can script; a pool; a
 * progress store; and a log that records what was said.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChainEvent } from '../../src/chain/blockchain.js';
import type { Block } from '../../src/protocol/blocks.js';
import { stringifyJson, parseJson } from '../../src/protocol/json.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import type { AnchoringChain, AnchoringLog, AnchoringPool, TargetApi } from '../../src/anchoring/scheduler.js';
import type { AnchoringClock } from '../../src/anchoring/timing.js';
import { NO_PROGRESS, type AnchoringProgress, type ProgressStore } from '../../src/anchoring/progress.js';
import type { TargetAnswer } from '../../src/anchoring/target-node.js';
import { TargetUnreachable } from '../../src/anchoring/target-node.js';
import { WeError } from '../../src/errors/catalogue.js';

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await nextTurn();
};

interface Timer {
  readonly due: number;
  readonly seq: number;
  readonly resolve: () => void;
}

/** Time that moves only when the test says so; every pause is recorded with when it began. */
export class ManualClock implements AnchoringClock {
  time = 0;
  private seq = 0;
  private timers: Timer[] = [];
  /** Every pause asked for: [start, ms]. */
  readonly pauses: Array<[number, number]> = [];

  now(): bigint {
    return 1_700_000_000_000n + BigInt(this.time);
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    this.pauses.push([this.time, ms]);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(signal.reason as Error);
      };
      const timer: Timer = {
        due: this.time + ms,
        seq: this.seq++,
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.timers.push(timer);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Pauses not yet over. */
  get waiting(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, ending the pauses that fall in it in order. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await flush();
    for (;;) {
      const next = this.earliest();
      if (next === undefined || next.due > end) break;
      this.fire(next);
      await flush();
    }
    this.time = end;
    await flush();
  }

  /** Ends pauses one after another until none is left (at most `limit`): runs everything scheduled to completion. */
  async runOut(limit = 10_000): Promise<void> {
    await flush();
    for (let i = 0; i < limit; i++) {
      const next = this.earliest();
      if (next === undefined) return;
      this.fire(next);
      await flush();
    }
    throw new Error(`still pausing after ${limit} pauses`);
  }

  private earliest(): Timer | undefined {
    return [...this.timers].sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
  }

  private fire(t: Timer): void {
    this.timers = this.timers.filter((x) => x !== t);
    this.time = Math.max(this.time, t.due);
    t.resolve();
  }
}

/** A chain of block ids that grows and rolls back on command, with Blockchain's events. */
export class FakeChain implements AnchoringChain {
  private readonly ids = new Map<number, Uint8Array>();
  private listeners: Array<(e: ChainEvent) => void> = [];
  private top = 0;
  private counter = 0;

  constructor(height = 1) {
    for (let h = 1; h <= height; h++) this.ids.set(h, this.newId());
    this.top = height;
  }

  private newId(): Uint8Array {
    const id = new Uint8Array(64);
    new DataView(id.buffer).setUint32(0, ++this.counter);
    id[63] = 7;
    return id;
  }

  height(): number {
    return this.top;
  }

  blockIdAt(height: number): Uint8Array | undefined {
    return height <= this.top ? this.ids.get(height) : undefined;
  }

  on(listener: (event: ChainEvent) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** Appends `n` key blocks, one event each. */
  grow(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.top++;
      this.ids.set(this.top, this.newId());
      for (const l of this.listeners)
        l({ kind: 'block', origin: 'local', height: this.top, block: {} as Block, timing: { applySeconds: 0, commitSeconds: 0 } });
    }
  }

  /** Removes the blocks above `height`. */
  rollbackTo(height: number): void {
    for (let h = height + 1; h <= this.top; h++) this.ids.delete(h);
    this.top = height;
    for (const l of this.listeners) l({ kind: 'rollback', origin: 'api', height, removed: [], removedBlockSizes: [], returnToPool: true });
  }
}

/** What a scripted target call answers: an HTTP answer, or no answer at all. */
export type Scripted = TargetAnswer | 'unreachable';

const json = (status: number, body: unknown): TargetAnswer => ({ status, text: stringifyJson(body) });

/**
 * A target node: broadcast accepts a transaction (echoing its JSON, as WE does) into its
 * pool; the next lookup or height poll mines it into a new block (unless `mines` is off);
 * each height poll finds one block more. Scripted answers (per call kind, in order) replace the default behaviour.
 */
export class FakeTarget implements TargetApi {
  readonly url = 'http://target.test';
  height_ = 10;
  /** Transactions received, by id, with the height they were mined at (undefined: in its pool). */
  readonly txs = new Map<string, { json: Record<string, unknown>; minedAt: number | undefined }>();
  readonly calls: string[] = [];
  readonly script: { broadcast: Scripted[]; info: Scripted[]; height: Scripted[] } = { broadcast: [], info: [], height: [] };
  /** Every call fails in transport while true. */
  down = false;
  /** Mine pooled transactions at the next lookup or height poll (false: they stay unmined). */
  mines = true;

  private scripted(kind: keyof FakeTarget['script']): Scripted | undefined {
    if (this.down) return 'unreachable';
    return this.script[kind].shift();
  }

  private answer(s: Scripted): TargetAnswer {
    if (s === 'unreachable') throw new TargetUnreachable('connect ECONNREFUSED 127.0.0.1:1');
    return s;
  }

  broadcast(text: string): Promise<TargetAnswer> {
    this.calls.push('broadcast');
    const s = this.scripted('broadcast');
    if (s !== undefined) return Promise.resolve().then(() => this.answer(s));
    const tx = parseJson(text) as Record<string, unknown>;
    const id = String(tx['id']);
    if (this.txs.get(id)?.minedAt !== undefined)
      return Promise.resolve(
        json(400, { error: 112, message: `State check failed. Reason: Transaction ${id} is already in the state on a height of ${this.txs.get(id)!.minedAt}` }),
      );
    if (!this.txs.has(id)) this.txs.set(id, { json: tx, minedAt: undefined });
    return Promise.resolve({ status: 200, text });
  }

  transactionInfo(id: string): Promise<TargetAnswer> {
    this.calls.push('info');
    const s = this.scripted('info');
    if (s !== undefined) return Promise.resolve().then(() => this.answer(s));
    if (this.mines && [...this.txs.values()].some((t) => t.minedAt === undefined)) this.mine();
    const tx = this.txs.get(id);
    if (tx?.minedAt === undefined) return Promise.resolve(json(404, { status: 'error', details: 'Transaction is not in blockchain' }));
    return Promise.resolve(json(200, { ...tx.json, height: tx.minedAt }));
  }

  unconfirmedInfo(id: string): Promise<TargetAnswer> {
    this.calls.push('unconfirmed');
    if (this.down) return Promise.resolve().then(() => this.answer('unreachable'));
    const tx = this.txs.get(id);
    if (tx === undefined || tx.minedAt !== undefined) return Promise.resolve(json(404, { status: 'error', details: 'Transaction is not in UTX' }));
    return Promise.resolve(json(200, tx.json));
  }

  height(): Promise<TargetAnswer> {
    this.calls.push('height');
    const s = this.scripted('height');
    if (s !== undefined) return Promise.resolve().then(() => this.answer(s));
    this.height_++;
    if (this.mines) for (const tx of this.txs.values()) if (tx.minedAt === undefined) tx.minedAt = this.height_;
    return Promise.resolve(json(200, { height: this.height_ }));
  }

  /** Mines what its pool holds into the next block (without a height poll). */
  mine(): void {
    this.height_++;
    for (const tx of this.txs.values()) if (tx.minedAt === undefined) tx.minedAt = this.height_;
  }

  count(kind: string): number {
    return this.calls.filter((c) => c === kind).length;
  }
}

/** The node's pool: admitted transactions, blocks on command, refusals on command. */
export class FakePool implements AnchoringPool {
  readonly admitted: Transaction[] = [];
  readonly pool = new Map<string, Transaction>();
  readonly blocks = new Map<string, number>();
  /** Refuse every broadcast with this error while set. */
  refuse: WeError | undefined;
  /** Refuse a transaction whose timestamp is below this (a pool's "too old"). */
  oldestTimestamp: bigint | undefined;

  broadcast(tx: Transaction): Promise<unknown> {
    if (this.refuse !== undefined) return Promise.reject(this.refuse);
    if (this.oldestTimestamp !== undefined && tx.timestamp < this.oldestTimestamp)
      return Promise.reject(new WeError('Mistiming', 303, `Transaction ts ${tx.timestamp} is too old`));
    this.admitted.push(tx);
    this.pool.set(tx.idBase58, tx);
    return Promise.resolve(tx);
  }

  confirmedHeight(id: Uint8Array): number | undefined {
    return this.blocks.get(Buffer.from(id).toString('hex'));
  }

  pooled(id: Uint8Array): boolean {
    return [...this.pool.values()].some((t) => Buffer.from(t.id).equals(Buffer.from(id)));
  }

  /** Puts everything pooled into a block at `height`. */
  confirmAll(height: number): void {
    for (const tx of this.pool.values()) this.blocks.set(Buffer.from(tx.id).toString('hex'), height);
    this.pool.clear();
  }

  /** Forgets a transaction everywhere (a rollback that does not return it, a restart). */
  drop(tx: Transaction): void {
    this.pool.delete(tx.idBase58);
    this.blocks.delete(Buffer.from(tx.id).toString('hex'));
  }
}

export class MemoryProgress implements ProgressStore {
  value: AnchoringProgress = NO_PROGRESS;
  saves = 0;
  load(): AnchoringProgress {
    return this.value;
  }
  save(progress: AnchoringProgress): void {
    this.value = progress;
    this.saves++;
  }
}

/** Every line said, with its level. */
export class RecordingLog implements AnchoringLog {
  readonly lines: Array<{ level: string; msg: string; obj: object }> = [];
  info(obj: object, msg: string): void {
    this.lines.push({ level: 'info', msg, obj });
  }
  warn(obj: object, msg: string): void {
    this.lines.push({ level: 'warn', msg, obj });
  }
  error(obj: object, msg: string): void {
    this.lines.push({ level: 'error', msg, obj });
  }
  debug(obj: object, msg: string): void {
    this.lines.push({ level: 'debug', msg, obj });
  }
  said(pattern: RegExp, level?: string): number {
    return this.lines.filter((l) => pattern.test(l.msg) && (level === undefined || l.level === level)).length;
  }
}
