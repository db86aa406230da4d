/**
 * The `/crypto/*` encryption of a network, by its crypto type (WE's CryptoAlgorithms and
 * the REST `cryptoAlgo` it accepts):
 *
 * - `waves` → `aes`: X25519 agreement, MD5-keyed AES-128-GCM, 48-byte wrapped keys
 *   (encryption.ts);
 * - `gost`  → `gost-3412-2015-k`: VKO GOST R 34.10-2012, KExp15 key wrap, Kuznyechik CFB,
 *   96-byte wrapped structures (gost-encryption.ts).
 *
 * Failures read as WE's: EncryptionFailure (`Error in encrypt…`) and DecryptionFailure.
 */
import { decryptFromSender, DecryptionFailure, encryptForRecipient, encryptForRecipients, EncryptionFailure } from './encryption.js';
import { createGostEncryption, withGostFailure } from './gost-encryption.js';
import type { CryptoType } from './suite.js';

/** WE's REST names of the algorithms (the CryptoAlgo enum lower-cased, `_` → `-`). */
export type CryptoAlgorithmName = 'aes' | 'gost-3412-2015-k';

/** The one `cryptoAlgo` a network of each crypto type accepts. */
export const CRYPTO_ALGORITHM: Readonly<Record<CryptoType, CryptoAlgorithmName>> = { waves: 'aes', gost: 'gost-3412-2015-k' };

export interface TextEncryption {
  readonly algorithm: CryptoAlgorithmName;
  /** A content key and ciphertext per recipient, in the order given. */
  encryptSeparate(
    senderPrivateKey: Uint8Array,
    plaintext: Uint8Array,
    recipients: readonly Uint8Array[],
  ): Array<{ readonly encrypted: Uint8Array; readonly wrappedKey: Uint8Array }>;
  /** One content key and ciphertext, the key wrapped for each recipient (in the order given). */
  encryptCommon(
    senderPrivateKey: Uint8Array,
    plaintext: Uint8Array,
    recipients: readonly Uint8Array[],
  ): { readonly encrypted: Uint8Array; readonly wrappedKeys: readonly Uint8Array[] };
  decrypt(recipientPrivateKey: Uint8Array, senderPublicKey: Uint8Array, encrypted: Uint8Array, wrappedKey: Uint8Array): Uint8Array;
}

const aes: TextEncryption = {
  algorithm: 'aes',
  encryptSeparate: (sender, plaintext, recipients) => recipients.map((r) => encryptForRecipient(plaintext, sender, r)),
  encryptCommon: (sender, plaintext, recipients) => encryptForRecipients(plaintext, sender, recipients),
  decrypt: (recipient, sender, encrypted, wrappedKey) => decryptFromSender(encrypted, wrappedKey, recipient, sender),
};

function gostTextEncryption(): TextEncryption {
  const gost = createGostEncryption();
  const failing = withGostFailure;
  const encryptFailure = (message: string): Error => new EncryptionFailure(message);
  return {
    algorithm: 'gost-3412-2015-k',
    encryptSeparate: (sender, plaintext, recipients) =>
      failing(() => gost.encryptSeparate(sender, plaintext, recipients).map((c) => ({ encrypted: c.ciphertext, wrappedKey: c.wrappedKey })), encryptFailure),
    encryptCommon: (sender, plaintext, recipients) =>
      failing(() => {
        const c = gost.encryptCommon(sender, plaintext, recipients);
        return { encrypted: c.ciphertext, wrappedKeys: c.wrappedKeys.map((w) => w.wrappedKey) };
      }, encryptFailure),
    decrypt: (recipient, sender, encrypted, wrappedKey) =>
      failing(
        () => gost.decrypt(recipient, sender, encrypted, wrappedKey),
        (message) => new DecryptionFailure(message),
      ),
  };
}

/** The encryption of a network's crypto type. */
export function textEncryptionFor(type: CryptoType): TextEncryption {
  return type === 'gost' ? gostTextEncryption() : aes;
}
