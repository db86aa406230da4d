/**
 * The text WE gives for a script (`scriptText` in `/addresses/scriptInfo`, asset details):
 * WE's ScriptV1 keeps `expr.toString`, the Scala case-class rendering of the expression
 * tree (lang Terms), e.g.
 *
 *     FUNCTION_CALL(Native(0),List(GETTER(REF(tx),fee), CONST_LONG(100)))
 *
 * Case classes print as `NAME(field,field)` (comma, no space), Scala lists as
 * `List(a, b)` (comma and space), booleans as `TRUE` / `FALSE`, strings bare, and byte
 * vectors as scodec's `ByteVector(<n> bytes, 0x<hex>)` — `ByteVector(empty)` when empty,
 * `ByteVector(<n> bytes, #<hashCode>)` from 512 bytes on, the hash being scodec's
 * MurmurHash3 over the bytes.
 */
import type { Expr, FunctionHeader } from './script.js';

const header = (h: FunctionHeader): string => ('native' in h ? `Native(${h.native})` : `User(${h.user})`);

/** Scala's `expr.toString` of a script expression. */
export function scriptText(expr: Expr): string {
  const out: string[] = [];
  // Iterative: expressions can nest deeper than the JS stack allows for recursion.
  const stack: Array<Expr | string> = [expr];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    switch (item.t) {
      case 'LONG':
        out.push(`CONST_LONG(${item.value})`);
        break;
      case 'BYTES':
        out.push(`CONST_BYTEVECTOR(${byteVectorText(item.value)})`);
        break;
      case 'STRING':
        out.push(`CONST_STRING(${item.value})`);
        break;
      case 'BOOLEAN':
        out.push(item.value ? 'TRUE' : 'FALSE');
        break;
      case 'REF':
        out.push(`REF(${item.key})`);
        break;
      case 'IF':
        stack.push(')', item.ifFalse, ',', item.ifTrue, ',', item.cond, 'IF(');
        break;
      case 'BLOCK':
        stack.push(')', item.body, '),', item.value, `BLOCK(LET(${item.name},`);
        break;
      case 'GETTER':
        stack.push(`,${item.field})`, item.expr, 'GETTER(');
        break;
      case 'CALL': {
        stack.push('))');
        for (let i = item.args.length - 1; i >= 0; i--) {
          stack.push(item.args[i]!);
          if (i > 0) stack.push(', ');
        }
        stack.push(`FUNCTION_CALL(${header(item.fn)},List(`);
        break;
      }
    }
  }
  return out.join('');
}

/** scodec-bits' `ByteVector.toString`. */
export function byteVectorText(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'ByteVector(empty)';
  if (bytes.length < 512) return `ByteVector(${bytes.length} bytes, 0x${Buffer.from(bytes).toString('hex')})`;
  return `ByteVector(${bytes.length} bytes, #${byteVectorHashCode(bytes)})`;
}

// --- Scala's MurmurHash3 (scala.util.hashing), as scodec's ByteVector.hashCode uses it

const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r));

function mixLast(h: number, k: number): number {
  let x = Math.imul(k, 0xcc9e2d51);
  x = rotl(x, 15);
  x = Math.imul(x, 0x1b873593);
  return h ^ x;
}

function mix(h: number, data: number): number {
  const x = rotl(mixLast(h, data), 13);
  return (Math.imul(x, 5) + 0xe6546b64) | 0;
}

function finalizeHash(h: number, length: number): number {
  let x = h ^ length;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x | 0;
}

const STRING_SEED = 0xf7ca7fd2 | 0;
const ARRAY_SEED = 0x3c074a61;

function stringHash(s: string): number {
  let h = STRING_SEED;
  let i = 0;
  for (; i + 1 < s.length; i += 2) h = mix(h, ((s.charCodeAt(i) << 16) + s.charCodeAt(i + 1)) | 0);
  if (i < s.length) h = mixLast(h, s.charCodeAt(i));
  return finalizeHash(h, s.length);
}

function bytesHash(data: Uint8Array): number {
  let h = ARRAY_SEED;
  let i = 0;
  for (; data.length - i >= 4; i += 4) h = mix(h, data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
  const rest = data.length - i;
  let k = 0;
  if (rest === 3) k ^= data[i + 2]! << 16;
  if (rest >= 2) k ^= data[i + 1]! << 8;
  if (rest >= 1) {
    k ^= data[i]!;
    h = mixLast(h, k);
  }
  return finalizeHash(h, data.length);
}

/** scodec's ByteVector.hashCode: chunks of 64 KiB mixed into a hash seeded with "ByteVector". */
export function byteVectorHashCode(bytes: Uint8Array): number {
  const chunk = 64 * 1024;
  let h = stringHash('ByteVector');
  for (let at = 0; at < bytes.length; at += chunk) h = mix(h, bytesHash(bytes.subarray(at, at + chunk)));
  return finalizeHash(h, bytes.length);
}
