/**
 * WE's RIDE evaluator (lang `EvaluatorV1`, reference ride.md §9): lets are lazy and
 * memoized (value or error), IF runs one branch, calls are strict (arguments left to
 * right, then the function), user functions run in the caller's scope plus their
 * parameters, a `User(name)` header with no function but a case type builds a case
 * object. Forced lets are logged in the order they complete — WE's `vars`.
 *
 * The machine is an explicit stack, never JS recursion: any nesting depth is evaluated
 * without touching the JS stack, and a step budget bounds the run (a script that passed
 * the estimator's 2000 stays far below it) so an evaluation always ends.
 */
import { ExecutionError, notImplemented, UncaughtError } from './errors.js';
import { headerKey, headerToString, type Expr } from './expr.js';
import type { FunctionDef, NativeRuntime } from './library.js';
import type { Real } from './types.js';
import { CaseObj, valueKind, type Value } from './values.js';

/** A global value: known, computed on first use (memoized per run), or failing. */
export type GlobalLet = { readonly value: Value } | { readonly compute: () => Value };

/** What an evaluation runs in (lang EvaluationContext). */
export interface EvaluationContext {
  /** Functions by header key (see expr.ts headerKey). */
  readonly functions: ReadonlyMap<string, FunctionDef>;
  /** Case types by name: what a `User(name)` header without a function constructs. */
  readonly caseTypes: ReadonlyMap<string, Real & { k: 'CASE' }>;
  readonly lets: ReadonlyMap<string, GlobalLet>;
}

/** One forced let (or user-function argument, as `(arg)<name>`), as WE logs it. */
export type LogEntry = { readonly name: string; readonly value: Value } | { readonly name: string; readonly error: string };

export interface Evaluation {
  readonly log: readonly LogEntry[];
  readonly result: { readonly value: Value } | { readonly error: string };
}

/** Weft's bound on one evaluation (machine steps); see the module comment. */
export const MAX_EVALUATION_STEPS = 5_000_000;

interface Cell {
  state: 'pending' | 'running' | 'done' | 'failed';
  readonly name: string;
  readonly expr: Expr | undefined;
  readonly scope: Scope;
  value: Value | undefined;
  error: string | undefined;
  /** Arguments are logged when first read, lets when computed. */
  readonly isArgument: boolean;
  logged: boolean;
}

type Scope = { readonly name: string; readonly cell: Cell; readonly next: Scope } | null;

type Cont =
  | { readonly k: 'if'; readonly e: Extract<Expr, { t: 'IF' }>; readonly scope: Scope }
  | { readonly k: 'get'; readonly field: string }
  | { readonly k: 'force'; readonly cell: Cell }
  | { readonly k: 'args'; readonly e: Extract<Expr, { t: 'CALL' }>; readonly scope: Scope; readonly fn: Callee; readonly values: Value[] };

type Callee = { readonly kind: 'function'; readonly def: FunctionDef } | { readonly kind: 'constructor'; readonly type: Real & { k: 'CASE' } };

function classCastToCaseObj(v: Value): UncaughtError {
  const T = 'com.wavesenterprise.lang.v1.compiler.Terms$';
  return new UncaughtError(
    `java.lang.ClassCastException: class ${T}${valueKind(v)} cannot be cast to class ${T}CaseObj (${T}${valueKind(v)} and ${T}CaseObj are in unnamed module of loader 'app')`,
  );
}

/**
 * Evaluates `expr`. Script failures (WE's Left) come back as `result.error` with the log;
 * what WE's JVM would not catch is thrown as UncaughtError.
 */
export function evaluate(ctx: EvaluationContext, expr: Expr, rt: NativeRuntime, maxSteps = MAX_EVALUATION_STEPS): Evaluation {
  const log: LogEntry[] = [];
  const globals = new Map<string, { value: Value } | { error: string }>();
  const conts: Cont[] = [];

  const global = (name: string): { value: Value } | { error: string } | undefined => {
    const known = globals.get(name);
    if (known !== undefined) return known;
    const g = ctx.lets.get(name);
    if (g === undefined) return undefined;
    let r: { value: Value } | { error: string };
    if ('value' in g) r = { value: g.value };
    else {
      try {
        r = { value: g.compute() };
      } catch (e) {
        if (!(e instanceof ExecutionError)) throw e;
        r = { error: e.message };
      }
    }
    globals.set(name, r);
    return r;
  };

  const lookup = (scope: Scope, name: string): Cell | undefined => {
    for (let s = scope; s !== null; s = s.next) if (s.name === name) return s.cell;
    return undefined;
  };

  const callee = (e: Extract<Expr, { t: 'CALL' }>): Callee | undefined => {
    const def = ctx.functions.get(headerKey(e.fn));
    if (def !== undefined) return { kind: 'function', def };
    if ('user' in e.fn) {
      const type = ctx.caseTypes.get(e.fn.user);
      if (type !== undefined) return { kind: 'constructor', type };
    }
    return undefined;
  };

  /** Fails the run: every let being forced records the error, innermost first. */
  const unwind = (error: string): Evaluation => {
    while (conts.length > 0) {
      const c = conts.pop()!;
      if (c.k === 'force') {
        c.cell.state = 'failed';
        c.cell.error = error;
        log.push({ name: c.cell.name, error });
      }
    }
    return { log, result: { error } };
  };

  let mode: 'eval' | 'ret' = 'eval';
  let current: Expr = expr;
  let scope: Scope = null;
  let val: Value = false;
  let steps = 0;

  for (;;) {
    if (++steps > maxSteps) return unwind(`Script evaluation exceeds ${maxSteps} steps`);
    try {
      if (mode === 'eval') {
        const e: Expr = current;
        switch (e.t) {
          case 'LONG':
          case 'BYTES':
          case 'STRING':
          case 'BOOLEAN':
            val = e.value;
            mode = 'ret';
            break;
          case 'IF':
            conts.push({ k: 'if', e, scope });
            current = e.cond;
            break;
          case 'BLOCK': {
            const cell: Cell = { state: 'pending', name: e.name, expr: e.value, scope, value: undefined, error: undefined, isArgument: false, logged: false };
            scope = { name: e.name, cell, next: scope };
            current = e.body;
            break;
          }
          case 'REF': {
            const cell = lookup(scope, e.key);
            if (cell === undefined) {
              const g = global(e.key);
              if (g === undefined) return unwind(`A definition of '${e.key}' not found`);
              if ('error' in g) return unwind(g.error);
              val = g.value;
              mode = 'ret';
              break;
            }
            if (cell.state === 'done') {
              val = cell.value!;
              if (cell.isArgument && !cell.logged) {
                cell.logged = true;
                log.push({ name: cell.name, value: val });
              }
              mode = 'ret';
            } else if (cell.state === 'failed') {
              return unwind(cell.error!);
            } else if (cell.state === 'running') {
              // Unreachable for trees WE builds: a let's value sees only older scopes.
              throw new UncaughtError(`java.lang.IllegalStateException: let '${cell.name}' refers to itself`);
            } else {
              cell.state = 'running';
              conts.push({ k: 'force', cell });
              current = cell.expr!;
              scope = cell.scope;
            }
            break;
          }
          case 'GETTER':
            conts.push({ k: 'get', field: e.field });
            current = e.expr;
            break;
          case 'CALL': {
            const fn = callee(e);
            if (fn === undefined) return unwind(`function '${headerToString(e.fn)}' not found`);
            if (e.args.length === 0) {
              ({ mode, current, scope, val } = apply(fn, [], scope, rt, current, val));
            } else {
              conts.push({ k: 'args', e, scope, fn, values: [] });
              current = e.args[0]!;
            }
            break;
          }
        }
        continue;
      }
      // Deliver `val` to the innermost continuation.
      const c = conts.pop();
      if (c === undefined) return { log, result: { value: val } };
      switch (c.k) {
        case 'if':
          if (val === true) current = c.e.ifTrue;
          else if (val === false) current = c.e.ifFalse;
          else throw notImplemented();
          scope = c.scope;
          mode = 'eval';
          break;
        case 'get': {
          if (!(val instanceof CaseObj)) throw classCastToCaseObj(val);
          const f = val.field(c.field);
          if (f === undefined) throw new UncaughtError(`java.util.NoSuchElementException: key not found: ${c.field}`);
          val = f;
          break;
        }
        case 'force':
          c.cell.state = 'done';
          c.cell.value = val;
          log.push({ name: c.cell.name, value: val });
          break;
        case 'args':
          c.values.push(val);
          if (c.values.length < c.e.args.length) {
            conts.push(c);
            current = c.e.args[c.values.length]!;
            scope = c.scope;
            mode = 'eval';
          } else {
            ({ mode, current, scope, val } = apply(c.fn, c.values, c.scope, rt, current, val));
          }
          break;
      }
    } catch (e) {
      if (e instanceof ExecutionError) return unwind(e.message);
      throw e;
    }
  }
}

/** Calls a function or constructor with evaluated arguments: a value, or a body to evaluate next. */
function apply(
  fn: Callee,
  args: readonly Value[],
  callerScope: Scope,
  rt: NativeRuntime,
  current: Expr,
  val: Value,
): { mode: 'eval' | 'ret'; current: Expr; scope: Scope; val: Value } {
  if (fn.kind === 'constructor') {
    const names = fn.type.fields.map(([n]) => n);
    const n = Math.min(names.length, args.length);
    return {
      mode: 'ret',
      current,
      scope: callerScope,
      val: CaseObj.of(
        fn.type,
        names.slice(0, n).map((name, i) => [name, args[i]!] as const),
      ),
    };
  }
  const def = fn.def;
  if (def.kind === 'native') return { mode: 'ret', current, scope: callerScope, val: def.impl(args, rt) };
  let scope = callerScope;
  const n = Math.min(def.params.length, args.length);
  for (let i = 0; i < n; i++) {
    const name = def.params[i]![0];
    const cell: Cell = { state: 'done', name: `(arg)${name}`, expr: undefined, scope: null, value: args[i], error: undefined, isArgument: true, logged: false };
    scope = { name, cell, next: scope };
  }
  return { mode: 'eval', current: def.body, scope, val };
}
