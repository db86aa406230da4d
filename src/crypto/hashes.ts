/**
 * The named hash functions RIDE exposes whatever the network's crypto type (keccak256,
 * blake2b256, sha256): Keccak-256 and Blake2b-256 by hash-wasm, SHA-256 by node:crypto.
 */
import { createHash } from 'node:crypto';
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
    sha256: (data) => new Uint8Array(createHash('sha256').update(data).digest()),
  };
}
