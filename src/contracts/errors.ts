/**
 * Errors of the contract engine.
 *
 * `ContractApiError`: WE's ApiError cases the contract REST routes and the contract gRPC
 * services answer with (missing key 304, unknown contract 600, tokens 618/622, …). The
 * HTTP layer renders them like any WeError; the gRPC server turns them into a status
 * (from the HTTP status, as WE's asGrpcStatus does) and the `error-code` /
 * `error-message` trailers.
 *
 * `ContractExecutionException`: WE's exception of the same name — something went wrong
 * around an execution (start-up, Docker, a timeout), optionally with the contract error
 * code it stands for (1 = recoverable). `fatal` marks the ones WE's FatalExceptionsMatchers
 * drop the transaction for (digest mismatch, image not found, Docker API errors).
 */
import { encodeBase58 } from '../crypto/encoding.js';
import { WeError } from '../errors/catalogue.js';

/** Contract error codes (WE's ContractExecutionError object). */
export const FATAL_ERROR_CODE = 0;
export const RECOVERABLE_ERROR_CODE = 1;
export const NODE_FAILURE_CODE = 2;

export class ContractApiError extends WeError {}

const api = (kind: string, code: number, message: string, status: number, field?: string): ContractApiError =>
  new ContractApiError(kind, code, message, field, status);

/** 304. */
export const dataKeyNotExists = (key: string): ContractApiError => api('DataKeyNotExists', 304, `no data for this key: ${key}`, 404, 'key');

/** 600, for the id as the client wrote it. */
export const contractNotFound = (contractId: string): ContractApiError => api('ContractNotFound', 600, `Contract '${contractId}' is not found`, 404, 'contractId');

/** 601. */
export const executedTransactionNotFound = (txId: string): ContractApiError =>
  api('ExecutedTransactionNotFound', 601, `Executed transaction is not found for transaction with txId = ${txId}`, 404, 'txId');

/** 602. */
export const contractIsDisabled = (contractId: Uint8Array): ContractApiError =>
  api('ContractIsDisabled', 602, `Contract '${encodeBase58(contractId)}' has been disabled. You cannot call disabled contract`, 400, 'contractId');

/** 603. */
export const contractAlreadyDisabled = (contractId: Uint8Array): ContractApiError =>
  api('ContractAlreadyDisabled', 603, `Contract '${encodeBase58(contractId)}' has been already disabled`, 400, 'contractId');

/** 605. */
export const contractExecutionNotFound = (txId: string): ContractApiError =>
  api('ContractExecutionNotFound', 605, `Contract execution result is not found for transaction with txId = '${txId}'`, 404, 'txId');

/** 618. */
export const missingAuthorizationMetadata = (): ContractApiError =>
  api('MissingAuthorizationMetadata', 618, 'Authorization error. Missing authorization metadata', 401, 'authorization');

/** 622. */
export const invalidTokenError = (): ContractApiError => api('InvalidTokenError', 622, 'Authorization error. Invalid token', 401, 'authorization');

/** 629. */
export const invalidContractKeysFilter = (regex: string): ContractApiError =>
  api('InvalidContractKeysFilter', 629, `Keys filter parameter has invalid regex pattern '${regex}'`, 400, 'matches');

/** 199 (WE's CustomValidationError). */
export const contractCustomError = (message: string, field?: string): ContractApiError => api('CustomValidationError', 199, message, 400, field);

/** 112 with WE's InvalidAssetId wording (unknown asset in a balance request). */
export const invalidAssetId = (message: string, field?: string): ContractApiError => api('InvalidAssetId', 118, message, 400, field);

export class ContractExecutionException extends Error {
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
export function imageDigestMismatch(actualId: string, image: string, imageHash: string): ContractExecutionException {
  return new ContractExecutionException(`Id '${actualId}' of local image '${image}' isn't equal to its digest '${imageHash}'`, undefined, true);
}
