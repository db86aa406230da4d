/**
 * The chain's ConsensusRules: PoA (key-block validation, micro-block timing and the
 * warnings and bans that follow each key block), CFT (PoA's, plus finality: votes, the
 * finalised parent, rollback depth and the replacement of an unfinal tip) and PoS
 * (key-block validation), over the chain's stored headers. All record the chain score
 * (the sum of block scores) after each key block.
 */
import type { ChainHeaders, ChainTop, ConsensusRules } from '../chain/blockchain.js';
import type { FeatureView } from '../chain/features.js';
import type { CftSettings, ChainSettings } from '../chain/settings.js';
import { equalBytes, encodeBase58 } from '../crypto/encoding.js';
import { genericError, microBlockOutOfBounds } from '../errors/catalogue.js';
import { LEGACY_GENESIS_BLOCK_VERSION, MODERN_GENESIS_BLOCK_VERSION, type Block, type VoteMicroBlock } from '../protocol/blocks.js';
import type { MutableState, StateView } from '../state/view.js';
import {
  canReplaceUnfinalisedTip,
  isFinalised,
  requireFinalisingVotes,
  requireRollbackDepth,
  validatorsAt as tipValidatorsAt,
  votingWindow,
  type VoteTarget,
} from './cft.js';
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

  validateVoteMicroBlock(_micro: VoteMicroBlock, _chain: ChainTop, _state: StateView): void {
    throw refusedVotes();
  }

  checkRollbackDepth(_blocksToRemove: number, _tip: Block): void {
    // PoA: only max-rollback and the store's depth limit a switch (fork.ts).
  }

  replacesTip(_candidate: Block, _tip: Block, _now: bigint): boolean | undefined {
    return undefined;
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

  validateVoteMicroBlock(): void {
    throw refusedVotes();
  }

  checkRollbackDepth(): void {
    // PoS: only max-rollback and the store's depth limit a switch (fork.ts).
  }

  replacesTip(): undefined {
    return undefined;
  }

  afterKeyBlock(state: MutableState, block: Block, height: number, chain: ChainHeaders): void {
    recordChainScore(state, block, height, chain);
  }

  blockScore(block: Block): bigint {
    return blockScore(block);
  }
}

const refusedVotes = (): Error => genericError('Vote micro-blocks belong to CFT consensus, which this chain does not run');

/**
 * CFT as the chain's ConsensusRules (we-node consensus/CftConsensus): PoA's rules — a
 * CftRules is a PoaRules, so whatever runs PoA's rounds, queue and bans runs them on CFT —
 * plus finality. A key block goes only on a final parent (or genesis) and, when it carries
 * votes (a whole block a peer serves), they must finalise it; a vote micro-block comes in
 * the sync part of its block's round or up to finalization-timeout after it, with enough
 * of the block's validators' votes; a switch of branch takes back one block, two while the
 * tip is unfinal; a key block on the tip's parent replaces an unfinal tip from the next
 * round on, and never a final one.
 */
export class CftRules extends PoaRules {
  constructor(
    poa: PoaConsensus,
    readonly cft: CftSettings,
  ) {
    super(poa);
  }

  static override fromSettings(settings: ChainSettings, features: FeatureView): CftRules {
    if (settings.consensus.type !== 'cft') throw new Error(`CFT rules for a ${settings.consensus.type} chain`);
    const poa = new PoaConsensus({
      settings: settings.consensus,
      genesisTimestamp: settings.genesis.blockTimestamp,
      isFeatureActivated: (id, height) => features.isActive(id, height),
    });
    return new CftRules(poa, settings.consensus);
  }

  /**
   * The validators of `block` (address bytes) on a parent at `parentHeight`, as WE's
   * validateVotes chooses them: the active miners at the block's round end less its miner,
   * shuffled past max-validators.
   */
  validatorsOf(block: Block, parentHeight: number, state: StateView, chain: Pick<ChainTop, 'blockIdAt'>): Uint8Array[] {
    return this.validatorsAt(block, parentHeight, this.poa.rounds.roundEnd(block.timestamp), state, chain);
  }

  /**
   * The validators of `block` with the active miners read at `timestamp`: WE's voters read
   * them at the moment they vote (MinerImplCft.votingAttempt), the checks at the block's
   * round end (validatorsOf); they differ only when the miner set changes inside the round.
   */
  validatorsAt(block: Block, parentHeight: number, timestamp: bigint, state: StateView, chain: Pick<ChainTop, 'blockIdAt'>): Uint8Array[] {
    const p = state.protocol;
    return tipValidatorsAt(
      { state, maxValidators: this.cft.maxValidators, blockIdAt: (h) => chain.blockIdAt(h), fastHash: (data) => p.crypto.fastHash(data) },
      { height: parentHeight + 1, reference: block.reference, miner: p.addresses.fromPublicKey(block.generator).bytes },
      timestamp,
    );
  }

  /** What the top block gathers votes for (its voting hash and validators, as its vote micro-block is checked); none on genesis alone. */
  voteTarget(chain: ChainTop, state: StateView): VoteTarget | undefined {
    if (chain.height() < 2) return undefined;
    const liquid = chain.lastBlock();
    return { votingHash: liquid.votingHash, validators: this.validatorsOf(liquid, chain.height() - 1, state, chain) };
  }

  override validateKeyBlock(block: Block, chain: ChainTop, state: StateView, now: bigint): void {
    const parent = chain.lastBlock();
    const reference = encodeBase58(block.reference);
    if (!equalBytes(parent.id, block.reference)) throw genericError(`Parent block '${reference}' not found`, 'reference');
    const genesisParent = parent.version === LEGACY_GENESIS_BLOCK_VERSION || parent.version === MODERN_GENESIS_BLOCK_VERSION;
    if (!isFinalised(parent.consensus) && !genesisParent) throw genericError(`Parent block '${reference}' is not finalized`, 'reference');
    if (isFinalised(block.consensus)) {
      const validators = this.validatorsOf(block, chain.height(), state, chain);
      requireFinalisingVotes(state.protocol, `Block '${block.idBase58}'`, block.votingHash, block.consensus.votes, validators);
    }
    super.validateKeyBlock(block, chain, state, now);
  }

  /** WE's checkVoteMicroBlockTimestampBounds and validateVotes on the top block. */
  override validateVoteMicroBlock(micro: VoteMicroBlock, chain: ChainTop, state: StateView): void {
    const liquid = chain.lastBlock();
    const { syncStart, finalizationEnd } = votingWindow(this.poa.rounds.timestamps(liquid.timestamp), this.cft);
    if (micro.timestamp < syncStart) throw microBlockOutOfBounds(micro.timestamp, syncStart, 'start', 'VoteMicroBlock');
    if (micro.timestamp > finalizationEnd) throw microBlockOutOfBounds(micro.timestamp, finalizationEnd, 'end', 'VoteMicroBlock');
    const validators = this.validatorsOf(liquid, chain.height() - 1, state, chain);
    requireFinalisingVotes(state.protocol, `Micro-block '${micro.idBase58}'`, liquid.votingHash, micro.votes, validators);
  }

  override checkRollbackDepth(blocksToRemove: number, tip: Block): void {
    requireRollbackDepth(blocksToRemove, tip.consensus);
  }

  override replacesTip(candidate: Block, tip: Block, now: bigint): boolean {
    return canReplaceUnfinalisedTip(this.poa.rounds, now, candidate, tip);
  }
}

/** The rules of the chain's configured consensus. */
export function consensusRulesFor(settings: ChainSettings, features: FeatureView, balances: GeneratingBalances): PoaRules | PosRules {
  switch (settings.consensus.type) {
    case 'pos':
      return PosRules.fromSettings(settings, features, balances);
    case 'cft':
      return CftRules.fromSettings(settings, features);
    default:
      return PoaRules.fromSettings(settings, features);
  }
}
