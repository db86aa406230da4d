/**
 * Fields most families share (WE's EssentialFields and the common optional ones).
 */
import { LONG, OPT_ASSET_ID, OPT_ATOMIC_BADGE, PUBLIC_KEY } from './fields.js';
import { field, versioned } from './schema.js';

export const sender = field('senderPublicKey', PUBLIC_KEY);
export const fee = field('fee', LONG);
export const timestamp = field('timestamp', LONG);

/** `feeAssetId` (ASSET_ID.?) from the given version on. */
export const feeAssetIdSince = (version: number) => versioned('feeAssetId', OPT_ASSET_ID, { since: version });

/** `atomicBadge` (OPTION(ATOMIC_BADGE)) from the given version on. */
export const atomicBadgeSince = (version: number) => versioned('atomicBadge', OPT_ATOMIC_BADGE, { since: version });
