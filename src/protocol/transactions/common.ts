/**
 * Fields most families share (WE's EssentialFields and the common optional ones).
 */
import type { JsonObject } from '../json.js';
import type { ProtocolParams } from './fields.js';
import { BYTE, LONG, OPT_ASSET_ID, OPT_ATOMIC_BADGE, PUBLIC_KEY } from './fields.js';
import { field, versioned } from './schema.js';
import { genericError } from '../../errors/catalogue.js';

export const sender = field('senderPublicKey', PUBLIC_KEY);
export const fee = field('fee', LONG);
export const timestamp = field('timestamp', LONG);

/** `feeAssetId` (ASSET_ID.?) from the given version on. */
export const feeAssetIdSince = (version: number) => versioned('feeAssetId', OPT_ASSET_ID, { since: version });

/** `atomicBadge` (OPTION(ATOMIC_BADGE)) from the given version on. */
export const atomicBadgeSince = (version: number) => versioned('atomicBadge', OPT_ATOMIC_BADGE, { since: version });

/** WE's validateChainId (Issue, Reissue, LeaseCancel, SetScript, SetAssetScript). */
export function validateChainId(chainId: number, p: ProtocolParams): void {
  if (chainId !== p.chainId) throw genericError(`Wrong chainId actual: ${chainId}, expected: ${p.chainId}`, 'chainId');
}

/**
 * `chainId` BYTE of WE's ChainSpecific types: never read from request JSON (the node puts
 * its own); checked against the node's chain id unless `checked` is false (Burn).
 */
export const chainIdField = (checked: boolean) =>
  field('chainId', BYTE, {
    fromJson: (_body: JsonObject, p: ProtocolParams) => p.chainId,
    ...(checked ? { check: (v: number, p: ProtocolParams) => validateChainId(v, p) } : {}),
  });
