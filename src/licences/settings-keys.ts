/**
 * `node.licenses`' key table: the issuer public keys whose licences the node accepts (Base58)
 * and what an unlicensed node does (`on-expiry`: report, stop-mining or stop-node).
 */
import { decodeBase58, encodeBase58 } from '../crypto/encoding.js';
import { choiceKey, customKey, keyTable, type KeyTable } from '../config/key-table.js';
import { describeValue, fail, parseString } from '../config/values.js';
import type { LicenceSettings } from './licence-service.js';

/** The network's public key length, which every issuer key must have. */
export interface LicencesReadContext {
  readonly publicKeyLength: number;
}

export const LICENCES_TABLE: KeyTable<LicenceSettings, LicencesReadContext> = keyTable<LicenceSettings, LicencesReadContext>({
  issuers: customKey<readonly Uint8Array[], LicencesReadContext>(
    'issuers',
    (l, { publicKeyLength }: LicencesReadContext) =>
      l.list('issuers', []).map((v, i) => {
        const path = `${l.at('issuers')}(${i})`;
        const text = parseString(v, path);
        let key: Uint8Array | undefined;
        try {
          key = decodeBase58(text);
        } catch {
          key = undefined;
        }
        if (key === undefined || key.length !== publicKeyLength)
          fail(path, `expected a Base58 public key of ${publicKeyLength} bytes, got ${describeValue(v)}`);
        return key;
      }),
    (issuers) => issuers.map((k) => encodeBase58(k)),
  ),
  onExpiry: choiceKey('on-expiry', ['report', 'stop-mining', 'stop-node'], 'report'),
});
