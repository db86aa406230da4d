import { WeError } from '../errors/catalogue.js';
/**
 * Errors of confidential data, with WE's ApiError codes, statuses and texts (we-node
 * ApiError.scala): what a client sees from the privacy routes beyond the state layer's
 * 612/615 and the HTTP layer's own.
 */

export class PrivacyError extends WeError {}

/** 199: the bytes do not hash to the hash the request names (checked while they are stored). */
export const invalidPolicyDataHash = (actual: string, expected: string): PrivacyError =>
  new PrivacyError('InvalidPolicyDataHash', 199, `Invalid data hash. Actual '${actual}', expected '${expected}'`, 'hash');

/** 607: a Base64 `data` string at or above WE's limit (35 651 584 characters). */
export const policyDataTooBig = (size: number, max: number): PrivacyError =>
  new PrivacyError('PolicyDataTooBig', 607, `Policy data too big, actual size '${size}' bytes, max size '${max}' bytes`, 'data');

/** 608: another upload of the same item won the race to store it. */
export const entityAlreadyExists = (): PrivacyError => new PrivacyError('EntityAlreadyExists', 608, 'Inserting entity that already exists');

/** 609 (500): the storage failed (it is down, full, refused the request); the cause is logged, not shown. */
export class StorageFailure extends PrivacyError {
  constructor(readonly reason: string, options?: { cause?: unknown }) {
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
