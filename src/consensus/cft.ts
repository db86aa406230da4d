/**
 * CFT consensus (WE 1.14): PoA's rounds, queue and bans (./poa/) plus finality voting —
 * who validates a block, which votes count, when a block is final and what finality
 * allows, and what the miner does about it (who votes when, the next key block on a final
 * tip). The pieces live in ./cft/; this module is their public face. The node does not
 * run CFT yet (node.ts refuses to start it): votes over P2P, the vote micro-block and the
 * finalised-parent and rollback rules in the chain are issue 35's remaining work.
 */
export { LcgRandom, signedBigEndian } from './cft/lcg.js';
export { expectedValidators, seedBlockCount, seedBlockIds, type ValidatorCandidates } from './cft/validators.js';
export {
  allowedRollbackDepth,
  canReplaceUnfinalisedTip,
  CFT_RATIO,
  countVotes,
  finalisingVoteCount,
  hasFinalisingVotes,
  isFinalised,
  requireFinalisingVotes,
  requireRollbackDepth,
  tipFinality,
  votingSatisfaction,
  type TipFacts,
  type TipFinality,
  type VoteCount,
} from './cft/finality.js';
export { VoteTally, type VoteOutcome } from './cft/vote-tally.js';
export {
  gatheringEnded,
  inVotingWindow,
  planVoting,
  validatorsAt,
  votingWindow,
  type CftTiming,
  type ValidatorSource,
  type VotingInput,
  type VotingPlan,
  type VotingTip,
  type VotingWindow,
} from './cft/voting.js';
export { planCftKeyBlock, type CftForgingInput, type CftForgingPlan } from './cft/forging.js';
