/**
 * Transfer (4, V2–V3) and MassTransfer (11, V1 legacy header, V2–V3).
 */
import type { Recipient } from '../../crypto/address.js';
import { encodeBase58 } from '../../crypto/encoding.js';
import { INT64 } from '../bytes.js';
import { atomicBadgeSince, fee, feeAssetIdSince, sender, timestamp } from './common.js';
import { jsonArray, jsonLong, jsonObject, LONG, OPT_ASSET_ID, RECIPIENT, readRecipient, shortBase58Bytes, type FieldType } from './fields.js';
import { option, provenObject, recipientObject, type RideBinding } from './ride-binding.js';
import { defineTx, field, PROOFS, type DataOf, type Transaction } from './schema.js';
import { CaseObj, RideList } from '../../ride/values.js';
import { TRANSFER as RIDE_TRANSFER } from '../../ride/we-types.js';
import { genericError, insufficientFee, negativeAmount, overflowError, tooBigArray } from '../../errors/catalogue.js';

export const MAX_ATTACHMENT_SIZE = 140;
export const MAX_TRANSFER_COUNT = 100;

const attachment = field('attachment', shortBase58Bytes('invalid.attachment', MAX_ATTACHMENT_SIZE), {
  check: (v) => {
    if (v.length > MAX_ATTACHMENT_SIZE) throw tooBigArray();
  },
});

const assetName = (assetId: Uint8Array | null): string => (assetId === null ? 'WEST' : encodeBase58(assetId));

const transferFields = [
  sender,
  field('assetId', OPT_ASSET_ID),
  field('feeAssetId', OPT_ASSET_ID),
  timestamp,
  field('amount', LONG, {
    check: (v, _p, data) => {
      if (v <= 0n) throw negativeAmount(v, assetName(data['assetId'] as Uint8Array | null));
    },
  }),
  field('fee', LONG, {
    check: (v) => {
      if (v < 0n) throw insufficientFee();
    },
  }),
  field('recipient', RECIPIENT),
  attachment,
  atomicBadgeSince(3),
  PROOFS,
] as const;

export const Transfer = defineTx({ type: 4, name: 'Transfer', versions: [2, 3], fields: transferFields });
export type TransferData = DataOf<typeof transferFields>;
export type TransferTransaction = Transaction<TransferData>;

export const transferBinding: RideBinding<TransferTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'TransferTransaction', [
    ['amount', tx.data.amount],
    ['feeAssetId', option(tx.data.feeAssetId)],
    ['assetId', option(tx.data.assetId)],
    ['attachment', tx.data.attachment],
    ['recipient', recipientObject(tx.data.recipient)],
  ]);

/** One element of a TRANSFER_BATCH. */
export interface ParsedTransfer {
  readonly recipient: Recipient;
  readonly amount: bigint;
}

/** TRANSFER_BATCH: u16 count ‖ (recipient ‖ i64 amount)*. */
export const TRANSFER_BATCH: FieldType<ParsedTransfer[]> = {
  kind: 'TRANSFER_BATCH',
  write: (w, v) => {
    w.u16(v.length);
    for (const t of v) w.bytes(t.recipient.bytes).i64(t.amount);
  },
  read: (r, p, f) => {
    const n = r.u16(f);
    const out: ParsedTransfer[] = [];
    for (let i = 0; i < n; i++) out.push({ recipient: readRecipient(r, p, `${f}(${i})`), amount: r.i64(f) });
    return out;
  },
  fromJson: (j, p, path) => {
    const list = jsonArray(j, path);
    if (list.length > 0xffff) throw genericError(`Number of transfers ${list.length} is greater than ${MAX_TRANSFER_COUNT}`, path);
    return list.map((item, i) => {
      const o = jsonObject(item, `${path}(${i})`);
      return {
        recipient: RECIPIENT.fromJson(o['recipient'], p, `${path}(${i}).recipient`),
        amount: jsonLong(o['amount'], `${path}(${i}).amount`),
      };
    });
  },
  toJson: (v) => v.map((t) => ({ recipient: t.recipient.toString(), amount: t.amount })),
};

/** WE's validateMassTransfers: count, then overflow of fee + amounts, then negative amounts. */
function validateMassTransfers(transfers: readonly ParsedTransfer[], feeAmount: bigint): void {
  if (transfers.length > MAX_TRANSFER_COUNT) {
    throw genericError(`Number of transfers ${transfers.length} is greater than ${MAX_TRANSFER_COUNT}`);
  }
  let sum = feeAmount;
  for (const t of transfers) {
    sum += t.amount;
    if (sum > INT64.MAX || sum < INT64.MIN) throw overflowError();
  }
  if (transfers.some((t) => t.amount < 0n)) throw genericError('One of the transfers has negative amount');
}

const massTransferFields = [
  sender,
  field('assetId', OPT_ASSET_ID),
  field('transfers', TRANSFER_BATCH, {
    check: (v, _p, data) => validateMassTransfers(v, data['fee'] as bigint),
  }),
  timestamp,
  fee,
  attachment,
  feeAssetIdSince(2),
  atomicBadgeSince(3),
  PROOFS,
] as const;

export const MassTransfer = defineTx({
  type: 11,
  name: 'MassTransfer',
  versions: [1, 2, 3],
  legacyVersions: [1],
  fields: massTransferFields,
  extraJson: (tx) => ({
    transferCount: tx.data.transfers.length,
    totalAmount: tx.data.transfers.reduce((s, t) => s + t.amount, 0n),
  }),
});
export type MassTransferData = DataOf<typeof massTransferFields>;
export type MassTransferTransaction = Transaction<MassTransferData>;

/** V1 only: WE binds no MassTransfer V2 or V3. */
export const massTransferBinding: RideBinding<MassTransferTransaction> = (tx, ctx) => {
  if (tx.version !== 1) return undefined;
  const transfers = tx.data.transfers;
  // Long.sum wraps around on overflow in WE.
  const total = BigInt.asIntN(
    64,
    transfers.reduce((a, t) => a + t.amount, 0n),
  );
  return provenObject(tx, ctx, 'MassTransferTransaction', [
    [
      'transfers',
      new RideList(
        transfers.map((t) =>
          CaseObj.of(RIDE_TRANSFER, [
            ['recipient', recipientObject(t.recipient)],
            ['amount', t.amount],
          ]),
        ),
      ),
    ],
    ['assetId', option(tx.data.assetId)],
    ['transferCount', BigInt(transfers.length)],
    ['totalAmount', total],
    ['attachment', tx.data.attachment],
  ]);
};

export const codecs = [Transfer, MassTransfer];
