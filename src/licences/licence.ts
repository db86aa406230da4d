/**
 * Weft's open node licence. WE's licence format is closed; this one keeps WE's JSON shape
 * (`GET /licenses` of WE's docs) and makes the signature verifiable by anyone:
 *
 *   {
 *     "license": {
 *       "version": 1,
 *       "id": "<1–128 printable ASCII characters, e.g. a UUID>",
 *       "issued_at": "<ISO-8601 instant, e.g. 2026-01-28T15:39:59.456Z>",
 *       "node_owner_address": "<the licensed node owner's address, Base58>",
 *       "valid_after": "<YYYY-MM-DD>",            (first day it is valid, from 00:00 UTC)
 *       "valid_before": "<YYYY-MM-DD>" | null,    (valid until 00:00 UTC of that day; null: no end)
 *       "features": ["<feature name>", …]
 *     },
 *     "signer_public_key": "<issuer public key, Base58>",
 *     "signature": "<signature, Base58>",
 *     "signer_id": "<Base58 of the first 16 bytes of the network's secure hash of the issuer key>"
 *   }
 *
 * The signature is the network's signature (WAVES: Curve25519, GOST: GOST R 34.10-2012) by the
 * issuer key over the UTF-8 bytes of the licence's canonical JSON: the seven members in the
 * order above, no whitespace, strings escaped as JSON.stringify does, `version` a bare number,
 * `valid_before` null when absent. A node accepts a licence only from an issuer key its
 * config lists (`node.licenses.issuers`) and only for its own owner address.
 */
import { decodeBase58, encodeBase58 } from '../crypto/encoding.js';
import type { CryptoSuite } from '../crypto/suite.js';
import { InternalError } from '../errors/internal.js';

export const LICENCE_VERSION = 1;

export interface LicenceTerms {
  readonly version: number;
  readonly id: string;
  readonly issuedAt: string;
  readonly nodeOwnerAddress: string;
  /** YYYY-MM-DD. */
  readonly validAfter: string;
  /** YYYY-MM-DD, or null: no end. */
  readonly validBefore: string | null;
  readonly features: readonly string[];
}

export interface SignedLicence {
  readonly terms: LicenceTerms;
  readonly signerPublicKey: Uint8Array;
  readonly signature: Uint8Array;
}

/** A licence that cannot be read or is not acceptable; the message names the field. */
export class LicenceError extends InternalError {
  override readonly name = 'LicenceError';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** 00:00 UTC of a YYYY-MM-DD day, ms; undefined for anything else. */
export function dayStart(text: string): bigint | undefined {
  const m = DATE.exec(text);
  if (m === null) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(ms).toISOString().slice(0, 10) === text ? BigInt(ms) : undefined;
}

/** The canonical JSON the issuer signs. */
export function canonicalLicenceJson(t: LicenceTerms): string {
  return JSON.stringify({
    version: t.version,
    id: t.id,
    issued_at: t.issuedAt,
    node_owner_address: t.nodeOwnerAddress,
    valid_after: t.validAfter,
    valid_before: t.validBefore,
    features: t.features,
  });
}

export const licenceSignedBytes = (t: LicenceTerms): Uint8Array => new Uint8Array(Buffer.from(canonicalLicenceJson(t), 'utf8'));

export function signerId(suite: CryptoSuite, publicKey: Uint8Array): string {
  return encodeBase58(suite.secureHash(publicKey).subarray(0, 16));
}

/** The licence's JSON (WE's `GET /licenses` entry shape). */
export function licenceJson(suite: CryptoSuite, l: SignedLicence): Record<string, unknown> {
  return {
    license: JSON.parse(canonicalLicenceJson(l.terms)) as unknown,
    signer_public_key: encodeBase58(l.signerPublicKey),
    signature: encodeBase58(l.signature),
    signer_id: signerId(suite, l.signerPublicKey),
  };
}

export function signLicence(suite: CryptoSuite, terms: LicenceTerms, issuerPrivateKey: Uint8Array): SignedLicence {
  checkTerms(terms);
  return { terms, signerPublicKey: suite.publicKeyOf(issuerPrivateKey), signature: suite.sign(issuerPrivateKey, licenceSignedBytes(terms)) };
}

function checkTerms(t: LicenceTerms): void {
  if (t.version !== LICENCE_VERSION) throw new LicenceError(`unsupported licence version ${t.version} (expected ${LICENCE_VERSION})`, 'license.version');
  if (!/^[\x21-\x7e]{1,128}$/.test(t.id)) throw new LicenceError('the licence id must be 1–128 printable ASCII characters without spaces', 'license.id');
  if (Number.isNaN(Date.parse(t.issuedAt)) || !/^\d{4}-\d{2}-\d{2}T/.test(t.issuedAt))
    throw new LicenceError(`issued_at '${t.issuedAt}' is not an ISO-8601 instant`, 'license.issued_at');
  const after = dayStart(t.validAfter);
  if (after === undefined) throw new LicenceError(`valid_after '${t.validAfter}' is not a YYYY-MM-DD date`, 'license.valid_after');
  if (t.validBefore !== null) {
    const before = dayStart(t.validBefore);
    if (before === undefined) throw new LicenceError(`valid_before '${t.validBefore}' is not a YYYY-MM-DD date`, 'license.valid_before');
    if (before <= after) throw new LicenceError(`valid_before ${t.validBefore} is not after valid_after ${t.validAfter}`, 'license.valid_before');
  }
  if (t.features.some((f) => typeof f !== 'string' || f.length === 0 || f.length > 128))
    throw new LicenceError('features must be non-empty strings of at most 128 characters', 'license.features');
}

function field<T>(obj: Record<string, unknown>, key: string, path: string, check: (v: unknown) => v is T, expected: string): T {
  const v = obj[key];
  if (!check(v)) throw new LicenceError(`${path} must be ${expected}`, path);
  return v;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function base58Field(obj: Record<string, unknown>, key: string): Uint8Array {
  const text = field(obj, key, key, isString, 'a Base58 string');
  try {
    return decodeBase58(text);
  } catch {
    throw new LicenceError(`${key} is not valid Base58`, key);
  }
}

/** Reads a licence document (the upload body); checks its form, not its signature or issuer. */
export function parseLicence(doc: unknown): SignedLicence {
  if (!isObject(doc)) throw new LicenceError('a licence is a JSON object with license, signer_public_key, signature', 'body');
  const l = doc['license'];
  if (!isObject(l)) throw new LicenceError('license must be an object', 'license');
  const version = l['version'];
  if (typeof version !== 'number' && typeof version !== 'bigint') throw new LicenceError('license.version must be a number', 'license.version');
  const validBefore = l['valid_before'] ?? null;
  if (validBefore !== null && typeof validBefore !== 'string')
    throw new LicenceError('license.valid_before must be a YYYY-MM-DD date or null', 'license.valid_before');
  const features = field(l, 'features', 'license.features', (v): v is unknown[] => Array.isArray(v), 'an array of strings');
  if (!features.every(isString)) throw new LicenceError('license.features must be an array of strings', 'license.features');
  const terms: LicenceTerms = {
    version: Number(version),
    id: field(l, 'id', 'license.id', isString, 'a string'),
    issuedAt: field(l, 'issued_at', 'license.issued_at', isString, 'an ISO-8601 instant'),
    nodeOwnerAddress: field(l, 'node_owner_address', 'license.node_owner_address', isString, 'an address'),
    validAfter: field(l, 'valid_after', 'license.valid_after', isString, 'a YYYY-MM-DD date'),
    validBefore,
    features,
  };
  checkTerms(terms);
  return { terms, signerPublicKey: base58Field(doc, 'signer_public_key'), signature: base58Field(doc, 'signature') };
}

/** Refuses a licence not signed by a listed issuer, for another node, or with a bad signature. */
export function checkLicence(suite: CryptoSuite, l: SignedLicence, o: { readonly issuers: readonly Uint8Array[]; readonly nodeOwnerAddress: string }): void {
  const signer = encodeBase58(l.signerPublicKey);
  if (!o.issuers.some((k) => encodeBase58(k) === signer)) {
    throw new LicenceError(`the licence is signed by '${signer}', which is not a licence issuer of this node (node.licenses.issuers)`, 'signer_public_key');
  }
  if (!suite.verify(l.signerPublicKey, licenceSignedBytes(l.terms), l.signature))
    throw new LicenceError('the licence signature does not verify with signer_public_key', 'signature');
  if (l.terms.nodeOwnerAddress !== o.nodeOwnerAddress) {
    throw new LicenceError(
      `the licence is for the node owner '${l.terms.nodeOwnerAddress}', not for this node's owner '${o.nodeOwnerAddress}'`,
      'license.node_owner_address',
    );
  }
}
