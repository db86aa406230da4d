/**
 * The `/consensus` and `/activation` services over a chain: the miner queue and bans
 * (PoA), generating balances (PoS), the chain score and feature activation.
 */
import type { ActivationService, ConsensusService } from '../../api/services.js';
import type { ChainHeaders } from '../../chain/blockchain.js';
import { activationStatus, type ChainFeatures, type FeatureSupport } from '../../chain/features.js';
import type { ConsensusSettings } from '../../chain/settings.js';
import { generatingBalance, type GeneratingBalances } from '../../consensus/pos.js';
import { PoaRules, poaHeaders, type PosRules } from '../../consensus/rules.js';

export interface ConsensusServiceParts {
  readonly settings: ConsensusSettings;
  readonly rules: PoaRules | PosRules;
  /** The chain's headers and score (the Blockchain). */
  readonly chain: ChainHeaders & { score(): bigint };
  /** Effective-balance history (the Store). */
  readonly store: GeneratingBalances;
}

export function consensusService(parts: ConsensusServiceParts): ConsensusService {
  const { settings, rules, chain, store } = parts;
  return {
    settings,
    poa: rules instanceof PoaRules ? rules.poa : undefined,
    headers: poaHeaders(chain),
    generatingBalance: (address, height) => generatingBalance(store, address, height),
    chainScore: () => chain.score(),
  };
}

export function activationService(features: ChainFeatures, height: () => number, support: FeatureSupport): ActivationService {
  return { status: () => activationStatus(features, height(), support) };
}
