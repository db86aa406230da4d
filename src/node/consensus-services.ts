/**
 * The `/consensus` and `/activation` services over a chain: what node.ts hands the HTTP
 * layer (and what API tests build over their own chains).
 */
import type { ActivationService, ConsensusService } from '../api/services.js';
import type { ChainHeaders } from '../chain/blockchain.js';
import { activationStatus, type ChainFeatures, type FeatureSupport } from '../chain/features.js';
import type { ConsensusSettings } from '../chain/settings.js';
import { generatingBalance, type GeneratingBalances } from '../consensus/pos.js';
import { blockScore, PoaRules, poaHeaders, type PosRules } from '../consensus/rules.js';

export interface ConsensusServiceParts {
  readonly settings: ConsensusSettings;
  readonly rules: PoaRules | PosRules;
  /** The chain's headers (the Blockchain). */
  readonly chain: ChainHeaders;
  /** Effective-balance history and the chain score (the Store). */
  readonly store: GeneratingBalances & { chainScore(): bigint };
}

export function consensusService(parts: ConsensusServiceParts): ConsensusService {
  const { settings, rules, chain, store } = parts;
  return {
    settings,
    poa: rules instanceof PoaRules ? rules.poa : undefined,
    headers: poaHeaders(chain),
    generatingBalance: (address, height) => generatingBalance(store, address, height),
    // The genesis block's score is first recorded with block 2 (recordChainScore).
    chainScore: () => (chain.height() === 1 ? blockScore(chain.headerAt(1)) : store.chainScore()),
  };
}

export function activationService(features: ChainFeatures, height: () => number, support: FeatureSupport): ActivationService {
  return { status: () => activationStatus(features, height(), support) };
}
