/**
 * RIDE run-time values (lang `Terms.EVALUATED`): Int (bigint), ByteVector (Uint8Array),
 * String, Boolean, case objects and lists; WE's equality on them and their Scala
 * renderings, which WE puts in the `vars` of 306/307 errors.
 */
import { byteVectorText, scalaMapKeyOrder } from './scala.js';
import { typeEquals, type Real } from './types.js';

export type Value = bigint | boolean | string | Uint8Array | CaseObj | RideList;

/** A case object (CaseObj): its case type and its fields in the order Scala's Map iterates them. */
export class CaseObj {
  private readonly byName: ReadonlyMap<string, Value>;

  private constructor(
    readonly type: Real & { k: 'CASE' },
    /** Fields in Scala Map iteration order. */
    readonly fields: ReadonlyArray<readonly [string, Value]>,
  ) {
    this.byName = new Map(fields);
  }

  get typeName(): string {
    return this.type.name;
  }

  field(name: string): Value | undefined {
    return this.byName.get(name);
  }

  /**
   * A case object whose fields were put into a Scala immutable Map in this order
   * (later duplicates replace earlier values in place, as Map1–Map4 do).
   */
  static of(type: Real, fields: ReadonlyArray<readonly [string, Value]>): CaseObj {
    if (type.k !== 'CASE') throw new Error(`not a case type: ${type.k}`);
    const merged = new Map<string, Value>();
    for (const [k, v] of fields) merged.set(k, v);
    const order = merged.size <= 4 ? [...merged.keys()] : scalaMapKeyOrder([...merged.keys()]);
    return new CaseObj(
      type,
      order.map((k) => [k, merged.get(k)!] as const),
    );
  }
}

/** A list value (ARR). */
export class RideList {
  constructor(readonly items: readonly Value[]) {}
}

export const UNIT_TYPE: Real = { k: 'CASE', name: 'Unit', fields: [] };
export const unit: CaseObj = CaseObj.of(UNIT_TYPE, []);

export const isUnit = (v: Value): boolean => v instanceof CaseObj && v.typeName === 'Unit';

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Scala's `==` on EVALUATED: structural, including the case type. */
export function valueEquals(a: Value, b: Value): boolean {
  if (typeof a === 'bigint' || typeof a === 'boolean' || typeof a === 'string') return a === b;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && sameBytes(a, b);
  if (a instanceof CaseObj) {
    if (!(b instanceof CaseObj) || !typeEquals(a.type, b.type) || a.fields.length !== b.fields.length) return false;
    for (const [k, v] of a.fields) {
      const w = b.field(k);
      if (w === undefined || !valueEquals(v, w)) return false;
    }
    return true;
  }
  if (!(b instanceof RideList) || a.items.length !== b.items.length) return false;
  for (let i = 0; i < a.items.length; i++) if (!valueEquals(a.items[i]!, b.items[i]!)) return false;
  return true;
}

/** Scala's `toString` of an EVALUATED, as WE renders values in `vars`. */
export function valueText(v: Value): string {
  if (typeof v === 'bigint') return `CONST_LONG(${v})`;
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'string') return `CONST_STRING(${v})`;
  if (v instanceof Uint8Array) return `CONST_BYTEVECTOR(${byteVectorText(v)})`;
  if (v instanceof CaseObj) return `\n${v.typeName} {\n  ${v.fields.map(([k, x]) => `${k} -> ${valueText(x)}`).join(', ')}\n}\n     `;
  return `ARR(Vector(${v.items.map(valueText).join(', ')}))`;
}

/** The RIDE kind of a value, for messages about ill-typed trees. */
export function valueKind(v: Value): string {
  if (typeof v === 'bigint') return 'CONST_LONG';
  if (typeof v === 'boolean') return 'CONST_BOOLEAN';
  if (typeof v === 'string') return 'CONST_STRING';
  if (v instanceof Uint8Array) return 'CONST_BYTEVECTOR';
  if (v instanceof CaseObj) return 'CaseObj';
  return 'ARR';
}
