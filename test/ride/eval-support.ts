/**
 * Evaluation contexts like the ones WE's lang tests build (PureContext, CryptoContext, test
 * lets, functions and case types) and a runtime without a chain.
 */
import { createNamedHashes } from '../../src/crypto/hashes.js';
import { createCryptoSuite } from '../../src/crypto/create-suite.js';
import { evaluate, type Evaluation, type EvaluationContext, type GlobalLet } from '../../src/ride/evaluator.js';
import { headerKey, type Expr } from '../../src/ride/expr.js';
import { cryptoFunctions, pureFunctions, type FunctionDef, type NativeRuntime } from '../../src/ride/library.js';
import type { Real } from '../../src/ride/types.js';
import { unit, type Value } from '../../src/ride/values.js';

export const waves = await createCryptoSuite('waves');
export const hashes = await createNamedHashes();
/** A runtime without a chain (WE's pure and crypto contexts). */
export const pureRuntime: NativeRuntime = { crypto: waves, hashes };

/** An EvaluationContext of PureContext (+ crypto, + extra lets, functions, case types). */
export function evaluationContext(
  o: { lets?: ReadonlyArray<readonly [string, GlobalLet]>; functions?: readonly FunctionDef[]; types?: readonly Real[]; crypto?: boolean; pure?: boolean } = {},
): EvaluationContext {
  const functions = new Map<string, FunctionDef>();
  const all = [...(o.pure === false ? [] : pureFunctions()), ...(o.crypto === true ? cryptoFunctions() : []), ...(o.functions ?? [])];
  for (const f of all) functions.set(headerKey(f.kind === 'native' ? { native: f.id } : { user: f.internal }), f);
  const caseTypes = new Map<string, Real & { k: 'CASE' }>();
  for (const t of o.types ?? []) if (t.k === 'CASE') caseTypes.set(t.name, t);
  return { functions, caseTypes, lets: new Map<string, GlobalLet>([...(o.pure === false ? [] : [['unit', { value: unit }] as const]), ...(o.lets ?? [])]) };
}

export function ev(expr: Expr, ctx: EvaluationContext = evaluationContext(), rt: NativeRuntime = pureRuntime): Evaluation {
  return evaluate(ctx, expr, rt);
}

/** The result of an evaluation: its value, or `{ error }`. */
export function result(e: Evaluation): Value | { error: string } {
  return 'error' in e.result ? { error: e.result.error } : e.result.value;
}
