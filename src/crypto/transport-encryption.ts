/**
 * Encryption of confidential data between two nodes on a connection without TLS (WE's
 * PolicyDataReplier / PolicyDataSynchronizer; reference privacy-crypto-pki.md §4.5, §5.2.1,
 * §5.3), keyed by the connection's session keys from the handshake — sender = own session
 * private key, recipient = the peer's session public key — and chosen by the network's
 * crypto type:
 *
 * - `waves`: a small item's payload is WE's `encrypt` (X25519, AES-128-GCM, 48-byte wrapped
 *   key; encryption.ts); a large item's stream is WE's AesStream chunk cipher under a
 *   16-byte content key wrapped the same way (stream-cipher.ts).
 * - `gost`: session public keys are 104-byte SubjectPublicKeyInfos of ephemeral GOST R
 *   34.10-2012 keys. A small item's payload is the GOST `encrypt` of `/crypto`
 *   (gost-3412-2015-k: VKO + KExp15 + Kuznyechik CFB, 96-byte wrapped structure;
 *   gost-encryption.ts). A large item's stream is the same chunking as WE's StreamCipher
 *   with WE's KuznechikStream layout — each chunk IV(16) ‖ Kuznyechik ciphertext ‖ OMAC(16)
 *   — under a 32-byte content key whose KExp15 header (agreementIV ‖ expUKM ‖ extendedUKM ‖
 *   wrapped key, 80 bytes) is zero-padded to the 96-byte wrapped structure the stream header
 *   carries. JCP's OMAC_CTR internals are not public; here the chunk key pair is
 *   Kmac ‖ Kenc = KDF_TREE_GOSTR3411_2012_256(CEK, "kdf tree", seed 0^64, 512 bits), the
 *   body is Kuznyechik-CTR(Kenc, IV[0..8]) and the tag OMAC(Kmac, IV ‖ ciphertext). Sizes
 *   and layout follow WE; byte compatibility with a WE GOST node is unverified (as for
 *   `/crypto` GOST).
 *
 * Failures read as WE's: EncryptionFailure and DecryptionFailure.
 */
import { timingSafeEqual } from 'node:crypto';
import { AES_IV_LENGTH, AES_TAG_LENGTH, DecryptionFailure, EncryptionFailure, systemRandom, WRAPPED_KEY_LENGTH, type RandomBytes } from './encryption.js';
import { createGostEncryption, kdfTree, withGostFailure, WRAPPED_KEY_HEADER_LENGTH, WRAPPED_STRUCTURE_LENGTH, type GostEncryption } from './gost-encryption.js';
import { createStreebog256 } from './gost.js';
import { kuznyechikKey, KUZNYECHIK_BLOCK, KUZNYECHIK_KEY_LENGTH } from './kuznyechik.js';
import { readDer } from './pki/der.js';
import { readGostPublicKey } from './pki/x509.js';
import { StreamDecryptor, StreamEncryptor, streamDecryptorFor, streamEncryptorFor, type ChunkCipher } from './stream-cipher.js';
import type { CryptoType } from './suite.js';
import { textEncryptionFor, type TextEncryption } from './text-encryption.js';

export interface TransportEncryption {
  readonly type: CryptoType;
  /** Length of the wrapped key of a message 31 and of a stream header: 48 (waves) or 96 (gost). */
  readonly wrappedKeyLength: number;
  /**
   * How many bytes `encrypt` adds to a small item's payload: 32 for `waves` (the GCM IV and
   * tag), 0 for `gost` (Kuznyechik CFB keeps the length; its IV travels in the wrapped key).
   */
  readonly sealOverhead: number;
  /** A small item's payload for the peer. */
  encrypt(plaintext: Uint8Array, ownPrivateKey: Uint8Array, peerPublicKey: Uint8Array): { readonly encrypted: Uint8Array; readonly wrappedKey: Uint8Array };
  /** A small item's payload from the peer. */
  decrypt(encrypted: Uint8Array, wrappedKey: Uint8Array, ownPrivateKey: Uint8Array, peerPublicKey: Uint8Array): Uint8Array;
  /** An encryptor for a large item's stream to the peer, and the wrapped key to send ahead of it. */
  streamEncryptor(
    ownPrivateKey: Uint8Array,
    peerPublicKey: Uint8Array,
    chunkSize: number,
    random?: RandomBytes,
  ): { readonly wrappedKey: Uint8Array; readonly encryptor: StreamEncryptor };
  /** The decryptor of a stream from the peer whose header carried `wrappedKey`. */
  streamDecryptor(wrappedKey: Uint8Array, ownPrivateKey: Uint8Array, peerPublicKey: Uint8Array, chunkSize: number): StreamDecryptor;
}

/** The strict payload is WE's `encrypt` of the network's `/crypto` algorithm for one recipient. */
function strictPart(text: TextEncryption): Pick<TransportEncryption, 'encrypt' | 'decrypt'> {
  return {
    encrypt: (plaintext, own, peer) => text.encryptSeparate(own, plaintext, [peer])[0]!,
    decrypt: (encrypted, wrappedKey, own, peer) => text.decrypt(own, peer, encrypted, wrappedKey),
  };
}

const WAVES_TRANSPORT: TransportEncryption = {
  type: 'waves',
  wrappedKeyLength: WRAPPED_KEY_LENGTH,
  sealOverhead: AES_IV_LENGTH + AES_TAG_LENGTH,
  ...strictPart(textEncryptionFor('waves')),
  streamEncryptor: (own, peer, chunkSize, random) => streamEncryptorFor(own, peer, chunkSize, random),
  streamDecryptor: (wrappedKey, own, peer, chunkSize) => streamDecryptorFor(wrappedKey, own, peer, chunkSize),
};

/** Kuznyechik CTR + OMAC per chunk under keys derived once from the content key (see the file comment). */
function gostChunkCipher(streebog: (d: Uint8Array) => Uint8Array): ChunkCipher {
  const label = new Uint8Array(Buffer.from('kdf tree', 'latin1'));
  return {
    contentKeyLength: KUZNYECHIK_KEY_LENGTH,
    keyed: (contentKey) => {
      const keys = kdfTree(streebog, contentKey, label, new Uint8Array(8), 64);
      const mac = kuznyechikKey(keys.subarray(0, 32));
      const enc = kuznyechikKey(keys.subarray(32));
      return {
        seal: (body, iv) => {
          const ciphertext = enc.ctr(iv.subarray(0, KUZNYECHIK_BLOCK / 2), body);
          return Buffer.concat([iv, ciphertext, mac.omac(iv, ciphertext)]);
        },
        open: (sealed) => {
          if (sealed.length < 2 * KUZNYECHIK_BLOCK)
            throw new DecryptionFailure(`Error in decrypt: a chunk of ${sealed.length} bytes is shorter than IV and MAC`);
          const iv = sealed.subarray(0, KUZNYECHIK_BLOCK);
          const ciphertext = sealed.subarray(KUZNYECHIK_BLOCK, sealed.length - KUZNYECHIK_BLOCK);
          if (!timingSafeEqual(mac.omac(iv, ciphertext), sealed.subarray(sealed.length - KUZNYECHIK_BLOCK))) {
            throw new DecryptionFailure('Error in decrypt: the chunk MAC does not verify');
          }
          return enc.ctr(iv.subarray(0, KUZNYECHIK_BLOCK / 2), ciphertext);
        },
      };
    },
  };
}

/** The raw 64-byte GOST key of a session key: its SubjectPublicKeyInfo as sent in the handshake, or already raw. */
export function gostSessionPublicKey(key: Uint8Array): Uint8Array {
  if (key.length === 64) return key;
  try {
    return readGostPublicKey(readDer(key)).bytes;
  } catch (e) {
    throw new EncryptionFailure(`Error in encrypt: the peer's session key is not a GOST public key (${e instanceof Error ? e.message : String(e)})`);
  }
}

function gostTransport(random?: RandomBytes): TransportEncryption {
  const gost: GostEncryption = createGostEncryption(random);
  const chunks = gostChunkCipher(createStreebog256());
  const strict = strictPart(textEncryptionFor('gost'));
  const failing = withGostFailure;
  return {
    type: 'gost',
    wrappedKeyLength: WRAPPED_STRUCTURE_LENGTH,
    sealOverhead: 0,
    encrypt: (plaintext, own, peer) => strict.encrypt(plaintext, own, gostSessionPublicKey(peer)),
    decrypt: (encrypted, wrappedKey, own, peer) => strict.decrypt(encrypted, wrappedKey, own, gostSessionPublicKey(peer)),
    streamEncryptor: (own, peer, chunkSize, streamRandom = systemRandom) => {
      const contentKey = streamRandom(KUZNYECHIK_KEY_LENGTH);
      const header = failing(
        () => gost.wrapKey(own, gostSessionPublicKey(peer), contentKey),
        (m) => new EncryptionFailure(m),
      );
      const wrappedKey = new Uint8Array(WRAPPED_STRUCTURE_LENGTH);
      wrappedKey.set(header);
      return { wrappedKey, encryptor: new StreamEncryptor(contentKey, chunkSize, streamRandom, chunks) };
    },
    streamDecryptor: (wrappedKey, own, peer, chunkSize) => {
      if (wrappedKey.length !== WRAPPED_STRUCTURE_LENGTH)
        throw new DecryptionFailure(`Error in decrypt: the wrapped structure has ${wrappedKey.length} bytes, expected ${WRAPPED_STRUCTURE_LENGTH}`);
      const contentKey = failing(
        () => gost.unwrapKey(own, gostSessionPublicKey(peer), wrappedKey.subarray(0, WRAPPED_KEY_HEADER_LENGTH)),
        (m) => new DecryptionFailure(m),
      );
      return new StreamDecryptor(contentKey, chunkSize, chunks);
    },
  };
}

/** The transport encryption of a network's crypto type (`random` only pins GOST's draws in tests). */
export function transportEncryptionFor(type: CryptoType, random?: RandomBytes): TransportEncryption {
  return type === 'gost' ? gostTransport(random) : WAVES_TRANSPORT;
}
