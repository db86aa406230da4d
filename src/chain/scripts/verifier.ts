/**
 * Running scripts where WE runs them (we-node Verifier and ScriptRunner; reference
 * ride.md §10): a transaction from a scripted account is verified by the account script
 * instead of its signature, every asset the transaction checks runs its asset script,
 * an Exchange runs the matcher's script, each order sender's script and the pair's asset
 * scripts. A script answering FALSE rejects with 307, a failing script with 306 — both
 * with the transaction, the script text and the forced lets as WE renders them.
 *
 * The chain layer reaches state through ScriptState (one StateView read per method) and
 * keeps its own signature checks, which it hands in as SignatureChecks.
 */
import { createNamedHashes, type NamedHashes } from '../../crypto/hashes.js';
import type { Protocol } from '../../protocol/protocol.js';
import { Data, type DataTransaction } from '../../protocol/transactions/data.js';
import { Exchange, orderObject, type ExchangeTransaction, type Order } from '../../protocol/transactions/exchange.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import { rideBindingFor, rulesFor } from '../../state/appliers/index.js';
import { buildContext, type RideContext, type ScriptVersion } from '../../ride/context.js';
import { WavesEnvironment, type RideEnvironment } from '../../ride/environment.js';
import { UncaughtError } from '../../ride/errors.js';
import { evaluate, type EvaluationContext, type GlobalLet, type LogEntry } from '../../ride/evaluator.js';
import { headerKey } from '../../ride/expr.js';
import type { FunctionDef, NativeRuntime } from '../../ride/library.js';
import { readScript, type Script } from '../../ride/script.js';
import { scriptText } from '../../ride/script-text.js';
import type { Real } from '../../ride/types.js';
import { CaseObj, valueText, type Value } from '../../ride/values.js';
import { BUY, SELL, type WavesTypes } from '../../ride/we-types.js';
import { genericError, ScriptRejection, scriptExecutionError, transactionNotAllowedByScript, WeError, type ScriptVar } from '../../errors/catalogue.js';

/**
 * State reads of the verifier, at the state the transaction is validated on: what a script
 * reads (RideEnvironment, with stored transactions as the protocol's) plus the scripts.
 */
export interface ScriptReads extends Omit<RideEnvironment, 'transactionById'> {
  /** A confirmed transaction by id (the store's transaction index). */
  transactionById(id: Uint8Array): Transaction | undefined;
}

/** State reads of the verifier: what a script reads plus the scripts themselves. */
export interface ScriptState extends ScriptReads {
  /** The account script of an address (StateView.accountScript). */
  accountScript(address: Uint8Array): Uint8Array | null;
  /** The script of an asset, null for a plain asset or an unknown id (StateView.asset(id)?.script). */
  assetScript(assetId: Uint8Array): Uint8Array | null;
}

/** The chain's signature checks, called where WE checks a signature instead of a script. */
export interface SignatureChecks {
  /** Verifier.verifyAsEllipticCurveSignature of the transaction's sender (exactly one proof). */
  senderSignature(tx: Transaction): void;
  /** The signature of an Exchange's order by its sender. */
  orderSignature(tx: ExchangeTransaction, order: Order): void;
  /** Data V1 signed by an author other than the sender: the author's proof. */
  dataAuthorSignature(tx: DataTransaction): void;
}

const who = (token: boolean): string => (token ? 'token' : 'account');

function varsOf(log: readonly LogEntry[]): ScriptVar[] {
  return log.map((e) => ('error' in e ? { name: e.name, error: e.error } : { name: e.name, value: valueText(e.value) }));
}

/** What a script runs on: a transaction, or an order of an Exchange. */
export type ScriptInput = { readonly tx: Transaction } | { readonly order: Order; readonly exchange: Transaction };

/** The outcome of one script run (ScriptRunner). */
export type ScriptOutcome =
  | { readonly kind: 'value'; readonly value: Value; readonly log: readonly LogEntry[] }
  | { readonly kind: 'error'; readonly error: string; readonly log: readonly LogEntry[] }
  | { readonly kind: 'uncaught'; readonly error: string };

interface PreparedContext {
  readonly context: RideContext;
  readonly functions: ReadonlyMap<string, FunctionDef>;
  readonly caseTypes: ReadonlyMap<string, Real & { k: 'CASE' }>;
}

const MAX_CACHED_SCRIPTS = 1024;

/** Runs scripts for one network (its crypto and chain id). Build once per node. */
export class ScriptVerifier {
  private readonly contexts = new Map<string, PreparedContext>();
  /** Parsed scripts by their bytes: state hands the same scripts again and again. */
  private readonly scripts = new Map<string, Script>();

  private constructor(
    readonly protocol: Protocol,
    private readonly hashes: NamedHashes,
  ) {}

  static async create(protocol: Protocol): Promise<ScriptVerifier> {
    return new ScriptVerifier(protocol, await createNamedHashes());
  }

  private prepared(version: ScriptVersion, token: boolean): PreparedContext {
    const key = `${version}${token ? 't' : 'a'}`;
    let p = this.contexts.get(key);
    if (p === undefined) {
      const context = buildContext(version, token, this.protocol.chainId);
      const functions = new Map<string, FunctionDef>();
      for (const f of context.functions) functions.set(headerKey(f.kind === 'native' ? { native: f.id } : { user: f.internal }), f);
      const caseTypes = new Map<string, Real & { k: 'CASE' }>();
      for (const t of context.predefTypes.values()) if (t.kind === 'case') caseTypes.set(t.name, t.type);
      p = { context, functions, caseTypes };
      this.contexts.set(key, p);
    }
    return p;
  }

  /** The script of stored bytes (read once, then cached). */
  script(bytes: Uint8Array): Script {
    const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    let s = this.scripts.get(key);
    if (s === undefined) {
      s = readScript(bytes, this.protocol);
      if (this.scripts.size >= MAX_CACHED_SCRIPTS) this.scripts.clear();
      this.scripts.set(key, s);
    }
    return s;
  }

  /** ScriptRunner: evaluates a script on a transaction or order. */
  run(script: Script, input: ScriptInput, state: ScriptReads, token: boolean): ScriptOutcome {
    const { context, functions, caseTypes } = this.prepared(script.version, token);
    const proofs = !token;
    const lets = new Map<string, GlobalLet>([
      ['unit', { value: CaseObj.of({ k: 'CASE', name: 'Unit', fields: [] }, []) }],
      ['height', { compute: () => BigInt(state.height()) }],
      ['tx', { compute: () => ('tx' in input ? transactionObject(input.tx, context.waves, proofs) : orderObject(input.order, input.exchange, context.waves)) }],
    ]);
    if (script.version === 2) {
      lets.set('Sell', { value: CaseObj.of(SELL, []) });
      lets.set('Buy', { value: CaseObj.of(BUY, []) });
    }
    const rt: NativeRuntime = {
      crypto: this.protocol.crypto,
      hashes: this.hashes,
      waves: {
        environment: new WavesEnvironment(
          {
            height: () => state.height(),
            balance: (address, assetId) => state.balance(address, assetId),
            aliasOwner: (name) => state.aliasOwner(name),
            dataEntry: (address, key) => state.dataEntry(address, key),
            transactionHeight: (id) => state.transactionHeight(id),
            transactionById: (id) => {
              const stored = state.transactionById(id);
              return stored === undefined ? undefined : transactionObject(stored, context.waves, proofs);
            },
          },
          this.protocol.addresses,
        ),
      },
    };
    const ctx: EvaluationContext = { functions, caseTypes, lets };
    try {
      const r = evaluate(ctx, script.expr, rt);
      return 'error' in r.result ? { kind: 'error', error: r.result.error, log: r.log } : { kind: 'value', value: r.result.value, log: r.log };
    } catch (e) {
      if (e instanceof UncaughtError) return { kind: 'uncaught', error: e.message };
      throw e;
    }
  }

  /**
   * Verifier.verifyTx: runs `scriptBytes` on the transaction; TRUE passes, anything else
   * rejects (306, 307, or WE's GenericError for a non-boolean result).
   */
  verifyTx(tx: Transaction, scriptBytes: Uint8Array, state: ScriptReads, token: boolean): void {
    const script = this.script(scriptBytes);
    const outcome = this.run(script, { tx }, state, token);
    this.judge(outcome, script, tx, token, `Uncaught execution error: `);
  }

  /** Verifier.verifyOrder: an order of an Exchange against its sender's account script. */
  verifyOrder(exchange: Transaction, order: Order, scriptBytes: Uint8Array, state: ScriptReads): void {
    const script = this.script(scriptBytes);
    const outcome = this.run(script, { order, exchange }, state, false);
    this.judge(outcome, script, exchange, false, 'Uncaught execution error: ');
  }

  private judge(outcome: ScriptOutcome, script: Script, tx: Transaction, token: boolean, uncaughtPrefix: string): void {
    const text = (): string => scriptText(script.expr);
    if (outcome.kind === 'uncaught') {
      throw scriptExecutionError(`Error while executing ${who(token)}-script: ${uncaughtPrefix}${outcome.error}`, tx.toJson(), text(), []);
    }
    if (outcome.kind === 'error') {
      throw scriptExecutionError(`Error while executing ${who(token)}-script: ${outcome.error}`, tx.toJson(), text(), varsOf(outcome.log));
    }
    if (outcome.value === true) return;
    if (outcome.value === false) {
      throw transactionNotAllowedByScript(`Transaction is not allowed by ${who(token)}-script`, tx.toJson(), text(), varsOf(outcome.log));
    }
    throw genericError(`Script returned not a boolean result, but ${valueText(outcome.value)}`);
  }

  /**
   * Verifier.apply for one transaction that is neither genesis nor an atomic container
   * (the chain checks the container and passes each inner transaction here): the sender's
   * account script or `checks.senderSignature`, then the asset scripts of the assets it touches (its family's `smartAssets`, WE's checkedAssets).
   */
  verify(tx: Transaction, state: ScriptState, checks: SignatureChecks): void {
    if (Exchange.is(tx)) {
      this.verifyExchange(tx, state, checks);
      return;
    }
    const sender = tx.sender;
    const script = sender === undefined ? null : state.accountScript(sender.bytes);
    if (script !== null) {
      if (Data.is(tx) && tx.version === 1 && isDataByAnotherAuthor(tx)) checks.dataAuthorSignature(tx);
      this.verifyTx(tx, script, state, false);
    } else {
      checks.senderSignature(tx);
    }
    // WE folds from the right: the last checked asset runs first.
    const assets = rulesFor(tx.type)?.smartAssets?.(tx) ?? [];
    for (let i = assets.length - 1; i >= 0; i--) {
      const assetScript = state.assetScript(assets[i]!);
      if (assetScript !== null) this.verifyTx(tx, assetScript, state, true);
    }
  }

  /** Verifier.verifyExchange: matcher, sell order, buy order, then the pair's asset scripts. */
  private verifyExchange(tx: ExchangeTransaction, state: ScriptState, checks: SignatureChecks): void {
    const d = tx.data;
    const matcherScript = state.accountScript(tx.sender!.bytes);
    if (matcherScript !== null) {
      if (tx.version === 1) throw genericError("Can't process transaction with signature from scripted account");
      this.verifyTx(tx, matcherScript, state, false);
    } else checks.senderSignature(tx);
    for (const order of [d.sellOrder, d.buyOrder]) {
      const orderScript = state.accountScript(this.protocol.addresses.fromPublicKey(order.senderPublicKey).bytes);
      if (orderScript !== null) {
        if (order.version === 1) throw genericError("Can't process order with signature from scripted account");
        this.verifyOrder(tx, order, orderScript, state);
      } else checks.orderSignature(tx, order);
    }
    for (const assetId of [d.buyOrder.amountAsset, d.buyOrder.priceAsset]) {
      if (assetId === null) continue;
      const assetScript = state.assetScript(assetId);
      if (assetScript === null) continue;
      try {
        this.verifyTx(tx, assetScript, state, true);
      } catch (e) {
        // verifyExchange turns any other refusal of an asset script into a 306 without vars.
        if (e instanceof ScriptRejection || !(e instanceof WeError)) throw e;
        throw scriptExecutionError(`Error while executing token-script: ${e.message}`, tx.toJson(), scriptText(this.script(assetScript).expr), []);
      }
    }
    // WE then runs the same asset scripts again through checkedAssets (the family's `smartAssets`): same scripts, same answers.
  }
}

function isDataByAnotherAuthor(tx: DataTransaction): boolean {
  return Buffer.compare(Buffer.from(tx.data.author), Buffer.from(tx.data.senderPublicKey)) !== 0;
}

/** The case object a script binds to a transaction (its type's RIDE binding); reading `tx` of a class WE binds to nothing fails uncaught (a scala.MatchError there). */
function transactionObject(tx: Transaction, types: WavesTypes, proofs: boolean): CaseObj {
  const bound = rideBindingFor(tx.type)?.(tx, { types, proofs });
  if (bound === undefined) {
    throw new UncaughtError(
      `scala.MatchError: ${tx.codec.name} transaction version ${tx.version} has no RIDE binding (of class ${tx.codec.name}TransactionV${tx.version})`,
    );
  }
  return bound;
}
