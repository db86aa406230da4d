/**
 * Contract validators' results (WE's ContractValidatorResultsV1, P2P code 32; reference
 * contracts.md §1.8): a node holding `contract_validator` executes an executable
 * transaction whose contract has a validation policy other than `any`, and signs the
 * results hash of what it got, under the key block it executed on. The miner keeps these
 * per (key block, transaction) and may mine the 105 only once enough validators agree;
 * their signatures become the 105's `validationProofs`.
 *
 * Bytes (MessageSpec.ContractValidatorResultsV1Spec): sender public key ‖ txId (digest) ‖
 * keyBlockId (signature length) ‖ resultsHash (digest) ‖ signature — fixed lengths, no
 * length prefixes. The signature is over the results hash alone.
 *
 * The majority is ceil(2/3 × V) of the validators V at the last block, the miner not
 * counted (ValidationPolicy.MajorityRatio); `majority_with_one_of` also needs one of its
 * addresses among the agreeing validators (ContractValidatorResultsOps).
 *
 * A confidential call's results are ContractValidatorResultsV2 (P2P code 56): they add the
 * call's readings, readingsHash and outputCommitment, and the signature covers them
 * (confidentialResultsSignedBytes). Bytes (ContractValidatorResultsV2Spec): SHORT(sender
 * public key) ‖ SHORT(txId) ‖ SHORT(keyBlockId) ‖ u16 count ‖ readings ‖ option(SHORT(readingsHash))
 * ‖ SHORT(outputCommitment) ‖ SHORT(resultsHash) ‖ SHORT(signature). Validators agree when
 * all of resultsHash, readings, readingsHash and outputCommitment are equal.
 */
import type { Address } from '../crypto/address.js';
import { encodeBase58 } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import { DecodeError, ValidationError } from '../errors/catalogue.js';
import { ByteReader, ByteWriter, concatBytes } from '../protocol/bytes.js';
import type { Protocol } from '../protocol/protocol.js';
import {
  confidentialResultsSignedBytes,
  READ_DESCRIPTOR,
  readDescriptorsBytes,
  type ReadDescriptor,
  type ValidationPolicy,
  type ValidationProof,
} from '../protocol/transactions/contracts.js';

/**
 * A V2 result's readings, one value: their bytes (what message 56 carries and the signature and
 * the agreement cover) and the descriptors those bytes encode. Made either from descriptors
 * (`of`: encoded once, for an own execution) or from a message's bytes (`read`: kept as they
 * came, so a received result is checked without encoding anything again) — never from both,
 * so the two cannot disagree; a copy of a result shares it.
 */
export class ResultReadings {
  private constructor(
    /** The descriptors' bytes, without their u16 count. */
    readonly bytes: Uint8Array,
    readonly descriptors: readonly ReadDescriptor[],
  ) {}

  static of(p: Protocol, descriptors: readonly ReadDescriptor[]): ResultReadings {
    return new ResultReadings(readDescriptorsBytes(p, descriptors), descriptors);
  }

  /** Reads u16 count ‖ descriptors at the reader's position, keeping their bytes as they are. */
  static read(r: ByteReader, p: Protocol): ResultReadings {
    const descriptors: ReadDescriptor[] = [];
    const count = r.u16('readings');
    const start = r.pos;
    for (let n = count; n > 0; n--) descriptors.push(READ_DESCRIPTOR.read(r, p, 'readings'));
    return new ResultReadings(r.buf.subarray(start, r.pos), descriptors);
  }
}

/** What a V2 result (a confidential call's) adds. */
export interface ConfidentialResults {
  readonly readings: ResultReadings;
  readonly readingsHash: Uint8Array | null;
  readonly outputCommitment: Uint8Array;
}

export interface ContractValidatorResult {
  readonly senderPublicKey: Uint8Array;
  readonly txId: Uint8Array;
  readonly keyBlockId: Uint8Array;
  readonly resultsHash: Uint8Array;
  readonly signature: Uint8Array;
  /** Present on a V2 (message 56). */
  readonly confidential?: ConfidentialResults;
}

/** What the result's signature covers: the results hash (V1), or the V2 bytes. */
export function validatorResultSignedBytes(p: Protocol, resultsHash: Uint8Array, confidential: ConfidentialResults | undefined): Uint8Array {
  if (confidential === undefined) return resultsHash;
  return confidentialResultsSignedBytes(p, confidential.readings.bytes, confidential.readingsHash, confidential.outputCommitment, resultsHash);
}

/** What validators agree on: the results hash, and for a V2 its readings and output commitment too. */
export function agreementKey(p: Protocol, resultsHash: Uint8Array, confidential: ConfidentialResults | undefined): string {
  const hash = encodeBase58(resultsHash);
  if (confidential === undefined) return hash;
  const rest = concatBytes(
    confidential.readings.bytes,
    confidential.readingsHash === null ? Uint8Array.of(0) : concatBytes(Uint8Array.of(1), confidential.readingsHash),
    confidential.outputCommitment,
  );
  return `${hash}/${encodeBase58(p.crypto.fastHash(rest))}`;
}

/** Lengths of the message's fields under a crypto suite. */
function lengths(p: Protocol): { key: number; digest: number; signature: number } {
  return { key: p.crypto.publicKeyLength, digest: p.crypto.digestLength, signature: p.crypto.signatureLength };
}

/** The payload of message 32 under `p`: WE's maxLength (key + 2 digests + 2 signatures). */
export function validatorResultLength(p: Protocol): number {
  const l = lengths(p);
  return l.key + 2 * l.digest + 2 * l.signature;
}

/** A result signed by `validator`: its signature over the results hash (a V1), or over the V2 bytes when `confidential` is given. */
export function signValidatorResult(
  p: Protocol,
  validator: KeyPair,
  txId: Uint8Array,
  keyBlockId: Uint8Array,
  resultsHash: Uint8Array,
  confidential?: ConfidentialResults,
): ContractValidatorResult {
  const signature = p.crypto.sign(validator.privateKey, validatorResultSignedBytes(p, resultsHash, confidential));
  return { senderPublicKey: validator.publicKey, txId, keyBlockId, resultsHash, signature, ...(confidential === undefined ? {} : { confidential }) };
}

/** WE's ContractValidatorResultsV2Spec.maxLength: key + 2 digests + the 5 KiB readings allowance + 2 digests + 2 signatures. */
export function validatorResultV2MaxLength(p: Protocol): number {
  const l = lengths(p);
  return l.key + 4 * l.digest + 5 * 1024 + 2 * l.signature;
}

/** Message 56. */
export function encodeValidatorResultV2(p: Protocol, r: ContractValidatorResult): Uint8Array {
  const c = r.confidential;
  if (c === undefined) throw new Error('a ContractValidatorResultsV2 carries the confidential results');
  const w = new ByteWriter(256)
    .shortBytes(r.senderPublicKey)
    .shortBytes(r.txId)
    .shortBytes(r.keyBlockId)
    .u16(c.readings.descriptors.length)
    .bytes(c.readings.bytes);
  if (c.readingsHash === null) w.u8(0);
  else w.u8(1).shortBytes(c.readingsHash);
  return w.shortBytes(c.outputCommitment).shortBytes(r.resultsHash).shortBytes(r.signature).result();
}

/** Reads message 56 (its readings keep the bytes they came in); throws a DecodeError naming what does not parse. */
export function decodeValidatorResultV2(p: Protocol, bytes: Uint8Array): ContractValidatorResult {
  const r = new ByteReader(bytes);
  const senderPublicKey = r.shortBytes('sender');
  if (senderPublicKey.length !== p.crypto.publicKeyLength) throw new DecodeError(`sender public key of ${senderPublicKey.length} bytes`, 'sender');
  const txId = r.shortBytes('txId');
  const keyBlockId = r.shortBytes('keyBlockId');
  const readings = ResultReadings.read(r, p);
  const flag = r.u8('readingsHash');
  if (flag > 1) throw new DecodeError(`option flag ${flag}`, 'readingsHash');
  const readingsHash = flag === 1 ? r.shortBytes('readingsHash') : null;
  const outputCommitment = r.shortBytes('outputCommitment');
  const resultsHash = r.shortBytes('resultsHash');
  const signature = r.shortBytes('signature');
  r.expectEnd('ContractValidatorResultsV2');
  return { senderPublicKey, txId, keyBlockId, resultsHash, signature, confidential: { readings, readingsHash, outputCommitment } };
}

export function encodeValidatorResult(p: Protocol, r: ContractValidatorResult): Uint8Array {
  const l = lengths(p);
  const check = (name: string, v: Uint8Array, n: number): void => {
    if (v.length !== n) throw new Error(`ContractValidatorResults ${name} of ${v.length} bytes, expected ${n}`);
  };
  check('sender', r.senderPublicKey, l.key);
  check('txId', r.txId, l.digest);
  check('keyBlockId', r.keyBlockId, l.signature);
  check('resultsHash', r.resultsHash, l.digest);
  check('signature', r.signature, l.signature);
  return new ByteWriter(validatorResultLength(p)).bytes(r.senderPublicKey).bytes(r.txId).bytes(r.keyBlockId).bytes(r.resultsHash).bytes(r.signature).result();
}

/** Reads message 32; throws a DecodeError naming what does not parse. */
export function decodeValidatorResult(p: Protocol, bytes: Uint8Array): ContractValidatorResult {
  const l = lengths(p);
  const r = new ByteReader(bytes);
  const result = {
    senderPublicKey: r.bytes(l.key, 'sender'),
    txId: r.bytes(l.digest, 'txId'),
    keyBlockId: r.bytes(l.signature, 'keyBlockId'),
    resultsHash: r.bytes(l.digest, 'resultsHash'),
    signature: r.bytes(l.signature, 'signature'),
  };
  r.expectEnd('ContractValidatorResults');
  return result;
}

export function validatorResultSignatureHolds(p: Protocol, r: ContractValidatorResult): boolean {
  return p.crypto.verify(r.senderPublicKey, validatorResultSignedBytes(p, r.resultsHash, r.confidential), r.signature);
}

/** What a node knows to judge a result a peer sent. */
export interface ResultIntake {
  /** Whether a public key's address holds `contract_validator` at the last block. */
  isValidator(publicKey: Uint8Array): boolean;
  /** Whether the transaction waits in this node's pool. */
  inPool(txId: Uint8Array): boolean;
}

/**
 * Why a result from a peer is not kept (WE's ContractValidatorResultsHandler: signature,
 * transaction in the pool; Weft also wants the sender to be a validator now, so results of
 * other nodes neither fill the store nor travel further), or undefined to keep it.
 */
export function refusalOf(p: Protocol, r: ContractValidatorResult, intake: ResultIntake): string | undefined {
  if (!validatorResultSignatureHolds(p, r)) return 'wrong signature';
  if (!intake.isValidator(r.senderPublicKey)) return 'sender is not a contract validator';
  if (!intake.inPool(r.txId)) return 'transaction not in the pool';
  return undefined;
}

/** ValidationPolicy.MajorityRatio applied to V validators. */
export const majoritySize = (validators: number): number => Math.ceil((2 / 3) * validators);

/**
 * The strictest of the policies of the contracts a V5 execution touched (WE's
 * deriveValidationPolicy): `any` < `majority` < `majority_with_one_of`; two one-of lists
 * must share an address (their intersection is the policy), else the execution fails.
 */
export function strictestPolicy(contractId: Uint8Array, policies: readonly ValidationPolicy[]): ValidationPolicy {
  let acc: ValidationPolicy = { type: 'any' };
  for (const policy of policies) {
    if (policy.type === 'any') continue;
    if (acc.type === 'any') acc = policy;
    else if (policy.type === 'majority') continue;
    else if (acc.type === 'majority') acc = policy;
    else {
      const listed = policy.addresses;
      const shared: Address[] = acc.addresses.filter((a) => listed.some((b) => b.toString() === a.toString()));
      if (shared.length === 0) {
        const show = (x: ValidationPolicy): string =>
          x.type === 'majority_with_one_of'
            ? `MajorityWithOneOf(List(${x.addresses.map((a) => a.toString()).join(', ')}))`
            : x.type === 'majority'
              ? 'Majority'
              : 'Any';
        throw new ValidationError(
          'ContractExecutionError',
          199,
          `Contract '${encodeBase58(contractId)}' execution error: Incompatible policies found in contracts sub-calls: [${policies.map(show).join(',')}]`,
        );
      }
      acc = { type: 'majority_with_one_of', addresses: shared };
    }
  }
  return acc;
}

/** The validators a policy is judged against, and this node's view of them. */
export interface ValidatorSet {
  /** Addresses (Base58) holding `contract_validator` at the last block, the miner left out. */
  readonly addresses: ReadonlySet<string>;
}

/** Base58 address of a public key. */
export const addressOfKey = (p: Protocol, publicKey: Uint8Array): string => p.addresses.fromPublicKey(publicKey).toString();

/** A result as the store holds it: its sender's address and its agreement key, worked out once when it arrived. */
export interface HeldValidatorResult extends ContractValidatorResult {
  /** The sender's address (Base58). */
  readonly sender: string;
  /** What it agrees on (agreementKey). */
  readonly agreement: string;
}

export function heldResult(p: Protocol, r: ContractValidatorResult): HeldValidatorResult {
  return { ...r, sender: addressOfKey(p, r.senderPublicKey), agreement: agreementKey(p, r.resultsHash, r.confidential) };
}

/**
 * Whether the results at hand let the miner execute (MinerTransactionsExecutor.enoughProofs):
 * the largest group of validators agreeing on one results hash reaches the majority and,
 * for `majority_with_one_of`, contains one of the listed addresses.
 */
export function enoughResults(policy: ValidationPolicy, validators: ValidatorSet, results: readonly HeldValidatorResult[]): boolean {
  if (policy.type === 'any') return true;
  if (validators.addresses.size === 0) return false;
  const groups = new Map<string, string[]>();
  for (const r of results) {
    if (!validators.addresses.has(r.sender)) continue;
    const g = groups.get(r.agreement);
    if (g === undefined) groups.set(r.agreement, [r.sender]);
    else if (!g.includes(r.sender)) g.push(r.sender);
  }
  const need = majoritySize(validators.addresses.size);
  const required = policy.type === 'majority_with_one_of' ? new Set(policy.addresses.map((a) => a.toString())) : undefined;
  for (const senders of groups.values()) {
    if (senders.length < need) continue;
    if (required === undefined || senders.some((s) => required.has(s))) return true;
  }
  return false;
}

/**
 * The proofs for a 105 whose results have the agreement key `wanted` (ContractValidatorResultsOps.selectContractValidatorResults):
 * exactly the majority of the validators that sent those results, in the order they arrived —
 * for `majority_with_one_of` arranged to hold one listed address. Undefined when they are
 * not enough (the transaction waits).
 */
export function selectProofs(
  policy: ValidationPolicy,
  validators: ValidatorSet,
  results: readonly HeldValidatorResult[],
  wanted: string,
): ValidationProof[] | undefined {
  if (policy.type === 'any') return [];
  const need = majoritySize(validators.addresses.size);
  const seen = new Set<string>();
  const matching: { sender: string; proof: ValidationProof }[] = [];
  for (const r of results) {
    if (!validators.addresses.has(r.sender) || seen.has(r.sender) || r.agreement !== wanted) continue;
    seen.add(r.sender);
    matching.push({ sender: r.sender, proof: { validatorPublicKey: r.senderPublicKey, signature: r.signature } });
  }
  if (matching.length < need || need === 0) return undefined;
  if (policy.type === 'majority') return matching.slice(0, need).map((m) => m.proof);
  const required = new Set(policy.addresses.map((a) => a.toString()));
  const first = matching.findIndex((m) => required.has(m.sender));
  if (first < 0) return undefined;
  // The first listed validator, then the others in arrival order up to the majority.
  const chosen = [matching[first]!, ...matching.filter((_, i) => i !== first)].slice(0, need);
  return chosen.map((m) => m.proof);
}

export interface ValidatorResultsStoreOptions {
  readonly protocol: Protocol;
  readonly now: () => bigint;
  /** Results kept at most (oldest dropped first). */
  readonly maxResults: number;
  /** A result is dropped this long after it arrived. */
  readonly expireAfterMs: number;
}

interface Held {
  readonly result: HeldValidatorResult;
  readonly at: bigint;
}

/**
 * Validators' results as they arrive (WE's ContractValidatorResultsStore), per key block and
 * transaction, one per (validator, results hash); bounded in count and age. Whether a result
 * is worth keeping (signature, sender a validator, transaction in the pool) is the caller's
 * `accept` check.
 */
export class ValidatorResultsStore {
  /** Insertion-ordered: the oldest first. */
  private readonly held = new Map<string, Held>();
  private readonly byTx = new Map<string, Set<string>>();

  constructor(private readonly o: ValidatorResultsStoreOptions) {}

  private static txKey(keyBlockId: Uint8Array, txId: Uint8Array): string {
    return `${encodeBase58(keyBlockId)}/${encodeBase58(txId)}`;
  }

  /** Keeps `r`; false when it was held already. */
  add(r: ContractValidatorResult): boolean {
    this.expire();
    const txKey = ValidatorResultsStore.txKey(r.keyBlockId, r.txId);
    const held = heldResult(this.o.protocol, r);
    const key = `${txKey}/${encodeBase58(r.senderPublicKey)}/${held.agreement}`;
    if (this.held.has(key)) return false;
    while (this.held.size >= this.o.maxResults) {
      const oldest = this.held.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
    this.held.set(key, { result: held, at: this.o.now() });
    let keys = this.byTx.get(txKey);
    if (keys === undefined) this.byTx.set(txKey, (keys = new Set()));
    keys.add(key);
    return true;
  }

  /** Results for a transaction under a key block, in arrival order. */
  find(keyBlockId: Uint8Array, txId: Uint8Array): HeldValidatorResult[] {
    this.expire();
    const keys = this.byTx.get(ValidatorResultsStore.txKey(keyBlockId, txId));
    if (keys === undefined) return [];
    return [...keys].map((k) => this.held.get(k)!.result);
  }

  get size(): number {
    return this.held.size;
  }

  private drop(key: string): void {
    this.held.delete(key);
    const txKey = key.split('/').slice(0, 2).join('/');
    const keys = this.byTx.get(txKey);
    keys?.delete(key);
    if (keys !== undefined && keys.size === 0) this.byTx.delete(txKey);
  }

  private expire(): void {
    const cutoff = this.o.now() - BigInt(this.o.expireAfterMs);
    for (const [key, h] of this.held) {
      if (h.at > cutoff) break;
      this.drop(key);
    }
  }
}
