/**
 * CreateAlias (10, V2–V4).
 *
 * The id is NOT the hash of the body: WE defines it as fastHash(0x0A ‖ aliasBytes), so it
 * depends on the alias alone (two CreateAlias transactions for one alias share an id).
 * JSON carries the bare alias name; the alias rules are AddressScheme.alias's.
 */
import { concatBytes } from '../../crypto/encoding.js';
import { atomicBadgeSince, fee, sender, timestamp } from './common.js';
import { ALIAS, optionalAssetIdType } from './fields.js';
import { provenObject, type RideBinding } from './ride-binding.js';
import { defineTx, field, PROOFS, versioned, type DataOf, type Transaction } from './schema.js';

/** Type byte prepended to the alias bytes for the id. */
const CREATE_ALIAS_TYPE = 10;

const createAliasFields = [
  sender,
  field('alias', ALIAS),
  fee,
  timestamp,
  versioned('feeAssetId', optionalAssetIdType('invalid.feeAssetId'), { since: 3 }),
  atomicBadgeSince(4),
  PROOFS,
] as const;

export const CreateAlias = defineTx({
  type: CREATE_ALIAS_TYPE,
  name: 'CreateAlias',
  versions: [2, 3, 4],
  fields: createAliasFields,
  id: (tx) => tx.protocol.crypto.fastHash(concatBytes(Uint8Array.of(CREATE_ALIAS_TYPE), tx.data.alias.bytes)),
});
export type CreateAliasData = DataOf<typeof createAliasFields>;
export type CreateAliasTransaction = Transaction<CreateAliasData>;

export const createAliasBinding: RideBinding<CreateAliasTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'CreateAliasTransaction', [['alias', tx.data.alias.name]]);

export const codecs = [CreateAlias];
