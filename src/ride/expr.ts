/**
 * The compiled RIDE expression tree (lang `Terms.EXPR`): what script bytes hold, what the
 * compiler produces, what the estimator, the decompiler and the evaluator walk.
 */

export type FunctionHeader = { readonly native: number } | { readonly user: string };

export type Expr =
  | { readonly t: 'LONG'; readonly value: bigint }
  | { readonly t: 'BYTES'; readonly value: Uint8Array }
  | { readonly t: 'STRING'; readonly value: string }
  | { readonly t: 'BOOLEAN'; readonly value: boolean }
  | { readonly t: 'IF'; readonly cond: Expr; readonly ifTrue: Expr; readonly ifFalse: Expr }
  | { readonly t: 'BLOCK'; readonly name: string; readonly value: Expr; readonly body: Expr }
  | { readonly t: 'REF'; readonly key: string }
  | { readonly t: 'GETTER'; readonly expr: Expr; readonly field: string }
  | { readonly t: 'CALL'; readonly fn: FunctionHeader; readonly args: readonly Expr[] };

/** Small constructors, for tests and the built-in function bodies. */
export const E = {
  long: (value: bigint | number): Expr => ({ t: 'LONG', value: BigInt(value) }),
  bytes: (value: Uint8Array | readonly number[]): Expr => ({ t: 'BYTES', value: Uint8Array.from(value) }),
  str: (value: string): Expr => ({ t: 'STRING', value }),
  bool: (value: boolean): Expr => ({ t: 'BOOLEAN', value }),
  TRUE: { t: 'BOOLEAN', value: true } as Expr,
  FALSE: { t: 'BOOLEAN', value: false } as Expr,
  if: (cond: Expr, ifTrue: Expr, ifFalse: Expr): Expr => ({ t: 'IF', cond, ifTrue, ifFalse }),
  block: (name: string, value: Expr, body: Expr): Expr => ({ t: 'BLOCK', name, value, body }),
  ref: (key: string): Expr => ({ t: 'REF', key }),
  getter: (expr: Expr, field: string): Expr => ({ t: 'GETTER', expr, field }),
  native: (id: number, ...args: Expr[]): Expr => ({ t: 'CALL', fn: { native: id }, args }),
  user: (name: string, ...args: Expr[]): Expr => ({ t: 'CALL', fn: { user: name }, args }),
};

/** Scala's `FunctionHeader.toString`: `Native(100)`, `User(throw)`. */
export function headerToString(h: FunctionHeader): string {
  return 'native' in h ? `Native(${h.native})` : `User(${h.user})`;
}

/** A map key of a header. */
export const headerKey = (h: FunctionHeader): string => ('native' in h ? `n${h.native}` : `u${h.user}`);
