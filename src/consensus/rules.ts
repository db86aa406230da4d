/**
 * The chain's ConsensusRules: PoA (key-block validation, micro-block timing and the
 * warnings and bans that follow each key block) and PoS (key-block validation), over the
 * chain's stored headers. Both record the chain score (the sum of block scores) after
 * each key block.
 */
import type { ChainHeaders, ConsensusRules } from '../chain/blockchain.js';
import type { FeatureView } from '../chain/features.js';
import type { ChainSettings } from '../chain/settings.js';
import type { Block } from '../protocol/blocks.js';
import type { MutableState, StateView } from '../state/view.js';
import { PoaConsensus, type ChainHeaders as PoaHeaders } from './poa.js';
import { PosConsensus, type GeneratingBalances } from './pos.js';
import { poaBlockScore, posBlockScore } from './score.js';

/** A block's score under its consensus data (PoA/CFT from its skipped rounds and timestamp, PoS from its base target). */
export function blockScore(block: Block): bigint {
  const c = block.consensus;
  return c.type === 'pos' ? posBlockScore(c.baseTarget) : poaBlockScore(c.overallSkippedRounds, block.timestamp);
}

/** Records the chain score after a key block at `height`: the parent's plus the block's (the genesis block's counted under height 2). */
export function recordChainScore(state: MutableState, block: Block, height: number, chain: ChainHeaders): void {
  const before = height === 2 ? blockScore(chain.headerAt(1)) : state.chainScore();
  state.setChainScore(before + blockScore(block));
}

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
    recordChainScore(state, block, height, chain);
  }

  blockScore(block: Block): bigint {
    return blockScore(block);
  }
}

/** PoS as the chain's ConsensusRules (WE's PoSConsensus: no micro-block rule, no post action). */
export class PosRules implements ConsensusRules {
  constructor(readonly pos: PosConsensus) {}

  static fromSettings(settings: ChainSettings, features: FeatureView, balances: GeneratingBalances): PosRules {
    if (settings.consensus.type !== 'pos') throw new Error(`PoS rules for a ${settings.consensus.type} chain`);
    return new PosRules(
      new PosConsensus({
        settings: settings.consensus,
        initialBalance: settings.genesis.initialBalance,
        isFeatureActivated: (id, height) => features.isActive(id, height),
        balances,
      }),
    );
  }

  validateKeyBlock(block: Block, chain: ChainHeaders, state: StateView, now: bigint): void {
    this.pos.validateKeyBlock(state, chain, block, now);
  }

  validateMicroBlock(): void {
    // WE's PoS puts no timing rule on micro-blocks (Consensus.microBlockConsensusValidation).
  }

  afterKeyBlock(state: MutableState, block: Block, height: number, chain: ChainHeaders): void {
    recordChainScore(state, block, height, chain);
  }

  blockScore(block: Block): bigint {
    return blockScore(block);
  }
}

/** The rules of the chain's configured consensus. */
export function consensusRulesFor(settings: ChainSettings, features: FeatureView, balances: GeneratingBalances): PoaRules | PosRules {
  return settings.consensus.type === 'pos' ? PosRules.fromSettings(settings, features, balances) : PoaRules.fromSettings(settings, features);
}
