/**
 * The named hash functions RIDE exposes whatever the network's crypto type (keccak256,
 * blake2b256, sha256): Keccak-256 and Blake2b-256 by hash-wasm, SHA-256 by node:crypto.
 */
import * as nodeCrypto from 'node:crypto';
import { createBLAKE2b, createKeccak } from 'hash-wasm';

export interface NamedHashes {
  keccak256(data: Uint8Array): Uint8Array;
  blake2b256(data: Uint8Array): Uint8Array;
  sha256(data: Uint8Array): Uint8Array;
}

export async function createNamedHashes(): Promise<NamedHashes> {
  const blake = await createBLAKE2b(256);
  const keccak = await createKeccak(256);
  return {
    keccak256(data) {
      keccak.init();
      keccak.update(data);
      return keccak.digest('binary');
    },
    blake2b256(data) {
      blake.init();
      blake.update(data);
      return blake.digest('binary');
    },
    sha256: (data) => new Uint8Array(sha256Once(data)),
  };
}

/**
 * SHA-256 of one piece of bytes: node:crypto's one-shot `hash` where the runtime has it
 * (Node ≥ 20.12; about half the cost of a Hash object for a transaction-sized input), a Hash
 * object on an older Node 20.
 */
export const sha256Once: (data: Uint8Array) => Buffer =
  typeof nodeCrypto.hash === 'function' ? (data) => nodeCrypto.hash('sha256', data, 'buffer') : (data) => nodeCrypto.createHash('sha256').update(data).digest();
