/**
 * Confidential data in a running node: opens the configured storage (`node.privacy.storage`,
 * the embedded store by default) and the node's privacy state (`<data-directory>/
 * privacy-state`), builds the service `/privacy/*` calls, and feeds the chain's events to
 * the pending queue (items the node must fetch) and its rollback listeners.
 *
 * Replication between nodes — the synchronizer, replier and inventory handler of
 * src/privacy over the P2P network's privacy messages (network/privacy-messages.ts: WE's
 * 30, 31, 39, 40, 44 and large-item streams) — runs when the node has a storage and is not
 * a watcher (`node.network.mode = watcher`, as WE; forceSync then answers 610). Uploads
 * are announced to the policy's peers, and the items of policies the node owner is a
 * recipient of are fetched from them. Without P2P (`network.port = 0`) the download queue
 * is kept all the same, with no peer to ask.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Admission } from '../chain/admission.js';
import type { Blockchain } from '../chain/blockchain.js';
import type { KeyPair } from '../crypto/suite.js';
import type { Protocol } from '../protocol/protocol.js';
import type { PrivacyPeers } from '../privacy/peers.js';
import { PolicyUpdates } from '../privacy/policy-updates.js';
import { PrivacyReplication } from '../privacy/replicator.js';
import { PrivacyService, type PrivacyApi, type PrivacyChainView } from '../privacy/service.js';
import { defaultPrivacySettings } from '../privacy/settings.js';
import { PrivacyState } from '../privacy/state.js';
import { openPolicyStorage } from '../privacy/storage/open.js';
import type { PolicyStorage } from '../privacy/storage/storage.js';
import type { ExternalServiceName } from '../api/services.js';
import { StorageFailure } from '../errors/catalogue.js';
import type { ExternalCheck } from './health.js';
import type { NodeConfig } from './config.js';
import type { Keystore } from '../keystore/keystore.js';
import type { NodeMetrics } from './metrics.js';
import { privacyMetrics } from './subsystem-metrics.js';

export interface PrivacyWiringParts {
  readonly config: NodeConfig;
  readonly protocol: Protocol;
  readonly chain: Blockchain;
  readonly keystore: Keystore;
  readonly log: Logger;
  /** Node time, ms. */
  readonly now: () => bigint;
  /**
   * The chain's admission: a PolicyDataHash's fee, its dry run and the request's
   * `certificates` (through the PKI on a GOST network, as a broadcast's) before the data is
   * stored; then the pool, the miner and the peers.
   */
  readonly admission: Admission;
  /** The node owner's keys (inventories this node sends are signed with them). */
  readonly owner: KeyPair;
  /** The peers as replication sees them (the P2P network's); undefined without a network. */
  readonly peers: PrivacyPeers | undefined;
  /** The node's metrics (undefined when off): the download queue and the items replicated. */
  readonly metrics?: NodeMetrics;
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
  const { config, protocol, chain, keystore, log, admission } = parts;
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
    validateFee: (tx) => admission.checkFee(tx),
    validate: (tx) => admission.validate(tx),
    // Its certificates were admitted before its data was stored: the 114 is this node's own now.
    broadcast: (tx) => admission.admit(tx, { origin: 'local' }),
    admitCertificates: async (tx, certificates) => {
      await admission.admitCertificates(tx, certificates);
    },
  };
  const owner = config.node.ownerAddress;
  const updates = new PolicyUpdates(
    owner,
    () => chain.state(),
    state,
    (e) => log.error({ err: e }, 'recording privacy items to fetch failed'),
  );
  // A node without P2P (`network.port = 0`) keeps its download queue all the same: it has no peers to fetch from.
  const peers: PrivacyPeers = parts.peers ?? { connected: () => [], onMessage: () => () => undefined };
  // The queue is read at scrape only, once `replication` below is set.
  const observer =
    parts.metrics === undefined
      ? undefined
      : privacyMetrics(parts.metrics, {
          pending: () => state.pending().length,
          lost: () => state.lost().length,
          inProgress: () => replication?.synchronizer.inProgress ?? 0,
        });
  const replication: PrivacyReplication | undefined =
    storage !== undefined && config.network.mode !== 'watcher'
      ? new PrivacyReplication(
          {
            protocol,
            settings,
            storage,
            state,
            chain: chainView,
            owner: parts.owner,
            peers,
            now: parts.now,
            log,
            ...(observer === undefined ? {} : { observer }),
          },
          updates,
        )
      : undefined;
  const api = new PrivacyService({
    protocol,
    settings,
    storage,
    state,
    chain: chainView,
    nodeOwner: owner,
    unlock: (address, password) => keystore.unlock(address, password),
    now: parts.now,
    log,
    ...(replication === undefined ? {} : { announcer: replication.announcer, sync: replication.synchronizer }),
  });
  const stopListening = chain.on((event) => {
    updates.handle(event);
    if (event.kind === 'micro-block' && event.origin === 'local') {
      replication
        ?.announceAtomicItems(event.transactions)
        .catch((e: unknown) => log.warn({ err: e }, 'announcing the items of atomic PolicyDataHashes failed'));
    }
  });
  replication?.start();
  log.info({ storage: settings.storage.vendor, replication: replication !== undefined }, 'confidential data ready');
  return {
    api,
    storage,
    state,
    updates,
    async close() {
      stopListening();
      replication?.close();
      await storage?.close();
      await state.close();
    },
  };
}

/**
 * `/node/healthcheck?service=privacy-storage`: the configured store answers (PostgreSQL
 * `SELECT 1`, the S3 bucket, the embedded store's directory and database); its failure is
 * WE's 640 with the reason. Without a store the service is disabled (637).
 */
export function privacyHealthChecks(privacy: PrivacyWiring): Partial<Record<ExternalServiceName, ExternalCheck>> {
  const storage = privacy.storage;
  if (storage === undefined) return {};
  return {
    'privacy-storage': async () => {
      try {
        await storage.healthCheck();
      } catch (e) {
        throw new Error(e instanceof StorageFailure ? e.reason : e instanceof Error ? e.message : String(e), { cause: e });
      }
    },
  };
}
