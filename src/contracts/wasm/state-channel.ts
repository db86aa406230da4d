/**
 * The synchronous channel a WASM execution thread reads the node's state through. A
 * contract's host functions are synchronous, and the state they read is the execution's
 * view on the node's main thread (the block being built, every read logged for the MVCC
 * check: execution-reads.ts). So the thread posts the read on a MessagePort, blocks in
 * Atomics.wait on a shared signal word, and takes the answer with receiveMessageOnPort once
 * the main thread — which answers from its event loop, one read per turn — has posted it and
 * raised the signal. A round trip costs about 25 µs; the thread keeps no copy of what it
 * read beyond its execution (WasmService caches within one).
 *
 * The signal also tells the main thread how long the current job has waited for answers
 * (ms) and whether it waits now: the job's time limit counts only its own time, not the
 * main thread's.
 */
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { ContractExecutionView } from '../state.js';
import type { WasmStateReads } from './service.js';

/**
 * Words of the shared signal: [ANSWERED] 1 once an answer is posted; [WAITED_MS] the current
 * job's wait for answers before the one it is in; [WAITING] 1 while it waits for one.
 */
export const SIGNAL_WORDS = 3;
const ANSWERED = 0;
const WAITED_MS = 1;
const WAITING = 2;

type ReadMethod = keyof WasmStateReads;
const READ_METHODS: ReadonlySet<string> = new Set<ReadMethod>([
  'contractBytecode',
  'contractData',
  'balance',
  'assetExists',
  'leaseExists',
  'aliasOwner',
  'height',
]);

type ReadRequest = readonly [ReadMethod, ...unknown[]];
type ReadAnswer = { readonly value: unknown } | { readonly error: string };

/** The execution thread's end: a read blocks until the main thread answers. */
export class StateChannel {
  private waited = 0;

  constructor(
    private readonly port: MessagePort,
    private readonly signal: Int32Array,
  ) {}

  /** A job starts: its wait counts from zero. */
  startJob(): void {
    this.waited = 0;
    Atomics.store(this.signal, WAITED_MS, 0);
  }

  read(request: ReadRequest): unknown {
    Atomics.store(this.signal, ANSWERED, 0);
    Atomics.store(this.signal, WAITING, 1);
    this.port.postMessage(request);
    const from = performance.now();
    Atomics.wait(this.signal, ANSWERED, 0);
    this.waited += performance.now() - from;
    Atomics.store(this.signal, WAITED_MS, Math.floor(this.waited));
    Atomics.store(this.signal, WAITING, 0);
    const answer = receiveMessageOnPort(this.port)?.message as ReadAnswer | undefined;
    if (answer === undefined) throw new Error(`no answer to the state read ${request[0]}`);
    if ('error' in answer) throw new Error(answer.error);
    return answer.value;
  }
}

/** The reads of one execution through the channel; `beforeRead` charges each (fuel). */
export function channelStateReads(channel: StateChannel, beforeRead: () => void): WasmStateReads {
  const read = (request: ReadRequest): unknown => {
    beforeRead();
    return channel.read(request);
  };
  return {
    contractBytecode: (id) => read(['contractBytecode', id]) as Uint8Array | undefined,
    contractData: (id, key) => read(['contractData', id, key]) as ReturnType<WasmStateReads['contractData']>,
    balance: (holder, assetId) => read(['balance', holder, assetId]) as bigint,
    assetExists: (id) => read(['assetExists', id]) as boolean,
    leaseExists: (id) => read(['leaseExists', id]) as boolean,
    aliasOwner: (name) => read(['aliasOwner', name]) as Uint8Array | undefined,
    height: () => read(['height']) as number,
  };
}

/** How long the job on the other end has waited for answers, in ms (not counting a wait it is in: see `waitingNow`). */
export function waitedMs(signal: Int32Array): number {
  return Atomics.load(signal, WAITED_MS);
}

/** Whether the job on the other end waits for an answer now. */
export function waitingNow(signal: Int32Array): boolean {
  return Atomics.load(signal, WAITING) === 1;
}

/**
 * The main thread's end: answers each read with `reads()` (the running job's view; none
 * between jobs, when a read is an error), then raises the signal.
 */
export function serveStateReads(port: MessagePort, signal: Int32Array, reads: () => WasmStateReads | undefined): void {
  port.on('message', (request: ReadRequest) => {
    let answer: ReadAnswer;
    try {
      const r = reads();
      const [method, ...args] = request;
      if (r === undefined) throw new Error('no WASM execution is running');
      if (!READ_METHODS.has(method)) throw new Error(`unknown state read ${String(method)}`);
      answer = { value: (r[method] as (...a: unknown[]) => unknown)(...args) };
    } catch (e) {
      answer = { error: e instanceof Error ? e.message : String(e) };
    }
    port.postMessage(answer);
    Atomics.store(signal, ANSWERED, 1);
    Atomics.notify(signal, ANSWERED);
  });
}

/** The reads of an execution on `view`: each the one view call WasmService made when it read the view itself. */
export function viewStateReads(view: ContractExecutionView): WasmStateReads {
  return {
    contractBytecode: (id) => {
      const c = view.contract(id);
      return c?.storedContract.engine === 'wasm' ? c.storedContract.bytecode : undefined;
    },
    contractData: (id, key) => view.contractData(id, key),
    balance: (holder, assetId) => view.balance(holder, assetId),
    assetExists: (id) => view.asset(id) !== undefined,
    leaseExists: (id) => view.lease(id) !== undefined,
    aliasOwner: (name) => view.aliasOwner(name),
    height: () => view.height(),
  };
}
