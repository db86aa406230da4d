/**
 * Path and query parameters as WE reads them. Each spec carries its OpenAPI schema and a
 * parser with WE's exact rules and errors — Java's `Integer.parseInt` for heights and
 * limits (which a JSON-schema validator's coercion cannot reproduce: it takes "1e3" and
 * " 5"), Base58 ids with WE's length caps, addresses with WE's reasons.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { base58Length, decodeBase58 } from '../crypto/encoding.js';
import type { Protocol } from '../protocol/protocol.js';
import type { Address } from '../crypto/address.js';
import { customValidationError, invalidSignature } from '../errors/catalogue.js';
import { routeNotFound } from './errors.js';
import { InternalError } from '../errors/internal.js';

export interface ParamContext {
  readonly protocol: Protocol;
}

export interface ParamSpec<T = unknown> {
  /** Schema of the raw value, for the OpenAPI document. */
  readonly schema: TSchema;
  readonly description?: string;
  /**
   * A ValidInt parameter (WE's PositiveInt / NonNegativeInt): its problems are gathered
   * over the route's ValidInt parameters and reported as one 199, singular or plural as
   * WE words it. Its parser throws `ValidIntProblem`.
   */
  readonly validInt?: boolean;
  /** Parses the raw (URL-decoded) text; throws a WeError (or a ValidIntProblem). */
  parse(raw: string, name: string, ctx: ParamContext): T;
}

/** A query parameter: absent → `undefined` unless required. */
export interface QuerySpec<T = unknown> extends ParamSpec<T> {
  readonly required?: boolean;
}

/** One failing ValidInt value, e.g. `'0' must be positive`. */
export class ValidIntProblem extends InternalError {
  constructor(readonly problem: string) {
    super(problem);
    this.name = 'ValidIntProblem';
  }
}

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/** Java's Integer.parseInt over ASCII: optional sign, at least one digit, within int32. */
export function parseJavaInt(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= INT_MIN && n <= INT_MAX ? (n === 0 ? 0 : n) : undefined;
}

function validInt(description: string, test: (n: number) => boolean, doc: string): ParamSpec<number> {
  return {
    schema: Type.Integer({ format: 'int32', minimum: description === 'positive' ? 1 : 0 }),
    description: doc,
    validInt: true,
    parse(raw) {
      const n = parseJavaInt(raw);
      if (n === undefined) throw new ValidIntProblem(`Unable to parse Integer from '${raw}'`);
      if (!test(n)) throw new ValidIntProblem(`'${n}' must be ${description}`);
      return n;
    },
  };
}

/** WE's PositiveInt (> 0). */
export const positiveInt = (doc: string): ParamSpec<number> => validInt('positive', (n) => n > 0, doc);
/** WE's NonNegativeInt (≥ 0). */
export const nonNegativeInt = (doc: string): ParamSpec<number> => validInt('non-negative', (n) => n >= 0, doc);

/** WE's wording of the ValidInt problems of a route with `count` ValidInt parameters. */
export function validIntError(problems: readonly string[], count: number, field?: string) {
  return count > 1
    ? customValidationError(`Invalid parameters: [${problems.join(', ')}]`, field)
    : customValidationError(`Invalid parameter: ${problems[0] ?? ''}`, field);
}

/** A block id (signature) in Base58: longer than a signature's Base58 or undecodable → 101. */
export const blockId = (doc = 'Block signature (id), Base58'): ParamSpec<Uint8Array> => ({
  schema: Type.String({ maxLength: 88 }),
  description: doc,
  parse(raw, name, ctx) {
    if (raw.length > base58Length(ctx.protocol.crypto.signatureLength)) throw invalidSignature(name);
    try {
      return decodeBase58(raw);
    } catch {
      throw invalidSignature(name);
    }
  },
});

/** A Base58 id decoded without a length cap (WE's ByteStr.decodeBase58): undecodable or empty → 101. */
export const base58Id = (doc: string): ParamSpec<Uint8Array> => ({
  schema: Type.String({ minLength: 1 }),
  description: doc,
  parse(raw, name) {
    if (raw === '') throw invalidSignature(name);
    try {
      return decodeBase58(raw);
    } catch {
      throw invalidSignature(name);
    }
  },
});

/** An address (optional `address:` prefix): WE's 102 with its reason otherwise. */
export const address = (doc = 'Address, Base58'): ParamSpec<Address> => ({
  schema: Type.String(),
  description: doc,
  parse: (raw, name, ctx) => ctx.protocol.addresses.parseAddress(raw, name),
});

/** Text taken as it is. */
export const text = (doc: string): ParamSpec<string> => ({
  schema: Type.String(),
  description: doc,
  parse: (raw) => raw,
});

/**
 * Akka's IntNumber segment: ASCII digits only, within int32. Anything else fails with
 * `failure` (a route that has no other match for the segment).
 */
export const digitsInt = (doc: string, failure: (name: string) => Error): ParamSpec<number> => ({
  schema: Type.Integer({ format: 'int32', minimum: 0 }),
  description: doc,
  parse(raw, name) {
    if (!/^[0-9]+$/.test(raw)) throw failure(name);
    const n = Number(raw);
    if (n > INT_MAX) throw failure(name);
    return n;
  },
});

/** Akka's Boolean from a query value: true/yes/on/1, false/no/off/0 (any case); anything else does not match (404). */
export const booleanQuery = (doc: string): QuerySpec<boolean> => ({
  schema: Type.Boolean(),
  description: doc,
  required: false,
  parse(raw) {
    const s = raw.toLowerCase();
    if (s === 'true' || s === 'yes' || s === 'on' || s === '1') return true;
    if (s === 'false' || s === 'no' || s === 'off' || s === '0') return false;
    throw routeNotFound();
  },
});

/** An optional query parameter with a custom parser. */
export function optionalQuery<T>(spec: ParamSpec<T>): QuerySpec<T> {
  return { ...spec, required: false };
}
