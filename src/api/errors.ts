/**
 * What the HTTP layer answers besides WE's `{error, message}` bodies of the error
 * catalogue (errors/catalogue.ts): the few answers WE gives in other shapes (a
 * `{"status":"error","details":…}` object, a plain-text body), thrown by handlers like a
 * WeError, and the rendering of any WeError into WE's body. Handlers never build error
 * bodies themselves.
 */
import type { JsonPathError, WeError } from '../errors/catalogue.js';
import type { JsonObject } from '../protocol/json.js';

// ---------------------------------------------------------------------------
// Answers WE gives in other shapes

/** An answer that is not WE's `{error, message}` body; thrown by handlers like a WeError. */
// eslint-disable-next-line no-restricted-syntax -- an answer to the client, as a WeError is, not an internal failure
export abstract class OtherShapeReply extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** `{"status": "error", "details": <text>}` with the given status (200 or 404 in WE). */
export class StatusDetailsReply extends OtherShapeReply {
  constructor(
    status: number,
    readonly details: string,
  ) {
    super(status, details);
  }

  get body(): JsonObject {
    return { status: 'error', details: this.details };
  }
}

/** A plain-text body (`text/plain; charset=UTF-8`), possibly empty. */
export class PlainTextReply extends OtherShapeReply {
  constructor(
    status: number,
    readonly text: string,
  ) {
    super(status, text === '' ? `HTTP ${status}` : text);
  }
}

export const NOT_FOUND_TEXT = 'The requested resource could not be found.';
export const BAD_REQUEST_TEXT = 'The request contains bad syntax or cannot be fulfilled.';

/** No route took the request (Akka's catch-all). */
export const routeNotFound = (): PlainTextReply => new PlainTextReply(404, NOT_FOUND_TEXT);

export const noBlockForHeight = (): StatusDetailsReply => new StatusDetailsReply(200, 'No block for this height');
export const noChildBlocks = (): StatusDetailsReply => new StatusDetailsReply(200, 'No child blocks');
export const transactionNotInBlockchain = (): StatusDetailsReply => new StatusDetailsReply(404, 'Transaction is not in blockchain');
export const transactionNotInUtx = (): StatusDetailsReply => new StatusDetailsReply(404, 'Transaction is not in UTX');
/** `/debug/rollback` to a height without a block. */
export const blockAtHeightNotFoundText = (): PlainTextReply => new PlainTextReply(400, 'Block at height not found');

// ---------------------------------------------------------------------------
// Rendering

/** Play's JsError.toJson: `{"obj.fee": [{"msg": ["error.path.missing"], "args": []}]}`. */
export function validationErrorsJson(errors: readonly JsonPathError[] | undefined): JsonObject {
  const out: Record<string, Array<{ msg: string[]; args: never[] }>> = {};
  for (const e of errors ?? []) (out[e.path] ??= []).push({ msg: [...e.messages], args: [] });
  return out;
}

/** WE's error body of a WeError, plus `field` when the error knows it. */
export function errorBody(e: WeError): JsonObject {
  const body: JsonObject = { error: e.code, message: e.message };
  if (e.code === 1) {
    body['cause'] = null;
    body['validationErrors'] = validationErrorsJson(e.jsonPathErrors);
  }
  if (e.extra !== undefined) for (const [k, v] of Object.entries(e.extra)) if (!(k in body)) body[k] = v;
  if (e.field !== undefined) body['field'] = e.field;
  return body;
}
