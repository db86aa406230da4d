/**
 * The parsing machinery WE's RIDE parser is written in (fastparse 2.2.4, non-verbose
 * mode), re-implemented with the same semantics, so that a grammar transcribed onto it
 * accepts the same texts, builds the same nodes at the same positions and fails at the
 * same index: sequences that give back whitespace when their right side consumes
 * nothing, cuts that stop backtracking, repetitions that give back a trailing separator,
 * lookaheads, captures. Each parser is a function over one mutable Run.
 */

export class Run {
  index = 0;
  ok = true;
  value: unknown = undefined;
  cut = false;
  /** Nesting of the grammar's recursive expression parser (guarded by the grammar). */
  depth = 0;
  /** Nesting of its unary operators (guarded by the grammar). */
  unaryDepth = 0;

  constructor(readonly input: string) {}
}

export type Parser<T> = ((r: Run) => void) & { readonly __value?: T };

const make = <T>(f: (r: Run) => void): Parser<T> => f;

function succeed(r: Run, value: unknown, index = r.index): void {
  r.ok = true;
  r.value = value;
  r.index = index;
}

function fail(r: Run, index = r.index): void {
  r.ok = false;
  r.index = index;
}

/** MultiLineWhitespace: spaces, tabs, CR and LF. */
function skipWhitespace(r: Run): void {
  const s = r.input;
  let i = r.index;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) break;
    i++;
  }
  r.index = i;
}

// ---------------------------------------------------------------------------
// Terminals

export function lit(s: string): Parser<undefined> {
  return make((r) => {
    if (r.input.startsWith(s, r.index)) succeed(r, undefined, r.index + s.length);
    else fail(r);
  });
}

/** CharPred / CharIn: one character satisfying `p`. */
export function charPred(p: (c: string) => boolean): Parser<undefined> {
  return make((r) => {
    if (r.index < r.input.length && p(r.input[r.index]!)) succeed(r, undefined, r.index + 1);
    else fail(r);
  });
}

/** CharsWhileIn / CharsWhile: at least `min` characters satisfying `p`. */
export function charsWhile(p: (c: string) => boolean, min = 1): Parser<undefined> {
  return make((r) => {
    const start = r.index;
    let i = start;
    while (i < r.input.length && p(r.input[i]!)) i++;
    if (i - start >= min) succeed(r, undefined, i);
    else fail(r);
  });
}

export const anyChar: Parser<undefined> = charPred(() => true);

export const end: Parser<undefined> = make((r) => {
  if (r.index >= r.input.length) succeed(r, undefined);
  else fail(r);
});

export const start: Parser<undefined> = make((r) => {
  if (r.index === 0) succeed(r, undefined);
  else fail(r);
});

export const pass: Parser<undefined> = make((r) => succeed(r, undefined));

/** Index: the current position. */
export const index: Parser<number> = make((r) => succeed(r, r.index));

// ---------------------------------------------------------------------------
// Combinators

/** How a step joins the previous ones: `~` (whitespace), `~~` (none), `~/`, `~~/` (and cut). */
export type Joint = '~' | '~~' | '~/' | '~~/';

type Values<S extends readonly unknown[]> = { [K in keyof S]: S[K] extends readonly [Joint, Parser<infer T>] ? T : S[K] extends Parser<infer T> ? T : never };

/**
 * A left-nested sequence `p0 j1 p1 j2 p2 …`; the value holds every step's value. When a
 * step succeeds without consuming input (and input remains), the whitespace consumed
 * before it is given back.
 */
export function seq<S extends readonly [Parser<unknown>, ...Array<readonly [Joint, Parser<unknown>]>]>(...steps: S): Parser<Values<S>> {
  const first = steps[0];
  const rest = steps.slice(1) as unknown as ReadonlyArray<readonly [Joint, Parser<unknown>]>;
  return make((r) => {
    first(r);
    if (!r.ok) return;
    const values: unknown[] = [r.value];
    for (const [joint, p] of rest) {
      const postLhs = r.index;
      const cut = joint === '~/' || joint === '~~/';
      if (cut) r.cut = true;
      if (joint === '~' || joint === '~/') skipWhitespace(r);
      const preRhs = r.index;
      p(r);
      if (!r.ok) {
        if (cut) r.cut = true;
        return;
      }
      if (r.index <= preRhs && r.index < r.input.length) r.index = postLhs;
      values.push(r.value);
    }
    succeed(r, values);
  });
}

/** `a | b | …`: the first alternative that succeeds; no backtracking past a cut. */
export function either<T>(...alternatives: ReadonlyArray<Parser<T>>): Parser<T> {
  return make((r) => {
    const oldCut = r.cut;
    const startPos = r.index;
    for (const p of alternatives) {
      r.cut = false;
      r.index = startPos;
      p(r);
      if (r.ok) {
        r.cut = r.cut || oldCut;
        return;
      }
      if (r.cut) return;
    }
    r.cut = oldCut;
    fail(r, startPos);
  });
}

/** `p.?`: undefined when `p` fails without a cut. */
export function opt<T>(p: Parser<T>): Parser<T | undefined> {
  return make((r) => {
    const startPos = r.index;
    const startCut = r.cut;
    r.cut = false;
    p(r);
    if (r.ok) r.cut = r.cut || startCut;
    else if (!r.cut) {
      succeed(r, undefined, startPos);
      r.cut = startCut;
    }
  });
}

/**
 * `.rep` / `.repX` / `.rep(min)` / `.repX(min)` (fastparse's macro repetition), with
 * whitespace between repetitions when `ws`.
 */
export function rep<T>(p: Parser<T>, options: { ws: boolean; min?: number }): Parser<T[]> {
  const { ws, min } = options;
  return make((r) => {
    let originalCut = r.cut;
    const acc: T[] = [];
    let startIndex = r.index;
    let count = 0;
    for (;;) {
      r.cut = min === undefined ? false : originalCut && count < min;
      p(r);
      originalCut = originalCut || r.cut;
      if (!r.ok) {
        if (r.cut) return;
        if (min !== undefined && count < min) {
          fail(r, startIndex);
          r.cut = originalCut;
        } else {
          succeed(r, acc, startIndex);
          r.cut = originalCut;
        }
        return;
      }
      const beforeSep = r.index;
      acc.push(r.value as T);
      r.cut = false;
      if (ws) skipWhitespace(r);
      r.cut = false;
      startIndex = beforeSep;
      count++;
    }
  });
}

/** `.rep(min, sep, max)` / `.repX(min, sep, max)` (fastparse's RepImpls). */
export function repSep<T>(p: Parser<T>, options: { ws: boolean; min?: number; sep?: Parser<unknown>; max?: number }): Parser<T[]> {
  const { ws, sep } = options;
  const min = options.min ?? 0;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  return make((r) => {
    const acc: T[] = [];
    let startIndex = r.index;
    let count = 0;
    let precut = false;
    let outerCut = r.cut;
    const end = (successIndex: number, index: number, n: number, endCut: boolean): void => {
      if (n < min) fail(r, index);
      else succeed(r, acc, successIndex);
      r.cut = endCut;
    };
    for (;;) {
      r.cut = precut || (count < min && outerCut);
      if (count === 0 && max === 0) {
        succeed(r, acc, startIndex);
        return;
      }
      p(r);
      const postCut = r.cut;
      if (!r.ok) {
        if (!postCut) end(startIndex, startIndex, count, outerCut || postCut);
        return;
      }
      const beforeSep = r.index;
      acc.push(r.value as T);
      const next = count + 1;
      if (next === max) {
        end(beforeSep, beforeSep, next, outerCut || postCut);
        return;
      }
      if (ws) skipWhitespace(r);
      r.cut = false;
      if (sep === undefined) {
        outerCut = outerCut || postCut;
        precut = false;
      } else {
        sep(r);
        const sepCut = r.cut;
        const endCut = outerCut || postCut || sepCut;
        if (!r.ok) {
          if (sepCut) {
            fail(r, beforeSep);
            r.cut = endCut;
          } else end(beforeSep, beforeSep, next, endCut);
          return;
        }
        if (ws) skipWhitespace(r);
        outerCut = endCut;
        precut = sepCut;
      }
      startIndex = beforeSep;
      count = next;
    }
  });
}

/** `p.!`: the text `p` consumed. */
export function capture(p: Parser<unknown>): Parser<string> {
  return make((r) => {
    const startPos = r.index;
    p(r);
    if (r.ok) r.value = r.input.slice(startPos, r.index);
  });
}

export function map<T, U>(p: Parser<T>, f: (v: T) => U): Parser<U> {
  return make((r) => {
    p(r);
    if (r.ok) r.value = f(r.value as T);
  });
}

/** `p.filter(f)`: fails (where `p` ended) when `f` rejects the value. */
export function filter<T>(p: Parser<T>, f: (v: T) => boolean): Parser<T> {
  return make((r) => {
    p(r);
    if (r.ok && !f(r.value as T)) r.ok = false;
  });
}

/** `&(p)`: succeeds where `p` would, consuming nothing. */
export function lookahead(p: Parser<unknown>): Parser<undefined> {
  return make((r) => {
    const startPos = r.index;
    const startCut = r.cut;
    p(r);
    if (r.ok) succeed(r, undefined, startPos);
    r.cut = startCut;
  });
}

/** `!p`: succeeds where `p` fails, consuming nothing. */
export function not(p: Parser<unknown>): Parser<undefined> {
  return make((r) => {
    const startPos = r.index;
    const startCut = r.cut;
    p(r);
    if (r.ok) fail(r, startPos);
    else succeed(r, undefined, startPos);
    r.cut = startCut;
  });
}

/** NoCut(p): cuts inside `p` do not reach the enclosing alternatives. */
export function noCut<T>(p: Parser<T>): Parser<T> {
  return make((r) => {
    const cut = r.cut;
    p(r);
    r.cut = cut;
  });
}

/** A parser defined later (recursive grammars). */
export function lazy<T>(get: () => Parser<T>): Parser<T> {
  let p: Parser<T> | undefined;
  return make((r) => (p ??= get())(r));
}

// ---------------------------------------------------------------------------
// Failures as fastparse renders them

/** Util.lineNumberLookup: where each line starts. */
function lineStarts(data: string): number[] {
  const starts: number[] = [];
  let col = 1;
  let prev: string | undefined;
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (c === '\r') {
      if (prev !== '\n' && col === 1) starts.push(i);
      col = 1;
    } else if (c === '\n') {
      if (prev !== '\r' && col === 1) starts.push(i);
      col = 1;
    } else {
      if (col === 1) starts.push(i);
      col++;
    }
    prev = c;
  }
  if (col === 1) starts.push(data.length);
  return starts;
}

/** IndexedParserInput.prettyIndex: `line:column`, both from 1. */
export function prettyIndex(data: string, index: number): string {
  const starts = lineStarts(data);
  const n = starts.findIndex((s) => s > index);
  const line = n === -1 ? starts.length - 1 : Math.max(0, n - 1);
  return `${line + 1}:${index - starts[line]! + 1}`;
}

/** Util.literalize: a Scala string literal of the text. */
export function literalize(s: string): string {
  let out = '"';
  for (const c of s) {
    switch (c) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      default:
        out += c < ' ' ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c;
    }
  }
  return `${out}"`;
}

/** Parsed.Failure.toString in non-verbose mode. */
export function failureText(input: string, index: number): string {
  return `Parsed.Failure(Position ${prettyIndex(input, index)}, found ${literalize(input.slice(index, index + 10))})`;
}
