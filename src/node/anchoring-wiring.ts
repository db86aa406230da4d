/**
 * Anchoring in a running node: src/anchoring built over this node's parts when
 * `node.anchoring.enable = yes`.
 *
 * - The target key comes from the target wallet (`targetnet.wallet.file`, a keystore of
 *   the target network: Waves crypto, addresses of `targetnet.scheme-byte`), the entry of
 *   `targetnet.node-recipient-address` unlocked with `targetnet.private-key-password`. A
 *   missing file or key stops the node at start, as WE's "Failed to start anchoring".
 * - Write-backs are signed with the node owner's key and go through the chain's admission
 *   (pool, miner woken, peers), as a client's transaction would.
 * - Progress is kept in `<data-directory>/anchoring-progress.json`, written atomically
 *   after each step.
 * - `/anchoring/config` and the `anchoring-auth` health check are answered from here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Anchoring } from '../anchoring/anchoring.js';
import { NO_PROGRESS, progressFromJson, progressToJson, type AnchoringProgress, type ProgressStore } from '../anchoring/progress.js';
import { realClock } from '../anchoring/timing.js';
import type { AnchoringConfig, ExternalServiceName } from '../api/services.js';
import type { Blockchain } from '../chain/blockchain.js';
import type { UtxPool } from '../chain/utx.js';
import type { KeyPair } from '../crypto/suite.js';
import { Protocol } from '../protocol/protocol.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import type { Store } from '../state/store.js';
import type { NodeConfig } from './config.js';
import type { ExternalCheck } from './health.js';
import { Keystore, writeFileAtomic } from '../keystore/keystore.js';

/** Where a node keeps its anchoring progress, in its data directory. */
export const ANCHORING_PROGRESS_FILE = 'anchoring-progress.json';

/** `GET /anchoring/config` (WE's AnchoringApiService): the settings, or `enabled: false`. */
export function anchoringConfigAnswer(config: NodeConfig): AnchoringConfig {
  const a = config.anchoring;
  if (a === undefined) return { enabled: false };
  return {
    enabled: true,
    currentChainOwnerAddress: config.node.ownerAddress.toString(),
    targetnetNodeAddress: a.targetnet.nodeAddress,
    targetnetSchemeByte: a.targetnet.schemeByte,
    targetnetRecipientAddress: a.targetnet.nodeRecipientAddress,
    targetnetFee: a.targetnet.fee,
    currentChainFee: a.sidechainFee,
    heightRange: a.heightRange,
    heightAbove: a.heightAbove,
    threshold: a.threshold,
  };
}

/** The external health checks anchoring gives the node: `anchoring-auth` when it runs. */
export function anchoringHealthChecks(anchoring: Anchoring | undefined): Partial<Record<ExternalServiceName, ExternalCheck>> {
  return anchoring === undefined ? {} : { 'anchoring-auth': () => anchoring.checkAuth() };
}

/** Progress in a file, replaced atomically on each save. */
export function fileProgressStore(file: string): ProgressStore {
  return {
    load(): AnchoringProgress {
      if (!existsSync(file)) return NO_PROGRESS;
      try {
        return progressFromJson(readFileSync(file, 'utf8'));
      } catch (e) {
        throw new Error(
          `Anchoring initialization error: ${file} cannot be read (${e instanceof Error ? e.message : String(e)}); restore it, or remove it to start anchoring afresh from the current height`,
          { cause: e },
        );
      }
    },
    save: (progress) => writeFileAtomic(file, progressToJson(progress)),
  };
}

/** What anchoring takes from a node being started. */
export interface NodeAnchoringDeps {
  readonly config: NodeConfig;
  readonly protocol: Protocol;
  readonly chain: Blockchain;
  readonly store: Store;
  readonly pool: UtxPool;
  readonly owner: KeyPair;
  /** The node's own transaction through the chain's admission (pool, miner woken, peers), as a client's would go. */
  readonly send: (tx: Transaction) => Promise<Transaction>;
  readonly now: () => bigint;
  readonly log: Logger;
}

/**
 * Anchoring of a node being started, not yet running (start it once the node serves);
 * undefined when the config has no anchoring. Throws WE's initialization errors.
 */
export async function createNodeAnchoring(deps: NodeAnchoringDeps): Promise<Anchoring | undefined> {
  const settings = deps.config.anchoring;
  if (settings === undefined) return undefined;
  const t = settings.targetnet;
  const targetProtocol = await Protocol.create({ crypto: 'waves', chainId: t.schemeByte });
  if (!existsSync(t.wallet.file)) throw new Error(`Anchoring initialization error: the targetnet wallet file '${t.wallet.file}' does not exist`);
  let targetKey;
  try {
    targetKey = Keystore.open(t.wallet.file, targetProtocol.addresses).keyPair(t.nodeRecipientAddress, t.privateKeyPassword);
  } catch (e) {
    throw new Error(
      `Anchoring initialization error: failed to get targetnet KeyPair for '${t.nodeRecipientAddress}' from '${t.wallet.file}': ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
  return new Anchoring({
    settings,
    chain: deps.chain,
    pool: {
      broadcast: deps.send,
      confirmedHeight: (id) => deps.store.transaction(id)?.height,
      pooled: (id) => deps.pool.get(id) !== undefined,
    },
    protocol: deps.protocol,
    targetProtocol,
    owner: deps.owner,
    targetKey,
    clock: realClock(deps.now),
    progress: fileProgressStore(join(deps.config.node.dataDirectory, ANCHORING_PROGRESS_FILE)),
    log: deps.log,
  });
}
