/**
 * Runs an executable transaction (103/104/107, any version) against the state it executes
 * on and says what came of it (WE's TransactionsExecutor.processSetup and the contract
 * executors under it). The engine is WE's selectExecutor's: a stored contract's engine
 * (103 V7, 107 V6), a call's `contractEngine` (104 V7), Docker for other creates and
 * updates, and the contract's own engine for other calls.
 *
 * Docker-protocol contracts run in the runtime the image is configured for (a local
 * process or Docker); the transaction is pushed on its stream and the contract's commit
 * awaited (`execution-limits.timeout`). WASM contracts run on the WASM engine's threads. An UpdateContract
 * runs nothing: the new image (or bytecode) is checked. Up to `contracts-parallelism`
 * executions run at once.
 */
import { CreateContract, UpdateContract, type ExecutableContractTransaction, type UpdateContractTransaction } from '../protocol/transactions/contracts.js';
import { encodeBase58 } from '../crypto/encoding.js';
import type { ExecutionBroker } from './broker.js';
import { ContractExecutionException, NODE_FAILURE_CODE, RECOVERABLE_ERROR_CODE } from '../errors/catalogue.js';
import { contractInfoAfterUpdate, contractInfoOfCreate, storedContractOf, type ContractInfo } from '../state/contract-info.js';
import type { ContractPackages } from './packages.js';
import type { ExecutionResult } from './result.js';
import type { ContainerKey, ContractRuntime } from './runtime.js';
import type { ContractExecutionView, ExecutionContext } from './state.js';

export type { ExecutionContext };
import type { WasmEngine } from './wasm/engine.js';

export interface ContractExecutorOptions {
  readonly broker: ExecutionBroker;
  readonly packages: ContractPackages;
  /** Runtimes by kind; an absent one cannot run images configured for it. */
  readonly runtimes: { readonly process?: ContractRuntime; readonly docker?: ContractRuntime };
  readonly wasm: WasmEngine;
  /** `execution-limits.timeout`. */
  readonly executionTimeoutMs: number;
  /** `contracts-parallelism`. */
  readonly parallelism: number;
}

const failure = (e: unknown): ExecutionResult => {
  if (e instanceof ContractExecutionException) return { kind: 'failure', code: e.code, message: e.message, fatal: e.fatal };
  return { kind: 'failure', code: undefined, message: e instanceof Error ? e.message : String(e), fatal: false };
};

/** At most `limit` holders at once; the others wait in order. */
class Slots {
  private used = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async hold<T>(f: () => Promise<T>): Promise<T> {
    if (this.used < this.limit) this.used++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await f();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.used--;
    }
  }

  get idle(): boolean {
    return this.used === 0;
  }

  /** Holders and waiters. */
  get load(): number {
    return this.used + this.waiting.length;
  }
}

export class ContractExecutor {
  private readonly slots: Slots;
  /** Executions in flight per running contract (image, hash and instance). */
  private readonly perContract = new Map<string, Slots>();

  constructor(private readonly options: ContractExecutorOptions) {
    this.slots = new Slots(options.parallelism);
  }

  /** The contract a transaction executes: a create's own, else the stored one (a 107 sees its new image). */
  contractOf(tx: ExecutableContractTransaction, view: ContractExecutionView): ContractInfo {
    if (CreateContract.is(tx)) {
      if (tx.version === 1) throw new ContractExecutionException('CreateContractTransactionV1 support was deleted as deprecated');
      return contractInfoOfCreate(tx);
    }
    const contractId = tx.data.contractId;
    const info = view.contract(contractId);
    if (info === undefined) throw new ContractExecutionException(`Contract '${encodeBase58(contractId)}' is not found`);
    return UpdateContract.is(tx) ? contractInfoAfterUpdate(tx, info) : info;
  }

  /** WE's selectExecutor. */
  engineOf(tx: ExecutableContractTransaction, view: ContractExecutionView): 'docker' | 'wasm' {
    // A create or update names its engine (a V7/V6's stored contract; Docker before); a call may name it.
    if (CreateContract.is(tx) || UpdateContract.is(tx)) return tx.data.storedContract?.engine ?? 'docker';
    const engine = tx.data.contractEngine;
    if (engine === 'wasm' || engine === 'docker') return engine;
    return this.contractOf(tx, view).storedContract.engine;
  }

  private runtimeFor(image: string): ContractRuntime {
    const kind = this.options.packages.runtimeFor(image);
    const runtime = kind === undefined ? undefined : this.options.runtimes[kind];
    if (runtime === undefined) {
      throw new ContractExecutionException(
        kind === undefined
          ? `Can't find image '${image}': no contract package is configured for it and the Docker engine is off`
          : `Image '${image}' is configured for the ${kind} runtime, which this node does not run`,
        undefined,
        true,
      );
    }
    return runtime;
  }

  private keyOf(info: ContractInfo): ContainerKey {
    const stored = info.storedContract;
    if (stored.engine !== 'docker') throw new ContractExecutionException('not a Docker contract');
    return { image: stored.image, imageHash: stored.imageHash };
  }

  /**
   * Whether the transaction can execute at once (WE's contractReady): WASM always; a
   * Docker create or call when its contract is connected. `prepare` starts it.
   */
  isReady(tx: ExecutableContractTransaction, view: ContractExecutionView): boolean {
    try {
      if (UpdateContract.is(tx) || this.engineOf(tx, view) === 'wasm') return true;
      const key = this.keyOf(this.contractOf(tx, view));
      return this.runtimeFor(key.image).isStarted(key);
    } catch {
      return true;
    }
  }

  /** Starts what the transaction needs (a Docker contract), without executing it. */
  async prepare(tx: ExecutableContractTransaction, view: ContractExecutionView): Promise<ExecutionResult | undefined> {
    try {
      if (UpdateContract.is(tx) || this.engineOf(tx, view) === 'wasm') return undefined;
      const key = this.keyOf(this.contractOf(tx, view));
      await this.runtimeFor(key.image).ensureStarted(key);
      return undefined;
    } catch (e) {
      return failure(e);
    }
  }

  /**
   * Calls of the contract `tx` executes that can run at once: one for WASM (its calls
   * read what the ones before them wrote) and updates; instances × max-in-flight for a Docker-protocol one.
   */
  callsAtOnce(tx: ExecutableContractTransaction, view: ContractExecutionView): number {
    try {
      if (UpdateContract.is(tx) || this.engineOf(tx, view) === 'wasm') return 1;
      const { image } = this.keyOf(this.contractOf(tx, view));
      return this.options.packages.instancesFor(image) * this.options.packages.maxInFlightFor(image);
    } catch {
      return 1;
    }
  }

  /** `contracts-parallelism`: executions at once, all contracts together. */
  get parallelism(): number {
    return this.options.parallelism;
  }

  /** Executes `tx`; never throws — every problem is a result with WE's code and message. */
  execute(tx: ExecutableContractTransaction, ctx: ExecutionContext): Promise<ExecutionResult> {
    return this.slots.hold(() => this.run(tx, ctx));
  }

  /**
   * The instance of `key` a call goes to: the least busy connected one, instance 0 while
   * none is. The others are started with it (a start in progress is shared).
   */
  private pickInstance(key: ContainerKey, runtime: ContractRuntime): number {
    const count = this.options.packages.instancesFor(key.image);
    let best = 0;
    let bestLoad = Number.POSITIVE_INFINITY;
    for (let i = 0; i < count; i++) {
      if (!runtime.isStarted(key, i)) {
        if (i > 0) runtime.ensureStarted(key, i).catch(() => undefined);
        continue;
      }
      const load = this.perContract.get(this.instanceId(key, i))?.load ?? 0;
      if (load < bestLoad) {
        best = i;
        bestLoad = load;
      }
    }
    return best;
  }

  private instanceId(key: ContainerKey, instance: number): string {
    return `${key.imageHash}|${key.image}#${instance}`;
  }

  /** Runs `f` within the in-flight limit of that instance of the contract of `key`. */
  private inFlight<T>(key: ContainerKey, instance: number, f: () => Promise<T>): Promise<T> {
    const id = this.instanceId(key, instance);
    let s = this.perContract.get(id);
    if (s === undefined) {
      s = new Slots(this.options.packages.maxInFlightFor(key.image));
      this.perContract.set(id, s);
    }
    const slots = s;
    return slots.hold(f).finally(() => {
      if (slots.idle) this.perContract.delete(id);
    });
  }

  private async run(tx: ExecutableContractTransaction, ctx: ExecutionContext): Promise<ExecutionResult> {
    let info: ContractInfo;
    let engine: 'docker' | 'wasm';
    try {
      info = this.contractOf(tx, ctx.view);
      engine = this.engineOf(tx, ctx.view);
    } catch (e) {
      return failure(e);
    }
    if (engine === 'wasm') return this.options.wasm.execute(tx, info, ctx);
    if (UpdateContract.is(tx)) return this.checkUpdate(tx);
    let key: ContainerKey;
    let runtime: ContractRuntime;
    let instance: number;
    try {
      key = this.keyOf(info);
      runtime = this.runtimeFor(key.image);
      instance = this.pickInstance(key, runtime);
    } catch (e) {
      return failure(e);
    }
    // The instance's slot is taken before anything is awaited: calls started together spread over the instances.
    return this.inFlight(key, instance, async (): Promise<ExecutionResult> => {
      let started;
      try {
        started = await runtime.ensureStarted(key, instance);
      } catch (e) {
        return failure(e);
      }
      try {
        const outcome = await this.options.broker.execute(started.connectionId, {
          tx,
          contractId: info.contractId,
          params: ctx.params,
          view: ctx.view,
          ...(ctx.readings === undefined ? {} : { readings: ctx.readings }),
          blockInfo: ctx.blockInfo,
          timeoutMs: this.options.executionTimeoutMs,
          containerName: started.name,
        });
        runtime.used(key, instance);
        if (outcome.kind === 'error') return outcome;
        return {
          kind: 'success',
          results: [{ contractId: info.contractId, results: outcome.results }],
          assetOperations: outcome.assetOperations.length === 0 ? [] : [{ contractId: info.contractId, operations: outcome.assetOperations }],
        };
      } catch (e) {
        // WE's executeTransaction recovery: a recoverable exception is error 1, anything else error 2.
        const code = e instanceof ContractExecutionException && e.code === RECOVERABLE_ERROR_CODE ? RECOVERABLE_ERROR_CODE : NODE_FAILURE_CODE;
        return { kind: 'error', code, message: e instanceof Error ? e.message : String(e) };
      }
    });
  }

  /** A Docker UpdateContract: the new image must resolve and match its hash (WE's inspectOrPullContract). */
  private async checkUpdate(tx: UpdateContractTransaction): Promise<ExecutionResult> {
    const stored = storedContractOf(tx);
    if (stored.engine !== 'docker') return failure(new ContractExecutionException('not a Docker update'));
    try {
      const runtime = this.runtimeFor(stored.image);
      await runtime.launcher.check({ image: stored.image, imageHash: stored.imageHash });
      return { kind: 'update' };
    } catch (e) {
      return failure(e);
    }
  }
}
