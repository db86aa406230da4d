/**
 * Contract execution for this node's micro-blocks (WE's MinerTransactionsExecutor): the
 * executable transactions of the pool (103, 104, 107) are run by the engine: the calls of
 * one contract in pool order, each on the state the ones before it left (the liquid block
 * plus the 105s made so far), different contracts side by side (up to
 * `contracts-parallelism`, WE's parallel execution). The 105s are listed — and applied to
 * the round's state — in the order they are made;
 * every execution becomes an ExecutedContract (105) signed by this node, or no 105 with a
 * status and the pool's verdict (result.ts). The 105s go first into the next micro-block,
 * so every node applies them on exactly the state they were executed on. A round stops
 * taking candidates when the miner says the micro-block is due (at least one 105 made).
 *
 * Statuses: `Error` / `Failure` are recorded when the execution ends, `Success` when the
 * 105 is mined into a micro-block (`mined`), as WE does.
 */
import type { Blockchain } from '../chain/blockchain.js';
import type { UtxPool } from '../chain/utx.js';
import { applyTransaction } from '../chain/validation.js';
import type { KeyPair } from '../crypto/suite.js';
import { encodeBase58, equalBytes } from '../crypto/encoding.js';
import { ExecutedContract, type ValidationProof } from '../protocol/transactions/contracts.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { MutableState } from '../state/view.js';
import { WeError } from '../errors/catalogue.js';
import type { ContractExecutor } from './executor.js';
import type { ConfidentialExecution } from './confidential/execution.js';
import { buildExecutedContract, SUCCESS_MINED_MESSAGE, type ExecutionStatus, type StatusDraft } from './result.js';
import type { ContractNodeContext } from './state.js';
import type { ExecutionStatusBook } from './statuses.js';
import type { ValidationGate } from './validation-gate.js';

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
  /**
   * Validation policies (validation-gate.ts): a transaction of a contract whose policy is
   * not `any` waits for its validators' results, and its 105 carries their proofs. Without
   * it every execution is mined without proofs.
   */
  readonly validation?: ValidationGate;
  /** Confidential calls (104 V6): executed with their off-chain input, built as 105 V4; absent: executed as any call. */
  readonly confidential?: ConfidentialExecution;
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
  readonly ctx: ReturnType<Blockchain['txContext']>;
  readonly state: MutableState;
  readonly out: Transaction[];
  /** A lane failed unexpectedly: the others start nothing more. */
  stopped: boolean;
}

export class ContractMining {
  constructor(private readonly o: ContractMiningOptions) {}

  /**
   * Executes `candidates` (executable transactions, pool order) on the current liquid
   * block and returns the 105s to mine, in order. Transactions WE drops after their
   * execution leave the pool here; the others stay for another round.
   */
  async execute(candidates: readonly Transaction[], stop: () => boolean = () => false): Promise<Transaction[]> {
    const { chain } = this.o;
    const height = chain.height();
    const keyBlock = chain.headerAt(height);
    if (!equalBytes(keyBlock.generator, this.o.minerKey.publicKey)) return [];
    const round: Round = {
      height,
      ctx: chain.txContext(height, keyBlock.timestamp, height > 1 ? chain.timestampAt(height - 1) : undefined, keyBlock.generator),
      state: new MutableState(chain.state()),
      out: [],
      stopped: false,
    };
    // One lane per contract, in pool order; lanes run side by side (the executor caps them at contracts-parallelism).
    const lanes = new Map<string, Transaction[]>();
    for (const tx of candidates) {
      const key = encodeBase58(tx.type === 103 ? tx.id : ((tx.data as { contractId: Uint8Array }).contractId));
      const lane = lanes.get(key);
      if (lane === undefined) lanes.set(key, [tx]);
      else lane.push(tx);
    }
    const settled = await Promise.allSettled([...lanes.values()].map((lane) => this.runLane(lane, round, stop)));
    for (const s of settled) if (s.status === 'rejected') throw s.reason;
    return round.out;
  }

  /** The calls of one contract, one after another; each 105 is applied to the round's state (and listed) as it is made. */
  private async runLane(lane: readonly Transaction[], round: Round, stop: () => boolean): Promise<void> {
    const { chain, executor, pool } = this.o;
    const { state, out, ctx, height } = round;
    const gate = this.o.validation;
    const header = gate === undefined ? undefined : chain.headerAt(height);
    const keyBlock = header === undefined ? undefined : { id: header.id, timestamp: header.timestamp, height };
    for (const tx of lane) {
      if (round.stopped || (out.length > 0 && stop())) return;
      // The pool may have dropped it (a key block re-validated it away) while earlier ones ran.
      if (pool.get(tx.id) === undefined || state.executedTxFor(tx.id) !== undefined) continue;
      // Not yet enough validators' results: this contract's later calls wait behind it.
      if (gate !== undefined && keyBlock !== undefined && !gate.ready(tx, state, keyBlock)) return;
      const confidential = this.o.confidential?.prepare(tx, state);
      if (confidential?.kind === 'skip') {
        this.o.log?.debug({ id: tx.idBase58, reason: confidential.reason }, 'confidential call not executed here now');
        continue;
      }
      const inputs = confidential?.kind === 'confidential' ? { params: confidential.input.entries, view: confidential.view } : { view: state };
      const started = performance.now();
      const result = await executor.execute(tx, { blockInfo: this.o.node.lastBlockInfo(), ...inputs });
      this.o.observer?.executed((performance.now() - started) / 1000);
      if (round.stopped) return;
      let validationProofs: readonly ValidationProof[] = [];
      if (gate !== undefined && keyBlock !== undefined) {
        const verdict = gate.proofs(tx, result, state, keyBlock);
        if (verdict.kind === 'wait') {
          // WE: "Suddenly not enough proofs" — the transaction stays for another round.
          this.o.log?.debug({ id: tx.idBase58, reason: verdict.reason }, 'contract transaction waits for validators');
          return;
        }
        if (verdict.kind === 'refused') {
          this.record(tx.id, { status: 'Failure', code: null, message: verdict.message });
          pool.remove(tx.id);
          continue;
        }
        validationProofs = verdict.proofs;
      }
      const buildContext = {
        protocol: chain.protocol,
        isFeatureActive: (id: number) => chain.features.isActive(id, height),
        miner: this.o.minerKey,
        timestamp: this.o.now(),
        validationProofs,
      };
      const built =
        confidential?.kind === 'confidential' ? this.o.confidential!.build(tx, result, confidential.input, buildContext) : buildExecutedContract(tx, result, buildContext);
      if (built.status !== undefined) this.record(tx.id, built.status);
      if (built.kind === 'none') {
        this.o.log?.debug({ id: tx.idBase58, reason: built.reason, staysInPool: built.staysInPool }, 'contract transaction not executed');
        if (!built.staysInPool) pool.remove(tx.id);
        continue;
      }
      try {
        applyTransaction(state, built.executed, ctx, { verifySignature: false });
        out.push(built.executed);
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
  }

  private record(txId: Uint8Array, status: StatusDraft): void {
    this.o.statuses.record(txId, status);
    this.o.observer?.recorded(status.status);
  }

  /** After a micro-block of this node: the executed transactions it mined are `Success`. */
  mined(included: readonly Transaction[]): void {
    for (const tx of included) {
      if (!ExecutedContract.is(tx)) continue;
      const code = tx.version === 5 ? tx.data.statusCode : 0;
      if (code === 0 || code === undefined) this.record(tx.data.tx.id, { status: 'Success', code: null, message: SUCCESS_MINED_MESSAGE });
    }
  }
}
