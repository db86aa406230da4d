/**
 * PoA as the chain's ConsensusRules: key-block validation, micro-block timing and the
 * warnings and bans that follow each key block, over the chain's stored headers.
 */
import type { ChainHeaders, ConsensusRules } from '../chain/blockchain.js';
import type { FeatureView } from '../chain/features.js';
import type { ChainSettings } from '../chain/settings.js';
import type { Block } from '../protocol/blocks.js';
import type { MutableState, StateView } from '../state/view.js';
import { PoaConsensus, type ChainHeaders as PoaHeaders } from './poa.js';

/** The chain's headers as the PoA functions read them. */
export function poaHeaders(chain: ChainHeaders): PoaHeaders {
  const known = (h: number): boolean => Number.isInteger(h) && h >= 1 && h <= chain.height();
  return {
    height: () => chain.height(),
    generatorAt: (h) => (known(h) ? chain.generatorAt(h) : undefined),
    timestampAt: (h) => (known(h) ? chain.timestampAt(h) : undefined),
    overallSkippedRoundsAt: (h) => {
      if (!known(h)) return undefined;
      const c = chain.headerAt(h).consensus;
      return c.type === 'pos' ? 0n : c.overallSkippedRounds;
    },
  };
}

export class PoaRules implements ConsensusRules {
  constructor(readonly poa: PoaConsensus) {}

  static fromSettings(settings: ChainSettings, features: FeatureView): PoaRules {
    if (settings.consensus.type !== 'poa') throw new Error(`PoA rules for a ${settings.consensus.type} chain`);
    return new PoaRules(
      new PoaConsensus({
        settings: settings.consensus,
        genesisTimestamp: settings.genesis.blockTimestamp,
        isFeatureActivated: (id, height) => features.isActive(id, height),
      }),
    );
  }

  validateKeyBlock(block: Block, chain: ChainHeaders, state: StateView, now: bigint): void {
    this.poa.validateKeyBlock(state, poaHeaders(chain), block, chain.height(), now);
  }

  validateMicroBlock(keyBlock: Block, timestamp: bigint): void {
    this.poa.checkMicroBlockTimestamp(keyBlock.timestamp, timestamp);
  }

  afterKeyBlock(state: MutableState, block: Block, height: number, chain: ChainHeaders): void {
    this.poa.applyWarningsAndBans(state, this.poa.postAction(state, poaHeaders(chain), block, height - 1));
  }
}
