/**
 * The PKI of one node (GOST networks only, rule PKI-2): its certificate store (an LMDB
 * environment in `<data-directory>/pki`), CRL source, chain validator and the PKI service
 * the REST layer reaches; certificates carried with transactions this node admitted are
 * stored when a block or micro-block holding the transaction is applied, and removed again
 * by a rollback.
 *
 * Not wired yet (the chain and network layers are being restructured): chains do not travel
 * to other nodes over P2P (message 46 — see pki/cert-chain-codec.ts), so a node stores the
 * certificates of the transactions it was sent itself, and the store is its own LMDB
 * environment rather than a family of the state store written in the block's transaction.
 */
import { join } from 'node:path';
import { createStreebog256 } from '../crypto/gost.js';
import { GostVerifiers } from '../crypto/pki/x509.js';
import type { Blockchain } from '../chain/blockchain.js';
import type { Protocol } from '../protocol/protocol.js';
import { CertificateStore } from '../pki/certificate-store.js';
import { CrlSource } from '../pki/crl-source.js';
import { PkiService, type PkiKeystore } from '../pki/pki-service.js';
import { PKI_OFF } from '../pki/settings.js';
import { ChainValidator } from '../pki/validation.js';
import type { NodeConfig } from './config.js';

export interface NodePki {
  readonly service: PkiService;
  close(): Promise<void>;
}

export interface NodePkiParts {
  readonly config: NodeConfig;
  readonly protocol: Protocol;
  readonly chain: Blockchain;
  readonly keystore: PkiKeystore;
  readonly now: () => bigint;
}

/** The node's PKI; undefined on a WAVES network. */
export function startNodePki(parts: NodePkiParts): NodePki | undefined {
  const { config, protocol, chain, now } = parts;
  if (config.chain.crypto !== 'gost') return undefined;
  const settings = config.pki ?? PKI_OFF;
  const store = CertificateStore.open(join(config.node.dataDirectory, 'pki'));
  const verifiers = new GostVerifiers();
  const crls = new CrlSource({ genesisCrls: settings.genesis.crls, syncPeriodMs: settings.crlSyncPeriodMs, verifiers, now });
  const service = new PkiService({
    settings,
    store,
    validator: new ChainValidator({ settings, store, crls, verifiers, now }),
    verifiers,
    keystore: parts.keystore,
    digest: createStreebog256(),
    sign: (privateKey, message) => protocol.crypto.sign(privateKey, message),
    now,
    carryTimeoutMs: config.utx.txExpireTimeoutMs,
  });
  // A store left ahead of the chain (a crash between the block and this store) drops what the chain no longer has.
  service.rolledBack(chain.height());
  chain.on((event) => {
    if (event.kind === 'block') service.transactionsMined(event.height, event.block.transactions.map((t) => t.id));
    if (event.kind === 'micro-block') service.transactionsMined(event.height, event.transactions.map((t) => t.id));
    if (event.kind === 'rollback') service.rolledBack(event.height);
  });
  return { service, close: () => store.close() };
}
