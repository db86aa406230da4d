/**
 * Lease (8, V2–V3) and LeaseCancel (9, V2–V3).
 *
 * Lease starts with an `assetId` option byte (ASSET_ID.?) that WE keeps for a future
 * "lease assets" feature: it is never read from JSON, never shown in JSON, always None,
 * and a Some in binary fails as the node's `require` does. LeaseCancel carries the chain id
 * as a required JSON number that must be the node's.
 */
import { encodeBase58 } from '../../crypto/encoding.js';
import { INT64 } from '../bytes.js';
import { atomicBadgeSince, fee, sender, timestamp, validateChainId } from './common.js';
import { base58Field, BYTE, jsonString, LONG, OPT_ASSET_ID, RECIPIENT, type FieldType } from './fields.js';
import { provenObject, recipientObject, type RideBinding } from './ride-binding.js';
import { defineTx, field, PROOFS, type DataOf, type Transaction } from './schema.js';
import { DecodeError, genericError, negativeAmount, overflowError } from '../../errors/catalogue.js';

const LEASING_ASSETS_UNSUPPORTED = 'requirement failed: Leasing assets is not supported yet';

/** Lease's ASSET_ID.?: always None (`00`); a leased asset fails like WE's `assetIdChecker`. */
const LEASE_ASSET_ID: FieldType<null> = {
  kind: 'ASSET_ID.?',
  write: (w, v) => {
    if (v !== null) throw genericError(LEASING_ASSETS_UNSUPPORTED, 'assetId');
    w.u8(0);
  },
  read: (r, p, f) => {
    if (OPT_ASSET_ID.read(r, p, f) !== null) throw new DecodeError(LEASING_ASSETS_UNSUPPORTED, f);
    return null;
  },
  fromJson: () => null,
  toJson: () => null,
};

/** WE's LeaseValidation.validateLeaseParams: amount > 0, then amount + fee must fit in a long. */
function validateLeaseParams(amount: bigint, feeAmount: bigint): void {
  if (amount <= 0n) throw negativeAmount(amount, 'WEST');
  const sum = amount + feeAmount;
  if (sum > INT64.MAX || sum < INT64.MIN) throw overflowError();
}

const leaseFields = [
  field('assetId', LEASE_ASSET_ID, {
    hiddenInJson: true,
    check: (v) => {
      if (v !== null) throw genericError(LEASING_ASSETS_UNSUPPORTED);
    },
  }),
  sender,
  field('recipient', RECIPIENT),
  field('amount', LONG, { check: (v, _p, data) => validateLeaseParams(v, data['fee'] as bigint) }),
  fee,
  timestamp,
  atomicBadgeSince(3),
  PROOFS,
] as const;

export const Lease = defineTx({ type: 8, name: 'Lease', versions: [2, 3], fields: leaseFields });
export type LeaseData = DataOf<typeof leaseFields>;
export type LeaseTransaction = Transaction<LeaseData>;

export const leaseBinding: RideBinding<LeaseTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'LeaseTransaction', [
    ['amount', tx.data.amount],
    ['recipient', recipientObject(tx.data.recipient)],
  ]);

/**
 * LeaseCancel's `leaseId`: 32 raw bytes in binary; in JSON a Base58 string of at most the
 * length of a signature (`invalid.leaseTx` otherwise), whose length is then checked.
 */
const LEASE_ID: FieldType<Uint8Array> = {
  kind: 'ASSET_ID',
  write: (w, v) => void w.bytes(v),
  read: (r, _p, f) => r.bytes(32, f),
  fromJson: (j, p, path) => base58Field(jsonString(j, path), 'invalid.leaseTx', p.crypto.signatureLength, path),
  toJson: (v) => encodeBase58(v),
};

const leaseCancelFields = [
  field('chainId', BYTE, { check: (v, p) => validateChainId(v, p) }),
  sender,
  fee,
  timestamp,
  field('leaseId', LEASE_ID, {
    check: (v, p) => {
      if (v.length !== p.crypto.digestLength) throw genericError('Lease transaction id is invalid');
    },
  }),
  atomicBadgeSince(3),
  PROOFS,
] as const;

export const LeaseCancel = defineTx({ type: 9, name: 'LeaseCancel', versions: [2, 3], fields: leaseCancelFields });
export type LeaseCancelData = DataOf<typeof leaseCancelFields>;
export type LeaseCancelTransaction = Transaction<LeaseCancelData>;

export const leaseCancelBinding: RideBinding<LeaseCancelTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'LeaseCancelTransaction', [['leaseId', tx.data.leaseId]]);

export const codecs = [Lease, LeaseCancel];
