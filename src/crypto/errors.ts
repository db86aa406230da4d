/**
 * The base of every error a client can cause: WE's numeric ApiError code, the HTTP
 * status WE answers it with, WE's message, and — beyond WE — the field it concerns.
 * Each domain derives its own class (CryptoError here, ValidationError in protocol/,
 * …); the HTTP layer renders any WeError as `{error, message}`.
 */

/** One entry of WE's `validationErrors` map (Play's JsError.toJson shape). */
export interface JsonPathError {
  readonly path: string;
  readonly messages: readonly string[];
}

export class WeError extends Error {
  constructor(
    /** WE's case name of the error, e.g. `InvalidAddress`, `GenericError`. */
    readonly kind: string,
    /** WE ApiError code (`error` in the response body). */
    readonly code: number,
    message: string,
    /** JSON path or field name of the offending input, when known. */
    readonly field?: string,
    /** HTTP status WE uses for this code. */
    readonly status: number = 400,
    /** WrongJson's `validationErrors`. */
    readonly jsonPathErrors?: readonly JsonPathError[],
    /** Extra members of the error body (e.g. `tx` of StateCheckFailed 112). */
    readonly extra?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The same error attributed to a field, unless it already names one. */
  at(field: string): this {
    if (this.field !== undefined) return this;
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this;
    Object.assign(copy, this, { field });
    copy.message = this.message;
    copy.stack = this.stack;
    return copy;
  }
}

/** Runs f; a WeError it throws is attributed to `field` unless it already names one. */
export function withField<T>(field: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw e instanceof WeError ? e.at(field) : e;
  }
}

/** WE's crypto.internals.CryptoError family, mapped as ApiError.fromCryptoError does. */
export class CryptoError extends WeError {}

export const invalidAddress = (reason: string, field?: string): CryptoError =>
  new CryptoError('InvalidAddress', 102, `invalid address: ${reason}`, field);

export const invalidPublicKey = (reason: string, field?: string): CryptoError =>
  new CryptoError('InvalidPublicKey', 108, `invalid public key: ${reason}`, field);

export const invalidHash = (reason: string, field?: string): CryptoError =>
  new CryptoError('InvalidHash', 122, `invalid hash: ${reason}`, field);

export const cryptoGenericError = (reason: string, field?: string): CryptoError =>
  new CryptoError('GenericError', 199, reason, field);
