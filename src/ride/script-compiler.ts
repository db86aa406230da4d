/**
 * From RIDE source to script bytes, as WE's ScriptCompiler does it (reference ride.md §6,
 * §7, §1): directives (`{-# LANGUAGE_VERSION n #-}`; every line containing `{-#` is
 * dropped before parsing), the parser, the compiler against the account or asset context
 * of that version, then ScriptV1's limits — complexity ≤ 2000, whole script ≤ 8192 bytes.
 * Every failure is one message (the API answers it as error 305).
 */
import { buildContext, MAX_SCRIPT_COMPLEXITY, type RideContext, type ScriptVersion } from './context.js';
import { compileTree, CompileError } from './compiler.js';
import type { Expr } from './expr.js';
import { ParseAbort, parse } from './parser.js';
import { capture, charPred, lit, rep, Run, seq } from './parsing.js';
import { MAX_SCRIPT_SIZE, SCRIPT_CHECKSUM_LENGTH, scriptBody, scriptComplexity, withChecksum, type ScriptCrypto } from './script.js';
import { serializeExpr } from './serde.js';
import { ScalaMatchError } from './types.js';

/** Account and asset compile contexts of both versions (signatures only: the chain id does not matter). */
const COMPILE_CONTEXTS: Readonly<Record<ScriptVersion, { account: RideContext; asset: RideContext }>> = {
  1: { account: buildContext(1, false, 0), asset: buildContext(1, true, 0) },
  2: { account: buildContext(2, false, 0), asset: buildContext(2, true, 0) },
};

// ---------------------------------------------------------------------------
// Directives (lang DirectiveParser)

const WHITESPACE = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const directiveP = seq(
  rep(charPred(WHITESPACE), { ws: true }),
  ['~', lit('{-#')],
  [
    '~',
    capture(
      rep(
        charPred((c) => /[a-zA-Z0-9_]/.test(c)),
        { ws: false, min: 1 },
      ),
    ),
  ],
  [
    '~',
    capture(
      rep(
        charPred((c) => /[a-zA-Z0-9/.,]/.test(c)),
        { ws: false, min: 1 },
      ),
    ),
  ],
  ['~', lit('#-}')],
  ['~', rep(charPred(WHITESPACE), { ws: true })],
);

/** Java's `split("\n")`: trailing empty strings dropped. */
function javaSplitLines(text: string): string[] {
  const parts = text.split('\n');
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts.length === 1 && parts[0] === '' ? [''] : parts;
}

/** The values of the LANGUAGE_VERSION directives, in order (other keys are ignored). */
export function languageVersionDirectives(text: string): string[] {
  const out: string[] = [];
  for (const line of javaSplitLines(text)) {
    const r = new Run(line);
    directiveP(r);
    if (!r.ok) continue;
    const [, , key, value] = r.value as [unknown, unknown, string, string];
    if (key === 'LANGUAGE_VERSION') out.push(value);
  }
  return out;
}

/** Scala 2.12's `linesIterator`: lines end at LF or FF; the terminator (and a CR before an LF) is dropped. */
export function scalaLines(text: string): string[] {
  const lines: string[] = [];
  let i = 0;
  while (i < text.length) {
    const start = i;
    while (i < text.length && text[i] !== '\n' && text[i] !== '\f') i++;
    i++;
    let line = text.slice(start, Math.min(i, text.length));
    const last = line[line.length - 1];
    if (last === '\n' || last === '\f') line = line.slice(0, last === '\n' && line.length >= 2 && line[line.length - 2] === '\r' ? -2 : -1);
    lines.push(line);
  }
  return lines;
}

/** Integer.parseInt. */
function javaParseInt(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const v = Number(text);
  return v >= -2147483648 && v <= 2147483647 ? v : undefined;
}

// ---------------------------------------------------------------------------
// Compiling

export interface CompiledScript {
  readonly version: ScriptVersion;
  readonly expr: Expr;
  /** version ‖ expression ‖ checksum. */
  readonly bytes: Uint8Array;
  readonly complexity: number;
}

export type CompileResult = { readonly ok: true; readonly script: CompiledScript } | { readonly ok: false; readonly error: string };

/** CompilerV1.compile: the expression of a source text without directives, or WE's message. */
export function compileExpression(source: string, context: RideContext): { ok: true; expr: Expr } | { ok: false; error: string } {
  try {
    const parsed = parse(source);
    if (!parsed.ok) return { ok: false, error: parsed.message };
    const typed = compileTree(context, parsed.expr);
    if (typed.type.k !== 'BOOLEAN') return { ok: false, error: 'Script should return boolean' };
    return { ok: true, expr: typed.expr };
  } catch (e) {
    if (e instanceof CompileError || e instanceof ParseAbort || e instanceof ScalaMatchError) return { ok: false, error: e.message };
    // Input nested beyond what the stack holds: WE's parser overflows as well.
    if (e instanceof RangeError) return { ok: false, error: 'Script is too deeply nested' };
    throw e;
  }
}

/** ScriptCompiler.apply: source → script bytes and complexity, or WE's message. */
export function compileScript(text: string, options: { assetScript: boolean; crypto: ScriptCrypto }): CompileResult {
  const compiled = compileScriptBody(text, options.assetScript);
  if (!compiled.ok) return compiled;
  const { version, expr, body, complexity } = compiled.script;
  return { ok: true, script: { version, expr, bytes: withChecksum(body, options.crypto), complexity } };
}

/** A compiled script before its checksum: `body` is version ‖ serialized expression. */
export interface CompiledScriptBody {
  readonly version: ScriptVersion;
  readonly expr: Expr;
  readonly body: Uint8Array;
  readonly complexity: number;
}

/**
 * ScriptCompiler.apply up to the checksum (the one step that needs the network's crypto):
 * every check, the size one included, is made here.
 */
export function compileScriptBody(
  text: string,
  assetScript: boolean,
): { readonly ok: true; readonly script: CompiledScriptBody } | { readonly ok: false; readonly error: string } {
  const directives = languageVersionDirectives(text);
  const source = scalaLines(text)
    .filter((l) => !l.includes('{-#'))
    .join('\n');
  let version: ScriptVersion = 1;
  if (directives.length > 0) {
    const v = javaParseInt(directives[0]!);
    if (v === undefined) return { ok: false, error: "Can't parse language version" };
    if (v !== 1 && v !== 2) return { ok: false, error: 'Unsupported language version' };
    version = v;
  }
  const contexts = COMPILE_CONTEXTS[version];
  const compiled = compileExpression(source, assetScript ? contexts.asset : contexts.account);
  if (!compiled.ok) return compiled;
  const estimated = scriptComplexity(compiled.expr, version);
  if (!estimated.ok) return estimated;
  const complexity = estimated.complexity;
  if (complexity > MAX_SCRIPT_COMPLEXITY) return { ok: false, error: `Script is too complex: ${complexity} > ${MAX_SCRIPT_COMPLEXITY}` };
  const body = scriptBody(version, serializeExpr(compiled.expr));
  const size = body.length + SCRIPT_CHECKSUM_LENGTH;
  if (size > MAX_SCRIPT_SIZE) return { ok: false, error: `Script is too large: ${size} bytes > ${MAX_SCRIPT_SIZE} bytes` };
  return { ok: true, script: { version, expr: compiled.expr, body, complexity } };
}

/** The compile context of a script kind (for tests and tools). */
export function compileContext(version: ScriptVersion, assetScript: boolean): RideContext {
  return assetScript ? COMPILE_CONTEXTS[version].asset : COMPILE_CONTEXTS[version].account;
}
