/**
 * The one door transactions take into the pool, whatever their way in: a client's broadcast
 * (REST `broadcast` and `signAndBroadcast`, the coming public gRPC API), the node's own
 * transactions (privacy sends, confidential contract calls, anchoring write-backs), peers'
 * transactions (through peer-chain.ts) and the dry run of `/debug/validate`.
 *
 * A client's or the node's transaction (`admit`), in WE's order
 * (TransactionsApi.validateAndBroadcastTransaction, UtxPool.putIfNew; its stateless checks
 * were made when it was read):
 *   1. its `certificates` (WE's certChainFromJson): on a network with PKI the one chain they
 *      carry, validated for the sender in PKI mode TEST/ON (and required for a sender's first
 *      transaction), kept with the transaction before it enters the pool so that the peers
 *      get it with its chain (P2P 46) and the block that mines it stores it; elsewhere each
 *      is only checked to be Base64 of DER X.509 (121). Checked for every client's
 *      broadcast, and for the node's own transactions when they carry some;
 *   2. the fee against the current height (FeeCalculator.validateTxFee: plain 199 errors);
 *   3. the same transaction again within the known-tx window is AlreadyInProcessing;
 *   4. its sender proof on the verifier threads (then step 3 again: a copy may have come
 *      meanwhile);
 *   5. the pool (utx.ts): room, the scripted-sender rule, full validation against the state
 *      net of the pool's pending spendings; one the pool holds already is taken as it is;
 *   6. `onAdmitted` listeners (the miner looks again, the peers hear of it);
 *   7. WE's "not yet supported" refusals, after the pool took it (unimplementedApiValidation).
 * Refusals at 2–3 are reported to `onRefused` (the pool reports its own).
 *
 * A peer's transaction: the certificate policy (PKI mode TEST/ON) on the chain its message
 * carried, then the pool; its chain is kept with it once it is in. `validate` is the dry run:
 * the fee, then full validation against the current state (the pool not counted), nothing kept.
 */
import { bytesKey } from '../crypto/encoding.js';
import { checkCertificatesField } from '../crypto/certificates.js';
import type { Certificate } from '../crypto/pki/x509.js';
import type { SignatureVerifierPool } from '../crypto/verify-pool.js';
import { isAtomic } from '../protocol/transactions/atomic.js';
import { CallContract, CreateContract, UpdateContract } from '../protocol/transactions/contracts.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { MutableState } from '../state/view.js';
import type { Blockchain, ChainChangeOrigin } from './blockchain.js';
import { validateFee } from './fees.js';
import { preverifySignature } from './signatures.js';
import type { UtxPool } from './utx.js';
import { applyTransaction } from './validation.js';
import { customValidationError, genericError, WeError } from '../errors/catalogue.js';

/** Where a transaction admitted with `admit` came from: a client (REST, gRPC) or this node itself. */
export type AdmissionOrigin = Exclude<ChainChangeOrigin, 'network'>;

export interface AdmissionRequest {
  readonly origin: AdmissionOrigin;
  /**
   * The request's `certificates` value as it came (a list of Base64 DER certificates, or
   * anything else: not a non-empty list of strings means none). Absent: none were given.
   */
  readonly certificates?: unknown;
}

/** The network's PKI as admission uses it (GOST networks; the node wires it). */
export interface CertificatePolicy {
  /**
   * The one chain a client's `certificates` value carries, validated for the transaction's
   * sender as the PKI mode requires; undefined when it carries none. Throws WE's 120/121.
   */
  clientChain(tx: Transaction, certificates: unknown): Promise<readonly Certificate[] | undefined>;
  /**
   * PKI mode TEST/ON: why a peer's transaction may not enter the pool with the chain its
   * message carried, or undefined. Absent: peers' chains are taken as they come.
   */
  readonly peerProblem?: (tx: Transaction, certificates: readonly Certificate[]) => Promise<string | undefined>;
}

export interface AdmissionOptions {
  readonly chain: Blockchain;
  readonly pool: UtxPool;
  /** Node time (ms). */
  readonly now: () => bigint;
  /** Verifier threads for broadcast signatures; without them the pool's validation verifies on this thread. */
  readonly verifier?: SignatureVerifierPool;
  /** The network's PKI; absent (WAVES networks): `certificates` are only checked to be DER X.509. */
  readonly certificates?: CertificatePolicy;
  /** How long identical broadcasts are refused as AlreadyInProcessing (WE's known-tx-cache-time). */
  readonly knownTxCacheMs?: number;
  /** Called with each transaction refused before the pool (fee, AlreadyInProcessing), with WE's error; the pool reports its own. */
  readonly onRefused?: (tx: Transaction, reason: WeError) => void;
}

export class Admission {
  private readonly chain: Blockchain;
  /** The pool it admits into. */
  readonly pool: UtxPool;
  private readonly now: () => bigint;
  private readonly verifier: SignatureVerifierPool | undefined;
  private readonly certificates: CertificatePolicy | undefined;
  private readonly knownTxCacheMs: bigint;
  private readonly onRefused: ((tx: Transaction, reason: WeError) => void) | undefined;
  private readonly listeners = new Set<(tx: Transaction, origin: ChainChangeOrigin) => void>();
  /** Recently broadcast ids → when (ms), oldest first. */
  private readonly recent = new Map<string, bigint>();

  constructor(o: AdmissionOptions) {
    this.chain = o.chain;
    this.pool = o.pool;
    this.now = o.now;
    this.verifier = o.verifier;
    this.certificates = o.certificates;
    this.knownTxCacheMs = BigInt(o.knownTxCacheMs ?? 20_000);
    this.onRefused = o.onRefused;
  }

  /**
   * A client's or this node's transaction into the pool, every check in WE's order (see the
   * module's comment); returns the pooled transaction (the one already there, if any).
   * Throws WE's error when refused — also, after the pool took it, for what WE does not support yet.
   */
  async admit(tx: Transaction, request: AdmissionRequest): Promise<Transaction> {
    if (request.origin === 'api' || request.certificates !== undefined) {
      const chainKept = this.admitCertificates(tx, request.certificates);
      if (chainKept !== undefined) await chainKept;
    }
    const id = bytesKey(tx.id);
    try {
      this.checkFee(tx);
      this.forgetOldBroadcasts(this.now());
      if (this.recent.has(id)) throw genericError(`AlreadyInProcessing(${tx.idBase58})`);
      if (this.verifier !== undefined && this.pool.getByKey(id) === undefined) await preverifySignature(this.verifier, tx);
      if (this.recent.has(id)) throw genericError(`AlreadyInProcessing(${tx.idBase58})`);
    } catch (e) {
      if (e instanceof WeError) this.onRefused?.(tx, e);
      throw e;
    }
    const pooled = this.pool.put(tx, id);
    this.recent.set(id, this.now());
    this.emit(pooled, request.origin);
    refuseUnimplemented(pooled);
    return pooled;
  }

  /**
   * Step 1 of `admit` alone: the `certificates` a request gave for the transaction made from
   * it, checked (and with PKI kept with it) before anything else of the request is done —
   * privacy sends store their data only once these passed. A promise only with PKI: without
   * it the check is made at once and a broadcast waits for nothing.
   */
  admitCertificates(tx: Transaction, certificates: unknown): Promise<void> | undefined {
    if (this.certificates === undefined) {
      checkCertificatesField(certificates);
      return undefined;
    }
    return this.keepClientChain(tx, this.certificates, certificates);
  }

  private async keepClientChain(tx: Transaction, policy: CertificatePolicy, certificates: unknown): Promise<void> {
    const chain = await policy.clientChain(tx, certificates);
    // Kept before the pool takes it: the peers get the transaction with its chain (message 46).
    if (chain !== undefined) this.chain.certificates.carry([tx.id], chain);
  }

  /** Step 2 of `admit` alone: the fee rules of the next block; throws WE's error. */
  checkFee(tx: Transaction): void {
    const chain = this.chain;
    validateFee(tx, chain.state(), { settings: chain.settings, features: chain.features, height: chain.height() });
  }

  /**
   * The dry run (`/debug/validate`; a privacy send before it stores its data): the fee, then
   * full validation against the current state — signature, timing, features, permissions,
   * balances, the family's rules — without the pool's transactions and without keeping anything.
   */
  validate(tx: Transaction): void {
    this.checkFee(tx);
    applyTransaction(new MutableState(this.chain.state()), tx, this.chain.poolTxContext(), { verifySignature: true });
  }

  /**
   * The certificate policy's verdict on a peer's transaction with the chain its message
   * carried: the reason it is refused, or undefined — and no promise at all when no policy
   * applies, so that peers' transactions wait for nothing then.
   */
  peerCertificateProblem(tx: Transaction, certificates: readonly Certificate[]): Promise<string | undefined> | undefined {
    return this.certificates?.peerProblem?.(tx, certificates);
  }

  /**
   * A peer's transaction, its signature checked ahead and its chain through the policy
   * (`peerCertificateProblem`): validated into the pool (idempotent), its chain kept with it.
   * Throws WE's error when the pool refuses it.
   */
  admitFromPeer(tx: Transaction, certificates: readonly Certificate[]): Transaction {
    const pooled = this.pool.put(tx);
    this.chain.certificates.carry([tx.id], certificates);
    this.emit(pooled, 'network');
    return pooled;
  }

  /**
   * Tells `listener` of each transaction the door admitted (a client's broadcast again once
   * it is pooled included), with where it came from; returns the function that stops it.
   */
  onAdmitted(listener: (tx: Transaction, origin: ChainChangeOrigin) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(tx: Transaction, origin: ChainChangeOrigin): void {
    for (const listener of this.listeners) listener(tx, origin);
  }

  private forgetOldBroadcasts(now: bigint): void {
    const limit = now - this.knownTxCacheMs;
    for (const [id, at] of this.recent) {
      if (at > limit) break;
      this.recent.delete(id);
    }
  }
}

/**
 * WE's "not yet supported" refusals, made after the transaction entered the pool
 * (TransactionsApi.unimplementedApiValidation). WE prints the Scala form of the transaction;
 * the id stands in for it here.
 */
function refuseUnimplemented(tx: Transaction): void {
  if (CreateContract.is(tx) && tx.version === 7 && tx.data.isConfidential === true) {
    throw customValidationError(`CSC support is not enabled yet for transaction: ${tx.idBase58}`);
  }
  if (UpdateContract.is(tx) && tx.version === 6 && ((tx.data.groupParticipants?.length ?? 0) > 0 || (tx.data.groupOwners?.length ?? 0) > 0)) {
    throw customValidationError(`CSC support is not enabled yet for transaction: ${tx.idBase58}`);
  }
  if (isAtomic(tx)) {
    const unimplemented = tx.data.transactions.filter(
      (t) => (UpdateContract.is(t) && t.version === 6) || (CreateContract.is(t) && t.version === 7) || (CallContract.is(t) && t.version === 7),
    );
    if (unimplemented.length > 0) {
      throw customValidationError(`Atomic support is not enabled yet for following transactions: List(${unimplemented.map((t) => t.idBase58).join(', ')})`);
    }
  }
}
