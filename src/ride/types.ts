/**
 * RIDE's compile-time types (lang `Types`, `TypeInferrer`): the final types values have,
 * the parameterized types of function signatures, their Scala renderings (which appear
 * in WE's error messages), unions, the common type of two branches, and inference of a
 * call's type parameters.
 */
import { javaStringHashCode, productHash, scalaCollectionOrder, seqHash } from './scala.js';
import { InternalError } from '../errors/internal.js';

export type Real =
  | { readonly k: 'LONG' }
  | { readonly k: 'BYTEVECTOR' }
  | { readonly k: 'BOOLEAN' }
  | { readonly k: 'STRING' }
  | { readonly k: 'LIST'; readonly inner: Final }
  | { readonly k: 'CASE'; readonly name: string; readonly fields: ReadonlyArray<readonly [string, Final]> };

export type Final = Real | { readonly k: 'NOTHING' } | { readonly k: 'UNION'; readonly l: readonly Real[] };

/** Types that appear only in function signatures. */
export type Parameterized =
  { readonly k: 'TYPEPARAM'; readonly char: number } | { readonly k: 'PLIST'; readonly t: Type } | { readonly k: 'PUNION'; readonly l: readonly Type[] };

export type Type = Final | Parameterized;

export const NOTHING: Final = { k: 'NOTHING' };
export const LONG: Real = { k: 'LONG' };
export const BYTEVECTOR: Real = { k: 'BYTEVECTOR' };
export const BOOLEAN: Real = { k: 'BOOLEAN' };
export const STRING: Real = { k: 'STRING' };
export const list = (inner: Final): Real => ({ k: 'LIST', inner });
export const caseType = (name: string, fields: ReadonlyArray<readonly [string, Final]>): Real => ({ k: 'CASE', name, fields });
export const UNIT: Real = caseType('Unit', []);
export const typeParam = (c: string): Parameterized => ({ k: 'TYPEPARAM', char: c.charCodeAt(0) });
export const T = typeParam('T');
export const plist = (t: Type): Parameterized => ({ k: 'PLIST', t });
export const punion = (...l: Type[]): Parameterized => ({ k: 'PUNION', l });

export const isReal = (t: Type): t is Real =>
  t.k === 'LONG' || t.k === 'BYTEVECTOR' || t.k === 'BOOLEAN' || t.k === 'STRING' || t.k === 'LIST' || t.k === 'CASE';
const isFinal = (t: Type): t is Final => isReal(t) || t.k === 'NOTHING' || t.k === 'UNION';
/** Scala's SINGLE: the real types and the parameterized singles (TYPEPARAM, PLIST). */
const isSingle = (t: Type): boolean => isReal(t) || t.k === 'TYPEPARAM' || t.k === 'PLIST';

// ---------------------------------------------------------------------------
// Renderings (Scala toString) and equality

const names = new WeakMap<object, string>();

/** The Scala `toString` of a type: `Int`, `LIST(ByteVector)`, `UNION(Address|Alias)`, `TYPEPARAM(84)`. */
export function typeName(t: Type): string {
  const known = names.get(t);
  if (known !== undefined) return known;
  let n: string;
  switch (t.k) {
    case 'NOTHING':
      n = 'Nothing';
      break;
    case 'LONG':
      n = 'Int';
      break;
    case 'BYTEVECTOR':
      n = 'ByteVector';
      break;
    case 'BOOLEAN':
      n = 'Boolean';
      break;
    case 'STRING':
      n = 'String';
      break;
    case 'LIST':
      n = `LIST(${typeName(t.inner)})`;
      break;
    case 'CASE':
      n = t.name;
      break;
    case 'UNION':
      n = `UNION(${t.l.map(typeName).sort(compareJavaStrings).join('|')})`;
      break;
    case 'TYPEPARAM':
      n = `TYPEPARAM(${t.char})`;
      break;
    case 'PLIST':
      n = `PARAMETERIZEDLIST(${typeName(t.t)})`;
      break;
    case 'PUNION':
      n = `PARAMETERIZEDUNION(List(${t.l.map(typeName).join(', ')}))`;
      break;
  }
  names.set(t, n);
  return n;
}

/** Java's String.compareTo (UTF-16 units), as Scala's `sortBy(_.toString)` orders. */
export function compareJavaStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const keys = new WeakMap<object, string>();

/** A structural key: equal keys ⇔ equal types (Scala case-class equality). */
function typeKey(t: Type): string {
  const known = keys.get(t);
  if (known !== undefined) return known;
  let key: string;
  switch (t.k) {
    case 'LIST':
      key = `L(${typeKey(t.inner)})`;
      break;
    case 'CASE':
      key = `C(${JSON.stringify(t.name)}:${t.fields.map(([f, ft]) => `${JSON.stringify(f)}=${typeKey(ft)}`).join(',')})`;
      break;
    case 'UNION':
      key = `U(${t.l.map(typeKey).join(',')})`;
      break;
    case 'TYPEPARAM':
      key = `T${t.char}`;
      break;
    case 'PLIST':
      key = `PL(${typeKey(t.t)})`;
      break;
    case 'PUNION':
      key = `PU(${t.l.map(typeKey).join(',')})`;
      break;
    default:
      key = t.k;
  }
  keys.set(t, key);
  return key;
}

export const typeEquals = (a: Type, b: Type): boolean => a === b || typeKey(a) === typeKey(b);

/** The Scala `##` of a type (needed where WE's type sets iterate in hash order). */
function typeHash(t: Type): number {
  switch (t.k) {
    case 'NOTHING':
    case 'LONG':
    case 'BYTEVECTOR':
    case 'BOOLEAN':
    case 'STRING':
      return javaStringHashCode(t.k);
    case 'LIST':
      return productHash('LIST', [typeHash(t.inner)]);
    case 'CASE':
      return productHash('CASETYPEREF', [
        javaStringHashCode(t.name),
        seqHash(t.fields.map(([f, ft]) => productHash('Tuple2', [javaStringHashCode(f), typeHash(ft)]))),
      ]);
    case 'UNION':
      return productHash('UNION', [seqHash(t.l.map(typeHash))]);
    case 'TYPEPARAM':
      return productHash('TYPEPARAM', [t.char]);
    case 'PLIST':
      return productHash('PARAMETERIZEDLIST', [typeHash(t.t)]);
    case 'PUNION':
      return productHash('PARAMETERIZEDUNION', [seqHash(t.l.map(typeHash))]);
  }
}

const contains = (l: readonly Real[], t: Type): boolean => l.some((x) => typeEquals(x, t));

/** Distinct elements in a Scala immutable Set's iteration order after adding them in order. */
function asScalaSet(items: readonly Real[]): Real[] {
  const distinct: Real[] = [];
  for (const x of items) if (!contains(distinct, x)) distinct.push(x);
  return scalaCollectionOrder(distinct, typeHash);
}

// ---------------------------------------------------------------------------
// Unions

/** The members of a final type (Scala's `.l`). */
export function members(t: Final): readonly Real[] {
  if (t.k === 'NOTHING') return [];
  if (t.k === 'UNION') return t.l;
  return [t];
}

/** UNION.create: flattens nested unions, drops Nothing; members keep their order (duplicates too). */
export function union(l: readonly Final[]): Final & { k: 'UNION' } {
  const out: Real[] = [];
  for (const t of l) {
    if (t.k === 'NOTHING') continue;
    if (t.k === 'UNION') out.push(...t.l);
    else out.push(t);
  }
  return { k: 'UNION', l: out };
}

/** `a equivalent b`: the same member sets. */
export function equivalent(a: Final, b: Final): boolean {
  const x = members(a);
  const y = members(b);
  return x.every((t) => contains(y, t)) && y.every((t) => contains(x, t));
}

/** `a >= b`: every member of b is a member of a; Nothing fits anything. */
export function covers(a: Final, b: Final): boolean {
  if (b.k === 'NOTHING') return true;
  if (a.k === 'NOTHING') return false;
  const big = members(a);
  return members(b).every((t) => contains(big, t));
}

/** TypeInferrer.findCommonType of two types (IF branches). */
export function commonType(t1: Final, t2: Final): Final {
  if (t2.k === 'NOTHING') return t1;
  if (t1.k === 'NOTHING') return t2;
  if (typeEquals(t1, t2)) return t1;
  if (t1.k === 'LIST' && t2.k === 'LIST') {
    const inner = commonType(t1.inner, t2.inner);
    if (inner.k === 'NOTHING') return NOTHING;
    if (inner.k === 'UNION') return { k: 'UNION', l: [t1, t2] };
    return list(inner);
  }
  if (t1.k === 'UNION' && t2.k === 'UNION') return union(asScalaSet([...t1.l, ...t2.l]));
  if (t1.k === 'UNION') return contains(t1.l, t2) ? t1 : union([...t1.l, t2]);
  if (t2.k === 'UNION') return contains(t2.l, t1) ? t2 : union([...t2.l, t1]);
  return union([t1, t2]);
}

/** TypeInferrer.findCommonType of a list (getter over a union): folded from the right. */
export function commonTypeOf(l: readonly Final[]): Final {
  if (l.length === 0) throw new ScalaMatchError('List() (of class scala.collection.immutable.Nil$)');
  let acc = l[l.length - 1]!;
  for (let i = l.length - 2; i >= 0; i--) acc = commonType(l[i]!, acc);
  return acc;
}

/** A JVM exception WE does not catch inside the compiler; its message becomes the compile error. */
export class ScalaMatchError extends InternalError {}

// ---------------------------------------------------------------------------
// TypeInferrer

type Resolved = Map<number, Final>;

function matchTypes(argType: Final, placeholder: Type, out: Array<{ tpe: Final; param: number }>): string | undefined {
  const err = (): string => `Non-matching types: expected: ${typeName(placeholder)}, actual: ${typeName(argType)}`;
  if (argType.k === 'NOTHING') return undefined;
  switch (placeholder.k) {
    case 'TYPEPARAM':
      out.push({ tpe: argType, param: placeholder.char });
      return undefined;
    case 'PLIST':
      return argType.k === 'LIST' ? matchTypes(argType.inner, placeholder.t, out) : err();
    case 'PUNION': {
      const concretes = union(placeholder.l.filter(isReal));
      const parameterized = placeholder.l.filter((t) => !isFinal(t));
      if (covers(concretes, union(members(argType)))) return undefined;
      if (parameterized.length !== 1) return `Can't resolve correct type for parameterized ${typeName(placeholder)}, actual: ${typeName(argType)}`;
      const rest: Final = argType.k === 'UNION' ? { k: 'UNION', l: argType.l.filter((t) => !contains(concretes.l, t)) } : argType;
      return matchTypes(rest, parameterized[0]!, out);
    }
    default:
      if (placeholder.k === 'LIST' && argType.k === 'LIST') return matchTypes(argType.inner, placeholder.inner, out);
      return covers(placeholder, union(members(argType))) ? undefined : err();
  }
}

/**
 * TypeInferrer.apply: binds the type parameters of a signature to the argument types, or
 * WE's message when the arguments do not fit.
 */
export function inferTypeParams(pairs: ReadonlyArray<readonly [Final, Type]>): { ok: Resolved } | { error: string } {
  const found: Array<{ tpe: Final; param: number }> = [];
  for (const [arg, placeholder] of pairs) {
    const problem = matchTypes(arg, placeholder, found);
    if (problem !== undefined) return { error: problem };
  }
  const byParam = new Map<number, Final[]>();
  for (const { tpe, param } of found) {
    const l = byParam.get(param);
    if (l === undefined) byParam.set(param, [tpe]);
    else l.push(tpe);
  }
  const resolved: Resolved = new Map();
  for (const [param, types] of byParam) {
    let t: Final;
    if (types.length === 1) t = types[0]!;
    else {
      let common = types[0]!;
      for (const x of types.slice(1)) common = commonType(common, x);
      if (common.k === 'UNION') {
        const exists = common.l.some((p) => types.every((e) => covers(e, p)));
        if (!exists) return { error: `Can't match inferred types of TYPEPARAM(${param}) over List(${types.map(typeName).join(', ')})` };
      }
      t = common;
    }
    resolved.set(param, t.k === 'UNION' && t.l.length === 1 ? t.l[0]! : t);
  }
  return { ok: resolved };
}

/** Types.toFinal: a signature's result type with its parameters substituted. */
export function toFinal(t: Type, resolved: Resolved): Final {
  switch (t.k) {
    case 'TYPEPARAM': {
      const r = resolved.get(t.char);
      // Scala's Map.apply on a missing key: the compiler does not catch it.
      if (r === undefined) throw new ScalaMatchError(`key not found: TYPEPARAM(${t.char})`);
      return r;
    }
    case 'PUNION':
      return union(t.l.map((x) => toFinal(x, resolved)));
    case 'PLIST':
      return list(toFinal(t.t, resolved));
    default:
      return t;
  }
}

export { isSingle };
