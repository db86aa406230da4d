/**
 * The meeting point of running contracts and the transactions they execute (WE's
 * GrpcDockerContractExecutor bookkeeping):
 *
 * - connections: a runtime announces a connection id before it starts a contract; the
 *   first `Connect` stream with that id gets the work, later ones (SDK 1.0.14 opens three)
 *   are held open and not written to; an unknown id is refused. When the working stream
 *   ends, the connection is lost: its executions fail as recoverable and the runtime is
 *   told so it can drop the process or container.
 *
 *   Beyond WE: SDK 1.0.14 opens its three streams from three threads and only the main
 *   thread's serves; which one arrives first is a race, and a worker wins it now and then
 *   on a loaded machine — WE then times out every transaction of that container until it
 *   is dropped. Here a working stream is "proven" once an execution pushed on it is
 *   followed by a call with that execution's token; while it is not, an execution that
 *   times out moves the work to the next stream of the connection.
 * - executions: each push gets an execution id and a token binding it to its transaction
 *   and contract; reads made with that token see the execution's view; the commit must
 *   name the same transaction. A commit's error code is mapped as WE maps it.
 */
import type { DataEntry } from '../protocol/transactions/fields.js';
import type { CallContractTransaction, ContractAssetOperation, CreateContractTransaction } from '../protocol/transactions/contracts.js';
import { encodeBase58 } from '../crypto/encoding.js';
import { ContractExecutionException, FATAL_ERROR_CODE, NODE_FAILURE_CODE, RECOVERABLE_ERROR_CODE } from '../errors/catalogue.js';
import type { BlockInfo, ContractExecutionView } from './state.js';
import type { ContractTokens } from './tokens.js';
import type { ReadingsJournal } from './confidential/readings.js';
import { contractTransactionMessage } from './grpc/mapping.js';
import type { ContractTransaction } from '@wavesenterprise/js-contract-grpc-client/contract/contract_contract_service.js';

/** What is written on a Connect stream: WE's ContractTransactionResponse, block info included. */
export interface PushedTransaction {
  readonly transaction: ContractTransaction;
  readonly authToken: string;
  readonly currentBlockInfo: BlockInfo;
}

/** The server side of a Connect stream, as the broker needs it. */
export interface TransactionStream {
  push(message: PushedTransaction): void;
  /** Ends the stream (the contract sees it complete). */
  end(): void;
}

/** What a contract answered for one execution (before the executor turns it into a result). */
export type CommitOutcome =
  | { readonly kind: 'success'; readonly results: readonly DataEntry[]; readonly assetOperations: readonly ContractAssetOperation[] }
  | { readonly kind: 'error'; readonly code: number; readonly message: string };

export interface LiveExecution {
  readonly executionId: string;
  readonly txId: Uint8Array;
  readonly txIdBase58: string;
  readonly contractId: Uint8Array;
  readonly view: ContractExecutionView;
  /** Where the execution's reads are recorded (a confidential call). */
  readonly readings?: ReadingsJournal;
}

interface ExecutionEntry extends LiveExecution {
  readonly connectionId: string;
  /** The stream it was pushed on. */
  readonly stream: TransactionStream;
  settle(outcome: CommitOutcome | ContractExecutionException): void;
}

interface ConnectionEntry {
  readonly id: string;
  /** The working stream: it gets the pushes. */
  stream: TransactionStream | undefined;
  /** The other streams of the connection, in arrival order. */
  readonly held: TransactionStream[];
  /** A call followed a push on the working stream. */
  proven: boolean;
  waiter: { resolve: () => void; reject: (e: Error) => void } | undefined;
  /** Called once when the working stream ends. */
  readonly onLost: () => void;
  lost: boolean;
}

export interface ExecuteRequest {
  /** What a contract is pushed: a create or a call (an update runs no contract). */
  readonly tx: CreateContractTransaction | CallContractTransaction;
  readonly contractId: Uint8Array;
  /** Params pushed instead of the transaction's (confidential input). */
  readonly params?: readonly DataEntry[];
  readonly view: ContractExecutionView;
  readonly readings?: ReadingsJournal;
  readonly blockInfo: BlockInfo;
  readonly timeoutMs: number;
  /** Names the process or container in the timeout message. */
  readonly containerName: string;
}

export class ExecutionBroker {
  private readonly connections = new Map<string, ConnectionEntry>();
  private readonly executions = new Map<string, ExecutionEntry>();
  private nextExecutionId = 0;

  constructor(private readonly tokens: ContractTokens) {}

  /**
   * Announces a connection id a contract is about to connect with. Resolves once its first
   * Connect arrives; rejects when `forget` is called first. `onLost` runs once if the
   * working stream later ends.
   */
  expect(connectionId: string, onLost: () => void): Promise<void> {
    this.forget(connectionId);
    const entry: ConnectionEntry = { id: connectionId, stream: undefined, held: [], proven: false, waiter: undefined, onLost, lost: false };
    this.connections.set(connectionId, entry);
    return new Promise<void>((resolve, reject) => {
      entry.waiter = { resolve, reject };
    });
  }

  /** Whether a connection id has its working stream. */
  isConnected(connectionId: string): boolean {
    const c = this.connections.get(connectionId);
    return c !== undefined && c.stream !== undefined && !c.lost;
  }

  /** How many other streams of a connection id are held (open, never written to). */
  heldStreams(connectionId: string): number {
    return this.connections.get(connectionId)?.held.length ?? 0;
  }

  /**
   * A Connect stream arrived. `accepted`: it gets the work; `held`: another stream of a
   * connected id (kept open, never written to); `unknown`: no contract was started with it.
   */
  connect(connectionId: string, stream: TransactionStream): 'accepted' | 'held' | 'unknown' {
    const c = this.connections.get(connectionId);
    if (c === undefined || c.lost) return 'unknown';
    if (c.stream !== undefined) {
      c.held.push(stream);
      return 'held';
    }
    c.stream = stream;
    const waiter = c.waiter;
    c.waiter = undefined;
    waiter?.resolve();
    return 'accepted';
  }

  /** A Connect stream ended (the client went away or cancelled). */
  disconnected(connectionId: string, stream: TransactionStream): void {
    const c = this.connections.get(connectionId);
    if (c === undefined) return;
    const i = c.held.indexOf(stream);
    if (i >= 0) {
      c.held.splice(i, 1);
      return;
    }
    if (c.stream === stream) this.lose(c, 'Transaction stream is closed');
  }

  /** Drops a connection (the runtime stopped its contract): ends its streams, fails its executions. */
  forget(connectionId: string): void {
    const c = this.connections.get(connectionId);
    if (c === undefined) return;
    this.connections.delete(connectionId);
    c.lost = true;
    c.waiter?.reject(new ContractExecutionException(`Connection '${connectionId}' was dropped before the contract connected`, RECOVERABLE_ERROR_CODE));
    c.waiter = undefined;
    this.failExecutions(connectionId, 'Contract connection was dropped');
    for (const s of [c.stream, ...c.held]) s?.end();
  }

  private lose(c: ConnectionEntry, why: string): void {
    if (c.lost) return;
    c.lost = true;
    this.connections.delete(c.id);
    this.failExecutions(c.id, why);
    for (const s of c.held) s.end();
    c.onLost();
  }

  private failExecutions(connectionId: string, why: string): void {
    for (const e of [...this.executions.values()]) {
      if (e.connectionId !== connectionId) continue;
      this.executions.delete(e.executionId);
      e.settle(new ContractExecutionException(`${why} during the execution of transaction '${e.txIdBase58}'`, RECOVERABLE_ERROR_CODE));
    }
  }

  /**
   * Pushes a transaction to a connected contract and waits for its commit (or the
   * execution timeout, recoverable, as WE's "Contract '…' execution timeout").
   */
  async execute(connectionId: string, request: ExecuteRequest): Promise<CommitOutcome> {
    const c = this.connections.get(connectionId);
    if (c === undefined || c.stream === undefined || c.lost) {
      throw new ContractExecutionException(`Unknown connection id '${connectionId}'`, RECOVERABLE_ERROR_CODE);
    }
    const stream = c.stream;
    const executionId = String(++this.nextExecutionId);
    const contractIdBase58 = encodeBase58(request.contractId);
    const authToken = await this.tokens.executionToken({ txId: request.tx.idBase58, contractId: contractIdBase58, executionId });
    return new Promise<CommitOutcome>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.executions.delete(executionId)) return;
        this.rotateUnproven(c, stream);
        reject(
          new ContractExecutionException(`Contract '${contractIdBase58}' execution timeout, container '${request.containerName}'`, RECOVERABLE_ERROR_CODE),
        );
      }, request.timeoutMs);
      const entry: ExecutionEntry = {
        executionId,
        connectionId,
        stream,
        txId: request.tx.id,
        txIdBase58: request.tx.idBase58,
        contractId: request.contractId,
        view: request.view,
        ...(request.readings === undefined ? {} : { readings: request.readings }),
        settle: (outcome) => {
          clearTimeout(timer);
          if (outcome instanceof ContractExecutionException) reject(outcome);
          else resolve(outcome);
        },
      };
      this.executions.set(executionId, entry);
      try {
        stream.push({
          transaction: contractTransactionMessage(request.tx, request.contractId, request.params),
          authToken,
          currentBlockInfo: request.blockInfo,
        });
      } catch (e) {
        this.executions.delete(executionId);
        clearTimeout(timer);
        reject(new ContractExecutionException(`Stream failed to enqueue executable transaction '${request.tx.idBase58}'`, undefined, false, { cause: e }));
      }
    });
  }

  /** The execution a token names, while it runs; the call proves the stream it was pushed on. */
  execution(executionId: string): LiveExecution | undefined {
    const e = this.executions.get(executionId);
    if (e !== undefined) {
      const c = this.connections.get(e.connectionId);
      if (c !== undefined && c.stream === e.stream) c.proven = true;
    }
    return e;
  }

  /** An execution timed out on a stream nothing ever answered from: the next stream gets the work. */
  private rotateUnproven(c: ConnectionEntry, stream: TransactionStream): void {
    if (c.lost || c.proven || c.stream !== stream || c.held.length === 0) return;
    c.held.push(stream);
    c.stream = c.held.shift();
  }

  /**
   * A contract's commit (WE's commitExecution): the execution must be live and be for
   * `txIdBase58`. Error codes: 1 → recoverable failure; 0 and 2 → error 2; any other n →
   * error n with WE's ". Unknown contract execution error code 'n'" appended.
   */
  commit(executionId: string, txIdBase58: string, outcome: CommitOutcome): void {
    const e = this.executions.get(executionId);
    if (e === undefined) throw new ContractExecutionException(`Transaction execution is not found for executionId '${executionId}' and txId '${txIdBase58}'`);
    if (e.txIdBase58 !== txIdBase58) throw new ContractExecutionException(`Execution result is not for txId '${e.txIdBase58}'`);
    this.executions.delete(executionId);
    if (outcome.kind === 'success') {
      e.settle(outcome);
      return;
    }
    switch (outcome.code) {
      case RECOVERABLE_ERROR_CODE:
        e.settle(new ContractExecutionException(outcome.message, RECOVERABLE_ERROR_CODE));
        return;
      case FATAL_ERROR_CODE:
      case NODE_FAILURE_CODE:
        e.settle({ kind: 'error', code: NODE_FAILURE_CODE, message: outcome.message });
        return;
      default:
        e.settle({ kind: 'error', code: outcome.code, message: `${outcome.message}. Unknown contract execution error code '${outcome.code}'` });
    }
  }

  /** Ends every stream (node shutdown). */
  close(): void {
    for (const id of [...this.connections.keys()]) this.forget(id);
  }
}
