/**
 * Privacy policies: CreatePolicy (112, V1–V3), UpdatePolicy (113, V1–V3) and
 * PolicyDataHash (114, V1–V3; only V3 may be broadcast — Protocol refuses V1/V2 over REST,
 * but every version is read from binary).
 *
 * Request-reader rules (WE's Signed*PolicyRequest classes), which the node applies to
 * broadcast JSON only:
 *  - CreatePolicy: policyName at most 100 characters ("policy name is too long"; the state
 *    layer applies the same rule to every transaction, see `policyNameTooLong`), description
 *    shorter than 32 767 characters ("policy description is too long");
 *  - policyId: any Base58 ("Failed to decode policyId: '<id>'", UpdatePolicy V1:
 *    "Failed to decode policyId (<id>) to Base58");
 *  - dataHash: Base58 of exactly 32 bytes (PolicyDataHash.fromBase58String's messages);
 *    binary input takes any length, as WE's parser does;
 *  - feeAssetId: `""` is None; a bad value is "invalid.feeAssetId" (PolicyDataHash V3:
 *    "Invalid feeAssetId"), and PolicyDataHash V3 reports a bad proof as "Invalid proof".
 */
import { base58Length, decodeBase58, encodeBase58 } from '../../crypto/encoding.js';
import { atomicBadgeSince, fee, sender, timestamp } from './common.js';
import { ADDRESS, bigList, jsonString, OP_TYPE, optionalAssetIdType, PUBLIC_KEY, SHORT_STRING, type FieldType } from './fields.js';
import { defineTx, field, PROOFS, proofsFromJson, versioned, type DataOf, type Transaction } from './schema.js';
import { genericError, WeError } from '../../errors/catalogue.js';

/** WE's PolicyValidation.MaxPolicyNameLength (UTF-16 code units, inclusive). */
export const MAX_POLICY_NAME_LENGTH = 100;
/** The request reader wants `description.length < Short.MaxValue`. */
export const MAX_POLICY_DESCRIPTION_LENGTH = 32_766;
/** PolicyDataHash.DataHashLength. */
export const POLICY_DATA_HASH_LENGTH = 32;

/** The rule the state layer applies to every CreatePolicy (GenericError "policy name is too long"). */
export function policyNameTooLong(name: string): boolean {
  return name.length > MAX_POLICY_NAME_LENGTH;
}

// ---------------------------------------------------------------------------
// Field types

const BASE58_TEXT = /^[1-9A-HJ-NP-Za-km-z]*$/;

/** POLICY_DATA_HASH: u16 length ‖ bytes; JSON Base58 that must decode to 32 bytes. */
export const POLICY_DATA_HASH: FieldType<Uint8Array> = {
  kind: 'POLICY_DATA_HASH',
  write: (w, v) => void w.shortBytes(v),
  read: (r, _p, f) => r.shortBytes(f),
  fromJson: (j, _p, path) => {
    const text = jsonString(j, path);
    if (!BASE58_TEXT.test(text)) throw genericError(`Failed to decode policy data hash: '${text}'`, path);
    // A longer string never decodes to 32 bytes; don't spend time decoding it.
    if (text.length > base58Length(POLICY_DATA_HASH_LENGTH)) throw genericError('Invalid policy data hash length', path);
    const bytes = decodeBase58(text);
    if (bytes.length !== POLICY_DATA_HASH_LENGTH) throw genericError('Invalid policy data hash length', path);
    return bytes;
  },
  toJson: (v) => encodeBase58(v),
};

/**
 * SHORT_BYTE_STR policy id: any Base58 in JSON. UpdatePolicy V1's reader words a failure
 * differently from the later ones (PolicyDataHash is read from JSON in V3 only).
 */
export const POLICY_ID: FieldType<Uint8Array> = {
  kind: 'SHORT_BYTE_STR',
  write: (w, v) => void w.shortBytes(v),
  read: (r, _p, f) => r.shortBytes(f),
  fromJson: (j, _p, path) => readPolicyId(j, path, 3),
  toJson: (v) => encodeBase58(v),
};

function readPolicyId(json: unknown, path: string, version: number): Uint8Array {
  const text = jsonString(json, path);
  let bytes: Uint8Array;
  try {
    bytes = decodeBase58(text);
  } catch {
    throw genericError(version === 1 ? `Failed to decode policyId (${text}) to Base58` : `Failed to decode policyId: '${text}'`, path);
  }
  if (bytes.length > 0xffff) throw genericError(`'${path}' is too long: ${bytes.length} bytes, at most 65535 can be serialized`, path);
  return bytes;
}

const policyId = field('policyId', POLICY_ID);
const updatePolicyId = field('policyId', POLICY_ID, { fromJson: (body, _p, version) => readPolicyId(body['policyId'], 'policyId', version) });

const addresses = bigList(ADDRESS);

// ---------------------------------------------------------------------------
// CreatePolicy

const createPolicyFields = [
  sender,
  field('policyName', SHORT_STRING, {
    fromJson: (body, p) => {
      const name = jsonString(body['policyName'], 'policyName');
      if (policyNameTooLong(name)) throw genericError('policy name is too long', 'policyName');
      return SHORT_STRING.fromJson(name, p, 'policyName');
    },
  }),
  field('description', SHORT_STRING, {
    fromJson: (body, p) => {
      const text = jsonString(body['description'], 'description');
      if (text.length > MAX_POLICY_DESCRIPTION_LENGTH) throw genericError('policy description is too long', 'description');
      return SHORT_STRING.fromJson(text, p, 'description');
    },
  }),
  field('recipients', addresses),
  field('owners', addresses),
  timestamp,
  fee,
  versioned('feeAssetId', optionalAssetIdType('invalid.feeAssetId'), { since: 2 }),
  atomicBadgeSince(3),
  PROOFS,
] as const;

export const CreatePolicy = defineTx({ type: 112, name: 'CreatePolicy', versions: [1, 2, 3], fields: createPolicyFields });
export type CreatePolicyData = DataOf<typeof createPolicyFields>;
export type CreatePolicyTransaction = Transaction<CreatePolicyData>;

// ---------------------------------------------------------------------------
// UpdatePolicy

const updatePolicyFields = [
  sender,
  updatePolicyId,
  field('recipients', addresses),
  field('owners', addresses),
  field('opType', OP_TYPE),
  timestamp,
  fee,
  versioned('feeAssetId', optionalAssetIdType('invalid.feeAssetId'), { since: 2 }),
  atomicBadgeSince(3),
  PROOFS,
] as const;

export const UpdatePolicy = defineTx({ type: 113, name: 'UpdatePolicy', versions: [1, 2, 3], fields: updatePolicyFields });
export type UpdatePolicyData = DataOf<typeof updatePolicyFields>;
export type UpdatePolicyTransaction = Transaction<UpdatePolicyData>;

// ---------------------------------------------------------------------------
// PolicyDataHash

/**
 * SignedPolicyDataHashRequestV3 reads the sender, then the proofs — a bad one is "Invalid
 * proof", capitalised, unlike every other request — then the fields.
 */
const policyDataHashSender = field('senderPublicKey', PUBLIC_KEY, {
  fromJson: (body, p) => {
    const key = PUBLIC_KEY.fromJson(body['senderPublicKey'], p, 'senderPublicKey');
    try {
      proofsFromJson(body);
    } catch (e) {
      if (e instanceof WeError && e.message === 'invalid proof') throw genericError('Invalid proof', 'proofs');
      throw e;
    }
    return key;
  },
});

const policyDataHashFields = [
  policyDataHashSender,
  field('dataHash', POLICY_DATA_HASH),
  policyId,
  timestamp,
  fee,
  versioned('feeAssetId', optionalAssetIdType('Invalid feeAssetId'), { since: 2 }),
  atomicBadgeSince(3),
  PROOFS,
] as const;

export const PolicyDataHash = defineTx({ type: 114, name: 'PolicyDataHash', versions: [1, 2, 3], fields: policyDataHashFields });
export type PolicyDataHashData = DataOf<typeof policyDataHashFields>;
export type PolicyDataHashTransaction = Transaction<PolicyDataHashData>;

export const codecs = [CreatePolicy, UpdatePolicy, PolicyDataHash];
