/**
 * Compiler contexts like the ones WE's lang tests build (PureContext alone, or with test
 * types, variables and functions), and a helper to compare parsed trees.
 */
import { signaturesByName, type CompilerContext, type DefinedType } from '../../src/ride/context.js';
import { cryptoFunctions, pureFunctions, type FunctionDef } from '../../src/ride/library.js';
import type { PExpr, Part } from '../../src/ride/parser.js';
import { scalaMapKeyOrder } from '../../src/ride/scala.js';
import { BOOLEAN, BYTEVECTOR, LONG, STRING, UNIT, type Final, type Real } from '../../src/ride/types.js';

export const PURE_TYPES: readonly DefinedType[] = [
  { kind: 'simple', name: 'Unit', type: UNIT },
  { kind: 'simple', name: 'Int', type: LONG },
  { kind: 'simple', name: 'Boolean', type: BOOLEAN },
  { kind: 'simple', name: 'ByteVector', type: BYTEVECTOR },
  { kind: 'simple', name: 'String', type: STRING },
];

export const caseDef = (t: Real): DefinedType => {
  if (t.k !== 'CASE') throw new Error('not a case type');
  return { kind: 'case', name: t.name, type: t };
};

/** CTX.compilerContext of PureContext (+ crypto, + extra types, variables and functions), combined as WE's Monoid does. */
export function compilerContext(
  o: { types?: readonly DefinedType[]; vars?: ReadonlyArray<readonly [string, Final]>; functions?: readonly FunctionDef[]; crypto?: boolean } = {},
): CompilerContext {
  const types = [...PURE_TYPES, ...(o.types ?? [])];
  const order = scalaMapKeyOrder(types.map((t) => t.name));
  const byName = new Map(types.map((t) => [t.name, t]));
  const functions = [...pureFunctions(), ...(o.crypto === true ? cryptoFunctions() : []), ...(o.functions ?? [])];
  return {
    predefTypes: new Map(order.map((n) => [n, byName.get(n)!])),
    varDefs: new Map<string, Final>([['unit', UNIT], ...(o.vars ?? [])]),
    functionDefs: signaturesByName(functions),
  };
}

/** A parsed tree with positions dropped (WE's tests compare with AnyPos). */
export function shape(e: PExpr): unknown {
  const part = (p: Part<unknown>): unknown => (p.valid ? p.v : { invalid: p.message });
  switch (e.t) {
    case 'CONST_LONG':
      return e.value;
    case 'CONST_STRING':
    case 'CONST_BYTEVECTOR':
      return { [e.t]: part(e.value) };
    case 'TRUE':
      return true;
    case 'FALSE':
      return false;
    case 'REF':
      return { REF: part(e.key) };
    case 'GETTER':
      return { GETTER: [shape(e.ref), part(e.field)] };
    case 'BINARY_OP':
      return [shape(e.a), e.op, shape(e.b)];
    case 'BLOCK':
      return { LET: [part(e.let.name), shape(e.let.value)], BODY: shape(e.body) };
    case 'IF':
      return { IF: [shape(e.cond), shape(e.ifTrue), shape(e.ifFalse)] };
    case 'FUNCTION_CALL':
      return { CALL: part(e.name), ARGS: e.args.map(shape) };
    case 'MATCH':
      return { MATCH: shape(e.expr), CASES: e.cases.map((c) => [c.newVarName === undefined ? '_' : part(c.newVarName), c.types.map(part), shape(c.expr)]) };
    case 'INVALID':
      return { INVALID: e.message };
  }
}
