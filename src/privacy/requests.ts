/**
 * The sendData requests (WE's SendDataRequest / PolicyItem, PrivacyApiRoute and
 * PrivacyApiService.validatePolicyItem): the version rule the route applies first, then the
 * field checks in WE's order, each with WE's text.
 *
 * The HTTP layer reads the JSON shape (error 1 for a missing field or a wrong JSON type);
 * what arrives here is typed, and checked in this order:
 *   sendData / sendDataV2: `feeAssetId` against the version → `info` lengths → data size
 *     (607) → certificates (121) → `feeAssetId` decoding → `hash` → `policyId` → `sender`
 *     → the sender's keystore key;
 *   sendLargeData: the same without the size check, and "hash already anchored" (615)
 *     right after `policyId`, before `feeAssetId` — before any data is read.
 */
import type { X509Certificate } from 'node:crypto';
import { certificatesFromBase64 } from '../crypto/certificates.js';
import { decodeBase58 } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import type { Protocol } from '../protocol/protocol.js';
import { POLICY_DATA_HASH } from '../protocol/transactions/privacy.js';
import { expected, genericError, policyDataTooBig, WeError, wrongJson } from '../errors/catalogue.js';

/** SendDataRequest versions: the PolicyDataHash version built. */
export type SendDataVersion = 1 | 2 | 3;

/** WE's PrivacyDataInfo. */
export interface PrivacyDataInfo {
  readonly filename: string;
  readonly size: number;
  readonly timestamp: bigint;
  readonly author: string;
  readonly comment: string;
}

/** A sendData request as the HTTP layer read it (without its data). */
export interface SendDataRequest {
  readonly version: SendDataVersion;
  readonly sender: string;
  readonly password?: string | null;
  readonly policyId: string;
  readonly hash: string;
  readonly info: PrivacyDataInfo;
  readonly fee: bigint;
  readonly feeAssetId?: string | null;
  readonly atomicBadge?: { readonly trustedSender?: string | null } | null;
  /** Base64 DER X.509 certificates (ignored by sendDataV2, as WE ignores them). */
  readonly certificates?: readonly string[];
}

/** WE's PrivacyApiService.maxPolicyDataStringLength: 34 Mi characters (or bytes) of data. */
export const MAX_POLICY_DATA_LENGTH = 35_651_584;
/** WE's PrivacyDataInfo limits (UTF-16 code units). */
export const MAX_INFO_FIELD_LENGTH = 32_768;
/** WE's AssetIdStringLength. */
const ASSET_ID_STRING_LENGTH = 44;

/**
 * The request's `version` as WE's route reads it (a number or numeric string; absent → 1):
 * 1 and 2 only with `broadcast=true`; anything else is refused.
 */
export function sendDataVersion(body: Readonly<Record<string, unknown>>, broadcast: boolean): SendDataVersion {
  const raw = body['version'];
  let version: number;
  if (raw === undefined || raw === null) version = 1;
  else if ((typeof raw === 'number' || typeof raw === 'bigint') && Number.isInteger(Number(raw)) && Number(raw) >= -128 && Number(raw) <= 127)
    version = Number(raw);
  else if (typeof raw === 'string' && /^-?\d{1,3}$/.test(raw) && Number(raw) >= -128 && Number(raw) <= 127) version = Number(raw);
  else throw wrongJson('version', expected.byte);
  if (version === 3) return 3;
  if (version === 1 || version === 2) {
    if (!broadcast) throw genericError("SendDataRequest V1/V2 with 'broadcast=false' is not allowed. Use V3 instead", 'version');
    return version;
  }
  throw genericError(`Unknown version '${version}' provided for '/privacy/sendData'`, 'version');
}

/** What the checks give the use case. */
export interface ValidSendData {
  readonly policyId: Uint8Array;
  readonly hash: Uint8Array;
  readonly feeAssetId: Uint8Array | null;
  readonly signer: KeyPair;
}

export interface RequestChecks {
  readonly protocol: Protocol;
  /**
   * The key pair of a keystore address, its password derived off the event loop and counted
   * toward the address's failed-unlock limit (WE's error 115 otherwise; 115 with status 429
   * while the address refuses unlocking).
   */
  unlock(address: string, password: string | undefined): Promise<KeyPair>;
  /** sendLargeData only: 615 when the hash is anchored in the policy already. */
  notAnchoredYet?(policyId: Uint8Array, hash: Uint8Array): void;
}

/** How long the data is: characters of the Base64 string (sendData) or bytes (sendDataV2); absent for sendLargeData. */
export type DataLength = number | undefined;

export async function checkSendDataRequest(r: SendDataRequest, dataLength: DataLength, checks: RequestChecks): Promise<ValidSendData> {
  const p = checks.protocol;
  if (r.version === 1 && r.feeAssetId !== undefined && r.feeAssetId !== null) {
    throw genericError("'feeAssetId' field is not allowed for the SendDataRequest version '1'", 'feeAssetId');
  }
  checkInfo(r.info);
  if (dataLength !== undefined && dataLength >= MAX_POLICY_DATA_LENGTH) throw policyDataTooBig(dataLength, MAX_POLICY_DATA_LENGTH);
  checkCertificateChain(r.certificates ?? []);
  const large = dataLength === undefined;
  const feeAssetId = large ? null : readFeeAssetId(r.feeAssetId);
  const hash = POLICY_DATA_HASH.fromJson(r.hash, p, 'hash');
  const policyId = readPolicyId(r.policyId);
  if (large) checks.notAnchoredYet?.(policyId, hash);
  const largeFeeAssetId = large ? readFeeAssetId(r.feeAssetId) : feeAssetId;
  try {
    p.addresses.parseAddress(r.sender, 'sender');
  } catch (e) {
    if (!(e instanceof WeError)) throw e;
    throw genericError(`Failed to decode sender address '${r.sender}', reason: ${e.kind}(${e.message.replace(/^invalid address: /, '')})`, 'sender');
  }
  let signer: KeyPair;
  try {
    signer = await checks.unlock(r.sender, r.password ?? undefined);
  } catch (e) {
    if (!(e instanceof WeError)) throw e;
    // An address refusing unlocks after repeated wrong passwords says so, as the signing routes do.
    if (e.kind === 'TooManyFailedUnlocks') throw e;
    const password = r.password === undefined || r.password === null ? 'None' : 'Some(***)';
    throw genericError(`Failed to get senders private key, maybe password is wrong: '${password}', error reason: '${e.message}'`, 'password');
  }
  return { policyId, hash, feeAssetId: largeFeeAssetId, signer };
}

function checkInfo(info: PrivacyDataInfo): void {
  const check = (value: string, what: string, field: string): void => {
    if (value.length > MAX_INFO_FIELD_LENGTH)
      throw genericError(`${what} is too long '${value.length}', maximum is '${MAX_INFO_FIELD_LENGTH}'`, `info.${field}`);
  };
  check(info.filename, 'File name', 'filename');
  check(info.author, 'Author name', 'author');
  check(info.comment, 'Comment', 'comment');
}

/** WE's parseBase58ToOption(feeAssetId, "invalid feeAssetId", 44): absent or empty → none. */
function readFeeAssetId(text: string | null | undefined): Uint8Array | null {
  if (text === undefined || text === null || text === '') return null;
  if (text.length > ASSET_ID_STRING_LENGTH) throw genericError('invalid feeAssetId', 'feeAssetId');
  try {
    return decodeBase58(text);
  } catch {
    throw genericError('invalid feeAssetId', 'feeAssetId');
  }
}

/** WE's decodePolicyId: any Base58. */
export function readPolicyId(text: string, field = 'policyId'): Uint8Array {
  try {
    return decodeBase58(text);
  } catch {
    throw genericError(`Failed to decode policyId: '${text}'`, field);
  }
}

/** WE's PolicyDataHash.fromBase58String: Base58 of exactly 32 bytes. */
export function readDataHash(p: Protocol, text: string, field = 'hash'): Uint8Array {
  return POLICY_DATA_HASH.fromJson(text, p, field);
}

/**
 * `certificates` (WE's decodeBase64Certificates and parseCertChain): each Base64 DER X.509
 * (121), and together exactly one chain (120). With `waves` crypto WE carries the chain
 * without validating it against trusted roots; so does Weft.
 */
export function checkCertificateChain(certificates: readonly string[]): void {
  if (certificates.length === 0) return;
  const parsed = certificatesFromBase64(certificates);
  // Every chain ends in one certificate that issues no other of the list.
  const issuesAnother = (c: X509Certificate): boolean => parsed.some((o) => o !== c && o.issuer === c.subject && o.subject !== c.subject);
  const chains = parsed.filter((c) => !issuesAnother(c)).length;
  if (chains !== 1) throw new WeError('CertificateChainBuildError', 120, `Unexpected cert chains number. Provided: '${chains}', expected: '1'`, 'certificates');
}
