/**
 * Why an anchoring round failed (WE's AnchoringError): the code and message that go into
 * the `error-code` and `error-message` entries of the error transaction on this chain.
 */
import { InternalError } from '../errors/internal.js';

export const ANCHORING_ERROR = {
  unknown: 0,
  targetnetTransactionCreation: 1,
  sendingToTargetnet: 2,
  invalidBroadcastStatus: 3,
  unparsableBroadcastResponse: 4,
  differentTransactionId: 5,
  transactionInfo: 6,
  targetnetHeight: 7,
  transactionDisappeared: 8,
  sidechainTransactionCreation: 9,
  anchoredBlockChanged: 10,
} as const;

export type AnchoringErrorCode = (typeof ANCHORING_ERROR)[keyof typeof ANCHORING_ERROR];

export class AnchoringFailure extends InternalError {
  override readonly name = 'AnchoringFailure';
  constructor(
    readonly code: AnchoringErrorCode,
    message: string,
    /** What went wrong in detail, for the log (not written on chain). */
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** WE's messages, by code. */
export const anchoringFailure = {
  unknown: (detail?: string) => new AnchoringFailure(ANCHORING_ERROR.unknown, 'unknown error', detail),
  targetnetTransactionCreation: (detail: string) =>
    new AnchoringFailure(ANCHORING_ERROR.targetnetTransactionCreation, 'failed to create a data transaction for targetnet', detail),
  sendingToTargetnet: (detail: string) => new AnchoringFailure(ANCHORING_ERROR.sendingToTargetnet, 'failed to send the transaction to targetnet', detail),
  invalidBroadcastStatus: (status: number, detail?: string) =>
    new AnchoringFailure(ANCHORING_ERROR.invalidBroadcastStatus, `invalid http status of response from targetnet transaction broadcast: ${status}`, detail),
  unparsableBroadcastResponse: (detail: string) =>
    new AnchoringFailure(ANCHORING_ERROR.unparsableBroadcastResponse, 'failed to parse http body of response from targetnet transaction broadcast', detail),
  differentTransactionId: (returned: string, sent: string) =>
    new AnchoringFailure(
      ANCHORING_ERROR.differentTransactionId,
      `targetnet returned transaction with id='${returned}', but it differs from the transaction that was sent(id='${sent}')`,
    ),
  transactionInfo: (detail: string) =>
    new AnchoringFailure(ANCHORING_ERROR.transactionInfo, "targetnet didn't respond to the transaction info request", detail),
  targetnetHeight: (detail: string) => new AnchoringFailure(ANCHORING_ERROR.targetnetHeight, 'failed to get current height in targetnet', detail),
  transactionDisappeared: (detail: string) =>
    new AnchoringFailure(ANCHORING_ERROR.transactionDisappeared, 'anchoring transaction in targetnet disappeared after the height rose enough', detail),
  sidechainTransactionCreation: (detail: string) =>
    new AnchoringFailure(ANCHORING_ERROR.sidechainTransactionCreation, 'failed to create sidechain anchoring transaction', detail),
  anchoredBlockChanged: (detail: string) =>
    new AnchoringFailure(
      ANCHORING_ERROR.anchoredBlockChanged,
      'anchored block in sidechain was changed while waiting for targetnet height rise, looks like a rollback has happened',
      detail,
    ),
} as const;
