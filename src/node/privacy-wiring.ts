/**
 * Confidential data in a running node: opens the configured storage (`node.privacy.storage`,
 * the embedded store by default) and the node's privacy state (`<data-directory>/
 * privacy-state`), builds the service `/privacy/*` calls, and feeds the chain's events to
 * the pending queue (items the node must fetch) and its rollback listeners.
 *
 * Replication between nodes (the synchronizer, replier and inventory handler of
 * src/privacy over WE's messages 30, 31, 39, 40, 44) needs the network layer and is wired
 * by it; until then items are stored and read on this node only, and uploads are not
 * announced to peers.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Blockchain } from '../chain/blockchain.js';
import { validateFee } from '../chain/fees.js';
import { applyTransaction } from '../chain/validation.js';
import type { Protocol } from '../protocol/protocol.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { PolicyUpdates } from '../privacy/policy-updates.js';
import { PrivacyService, type PrivacyApi, type PrivacyChainView } from '../privacy/service.js';
import { defaultPrivacySettings } from '../privacy/settings.js';
import { PrivacyState } from '../privacy/state.js';
import { openPolicyStorage } from '../privacy/storage/open.js';
import type { PolicyStorage } from '../privacy/storage/storage.js';
import { MutableState } from '../state/view.js';
import type { PkiApi } from '../pki/pki-service.js';
import type { NodeConfig } from './config.js';
import type { Keystore } from './keystore.js';

export interface PrivacyWiringParts {
  readonly config: NodeConfig;
  readonly protocol: Protocol;
  readonly chain: Blockchain;
  readonly keystore: Keystore;
  readonly log: Logger;
  /** Node time, ms. */
  readonly now: () => bigint;
  /** The node's broadcast of a transaction: into the pool, out to peers. */
  readonly broadcast: (tx: Transaction) => Promise<Transaction>;
  /** The node's PKI (GOST networks): the `certificates` of sendData go through it as a broadcast's do. */
  readonly pki: PkiApi | undefined;
}

export interface PrivacyWiring {
  /** What `/privacy/*` calls (ApiServices.privacy). */
  readonly api: PrivacyApi;
  readonly storage: PolicyStorage | undefined;
  readonly state: PrivacyState;
  /** The chain's events as confidential data reads them (the synchronizer listens here). */
  readonly updates: PolicyUpdates;
  close(): Promise<void>;
}

/** Opens confidential data for a node; a storage that cannot be opened (database down, bad settings) fails the start. */
export async function startPrivacy(parts: PrivacyWiringParts): Promise<PrivacyWiring> {
  const { config, protocol, chain, keystore, log } = parts;
  const settings = config.privacy ?? defaultPrivacySettings();
  const dataDirectory = config.node.dataDirectory;
  const storage = await openPolicyStorage(settings.storage, dataDirectory);
  let state: PrivacyState;
  try {
    state = PrivacyState.open(join(dataDirectory, 'privacy-state'));
  } catch (e) {
    await storage?.close();
    throw e;
  }
  const chainView: PrivacyChainView = {
    state: () => chain.state(),
    isFeatureActive: (feature) => chain.features.isActive(feature, chain.height()),
    validateFee: (tx) => validateFee(tx, chain.state(), { settings: chain.settings, features: chain.features, height: chain.height() }),
    validate: (tx) => void applyTransaction(new MutableState(chain.state()), tx, chain.poolTxContext(), { verifySignature: true }),
    broadcast: parts.broadcast,
    admitCertificates: async (tx, certificates) => {
      const pki = parts.pki;
      if (pki === undefined) return; // WAVES: the chain's shape was checked with the request (checkCertificateChain)
      const admitted = await pki.admitTransaction(tx.senderPublicKey, certificates);
      if (admitted !== undefined) pki.carry(tx.id, admitted);
    },
  };
  const owner = config.node.ownerAddress;
  const api = new PrivacyService({
    protocol,
    settings,
    storage,
    state,
    chain: chainView,
    nodeOwner: owner,
    keyPair: (address, password) => keystore.keyPair(address, password),
    now: parts.now,
    log,
  });
  const updates = new PolicyUpdates(owner, () => chain.state(), state, (e) => log.error({ err: e }, 'recording privacy items to fetch failed'));
  const stopListening = chain.on((event) => updates.handle(event));
  log.info({ storage: settings.storage.vendor }, 'confidential data ready');
  return {
    api,
    storage,
    state,
    updates,
    async close() {
      stopListening();
      await storage?.close();
      await state.close();
    },
  };
}
