/**
 * RegisterNode (111, V1–V2): adds a node's public key to the network's participants, or
 * removes it.
 *
 * The target is a public key, read from the request key `targetPubKey`; the node's JSON
 * shows it twice: `targetPubKey` (Base58 key, an additional field) and `target` (its address).
 */
import { encodeBase58 } from '../../crypto/encoding.js';
import { atomicBadgeSince, fee, sender, timestamp } from './common.js';
import { NODE_NAME, OP_TYPE, PUBLIC_KEY } from './fields.js';
import { defineTx, field, PROOFS, type DataOf, type Transaction } from './schema.js';
import { genericError } from '../../errors/catalogue.js';

/** WE's RegisterNodeValidation.NodeNameMaxLength (UTF-16 code units; the name must be shorter). */
export const NODE_NAME_MAX_LENGTH = 100;

const registerNodeFields = [
  sender,
  field('target', PUBLIC_KEY, {
    jsonKey: 'targetPubKey',
    toJson: (v, tx) => tx.protocol.addresses.fromPublicKey(v).toString(),
  }),
  field('nodeName', NODE_NAME, {
    check: (v) => {
      if (v !== null && v.length >= NODE_NAME_MAX_LENGTH) throw genericError(`NodeName length should be less than ${NODE_NAME_MAX_LENGTH}`);
    },
  }),
  field('opType', OP_TYPE, {
    check: (v, _p, data) => {
      const name = data['nodeName'] as string | null;
      if (v === 'add' && (name === null || name === '')) throw genericError('NodeName should not be empty');
    },
  }),
  timestamp,
  fee,
  atomicBadgeSince(2),
  PROOFS,
] as const;

export const RegisterNode = defineTx({
  type: 111,
  name: 'RegisterNode',
  versions: [1, 2],
  fields: registerNodeFields,
  extraJson: (tx) => ({ targetPubKey: encodeBase58(tx.data.target) }),
});
export type RegisterNodeData = DataOf<typeof registerNodeFields>;
export type RegisterNodeTransaction = Transaction<RegisterNodeData>;

export const codecs = [RegisterNode];
