/**
 * Reading a JSON request body against its TypeBox schema the way WE's Play `Reads` do:
 * every problem is collected with its JSON path (`obj.rollbackTo`) and Play's message
 * (`error.path.missing`, `error.expected.jsnumber`, `error.expected.int`, …), and the
 * whole lot is WE's error 1 (WrongJson) with `validationErrors`.
 *
 * Supported schema shapes: objects (required = non-Optional properties; extra members are
 * ignored as Play ignores them), integers (`format: int32` → Int, `int64` → Long as
 * bigint), numbers, booleans, strings, arrays, and `X | null` unions (Play's Option).
 */
import type { TSchema } from '@sinclair/typebox';
import { INT64 } from '../protocol/bytes.js';
import { type JsonPathError, wrongJson } from '../errors/catalogue.js';

interface SchemaNode {
  type?: string | string[];
  format?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  anyOf?: SchemaNode[];
}

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;

/** Reads `value` (parsed JSON) as `schema`; throws WE's WrongJson listing every problem. */
export function readBody(schema: TSchema, value: unknown): unknown {
  const errors: JsonPathError[] = [];
  const result = read(schema as SchemaNode, value, 'obj', errors);
  if (errors.length > 0) throw wrongJson(errors);
  return result;
}

function fail(errors: JsonPathError[], path: string, message: string): undefined {
  errors.push({ path, messages: [message] });
  return undefined;
}

function isNullable(s: SchemaNode): SchemaNode | undefined {
  if (s.anyOf === undefined || s.anyOf.length !== 2) return undefined;
  const [a, b] = s.anyOf as [SchemaNode, SchemaNode];
  if (a.type === 'null') return b;
  if (b.type === 'null') return a;
  return undefined;
}

function read(s: SchemaNode, v: unknown, path: string, errors: JsonPathError[]): unknown {
  const inner = isNullable(s);
  if (inner !== undefined) return v === null || v === undefined ? null : read(inner, v, path, errors);
  if (v === undefined) return fail(errors, path, 'error.path.missing');
  switch (s.type) {
    case 'object': {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(errors, path, 'error.expected.jsobject');
      const o = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      const required = new Set(s.required ?? []);
      for (const [key, prop] of Object.entries(s.properties ?? {})) {
        const item = o[key];
        if (item === undefined && !required.has(key)) continue;
        out[key] = read(prop, item, `${path}.${key}`, errors);
      }
      return out;
    }
    case 'array': {
      if (!Array.isArray(v)) return fail(errors, path, 'error.expected.jsarray');
      return v.map((item, i) => read(s.items ?? {}, item, `${path}[${i}]`, errors));
    }
    case 'integer': {
      if (typeof v !== 'number' && typeof v !== 'bigint') return fail(errors, path, 'error.expected.jsnumber');
      const long = s.format === 'int64';
      const message = long ? 'error.expected.long' : 'error.expected.int';
      if (typeof v === 'number' && !Number.isInteger(v)) return fail(errors, path, message);
      const n = BigInt(v);
      const [min, max] = long ? [INT64.MIN, INT64.MAX] : [INT32_MIN, INT32_MAX];
      if (n < min || n > max) return fail(errors, path, message);
      return long ? n : Number(n);
    }
    case 'number':
      if (typeof v !== 'number' && typeof v !== 'bigint') return fail(errors, path, 'error.expected.jsnumber');
      return v;
    case 'boolean':
      return typeof v === 'boolean' ? v : fail(errors, path, 'error.expected.jsboolean');
    case 'string':
      return typeof v === 'string' ? v : fail(errors, path, 'error.expected.jsstring');
    default:
      return v;
  }
}
