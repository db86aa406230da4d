/**
 * The HTTP layer's error catalogue: WE's ApiError codes, statuses and messages
 * (we-node api/http/ApiError.scala) for the errors the API itself raises, plus the few
 * non-`{error, message}` answers WE gives (a `{"status":"error","details":…}` object,
 * a plain-text body). Route handlers throw these; `renderError` turns any of them — and
 * any WeError from the layers above — into WE's response. Handlers never build error
 * bodies themselves.
 */
import { WeError, type JsonPathError } from '../crypto/errors.js';
import { ValidationError } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/json.js';

export { WeError } from '../crypto/errors.js';

/** WE's ApiError, raised by the HTTP layer (codes outside the ValidationError mapping). */
export class ApiError extends WeError {}

const api = (kind: string, code: number, message: string, status = 400, field?: string): ApiError => new ApiError(kind, code, message, field, status);

/** 0: an unexpected failure (a bug). */
export const unknownError = (): ApiError => api('Unknown', 0, 'Error is unknown', 500);

/** 1 with Play's `validationErrors` for the given paths (each like `obj.fee`). */
export const wrongJson = (errors: readonly JsonPathError[] = [], field?: string): ApiError =>
  new ApiError('WrongJson', 1, 'failed to parse json message', field ?? fieldOfPath(errors[0]?.path), 400, errors);

/** `obj.transfers[0].amount` → `transfers[0].amount`; the root (or no path) is the body. */
function fieldOfPath(path: string | undefined): string {
  const field = path?.replace(/^obj\.?/, '') ?? '';
  return field === '' ? 'body' : field;
}

/** 1 for a body that is not JSON at all (`validationErrors: {}`). */
export const bodyIsNotJson = (): ApiError => wrongJson([]);

/** 1 for a JSON body that is not an object where one is read. */
export const bodyIsNotObject = (): ApiError => wrongJson([{ path: 'obj', messages: ['error.expected.jsobject'] }], 'body');

export const apiKeyNotValid = (): ApiError => api('ApiKeyNotValid', 2, 'Provided API key is not correct', 403, 'X-API-Key');
export const privacyApiKeyNotValid = (): ApiError => api('PrivacyApiKeyNotValid', 614, 'Provided privacy API key is not correct', 403, 'X-API-Key');
export const confidentialContractsApiKeyNotValid = (): ApiError =>
  api('ConfidentialContractsApiKeyNotValid', 649, 'Provided ConfidentialContracts API key is not correct', 403, 'X-API-Key');

/** 10. */
export const tooBigArrayAllocation = (field?: string): ApiError => api('TooBigArrayAllocation', 10, 'Too big sequences requested', 400, field);

/** 101 (InvalidSignature / InvalidRequestSignature). */
export const invalidSignature = (field?: string): ApiError => api('InvalidSignature', 101, 'invalid signature', 400, field);

/** 115. */
export const missingSenderPrivateKey = (field?: string): ApiError =>
  api('MissingSenderPrivateKey', 115, 'no private key for sender address in wallet or provided password is incorrect', 400, field);

/** 199: WE's CustomValidationError (free text). */
export const customValidationError = (message: string, field?: string): ApiError => api('CustomValidationError', 199, message, 400, field);

/** 301 by id (Base58 of the decoded id). */
export const blockDoesNotExist = (idBase58: string, field?: string): ApiError =>
  api('BlockDoesNotExist', 301, `block with signature '${idBase58}' does not exist`, 404, field);

/** 301 by height. */
export const blockAtHeightDoesNotExist = (height: number, field?: string): ApiError =>
  api('BlockDoesNotExist', 301, `block at height '${height}' does not exist`, 404, field);

/** 611. `actual` is -1 when the size is not known in advance (chunked body). */
export const httpEntityTooBig = (actual: number, max: number): ApiError =>
  api('HttpEntityTooBig', 611, `HttpEntity too big, actual size '${actual}' bytes, max size '${max}' bytes`, 400, 'body');

/** 638. */
export const illegalWatcherAction = (): ApiError =>
  api('IllegalWatcherActionError', 638, "Sending transactions or data is disabled for node in 'Watcher' mode", 403);

/**
 * Rule PKI-1: a method WE lists as unavailable while `node.crypto.pki.mode = ON`
 * (/addresses/sign, /addresses/signText, /utils/hash/fast). WE's closed build's exact
 * answer is not public; Weft answers WE's CustomValidationError.
 */
export const unavailableInPkiMode = (): ApiError =>
  api('CustomValidationError', 199, "This method is not available when 'node.crypto.pki.mode' is 'ON'", 400, 'node.crypto.pki.mode');

// --- the rest of WE's ApiError catalogue that the HTTP layer raises itself

export const invalidMessage = (field?: string): ApiError => api('InvalidMessage', 110, 'invalid message', 400, field);
/** 302 for an alias (`alias:<c>:<name>`) or an address with no alias. */
export const aliasDoesNotExist = (aliasOrAddress: { alias: string } | { address: string }): ApiError =>
  api('AliasDoesNotExist', 302, 'alias' in aliasOrAddress ? `alias '${aliasOrAddress.alias}' doesn't exist` : `alias for address '${aliasOrAddress.address}' doesn't exist`, 404);
export const dataKeyNotExists = (key: string): ApiError => api('DataKeyNotExists', 304, `no data for this key: ${key}`, 404, 'key');
export const scriptCompilerError = (message: string, field = 'script'): ApiError => api('ScriptCompilerError', 305, message, 400, field);
export const requestedHeightDoesntExist = (requested: number, current: number): ApiError =>
  api('RequestedHeightDoesntExist', 310, `Requested height '${requested}' is greater than current state height '${current}'`, 400, 'height');
export const policyDoesNotExist = (policyId: string): ApiError => api('PolicyDoesNotExist', 612, `The requested policy ${policyId} does not exist`);
export const privacyIsSwitchedOff = (): ApiError => api('PrivacyIsSwitchedOff', 613, 'The privacy feature is switched off', 400, 'node.privacy.storage.vendor');
export const privacyLargeObjectFeatureIsNotActivated = (): ApiError =>
  api(
    'PrivacyLargeObjectFeatureIsNotActivated',
    648,
    'Large privacy object feature is not activated yet, so using appropriate api methods(for getting or sending large data) is not allowed',
  );
export const policyDataHashAlreadyExists = (hash: string): ApiError => api('PolicyDataHashAlreadyExists', 615, `The specified dataset with hash ${hash} was added earlier`);
export const missingAuthorizationMetadata = (): ApiError => api('MissingAuthorizationMetadata', 618, 'Authorization error. Missing authorization metadata', 401, 'Authorization');
export const authTokenExpired = (): ApiError => api('AuthTokenExpired', 619, 'Authorization error. Token expired', 401, 'Authorization');
export const cantParseJwtClaims = (): ApiError => api('CantParseJwtClaims', 620, "Authorization error. Can't parse JWT token claims", 400, 'Authorization');
/** 621; WE prints the role's Scala object name (e.g. `Administrator`), with a trailing space. */
export const noRequiredAuthRole = (role: string): ApiError => api('NoRequiredAuthRole', 621, `Authorization error. No expected role '${role}' `, 403, 'Authorization');
export const invalidTokenError = (): ApiError => api('InvalidTokenError', 622, 'Authorization error. Invalid token', 401, 'Authorization');
export const invalidContractKeysFilter = (regex: string): ApiError => api('InvalidContractKeysFilter', 629, `Keys filter parameter has invalid regex pattern '${regex}'`, 400, 'matches');
export const invalidNodeOwnerAddress = (): ApiError => api('InvalidNodeOwnerAddress', 636, 'Authorization error. Invalid node owner address', 403, 'Authorization');
export const serviceIsDisabled = (name: string): ApiError => api('ServiceIsDisabled', 637, `Service '${name}' is disabled`, 404, 'service');
export const healthCheckError = (message: string): ApiError => api('HealthCheckError', 640, message, 503);
/** WE's EmptySenderPKInDataTxError (a ValidationError rendered under 199 with its toString). */
export const emptySenderPublicKeyInDataTx = (): ValidationError =>
  new ValidationError(
    'EmptySenderPKInDataTxError',
    199,
    'Expected a non-empty senderPublicKey field, because author was not the same as sender',
    'senderPublicKey',
  );

// ---------------------------------------------------------------------------
// Answers WE gives in other shapes

/** An answer that is not WE's `{error, message}` body; thrown by handlers like a WeError. */
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
  constructor(status: number, readonly details: string) {
    super(status, details);
  }

  get body(): JsonObject {
    return { status: 'error', details: this.details };
  }
}

/** A plain-text body (`text/plain; charset=UTF-8`), possibly empty. */
export class PlainTextReply extends OtherShapeReply {
  constructor(status: number, readonly text: string) {
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
