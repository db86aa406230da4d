/**
 * lang `ScriptEstimator`: the complexity of an expression (reference ride.md §8), given
 * the names declared before it and the cost of every function by header key (see
 * context.ts for WE's table). Iterative, and bounded: WE's estimator can take exponential
 * time on scripts whose IF branches both re-evaluate the same lets (it would effectively
 * hang); Weft stops after MAX_ESTIMATOR_STEPS steps and reports the script as too complex.
 */
import { E, headerKey, headerToString, type Expr } from './expr.js';
import { InternalError } from '../errors/internal.js';

/** Weft's guard against estimator blow-up (see the module comment). */
export const MAX_ESTIMATOR_STEPS = 2_000_000;

/** An estimate WE refuses (undeclared name, unknown function), with WE's message. */
export class EstimatorError extends InternalError {}

/** The estimate took more than MAX_ESTIMATOR_STEPS steps (Weft's guard; WE would hang). */
export class EstimatorStepsExceeded extends InternalError {}

/** An immutable binding list; the newest binding of a name wins (Scala Map `+`). */
type Syms = { readonly name: string; readonly expr: Expr; readonly evaluated: boolean; readonly next: Syms } | null;

function lookup(syms: Syms, name: string, budget: { steps: number }): { expr: Expr; evaluated: boolean } | undefined {
  for (let s = syms; s !== null; s = s.next) {
    budget.steps++;
    if (s.name === name) return s;
  }
  return undefined;
}

type Frame =
  | { k: 'add'; n: number }
  | { k: 'ifTrue'; ifExpr: Extract<Expr, { t: 'IF' }> }
  | { k: 'ifFalse'; ifExpr: Extract<Expr, { t: 'IF' }>; condCost: number; condSyms: Syms }
  | { k: 'ifDone'; condCost: number; right: readonly [number, Syms] }
  | { k: 'call'; args: readonly Expr[]; index: number; acc: number };

/**
 * ScriptEstimator.apply: the complexity of `expr`, threading the symbol table exactly as
 * WE does (a let's value is estimated at its first reference; a block's let stays visible
 * to what follows it). Iterative.
 */
export function estimate(expr: Expr, declared: Iterable<string>, costs: ReadonlyMap<string, number>): number {
  let syms: Syms = null;
  for (const name of declared) syms = { name, expr: E.TRUE, evaluated: true, next: syms };
  const budget = { steps: 0 };
  const frames: Frame[] = [];
  let next: Expr | undefined = expr;
  let result: readonly [number, Syms] = [0, syms];
  for (;;) {
    if (next !== undefined) {
      if (++budget.steps > MAX_ESTIMATOR_STEPS) throw new EstimatorStepsExceeded(`estimation exceeds ${MAX_ESTIMATOR_STEPS} steps`);
      const e: Expr = next;
      next = undefined;
      switch (e.t) {
        case 'LONG':
        case 'BYTES':
        case 'STRING':
        case 'BOOLEAN':
          result = [1, syms];
          break;
        case 'GETTER':
          frames.push({ k: 'add', n: 2 });
          next = e.expr;
          continue;
        case 'BLOCK':
          syms = { name: e.name, expr: e.value, evaluated: false, next: syms };
          frames.push({ k: 'add', n: 5 });
          next = e.body;
          continue;
        case 'REF': {
          const entry = lookup(syms, e.key, budget);
          if (entry === undefined) throw new EstimatorError(`ScriptValidator: Undeclared variable '${e.key}'`);
          if (entry.evaluated) {
            result = [2, syms];
            break;
          }
          syms = { name: e.key, expr: entry.expr, evaluated: true, next: syms };
          frames.push({ k: 'add', n: 2 });
          next = entry.expr;
          continue;
        }
        case 'IF':
          frames.push({ k: 'ifTrue', ifExpr: e });
          next = e.cond;
          continue;
        case 'CALL': {
          const cost = costs.get(headerKey(e.fn));
          if (cost === undefined) throw new EstimatorError(`ScriptValidator: Unknown function '${headerToString(e.fn)}'`);
          if (e.args.length === 0) {
            result = [cost, syms];
            break;
          }
          frames.push({ k: 'call', args: e.args, index: 0, acc: cost });
          next = e.args[0];
          continue;
        }
      }
    }
    // `result` holds the (cost, syms) of the expression just finished.
    const f = frames.pop();
    if (f === undefined) return result[0];
    switch (f.k) {
      case 'add':
        result = [result[0] + f.n, result[1]];
        syms = result[1];
        break;
      case 'ifTrue':
        frames.push({ k: 'ifFalse', ifExpr: f.ifExpr, condCost: result[0], condSyms: result[1] });
        syms = result[1];
        next = f.ifExpr.ifTrue;
        break;
      case 'ifFalse':
        frames.push({ k: 'ifDone', condCost: f.condCost, right: result });
        syms = f.condSyms;
        next = f.ifExpr.ifFalse;
        break;
      case 'ifDone': {
        const body = f.right[0] > result[0] ? f.right : result;
        result = [f.condCost + body[0] + 1, body[1]];
        syms = result[1];
        break;
      }
      case 'call': {
        const acc = f.acc + result[0];
        syms = result[1];
        const index = f.index + 1;
        if (index < f.args.length) {
          frames.push({ k: 'call', args: f.args, index, acc });
          next = f.args[index];
        } else {
          result = [acc, syms];
        }
        break;
      }
    }
  }
}
