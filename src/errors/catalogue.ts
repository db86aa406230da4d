/**
 * The one catalogue of the errors a client can cause: WE's ApiError codes, the HTTP
 * status WE answers each with and WE's message, with — beyond WE — the field it
 * concerns. Every layer raises its errors through a factory here; the HTTP layer renders
 * any WeError as WE's `{error, message}` body (api/errors.ts).
 *
 * It is the lowest layer (it imports nothing of the node): messages that quote ids take
 * them already in Base58.
 *
 * Each domain has its class, to say where an error comes from: CryptoError (keys,
 * addresses), ValidationError (reading and checking a transaction or block, and the state
 * rules WE reports through ApiError.fromValidationError), TransactionRejected (a
 * transaction refused by the admission pipeline, rendered as WE renders it), ApiError
 * (the HTTP layer's own).
 */
import { InternalError } from './internal.js';

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

  /** The same error attributed to a field inside `prefix` (`transactions(1).amount`; `prefix` alone when it names none). */
  inside(prefix: string): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this;
    Object.assign(copy, this, { field: this.field === undefined ? prefix : `${prefix}.${this.field}` });
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

/** Runs f; a WeError it throws is attributed to a field inside `prefix` (WeError.inside). */
export function insideField<T>(prefix: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw e instanceof WeError ? e.inside(prefix) : e;
  }
}

/** withField for an asynchronous step. */
export async function withFieldAsync<T>(field: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw e instanceof WeError ? e.at(field) : e;
  }
}

/** WE's crypto.internals.CryptoError family, mapped as ApiError.fromCryptoError does. */
export class CryptoError extends WeError {}

/** WE's transaction ValidationError family: reading, stateless and stateful checks. */
export class ValidationError extends WeError {}

/** Thrown for malformed binary input (P2P, blocks, stored bytes). */
export class DecodeError extends ValidationError {
  constructor(message: string, field?: string) {
    super('GenericError', 199, message, field);
  }
}

/** A transaction refused by the admission pipeline, as WE's ApiError.fromValidationError renders it (112, 303, 117, 6xx, …). */
export class TransactionRejected extends WeError {}

/** WE's ApiError, raised by the HTTP layer itself. */
export class ApiError extends WeError {}

const api = (kind: string, code: number, message: string, status = 400, field?: string): ApiError => new ApiError(kind, code, message, field, status);
const invalid = (kind: string, code: number, message: string, field?: string, status = 400): ValidationError =>
  new ValidationError(kind, code, message, field, status);

// ---------------------------------------------------------------------------
// 0–2: unknown, JSON, API keys

/** 0: an unexpected failure (a bug). */
export const unknownError = (): ApiError => api('Unknown', 0, 'Error is unknown', 500);

/** Play JSON messages for the JSON type a reader expected. */
export const expected = {
  number: 'error.expected.jsnumber',
  string: 'error.expected.jsstring',
  boolean: 'error.expected.jsboolean',
  array: 'error.expected.jsarray',
  object: 'error.expected.jsobject',
  long: 'error.expected.long',
  int: 'error.expected.int',
  byte: 'error.expected.byte',
} as const;

/** `obj.transfers[0].amount` → `transfers[0].amount`; the root (or no path) is the body. */
function fieldOfPath(path: string | undefined): string {
  const field = path?.replace(/^obj\.?/, '') ?? '';
  return field === '' ? 'body' : field;
}

/**
 * 1, WE's WrongJson: the body is not JSON, or a field is missing or has the wrong JSON type.
 * Either one field's path inside the body (`fee`, `transfers(0).amount`; WE reports it as
 * `obj.<path>`) with Play's message, or Play's list of path errors as they are.
 */
export function wrongJson(at?: string | readonly JsonPathError[], playMessage = 'error.path.missing'): ValidationError {
  const message = 'failed to parse json message';
  if (at === undefined) return new ValidationError('WrongJson', 1, message, undefined, 400, []);
  if (typeof at === 'string') return new ValidationError('WrongJson', 1, message, at, 400, [{ path: `obj.${at}`, messages: [playMessage] }]);
  return new ValidationError('WrongJson', 1, message, fieldOfPath(at[0]?.path), 400, at);
}

/** 1 for a body that is not JSON at all (`validationErrors: {}`). */
export const bodyIsNotJson = (): ValidationError => wrongJson([]);

/** 1 for a JSON body that is not an object where one is read. */
export const bodyIsNotObject = (): ValidationError => wrongJson([{ path: 'obj', messages: [expected.object] }]);

export const apiKeyNotValid = (): ApiError => api('ApiKeyNotValid', 2, 'Provided API key is not correct', 403, 'X-API-Key');
export const privacyApiKeyNotValid = (): ApiError => api('PrivacyApiKeyNotValid', 614, 'Provided privacy API key is not correct', 403, 'X-API-Key');
export const confidentialContractsApiKeyNotValid = (): ApiError =>
  api('ConfidentialContractsApiKeyNotValid', 649, 'Provided ConfidentialContracts API key is not correct', 403, 'X-API-Key');

// ---------------------------------------------------------------------------
// 10–122: malformed values

/** 10: a list or text longer than allowed (WE's TooBigArray, ApiError TooBigArrayAllocation). */
export const tooBigArray = (field?: string): ValidationError => invalid('TooBigArray', 10, 'Too big sequences requested', field);
/** 10 as well (Weft's byte budget of one heavy answer, e.g. a block range): WE's text, then what to do. */
export const responseTooBig = (budgetBytes: number): ApiError =>
  api('TooBigArrayAllocation', 10, `Too big sequences requested: the answer would exceed ${budgetBytes} bytes; ask for fewer blocks or items`);
/** 642 (WE's answer when a stream limit is reached), 503: too many heavy reads (block ranges, full blocks) being built and waiting. */
export const heavyReadsBusy = (limit: number): ApiError =>
  api('TooManyHeavyReads', 642, `Max heavy reads count '${limit}' has been exceeded. Please, try again later`, 503);

/** 101: a signature (or a signature-sized id) that is malformed or does not verify. */
export const invalidSignature = (field?: string, message = 'invalid signature'): ValidationError => invalid('InvalidSignature', 101, message, field);

/** 102. */
export const invalidAddress = (reason: string, field?: string): CryptoError => new CryptoError('InvalidAddress', 102, `invalid address: ${reason}`, field);

/** 108. */
export const invalidPublicKey = (reason: string, field?: string): CryptoError =>
  new CryptoError('InvalidPublicKey', 108, `invalid public key: ${reason}`, field);

/** 110. */
export const invalidMessage = (field?: string): ApiError => api('InvalidMessage', 110, 'invalid message', 400, field);

/** 111. */
export const negativeAmount = (amount: bigint, of: string, field?: string): ValidationError =>
  invalid('NegativeAmount', 111, `negative amount: ${amount} of ${of}`, field);

/** 113. */
export const overflowError = (field?: string): ValidationError => invalid('OverflowError', 113, 'overflow error', field);

/** 115. */
export const missingSenderPrivateKey = (field?: string): ApiError =>
  api('MissingSenderPrivateKey', 115, 'no private key for sender address in wallet or provided password is incorrect', 400, field);

/** 115 as well (Weft's): a keystore address refuses unlocking for a while after repeated wrong passwords (429). */
export const tooManyFailedUnlocks = (retryAfterSeconds: number, field?: string): ApiError =>
  api('TooManyFailedUnlocks', 115, `too many wrong passwords for this address in the wallet; try again in ${retryAfterSeconds} s`, 429, field);

/** 116. */
export const invalidName = (field?: string): ValidationError => invalid('InvalidName', 116, 'invalid name', field);

/** 118. */
export const invalidAssetId = (message: string, field?: string): ValidationError => invalid('InvalidAssetId', 118, message, field);

/** 119 (404): WE's CertificateNotFound — `Couldn't find a certificate with <keyName> '<value>'`. */
export const certificateNotFound = (keyName: string, value: string, field?: string): ApiError =>
  api('CertificateNotFound', 119, `Couldn't find a certificate with ${keyName} '${value}'`, 404, field);

/** 120: WE's CertificatePathBuildError — a chain that does not validate for the public key of its user. */
export const certificatePathBuildError = (publicKeyBase58: string, reason: string, field = 'certificates'): ApiError =>
  api('CertificatePathBuildError', 120, `Error while validating provided certificate chain for the public key '${publicKeyBase58}': ${reason}`, 400, field);

/** 121: WE's CertificateParseError — certificates that cannot be read or do not form one chain. */
export const certificateParseError = (reason: string, field = 'certificates'): ApiError =>
  api('CertificateParseError', 121, `Error while parsing a certificate: ${reason}`, 400, field);

// ---------------------------------------------------------------------------
// 199: WE's generic errors and the validation errors it renders with their toString

/** WE's GenericError (free text). */
export const genericError = (message: string, field?: string): ValidationError => invalid('GenericError', 199, message, field);

/** WE's CustomValidationError (free text) raised by the HTTP layer; `status` for a transport refusal other than 400. */
export const customValidationError = (message: string, field?: string, status = 400): ApiError => api('CustomValidationError', 199, message, status, field);

/** WE's InsufficientFee has no ApiError of its own: it is rendered with its Scala toString under 199. */
export const insufficientFee = (field?: string, msg = 'insufficient fee'): ValidationError => invalid('InsufficientFee', 199, `InsufficientFee(${msg})`, field);

export const unsupportedTransactionType = (field?: string): ValidationError => invalid('UnsupportedTransactionType', 199, 'UnsupportedTransactionType', field);

/** WE's PermissionError, rendered with its Scala toString. */
export const permissionError = (message: string): ValidationError => invalid('PermissionError', 199, `PermissionError(${message})`);

/** A PoS block signed by an account that may not mine (WE's PoS consensus check). */
export const blockSignerNotMiner = (address: string): ValidationError =>
  invalid('PermissionError', 199, `Block signer '${address}' does not have miner permission`, 'generator');

/** WE's ActivationError, rendered with its Scala toString. */
export const activationError = (message: string): ValidationError => invalid('ActivationError', 199, `ActivationError(${message})`);

/** WE's AlreadyInTheState. */
export const alreadyInTheState = (idBase58: string, height: number): ValidationError =>
  invalid('AlreadyInTheState', 199, `Transaction ${idBase58} is already in the state on a height of ${height}`);

/** WE's BalanceErrors (account part). */
export const balanceErrors = (accountErrors: ReadonlyArray<readonly [string, string]>): ValidationError =>
  invalid('BalanceErrors', 199, `Account errors: ${accountErrors.map(([a, e]) => `${a} -> ${e}`).join(', ')}`);

export const senderIsNotInPolicyRecipients = (sender: string): ValidationError =>
  invalid('SenderIsNotInPolicyRecipients', 199, `Sender '${sender}' is not in policy recipients`);

/** WE's EmptySenderPKInDataTxError (a ValidationError rendered under 199 with its toString). */
export const emptySenderPublicKeyInDataTx = (): ValidationError =>
  invalid('EmptySenderPKInDataTxError', 199, 'Expected a non-empty senderPublicKey field, because author was not the same as sender', 'senderPublicKey');

/** WE's BlockFromFuture (rendered through its toString under 199). */
export const blockFromFuture = (blockTimestamp: bigint, now: bigint): ValidationError =>
  invalid('BlockFromFuture', 199, `BlockFromFuture(rejected block timestamp is '${blockTimestamp}', but current timestamp is '${now}')`, 'timestamp');

/** WE's OutOfTimestampBounds for a tx micro-block outside (roundStart, syncStart). */
export const microBlockOutOfBounds = (
  timestamp: bigint,
  bound: bigint,
  side: 'start' | 'end',
  entity: 'TxMicroBlock' | 'VoteMicroBlock' = 'TxMicroBlock',
): ValidationError =>
  invalid(
    'OutOfTimestampBounds',
    199,
    `Invalid ${entity} timestamp '${timestamp}', it must be ${side === 'start' ? 'older' : 'earlier'} than '${bound}'`,
    'timestamp',
  );

/** WE's MicroBlockAppendError. */
export const microBlockAppendError = (message: string): ValidationError => invalid('MicroBlockAppendError', 199, message);

/** WE's OrderValidationError of an exchange's order. */
export const orderValidationError = (message: string, field: string): ValidationError => invalid('OrderValidationError', 199, message, field);

/** WE's ScriptParseError (its Scala toString). */
export const scriptParseError = (message: string, field?: string): ValidationError => invalid('ScriptParseError', 199, `ScriptParseError(${message})`, field);

/** WE's InvalidContractKeys (rendered by its toString): each key with the characters it may not hold. */
export const invalidContractKeys = (keysAndChars: ReadonlyArray<readonly [string, string]>, field?: string): ValidationError =>
  invalid(
    'InvalidContractKeys',
    199,
    `Keys and invalid symbols in it: [${keysAndChars.map(([k, c]) => `${k} -> ${c}`).join('; ')}]\nAllowed characters are ascii non-control and lower and uppercase russian letters`,
    field,
  );

/** WE's UnknownContractEngineError. */
export const unknownContractEngine = (): ValidationError => invalid('UnknownContractEngineError', 199, 'UnknownContractEngineError');

/** WE's InvalidContractId. */
export const invalidContractId = (text: string, field?: string): ValidationError =>
  invalid('InvalidContractId', 199, `Contract id '${text}' is invalid`, field);

/** WE's InvalidHash of a Base58 field that does not decode (rendered by its toString under 199). */
export const undecodableHash = (why: string, field?: string): ValidationError =>
  invalid('InvalidHash', 199, `InvalidHash(Unable to decode base58: ${why})`, field);

/** Rule PKI-1: a method WE lists as unavailable while `node.crypto.pki.mode = ON` (WE's closed build's exact answer is not public; Weft answers CustomValidationError). */
export const unavailableInPkiMode = (): ApiError =>
  api('CustomValidationError', 199, "This method is not available when 'node.crypto.pki.mode' is 'ON'", 400, 'node.crypto.pki.mode');

// ---------------------------------------------------------------------------
// 112, 117, 303: what the admission pipeline renders

/** 112: StateCheckFailed, with the transaction's JSON as `tx`. */
export const stateCheckFailed = (reason: string, field: string | undefined, txJson: unknown): TransactionRejected =>
  new TransactionRejected('StateCheckFailed', 112, `State check failed. Reason: ${reason}`, field, 400, undefined, { tx: txJson });

/**
 * 112 for a pool admission that fits the confirmed balances but not what transactions already
 * waiting in the pool will spend (Weft beyond WE): the balance check's own reason, the
 * balances in it being net of those pending spendings, which are listed.
 */
export const pendingSpendingsExceeded = (reason: string, pending: string, txJson: unknown): TransactionRejected =>
  stateCheckFailed(
    `${reason} (pending pool transactions are counted: the balances above are net of what transactions already in the pool spend — ${pending})`,
    undefined,
    txJson,
  );

/** 117: WE's AddressIsLastOfRole (the pipeline adds the transaction as `tx`). */
export const addressIsLastOfRole = (address: string, role: string): ValidationError =>
  invalid('AddressIsLastOfRole', 117, `Trying to revoke role '${role}' from it's last owner: '${address}'`);

/** 303: WE's Mistiming. */
export const mistiming = (message: string, field?: string): ValidationError => invalid('Mistiming', 303, message, field);

/** WE's privacy and contract error kinds that keep their own code when raised while diffing state (the rest become 112). */
export const OWN_CODE_KINDS: ReadonlySet<string> = new Set([
  'PolicyDoesNotExist',
  'PolicyDataHashAlreadyExists',
  'SenderIsNotInPolicyRecipients',
  'ContractNotFound',
  'ContractIsDisabled',
  'ContractAlreadyDisabled',
  'ContractTransactionTooBig',
]);

/**
 * A pipeline error as WE renders it for a transaction (ApiError.fromValidationError on a
 * TransactionValidationError): a script's rejection (306/307, which carries its
 * transaction, script and vars), 303 and the kinds with their own code as they are, 117
 * and everything else as 112 with the transaction; an inner transaction's rendered error
 * (atomics) is wrapped again.
 */
export function transactionRejection(e: WeError, txJson: unknown): TransactionRejected | ScriptRejection {
  if (e instanceof ScriptRejection) return e;
  if (e instanceof TransactionRejected) return stateCheckFailed(e.message, e.field, txJson);
  if (e.kind === 'Mistiming') return new TransactionRejected('Mistiming', 303, e.message, e.field);
  if (e.kind === 'AddressIsLastOfRole') return new TransactionRejected('AddressIsLastOfRole', 117, e.message, e.field, 400, undefined, { tx: txJson });
  if (OWN_CODE_KINDS.has(e.kind)) return new TransactionRejected(e.kind, e.code, e.message, e.field, e.status);
  return stateCheckFailed(e.message, e.field, txJson);
}

// ---------------------------------------------------------------------------
// 306, 307: scripts

/** `{"name", "value"}` or `{"name", "error"}`: a let a script forced, as WE's ScriptErrorJson renders it. */
export type ScriptVar = { readonly name: string; readonly value: string } | { readonly name: string; readonly error: string };

/** 306 ScriptExecutionError / 307 TransactionNotAllowedByScript, with WE's extra members (`transaction`, `script`, `vars`). */
export class ScriptRejection extends WeError {
  constructor(
    kind: 'ScriptExecutionError' | 'TransactionNotAllowedByScript',
    code: 306 | 307,
    message: string,
    readonly transaction: unknown,
    readonly script: string,
    readonly vars: readonly ScriptVar[],
  ) {
    super(kind, code, message, undefined, 400, undefined, { transaction, script, vars });
  }

  /** The same rejection reported for another transaction's JSON (an atomic container, as WE reports its inner failures). */
  forTransaction(transactionJson: unknown): ScriptRejection {
    return new ScriptRejection(this.kind as 'ScriptExecutionError', this.code as 306, this.message, transactionJson, this.script, this.vars);
  }
}

/** 306: the script failed while running (an error it raised, or one of the evaluator's). */
export const scriptExecutionError = (message: string, transactionJson: unknown, script: string, vars: readonly ScriptVar[]): ScriptRejection =>
  new ScriptRejection('ScriptExecutionError', 306, message, transactionJson, script, vars);

/** 307: the script returned false. */
export const transactionNotAllowedByScript = (message: string, transactionJson: unknown, script: string, vars: readonly ScriptVar[]): ScriptRejection =>
  new ScriptRejection('TransactionNotAllowedByScript', 307, message, transactionJson, script, vars);

/**
 * An inner transaction's script rejection raised while its atomic container's state is
 * built (the scripts run again on the state the inner transactions before it left): WE
 * wraps it in the container's error, which renders as 112 with the script's message.
 */
export const innerScriptRejection = (e: ScriptRejection): TransactionRejected => new TransactionRejected(e.kind, e.code, e.message, e.field);

// ---------------------------------------------------------------------------
// 301–310: what is not there

/** 301 by id (Base58 of the decoded id). */
export const blockDoesNotExist = (idBase58: string, field?: string): ApiError =>
  api('BlockDoesNotExist', 301, `block with signature '${idBase58}' does not exist`, 404, field);

/** 301 by height. */
export const blockAtHeightDoesNotExist = (height: number, field?: string): ApiError =>
  api('BlockDoesNotExist', 301, `block at height '${height}' does not exist`, 404, field);

/** 302 for an alias (`alias:<c>:<name>`) or an address with no alias. */
export const aliasDoesNotExist = (of: { readonly alias: string } | { readonly address: string }): ValidationError =>
  invalid('AliasDoesNotExist', 302, 'alias' in of ? `alias '${of.alias}' doesn't exist` : `alias for address '${of.address}' doesn't exist`, undefined, 404);

export const dataKeyNotExists = (key: string): ApiError => api('DataKeyNotExists', 304, `no data for this key: ${key}`, 404, 'key');

export const scriptCompilerError = (message: string, field = 'script'): ApiError => api('ScriptCompilerError', 305, message, 400, field);
/** 642 (WE's answer when a stream limit is reached, as heavyReadsBusy), 503: too many scripts being compiled or estimated (`/utils/script/*`) and waiting. */
export const scriptCompilerBusy = (limit: number): ApiError =>
  api('TooManyScriptCompilations', 642, `Max script compilations count '${limit}' has been exceeded. Please, try again later`, 503);

export const requestedHeightDoesntExist = (requested: number, current: number): ApiError =>
  api('RequestedHeightDoesntExist', 310, `Requested height '${requested}' is greater than current state height '${current}'`, 400, 'height');

// ---------------------------------------------------------------------------
// 6xx: contracts, privacy, auth, node services

/** 606 (HTTP 401): WE's ParticipantNotRegistered — the address is not a registered network participant. */
export const participantNotRegistered = (address: string, field?: string): ApiError =>
  api('ParticipantNotRegistered', 606, `Address '${address}' does not have access to the network`, 401, field);

/** 604. */
export const contractTransactionTooBig = (actual: number, max: number, field?: string): ValidationError =>
  invalid('ContractTransactionTooBig', 604, `Contract transaction too big, actual size ${actual} bytes, expected size ${max} bytes`, field);

/** 611. `actual` is -1 when the size is not known in advance (chunked body). */
export const httpEntityTooBig = (actual: number, max: number): ApiError =>
  api('HttpEntityTooBig', 611, `HttpEntity too big, actual size '${actual}' bytes, max size '${max}' bytes`, 400, 'body');

/** 613: the node has no confidential-data storage (`node.privacy.storage.vendor = none`). */
export const privacyIsSwitchedOff = (): ApiError => api('PrivacyIsSwitchedOff', 613, 'The privacy feature is switched off', 400, 'node.privacy.storage.vendor');

/** 648: the large confidential-data routes before feature 180 is active. */
export const privacyLargeObjectFeatureIsNotActivated = (): ApiError =>
  api(
    'PrivacyLargeObjectFeatureIsNotActivated',
    648,
    'Large privacy object feature is not activated yet, so using appropriate api methods(for getting or sending large data) is not allowed',
  );

/** 612 (Base58 policy id). */
export const policyDoesNotExist = (policyIdBase58: string): ValidationError =>
  invalid('PolicyDoesNotExist', 612, `The requested policy ${policyIdBase58} does not exist`);

/** 615 (Base58 data hash). */
export const policyDataHashAlreadyExists = (hashBase58: string): ValidationError =>
  invalid('PolicyDataHashAlreadyExists', 615, `The specified dataset with hash ${hashBase58} was added earlier`);

export const missingAuthorizationMetadata = (): ApiError =>
  api('MissingAuthorizationMetadata', 618, 'Authorization error. Missing authorization metadata', 401, 'Authorization');
export const authTokenExpired = (): ApiError => api('AuthTokenExpired', 619, 'Authorization error. Token expired', 401, 'Authorization');
export const cantParseJwtClaims = (): ApiError => api('CantParseJwtClaims', 620, "Authorization error. Can't parse JWT token claims", 400, 'Authorization');
/** 621; WE prints the role's Scala object name (e.g. `Administrator`), with a trailing space. */
export const noRequiredAuthRole = (role: string): ApiError =>
  api('NoRequiredAuthRole', 621, `Authorization error. No expected role '${role}' `, 403, 'Authorization');
export const invalidTokenError = (): ApiError => api('InvalidTokenError', 622, 'Authorization error. Invalid token', 401, 'Authorization');
/** 629; `reason` (beyond WE) says why a pattern Java would take cannot run here (state/key-pattern.ts), after WE's message. */
export const invalidContractKeysFilter = (regex: string, reason?: string): ApiError =>
  api(
    'InvalidContractKeysFilter',
    629,
    `Keys filter parameter has invalid regex pattern '${regex}'${reason === undefined ? '' : `: ${reason}`}`,
    400,
    'matches',
  );
export const invalidNodeOwnerAddress = (): ApiError =>
  api('InvalidNodeOwnerAddress', 636, 'Authorization error. Invalid node owner address', 403, 'Authorization');
export const serviceIsDisabled = (name: string): ApiError => api('ServiceIsDisabled', 637, `Service '${name}' is disabled`, 404, 'service');

/** 638. */
export const illegalWatcherAction = (): ApiError =>
  api('IllegalWatcherActionError', 638, "Sending transactions or data is disabled for node in 'Watcher' mode", 403);

/** 641 (501, gRPC UNIMPLEMENTED): e.g. a transaction without a protobuf form. */
export const unimplementedError = (description: string): ApiError => api('UnimplementedError', 641, description, 501);

export const healthCheckError = (message: string): ApiError => api('HealthCheckError', 640, message, 503);
/** WE's TooManyConnections: a gRPC event stream refused past its `max-connections`. */
export const tooManyConnections = (maxConnections: number): ApiError =>
  api('TooManyConnections', 642, `Max connections count '${maxConnections}' has been exceeded. Please, try again later`, 503);
/** 642, 503: one client connection (gRPC channel) holds its share of the node's event streams already. */
export const tooManyChannelConnections = (maxPerChannel: number): ApiError =>
  api(
    'TooManyConnections',
    642,
    `Max connections count '${maxPerChannel}' per channel has been exceeded. Please, close a stream of this channel or try again later`,
    503,
  );
/** 642: an event stream ended because its reader fell this far behind; `recovery` says how to catch up (e.g. `reconnect and read the statuses missed by transaction id`). */
export const streamReaderBehind = (backlog: number, recovery: string): ApiError =>
  api('StreamReaderBehind', 642, `The stream was ended: its reader fell '${backlog}' messages behind. Please, read faster, or ${recovery}`, 429);
/** WE's InvalidConnectionId: the `connection-id` metadata of a gRPC event stream is empty, too long or in use. */
export const invalidConnectionId = (message: string): ApiError => api('InvalidConnectionId', 643, message, 400, 'connection-id');

/** 645. */
export const invalidContractApiVersion = (message: string, field?: string): ValidationError => invalid('InvalidContractApiVersion', 645, message, field);

// ---------------------------------------------------------------------------
// Confidential data (src/privacy): WE's ApiError codes, statuses and texts (we-node
// ApiError.scala) beyond 612/613/615 above and the HTTP layer's own.

export class PrivacyError extends WeError {}

/** 199: the bytes do not hash to the hash the request names (checked while they are stored). */
export const invalidPolicyDataHash = (actual: string, expected: string): PrivacyError =>
  new PrivacyError('InvalidPolicyDataHash', 199, `Invalid data hash. Actual '${actual}', expected '${expected}'`, 'hash');

/** 607: a Base64 `data` string at or above WE's limit (35 651 584 characters). */
export const policyDataTooBig = (size: number, max: number): PrivacyError =>
  new PrivacyError('PolicyDataTooBig', 607, `Policy data too big, actual size '${size}' bytes, max size '${max}' bytes`, 'data');

/**
 * 607 (Weft): data larger than the PrivateDataResponse (31) that carries a small item to the
 * policy's other nodes can hold (WE's 20 MiB + 128 B cap, less the item's metadata and the
 * transport encryption). WE accepts such data and no other node ever receives it.
 */
export const policyDataTooBigToReplicate = (size: number, max: number): PrivacyError =>
  new PrivacyError(
    'PolicyDataTooBig',
    607,
    `Policy data too big, actual size '${size}' bytes, max size '${max}' bytes: with its metadata it would not fit the one P2P message (20 MiB) that carries it to the policy's other nodes; send it with /privacy/sendLargeData`,
    'data',
  );

/** 608: another upload of the same item won the race to store it. */
export const entityAlreadyExists = (): PrivacyError => new PrivacyError('EntityAlreadyExists', 608, 'Inserting entity that already exists');

/** 609 (500): the storage failed (it is down, full, refused the request); the cause is logged, not shown. */
export class StorageFailure extends PrivacyError {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('GeneralDBError', 609, 'DB error', undefined, 500);
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** 617: the item should be here (it was stored, or its hash is anchored) but its data is not. */
export const policyItemDataIsMissing = (hash: string): PrivacyError =>
  new PrivacyError('PolicyItemDataIsMissing', 617, `The requested dataset ${hash} is missing in privacy storage`, 'hash');

/** 646 (404): neither the node nor its storage knows the item. */
export const policyItemNotFound = (policyId: string, hash: string): PrivacyError =>
  new PrivacyError('PolicyItemNotFound', 646, `Policy ${policyId} item ${hash} not found in database`, 'hash', 404);

/** 647: a large item asked for with getData, or a small one with getLargeData. */
export const wrongPolicyItemDataGetMethod = (policyId: string, hash: string, type: 'large' | 'default'): PrivacyError =>
  new PrivacyError(
    'WrongPolicyItemDataGetMethod',
    647,
    type === 'large'
      ? `Policy '${policyId}' item '${hash}' data size is too big, you should use 'getPolicyItemDataLarge' for grpc and 'policyItemDataLarge' for rest methods instead`
      : `Policy '${policyId}' item '${hash}' data size is small, you should use 'getPolicyItemData' for grpc and 'policyItemData' for rest methods instead`,
    'hash',
  );

/** 610 (500): forceSync could not restart the synchronizer (this node runs none: watcher mode). */
export const forceSyncError = (): PrivacyError => new PrivacyError('ForceSyncError', 610, 'Force sync error', undefined, 500);

// ---------------------------------------------------------------------------
// Contracts (WE's contract ApiErrors, and what goes wrong around an execution)

/** 600, for the id as the client wrote it (or its Base58). */
export const contractNotFound = (contractId: string): ValidationError =>
  invalid('ContractNotFound', 600, `Contract '${contractId}' is not found`, 'contractId', 404);

/** 601. */
export const executedTransactionNotFound = (txId: string): ApiError =>
  api('ExecutedTransactionNotFound', 601, `Executed transaction is not found for transaction with txId = ${txId}`, 404, 'txId');

// Confidential contracts (/confidential-contracts/*)

/** 624: commitmentVerification=true without `commitment`. */
export const commitmentNotPresent = (): ApiError => api('CommitmentNotPresent', 624, "'commitment' is not present in request", 400, 'commitment');
/** 625: commitmentVerification=true without `commitmentKey`. */
export const commitmentKeyNotPresent = (): ApiError => api('CommitmentKeyNotPresent', 625, "'commitmentKey' is not present in request", 400, 'commitmentKey');
/** 626: the given commitment is not the hash of the params with the given key. */
export const commitmentValidationFailed = (): ApiError => api('CommitmentValidationFailed', 626, 'Failed commitment validation', 400, 'commitment');
/** 650 (Base58 contract id). */
export const confidentialCallNotAllowed = (contractId: string): ApiError =>
  api('ConfidentialCallNotAllowedForContract', 650, `Contract '${contractId}' not allowed for confidential call`, 400, 'contractId');
/** 651. */
export const groupsNotContainNodeOwner = (contractId: string, nodeOwner: string): ApiError =>
  api('GroupOwnersNotContainsNodeOwner', 651, `Confidential groups from contract '${contractId}' not contain NodeOwner '${nodeOwner}'`, 400, 'contractId');
/** 652. */
export const notEnoughGroupParticipants = (contractId: string): ApiError =>
  api('NotEnoughGroupParticipants', 652, `GroupParticipants from contract '${contractId}' must be at least 3`, 400, 'contractId');

/** 602 (Base58 contract id). */
export const contractIsDisabled = (contractId: string): ValidationError =>
  invalid('ContractIsDisabled', 602, `Contract '${contractId}' has been disabled. You cannot call disabled contract`, 'contractId');

/** 603 (Base58 contract id). */
export const contractAlreadyDisabled = (contractId: string): ValidationError =>
  invalid('ContractAlreadyDisabled', 603, `Contract '${contractId}' has been already disabled`, 'contractId');

/** 605. */
export const contractExecutionNotFound = (txId: string): ApiError =>
  api('ContractExecutionNotFound', 605, `Contract execution result is not found for transaction with txId = '${txId}'`, 404, 'txId');

/** Contract error codes (WE's ContractExecutionError object). */
export const FATAL_ERROR_CODE = 0;
export const RECOVERABLE_ERROR_CODE = 1;
export const NODE_FAILURE_CODE = 2;

/**
 * The store on disk is in a layout this build does not know (written by a newer build):
 * refused when the node opens it rather than misread — an operator's matter, not a client's.
 */
export class StoreFormatError extends InternalError {
  override readonly name = 'StoreFormatError';
}

/**
 * WE's ContractExecutionException: something went wrong around an execution (start-up,
 * Docker, a timeout), optionally with the contract error code it stands for (1 =
 * recoverable). `fatal` marks the ones WE's FatalExceptionsMatchers drop the transaction
 * for (digest mismatch, image not found, Docker API errors). Never shown to a client as
 * is: the executor turns it into an execution status.
 */
export class ContractExecutionException extends InternalError {
  constructor(
    message: string,
    /** The contract error code this stands for (1 = recoverable); undefined = node failure. */
    readonly code?: number,
    /** WE drops the transaction from the pool for it (FatalExceptionsMatchers). */
    readonly fatal = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ContractExecutionException';
  }
}

/** WE's ImageDigestValidationException (fatal). */
export const imageDigestMismatch = (actualId: string, image: string, imageHash: string): ContractExecutionException =>
  new ContractExecutionException(`Id '${actualId}' of local image '${image}' isn't equal to its digest '${imageHash}'`, undefined, true);
