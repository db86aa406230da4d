/**
 * The tokens the node gives contracts (WE's ContractAuthTokenService): JWTs signed with a
 * key made when the engine starts, so they die with it. Claims are WE's two shapes plus
 * `iat` and `exp`:
 *
 *   connection token (env CONNECTION_TOKEN)  {"connectionId": "…"}           → Connect only
 *   execution token (pushed with each tx)     {"txId", "contractId", "executionId"} → every other call
 *
 * A token of the other shape, a bad signature (another node's key) or an expired one is
 * WE's InvalidTokenError (622); no token at all is 618 (the gRPC layer checks that).
 * Verified tokens are remembered until they expire: a contract presents the same token on
 * every call of an execution; a token this node signs is remembered as it is made.
 *
 * WE signs RS256 with an RSA-2048 pair; here HS256 with a random 256-bit secret: contracts
 * only echo the tokens and only the node that made one checks it, so a MAC binds them as
 * well, and an RSA signature per execution cost more CPU than the rest of a call's node side.
 * A token is made with node:crypto's HMAC at once (a JWS compact HS256 token is the two
 * Base64url JSON parts and their MAC): jose signs through WebCrypto, an asynchronous job
 * per token that sat between every execution and its push (~5% of the node's main thread
 * in the contract bench). Tokens not remembered are checked by jose.
 */
import { createHmac, createSecretKey, randomBytes, webcrypto, type KeyObject } from 'node:crypto';
import { jwtVerify, type JWTPayload } from 'jose';
import { invalidTokenError } from '../errors/catalogue.js';

export interface ConnectionClaim {
  readonly connectionId: string;
}

export interface ExecutionClaim {
  /** Base58 id of the executing transaction. */
  readonly txId: string;
  /** Base58 id of the contract it executes. */
  readonly contractId: string;
  /** The execution it belongs to ('' in read-only tokens). */
  readonly executionId: string;
}

interface CachedClaim {
  readonly claim: ConnectionClaim | ExecutionClaim;
  readonly expiresAtMs: number;
}

const MAX_CACHED = 10_000;

/** The protected header of every token, Base64url: {"alg":"HS256"}. */
const HS256_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256' }), 'utf8').toString('base64url');

export class ContractTokens {
  private readonly verified = new Map<string, CachedClaim>();

  private constructor(
    /** The secret as jose verifies with it. */
    private readonly key: webcrypto.CryptoKey,
    /** The same secret for node:crypto's HMAC. */
    private readonly secret: KeyObject,
    private readonly now: () => bigint,
    /** Lifetime of a token (`contract-auth-expires-in`). */
    readonly lifetimeMs: number,
  ) {}

  /** A token service with a fresh key pair. */
  static async create(options: { readonly now: () => bigint; readonly lifetimeMs: number }): Promise<ContractTokens> {
    const secret = randomBytes(32);
    const key = await webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    const token = new ContractTokens(key, createSecretKey(secret), options.now, options.lifetimeMs);
    secret.fill(0);
    return token;
  }

  connectionToken(connectionId: string): Promise<string> {
    return Promise.resolve(this.sign({ connectionId }, this.lifetimeMs));
  }

  executionToken(claim: ExecutionClaim, lifetimeMs = this.lifetimeMs): Promise<string> {
    return Promise.resolve(this.sign({ txId: claim.txId, contractId: claim.contractId, executionId: claim.executionId }, lifetimeMs));
  }

  /** The claim of a connection token; 622 for anything else. */
  async verifyConnection(token: string): Promise<ConnectionClaim> {
    const claim = await this.verify(token);
    if (!('connectionId' in claim)) throw invalidTokenError();
    return claim;
  }

  /** The claim of an execution (or read-only) token; 622 for anything else. */
  async verifyExecution(token: string): Promise<ExecutionClaim> {
    const claim = await this.verify(token);
    if (!('txId' in claim)) throw invalidTokenError();
    return claim;
  }

  private sign(claims: Record<string, string>, lifetimeMs: number): string {
    const nowSeconds = Math.floor(Number(this.now()) / 1000);
    const exp = nowSeconds + Math.ceil(lifetimeMs / 1000);
    const signingInput = `${HS256_HEADER}.${Buffer.from(JSON.stringify({ ...claims, iat: nowSeconds, exp }), 'utf8').toString('base64url')}`;
    const token = `${signingInput}.${createHmac('sha256', this.secret).update(signingInput, 'ascii').digest('base64url')}`;
    this.remember(token, claimOf(claims), exp * 1000);
    return token;
  }

  /**
   * Remembers a token, dropping the oldest remembered ones first when the cache is full:
   * expired ones, else the oldest one (it is checked by jose again if it comes back). Tokens
   * are remembered about in the order they expire (one lifetime for all of this node's), so
   * this looks at a few entries per token: a full scan of a cache of live tokens — what a
   * node executing more than MAX_CACHED calls per lifetime (10,000 a minute) did for every
   * execution token it made — is not needed.
   */
  private remember(token: string, claim: ConnectionClaim | ExecutionClaim, expiresAtMs: number): void {
    if (this.verified.size >= MAX_CACHED) {
      const nowMs = Number(this.now());
      for (const [oldest, c] of this.verified) {
        if (this.verified.size < MAX_CACHED && c.expiresAtMs > nowMs) break;
        this.verified.delete(oldest);
      }
    }
    this.verified.set(token, { claim, expiresAtMs });
  }

  private async verify(token: string): Promise<ConnectionClaim | ExecutionClaim> {
    const nowMs = Number(this.now());
    const cached = this.verified.get(token);
    if (cached !== undefined) {
      if (cached.expiresAtMs > nowMs) return cached.claim;
      this.verified.delete(token);
      throw invalidTokenError();
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], currentDate: new Date(nowMs), requiredClaims: ['exp'] }));
    } catch {
      throw invalidTokenError();
    }
    const claim = claimOf(payload);
    this.remember(token, claim, (payload.exp ?? 0) * 1000);
    return claim;
  }
}

function claimOf(payload: JWTPayload): ConnectionClaim | ExecutionClaim {
  const { connectionId, txId, contractId, executionId } = payload as Record<string, unknown>;
  if (typeof connectionId === 'string') return { connectionId };
  if (typeof txId === 'string' && typeof contractId === 'string') {
    return { txId, contractId, executionId: typeof executionId === 'string' ? executionId : '' };
  }
  throw invalidTokenError();
}
