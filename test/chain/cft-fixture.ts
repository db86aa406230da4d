/**
 * CFT chains for the chain and network tests (fork-fixture.ts's nodes under CFT): the top
 * block's validators, and the miner's vote micro-block that finalises it.
 */
import assert from 'node:assert/strict';
import { FEATURE } from '../../src/chain/features.js';
import { CftRules } from '../../src/consensus/rules.js';
import { encodeBase58, equalBytes } from '../../src/crypto/encoding.js';
import { Vote, type Block, type VoteMicroBlock } from '../../src/protocol/blocks.js';
import { chainSettings, minerA, minerB, minerC, p, type Account, type ChainNode } from './fork-fixture.js';

export const CFT = chainSettings(50, 'cft');
export const MINERS = [minerA, minerB, minerC];

export function cftRules(n: ChainNode): CftRules {
  assert.ok(n.rules instanceof CftRules);
  return n.rules;
}

export function generatorOf(block: Block): Account {
  const miner = MINERS.find((m) => equalBytes(m.keyPair.publicKey, block.generator));
  assert.ok(miner !== undefined);
  return miner;
}

/** The top block's validators, as the chain checks its votes. */
export function validatorsOfTop(n: ChainNode): Account[] {
  const ids = cftRules(n)
    .validatorsOf(n.chain.lastBlock(), n.chain.height() - 1, n.chain.state(), n.chain)
    .map(encodeBase58);
  return MINERS.filter((m) => ids.includes(m.b58));
}

export const votesFor = (block: Block, voters: readonly Account[]): Vote[] => voters.map((v) => Vote.sign(p, v.keyPair.privateKey, block.votingHash));

/** Into the sync part of the top block's round (unless past it), then the miner's vote micro-block with the `voters`' votes (all validators by default). */
export function finalise(n: ChainNode, voters: readonly Account[] = validatorsOfTop(n)): VoteMicroBlock {
  const tip = n.chain.lastBlock();
  const syncStart = cftRules(n).poa.rounds.syncStart(tip.timestamp);
  if (n.clock.now < syncStart) n.clock.now = syncStart + 10n;
  const modified = n.chain.features.isActive(FEATURE.PARALLEL_LIQUID_BLOCK, n.chain.height());
  return n.chain.appendOwnVoteMicroBlock(votesFor(tip, voters), generatorOf(tip).keyPair.privateKey, modified).microBlock;
}
