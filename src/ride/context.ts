/**
 * WE's RIDE contexts (SmartContractV1Utils, NodeBlockchainContext): for each script
 * version and for account or asset scripts, the types a script can name, the global
 * values, and the functions — pure, crypto, Waves, in WE's order — plus the estimator's
 * cost table (reference ride.md §2, §3, §5, §8).
 */
import { estimate, EstimatorError } from './estimator.js';
import { headerKey, type FunctionHeader } from './expr.js';
import { contextFunctions, type FunctionDef } from './library.js';
import { scalaMapKeyOrder } from './scala.js';
import { BOOLEAN, BYTEVECTOR, LONG, STRING, union, UNIT, type Final, type Real, type Type } from './types.js';
import { ACCOUNT_TYPES, ADDRESS, ALIAS, ASSET_PAIR, DATA_ENTRY, ORDER_TYPE, TOKEN_TYPES, TRANSFER, type WavesTypes } from './we-types.js';

export type ScriptVersion = 1 | 2;

/** A type a script can name after `case x:` (CompilerContext.predefTypes). */
export type DefinedType =
  | { readonly kind: 'case'; readonly name: string; readonly type: Real & { k: 'CASE' } }
  | { readonly kind: 'union'; readonly name: string; readonly types: readonly Real[] }
  | { readonly kind: 'simple'; readonly name: string; readonly type: Final };

/** DefinedType.typeRef. */
export function typeRef(d: DefinedType): Final {
  return d.kind === 'union' ? union(d.types) : d.type;
}

/** One signature of a function name, as the compiler sees it. */
export interface Signature {
  readonly params: ReadonlyArray<readonly [string, Type]>;
  readonly result: Type;
  readonly header: FunctionHeader;
}

/** Everything the compiler needs from a context (lang CompilerContext). */
export interface CompilerContext {
  /** Type names in Scala Map iteration order (WE lists them in that order). */
  readonly predefTypes: ReadonlyMap<string, DefinedType>;
  readonly varDefs: ReadonlyMap<string, Final>;
  /** Functions by name, signatures in WE's order (without the case-type constructors). */
  readonly functionDefs: ReadonlyMap<string, readonly Signature[]>;
}

/** The context of one script kind: its types, globals and functions. */
export interface RideContext extends CompilerContext {
  readonly version: ScriptVersion;
  /** Asset (token) script: transactions without `proofs`, `tx` one of six types. */
  readonly token: boolean;
  readonly waves: WavesTypes;
  readonly functions: readonly FunctionDef[];
  /** The type of `tx`. */
  readonly txType: Final;
}

const caseDef = (t: Real): DefinedType => {
  if (t.k !== 'CASE') throw new Error('not a case type');
  return { kind: 'case', name: t.name, type: t };
};

/** PureContext's types, then the Waves context's (buildWavesTypes). */
function definedTypes(waves: WavesTypes): DefinedType[] {
  return [
    { kind: 'simple', name: 'Unit', type: UNIT },
    { kind: 'simple', name: 'Int', type: LONG },
    { kind: 'simple', name: 'Boolean', type: BOOLEAN },
    { kind: 'simple', name: 'ByteVector', type: BYTEVECTOR },
    { kind: 'simple', name: 'String', type: STRING },
    caseDef(ADDRESS),
    caseDef(ALIAS),
    caseDef(TRANSFER),
    caseDef(ASSET_PAIR),
    caseDef(DATA_ENTRY),
    caseDef(waves.order),
    { kind: 'union', name: 'Transaction', types: waves.active },
    caseDef(waves.genesis),
    caseDef(waves.payment),
    ...waves.active.map(caseDef),
  ];
}

/** A Scala Map of these entries (later keys replace earlier ones), in Scala's iteration order. */
function scalaMap<V>(entries: ReadonlyArray<readonly [string, V]>): Map<string, V> {
  const merged = new Map<string, V>();
  for (const [k, v] of entries) merged.set(k, v);
  const order = scalaMapKeyOrder([...merged.keys()]);
  return new Map(order.map((k) => [k, merged.get(k)!]));
}

export const signatureOf = (f: FunctionDef): Signature => ({
  params: f.params,
  result: f.result,
  header: f.kind === 'native' ? { native: f.id } : { user: f.internal },
});

/** CompilerContext.functionDefs: signatures grouped by name, in the functions' order. */
export function signaturesByName(functions: readonly FunctionDef[]): Map<string, Signature[]> {
  const byName = new Map<string, Signature[]>();
  for (const f of functions) {
    const l = byName.get(f.name);
    if (l === undefined) byName.set(f.name, [signatureOf(f)]);
    else l.push(signatureOf(f));
  }
  return byName;
}

/** Builds the context of a script version and kind; `chainId` goes into the address functions' bodies. */
export function buildContext(version: ScriptVersion, token: boolean, chainId: number): RideContext {
  const waves = token ? TOKEN_TYPES : ACCOUNT_TYPES;
  const types = definedTypes(waves);
  const txType = union(token ? waves.assetSupported : [waves.order, ...waves.active]);
  const vars: Array<[string, Final]> = [
    ['unit', UNIT],
    ['height', LONG],
    ['tx', txType],
  ];
  if (version === 2) vars.push(['Sell', ORDER_TYPE], ['Buy', ORDER_TYPE]);
  const functions = contextFunctions(waves, chainId);
  return {
    version,
    token,
    waves,
    functions,
    txType,
    predefTypes: scalaMap(types.map((t) => [t.name, t] as const)),
    varDefs: scalaMap(vars),
    functionDefs: signaturesByName(functions),
  };
}

// ---------------------------------------------------------------------------
// The estimator's table

/** The global values the estimator declares for a script version (varNames of the account context). */
export const DECLARED_VALS: Readonly<Record<ScriptVersion, readonly string[]>> = {
  1: ['unit', 'height', 'tx'],
  2: ['unit', 'height', 'tx', 'Sell', 'Buy'],
};

/**
 * SmartContractV1Utils.functionCosts: natives by their cost, case-type constructors by
 * their field count (account context, with proofs), user functions by the estimate of
 * their body (global values and parameters declared) + 5 per parameter.
 */
function buildFunctionCosts(): ReadonlyMap<string, number> {
  const context = buildContext(2, false, 0);
  const costs = new Map<string, number>();
  for (const t of context.predefTypes.values()) if (t.kind === 'case') costs.set(headerKey({ user: t.name }), t.type.fields.length);
  const users: Array<FunctionDef & { kind: 'user' }> = [];
  for (const f of context.functions) {
    if (f.kind === 'native') costs.set(headerKey({ native: f.id }), f.cost);
    else users.push(f);
  }
  // WE costs bodies lazily; bodies call each other out of list order (isDefined → != → !),
  // so cost what can be costed until everything is.
  let pending = users;
  while (pending.length > 0) {
    const next = pending.filter((f) => {
      const params = f.params.map(([p]) => p);
      try {
        costs.set(headerKey({ user: f.internal }), estimate(f.body, [...context.varDefs.keys(), ...params], costs) + 5 * params.length);
        return false;
      } catch (e) {
        if (e instanceof EstimatorError) return true;
        throw e;
      }
    });
    if (next.length === pending.length) throw new Error(`context functions call unknown functions: ${next.map((f) => f.internal).join(', ')}`);
    pending = next;
  }
  return costs;
}

export const FUNCTION_COSTS: ReadonlyMap<string, number> = buildFunctionCosts();

/** The cost WE assigns to a function (undefined when WE has no such function). */
export function functionCost(h: FunctionHeader): number | undefined {
  return FUNCTION_COSTS.get(headerKey(h));
}

/** The complexity limit: 20 × sigVerify's cost, as ScriptV1 computes it. */
export const MAX_SCRIPT_COMPLEXITY = 20 * functionCost({ native: 500 })!;
