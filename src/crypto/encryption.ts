/**
 * WE's data encryption for the `waves` crypto type (we-core WavesAlgorithms.encrypt,
 * encryptForMany, decrypt and AesEncryption), byte for byte:
 *
 *   shared secret  S   = X25519(own private key, other's public key), raw (not hashed)
 *   content key    CEK = 16 random bytes
 *   AES key of any key material K = MD5(K) → AES-128
 *   sealed box     = IV(16 random) ‖ AES-128-GCM(key, IV, plaintext) ‖ tag(16), no AAD
 *   encrypted data = sealed box of the plaintext under MD5(CEK)
 *   wrapped key    = sealed box of the CEK under MD5(S): 16 + 16 + 16 = 48 bytes
 *
 * The IV is used whole as a 16-byte GCM IV (Java's GCMParameterSpec does the same), so the
 * output is what a WE node and the official JS clients produce and read. `encryptForMany`
 * shares one CEK and ciphertext between recipients, each with its own wrapped key.
 *
 * Randomness is injectable so tests can pin the bytes against fixed vectors.
 */
import { createCipheriv, createDecipheriv, createHash, createPrivateKey, createPublicKey, diffieHellman, randomBytes as systemRandomBytes } from 'node:crypto';
import { CryptoError } from '../errors/catalogue.js';

export const AES_IV_LENGTH = 16;
export const AES_TAG_LENGTH = 16;
export const CONTENT_KEY_LENGTH = 16;
/** WE's WrappedStructureLength for `waves` crypto. */
export const WRAPPED_KEY_LENGTH = AES_IV_LENGTH + CONTENT_KEY_LENGTH + AES_TAG_LENGTH;
/** Length of an X25519 key (public or private). */
export const X25519_KEY_LENGTH = 32;

/** A source of random bytes (node:crypto's by default). */
export type RandomBytes = (length: number) => Uint8Array;

export const systemRandom: RandomBytes = (length) => new Uint8Array(systemRandomBytes(length));

const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const X25519_SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');

/** A failure to decrypt (wrong key, altered bytes); `reason` reads like WE's. */
export class DecryptionFailure extends CryptoError {
  constructor(readonly reason: string) {
    super('DecryptionError', 199, reason);
  }
}

/** A failure to encrypt for a key (one whose shared secret cannot be made: a low-order point); WE's `Error in encrypt`. */
export class EncryptionFailure extends CryptoError {
  constructor(message = 'Error in encrypt') {
    super('GenericError', 199, message);
  }
}

/** X25519(privateKey, publicKey) as WE computes it (curve25519 agreement, no hashing). */
export function x25519SharedSecret(privateKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  if (privateKey.length !== X25519_KEY_LENGTH) throw new RangeError(`An X25519 private key is ${X25519_KEY_LENGTH} bytes, got ${privateKey.length}`);
  if (publicKey.length !== X25519_KEY_LENGTH) throw new RangeError(`An X25519 public key is ${X25519_KEY_LENGTH} bytes, got ${publicKey.length}`);
  const own = createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, privateKey]), format: 'der', type: 'pkcs8' });
  const other = createPublicKey({ key: Buffer.concat([X25519_SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
  return new Uint8Array(diffieHellman({ privateKey: own, publicKey: other }));
}

/** The AES-128 key WE derives from any key material: MD5 of it. */
export function aesKeyOf(keyMaterial: Uint8Array): Buffer {
  return createHash('md5').update(keyMaterial).digest();
}

/** IV ‖ AES-128-GCM(MD5(keyMaterial), IV, plaintext) ‖ tag, with a fresh random IV. */
export function sealAesGcm(keyMaterial: Uint8Array, plaintext: Uint8Array, random: RandomBytes = systemRandom): Uint8Array {
  return sealWithKey(aesKeyOf(keyMaterial), plaintext, random(AES_IV_LENGTH));
}

/** The sealed box of `plaintext` under an AES-128 key and IV. */
export function sealWithKey(aesKey: Uint8Array, plaintext: Uint8Array, iv: Uint8Array): Uint8Array {
  const cipher = createCipheriv('aes-128-gcm', aesKey, iv, { authTagLength: AES_TAG_LENGTH });
  const body = cipher.update(plaintext);
  const tail = cipher.final();
  const out = new Uint8Array(iv.length + body.length + tail.length + AES_TAG_LENGTH);
  out.set(iv, 0);
  out.set(body, iv.length);
  out.set(tail, iv.length + body.length);
  out.set(cipher.getAuthTag(), iv.length + body.length + tail.length);
  return out;
}

/** Opens a sealed box under MD5(keyMaterial); DecryptionFailure when it does not authenticate. */
export function openAesGcm(keyMaterial: Uint8Array, sealed: Uint8Array): Uint8Array {
  return openWithKey(aesKeyOf(keyMaterial), sealed);
}

/** Opens a sealed box under an AES-128 key; DecryptionFailure when it does not authenticate. */
export function openWithKey(aesKey: Uint8Array, sealed: Uint8Array): Uint8Array {
  if (sealed.length < AES_IV_LENGTH + AES_TAG_LENGTH) {
    throw new DecryptionFailure(`Error in AES decrypt: the input is ${sealed.length} bytes, shorter than IV and tag (${AES_IV_LENGTH + AES_TAG_LENGTH})`);
  }
  const iv = sealed.subarray(0, AES_IV_LENGTH);
  const tag = sealed.subarray(sealed.length - AES_TAG_LENGTH);
  const decipher = createDecipheriv('aes-128-gcm', aesKey, iv, { authTagLength: AES_TAG_LENGTH });
  decipher.setAuthTag(tag);
  const body = decipher.update(sealed.subarray(AES_IV_LENGTH, sealed.length - AES_TAG_LENGTH));
  try {
    const tail = decipher.final();
    return tail.length === 0 ? new Uint8Array(body) : new Uint8Array(Buffer.concat([body, tail]));
  } catch {
    throw new DecryptionFailure('Error in AES decrypt: Tag mismatch');
  }
}

/** The shared secret, or the error `failure` builds from why it cannot be made (a malformed or low-order key). */
function sharedSecretOr(privateKey: Uint8Array, publicKey: Uint8Array, failure: (reason: string) => Error): Uint8Array {
  try {
    return x25519SharedSecret(privateKey, publicKey);
  } catch (e) {
    throw failure(e instanceof Error ? e.message : String(e));
  }
}

/** The 48-byte wrapped content key for one recipient. */
export function wrapContentKey(
  contentKey: Uint8Array,
  senderPrivateKey: Uint8Array,
  recipientPublicKey: Uint8Array,
  random: RandomBytes = systemRandom,
): Uint8Array {
  const secret = sharedSecretOr(senderPrivateKey, recipientPublicKey, () => new EncryptionFailure());
  return sealAesGcm(secret, contentKey, random);
}

/** The content key inside a wrapped key, as the recipient opens it. */
export function unwrapContentKey(wrappedKey: Uint8Array, recipientPrivateKey: Uint8Array, senderPublicKey: Uint8Array): Uint8Array {
  const secret = sharedSecretOr(recipientPrivateKey, senderPublicKey, () => new DecryptionFailure('Failed to make Diffie-Hellman shared secret'));
  return openAesGcm(secret, wrappedKey);
}

/** Encrypted bytes and the key a recipient opens them with. */
export interface EncryptedForOne {
  /** IV ‖ ciphertext ‖ tag: 32 bytes more than the plaintext. */
  readonly encrypted: Uint8Array;
  /** The wrapped content key (48 bytes). */
  readonly wrappedKey: Uint8Array;
}

/** WE's `encrypt`: a fresh content key for one recipient. */
export function encryptForRecipient(
  plaintext: Uint8Array,
  senderPrivateKey: Uint8Array,
  recipientPublicKey: Uint8Array,
  random: RandomBytes = systemRandom,
): EncryptedForOne {
  // WE's order of random draws: content key, the data's IV, the wrapping IV.
  const contentKey = random(CONTENT_KEY_LENGTH);
  const encrypted = sealAesGcm(contentKey, plaintext, random);
  return { encrypted, wrappedKey: wrapContentKey(contentKey, senderPrivateKey, recipientPublicKey, random) };
}

/** WE's `encryptForMany`: one content key and ciphertext, a wrapped key per recipient (in the given order). */
export function encryptForRecipients(
  plaintext: Uint8Array,
  senderPrivateKey: Uint8Array,
  recipientPublicKeys: readonly Uint8Array[],
  random: RandomBytes = systemRandom,
): { readonly encrypted: Uint8Array; readonly wrappedKeys: readonly Uint8Array[] } {
  const contentKey = random(CONTENT_KEY_LENGTH);
  const encrypted = sealAesGcm(contentKey, plaintext, random);
  return { encrypted, wrappedKeys: recipientPublicKeys.map((key) => wrapContentKey(contentKey, senderPrivateKey, key, random)) };
}

/** WE's `decrypt`: unwraps the content key with the sender's public key, then opens the data. */
export function decryptFromSender(encrypted: Uint8Array, wrappedKey: Uint8Array, recipientPrivateKey: Uint8Array, senderPublicKey: Uint8Array): Uint8Array {
  return openAesGcm(unwrapContentKey(wrappedKey, recipientPrivateKey, senderPublicKey), encrypted);
}
