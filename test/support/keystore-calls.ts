/**
 * Counts how a keystore is asked for keys while a test runs: `unlock` derives the password
 * off the event loop, `keyPair` on it. Each call runs scrypt at most once (none when the key
 * is unlocked already).
 */
import type { Keystore } from '../../src/keystore/keystore.js';

export interface KeystoreCalls {
  readonly calls: { unlock: number; keyPair: number };
  /** Puts the keystore's own methods back. */
  restore(): void;
}

export function watchKeystore(keystore: Keystore): KeystoreCalls {
  const calls = { unlock: 0, keyPair: 0 };
  const unlock = keystore.unlock.bind(keystore);
  const keyPair = keystore.keyPair.bind(keystore);
  keystore.unlock = (address, password) => (calls.unlock++, unlock(address, password));
  keystore.keyPair = (address, password) => (calls.keyPair++, keyPair(address, password));
  return {
    calls,
    restore: () => {
      keystore.unlock = unlock;
      keystore.keyPair = keyPair;
    },
  };
}
