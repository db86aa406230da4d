/**
 * One interface for the two crypto types a WE network can run: `waves` (Curve25519,
 * Blake2b/Keccak) and `gost` (GOST R 34.10-2012 / Streebog). Everything above this
 * layer — addresses, transaction ids, signatures, blocks — goes through a suite,
 * never through a primitive directly.
 */

export type CryptoType = 'waves' | 'gost';

export interface KeyPair {
  readonly privateKey: Uint8Array;
  readonly publicKey: Uint8Array;
}

export interface CryptoSuite {
  readonly type: CryptoType;
  /** Length of a public key on the wire: 32 (waves) or 64 (gost). */
  readonly publicKeyLength: number;
  readonly privateKeyLength: number;
  readonly signatureLength: number;
  /** Length of fastHash/secureHash output. */
  readonly digestLength: number;

  /** Transaction ids, asset ids, genesis pseudo-signatures. */
  fastHash(data: Uint8Array): Uint8Array;
  /** Address hashes and checksums, script checksums, commitments. */
  secureHash(data: Uint8Array): Uint8Array;

  /** Key pair from a seed phrase, exactly as the official clients derive it. */
  keyPairFromSeedPhrase(phrase: string): KeyPair;
  /** A fresh random key pair (never a weak key). */
  generateKeyPair(): KeyPair;
  /** The public key of a private key. */
  publicKeyOf(privateKey: Uint8Array): Uint8Array;

  /**
   * A signature over `message`. `nonceDigest`, when the caller keeps one: a SHA-512 digest
   * that commits to `message` (LiquidBlockBytes.signingDigest), from which the signature's
   * random nonce is derived instead of from the whole message — a miner re-signs its whole
   * liquid block with every micro-block. The signature covers `message` either way; a suite
   * whose nonce does not depend on the message ignores it.
   */
  sign(privateKey: Uint8Array, message: Uint8Array, nonceDigest?: Uint8Array): Uint8Array;
  /** False for any malformed key or signature; never throws. */
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
}
