/**
 * WE's validation errors, as the WE node reports them to REST clients: each carries the
 * ApiError code WE maps it to when it is raised while reading or statelessly validating
 * a transaction (ApiError.fromValidationError), and WE's message.
 *
 * Errors found while applying a transaction to state are wrapped later (code 112)
 * by the chain layer; that mapping does not live here.
 */

import { WeError } from '../crypto/errors.js';

export { WeError, invalidAddress, invalidPublicKey, invalidHash } from '../crypto/errors.js';

/** WE's transaction ValidationError family (outside the state differ). */
export class ValidationError extends WeError {}

/** Thrown for malformed binary input (P2P, blocks, stored bytes). */
export class DecodeError extends ValidationError {
  constructor(message: string, field?: string) {
    super('GenericError', 199, message, field);
  }
}

export const genericError = (message: string, field?: string): ValidationError =>
  new ValidationError('GenericError', 199, message, field);

export const invalidSignature = (field?: string): ValidationError =>
  new ValidationError('InvalidSignature', 101, 'invalid signature', field);

export const negativeAmount = (amount: bigint, of: string, field?: string): ValidationError =>
  new ValidationError('NegativeAmount', 111, `negative amount: ${amount} of ${of}`, field);

export const negativeMinFee = (fee: bigint, of: string, field?: string): ValidationError =>
  new ValidationError('NegativeMinFee', 114, `negative fee per: ${fee} per ${of}`, field);

/** WE's InsufficientFee has no ApiError of its own: it is rendered with its Scala toString under 199. */
export const insufficientFee = (field?: string, msg = 'insufficient fee'): ValidationError =>
  new ValidationError('InsufficientFee', 199, `InsufficientFee(${msg})`, field);

export const tooBigArray = (field?: string): ValidationError =>
  new ValidationError('TooBigArray', 10, 'Too big sequences requested', field);

export const invalidName = (field?: string): ValidationError =>
  new ValidationError('InvalidName', 116, 'invalid name', field);

export const overflowError = (field?: string): ValidationError =>
  new ValidationError('OverflowError', 113, 'overflow error', field);

export const invalidAssetId = (message: string, field?: string): ValidationError =>
  new ValidationError('InvalidAssetId', 118, message, field);

export const unsupportedTransactionType = (field?: string): ValidationError =>
  new ValidationError('UnsupportedTransactionType', 199, 'UnsupportedTransactionType', field);

export const mistiming = (message: string, field?: string): ValidationError =>
  new ValidationError('Mistiming', 303, message, field);

export const invalidContractApiVersion = (message: string, field?: string): ValidationError =>
  new ValidationError('InvalidContractApiVersion', 645, message, field);

export const contractTransactionTooBig = (actual: number, max: number, field?: string): ValidationError =>
  new ValidationError(
    'ContractTransactionTooBig',
    604,
    `Contract transaction too big, actual size ${actual} bytes, expected size ${max} bytes`,
    field,
  );

/**
 * WE's WrongJson (code 1): the body is not JSON, or a field is missing or has the wrong JSON type.
 * `path` is the field's path inside the body (`fee`, `transfers(0).amount`); WE reports it as `obj.<path>`.
 */
export const wrongJson = (path?: string, playMessage = 'error.path.missing'): ValidationError => {
  const errors = path === undefined ? [] : [{ path: `obj.${path}`, messages: [playMessage] }];
  return new ValidationError('WrongJson', 1, 'failed to parse json message', path, 400, errors);
};

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
