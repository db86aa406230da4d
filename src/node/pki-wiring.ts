/**
 * The PKI of one node (GOST networks only, rule PKI-2): the certificate lookups over the
 * chain's state store, the CRL source, the chain validator and the PKI service the REST
 * layer reaches, and the certificate policy the chain's admission applies with it. A chain
 * admitted with a broadcast is kept by the chain, which sends it along with the transaction
 * to the peers (P2P 46, 47, 45) and stores its certificates of new subject DNs in the commit
 * of the block that mines the transaction.
 */
import { createStreebog256 } from '../crypto/gost.js';
import { GostVerifiers } from '../crypto/pki/x509.js';
import type { CertificatePolicy } from '../chain/admission.js';
import type { Blockchain } from '../chain/blockchain.js';
import type { Protocol } from '../protocol/protocol.js';
import { CertificateStore } from '../pki/certificate-store.js';
import { CrlSource } from '../pki/crl-source.js';
import { PkiService, type PkiKeystore } from '../pki/pki-service.js';
import { PKI_OFF } from '../pki/settings.js';
import { ChainValidator } from '../pki/validation.js';
import type { NodeConfig } from './config.js';

export interface NodePkiParts {
  readonly config: NodeConfig;
  readonly protocol: Protocol;
  readonly chain: Blockchain;
  readonly keystore: PkiKeystore;
  readonly now: () => bigint;
}

/** The node's PKI; undefined on a WAVES network. */
export function startNodePki(parts: NodePkiParts): PkiService | undefined {
  const { config, protocol, chain, now } = parts;
  if (config.chain.crypto !== 'gost') return undefined;
  const settings = config.pki ?? PKI_OFF;
  const store = new CertificateStore(chain.store);
  const verifiers = new GostVerifiers();
  const crls = new CrlSource({ genesisCrls: settings.genesis.crls, syncPeriodMs: settings.crlSyncPeriodMs, verifiers, now });
  return new PkiService({
    settings,
    store,
    validator: new ChainValidator({ settings, store, crls, verifiers, now }),
    verifiers,
    keystore: parts.keystore,
    digest: createStreebog256(),
    sign: (privateKey, message) => protocol.crypto.sign(privateKey, message),
    now,
  });
}

/**
 * What the chain's admission asks of the PKI (undefined on a WAVES network): a client's
 * `certificates` built into their one chain and validated for the sender; in mode TEST/ON,
 * peers' transactions held to the same rules with the chain their message carried.
 */
export function certificatePolicyOf(pki: PkiService | undefined): CertificatePolicy | undefined {
  if (pki === undefined) return undefined;
  return {
    clientChain: async (tx, certificates) => (await pki.admitTransaction(tx.senderPublicKey, certificates))?.certificates,
    ...(pki.mode === 'OFF' ? {} : { peerProblem: (tx, certificates) => pki.peerTransactionProblem(tx.senderPublicKey, certificates) }),
  };
}
