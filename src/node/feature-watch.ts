/**
 * After each block (WE's BlockchainUpdaterImpl): logs the features the block approved; a
 * feature this node does not implement that is active from that height stops the node
 * when `features.auto-shutdown-on-unsupported-feature` is on (else it logs: the node will
 * end up on a fork).
 */
import type { Blockchain } from '../chain/blockchain.js';
import type { ChainFeatures } from '../chain/features.js';

export interface FeatureWatchDeps {
  readonly chain: Pick<Blockchain, 'on'>;
  readonly features: ChainFeatures;
  /** `features.auto-shutdown-on-unsupported-feature`. */
  readonly autoShutdown: boolean;
  readonly log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Stops the node (once). */
  readonly requestStop: () => void;
}

/** Watches appended blocks; returns the unsubscribe function. */
export function watchFeatures(deps: FeatureWatchDeps): () => void {
  const { features, log } = deps;
  return deps.chain.on((event) => {
    if (event.kind !== 'block') return;
    const height = event.height;
    if (height % features.functionality.featureCheckBlocksPeriod === 0) {
      const approved = [...features.approved()].filter(([, at]) => at === height).map(([id]) => id);
      if (approved.length > 0) log.info({ height, features: approved }, 'features approved');
    }
    const unimplemented = features.unimplementedActive(height);
    if (unimplemented.length === 0) return;
    if (deps.autoShutdown) {
      log.error({ height, features: unimplemented }, 'features this node does not implement are active on the chain: stopping the node');
      deps.requestStop();
    } else if (unimplemented.some((id) => features.activationHeight(id) === height)) {
      log.error({ height, features: unimplemented }, 'features this node does not implement are active on the chain: this node will end up on a fork');
    }
  });
}
