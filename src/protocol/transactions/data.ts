/**
 * Data (12, V1–V3).
 *
 * `author` is a public key, read from the request key `authorPublicKey`; the node's JSON
 * shows `authorPublicKey` (an additional field, before the version's fields) and `author`
 * as the author's address. Stateless rules are WE's DataValidation and
 * DataTransactionEntryOps, in their order and with their errors.
 */
import { encodeBase58 } from '../../crypto/encoding.js';
import { atomicBadgeSince, fee, sender, timestamp } from './common.js';
import { DATA_ENTRY, dataEntryValueSize, jsonArray, optionalAssetIdType, PUBLIC_KEY, shortList, type DataEntry, type FieldType } from './fields.js';
import { provenObject, type RideBinding } from './ride-binding.js';
import { defineTx, field, PROOFS, versioned, type DataOf, type Transaction } from './schema.js';
import { CaseObj, RideList } from '../../ride/values.js';
import { DATA_ENTRY as RIDE_DATA_ENTRY } from '../../ride/we-types.js';
import { genericError, tooBigArray } from '../../errors/catalogue.js';

/** At most this many entries (DataValidation.MaxEntryCount). */
export const MAX_DATA_ENTRIES = 100;
/** Key length limit in UTF-16 code units, as Java's String.length counts (DataTransactionEntryOps.MaxKeySize). */
export const MAX_DATA_KEY_LENGTH = 100;
/** Binary and string values: at most this many bytes (Short.MaxValue). */
export const MAX_DATA_VALUE_SIZE = 32_767;
/** Full (wire) bytes of a Data transaction: at most 150 KiB (DataValidation.MaxBytes). */
export const MAX_DATA_TX_BYTES = 150 * 1024;

const ENTRY_LIST = shortList(DATA_ENTRY);

/**
 * SHORT_LIST(DATA_ENTRY) read from JSON as WE's Play reader does: any number of entries and
 * keys of any length are read, so that the limits fail later as DataValidation's errors
 * (TooBigArray) rather than as serialization limits.
 */
const DATA_LIST: FieldType<DataEntry[]> = {
  ...ENTRY_LIST,
  fromJson: (j, p, path) =>
    jsonArray(j, path).map((item, i) => {
      const itemPath = `${path}(${i})`;
      if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
        const key = (item as Record<string, unknown>)['key'];
        if (typeof key === 'string' && key.length > MAX_DATA_KEY_LENGTH) {
          // Read the rest of the entry with a placeholder key, then restore the over-long one.
          const entry = DATA_ENTRY.fromJson({ ...item, key: '' }, p, itemPath);
          return { ...entry, key };
        }
      }
      return DATA_ENTRY.fromJson(item, p, itemPath);
    }),
};

/** DataTransactionEntryOps.validate: key ≤ 100 UTF-16 units, binary/string values ≤ 32 767 bytes. */
export function isValidDataEntry(e: DataEntry): boolean {
  return e.key.length <= MAX_DATA_KEY_LENGTH && dataEntryValueSize(e) <= MAX_DATA_VALUE_SIZE;
}

/** DataValidation.validateData: count or any invalid entry → TooBigArray; then empty keys; then duplicates. */
export function validateDataEntries(data: readonly DataEntry[]): void {
  if (data.length > MAX_DATA_ENTRIES || !data.every(isValidDataEntry)) throw tooBigArray();
  if (data.some((e) => e.key === '')) throw genericError('Empty key found');
  if (new Set(data.map((e) => e.key)).size < data.length) throw genericError('Duplicate keys found');
}

const dataFields = [
  sender,
  field('author', PUBLIC_KEY, {
    jsonKey: 'authorPublicKey',
    toJson: (v, tx) => tx.protocol.addresses.fromPublicKey(v).toString(),
  }),
  field('data', DATA_LIST, { check: (v) => validateDataEntries(v) }),
  timestamp,
  fee,
  versioned('feeAssetId', optionalAssetIdType('invalid feeAssetId'), { since: 2 }),
  atomicBadgeSince(3),
  PROOFS,
] as const;

export const Data = defineTx({
  type: 12,
  name: 'Data',
  versions: [1, 2, 3],
  fields: dataFields,
  extraJson: (tx) => ({ authorPublicKey: encodeBase58(tx.data.author) }),
  // WE's `ensures = validateSize`: the full bytes, proofs included.
  validate: (tx) => {
    if (tx.bytes.length > MAX_DATA_TX_BYTES) throw tooBigArray('data');
  },
});
export type DataData = DataOf<typeof dataFields>;
export type DataTransaction = Transaction<DataData>;

export const dataBinding: RideBinding<DataTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'DataTransaction', [
    [
      'data',
      new RideList(
        tx.data.data.map((e) =>
          CaseObj.of(RIDE_DATA_ENTRY, [
            ['key', e.key],
            ['value', e.value],
          ]),
        ),
      ),
    ],
  ]);

export const codecs = [Data];
