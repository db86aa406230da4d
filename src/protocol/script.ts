/**
 * RIDE scripts as the WE 1.14 node reads them (we-core ScriptReader, ScriptV1, lang Serde
 * and ScriptEstimator): every script field of a transaction goes through `readScript`.
 *
 * Bytes: version (1 or 2) ‖ expression (Serde) ‖ checksum, the checksum being the first
 * 4 bytes of secureHash(version ‖ expression). The reader checks, in WE's order:
 *   1. not empty                       → "Empty script"
 *   2. checksum                        → "Invalid checksum"
 *   3. version 1 or 2                  → "Invalid version: <signed byte>"
 *   4. expression ≤ 8192 bytes         → "Script is too large: <n> bytes > 8192 bytes"
 *   5. the expression deserializes, with no byte left over (messages as Serde's exceptions)
 *   6. the complexity estimator accepts it (every REF declared, every function known)
 *      and the complexity is at most 2000 (20 × sigVerify).
 * A failure is WE's ScriptParseError, which the REST layer renders with its Scala
 * `toString` under code 199: `ScriptParseError(Invalid checksum)`.
 *
 * WE never keeps the bytes it was given: it keeps the expression and serializes it again
 * (with a fresh checksum) whenever it needs the bytes. `Script.bytes` is that canonical
 * form; it differs from the input when a string held invalid UTF-8 or a call had a
 * negative argument count. Transaction bytes, ids and JSON use the canonical form.
 *
 * Not reproduced: WE's estimator can take exponential time on scripts whose IF branches
 * both re-evaluate the same lets (it would effectively hang); Weft stops after
 * MAX_ESTIMATOR_STEPS steps and reports the script as too complex.
 */
import type { Protocol } from './protocol.js';
import { scriptParseError } from '../errors/catalogue.js';

// ---------------------------------------------------------------------------
// Expressions (lang Terms.EXPR)

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

export function headerToString(h: FunctionHeader): string {
  return 'native' in h ? `Native(${h.native})` : `User(${h.user})`;
}

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
class SerdeError extends Error {}

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

// ---------------------------------------------------------------------------
// The complexity estimator (lang ScriptEstimator) and WE's function costs

/** Function ids of lang FunctionIds used by the built-in function bodies. */
const F = {
  EQ: 0,
  ISINSTANCEOF: 1,
  THROW: 2,
  SUB_LONG: 101,
  FRACTION: 107,
  SIZE_BYTES: 200,
  TAKE_BYTES: 201,
  DROP_BYTES: 202,
  SUM_BYTES: 203,
  TAKE_STRING: 303,
  DROP_STRING: 304,
  SIZE_STRING: 305,
  GET_LIST: 401,
  SECUREHASH: 504,
  FROMBASE58: 601,
  ACCOUNTASSETBALANCE: 1003,
} as const;

/** Native functions of PureContext, CryptoContext and WavesContext with their costs. */
const NATIVE_COSTS: ReadonlyArray<readonly [number, number]> = [
  // PureContext
  [F.EQ, 1],
  [F.ISINSTANCEOF, 1],
  [F.THROW, 1],
  [100, 1], // SUM_LONG
  [F.SUB_LONG, 1],
  [102, 1], // GT_LONG
  [103, 1], // GE_LONG
  [104, 1], // MUL_LONG
  [105, 1], // DIV_LONG
  [106, 1], // MOD_LONG
  [F.FRACTION, 1],
  [F.SIZE_BYTES, 1],
  [F.TAKE_BYTES, 1],
  [F.DROP_BYTES, 1],
  [F.SUM_BYTES, 10],
  [300, 10], // SUM_STRING
  [F.TAKE_STRING, 1],
  [F.DROP_STRING, 1],
  [F.SIZE_STRING, 1],
  [400, 2], // SIZE_LIST
  [F.GET_LIST, 2],
  [410, 1], // LONG_TO_BYTES
  [411, 1], // STRING_TO_BYTES
  [412, 1], // BOOLEAN_TO_BYTES
  [420, 1], // LONG_TO_STRING
  [421, 1], // BOOLEAN_TO_STRING
  // CryptoContext
  [500, 100], // SIGVERIFY
  [501, 10], // KECCAK256
  [502, 10], // BLAKE256
  [503, 10], // SHA256
  [F.SECUREHASH, 10],
  [600, 10], // TOBASE58
  [F.FROMBASE58, 10],
  [602, 10], // TOBASE64
  [603, 10], // FROMBASE64
  // WavesContext
  [1000, 100], // GETTRANSACTIONBYID
  [1001, 100], // TRANSACTIONHEIGHTBYID
  [F.ACCOUNTASSETBALANCE, 100],
  [1040, 10], // DATA_LONG_FROM_ARRAY
  [1041, 10],
  [1042, 10],
  [1043, 10],
  [1050, 100], // DATA_LONG_FROM_STATE
  [1051, 100],
  [1052, 100],
  [1053, 100],
  [1060, 100], // ADDRESSFROMRECIPIENT
];

/** Case types of WavesContext (proofs enabled): a constructor costs its field count. */
const CASE_TYPE_FIELDS: ReadonlyArray<readonly [string, number]> = [
  ['Address', 1],
  ['Alias', 1],
  ['Transfer', 2],
  ['AssetPair', 2],
  ['DataEntry', 2],
  ['Order', 13],
  ['GenesisTransaction', 6],
  ['PaymentTransaction', 10],
  ['ReissueTransaction', 11],
  ['BurnTransaction', 10],
  ['MassTransferTransaction', 14],
  ['ExchangeTransaction', 14],
  ['TransferTransaction', 13],
  ['SetAssetScriptTransaction', 10],
  ['CreateContractTransaction', 8],
  ['CallContractTransaction', 10],
  ['DisableContractTransaction', 9],
  ['UpdateContractTransaction', 9],
  ['IssueTransaction', 14],
  ['LeaseTransaction', 10],
  ['LeaseCancelTransaction', 9],
  ['CreateAliasTransaction', 9],
  ['SetScriptTransaction', 9],
  ['SponsorFeeTransaction', 10],
  ['DataTransaction', 9],
];

const { native: n, user: u, ref, long, str } = E;

const sizeSub = (size: number, xs: string, num: string): Expr => n(F.SUB_LONG, n(size, ref(xs)), ref(num));

const removePrefix = (s: Expr, prefix: string): Expr =>
  E.if(n(F.EQ, n(F.TAKE_STRING, s, long(prefix.length)), str(prefix)), n(F.DROP_STRING, s, long(prefix.length)), s);

const verifyChecksum = (a: Expr): Expr =>
  n(F.EQ, u('takeRightBytes', a, long(4)), n(F.TAKE_BYTES, n(F.SECUREHASH, u('dropRightBytes', a, long(4))), long(4)));

const byIndex = (name: string, typeName: string): readonly [string, readonly string[], Expr] => [
  name,
  ['@data', '@index'],
  E.block(
    '@val',
    E.getter(n(F.GET_LIST, ref('@data'), ref('@index')), 'value'),
    E.if(n(F.ISINSTANCEOF, ref('@val'), str(typeName)), ref('@val'), ref('unit')),
  ),
];

/**
 * User functions of the contexts: name, argument count and body. Their cost is the
 * estimate of the body (arguments and global vals declared) + 5 per argument. Constant
 * bytes in the bodies (chain id) do not affect costs, so one chain's bodies serve all.
 */
const USER_FUNCTIONS: ReadonlyArray<readonly [string, readonly string[], Expr]> = [
  ['!', ['@p'], E.if(n(F.EQ, ref('@p'), E.FALSE), E.TRUE, E.FALSE)],
  ['!=', ['@a', '@b'], u('!', n(F.EQ, ref('@a'), ref('@b')))],
  ['-', ['@n'], n(F.SUB_LONG, long(0), ref('@n'))],
  ['throw', [], n(F.THROW, str('Explicit script termination'))],
  ['extract', ['@a'], E.if(n(F.EQ, ref('@a'), ref('unit')), n(F.THROW, str('extract() called on unit value')), ref('@a'))],
  ['isDefined', ['@a'], u('!=', ref('@a'), ref('unit'))],
  ['dropRightBytes', ['@xs', '@number'], n(F.TAKE_BYTES, ref('@xs'), sizeSub(F.SIZE_BYTES, '@xs', '@number'))],
  ['takeRightBytes', ['@xs', '@number'], n(F.DROP_BYTES, ref('@xs'), sizeSub(F.SIZE_BYTES, '@xs', '@number'))],
  ['takeRight', ['@xs', '@number'], n(F.DROP_STRING, ref('@xs'), sizeSub(F.SIZE_STRING, '@xs', '@number'))],
  ['dropRight', ['@xs', '@number'], n(F.TAKE_STRING, ref('@xs'), sizeSub(F.SIZE_STRING, '@xs', '@number'))],
  byIndex('getInteger', 'Int'),
  byIndex('getBoolean', 'Boolean'),
  byIndex('getBinary', 'ByteVector'),
  byIndex('getString', 'String'),
  [
    'addressFromPublicKey',
    ['@publicKey'],
    u(
      'Address',
      E.block(
        '@afpk_withoutChecksum',
        n(F.SUM_BYTES, E.bytes([1, 0]), n(F.TAKE_BYTES, n(F.SECUREHASH, ref('@publicKey')), long(20))),
        n(F.SUM_BYTES, ref('@afpk_withoutChecksum'), n(F.TAKE_BYTES, n(F.SECUREHASH, ref('@afpk_withoutChecksum')), long(4))),
      ),
    ),
  ],
  [
    'addressFromString',
    ['@string'],
    E.block(
      '@afs_addrBytes',
      n(F.FROMBASE58, removePrefix(ref('@string'), 'address:')),
      E.if(
        n(F.EQ, n(F.SIZE_BYTES, ref('@afs_addrBytes')), long(26)),
        E.if(
          n(F.EQ, n(F.TAKE_BYTES, ref('@afs_addrBytes'), long(1)), E.bytes([1])),
          E.if(
            n(F.EQ, n(F.TAKE_BYTES, n(F.DROP_BYTES, ref('@afs_addrBytes'), long(1)), long(1)), E.bytes([0])),
            E.if(verifyChecksum(ref('@afs_addrBytes')), u('Address', ref('@afs_addrBytes')), ref('unit')),
            ref('unit'),
          ),
          ref('unit'),
        ),
        ref('unit'),
      ),
    ),
  ],
  ['wavesBalance', ['@addressOrAlias'], n(F.ACCOUNTASSETBALANCE, ref('@addressOrAlias'), ref('unit'))],
];

/** Global vals of the account-script context, by script version. */
const DECLARED_VALS: Readonly<Record<number, readonly string[]>> = {
  1: ['unit', 'height', 'tx'],
  2: ['unit', 'height', 'tx', 'Sell', 'Buy'],
};

export const SUPPORTED_SCRIPT_VERSIONS = [1, 2] as const;
export const MAX_SCRIPT_EXPRESSION_SIZE = 8 * 1024;
/** 20 × the cost of sigVerify, as ScriptV1 computes it. */
export const MAX_SCRIPT_COMPLEXITY = 2000;
/** Weft's guard against estimator blow-up (see the module comment). */
export const MAX_ESTIMATOR_STEPS = 2_000_000;

const headerKey = (h: FunctionHeader): string => ('native' in h ? `n${h.native}` : `u${h.user}`);

class EstimatorError extends Error {}

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
function estimate(expr: Expr, declared: readonly string[], costs: ReadonlyMap<string, number>): number {
  let syms: Syms = null;
  for (const name of declared) syms = { name, expr: E.TRUE, evaluated: true, next: syms };
  const budget = { steps: 0 };
  const frames: Frame[] = [];
  let next: Expr | undefined = expr;
  let result: readonly [number, Syms] = [0, syms];
  for (;;) {
    if (next !== undefined) {
      if (++budget.steps > MAX_ESTIMATOR_STEPS) throw new EstimatorError('too many steps');
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

let costTable: Map<string, number> | undefined;

/** WE's functionCosts: natives, case-type constructors, then user functions (by their bodies). */
function functionCosts(): ReadonlyMap<string, number> {
  if (costTable !== undefined) return costTable;
  const costs = new Map<string, number>();
  for (const [name, fields] of CASE_TYPE_FIELDS) costs.set(headerKey({ user: name }), fields);
  for (const [id, cost] of NATIVE_COSTS) costs.set(headerKey({ native: id }), cost);
  // Bodies only call functions defined before them in USER_FUNCTIONS.
  const globals = DECLARED_VALS[2]!;
  for (const [name, args, body] of USER_FUNCTIONS) {
    costs.set(headerKey({ user: name }), estimate(body, [...globals, ...args], costs) + 5 * args.length);
  }
  costTable = costs;
  return costs;
}

/** The cost WE assigns to a function (undefined when the function does not exist). */
export function functionCost(h: FunctionHeader): number | undefined {
  return functionCosts().get(headerKey(h));
}

// ---------------------------------------------------------------------------
// ScriptReader

export const SCRIPT_CHECKSUM_LENGTH = 4;

export interface Script {
  /** 1 or 2. */
  readonly version: number;
  readonly expr: Expr;
  /** Canonical bytes: version ‖ serialized expression ‖ checksum. */
  readonly bytes: Uint8Array;
  readonly complexity: number;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** version ‖ expression ‖ checksum, as ScriptV1.bytes writes it. */
export function scriptBytes(version: number, expr: Expr, p: Protocol): Uint8Array {
  const ser = serializeExpr(expr);
  const body = new Uint8Array(1 + ser.length);
  body[0] = version;
  body.set(ser, 1);
  const out = new Uint8Array(body.length + SCRIPT_CHECKSUM_LENGTH);
  out.set(body);
  out.set(p.crypto.secureHash(body).subarray(0, SCRIPT_CHECKSUM_LENGTH), body.length);
  return out;
}

/** ScriptReader.fromBytes: checks `bytes` and returns the script WE would hold. */
export function readScript(bytes: Uint8Array, p: Protocol, field = 'script'): Script {
  if (bytes.length === 0) throw scriptParseError('Empty script', field);
  const split = Math.max(0, bytes.length - SCRIPT_CHECKSUM_LENGTH);
  const checksum = bytes.subarray(bytes.length - Math.min(bytes.length, SCRIPT_CHECKSUM_LENGTH));
  const computed = p.crypto.secureHash(bytes.subarray(0, split)).subarray(0, SCRIPT_CHECKSUM_LENGTH);
  if (!sameBytes(checksum, computed)) throw scriptParseError('Invalid checksum', field);
  const version = (bytes[0]! << 24) >> 24;
  if (version !== 1 && version !== 2) throw scriptParseError(`Invalid version: ${version}`, field);
  const exprBytes = bytes.subarray(1, split);
  if (exprBytes.length > MAX_SCRIPT_EXPRESSION_SIZE) {
    throw scriptParseError(`Script is too large: ${exprBytes.length} bytes > ${MAX_SCRIPT_EXPRESSION_SIZE} bytes`, field);
  }
  let expr: Expr;
  try {
    expr = deserializeExpr(exprBytes);
  } catch (e) {
    if (e instanceof SerdeError) throw scriptParseError(e.message, field);
    throw e;
  }
  let complexity: number;
  try {
    complexity = estimate(expr, DECLARED_VALS[version]!, functionCosts());
  } catch (e) {
    if (!(e instanceof EstimatorError)) throw e;
    if (e.message === 'too many steps') {
      throw scriptParseError(`Script is too complex: estimation exceeds ${MAX_ESTIMATOR_STEPS} steps`, field);
    }
    throw scriptParseError(e.message, field);
  }
  if (complexity > MAX_SCRIPT_COMPLEXITY) throw scriptParseError(`Script is too complex: ${complexity} > ${MAX_SCRIPT_COMPLEXITY}`, field);
  return { version, expr, bytes: scriptBytes(version, expr, p), complexity };
}

/** The complexity of an expression as WE estimates it for a script of `version` (throws on undeclared names). */
export function estimateComplexity(expr: Expr, version: 1 | 2): number {
  try {
    return estimate(expr, DECLARED_VALS[version]!, functionCosts());
  } catch (e) {
    if (e instanceof EstimatorError) throw scriptParseError(e.message);
    throw e;
  }
}
