/**
 * Script bytes as WE reads and writes them (we-core ScriptReader, ScriptV1; reference
 * ride.md §1): version (1 or 2) ‖ expression (Serde) ‖ checksum, the checksum being the
 * first 4 bytes of secureHash(version ‖ expression). Every script field of a transaction
 * goes through `readScript`, which checks, in WE's order:
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
 * The protocol layer's transaction readers use this module (as WE's models use its lang
 * module): it imports nothing from the protocol but its error class.
 */
import type { CryptoSuite } from '../crypto/suite.js';
import { DECLARED_VALS, FUNCTION_COSTS, MAX_SCRIPT_COMPLEXITY, type ScriptVersion } from './context.js';
import { estimate, EstimatorError, EstimatorStepsExceeded } from './estimator.js';
import type { Expr } from './expr.js';
import { deserializeExpr, SerdeError, serializeExpr } from './serde.js';
import { scriptParseError } from '../errors/catalogue.js';

export { MAX_SCRIPT_COMPLEXITY } from './context.js';

export const SUPPORTED_SCRIPT_VERSIONS = [1, 2] as const;
export const MAX_SCRIPT_SIZE = 8 * 1024;
/** What a script's checksum is computed with: the network's crypto. */
export interface ScriptCrypto {
  readonly crypto: Pick<CryptoSuite, 'secureHash'>;
}

export const SCRIPT_CHECKSUM_LENGTH = 4;

export interface Script {
  readonly version: ScriptVersion;
  readonly expr: Expr;
  /** Canonical bytes: version ‖ serialized expression ‖ checksum. */
  readonly bytes: Uint8Array;
  readonly complexity: number;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** version ‖ expression ‖ checksum, as ScriptV1.bytes writes it. */
export function scriptBytes(version: number, expr: Expr, p: ScriptCrypto): Uint8Array {
  return withChecksum(scriptBody(version, serializeExpr(expr)), p);
}

/** version ‖ serialized expression: what the checksum covers. */
export function scriptBody(version: number, expression: Uint8Array): Uint8Array {
  const body = new Uint8Array(1 + expression.length);
  body[0] = version;
  body.set(expression, 1);
  return body;
}

/** `body` followed by its checksum (the first bytes of its secureHash). */
export function withChecksum(body: Uint8Array, p: ScriptCrypto): Uint8Array {
  const out = new Uint8Array(body.length + SCRIPT_CHECKSUM_LENGTH);
  out.set(body);
  out.set(p.crypto.secureHash(body).subarray(0, SCRIPT_CHECKSUM_LENGTH), body.length);
  return out;
}

/** ScriptReader.fromBytes: checks `bytes` and returns the script WE would hold. */
export function readScript(bytes: Uint8Array, p: ScriptCrypto, field = 'script'): Script {
  const { version, expression } = scriptContainer(bytes, p, field);
  const read = readScriptExpression(version, expression);
  if (!read.ok) throw scriptParseError(read.error, field);
  return { version, expr: read.expr, bytes: scriptBytes(version, read.expr, p), complexity: read.complexity };
}

/**
 * ScriptReader's checks of the container (1–4 of the module comment): the version and the
 * serialized expression of `bytes`, or a ScriptParseError.
 */
export function scriptContainer(bytes: Uint8Array, p: ScriptCrypto, field = 'script'): { readonly version: ScriptVersion; readonly expression: Uint8Array } {
  if (bytes.length === 0) throw scriptParseError('Empty script', field);
  const split = Math.max(0, bytes.length - SCRIPT_CHECKSUM_LENGTH);
  const checksum = bytes.subarray(bytes.length - Math.min(bytes.length, SCRIPT_CHECKSUM_LENGTH));
  const computed = p.crypto.secureHash(bytes.subarray(0, split)).subarray(0, SCRIPT_CHECKSUM_LENGTH);
  if (!sameBytes(checksum, computed)) throw scriptParseError('Invalid checksum', field);
  const version = (bytes[0]! << 24) >> 24;
  if (version !== 1 && version !== 2) throw scriptParseError(`Invalid version: ${version}`, field);
  const expression = bytes.subarray(1, split);
  if (expression.length > MAX_SCRIPT_SIZE) {
    throw scriptParseError(`Script is too large: ${expression.length} bytes > ${MAX_SCRIPT_SIZE} bytes`, field);
  }
  return { version, expression };
}

/** What reading an expression or estimating it gives: the value, or WE's message. */
export type ScriptReading<T> = ({ readonly ok: true } & T) | { readonly ok: false; readonly error: string };

/**
 * ScriptReader's checks of the expression (5–6 of the module comment): the tree of a
 * container's serialized expression and its complexity, or WE's message.
 */
export function readScriptExpression(version: ScriptVersion, expression: Uint8Array): ScriptReading<{ readonly expr: Expr; readonly complexity: number }> {
  let expr: Expr;
  try {
    expr = deserializeExpr(expression);
  } catch (e) {
    if (e instanceof SerdeError) return { ok: false, error: e.message };
    throw e;
  }
  const estimated = scriptComplexity(expr, version);
  if (!estimated.ok) return estimated;
  if (estimated.complexity > MAX_SCRIPT_COMPLEXITY) return { ok: false, error: `Script is too complex: ${estimated.complexity} > ${MAX_SCRIPT_COMPLEXITY}` };
  return { ok: true, expr, complexity: estimated.complexity };
}

/** The estimate of a script version's expression, or WE's message for what the estimator refuses. */
export function scriptComplexity(expr: Expr, version: ScriptVersion): ScriptReading<{ readonly complexity: number }> {
  try {
    return { ok: true, complexity: estimate(expr, DECLARED_VALS[version], FUNCTION_COSTS) };
  } catch (e) {
    if (e instanceof EstimatorStepsExceeded) return { ok: false, error: `Script is too complex: ${e.message}` };
    if (e instanceof EstimatorError) return { ok: false, error: e.message };
    throw e;
  }
}

/** The complexity of an expression as WE estimates it for a script of `version` (throws a ScriptParseError on undeclared names). */
export function estimateComplexity(expr: Expr, version: ScriptVersion): number {
  const estimated = scriptComplexity(expr, version);
  if (!estimated.ok) throw scriptParseError(estimated.error);
  return estimated.complexity;
}
