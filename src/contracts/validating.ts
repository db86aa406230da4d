/**
 * Contract validators (WE's ValidatorTransactionsExecutor; reference contracts.md §1.8): a
 * node holding `contract_validator` at the last block, with feature 162 active and not the
 * miner of the current key block, executes the executable transactions of its pool whose
 * contract's policy is not `any` — the same engine, on the current liquid block, each
 * execution's own 105 (signed by this node, never mined) applied to its working state so
 * the next calls see it, as the miner's will — and signs the results hash of each as a
 * ContractValidatorResults message (validator-results.ts) sent to the peers. A round runs
 * when the pool admits an executable transaction and when the chain changes (a new key
 * block may make this node a validator or not; a mined 105 settles a contract that later
 * calls need); it validates the executable transactions still in the pool, oldest first,
 * kept aside as they arrive so no round sorts the whole pool. A round on the liquid block
 * of the last one carries on from its working state when the same transactions come first
 * (they are not executed again unless one of them failed). A (key block, transaction,
 * results hash) is sent once. Statuses of failed executions are recorded with WE's
 * "Validator error: " prefix.
 *
 * A confidential call is validated only by a group participant that holds its input and
 * the contract's outputs: it runs on the contract's confidential state with the input as
 * params, its reads journaled, keeps its output (unannounced) and sends a
 * ContractValidatorResultsV2 over the readings, readingsHash, outputCommitment and results
 * hash; a failed confidential execution sends nothing (WE's validator has no V2 for it).
 */
import type { Blockchain, ChainEvent } from '../chain/blockchain.js';
import type { UtxPool } from '../chain/utx.js';
import { applyOwnExecution } from '../chain/validation.js';
import { bytesKey, encodeBase58, equalBytes } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import { WeError } from '../errors/catalogue.js';
import { FEATURE } from '../protocol/features.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { isExecutableContract, type ExecutableContractTransaction } from '../protocol/transactions/contracts.js';
import { MutableState } from '../state/view.js';
import { knownPolicyOf, touchedPolicies } from './execution-policy.js';
import type { ContractExecutor } from './executor.js';
import { buildExecutedContract, isV5Executable, resultsHashOf, type ExecutionResult } from './result.js';
import type { ContractNodeContext } from './state.js';
import type { ExecutionStatusBook } from './statuses.js';
import { signValidatorResult, type ContractValidatorResult } from './validator-results.js';
import type { KeyBlockValidators } from './validator-set.js';
import type { ConfidentialExecution } from './confidential/execution.js';
import { ReadingsJournal } from './confidential/readings.js';

export interface ContractValidatingOptions {
  readonly chain: Blockchain;
  readonly pool: UtxPool;
  readonly executor: ContractExecutor;
  readonly statuses: ExecutionStatusBook;
  /** The node's key: it signs the results (and its own, unmined 105s). */
  readonly validatorKey: KeyPair;
  readonly node: ContractNodeContext;
  /** The validators of the current key block. */
  readonly validators: KeyBlockValidators;
  readonly now: () => bigint;
  /** Sends a signed result to the peers. */
  send(result: ContractValidatorResult): void;
  /** Executable transactions validated in one round at most. */
  readonly maxPerRound?: number;
  /** Confidential calls (confidential/execution.ts); absent: they are not validated. */
  readonly confidential?: ConfidentialExecution;
  readonly log?: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

const VALIDATOR_ERROR_PREFIX = 'Validator error: ';

export class ContractValidating {
  /** Sent under the current key block: `txId/resultsHash`. */
  private sent = new Set<string>();
  private sentUnder: string | undefined;
  /** The liquid block and candidates of the last round. */
  private lastSeen: string | undefined;
  /**
   * Where the last round that ran to its end stopped: its liquid block, the transactions it
   * went through in order, and its working state. A round on the same liquid block whose
   * first candidates are those carries on from there instead of executing them again.
   */
  private carried: { readonly liquid: string; readonly done: readonly string[]; readonly state: MutableState } | undefined;
  private running: Promise<number> | undefined;
  private again = false;
  /** Executable transactions the pool admitted, by id, in arrival order (those it no longer holds are dropped by the next round). */
  private readonly candidates = new Map<string, ExecutableContractTransaction>();

  constructor(private readonly o: ContractValidatingOptions) {}

  /** A transaction the pool admitted: an executable one is validated now. */
  admitted(tx: Transaction): void {
    if (!isExecutableContract(tx)) return;
    this.candidates.set(bytesKey(tx.id), tx);
    void this.trigger();
  }

  /** The chain changed: a round runs (after a rollback, on what the pool took back as well). */
  chainChanged(event: ChainEvent): void {
    if (event.kind === 'rollback') {
      this.carried = undefined;
      this.collectFromPool();
    }
    void this.trigger();
  }

  /** Takes the executable transactions the pool holds (when validation starts, and after a rollback returned some without admitting them anew). */
  collectFromPool(): void {
    for (const tx of this.o.pool.all()) if (isExecutableContract(tx)) this.candidates.set(bytesKey(tx.id), tx);
  }

  /** Up to `maxPerRound` candidates still in the pool, oldest first (ties in arrival order, as the pool orders them). */
  private roundCandidates(): ExecutableContractTransaction[] {
    const held: ExecutableContractTransaction[] = [];
    for (const [key, tx] of this.candidates) {
      if (this.o.pool.get(tx.id) === undefined) this.candidates.delete(key);
      else held.push(tx);
    }
    held.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
    return held.slice(0, this.o.maxPerRound ?? 100);
  }

  /** Runs a round now, or right after the one running; resolves with the results it sent. */
  trigger(): Promise<number> {
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    this.running = this.round()
      .catch((e: unknown) => {
        this.o.log?.warn({ err: e }, 'contract validation round failed');
        return 0;
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          void this.trigger();
        }
      });
    return this.running;
  }

  /** Whether this node validates on the current key block: a validator, not its miner, with feature 162. */
  private validatesNow(height: number): boolean {
    const { chain } = this.o;
    if (height < 2 || !chain.features.isActive(FEATURE.CONTRACT_VALIDATIONS, height)) return false;
    const keyBlock = chain.headerAt(height);
    if (equalBytes(keyBlock.generator, this.o.validatorKey.publicKey)) return false;
    return this.o.validators.holds(this.o.validatorKey.publicKey);
  }

  private async round(): Promise<number> {
    const { chain, executor } = this.o;
    const height = chain.height();
    if (!this.validatesNow(height)) return 0;
    const keyBlock = chain.headerAt(height);
    const under = encodeBase58(keyBlock.id);
    if (under !== this.sentUnder) {
      this.sent = new Set();
      this.sentUnder = under;
    }
    // Its own 105s apply as if it mined them (WE's validator accumulator).
    const ctx = chain.txContext(height, keyBlock.timestamp, height > 1 ? chain.timestampAt(height - 1) : undefined, this.o.validatorKey.publicKey);
    const candidates = this.roundCandidates();
    // Nothing changed since the last round (same liquid block, same transactions): nothing to run again.
    const liquid = encodeBase58(chain.lastBlock().id);
    const seen = `${liquid}:${candidates.map((tx) => tx.idBase58).join(',')}`;
    if (seen === this.lastSeen) return 0;
    this.lastSeen = seen;
    const carried = this.carried?.liquid === liquid && this.carried.done.every((id, i) => candidates[i]?.idBase58 === id) ? this.carried : undefined;
    this.carried = undefined;
    const state = carried?.state ?? new MutableState(chain.state());
    const done = [...(carried?.done ?? [])];
    // A failed execution (a contract not started, a timeout) is tried again by the next round, not carried past.
    let carriable = true;
    let sent = 0;
    for (const tx of candidates.slice(done.length)) {
      if (!equalBytes(chain.headerAt(chain.height()).id, keyBlock.id)) return sent;
      done.push(tx.idBase58);
      // A V5 (WASM-era) execution may touch other contracts whose policy is stricter: it is run, and judged after.
      if (state.executedTxFor(tx.id) !== undefined || !(this.policyIsNotAny(tx, state) || isV5Executable(tx))) continue;
      const prepared = this.o.confidential?.prepare(tx, state);
      if (prepared !== undefined && prepared.kind !== 'plain' && prepared.kind !== 'confidential') continue;
      const confidential = prepared?.kind === 'confidential' ? prepared : undefined;
      const journal = confidential === undefined ? undefined : new ReadingsJournal(chain.protocol);
      const result = await executor.execute(tx, {
        view: confidential?.view ?? state,
        blockInfo: this.o.node.lastBlockInfo(),
        ...(confidential === undefined ? {} : { params: confidential.input.entries, readings: journal }),
      });
      if (result.kind === 'failure') carriable = false;
      const buildContext = {
        protocol: chain.protocol,
        isFeatureActive: (id: number) => chain.features.isActive(id, height),
        miner: this.o.validatorKey,
        timestamp: this.o.now(),
      };
      const confidentialResults = confidential === undefined ? undefined : this.o.confidential!.resultsOf(result, confidential.input, journal?.result());
      const built =
        confidential === undefined
          ? buildExecutedContract(tx, result, buildContext)
          : this.o.confidential!.build(tx, result, confidential.input, buildContext, confidentialResults, false);
      const hash =
        built.kind === 'built' && (confidential === undefined || confidentialResults !== undefined) ? resultsHashOf(chain.protocol, tx, result) : undefined;
      const key = `${tx.idBase58}/${hash === undefined ? '-' : encodeBase58(hash)}`;
      const first = !this.sent.has(key);
      this.sent.add(key);
      if (first && built.status !== undefined && built.status.status !== 'Success') {
        this.o.statuses.record(tx.id, { ...built.status, message: VALIDATOR_ERROR_PREFIX + built.status.message });
      }
      if (built.kind === 'none' || hash === undefined) continue;
      try {
        applyOwnExecution(state, built.executed, ctx);
      } catch (e) {
        if (!(e instanceof WeError)) throw e;
        this.o.log?.debug({ id: tx.idBase58, error: e.message }, 'validator: executed transaction refused by state');
        continue;
      }
      if (!first || !this.resultsAreValidated(tx, result, state)) continue;
      this.o.send(signValidatorResult(chain.protocol, this.o.validatorKey, tx.id, keyBlock.id, hash, confidentialResults));
      sent++;
      this.o.log?.debug({ id: tx.idBase58, resultsHash: encodeBase58(hash) }, 'validator results sent');
    }
    if (carriable) this.carried = { liquid, done, state };
    return sent;
  }

  /** Whether the miner will want proofs for this execution: the strictest policy of what it touched is not `any`. */
  private resultsAreValidated(tx: ExecutableContractTransaction, result: ExecutionResult, state: MutableState): boolean {
    return this.policyIsNotAny(tx, state) || touchedPolicies(state, result).some((p) => p.type !== 'any');
  }

  /** WE's validationPolicyIsNotAny (a contract not known yet is left for a later round). */
  private policyIsNotAny(tx: ExecutableContractTransaction, state: MutableState): boolean {
    return (knownPolicyOf(state, tx)?.type ?? 'any') !== 'any';
  }
}
