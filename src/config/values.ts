/**
 * The value syntaxes of a WE-style HOCON config (Typesafe Config / pureconfig, as WE reads
 * them) and the error every invalid or missing value raises: durations ("17s", "3 seconds",
 * "1m", "500ms", "1d"; a bare number is milliseconds), memory sizes ("100MiB", "3m"; a bare
 * number is bytes), booleans (true/false/yes/no/on/off), integers, strings and Base58.
 *
 * Every ConfigError's message starts with the key's full path, e.g.
 * `node.blockchain.consensus.round-duration: expected a duration, got "abc"`.
 */
import { decodeBase58, EncodingError } from '../crypto/encoding.js';
import { InternalError } from '../errors/internal.js';

/** An invalid or missing configuration value; `path` is the key's full HOCON path. */
export class ConfigError extends InternalError {
  override readonly name = 'ConfigError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path === '' ? reason : `${path}: ${reason}`);
  }
}

/** How a value looks in an error message. */
export function describeValue(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(v);
    case 'undefined':
      return 'nothing';
    default:
      return v === null ? 'null' : Array.isArray(v) ? 'a list' : 'an object';
  }
}

/** Throws the ConfigError of the key at `path`. */
export function fail(path: string, reason: string): never {
  throw new ConfigError(path, reason);
}

// ---------------------------------------------------------------------------
// Value syntaxes

const MS_PER_UNIT = new Map<string, number>();
for (const [names, ms] of [
  [['ns', 'nano', 'nanos', 'nanosecond', 'nanoseconds'], 1e-6],
  [['us', 'micro', 'micros', 'microsecond', 'microseconds'], 1e-3],
  [['', 'ms', 'milli', 'millis', 'millisecond', 'milliseconds'], 1],
  [['s', 'second', 'seconds'], 1000],
  [['m', 'minute', 'minutes'], 60_000],
  [['h', 'hour', 'hours'], 3_600_000],
  [['d', 'day', 'days'], 86_400_000],
] as const) {
  for (const name of names) MS_PER_UNIT.set(name, ms);
}

/** A duration in whole milliseconds (fractions of a millisecond are dropped, as WE's toMillis does). */
export function parseDuration(v: unknown, path: string): number {
  let ms: number | undefined;
  if (typeof v === 'number' && Number.isFinite(v)) ms = v;
  else if (typeof v === 'string') {
    const m = /^([+-]?\d+(?:\.\d+)?)\s*([A-Za-z]*)$/.exec(v.trim());
    const perUnit = m === null ? undefined : MS_PER_UNIT.get(m[2]!);
    if (m !== null && perUnit !== undefined) ms = Number(m[1]) * perUnit;
  }
  if (ms === undefined) return fail(path, `expected a duration, got ${describeValue(v)}`);
  if (ms < 0) return fail(path, `expected a non-negative duration, got ${describeValue(v)}`);
  const whole = Math.trunc(ms);
  if (!Number.isSafeInteger(whole)) return fail(path, `duration ${describeValue(v)} is too long`);
  return whole;
}

const BYTES_PER_UNIT = new Map<string, number>();
for (const [names, bytes] of [
  [['', 'B', 'b', 'byte', 'bytes'], 1],
  [['kB', 'kilobyte', 'kilobytes'], 1e3],
  [['MB', 'megabyte', 'megabytes'], 1e6],
  [['GB', 'gigabyte', 'gigabytes'], 1e9],
  [['TB', 'terabyte', 'terabytes'], 1e12],
  [['K', 'k', 'Ki', 'KiB', 'kibibyte', 'kibibytes'], 2 ** 10],
  [['M', 'm', 'Mi', 'MiB', 'mebibyte', 'mebibytes'], 2 ** 20],
  [['G', 'g', 'Gi', 'GiB', 'gibibyte', 'gibibytes'], 2 ** 30],
  [['T', 't', 'Ti', 'TiB', 'tebibyte', 'tebibytes'], 2 ** 40],
] as const) {
  for (const name of names) BYTES_PER_UNIT.set(name, bytes);
}

/** A memory size in bytes (HOCON size units: "100MiB", "3m" = 3 MiB, "50MB" = 50·10^6, a bare number = bytes). */
export function parseSize(v: unknown, path: string): number {
  let bytes: number | undefined;
  if (typeof v === 'number' && Number.isFinite(v)) bytes = v;
  else if (typeof v === 'string') {
    const m = /^(\d+(?:\.\d+)?)\s*([A-Za-z]*)$/.exec(v.trim());
    const perUnit = m === null ? undefined : BYTES_PER_UNIT.get(m[2]!);
    if (m !== null && perUnit !== undefined) bytes = Number(m[1]) * perUnit;
  }
  if (bytes === undefined) return fail(path, `expected a memory size (e.g. "100MiB"), got ${describeValue(v)}`);
  if (bytes < 0) return fail(path, `expected a non-negative memory size, got ${describeValue(v)}`);
  const whole = Math.floor(bytes);
  if (!Number.isSafeInteger(whole)) return fail(path, `memory size ${describeValue(v)} is too large`);
  return whole;
}

/** true/false, or the strings yes/no/on/off/true/false (any case). */
export function parseBoolean(v: unknown, path: string): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true' || s === 'yes' || s === 'on') return true;
    if (s === 'false' || s === 'no' || s === 'off') return false;
  }
  return fail(path, `expected a boolean (true/false, yes/no, on/off), got ${describeValue(v)}`);
}

export interface IntRange {
  readonly min?: number;
  readonly max?: number;
}

/** A 32-bit integer (a number or a numeric string), optionally within [min, max]. */
export function parseInt32(v: unknown, path: string, range: IntRange = {}): number {
  let n: number | undefined;
  if (typeof v === 'number' && Number.isInteger(v)) n = v;
  else if (typeof v === 'bigint') n = Number(v);
  else if (typeof v === 'string' && /^[+-]?\d{1,10}$/.test(v.trim())) n = Number(v.trim());
  if (n === undefined || n < -(2 ** 31) || n > 2 ** 31 - 1) return fail(path, `expected an integer, got ${describeValue(v)}`);
  const { min, max } = range;
  if (min !== undefined && max !== undefined && (n < min || n > max)) return fail(path, `expected an integer from ${min} to ${max}, got ${n}`);
  if (min !== undefined && n < min) return fail(path, `expected an integer ≥ ${min}, got ${n}`);
  if (max !== undefined && n > max) return fail(path, `expected an integer ≤ ${max}, got ${n}`);
  return n;
}

/** A signed 64-bit integer: a safe number, or a numeric string for anything beyond 2^53. */
export function parseLong(v: unknown, path: string): bigint {
  let n: bigint | undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'bigint') n = v;
  else if (typeof v === 'string' && /^[+-]?\d{1,19}$/.test(v.trim())) n = BigInt(v.trim());
  if (n === undefined || n < -(2n ** 63n) || n > 2n ** 63n - 1n) return fail(path, `expected a 64-bit integer, got ${describeValue(v)}`);
  return n;
}

/** A non-empty string (numbers are taken as their text, as Typesafe Config does). */
export function parseString(v: unknown, path: string, options: { allowEmpty?: boolean } = {}): string {
  let s: string | undefined;
  if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
  if (s === undefined) return fail(path, `expected a string, got ${describeValue(v)}`);
  if (s === '' && options.allowEmpty !== true) return fail(path, 'expected a non-empty string, got ""');
  return s;
}

/** Base58 bytes. */
export function parseBase58(v: unknown, path: string): Uint8Array {
  const s = parseString(v, path);
  try {
    return decodeBase58(s);
  } catch (e) {
    if (e instanceof EncodingError) return fail(path, `expected a Base58 string, got ${describeValue(v)}: ${e.message}`);
    throw e;
  }
}
