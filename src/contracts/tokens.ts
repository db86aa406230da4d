/**
 * The tokens the node gives contracts (WE's ContractAuthTokenService): RS256 JWTs signed
 * with an RSA-2048 key pair made when the engine starts, so they die with it. Claims are
 * WE's two shapes plus `iat` and `exp`:
 *
 *   connection token (env CONNECTION_TOKEN)  {"connectionId": "…"}           → Connect only
 *   execution token (pushed with each tx)     {"txId", "contractId", "executionId"} → every other call
 *
 * A token of the other shape, a bad signature (another node's key) or an expired one is
 * WE's InvalidTokenError (622); no token at all is 618 (the gRPC layer checks that).
 * Verified tokens are remembered until they expire: a contract presents the same token on
 * every call of an execution.
 */
import { generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
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

export class ContractTokens {
  private readonly verified = new Map<string, CachedClaim>();

  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly publicKey: CryptoKey,
    private readonly now: () => bigint,
    /** Lifetime of a token (`contract-auth-expires-in`). */
    readonly lifetimeMs: number,
  ) {}

  /** A token service with a fresh key pair. */
  static async create(options: { readonly now: () => bigint; readonly lifetimeMs: number }): Promise<ContractTokens> {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
    return new ContractTokens(privateKey, publicKey, options.now, options.lifetimeMs);
  }

  connectionToken(connectionId: string): Promise<string> {
    return this.sign({ connectionId }, this.lifetimeMs);
  }

  executionToken(claim: ExecutionClaim, lifetimeMs = this.lifetimeMs): Promise<string> {
    return this.sign({ txId: claim.txId, contractId: claim.contractId, executionId: claim.executionId }, lifetimeMs);
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

  private async sign(claims: Record<string, string>, lifetimeMs: number): Promise<string> {
    const nowSeconds = Math.floor(Number(this.now()) / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + Math.ceil(lifetimeMs / 1000))
      .sign(this.privateKey);
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
      ({ payload } = await jwtVerify(token, this.publicKey, { algorithms: ['RS256'], currentDate: new Date(nowMs), requiredClaims: ['exp'] }));
    } catch {
      throw invalidTokenError();
    }
    const claim = claimOf(payload);
    if (this.verified.size >= MAX_CACHED) this.dropExpired(nowMs);
    if (this.verified.size < MAX_CACHED) this.verified.set(token, { claim, expiresAtMs: (payload.exp ?? 0) * 1000 });
    return claim;
  }

  private dropExpired(nowMs: number): void {
    for (const [token, c] of this.verified) if (c.expiresAtMs <= nowMs) this.verified.delete(token);
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
