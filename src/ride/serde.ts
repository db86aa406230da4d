/**
 * lang `Serde`: the byte form of an expression inside a script (reference ride.md §1).
 * Both directions are iterative: an 8 KiB expression may nest thousands of levels deep.
 * Strings are written as Java writes them (`getBytes(UTF_8)`) and read as Java reads them.
 */
import { E, type Expr, type FunctionHeader } from './expr.js';
import { InternalError } from '../errors/internal.js';

const E_LONG = 0;
const E_BYTES = 1;
const E_STRING = 2;
const E_IF = 3;
const E_BLOCK = 4;
const E_REF = 5;
const E_TRUE = 6;
const E_FALSE = 7;
const E_GETTER = 8;
const E_FUNCALL = 9;
const FH_NATIVE = 0;
const FH_USER = 1;

// ---------------------------------------------------------------------------
// Serde

const utf8Decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const textEncoder = new TextEncoder();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Java's `String.getBytes(UTF_8)`: a lone surrogate becomes '?'. */
export function javaUtf8(s: string): Uint8Array {
  return textEncoder.encode(s.replace(LONE_SURROGATE, '?'));
}

/** Java's `new String(bytes, UTF_8)`: malformed sequences become U+FFFD, a BOM is kept. */
export function javaString(bytes: Uint8Array): string {
  return utf8Decoder.decode(bytes);
}

const utf8Encoder = { encode: javaUtf8 };

/** A Serde failure, with the message WE's exception carries (`null` for a buffer underflow). */
export class SerdeError extends InternalError {}

/** java.nio.ByteBuffer reads, failing as Java does. */
class JavaBuffer {
  pos = 0;
  private readonly view: DataView;

  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  private need(n: number): void {
    // BufferUnderflowException has no message: Serde reports `null`.
    if (this.remaining < n) throw new SerdeError('null');
  }

  get(): number {
    this.need(1);
    return this.view.getInt8(this.pos++);
  }

  getShort(): number {
    this.need(2);
    const v = this.view.getInt16(this.pos);
    this.pos += 2;
    return v;
  }

  getInt(): number {
    this.need(4);
    const v = this.view.getInt32(this.pos);
    this.pos += 4;
    return v;
  }

  getLong(): bigint {
    this.need(8);
    const v = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return v;
  }

  getBytes(): Uint8Array {
    const len = this.getInt();
    // Serde compares with the buffer's limit (its whole size), not with what is left.
    if (this.buf.length < len || len < 0) throw new SerdeError(`Invalid array size (${len})`);
    this.need(len);
    const out = this.buf.slice(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  getString(): string {
    return utf8Decoder.decode(this.getBytes());
  }

  getFunctionHeader(): FunctionHeader {
    const kind = this.get();
    if (kind === FH_NATIVE) return { native: this.getShort() };
    if (kind === FH_USER) return { user: this.getString() };
    throw new SerdeError(`Unknown function header type: ${kind}`);
  }
}

type Pending =
  | { k: 'IF'; kids: Expr[] }
  | { k: 'BLOCK'; name: string; kids: Expr[] }
  | { k: 'GETTER'; kids: Expr[] }
  | { k: 'CALL'; fn: FunctionHeader; argc: number; kids: Expr[] };

function arity(p: Pending): number {
  switch (p.k) {
    case 'IF':
      return 3;
    case 'BLOCK':
      return 2;
    case 'GETTER':
      return 1;
    case 'CALL':
      return p.argc;
  }
}

/**
 * Serde.deserialize: one expression filling the whole buffer. Iterative (an 8 KiB
 * expression may nest thousands of levels deep); messages are WE's.
 */
export function deserializeExpr(bytes: Uint8Array): Expr {
  const bb = new JavaBuffer(bytes);
  const stack: Pending[] = [];
  let result: Expr | undefined;
  while (result === undefined) {
    const tag = bb.get();
    let value: Expr | undefined;
    switch (tag) {
      case E_LONG:
        value = { t: 'LONG', value: bb.getLong() };
        break;
      case E_BYTES:
        value = { t: 'BYTES', value: bb.getBytes() };
        break;
      case E_STRING:
        value = { t: 'STRING', value: bb.getString() };
        break;
      case E_IF:
        stack.push({ k: 'IF', kids: [] });
        break;
      case E_BLOCK:
        stack.push({ k: 'BLOCK', name: bb.getString(), kids: [] });
        break;
      case E_REF:
        value = { t: 'REF', key: bb.getString() };
        break;
      case E_TRUE:
        value = E.TRUE;
        break;
      case E_FALSE:
        value = E.FALSE;
        break;
      case E_GETTER:
        stack.push({ k: 'GETTER', kids: [] });
        break;
      case E_FUNCALL: {
        const fn = bb.getFunctionHeader();
        const argc = bb.getInt();
        // `1 to argc` is empty for argc ≤ 0.
        if (argc <= 0) value = { t: 'CALL', fn, args: [] };
        else stack.push({ k: 'CALL', fn, argc, kids: [] });
        break;
      }
      default:
        // A Scala MatchError on the boxed byte.
        throw new SerdeError(`${tag} (of class java.lang.Byte)`);
    }
    // Hand finished expressions up to the nodes waiting for them.
    while (value !== undefined) {
      const top = stack[stack.length - 1];
      if (top === undefined) {
        result = value;
        break;
      }
      top.kids.push(value);
      if (top.kids.length < arity(top)) {
        value = undefined;
        break;
      }
      stack.pop();
      value = complete(top, bb);
    }
  }
  if (bb.remaining > 0) throw new SerdeError(`${bb.remaining} bytes left`);
  return result;
}

function complete(p: Pending, bb: JavaBuffer): Expr {
  const [a, b, c] = p.kids as [Expr, Expr, Expr];
  switch (p.k) {
    case 'IF':
      return { t: 'IF', cond: a, ifTrue: b, ifFalse: c };
    case 'BLOCK':
      return { t: 'BLOCK', name: p.name, value: a, body: b };
    case 'GETTER':
      // The field name follows the object expression.
      return { t: 'GETTER', expr: a, field: bb.getString() };
    case 'CALL':
      return { t: 'CALL', fn: p.fn, args: p.kids };
  }
}

class Output {
  private chunks: number[] = [];
  private parts: Uint8Array[] = [];

  byte(v: number): void {
    this.chunks.push(v & 0xff);
  }

  number(v: bigint, n: number): void {
    for (let i = n - 1; i >= 0; i--) this.byte(Number((v >> BigInt(8 * i)) & 0xffn));
  }

  raw(b: Uint8Array): void {
    this.flush();
    this.parts.push(b);
  }

  sized(b: Uint8Array): void {
    this.number(BigInt(b.length), 4);
    this.raw(b);
  }

  private flush(): void {
    if (this.chunks.length > 0) {
      this.parts.push(Uint8Array.from(this.chunks));
      this.chunks = [];
    }
  }

  result(): Uint8Array {
    this.flush();
    const out = new Uint8Array(this.parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

/** Serde.serialize (iterative; strings as UTF-8). */
export function serializeExpr(expr: Expr): Uint8Array {
  const out = new Output();
  const todo: Array<Expr | { field: string }> = [expr];
  while (todo.length > 0) {
    const x = todo.pop()!;
    if (!('t' in x)) {
      out.sized(utf8Encoder.encode(x.field));
      continue;
    }
    switch (x.t) {
      case 'LONG':
        out.byte(E_LONG);
        out.number(BigInt.asUintN(64, x.value), 8);
        break;
      case 'BYTES':
        out.byte(E_BYTES);
        out.sized(x.value);
        break;
      case 'STRING':
        out.byte(E_STRING);
        out.sized(utf8Encoder.encode(x.value));
        break;
      case 'BOOLEAN':
        out.byte(x.value ? E_TRUE : E_FALSE);
        break;
      case 'IF':
        out.byte(E_IF);
        todo.push(x.ifFalse, x.ifTrue, x.cond);
        break;
      case 'BLOCK':
        out.byte(E_BLOCK);
        out.sized(utf8Encoder.encode(x.name));
        todo.push(x.body, x.value);
        break;
      case 'REF':
        out.byte(E_REF);
        out.sized(utf8Encoder.encode(x.key));
        break;
      case 'GETTER':
        out.byte(E_GETTER);
        todo.push({ field: x.field }, x.expr);
        break;
      case 'CALL':
        out.byte(E_FUNCALL);
        if ('native' in x.fn) {
          out.byte(FH_NATIVE);
          out.number(BigInt.asUintN(16, BigInt(x.fn.native)), 2);
        } else {
          out.byte(FH_USER);
          out.sized(utf8Encoder.encode(x.fn.user));
        }
        out.number(BigInt(x.args.length), 4);
        for (let i = x.args.length - 1; i >= 0; i--) todo.push(x.args[i]!);
        break;
    }
  }
  return out.result();
}
