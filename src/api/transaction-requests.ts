/**
 * The node-side transaction requests of `/transactions/*` (WE's JsonTransactionParser and
 * TransactionFactory): the "sign parser table" turning an UNSIGNED request into a
 * transaction signed with a keystore key and the fee-estimate form of `calculateFee`.
 *
 * An unsigned request has the fields of the signed form, except that `sender` (an address
 * whose key is in the node keystore, unlocked with the optional `password`) and an
 * optional `timestamp` take the place of `senderPublicKey`, `timestamp` and `proofs`.
 * Per family (WE's request classes):
 *   - Burn (6): the amount is `quantity` (the signed form also takes `amount`);
 *   - LeaseCancel (9): the lease id is `txId` (signed: `leaseId` + `chainId`);
 *   - Data (12): `author` signs; `senderPublicKey` is needed when `sender` differs from it;
 *   - Atomic (120): no `fee` (always 0).
 * The table maps each request onto the signed form, which the protocol then reads with
 * its field rules and stateless checks, so the two forms cannot disagree.
 *
 * Order of checks differs slightly from WE, which reads the whole request before it looks
 * up the key: here a missing or wrongly typed field other than the signer, `password` and
 * `timestamp` is reported after a failed key lookup (115) rather than before it.
 */
import { encodeBase58 } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import type { JsonObject } from '../protocol/json.js';
import { broadcastRefusal, type Protocol } from '../protocol/protocol.js';
import { Exchange } from '../protocol/transactions/exchange.js';
import { jsonLong, jsonString } from '../protocol/transactions/fields.js';
import { codecFor } from '../protocol/transactions/registry.js';
import type { Transaction, TxCodec } from '../protocol/transactions/schema.js';
import {
  bodyIsNotObject,
  emptySenderPublicKeyInDataTx,
  expected,
  genericError,
  unsupportedTransactionType,
  withFieldAsync,
  wrongJson,
} from '../errors/catalogue.js';

const BURN = 6;
const LEASE_CANCEL = 9;
const DATA = 12;

/** The placeholder fee calculateFee puts in the request (as WE does). */
export const FEE_ESTIMATE_PLACEHOLDER = 1234567n;

export interface RequestSigner {
  /**
   * The key pair of an address in the keystore, its password derived off the event loop
   * under the keystore's failed-unlock limits (WE's error 115 otherwise; status 429 while
   * the address refuses unlocking).
   */
  unlock(address: string, password: string | undefined): Promise<KeyPair>;
}

/** How a family's unsigned request differs from its signed form. */
interface UnsignedForm {
  /** The field naming the signing address (default `sender`). */
  readonly signerField?: string;
  /** The request rewritten with the signed form's field names (fields it does not name are kept). */
  toSigned?(body: JsonObject, p: Protocol): JsonObject;
}

const UNSIGNED_FORMS: ReadonlyMap<number, UnsignedForm> = new Map<number, UnsignedForm>([
  [
    BURN,
    {
      toSigned(body) {
        if (body['quantity'] === undefined) throw wrongJson('quantity');
        return body;
      },
    },
  ],
  [
    LEASE_CANCEL,
    {
      toSigned(body, p) {
        const leaseId = jsonString(body['txId'], 'txId');
        return { ...body, leaseId, chainId: p.chainId };
      },
    },
  ],
  [DATA, { signerField: 'author' }],
]);

/**
 * Families and versions the sign, signAndBroadcast and calculateFee paths refuse (WE has
 * no unsigned request class for them): Exchange, and whatever may not be broadcast
 * (genesis types, ExecutedContract, CallContract V6, PolicyDataHash V1/V2).
 */
function unsignable(type: number, version: number): boolean {
  return type === Exchange.type || broadcastRefusal(type, version) !== undefined;
}

function requireObject(json: unknown): JsonObject {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw bodyIsNotObject();
  return json as JsonObject;
}

/** `version`: a number or numeric string, default 1 (WE's TransactionFactory versionReads). */
function readVersion(v: unknown): number {
  if (v === undefined || v === null) return 1;
  if (typeof v === 'number' && Number.isInteger(v) && v >= -128 && v <= 127) return v;
  if (typeof v === 'string' && /^-?\d{1,3}$/.test(v) && Number(v) >= -128 && Number(v) <= 127) return Number(v);
  throw wrongJson('version', expected.byte);
}

/** `type` (a byte) and `version` → the family codec; 199 for unknown pairs and for families without an unsigned form. */
function unsignedCodec(body: JsonObject): TxCodec {
  const type = body['type'];
  if (type === undefined) throw wrongJson('type');
  if (typeof type !== 'number') throw wrongJson('type', expected.number);
  if (!Number.isInteger(type) || type < -128 || type > 127) throw wrongJson('type', expected.byte);
  const version = readVersion(body['version']);
  const codec = codecFor(type, version);
  if (codec === undefined) throw genericError(`Bad transaction type (${type}) and version (${version})`, 'type');
  if (unsignable(type, version)) throw unsupportedTransactionType('type');
  return codec;
}

const optionalString = (v: unknown, path: string): string | undefined => (v === undefined || v === null ? undefined : jsonString(v, path));
const optionalLong = (v: unknown, path: string): bigint | undefined => (v === undefined || v === null ? undefined : jsonLong(v, path));

export interface SignDependencies {
  readonly protocol: Protocol;
  readonly signer: RequestSigner;
  /** Timestamp for a request without one. */
  nextTimestamp(): bigint;
}

/** Who signs an unsigned request: the keystore address (`sender`, or the form's own signer field) and its password. */
function signerOf(body: JsonObject) {
  const codec = unsignedCodec(body);
  const form = UNSIGNED_FORMS.get(codec.type) ?? {};
  const sender = jsonString(body['sender'], 'sender');
  const signerField = form.signerField ?? 'sender';
  const signerAddress = signerField === 'sender' ? sender : jsonString(body[signerField], signerField);
  const password = optionalString(body['password'], 'password');
  return { codec, form, sender, signerField, signerAddress, password };
}

/**
 * `/transactions/sign`: the unsigned request → a transaction signed by the keystore key,
 * unlocked once (off the event loop: a wrong password costs the node no main-thread time and
 * counts toward the address's limit); the key it unlocks is the one that signs.
 */
export async function signTransactionRequest(json: unknown, deps: SignDependencies): Promise<Transaction> {
  const p = deps.protocol;
  const body = requireObject(json);
  const { codec, form, sender, signerField, signerAddress, password } = signerOf(body);
  const keyPair = await withFieldAsync(signerField, () => deps.signer.unlock(signerAddress, password));
  const requestTimestamp = optionalLong(body['timestamp'], 'timestamp');

  const signed: JsonObject = { ...(form.toSigned?.(body, p) ?? body) };
  if (codec.type === DATA) {
    signed['authorPublicKey'] = encodeBase58(keyPair.publicKey);
    if (signerAddress === sender) signed['senderPublicKey'] = encodeBase58(keyPair.publicKey);
    else if (body['senderPublicKey'] === undefined || body['senderPublicKey'] === null) throw emptySenderPublicKeyInDataTx();
  } else {
    signed['senderPublicKey'] = encodeBase58(keyPair.publicKey);
  }
  signed['timestamp'] = requestTimestamp ?? deps.nextTimestamp();
  signed['proofs'] = [];
  const tx = p.transactionFromJson(signed, { forBroadcast: false });
  return p.sign(tx, keyPair.privateKey);
}

/**
 * `/transactions/calculateFee`: the unsigned request with WE's overrides — `fee` 1234567,
 * `sender` and `senderPublicKey` the node owner's, timestamp 0 — as an unsigned
 * transaction whose minimal fee the chain then computes.
 */
export function feeEstimateTransaction(json: unknown, p: Protocol, ownerPublicKey: Uint8Array): Transaction {
  const owner = encodeBase58(ownerPublicKey);
  const body: JsonObject = {
    ...requireObject(json),
    fee: FEE_ESTIMATE_PLACEHOLDER,
    sender: p.addresses.fromPublicKey(ownerPublicKey).toString(),
    senderPublicKey: owner,
  };
  const codec = unsignedCodec(body);
  const form = UNSIGNED_FORMS.get(codec.type) ?? {};
  optionalString(body['password'], 'password');
  const unsigned: JsonObject = { ...(form.toSigned?.(body, p) ?? body) };
  if (codec.type === DATA) {
    jsonString(body['author'], 'author');
    unsigned['authorPublicKey'] = owner;
  }
  unsigned['timestamp'] = 0n;
  unsigned['proofs'] = [];
  return p.transactionFromJson(unsigned, { forBroadcast: false });
}

/** The calculateFee answer. */
export function feeAnswer(fee: { feeAssetId: Uint8Array | null; amount: bigint }): JsonObject {
  return { feeAssetId: fee.feeAssetId === null ? null : encodeBase58(fee.feeAssetId), feeAmount: fee.amount };
}
