/**
 * Issue (3, V2–V3), Reissue (5, V2–V3), Burn (6, V2–V3) and SponsorFee (14, V1–V2).
 *
 * WE quirks kept here:
 * - `chainId` is a body field of Issue, Reissue and Burn but never read from request
 *   JSON: the node puts its own. Issue and Reissue check it (also in binary); Burn's is
 *   serialized and shown but never checked.
 * - Burn's request JSON gives the amount as `quantity` or, failing that, `amount`; the
 *   transaction JSON calls it `amount`.
 * - Issue's JSON has `assetId` (= the transaction id) before its fields.
 * - Issue's `script`: absent or null is None, but "" is a script (and fails: empty).
 */
import { atomicBadgeSince, chainIdField, fee, sender, timestamp } from './common.js';
import { ASSET_ID, BOOLEAN, BYTE, jsonLong, LONG } from './fields.js';
import { defineTx, field, PROOFS, type DataOf, type Transaction } from './schema.js';
import { option, provenObject, type RideBinding } from './ride-binding.js';
import { checkScript, OPT_SCRIPT_STRICT, TEXT_BYTES } from './scripts.js';
import { invalidName, negativeAmount, tooBigArray, WeError } from '../../errors/catalogue.js';

export const MIN_ASSET_NAME_BYTES = 4;
export const MAX_ASSET_NAME_BYTES = 16;
export const MAX_ASSET_DESCRIPTION_BYTES = 1000;
export const MAX_DECIMALS = 8;

/** validatePositiveAmount(_, "assets"). */
const positiveQuantity = (v: bigint): void => {
  if (v <= 0n) throw negativeAmount(v, 'assets');
};

// ---------------------------------------------------------------------------
// Issue (3)

const issueFields = [
  chainIdField(true),
  sender,
  field('name', TEXT_BYTES, {
    check: (v) => {
      if (v.length < MIN_ASSET_NAME_BYTES || v.length > MAX_ASSET_NAME_BYTES) throw invalidName();
    },
  }),
  field('description', TEXT_BYTES, {
    check: (v) => {
      if (v.length > MAX_ASSET_DESCRIPTION_BYTES) throw tooBigArray();
    },
  }),
  field('quantity', LONG, { check: positiveQuantity }),
  field('decimals', BYTE, {
    check: (v) => {
      if (v < 0 || v > MAX_DECIMALS) throw tooBigArray();
    },
  }),
  field('reissuable', BOOLEAN),
  fee,
  timestamp,
  atomicBadgeSince(3),
  field('script', OPT_SCRIPT_STRICT, { check: checkScript }),
  PROOFS,
] as const;

export const Issue = defineTx({
  type: 3,
  name: 'Issue',
  versions: [2, 3],
  fields: issueFields,
  extraJson: (tx) => ({ assetId: tx.idBase58 }),
});
export type IssueData = DataOf<typeof issueFields>;
export type IssueTransaction = Transaction<IssueData>;

export const issueBinding: RideBinding<IssueTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'IssueTransaction', [
    ['quantity', tx.data.quantity],
    ['name', tx.data.name],
    ['description', tx.data.description],
    ['reissuable', tx.data.reissuable],
    ['decimals', BigInt(tx.data.decimals)],
    ['script', option(tx.data.script)],
  ]);

// ---------------------------------------------------------------------------
// Reissue (5)

const reissueFields = [
  chainIdField(true),
  sender,
  field('assetId', ASSET_ID),
  field('quantity', LONG, { check: positiveQuantity }),
  field('reissuable', BOOLEAN),
  fee,
  timestamp,
  atomicBadgeSince(3),
  PROOFS,
] as const;

export const Reissue = defineTx({ type: 5, name: 'Reissue', versions: [2, 3], fields: reissueFields });
export type ReissueData = DataOf<typeof reissueFields>;
export type ReissueTransaction = Transaction<ReissueData>;

export const reissueBinding: RideBinding<ReissueTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'ReissueTransaction', [
    ['quantity', tx.data.quantity],
    ['assetId', tx.data.assetId],
    ['reissuable', tx.data.reissuable],
  ]);

// ---------------------------------------------------------------------------
// Burn (6)

const burnFields = [
  chainIdField(false),
  sender,
  field('assetId', ASSET_ID),
  field('amount', LONG, {
    // Play's `(__ \ "quantity").read[Long].orElse((__ \ "amount").read[Long])`.
    fromJson: (body) => {
      try {
        return jsonLong(body['quantity'], 'quantity');
      } catch (e) {
        if (!(e instanceof WeError)) throw e;
        return jsonLong(body['amount'], 'amount');
      }
    },
    check: (v) => {
      if (v < 0n) throw negativeAmount(v, 'assets');
    },
  }),
  fee,
  timestamp,
  atomicBadgeSince(3),
  PROOFS,
] as const;

export const Burn = defineTx({ type: 6, name: 'Burn', versions: [2, 3], fields: burnFields });
export type BurnData = DataOf<typeof burnFields>;
export type BurnTransaction = Transaction<BurnData>;

/** A script reads the burnt amount as `quantity`. */
export const burnBinding: RideBinding<BurnTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'BurnTransaction', [
    ['quantity', tx.data.amount],
    ['assetId', tx.data.assetId],
  ]);

// ---------------------------------------------------------------------------
// SponsorFee (14)

const sponsorFeeFields = [sender, field('assetId', ASSET_ID), field('isEnabled', BOOLEAN), fee, timestamp, atomicBadgeSince(2), PROOFS] as const;

export const SponsorFee = defineTx({ type: 14, name: 'SponsorFee', versions: [1, 2], fields: sponsorFeeFields });
export type SponsorFeeData = DataOf<typeof sponsorFeeFields>;
export type SponsorFeeTransaction = Transaction<SponsorFeeData>;

/** V1 only: WE binds no SponsorFee V2. */
export const sponsorFeeBinding: RideBinding<SponsorFeeTransaction> = (tx, ctx) =>
  tx.version !== 1
    ? undefined
    : provenObject(tx, ctx, 'SponsorFeeTransaction', [
        ['assetId', tx.data.assetId],
        ['isEnabled', tx.data.isEnabled],
      ]);

export const codecs = [Issue, Reissue, Burn, SponsorFee];
