/**
 * A user's key pattern — the `matches` of `GET /addresses/data/{address}`,
 * `GET /contracts/{contractId}`, `GET /confidential-contracts/{contractId}` and the contract
 * gRPC `GetContractKeys` — run in time linear in the key, whatever the pattern.
 *
 * WE compiles `matches` as a Java regular expression and keeps the keys that match it as a
 * whole (`Pattern.matches`). A backtracking engine (Java's, or JavaScript's `RegExp`) takes time
 * exponential in the key for patterns such as `(.|.|.)*!`: one request froze a node for
 * minutes. Here the pattern runs on RE2's automata (the `re2js` port: pure JavaScript, linear
 * time), which read Java's syntax for everything but the features that need backtracking. Those
 * a pattern cannot use; each is refused with WE's 629 naming the pattern and the feature:
 *
 * - lookahead and lookbehind `(?=` `(?!` `(?<=` `(?<!`, atomic groups `(?>`;
 * - back-references `\1`…`\9`, `\k<name>`;
 * - possessive quantifiers `*+` `++` `?+` `{n,m}+`;
 * - character-class union and intersection (a `[` or `&&` inside a class: RE2 would read them as
 *   plain characters, so the pattern would silently mean something else);
 * - `\G` `\Z` `\R` `\X` `\h` `\H` `\v` `\V` `\e` `\c` and octal `\0`;
 * - inline flags other than `i`, `m` and `s` (`x`, `u`, `d`, `U`, `c` change what Java reads).
 *
 * Java's `\uXXXX` and its POSIX classes `\p{Alpha}`, `\p{Digit}`… (and `\p{IsX}` for a script or
 * category X) are taken as Java means them. A pattern longer than MAX_SOURCE_LENGTH, or whose
 * program passes MAX_INSTRUCTIONS (a counted repetition multiplies its body: `(.?){500}`), is
 * refused too: the cost of a match grows with the program as well as the key.
 *
 * Matching many keys gives the event loop a turn whenever a slice of time is used
 * (`keysMatching`), so a long list of keys holds nothing else up either.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { RE2JS, RE2JSException } from 're2js';
import { invalidContractKeysFilter } from '../errors/catalogue.js';
import { InternalError } from '../errors/internal.js';

/** Longest pattern accepted, in UTF-16 units (a few KiB of key patterns is no real use). */
export const MAX_SOURCE_LENGTH = 1000;
/** Largest compiled program accepted: a match over a 100-character key stays within a few ms. */
export const MAX_INSTRUCTIONS = 1000;

/** Java's POSIX character classes (`\p{Alpha}` …), as RE2's `[:alpha:]` … (both ASCII only). */
const POSIX_CLASSES: ReadonlyMap<string, string> = new Map([
  ['Lower', 'lower'],
  ['Upper', 'upper'],
  ['ASCII', 'ascii'],
  ['Alpha', 'alpha'],
  ['Digit', 'digit'],
  ['Alnum', 'alnum'],
  ['Punct', 'punct'],
  ['Graph', 'graph'],
  ['Print', 'print'],
  ['Blank', 'blank'],
  ['Cntrl', 'cntrl'],
  ['XDigit', 'xdigit'],
  ['Space', 'space'],
]);

/** Escapes Java has and RE2 lacks or reads otherwise, with what each is. */
const REFUSED_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['G', 'the end-of-previous-match anchor \\G'],
  ['Z', 'the anchor \\Z'],
  ['R', 'the linebreak matcher \\R'],
  ['X', 'the grapheme cluster \\X'],
  ['h', 'the horizontal whitespace class \\h'],
  ['H', 'the class \\H'],
  ['v', 'the vertical whitespace class \\v'],
  ['V', 'the class \\V'],
  ['e', 'the escape \\e'],
  ['c', 'the control character escape \\c'],
  ['0', 'the octal escape \\0'],
  ['k', 'the named back-reference \\k'],
]);

const TOO_COMPLEX = `too complex (more than ${MAX_INSTRUCTIONS} steps once counted repetitions are spelled out)`;

const ACCEPTED_FLAGS = new Set(['i', 'm', 's', '-']);

/** A pattern that cannot run here, and why. */
class Unsupported extends InternalError {}

/**
 * Java's pattern as RE2 syntax: `\uXXXX` → `\x{XXXX}`, `\p{Alpha}` → `[[:alpha:]]`, `\p{IsL}` →
 * `\p{L}`; throws Unsupported for a feature RE2 cannot run or would read otherwise.
 */
function toRe2Syntax(source: string): string {
  let out = '';
  let i = 0;
  let inClass = false;
  const n = source.length;
  /** After a quantifier: a following `+` would make it possessive. */
  const refusePossessive = (): void => {
    if (source[i] === '+') throw new Unsupported(`the possessive quantifier at ${i}`);
  };
  while (i < n) {
    const c = source[i]!;
    if (c === '\\') {
      const e = source[i + 1];
      if (e === undefined) {
        out += c;
        i++;
        continue;
      }
      if (e === 'Q') {
        if (inClass) throw new Unsupported('a quoted run \\Q…\\E inside a character class');
        // A quoted run is copied whole: nothing in it is syntax.
        const end = source.indexOf('\\E', i + 2);
        const stop = end === -1 ? n : end + 2;
        out += source.slice(i, stop);
        i = stop;
        continue;
      }
      if (e >= '1' && e <= '9') throw new Unsupported(`the back-reference \\${e}`);
      const refused = REFUSED_ESCAPES.get(e);
      if (refused !== undefined) throw new Unsupported(refused);
      if (e === 'u') {
        const hex = source.slice(i + 2, i + 6);
        if (/^[0-9a-fA-F]{4}$/.test(hex)) {
          out += `\\x{${hex}}`;
          i += 6;
          continue;
        }
      }
      if ((e === 'p' || e === 'P') && source[i + 2] === '{') {
        const close = source.indexOf('}', i + 3);
        if (close !== -1) {
          const name = source.slice(i + 3, close);
          const posix = POSIX_CLASSES.get(name);
          if (posix !== undefined) {
            const cls = `[:${e === 'P' ? '^' : ''}${posix}:]`;
            out += inClass ? cls : `[${cls}]`;
            i = close + 1;
            continue;
          }
          if (name.startsWith('Is') && name.length > 2) {
            out += `\\${e}{${name.slice(2)}}`;
            i = close + 1;
            continue;
          }
        }
      }
      out += c + e;
      i += 2;
      continue;
    }
    if (inClass) {
      if (c === '[') throw new Unsupported('a character class inside a class (union)');
      if (c === '&' && source[i + 1] === '&') throw new Unsupported('character class intersection &&');
      if (c === ']') inClass = false;
      out += c;
      i++;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      i++;
      // A `]` right after `[` or `[^` is a member, not the end.
      if (source[i] === '^') out += source[i++];
      if (source[i] === ']') out += source[i++];
      continue;
    }
    if (c === '(' && source[i + 1] === '?') {
      const rest = source.slice(i + 2);
      if (rest.startsWith('=') || rest.startsWith('!')) throw new Unsupported(`the lookahead (?${rest[0]}`);
      if (rest.startsWith('<=') || rest.startsWith('<!')) throw new Unsupported(`the lookbehind (?${rest.slice(0, 2)}`);
      if (rest.startsWith('>')) throw new Unsupported('the atomic group (?>');
      const flags = /^([a-zA-Z-]+)[:)]/.exec(rest);
      if (flags !== null) {
        const bad = [...flags[1]!].find((f) => !ACCEPTED_FLAGS.has(f));
        if (bad !== undefined) throw new Unsupported(`the inline flag ${bad}`);
      }
      out += '(?';
      i += 2;
      continue;
    }
    out += c;
    i++;
    if (c === '*' || c === '+' || c === '?') refusePossessive();
    else if (c === '{') {
      const counted = /^\d+(,\d*)?\}/.exec(source.slice(i));
      if (counted !== null) {
        out += counted[0];
        i += counted[0].length;
        refusePossessive();
      }
    }
  }
  return out;
}

export class KeyPattern {
  private constructor(
    /** The pattern as the user wrote it. */
    readonly source: string,
    private readonly compiled: RE2JS,
  ) {}

  /** Compiles `source`; WE's 629 (naming the pattern, and what here cannot run it) when it cannot be run. */
  static compile(source: string): KeyPattern {
    if (source.length > MAX_SOURCE_LENGTH) throw invalidContractKeysFilter(source, `longer than ${MAX_SOURCE_LENGTH} characters`);
    let syntax: string;
    try {
      syntax = toRe2Syntax(source);
    } catch (e) {
      if (e instanceof Unsupported) throw invalidContractKeysFilter(source, `${e.message} is not supported (patterns run in linear time)`);
      throw e;
    }
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(syntax);
    } catch (e) {
      // RE2 caps a counted repetition at 1000, nested ones included, where Java takes more: too complex, not malformed.
      if (e instanceof RE2JSException) throw invalidContractKeysFilter(source, e.message.includes('invalid repeat count') ? TOO_COMPLEX : undefined);
      throw e;
    }
    if (programSize(compiled) > MAX_INSTRUCTIONS) throw invalidContractKeysFilter(source, TOO_COMPLEX);
    return new KeyPattern(source, compiled);
  }

  /** Whether the whole key matches (Java's `Pattern.matches`). */
  test(key: string): boolean {
    return this.compiled.matches(key);
  }
}

/** The compiled program's instruction count (re2js keeps it on its RE2 object; pinned at 2.10.0). */
function programSize(compiled: RE2JS): number {
  const prog = (compiled as unknown as { re2Input?: { prog?: { inst?: unknown[] } } }).re2Input?.prog?.inst;
  if (prog === undefined) throw new Error('re2js no longer exposes its compiled program: check KeyPattern against the installed version');
  return prog.length;
}

/** How a long piece of work shares the event loop: it asks, as it goes, whether its slice of time is used, and then gives the loop a turn. */
export interface LoopPacer {
  readonly sliceOver: boolean;
  pause(): Promise<void>;
}

/** A LoopPacer of its own: a turn (setImmediate) after each `sliceMs` of work. */
export class TimeSlices implements LoopPacer {
  private sliceStart: number;

  constructor(
    private readonly sliceMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.sliceStart = now();
  }

  get sliceOver(): boolean {
    return this.now() - this.sliceStart >= this.sliceMs;
  }

  async pause(): Promise<void> {
    if (!this.sliceOver) return;
    await nextTurn();
    this.sliceStart = this.now();
  }
}

/**
 * The items whose key matches `pattern` as a whole, in their order, giving the loop a turn
 * whenever the pacer's slice is used (the clock is read after every key: one match can take a
 * millisecond, a clock read tens of nanoseconds).
 */
export async function keysMatching<T>(items: Iterable<T>, keyOf: (item: T) => string, pattern: KeyPattern, pacer: LoopPacer): Promise<T[]> {
  const out: T[] = [];
  for (const item of items) {
    if (pattern.test(keyOf(item))) out.push(item);
    if (pacer.sliceOver) await pacer.pause();
  }
  return out;
}
