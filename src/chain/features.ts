/**
 * Which blockchain features are active at a height (WE's FeatureProvider), and feature
 * voting (we-node RocksDBWriter / BlockchainUpdaterImpl approval logic, MinerBase
 * `blockFeatures`, features/api/ActivationApiRoute).
 *
 * "Active at height h" ⇔ the feature's activation height is known and ≤ h. Rules ask a
 * `FeatureView`. `PreActivatedFeatures` knows only the configured pre-activated features;
 * `ChainFeatures` adds the features approved by voting, read from the state:
 *
 *   - every key block carries the ids its miner votes for; the votes of the window
 *     [(k−1)·P + 1, k·P] (P = feature-check-blocks-period) are counted in the state;
 *   - when the block at H ≡ 0 (mod P) is appended, each feature voted for in at least
 *     N = blocks-for-feature-activation blocks of that window (block H included) is
 *     APPROVED at H and ACTIVATED at H + P (a feature approved before keeps its height);
 *   - a pre-activated feature is active from its configured height, whatever the votes.
 *
 * Votes and approvals are written through MutableState, so a rollback undoes them.
 */
import type { Block } from '../protocol/blocks.js';
import type { ChainStateReader, MutableState } from '../state/view.js';
import { IMPLEMENTED_FEATURES, type FunctionalitySettings } from './settings.js';

export { FEATURE } from '../protocol/features.js';

/**
 * WE's feature descriptions (BlockchainFeature.description), as error messages quote them:
 * WE 1.14 knows exactly the features Weft implements, so it is the same table.
 */
export const FEATURE_DESCRIPTIONS: ReadonlyMap<number, string> = IMPLEMENTED_FEATURES;

export interface FeatureView {
  /** Whether feature `id` is active at `height` (its activation height is ≤ height). */
  isActive(id: number, height: number): boolean;
  /** The height the feature is (or will be) active from, when known. */
  activationHeight(id: number): number | undefined;
}

/** Features active from the heights configured in `pre-activated-features`; no voting. */
export class PreActivatedFeatures implements FeatureView {
  private readonly heights: ReadonlyMap<number, number>;

  constructor(preActivated: ReadonlyMap<number, number>) {
    this.heights = new Map(preActivated);
  }

  static fromSettings(functionality: FunctionalitySettings): PreActivatedFeatures {
    return new PreActivatedFeatures(functionality.preActivatedFeatures);
  }

  isActive(id: number, height: number): boolean {
    const at = this.heights.get(id);
    return at !== undefined && at <= height;
  }

  activationHeight(id: number): number | undefined {
    return this.heights.get(id);
  }
}

// ---------------------------------------------------------------------------
// Voting

/** WE's Block.MaxFeaturesInBlock. */
export const MAX_FEATURE_VOTES = 64;

/** The voting window holding `height` (1-based: window k is heights (k−1)·P + 1 … k·P). */
export function votingWindow(height: number, period: number): { readonly index: number; readonly first: number; readonly last: number } {
  const index = height < 1 ? 0 : Math.floor((height - 1) / period) + 1;
  return { index, first: (index - 1) * period + 1, last: index * period };
}

/**
 * Counts a key block's votes and, on the last block of a window, approves what reached
 * the threshold (written into `state`, the block's height's changes). Called for every
 * key block appended at `height`.
 */
export function recordFeatureVotes(state: MutableState, block: Block, height: number, functionality: FunctionalitySettings): readonly number[] {
  const period = functionality.featureCheckBlocksPeriod;
  const window = votingWindow(height, period).index;
  state.addFeatureVotes(window, block.featureVotes);
  if (height % period !== 0) return [];
  const approved = state.approvedFeatures();
  const newly = new Map<number, number>();
  for (const [id, votes] of state.featureVotes(window)) {
    if (votes >= functionality.blocksForFeatureActivation && !approved.has(id)) newly.set(id, height);
  }
  if (newly.size > 0) state.approveFeatures(newly);
  return [...newly.keys()].sort((a, b) => a - b);
}

/** `node.features`: which features this node supports (votes for). */
export interface FeatureSupport {
  readonly autoSupportImplementedFeatures: boolean;
  readonly supported: readonly number[];
}

/** Every implemented feature, supported by default (WE's `auto-support-implemented-features = yes`). */
export const SUPPORT_ALL_IMPLEMENTED: FeatureSupport = { autoSupportImplementedFeatures: true, supported: [] };

/** Features this node supports: all implemented ones, or the configured list as given (WE's featuresSupportMode). */
export function supportedFeatures(support: FeatureSupport): ReadonlySet<number> {
  return support.autoSupportImplementedFeatures ? new Set(IMPLEMENTED_FEATURES.keys()) : new Set(support.supported);
}

/**
 * The votes a miner puts into its key block (WE's MinerBase.blockFeatures): supported and
 * implemented features, minus pre-activated ones, minus approved ones — ascending, at most 64.
 */
export function featuresToVote(support: FeatureSupport, functionality: FunctionalitySettings, approved: ReadonlyMap<number, number>): number[] {
  return [...supportedFeatures(support)]
    .filter((id) => IMPLEMENTED_FEATURES.has(id) && !functionality.preActivatedFeatures.has(id) && !approved.has(id))
    .sort((a, b) => a - b)
    .slice(0, MAX_FEATURE_VOTES);
}

/** WE's BlockchainFeatureStatus as `/activation/status` writes it (Undefined is VOTING). */
export type BlockchainFeatureStatus = 'VOTING' | 'APPROVED' | 'ACTIVATED';
/** WE's NodeFeatureStatus. */
export type NodeFeatureStatus = 'NOT_IMPLEMENTED' | 'IMPLEMENTED' | 'VOTED';

/**
 * Feature activation over the chain's state: configured pre-activated features, then
 * features approved by voting (active one check period after approval).
 */
export class ChainFeatures implements FeatureView {
  private readonly preActivated: ReadonlyMap<number, number>;

  constructor(
    readonly functionality: FunctionalitySettings,
    /** The chain's state (normally the store): approvals and vote counts are read from it. */
    private readonly state: ChainStateReader,
  ) {
    this.preActivated = new Map(functionality.preActivatedFeatures);
  }

  /** Approved features: id → approval height. */
  approved(): ReadonlyMap<number, number> {
    return this.state.approvedFeatures();
  }

  approvalHeight(id: number): number | undefined {
    return this.approved().get(id);
  }

  activationHeight(id: number): number | undefined {
    const pre = this.preActivated.get(id);
    if (pre !== undefined) return pre;
    const approvedAt = this.approved().get(id);
    return approvedAt === undefined ? undefined : approvedAt + this.functionality.featureCheckBlocksPeriod;
  }

  isActive(id: number, height: number): boolean {
    const at = this.activationHeight(id);
    return at !== undefined && at <= height;
  }

  /** WE's featureStatus(id, height). */
  status(id: number, height: number): BlockchainFeatureStatus {
    if (this.isActive(id, height)) return 'ACTIVATED';
    const approvedAt = this.approvalHeight(id);
    return approvedAt !== undefined && approvedAt <= height ? 'APPROVED' : 'VOTING';
  }

  /** Votes counted so far in the window holding `height`. */
  votesInWindowOf(height: number): ReadonlyMap<number, number> {
    return this.state.featureVotes(votingWindow(height, this.functionality.featureCheckBlocksPeriod).index);
  }

  /** Features active at `height` (pre-activated or approved) that this node does not implement, ascending. */
  unimplementedActive(height: number): number[] {
    const ids = new Set([...this.preActivated.keys(), ...this.approved().keys()]);
    return [...ids].filter((id) => !IMPLEMENTED_FEATURES.has(id) && this.isActive(id, height)).sort((a, b) => a - b);
  }
}

export interface FeatureActivationStatus {
  readonly id: number;
  readonly description: string;
  readonly blockchainStatus: BlockchainFeatureStatus;
  readonly nodeStatus: NodeFeatureStatus;
  /** When the activation height is known. */
  readonly activationHeight?: number;
  /** Only while VOTING: blocks of the current window voting for it. */
  readonly supportingBlocks?: number;
}

/** `/activation/status`. */
export interface ActivationStatus {
  readonly height: number;
  readonly votingInterval: number;
  readonly votingThreshold: number;
  /** Last height of the current voting window. */
  readonly nextCheck: number;
  readonly features: readonly FeatureActivationStatus[];
}

/**
 * WE's ActivationApiRoute.status at `height`: every feature voted for in the current
 * window, approved, or implemented, by id.
 */
export function activationStatus(features: ChainFeatures, height: number, support: FeatureSupport): ActivationStatus {
  const f = features.functionality;
  const votes = features.votesInWindowOf(height);
  const supported = supportedFeatures(support);
  const ids = [...new Set([...votes.keys(), ...features.approved().keys(), ...IMPLEMENTED_FEATURES.keys()])].sort((a, b) => a - b);
  return {
    height,
    votingInterval: f.featureCheckBlocksPeriod,
    votingThreshold: f.blocksForFeatureActivation,
    nextCheck: votingWindow(height, f.featureCheckBlocksPeriod).last,
    features: ids.map((id) => {
      const blockchainStatus = features.status(id, height);
      const nodeStatus: NodeFeatureStatus = !IMPLEMENTED_FEATURES.has(id) ? 'NOT_IMPLEMENTED' : supported.has(id) ? 'VOTED' : 'IMPLEMENTED';
      const activationHeight = features.activationHeight(id);
      return {
        id,
        description: FEATURE_DESCRIPTIONS.get(id) ?? 'Unknown feature',
        blockchainStatus,
        nodeStatus,
        ...(activationHeight === undefined ? {} : { activationHeight }),
        ...(blockchainStatus === 'VOTING' ? { supportingBlocks: votes.get(id) ?? 0 } : {}),
      };
    }),
  };
}
