/** The node's keystore as the API uses it: unlocking keys to sign, listing and reloading. */
import type { WalletService } from '../../api/services.js';
import type { Keystore } from '../../keystore/keystore.js';

export function walletService(keystore: Keystore): WalletService {
  return {
    unlock: (address, password) => keystore.unlock(address, password),
    reload: () => keystore.reload(),
    addresses: () => keystore.addresses(),
    publicKey: (address) => keystore.publicKey(address),
  };
}
