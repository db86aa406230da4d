/**
 * WE's RIDE parser (lang `v1/parser/Parser.scala`, reference ride.md §6) transcribed onto
 * the fastparse semantics of parsing.ts: every node with its source position, faults
 * kept as INVALID nodes (they become compile errors), the same texts accepted and the
 * same index reported when a text cannot be parsed at all.
 *
 * Beyond WE: nesting deeper than MAX_NESTING expressions, or more than MAX_UNARY_NESTING
 * unary operators nested in one another, stops with a clear error (WE's recursive parser
 * would overflow the JVM stack; ours would overflow the JS stack).
 */
import { base58Decode, base64Decode, MAX_LITERAL_LENGTH } from './library.js';
import {
  anyChar,
  capture,
  charPred,
  charsWhile,
  either,
  end,
  failureText,
  filter,
  index,
  lazy,
  lit,
  lookahead,
  map,
  noCut,
  not,
  opt,
  pass,
  rep,
  repSep,
  Run,
  seq,
  start,
  type Parser,
} from './parsing.js';
import { InternalError } from '../errors/internal.js';

// ---------------------------------------------------------------------------
// The parsed tree (lang `Expressions`)

export interface Pos {
  readonly start: number;
  readonly end: number;
}

/** AnyPos: a node the compiler synthesizes. */
export const ANY_POS: Pos = { start: -1, end: -1 };
const pos = (start: number, end: number): Pos => ({ start, end });

export type Part<T> = { readonly valid: true; readonly pos: Pos; readonly v: T } | { readonly valid: false; readonly pos: Pos; readonly message: string };

export const valid = <T>(p: Pos, v: T): Part<T> => ({ valid: true, pos: p, v });
const invalidPart = (p: Pos, message: string): Part<never> => ({ valid: false, pos: p, message });

export type BinaryOp = '||' | '&&' | '==' | '!=' | '>=' | '>' | '<=' | '<' | '+' | '-' | '*' | '/' | '%';

export interface Let {
  readonly pos: Pos;
  readonly name: Part<string>;
  readonly value: PExpr;
  readonly types: readonly Part<string>[];
  readonly allowShadowing: boolean;
}

export interface MatchCase {
  readonly pos: Pos;
  /** undefined for `_`. */
  readonly newVarName: Part<string> | undefined;
  readonly types: readonly Part<string>[];
  readonly expr: PExpr;
}

export type PExpr =
  | { readonly t: 'CONST_LONG'; readonly pos: Pos; readonly value: bigint }
  | { readonly t: 'GETTER'; readonly pos: Pos; readonly ref: PExpr; readonly field: Part<string> }
  | { readonly t: 'CONST_BYTEVECTOR'; readonly pos: Pos; readonly value: Part<Uint8Array> }
  | { readonly t: 'CONST_STRING'; readonly pos: Pos; readonly value: Part<string> }
  | { readonly t: 'BINARY_OP'; readonly pos: Pos; readonly a: PExpr; readonly op: BinaryOp; readonly b: PExpr }
  | { readonly t: 'BLOCK'; readonly pos: Pos; readonly let: Let; readonly body: PExpr }
  | { readonly t: 'IF'; readonly pos: Pos; readonly cond: PExpr; readonly ifTrue: PExpr; readonly ifFalse: PExpr }
  | { readonly t: 'REF'; readonly pos: Pos; readonly key: Part<string> }
  | { readonly t: 'TRUE'; readonly pos: Pos }
  | { readonly t: 'FALSE'; readonly pos: Pos }
  | { readonly t: 'FUNCTION_CALL'; readonly pos: Pos; readonly name: Part<string>; readonly args: readonly PExpr[] }
  | { readonly t: 'MATCH'; readonly pos: Pos; readonly expr: PExpr; readonly cases: readonly MatchCase[] }
  | { readonly t: 'INVALID'; readonly pos: Pos; readonly message: string };

const INVALID = (p: Pos, message: string): PExpr => ({ t: 'INVALID', pos: p, message });

/** Thrown out of the parse, as the JVM exception WE's parser would raise (its message becomes the compile error). */
export class ParseAbort extends InternalError {}

/** Parse nesting Weft accepts (see the module comment). */
export const MAX_NESTING = 150;
/**
 * Unary operators nested in one another that Weft parses (see the module comment): more than
 * an 8 KiB script can hold (each compiles to an 11-byte call), so no script WE would take is
 * refused.
 */
export const MAX_UNARY_NESTING = 1000;

// ---------------------------------------------------------------------------
// Grammar

const KEYWORDS = new Set(['let', 'base58', 'base64', 'true', 'false', 'if', 'then', 'else', 'match', 'case']);

const isLower = (c: string): boolean => c >= 'a' && c <= 'z';
const isUpper = (c: string): boolean => c >= 'A' && c <= 'Z';
const isLetter = (c: string): boolean => isLower(c) || isUpper(c);
const isDigit = (c: string): boolean => c >= '0' && c <= '9';

const char = charPred(isLetter);
const digit = charPred(isDigit);

const unicodeSymbolP = seq(lit('\\u'), ['~/', pass], ['~~', repSep(either(char, digit), { ws: false, min: 0, sep: lit(''), max: 4 })]);
const notEndOfString = charPred((c) => c !== '"');
const specialSymbols = seq(lit('\\'), ['~~', anyChar]);
const comment: Parser<unknown> = rep(
  seq(lit('#'), [
    '~~',
    rep(
      charPred((c) => c !== '\n'),
      { ws: false },
    ),
  ]),
  { ws: true },
);

const escapedUnicodeSymbolP = seq(index, ['~~', capture(either<unknown>(noCut(unicodeSymbolP), specialSymbols))], ['~~', index]);

const ESCAPES: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '\\': '\\', '"': '"' };
const VALID_ESCAPES = 'The valid are \b, \f, \n, \r, \t';

/** The string literal's pieces (each an escape or a character) as WE validates them. */
function stringValue(xs: readonly string[], p: Pos): Part<string> {
  const errors: string[] = [];
  let consumed = '';
  for (const x of xs) {
    if (x.startsWith('\\u')) {
      if (x.length === 6) {
        const hexCode = x.slice(2);
        if (/^[0-9a-fA-F]{4}$/.test(hexCode)) consumed += String.fromCharCode(parseInt(hexCode, 16));
        else {
          consumed += x;
          errors.push(`can't parse '${hexCode}' as HEX string in '${x}'`);
        }
      } else {
        consumed += x;
        errors.push(`incomplete UTF-8 symbol definition: '${x}'`);
      }
    } else if (x.startsWith('\\')) {
      if (x.length === 2) {
        const e = ESCAPES[x[1]!];
        if (e !== undefined) consumed += e;
        else {
          errors.push(`unknown escaped symbol: '${x}'. ${VALID_ESCAPES}`);
          consumed += x;
        }
      } else {
        consumed += x;
        errors.push(`invalid escaped symbol: '${x}'. ${VALID_ESCAPES}`);
      }
    } else consumed += x;
  }
  return errors.length === 0 ? valid(p, consumed) : invalidPart(p, errors.join(';'));
}

const stringP: Parser<PExpr> = map(
  seq(
    index,
    ['~~', lit('"')],
    ['~/', pass],
    ['~~', rep(capture(either<unknown>(escapedUnicodeSymbolP, notEndOfString)), { ws: false })],
    ['~~', lit('"')],
    ['~~', index],
  ),
  ([s, , , xs, , e]) => ({ t: 'CONST_STRING', pos: pos(s, e), value: stringValue(xs, pos(s + 1, e - 1)) }),
);

const nameText = capture(seq(char, ['~~', rep(either(digit, char), { ws: false })]));

const correctVarName: Parser<Part<string>> = map(
  filter(seq(index, ['~~', nameText], ['~~', index]), ([, x]) => !KEYWORDS.has(x)),
  ([s, x, e]) => valid(pos(s, e), x),
);

const anyVarName: Parser<Part<string>> = map(seq(index, ['~~', nameText], ['~~', index]), ([s, x, e]) =>
  KEYWORDS.has(x) ? invalidPart(pos(s, e), `keywords are restricted: ${x}`) : valid(pos(s, e), x),
);

/** Anything up to the end of the line: "can't parse the expression" (no whitespace skipping). */
const invalid: Parser<PExpr> = map(
  seq(
    index,
    [
      '~~',
      rep(
        charPred((c) => c !== '\n'),
        { ws: false, min: 1 },
      ),
    ],
    ['~~', index],
  ),
  ([s, , e]) => INVALID(pos(s, e), "can't parse the expression"),
);

const border = charPred((c) => ' \t\n\r({'.includes(c));

/** Long.parseLong, with Java's exception text when the value does not fit. */
function parseLong(text: string): bigint {
  const v = BigInt(text);
  if (v < -(2n ** 63n) || v >= 2n ** 63n) throw new ParseAbort(`For input string: "${text}"`);
  return v;
}

const numberP: Parser<PExpr> = map(
  seq(
    index,
    ['~~', capture(seq(opt(charPred((c) => c === '+' || c === '-')), ['~~', rep(digit, { ws: false, min: 1 })]))],
    [
      '~~',
      rep(
        map(seq(lit('_'), ['~~', capture(rep(digit, { ws: false, min: 1 }))]), ([, d]) => d),
        { ws: false, min: 0 },
      ),
    ],
    ['~~', index],
  ),
  ([s, x1, x2, e]) => ({ t: 'CONST_LONG', pos: pos(s, e), value: parseLong(x2.reduce((a, b) => a + b, x1)) }),
);

const keywordLiteral = (word: 'true' | 'false'): Parser<PExpr> =>
  map(seq(index, ['~~', lit(word)], ['~~', not(either(char, digit))], ['~~', index]), ([s, , , e]) => ({
    t: word === 'true' ? 'TRUE' : 'FALSE',
    pos: pos(s, e),
  }));
const trueP = keywordLiteral('true');
const falseP = keywordLiteral('false');

const baseExpr: Parser<PExpr> = lazy(() => guardedBaseExpr);

const bracesP = map(seq(lit('('), ['~', baseExpr], ['~', lit(')')]), ([, e]) => e);
const curlyBracesP = map(seq(lit('{'), ['~', baseExpr], ['~', lit('}')]), ([, e]) => e);

const refP: Parser<PExpr> = map(correctVarName, (x) => ({ t: 'REF', pos: x.pos, key: x }));

const optionalPart = (keyword: string, branch: string): Parser<PExpr> =>
  map(seq(index, ['~', opt(seq(lit(keyword), ['~/', index], ['~', opt(baseExpr)]))]), ([p, raw]) => {
    if (raw === undefined) return INVALID(pos(p, p), `expected a ${branch} branch`);
    const [, at, e] = raw;
    return e ?? INVALID(pos(at, at), `expected a ${branch} branch's expression`);
  });

const ifP: Parser<PExpr> = either<PExpr>(
  map(
    seq(
      index,
      ['~~', lit('if')],
      ['~~', lookahead(border)],
      ['~/', index],
      ['~', opt(baseExpr)],
      ['~', optionalPart('then', 'true')],
      ['~', optionalPart('else', 'false')],
      ['~~', index],
    ),
    ([s, , , condPos, cond, ifTrue, ifFalse, e]) => ({
      t: 'IF',
      pos: pos(s, e),
      cond: cond ?? INVALID(pos(condPos, condPos), 'expected a condition'),
      ifTrue,
      ifFalse,
    }),
  ),
  map(
    seq(index, ['~~', lit('then')], ['~~', lookahead(border)], ['~/', index], ['~', opt(baseExpr)], ['~', optionalPart('else', 'false')], ['~~', index]),
    ([s, , , p, ifTrue, ifFalse, e]) => ({
      t: 'IF',
      pos: pos(s, e),
      cond: INVALID(pos(s, s), 'expected a condition'),
      ifTrue: ifTrue ?? INVALID(pos(p, p), "expected a true branch's expression"),
      ifFalse,
    }),
  ),
  map(seq(index, ['~~', lit('else')], ['~~', lookahead(border)], ['~/', index], ['~', opt(baseExpr)], ['~~', index]), ([s, , , p, ifFalse, e]) => ({
    t: 'IF',
    pos: pos(s, e),
    cond: INVALID(pos(s, s), 'expected a condition'),
    ifTrue: INVALID(pos(s, s), 'expected a true branch'),
    ifFalse: ifFalse ?? INVALID(pos(p, p), "expected a false branch's expression"),
  })),
);

const functionCallArgs: Parser<PExpr[]> = map(
  seq(comment, ['~', repSep(baseExpr, { ws: true, sep: seq(comment, ['~', lit(',')], ['~', comment]) })], ['~', comment]),
  ([, args]) => args,
);

const maybeFunctionCallP: Parser<PExpr> = map(
  seq(index, ['~~', refP], ['~~', opt(map(seq(lit('('), ['~/', functionCallArgs], ['~', lit(')')]), ([, a]) => a))], ['~~', index]),
  ([s, ref, args, e]): PExpr => (args !== undefined && ref.t === 'REF' ? { t: 'FUNCTION_CALL', pos: pos(s, e), name: ref.key, args } : ref),
);

const extractableAtom = either<PExpr>(curlyBracesP, bracesP, maybeFunctionCallP);

const restMatchCaseInvalidP = capture(rep(seq(not(lit('=>')), ['~~', anyChar]), { ws: false }));

const matchCaseP: Parser<MatchCase> = (() => {
  const varDefP = either<Part<string> | undefined>(
    anyVarName,
    map(lit('_'), () => undefined),
  );
  const typesP = repSep(anyVarName, { ws: true, min: 1, sep: seq(comment, ['~', lit('|')], ['~', comment]) });
  const typesDefP = map(
    opt(
      map(
        seq(
          lit(':'),
          ['~', comment],
          [
            '~',
            either<Part<string>[]>(
              typesP,
              map(seq(index, ['~~', restMatchCaseInvalidP], ['~~', index]), ([s, , e]) => [
                invalidPart(pos(s, e), 'the type for variable should be specified: `case varName: Type => expr`'),
              ]),
            ),
          ],
        ),
        ([, , types]) => types,
      ),
    ),
    (types) => types ?? [],
  );
  const head = either<readonly [Part<string> | undefined, Part<string>[]]>(
    map(seq(varDefP, ['~', comment], ['~', typesDefP]), ([v, , types]) => [v, types] as const),
    map(
      seq(index, ['~~', restMatchCaseInvalidP], ['~~', index]),
      ([s, , e]) => [invalidPart(pos(s, e), 'invalid syntax, should be: `case varName: Type => expr` or `case _ => expr`'), [] as Part<string>[]] as const,
    ),
  );
  return map(
    seq(
      index,
      ['~~', lit('case')],
      ['~~', lookahead(border)],
      ['~', comment],
      ['~/', head],
      ['~', comment],
      ['~', lit('=>')],
      ['~/', opt(baseExpr)],
      ['~~', index],
    ),
    ([s, , , , [v, types], , , e, end]) => {
      const last = types.length > 0 ? types[types.length - 1] : v;
      const exprStart = last === undefined ? s : last.pos.end;
      return { pos: pos(s, end), newVarName: v, types, expr: e ?? INVALID(pos(exprStart, end), 'expected expression') };
    },
  );
})();

const matchP: Parser<PExpr> = map(
  seq(
    index,
    ['~~', lit('match')],
    ['~~', lookahead(border)],
    ['~/', baseExpr],
    ['~', lit('{')],
    ['~', comment],
    ['~', repSep(matchCaseP, { ws: true, sep: comment })],
    ['~', comment],
    ['~', lit('}')],
    ['~~', index],
  ),
  ([s, , , e, , , cases, , , end]): PExpr =>
    cases.length === 0 ? INVALID(pos(s, end), 'pattern matching requires case branches') : { t: 'MATCH', pos: pos(s, end), expr: e, cases },
);

type Accessor = { readonly getter: Part<string> } | { readonly index: PExpr };

const accessP = either<readonly [number, Accessor, number]>(
  map(
    seq(lit(''), ['~', comment], ['~', index], ['~', lit('.')], ['~/', comment], ['~', anyVarName], ['~~', index]),
    ([, , s, , , name, e]) => [s, { getter: name }, e] as const,
  ),
  map(seq(index, ['~~', lit('[')], ['~/', baseExpr], ['~', lit(']')], ['~~', index]), ([s, , i, , e]) => [s, { index: i }, e] as const),
);

const maybeAccessP: Parser<PExpr> = map(
  seq(index, ['~~', extractableAtom], ['~~', index], ['~~', rep(noCut(accessP), { ws: true })]),
  ([s, obj, , accessors]) =>
    accessors.reduce<PExpr>(
      (e, [accessStart, a, accessEnd]) =>
        'getter' in a
          ? { t: 'GETTER', pos: pos(s, accessEnd), ref: e, field: a.getter }
          : { t: 'FUNCTION_CALL', pos: pos(s, accessEnd), name: valid(pos(accessStart, accessEnd), 'getElement'), args: [e, a.index] },
      obj,
    ),
);

const byteVectorP: Parser<PExpr> = map(
  seq(
    index,
    ['~~', lit('base')],
    ['~~', capture(either(lit('58'), lit('64')))],
    ['~~', lit("'")],
    ['~/', pass],
    [
      '~~',
      capture(
        rep(
          charPred((c) => c !== "'"),
          { ws: false },
        ),
      ),
    ],
    ['~~', lit("'")],
    ['~~', index],
  ),
  ([s, , base, , , xs, , e]) => {
    const inner = pos(s + 8, e - 1);
    const d = base === '58' ? base58Decode(xs, MAX_LITERAL_LENGTH) : base64Decode(xs, MAX_LITERAL_LENGTH);
    return { t: 'CONST_BYTEVECTOR', pos: pos(s, e), value: typeof d === 'string' ? invalidPart(inner, d) : valid(inner, d) };
  },
);

const letP: Parser<Let> = map(
  seq(
    index,
    ['~~', lit('let')],
    ['~~', lookahead(charPred((c) => ' \t\n\r'.includes(c)))],
    ['~/', comment],
    ['~', index],
    ['~', opt(anyVarName)],
    ['~', comment],
    ['~', index],
    ['~', opt(seq(lit('='), ['~/', index], ['~', opt(baseExpr)]))],
    ['~~', index],
  ),
  ([s, , , , namePos, nameRaw, , valuePos, valueRaw, e]) => ({
    pos: pos(s, e),
    name: nameRaw ?? invalidPart(pos(namePos, namePos), "expected a variable's name"),
    value:
      valueRaw === undefined
        ? INVALID(pos(valuePos, valuePos), 'expected a value')
        : (valueRaw[2] ?? INVALID(pos(valueRaw[1], valueRaw[1]), "expected a value's expression")),
    types: [],
    allowShadowing: false,
  }),
);

/** One or more newlines, each after optional spaces, tabs or CRs. */
const newLineSep = rep(
  seq(
    rep(
      charsWhile((c) => c === ' ' || c === '\t' || c === '\r'),
      { ws: false },
    ),
    ['~~', lit('\n')],
  ),
  { ws: false, min: 1 },
);

const bodyOrInvalid = opt(either(baseExpr, invalid));

const block: Parser<PExpr> = map(
  seq(
    index,
    ['~~', rep(letP, { ws: true, min: 1 })],
    ['~/', pass],
    [
      '~~',
      either<PExpr | undefined>(
        map(seq(seq(lit(''), ['~', lit(';')]), ['~/', bodyOrInvalid]), ([, b]) => b),
        map(seq(newLineSep, ['~/', bodyOrInvalid]), ([, b]) => b),
        map(
          seq(index, [
            '~~',
            rep(
              charPred((c) => c !== '\n'),
              { ws: false },
            ),
          ]),
          ([p]) => INVALID(pos(p, p), "expected ';'"),
        ),
      ),
    ],
    ['~~', index],
  ),
  ([s, lets, , body, e]) =>
    lets.reduceRight<PExpr>((acc, l) => ({ t: 'BLOCK', pos: pos(s, e), let: l, body: acc }), body ?? INVALID(pos(e, e), 'expected a body')),
);

const baseAtom: Parser<PExpr> = map(
  seq(comment, ['~', either<PExpr>(ifP, matchP, block, byteVectorP, stringP, numberP, trueP, falseP, block, maybeAccessP)], ['~', comment]),
  ([, e]) => e,
);

const OPS_BY_PRIORITY: ReadonlyArray<ReadonlyArray<readonly [BinaryOp, Parser<unknown>]>> = [
  [
    ['||', lit('||')],
    ['&&', lit('&&')],
  ],
  [
    ['==', lit('==')],
    ['!=', lit('!=')],
  ],
  [
    ['>', seq(lit('>'), ['~', not(lit('='))])],
    ['>=', lit('>=')],
    ['<', seq(lit('<'), ['~', not(lit('='))])],
    ['<=', lit('<=')],
  ],
  [
    ['+', lit('+')],
    ['-', lit('-')],
  ],
  [
    ['*', lit('*')],
    ['/', lit('/')],
    ['%', lit('%')],
  ],
];

const unaryNegative = seq(lit('-'), ['~', not(charPred(isDigit))]);
const unaryNot = lit('!');

/** A unary operator's operand, with Weft's nesting guard. */
const unaryOperand: Parser<PExpr> = (r: Run): void => {
  if (++r.unaryDepth > MAX_UNARY_NESTING) throw new ParseAbort(`Script is too deeply nested: more than ${MAX_UNARY_NESTING} nested unary operators`);
  try {
    unaryOp(r);
  } finally {
    r.unaryDepth--;
  }
};

/** The unary operators over an atom: `-x` (not before a digit), `!x`. */
const unaryOp: Parser<PExpr> = either<PExpr>(
  map(seq(index, ['~~', unaryNegative], ['~', unaryOperand], ['~~', index]), ([s, , e, end]) => ({
    t: 'FUNCTION_CALL',
    pos: pos(s, end),
    name: valid(pos(s, end), '-'),
    args: [e],
  })),
  map(seq(index, ['~~', unaryNot], ['~', unaryOperand], ['~~', index]), ([s, , e, end]) => ({
    t: 'FUNCTION_CALL',
    pos: pos(s, end),
    name: valid(pos(s, end), '!'),
    args: [e],
  })),
  baseAtom,
);

function binaryNode(start: number, end: number, a: PExpr, op: BinaryOp, b: PExpr): PExpr {
  // `a < b` is `b > a`, `a <= b` is `b >= a`.
  if (op === '<') return { t: 'BINARY_OP', pos: pos(start, end), a: b, op: '>', b: a };
  if (op === '<=') return { t: 'BINARY_OP', pos: pos(start, end), a: b, op: '>=', b: a };
  return { t: 'BINARY_OP', pos: pos(start, end), a, op, b };
}

function binaryOp(level: number): Parser<PExpr> {
  const kinds = OPS_BY_PRIORITY[level];
  if (kinds === undefined) return unaryOp;
  const operand = binaryOp(level + 1);
  const kind = either<BinaryOp>(...kinds.map(([op, p]) => map(p, () => op)));
  const rhs = either<PExpr>(
    noCut(operand),
    map(index, (i) => INVALID(pos(i, i), 'expected a second operator')),
  );
  return map(seq(index, ['~~', operand], ['~', rep(seq(kind, ['~', rhs]), { ws: true })]), ([s, left, rest]) =>
    rest.reduce((acc, [op, b]) => binaryNode(s, b.pos.end, acc, op, b), left),
  );
}

const unguardedBaseExpr = binaryOp(0);

/** baseExpr with Weft's nesting guard. */
const guardedBaseExpr: Parser<PExpr> = (r: Run): void => {
  if (++r.depth > MAX_NESTING) throw new ParseAbort(`Script is too deeply nested: more than ${MAX_NESTING} nested expressions`);
  try {
    unguardedBaseExpr(r);
  } finally {
    r.depth--;
  }
};

const scriptP = map(seq(start, ['~', either<PExpr>(baseExpr, invalid)], ['~', end]), ([, e]) => e);

export type ParseResult = { readonly ok: true; readonly expr: PExpr } | { readonly ok: false; readonly index: number; readonly message: string };

/** Parser.apply: the whole text as one expression, or fastparse's failure. Throws ParseAbort. */
export function parse(input: string): ParseResult {
  const r = new Run(input);
  scriptP(r);
  if (r.ok) return { ok: true, expr: r.value as PExpr };
  return { ok: false, index: r.index, message: failureText(input, r.index) };
}

export { charsWhile };
