/**
 * The functions of WE's RIDE contexts, versions 1 and 2 (lang PureContext, CryptoContext,
 * waves/WavesContext; reference ride.md §2–3): each native with its id, cost, signature
 * (parameter names as WE declares them — they appear in WE's overload errors) and its
 * semantics; each context user function with its body. The order of the lists is WE's
 * (it decides the order of overload candidates).
 */
import { decodeBase58, decodeBase64, encodeBase58, encodeBase64 } from '../crypto/encoding.js';
import type { NamedHashes } from '../crypto/hashes.js';
import type { CryptoSuite } from '../crypto/suite.js';
import type { DataKind, Recipient, WavesEnvironment } from './environment.js';
import { ExecutionError, notImplemented, UncaughtError } from './errors.js';
import { E, type Expr } from './expr.js';
import { javaUtf8 } from './serde.js';
import { BOOLEAN, BYTEVECTOR, list, LONG, NOTHING, plist, punion, STRING, T, typeEquals, union, UNIT, type Real, type Type } from './types.js';
import { CaseObj, RideList, unit, valueEquals, valueKind, valueText, type Value } from './values.js';
import { ADDRESS, ADDRESS_OR_ALIAS, ALIAS, DATA_ENTRY, OPTION_ADDRESS, OPTION_LONG, type WavesTypes } from './we-types.js';

/** What natives need at run time. */
export interface NativeRuntime {
  readonly crypto: CryptoSuite;
  readonly hashes: NamedHashes;
  /** The chain; absent in pure contexts, where state functions fail as WE's `???` does. */
  readonly waves?: WavesRuntime;
}

export interface WavesRuntime {
  readonly environment: WavesEnvironment;
}

export type Params = ReadonlyArray<readonly [string, Type]>;

export interface NativeDef {
  readonly kind: 'native';
  readonly name: string;
  readonly id: number;
  readonly cost: number;
  readonly params: Params;
  readonly result: Type;
  readonly impl: (args: readonly Value[], rt: NativeRuntime) => Value;
}

export interface UserDef {
  readonly kind: 'user';
  readonly name: string;
  /** The header name in script bytes (`User(<internal>)`). */
  readonly internal: string;
  readonly params: Params;
  readonly result: Type;
  readonly body: Expr;
}

export type FunctionDef = NativeDef | UserDef;

// ---------------------------------------------------------------------------
// Helpers

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

const native = (name: string, id: number, cost: number, result: Type, params: Params, impl: NativeDef['impl']): NativeDef => ({
  kind: 'native',
  name,
  id,
  cost,
  params,
  result,
  impl,
});

const user = (name: string, internal: string, result: Type, params: Params, body: Expr): UserDef => ({ kind: 'user', name, internal, params, result, body });

/** `notImplemented(funcName, args)` of PureContext: an uncaught exception naming the argument classes. */
const cantApply = (fn: string, args: readonly Value[]): UncaughtError =>
  new UncaughtError(`java.lang.Exception: Can't apply (${args.map(valueKind).join(', ')}) to '${fn}'`);

const isLong = (v: Value | undefined): v is bigint => typeof v === 'bigint';
const isBytes = (v: Value | undefined): v is Uint8Array => v instanceof Uint8Array;
const isString = (v: Value | undefined): v is string => typeof v === 'string';
const isBoolean = (v: Value | undefined): v is boolean => typeof v === 'boolean';

function one<V extends Value>(args: readonly Value[], is: (v: Value | undefined) => v is V, fail: () => UncaughtError): V {
  if (args.length !== 1 || !is(args[0])) throw fail();
  return args[0];
}

function two<A extends Value, B extends Value>(
  args: readonly Value[],
  isA: (v: Value | undefined) => v is A,
  isB: (v: Value | undefined) => v is B,
  fail: () => UncaughtError,
): [A, B] {
  if (args.length !== 2 || !isA(args[0]) || !isB(args[1])) throw fail();
  return [args[0], args[1]];
}

const longs = (args: readonly Value[]): [bigint, bigint] => two(args, isLong, isLong, notImplemented);

function exact(r: bigint): bigint {
  if (r < INT64_MIN || r > INT64_MAX) throw new ExecutionError('long overflow');
  return r;
}

/** Math.floorDiv on longs. */
export function floorDiv(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new ExecutionError('/ by zero');
  if (a === INT64_MIN && b === -1n) return INT64_MIN;
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Math.floorMod on longs. */
export function floorMod(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new ExecutionError('/ by zero');
  const r = a % b;
  return r !== 0n && r < 0n !== b < 0n ? r + b : r;
}

const clampToInt = (n: bigint): number => Number(n < -2147483648n ? -2147483648n : n > 2147483647n ? 2147483647n : n);

/** ByteVector.take/drop clamp their count to [0, size]. */
const clampCount = (n: bigint, size: number): number => (n <= 0n ? 0 : n >= BigInt(size) ? size : Number(n));

/** StringOps.take/drop after trimming the count to an Int. */
const clampStringCount = (n: bigint, length: number): number => Math.min(Math.max(clampToInt(n), 0), length);

function longToBytes(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigInt64(0, n);
  return out;
}

const MAX_STRING_RESULT = 32767;
const MAX_BYTES_RESULT = 65536;
const MAX_BASE58_BYTES = 64;
const MAX_BASE58_STRING = 100;
const MAX_BASE64_BYTES = 32 * 1024;
const MAX_BASE64_STRING = 44 * 1024;
/** Literal byte vectors in source (BaseGlobal.MaxLiteralLength). */
export const MAX_LITERAL_LENGTH = 12 * 1024;

/** BaseGlobal.base58Decode with a character limit. */
export function base58Decode(text: string, limit: number): Uint8Array | string {
  if (text.length > limit) return `base58Decode input exceeds ${limit}`;
  try {
    return decodeBase58(text);
  } catch {
    return "can't parse Base58 string";
  }
}

/** BaseGlobal.base64Decode with a character limit (a `base64:` prefix is stripped). */
export function base64Decode(text: string, limit: number): Uint8Array | string {
  if (text.length > limit) return `base64Decode input exceeds ${limit}`;
  try {
    return decodeBase64(text);
  } catch {
    return "can't parse Base64 string";
  }
}

const decoded = (r: Uint8Array | string): Uint8Array => {
  if (typeof r === 'string') throw new ExecutionError(r);
  return r;
};

const ref = E.ref;
const n = E.native;
const u = E.user;

// ---------------------------------------------------------------------------
// PureContext

const F = {
  EQ: 0,
  ISINSTANCEOF: 1,
  THROW: 2,
  SUM_LONG: 100,
  SUB_LONG: 101,
  GT_LONG: 102,
  GE_LONG: 103,
  MUL_LONG: 104,
  DIV_LONG: 105,
  MOD_LONG: 106,
  FRACTION: 107,
  SIZE_BYTES: 200,
  TAKE_BYTES: 201,
  DROP_BYTES: 202,
  SUM_BYTES: 203,
  SUM_STRING: 300,
  TAKE_STRING: 303,
  DROP_STRING: 304,
  SIZE_STRING: 305,
  SIZE_LIST: 400,
  GET_LIST: 401,
  LONG_TO_BYTES: 410,
  STRING_TO_BYTES: 411,
  BOOLEAN_TO_BYTES: 412,
  LONG_TO_STRING: 420,
  BOOLEAN_TO_STRING: 421,
  SIGVERIFY: 500,
  KECCAK256: 501,
  BLAKE256: 502,
  SHA256: 503,
  SECUREHASH: 504,
  TOBASE58: 600,
  FROMBASE58: 601,
  TOBASE64: 602,
  FROMBASE64: 603,
  GETTRANSACTIONBYID: 1000,
  TRANSACTIONHEIGHTBYID: 1001,
  ACCOUNTASSETBALANCE: 1003,
  DATA_LONG_FROM_ARRAY: 1040,
  DATA_BOOLEAN_FROM_ARRAY: 1041,
  DATA_BYTES_FROM_ARRAY: 1042,
  DATA_STRING_FROM_ARRAY: 1043,
  DATA_LONG_FROM_STATE: 1050,
  DATA_BOOLEAN_FROM_STATE: 1051,
  DATA_BYTES_FROM_STATE: 1052,
  DATA_STRING_FROM_STATE: 1053,
  ADDRESSFROMRECIPIENT: 1060,
} as const;

export const FUNCTION_IDS = F;

const DEFAULT_THROW_MESSAGE = 'Explicit script termination';

const tryOp = (name: string, id: number, f: (a: bigint, b: bigint) => bigint): NativeDef =>
  native(
    name,
    id,
    1,
    LONG,
    [
      ['a', LONG],
      ['b', LONG],
    ],
    (args) => f(...longs(args)),
  );

const compareOp = (name: string, id: number, f: (a: bigint, b: bigint) => boolean): NativeDef =>
  native(
    name,
    id,
    1,
    BOOLEAN,
    [
      ['a', LONG],
      ['b', LONG],
    ],
    (args) => f(...longs(args)),
  );

const sizeSub = (size: number, xs: string, count: string): Expr => n(F.SUB_LONG, n(size, ref(xs)), ref(count));

/** PureContext's functions. */
export function pureFunctions(): FunctionDef[] {
  const eq = native(
    '==',
    F.EQ,
    1,
    BOOLEAN,
    [
      ['a', T],
      ['b', T],
    ],
    (args) => {
      if (args.length !== 2) throw notImplemented();
      return valueEquals(args[0]!, args[1]!);
    },
  );
  const functions: FunctionDef[] = [
    native(
      'fraction',
      F.FRACTION,
      1,
      LONG,
      [
        ['value', LONG],
        ['numerator', LONG],
        ['denominator', LONG],
      ],
      (args) => {
        if (args.length !== 3 || !isLong(args[0]) || !isLong(args[1]) || !isLong(args[2])) throw notImplemented();
        const [v, num, den] = args as [bigint, bigint, bigint];
        if (den === 0n) throw new UncaughtError('java.lang.ArithmeticException: BigInteger divide by zero');
        const result = (v * num) / den;
        if (!(result < INT64_MAX)) throw new ExecutionError(`Long overflow: value \`${result}\` greater than 2^63-1`);
        if (!(result > INT64_MIN)) throw new ExecutionError(`Long overflow: value \`${result}\` less than -2^63-1`);
        return result;
      },
    ),
    native('size', F.SIZE_BYTES, 1, LONG, [['byteVector', BYTEVECTOR]], (args) => BigInt(one(args, isBytes, () => cantApply('size(byte[])', args)).length)),
    native('toBytes', F.BOOLEAN_TO_BYTES, 1, BYTEVECTOR, [['b', BOOLEAN]], (args) => Uint8Array.of(one(args, isBoolean, notImplemented) ? 1 : 0)),
    native('toBytes', F.LONG_TO_BYTES, 1, BYTEVECTOR, [['n', LONG]], (args) => longToBytes(one(args, isLong, notImplemented))),
    native('toBytes', F.STRING_TO_BYTES, 1, BYTEVECTOR, [['s', STRING]], (args) => javaUtf8(one(args, isString, notImplemented))),
    native(
      'take',
      F.TAKE_BYTES,
      1,
      BYTEVECTOR,
      [
        ['xs', BYTEVECTOR],
        ['number', LONG],
      ],
      (args) => {
        const [xs, count] = two(args, isBytes, isLong, () => cantApply('take(xs: byte[], number: Long)', args));
        return xs.slice(0, clampCount(count, xs.length));
      },
    ),
    native(
      'drop',
      F.DROP_BYTES,
      1,
      BYTEVECTOR,
      [
        ['xs', BYTEVECTOR],
        ['number', LONG],
      ],
      (args) => {
        const [xs, count] = two(args, isBytes, isLong, () => cantApply('drop(xs: byte[], number: Long)', args));
        return xs.slice(clampCount(count, xs.length));
      },
    ),
    user(
      'takeRight',
      'takeRightBytes',
      BYTEVECTOR,
      [
        ['@xs', BYTEVECTOR],
        ['@number', LONG],
      ],
      n(F.DROP_BYTES, ref('@xs'), sizeSub(F.SIZE_BYTES, '@xs', '@number')),
    ),
    user(
      'dropRight',
      'dropRightBytes',
      BYTEVECTOR,
      [
        ['@xs', BYTEVECTOR],
        ['@number', LONG],
      ],
      n(F.TAKE_BYTES, ref('@xs'), sizeSub(F.SIZE_BYTES, '@xs', '@number')),
    ),
    native('size', F.SIZE_STRING, 1, LONG, [['xs', STRING]], (args) => BigInt(one(args, isString, () => cantApply('size(String)', args)).length)),
    native('toString', F.BOOLEAN_TO_STRING, 1, STRING, [['b', BOOLEAN]], (args) => (one(args, isBoolean, notImplemented) ? 'true' : 'false')),
    native('toString', F.LONG_TO_STRING, 1, STRING, [['n', LONG]], (args) => one(args, isLong, notImplemented).toString()),
    native(
      'take',
      F.TAKE_STRING,
      1,
      STRING,
      [
        ['xs', STRING],
        ['number', LONG],
      ],
      (args) => {
        const [xs, count] = two(args, isString, isLong, () => cantApply('take(xs: String, number: Long)', args));
        return xs.substring(0, clampStringCount(count, xs.length));
      },
    ),
    native(
      'drop',
      F.DROP_STRING,
      1,
      STRING,
      [
        ['xs', STRING],
        ['number', LONG],
      ],
      (args) => {
        const [xs, count] = two(args, isString, isLong, () => cantApply('drop(xs: String, number: Long)', args));
        return xs.substring(clampStringCount(count, xs.length));
      },
    ),
    user(
      'takeRight',
      'takeRight',
      STRING,
      [
        ['@xs', STRING],
        ['@number', LONG],
      ],
      n(F.DROP_STRING, ref('@xs'), sizeSub(F.SIZE_STRING, '@xs', '@number')),
    ),
    user(
      'dropRight',
      'dropRight',
      STRING,
      [
        ['@xs', STRING],
        ['@number', LONG],
      ],
      n(F.TAKE_STRING, ref('@xs'), sizeSub(F.SIZE_STRING, '@xs', '@number')),
    ),
    native(
      '_isInstanceOf',
      F.ISINSTANCEOF,
      1,
      BOOLEAN,
      [
        ['obj', T],
        ['of', STRING],
      ],
      (args) => {
        if (args.length !== 2 || typeof args[1] !== 'string') return false;
        const [obj, of] = args as [Value, string];
        if (typeof obj === 'boolean') return of === 'Boolean';
        if (obj instanceof Uint8Array) return of === 'ByteVector';
        if (typeof obj === 'string') return of === 'String';
        if (typeof obj === 'bigint') return of === 'Int';
        if (obj instanceof CaseObj) return obj.typeName === of;
        return false;
      },
    ),
    user('isDefined', 'isDefined', BOOLEAN, [['@a', punion(T, UNIT)]], u('!=', ref('@a'), ref('unit'))),
    user(
      'extract',
      'extract',
      T,
      [['@a', punion(T, UNIT)]],
      E.if(n(F.EQ, ref('@a'), ref('unit')), n(F.THROW, E.str('extract() called on unit value')), ref('@a')),
    ),
    native('throw', F.THROW, 1, NOTHING, [['err', STRING]], (args) => {
      throw new ExecutionError(args.length === 1 && typeof args[0] === 'string' ? args[0] : DEFAULT_THROW_MESSAGE);
    }),
    user('throw', 'throw', NOTHING, [], n(F.THROW, E.str(DEFAULT_THROW_MESSAGE))),
    // operators
    tryOp('*', F.MUL_LONG, (a, b) => exact(a * b)),
    tryOp('/', F.DIV_LONG, floorDiv),
    tryOp('%', F.MOD_LONG, floorMod),
    tryOp('+', F.SUM_LONG, (a, b) => exact(a + b)),
    tryOp('-', F.SUB_LONG, (a, b) => exact(a - b)),
    native(
      '+',
      F.SUM_STRING,
      10,
      STRING,
      [
        ['a', STRING],
        ['b', STRING],
      ],
      (args) => {
        const [a, b] = two(args, isString, isString, notImplemented);
        if (a.length + b.length > MAX_STRING_RESULT) throw new ExecutionError('String is too large');
        return a + b;
      },
    ),
    native(
      '+',
      F.SUM_BYTES,
      10,
      BYTEVECTOR,
      [
        ['a', BYTEVECTOR],
        ['b', BYTEVECTOR],
      ],
      (args) => {
        const [a, b] = two(args, isBytes, isBytes, notImplemented);
        if (a.length + b.length > MAX_BYTES_RESULT) throw new ExecutionError('ByteVector is too large');
        const out = new Uint8Array(a.length + b.length);
        out.set(a);
        out.set(b, a.length);
        return out;
      },
    ),
    eq,
    user(
      '!=',
      '!=',
      BOOLEAN,
      [
        ['@a', T],
        ['@b', T],
      ],
      u('!', n(F.EQ, ref('@a'), ref('@b'))),
    ),
    compareOp('>=', F.GE_LONG, (a, b) => a >= b),
    compareOp('>', F.GT_LONG, (a, b) => a > b),
    native(
      'getElement',
      F.GET_LIST,
      2,
      T,
      [
        ['arr', plist(T)],
        ['pos', LONG],
      ],
      (args) => {
        const [arr, pos] = two(args, (v): v is RideList => v instanceof RideList, isLong, notImplemented);
        const i = Number(BigInt.asIntN(32, pos));
        const item = arr.items[i];
        if (i < 0 || item === undefined) throw new ExecutionError(`java.lang.IndexOutOfBoundsException: ${i}`);
        return item;
      },
    ),
    native('size', F.SIZE_LIST, 2, LONG, [['arr', plist(T)]], (args) =>
      BigInt(one(args, (v): v is RideList => v instanceof RideList, notImplemented).items.length),
    ),
    user('-', '-', LONG, [['@n', LONG]], n(F.SUB_LONG, E.long(0), ref('@n'))),
    user('!', '!', BOOLEAN, [['@p', BOOLEAN]], E.if(n(F.EQ, ref('@p'), E.FALSE), E.TRUE, E.FALSE)),
  ];
  return functions;
}

// ---------------------------------------------------------------------------
// CryptoContext

/** CryptoContext's functions. */
export function cryptoFunctions(): FunctionDef[] {
  const hash = (name: string, id: number, f: (rt: NativeRuntime, b: Uint8Array) => Uint8Array): NativeDef =>
    native(name, id, 10, BYTEVECTOR, [['bytes', BYTEVECTOR]], (args, rt) => f(rt, one(args, isBytes, notImplemented)));
  return [
    hash('keccak256', F.KECCAK256, (rt, b) => rt.hashes.keccak256(b)),
    hash('blake2b256', F.BLAKE256, (rt, b) => rt.hashes.blake2b256(b)),
    hash('sha256', F.SHA256, (rt, b) => rt.hashes.sha256(b)),
    hash('secureHash', F.SECUREHASH, (rt, b) => rt.crypto.secureHash(b)),
    native(
      'sigVerify',
      F.SIGVERIFY,
      100,
      BOOLEAN,
      [
        ['message', BYTEVECTOR],
        ['sig', BYTEVECTOR],
        ['pub', BYTEVECTOR],
      ],
      (args, rt) => {
        if (args.length !== 3 || !isBytes(args[0]) || !isBytes(args[1]) || !isBytes(args[2])) throw notImplemented();
        return rt.crypto.verify(args[2], args[0], args[1]);
      },
    ),
    native('toBase58String', F.TOBASE58, 10, STRING, [['bytes', BYTEVECTOR]], (args) => {
      const bytes = one(args, isBytes, () => cantApply('toBase58String(bytes: byte[])', args));
      if (bytes.length > MAX_BASE58_BYTES) throw new ExecutionError(`base58Encode input exceeds ${MAX_BASE58_BYTES}`);
      return encodeBase58(bytes);
    }),
    native('fromBase58String', F.FROMBASE58, 10, BYTEVECTOR, [['str', STRING]], (args) =>
      decoded(
        base58Decode(
          one(args, isString, () => cantApply('fromBase58String(str: String)', args)),
          MAX_BASE58_STRING,
        ),
      ),
    ),
    native('toBase64String', F.TOBASE64, 10, STRING, [['bytes', BYTEVECTOR]], (args) => {
      const bytes = one(args, isBytes, () => cantApply('toBase64String(bytes: byte[])', args));
      if (bytes.length > MAX_BASE64_BYTES) throw new ExecutionError(`base64Encode input exceeds ${MAX_BASE64_BYTES}`);
      return encodeBase64(bytes);
    }),
    native('fromBase64String', F.FROMBASE64, 10, BYTEVECTOR, [['str', STRING]], (args) =>
      decoded(
        base64Decode(
          one(args, isString, () => cantApply('fromBase64String(str: String)', args)),
          MAX_BASE64_STRING,
        ),
      ),
    ),
  ];
}

// ---------------------------------------------------------------------------
// WavesContext

function wavesOf(rt: NativeRuntime): WavesRuntime {
  if (rt.waves === undefined) throw notImplemented();
  return rt.waves;
}

/** EnvironmentFunctions.getData's reading of an Address or Alias object. */
function recipientOfData(obj: CaseObj): Recipient | string {
  if (obj.typeName === 'Address') {
    const bytes = obj.field('bytes');
    if (bytes === undefined) return "Can't find 'bytes'";
    if (!(bytes instanceof Uint8Array)) throw classCast(bytes, 'CONST_BYTEVECTOR');
    return { address: bytes };
  }
  if (obj.typeName === 'Alias') {
    const alias = obj.field('alias');
    if (alias === undefined) return "Can't find alias";
    if (typeof alias !== 'string') throw classCast(alias, 'CONST_STRING');
    return { alias };
  }
  return `${valueText(obj)} neither Address nor alias`;
}

const TERMS = 'com.wavesenterprise.lang.v1.compiler.Terms$';

function classCast(v: Value, to: string): UncaughtError {
  const from = `${TERMS}${valueKind(v)}`;
  return new UncaughtError(
    `java.lang.ClassCastException: class ${from} cannot be cast to class ${TERMS}${to} (${from} and ${TERMS}${to} are in unnamed module of loader 'app')`,
  );
}

/** WavesContext.caseObjToRecipient: fields read with `fields(name)`, `???` for other types. */
function recipientOf(obj: Value | undefined): Recipient {
  if (!(obj instanceof CaseObj)) throw notImplemented();
  const read = (name: string): Value => {
    const v = obj.field(name);
    if (v === undefined) throw new UncaughtError(`java.util.NoSuchElementException: key not found: ${name}`);
    return v;
  };
  if (obj.typeName === 'Address') {
    const bytes = read('bytes');
    if (!(bytes instanceof Uint8Array)) throw classCast(bytes, 'CONST_BYTEVECTOR');
    return { address: bytes };
  }
  if (obj.typeName === 'Alias') {
    const alias = read('alias');
    if (typeof alias !== 'string') throw classCast(alias, 'CONST_STRING');
    return { alias };
  }
  throw notImplemented();
}

const DATA_KINDS: ReadonlyArray<readonly [string, DataKind, Real, number, number]> = [
  ['getInteger', 'integer', LONG, F.DATA_LONG_FROM_STATE, F.DATA_LONG_FROM_ARRAY],
  ['getBoolean', 'boolean', BOOLEAN, F.DATA_BOOLEAN_FROM_STATE, F.DATA_BOOLEAN_FROM_ARRAY],
  ['getBinary', 'binary', BYTEVECTOR, F.DATA_BYTES_FROM_STATE, F.DATA_BYTES_FROM_ARRAY],
  ['getString', 'string', STRING, F.DATA_STRING_FROM_STATE, F.DATA_STRING_FROM_ARRAY],
];

const kindMatches = (v: Value, kind: DataKind): boolean =>
  kind === 'integer'
    ? typeof v === 'bigint'
    : kind === 'boolean'
      ? typeof v === 'boolean'
      : kind === 'binary'
        ? v instanceof Uint8Array
        : typeof v === 'string';

const typeNameOf = (t: Real): string => (t.k === 'LONG' ? 'Int' : t.k === 'BOOLEAN' ? 'Boolean' : t.k === 'BYTEVECTOR' ? 'ByteVector' : 'String');

const ADDRESS_VERSION = 1;
const ADDRESS_LENGTH = 26;
const CHECKSUM_LENGTH = 4;
const HASH_LENGTH = 20;

function wavesFunctions(types: WavesTypes, chainId: number): FunctionDef[] {
  const anyTransaction = union([UNIT, types.genesis, types.payment, ...types.active]);
  const fromState = DATA_KINDS.map(([name, kind, inner, stateId]) =>
    native(
      name,
      stateId,
      100,
      union([inner, UNIT]),
      [
        ['addressOrAlias', ADDRESS_OR_ALIAS],
        ['key', STRING],
      ],
      (args, rt) => {
        const [obj, key] = two(args, (v): v is CaseObj => v instanceof CaseObj, isString, notImplemented);
        const recipient = recipientOfData(obj);
        if (typeof recipient === 'string') throw new ExecutionError(recipient);
        return wavesOf(rt).environment.data(recipient, key, kind) ?? unit;
      },
    ),
  );
  const fromArray = DATA_KINDS.map(([name, kind, inner, , arrayId]) =>
    native(
      name,
      arrayId,
      10,
      union([inner, UNIT]),
      [
        ['data', list(DATA_ENTRY)],
        ['key', STRING],
      ],
      (args) => {
        const [data, key] = two(args, (v): v is RideList => v instanceof RideList, isString, notImplemented);
        for (const entry of data.items) {
          if (!(entry instanceof CaseObj)) throw notImplemented();
          const k = entry.field('key');
          if (k === undefined) throw new UncaughtError('java.util.NoSuchElementException: key not found: key');
          if (k === key) {
            const value = entry.field('value');
            if (value === undefined) throw new UncaughtError('java.util.NoSuchElementException: key not found: value');
            return kindMatches(value, kind) ? value : unit;
          }
        }
        return unit;
      },
    ),
  );
  const byIndex = DATA_KINDS.map(([name, , inner]) =>
    user(
      name,
      name,
      union([inner, UNIT]),
      [
        ['@data', list(DATA_ENTRY)],
        ['@index', LONG],
      ],
      E.block(
        '@val',
        E.getter(n(F.GET_LIST, ref('@data'), ref('@index')), 'value'),
        E.if(n(F.ISINSTANCEOF, ref('@val'), E.str(typeNameOf(inner))), ref('@val'), ref('unit')),
      ),
    ),
  );
  const removePrefix = (s: Expr, prefix: string): Expr =>
    E.if(n(F.EQ, n(F.TAKE_STRING, s, E.long(prefix.length)), E.str(prefix)), n(F.DROP_STRING, s, E.long(prefix.length)), s);
  const verifyChecksum = (a: Expr): Expr =>
    n(
      F.EQ,
      u('takeRightBytes', a, E.long(CHECKSUM_LENGTH)),
      n(F.TAKE_BYTES, n(F.SECUREHASH, u('dropRightBytes', a, E.long(CHECKSUM_LENGTH))), E.long(CHECKSUM_LENGTH)),
    );
  const assetBalance = native(
    'assetBalance',
    F.ACCOUNTASSETBALANCE,
    100,
    LONG,
    [
      ['addressOrAlias', ADDRESS_OR_ALIAS],
      ['assetId', union([UNIT, BYTEVECTOR])],
    ],
    (args, rt) => {
      if (args.length !== 2 || !(args[0] instanceof CaseObj)) throw notImplemented();
      const asset = args[1]!;
      let assetId: Uint8Array | null;
      if (valueEquals(asset, unit)) assetId = null;
      else if (asset instanceof Uint8Array) assetId = asset;
      else throw notImplemented();
      const r = wavesOf(rt).environment.accountBalanceOf(recipientOf(args[0]), assetId);
      if ('error' in r) throw new ExecutionError(r.error);
      return r.balance;
    },
  );
  return [
    native('transactionById', F.GETTRANSACTIONBYID, 100, anyTransaction, [['id', BYTEVECTOR]], (args, rt) => {
      const id = one(args, isBytes, notImplemented);
      return wavesOf(rt).environment.state.transactionById(id) ?? unit;
    }),
    native('transactionHeightById', F.TRANSACTIONHEIGHTBYID, 100, OPTION_LONG, [['id', BYTEVECTOR]], (args, rt) => {
      const h = wavesOf(rt).environment.state.transactionHeight(one(args, isBytes, notImplemented));
      return h === undefined ? unit : BigInt(h);
    }),
    ...fromState,
    ...fromArray,
    ...byIndex,
    user(
      'addressFromPublicKey',
      'addressFromPublicKey',
      ADDRESS,
      [['@publicKey', BYTEVECTOR]],
      u(
        'Address',
        E.block(
          '@afpk_withoutChecksum',
          n(F.SUM_BYTES, E.bytes([ADDRESS_VERSION, chainId]), n(F.TAKE_BYTES, n(F.SECUREHASH, ref('@publicKey')), E.long(HASH_LENGTH))),
          n(F.SUM_BYTES, ref('@afpk_withoutChecksum'), n(F.TAKE_BYTES, n(F.SECUREHASH, ref('@afpk_withoutChecksum')), E.long(CHECKSUM_LENGTH))),
        ),
      ),
    ),
    user(
      'addressFromString',
      'addressFromString',
      OPTION_ADDRESS,
      [['@string', STRING]],
      E.block(
        '@afs_addrBytes',
        n(F.FROMBASE58, removePrefix(ref('@string'), 'address:')),
        E.if(
          n(F.EQ, n(F.SIZE_BYTES, ref('@afs_addrBytes')), E.long(ADDRESS_LENGTH)),
          E.if(
            n(F.EQ, n(F.TAKE_BYTES, ref('@afs_addrBytes'), E.long(1)), E.bytes([ADDRESS_VERSION])),
            E.if(
              n(F.EQ, n(F.TAKE_BYTES, n(F.DROP_BYTES, ref('@afs_addrBytes'), E.long(1)), E.long(1)), E.bytes([chainId])),
              E.if(verifyChecksum(ref('@afs_addrBytes')), u('Address', ref('@afs_addrBytes')), ref('unit')),
              ref('unit'),
            ),
            ref('unit'),
          ),
          ref('unit'),
        ),
      ),
    ),
    native('addressFromRecipient', F.ADDRESSFROMRECIPIENT, 100, ADDRESS, [['AddressOrAlias', ADDRESS_OR_ALIAS]], (args, rt) => {
      if (args.length !== 1 || !(args[0] instanceof CaseObj)) throw notImplemented();
      const obj = args[0];
      if (typeEquals(obj.type, ADDRESS)) return obj;
      if (!typeEquals(obj.type, ALIAS)) throw notImplemented();
      const alias = obj.field('alias');
      if (alias === undefined) throw new UncaughtError('java.util.NoSuchElementException: key not found: alias');
      if (typeof alias !== 'string') throw classCast(alias, 'CONST_STRING');
      const r = wavesOf(rt).environment.resolveAlias(alias);
      if ('error' in r) throw new ExecutionError(r.error);
      return CaseObj.of(ADDRESS, [['bytes', r.address]]);
    }),
    assetBalance,
    user('wavesBalance', 'wavesBalance', LONG, [['@addressOrAlias', ADDRESS_OR_ALIAS]], n(F.ACCOUNTASSETBALANCE, ref('@addressOrAlias'), ref('unit'))),
  ];
}

/** The functions of a context in WE's order: pure, crypto, Waves. */
export function contextFunctions(types: WavesTypes, chainId: number): FunctionDef[] {
  return [...pureFunctions(), ...cryptoFunctions(), ...wavesFunctions(types, chainId)];
}
