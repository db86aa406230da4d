/**
 * Contract execution for this node's micro-blocks (WE's MinerTransactionsExecutor): the
 * executable transactions of the pool (103, 104, 107) are run by the engine, one lane per
 * contract, lanes side by side (the executor caps executions at `contracts-parallelism`).
 * Within a lane up to as many calls run at once as the contract can take (its instances ×
 * max-in-flight; one for WASM), each on the round's state (the liquid block plus the 105s
 * made so far) as it reads it; outcomes are taken in pool order and each is checked first
 * with WE's MVCC rule (execution-reads.ts): if a 105 applied meanwhile changed anything it
 * read, it runs again — so every call's 105 is the one it makes on the state the calls
 * before it left, and cross-contract reads see the 105s applied before them.
 * The 105s are listed — and applied to the round's state — in the order they are taken;
 * every execution becomes an ExecutedContract (105) signed by this node, or no 105 with a
 * status and the pool's verdict (result.ts). The 105s go first into the next micro-block,
 * so every node applies them on exactly the state they were executed on. A round stops
 * starting calls when the miner says the micro-block is due (at least one 105 made) and
 * ends without waiting for the calls in flight: they are carried into this node's next
 * round (the contract processes keep working while the micro-block is made), where their
 * reads are checked against that round's state like any other's — a success run on an
 * earlier key block runs again (it saw that block's info), an outcome that writes nothing
 * (an error, a failure) is taken as it is.
 *
 * A call that runs long (one that hangs until the execution timeout) holds its own slot, not
 * its lane: once the micro-block is due and nothing is made yet, the calls behind it that
 * have ended are taken before it, and with nothing ended the lane carries it into the next
 * round, so the other calls of its contract — and the other contracts' 105s — go on being
 * mined. An execution that leaves its transaction in the pool (a recoverable error, the
 * execution timeout) is not repeated on the same key block, and after
 * `max-failed-executions` the transaction leaves the pool with an Error status
 * (failed-executions.ts).
 *
 * A contract whose validation policy is not `any` waits for its validators' results before
 * a call runs, and its 105 carries their proofs (validation-gate.ts). A confidential
 * contract's calls run one at a time, each with its off-chain input on the contract's
 * confidential state, and become 105 V4s (confidential/execution.ts).
 *
 * Statuses: `Error` / `Failure` are recorded when the execution ends, `Success` when the
 * 105 is mined into a micro-block (`mined`), as WE does.
 */
import type { Blockchain } from '../chain/blockchain.js';
import type { UtxPool } from '../chain/utx.js';
import { applyTransaction } from '../chain/validation.js';
import type { KeyPair } from '../crypto/suite.js';
import { bytesKey, equalBytes } from '../crypto/encoding.js';
import {
  ExecutedContract,
  executedContractIdOf,
  isExecutableContract,
  type ExecutableContractTransaction,
  type ValidationProof,
} from '../protocol/transactions/contracts.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { MutableState } from '../state/view.js';
import { WeError } from '../errors/catalogue.js';
import type { ContractExecutor } from './executor.js';
import { FailedExecutions } from './failed-executions.js';
import { DEFAULT_MAX_FAILED_EXECUTIONS } from './settings.js';
import type { ConfidentialExecution, ConfidentialPreparation } from './confidential/execution.js';
import { buildExecutedContract, SUCCESS_MINED_MESSAGE, type ExecutionResult, type ExecutionStatus, type StatusDraft } from './result.js';
import { ExecutionReads } from './execution-reads.js';
import { ReadingsJournal, type Readings } from './confidential/readings.js';
import type { ContractNodeContext } from './state.js';
import type { ExecutionStatusBook } from './statuses.js';
import type { ValidationGate } from './validation-gate.js';
import type { ConfidentialResults } from './validator-results.js';

export interface ContractMiningOptions {
  readonly chain: Blockchain;
  readonly pool: UtxPool;
  readonly executor: ContractExecutor;
  readonly statuses: ExecutionStatusBook;
  /** The miner's key: it signs the 105s. */
  readonly minerKey: KeyPair;
  readonly node: ContractNodeContext;
  readonly now: () => bigint;
  readonly log?: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Told of every execution and every status recorded (the node's metrics); none by default. */
  readonly observer?: ContractExecutionObserver;
  /** Calls of one contract run at once at most; the executor's contracts-parallelism by default. */
  readonly callsInFlight?: number;
  /**
   * Validation policies (validation-gate.ts): a transaction of a contract whose policy is
   * not `any` waits for its validators' results, and its 105 carries their proofs. Without
   * it every execution is mined without proofs.
   */
  readonly validation?: ValidationGate;
  /** Confidential calls (104 V6): executed with their off-chain input, built as 105 V4; absent: executed as any call. */
  readonly confidential?: ConfidentialExecution;
  /** `node.contracts.max-failed-executions`: executions that leave a transaction in the pool before it is dropped (failed-executions.ts). */
  readonly maxFailedExecutions?: number;
}

/**
 * What this node's contract executions tell: each run of the engine with its duration in
 * seconds (whatever it ended in), and each status recorded for an executable transaction —
 * `Error` / `Failure` when its execution ends (or its 105 cannot apply), `Success` when
 * its 105 is mined.
 */
export interface ContractExecutionObserver {
  executed(seconds: number): void;
  recorded(status: ExecutionStatus): void;
}

/** One execution round: the state its 105s apply to, in the order they are listed. */
interface Round {
  readonly height: number;
  /** The key block's id, as encoding's bytesKey. */
  readonly keyBlock: string;
  readonly ctx: ReturnType<Blockchain['txContext']>;
  readonly state: MutableState;
  /** The round's 105s; some still without their proof until `signAll` (see `take`). */
  readonly out: Transaction[];
  /** A lane failed unexpectedly: the others start nothing more. */
  stopped: boolean;
  /** Calls this node's previous round left running, by transaction id: taken instead of run again. */
  readonly adopted: Map<string, Started>;
  /** The lanes' wake-ups: the round's tick calls them, so a lane waiting for a long call sees the micro-block fall due. */
  readonly wakes: Set<() => void>;
}

/** How often a lane waiting for its calls looks whether the micro-block is due, in ms. */
const DUE_CHECK_MS = 50;

/** Runs of one call before it waits for the next round (other contracts keep changing what it reads). */
const MAX_ATTEMPTS = 4;

/** One run of a call: what came of it and what it read. */
interface Speculation {
  readonly result: ExecutionResult;
  readonly reads: ExecutionReads;
  /** The key block of the round it ran in (bytesKey): the block info the contract was given. */
  readonly keyBlock: string;
  /** A confidential call's readings (confidential/readings.ts). */
  readonly readings?: Readings;
}

/** An outcome whose reads held. */
interface Settled {
  readonly result: ExecutionResult;
  readonly attempts: number;
  readonly readings?: Readings;
}

/** A call started in a lane: what the confidential hook made of it, and its run. */
interface Started {
  readonly tx: ExecutableContractTransaction;
  readonly prepared: ConfidentialPreparation | undefined;
  readonly outcome: Promise<Speculation>;
  /** Its run ended (the contract is free for another call), whether or not its outcome was taken. */
  finished: boolean;
  /** Told once when its run ends: the wake-up of the lane holding it (a carried call's new lane's). */
  onFinish: () => void;
  /** It was still running when a round ended: a slow or hanging call, which the calls behind it do not wait for. */
  outlasted: boolean;
}

/** A started call of `outcome`, marked finished (and its lane told) when its run ends: one handler per outcome. */
function started(
  tx: ExecutableContractTransaction,
  prepared: ConfidentialPreparation | undefined,
  outcome: Promise<Speculation>,
  onFinish: () => void,
): Started {
  const call: Started = { tx, prepared, outcome, finished: false, onFinish, outlasted: false };
  const finish = (): void => {
    call.finished = true;
    call.onFinish();
  };
  outcome.then(finish, finish);
  return call;
}

/** A lane's wait for any of its calls' runs to end: one waiter, woken by the next call that finishes. */
class CallFinished {
  private wake: (() => void) | undefined;

  /** Settles when a call tells `notify` next. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  readonly notify = (): void => {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  };
}

/**
 * Calls a lane holds started at most, as a multiple of its window: runs that ended wait
 * for the earlier calls of the lane to be taken while the contract takes the next ones.
 */
const LOOKAHEAD = 2;

/** The key block a round mines on, as the validation gate names it. */
type RoundKeyBlock = Parameters<ValidationGate['ready']>[2];

export class ContractMining {
  /** Calls of a contract run at once (its lane's window), by contract id; `maxWindow` when none is kept. */
  private readonly windows = new Map<string, number>();
  private readonly maxWindow: number;
  /** Calls the last round left running, by transaction id (see runLane). */
  private carried: Map<string, Started> | undefined;
  private readonly failures: FailedExecutions;

  constructor(private readonly o: ContractMiningOptions) {
    this.maxWindow = Math.max(1, o.callsInFlight ?? o.executor.parallelism);
    this.failures = new FailedExecutions(Math.max(1, o.maxFailedExecutions ?? DEFAULT_MAX_FAILED_EXECUTIONS));
  }

  /**
   * Starts what an executable transaction just admitted to the pool will need (its contract's
   * process or container: executor.prepare), so the first call of a contract does not wait for
   * the cold start when its round comes. Only configured images start (the executor refuses
   * others); a contract already running costs a look-up.
   */
  warmUp(tx: Transaction): void {
    if (!isExecutableContract(tx)) return;
    const view = this.o.chain.state();
    if (this.o.executor.isReady(tx, view)) return;
    void this.o.executor.prepare(tx, view).then((failed) => {
      if (failed !== undefined && 'message' in failed) this.o.log?.debug({ id: tx.idBase58, reason: failed.message }, 'contract not started ahead of its call');
    });
  }

  /**
   * Executes `candidates` (executable transactions, pool order) on the current liquid
   * block and returns the 105s to mine, in order. Transactions WE drops after their
   * execution leave the pool here; the others stay for another round.
   */
  async execute(candidates: readonly ExecutableContractTransaction[], stop: () => boolean = () => false): Promise<Transaction[]> {
    const { chain, pool } = this.o;
    const height = chain.height();
    const keyBlock = chain.headerAt(height);
    // Calls still running from this node's last round are kept through other miners' key blocks, for its next one.
    if (!equalBytes(keyBlock.generator, this.o.minerKey.publicKey)) return [];
    const adopted = this.carried ?? new Map<string, Started>();
    this.carried = undefined;
    const round: Round = {
      height,
      keyBlock: bytesKey(keyBlock.id),
      ctx: chain.txContext(height, keyBlock.timestamp, height > 1 ? chain.timestampAt(height - 1) : undefined, keyBlock.generator),
      state: new MutableState(chain.state()),
      out: [],
      stopped: false,
      adopted,
      wakes: new Set(),
    };
    if (this.failures.any) this.failures.retain((txId) => pool.getByKey(txId) !== undefined);
    const failing = this.failures.any;
    // One lane per contract, in pool order; lanes run side by side (the executor caps them at contracts-parallelism).
    // Keyed by the id's bytes as a string: every round groups all the pool's executable transactions (a Base58 key
    // each was a fifth of the node's allocations in the contract bench). A transaction whose execution failed on this
    // key block waits for the next (WE's once per key block).
    const lanes = new Map<string, ExecutableContractTransaction[]>();
    for (const tx of candidates) {
      if (failing && this.failures.failedOn(bytesKey(tx.id), round.keyBlock)) continue;
      const key = bytesKey(executedContractIdOf(tx));
      const lane = lanes.get(key);
      if (lane === undefined) lanes.set(key, [tx]);
      else lane.push(tx);
    }
    const tick = setInterval(() => {
      for (const wake of round.wakes) wake();
    }, DUE_CHECK_MS);
    tick.unref();
    const settled = await Promise.allSettled([...lanes].map(([contract, lane]) => this.runLane(contract, lane, round, stop)));
    clearInterval(tick);
    // Carried calls this round did not reach (their transaction left the pool, or waits for validators) are dropped.
    abandon([...round.adopted.values()]);
    for (const s of settled) if (s.status === 'rejected') throw s.reason;
    for (let i = 0; i < round.out.length; i++) this.signAt(round.out, i);
    return round.out;
  }

  /** Signs the 105 at `index` of `out` unless it is signed already. */
  private signAt(out: Transaction[], index: number): void {
    const tx = out[index]!;
    if (tx.proofs.length === 0) out[index] = this.o.chain.protocol.sign(tx, this.o.minerKey.privateKey);
  }

  /**
   * The calls of one contract, in pool order: up to the lane's window run at once, each on
   * the round's state as it is when it reads, and their outcomes are taken in pool order.
   * An outcome whose reads no longer answer the same (an earlier call of the lane, or
   * another contract's 105, changed what it read) is discarded and the call runs again, so
   * each call's 105 is what it makes on the state the ones before it left (WE's MVCC
   * re-queue). A conflict narrows the window to one; each clean outcome widens it again.
   */
  private async runLane(contract: string, lane: readonly ExecutableContractTransaction[], round: Round, stop: () => boolean): Promise<void> {
    const { pool } = this.o;
    const keyBlock = this.roundKeyBlock(round);
    // A confidential contract's calls read its confidential state as the ones before them left it: one at a time.
    const confidentialLane = this.o.confidential?.isConfidentialCall(lane[0]!, round.state) === true;
    const most = confidentialLane ? 1 : Math.min(this.maxWindow, this.o.executor.callsAtOnce(lane[0]!, round.state));
    const running: Started[] = [];
    const callFinished = new CallFinished();
    round.wakes.add(callFinished.notify);
    let next = 0;
    /** A call waits for its validators' results: the contract's later calls wait behind it. */
    let blocked = false;
    /**
     * Starts the lane's next calls while fewer than `window` run (runs that ended, waiting to
     * be taken in pool order, do not count: their contract is free) and fewer than
     * LOOKAHEAD × `window` are held; `dueToo`: even once the micro-block is due.
     */
    const fill = (window: number, dueToo: boolean): void => {
      let busy = running.reduce((n, r) => n + (r.finished ? 0 : 1), 0);
      while (!blocked && next < lane.length && !round.stopped) {
        const tx = lane[next]!;
        // The pool may have dropped it (a key block re-validated it away) while earlier ones ran.
        if (pool.get(tx.id) === undefined || round.state.executedTxFor(tx.id) !== undefined) {
          next++;
          continue;
        }
        // A call still running from the last round is taken whatever the room: it starts nothing.
        const carried = round.adopted.size === 0 ? undefined : round.adopted.get(tx.idBase58);
        if (carried === undefined && !(busy < window && running.length < LOOKAHEAD * window && (dueToo || !(round.out.length > 0 && stop())))) break;
        if (keyBlock !== undefined && !this.o.validation!.ready(tx, round.state, keyBlock)) {
          blocked = true;
          break;
        }
        next++;
        if (carried !== undefined) {
          round.adopted.delete(tx.idBase58);
          carried.onFinish = callFinished.notify;
          running.push(carried);
          if (!carried.finished) busy++;
          continue;
        }
        const prepared = this.o.confidential?.prepare(tx, round.state);
        if (prepared?.kind === 'skip') {
          this.o.log?.debug({ id: tx.idBase58, reason: prepared.reason }, 'confidential call not executed here now');
          continue;
        }
        if (prepared?.kind === 'unpermitted') {
          // A miner outside the group cannot run it; later calls of the contract wait behind it.
          if (!this.takeFromValidators(tx, round, keyBlock)) blocked = true;
          continue;
        }
        running.push(started(tx, prepared, this.speculate(tx, round, prepared), callFinished.notify));
        busy++;
      }
    };
    for (;;) {
      const window = Math.min(most, this.windows.get(contract) ?? most);
      fill(window, false);
      let head = running[0];
      if (head === undefined) return;
      // The micro-block is due: the calls still running go on into this node's next round (not a confidential call: it
      // runs on its contract's confidential state as this round left it), and the contract's free processes take the
      // next calls meanwhile — they are checked on the next round's state like the others. With nothing made yet — or
      // behind a call that already outlasted a round — the calls that have ended are taken first, even behind one that
      // still runs (a slow or hanging call holds its own slot, not the lane): each is checked on the state as it is, and
      // the one still running on the state they leave.
      const due = (round.out.length > 0 || !head.finished) && stop() && running.every((r) => r.prepared?.kind !== 'confidential');
      if (due && (round.out.length > 0 || !running.some((r) => r.finished))) {
        // Behind a first call that outlasts the micro-block, the others may use all the contract takes at once.
        if (!confidentialLane) fill(head.finished ? window : most, true);
        return this.carry(running);
      }
      if (!head.finished) {
        const ended = due || head.outlasted ? running.find((r) => r.finished) : undefined;
        if (ended === undefined) {
          // Whichever run ends first (or the round's tick): the head's is taken, another's frees its contract for the lane's next call.
          await callFinished.next();
          continue;
        }
        head = ended;
      }
      running.splice(running.indexOf(head), 1);
      const outcome = await this.settle(head, await head.outcome, round);
      if (round.stopped) return abandon(running);
      if (outcome?.attempts !== 1) this.windows.set(contract, 1);
      else if (window + 1 >= most) this.windows.delete(contract);
      else this.windows.set(contract, window + 1);
      if (outcome === undefined) continue;
      const confidential =
        head.prepared?.kind === 'confidential' ? this.o.confidential!.resultsOf(outcome.result, head.prepared.input, outcome.readings) : undefined;
      const proofs = this.proofsFor(head, outcome, round, keyBlock, confidential);
      // WE: "Suddenly not enough proofs" — it stays in the pool, and so do the contract's later calls.
      if (proofs === 'wait') return abandon(running);
      if (proofs === 'refused') continue;
      this.take(head, outcome, round, proofs, confidential);
    }
  }

  /** Keeps a lane's running calls for this node's next round. */
  private carry(running: readonly Started[]): void {
    abandon(running);
    this.carried ??= new Map();
    for (const r of running) {
      if (!r.finished) r.outlasted = true;
      this.carried.set(r.tx.idBase58, r);
    }
    this.o.log?.debug({ calls: running.map((r) => r.tx.idBase58) }, 'calls in flight carried into the next execution round');
  }

  /** The key block of a round, when validation policies are checked. */
  private roundKeyBlock(round: Round): RoundKeyBlock | undefined {
    if (this.o.validation === undefined) return undefined;
    const header = this.o.chain.headerAt(round.height);
    return { id: header.id, timestamp: header.timestamp, height: round.height };
  }

  /** The validators' proofs for a 105 (none without validation), or whether it waits or was refused (`confidential`: a confidential call's results). */
  private proofsFor(
    call: Started,
    outcome: Settled,
    round: Round,
    keyBlock: RoundKeyBlock | undefined,
    confidential: ConfidentialResults | undefined,
  ): readonly ValidationProof[] | 'wait' | 'refused' {
    if (keyBlock === undefined) return [];
    const { tx } = call;
    const { result } = outcome;
    const verdict = this.o.validation!.proofs(tx, result, round.state, keyBlock, confidential);
    if (verdict.kind === 'wait') {
      this.o.log?.debug({ id: tx.idBase58, reason: verdict.reason }, 'contract transaction waits for validators');
      return 'wait';
    }
    if (verdict.kind === 'refused') {
      this.record(tx.id, { status: 'Failure', code: null, message: verdict.message });
      this.o.pool.remove(tx.id);
      return 'refused';
    }
    return verdict.proofs;
  }

  /**
   * The outcome of a call whose reads still hold, running it again while they do not;
   * undefined when they never held in MAX_ATTEMPTS runs (it stays in the pool) or the round stopped.
   * An outcome that writes nothing (an error: its 105, if any, has no results) holds whatever it read.
   */
  private async settle(call: Started, first: Speculation, round: Round): Promise<Settled | undefined> {
    let outcome = first;
    for (let attempts = 1; ; attempts++) {
      if (round.stopped) return undefined;
      // A call carried from the previous round read that round's state: its reads are checked on this one's; a success
      // made on another key block saw that block's info, and runs again.
      const held =
        outcome.result.kind !== 'success' ||
        (outcome.keyBlock === round.keyBlock && (call.prepared?.kind === 'confidential' ? outcome.reads.unchanged() : outcome.reads.unchanged(round.state)));
      if (held) return { result: outcome.result, attempts, ...(outcome.readings === undefined ? {} : { readings: outcome.readings }) };
      if (attempts >= MAX_ATTEMPTS) {
        this.o.log?.debug({ id: call.tx.idBase58, attempts }, 'contract transaction re-executed too often; left for the next round');
        return undefined;
      }
      outcome = await this.speculate(call.tx, round, call.prepared);
    }
  }

  /** Runs `tx` on the round's state as it is now (a confidential call: on its contract's confidential state, with its input), its reads logged. */
  private async speculate(tx: ExecutableContractTransaction, round: Round, prepared: ConfidentialPreparation | undefined): Promise<Speculation> {
    const confidential = prepared?.kind === 'confidential' ? prepared : undefined;
    const reads = new ExecutionReads(confidential?.view ?? round.state);
    const readings = confidential === undefined ? undefined : new ReadingsJournal(this.o.chain.protocol);
    const started = performance.now();
    const result = await this.o.executor.execute(tx, {
      view: reads.view,
      blockInfo: this.o.node.lastBlockInfo(),
      ...(confidential === undefined ? {} : { params: confidential.input.entries, readings }),
    });
    this.o.observer?.executed((performance.now() - started) / 1000);
    return { result, reads, keyBlock: round.keyBlock, ...(readings === undefined ? {} : { readings: readings.result() }) };
  }

  /** An outcome whose reads still hold: its 105 is applied to the round's state and listed, or its status recorded. */
  private take(
    call: Started,
    outcome: Settled,
    round: Round,
    validationProofs: readonly ValidationProof[],
    confidential: ConfidentialResults | undefined,
  ): void {
    const { chain, pool } = this.o;
    const { result } = outcome;
    const { state, out, ctx, height } = round;
    const { tx, prepared } = call;
    const buildContext = {
      protocol: chain.protocol,
      isFeatureActive: (id: number) => chain.features.isActive(id, height),
      miner: this.o.minerKey,
      timestamp: this.o.now(),
      validationProofs,
      // Signed after the lane's next call is pushed (the proof is not part of what applies or of the id): the
      // signature, the costliest part of a 105, is made while the contracts run instead of between their calls.
      unsigned: true,
    };
    const built =
      prepared?.kind === 'confidential'
        ? this.o.confidential!.build(tx, result, prepared.input, buildContext, confidential)
        : buildExecutedContract(tx, result, buildContext);
    if (built.status !== undefined) this.record(tx.id, built.status);
    if (built.kind === 'none') {
      this.o.log?.debug({ id: tx.idBase58, reason: built.reason, staysInPool: built.staysInPool }, 'contract transaction not executed');
      const dropped = built.staysInPool ? this.failures.failed(bytesKey(tx.id), round.keyBlock, built.reason) : undefined;
      if (dropped !== undefined) {
        this.record(tx.id, dropped);
        this.o.log?.warn(
          { id: tx.idBase58, reason: built.reason, executions: this.failures.limit },
          'contract transaction dropped from the pool after its failed executions',
        );
      }
      if (!built.staysInPool || dropped !== undefined) pool.remove(tx.id);
      return;
    }
    try {
      applyTransaction(state, built.executed, ctx, { verifySignature: false });
      const index = out.push(built.executed) - 1;
      if (built.executed.proofs.length === 0) setImmediate(() => this.signAt(out, index));
    } catch (e) {
      if (!(e instanceof WeError)) {
        round.stopped = true;
        throw e;
      }
      // The 105 cannot apply (a payment or asset operation the state refuses): WE's handleExecutedTxCreationFailed.
      this.record(tx.id, { status: 'Failure', code: null, message: e.message });
      pool.remove(tx.id);
      this.o.log?.warn({ id: tx.idBase58, error: e.message }, 'executed contract transaction refused by state');
    }
  }

  /** A confidential call of a group this miner is not in: its 105 V4 from the validators' agreed results; false when they are not enough. */
  private takeFromValidators(tx: ExecutableContractTransaction, round: Round, keyBlock: RoundKeyBlock | undefined): boolean {
    const agreed = keyBlock === undefined ? undefined : this.o.validation!.fromValidators(tx, round.state, keyBlock);
    if (agreed === undefined) {
      this.o.log?.debug({ id: tx.idBase58 }, 'confidential call of a group this miner is not in waits for its validators');
      return false;
    }
    const built = this.o.confidential!.buildFromValidators(tx, agreed, {
      protocol: this.o.chain.protocol,
      isFeatureActive: (id: number) => this.o.chain.features.isActive(id, round.height),
      miner: this.o.minerKey,
      timestamp: this.o.now(),
      validationProofs: agreed.proofs,
    });
    if (built.kind === 'none') {
      this.o.log?.debug({ id: tx.idBase58, reason: built.reason }, 'executed transaction from validators not built');
      return false;
    }
    try {
      applyTransaction(round.state, built.executed, round.ctx, { verifySignature: false });
      round.out.push(built.executed);
      return true;
    } catch (e) {
      if (!(e instanceof WeError)) throw e;
      this.o.log?.warn({ id: tx.idBase58, error: e.message }, 'executed transaction from validators refused by state');
      return false;
    }
  }

  private record(txId: Uint8Array, status: StatusDraft): void {
    this.o.statuses.record(txId, status);
    this.o.observer?.recorded(status.status);
  }

  /**
   * After a micro-block of this node: the executed transactions it mined are `Success`.
   * Recorded one per turn of the event loop from the next one on: each status is a signed
   * message, and the miner starts the next execution round right after this (the contracts
   * wait for it).
   */
  mined(included: readonly Transaction[]): void {
    const succeeded = included.filter((tx) => ExecutedContract.is(tx)).filter((tx) => tx.version !== 5 || (tx.data.statusCode ?? 0) === 0);
    if (succeeded.length === 0) return;
    // One per turn: the contracts' commits are answered between them.
    const recordFrom = (i: number): void => {
      this.record(succeeded[i]!.data.tx.id, { status: 'Success', code: null, message: SUCCESS_MINED_MESSAGE });
      if (i + 1 < succeeded.length) setImmediate(() => recordFrom(i + 1));
    };
    setImmediate(() => recordFrom(0));
  }
}

/** Calls left running when a lane stops: their outcomes are not taken (the transactions stay in the pool), and a failure of theirs is not left unhandled. */
function abandon(running: readonly Started[]): void {
  for (const r of running) r.outcome.catch(() => undefined);
}
