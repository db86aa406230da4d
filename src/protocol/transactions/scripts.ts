/**
 * SetScript (13, V1) and SetAssetScript (15, V1), the script field types every family
 * with a script uses (Issue too), and the chain-id field of WE's ChainSpecific types.
 *
 * A script is checked where WE checks it, when it is read (see ride/script.ts): from
 * request JSON (`Script.fromBase64String`) and from binary (`ScriptReader`). Its value is
 * the canonical bytes WE would re-serialize, so body bytes, ids and JSON match WE.
 */
import { decodeBase64, encodeBase64, EncodingError } from '../../crypto/encoding.js';
import type { ProtocolParams } from './fields.js';
import { readScript, type Script } from '../../ride/script.js';
import { javaString, javaUtf8 } from '../../ride/serde.js';
import { chainIdField, fee, sender, timestamp } from './common.js';
import { ASSET_ID, jsonString, type FieldType } from './fields.js';
import { option, provenObject, type RideBinding } from './ride-binding.js';
import { defineTx, field, PROOFS, type DataOf, type Transaction } from './schema.js';
import { DecodeError, genericError, scriptParseError } from '../../errors/catalogue.js';

export { readScript, type Script } from '../../ride/script.js';

// ---------------------------------------------------------------------------
// Script fields

/** Script.fromBase64String: optional `base64:` prefix, Java's decoder, then the reader. */
export function scriptFromBase64(text: string, p: ProtocolParams, field = 'script'): Script {
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64(text);
  } catch (e) {
    throw scriptParseError(`Unable to decode base64: ${(e as EncodingError).message}`, field);
  }
  return readScript(bytes, p, field);
}

/**
 * SCRIPT: u16 length ‖ script bytes; `base64:…` in JSON. The value is the script's
 * canonical bytes (what WE serializes back).
 */
export const SCRIPT: FieldType<Uint8Array> = {
  kind: 'SCRIPT',
  write: (w, v) => void w.shortBytes(v),
  read: (r, p, f) => readScript(r.shortBytes(f), p, f).bytes,
  fromJson: (j, p, path) => scriptFromBase64(jsonString(j, path), p, path).bytes,
  toJson: (v) => `base64:${encodeBase64(v)}`,
};

function optionalScript(emptyIsNone: boolean): FieldType<Uint8Array | null> {
  return {
    kind: 'OPTION(SCRIPT)',
    write: (w, v, p) => {
      if (v === null) w.u8(0);
      else SCRIPT.write(w.u8(1), v, p);
    },
    read: (r, p, f) => {
      const flag = r.u8(f);
      if (flag === 0) return null;
      if (flag !== 1) throw new DecodeError(`Invalid option flag ${flag} for ${f}`, f);
      return SCRIPT.read(r, p, f);
    },
    fromJson: (j, p, path) => {
      if (j === undefined || j === null) return null;
      const text = jsonString(j, path);
      return emptyIsNone && text === '' ? null : scriptFromBase64(text, p, path).bytes;
    },
    toJson: (v) => (v === null ? null : `base64:${encodeBase64(v)}`),
  };
}

/**
 * The stateless check of a script field, for transactions built from typed data (JSON and
 * binary readers already checked the script while reading it).
 */
export function checkScript(v: Uint8Array | null, p: ProtocolParams): void {
  if (v !== null) readScript(v, p);
}

/** SCRIPT.? as Issue reads it: absent or null is None; any string (even "") must be a script. */
export const OPT_SCRIPT_STRICT = optionalScript(false);
/** SCRIPT.? as SetScript/SetAssetScript read it: absent, null and "" are None. */
export const OPT_SCRIPT = optionalScript(true);

// ---------------------------------------------------------------------------
// UTF-8 text held as SHORT_BYTE_ARRAY

/**
 * SHORT_BYTE_ARRAY holding UTF-8 text, encoded as Java does (`getBytes(UTF_8)`) and read
 * from JSON without a length check: the family's validation caps it well below 65 535
 * bytes, with WE's error.
 */
export const TEXT_BYTES: FieldType<Uint8Array> = {
  kind: 'SHORT_BYTE_ARRAY',
  write: (w, v) => void w.shortBytes(v),
  read: (r, _p, f) => r.shortBytes(f),
  fromJson: (j, _p, path) => javaUtf8(jsonString(j, path)),
  toJson: (v) => javaString(v),
};

// ---------------------------------------------------------------------------
// SetScript (13)

export const MAX_SCRIPT_NAME_CHARS = 128;
export const MAX_SCRIPT_DESCRIPTION_BYTES = 32767;

const setScriptFields = [
  chainIdField(true),
  sender,
  field('script', OPT_SCRIPT, { check: checkScript }),
  field('name', TEXT_BYTES, {
    check: (v) => {
      if (v.length === 0 || javaString(v).length > MAX_SCRIPT_NAME_CHARS) {
        throw genericError(`name field length must be between 1 and ${MAX_SCRIPT_NAME_CHARS}`);
      }
    },
  }),
  field('description', TEXT_BYTES, {
    // Absent or null in the request is the empty description.
    fromJson: (body) =>
      body['description'] === undefined || body['description'] === null ? new Uint8Array(0) : javaUtf8(jsonString(body['description'], 'description')),
    check: (v) => {
      if (v.length > MAX_SCRIPT_DESCRIPTION_BYTES) {
        throw genericError(`description field length in bytes must be less ${MAX_SCRIPT_DESCRIPTION_BYTES}`);
      }
    },
  }),
  fee,
  timestamp,
  PROOFS,
] as const;

export const SetScript = defineTx({ type: 13, name: 'SetScript', versions: [1], fields: setScriptFields });
export type SetScriptData = DataOf<typeof setScriptFields>;
export type SetScriptTransaction = Transaction<SetScriptData>;

export const setScriptBinding: RideBinding<SetScriptTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'SetScriptTransaction', [['script', option(tx.data.script)]]);

// ---------------------------------------------------------------------------
// SetAssetScript (15): a None script passes here and is refused against state.

const setAssetScriptFields = [
  chainIdField(true),
  sender,
  field('assetId', ASSET_ID),
  field('script', OPT_SCRIPT, { check: checkScript }),
  fee,
  timestamp,
  PROOFS,
] as const;

export const SetAssetScript = defineTx({ type: 15, name: 'SetAssetScript', versions: [1], fields: setAssetScriptFields });
export type SetAssetScriptData = DataOf<typeof setAssetScriptFields>;
export type SetAssetScriptTransaction = Transaction<SetAssetScriptData>;

export const setAssetScriptBinding: RideBinding<SetAssetScriptTransaction> = (tx, ctx) =>
  provenObject(tx, ctx, 'SetAssetScriptTransaction', [
    ['script', option(tx.data.script)],
    ['assetId', tx.data.assetId],
  ]);

export const codecs = [SetScript, SetAssetScript];
