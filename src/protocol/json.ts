/**
 * JSON that keeps every digit of a signed 64-bit integer, both ways.
 *
 * Parsing: integer literals that a JS number cannot hold exactly become `bigint`;
 * everything else is what `JSON.parse` gives. The native parser runs first; only when
 * its result holds a number beyond ±(2^53 − 1) — the only way a literal can have lost
 * digits — is the text parsed again exactly.
 *
 * Writing: `bigint` values are written as bare JSON numbers, as the WE node writes
 * int64 fields — or as strings when the client asked for that (`int64AsString`).
 */
import { InternalError } from '../errors/internal.js';

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object as parsed: values not yet checked. */
export type JsonObject = { [key: string]: unknown };

export class JsonSyntaxError extends InternalError {
  override readonly name = 'JsonSyntaxError';
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    throw new JsonSyntaxError((e as Error).message, -1);
  }
  return holdsUnsafeNumber(value, 0) ? new ExactJsonParser(text).parseDocument() : value;
}

function holdsUnsafeNumber(v: unknown, depth: number): boolean {
  if (typeof v === 'number') return !Number.isSafeInteger(v) && Math.abs(v) > Number.MAX_SAFE_INTEGER;
  if (typeof v !== 'object' || v === null) return false;
  // Deep documents go to the exact parser, which bounds nesting.
  if (depth > 64) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (holdsUnsafeNumber(x, depth + 1)) return true;
    return false;
  }
  for (const k in v) if (holdsUnsafeNumber((v as Record<string, unknown>)[k], depth + 1)) return true;
  return false;
}

const WS = new Uint8Array(128);
WS[0x20] = WS[0x09] = WS[0x0a] = WS[0x0d] = 1;

class ExactJsonParser {
  private i = 0;
  constructor(private readonly s: string) {}

  parseDocument(): unknown {
    this.ws();
    const v = this.value(0);
    this.ws();
    if (this.i !== this.s.length) this.fail('Unexpected data after the JSON value');
    return v;
  }

  private fail(msg: string): never {
    throw new JsonSyntaxError(`${msg} at position ${this.i}`, this.i);
  }

  private ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c < 128 && WS[c] === 1) this.i++;
      else break;
    }
  }

  private value(depth: number): unknown {
    if (depth > 512) this.fail('JSON nested too deeply');
    const c = this.s[this.i];
    switch (c) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
        return this.fail(c === undefined ? 'Unexpected end of JSON input' : `Unexpected token ${c}`);
    }
  }

  private literal<T>(word: string, v: T): T {
    if (!this.s.startsWith(word, this.i)) this.fail('Unexpected token');
    this.i += word.length;
    return v;
  }

  private object(depth: number): JsonObject {
    const out: JsonObject = {};
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('Expected a string key');
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail("Expected ':'");
      this.i++;
      this.ws();
      const v = this.value(depth + 1);
      if (key === '__proto__') Object.defineProperty(out, key, { value: v, writable: true, enumerable: true, configurable: true });
      else out[key] = v;
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') this.fail("Expected ',' or '}'");
    }
  }

  private array(depth: number): unknown[] {
    const out: unknown[] = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail("Expected ',' or ']'");
    }
  }

  private string(): string {
    const s = this.s;
    const start = this.i;
    let j = start + 1;
    // Find the closing quote, skipping escapes; reject raw control characters as JSON does.
    for (;;) {
      if (j >= s.length) this.fail('Unterminated string');
      const c = s.charCodeAt(j);
      if (c === 0x22) break;
      if (c === 0x5c) j += 2;
      else if (c < 0x20) {
        this.i = j;
        this.fail('Bad control character in string literal');
      } else j++;
    }
    this.i = j + 1;
    try {
      return JSON.parse(s.slice(start, j + 1)) as string;
    } catch {
      this.i = start;
      return this.fail('Bad string literal');
    }
  }

  private number(): number | bigint {
    const s = this.s;
    const start = this.i;
    if (s[this.i] === '-') this.i++;
    const intStart = this.i;
    if (s[this.i] === '0') this.i++;
    else if (s[this.i] !== undefined && s[this.i]! >= '1' && s[this.i]! <= '9') {
      while (this.i < s.length && s[this.i]! >= '0' && s[this.i]! <= '9') this.i++;
    } else this.fail('No number after minus sign');
    let integral = true;
    if (s[this.i] === '.') {
      integral = false;
      this.i++;
      const f = this.i;
      while (this.i < s.length && s[this.i]! >= '0' && s[this.i]! <= '9') this.i++;
      if (this.i === f) this.fail('Unterminated fractional number');
    }
    if (s[this.i] === 'e' || s[this.i] === 'E') {
      integral = false;
      this.i++;
      if (s[this.i] === '+' || s[this.i] === '-') this.i++;
      const e = this.i;
      while (this.i < s.length && s[this.i]! >= '0' && s[this.i]! <= '9') this.i++;
      if (this.i === e) this.fail('Exponent part is missing a number');
    }
    const literal = s.slice(start, this.i);
    if (integral && this.i - intStart > 15) {
      const n = Number(literal);
      return Number.isSafeInteger(n) ? n : BigInt(literal);
    }
    return Number(literal);
  }
}

export interface StringifyOptions {
  /** Write bigint values as JSON strings (browsers' `large-significand-format=string`). */
  int64AsString?: boolean;
}

/**
 * Where `writeJson` puts a value's JSON text, piece by piece: text written as it is
 * (punctuation, numbers, `true`/`false`/`null` — always ASCII) and strings to quote as
 * JSON.stringify quotes them (member names and string values).
 */
export interface JsonSink {
  raw(text: string): void;
  string(text: string): void;
}

/**
 * The JSON text of a value whose int64 fields are `bigint`, into `sink`: JSON.stringify's
 * text (objects with `toJSON` honoured, undefined and function members left out, in arrays
 * `null`), with bigints as numbers or, with `int64AsString`, as strings.
 */
export function writeJson(v: unknown, int64AsString: boolean, sink: JsonSink): void {
  switch (typeof v) {
    case 'string':
      return sink.string(v);
    case 'number':
      return sink.raw(Number.isFinite(v) ? String(v) : 'null');
    case 'bigint':
      return sink.raw(int64AsString ? `"${v}"` : v.toString());
    case 'boolean':
      return sink.raw(v ? 'true' : 'false');
    case 'object': {
      if (v === null) return sink.raw('null');
      if (Array.isArray(v)) {
        sink.raw('[');
        for (let i = 0; i < v.length; i++) {
          if (i > 0) sink.raw(',');
          const item: unknown = v[i];
          writeJson(item === undefined || typeof item === 'function' ? null : item, int64AsString, sink);
        }
        return sink.raw(']');
      }
      const withToJson = v as { toJSON?: () => unknown };
      if (typeof withToJson.toJSON === 'function') return writeJson(withToJson.toJSON(), int64AsString, sink);
      sink.raw('{');
      let first = true;
      for (const key of Object.keys(v)) {
        const item = (v as Record<string, unknown>)[key];
        if (item === undefined || typeof item === 'function') continue;
        if (!first) sink.raw(',');
        first = false;
        sink.string(key);
        sink.raw(':');
        writeJson(item, int64AsString, sink);
      }
      return sink.raw('}');
    }
    default:
      return sink.raw('null');
  }
}

/** JSON text built by concatenation (V8 joins the pieces once, when the text is used). */
class JsonText implements JsonSink {
  text = '';

  raw(text: string): void {
    this.text += text;
  }

  /**
   * A string as JSON.stringify writes it: quoted as it is when nothing in it needs escaping
   * (no control character, `"`, `\\` or surrogate — keys, ids, addresses, Base58), which
   * saves a call into the runtime per key and value; else JSON.stringify's text.
   */
  string(text: string): void {
    const n = text.length;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) {
        this.text += JSON.stringify(text);
        return;
      }
    }
    this.text += '"';
    this.text += text;
    this.text += '"';
  }
}

/** JSON text of a value whose int64 fields are `bigint`. Objects with `toJSON` are honoured. */
export function stringifyJson(value: unknown, options: StringifyOptions = {}): string {
  const out = new JsonText();
  writeJson(value, options.int64AsString === true, out);
  return out.text;
}
